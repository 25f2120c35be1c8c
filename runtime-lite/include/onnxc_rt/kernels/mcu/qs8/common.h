// int8 kernels for microcontrollers in the qs8 scheme (reference/qs8.h
// defines the arithmetic; these compute the same integers, bit for bit):
// convolution and fully connected layers on the DSP extension's SMLAD (two
// 16x16-bit multiply-accumulates per instruction; plain C on cores without
// it), every shape a template parameter.
//
// This file: what the kernels of mcu/qs8/ (one kernel family a file) share:
// each output channel's requantization and the weight packing; the dot
// product engines the convolutions and fully connected layers multiply by
// are mcu/qs8/dot.h.
#ifndef ONNXC_RT_MCU_QS8_COMMON_H
#define ONNXC_RT_MCU_QS8_COMMON_H

#include <stdint.h>
#include <string.h>

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

/// floor(a * b / 2^32), the high word of the 64-bit product, from four
/// 16 x 16-bit products (Hacker's Delight's mulhs: every partial sum fits
/// 32 bits). ARMv6-M (the M0+) has no SMULL: GCC calls __aeabi_lmul for
/// the 64-bit product, about twice these instructions and a call.
inline int32_t mul_high_by_halves(int32_t a, int32_t b) {
  const uint32_t al = uint32_t(a) & 0xFFFF, bl = uint32_t(b) & 0xFFFF;
  const int32_t ah = a >> 16, bh = b >> 16;
  const int32_t t = ah * int32_t(bl) + int32_t((al * bl) >> 16);
  const int32_t u = int32_t(al) * bh + (t & 0xFFFF);
  return ah * bh + (t >> 16) + (u >> 16);
}
/// floor(a * b / 2^32): one SMULL where the core has it.
inline int32_t mul_high(int32_t a, int32_t b) {
#if defined(__thumb__) && !defined(__thumb2__)
  return mul_high_by_halves(a, b);
#else
  return static_cast<int32_t>((int64_t(a) * b) >> 32);
#endif
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
  return (mul_high(doubled, ch.multiplier) + ch.round) >> ch.right;
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

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
/// requantize's narrow path on four accumulators of one channel (Helium),
/// and with the zero point and the clamp: the same integers lane by lane
/// (VSHL by a register is the plain shift, VMULH the high word of the
/// 64-bit product, then the one rounding's add and arithmetic shift as one
/// VRSHL by -right: it rounds half up, at full precision).
// (Always inlined: GCC 12 otherwise calls these once per four outputs.)
__attribute__((always_inline)) inline int32x4_t requantize_vector(int32x4_t acc,
                                                                  const Channel &ch) {
  int32x4_t v = vshlq_r_s32(vaddq_n_s32(acc, ch.bias), ch.up);
  v = vmulhq_s32(v, vdupq_n_s32(ch.multiplier));
  return vrshlq_n_s32(v, -ch.right);
}
template <int YZp, int Lo, int Hi>
__attribute__((always_inline)) inline int32x4_t output_vector(int32x4_t acc, const Channel &ch) {
  const int32x4_t v = vaddq_n_s32(requantize_vector(acc, ch), YZp);
  return vminq_s32(vmaxq_s32(v, vdupq_n_s32(Lo)), vdupq_n_s32(Hi));
}
#endif

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

/// conv2d's 2 x 2 block of outputs (accumulators a<channel><pixel> of
/// channels m, m + 1 and pixels p, p + 1) stored at out[0],
/// out[PixelStride], out[ChannelStride], out[ChannelStride + PixelStride]
/// (NCHW: the plane, 1; NHWC: 1, the channels); `second`: pixel p + 1
/// exists, `pair`: channel m + 1 does.
template <typename T, bool Wide, int YZp, int Lo, int Hi, int ChannelStride,
          int PixelStride = 1>
__attribute__((always_inline)) inline void output_2x2(int32_t a00, int32_t a01, int32_t a10,
                                                      int32_t a11, const int32_t *params, int m,
                                                      T *out, bool second, bool pair) {
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
  if (sizeof(T) == 1 && !Wide && second && pair) {
    // Four lanes at once, the same integers as requantize's narrow path:
    // the two channels' constants gathered lane by lane ({m, m, m + 1,
    // m + 1}) from the table by their word offsets, the four bytes
    // scattered to their places (8-bit outputs; 16-bit ones below).
    static_assert(kChannelWords == 6, "the gathers' word offsets below");
    int32x4_t acc = vdupq_n_s32(a00);
    acc = vsetq_lane_s32(a01, acc, 1);
    acc = vsetq_lane_s32(a10, acc, 2);
    acc = vsetq_lane_s32(a11, acc, 3);
    // (Lane constants from arrays: GCC 12's vcreateq_u32 puts its first
    // argument in lanes 2 and 3.)
    static constexpr uint32_t channel_bytes[4] = {0, 0, 4 * kChannelWords, 4 * kChannelWords},
                              out_offsets[4] = {0, PixelStride, ChannelStride,
                                                ChannelStride + PixelStride};
    const uint32_t base = uint32_t(reinterpret_cast<uintptr_t>(params + m * kChannelWords));
    const uint32x4_t at = vaddq_u32(vdupq_n_u32(base), vld1q_u32(channel_bytes));
    int32x4_t v = vaddq_s32(acc, vldrwq_gather_base_s32(at, 0));  // + bias
    v = vshlq_s32(v, vldrwq_gather_base_s32(at, 20));              // << up
    v = vmulhq_s32(v, vldrwq_gather_base_s32(at, 4));              // * multiplier
    v = vrshlq_s32(v, vnegq_s32(vldrwq_gather_base_s32(at, 12)));  // rounded >> right
    v = vaddq_n_s32(v, YZp);
    v = vminq_s32(vmaxq_s32(v, vdupq_n_s32(Lo)), vdupq_n_s32(Hi));
    vstrbq_scatter_offset_s32(reinterpret_cast<int8_t *>(out), vld1q_u32(out_offsets), v);
    return;
  }
#endif
  const Channel ch0 = load_channel(params, m);
  out[0] = output_value<T, Wide, YZp, Lo, Hi>(a00, ch0);
  if (second)
    out[PixelStride] = output_value<T, Wide, YZp, Lo, Hi>(a01, ch0);
  if (pair) {
    const Channel ch1 = load_channel(params, m + 1);
    out[ChannelStride] = output_value<T, Wide, YZp, Lo, Hi>(a10, ch1);
    if (second)
      out[ChannelStride + PixelStride] = output_value<T, Wide, YZp, Lo, Hi>(a11, ch1);
  }
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

} // namespace qs8
} // namespace mcu
} // namespace onnxc_rt

#endif // ONNXC_RT_MCU_QS8_COMMON_H
