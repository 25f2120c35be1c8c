// int8 fully connected layers for microcontrollers (mcu/qs8/dot.h):
// int8 weights, four per word, widened by SXTB16 (even and odd bytes)
// against the input widened once into the matching (x0, x2), (x1, x3)
// pairs, four output rows at a time; on ARMv6-M (the M0, M0+) weight bytes
// stored plus 128 (FcBytes::Biased) so that one LDRB reads each; on Helium
// (the M55), int8 rows against the int8 input as stored, 16 products per
// VMLADAVA (fully_connected_mve).
#ifndef ONNXC_RT_MCU_QS8_FULLY_CONNECTED_H
#define ONNXC_RT_MCU_QS8_FULLY_CONNECTED_H

#include "onnxc_rt/kernels/mcu/qs8/dot.h"

namespace onnxc_rt {
namespace mcu {
namespace qs8 {

/// Output rows per block of the fully connected kernel.
constexpr int kFcRows = 4;

/// How pack_fc_weights stores each weight byte: as it is (SXTB16, LDRSB
/// and SXTB sign-extend it), or plus 128 (ARMv6-M: LDRB reads a byte at an
/// immediate offset in one instruction, where LDRSB takes only a register
/// offset and a word's bytes cost 1.5 instructions each to sign-extend; the
/// 128 x sum(x) the bias adds to each sum is taken off once per input row).
enum class FcBytes { Signed, Biased };

/// Words of packed fully connected weights: N rounded up to 4 rows of K
/// rounded up to 4 bytes.
constexpr int fc_packed_words(int k, int n) {
  return (n + kFcRows - 1) / kFcRows * kFcRows * ((k + 3) / 4);
}

/// Packs w (k x n int8, column j an output) into [N/4][K/4][4 rows] words
/// of four consecutive depth values (weight zero past k and n), each byte
/// stored as `bytes` says.
inline void pack_fc_weights(const int8_t *w, int k, int n, int32_t *out,
                            FcBytes bytes = FcBytes::Signed) {
  const int bias = bytes == FcBytes::Biased ? 128 : 0;
  const int quads = (k + 3) / 4;
  for (int b = 0; b < (n + kFcRows - 1) / kFcRows; ++b)
    for (int q = 0; q < quads; ++q)
      for (int r = 0; r < kFcRows; ++r) {
        const int col = b * kFcRows + r;
        uint32_t word = 0;
        for (int i = 0; i < 4; ++i) {
          const int d = 4 * q + i;
          const int8_t v = col < n && d < k ? w[d * n + col] : 0;
          word |= uint32_t(uint8_t(v + bias)) << (8 * i);
        }
        *out++ = static_cast<int32_t>(word);
      }
}

/// Scratch bytes fully_connected needs: the input row widened.
constexpr int fc_scratch_bytes(int k) { return (k + 3) / 4 * 2 * 4; }

/// fc_rows in plain C, either byte form: each stored byte (signed, or
/// unsigned for FcBytes::Biased) times its input value, the sums modulo 2^32
/// (SMLAD's integers; emulating SXTB16 and SMLAD costs a pack and an unpack
/// per pair).
template <int Q, FcBytes B>
inline void fc_rows_plain(const int32_t *w, const int32_t *x, int32_t &acc0, int32_t &acc1,
                          int32_t &acc2, int32_t &acc3) {
  uint32_t sum[kFcRows] = {uint32_t(acc0), uint32_t(acc1), uint32_t(acc2), uint32_t(acc3)};
  for (int q = 0; q < Q; ++q, x += 2, w += kFcRows) {
    const int32_t v[4] = {int16_t(x[0]), int16_t(x[1]), x[0] >> 16, x[1] >> 16};
    for (int r = 0; r < kFcRows; ++r)
      for (int i = 0; i < 4; ++i) {
        const uint32_t byte = uint32_t(w[r]) >> (8 * i) & 0xffu;
        const int32_t weight = B == FcBytes::Biased ? int32_t(byte) : int32_t(int8_t(byte));
        sum[r] += uint32_t(weight * v[i]);
      }
  }
  acc0 = int32_t(sum[0]);
  acc1 = int32_t(sum[1]);
  acc2 = int32_t(sum[2]);
  acc3 = int32_t(sum[3]);
}

/// acc0..3 += four output rows' packed weights (w, Q words each,
/// interleaved) times the widened input (x: Q (even, odd) word pairs).
template <int Q>
inline void fc_rows(const int32_t *w, const int32_t *x, int32_t &acc0, int32_t &acc1,
                    int32_t &acc2, int32_t &acc3) {
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP && defined(__thumb2__) && \
    defined(__OPTIMIZE__)
  // One quad of depth: an LDRD of the input pair, two of weights, and per
  // row SXTB16 (even, odd bytes) + SMLAD each: 19 instructions for 16
  // products (GCC 12's C spills an accumulator in this loop).
  if (Q > 0) {
    int32_t n = Q, even, odd, w0, w1, t;
    __asm__ volatile("1:\n\t"
                     "ldrd %[even], %[odd], [%[x]], #8\n\t"
                     "ldrd %[w0], %[w1], [%[w]], #8\n\t"
                     "sxtb16 %[t], %[w0]\n\t"
                     "smlad %[a0], %[t], %[even], %[a0]\n\t"
                     "sxtb16 %[t], %[w0], ror #8\n\t"
                     "smlad %[a0], %[t], %[odd], %[a0]\n\t"
                     "sxtb16 %[t], %[w1]\n\t"
                     "smlad %[a1], %[t], %[even], %[a1]\n\t"
                     "sxtb16 %[t], %[w1], ror #8\n\t"
                     "smlad %[a1], %[t], %[odd], %[a1]\n\t"
                     "ldrd %[w0], %[w1], [%[w]], #8\n\t"
                     "sxtb16 %[t], %[w0]\n\t"
                     "smlad %[a2], %[t], %[even], %[a2]\n\t"
                     "sxtb16 %[t], %[w0], ror #8\n\t"
                     "smlad %[a2], %[t], %[odd], %[a2]\n\t"
                     "sxtb16 %[t], %[w1]\n\t"
                     "smlad %[a3], %[t], %[even], %[a3]\n\t"
                     "sxtb16 %[t], %[w1], ror #8\n\t"
                     "smlad %[a3], %[t], %[odd], %[a3]\n\t"
                     "subs %[n], %[n], #1\n\t"
                     "bne 1b"
                     : [a0] "+r"(acc0), [a1] "+r"(acc1), [a2] "+r"(acc2), [a3] "+r"(acc3),
                       [w] "+r"(w), [x] "+r"(x), [n] "+r"(n), [even] "=&r"(even),
                       [odd] "=&r"(odd), [w0] "=&r"(w0), [w1] "=&r"(w1), [t] "=&r"(t)
                     :
                     : "cc", "memory");
  }
#elif defined(__ARM_ARCH_7M__) && defined(__thumb2__) && defined(__OPTIMIZE__)
  // ARMv7-M without the DSP extension (the M3): a quad's four input values
  // by sign-extending loads, then per row each weight byte by LDRSB and its
  // product by MLA: 36 instructions for 16 products, the loop's two every
  // kFcUnroll quads (the C below, as GCC 12 compiles it, about 50 a quad);
  // the quads past the last whole pass follow it.
#define ONNXC_MCU_FC_QUAD_M3                                                  \
  "ldrsh %[x0], [%[x]], #8\n\t"                                               \
  "ldrsh %[x2], [%[x], #-6]\n\t"                                              \
  "ldrsh %[x1], [%[x], #-4]\n\t"                                              \
  "ldrsh %[x3], [%[x], #-2]\n\t"                                              \
  "ldrsb %[t], [%[w]], #16\n\t"                                               \
  "mla %[a0], %[t], %[x0], %[a0]\n\t"                                         \
  "ldrsb %[t], [%[w], #-15]\n\t"                                              \
  "mla %[a0], %[t], %[x1], %[a0]\n\t"                                         \
  "ldrsb %[t], [%[w], #-14]\n\t"                                              \
  "mla %[a0], %[t], %[x2], %[a0]\n\t"                                         \
  "ldrsb %[t], [%[w], #-13]\n\t"                                              \
  "mla %[a0], %[t], %[x3], %[a0]\n\t"                                         \
  "ldrsb %[t], [%[w], #-12]\n\t"                                              \
  "mla %[a1], %[t], %[x0], %[a1]\n\t"                                         \
  "ldrsb %[t], [%[w], #-11]\n\t"                                              \
  "mla %[a1], %[t], %[x1], %[a1]\n\t"                                         \
  "ldrsb %[t], [%[w], #-10]\n\t"                                              \
  "mla %[a1], %[t], %[x2], %[a1]\n\t"                                         \
  "ldrsb %[t], [%[w], #-9]\n\t"                                               \
  "mla %[a1], %[t], %[x3], %[a1]\n\t"                                         \
  "ldrsb %[t], [%[w], #-8]\n\t"                                               \
  "mla %[a2], %[t], %[x0], %[a2]\n\t"                                         \
  "ldrsb %[t], [%[w], #-7]\n\t"                                               \
  "mla %[a2], %[t], %[x1], %[a2]\n\t"                                         \
  "ldrsb %[t], [%[w], #-6]\n\t"                                               \
  "mla %[a2], %[t], %[x2], %[a2]\n\t"                                         \
  "ldrsb %[t], [%[w], #-5]\n\t"                                               \
  "mla %[a2], %[t], %[x3], %[a2]\n\t"                                         \
  "ldrsb %[t], [%[w], #-4]\n\t"                                               \
  "mla %[a3], %[t], %[x0], %[a3]\n\t"                                         \
  "ldrsb %[t], [%[w], #-3]\n\t"                                               \
  "mla %[a3], %[t], %[x1], %[a3]\n\t"                                         \
  "ldrsb %[t], [%[w], #-2]\n\t"                                               \
  "mla %[a3], %[t], %[x2], %[a3]\n\t"                                         \
  "ldrsb %[t], [%[w], #-1]\n\t"                                               \
  "mla %[a3], %[t], %[x3], %[a3]\n\t"
  if (Q > 0) {
    constexpr int kFcUnroll = 4;
    int32_t n = Q / kFcUnroll, x0, x1, x2, x3, t;
    __asm__ volatile(".if %c[passes]\n\t"
                     "1:\n\t"
                     ".rept %c[unroll]\n\t" ONNXC_MCU_FC_QUAD_M3 ".endr\n\t"
                     "subs %[n], %[n], #1\n\t"
                     "bne 1b\n\t"
                     ".endif\n\t"
                     ".rept %c[rest]\n\t" ONNXC_MCU_FC_QUAD_M3 ".endr"
                     : [a0] "+r"(acc0), [a1] "+r"(acc1), [a2] "+r"(acc2), [a3] "+r"(acc3),
                       [w] "+r"(w), [x] "+r"(x), [n] "+r"(n), [x0] "=&r"(x0), [x1] "=&r"(x1),
                       [x2] "=&r"(x2), [x3] "=&r"(x3), [t] "=&r"(t)
                     : [passes] "i"(Q / kFcUnroll), [unroll] "i"(kFcUnroll),
                       [rest] "i"(Q % kFcUnroll)
                     : "cc", "memory");
  }
#undef ONNXC_MCU_FC_QUAD_M3
#else
  // No DSP extension (the host; ARMv6-M takes FcBytes::Biased, below).
  fc_rows_plain<Q, FcBytes::Signed>(w, x, acc0, acc1, acc2, acc3);
#endif
}

/// fc_rows for weights packed FcBytes::Biased: acc0..3 += sum of each
/// stored byte read unsigned (weight + 128) times its input value; the sums
/// wrap modulo 2^32 (the caller's -128 x sum(x) brings them back in range).
template <int Q>
inline void fc_rows_biased(const int32_t *w, const int32_t *x, int32_t &acc0, int32_t &acc1,
                           int32_t &acc2, int32_t &acc3) {
#if defined(__ARM_ARCH_6M__) && defined(__OPTIMIZE__)
  // ARMv6-M (the M0, M0+): a quad's four input values sign-extended once
  // into low registers, then per row each weight byte by LDRB at an
  // immediate offset (0..31: the weight pointer moves on every second quad),
  // times one of them (MULS), added to the row's sum in a high register: 54
  // instructions for 16 products (the signed bytes' SXTB and shifts took
  // 66), kFcUnroll quads a pass (their offsets from .Lfc_q, the quad's index
  // in it), the loop's four each pass (a pass is beyond BNE's reach: BEQ over
  // a B); the quads past the last whole pass follow it. The loop is in the
  // asm and divided syntax is used, as in product_2x2's ARMv6-M form
  // (qs8/dot.h).
#define ONNXC_MCU_FC_PRODUCT_M0(acc, x, offset)                               \
  "ldrb %[t], [%[w], #(16 * (.Lfc_q & 1) + " #offset ")]\n\t"                \
  "mul %[t], %[" #x "]\n\t"                                                   \
  "add %[" #acc "], %[t]\n\t"
#define ONNXC_MCU_FC_ROW_M0(acc, row)                                         \
  ONNXC_MCU_FC_PRODUCT_M0(acc, x0, 4 * row + 0)                               \
  ONNXC_MCU_FC_PRODUCT_M0(acc, x1, 4 * row + 1)                               \
  ONNXC_MCU_FC_PRODUCT_M0(acc, x2, 4 * row + 2)                               \
  ONNXC_MCU_FC_PRODUCT_M0(acc, x3, 4 * row + 3)
#define ONNXC_MCU_FC_QUAD_M0                                                  \
  "ldr %[x0], [%[x], #(8 * .Lfc_q + 0)]\n\t"                                  \
  "asr %[x2], %[x0], #16\n\t"                                                 \
  "sxth %[x0], %[x0]\n\t"                                                     \
  "ldr %[x1], [%[x], #(8 * .Lfc_q + 4)]\n\t"                                  \
  "asr %[x3], %[x1], #16\n\t"                                                 \
  "sxth %[x1], %[x1]\n\t"                                                     \
  ONNXC_MCU_FC_ROW_M0(a0, 0)                                                  \
  ONNXC_MCU_FC_ROW_M0(a1, 1)                                                  \
  ONNXC_MCU_FC_ROW_M0(a2, 2)                                                  \
  ONNXC_MCU_FC_ROW_M0(a3, 3)                                                  \
  ".if .Lfc_q & 1\n\t"                                                        \
  "add %[w], #32\n\t"                                                         \
  ".endif\n\t"                                                                \
  ".set .Lfc_q, .Lfc_q + 1\n\t"
  if (Q > 0) {
    constexpr int kFcUnroll = 4;
    const int32_t *end = x + 2 * (Q / kFcUnroll * kFcUnroll);
    int32_t x0, x1, x2, x3, t;
    __asm__ volatile(".if %c[passes]\n\t"
                     "1:\n\t"
                     ".set .Lfc_q, 0\n\t"
                     ".rept %c[unroll]\n\t" ONNXC_MCU_FC_QUAD_M0 ".endr\n\t"
                     "add %[x], #%c[xstep]\n\t"
                     "cmp %[x], %[end]\n\t"
                     "beq 2f\n\t"
                     "b 1b\n\t"
                     "2:\n\t"
                     ".endif\n\t"
                     ".set .Lfc_q, 0\n\t"
                     ".rept %c[rest]\n\t" ONNXC_MCU_FC_QUAD_M0 ".endr"
                     : [a0] "+h"(acc0), [a1] "+h"(acc1), [a2] "+h"(acc2), [a3] "+h"(acc3),
                       [w] "+l"(w), [x] "+l"(x), [x0] "=&l"(x0), [x1] "=&l"(x1),
                       [x2] "=&l"(x2), [x3] "=&l"(x3), [t] "=&l"(t)
                     : [end] "h"(end), [passes] "i"(Q / kFcUnroll), [unroll] "i"(kFcUnroll),
                       [rest] "i"(Q % kFcUnroll), [xstep] "i"(8 * kFcUnroll)
                     : "cc", "memory");
  }
#undef ONNXC_MCU_FC_QUAD_M0
#undef ONNXC_MCU_FC_ROW_M0
#undef ONNXC_MCU_FC_PRODUCT_M0
#else
  fc_rows_plain<Q, FcBytes::Biased>(w, x, acc0, acc1, acc2, acc3);
#endif
}

/// y (rows x N) = requantize(a (rows x K, zero point XZp) * W), W packed by
/// pack_fc_weights with bytes B, the channels' requantization from
/// channel_params (N x kChannelWords), clamped to [Lo, Hi].
template <typename T, int Rows, int K, int N, int XZp, int YZp, int Lo, int Hi, bool Wide,
          FcBytes B = FcBytes::Signed>
void fully_connected(const T *a, const int32_t *packed, const int32_t *params, T *y,
                     int32_t *scratch) {
  constexpr int Q = (K + 3) / 4;
  for (int r = 0; r < Rows; ++r, a += K, y += N) {
    // (x0, x2) and (x1, x3) of each quad, less the zero point; their sum
    // for the biased bytes' share (modulo 2^32, as the sums are taken).
    uint32_t sum = 0;
    for (int q = 0; q < Q; ++q) {
      int32_t v[4];
      for (int i = 0; i < 4; ++i) {
        v[i] = 4 * q + i < K ? int32_t(a[4 * q + i]) - XZp : 0;
        sum += uint32_t(v[i]);
      }
      scratch[2 * q] = pack_pair(v[0], v[2]);
      scratch[2 * q + 1] = pack_pair(v[1], v[3]);
    }
    const int32_t start = B == FcBytes::Biased ? int32_t(0u - 128u * sum) : 0;
    const int32_t *w = packed;
    for (int n0 = 0; n0 < N; n0 += kFcRows) {
      int32_t acc0 = start, acc1 = start, acc2 = start, acc3 = start;
      if (B == FcBytes::Biased)
        fc_rows_biased<Q>(w, scratch, acc0, acc1, acc2, acc3);
      else
        fc_rows<Q>(w, scratch, acc0, acc1, acc2, acc3);
      w += kFcRows * Q;
      const int32_t acc[kFcRows] = {acc0, acc1, acc2, acc3};
      for (int i = 0; i < kFcRows && n0 + i < N; ++i)
        y[n0 + i] = output_value<T, Wide, YZp, Lo, Hi>(acc[i], load_channel(params, n0 + i));
    }
  }
}

// fully_connected_mve's weights are a convolution's under Vmladava: output
// j's K values as row j (W transposed), packed by Vmladava::pack into
// packed_words<Vmladava>(N, K) words, so row j starts at byte j * depth(K).

/// acc[r] = row r's weights (w + r * depth(K)) . x (K int8), r < R <= 4:
/// each 16 values of x loaded once for the R rows; the last partial vector
/// of x is loaded under a tail predicate (its lanes past K read as zero; the
/// weights are zero there too).
template <int K, int R>
inline void fc_mve_rows(const int8_t *w, const int8_t *x, int32_t *acc) {
  constexpr int D = Vmladava::depth(K);
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
  int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  int d = 0;
  auto step = [&](int8x16_t v) {
    a0 = vmladavaq_s8(a0, vldrbq_s8(w + d), v);
    if (R > 1)
      a1 = vmladavaq_s8(a1, vldrbq_s8(w + D + d), v);
    if (R > 2)
      a2 = vmladavaq_s8(a2, vldrbq_s8(w + 2 * D + d), v);
    if (R > 3)
      a3 = vmladavaq_s8(a3, vldrbq_s8(w + 3 * D + d), v);
  };
  for (; d + kHeliumStep <= K; d += kHeliumStep)
    step(vldrbq_s8(x + d));
  if (K % kHeliumStep)
    step(vldrbq_z_s8(x + d, vctp8q(uint32_t(K - d))));
  const int32_t out[4] = {a0, a1, a2, a3};
  for (int r = 0; r < R; ++r)
    acc[r] = out[r];
#else
  for (int r = 0; r < R; ++r) {
    int32_t a = 0;
    for (int d = 0; d < K; ++d)
      a += int32_t(w[r * D + d]) * x[d];
    acc[r] = a;
  }
#endif
}

/// fully_connected for int8 inputs on Helium: y (rows x N) = requantize(a
/// (rows x K) * W), W's columns packed as rows by Vmladava::pack; a is multiplied as
/// stored, its zero point's share in the channels' biases (fold_zero_point
/// over W's columns), clamped to [Lo, Hi]. Four outputs per pass over a row
/// of a; no scratch.
template <int Rows, int K, int N, int YZp, int Lo, int Hi, bool Wide>
void fully_connected_mve(const int8_t *a, const int32_t *packed, const int32_t *params,
                         int8_t *y) {
  constexpr int D = Vmladava::depth(K);
  const int8_t *const w = reinterpret_cast<const int8_t *>(packed);
  for (int r = 0; r < Rows; ++r, a += K, y += N) {
    int n = 0;
    for (; n + kFcRows <= N; n += kFcRows) {
      int32_t acc[kFcRows];
      fc_mve_rows<K, kFcRows>(w + n * D, a, acc);
      for (int i = 0; i < kFcRows; ++i)
        y[n + i] = output_value<int8_t, Wide, YZp, Lo, Hi>(acc[i], load_channel(params, n + i));
    }
    for (; n < N; ++n) {
      int32_t acc[1];
      fc_mve_rows<K, 1>(w + n * D, a, acc);
      y[n] = output_value<int8_t, Wide, YZp, Lo, Hi>(acc[0], load_channel(params, n));
    }
  }
}

} // namespace qs8
} // namespace mcu
} // namespace onnxc_rt

#endif // ONNXC_RT_MCU_QS8_FULLY_CONNECTED_H
