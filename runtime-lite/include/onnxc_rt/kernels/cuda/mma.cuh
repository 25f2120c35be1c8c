// The tensor-core arithmetics of the matrix products (--precision tf32,
// fp16, bf16; sm_80 and later): one warp's
// mma.sync.aligned.m16n8k8 (TF32) or m16n8k16 (FP16, BF16) with float sums,
// and how a float input becomes the instruction's operand. gemm.cuh's
// tiled_gemm_mma stages its tiles as these operands and loads the
// fragments. In 32-bit words of depth (one TF32 value, or two 16-bit
// values, the lower depth in the low half) the register layouts of the
// PTX ISA ("Matrix fragments for mma.m16n8k8 / mma.m16n8k16") are the
// same for the three, lane = 4 g + t:
//   A (16 x 8 words):  a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
//   B (8 words x 8):   b0 (t, g), b1 (t + 4, g)
//   C, D (16 x 8):     c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1)
// The CPU emulation (test/kernels/cuda_emulation.h) spells the layouts out
// per element, independently of this word form.
#ifndef ONNXC_RT_CUDA_MMA_CUH
#define ONNXC_RT_CUDA_MMA_CUH

#include <stdint.h>

#include "onnxc_rt/kernels/cuda/common.cuh"

namespace onnxc_rt {
namespace cuda {

/// The arithmetic of the matrix products (--precision).
struct Fp32 {}; // float fused multiply-adds on the CUDA cores
struct Tf32 {}; // tensor cores: TF32 products (10-bit mantissas), float sums
struct Fp16 {}; // tensor cores: IEEE half products, float sums
struct Bf16 {}; // tensor cores: bfloat16 products, float sums

namespace detail {

/// 16 bytes, for a whole-vector store to shared memory.
#if defined(ONNXC_CUDA_EMULATED)
struct alignas(16) Words4 {
  uint32_t x, y, z, w;
};
#else
using Words4 = uint4;
#endif

/// Per arithmetic: Element, a staged input (a TF32 value in a float's
/// bits, or a 16-bit value); element(v), float to Element, rounded to
/// nearest (TF32: ties away from zero, as cvt.rna; the others to even);
/// word(v), the operand word of v[0] (and v[1], the higher half), one
/// conversion instruction; mma(d, a, b), d += A B for one m16n8 block of
/// the warp.
template <typename Math> struct Mma;

// The GPU's instructions (sm_80 and later; the target refuses the
// tensor-core precisions below). ONNXC_CUDA_MMA_ASM: one m16n8 product,
// the accumulator in place, for the instruction named.
#if !defined(ONNXC_CUDA_EMULATED) && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800)
#define ONNXC_CUDA_MMA_SM80 1
#define ONNXC_CUDA_MMA_ASM(instruction, d, a, b)                                                \
  asm volatile(instruction " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"  \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#endif

/// The float's bits.
__device__ inline uint32_t bits_of(float v) {
#if defined(ONNXC_CUDA_EMULATED)
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  return u;
#else
  return __float_as_uint(v);
#endif
}

/// cp.async (sm_80): 4 bytes from global to shared memory without passing
/// through registers, zero-filled where not `in` (nothing is read then;
/// `src` still names memory of the tensor). Copies are grouped by
/// copy_commit; copy_wait<N> waits until at most N of this thread's
/// groups are in flight. The emulation copies at once.
__device__ inline void copy_async(float *dst, const float *src, bool in) {
#if defined(ONNXC_CUDA_MMA_SM80)
  const unsigned to = unsigned(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(to), "l"(src),
               "r"(in ? 4 : 0));
#else
  *dst = in ? *src : 0.0f;
#endif
}
__device__ inline void copy_commit() {
#if defined(ONNXC_CUDA_MMA_SM80)
  asm volatile("cp.async.commit_group;");
#endif
}
template <int N> __device__ inline void copy_wait() {
#if defined(ONNXC_CUDA_MMA_SM80)
  asm volatile("cp.async.wait_group %0;" ::"n"(N));
#endif
}

template <> struct Mma<Tf32> {
  using Element = uint32_t;
  __device__ static Element element(float v) {
#if defined(ONNXC_CUDA_EMULATED)
    return cuda_emulation::tf32_bits(v);
#else
    uint32_t u;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(u) : "f"(v));
    return u;
#endif
  }
  __device__ static uint32_t word(const float *v) { return element(v[0]); }
  __device__ static void mma(float d[4], const uint32_t a[4], const uint32_t b[2]) {
#if defined(ONNXC_CUDA_EMULATED)
    cuda_emulation::mma_m16n8(cuda_emulation::MmaInput::tf32, d, a, b);
#elif defined(ONNXC_CUDA_MMA_SM80)
    ONNXC_CUDA_MMA_ASM("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", d, a, b);
#else
    (void)d, (void)a, (void)b;
    __trap();
#endif
  }
};

/// FP16 (kBf16 false) and BF16: two values a word, m16n8k16.
template <bool kBf16> struct Mma16 {
  using Element = uint16_t;
  __device__ static Element element(float v) {
#if defined(ONNXC_CUDA_MMA_SM80)
    uint16_t h;
    if (kBf16)
      asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(v));
    else
      asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
    return h;
#else
    if (!kBf16) {
#if defined(ONNXC_CUDA_EMULATED)
      return cuda_emulation::fp16_bits(v);
#else
      uint16_t h;
      asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
      return h;
#endif
    }
    // bfloat16 by integer rounding, as types.h's: to nearest even, NaN
    // stays NaN.
    const uint32_t u = bits_of(v);
    if ((u & 0x7fffffffu) > 0x7f800000u)
      return uint16_t((u >> 16) | 0x40u);
    return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
#endif
  }
  __device__ static uint32_t word(const float *v) {
#if defined(ONNXC_CUDA_MMA_SM80)
    uint32_t u; // (the first operand goes to the upper half)
    if (kBf16)
      asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(u) : "f"(v[1]), "f"(v[0]));
    else
      asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(u) : "f"(v[1]), "f"(v[0]));
    return u;
#else
    return uint32_t(element(v[0])) | uint32_t(element(v[1])) << 16;
#endif
  }
  __device__ static void mma(float d[4], const uint32_t a[4], const uint32_t b[2]) {
#if defined(ONNXC_CUDA_EMULATED)
    cuda_emulation::mma_m16n8(kBf16 ? cuda_emulation::MmaInput::bf16
                                    : cuda_emulation::MmaInput::fp16,
                              d, a, b);
#elif defined(ONNXC_CUDA_MMA_SM80)
    if (kBf16)
      ONNXC_CUDA_MMA_ASM("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", d, a, b);
    else
      ONNXC_CUDA_MMA_ASM("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", d, a, b);
#else
    (void)d, (void)a, (void)b;
    __trap();
#endif
  }
};
template <> struct Mma<Fp16> : Mma16<false> {};
template <> struct Mma<Bf16> : Mma16<true> {};

} // namespace detail
} // namespace cuda
} // namespace onnxc_rt

#endif
