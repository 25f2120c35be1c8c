// The x86 kernels' SIMD vocabulary: one float vector type of the widest width
// the compiler targets (AVX-512: 16 lanes, AVX2+FMA: 8), with the handful of
// operations the kernels need. Kernels are written once against it.
#ifndef ONNXC_RT_X86_SIMD_H
#define ONNXC_RT_X86_SIMD_H

#if !(defined(__AVX2__) && defined(__FMA__))
#error "onnxc_rt/kernels/x86 needs AVX2 and FMA (-march=x86-64-v3 or later)"
#endif

#include <immintrin.h>

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
  static VecF add(VecF a, VecF b) { return {_mm512_add_ps(a.v, b.v)}; }
  static VecF max(VecF a, VecF b) { return {_mm512_max_ps(a.v, b.v)}; }
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
  static VecF add(VecF a, VecF b) { return {_mm256_add_ps(a.v, b.v)}; }
  static VecF max(VecF a, VecF b) { return {_mm256_max_ps(a.v, b.v)}; }
};
#endif

} // namespace x86
} // namespace onnxc_rt

#endif
