// The x86 kernels' SIMD vocabulary: one float vector type of the widest width
// the compiler targets (AVX-512: 16 lanes, AVX2+FMA: 8), with the handful of
// operations the kernels need. Kernels are written once against it.
#ifndef ONNXC_RT_X86_SIMD_H
#define ONNXC_RT_X86_SIMD_H

#if !(defined(__AVX2__) && defined(__FMA__))
#error "onnxc_rt/kernels/x86 needs AVX2 and FMA (-march=x86-64-v3 or later)"
#endif

#include <immintrin.h>
#include <stdint.h>

namespace onnxc_rt {
namespace x86 {

#if defined(__AVX512F__)
struct VecF {
  static constexpr int kLanes = 16;
  __m512 v;
  static VecF zero() { return {_mm512_setzero_ps()}; }
  static VecF broadcast(float x) { return {_mm512_set1_ps(x)}; }
  static VecF load(const float *p) { return {_mm512_loadu_ps(p)}; }
  void store(float *p) const { _mm512_storeu_ps(p, v); }
  /// a * b + c in one rounding.
  static VecF fma(VecF a, VecF b, VecF c) { return {_mm512_fmadd_ps(a.v, b.v, c.v)}; }
  using Int = int32_t __attribute__((vector_size(64)));
#include "onnxc_rt/kernels/x86/simd_common.inc"
};
#else
struct VecF {
  static constexpr int kLanes = 8;
  __m256 v;
  static VecF zero() { return {_mm256_setzero_ps()}; }
  static VecF broadcast(float x) { return {_mm256_set1_ps(x)}; }
  static VecF load(const float *p) { return {_mm256_loadu_ps(p)}; }
  void store(float *p) const { _mm256_storeu_ps(p, v); }
  static VecF fma(VecF a, VecF b, VecF c) { return {_mm256_fmadd_ps(a.v, b.v, c.v)}; }
  using Int = int32_t __attribute__((vector_size(32)));
#include "onnxc_rt/kernels/x86/simd_common.inc"
};
#endif

/// e^x to about 2 ulp (Cephes' expf: x = n ln2 + r, |r| <= ln2 / 2, a
/// degree-6 polynomial for e^r, times 2^n), for x clamped to [-87.3, 88]
/// (so 2^n stays a normal float; e^88 = 1.7e38).
inline VecF exp(VecF x) {
  x = VecF::min(VecF::max(x, VecF::broadcast(-87.33654f)), VecF::broadcast(88.0f));
  const VecF n = VecF::round(VecF::mul(x, VecF::broadcast(1.44269504088896341f)));
  // r = x - n ln2, with ln2 split in two for precision.
  VecF r = VecF::fma(n, VecF::broadcast(-0.693359375f), x);
  r = VecF::fma(n, VecF::broadcast(2.12194440e-4f), r);
  VecF p = VecF::broadcast(1.9875691500e-4f);
  p = VecF::fma(p, r, VecF::broadcast(1.3981999507e-3f));
  p = VecF::fma(p, r, VecF::broadcast(8.3334519073e-3f));
  p = VecF::fma(p, r, VecF::broadcast(4.1665795894e-2f));
  p = VecF::fma(p, r, VecF::broadcast(1.6666665459e-1f));
  p = VecF::fma(p, r, VecF::broadcast(5.0000001201e-1f));
  p = VecF::fma(p, VecF::mul(r, r), VecF::add(r, VecF::broadcast(1.0f)));
  return VecF::mul(p, VecF::exp2i(n));
}

} // namespace x86
} // namespace onnxc_rt

#endif
