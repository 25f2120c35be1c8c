// Reference kernels of the qs8 scheme: onnxc's integer arithmetic for
// quantized models, the TFLite / CMSIS-NN int8 scheme.
//
//   real = scale * (q - zero_point)
//
// Weights are symmetric per output channel (zero point 0), activations are
// asymmetric int8 (or uint8), biases int32 with scale x_scale * w_scale[c].
// The same kernels take int16 activations with int8 weights (TFLite's 16x8
// scheme, for models whose accuracy needs them): their products accumulate
// in int64 (Accumulator<T>), K terms of 2^15 x 2^7 would overflow int32
// past K = 511, and are requantized with the same single rounding.
// A product's int32 accumulator is brought to the output's quantization by
// a fixed-point multiplier: the real factor x_scale * w_scale[c] / y_scale
// as a Q31 number and a power-of-two shift, rounded once, so every
// target computes the same integers, bit for bit, without floating point.
// These kernels are the oracle the optimised ones are tested against; the
// compiler computes multipliers with the same quantize_multiplier.
//
// Convolutions and products accumulate through the shared integer loops
// (conv_acc in conv.h, matmul_acc in linalg.h) one output plane or row at a
// time into int32 scratch of that size, and requantize it into the int8
// output: the arena never holds a whole int32 result.
#ifndef ONNXC_RT_REF_QS8_H
#define ONNXC_RT_REF_QS8_H

#include <cmath>
#include <limits>
#include <type_traits>

#include "onnxc_rt/base.h"
#include "onnxc_rt/kernels/reference/conv.h"
#include "onnxc_rt/kernels/reference/linalg.h"

namespace onnxc_rt {
namespace ref {
namespace qs8 {

/// A real factor r > 0 as multiplier * 2^(shift - 31), multiplier in
/// [2^30, 2^31) (0 for r = 0). TFLite's QuantizeMultiplier.
struct Multiplier {
  int32_t multiplier;
  int32_t shift;
};

inline Multiplier quantize_multiplier(double real) {
  if (!(real > 0))
    return {0, 0};
  int exponent = 0;
  const double fraction = std::frexp(real, &exponent); // real = fraction * 2^exponent
  int64_t q = static_cast<int64_t>(std::round(fraction * double(int64_t(1) << 31)));
  if (q == (int64_t(1) << 31)) {
    q /= 2;
    ++exponent;
  }
  if (exponent < -31) // below 2^-32: the product is 0 anyway
    return {0, 0};
  if (exponent > 30)  // saturate: no real quantization needs a factor of 2^30
    return {std::numeric_limits<int32_t>::max(), 30};
  return {static_cast<int32_t>(q), exponent};
}

/// The two shifts of a multiplier's power of two 2^(shift - 31): the
/// accumulator is scaled up by 2^left before the product and the product
/// down by 2^(31 + right) after it. right is at least 1, so that the one
/// rounding is always the last shift's (a factor of 0.5 or more scales up
/// by one more bit instead).
struct Shifts {
  int32_t left, right;
};

ONNXC_RT_HD inline Shifts split_shift(int32_t shift) {
  return shift >= 0 ? Shifts{shift + 1, 1} : Shifts{0, -shift};
}

/// x * multiplier * 2^(shift - 31) rounded once, to nearest with ties
/// up: TFLite's and CMSIS-NN's single-rounding MultiplyByQuantizedMultiplier.
/// With x' = x * 2^left saturated to int32 (a value that saturates is
/// beyond any int8 output's range either way), it is
///   floor((x' * multiplier + 2^(30 + right)) / 2^(31 + right))
/// and that is how the vector kernels compute it: h = floor(x' * multiplier
/// / 2^31) (a doubling high product, truncated: SQDMULH, SMMUL of 2x), then
/// ((h >> (right - 1)) + 1) >> 1 (a rounding shift: SRSHL), which cannot
/// overflow (h < 2^31 - 1). Rounding once keeps the result within
/// half a step of x times the real factor (gemmlowp's two roundings were
/// up to one step off; their flips were most of the one-step differences
/// against ONNX Runtime's float requantization).
ONNXC_RT_HD inline int32_t multiply_by_quantized_multiplier(int32_t x, int32_t multiplier,
                                                         int32_t shift) {
  const Shifts s = split_shift(shift);
  int64_t scaled = int64_t(x) * (int64_t(1) << s.left);
  if (scaled > INT32_MAX)
    scaled = INT32_MAX;
  if (scaled < INT32_MIN)
    scaled = INT32_MIN;
  const int64_t round = int64_t(1) << (30 + s.right);
  return static_cast<int32_t>((scaled * multiplier + round) >> (31 + s.right));
}

/// multiply_by_quantized_multiplier for a 64-bit accumulator (16-bit
/// activations), |x| < 2^47: the same integers as the 32-bit form where x
/// fits int32, else the exact product x * multiplier (up to 2^78) taken
/// in two 16-bit halves of x so that no step needs more than 64 bits, with
/// the one rounding (ties up), saturated to int32.
ONNXC_RT_HD inline int32_t multiply_by_quantized_multiplier(int64_t x, int32_t multiplier,
                                                         int32_t shift) {
  constexpr int64_t lo32 = INT32_MIN, hi32 = INT32_MAX;
  if (x >= lo32 && x <= hi32)
    return multiply_by_quantized_multiplier(int32_t(x), multiplier, shift);
  const int32_t right = 31 - shift; // x * multiplier / 2^right
  // right < 16: the factor is at least 2^14 and |x| at least 2^31.
  if (right < 16 || multiplier == 0)
    return multiplier == 0 ? 0 : int32_t(x > 0 ? hi32 : lo32);
  // x = high * 2^16 + low, 0 <= low < 2^16 (an arithmetic shift floors).
  const int64_t high = x >> 16, low = x & 0xFFFF;
  const int64_t rounded_low = low * multiplier + (int64_t(1) << (right - 1));
  // floor((high * 2^16 + rounded_low) / 2^right), the low 16 bits of
  // rounded_low not reaching the quotient (right >= 16).
  const int64_t r = (high * multiplier + (rounded_low >> 16)) >> (right - 16);
  return int32_t(r < lo32 ? lo32 : (r > hi32 ? hi32 : r));
}

/// The accumulator of T's products with int8 weights: int32 for 8-bit
/// activations, int64 for 16-bit ones.
template <typename T>
using Accumulator = typename std::conditional<(sizeof(T) > 1), int64_t, int32_t>::type;

/// The range of an activation type T (8- or 16-bit), as constants device
/// code can read (std::numeric_limits' functions are host-only for nvcc).
template <typename T> struct Range {
  static constexpr int64_t bits = 8 * sizeof(T);
  static constexpr int32_t lo = std::is_signed<T>::value ? int32_t(-(int64_t(1) << (bits - 1))) : 0;
  static constexpr int32_t hi =
      int32_t(std::is_signed<T>::value ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1);
};

/// v clamped to [lo, hi] as T.
template <typename T> ONNXC_RT_HD inline T clamp_to(int32_t v, int32_t lo, int32_t hi) {
  return static_cast<T>(v < lo ? lo : (v > hi ? hi : v));
}

/// y = clamp(y_zp + (acc + bias[c]) * multiplier[c] * 2^(shift[c] - 31),
/// act_min, act_max) over (outer, channels, inner); `count` multipliers: 1
/// (per tensor) or `channels`; bias (may be null) has one value per
/// channel. act_min/act_max are quantized values: T's range, or narrower
/// where an activation (Relu, Clip) was fused.
/// One requantized output: clamp(y_zp + sum * multiplier * 2^(shift -
/// 31), act_min, act_max), sum the accumulator plus its bias (host and
/// CUDA).
template <typename T, typename Acc>
ONNXC_RT_HD inline T requantize_one(Acc sum, int32_t multiplier, int32_t shift, int32_t y_zp,
                                    int32_t act_min, int32_t act_max) {
  return clamp_to<T>(y_zp + multiply_by_quantized_multiplier(sum, multiplier, shift), act_min,
                     act_max);
}

template <typename T, typename Acc>
void requantize(const Acc *acc, const int32_t *bias, const int32_t *multiplier,
                const int32_t *shift, int64_t count, int32_t y_zp, int32_t act_min,
                int32_t act_max, T *y, int64_t outer, int64_t channels, int64_t inner) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t k = count > 1 ? c : 0;
      const Acc b = bias ? Acc(bias[c]) : Acc(0);
      const int64_t base = (o * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i)
        y[base + i] =
            requantize_one<T>(Acc(acc[base + i] + b), multiplier[k], shift[k], y_zp, act_min,
                              act_max);
    }
}

namespace detail {
/// The int32 accumulators of a quantized convolution, one output plane
/// (batch, channel) at a time in `scratch`, handed to done(b, oc, acc).
template <typename T, typename Done>
void conv_planes(const T *x, const int8_t *w, const T *x_zp, int64_t rank,
                 const int64_t *in_shape, const int64_t *out_shape, const int64_t *kernel,
                 const int64_t *strides, const int64_t *pads_begin, const int64_t *pads_end,
                 const int64_t *dilations, int64_t group, Accumulator<T> *scratch, Done done) {
  const int64_t n = in_shape[0], c = in_shape[1], m = out_shape[1];
  const int64_t cg = c / group, mg = m / group;
  const int64_t in_sp = product(in_shape + 2, rank);
  const int64_t ksize = product(kernel, rank);
  int64_t in_one[kMaxRank + 2] = {1, cg}, out_one[kMaxRank + 2] = {1, 1};
  for (int64_t d = 0; d < rank; ++d) {
    in_one[2 + d] = in_shape[2 + d];
    out_one[2 + d] = out_shape[2 + d];
  }
  for (int64_t b = 0; b < n; ++b)
    for (int64_t oc = 0; oc < m; ++oc) {
      const T *xg = x + (b * c + (oc / mg) * cg) * in_sp;
      conv_acc<T, int8_t, Accumulator<T>>(xg, w + oc * cg * ksize, x_zp, nullptr, 0, nullptr,
                                          scratch, rank, in_one, out_one, kernel, strides,
                                          pads_begin, pads_end, dilations, 1);
      done(b, oc, static_cast<const Accumulator<T> *>(scratch));
    }
}
} // namespace detail

/// A quantized convolution (x int8/uint8 with zero point x_zp, w int8
/// symmetric, bias int32 or null): each output plane (batch, channel) is
/// accumulated by conv_acc into `scratch` (one plane of int32) and
/// requantized into y. Window arguments as conv.h's.
template <typename T>
void conv(const T *x, const int8_t *w, const T *x_zp, const int32_t *bias, T *y, int64_t rank,
          const int64_t *in_shape, const int64_t *out_shape, const int64_t *kernel,
          const int64_t *strides, const int64_t *pads_begin, const int64_t *pads_end,
          const int64_t *dilations, int64_t group, Accumulator<T> *scratch,
          const int32_t *multiplier,
          const int32_t *shift, int64_t count, int32_t y_zp, int32_t act_min, int32_t act_max) {
  const int64_t m = out_shape[1], out_sp = product(out_shape + 2, rank);
  detail::conv_planes(x, w, x_zp, rank, in_shape, out_shape, kernel, strides, pads_begin,
                      pads_end, dilations, group, scratch,
                      [&](int64_t b, int64_t oc, const Accumulator<T> *acc) {
                        const int64_t k = count > 1 ? oc : 0;
                        requantize<T>(acc, bias ? bias + oc : nullptr, multiplier + k,
                                      shift + k, 1, y_zp, act_min, act_max,
                                      y + (b * m + oc) * out_sp, 1, 1, out_sp);
                      });
}

/// Scratch bytes of conv_max_pool: an accumulator plane of the
/// convolution's output (int32, int64 for 16-bit T), then a T plane.
constexpr int64_t conv_max_pool_scratch_bytes(int64_t conv_plane, int64_t t_size) {
  return (conv_plane * ((t_size > 1 ? 8 : 4) + t_size) + 7) / 8 * 8;
}

/// conv (2-D, out_shape the convolution's output) followed by a max pool
/// of window pool[0] x pool[1] at that stride, no padding, into y (the
/// pooled shape: whole windows only): QConv with max_pool. Each plane is
/// requantized into the T plane after the int32 one in `scratch`
/// (conv_max_pool_scratch_bytes), then pooled by conv.h's max_pool.
template <typename T>
void conv_max_pool(const T *x, const int8_t *w, const T *x_zp, const int32_t *bias, T *y,
                   const int64_t *in_shape, const int64_t *out_shape, const int64_t *kernel,
                   const int64_t *strides, const int64_t *pads_begin, const int64_t *pads_end,
                   const int64_t *dilations, int64_t group, const int64_t *pool,
                   Accumulator<T> *scratch, const int32_t *multiplier, const int32_t *shift,
                   int64_t count, int32_t y_zp, int32_t act_min, int32_t act_max) {
  const int64_t m = out_shape[1], conv_sp = out_shape[2] * out_shape[3];
  const int64_t plane_in[4] = {1, 1, out_shape[2], out_shape[3]};
  const int64_t plane_out[4] = {1, 1, out_shape[2] / pool[0], out_shape[3] / pool[1]};
  const int64_t zeros[2] = {0, 0}, ones[2] = {1, 1};
  T *plane = reinterpret_cast<T *>(scratch + conv_sp);
  detail::conv_planes(x, w, x_zp, 2, in_shape, out_shape, kernel, strides, pads_begin,
                      pads_end, dilations, group, scratch,
                      [&](int64_t b, int64_t oc, const Accumulator<T> *acc) {
                        const int64_t k = count > 1 ? oc : 0;
                        requantize<T>(acc, bias ? bias + oc : nullptr, multiplier + k,
                                      shift + k, 1, y_zp, act_min, act_max, plane, 1, 1,
                                      conv_sp);
                        max_pool<T>(plane, y + (b * m + oc) * plane_out[2] * plane_out[3],
                                    nullptr, 2, plane_in, plane_out, pool, pool, zeros, zeros,
                                    ones, 0);
                      });
}

/// A quantized product a (rows, k) x w (k, n) int8 + bias (n), one row of
/// int32 in `scratch` at a time (matmul_acc), requantized per column.
template <typename T>
void fully_connected(const T *a, const int8_t *w, const T *a_zp, const int32_t *bias, T *y,
                     int64_t rows, int64_t k, int64_t n, Accumulator<T> *scratch,
                     const int32_t *multiplier, const int32_t *shift, int64_t count,
                     int32_t y_zp, int32_t act_min, int32_t act_max) {
  for (int64_t r = 0; r < rows; ++r) {
    matmul_acc<T, int8_t, Accumulator<T>>(a + r * k, w, a_zp, 1, nullptr, 0, scratch, 1, k, n,
                                          0, nullptr, nullptr, nullptr);
    requantize<T>(scratch, bias, multiplier, shift, count, y_zp, act_min, act_max, y + r * n, 1,
                  n, 1);
  }
}

/// One quantization to another: y = clamp(y_zp + (x - x_zp) * m * 2^(s - 31)).
/// Concat's inputs of other scales, and a QuantizeLinear of a
/// DequantizeLinear with other parameters.
template <typename TOut, typename TIn>
ONNXC_RT_HD inline TOut rescale_one(TIn x, int32_t x_zp, int32_t multiplier, int32_t shift,
                                    int32_t y_zp) {
  return requantize_one<TOut>(int32_t(x) - x_zp, multiplier, shift, y_zp, Range<TOut>::lo,
                              Range<TOut>::hi);
}

template <typename TIn, typename TOut>
void rescale(const TIn *x, int32_t x_zp, int32_t multiplier, int32_t shift, int32_t y_zp,
             TOut *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = rescale_one<TOut>(x[i], x_zp, multiplier, shift, y_zp);
}

/// y = table[x - lowest(T)]: an element-wise function of one quantized
/// value (Sigmoid, Tanh, HardSwish, ...), tabulated by the compiler with
/// the float reference kernel on all 256 inputs.
template <typename T> void lookup(const T *x, const T *table, T *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = table[int32_t(x[i]) - Range<T>::lo];
}

/// The fixed-point constants of an add (TFLite): both inputs are brought
/// to a common scale 2 * max(a_scale, b_scale) with 20 bits of headroom
/// (14 for 16-bit activations, whose x - zp takes 17 bits), summed, then
/// scaled to the output.
struct AddParams {
  int32_t left_shift;
  int32_t a_zp, a_multiplier, a_shift;
  int32_t b_zp, b_multiplier, b_shift;
  int32_t y_zp, y_multiplier, y_shift;
  int32_t act_min, act_max;
};

inline AddParams add_params(double a_scale, int32_t a_zp, double b_scale, int32_t b_zp,
                            double y_scale, int32_t y_zp, int32_t act_min, int32_t act_max,
                            int32_t activation_bits = 8) {
  const int32_t left_shift = activation_bits > 8 ? 14 : 20;
  const double twice_max = 2 * (a_scale > b_scale ? a_scale : b_scale);
  const Multiplier a = quantize_multiplier(a_scale / twice_max);
  const Multiplier b = quantize_multiplier(b_scale / twice_max);
  const Multiplier o = quantize_multiplier(twice_max / (double(1 << left_shift) * y_scale));
  return {left_shift, a_zp,       a.multiplier, a.shift,    b_zp,   b.multiplier,
          b.shift,    y_zp,       o.multiplier, o.shift,    act_min, act_max};
}

namespace detail {
template <typename T> ONNXC_RT_HD inline T add_one(int32_t a, int32_t b, const AddParams &p) {
  const int32_t sa = multiply_by_quantized_multiplier((a - p.a_zp) * (1 << p.left_shift),
                                                      p.a_multiplier, p.a_shift);
  const int32_t sb = multiply_by_quantized_multiplier((b - p.b_zp) * (1 << p.left_shift),
                                                      p.b_multiplier, p.b_shift);
  return requantize_one<T>(sa + sb, p.y_multiplier, p.y_shift, p.y_zp, p.act_min, p.act_max);
}

/// One product of mul: (a - a_zp)(b - b_zp) in 64 bits (two 16-bit
/// activations less their zero points take 34), requantized.
template <typename T>
ONNXC_RT_HD inline T mul_one(int32_t a, int32_t b, int32_t a_zp, int32_t b_zp, int32_t y_zp,
                             int32_t multiplier, int32_t shift, int32_t act_min,
                             int32_t act_max) {
  const int64_t prod = int64_t(a - a_zp) * (b - b_zp);
  return requantize_one<T>(prod, multiplier, shift, y_zp, act_min, act_max);
}

/// Visits y's elements over `shape` with a's and b's offsets (strides 0
/// on broadcast dims): f(a_offset, b_offset, y_offset).
template <typename F>
void for_each_broadcast(int64_t rank, const int64_t *shape, const int64_t *a_strides,
                        const int64_t *b_strides, F &&f) {
  if (product(shape, rank) == 0)
    return;
  NdIndex it(rank, shape);
  int64_t off[2] = {0, 0};
  const int64_t *const strides[2] = {a_strides, b_strides};
  int64_t i = 0;
  do {
    f(off[0], off[1], i++);
  } while (it.next(off, strides));
}
} // namespace detail

/// y = a + b in the qs8 scheme (parameters from add_params), broadcast over
/// `shape` as the float binary kernels are.
template <typename T>
void add(const T *a, const T *b, T *y, int64_t rank, const int64_t *shape,
         const int64_t *a_strides, const int64_t *b_strides, int32_t left_shift, int32_t a_zp,
         int32_t a_multiplier, int32_t a_shift, int32_t b_zp, int32_t b_multiplier,
         int32_t b_shift, int32_t y_zp, int32_t y_multiplier, int32_t y_shift, int32_t act_min,
         int32_t act_max) {
  const AddParams p{left_shift, a_zp, a_multiplier, a_shift, b_zp, b_multiplier, b_shift,
                    y_zp, y_multiplier, y_shift, act_min, act_max};
  detail::for_each_broadcast(rank, shape, a_strides, b_strides,
                             [&](int64_t ia, int64_t ib, int64_t iy) {
                               y[iy] = detail::add_one<T>(a[ia], b[ib], p);
                             });
}

/// y = a * b in the qs8 scheme: (a - a_zp)(b - b_zp) scaled by
/// a_scale * b_scale / y_scale (multiplier, shift), plus y_zp.
template <typename T>
void mul(const T *a, const T *b, T *y, int64_t rank, const int64_t *shape,
         const int64_t *a_strides, const int64_t *b_strides, int32_t a_zp, int32_t b_zp,
         int32_t y_zp, int32_t multiplier, int32_t shift, int32_t act_min, int32_t act_max) {
  detail::for_each_broadcast(
      rank, shape, a_strides, b_strides, [&](int64_t ia, int64_t ib, int64_t iy) {
        y[iy] = detail::mul_one<T>(a[ia], b[ib], a_zp, b_zp, y_zp, multiplier, shift, act_min,
                                   act_max);
      });
}

/// The quantized mean of a window: y_zp + round(sum * multiplier *
/// 2^(shift - 31) / count), one rounding half away from zero, in 64-bit
/// integers, clamped to T (0 windows give y_zp).
template <typename T>
ONNXC_RT_HD inline T average_of(int64_t sum, int64_t count, int32_t multiplier, int32_t shift,
                                int32_t y_zp) {
  constexpr int32_t lo = Range<T>::lo, hi = Range<T>::hi;
  int64_t v = 0;
  if (count > 0) {
    // |sum| < 2^8 * count (2^16 * count for 16-bit T; the compiler folds
    // those only for windows under 2^15): the product fits.
    const int64_t num = sum * int64_t(multiplier);
    const int64_t q = num >= 0 ? (num + count / 2) / count : (num - count / 2) / count;
    const int32_t right = 31 - shift; // multiplier * 2^(shift - 31)
    const int64_t half = right > 0 ? int64_t(1) << (right - 1) : 0;
    v = right > 0 ? (q >= 0 ? (q + half) >> right : -((-q + half) >> right)) : q << -right;
  }
  const int64_t r = y_zp + v;
  return static_cast<T>(r < lo ? lo : (r > hi ? hi : r));
}

/// Average pooling (and GlobalAveragePool: the window is the whole plane):
/// y = y_zp + round(sum(x - x_zp) * x_scale / (y_scale * count)) with one
/// rounding, half away from zero (TFLite's average pool when the scales
/// agree): the window's sum times the Q31 multiplier of x_scale / y_scale,
/// divided by the count, then by 2^(31 - shift), all in 64-bit integers.
/// count_include_pad counts the padding positions too.
namespace detail {
/// average_pool's output at window position `pos` of plane xp. Host and
/// CUDA.
template <typename T>
ONNXC_RT_HD T average_pool_one(const T *xp, const WindowShape &s, const int64_t *pos,
                               int64_t count_include_pad, int32_t x_zp, int32_t y_zp,
                               int32_t multiplier, int32_t shift) {
  int64_t sum = 0, total = 0;
  const int64_t inside = ::onnxc_rt::ref::detail::for_window(
      s, pos, [&](int64_t ioff, int64_t) { sum += int32_t(xp[ioff]) - x_zp; }, &total);
  return average_of<T>(sum, count_include_pad ? total : inside, multiplier, shift, y_zp);
}
} // namespace detail

template <typename T>
void average_pool(const T *x, T *y, int64_t rank, const int64_t *in_shape,
                  const int64_t *out_shape, const int64_t *kernel, const int64_t *strides,
                  const int64_t *pads_begin, const int64_t *pads_end, const int64_t *dilations,
                  int64_t count_include_pad, int32_t x_zp, int32_t y_zp, int32_t multiplier,
                  int32_t shift) {
  const WindowShape s{rank, in_shape, out_shape, kernel, strides, pads_begin, pads_end, dilations};
  const int64_t planes = s.in[0] * s.in[1];
  const int64_t in_sp = product(s.in + 2, rank), out_sp = product(s.out + 2, rank);
  for (int64_t p = 0; p < planes; ++p) {
    const T *xp = x + p * in_sp;
    T *yp = y + p * out_sp;
    int64_t pos[kMaxRank] = {};
    int64_t o = 0;
    do
      yp[o++] = detail::average_pool_one(xp, s, pos, count_include_pad, x_zp, y_zp, multiplier,
                                         shift);
    while (::onnxc_rt::ref::detail::next_position(s.rank, s.out + 2, pos));
  }
}

} // namespace qs8
} // namespace ref
} // namespace onnxc_rt

#endif
