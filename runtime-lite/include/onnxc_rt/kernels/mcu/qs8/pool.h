// int8 pooling for microcontrollers: GlobalAveragePool with every
// parameter a template argument, the plane summed four bytes an instruction
// (USADA8) on the DSP cores and sixteen (VADDVA) on Helium.
#ifndef ONNXC_RT_MCU_QS8_POOL_H
#define ONNXC_RT_MCU_QS8_POOL_H

#include <string.h>

#include "onnxc_rt/kernels/mcu/qs8/common.h"

namespace onnxc_rt {
namespace mcu {
namespace qs8 {

/// The sum of a plane's N values (int8 or uint8; int16 or uint16 in plain
/// C, N below 2^15 so that the sum fits).
template <typename T, int N>
inline int32_t plane_sum(const T *x) {
  constexpr bool kSigned = static_cast<T>(-1) < 0;
  constexpr bool kBytes = sizeof(T) == 1; // the vector paths read bytes
  (void)kSigned;
  (void)kBytes;
  int32_t sum = 0;
  int i = 0;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
  for (; kBytes && i + kHeliumStep <= N; i += kHeliumStep) {
    if (kSigned)
      sum = vaddvaq_s8(sum, vldrbq_s8(reinterpret_cast<const int8_t *>(x + i)));
    else
      sum = int32_t(vaddvaq_u8(uint32_t(sum), vldrbq_u8(reinterpret_cast<const uint8_t *>(x + i))));
  }
#elif defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
  // Four bytes a word (unaligned loads: planes start anywhere); int8 values
  // as unsigned ones 128 higher, taken off at the end.
  uint32_t bytes = 0;
  for (; kBytes && i + 4 <= N; i += 4) {
    uint32_t w;
    memcpy(&w, x + i, 4);
    bytes = usada8(kSigned ? w ^ 0x80808080u : w, bytes);
  }
  sum = int32_t(bytes) - (kSigned ? 128 * i : 0);
#endif
  for (; i < N; ++i)
    sum += x[i];
  return sum;
}

/// GlobalAveragePool of Planes planes of Inner values (reference/qs8.h's
/// average_pool over the whole plane, its average_of rounding): y[p] =
/// YZp + round((sum_p - Inner * XZp) * Multiplier * 2^(Shift - 31) / Inner).
template <typename T, int Planes, int Inner, int XZp, int YZp, int32_t Multiplier, int Shift>
void global_average_pool(const T *x, T *y) {
  for (int p = 0; p < Planes; ++p, x += Inner)
    y[p] = ::onnxc_rt::ref::qs8::average_of<T>(int64_t(plane_sum<T, Inner>(x)) -
                                                   int64_t(XZp) * Inner,
                                               Inner, Multiplier, Shift, YZp);
}

} // namespace qs8
} // namespace mcu
} // namespace onnxc_rt

#endif // ONNXC_RT_MCU_QS8_POOL_H
