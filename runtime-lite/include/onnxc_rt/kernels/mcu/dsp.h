// The Arm DSP extension's packed arithmetic (SMLAD, SXTB16, USADA8) that the
// microcontroller int8 kernels are written in: the instructions themselves
// where the core has them (__ARM_FEATURE_DSP: Cortex-M4, M7, M33, M55), and
// their definitions in plain C elsewhere (Cortex-M0+, the host's tests), so
// every core computes the same integers.
#ifndef ONNXC_RT_MCU_DSP_H
#define ONNXC_RT_MCU_DSP_H

#include <stdint.h>

// SSAT (__ARM_FEATURE_SAT) is ARMv7-M's too: the M3 has it without DSP.
#if (defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP) || \
    (defined(__ARM_FEATURE_SAT) && __ARM_FEATURE_SAT)
#include <arm_acle.h>
#endif

namespace onnxc_rt {
namespace mcu {

/// Two int16 values in one 32-bit word, `lo` in the low half.
inline int32_t pack_pair(int32_t lo, int32_t hi) {
  return static_cast<int32_t>((static_cast<uint32_t>(lo) & 0xffffu) |
                              (static_cast<uint32_t>(hi) << 16));
}

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
/// acc + lo(a) * lo(b) + hi(a) * hi(b), the halves signed 16-bit.
inline int32_t smlad(int32_t a, int32_t b, int32_t acc) { return __smlad(a, b, acc); }
/// Bytes 0 and 2 of w sign-extended into the two halves.
inline int32_t sxtb16(int32_t w) { return __sxtb16(w); }
/// Bytes 1 and 3 of w sign-extended into the two halves (SXTB16 ROR #8).
/// (SXTB16's own rotate: GCC 12 does not fold a rotate into it.)
inline int32_t sxtb16_odd(int32_t w) {
  int32_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(w));
  return r;
}
/// acc + the four bytes of w as unsigned values (USADA8 against zero).
inline uint32_t usada8(uint32_t w, uint32_t acc) { return __usada8(w, 0, acc); }
#else
inline int32_t smlad(int32_t a, int32_t b, int32_t acc) {
  return static_cast<int32_t>(
      static_cast<uint32_t>(acc) +
      static_cast<uint32_t>(int32_t(int16_t(a)) * int32_t(int16_t(b))) +
      static_cast<uint32_t>(int32_t(int16_t(a >> 16)) * int32_t(int16_t(b >> 16))));
}
inline int32_t sxtb16(int32_t w) { return pack_pair(int8_t(w), int8_t(w >> 16)); }
inline int32_t sxtb16_odd(int32_t w) { return pack_pair(int8_t(w >> 8), int8_t(w >> 24)); }
inline uint32_t usada8(uint32_t w, uint32_t acc) {
  return acc + (w & 0xffu) + ((w >> 8) & 0xffu) + ((w >> 16) & 0xffu) + (w >> 24);
}
#endif

} // namespace mcu
} // namespace onnxc_rt

#endif
