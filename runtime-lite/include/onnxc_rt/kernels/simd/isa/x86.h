// The x86 vector type of the SIMD kernels: VecF of the widest width the
// compiler targets (AVX-512: 16 lanes, AVX2+FMA: 8), with the operations
// simd/vec.h documents. Included by simd/vec.h only.
#ifndef ONNXC_RT_SIMD_ISA_X86_H
#define ONNXC_RT_SIMD_ISA_X86_H

#if !(defined(__AVX2__) && defined(__FMA__))
#error "onnxc_rt/kernels/simd on x86 needs AVX2 and FMA (-march=x86-64-v3 or later)"
#endif

#include <immintrin.h>
#include <stdint.h>

namespace onnxc_rt {
namespace simd {

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
  /// The even and odd lanes of the 2 * kLanes floats a, b (a first):
  /// even[i] = ab[2i], odd[i] = ab[2i + 1].
  static void deinterleave(VecF a, VecF b, VecF &even, VecF &odd) {
    const __m512i ie = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i io = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    even.v = _mm512_permutex2var_ps(a.v, ie, b.v);
    odd.v = _mm512_permutex2var_ps(a.v, io, b.v);
  }
  /// Transposes the kLanes x kLanes matrix whose rows are r[0..kLanes).
  /// Generic shuffles (GCC 12 warns falsely inside the AVX-512 unpack and
  /// lane-shuffle intrinsics; GCC 12 and Clang both take
  /// __builtin_shufflevector); they compile to the same instructions.
  static void transpose(VecF (&r)[16]) {
    // 32-bit, then 64-bit interleaves within 128-bit lanes, then the lanes.
    auto lo32 = [](__m512 a, __m512 b) -> __m512 {
      return __builtin_shufflevector(a, b, 0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13,
                                     29);
    };
    auto hi32 = [](__m512 a, __m512 b) -> __m512 {
      return __builtin_shufflevector(a, b, 2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15,
                                     31);
    };
    auto lo64 = [](__m512 a, __m512 b) -> __m512 {
      return __builtin_shufflevector(a, b, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28,
                                     29);
    };
    auto hi64 = [](__m512 a, __m512 b) -> __m512 {
      return __builtin_shufflevector(a, b, 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30,
                                     31);
    };
    auto even128 = [](__m512 a, __m512 b) -> __m512 {
      return __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26,
                                     27);
    };
    auto odd128 = [](__m512 a, __m512 b) -> __m512 {
      return __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30,
                                     31);
    };
    __m512 t[16], u[16];
    for (int i = 0; i < 16; i += 2) {
      t[i] = lo32(r[i].v, r[i + 1].v);
      t[i + 1] = hi32(r[i].v, r[i + 1].v);
    }
    for (int i = 0; i < 16; i += 4) {
      u[i] = lo64(t[i], t[i + 2]);
      u[i + 1] = hi64(t[i], t[i + 2]);
      u[i + 2] = lo64(t[i + 1], t[i + 3]);
      u[i + 3] = hi64(t[i + 1], t[i + 3]);
    }
    // u[4q + k] holds element k of rows 4q..4q+3 in each 128-bit lane; the
    // lanes are then gathered across the four groups.
    for (int k = 0; k < 4; ++k) {
      t[k] = even128(u[k], u[4 + k]);
      t[4 + k] = odd128(u[k], u[4 + k]);
      t[8 + k] = even128(u[8 + k], u[12 + k]);
      t[12 + k] = odd128(u[8 + k], u[12 + k]);
    }
    for (int k = 0; k < 4; ++k) {
      r[k].v = even128(t[k], t[8 + k]);
      r[4 + k].v = even128(t[4 + k], t[12 + k]);
      r[8 + k].v = odd128(t[k], t[8 + k]);
      r[12 + k].v = odd128(t[4 + k], t[12 + k]);
    }
  }
  /// simd/vec.h's exp in fewer instructions: |x| clamped to `bound`, the
  /// sign kept, by one VRANGEPS (imm 0x02: the smaller magnitude, src1's
  /// sign); 2^(j/16) for j the low 4 bits of each lane's encoding by one
  /// VPERMPS from a register table (the lanes hold n + 1.5 * 2^19, whose
  /// last 4 bits are n's sixteenths); p * 2^floor(n) by one VSCALEFPS.
  /// Masked forms: GCC 12 warns falsely in the unmasked ones.
  static VecF clamp_magnitude(VecF x, float bound) {
    return {_mm512_maskz_range_ps(0xFFFF, x.v, _mm512_set1_ps(bound), 0x02)};
  }
  static VecF exp2_sixteenths(VecF biased) {
    const __m512 table = _mm512_setr_ps(
        0x1.000000p+0f, 0x1.0b5586p+0f, 0x1.172b84p+0f, 0x1.2387a6p+0f, 0x1.306fe0p+0f,
        0x1.3dea64p+0f, 0x1.4bfdaep+0f, 0x1.5ab07ep+0f, 0x1.6a09e6p+0f, 0x1.7a1148p+0f,
        0x1.8ace54p+0f, 0x1.9c4918p+0f, 0x1.ae89fap+0f, 0x1.c199bep+0f, 0x1.d5818ep+0f,
        0x1.ea4afap+0f);
    return {_mm512_maskz_permutexvar_ps(0xFFFF, _mm512_castps_si512(biased.v), table)};
  }
  static VecF scale_exp2(VecF p, VecF n) { return {_mm512_maskz_scalef_ps(0xFFFF, p.v, n.v)}; }
  /// A lane permutation (simd/f32/channel_gather.h): permute_merge(acc,
  /// mask, index, src) is acc with each lane l that `mask` names replaced
  /// by src's lane index[l] (one merging VPERMPS).
  using LaneIndex = __m512i;
  static LaneIndex lane_index(const int32_t *index) { return _mm512_loadu_si512(index); }
  static VecF permute_merge(VecF acc, uint32_t mask, LaneIndex index, VecF src) {
    return {_mm512_mask_permutexvar_ps(acc.v, static_cast<__mmask16>(mask), index, src.v)};
  }
  using Int = int32_t __attribute__((vector_size(64)));
#include "onnxc_rt/kernels/simd/isa/vector_ops.inc"
#include "onnxc_rt/kernels/simd/isa/x86_traits.inc"
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
  static void deinterleave(VecF a, VecF b, VecF &even, VecF &odd) {
    // [a0 a2 b0 b2 | a4 a6 b4 b6], then its 64-bit lanes reordered 0 2 1 3.
    const __m256 e = _mm256_shuffle_ps(a.v, b.v, _MM_SHUFFLE(2, 0, 2, 0));
    const __m256 o = _mm256_shuffle_ps(a.v, b.v, _MM_SHUFFLE(3, 1, 3, 1));
    even.v = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xd8));
    odd.v = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(o), 0xd8));
  }
  static void transpose(VecF (&r)[8]) {
    __m256 t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
      t[i] = _mm256_unpacklo_ps(r[i].v, r[i + 1].v);
      t[i + 1] = _mm256_unpackhi_ps(r[i].v, r[i + 1].v);
    }
    for (int i = 0; i < 8; i += 4) {
      u[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
      u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
      u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
      u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int k = 0; k < 4; ++k) {
      r[k].v = _mm256_permute2f128_ps(u[k], u[4 + k], 0x20);
      r[4 + k].v = _mm256_permute2f128_ps(u[k], u[4 + k], 0x31);
    }
  }
  using Int = int32_t __attribute__((vector_size(32)));
#include "onnxc_rt/kernels/simd/isa/vector_ops.inc"
#include "onnxc_rt/kernels/simd/isa/x86_traits.inc"
};
#endif

/// VecI: int32 lanes of VecF's width, for the integer (qs8) kernels.
/// Lane-wise arithmetic is GCC/Clang vector arithmetic; the byte dot
/// product, the 64-bit high multiply and the narrowing stores are
/// intrinsics. dot_u8s8 is vpdpbusd where the target has VNNI (AVX512-VNNI,
/// or AVX-VNNI on 256-bit vectors) and otherwise the same sums through
/// vpmaddwd on bytes widened to 16 bits: exact either way (vpmaddubsw is
/// not used: its 16-bit pair sums saturate).
struct VecI {
#if defined(__AVX512F__)
  static constexpr int kLanes = 16;
  using Int = int32_t __attribute__((vector_size(64)));
  using Raw = __m512i;
#else
  static constexpr int kLanes = 8;
  using Int = int32_t __attribute__((vector_size(32)));
  using Raw = __m256i;
#endif
  Int v;
#if defined(__AVX512BW__)
#define ONNXC_RT_SIMD_ISA_HAS_STORE_NARROW_CLAMPED
#endif
#if defined(__AVX512F__)
#define ONNXC_RT_SIMD_ISA_HAS_REQUANTIZE
#endif
#include "onnxc_rt/kernels/simd/isa/int_ops.inc"
#undef ONNXC_RT_SIMD_ISA_HAS_STORE_NARROW_CLAMPED
#undef ONNXC_RT_SIMD_ISA_HAS_REQUANTIZE
#if defined(__AVX512F__)
  /// reference/qs8.h's multiply_by_quantized_multiplier lane by lane:
  /// floor((x * multiplier + 2^(30 + right)) / 2^(31 + right)) as
  /// ((p >> (30 + right)) + 1) >> 1 of the exact 64-bit products p
  /// (vpmuldq of the even lanes, and of the odd ones moved down by
  /// vpshufd; vpsravq by each lane's own count; the odd quotients moved
  /// back up), the same integers as int_ops.inc's truncated doubling high
  /// product and rounding shift after it, in fewer instructions on port 0
  /// (the port of the dot products): 5 against 8, and no per-lane shift
  /// constants to build beyond the two counts (int8 conv2d on
  /// qs8_conv_bench 4% faster, ResNet-18's 3x3 layers 4-8%). right in
  /// [1, 31] (split_shift's).
  static VecI multiply_by_quantized_multiplier_down(VecI x, VecI multiplier, VecI right) {
    constexpr __mmask8 q = 0xFF;
    constexpr __mmask16 d = 0xFFFF;
    // floor(p / 2^(30 + right)) of each product p fits in int32 (right >= 1).
    const __m512i shifts = _mm512_maskz_add_epi32(d, right.raw(), _mm512_set1_epi32(30));
    const __m512i even_shift = _mm512_maskz_and_epi64(q, shifts, _mm512_set1_epi64(0xFFFFFFFF));
    const __m512i odd_shift = _mm512_maskz_srli_epi64(q, shifts, 32);
    const __m512i even = _mm512_maskz_srav_epi64(
        q, _mm512_maskz_mul_epi32(q, x.raw(), multiplier.raw()), even_shift);
    const __m512i odd_x = _mm512_maskz_shuffle_epi32(d, x.raw(), _MM_PERM_DDBB);
    const __m512i odd_m = _mm512_maskz_shuffle_epi32(d, multiplier.raw(), _MM_PERM_DDBB);
    const __m512i odd =
        _mm512_maskz_srav_epi64(q, _mm512_maskz_mul_epi32(q, odd_x, odd_m), odd_shift);
    // Each quotient is its 64-bit lane's low half (the odd ones copied up);
    // then the last halving, rounding half up.
    const __m512i h =
        _mm512_mask_blend_epi32(0xAAAA, even, _mm512_maskz_shuffle_epi32(d, odd, _MM_PERM_CCAA));
    return of(_mm512_maskz_srai_epi32(d, _mm512_maskz_add_epi32(d, h, _mm512_set1_epi32(1)), 1));
  }
  /// The same after x << left saturated to int32 (int_ops.inc's form).
  static VecI multiply_by_quantized_multiplier(VecI x, VecI multiplier, VecI left, VecI right) {
    const Int hi = broadcast(INT32_MAX).v >> left.v, lo = broadcast(INT32_MIN).v >> left.v;
    const Int scaled = x.v > hi ? broadcast(INT32_MAX).v
                                : (x.v < lo ? broadcast(INT32_MIN).v : x.v << left.v);
    return multiply_by_quantized_multiplier_down({scaled}, multiplier, right);
  }
#endif
#if defined(__AVX512BW__)
  /// clamp(r[j] + y_zp, act_min, act_max) narrowed to T (int8 or uint8)
  /// and stored one after another, every lane ([act_min, act_max] within
  /// T's range): four vectors at a time by saturating packs (to 16 bits,
  /// + y_zp saturated, to T), one vpermd to put the packs' 128-bit
  /// interleaving in order and one clamp of all 64 bytes: 9 instructions
  /// where vector by vector (+ y_zp, clamp, vpmovdb's two uops) took 20.
  /// Exact: a value the packs saturate lies beyond T's range either way.
  template <int N, typename T>
  static void store_narrow_clamped(T *p, const VecI (&r)[N], VecI y_zp, VecI act_min,
                                   VecI act_max) {
    static_assert(sizeof(T) == 1, "bytes");
    constexpr bool kSigned = T(-1) < T(0);
    const __m512i zp = _mm512_packs_epi32(y_zp.raw(), y_zp.raw());
    const __m512i lo16 = _mm512_packs_epi32(act_min.raw(), act_min.raw()),
                  hi16 = _mm512_packs_epi32(act_max.raw(), act_max.raw());
    const __m512i lo = kSigned ? _mm512_packs_epi16(lo16, lo16) : _mm512_packus_epi16(lo16, lo16);
    const __m512i hi = kSigned ? _mm512_packs_epi16(hi16, hi16) : _mm512_packus_epi16(hi16, hi16);
    // Dword k of 128-bit lane j holds vector k's bytes 4 j .. 4 j + 3.
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    auto words = [&](VecI a, VecI b) {
      return _mm512_adds_epi16(_mm512_packs_epi32(a.raw(), b.raw()), zp);
    };
    auto bytes = [&](__m512i a, __m512i b) {
      const __m512i packed = kSigned ? _mm512_packs_epi16(a, b) : _mm512_packus_epi16(a, b);
      const __m512i ordered = _mm512_maskz_permutexvar_epi32(0xFFFF, order, packed);
      return kSigned ? _mm512_min_epi8(_mm512_max_epi8(ordered, lo), hi)
                     : _mm512_min_epu8(_mm512_max_epu8(ordered, lo), hi);
    };
    int j = 0;
    for (; j + 4 <= N; j += 4)
      _mm512_storeu_si512(p + j * kLanes, bytes(words(r[j], r[j + 1]), words(r[j + 2], r[j + 3])));
    if (j + 2 <= N) { // a pair: the low 32 bytes, under a mask (GCC 12
                      // warns inside the casts to narrower vectors)
      const __m512i w = words(r[j], r[j + 1]);
      _mm512_mask_storeu_epi8(p + j * kLanes, __mmask64(0xFFFFFFFFu), bytes(w, w));
      j += 2;
    }
    if (j < N) // one: vector by vector is as short
      min(max(add(r[j], y_zp), act_min), act_max).store_narrow(p + j * kLanes, kLanes);
  }
#endif
  /// acc + a * b per lane where a's lanes hold 16-bit signed values and b's
  /// lanes a 16-bit signed value in their low half, 0 in the high half:
  /// vpmaddwd (a.lo * b.lo + a.hi * 0) instead of vpmulld's two uops, and
  /// with AVX512-VNNI vpdpwssd, the same product added in one instruction.
  static VecI mla_short(VecI acc, VecI a, VecI b) {
#if defined(__AVX512F__) && defined(__AVX512VNNI__)
    return of(_mm512_dpwssd_epi32(acc.raw(), a.raw(), b.raw()));
#elif defined(__AVX512F__)
    return {acc.v + reinterpret_cast<Int>(_mm512_madd_epi16(a.raw(), b.raw()))};
#else
    return {acc.v + reinterpret_cast<Int>(_mm256_madd_epi16(a.raw(), b.raw()))};
#endif
  }
  /// The channel-blocked depthwise convolution's widened inputs: int32,
  /// whose lanes mla_short reads as they are (in memory: vpdpwssd's
  /// operand, no widening per tap).
  using BandLane = int32_t;
  /// w[0, N * kLanes) (16-bit weights) as N vectors in mla_short's form,
  /// for mla_widened_lanes.
  template <int N> static void lane_weights(const int16_t *w, VecI (&out)[N]) {
    for (int j = 0; j < N; ++j) {
#if defined(__AVX512F__)
      out[j] = of(_mm512_maskz_cvtepu16_epi32(
          0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(w + j * kLanes))));
#else
      out[j] = of(_mm256_cvtepu16_epi32(
          _mm_loadu_si128(reinterpret_cast<const __m128i *>(w + j * kLanes))));
#endif
    }
  }
  Raw raw() const { return reinterpret_cast<Raw>(v); }
  static VecI of(Raw r) { return {reinterpret_cast<Int>(r)}; }

  /// Whether dot_u8s8 takes 16-bit lanes (vpmaddwd: AVX2, AVX-512 without
  /// VNNI) rather than one instruction (vpdpbusd): a kernel that multiplies
  /// one operand by several others may then widen it once (widen_u8,
  /// widen_s8, dot_widened) rather than in every dot_u8s8
  /// (simd/qs8/tile.h's broadcast_step).
#if (defined(__AVX512F__) && defined(__AVX512VNNI__)) ||                                         \
    (!defined(__AVX512F__) && defined(__AVXVNNI__))
  static constexpr bool kWidenedDots = false;
#else
  static constexpr bool kWidenedDots = true;
#endif
  /// dot_u8s8 split for loops that share s (see neon.h): on x86 the part
  /// is the whole product and the rest zero, and u is packed as it is.
  static constexpr uint8_t kPackedFlip = 0;
  static VecI dot_part(VecI acc, VecI u, VecI s) { return dot_u8s8(acc, u, s); }
  /// Whether the int8 depthwise convolution sums quads of taps by dot_part
  /// (simd/qs8/depthwise.h's kQuadDepthwise; the compiler's Qs8Packing says
  /// the same: targets/x86-64/X86Target.cpp). Not with AVX512-VNNI: with
  /// vpdpbusd its products take a ninth of the time and building the quads
  /// takes the rest back (MobileNetV2 int8 on x86-64-vnni 2% slower,
  /// EfficientNet-B0 even): the step is bound by the per-channel
  /// requantization (vpmuldq). On AVX2, two vpmaddwd a quad against four
  /// of the widened taps': bench/qs8_conv_bench.cpp's depthwise layers 14%
  /// faster on an AMD EPYC (Zen). AVX-512 without VNNI (x86-64-avx512)
  /// keeps the widened taps: not measured there.
#if defined(__AVX512F__)
  static constexpr bool kDepthwiseQuads = false;
#else
  static constexpr bool kDepthwiseQuads = true;
#endif
  /// Whether the int8 depthwise convolution may read its taps in place from
  /// a plane's padded rows (simd/qs8/depthwise.h's depthwise_rows): each
  /// lane a window of four bytes (byte_windows), dot_u8s8 by the kernel
  /// row's weights. Where dot_u8s8 is one instruction (AVX512-VNNI's
  /// vpdpbusd; emulated on AVX2 it ran EfficientNet's 5x5 layer 1.5x
  /// slower than the blocked form); not on NEON, whose quads are the
  /// blocked form's.
#if defined(__AVX512F__) && defined(__AVX512VNNI__)
  static constexpr bool kByteWindows = true;
  /// Lane i holds p[S i], p[S i + 1], p[S i + 2], p[S i + 3] (S 1 or 2):
  /// vpermd puts each 128-bit lane's first dword at 4 S k bytes in, then
  /// vpshufb takes the four windows from the lane's 16 bytes. Reads 64
  /// bytes from p.
  template <int S> static VecI byte_windows(const uint8_t *p) {
    static_assert(S == 1 || S == 2, "windows at a stride of 1 or 2 bytes");
#if defined(__AVX512VBMI__)
    // One byte permutation (vpermb): lane i's bytes S i .. S i + 3.
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return byte_gather(p, of(_mm512_maskz_add_epi32(
                              0xFFFF, _mm512_set1_epi32(0x03020100),
                              _mm512_maskz_mullo_epi32(0xFFFF, lane,
                                                       _mm512_set1_epi32(S * 0x01010101)))));
#endif
    const __m128i pick = S == 1 ? _mm_setr_epi8(0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6)
                                : _mm_setr_epi8(0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7, 6, 7, 8, 9);
    const __m512i lanes =
        S == 1 ? _mm512_setr_epi32(0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6)
               : _mm512_setr_epi32(0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7, 6, 7, 8, 9);
    const __m512i moved = _mm512_maskz_permutexvar_epi32(
        0xFFFF, lanes, _mm512_loadu_si512(reinterpret_cast<const void *>(p)));
    return of(_mm512_shuffle_epi8(moved, _mm512_maskz_broadcast_i32x4(0xFFFF, pick)));
  }
#if defined(__AVX512VBMI__)
  /// Whether byte_gather exists: vpermb's any byte of 64 into any lane's.
  static constexpr bool kByteGather = true;
  /// Byte k of the result is p[index byte k] (index bytes < 64; reads 64
  /// bytes from p).
  static VecI byte_gather(const uint8_t *p, VecI index) {
    return of(_mm512_maskz_permutexvar_epi8(
        ~__mmask64(0), index.raw(), _mm512_loadu_si512(reinterpret_cast<const void *>(p))));
  }
  /// Whether byte_permute2 exists: vpermt2b's any byte of two 64-byte tables.
  static constexpr bool kBytePermute2 = true;
  /// Byte k of the result: byte index[k] of the 64 bytes at p (only those
  /// under `mask` read) XORed with `flip`, or `fill` where index[k] >= 64
  /// (simd/qs8/depthwise.h's depthwise_small: the input plane's bytes made
  /// unsigned, and its padding).
  static VecI byte_permute2(const uint8_t *p, uint64_t mask, VecI index, VecI flip, VecI fill) {
    const __m512i bytes = _mm512_xor_si512(_mm512_maskz_loadu_epi8(mask, p), flip.raw());
    return of(_mm512_permutex2var_epi8(bytes, index.raw(), fill.raw()));
  }
  /// Byte k of the result: byte index[k] of the n bytes at p (n <= 64;
  /// nothing past them read), or 0 where bit k of `keep` is clear
  /// (simd/qs8/depthwise.h's quad_weights).
  static VecI pick_bytes(const int8_t *p, int64_t n, VecI index, uint64_t keep) {
    const __m512i bytes =
        _mm512_maskz_loadu_epi8(n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1, p);
    return of(_mm512_maskz_permutexvar_epi8(keep, index.raw(), bytes));
  }
  /// Lane l of v in every lane (vpermd: no trip through memory; the
  /// masked forms: GCC 12 warns of the plain ones' undefined pass-through).
  static VecI lane(VecI v, int64_t l) {
    return of(_mm512_maskz_permutexvar_epi32(0xFFFF, _mm512_set1_epi32(static_cast<int>(l)),
                                             v.raw()));
  }
  /// The sum of v's lanes, in registers (halves added four times).
  static int32_t sum_lanes(VecI v) {
    constexpr __mmask16 d = 0xFFFF;
    __m512i s = v.raw();
    s = _mm512_add_epi32(s, _mm512_maskz_shuffle_i32x4(d, s, s, 0x4E));
    s = _mm512_add_epi32(s, _mm512_maskz_shuffle_i32x4(d, s, s, 0xB1));
    s = _mm512_add_epi32(s, _mm512_maskz_shuffle_epi32(d, s, _MM_PERM_BADC));
    s = _mm512_add_epi32(s, _mm512_maskz_shuffle_epi32(d, s, _MM_PERM_CDAB));
    return _mm512_cvtsi512_si32(s);
  }
#else
  static constexpr bool kByteGather = false;
  static constexpr bool kBytePermute2 = false;
#endif
#else
  static constexpr bool kByteWindows = false;
  static constexpr bool kByteGather = false;
  static constexpr bool kBytePermute2 = false;
#endif
  /// The bytes padded_plane's stores cover from a row's start (rows of
  /// `pitch` bytes): up to 63 past the row.
  static int64_t padded_plane_span(int64_t pitch) {
    return pitch <= 16 ? 16 : pitch <= 32 ? 32 : (pitch + 63) / 64 * 64;
  }
  /// qs8/common.h's pad_flipped_plane with AVX512BW's byte masks (else
  /// false, nothing written; conv_staging.h's pad_plane too, flip 0, ph
  /// less its share's first row): row r of `pitch` bytes is input row r - ph
  /// XORed with `flip` at column pw, or `pad` outside the input. Each row
  /// one load under a byte mask (the input's bytes, `pad` around them), an
  /// XOR and a store of 16, 32 or 64 bytes, the mask made once; rows of
  /// more than 64 bytes (up to 512) the same 64 bytes at a time, each
  /// step's mask its share of the input's columns. Filling the plane and
  /// copying the rows over it, 16 bytes a store, stored most bytes twice
  /// (qs8_conv_bench, Zen 5: MobileNetV2's 96 @112 stride 2, rows of 113
  /// bytes, 92-95 -> 84 us, 66 with the steps' masks made once a plane).
  /// The rows in order, each store's bytes past its row rewritten by the
  /// next row's, the last one's past the plane (up to 63 bytes: the
  /// caller's slack).
  static bool padded_plane(const uint8_t *x, int64_t h, int64_t w, int64_t ph, int64_t pw,
                           int64_t rows, int64_t pitch, uint8_t pad, uint8_t flip,
                           uint8_t *plane) {
#if defined(__AVX512BW__)
    if (pw + w > pitch)
      return false;
    const char p = static_cast<char>(pad ^ flip), f = static_cast<char>(flip);
    if (pitch > 64) {
      // Step k's bytes [64 k, 64 k + 64) of a row: input columns [lo, hi)
      // of them, the same for every row: masks[k], made once a plane (made
      // for every row, they cost 96 @112 stride 2 a quarter of its time).
      constexpr int64_t kSteps = 8;
      const int64_t steps = padded_plane_span(pitch) / 64;
      if (steps > kSteps)
        return false;
      __mmask64 masks[kSteps];
      for (int64_t k = 0; k < steps; ++k) {
        const int64_t lo = pw - 64 * k > 0 ? pw - 64 * k : 0;
        const int64_t hi = pw + w - 64 * k < 64 ? pw + w - 64 * k : 64;
        const uint64_t below_hi = hi >= 64 ? ~uint64_t(0) : (uint64_t(1) << hi) - 1;
        masks[k] = hi <= lo ? 0 : __mmask64(below_hi & (~uint64_t(0) << lo));
      }
      const __m512i vp = _mm512_set1_epi8(p), vf = _mm512_set1_epi8(f);
      const __m512i padding = _mm512_set1_epi8(static_cast<char>(pad));
      for (int64_t r = 0; r < rows; ++r) {
        uint8_t *dst = plane + r * pitch;
        if (r < ph || r - ph >= h) {
          for (int64_t k = 0; k < steps; ++k)
            _mm512_storeu_si512(dst + 64 * k, padding);
          continue;
        }
        // From pw bytes before the row: only the masked-in bytes are read.
        const uintptr_t at = reinterpret_cast<uintptr_t>(x + (r - ph) * w) - uintptr_t(pw);
        for (int64_t k = 0; k < steps; ++k) {
          const __m512i v = _mm512_mask_loadu_epi8(
              vp, masks[k], reinterpret_cast<const void *>(at + uintptr_t(64 * k)));
          _mm512_storeu_si512(dst + 64 * k, _mm512_xor_si512(v, vf));
        }
      }
      return true;
    }
    const uint64_t in = (w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1) << pw;
    auto each_row = [&](auto load, auto fill, auto store) {
      for (int64_t r = 0; r < rows; ++r) {
        uint8_t *dst = plane + r * pitch;
        if (r < ph || r - ph >= h) {
          store(dst, fill);
          continue;
        }
        // From pw bytes before the row: only the masked-in bytes are read.
        const uintptr_t at = reinterpret_cast<uintptr_t>(x + (r - ph) * w) - uintptr_t(pw);
        store(dst, load(reinterpret_cast<const void *>(at)));
      }
    };
    if (pitch <= 16) {
      const __m128i vp = _mm_set1_epi8(p), vf = _mm_set1_epi8(f);
      each_row([&](const void *at) { return _mm_mask_loadu_epi8(vp, __mmask16(in), at); },
               vp, [&](uint8_t *dst, __m128i v) {
                 _mm_storeu_si128(reinterpret_cast<__m128i *>(dst), _mm_xor_si128(v, vf));
               });
    } else if (pitch <= 32) {
      const __m256i vp = _mm256_set1_epi8(p), vf = _mm256_set1_epi8(f);
      each_row([&](const void *at) { return _mm256_mask_loadu_epi8(vp, __mmask32(in), at); },
               vp, [&](uint8_t *dst, __m256i v) {
                 _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst), _mm256_xor_si256(v, vf));
               });
    } else {
      const __m512i vp = _mm512_set1_epi8(p), vf = _mm512_set1_epi8(f);
      each_row([&](const void *at) { return _mm512_mask_loadu_epi8(vp, __mmask64(in), at); },
               vp, [&](uint8_t *dst, __m512i v) {
                 _mm512_storeu_si512(dst, _mm512_xor_si512(v, vf));
               });
    }
    return true;
#else
    (void)x, (void)h, (void)w, (void)ph, (void)pw, (void)rows, (void)pitch, (void)pad,
        (void)flip, (void)plane;
    return false;
#endif
  }
  /// No dot product by element on x86 (see neon.h): kernels broadcast.
  static constexpr bool kLaneDot = false;
  /// No SDOT register tiles in assembly (neon.h's dot_tile_4x24, dot_tile_8x8).
  static constexpr bool kSdotTiles = false;
  /// No byte matrix multiply (neon.h's mmla) either.
  static constexpr bool kMatMul = false;
  /// No 16-byte products for conv2d and fully_connected (neon.h's dot16): vpdpbusd.
  static constexpr bool kDepth16Dots = false;
  /// vcvtps2dq gives INT32_MIN past int32's range: quantize_linear clamps
  /// its quotients on both sides (neon.h's round_saturated).
  static constexpr bool kSaturatingRound = false;
  /// No interleaving store (neon.h's store4_bytes): byte shuffles do it.
  static constexpr bool kStore4 = false;
#if defined(__AVX512BW__)
  /// interleave_rows' (simd/qs8/common.h) four rows 64 bytes at a time:
  /// the bytes at src[0..3] + i (XORed with flip) as [64][4], each 16
  /// columns' 64 bytes `chunk` bytes after the previous 16's. Byte and
  /// 16-bit unpacks within 128-bit lanes, then the lanes put in order by
  /// eight 128-bit shuffles: 28 instructions per 256 bytes where 16 bytes
  /// at a time took 80 (qs8_conv_bench on AMD Zen 4: ResNet-18's 3x3
  /// 64->64 -1.4%, 256->512 stride 2 -3.3%; the im2col panel had been 7%
  /// of the first, and reading the input is most of what is left).
  static constexpr bool kInterleave64 = true;
  static void interleave4_64(const uint8_t *const src[4], int64_t i, uint8_t flip,
                             uint8_t *out, int64_t chunk) {
    // The masked forms: GCC 12 warns of _mm512_shuffle_i32x4's undefined
    // pass-through (as multiply_by_quantized_multiplier_down's).
    constexpr __mmask16 d = 0xFFFF;
    const __m512i f = _mm512_set1_epi8(static_cast<char>(flip));
    __m512i r[4];
    for (int j = 0; j < 4; ++j)
      r[j] = _mm512_xor_si512(_mm512_loadu_si512(src[j] + i), f);
    const __m512i ab_lo = _mm512_unpacklo_epi8(r[0], r[1]);
    const __m512i ab_hi = _mm512_unpackhi_epi8(r[0], r[1]);
    const __m512i cd_lo = _mm512_unpacklo_epi8(r[2], r[3]);
    const __m512i cd_hi = _mm512_unpackhi_epi8(r[2], r[3]);
    // q[k]'s 128-bit lane l: columns 16 l + 4 k .. 16 l + 4 k + 3, four bytes each.
    const __m512i q0 = _mm512_unpacklo_epi16(ab_lo, cd_lo);
    const __m512i q1 = _mm512_unpackhi_epi16(ab_lo, cd_lo);
    const __m512i q2 = _mm512_unpacklo_epi16(ab_hi, cd_hi);
    const __m512i q3 = _mm512_unpackhi_epi16(ab_hi, cd_hi);
    // Output l: lane l of q0, q1, q2, q3 (a 4 x 4 transpose of lanes).
    const __m512i t0 = _mm512_maskz_shuffle_i32x4(d, q0, q1, 0x44);
    const __m512i t1 = _mm512_maskz_shuffle_i32x4(d, q2, q3, 0x44);
    const __m512i t2 = _mm512_maskz_shuffle_i32x4(d, q0, q1, 0xEE);
    const __m512i t3 = _mm512_maskz_shuffle_i32x4(d, q2, q3, 0xEE);
    uint8_t *o = out + i / 16 * chunk;
    _mm512_storeu_si512(o, _mm512_maskz_shuffle_i32x4(d, t0, t1, 0x88));
    _mm512_storeu_si512(o + chunk, _mm512_maskz_shuffle_i32x4(d, t0, t1, 0xDD));
    _mm512_storeu_si512(o + 2 * chunk, _mm512_maskz_shuffle_i32x4(d, t2, t3, 0x88));
    _mm512_storeu_si512(o + 3 * chunk, _mm512_maskz_shuffle_i32x4(d, t2, t3, 0xDD));
  }
  /// gather_row's (simd/qs8/conv_staging.h) runs of n bytes, 64 at a time:
  /// the last step's load under a byte mask (the plane's slack is 16
  /// bytes), its store whole (up to 63 bytes past the run: the row's
  /// slack, or the next run's bytes, rewritten after). The stems' rows of
  /// 112 took seven 16-byte stores (qs8_conv_bench, AMD Zen 4: ResNet-18's
  /// 7x7 701 -> 674-678 us, MobileNetV2's 3x3 119 -> 115).
  static constexpr bool kCopy64 = true;
  static void copy_run_64(uint8_t *dst, const uint8_t *src, int64_t n) {
    int64_t i = 0;
    for (; i + 64 <= n; i += 64)
      _mm512_storeu_si512(dst + i, _mm512_loadu_si512(src + i));
    if (i < n) {
      const __mmask64 first = __mmask64(~uint64_t(0) >> (64 - (n - i)));
      _mm512_storeu_si512(dst + i, _mm512_maskz_loadu_epi8(first, src + i));
    }
  }
#else
  static constexpr bool kInterleave64 = false;
  static void interleave4_64(const uint8_t *const *, int64_t, uint8_t, uint8_t *, int64_t) {}
  static constexpr bool kCopy64 = false;
  static void copy_run_64(uint8_t *, const uint8_t *, int64_t) {}
#endif
  template <int L> static VecI dot_part_lane(VecI acc, VecI u, VecI s) {
    return dot_part(acc, u, broadcast(s.v[L]));
  }
  template <int L> static VecI dot_part_u_lane(VecI acc, VecI u, VecI s) {
    return dot_part(acc, broadcast(u.v[L]), s);
  }

  /// Each 32-bit lane's even bytes (0 and 2) as two 16-bit values, and its
  /// odd ones (1 and 3): u zero-extended, s sign-extended.
  struct Widened {
    Int even, odd;
  };
  using Short = int16_t __attribute__((vector_size(sizeof(Int))));
  using UShort = uint16_t __attribute__((vector_size(sizeof(Int))));
  static Widened widen_u8(VecI u) {
    const UShort u16 = reinterpret_cast<UShort>(u.v);
    return {reinterpret_cast<Int>((u16 << 8) >> 8), reinterpret_cast<Int>(u16 >> 8)};
  }
  /// Each 16-bit lane's low byte and high byte, sign-extended, of a vector
  /// of int16 of any width (widen_s8's; simd/qs8/tile.h's broadcast_step
  /// splits a step's 16 weight bytes with it).
  template <typename S> static void split_s8(S s16, S &even, S &odd) {
    even = (s16 << 8) >> 8;
    odd = s16 >> 8;
  }
  static Widened widen_s8(VecI s) {
    Short even, odd;
    split_s8(reinterpret_cast<Short>(s.v), even, odd);
    return {reinterpret_cast<Int>(even), reinterpret_cast<Int>(odd)};
  }
  /// *p in every lane, read from memory by the broadcast itself: GCC
  /// otherwise builds a broadcast of values it has just stored from the
  /// register they came from (a shift and a broadcast, and a register more:
  /// the int8 tile then spilled accumulators).
  static VecI broadcast_load(const int32_t *p) {
    Raw r;
#if defined(__AVX512F__)
    asm("vpbroadcastd %1, %0" : "=v"(r) : "m"(*p));
#else
    asm("vpbroadcastd %1, %0" : "=x"(r) : "m"(*p));
#endif
    return of(r);
  }
  /// acc + dot_u8s8(u, s) of the widened operands: each pair of products
  /// summed by vpmaddwd (|255 * -128 * 2| fits in 32 bits).
  static VecI dot_widened(VecI acc, const Widened &u, const Widened &s) {
#if defined(__AVX512F__)
    const Int pe = reinterpret_cast<Int>(
        _mm512_madd_epi16(reinterpret_cast<Raw>(u.even), reinterpret_cast<Raw>(s.even)));
    const Int po = reinterpret_cast<Int>(
        _mm512_madd_epi16(reinterpret_cast<Raw>(u.odd), reinterpret_cast<Raw>(s.odd)));
#else
    const Int pe = reinterpret_cast<Int>(
        _mm256_madd_epi16(reinterpret_cast<Raw>(u.even), reinterpret_cast<Raw>(s.even)));
    const Int po = reinterpret_cast<Int>(
        _mm256_madd_epi16(reinterpret_cast<Raw>(u.odd), reinterpret_cast<Raw>(s.odd)));
#endif
    return {acc.v + pe + po};
  }

  /// acc + sum over each lane's 4 bytes of u[j] * s[j] (u unsigned, s signed).
  static VecI dot_u8s8(VecI acc, VecI u, VecI s) {
#if defined(__AVX512F__) && defined(__AVX512VNNI__)
    return of(_mm512_dpbusd_epi32(acc.raw(), u.raw(), s.raw()));
#elif !defined(__AVX512F__) && defined(__AVXVNNI__)
    return of(_mm256_dpbusd_avx_epi32(acc.raw(), u.raw(), s.raw()));
#else
    return dot_widened(acc, widen_u8(u), widen_s8(s));
#endif
  }

  /// floor(a * b / 2^31) per lane from the exact 64-bit product (the
  /// truncated doubling high multiply), for b != INT32_MIN.
  static VecI doubling_high_mul(VecI a, VecI b) {
    // vpmuldq on the even lanes and on the odd ones shifted down. (The
    // AVX-512 intrinsics in their zero-masked form, all lanes on: GCC 12
    // warns falsely inside the unmasked ones, whose pass-through is undefined.)
#if defined(__AVX512F__)
    const __m512i even = _mm512_maskz_mul_epi32(0xFF, a.raw(), b.raw());
    const __m512i odd = _mm512_maskz_mul_epi32(0xFF, _mm512_maskz_srli_epi64(0xFF, a.raw(), 32),
                                               _mm512_maskz_srli_epi64(0xFF, b.raw(), 32));
    // Bits 31..62 of each product: the low half of even >> 31, the high half of odd << 1.
    return of(_mm512_mask_blend_epi32(0xAAAA, _mm512_maskz_srli_epi64(0xFF, even, 31),
                                      _mm512_maskz_slli_epi64(0xFF, odd, 1)));
#else
    const __m256i even = _mm256_mul_epi32(a.raw(), b.raw());
    const __m256i odd =
        _mm256_mul_epi32(_mm256_srli_epi64(a.raw(), 32), _mm256_srli_epi64(b.raw(), 32));
    return of(_mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA));
#endif
  }

  /// Lanes widened from kLanes values of T (int8_t, uint8_t or int16_t).
  template <typename T> static VecI widen(const T *p) {
    if (sizeof(T) == 1) { // one load and vpmovsxbd / vpmovzxbd
#if defined(__AVX512F__)
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
      return of(T(-1) < T(0) ? _mm512_maskz_cvtepi8_epi32(0xFFFF, b)
                             : _mm512_maskz_cvtepu8_epi32(0xFFFF, b));
#else
      const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(p));
      return of(T(-1) < T(0) ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b));
#endif
    }
    typename Narrow<T>::type n;
    __builtin_memcpy(&n, p, sizeof n);
    return {__builtin_convertvector(n, Int)};
  }

  /// Stores lanes [0, n) narrowed to T; the values are in T's range.
  template <typename T> void store_narrow(T *p, int64_t n) const {
#if defined(__AVX512F__)
    if (sizeof(T) == 1) {
      // The values fit: truncation (vpmovdb) is exact.
      const __m128i b = _mm512_maskz_cvtepi32_epi8(0xFFFF, raw());
      if (n >= kLanes)
        _mm_storeu_si128(reinterpret_cast<__m128i *>(p), b);
      else
        _mm_mask_storeu_epi8(p, static_cast<__mmask16>((1u << n) - 1u), b);
      return;
    }
#else
    // AVX2 has no truncating narrow: GCC's conversion took each lane out
    // and put it back by scalar shifts (two dozen instructions a vector,
    // int8 MobileNetV2's pointwise layers' largest share). The packs
    // saturate, which changes nothing: the values fit in T.
    const __m128i s16 =
        _mm_packs_epi32(_mm256_castsi256_si128(raw()), _mm256_extracti128_si256(raw(), 1));
    if (sizeof(T) == 1) {
      const __m128i b = T(-1) < T(0) ? _mm_packs_epi16(s16, s16) : _mm_packus_epi16(s16, s16);
      if (n >= kLanes)
        _mm_storel_epi64(reinterpret_cast<__m128i *>(p), b);
      else
        __builtin_memcpy(p, &b, size_t(n));
      return;
    }
    if (T(-1) < T(0)) {
      __builtin_memcpy(p, &s16, size_t(n < kLanes ? n : kLanes) * sizeof(T));
      return;
    }
#endif
    const typename Narrow<T>::type narrow = __builtin_convertvector(v, typename Narrow<T>::type);
    __builtin_memcpy(p, &narrow, size_t(n < kLanes ? n : kLanes) * sizeof(T));
  }

private:
  // kLanes values of T as a vector (vector_size cannot take a dependent type).
  using I8 = int8_t __attribute__((vector_size(kLanes)));
  using U8 = uint8_t __attribute__((vector_size(kLanes)));
  using I16 = int16_t __attribute__((vector_size(2 * kLanes)));
  template <typename T> struct Narrow;
};
template <> struct VecI::Narrow<int8_t> { using type = VecI::I8; };
template <> struct VecI::Narrow<uint8_t> { using type = VecI::U8; };
template <> struct VecI::Narrow<int16_t> { using type = VecI::I16; };

/// out[i] = table[in[i] ^ flip] for the whole vectors of bytes in [0, n)
/// (AVX-512: all of them, the last vector under a byte mask, so a short
/// run such as a 7 x 7 plane needs no scalar tail): with VBMI (x86-64-amx)
/// by `vpermi2b`, else vpshufb looks up the low nibble in each of the
/// table's 16 rows and the high nibble picks the row (16 shuffles and
/// blends per vector against 4 scalar operations per byte). Returns how
/// many it did.
inline int64_t lookup_bytes(const uint8_t *table, const uint8_t *in, uint8_t *out, int64_t n,
                            uint8_t flip) {
  int64_t i = 0;
#if defined(__AVX512VBMI__)
  // Two 128-byte halves of the table, each one two-source byte permute
  // (index bits 0-6), the index's top bit picking between them: 3
  // instructions a vector where the nibble tree below takes 35.
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  const __m512i vflip = _mm512_set1_epi8(static_cast<char>(flip));
  auto look = [&](__m512i bytes) ONNXC_RT_SIMD_LAMBDA {
    const __m512i idx = _mm512_xor_si512(bytes, vflip);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx),
                                  _mm512_permutex2var_epi8(t0, idx, t1),
                                  _mm512_permutex2var_epi8(t2, idx, t3));
  };
#elif defined(__AVX512BW__)
  __m512i rows[16];
  for (int r = 0; r < 16; ++r)
    rows[r] = _mm512_maskz_broadcast_i32x4( // (zero-masked: GCC 12 warns on the plain form)
        __mmask16(0xffff), _mm_loadu_si128(reinterpret_cast<const __m128i *>(table + 16 * r)));
  const __m512i vflip = _mm512_set1_epi8(static_cast<char>(flip)), nib = _mm512_set1_epi8(0x0f);
  auto look = [&](__m512i bytes) ONNXC_RT_SIMD_LAMBDA {
    const __m512i idx = _mm512_xor_si512(bytes, vflip);
    const __m512i lo = _mm512_and_si512(idx, nib);
    // Every row's shuffle, then a tree of blends on the high nibble's bits
    // (bit 4 picks within pairs of rows, bit 7 between halves): 4 tests and
    // 15 blends, which port 0 shares, where a compare per row and a masked
    // shuffle kept port 5 busy for 31.
    __m512i r[16];
    for (int row = 0; row < 16; ++row)
      r[row] = _mm512_shuffle_epi8(rows[row], lo);
    for (int bit = 0, live = 16; bit < 4; ++bit, live /= 2) {
      const __mmask64 odd = _mm512_test_epi8_mask(idx, _mm512_set1_epi8(char(0x10 << bit)));
      for (int k = 0; k < live / 2; ++k)
        r[k] = _mm512_mask_blend_epi8(odd, r[2 * k], r[2 * k + 1]);
    }
    return r[0];
  };
#endif
#if defined(__AVX512BW__)
  for (; i + 64 <= n; i += 64)
    _mm512_storeu_si512(out + i, look(_mm512_loadu_si512(in + i)));
  if (i < n) { // masked: the bytes past n are neither read (no fault) nor written
    const __mmask64 tail = (uint64_t(1) << (n - i)) - 1;
    _mm512_mask_storeu_epi8(out + i, tail, look(_mm512_maskz_loadu_epi8(tail, in + i)));
    i = n;
  }
#else
  __m256i rows[16];
  for (int r = 0; r < 16; ++r)
    rows[r] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i *>(table + 16 * r)));
  const __m256i vflip = _mm256_set1_epi8(static_cast<char>(flip)), nib = _mm256_set1_epi8(0x0f);
  for (; i + 32 <= n; i += 32) {
    const __m256i idx = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(in + i)), vflip);
    const __m256i lo = _mm256_and_si256(idx, nib);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(idx, 4), nib);
    __m256i r = _mm256_shuffle_epi8(rows[0], lo);
    for (int row = 1; row < 16; ++row)
      r = _mm256_blendv_epi8(r, _mm256_shuffle_epi8(rows[row], lo),
                             _mm256_cmpeq_epi8(hi, _mm256_set1_epi8(char(row))));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i), r);
  }
#endif
  return i;
}

} // namespace simd
} // namespace onnxc_rt

#endif
