// x86 2-D convolution: grouped/dense convolutions as packed GEMMs over an
// implicit im2col (1x1 stride-1 ones read the input directly), depthwise ones
// as a direct kernel over a zero-padded copy of each channel. Both take the
// fused epilogue: bias, residual add (the Z of onnx.FusedConv) and an
// activation functor from the reference kernels.
#ifndef ONNXC_RT_X86_CONV_H
#define ONNXC_RT_X86_CONV_H

#include "onnxc_rt/kernels/x86/gemm.h"

namespace onnxc_rt {
namespace x86 {

/// Y = Act(conv(X, W) + B + Z) for NCHW X (n, c, h, w), W (m, c/group, kh,
/// kw); B and Z may be null. Scratch: gemm_scratch_floats(m/group, oh*ow,
/// c/group*kh*kw) floats.
template <typename Act>
void conv2d(const float *x, const float *w, const float *bias, const float *z, float *y,
            const int64_t *in_shape, const int64_t *out_shape, const int64_t *kernel,
            const int64_t *strides, const int64_t *pads_begin, const int64_t *dilations,
            int64_t group, float act_alpha, float act_beta, float *scratch) {
  const int64_t n = in_shape[0], c = in_shape[1], h = in_shape[2], wd = in_shape[3];
  const int64_t m = out_shape[1], oh = out_shape[2], ow = out_shape[3];
  const int64_t cg = c / group, mg = m / group, kdim = cg * kernel[0] * kernel[1];
  const int64_t npix = oh * ow;
  const bool pointwise = kernel[0] == 1 && kernel[1] == 1 && strides[0] == 1 &&
                         strides[1] == 1 && pads_begin[0] == 0 && pads_begin[1] == 0 &&
                         oh == h && ow == wd;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t g = 0; g < group; ++g) {
      const float *xg = x + (b * c + g * cg) * h * wd;
      const int64_t yoff = (b * m + g * mg) * npix;
      Epilogue ep;
      ep.bias = bias ? bias + g * mg : nullptr;
      ep.bias_rs = 1;
      ep.residual = z ? z + yoff : nullptr;
      ep.residual_ld = npix;
      ep.act_alpha = act_alpha;
      ep.act_beta = act_beta;
      const Matrix wm{w + g * mg * kdim, kdim, 1};
      if (pointwise)
        gemm_packed<Act>(mg, npix, kdim, wm, Matrix{xg, h * wd, 1}, y + yoff, npix, ep, scratch);
      else
        gemm_packed<Act>(mg, npix, kdim, wm,
                         Im2col{xg, h, wd, kernel[0], kernel[1], strides[0], strides[1],
                                pads_begin[0], pads_begin[1], dilations[0], dilations[1], ow},
                         y + yoff, npix, ep, scratch);
    }
}

/// Depthwise convolution (group == c, m = c * multiplier): each output
/// channel sees one input channel. Scratch: padded_extent(oh..) *
/// padded_extent(ow..) floats.
template <typename Act>
void depthwise_conv2d(const float *x, const float *w, const float *bias, const float *z,
                      float *y, const int64_t *in_shape, const int64_t *out_shape,
                      const int64_t *kernel, const int64_t *strides, const int64_t *pads_begin,
                      const int64_t *dilations, float act_alpha, float act_beta,
                      float *scratch) {
  const int64_t n = in_shape[0], c = in_shape[1], h = in_shape[2], wd = in_shape[3];
  const int64_t m = out_shape[1], oh = out_shape[2], ow = out_shape[3];
  const int64_t kh = kernel[0], kw = kernel[1], sh = strides[0], sw = strides[1];
  const int64_t dh = dilations[0], dw = dilations[1];
  const int64_t mult = m / c;
  const int64_t hp = padded_extent(oh, kh, sh, dh), wp = padded_extent(ow, kw, sw, dw);
  float *pad = scratch;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      const float *plane = x + (b * c + ch) * h * wd;
      for (int64_t r = 0; r < hp; ++r) {
        const int64_t ih = r - pads_begin[0];
        float *dst = pad + r * wp;
        for (int64_t q = 0; q < wp; ++q) {
          const int64_t iw = q - pads_begin[1];
          dst[q] = (ih >= 0 && ih < h && iw >= 0 && iw < wd) ? plane[ih * wd + iw] : 0.0f;
        }
      }
      for (int64_t mo = 0; mo < mult; ++mo) {
        const int64_t oc = ch * mult + mo;
        const float *wk = w + oc * kh * kw;
        float *yo = y + (b * m + oc) * oh * ow;
        for (int64_t r = 0; r < oh; ++r) {
          float *row = yo + r * ow;
          for (int64_t q = 0; q < ow; ++q)
            row[q] = 0;
          for (int64_t ky = 0; ky < kh; ++ky)
            for (int64_t kx = 0; kx < kw; ++kx) {
              const float wv = wk[ky * kw + kx];
              const float *src = pad + (r * sh + ky * dh) * wp + kx * dw;
              if (sw == 1)
                for (int64_t q = 0; q < ow; ++q)
                  row[q] += wv * src[q];
              else
                for (int64_t q = 0; q < ow; ++q)
                  row[q] += wv * src[q * sw];
            }
        }
        Epilogue ep;
        ep.bias = bias ? bias + oc : nullptr;
        ep.residual = z ? z + (b * m + oc) * oh * ow : nullptr;
        ep.act_alpha = act_alpha;
        ep.act_beta = act_beta;
        apply_epilogue<Act>(yo, oh * ow, 1, oh * ow, ep, 0, 0);
      }
    }
}

} // namespace x86
} // namespace onnxc_rt

#endif
