// The window walk the microcontroller convolutions share: a 2-D window
// whose every size is a template parameter, so the compiler sees constant
// trip counts and strides (no 64-bit index arithmetic on a 32-bit core),
// and the im2col step that gathers a few output pixels' windows into
// columns, a padding value where the window leaves the input: from NCHW
// planes (gather_window) or NHWC pixels (gather_window_nhwc).
#ifndef ONNXC_RT_MCU_WINDOW_H
#define ONNXC_RT_MCU_WINDOW_H

#include <stdint.h>

namespace onnxc_rt {
namespace mcu {

/// A 2-D convolution's geometry (batch 1 per call): input channels
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

/// Where a tensor's values lie: NCHW planes, or NHWC pixels (channels
/// innermost, so that a window row is KW x C contiguous values).
enum class Layout { Nchw, Nhwc };

/// y (Plane x C) = x (C x Plane): an NCHW tensor (batch 1) into NHWC, at an
/// NHWC region's entry; written in order, read C planes apart.
template <typename T, int C, int Plane> void nchw_to_nhwc(const T *x, T *y) {
  for (int p = 0; p < Plane; ++p, ++x)
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c)
      *y++ = x[c * Plane];
}
/// y (C x Plane) = x (Plane x C): NHWC back to NCHW, at a region's exit.
template <typename T, int C, int Plane> void nhwc_to_nchw(const T *x, T *y) {
  for (int c = 0; c < C; ++c, ++x)
#pragma GCC unroll 4
    for (int p = 0; p < Plane; ++p)
      *y++ = x[p * C];
}

/// A convolution's weights (m x c x kh x kw, ONNX's order) in the depth
/// order of gather_window_nhwc's columns: m x kh x kw x c.
template <typename T>
inline void weights_to_nhwc(const T *w, int m, int c, int kh, int kw, T *out) {
  for (int o = 0; o < m; ++o)
    for (int y = 0; y < kh; ++y)
      for (int x = 0; x < kw; ++x)
        for (int i = 0; i < c; ++i)
          *out++ = w[((o * c + i) * kh + y) * kw + x];
}

/// out[0 .. N) = in[0 .. N) as V (sign- or zero-extended as T is).
template <int N, typename T, typename V> inline void copy_values(const T *in, V *out) {
#pragma GCC unroll 8
  for (int i = 0; i < N; ++i)
    out[i] = V(in[i]);
}

/// out[0 .. N) = pad; runs longer than 8 out of line: where GCC 12
/// vectorizes the fill for Helium, the vector constant's literal pool stays
/// within VLDR's reach (inlined into a large convolution, it did not:
/// "co-processor offset out of range").
template <int N, typename V> __attribute__((noinline)) void fill_padding_run(V *out, V pad) {
  for (int i = 0; i < N; ++i)
    out[i] = pad;
}
template <int N, typename V> inline void fill_padding(V *out, V pad) {
  if constexpr (N > 8) {
    fill_padding_run<N>(out, pad);
  } else {
#pragma GCC unroll 8
    for (int i = 0; i < N; ++i)
      out[i] = pad;
  }
}

/// gather_window of an NHWC input (W::IH x W::IW x W::IC): the window's W::K
/// values in depth order (kernel row, kernel column, channel), so that a
/// kernel row inside the input is one run of KW x IC values (undilated) and
/// is copied as a run (`Copy::template run<N>(in, out)`, as copy_values);
/// `pad` where the window leaves the input.
template <typename W, typename Copy, typename T, typename V>
inline void gather_window_nhwc(const T *x, int pixel, V *out, V pad) {
  constexpr int C = W::IC, Row = W::KW * C;
  const int oy = pixel / W::OW, ox = pixel - oy * W::OW;
  const int y0 = oy * W::SH - W::PH, x0 = ox * W::SW - W::PW;
  const bool cols_in = x0 >= 0 && x0 + (W::KW - 1) * W::DW < W::IW;
  for (int ky = 0; ky < W::KH; ++ky, out += Row) {
    const int iy = y0 + ky * W::DH;
    if (iy < 0 || iy >= W::IH) {
      fill_padding<Row>(out, pad);
      continue;
    }
    const T *in = x + (iy * W::IW + x0) * C;
    if (W::DW == 1 && cols_in) {
      Copy::template run<Row>(in, out);
      continue;
    }
    for (int kx = 0; kx < W::KW; ++kx) {
      const int ix = x0 + kx * W::DW;
      if (ix >= 0 && ix < W::IW) {
        Copy::template run<C>(in + kx * W::DW * C, out + kx * C);
      } else {
        fill_padding<C>(out + kx * C, pad);
      }
    }
  }
}

} // namespace mcu
} // namespace onnxc_rt

#endif
