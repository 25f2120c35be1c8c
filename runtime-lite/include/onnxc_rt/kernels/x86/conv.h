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
/// kw); B and Z may be null. `w_packed` (may be null) is W packed per group
/// by pack_a_panels (groups packed_a_floats(m/group, c/group*kh*kw) apart),
/// as the compiler does for constant weights. Scratch:
/// gemm_scratch_floats(m/group, oh*ow, c/group*kh*kw) floats.
template <typename Act>
void conv2d(const float *x, const float *w, const float *w_packed, const float *bias,
            const float *z, float *y,
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
      const float *wp = w_packed ? w_packed + g * packed_a_floats(mg, kdim) : nullptr;
      if (pointwise)
        gemm_packed<Act>(mg, npix, kdim, wm, wp, Matrix{xg, h * wd, 1}, y + yoff, npix, ep,
                         scratch);
      else
        gemm_packed<Act>(mg, npix, kdim, wm, wp,
                         Im2col{xg, h, wd, kernel[0], kernel[1], strides[0], strides[1],
                                pads_begin[0], pads_begin[1], dilations[0], dilations[1], ow},
                         y + yoff, npix, ep, scratch);
    }
}

/// Depthwise convolution (group == c, m = c * multiplier): each output
/// channel sees one input channel. Each channel is copied once into a
/// zero-padded plane (stride-2 planes split into even and odd columns), so
/// every kernel tap reads a contiguous run and each vector of outputs is
/// accumulated in a register over all taps. Scratch:
/// depthwise_scratch_floats(...) floats.
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
  // Stride 1: one plane; stride 2 (no dilation): even columns then odd ones
  // per row, each wq wide; other strides read the plane with a stride.
  const bool split = sw == 2 && dw == 1;
  const int64_t wq = split ? (wp + 1) / 2 : wp, row_len = split ? 2 * wq : wp;
  float *pad = scratch;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      const float *plane = x + (b * c + ch) * h * wd;
      for (int64_t r = 0; r < hp; ++r) {
        const int64_t ih = r - pads_begin[0];
        float *dst = pad + r * row_len;
        for (int64_t q = 0; q < row_len; ++q)
          dst[q] = 0.0f;
        if (ih < 0 || ih >= h)
          continue;
        const int64_t q0 = pads_begin[1] > 0 ? pads_begin[1] : 0;
        const int64_t q1 = min64(wp, pads_begin[1] + wd);
        const float *src = plane + ih * wd - pads_begin[1];
        if (split)
          for (int64_t q = q0; q < q1; ++q)
            dst[(q & 1) * wq + (q >> 1)] = src[q];
        else
          for (int64_t q = q0; q < q1; ++q)
            dst[q] = src[q];
      }
      for (int64_t t = hp * row_len; t < hp * row_len + kLanes; ++t)
        pad[t] = 0.0f; // slack the flat stride-1 sweep may read
      for (int64_t mo = 0; mo < mult; ++mo) {
        const int64_t oc = ch * mult + mo;
        const float *wk = w + oc * kh * kw;
        float *yo = y + (b * m + oc) * oh * ow;
        if (sw == 1 && sh == 1) {
          // Stride 1: sweep the plane flat. Output (r, q) is flat index
          // t = r * wp + q of a grid as wide as the plane, whose taps are all
          // at t + constant offsets; the columns q >= ow are computed and
          // dropped, which keeps narrow (7- or 14-wide) planes in vectors.
          float *grid = yo; // rows written in place, left to right, below
          const int64_t total = (oh - 1) * wp + ow;
          for (int64_t t0 = 0; t0 < total; t0 += kLanes) {
            VecF acc = VecF::zero();
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx)
                acc = VecF::fma(VecF::load(pad + t0 + ky * dh * wp + kx * dw),
                                VecF::broadcast(wk[ky * kw + kx]), acc);
            alignas(64) float lanes[kLanes];
            acc.store(lanes);
            for (int64_t l = 0; l < kLanes && t0 + l < total; ++l) {
              const int64_t r = (t0 + l) / wp, q = (t0 + l) % wp;
              if (q < ow)
                grid[r * ow + q] = lanes[l];
            }
          }
        } else {
          for (int64_t r = 0; r < oh; ++r) {
            float *row = yo + r * ow;
            // Where tap (ky, kx) reads for output column 0, and the column step.
            auto tap = [&](int64_t ky, int64_t kx) {
              const float *src = pad + (r * sh + ky * dh) * row_len;
              return split ? src + (kx & 1) * wq + (kx >> 1) : src + kx * dw;
            };
            const int64_t step = split ? 1 : sw;
            int64_t q = 0;
            if (step == 1)
              for (; q + kLanes <= ow; q += kLanes) {
                VecF acc = VecF::zero();
                for (int64_t ky = 0; ky < kh; ++ky)
                  for (int64_t kx = 0; kx < kw; ++kx)
                    acc = VecF::fma(VecF::load(tap(ky, kx) + q),
                                    VecF::broadcast(wk[ky * kw + kx]), acc);
                acc.store(row + q);
              }
            for (; q < ow; ++q) {
              float acc = 0;
              for (int64_t ky = 0; ky < kh; ++ky)
                for (int64_t kx = 0; kx < kw; ++kx)
                  acc += wk[ky * kw + kx] * tap(ky, kx)[q * step];
              row[q] = acc;
            }
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

/// 2-D max pooling without indices, as ref::max_pool: the first in-window
/// element starts the maximum and only a greater one replaces it. The
/// window's in-bounds rows and columns are clipped once per output, so the
/// inner loops carry no bounds checks.
template <typename T>
void max_pool2d(const T *x, T *y, const int64_t *in_shape, const int64_t *out_shape,
                const int64_t *kernel, const int64_t *strides, const int64_t *pads_begin,
                const int64_t *dilations) {
  const int64_t planes = in_shape[0] * in_shape[1], h = in_shape[2], wd = in_shape[3];
  const int64_t oh = out_shape[2], ow = out_shape[3];
  const int64_t kh = kernel[0], kw = kernel[1], sh = strides[0], sw = strides[1];
  const int64_t dh = dilations[0], dw = dilations[1];
  // First tap index at or after 0 / count of taps inside [0, extent).
  auto first_tap = [](int64_t start, int64_t d) { return start >= 0 ? 0 : (-start + d - 1) / d; };
  auto end_tap = [](int64_t start, int64_t d, int64_t k, int64_t extent) {
    const int64_t last = extent - 1 - start; // largest in-bounds offset
    return last < 0 ? 0 : min64(k, last / d + 1);
  };
  for (int64_t p = 0; p < planes; ++p) {
    const T *plane = x + p * h * wd;
    T *out = y + p * oh * ow;
    for (int64_t r = 0; r < oh; ++r) {
      const int64_t h0 = r * sh - pads_begin[0];
      const int64_t ky0 = first_tap(h0, dh), ky1 = end_tap(h0, dh, kh, h);
      for (int64_t q = 0; q < ow; ++q) {
        const int64_t w0 = q * sw - pads_begin[1];
        const int64_t kx0 = first_tap(w0, dw), kx1 = end_tap(w0, dw, kw, wd);
        bool found = false;
        T best = T(0);
        for (int64_t ky = ky0; ky < ky1; ++ky) {
          const T *row = plane + (h0 + ky * dh) * wd + w0;
          for (int64_t kx = kx0; kx < kx1; ++kx) {
            const T v = row[kx * dw];
            if (!found || v > best) {
              best = v;
              found = true;
            }
          }
        }
        out[r * ow + q] = best;
      }
    }
  }
}

} // namespace x86
} // namespace onnxc_rt

#endif
