// int8 kernels for microcontrollers in the qs8 scheme (reference/qs8.h
// defines the arithmetic; these compute the same integers, bit for bit):
// convolution and fully connected layers on the DSP extension's SMLAD (two
// 16x16-bit multiply-accumulates per instruction; plain C on cores without
// it), every shape a template parameter.
//
// Convolution: the windows of two output pixels are gathered into int16
// columns holding x - x_zp (padding is a true zero) in pairs, one 32-bit
// word per two depth steps; the weights are stored as int16 pairs too,
// two output channels interleaved ([M/2][K/2][2] words, packed by the
// compiler), so one pass of the inner loop is four loads and four SMLADs
// for 2 x 2 x 2 products. Fully connected: int8 weights, four per word,
// widened by SXTB16 (even and odd bytes) against the input widened once
// into the matching (x0, x2), (x1, x3) pairs, four output rows at a time.
#ifndef ONNXC_RT_MCU_QS8_H
#define ONNXC_RT_MCU_QS8_H

#include <stdint.h>

#include "onnxc_rt/kernels/mcu/dsp.h"
#include "onnxc_rt/kernels/mcu/window.h"

namespace onnxc_rt {
namespace mcu {
namespace qs8 {

/// One output channel's requantization, computed by the compiler
/// (channel_params): y = clamp(y_zp + round((acc + bias) * 2^left *
/// multiplier * 2^(-31 - right))), rounded as the reference's
/// multiply_by_quantized_multiplier (half away from zero after the
/// doubling high product). `round` and `negative` are that last rounding's
/// constants: 2^(right - 1), and -1 where right > 0 (so that a negative
/// value rounds its ties down), else 0.
struct Channel {
  int32_t bias, multiplier, left, right, round, negative;
  int32_t twice_bias; // 2 * bias, for the narrow path's doubled accumulator
};
constexpr int kChannelWords = 7;

/// The Channel of a bias (0 without one) and a reference multiplier/shift.
inline Channel channel_params(int32_t bias, int32_t multiplier, int32_t shift) {
  const int32_t left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  return {bias,
          multiplier,
          left,
          right,
          right > 0 ? int32_t(1) << (right - 1) : 0,
          right > 0 ? -1 : 0,
          static_cast<int32_t>(uint32_t(bias) * 2u)};
}

/// The requantized accumulator, before the zero point and the clamp.
/// `Wide`: the accumulator may be large enough (|acc + bias| * 2^left >=
/// 2^30) that shifting and rounding need 64 bits; the compiler decides this
/// per layer from the weights and bias (without it, left is 0).
template <bool Wide> inline int32_t requantize(int32_t acc, const Channel &ch) {
  if (Wide) {
    // round(a * b / 2^31), ties away from zero, equals floor((a * b +
    // 2^30) / 2^31) for both signs (see reference/qs8.h).
    int64_t scaled = (int64_t(acc) + ch.bias) * (int64_t(1) << ch.left);
    scaled = scaled > INT32_MAX ? INT32_MAX : (scaled < INT32_MIN ? INT32_MIN : scaled);
    const int64_t h = (scaled * ch.multiplier + (int64_t(1) << 30)) >> 31;
    return static_cast<int32_t>((h + ch.round + (h < 0 ? ch.negative : 0)) >> ch.right);
  }
  // The same as floor((2a * b + 2^31) / 2^32) with 2a in 32 bits: one
  // SMMULR.
  const int32_t doubled = acc * 2 + ch.twice_bias;
  const int32_t high =
      static_cast<int32_t>((int64_t(doubled) * ch.multiplier + (int64_t(1) << 31)) >> 32);
  return (high + ch.round + ((high >> 31) & ch.negative)) >> ch.right;
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
  const int32_t words[kChannelWords] = {ch.bias,  ch.multiplier, ch.left,      ch.right,
                                        ch.round, ch.negative,   ch.twice_bias};
  for (int i = 0; i < kChannelWords; ++i)
    p[i] = words[i];
}
inline Channel load_channel(const int32_t *params, int c) {
  const int32_t *p = params + c * kChannelWords;
  return {p[0], p[1], p[2], p[3], p[4], p[5], p[6]};
}

/// Words of packed convolution weights: M rounded up to 2, K to 2.
constexpr int conv_packed_words(int m, int k) { return (m + 1) / 2 * ((k + 1) / 2) * 2; }

/// Packs w (m x k int8) into int16 pairs for conv2d: word ((b * K2 + j) * 2
/// + r) holds w[2b + r][2j], w[2b + r][2j + 1] (zero past m and k).
inline void pack_conv_weights(const int8_t *w, int m, int k, int32_t *out) {
  const int pairs = (k + 1) / 2;
  for (int b = 0; b < (m + 1) / 2; ++b)
    for (int j = 0; j < pairs; ++j)
      for (int r = 0; r < 2; ++r) {
        const int row = 2 * b + r;
        auto at = [&](int i) { return row < m && i < k ? int32_t(w[row * k + i]) : 0; };
        *out++ = pack_pair(at(2 * j), at(2 * j + 1));
      }
}

/// Scratch bytes conv2d needs: two columns of K rounded up to 2 int16
/// (4-byte aligned, as the arena places everything).
constexpr int conv2d_scratch_bytes(int k) { return (k + 1) / 2 * 2 * 4; }

/// 32-bit words read from int16 data (GCC: may alias any type).
typedef int32_t __attribute__((__may_alias__)) word_alias;

/// Gathers output pixel `pixel`'s window of x less its zero point into
/// col (W::K int16, then a zero to make the count even).
template <typename T, typename W, int XZp>
inline void gather_column(const T *x, int pixel, int16_t *col) {
  gather_window<W, 1>(x, pixel, col, [](T v) { return int16_t(int32_t(v) - XZp); });
  if (W::K & 1)
    col[W::K] = 0;
}

/// acc += the products of two output channels' packed weights (w: K2
/// words each, interleaved) and two columns (c0, c1: K2 words each).
template <int K2>
inline void product_2x2(const int32_t *w, const word_alias *c0, const word_alias *c1,
                        int32_t &a00, int32_t &a01, int32_t &a10, int32_t &a11) {
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP && defined(__thumb2__)
  // Two depth pairs per pass, scheduled by hand: GCC 12 spends a third
  // more instructions on the same loop (register moves, no LDRD).
  if (K2 / 2 > 0) {
    int32_t n = K2 / 2, w0, w1, v0, v1;
    // One depth pair: 8 products.
#define ONNXC_MCU_PAIR_STEP                                                    \
  "ldrd %[w0], %[w1], [%[w]], #8\n\t"                                         \
  "ldr %[v0], [%[c0]], #4\n\t"                                               \
  "ldr %[v1], [%[c1]], #4\n\t"                                               \
  "smlad %[a00], %[w0], %[v0], %[a00]\n\t"                                   \
  "smlad %[a01], %[w0], %[v1], %[a01]\n\t"                                   \
  "smlad %[a10], %[w1], %[v0], %[a10]\n\t"                                   \
  "smlad %[a11], %[w1], %[v1], %[a11]\n\t"
    __asm__ volatile("1:\n\t" ONNXC_MCU_PAIR_STEP ONNXC_MCU_PAIR_STEP
                     "subs %[n], %[n], #1\n\t"
                     "bne 1b"
                     : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11),
                       [w] "+r"(w), [c0] "+r"(c0), [c1] "+r"(c1), [n] "+r"(n), [w0] "=&r"(w0),
                       [w1] "=&r"(w1), [v0] "=&r"(v0), [v1] "=&r"(v1)
                     :
                     : "cc", "memory");
#undef ONNXC_MCU_PAIR_STEP
  }
  constexpr int done = K2 / 2 * 2; // the odd last pair: below
#else
  constexpr int done = 0;
#endif
  for (int j = done; j < K2; ++j, w += 2, ++c0, ++c1) {
    const int32_t w0 = w[0], w1 = w[1], v0 = *c0, v1 = *c1;
    a00 = smlad(w0, v0, a00);
    a01 = smlad(w0, v1, a01);
    a10 = smlad(w1, v0, a10);
    a11 = smlad(w1, v1, a11);
  }
}

/// A 2-D convolution (group 1) of int8 x (W::IC x IH x IW, zero point
/// XZp) into y (M x OH x OW), weights packed by pack_conv_weights, the
/// channels' requantization from channel_params (M x kChannelWords), the
/// output clamped to [Lo, Hi].
template <typename T, typename W, int M, int XZp, int YZp, int Lo, int Hi, bool Wide>
void conv2d(const T *x, const int32_t *packed, const int32_t *params, T *y, int16_t *scratch) {
  constexpr int K2 = (W::K + 1) / 2; // words per column
  int16_t *const col0 = scratch, *const col1 = scratch + 2 * K2;
  const word_alias *c0 = reinterpret_cast<const word_alias *>(col0);
  const word_alias *c1 = reinterpret_cast<const word_alias *>(col1);
  for (int pix = 0; pix < W::Pixels; pix += 2) {
    const bool second = pix + 1 < W::Pixels;
    gather_column<T, W, XZp>(x, pix, col0);
    if (second)
      gather_column<T, W, XZp>(x, pix + 1, col1);
    const int32_t *w = packed;
    for (int m = 0; m < M; m += 2, w += 2 * K2) {
      int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
      product_2x2<K2>(w, c0, c1, a00, a01, a10, a11);
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
      const int32_t *xp = scratch;
#pragma GCC unroll 2
      for (int q = 0; q < Q; ++q, xp += 2, w += kFcRows) {
        const int32_t even = xp[0], odd = xp[1];
        const int32_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
        acc0 = smlad(sxtb16(w0), even, acc0);
        acc0 = smlad(sxtb16_odd(w0), odd, acc0);
        acc1 = smlad(sxtb16(w1), even, acc1);
        acc1 = smlad(sxtb16_odd(w1), odd, acc1);
        acc2 = smlad(sxtb16(w2), even, acc2);
        acc2 = smlad(sxtb16_odd(w2), odd, acc2);
        acc3 = smlad(sxtb16(w3), even, acc3);
        acc3 = smlad(sxtb16_odd(w3), odd, acc3);
      }
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
