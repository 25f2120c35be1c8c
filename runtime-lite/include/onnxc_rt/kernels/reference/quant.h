// Reference quantization kernels: QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear and the requantization step of the QLinear ops.
// Rounding is half to even and results saturate, as the ONNX reference does.
#ifndef ONNXC_RT_REF_QUANT_H
#define ONNXC_RT_REF_QUANT_H

#include <cmath>

#include "onnxc_rt/base.h"

namespace onnxc_rt {
namespace ref {

namespace detail {
template <typename Q> struct QuantRange;
template <> struct QuantRange<uint8_t> { static constexpr int32_t lo = 0, hi = 255; };
template <> struct QuantRange<int8_t> { static constexpr int32_t lo = -128, hi = 127; };
template <> struct QuantRange<uint16_t> { static constexpr int32_t lo = 0, hi = 65535; };
template <> struct QuantRange<int16_t> { static constexpr int32_t lo = -32768, hi = 32767; };

/// round(v) half to even, plus zp, saturated to Q (host and CUDA).
template <typename Q> ONNXC_RT_HD inline Q saturate_round(double v, int32_t zp) {
  double r = std::nearbyint(v) + double(zp);
  if (r < QuantRange<Q>::lo)
    r = QuantRange<Q>::lo;
  if (r > QuantRange<Q>::hi)
    r = QuantRange<Q>::hi;
  return static_cast<Q>(r);
}
} // namespace detail

/// QuantizeLinear of one value: saturate(round(x / scale) + zp) (host and
/// CUDA).
template <typename Q, typename T>
ONNXC_RT_HD inline Q quantize_value(T x, float scale, int32_t zp) {
  return detail::saturate_round<Q>(double(float(x) / scale), zp);
}

/// DequantizeLinear of one value: (x - zp) * scale (host and CUDA).
template <typename T, typename Q>
ONNXC_RT_HD inline T dequantize_value(Q x, float scale, int32_t zp) {
  return T(float(int32_t(x) - zp) * scale);
}

/// y = saturate(round(x / scale) + zp) over (outer, axis_dim, inner); scale
/// and zp (zp may be null) have `count` values: 1 (per tensor) or axis_dim.
template <typename T, typename Q>
void quantize_linear(const T *x, const T *scale, const Q *zp, Q *y, int64_t outer,
                     int64_t axis_dim, int64_t inner, int64_t count) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t a = 0; a < axis_dim; ++a) {
      const int64_t c = count > 1 ? a : 0;
      const float s = float(scale[c]);
      const int32_t z = zp ? int32_t(zp[c]) : 0;
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t off = (o * axis_dim + a) * inner + i;
        y[off] = quantize_value<Q>(x[off], s, z);
      }
    }
}

/// y = (x - zp) * scale, per tensor or per axis like quantize_linear.
template <typename Q, typename T>
void dequantize_linear(const Q *x, const T *scale, const Q *zp, T *y, int64_t outer,
                       int64_t axis_dim, int64_t inner, int64_t count) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t a = 0; a < axis_dim; ++a) {
      const int64_t c = count > 1 ? a : 0;
      const int32_t z = zp ? int32_t(zp[c]) : 0;
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t off = (o * axis_dim + a) * inner + i;
        y[off] = dequantize_value<T>(x[off], float(scale[c]), z);
      }
    }
}

namespace detail {
/// DynamicQuantizeLinear's scale and zero point from x's range [lo, hi]
/// (which includes 0), and one value quantized with them (host and CUDA).
ONNXC_RT_HD inline void dynamic_params(float lo, float hi, float &scale, uint8_t &zp) {
  scale = (hi - lo) / 255.0f;
  zp = scale != 0 ? saturate_round<uint8_t>(double((0 - lo) / scale), 0) : uint8_t(0);
}
ONNXC_RT_HD inline uint8_t dynamic_value(float x, float scale, uint8_t zp) {
  return scale != 0 ? saturate_round<uint8_t>(double(x / scale), zp) : zp;
}
} // namespace detail

/// uint8 quantization with scale and zero point computed from x's range
/// (which always includes 0).
inline void dynamic_quantize_linear(const float *x, uint8_t *y, float *y_scale,
                                    uint8_t *y_zero_point, int64_t n) {
  float lo = 0, hi = 0;
  for (int64_t i = 0; i < n; ++i) {
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  detail::dynamic_params(lo, hi, *y_scale, *y_zero_point);
  for (int64_t i = 0; i < n; ++i)
    y[i] = detail::dynamic_value(x[i], *y_scale, *y_zero_point);
}

/// QLinear requantization: y = saturate(round(acc * a_scale * b_scale[c] /
/// y_scale) + y_zp) over (outer, channels, inner), b_scale per channel
/// (b_count = channels) or per tensor.
/// The QLinear factor of channel c: a_scale * b_scale[c] / y_scale in
/// double (host and CUDA).
ONNXC_RT_HD inline double qlinear_factor(const float *a_scale, const float *b_scale,
                                         int64_t b_count, const float *y_scale, int64_t c) {
  return double(*a_scale) * double(b_scale[b_count > 1 ? c : 0]) / double(*y_scale);
}

template <typename Q>
void requantize(const int32_t *acc, const float *a_scale, const float *b_scale,
                int64_t b_count, const float *y_scale, const Q *y_zp, Q *y, int64_t outer,
                int64_t channels, int64_t inner) {
  const int32_t z = y_zp ? int32_t(*y_zp) : 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c) {
      const double mult = qlinear_factor(a_scale, b_scale, b_count, y_scale, c);
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t off = (o * channels + c) * inner + i;
        y[off] = detail::saturate_round<Q>(double(acc[off]) * mult, z);
      }
    }
}

} // namespace ref
} // namespace onnxc_rt

#endif
