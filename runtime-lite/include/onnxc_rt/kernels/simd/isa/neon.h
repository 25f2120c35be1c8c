// The aarch64 (NEON) vector types of the SIMD kernels: VecF (4 float lanes)
// and VecI (4 int32 lanes) with the operations simd/vec.h documents, and the
// byte table lookup of the qs8 kernels. Included by simd/vec.h only.
//
// The int8 byte dot product (VecI::dot_u8s8, unsigned x signed bytes, as
// x86's vpdpbusd) is one instruction where the target has it, also by
// element (dot_part_lane):
//   +i8mm     (armv8.6-a)   USDOT, unsigned x signed: the operation itself;
//   +dotprod  (armv8.2-a)   SDOT on (u - 128) x s, plus 128 * sum(s) (one
//                           more SDOT of the weights alone: dot_part and
//                           dot_rest; the kernels' weights are constants,
//                           so the compiler folds the rest into the bias:
//                           qs8/pack.h's packed_zero_point); the kernels
//                           pack u as u - 128 already (kPackedFlip), so
//                           dot_part is the SDOT alone;
//   armv8-a                 the same split, the part as SMULL of the signed
//                           bytes into 16 bits and pairwise sums (the
//                           convolution and fully connected kernels
//                           multiply 16 bytes at a time: dot16).
#ifndef ONNXC_RT_SIMD_ISA_NEON_H
#define ONNXC_RT_SIMD_ISA_NEON_H

#include <arm_neon.h>
#include <stdint.h>

namespace onnxc_rt {
namespace simd {

struct VecF {
  static constexpr int kLanes = 4;
  float32x4_t v;
  static VecF zero() { return {vdupq_n_f32(0.0f)}; }
  static VecF broadcast(float x) { return {vdupq_n_f32(x)}; }
  static VecF load(const float *p) { return {vld1q_f32(p)}; }
  void store(float *p) const { vst1q_f32(p, v); }
  /// a * b + c in one rounding.
  static VecF fma(VecF a, VecF b, VecF c) { return {vfmaq_f32(c.v, a.v, b.v)}; }
  /// Stores lanes [0, n) (0 < n <= kLanes) and nothing past them.
  void store_first(float *p, int64_t n) const {
    if (n >= kLanes) {
      store(p);
      return;
    }
    vst1q_lane_f32(p, v, 0);
    if (n > 1)
      vst1q_lane_f32(p + 1, v, 1);
    if (n > 2)
      vst1q_lane_f32(p + 2, v, 2);
  }
  /// Lanes [0, n) from p (0 < n <= kLanes), the rest zero; reads nothing past them.
  static VecF load_first(const float *p, int64_t n) {
    if (n >= kLanes)
      return load(p);
    float32x4_t r = vld1q_lane_f32(p, vdupq_n_f32(0.0f), 0);
    if (n > 1)
      r = vld1q_lane_f32(p + 1, r, 1);
    if (n > 2)
      r = vld1q_lane_f32(p + 2, r, 2);
    return {r};
  }
  /// c + a[L] * b in one instruction (FMLA by element): the kernels load
  /// four consecutive inputs as one vector and use each lane in turn.
  static constexpr bool kLaneFma = true;
  /// Arithmetic takes registers only: kernels load a value once and reuse it.
  static constexpr bool kArithmeticFromMemory = false;
  template <int L> static VecF fma_lane(VecF a, VecF b, VecF c) {
    return {vfmaq_laneq_f32(c.v, b.v, a.v, L)};
  }
  /// The even and odd lanes of the 2 * kLanes floats a, b (a first).
  static void deinterleave(VecF a, VecF b, VecF &even, VecF &odd) {
    even.v = vuzp1q_f32(a.v, b.v);
    odd.v = vuzp2q_f32(a.v, b.v);
  }
  /// Transposes the 4 x 4 matrix whose rows are r[0..4).
  static void transpose(VecF (&r)[4]) {
    const float32x4_t t0 = vtrn1q_f32(r[0].v, r[1].v), t1 = vtrn2q_f32(r[0].v, r[1].v);
    const float32x4_t t2 = vtrn1q_f32(r[2].v, r[3].v), t3 = vtrn2q_f32(r[2].v, r[3].v);
    auto lo = [](float32x4_t a, float32x4_t b) {
      return vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(a), vreinterpretq_f64_f32(b)));
    };
    auto hi = [](float32x4_t a, float32x4_t b) {
      return vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(a), vreinterpretq_f64_f32(b)));
    };
    r[0].v = lo(t0, t2);
    r[1].v = lo(t1, t3);
    r[2].v = hi(t0, t2);
    r[3].v = hi(t1, t3);
  }
  /// Rows of the Gemm/MatMul register tile (simd/f32/gemm.h kMatrixMR): 8 rows
  /// by 8 columns, 16 accumulators, summed by fma_tile_8x8.
  static constexpr int kMatrixRows = 8;
  /// The tallest strip of the channel-blocked convolutions (simd/f32/conv.h
  /// window_strip): none taller than window_tile's 6 pixels; NEON's tiles
  /// are fma_tile_4x16 and window_tile.
  static constexpr int kWindowStripMax = 6;
  /// s0[r], s1[r] = the sums over 4 * groups k steps of A(r, k) * B(k, 0:4)
  /// and * B(k, 4:8), from a packed A panel (8 floats a k step) and a packed
  /// B sliver (8 a step), both pointers advanced past what was read. Per 4
  /// k steps 4 loads (LD1 of 4 registers), 64 FMLA by element and the loop's
  /// 2: 70 instructions. Written in assembly because GCC 12 allocates the
  /// same loop in intrinsics with register copies (85 instructions; 81 for
  /// single-register loads), and this loop is most of a transformer's
  /// instructions. The sums start at zero; each FMLA rounds once, in k
  /// order, as the intrinsics' loop did.
  static void fma_tile_8x8(const float *&a, const float *&b, int64_t groups, VecF (&s0)[8],
                           VecF (&s1)[8]) {
// Rows r of one k step: s0[r] += b0 * a[r % 4], s1[r] += b1 * a[r % 4], a
// the step's rows 0-3 (alo) or 4-7 (ahi).
#define ONNXC_RT_FMLA_ROW(r, a, lane, b0, b1)                                             \
  "fmla %[s0" #r "].4s, " b0 ".4s, " a ".s[" #lane "]\n\t"                                 \
  "fmla %[s1" #r "].4s, " b1 ".4s, " a ".s[" #lane "]\n\t"
#define ONNXC_RT_FMLA_STEP(alo, ahi, b0, b1)                                              \
  ONNXC_RT_FMLA_ROW(0, alo, 0, b0, b1) ONNXC_RT_FMLA_ROW(1, alo, 1, b0, b1)              \
  ONNXC_RT_FMLA_ROW(2, alo, 2, b0, b1) ONNXC_RT_FMLA_ROW(3, alo, 3, b0, b1)              \
  ONNXC_RT_FMLA_ROW(4, ahi, 0, b0, b1) ONNXC_RT_FMLA_ROW(5, ahi, 1, b0, b1)              \
  ONNXC_RT_FMLA_ROW(6, ahi, 2, b0, b1) ONNXC_RT_FMLA_ROW(7, ahi, 3, b0, b1)
#define ONNXC_RT_ZERO(r) "movi %[s0" #r "].4s, #0\n\tmovi %[s1" #r "].4s, #0\n\t"
    __asm__ volatile(
        ONNXC_RT_ZERO(0) ONNXC_RT_ZERO(1) ONNXC_RT_ZERO(2) ONNXC_RT_ZERO(3)
        ONNXC_RT_ZERO(4) ONNXC_RT_ZERO(5) ONNXC_RT_ZERO(6) ONNXC_RT_ZERO(7)
        "cbz %[n], 2f\n\t"
        "1:\n\t"
        // k steps 0, 1 of A (v0-v3) and B (v4-v7), then 2, 3 (v8-v15).
        "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[a]], #64\n\t"
        "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[b]], #64\n\t"
        "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[a]], #64\n\t"
        "ld1 {v12.4s, v13.4s, v14.4s, v15.4s}, [%[b]], #64\n\t"
        ONNXC_RT_FMLA_STEP("v0", "v1", "v4", "v5") ONNXC_RT_FMLA_STEP("v2", "v3", "v6", "v7")
        ONNXC_RT_FMLA_STEP("v8", "v9", "v12", "v13")
        ONNXC_RT_FMLA_STEP("v10", "v11", "v14", "v15")
        "subs %[n], %[n], #1\n\t"
        "b.ne 1b\n\t"
        "2:\n\t"
        : [a] "+r"(a), [b] "+r"(b), [n] "+r"(groups),
          [s00] "=&w"(s0[0].v), [s01] "=&w"(s0[1].v), [s02] "=&w"(s0[2].v),
          [s03] "=&w"(s0[3].v), [s04] "=&w"(s0[4].v), [s05] "=&w"(s0[5].v),
          [s06] "=&w"(s0[6].v), [s07] "=&w"(s0[7].v), [s10] "=&w"(s1[0].v),
          [s11] "=&w"(s1[1].v), [s12] "=&w"(s1[2].v), [s13] "=&w"(s1[3].v),
          [s14] "=&w"(s1[4].v), [s15] "=&w"(s1[5].v), [s16] "=&w"(s1[6].v),
          [s17] "=&w"(s1[7].v)
        :
        : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",
          "v11", "v12", "v13", "v14", "v15");
#undef ONNXC_RT_ZERO
#undef ONNXC_RT_FMLA_STEP
#undef ONNXC_RT_FMLA_ROW
  }
  /// The channel-blocked pointwise convolutions' tile is fma_tile_4x16
  /// (simd/f32/blocked.h).
  static constexpr bool kBlockedTile4x16 = true;
  /// The channel-blocked convolutions' tile (simd/f32/blocked.h): 4 pixels by 16
  /// output channels, 16 accumulators s[pixel][vector]. `steps` times: the
  /// 16 input lanes at each p[r] (then p[r] += step_bytes) by 16 packed
  /// weight rows (16 floats each, rows `row_bytes` apart; w advanced past
  /// them): per 4 lanes 4 pixel loads, 4 weight rows of one LD1 of 4
  /// registers each, 64 FMLA by element; per step 294 instructions for 256
  /// FMLA (a 6-pixel x 8-channel tile took 62 per 48). Each FMLA rounds
  /// once, in lane order, as window_tile's sums do. In assembly for the
  /// reason fma_tile_8x8 is. The sums start at zero.
  ONNXC_RT_SIMD_INLINE static void fma_tile_4x16(const float *const (&p)[4], int64_t steps,
                                                int64_t step_bytes, const float *&w,
                                                int64_t row_bytes, VecF (&s)[4][4]) {
// Lane `lane` of the 4 pixels (v0-v3) times one weight row (w0-w3).
#define ONNXC_RT_FMLA_PIXEL(r, lane, w0, w1, w2, w3)                                      \
  "fmla %[s" #r "0].4s, " w0 ".4s, v" #r ".s[" #lane "]\n\t"                               \
  "fmla %[s" #r "1].4s, " w1 ".4s, v" #r ".s[" #lane "]\n\t"                               \
  "fmla %[s" #r "2].4s, " w2 ".4s, v" #r ".s[" #lane "]\n\t"                               \
  "fmla %[s" #r "3].4s, " w3 ".4s, v" #r ".s[" #lane "]\n\t"
#define ONNXC_RT_FMLA_LANE(lane, w0, w1, w2, w3)                                          \
  ONNXC_RT_FMLA_PIXEL(0, lane, w0, w1, w2, w3) ONNXC_RT_FMLA_PIXEL(1, lane, w0, w1, w2, w3) \
  ONNXC_RT_FMLA_PIXEL(2, lane, w0, w1, w2, w3) ONNXC_RT_FMLA_PIXEL(3, lane, w0, w1, w2, w3)
// Lanes 4g-4g+3: the pixels' 4 lanes, then 4 weight rows in two buffers.
#define ONNXC_RT_LANE_GROUP(offset)                                                       \
  "ldr q0, [%[p0], #" #offset "]\n\t"                                                      \
  "ldr q1, [%[p1], #" #offset "]\n\t"                                                      \
  "ldr q2, [%[p2], #" #offset "]\n\t"                                                      \
  "ldr q3, [%[p3], #" #offset "]\n\t"                                                      \
  "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[w]], %[rb]\n\t"                                   \
  "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[w]], %[rb]\n\t"                                 \
  ONNXC_RT_FMLA_LANE(0, "v4", "v5", "v6", "v7")                                           \
  "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[w]], %[rb]\n\t"                                   \
  ONNXC_RT_FMLA_LANE(1, "v8", "v9", "v10", "v11")                                         \
  "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[w]], %[rb]\n\t"                                 \
  ONNXC_RT_FMLA_LANE(2, "v4", "v5", "v6", "v7")                                           \
  ONNXC_RT_FMLA_LANE(3, "v8", "v9", "v10", "v11")
#define ONNXC_RT_ZERO(r)                                                                  \
  "movi %[s" #r "0].4s, #0\n\tmovi %[s" #r "1].4s, #0\n\t"                                   \
  "movi %[s" #r "2].4s, #0\n\tmovi %[s" #r "3].4s, #0\n\t"
    const float *p0 = p[0], *p1 = p[1], *p2 = p[2], *p3 = p[3];
    __asm__ volatile(
        ONNXC_RT_ZERO(0) ONNXC_RT_ZERO(1) ONNXC_RT_ZERO(2) ONNXC_RT_ZERO(3)
        "cbz %[n], 2f\n\t"
        "1:\n\t"
        ONNXC_RT_LANE_GROUP(0) ONNXC_RT_LANE_GROUP(16) ONNXC_RT_LANE_GROUP(32)
        ONNXC_RT_LANE_GROUP(48)
        "add %[p0], %[p0], %[sb]\n\t"
        "add %[p1], %[p1], %[sb]\n\t"
        "add %[p2], %[p2], %[sb]\n\t"
        "add %[p3], %[p3], %[sb]\n\t"
        "subs %[n], %[n], #1\n\t"
        "b.ne 1b\n\t"
        "2:\n\t"
        : [p0] "+r"(p0), [p1] "+r"(p1), [p2] "+r"(p2), [p3] "+r"(p3), [w] "+r"(w),
          [n] "+r"(steps), [s00] "=&w"(s[0][0].v), [s01] "=&w"(s[0][1].v),
          [s02] "=&w"(s[0][2].v), [s03] "=&w"(s[0][3].v), [s10] "=&w"(s[1][0].v),
          [s11] "=&w"(s[1][1].v), [s12] "=&w"(s[1][2].v), [s13] "=&w"(s[1][3].v),
          [s20] "=&w"(s[2][0].v), [s21] "=&w"(s[2][1].v), [s22] "=&w"(s[2][2].v),
          [s23] "=&w"(s[2][3].v), [s30] "=&w"(s[3][0].v), [s31] "=&w"(s[3][1].v),
          [s32] "=&w"(s[3][2].v), [s33] "=&w"(s[3][3].v)
        : [sb] "r"(step_bytes), [rb] "r"(row_bytes)
        : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",
          "v11");
#undef ONNXC_RT_ZERO
#undef ONNXC_RT_LANE_GROUP
#undef ONNXC_RT_FMLA_LANE
#undef ONNXC_RT_FMLA_PIXEL
  }
  using Int = int32_t __attribute__((vector_size(16)));
#include "onnxc_rt/kernels/simd/isa/vector_ops.inc"
};

/// VecI: 4 int32 lanes, for the integer (qs8) kernels.
struct VecI {
  static constexpr int kLanes = 4;
  using Int = int32_t __attribute__((vector_size(16)));
  Int v;
#define ONNXC_RT_SIMD_ISA_HAS_REQUANTIZE
#define ONNXC_RT_SIMD_ISA_HAS_STORE_NARROW_ALL
#define ONNXC_RT_SIMD_ISA_HAS_WIDEN_ALL
#define ONNXC_RT_SIMD_ISA_HAS_LOAD_ALL
#define ONNXC_RT_SIMD_ISA_HAS_LANE_WEIGHTS
#define ONNXC_RT_SIMD_ISA_HAS_STORE_NARROW_CLAMPED
#define ONNXC_RT_SIMD_ISA_HAS_BROADCAST_LANE
#include "onnxc_rt/kernels/simd/isa/int_ops.inc"
#undef ONNXC_RT_SIMD_ISA_HAS_REQUANTIZE
#undef ONNXC_RT_SIMD_ISA_HAS_STORE_NARROW_ALL
#undef ONNXC_RT_SIMD_ISA_HAS_WIDEN_ALL
#undef ONNXC_RT_SIMD_ISA_HAS_LOAD_ALL
#undef ONNXC_RT_SIMD_ISA_HAS_LANE_WEIGHTS
#undef ONNXC_RT_SIMD_ISA_HAS_STORE_NARROW_CLAMPED
#undef ONNXC_RT_SIMD_ISA_HAS_BROADCAST_LANE
  /// Lane L of x in every lane (DUP by element).
  template <int L> static VecI broadcast_lane(VecI x) { return {vdupq_laneq_s32(x.v, L)}; }
  /// reference/qs8.h's multiply_by_quantized_multiplier in the instructions
  /// made for it: SQSHL (the saturating left shift), SQDMULH (the truncated
  /// doubling high product) and SRSHL by -right (the one rounding: half up,
  /// computed without overflow).
  static VecI multiply_by_quantized_multiplier(VecI x, VecI multiplier, VecI left, VecI right) {
    const int32x4_t h = vqdmulhq_s32(vqshlq_s32(x.v, left.v), multiplier.v);
    return {vrshlq_s32(h, vnegq_s32(right.v))};
  }
  /// The same where every lane's left is 0 (no SQSHL).
  static VecI multiply_by_quantized_multiplier_down(VecI x, VecI multiplier, VecI right) {
    return {vrshlq_s32(vqdmulhq_s32(x.v, multiplier.v), vnegq_s32(right.v))};
  }
  /// The channel-blocked depthwise convolution's widened inputs: int16,
  /// as SMLAL takes them.
  using BandLane = int16_t;
  /// N * 4 channels' 16-bit weights w as mla_widened_lanes takes them: as
  /// SMLAL and SMLAL2 read them, eight a register (vectors 2k and 2k + 1
  /// are the same register, channels 8k to 8k + 7).
  template <int N> static void lane_weights(const int16_t *w, VecI (&out)[N]) {
    static_assert(N % 2 == 0, "channels in eights");
    for (int k = 0; k < N / 2; ++k)
      out[2 * k] = out[2 * k + 1] = {vreinterpretq_s32_s16(vld1q_s16(w + 8 * k))};
  }
  /// acc[j] += channel 4 j + l of the int16 values at p times its weight
  /// (lane_weights): per eight channels one load and SMLAL, SMLAL2.
  template <int N, typename T>
  static void mla_widened_lanes(VecI (&acc)[N], const T *p, const VecI (&w)[N]) {
    static_assert(N % 2 == 0 && sizeof(T) == 2, "int16 channels in eights");
    for (int k = 0; k < N / 2; ++k) {
      const int16x8_t x = vld1q_s16(reinterpret_cast<const int16_t *>(p) + 8 * k);
      const int16x8_t wk = vreinterpretq_s16_s32(w[2 * k].v);
      acc[2 * k].v = vmlal_s16(acc[2 * k].v, vget_low_s16(x), vget_low_s16(wk));
      acc[2 * k + 1].v = vmlal_high_s16(acc[2 * k + 1].v, x, wk);
    }
  }

  /// The XOR the kernels apply to u's bytes when they pack them, so that
  /// dot_part takes them as its instructions do: u - 128 as signed bytes
  /// (u ^ 0x80) for SDOT, and for SMULL on armv8-a, packed once instead of
  /// flipped at every product; u itself for USDOT.
#if defined(__ARM_FEATURE_MATMUL_INT8)
  static constexpr uint8_t kPackedFlip = 0;
#else
  static constexpr uint8_t kPackedFlip = 0x80;
#endif
  /// acc + sum over each lane's 4 bytes of u[j] * s[j] (u unsigned, s signed).
  static VecI dot_u8s8(VecI acc, VecI u, VecI s) {
    const VecI packed{veorq_s32(u.v, vreinterpretq_s32_u8(vdupq_n_u8(kPackedFlip)))};
    return sub(dot_part(acc, packed, s), dot_rest(zero(), s));
  }
  /// dot_u8s8 split in two for loops that sum many products sharing s, u
  /// packed with kPackedFlip: dot_u8s8(acc, u, s) = dot_part(acc, u ^
  /// kPackedFlip, s) - dot_rest(0, s), the rest depending on s alone, so it
  /// is summed apart (for constant weights, at compile time). Without +i8mm
  /// the part is the products of u - 128 (SDOT, or SMULL and pairwise
  /// sums) and the rest -128 * sum(s); with it the part is USDOT, the whole.
  static VecI dot_part(VecI acc, VecI packed_u, VecI s) {
#if defined(__ARM_FEATURE_MATMUL_INT8)
    return {vusdotq_s32(acc.v, vreinterpretq_u8_s32(packed_u.v), vreinterpretq_s8_s32(s.v))};
#elif defined(__ARM_FEATURE_DOTPROD)
    return {vdotq_s32(acc.v, vreinterpretq_s8_s32(packed_u.v), vreinterpretq_s8_s32(s.v))};
#else
    // SMULL / SMULL2, the pairs (SADDLP) and the pairs of pairs (ADDP).
    const int8x16_t u = vreinterpretq_s8_s32(packed_u.v), w = vreinterpretq_s8_s32(s.v);
    const int32x4_t lo = vpaddlq_s16(vmull_s8(vget_low_s8(u), vget_low_s8(w)));
    const int32x4_t hi = vpaddlq_s16(vmull_high_s8(u, w));
    return {vaddq_s32(acc.v, vpaddq_s32(lo, hi))};
#endif
  }
  static VecI dot_rest(VecI acc, VecI s) {
#if defined(__ARM_FEATURE_MATMUL_INT8)
    (void)s;
    return acc;
#elif defined(__ARM_FEATURE_DOTPROD)
    return {vdotq_s32(acc.v, vdupq_n_s8(-128), vreinterpretq_s8_s32(s.v))};
#else
    // Each lane's 4 bytes summed pairwise (SADDLP twice), times -128.
    const int32x4_t sums = vpaddlq_s16(vpaddlq_s8(vreinterpretq_s8_s32(s.v)));
    return {vsubq_s32(acc.v, vshlq_n_s32(sums, 7))};
#endif
  }
#if !defined(__ARM_FEATURE_MATMUL_INT8) && !defined(__ARM_FEATURE_DOTPROD)
  /// Whether conv2d and fully_connected multiply 16 depth bytes of one
  /// operand by 16 of the other (simd/qs8/common.h's kDepth16; qs8/pack.h's
  /// kWideDepthGroup): SMULL, SMLAL2 and SADALP into one accumulator per
  /// pair (a convolution's channel and pixel, a fully connected layer's
  /// row and column), three instructions per 16 products and no
  /// broadcast, the accumulators' pair sums added (ADDP) once, after the
  /// depth loop.
  static constexpr bool kDepth16Dots = true;
#if defined(__GNUC__) && !defined(__clang__)
  // Their 4 x 4 tiles take 16 accumulators, the loaded vectors and the
  // products: GCC's first scheduling pass hoists the products and spills
  // accumulators (the fully connected tile: 63 instructions per 256
  // products, 60 without that pass; the convolution's: 64, 59), so
  // simd/qs8/tile.h turns it off for the functions that hold those tiles.
#undef ONNXC_RT_SIMD_NO_PRESCHEDULE
#define ONNXC_RT_SIMD_NO_PRESCHEDULE __attribute__((optimize("no-schedule-insns")))
#endif
  /// acc + the pair sums of the 16 products u[j] * s[j] (signed bytes):
  /// lane i adds products 2i, 2i + 1, 8 + 2i and 9 + 2i.
  static VecI dot16(VecI acc, VecI packed_u, VecI s) {
    const int8x16_t u = vreinterpretq_s8_s32(packed_u.v), w = vreinterpretq_s8_s32(s.v);
    return {vpadalq_s16(vpadalq_s16(acc.v, vmull_s8(vget_low_s8(u), vget_low_s8(w))),
                        vmull_high_s8(u, w))};
  }
  /// dot16 for s in [-127, 127]: the two halves' products summed in 16
  /// bits first (|(u - 128) * s| <= 128 * 127, so two of them fit).
  static VecI dot16_narrow(VecI acc, VecI packed_u, VecI s) {
    const int8x16_t u = vreinterpretq_s8_s32(packed_u.v), w = vreinterpretq_s8_s32(s.v);
    return {vpadalq_s16(acc.v, vmlal_high_s8(vmull_s8(vget_low_s8(u), vget_low_s8(w)), u, w))};
  }
  /// The sums of adjacent lanes: a's two pairs, then b's (ADDP).
  static VecI pair_add(VecI a, VecI b) { return {vpaddq_s32(a.v, b.v)}; }
#else
  static constexpr bool kDepth16Dots = false;
#endif

  /// Whether dot_part_lane is one instruction (SDOT / USDOT by element): a
  /// kernel then loads four 4-byte groups of s as one vector and uses each
  /// lane in turn, instead of broadcasting each from memory.
#if defined(__ARM_FEATURE_MATMUL_INT8) || defined(__ARM_FEATURE_DOTPROD)
  static constexpr bool kLaneDot = true;
#else
  static constexpr bool kLaneDot = false;
#endif
  /// No 16-bit widened dot products for kernels to share (x86.h's
  /// kWidenedDots): dot_part is NEON's own split.
  static constexpr bool kWidenedDots = false;
  /// Whether the int8 depthwise convolution sums quads of taps by dot_part
  /// (simd/qs8/depthwise.h's kQuadDepthwise): where it is one instruction (SDOT /
  /// USDOT), not armv8-a's SMULL and pair sums.
  static constexpr bool kDepthwiseQuads = kLaneDot;
  /// No windows of bytes for the depthwise convolution (x86.h's
  /// byte_windows): its quads are the blocked form's.
  static constexpr bool kByteWindows = false;
  static constexpr bool kByteGather = false;
  static constexpr bool kBytePermute2 = false;
  /// dot_part(acc, packed u, lane L of s in every lane).
  template <int L> static VecI dot_part_lane(VecI acc, VecI packed_u, VecI s) {
#if defined(__ARM_FEATURE_MATMUL_INT8)
    return {vusdotq_laneq_s32(acc.v, vreinterpretq_u8_s32(packed_u.v), vreinterpretq_s8_s32(s.v),
                              L)};
#elif defined(__ARM_FEATURE_DOTPROD)
    return {vdotq_laneq_s32(acc.v, vreinterpretq_s8_s32(packed_u.v), vreinterpretq_s8_s32(s.v),
                            L)};
#else
    return dot_part(acc, packed_u, {vdupq_laneq_s32(s.v, L)});
#endif
  }

#if defined(__ARM_FEATURE_DOTPROD) && !defined(__ARM_FEATURE_MATMUL_INT8)
  /// Whether the whole register tiles of the convolution and the fully
  /// connected product sum in assembly, by dot_tile_4x24 and dot_tile_8x8
  /// (simd/qs8/tile.h's conv_tile, fc_tile): with SDOT and no USMMLA (whose
  /// tiles are conv_sums_mmla's and fc_sums_mmla's).
  static constexpr bool kSdotTiles = true;
  /// conv_tile's sums for 4 channels x 24 pixels by SDOT by element: per
  /// depth group the 24 pixels' 4 bytes (96 bytes at a, then a +=
  /// a_stride) times lane r of the 4 channels' 16 weight bytes (at w, then
  /// w += 16) into s[r][pixels / 4]. In assembly: GCC gave 31 instructions
  /// per 24 SDOT (three LDP of pixels, the weights, a pointer step and the
  /// loop); two groups a pass, the pixels by two LD1 whose second steps to
  /// the next group, both groups' weights by one, 27.5. Channel r's sums
  /// start at the vector kStartStep * r bytes from start (its added
  /// constant, read where the caller keeps it). The accumulators are
  /// outputs set in the assembly, the pointers copied into scratch
  /// registers: an in-out operand counts twice against GCC's 30.
  template <int kStartStep>
  ONNXC_RT_SIMD_INLINE static void dot_tile_4x24(const uint8_t *a, int64_t a_stride,
                                                const int8_t *w, int64_t groups,
                                                const VecI *start, VecI (&s)[4][6]) {
// Channel r's 6 vectors of pixels (v24-v29) times lane r of the weights.
#define ONNXC_RT_SDOT_ROW(r, wv)                                                          \
  "sdot %[s" #r "0].4s, v24.16b, " wv ".4b[" #r "]\n\t"                                    \
  "sdot %[s" #r "1].4s, v25.16b, " wv ".4b[" #r "]\n\t"                                    \
  "sdot %[s" #r "2].4s, v26.16b, " wv ".4b[" #r "]\n\t"                                    \
  "sdot %[s" #r "3].4s, v27.16b, " wv ".4b[" #r "]\n\t"                                    \
  "sdot %[s" #r "4].4s, v28.16b, " wv ".4b[" #r "]\n\t"                                    \
  "sdot %[s" #r "5].4s, v29.16b, " wv ".4b[" #r "]\n\t"
// One depth group: its pixels, then the 24 products.
#define ONNXC_RT_SDOT_GROUP(wv)                                                           \
  "ld1 {v24.16b, v25.16b, v26.16b, v27.16b}, [x9], #64\n\t"                               \
  "ld1 {v28.16b, v29.16b}, [x9], %[rest]\n\t"                                              \
  ONNXC_RT_SDOT_ROW(0, wv) ONNXC_RT_SDOT_ROW(1, wv) ONNXC_RT_SDOT_ROW(2, wv)              \
  ONNXC_RT_SDOT_ROW(3, wv)
// Channel r's 6 sums from its start (v30 / v31).
#define ONNXC_RT_SDOT_START(r, sv)                                                        \
  "mov %[s" #r "0].16b, " sv ".16b\n\tmov %[s" #r "1].16b, " sv ".16b\n\t"                 \
  "mov %[s" #r "2].16b, " sv ".16b\n\tmov %[s" #r "3].16b, " sv ".16b\n\t"                 \
  "mov %[s" #r "4].16b, " sv ".16b\n\tmov %[s" #r "5].16b, " sv ".16b\n\t"
    static_assert(kStartStep % 16 == 0 && 3 * kStartStep < 65536, "LDR's scaled offsets");
    const int64_t rest = a_stride - 64;
    __asm__ volatile(
        "ldr q30, [%[start]]\n\t"
        "ldr q31, [%[start], #%[ss]]\n\t"
        ONNXC_RT_SDOT_START(0, "v30") ONNXC_RT_SDOT_START(1, "v31")
        "ldr q30, [%[start], #(2 * %[ss])]\n\t"
        "ldr q31, [%[start], #(3 * %[ss])]\n\t"
        ONNXC_RT_SDOT_START(2, "v30") ONNXC_RT_SDOT_START(3, "v31")
        "mov x9, %[a]\n\t"
        "mov x10, %[w]\n\t"
        "lsr x11, %[g], #1\n\t"
        "cbz x11, 2f\n\t"
        "1:\n\t"
        "ld1 {v30.16b, v31.16b}, [x10], #32\n\t"
        ONNXC_RT_SDOT_GROUP("v30") ONNXC_RT_SDOT_GROUP("v31")
        "subs x11, x11, #1\n\t"
        "b.ne 1b\n\t"
        "2:\n\t"
        "tbz %[g], #0, 3f\n\t"
        "ldr q30, [x10]\n\t"
        ONNXC_RT_SDOT_GROUP("v30")
        "3:\n\t"
        : [s00] "=&w"(s[0][0].v), [s01] "=&w"(s[0][1].v), [s02] "=&w"(s[0][2].v),
          [s03] "=&w"(s[0][3].v), [s04] "=&w"(s[0][4].v), [s05] "=&w"(s[0][5].v),
          [s10] "=&w"(s[1][0].v), [s11] "=&w"(s[1][1].v), [s12] "=&w"(s[1][2].v),
          [s13] "=&w"(s[1][3].v), [s14] "=&w"(s[1][4].v), [s15] "=&w"(s[1][5].v),
          [s20] "=&w"(s[2][0].v), [s21] "=&w"(s[2][1].v), [s22] "=&w"(s[2][2].v),
          [s23] "=&w"(s[2][3].v), [s24] "=&w"(s[2][4].v), [s25] "=&w"(s[2][5].v),
          [s30] "=&w"(s[3][0].v), [s31] "=&w"(s[3][1].v), [s32] "=&w"(s[3][2].v),
          [s33] "=&w"(s[3][3].v), [s34] "=&w"(s[3][4].v), [s35] "=&w"(s[3][5].v)
        : [a] "r"(a), [w] "r"(w), [g] "r"(groups), [rest] "r"(rest), [start] "r"(start),
          [ss] "i"(kStartStep)
        : "cc", "memory", "x9", "x10", "x11", "v24", "v25", "v26", "v27", "v28", "v29", "v30",
          "v31");
#undef ONNXC_RT_SDOT_START
#undef ONNXC_RT_SDOT_GROUP
#undef ONNXC_RT_SDOT_ROW
  }

  /// fc_tile's sums for 8 rows x 8 columns by SDOT with the rows' bytes by
  /// element: `quads` times, each of the 8 rows' next 16 bytes (rows
  /// a_stride apart from a; four depth groups) by each group's 32 weight
  /// bytes of the 8 columns (from w, groups w_step apart), 64 SDOT into
  /// s[row][columns / 4]. In assembly: GCC gave 85 instructions per 64 SDOT
  /// (a load per 16 weight bytes, pointer steps); here 78, the rows through
  /// 8 pointers that step themselves (x9-x16), a group's weights by one LD1
  /// that steps to the next. The sums start at zero.
  ONNXC_RT_SIMD_INLINE static void dot_tile_8x8(const uint8_t *a, int64_t a_stride,
                                               const int8_t *w, int64_t w_step, int64_t quads,
                                               VecI (&s)[8][2]) {
// Row r's two vectors of sums: lane `lane` of its bytes (row) by the group's
// two vectors of columns (w0, w1).
#define ONNXC_RT_SDOT_ROW(r, row, lane, w0, w1)                                           \
  "sdot %[s" #r "0].4s, " w0 ".16b, " row ".4b[" #lane "]\n\t"                               \
  "sdot %[s" #r "1].4s, " w1 ".16b, " row ".4b[" #lane "]\n\t"
#define ONNXC_RT_SDOT_GROUP(lane, w0, w1)                                                 \
  ONNXC_RT_SDOT_ROW(0, "v24", lane, w0, w1) ONNXC_RT_SDOT_ROW(1, "v25", lane, w0, w1)     \
  ONNXC_RT_SDOT_ROW(2, "v26", lane, w0, w1) ONNXC_RT_SDOT_ROW(3, "v27", lane, w0, w1)     \
  ONNXC_RT_SDOT_ROW(4, "v28", lane, w0, w1) ONNXC_RT_SDOT_ROW(5, "v29", lane, w0, w1)     \
  ONNXC_RT_SDOT_ROW(6, "v30", lane, w0, w1) ONNXC_RT_SDOT_ROW(7, "v31", lane, w0, w1)
#define ONNXC_RT_ZERO(r) "movi %[s" #r "0].4s, #0\n\tmovi %[s" #r "1].4s, #0\n\t"
    __asm__ volatile(
        ONNXC_RT_ZERO(0) ONNXC_RT_ZERO(1) ONNXC_RT_ZERO(2) ONNXC_RT_ZERO(3)
        ONNXC_RT_ZERO(4) ONNXC_RT_ZERO(5) ONNXC_RT_ZERO(6) ONNXC_RT_ZERO(7)
        "cbz %[n], 2f\n\t"
        "mov x9, %[a]\n\t"
        "add x10, x9, %[as]\n\t"
        "add x11, x10, %[as]\n\t"
        "add x12, x11, %[as]\n\t"
        "add x13, x12, %[as]\n\t"
        "add x14, x13, %[as]\n\t"
        "add x15, x14, %[as]\n\t"
        "add x16, x15, %[as]\n\t"
        "mov x17, %[w]\n\t"
        "1:\n\t"
        "ldr q24, [x9], #16\n\t"
        "ldr q25, [x10], #16\n\t"
        "ldr q26, [x11], #16\n\t"
        "ldr q27, [x12], #16\n\t"
        "ldr q28, [x13], #16\n\t"
        "ldr q29, [x14], #16\n\t"
        "ldr q30, [x15], #16\n\t"
        "ldr q31, [x16], #16\n\t"
        "ld1 {v16.16b, v17.16b}, [x17], %[ws]\n\t"
        "ld1 {v18.16b, v19.16b}, [x17], %[ws]\n\t"
        "ld1 {v20.16b, v21.16b}, [x17], %[ws]\n\t"
        "ld1 {v22.16b, v23.16b}, [x17], %[ws]\n\t"
        ONNXC_RT_SDOT_GROUP(0, "v16", "v17") ONNXC_RT_SDOT_GROUP(1, "v18", "v19")
        ONNXC_RT_SDOT_GROUP(2, "v20", "v21") ONNXC_RT_SDOT_GROUP(3, "v22", "v23")
        "subs %[n], %[n], #1\n\t"
        "b.ne 1b\n\t"
        "2:\n\t"
        : [n] "+r"(quads), [s00] "=&w"(s[0][0].v), [s01] "=&w"(s[0][1].v),
          [s10] "=&w"(s[1][0].v), [s11] "=&w"(s[1][1].v), [s20] "=&w"(s[2][0].v),
          [s21] "=&w"(s[2][1].v), [s30] "=&w"(s[3][0].v), [s31] "=&w"(s[3][1].v),
          [s40] "=&w"(s[4][0].v), [s41] "=&w"(s[4][1].v), [s50] "=&w"(s[5][0].v),
          [s51] "=&w"(s[5][1].v), [s60] "=&w"(s[6][0].v), [s61] "=&w"(s[6][1].v),
          [s70] "=&w"(s[7][0].v), [s71] "=&w"(s[7][1].v)
        : [a] "r"(a), [as] "r"(a_stride), [w] "r"(w), [ws] "r"(w_step)
        : "cc", "memory", "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17",
          "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27",
          "v28", "v29", "v30", "v31");
#undef ONNXC_RT_ZERO
#undef ONNXC_RT_SDOT_GROUP
#undef ONNXC_RT_SDOT_ROW
  }
#else
  static constexpr bool kSdotTiles = false;
#endif

  /// Whether mmla is one instruction (USMMLA, i8mm): the convolution then
  /// packs depth in groups of 8 (qs8/pack.h's kMatMulDepthGroup) and
  /// multiplies 2 x 8 by 8 x 2 bytes at a time, 32 products an
  /// instruction against SDOT's 16.
#if defined(__ARM_FEATURE_MATMUL_INT8)
  static constexpr bool kMatMul = true;
  /// acc + the 2 x 2 products of u's two rows of 8 unsigned bytes (bytes
  /// 0-7 and 8-15) and s's two rows of 8 signed bytes: lane 2 i + j adds
  /// sum_k u[8 i + k] * s[8 j + k].
  static VecI mmla(VecI acc, VecI u, VecI s) {
    return {vusmmlaq_s32(acc.v, vreinterpretq_u8_s32(u.v), vreinterpretq_s8_s32(s.v))};
  }
#else
  static constexpr bool kMatMul = false;
#endif

  /// The im2col packing's interleave of rows (simd/qs8/common.h's
  /// interleave_rows) as one instruction: ST4 stores element i of four
  /// registers together.
  static constexpr bool kStore4 = true;
  /// No 64-byte interleave (x86.h's interleave4_64): ST4 serves.
  static constexpr bool kInterleave64 = false;
  static void interleave4_64(const uint8_t *const *, int64_t, uint8_t, uint8_t *, int64_t) {}
  /// No byte masks (x86.h's padded_plane): false, nothing written; the
  /// callers fill the padding and copy the rows.
  static int64_t padded_plane_span(int64_t pitch) { return pitch; }
  static bool padded_plane(const uint8_t *, int64_t, int64_t, int64_t, int64_t, int64_t,
                           int64_t, uint8_t, uint8_t, uint8_t *) {
    return false;
  }
  /// No 64-byte runs (x86.h's copy_run_64): gather_row copies 16 bytes a store.
  static constexpr bool kCopy64 = false;
  static void copy_run_64(uint8_t *, const uint8_t *, int64_t) {}
  /// Byte i of a, b, c, d at out[4 i .. 4 i + 3], i < 16 (ST4 of bytes).
  static void store4_bytes(uint8_t *out, VecI a, VecI b, VecI c, VecI d) {
    vst4q_u8(out, (uint8x16x4_t{{vreinterpretq_u8_s32(a.v), vreinterpretq_u8_s32(b.v),
                                  vreinterpretq_u8_s32(c.v), vreinterpretq_u8_s32(d.v)}}));
  }
  /// 16-bit element i of a, b, c, d at out[8 i .. 8 i + 7], i < 8 (ST4
  /// of halves).
  static void store4_halves(uint8_t *out, VecI a, VecI b, VecI c, VecI d) {
    vst4q_u16(reinterpret_cast<uint16_t *>(out),
              (uint16x8x4_t{{vreinterpretq_u16_s32(a.v), vreinterpretq_u16_s32(b.v),
                             vreinterpretq_u16_s32(c.v), vreinterpretq_u16_s32(d.v)}}));
  }

  /// dot_part(acc, lane L of packed u in every lane, s): the same
  /// instruction with the unsigned operand by element (SUDOT with i8mm),
  /// for a kernel whose activations are the ones it loads four at a time.
  template <int L> static VecI dot_part_u_lane(VecI acc, VecI packed_u, VecI s) {
#if defined(__ARM_FEATURE_MATMUL_INT8)
    return {vsudotq_laneq_s32(acc.v, vreinterpretq_s8_s32(s.v), vreinterpretq_u8_s32(packed_u.v),
                              L)};
#elif defined(__ARM_FEATURE_DOTPROD)
    return {vdotq_laneq_s32(acc.v, vreinterpretq_s8_s32(s.v), vreinterpretq_s8_s32(packed_u.v),
                            L)};
#else
    return dot_part(acc, {vdupq_laneq_s32(packed_u.v, L)}, s);
#endif
  }

  /// floor(a * b / 2^31) per lane, for b != INT32_MIN: SQDMULH, whose
  /// saturation only bites at a = b = INT32_MIN.
  static VecI doubling_high_mul(VecI a, VecI b) { return {vqdmulhq_s32(a.v, b.v)}; }

  /// Lanes widened from kLanes values of T (int8_t, uint8_t or int16_t).
  template <typename T> static VecI widen(const T *p) {
    if (sizeof(T) == 2) {
      int16x4_t h;
      __builtin_memcpy(&h, p, sizeof h);
      return {vmovl_s16(h)};
    }
    uint32_t four;
    __builtin_memcpy(&four, p, 4);
    const uint8x8_t b = vreinterpret_u8_u32(vdup_n_u32(four));
    if (T(-1) < T(0))
      return {vmovl_s16(vget_low_s16(vmovl_s8(vreinterpret_s8_u8(b))))};
    return {vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(vmovl_u8(b))))};
  }

  /// Whether round_saturated is one instruction (FCVTNS: round half to
  /// even, saturated to int32's range; NaN gives 0): quantize_linear then
  /// clamps its quotients only below and narrows with saturation.
  static constexpr bool kSaturatingRound = true;
  static VecI round_saturated(VecF x) { return {vcvtnq_s32_f32(x.v)}; }

  /// N * 4 values of T from p, widened, a vector of them after another:
  /// bytes 16 at a time (one load, SXTL / UXTL twice), else by widen.
  template <int N, typename T> static void widen_all(const T *p, VecI (&out)[N]) {
    if constexpr (sizeof(T) == 1 && N % 4 == 0) {
      for (int j = 0; j < N; j += 4) {
        uint8x16_t b;
        __builtin_memcpy(&b, p + 4 * j, sizeof b);
        if constexpr (T(-1) < T(0)) {
          const int16x8_t lo = vmovl_s8(vget_low_s8(vreinterpretq_s8_u8(b)));
          const int16x8_t hi = vmovl_high_s8(vreinterpretq_s8_u8(b));
          out[j] = {vmovl_s16(vget_low_s16(lo))};
          out[j + 1] = {vmovl_high_s16(lo)};
          out[j + 2] = {vmovl_s16(vget_low_s16(hi))};
          out[j + 3] = {vmovl_high_s16(hi)};
        } else {
          const uint16x8_t lo = vmovl_u8(vget_low_u8(b)), hi = vmovl_high_u8(b);
          out[j] = {vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(lo)))};
          out[j + 1] = {vreinterpretq_s32_u32(vmovl_high_u16(lo))};
          out[j + 2] = {vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(hi)))};
          out[j + 3] = {vreinterpretq_s32_u32(vmovl_high_u16(hi))};
        }
      }
    } else {
      for (int j = 0; j < N; ++j)
        out[j] = widen(p + j * kLanes);
    }
  }

  /// N vectors from p, one after another: four as one LD1 of 4 registers
  /// (two as LD1 of 2), where GCC otherwise pairs some of the loads (LDP)
  /// and not others.
  template <int N> static void load_all(const void *p, VecI (&out)[N]) {
    const int32_t *q = static_cast<const int32_t *>(p);
    if constexpr (N == 4) {
      const int32x4x4_t v = vld1q_s32_x4(q);
      out[0] = {v.val[0]}, out[1] = {v.val[1]}, out[2] = {v.val[2]}, out[3] = {v.val[3]};
    } else if constexpr (N == 2) {
      const int32x4x2_t v = vld1q_s32_x2(q);
      out[0] = {v.val[0]}, out[1] = {v.val[1]};
    } else {
      for (int j = 0; j < N; ++j)
        out[j] = {vld1q_s32(q + 4 * j)};
    }
  }

  /// Stores lanes [0, n) narrowed to T; the values are in T's range.
  /// The N vectors narrowed to T (their values fit) and stored one after
  /// another: pairs narrowed into one vector (XTN, XTN2), four 4-lane
  /// vectors of bytes into one 16-byte store.
  template <int N, typename T> static void store_narrow_all(T *p, const VecI (&x)[N]) {
    if constexpr (N % 2 == 0) {
      for (int j = 0; j < N; j += 2) {
        const int16x8_t h = vmovn_high_s32(vmovn_s32(x[j].v), x[j + 1].v);
        if constexpr (sizeof(T) == 2) {
          vst1q_s16(reinterpret_cast<int16_t *>(p + j * kLanes), h);
        } else if (N % 4 == 0 && j % 4 == 0) {
          const int16x8_t h2 = vmovn_high_s32(vmovn_s32(x[j + 2].v), x[j + 3].v);
          vst1q_s8(reinterpret_cast<int8_t *>(p + j * kLanes), vmovn_high_s16(vmovn_s16(h), h2));
          j += 2;
        } else {
          vst1_s8(reinterpret_cast<int8_t *>(p + j * kLanes), vmovn_s16(h));
        }
      }
    } else {
      for (int j = 0; j < N; ++j)
        x[j].store_narrow(p + j * kLanes, kLanes);
    }
  }
  /// clamp(r[j] + y_zp, act_min, act_max) narrowed to bytes T and stored,
  /// the zero point added and the clamp applied after narrowing: SQXTN
  /// pairs into 16 bits, SQADD of the zero point, SQXTN (SQXTUN for
  /// uint8) into bytes, then SMAX / SMIN (UMAX / UMIN) on 8 or 16 lanes.
  /// The saturations are monotone and exact on T's range, which holds
  /// [act_min, act_max]: the clamp gives what the 32-bit one gives.
  template <int N, typename T>
  static void store_narrow_clamped(T *p, const VecI (&r)[N], VecI y_zp, VecI act_min,
                                   VecI act_max) {
    if constexpr (sizeof(T) == 1 && N % 2 == 0) {
      constexpr bool kSigned = T(-1) < T(0);
      const int16x8_t zp = vcombine_s16(vmovn_s32(y_zp.v), vmovn_s32(y_zp.v));
      auto halves = [&](int j) {
        return vqaddq_s16(vqmovn_high_s32(vqmovn_s32(r[j].v), r[j + 1].v), zp);
      };
      const int16x8_t lo16 = vcombine_s16(vmovn_s32(act_min.v), vmovn_s32(act_min.v));
      const int16x8_t hi16 = vcombine_s16(vmovn_s32(act_max.v), vmovn_s32(act_max.v));
      for (int j = 0; j < N; j += 2) {
        if (N % 4 == 0 && j % 4 == 0) {
          const int16x8_t a = halves(j), b = halves(j + 2);
          if constexpr (kSigned) {
            int8x16_t v = vqmovn_high_s16(vqmovn_s16(a), b);
            v = vminq_s8(vmaxq_s8(v, vmovn_high_s16(vmovn_s16(lo16), lo16)),
                         vmovn_high_s16(vmovn_s16(hi16), hi16));
            vst1q_s8(reinterpret_cast<int8_t *>(p + j * kLanes), v);
          } else {
            uint8x16_t v = vqmovun_high_s16(vqmovun_s16(a), b);
            v = vminq_u8(vmaxq_u8(v, vqmovun_high_s16(vqmovun_s16(lo16), lo16)),
                         vqmovun_high_s16(vqmovun_s16(hi16), hi16));
            vst1q_u8(reinterpret_cast<uint8_t *>(p + j * kLanes), v);
          }
          j += 2;
        } else if constexpr (kSigned) {
          const int8x8_t v = vmin_s8(vmax_s8(vqmovn_s16(halves(j)), vmovn_s16(lo16)),
                                     vmovn_s16(hi16));
          vst1_s8(reinterpret_cast<int8_t *>(p + j * kLanes), v);
        } else {
          const uint8x8_t v = vmin_u8(vmax_u8(vqmovun_s16(halves(j)), vqmovun_s16(lo16)),
                                      vqmovun_s16(hi16));
          vst1_u8(reinterpret_cast<uint8_t *>(p + j * kLanes), v);
        }
      }
    } else {
      VecI out[N];
      for (int j = 0; j < N; ++j)
        out[j] = min(max(add(r[j], y_zp), act_min), act_max);
      store_narrow_all(p, out);
    }
  }
  template <typename T> void store_narrow(T *p, int64_t n) const {
    const int16x4_t h = vmovn_s32(v);
    // A whole vector is one store; only a tail copies n values (a
    // memcpy of a variable size is a call).
    if (sizeof(T) == 2) {
      if (n >= kLanes)
        __builtin_memcpy(p, &h, 8);
      else
        __builtin_memcpy(p, &h, size_t(n) * 2);
      return;
    }
    const int8x8_t b = vmovn_s16(vcombine_s16(h, h));
    if (n >= kLanes)
      __builtin_memcpy(p, &b, 4);
    else
      __builtin_memcpy(p, &b, size_t(n));
  }
};

/// out[i] = table[in[i] ^ flip] for the whole 16-byte blocks of [0, n):
/// TBL over the 256-byte table as four 64-byte quarters (TBX leaves the
/// lanes whose index is outside its quarter). Returns how many it did.
inline int64_t lookup_bytes(const uint8_t *table, const uint8_t *in, uint8_t *out, int64_t n,
                            uint8_t flip) {
  uint8x16x4_t quarter[4];
  for (int q = 0; q < 4; ++q)
    quarter[q] = vld1q_u8_x4(table + 64 * q);
  const uint8x16_t vflip = vdupq_n_u8(flip), step = vdupq_n_u8(64);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t idx = veorq_u8(vld1q_u8(in + i), vflip);
    uint8x16_t r = vqtbl4q_u8(quarter[0], idx);
    for (int q = 1; q < 4; ++q) {
      idx = vsubq_u8(idx, step);
      r = vqtbx4q_u8(r, quarter[q], idx);
    }
    vst1q_u8(out + i, r);
  }
  return i;
}

} // namespace simd
} // namespace onnxc_rt

#endif
