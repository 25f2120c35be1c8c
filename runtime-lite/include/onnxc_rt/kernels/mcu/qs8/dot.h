// The dot-product engines of the microcontroller int8 kernels (mcu/qs8/
// common.h has the requantization they feed): SMLAD on int16 pairs with the
// DSP extension (Smlad, Sxtb16), VMLADAVA on Helium (Vmladava, Vmladava16),
// plain multiply-adds elsewhere (Mla); each with the weight packing and the
// column gathering its products read, which the compiler runs too, and the
// packed sizes and scratch of the convolutions built on them.
#ifndef ONNXC_RT_MCU_QS8_DOT_H
#define ONNXC_RT_MCU_QS8_DOT_H

#include "onnxc_rt/kernels/mcu/qs8/common.h"

namespace onnxc_rt {
namespace mcu {
namespace qs8 {

/// 32-bit words read from int16 data (GCC: may alias any type).
typedef int32_t __attribute__((__may_alias__)) word_alias;

/// acc += the products of two output channels' packed weights (w) and two
/// columns (c0, c1), `Steps` steps of kConvStep depth values.
template <int Steps>
inline void product_2x2(const int32_t *w, const word_alias *c0, const word_alias *c1,
                        int32_t &a00, int32_t &a01, int32_t &a10, int32_t &a11) {
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP && defined(__thumb2__) && \
    defined(__OPTIMIZE__)
  // Four LDRDs and eight SMLADs per step (16 products), unrolled by the
  // assembler in blocks of up to 16 steps: no loop counter, which leaves
  // the 13 registers the step needs. (GCC 12 spends a third more on the
  // same loop in C: register moves, no LDRD.)
  constexpr int kBlock = 16;
#define ONNXC_MCU_CONV_STEPS(count)                                            \
  {                                                                            \
    int32_t v0, v1, v2, v3, wa, wb;                                            \
    __asm__ volatile(".rept %c[n]\n\t"                                          \
                     "ldrd %[v0], %[v1], [%[c0]], #8\n\t"                      \
                     "ldrd %[v2], %[v3], [%[c1]], #8\n\t"                      \
                     "ldrd %[wa], %[wb], [%[w]], #8\n\t"                       \
                     "smlad %[a00], %[wa], %[v0], %[a00]\n\t"                   \
                     "smlad %[a01], %[wa], %[v2], %[a01]\n\t"                   \
                     "smlad %[a00], %[wb], %[v1], %[a00]\n\t"                   \
                     "smlad %[a01], %[wb], %[v3], %[a01]\n\t"                   \
                     "ldrd %[wa], %[wb], [%[w]], #8\n\t"                       \
                     "smlad %[a10], %[wa], %[v0], %[a10]\n\t"                   \
                     "smlad %[a11], %[wa], %[v2], %[a11]\n\t"                   \
                     "smlad %[a10], %[wb], %[v1], %[a10]\n\t"                   \
                     "smlad %[a11], %[wb], %[v3], %[a11]\n\t"                   \
                     ".endr"                                                   \
                     : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10),       \
                       [a11] "+r"(a11), [w] "+r"(w), [c0] "+r"(c0), [c1] "+r"(c1), \
                       [v0] "=&r"(v0), [v1] "=&r"(v1), [v2] "=&r"(v2),          \
                       [v3] "=&r"(v3), [wa] "=&r"(wa), [wb] "=&r"(wb)          \
                     : [n] "i"(count)                                          \
                     : "memory");                                              \
  }
  for (int b = 0; b < Steps / kBlock; ++b)
    ONNXC_MCU_CONV_STEPS(kBlock)
  if (Steps % kBlock)
    ONNXC_MCU_CONV_STEPS(Steps % kBlock)
#undef ONNXC_MCU_CONV_STEPS
#elif defined(__ARM_ARCH_6M__) && defined(__OPTIMIZE__)
  // ARMv6-M (the M0, M0+): each int16 half sign-extended (SXTH, ASR) and
  // multiplied (MULS) into one of eight low registers, the four sums in high
  // ones (ADD reaches them): 69 instructions for 16 products, where GCC 12's
  // C spills sums and pointers. Thumb-1's divided syntax (MUL, ASR: the
  // flag-setting forms), as GCC hands inline assembly to the assembler. The
  // loop is in the asm (GCC moves the sums between low and high registers
  // around every asm statement), one step a pass: GCC sizes an asm by its
  // lines, and a .rept block several times longer put its literal pools out
  // of Thumb-1's reach.
  if (Steps > 0) {
    const int32_t *end = w + 4 * Steps;
    int32_t x, y, ww, t, p;
    // One weight word (two depth values of one channel) against the pair of
    // columns: its low halves, then its high ones, into sums AX and AY.
#define ONNXC_MCU_V6M_WORD(offset, ax, ay)                                     \
  "ldr %[ww], [%[w], #" #offset "]\n\t"                                          \
  "sxth %[t], %[ww]\n\t"                                                        \
  "sxth %[p], %[x]\n\t"                                                         \
  "mul %[p], %[t]\n\t"                                                          \
  "add %[" #ax "], %[p]\n\t"                                                    \
  "sxth %[p], %[y]\n\t"                                                         \
  "mul %[p], %[t]\n\t"                                                          \
  "add %[" #ay "], %[p]\n\t"                                                    \
  "asr %[t], %[ww], #16\n\t"                                                    \
  "asr %[p], %[x], #16\n\t"                                                     \
  "mul %[p], %[t]\n\t"                                                          \
  "add %[" #ax "], %[p]\n\t"                                                    \
  "asr %[p], %[y], #16\n\t"                                                     \
  "mul %[p], %[t]\n\t"                                                          \
  "add %[" #ay "], %[p]\n\t"
    __asm__ volatile("1:\n\t"
                     "ldr %[x], [%[c0], #0]\n\t"
                     "ldr %[y], [%[c1], #0]\n\t"
                     ONNXC_MCU_V6M_WORD(0, a00, a01)
                     ONNXC_MCU_V6M_WORD(8, a10, a11)
                     "ldr %[x], [%[c0], #4]\n\t"
                     "ldr %[y], [%[c1], #4]\n\t"
                     ONNXC_MCU_V6M_WORD(4, a00, a01)
                     ONNXC_MCU_V6M_WORD(12, a10, a11)
                     "add %[w], #16\n\t"
                     "add %[c0], #8\n\t"
                     "add %[c1], #8\n\t"
                     "cmp %[w], %[end]\n\t"
                     "bne 1b"
                     : [a00] "+h"(a00), [a01] "+h"(a01), [a10] "+h"(a10),
                       [a11] "+h"(a11), [w] "+l"(w), [c0] "+l"(c0), [c1] "+l"(c1),
                       [x] "=&l"(x), [y] "=&l"(y), [ww] "=&l"(ww), [t] "=&l"(t),
                       [p] "=&l"(p)
                     : [end] "h"(end)
                     : "cc", "memory");
  }
#undef ONNXC_MCU_V6M_WORD
#else
  for (int s = 0; s < Steps; ++s, w += 4, c0 += 2, c1 += 2)
    for (int j = 0; j < 2; ++j) {
      a00 = smlad(w[j], c0[j], a00);
      a01 = smlad(w[j], c1[j], a01);
      a10 = smlad(w[2 + j], c0[j], a10);
      a11 = smlad(w[2 + j], c1[j], a11);
    }
#endif
}

/// Four int8 weights (a step of kConvStep depth values) as one word for
/// Sxtb16: bytes in depth order 0, 2, 1, 3, as SXTB16 widens bytes 0 and 2,
/// so the word gives the int16 pairs (w0, w1) and, rotated by 8, (w2, w3):
/// the columns' pairs as they are.
inline uint32_t sxtb16_word(int8_t w0, int8_t w1, int8_t w2, int8_t w3) {
  return uint32_t(uint8_t(w0)) | uint32_t(uint8_t(w2)) << 8 | uint32_t(uint8_t(w1)) << 16 |
         uint32_t(uint8_t(w3)) << 24;
}

/// acc += the products of two output channels' int8 weights
/// (sxtb16_word's, channel 0's word then channel 1's a step) and two
/// columns of Col (int16: Sxtb16's; int8: Mla's), `Steps` steps of
/// kConvStep depth values, each weight byte times its column value (the
/// cores without the DSP extension, the host). On ARMv7-M (the M3) each
/// product is an MLA on a sign-extending load of its weight byte and of
/// its column value: 32 instructions for 16 products (GCC 12's C takes
/// about 48: it runs out of registers and keeps two sums on the stack),
/// unrolled by 8 steps.
template <int Steps, typename Col>
inline void mla_2x2(const int32_t *w, const Col *c0, const Col *c1, int32_t &a00, int32_t &a01,
                    int32_t &a10, int32_t &a11) {
#if defined(__ARM_ARCH_7M__) && defined(__thumb2__) && defined(__OPTIMIZE__)
  constexpr int kBlock = 8, S = int(sizeof(Col));
  // Depth values 1, 2, 3 of a step sit at column offsets -3S, -2S, -S after
  // its post-incremented first load and at bytes 2, 1, 3 of the weight word.
#define ONNXC_MCU_MLA_STEPS(load, count)                                       \
  {                                                                            \
    int32_t p, q, w0, w1;                                                      \
    __asm__ volatile(".rept %c[n]\n\t"                                          \
                     load " %[p], [%[c0]], #%c[step]\n\t"                       \
                     load " %[q], [%[c1]], #%c[step]\n\t"                       \
                     "ldrsb %[w0], [%[w]], #8\n\t"                              \
                     "ldrsb %[w1], [%[w], #-4]\n\t"                             \
                     "mla %[a00], %[w0], %[p], %[a00]\n\t"                      \
                     "mla %[a01], %[w0], %[q], %[a01]\n\t"                      \
                     "mla %[a10], %[w1], %[p], %[a10]\n\t"                      \
                     "mla %[a11], %[w1], %[q], %[a11]\n\t"                      \
                     load " %[p], [%[c0], #%c[d1]]\n\t"                         \
                     load " %[q], [%[c1], #%c[d1]]\n\t"                         \
                     "ldrsb %[w0], [%[w], #-6]\n\t"                             \
                     "ldrsb %[w1], [%[w], #-2]\n\t"                             \
                     "mla %[a00], %[w0], %[p], %[a00]\n\t"                      \
                     "mla %[a01], %[w0], %[q], %[a01]\n\t"                      \
                     "mla %[a10], %[w1], %[p], %[a10]\n\t"                      \
                     "mla %[a11], %[w1], %[q], %[a11]\n\t"                      \
                     load " %[p], [%[c0], #%c[d2]]\n\t"                         \
                     load " %[q], [%[c1], #%c[d2]]\n\t"                         \
                     "ldrsb %[w0], [%[w], #-7]\n\t"                             \
                     "ldrsb %[w1], [%[w], #-3]\n\t"                             \
                     "mla %[a00], %[w0], %[p], %[a00]\n\t"                      \
                     "mla %[a01], %[w0], %[q], %[a01]\n\t"                      \
                     "mla %[a10], %[w1], %[p], %[a10]\n\t"                      \
                     "mla %[a11], %[w1], %[q], %[a11]\n\t"                      \
                     load " %[p], [%[c0], #%c[d3]]\n\t"                         \
                     load " %[q], [%[c1], #%c[d3]]\n\t"                         \
                     "ldrsb %[w0], [%[w], #-5]\n\t"                             \
                     "ldrsb %[w1], [%[w], #-1]\n\t"                             \
                     "mla %[a00], %[w0], %[p], %[a00]\n\t"                      \
                     "mla %[a01], %[w0], %[q], %[a01]\n\t"                      \
                     "mla %[a10], %[w1], %[p], %[a10]\n\t"                      \
                     "mla %[a11], %[w1], %[q], %[a11]\n\t"                      \
                     ".endr"                                                   \
                     : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10),       \
                       [a11] "+r"(a11), [w] "+r"(w), [c0] "+r"(c0), [c1] "+r"(c1), \
                       [p] "=&r"(p), [q] "=&r"(q), [w0] "=&r"(w0), [w1] "=&r"(w1) \
                     : [n] "i"(count), [step] "i"(4 * S), [d1] "i"(-3 * S),     \
                       [d2] "i"(-2 * S), [d3] "i"(-S)                           \
                     : "memory");                                              \
  }
#define ONNXC_MCU_MLA_BLOCK(count)                                             \
  {                                                                            \
    if constexpr (S == 2)                                                      \
      ONNXC_MCU_MLA_STEPS("ldrsh", count)                                      \
    else                                                                       \
      ONNXC_MCU_MLA_STEPS("ldrsb", count)                                      \
  }
  static_assert(S == 1 || S == 2, "int8 or int16 columns");
  for (int b = 0; b < Steps / kBlock; ++b)
    ONNXC_MCU_MLA_BLOCK(kBlock)
  if (Steps % kBlock)
    ONNXC_MCU_MLA_BLOCK(Steps % kBlock)
#undef ONNXC_MCU_MLA_BLOCK
#undef ONNXC_MCU_MLA_STEPS
#else
  const int8_t *b = reinterpret_cast<const int8_t *>(w);
  for (int s = 0; s < Steps; ++s, b += 8, c0 += kConvStep, c1 += kConvStep) {
    // A channel's bytes are depth values 0, 2, 1, 3 of the step.
    const int32_t p0 = c0[0], p1 = c0[2], p2 = c0[1], p3 = c0[3];
    const int32_t q0 = c1[0], q1 = c1[2], q2 = c1[1], q3 = c1[3];
    a00 += b[0] * p0 + b[1] * p1 + b[2] * p2 + b[3] * p3;
    a01 += b[0] * q0 + b[1] * q1 + b[2] * q2 + b[3] * q3;
    a10 += b[4] * p0 + b[5] * p1 + b[6] * p2 + b[7] * p3;
    a11 += b[4] * q0 + b[5] * q1 + b[6] * q2 + b[7] * q3;
  }
#endif
}

/// acc += the products of two output channels' int8 weights (w: per step,
/// channel 0's word, then channel 1's, as sxtb16_word) and two int16 columns
/// (c0, c1), `Steps` steps of kConvStep depth values.
template <int Steps>
inline void product_2x2_int8(const int32_t *w, const word_alias *c0, const word_alias *c1,
                             int32_t &a00, int32_t &a01, int32_t &a10, int32_t &a11) {
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP && defined(__thumb2__) && \
    defined(__OPTIMIZE__)
  // product_2x2's step with each channel's LDRD of int16 pairs replaced by an
  // LDR and two SXTB16: 16 instructions for 16 products (12 there), in 13
  // registers, unrolled in blocks as there.
  constexpr int kBlock = 16;
#define ONNXC_MCU_CONV_STEPS_INT8(count)                                       \
  {                                                                            \
    int32_t v0, v1, v2, v3, wq, t;                                             \
    __asm__ volatile(".rept %c[n]\n\t"                                          \
                     "ldrd %[v0], %[v1], [%[c0]], #8\n\t"                      \
                     "ldrd %[v2], %[v3], [%[c1]], #8\n\t"                      \
                     "ldr %[wq], [%[w]], #4\n\t"                               \
                     "sxtb16 %[t], %[wq]\n\t"                                  \
                     "smlad %[a00], %[t], %[v0], %[a00]\n\t"                    \
                     "smlad %[a01], %[t], %[v2], %[a01]\n\t"                    \
                     "sxtb16 %[t], %[wq], ror #8\n\t"                          \
                     "smlad %[a00], %[t], %[v1], %[a00]\n\t"                    \
                     "smlad %[a01], %[t], %[v3], %[a01]\n\t"                    \
                     "ldr %[wq], [%[w]], #4\n\t"                               \
                     "sxtb16 %[t], %[wq]\n\t"                                  \
                     "smlad %[a10], %[t], %[v0], %[a10]\n\t"                    \
                     "smlad %[a11], %[t], %[v2], %[a11]\n\t"                    \
                     "sxtb16 %[t], %[wq], ror #8\n\t"                          \
                     "smlad %[a10], %[t], %[v1], %[a10]\n\t"                    \
                     "smlad %[a11], %[t], %[v3], %[a11]\n\t"                    \
                     ".endr"                                                   \
                     : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10),       \
                       [a11] "+r"(a11), [w] "+r"(w), [c0] "+r"(c0), [c1] "+r"(c1), \
                       [v0] "=&r"(v0), [v1] "=&r"(v1), [v2] "=&r"(v2),          \
                       [v3] "=&r"(v3), [wq] "=&r"(wq), [t] "=&r"(t)            \
                     : [n] "i"(count)                                          \
                     : "memory");                                              \
  }
  for (int b = 0; b < Steps / kBlock; ++b)
    ONNXC_MCU_CONV_STEPS_INT8(kBlock)
  if (Steps % kBlock)
    ONNXC_MCU_CONV_STEPS_INT8(Steps % kBlock)
#undef ONNXC_MCU_CONV_STEPS_INT8
#else
  // Without the DSP extension (the M3, the M0+, the host) each weight byte
  // times its column value directly: the same integers.
  mla_2x2<Steps>(w, reinterpret_cast<const int16_t *>(c0), reinterpret_cast<const int16_t *>(c1),
                 a00, a01, a10, a11);
#endif
}

/// How the convolutions multiply, chosen by the compiler per core:
///  - Smlad (the DSP extension: M4, M7, M33; plain C elsewhere): int16
///    columns, weights as int16 pairs (pack_conv_weights), product_2x2;
///  - Sxtb16 (the same cores, --conv-weights int8): Smlad's columns, the
///    weights as int8 (half the flash), widened in the inner loop by SXTB16
///    (a third more instructions there);
///  - Vmladava (Helium, the M55; int8 inputs): int8 columns, int8 weight
///    rows, 16 products per VMLADAVA (plain C without MVE);
///  - Vmladava16 (Helium, int16 inputs): int16 columns, int8 weights
///    widened to int16 rows at compile time, 8 products per VMLADAVA.S16;
///  - Mla (the M3, --conv-weights int8, int8 inputs): int8 columns,
///    Sxtb16's weights, an MLA a product.
/// Each gives the column type, the depth a column is padded to, the 32-bit
/// words of weights per pair of output channels, the packing (the compiler
/// runs it), the gather and the 2 x 2 product of two channels and two
/// columns.

/// gather_window_nhwc's runs into columns: int8 values widened to int16
/// four a word with the DSP extension (LDR, SXTB16 of the even and the odd
/// bytes, the halves put back in order by PKHBT and PKHTB, two STR: 7
/// instructions for 4 values), int8 into byte columns by memcpy, the rest
/// as copy_values.
struct ColumnCopy {
  template <int N, typename T, typename V> static void run(const T *in, V *out) {
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
    if constexpr (sizeof(T) == 1 && sizeof(V) == 2 && T(-1) < T(0)) {
#pragma GCC unroll 4
      for (int i = 0; i + 4 <= N; i += 4) {
        uint32_t w;
        memcpy(&w, in + i, 4);
        const int32_t even = sxtb16(int32_t(w)), odd = sxtb16_odd(int32_t(w));
        // (GCC 12 writes each as a mask and an OR: four instructions.)
        int32_t lo, hi;
        __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(lo) : "r"(even), "r"(odd));
        __asm__("pkhtb %0, %1, %2, asr #16" : "=r"(hi) : "r"(odd), "r"(even));
        memcpy(out + i, &lo, 4);
        memcpy(out + i + 2, &hi, 4);
      }
      copy_values<N % 4>(in + N / 4 * 4, out + N / 4 * 4);
      return;
    }
#endif
    if constexpr (sizeof(T) == 1 && sizeof(V) == 1) // int8 as it is: words where unaligned
      memcpy(out, in, N);                            // access allows them
    else
      copy_values<N>(in, out);
  }
};

/// int16 columns (Smlad's, Sxtb16's, Vmladava16's), padded with zeros to
/// a multiple of Step depth values: an 8-bit input widened, a 16-bit one
/// copied.
template <int Step> struct HalfwordColumns {
  typedef int16_t Col;
  static constexpr int depth(int k) { return (k + Step - 1) / Step * Step; }
  /// Output pixel `pixel`'s window of x (W::K values, XZp where the window
  /// leaves the input, then zeros to depth(W::K)). The values stay as they
  /// are: the zero point's share of the products is in the bias
  /// (fold_zero_point), and a padding value contributes nothing.
  template <typename T, typename W, int XZp>
  static void gather(const T *x, int pixel, Col *col) {
    gather_window<W, 1>(x, pixel, col, [](T v) { return int16_t(v); }, int16_t(XZp));
    for (int i = W::K; i < depth(W::K); ++i)
      col[i] = 0;
  }
  /// The columns of pixels `pixel` and, if `second`, pixel + 1 (else
  /// `pixel` again).
  template <typename T, typename W, int XZp>
  static void gather2(const T *x, int pixel, bool second, Col *c0, Col *c1) {
    gather<T, W, XZp>(x, pixel, c0);
    gather<T, W, XZp>(x, second ? pixel + 1 : pixel, c1);
  }
};

struct Smlad : HalfwordColumns<kConvStep> {
  static constexpr int pair_words(int k) { return conv_depth(k); }
  static void pack(const int8_t *w, int m, int k, int32_t *out) {
    pack_conv_weights(w, m, k, out);
  }
  template <int D>
  static void product(const int32_t *w, const Col *c0, const Col *c1, int32_t &a00,
                      int32_t &a01, int32_t &a10, int32_t &a11) {
    product_2x2<D / kConvStep>(w, reinterpret_cast<const word_alias *>(c0),
                               reinterpret_cast<const word_alias *>(c1), a00, a01, a10, a11);
  }
};

/// Smlad's columns and gathers; int8 weights (sxtb16_word), per pair of
/// output channels and step, channel 0's word then channel 1's.
struct Sxtb16 : Smlad {
  static constexpr int pair_words(int k) { return conv_depth(k) / 2; }
  static void pack(const int8_t *w, int m, int k, int32_t *out) {
    for (int b = 0; b < (m + 1) / 2; ++b)
      for (int s = 0; s < conv_depth(k) / kConvStep; ++s)
        for (int r = 0; r < 2; ++r) {
          const int row = 2 * b + r;
          auto at = [&](int i) {
            const int d = kConvStep * s + i;
            return row < m && d < k ? w[row * k + d] : int8_t(0);
          };
          *out++ = static_cast<int32_t>(sxtb16_word(at(0), at(1), at(2), at(3)));
        }
  }
  template <int D>
  static void product(const int32_t *w, const Col *c0, const Col *c1, int32_t &a00,
                      int32_t &a01, int32_t &a10, int32_t &a11) {
    product_2x2_int8<D / kConvStep>(w, reinterpret_cast<const word_alias *>(c0),
                                    reinterpret_cast<const word_alias *>(c1), a00, a01, a10,
                                    a11);
  }
};

/// Depth values per VMLADAVA: one 128-bit vector of int8.
constexpr int kHeliumStep = 16;
/// Depth from which Vmladava::product steps four pointers (measured on the
/// MLPerf Tiny models' layers: shorter products lose to its setup).
constexpr int kLongDot = 144;

/// int8 columns (Helium's VMLADAVA, the M3's LDRSB products): Smlad's
/// gathers in bytes, with shortcuts that copy words, each column padded
/// with zeros to a multiple of Step depth values. Only for int8 inputs
/// (a column holds x as it is).
template <int Step> struct ByteColumns {
  typedef int8_t Col;
  static constexpr int depth(int k) { return (k + Step - 1) / Step * Step; }
  template <typename T, typename W, int XZp>
  static void gather(const T *x, int pixel, Col *col) { // as Smlad's, in int8
    gather_window<W, 1>(x, pixel, col, [](T v) { return int8_t(v); }, int8_t(XZp));
    for (int i = W::K; i < depth(W::K); ++i)
      col[i] = 0;
  }
  /// As Smlad's, with two shortcuts. A 1x1 window at stride 1 without
  /// padding reads pixel p's channels at p, p + plane, ...: one 2-byte load
  /// a channel serves both pixels. 3-wide windows at stride 1 or 2 (dilation
  /// 1) load each (channel, kernel row)'s bytes once for both pixels
  /// (rows3).
  template <typename T, typename W, int XZp>
  static void gather2(const T *x, int pixel, bool second, Col *c0, Col *c1) {
    if (sizeof(T) == 1 && W::KH == 1 && W::KW == 1 && W::SH == 1 && W::SW == 1 &&
        W::PH == 0 && W::PW == 0 && W::OH == W::IH && W::OW == W::IW && second) {
      const T *in = x + pixel;
      for (int c = 0; c < W::IC; ++c, in += W::IH * W::IW) {
        uint16_t pair;
        memcpy(&pair, in, 2);
        c0[c] = Col(uint8_t(pair));
        c1[c] = Col(uint8_t(pair >> 8));
      }
      for (int k = W::K; k < depth(W::K); ++k)
        c0[k] = c1[k] = 0;
      return;
    }
    if constexpr (sizeof(T) == 1 && W::KW == 3 && W::DW == 1 && W::IW >= 4 &&
                  (W::SW == 1 || W::SW == 2)) {
      const int oy = pixel / W::OW, ox = pixel - oy * W::OW;
      const int y0 = oy * W::SH - W::PH, x0 = ox * W::SW - W::PW;
      if (second && ox + 1 < W::OW) {
        if (x0 >= 0 && x0 + W::SW + 2 < W::IW)
          return rows3<T, W, XZp, 0>(x, y0, x0, c0, c1);
        if (x0 == -1)
          return rows3<T, W, XZp, -1>(x, y0, 0, c0, c1);
        if (W::SW == 1 && x0 + 3 == W::IW)
          return rows3<T, W, XZp, 1>(x, y0, x0 - 1, c0, c1);
      }
    }
    gather<T, W, XZp>(x, pixel, c0);
    gather<T, W, XZp>(x, second ? pixel + 1 : pixel, c1);
  }
  /// gather2's 3-wide windows at stride 1 or 2 for two pixels in one row:
  /// per channel and kernel row, the 4 bytes at x0 (and at stride 2 the
  /// fifth) serve both columns: at stride 1 bytes 0-2 and 1-3, at stride 2
  /// bytes 0-2 and 2-4. Each column's three are stored as a word whose extra
  /// byte the next chunk overwrites (the last chunk byte by byte). Edge -1:
  /// the first window starts one left of the row (x0 = -1: the word at 0 is
  /// read and XZp shifted in below it); 1 (stride 1): the second window ends
  /// one right of it (the word one left of the first window is read and XZp
  /// shifted in above it); 0: both inside. Each kernel row's pointer steps a
  /// plane a channel; a row outside the input reads XZp (step 0): a chunk is
  /// a load or two, the shifts and two stores, no bounds checks.
  template <typename T, typename W, int XZp, int Edge>
  static void rows3(const T *x, int y0, int x0, Col *c0, Col *c1) {
    static_assert(W::KW == 3 && W::DW == 1 && (W::SW == 1 || W::SW == 2), "3-wide windows");
    constexpr uint32_t kPad = uint32_t(uint8_t(XZp)) * 0x01010101u;
    const uint32_t pad[2] = {kPad, kPad};
    const T *row[W::KH];
    int step[W::KH];
#pragma GCC unroll 16
    for (int ky = 0; ky < W::KH; ++ky) {
      const int iy = y0 + ky * W::DH;
      const bool inside = iy >= 0 && iy < W::IH;
      row[ky] = inside ? x + iy * W::IW + x0 : reinterpret_cast<const T *>(pad);
      step[ky] = inside ? W::IH * W::IW : 0;
    }
    // The two columns' words of kernel row ky in the next channel.
    auto load = [&](int ky, uint32_t &w0, uint32_t &w1) {
      uint32_t word;
      memcpy(&word, row[ky], 4);
      if (W::SW == 2 && Edge == 0)
        w1 = word >> 16 | uint32_t(uint8_t(row[ky][4])) << 16;
      row[ky] += step[ky];
      if (Edge < 0) { // both strides: [zp, b0, b1] and the bytes from b1 (stride 2) or b0
        w0 = word << 8 | uint8_t(XZp);
        w1 = W::SW == 2 ? word >> 8 : word;
      } else if (Edge > 0) {
        w0 = word >> 8 | kPad << 24;
        w1 = w0 >> 8;
      } else {
        w0 = word;
        if (W::SW == 1)
          w1 = word >> 8;
      }
    };
    Col *o0 = c0, *o1 = c1;
    auto chunk = [&](int ky) {
      uint32_t w0, w1;
      load(ky, w0, w1);
      memcpy(o0, &w0, 4);
      memcpy(o1, &w1, 4);
      o0 += 3;
      o1 += 3;
    };
    for (int c = 0; c + 1 < W::IC; ++c) {
#pragma GCC unroll 16
      for (int ky = 0; ky < W::KH; ++ky)
        chunk(ky);
    }
#pragma GCC unroll 16
    for (int ky = 0; ky + 1 < W::KH; ++ky)
      chunk(ky);
    uint32_t w0, w1; // the last: a word would reach past the column
    load(W::KH - 1, w0, w1);
    for (int b = 0; b < 3; ++b) {
      o0[b] = Col(uint8_t(w0 >> (8 * b)));
      o1[b] = Col(uint8_t(w1 >> (8 * b)));
    }
    for (int k = W::K; k < depth(W::K); ++k)
      c0[k] = c1[k] = 0;
  }
};

/// acc += two weight rows (w0, w1) times two columns (c0, c1), D values
/// each, in plain C: the Helium policies' products off the M55.
template <int D, typename TW, typename TC>
inline void plain_product_2x2(const TW *w0, const TW *w1, const TC *c0, const TC *c1,
                              int32_t &a00, int32_t &a01, int32_t &a10, int32_t &a11) {
  for (int d = 0; d < D; ++d) {
    a00 += int32_t(w0[d]) * c0[d];
    a01 += int32_t(w0[d]) * c1[d];
    a10 += int32_t(w1[d]) * c0[d];
    a11 += int32_t(w1[d]) * c1[d];
  }
}

/// Helium's products (the M55, int8 inputs): byte columns against two rows
/// of int8 weights, 16 products per VMLADAVA (plain C without MVE).
struct Vmladava : ByteColumns<kHeliumStep> {
  static constexpr int pair_words(int k) { return 2 * depth(k) / 4; }
  /// Per pair of output channels, the two rows of depth(k) bytes each (zero
  /// past m and k), four bytes a word.
  static void pack(const int8_t *w, int m, int k, int32_t *out) {
    for (int b = 0; b < (m + 1) / 2; ++b)
      for (int r = 0; r < 2; ++r)
        for (int i = 0; i < depth(k); i += 4) {
          uint32_t word = 0;
          for (int j = 0; j < 4; ++j) {
            const int row = 2 * b + r, col = i + j;
            const uint8_t v = row < m && col < k ? static_cast<uint8_t>(w[row * k + col]) : 0;
            word |= uint32_t(v) << (8 * j);
          }
          *out++ = static_cast<int32_t>(word);
        }
  }
  template <int D>
  static void product(const int32_t *w, const Col *c0, const Col *c1, int32_t &a00,
                      int32_t &a01, int32_t &a10, int32_t &a11) {
    const int8_t *w0 = reinterpret_cast<const int8_t *>(w), *w1 = w0 + D;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    if (D >= kLongDot) {
      // Four pointers stepped by the loads themselves (post-increment):
      // a step is four loads, four VMLADAVA and the loop end. (Opaque to
      // GCC, which would otherwise fold p1 into p0 + D and w1 into w0 + D
      // and add each offset anew in every step.) Short products keep the
      // indexed form, whose setup is cheaper.
      const int8_t *p0 = c0, *p1 = c1;
      __asm__("" : "+r"(p1), "+r"(w1));
      for (int d = 0; d < D; d += kHeliumStep) {
        const int8x16_t x0 = vldrbq_s8(p0), x1 = vldrbq_s8(p1);
        const int8x16_t v0 = vldrbq_s8(w0), v1 = vldrbq_s8(w1);
        p0 += kHeliumStep;
        p1 += kHeliumStep;
        w0 += kHeliumStep;
        w1 += kHeliumStep;
        a00 = vmladavaq_s8(a00, v0, x0);
        a01 = vmladavaq_s8(a01, v0, x1);
        a10 = vmladavaq_s8(a10, v1, x0);
        a11 = vmladavaq_s8(a11, v1, x1);
      }
      return;
    }
    for (int d = 0; d < D; d += kHeliumStep) {
      const int8x16_t x0 = vldrbq_s8(c0 + d), x1 = vldrbq_s8(c1 + d);
      const int8x16_t v0 = vldrbq_s8(w0 + d), v1 = vldrbq_s8(w1 + d);
      a00 = vmladavaq_s8(a00, v0, x0);
      a01 = vmladavaq_s8(a01, v0, x1);
      a10 = vmladavaq_s8(a10, v1, x0);
      a11 = vmladavaq_s8(a11, v1, x1);
    }
#else
    plain_product_2x2<D>(w0, w1, c0, c1, a00, a01, a10, a11);
#endif
  }
};

/// Helium's products on int16 columns (the M55, int16 activations):
/// Smlad's gathers (a 16-bit input copied) with columns padded to 8
/// values, against two rows of the int8 weights widened to int16 at
/// compile time, 8 products per VMLADAVA.S16 (plain C without MVE). Its
/// sums are 32-bit, as SMLAD's: the compiler proves they fit.
struct Vmladava16 : HalfwordColumns<8> {
  static constexpr int kStep = 8;
  static constexpr int pair_words(int k) { return depth(k); } // 2 rows, 2 values a word
  /// Per pair of output channels, the two rows of depth(k) int16 (zero
  /// past m and k), two values a word.
  static void pack(const int8_t *w, int m, int k, int32_t *out) {
    for (int b = 0; b < (m + 1) / 2; ++b)
      for (int r = 0; r < 2; ++r)
        for (int i = 0; i < depth(k); i += 2) {
          const int row = 2 * b + r;
          auto at = [&](int col) {
            return row < m && col < k ? uint32_t(uint16_t(int16_t(w[row * k + col]))) : 0u;
          };
          *out++ = static_cast<int32_t>(at(i) | (at(i + 1) << 16));
        }
  }
  template <int D>
  static void product(const int32_t *w, const Col *c0, const Col *c1, int32_t &a00,
                      int32_t &a01, int32_t &a10, int32_t &a11) {
    const int16_t *w0 = reinterpret_cast<const int16_t *>(w), *w1 = w0 + D;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    for (int d = 0; d < D; d += kStep) {
      const int16x8_t x0 = vldrhq_s16(c0 + d), x1 = vldrhq_s16(c1 + d);
      const int16x8_t v0 = vldrhq_s16(w0 + d), v1 = vldrhq_s16(w1 + d);
      a00 = vmladavaq_s16(a00, v0, x0);
      a01 = vmladavaq_s16(a01, v0, x1);
      a10 = vmladavaq_s16(a10, v1, x0);
      a11 = vmladavaq_s16(a11, v1, x1);
    }
#else
    plain_product_2x2<D>(w0, w1, c0, c1, a00, a01, a10, a11);
#endif
  }
};

/// The M3's products (ARMv7-M without the DSP extension, --conv-weights
/// int8, int8 inputs): byte columns, whose gathers copy words where
/// Sxtb16's widen each value to int16, against Sxtb16's packed weights,
/// each product an MLA on two sign-extending byte loads (plain C
/// elsewhere: the same integers).
struct Mla : ByteColumns<kConvStep> {
  static constexpr int pair_words(int k) { return Sxtb16::pair_words(k); }
  static void pack(const int8_t *w, int m, int k, int32_t *out) { Sxtb16::pack(w, m, k, out); }
  template <int D>
  static void product(const int32_t *w, const Col *c0, const Col *c1, int32_t &a00,
                      int32_t &a01, int32_t &a10, int32_t &a11) {
    static_assert(D % kConvStep == 0, "whole steps");
    mla_2x2<D / kConvStep>(w, c0, c1, a00, a01, a10, a11);
  }
};

/// Words of packed convolution weights for `Dot`.
template <typename Dot> constexpr int packed_words(int m, int k) {
  return (m + 1) / 2 * Dot::pair_words(k);
}

/// Columns conv2d_max_pool gathers per pooled output: the window's pixels,
/// in pairs (an odd window repeats its last pixel); conv2d gathers two.
constexpr int pool_columns(int ph, int pw) { return (ph * pw + 1) / 2 * 2; }
/// Scratch bytes of conv2d (PH = PW = 1) and conv2d_max_pool.
template <typename Dot> constexpr int conv_scratch_bytes(int k, int ph = 1, int pw = 1) {
  return pool_columns(ph, pw) * Dot::depth(k) * int(sizeof(typename Dot::Col));
}

} // namespace qs8
} // namespace mcu
} // namespace onnxc_rt

#endif // ONNXC_RT_MCU_QS8_DOT_H
