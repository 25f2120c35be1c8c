// QuantizeLinear and DequantizeLinear per tensor for microcontrollers, the
// reference's integers.
#ifndef ONNXC_RT_MCU_QS8_QUANTIZE_H
#define ONNXC_RT_MCU_QS8_QUANTIZE_H

#include "onnxc_rt/kernels/mcu/qs8/common.h"

namespace onnxc_rt {
namespace mcu {
namespace qs8 {

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

#endif // ONNXC_RT_MCU_QS8_QUANTIZE_H
