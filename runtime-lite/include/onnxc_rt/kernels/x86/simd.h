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
  /// Stores lanes [0, n) (0 < n <= kLanes) and nothing past them.
  void store_first(float *p, int64_t n) const {
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << n) - 1u), v);
  }
  /// Lanes [0, n) from p (0 < n <= kLanes), the rest zero; reads nothing past them.
  static VecF load_first(const float *p, int64_t n) {
    return {_mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1u), p)};
  }
  /// even[i] = src[2i], odd[i] = src[2i + 1] for i < kLanes.
  static void deinterleave(const float *src, float *even, float *odd) {
    const __m512 a = _mm512_loadu_ps(src), b = _mm512_loadu_ps(src + 16);
    const __m512i ie = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i io = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    _mm512_storeu_ps(even, _mm512_permutex2var_ps(a, ie, b));
    _mm512_storeu_ps(odd, _mm512_permutex2var_ps(a, io, b));
  }
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
  /// All ones in lanes [0, n).
  static __m256i first_lanes(int64_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  void store_first(float *p, int64_t n) const { _mm256_maskstore_ps(p, first_lanes(n), v); }
  static VecF load_first(const float *p, int64_t n) {
    return {_mm256_maskload_ps(p, first_lanes(n))};
  }
  static void deinterleave(const float *src, float *even, float *odd) {
    const __m256 a = _mm256_loadu_ps(src), b = _mm256_loadu_ps(src + 8);
    // [a0 a2 b0 b2 | a4 a6 b4 b6], then its 64-bit lanes reordered 0 2 1 3.
    const __m256 e = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
    const __m256 o = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
    _mm256_storeu_ps(even, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xd8)));
    _mm256_storeu_ps(odd, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(o), 0xd8)));
  }
  using Int = int32_t __attribute__((vector_size(32)));
#include "onnxc_rt/kernels/x86/simd_common.inc"
};
#endif

/// The sum of v's lanes (in lane order).
inline float reduce_add(VecF v) {
  alignas(64) float lanes[VecF::kLanes];
  v.store(lanes);
  float s = 0;
  for (int l = 0; l < VecF::kLanes; ++l)
    s += lanes[l];
  return s;
}

/// The largest of v's lanes (lane 0 starts, only a greater one replaces it).
inline float reduce_max(VecF v) {
  alignas(64) float lanes[VecF::kLanes];
  v.store(lanes);
  float m = lanes[0];
  for (int l = 1; l < VecF::kLanes; ++l)
    m = lanes[l] > m ? lanes[l] : m;
  return m;
}

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
