// int8 element-wise add for microcontrollers, the reference's arithmetic
// with every parameter a template argument.
#ifndef ONNXC_RT_MCU_QS8_ELEMENTWISE_H
#define ONNXC_RT_MCU_QS8_ELEMENTWISE_H

#include "onnxc_rt/kernels/mcu/qs8/common.h"

namespace onnxc_rt {
namespace mcu {
namespace qs8 {

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
  int i = 0;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
  // Helium, int8: four elements a vector, the last ones under a tail
  // predicate, each rescaling as requantize_vector (the narrow path).
  if (!Wide && static_cast<T>(-1) < 0) {
    const int8_t *pa = reinterpret_cast<const int8_t *>(a);
    const int8_t *pb = reinterpret_cast<const int8_t *>(b);
    int8_t *py = reinterpret_cast<int8_t *>(y);
    if (ca.bias == 0 && cb.bias == 0) {
      // The inputs' rescalings carry no bias (the compiler's): (x - zp) <<
      // LeftShift << up is one shift, and the rest of each is VMULH and the
      // rounding shift (VRSHL).
      const int32_t ua = LeftShift + ca.up, ub = LeftShift + cb.up;
      const int32x4_t ma = vdupq_n_s32(ca.multiplier), mb = vdupq_n_s32(cb.multiplier);
      for (; i < N; i += 4) {
        const mve_pred16_t p = vctp32q(uint32_t(N - i));
        int32x4_t va = vshlq_r_s32(vsubq_n_s32(vldrbq_z_s32(pa + i, p), AZp), ua);
        int32x4_t vb = vshlq_r_s32(vsubq_n_s32(vldrbq_z_s32(pb + i, p), BZp), ub);
        va = vrshlq_n_s32(vmulhq_s32(va, ma), -ca.right);
        vb = vrshlq_n_s32(vmulhq_s32(vb, mb), -cb.right);
        const int32x4_t out = output_vector<YZp, Lo, Hi>(vaddq_s32(va, vb), cy);
        vstrbq_p_s32(py + i, out, p);
      }
    }
    for (; i < N; i += 4) {
      const mve_pred16_t p = vctp32q(uint32_t(N - i));
      const int32x4_t va = vshlq_n_s32(vsubq_n_s32(vldrbq_z_s32(pa + i, p), AZp), LeftShift);
      const int32x4_t vb = vshlq_n_s32(vsubq_n_s32(vldrbq_z_s32(pb + i, p), BZp), LeftShift);
      const int32x4_t sum = vaddq_s32(requantize_vector(va, ca), requantize_vector(vb, cb));
      const int32x4_t out = output_vector<YZp, Lo, Hi>(sum, cy); // (the store is a macro)
      vstrbq_p_s32(py + i, out, p);
    }
  }
#endif
  for (; i < N; ++i) {
    const int32_t sa = requantize<Wide>((int32_t(a[i]) - AZp) * (1 << LeftShift), ca);
    const int32_t sb = requantize<Wide>((int32_t(b[i]) - BZp) * (1 << LeftShift), cb);
    y[i] = output_value<T, Wide, YZp, Lo, Hi>(sa + sb, cy);
  }
}

} // namespace qs8
} // namespace mcu
} // namespace onnxc_rt

#endif // ONNXC_RT_MCU_QS8_ELEMENTWISE_H
