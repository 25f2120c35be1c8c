// int8 kernels for microcontrollers in the qs8 scheme (reference/qs8.h
// defines the arithmetic; these compute the same integers, bit for bit):
// convolution and fully connected layers on the DSP extension's SMLAD (two
// 16x16-bit multiply-accumulates per instruction; plain C on cores without
// it), every shape a template parameter.
//
// Convolution: the windows of two output pixels are gathered into int16
// columns holding x as it is (padding reads x_zp; the compiler folds the
// zero point into the bias), two depth values per 32-bit word; the weights are stored as int16 pairs too, two output
// channels interleaved in steps of four depth values (packed by the
// compiler), so one step of the inner loop is four LDRDs and eight SMLADs
// for 2 x 2 x 4 products; a fused max pool keeps each window's largest
// accumulator and requantizes that one. Fully connected: int8 weights, four per word,
// widened by SXTB16 (even and odd bytes) against the input widened once
// into the matching (x0, x2), (x1, x3) pairs, four output rows at a time.
#ifndef ONNXC_RT_MCU_QS8_H
#define ONNXC_RT_MCU_QS8_H

#include <stdint.h>

#include "onnxc_rt/kernels/mcu/dsp.h"
#include "onnxc_rt/kernels/reference/qs8.h"
#include "onnxc_rt/kernels/mcu/window.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#endif

namespace onnxc_rt {
namespace mcu {
namespace qs8 {

/// One output channel's requantization, computed by the compiler
/// (channel_params): y = clamp(y_zp + the reference's
/// multiply_by_quantized_multiplier(acc + bias)), with its split_shift's
/// `left` and `right`, `round` = 2^(right - 1) (the one rounding's half)
/// and `up` = left + 1 (the narrow path's shift, doubling included).
struct Channel {
  int32_t bias, multiplier, left, right, round, up;
};
constexpr int kChannelWords = 6;

/// The Channel of a bias (0 without one) and a reference multiplier/shift.
inline Channel channel_params(int32_t bias, int32_t multiplier, int32_t shift) {
  const ref::qs8::Shifts s = ref::qs8::split_shift(shift);
  return {bias, multiplier, s.left, s.right, int32_t(1) << (s.right - 1), s.left + 1};
}

/// Whether a channel whose |acc + bias| stays at most `bound` needs the
/// Wide requantization below (the narrow one doubles x * 2^left in 32 bits).
inline bool needs_wide(int64_t bound, const Channel &ch) {
  return bound * (int64_t(1) << ch.left) >= (int64_t(1) << 30);
}

/// The requantized accumulator, before the zero point and the clamp.
/// `Wide`: (acc + bias) * 2^left may reach 2^30, so that scaling it needs
/// 64 bits and saturation; the compiler decides this per layer from the
/// weights, the bias and the shift.
template <bool Wide> inline int32_t requantize(int32_t acc, const Channel &ch) {
  if (Wide) {
    int64_t scaled = (int64_t(acc) + ch.bias) * (int64_t(1) << ch.left);
    scaled = scaled > INT32_MAX ? INT32_MAX : (scaled < INT32_MIN ? INT32_MIN : scaled);
    const int32_t high = static_cast<int32_t>((scaled * ch.multiplier) >> 31);
    return ((high >> (ch.right - 1)) + 1) >> 1; // the one rounding, half up
  }
  // floor(x * m / 2^31) as the high word of 2x * m (one SMULL), then the
  // one rounding: |high| < 2^30 and round <= 2^30, so the sum fits.
  const int32_t doubled = int32_t(uint32_t(acc + ch.bias) << ch.up); // (no signed shift)
  const int32_t high = static_cast<int32_t>((int64_t(doubled) * ch.multiplier) >> 32);
  return (high + ch.round) >> ch.right;
}

/// v clamped to [Lo, Hi] (SSAT where that is int8's whole range).
template <int Lo, int Hi> inline int32_t clamp(int32_t v) {
#if defined(__ARM_FEATURE_SAT) && __ARM_FEATURE_SAT
  if (Lo == -128 && Hi == 127)
    return __ssat(v, 8);
#endif
  v = v < Lo ? Lo : v;
  return v > Hi ? Hi : v;
}

/// The output value of an accumulator: zero point, clamp (the fused
/// activation's range), narrowed to T.
template <typename T, bool Wide, int YZp, int Lo, int Hi>
inline T output_value(int32_t acc, const Channel &ch) {
  return static_cast<T>(clamp<Lo, Hi>(YZp + requantize<Wide>(acc, ch)));
}

/// A channel as the kChannelWords words of the kernels' table (the
/// compiler writes it), and back.
inline void store_channel(const Channel &ch, int32_t *params, int c) {
  int32_t *p = params + c * kChannelWords;
  const int32_t words[kChannelWords] = {ch.bias, ch.multiplier, ch.left,
                                        ch.right, ch.round,      ch.up};
  for (int i = 0; i < kChannelWords; ++i)
    p[i] = words[i];
}
inline Channel load_channel(const int32_t *params, int c) {
  const int32_t *p = params + c * kChannelWords;
  return {p[0], p[1], p[2], p[3], p[4], p[5]};
}

/// Depth values per step of the convolution's inner loop: two int16 pairs
/// (one LDRD) of each column and each of two output channels.
constexpr int kConvStep = 4;
/// The depth K rounded up to whole steps (the padding weighs zero).
constexpr int conv_depth(int k) { return (k + kConvStep - 1) / kConvStep * kConvStep; }

/// Packs w (m x k int8) into int16 pairs for conv2d: per pair of output
/// channels b and step s, four words: channel 2b's depth pairs 2s and 2s +
/// 1, then channel 2b + 1's (zero past m and k).
inline void pack_conv_weights(const int8_t *w, int m, int k, int32_t *out) {
  for (int b = 0; b < (m + 1) / 2; ++b)
    for (int s = 0; s < conv_depth(k) / kConvStep; ++s)
      for (int r = 0; r < 2; ++r)
        for (int j = 2 * s; j < 2 * s + 2; ++j) {
          const int row = 2 * b + r;
          auto at = [&](int i) { return row < m && i < k ? int32_t(w[row * k + i]) : 0; };
          *out++ = pack_pair(at(2 * j), at(2 * j + 1));
        }
}

/// The convolution's biases with the input zero point folded in: bias[c] -
/// x_zp * sum_k w[c][k] (w: m x k), so that the kernels multiply the input
/// as it is stored: sum_k w (x - x_zp) + bias = sum_k w x + that. bias may
/// be null (zero).
inline void fold_zero_point(const int8_t *w, int m, int k, int32_t x_zp, const int32_t *bias,
                            int32_t *out) {
  for (int c = 0; c < m; ++c) {
    int32_t sum = 0;
    for (int i = 0; i < k; ++i)
      sum += w[c * k + i];
    out[c] = (bias ? bias[c] : 0) - x_zp * sum;
  }
}

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

/// How the convolutions multiply, chosen by the compiler per core:
///  - Smlad (the DSP extension: M4, M7, M33; plain C elsewhere): int16
///    columns, weights as int16 pairs (pack_conv_weights), product_2x2;
///  - Vmladava (Helium, the M55; int8 inputs): int8 columns, int8 weight
///    rows, 16 products per VMLADAVA (plain C without MVE).
/// Each gives the column type, the depth a column is padded to, the 32-bit
/// words of weights per pair of output channels, the packing (the compiler
/// runs it), the gather and the 2 x 2 product of two channels and two
/// columns.
struct Smlad {
  typedef int16_t Col;
  static constexpr int depth(int k) { return conv_depth(k); }
  static constexpr int pair_words(int k) { return conv_depth(k); }
  static void pack(const int8_t *w, int m, int k, int32_t *out) {
    pack_conv_weights(w, m, k, out);
  }
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
  template <int D>
  static void product(const int32_t *w, const Col *c0, const Col *c1, int32_t &a00,
                      int32_t &a01, int32_t &a10, int32_t &a11) {
    product_2x2<D / kConvStep>(w, reinterpret_cast<const word_alias *>(c0),
                               reinterpret_cast<const word_alias *>(c1), a00, a01, a10, a11);
  }
};

/// Depth values per VMLADAVA: one 128-bit vector of int8.
constexpr int kHeliumStep = 16;

struct Vmladava {
  typedef int8_t Col;
  static constexpr int depth(int k) { return (k + kHeliumStep - 1) / kHeliumStep * kHeliumStep; }
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
  template <typename T, typename W, int XZp>
  static void gather(const T *x, int pixel, Col *col) { // as Smlad's, in int8
    gather_window<W, 1>(x, pixel, col, [](T v) { return int8_t(v); }, int8_t(XZp));
    for (int i = W::K; i < depth(W::K); ++i)
      col[i] = 0;
  }
  template <int D>
  static void product(const int32_t *w, const Col *c0, const Col *c1, int32_t &a00,
                      int32_t &a01, int32_t &a10, int32_t &a11) {
    const int8_t *w0 = reinterpret_cast<const int8_t *>(w), *w1 = w0 + D;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    for (int d = 0; d < D; d += kHeliumStep) {
      const int8x16_t x0 = vldrbq_s8(c0 + d), x1 = vldrbq_s8(c1 + d);
      const int8x16_t v0 = vldrbq_s8(w0 + d), v1 = vldrbq_s8(w1 + d);
      a00 = vmladavaq_s8(a00, v0, x0);
      a01 = vmladavaq_s8(a01, v0, x1);
      a10 = vmladavaq_s8(a10, v1, x0);
      a11 = vmladavaq_s8(a11, v1, x1);
    }
#else
    for (int d = 0; d < D; ++d) {
      a00 += int32_t(w0[d]) * c0[d];
      a01 += int32_t(w0[d]) * c1[d];
      a10 += int32_t(w1[d]) * c0[d];
      a11 += int32_t(w1[d]) * c1[d];
    }
#endif
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

/// A 2-D convolution (group 1) of int8 x (W::IC x IH x IW, zero point
/// XZp) into y (M x OH x OW), weights packed for Dot, the channels'
/// requantization from channel_params (M x kChannelWords) with the biases
/// of fold_zero_point, the output clamped to [Lo, Hi]. Two output pixels
/// and two output channels at a time.
template <typename T, typename W, int M, int XZp, int YZp, int Lo, int Hi, bool Wide,
          typename Dot = Smlad>
void conv2d(const T *x, const int32_t *packed, const int32_t *params, T *y,
            typename Dot::Col *scratch) {
  constexpr int D = Dot::depth(W::K);
  typename Dot::Col *const col0 = scratch, *const col1 = scratch + D;
  for (int pix = 0; pix < W::Pixels; pix += 2) {
    const bool second = pix + 1 < W::Pixels;
    Dot::template gather<T, W, XZp>(x, pix, col0);
    Dot::template gather<T, W, XZp>(x, second ? pix + 1 : pix, col1);
    const int32_t *w = packed;
    for (int m = 0; m < M; m += 2, w += Dot::pair_words(W::K)) {
      int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
      Dot::template product<D>(w, col0, col1, a00, a01, a10, a11);
      const Channel ch0 = load_channel(params, m);
      T *out = y + m * W::Pixels + pix;
      out[0] = output_value<T, Wide, YZp, Lo, Hi>(a00, ch0);
      if (second)
        out[1] = output_value<T, Wide, YZp, Lo, Hi>(a01, ch0);
      if (M % 2 == 0 || m + 1 < M) {
        const Channel ch1 = load_channel(params, m + 1);
        out[W::Pixels] = output_value<T, Wide, YZp, Lo, Hi>(a10, ch1);
        if (second)
          out[W::Pixels + 1] = output_value<T, Wide, YZp, Lo, Hi>(a11, ch1);
      }
    }
  }
}

/// conv2d followed by a max pool of PH x PW windows at stride (PH, PW), no
/// padding (QConv with max_pool): y is M x (OH / PH) x (OW / PW). The
/// requantization is monotonic in the accumulator, so each window's
/// largest accumulator is requantized, once.
template <typename T, typename W, int M, int XZp, int YZp, int Lo, int Hi, bool Wide, int PH,
          int PW, typename Dot = Smlad>
void conv2d_max_pool(const T *x, const int32_t *packed, const int32_t *params, T *y,
                     typename Dot::Col *scratch) {
  constexpr int D = Dot::depth(W::K);
  constexpr int POW = W::OW / PW, Pooled = W::OH / PH * POW, Columns = pool_columns(PH, PW);
  for (int q = 0; q < Pooled; ++q) {
    const int py = q / POW, px = q - py * POW;
    for (int i = 0; i < Columns; ++i) {
      const int j = i < PH * PW ? i : PH * PW - 1, dy = j / PW;
      Dot::template gather<T, W, XZp>(x, (py * PH + dy) * W::OW + px * PW + (j - dy * PW),
                                      scratch + i * D);
    }
    const int32_t *w = packed;
    for (int m = 0; m < M; m += 2, w += Dot::pair_words(W::K)) {
      int32_t best0 = INT32_MIN, best1 = INT32_MIN;
      for (int i = 0; i < Columns; i += 2) {
        int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
        Dot::template product<D>(w, scratch + i * D, scratch + (i + 1) * D, a00, a01, a10, a11);
        a00 = a00 > a01 ? a00 : a01;
        a10 = a10 > a11 ? a10 : a11;
        best0 = best0 > a00 ? best0 : a00;
        best1 = best1 > a10 ? best1 : a10;
      }
      y[m * Pooled + q] = output_value<T, Wide, YZp, Lo, Hi>(best0, load_channel(params, m));
      if (M % 2 == 0 || m + 1 < M)
        y[(m + 1) * Pooled + q] =
            output_value<T, Wide, YZp, Lo, Hi>(best1, load_channel(params, m + 1));
    }
  }
}

/// A depthwise 2-D convolution (group = channels, one output channel per
/// input channel) of x (W::IC x IH x IW) into y (W::IC x OH x OW); w is the
/// ONNX weight tensor as it is (W::IC x KH x KW int8), the channels'
/// requantization from channel_params with the biases of fold_zero_point
/// (x is multiplied as stored, padding reads XZp). Each output is KH x KW
/// multiply-accumulates (MLA) of the channel's weights, held in registers
/// for the channel; a window inside the plane reads without checks.
template <typename T, typename W, int XZp, int YZp, int Lo, int Hi, bool Wide>
void depthwise_conv2d(const T *x, const int8_t *w, const int32_t *params, T *y) {
  constexpr int KN = W::KH * W::KW;
  for (int c = 0; c < W::IC; ++c, x += W::IH * W::IW, w += KN, y += W::Pixels) {
    int32_t wk[KN];
    for (int k = 0; k < KN; ++k)
      wk[k] = w[k];
    const Channel ch = load_channel(params, c);
    for (int oy = 0; oy < W::OH; ++oy) {
      const int y0 = oy * W::SH - W::PH;
      const bool rows_in = y0 >= 0 && y0 + (W::KH - 1) * W::DH < W::IH;
      for (int ox = 0; ox < W::OW; ++ox) {
        const int x0 = ox * W::SW - W::PW;
        int32_t acc = 0;
        if (rows_in && x0 >= 0 && x0 + (W::KW - 1) * W::DW < W::IW) {
          const T *p = x + y0 * W::IW + x0;
#pragma GCC unroll 16
          for (int ky = 0; ky < W::KH; ++ky)
#pragma GCC unroll 16
            for (int kx = 0; kx < W::KW; ++kx)
              acc += wk[ky * W::KW + kx] * int32_t(p[ky * W::DH * W::IW + kx * W::DW]);
        } else {
          for (int ky = 0; ky < W::KH; ++ky) {
            const int iy = y0 + ky * W::DH;
            for (int kx = 0; kx < W::KW; ++kx) {
              const int ix = x0 + kx * W::DW;
              const bool in = iy >= 0 && iy < W::IH && ix >= 0 && ix < W::IW;
              acc += wk[ky * W::KW + kx] * (in ? int32_t(x[iy * W::IW + ix]) : XZp);
            }
          }
        }
        y[oy * W::OW + ox] = output_value<T, Wide, YZp, Lo, Hi>(acc, ch);
      }
    }
  }
}

/// y = a + b for same-shape int8 tensors of N elements in the qs8 scheme
/// (reference/qs8.h's add: each input less its zero point, shifted left by
/// LeftShift and rescaled to the common scale, the sum rescaled to y's):
/// params holds the three rescalings as channels 0 (a), 1 (b) and 2 (y),
/// channel_params with no bias. Every intermediate stays below 2^30 (|x -
/// zp| < 2^8, LeftShift 20, multipliers below 1), so the rounding is the
/// narrow one unless a rescaling shifts left (Wide).
template <typename T, int N, int LeftShift, int AZp, int BZp, int YZp, int Lo, int Hi, bool Wide>
void add(const T *a, const T *b, const int32_t *params, T *y) {
  const Channel ca = load_channel(params, 0), cb = load_channel(params, 1),
                cy = load_channel(params, 2);
  for (int i = 0; i < N; ++i) {
    const int32_t sa = requantize<Wide>((int32_t(a[i]) - AZp) * (1 << LeftShift), ca);
    const int32_t sb = requantize<Wide>((int32_t(b[i]) - BZp) * (1 << LeftShift), cb);
    y[i] = output_value<T, Wide, YZp, Lo, Hi>(sa + sb, cy);
  }
}

/// Output rows per block of the fully connected kernel.
constexpr int kFcRows = 4;

/// Words of packed fully connected weights: N rounded up to 4 rows of K
/// rounded up to 4 bytes.
constexpr int fc_packed_words(int k, int n) {
  return (n + kFcRows - 1) / kFcRows * kFcRows * ((k + 3) / 4);
}

/// Packs w (k x n int8, column j an output) into [N/4][K/4][4 rows] words
/// of four consecutive depth values (zero past k and n).
inline void pack_fc_weights(const int8_t *w, int k, int n, int32_t *out) {
  const int quads = (k + 3) / 4;
  for (int b = 0; b < (n + kFcRows - 1) / kFcRows; ++b)
    for (int q = 0; q < quads; ++q)
      for (int r = 0; r < kFcRows; ++r) {
        const int col = b * kFcRows + r;
        uint32_t word = 0;
        for (int i = 0; i < 4; ++i) {
          const int d = 4 * q + i;
          const uint8_t v = col < n && d < k ? static_cast<uint8_t>(w[d * n + col]) : 0;
          word |= uint32_t(v) << (8 * i);
        }
        *out++ = static_cast<int32_t>(word);
      }
}

/// Scratch bytes fully_connected needs: the input row widened.
constexpr int fc_scratch_bytes(int k) { return (k + 3) / 4 * 2 * 4; }

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
#else
  for (int q = 0; q < Q; ++q, x += 2, w += kFcRows) {
    const int32_t even = x[0], odd = x[1];
    acc0 = smlad(sxtb16_odd(w[0]), odd, smlad(sxtb16(w[0]), even, acc0));
    acc1 = smlad(sxtb16_odd(w[1]), odd, smlad(sxtb16(w[1]), even, acc1));
    acc2 = smlad(sxtb16_odd(w[2]), odd, smlad(sxtb16(w[2]), even, acc2));
    acc3 = smlad(sxtb16_odd(w[3]), odd, smlad(sxtb16(w[3]), even, acc3));
  }
#endif
}

/// y (rows x N) = requantize(a (rows x K, zero point XZp) * W), W packed by
/// pack_fc_weights, the channels' requantization from channel_params (N x
/// kChannelWords), clamped to [Lo, Hi].
template <typename T, int Rows, int K, int N, int XZp, int YZp, int Lo, int Hi, bool Wide>
void fully_connected(const T *a, const int32_t *packed, const int32_t *params, T *y,
                     int32_t *scratch) {
  constexpr int Q = (K + 3) / 4;
  for (int r = 0; r < Rows; ++r, a += K, y += N) {
    // (x0, x2) and (x1, x3) of each quad, less the zero point.
    for (int q = 0; q < Q; ++q) {
      int32_t v[4];
      for (int i = 0; i < 4; ++i)
        v[i] = 4 * q + i < K ? int32_t(a[4 * q + i]) - XZp : 0;
      scratch[2 * q] = pack_pair(v[0], v[2]);
      scratch[2 * q + 1] = pack_pair(v[1], v[3]);
    }
    const int32_t *w = packed;
    for (int n0 = 0; n0 < N; n0 += kFcRows) {
      int32_t acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
      fc_rows<Q>(w, scratch, acc0, acc1, acc2, acc3);
      w += kFcRows * Q;
      const int32_t acc[kFcRows] = {acc0, acc1, acc2, acc3};
      for (int i = 0; i < kFcRows && n0 + i < N; ++i)
        y[n0 + i] = output_value<T, Wide, YZp, Lo, Hi>(acc[i], load_channel(params, n0 + i));
    }
  }
}

/// QuantizeLinear per tensor: y = saturate(round_half_even(x / scale) +
/// Zp), as the reference kernel computes it (x / scale in float), without
/// its double arithmetic: the quotient is clamped to the range first (the
/// bounds are integers, so clamping and rounding commute), where adding and
/// subtracting 1.5 * 2^23 rounds a float half to even.
template <typename Q, int N, int Zp>
void quantize(const float *x, float scale, Q *y) {
  constexpr float lo = float((Q(-1) < Q(0) ? -128 : 0) - Zp);
  constexpr float hi = float((Q(-1) < Q(0) ? 127 : 255) - Zp);
  constexpr float magic = 12582912.0f; // 1.5 * 2^23
  for (int i = 0; i < N; ++i) {
    float q = x[i] / scale;
    q = q < lo ? lo : q;
    q = q > hi ? hi : q;
    y[i] = static_cast<Q>(int32_t((q + magic) - magic) + Zp); // float math, no reassociation
  }
}

} // namespace qs8
} // namespace mcu
} // namespace onnxc_rt

#endif
