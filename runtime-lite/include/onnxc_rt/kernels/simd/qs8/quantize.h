// SIMD QuantizeLinear and DequantizeLinear per tensor, a vector at a time
// (the edges of the int8 regions: inputs, float layers' outputs and
// inputs), the same integers as reference/quant.h.
#ifndef ONNXC_RT_SIMD_QS8_QUANTIZE_H
#define ONNXC_RT_SIMD_QS8_QUANTIZE_H

#include "onnxc_rt/kernels/simd/qs8/common.h"

namespace onnxc_rt {
namespace simd {
namespace qs8 {

/// step(in, out) over n elements K at a time, the last partial step on
/// zero-padded copies (so no step reads or writes past n).
template <int64_t K, typename In, typename Out, typename Step>
inline void in_whole_steps(const In *x, Out *y, int64_t n, Step &&step) {
  int64_t i = 0;
  for (; i + K <= n; i += K)
    step(x + i, y + i);
  if (i < n) {
    In in[K] = {};
    Out out[K];
    __builtin_memcpy(in, x + i, size_t(n - i) * sizeof(In));
    step(in, out);
    __builtin_memcpy(y + i, out, size_t(n - i) * sizeof(Out));
  }
}

namespace detail {
/// V::round_saturated (neon.h), for the ISAs that have it.
template <typename V> ONNXC_RT_SIMD_INLINE V round_saturated(VecF x) {
  return V::round_saturated(x);
}
} // namespace detail

/// QuantizeLinear per tensor (reference/quant.h's quantize_linear, the
/// same integers): y = saturate(round_half_even(x / scale) + zp) over n
/// floats, the quotient clamped first to just past Q's range less zp (the
/// saturation's result either way) so that the vector rounding, exact
/// below 2^22, applies. NaN becomes Q's lowest value (the reference casts
/// it, which C++ leaves undefined). `tasks` take runs of the values.
template <typename Q>
void quantize_linear(const float *x, const float *scale, const Q *zero_point, Q *y, int64_t n,
                     TaskRunner *runner = nullptr, int64_t tasks = 1) {
  if (tasks > 1)
    return for_each_run(n, runner, tasks, [&](int64_t i, int64_t m) {
      quantize_linear(x + i, scale, zero_point, y + i, m);
    });
  constexpr int32_t lo = std::numeric_limits<Q>::min(), hi = std::numeric_limits<Q>::max();
  constexpr int64_t L = VecF::kLanes, kStep = 4 * L;
  static_assert(VecF::kLanes == VecI::kLanes, "one int32 lane per float lane");
  const int32_t zp = zero_point ? int32_t(zero_point[0]) : 0;
  const VecF vs = VecF::broadcast(scale[0]), qlo = VecF::broadcast(float(lo - zp - 1)),
             qhi = VecF::broadcast(float(hi - zp + 1));
  const VecI vzp = VecI::broadcast(zp), vlo = VecI::broadcast(lo), vhi = VecI::broadcast(hi);
  auto step = [&](const float *in, Q *out) {
    VecI q[4];
    for (int j = 0; j < 4; ++j) {
      // max(q, qlo) first: a NaN quotient takes qlo.
      const VecF t = VecF::max(VecF::div(VecF::load(in + j * L), vs), qlo);
      if constexpr (VecI::kSaturatingRound) {
        // NEON: FCVTNS's saturation, then store_narrow_clamped's (to 16
        // bits, + zp, to Q), give saturate(round(t) + zp).
        q[j] = detail::round_saturated<VecI>(t);
      } else {
        const VecI r{__builtin_convertvector(VecF::round(VecF::min(t, qhi)).v, VecI::Int)};
        q[j] = VecI::min(VecI::max(VecI::add(r, vzp), vlo), vhi);
      }
    }
    if constexpr (VecI::kSaturatingRound)
      VecI::store_narrow_clamped(out, q, vzp, vlo, vhi);
    else
      VecI::store_narrow_all(out, q);
  };
  in_whole_steps<kStep>(x, y, n, step);
}

/// DequantizeLinear per tensor (reference/quant.h's dequantize_linear):
/// y = float(x - zp) * scale over n values, four vectors at a time (one
/// load of NEON's 16 bytes, widened). `tasks` take runs of the values.
template <typename Q>
void dequantize_linear(const Q *x, const float *scale, const Q *zero_point, float *y,
                       int64_t n, TaskRunner *runner = nullptr, int64_t tasks = 1) {
  if (tasks > 1)
    return for_each_run(n, runner, tasks, [&](int64_t i, int64_t m) {
      dequantize_linear(x + i, scale, zero_point, y + i, m);
    });
  constexpr int64_t L = VecF::kLanes, kStep = 4 * L;
  static_assert(VecF::kLanes == VecI::kLanes, "one int32 lane per float lane");
  const VecF vs = VecF::broadcast(scale[0]);
  const VecI vzp = VecI::broadcast(zero_point ? int32_t(zero_point[0]) : 0);
  auto step = [&](const Q *in, float *out) {
    VecI q[4];
    VecI::widen_all(in, q);
    for (int j = 0; j < 4; ++j) {
      const VecI d = VecI::sub(q[j], vzp);
      VecF::mul(VecF{__builtin_convertvector(d.v, decltype(VecF::v))}, vs).store(out + j * L);
    }
  };
  in_whole_steps<kStep>(x, y, n, step);
}

} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_QS8_QUANTIZE_H
