// Cache blocking of the x86 GEMM and the scratch sizes it implies. Kept free of
// intrinsics so the compiler includes it too: the scratch an op's kernel call
// gets is computed here, once, for both sides.
#ifndef ONNXC_RT_X86_BLOCKING_H
#define ONNXC_RT_X86_BLOCKING_H

#include <stdint.h>

namespace onnxc_rt {
namespace x86 {

/// Register tile: kGemmMR rows of C by two vectors of columns (16 with AVX2,
/// 32 with AVX-512); kGemmMaxNR is the widest, used for scratch sizes.
constexpr int64_t kGemmMR = 6;
constexpr int64_t kGemmMaxNR = 32;
/// Cache blocks: a kc x nc panel of B stays in L2/L3, an mc x kc block of A
/// in L2, a kc x NR sliver of B in L1 while the micro-kernel sweeps A.
constexpr int64_t kGemmKC = 256;
constexpr int64_t kGemmMC = 96;
constexpr int64_t kGemmNC = 512;

constexpr int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }
constexpr int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/// Floats of scratch one m x n x k product needs: packed A and B blocks.
constexpr int64_t gemm_scratch_floats(int64_t m, int64_t n, int64_t k) {
  const int64_t kc = min64(k, kGemmKC) > 0 ? min64(k, kGemmKC) : 1;
  return round_up(min64(m, kGemmMC), kGemmMR) * kc +
         kc * round_up(min64(n, kGemmNC), kGemmMaxNR);
}

/// Rows (or columns) of the zero-padded input plane a depthwise convolution
/// reads; the plane is its scratch.
constexpr int64_t padded_extent(int64_t out, int64_t k, int64_t stride, int64_t dilation) {
  return (out - 1) * stride + (k - 1) * dilation + 1;
}

} // namespace x86
} // namespace onnxc_rt

#endif
