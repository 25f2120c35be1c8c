// int8 convolutions for microcontrollers (mcu/qs8/common.h): dense 2-D,
// the same with a fused max pool, and depthwise.
//
// Convolution: the windows of two output pixels are gathered into int16
// columns holding x as it is (padding reads x_zp; the compiler folds the
// zero point into the bias), two depth values per 32-bit word; the weights are stored as int16 pairs too, two output
// channels interleaved in steps of four depth values (packed by the
// compiler), so one step of the inner loop is four LDRDs and eight SMLADs
// for 2 x 2 x 4 products; a fused max pool keeps each window's largest
// accumulator and requantizes that one.
#ifndef ONNXC_RT_MCU_QS8_CONV_H
#define ONNXC_RT_MCU_QS8_CONV_H

#include "onnxc_rt/kernels/mcu/qs8/common.h"

namespace onnxc_rt {
namespace mcu {
namespace qs8 {

/// A 2-D convolution (group 1) of int8 x (W::IC x IH x IW, zero point
/// XZp) into y (M x OH x OW), weights packed for Dot, the channels'
/// requantization from channel_params (M x kChannelWords) with the biases
/// of fold_zero_point, the output clamped to [Lo, Hi]. Two output pixels
/// and two output channels at a time.
template <typename T, typename W, int M, int XZp, int YZp, int Lo, int Hi, bool Wide,
          typename Dot = Smlad>
void conv2d(const T *x, const int32_t *packed, const int32_t *params, T *y,
            typename Dot::Col *scratch) {
  constexpr int D = Dot::depth(W::K);
  typename Dot::Col *const col0 = scratch, *const col1 = scratch + D;
  for (int pix = 0; pix < W::Pixels; pix += 2) {
    const bool second = pix + 1 < W::Pixels;
    Dot::template gather<T, W, XZp>(x, pix, col0);
    Dot::template gather<T, W, XZp>(x, second ? pix + 1 : pix, col1);
    const int32_t *w = packed;
    for (int m = 0; m < M; m += 2, w += Dot::pair_words(W::K)) {
      int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
      Dot::template product<D>(w, col0, col1, a00, a01, a10, a11);
      const Channel ch0 = load_channel(params, m);
      T *out = y + m * W::Pixels + pix;
      out[0] = output_value<T, Wide, YZp, Lo, Hi>(a00, ch0);
      if (second)
        out[1] = output_value<T, Wide, YZp, Lo, Hi>(a01, ch0);
      if (M % 2 == 0 || m + 1 < M) {
        const Channel ch1 = load_channel(params, m + 1);
        out[W::Pixels] = output_value<T, Wide, YZp, Lo, Hi>(a10, ch1);
        if (second)
          out[W::Pixels + 1] = output_value<T, Wide, YZp, Lo, Hi>(a11, ch1);
      }
    }
  }
}

/// conv2d followed by a max pool of PH x PW windows at stride (PH, PW), no
/// padding (QConv with max_pool): y is M x (OH / PH) x (OW / PW). The
/// requantization is monotonic in the accumulator, so each window's
/// largest accumulator is requantized, once.
template <typename T, typename W, int M, int XZp, int YZp, int Lo, int Hi, bool Wide, int PH,
          int PW, typename Dot = Smlad>
void conv2d_max_pool(const T *x, const int32_t *packed, const int32_t *params, T *y,
                     typename Dot::Col *scratch) {
  constexpr int D = Dot::depth(W::K);
  constexpr int POW = W::OW / PW, Pooled = W::OH / PH * POW, Columns = pool_columns(PH, PW);
  for (int q = 0; q < Pooled; ++q) {
    const int py = q / POW, px = q - py * POW;
    for (int i = 0; i < Columns; ++i) {
      const int j = i < PH * PW ? i : PH * PW - 1, dy = j / PW;
      Dot::template gather<T, W, XZp>(x, (py * PH + dy) * W::OW + px * PW + (j - dy * PW),
                                      scratch + i * D);
    }
    const int32_t *w = packed;
    for (int m = 0; m < M; m += 2, w += Dot::pair_words(W::K)) {
      int32_t best0 = INT32_MIN, best1 = INT32_MIN;
      for (int i = 0; i < Columns; i += 2) {
        int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
        Dot::template product<D>(w, scratch + i * D, scratch + (i + 1) * D, a00, a01, a10, a11);
        a00 = a00 > a01 ? a00 : a01;
        a10 = a10 > a11 ? a10 : a11;
        best0 = best0 > a00 ? best0 : a00;
        best1 = best1 > a10 ? best1 : a10;
      }
      y[m * Pooled + q] = output_value<T, Wide, YZp, Lo, Hi>(best0, load_channel(params, m));
      if (M % 2 == 0 || m + 1 < M)
        y[(m + 1) * Pooled + q] =
            output_value<T, Wide, YZp, Lo, Hi>(best1, load_channel(params, m + 1));
    }
  }
}

/// A depthwise 2-D convolution (group = channels, one output channel per
/// input channel) of x (W::IC x IH x IW) into y (W::IC x OH x OW); w is the
/// ONNX weight tensor as it is (W::IC x KH x KW int8), the channels'
/// requantization from channel_params with the biases of fold_zero_point
/// (x is multiplied as stored, padding reads XZp). Each output is KH x KW
/// multiply-accumulates (MLA) of the channel's weights, held in registers
/// for the channel; a window inside the plane reads without checks.
template <typename T, typename W, int XZp, int YZp, int Lo, int Hi, bool Wide>
void depthwise_conv2d(const T *x, const int8_t *w, const int32_t *params, T *y) {
  constexpr int KN = W::KH * W::KW;
  for (int c = 0; c < W::IC; ++c, x += W::IH * W::IW, w += KN, y += W::Pixels) {
    int32_t wk[KN];
    for (int k = 0; k < KN; ++k)
      wk[k] = w[k];
    const Channel ch = load_channel(params, c);
    for (int oy = 0; oy < W::OH; ++oy) {
      const int y0 = oy * W::SH - W::PH;
      const bool rows_in = y0 >= 0 && y0 + (W::KH - 1) * W::DH < W::IH;
      for (int ox = 0; ox < W::OW; ++ox) {
        const int x0 = ox * W::SW - W::PW;
        int32_t acc = 0;
        if (rows_in && x0 >= 0 && x0 + (W::KW - 1) * W::DW < W::IW) {
          const T *p = x + y0 * W::IW + x0;
#pragma GCC unroll 16
          for (int ky = 0; ky < W::KH; ++ky)
#pragma GCC unroll 16
            for (int kx = 0; kx < W::KW; ++kx)
              acc += wk[ky * W::KW + kx] * int32_t(p[ky * W::DH * W::IW + kx * W::DW]);
        } else {
          for (int ky = 0; ky < W::KH; ++ky) {
            const int iy = y0 + ky * W::DH;
            for (int kx = 0; kx < W::KW; ++kx) {
              const int ix = x0 + kx * W::DW;
              const bool in = iy >= 0 && iy < W::IH && ix >= 0 && ix < W::IW;
              acc += wk[ky * W::KW + kx] * (in ? int32_t(x[iy * W::IW + ix]) : XZp);
            }
          }
        }
        y[oy * W::OW + ox] = output_value<T, Wide, YZp, Lo, Hi>(acc, ch);
      }
    }
  }
}

} // namespace qs8
} // namespace mcu
} // namespace onnxc_rt

#endif // ONNXC_RT_MCU_QS8_CONV_H
