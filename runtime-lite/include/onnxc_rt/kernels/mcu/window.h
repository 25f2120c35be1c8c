// The window walk the microcontroller convolutions share: a 2-D window
// whose every size is a template parameter, so the compiler sees constant
// trip counts and strides (no 64-bit index arithmetic on a 32-bit core),
// and the im2col step that gathers a few output pixels' windows into
// columns, a padding value where the window leaves the input.
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

/// Writes output pixel `pixel`'s window to out[0], out[Stride], ... (W::K
/// values, depth-major: channel, kernel row, kernel column): value(x[i])
/// for input element i, `pad` where the window leaves the input. Rows are
/// checked once; a window whose columns all lie inside is copied without
/// per-element checks.
template <typename W, int Stride, typename T, typename V, typename Value>
inline void gather_window(const T *x, int pixel, V *out, Value value, V pad) {
  const int oy = pixel / W::OW, ox = pixel - oy * W::OW;
  const int y0 = oy * W::SH - W::PH, x0 = ox * W::SW - W::PW;
  const bool cols_in = x0 >= 0 && x0 + (W::KW - 1) * W::DW < W::IW;
  for (int c = 0; c < W::IC; ++c)
    for (int ky = 0; ky < W::KH; ++ky, out += W::KW * Stride) {
      const int iy = y0 + ky * W::DH;
      if (iy < 0 || iy >= W::IH) {
#pragma GCC unroll 8
        for (int kx = 0; kx < W::KW; ++kx)
          out[kx * Stride] = pad;
        continue;
      }
      const int row = (c * W::IH + iy) * W::IW;
      if (cols_in) {
        const T *in = x + row + x0;
#pragma GCC unroll 8
        for (int kx = 0; kx < W::KW; ++kx)
          out[kx * Stride] = value(in[kx * W::DW]);
      } else {
#pragma GCC unroll 8
        for (int kx = 0; kx < W::KW; ++kx) {
          const int ix = x0 + kx * W::DW;
          out[kx * Stride] = ix >= 0 && ix < W::IW ? value(x[row + ix]) : pad;
        }
      }
    }
}

} // namespace mcu
} // namespace onnxc_rt

#endif
