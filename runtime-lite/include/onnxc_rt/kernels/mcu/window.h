// The window walk the microcontroller convolutions share: a 2-D window
// whose every size is a template parameter, so the compiler sees constant
// trip counts and strides (no 64-bit index arithmetic on a 32-bit core),
// and the im2col step that gathers a few output pixels' windows into
// columns, zero where the window leaves the input (padding).
#ifndef ONNXC_RT_MCU_WINDOW_H
#define ONNXC_RT_MCU_WINDOW_H

#include <stdint.h>

namespace onnxc_rt {
namespace mcu {

/// A 2-D convolution's geometry (NCHW, batch 1 per call): input channels
/// and plane, output plane, kernel, strides, leading pads, dilations.
template <int IC_, int IH_, int IW_, int OH_, int OW_, int KH_, int KW_, int SH_, int SW_,
          int PH_, int PW_, int DH_, int DW_>
struct Window {
  static constexpr int IC = IC_, IH = IH_, IW = IW_, OH = OH_, OW = OW_, KH = KH_, KW = KW_;
  static constexpr int SH = SH_, SW = SW_, PH = PH_, PW = PW_, DH = DH_, DW = DW_;
  /// Values in one output pixel's window (the product's depth).
  static constexpr int K = IC * KH * KW;
  static constexpr int Pixels = OH * OW;
};

/// Calls put(k, v) for k = 0 .. W::K - 1 with the window of output pixel
/// `pixel` (v = zero outside the input); `load(i)` reads input element i.
template <typename W, typename V, typename Load, typename Put>
inline void gather_window(int pixel, V zero, Load load, Put put) {
  const int oy = pixel / W::OW, ox = pixel - oy * W::OW;
  const int y0 = oy * W::SH - W::PH, x0 = ox * W::SW - W::PW;
  int k = 0;
  for (int c = 0; c < W::IC; ++c)
    for (int ky = 0; ky < W::KH; ++ky) {
      const int iy = y0 + ky * W::DH;
      const bool row_in = iy >= 0 && iy < W::IH;
      const int row = (c * W::IH + iy) * W::IW;
      for (int kx = 0; kx < W::KW; ++kx, ++k) {
        const int ix = x0 + kx * W::DW;
        put(k, row_in && ix >= 0 && ix < W::IW ? load(row + ix) : zero);
      }
    }
}

} // namespace mcu
} // namespace onnxc_rt

#endif
