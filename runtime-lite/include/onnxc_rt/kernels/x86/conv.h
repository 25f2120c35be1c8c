// x86 2-D convolution: grouped/dense convolutions as packed GEMMs whose B
// operand is read in place from a zero-padded copy of the input (1x1
// stride-1 ones read the input itself), depthwise ones as a direct kernel
// over a zero-padded copy of each channel. Both take the
// fused epilogue: bias, residual add (the Z of onnx.FusedConv) and an
// activation functor from the reference kernels.
#ifndef ONNXC_RT_X86_CONV_H
#define ONNXC_RT_X86_CONV_H

#include "onnxc_rt/kernels/x86/gemm.h"

namespace onnxc_rt {
namespace x86 {

/// Copies channels [c0, c1) of x (h x w each) into a direct convolution's phase
/// planes (DirectConvShape: channel c's phase (ry, rx) at
/// ((c * sh + ry) * sw + rx) * hq * wq), zeros where they overhang the input.
inline void fill_phase_planes(const float *x, int64_t c0, int64_t c1, int64_t h, int64_t w,
                              const DirectConvShape &d, int64_t sh, int64_t sw, int64_t ph,
                              int64_t pw, float *planes) {
  // Plane columns [b0, b1) of phase rx hold input columns b * sw + rx - pw.
  auto first_at_least = [&](int64_t rx, int64_t col) {
    const int64_t num = col + pw - rx;
    return num <= 0 ? 0 : min64(d.wq, (num + sw - 1) / sw);
  };
  float *dst = planes + c0 * sh * sw * d.hq * d.wq;
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t ry = 0; ry < sh; ++ry)
      for (int64_t rx = 0; rx < sw; ++rx) {
        const int64_t b0 = first_at_least(rx, 0), b1 = first_at_least(rx, w);
        for (int64_t a = 0; a < d.hq; ++a, dst += d.wq) {
          const int64_t ih = a * sh + ry - ph;
          if (ih < 0 || ih >= h) {
            for (int64_t b = 0; b < d.wq; ++b)
              dst[b] = 0.0f;
            continue;
          }
          const float *row = x + (c * h + ih) * w;
          for (int64_t b = 0; b < b0; ++b)
            dst[b] = 0.0f;
          for (int64_t b = b0; b < b1; ++b)
            dst[b] = row[b * sw + rx - pw];
          for (int64_t b = b1; b < d.wq; ++b)
            dst[b] = 0.0f;
        }
      }
}

/// Rows [i0, i1) x virtual columns [q0, q1) of one group of a convolution
/// computed directly (no im2col) from its filled phase planes: the GEMM
/// loops, with B's rows read in place at per-row offsets (OffsetSliver)
/// into a block of virtual output columns (`vout`), which is then stored to
/// Y without its dropped columns, the epilogue applied on the way. i0 is a
/// multiple of kGemmMR. `work` holds the A block packed at run time and
/// vout (direct_conv_task_scratch).
template <typename Act>
void conv2d_direct(const float *planes, const Matrix &wm, const float *wp, float *yg,
                   int64_t cg, int64_t mg, int64_t oh, int64_t ow, const int64_t *kernel,
                   const int64_t *strides, const int64_t *dilations, const Epilogue &ep,
                   int64_t i0, int64_t i1, int64_t q0, int64_t q1, float *work) {
  const int64_t kh = kernel[0], kw = kernel[1], sh = strides[0], sw = strides[1];
  const int64_t dh = dilations[0], dw = dilations[1], taps = kh * kw, k = cg * taps;
  const DirectConvShape d = direct_conv_shape(oh, ow, kh, kw, sh, sw, dh, dw);
  const int64_t plane = d.hq * d.wq, npix = oh * ow;
  const DirectConvTaskScratch layout = direct_conv_task_scratch(mg, k, d);
  float *pa = work;
  float *vout = pa + layout.packed_a_block;
  const int64_t ldv = layout.vout_ld;
  int64_t offsets[kGemmKC];
  for (int64_t jc = q0; jc < q1; jc += kGemmNC) {
    const int64_t nc = min64(kGemmNC, q1 - jc);
    for (int64_t pc = 0; pc < k; pc += kGemmKC) {
      const int64_t kc = min64(kGemmKC, k - pc);
      // Row p = (c, ky, kx) of the implicit im2col, stepped rather than
      // divided per row (these offsets are per-call overhead: small
      // convolutions feel it); stride 1 needs no phase arithmetic either.
      int64_t c = pc / taps, ky = pc % taps / kw, kx = pc % kw;
      for (int64_t p = 0; p < kc; ++p) {
        const int64_t ey = ky * dh, ex = kx * dw;
        offsets[p] = sh == 1 && sw == 1
                         ? c * plane + ey * d.wq + ex
                         : ((c * sh + ey % sh) * sw + ex % sw) * plane + ey / sh * d.wq +
                               ex / sw;
        if (++kx == kw) {
          kx = 0;
          if (++ky == kh) {
            ky = 0;
            ++c;
          }
        }
      }
      for (int64_t ic = i0; ic < i1; ic += kGemmMC) {
        const int64_t mc = min64(kGemmMC, i1 - ic);
        const ABlock ab = a_block(wm, wp, k, ic, mc, pc, kc, pa);
        // Whole register tiles: vout has rows to a multiple of kGemmMR (A's
        // panels are zero past mg) and columns to a multiple of kNR.
        for (int64_t ir = 0; ir < mc; ir += kGemmMR)
          for (int64_t jr = 0; jr < nc; jr += kNR)
            micro_tile<ref::Identity>(kc, ab.panel(ir), OffsetSliver{planes + jc + jr, offsets},
                                      vout + (ic - i0 + ir) * ldv + jr, ldv, kGemmMR, kNR,
                                      pc > 0, nullptr, 0, 0);
      }
    }
    // Virtual column q is output pixel (q / wq, q % wq) when q % wq < ow.
    for (int64_t i = i0; i < i1; ++i)
      for (int64_t q = jc; q < jc + nc;) {
        const int64_t oy = q / d.wq, ox = q % d.wq;
        if (ox >= ow) {
          q += d.wq - ox;
          continue;
        }
        const int64_t len = min64(ow - ox, jc + nc - q);
        store_with_epilogue<Act>(vout + (i - i0) * ldv + (q - jc),
                                 yg + i * npix + oy * ow + ox, len, ep, i, oy * ow + ox);
        q += len;
      }
  }
}

/// Y = Act(conv(X, W) + B + Z) for NCHW X (n, c, h, w), W (m, c/group, kh,
/// kw); B and Z may be null. `w_packed` (may be null) is W packed per group
/// by pack_a_panels (groups packed_a_floats(m/group, c/group*kh*kw) apart),
/// as the compiler does for constant weights. A pointwise convolution is a
/// GEMM reading X as B; others run directly (conv2d_direct) or, where that
/// would waste too much (conv_is_direct), as a GEMM over an implicit
/// im2col. `tasks` split each group's output (run on `runner`, see
/// parallel.h). Scratch: conv2d_scratch_floats(..., tasks) floats.
template <typename Act>
void conv2d(const float *x, const float *w, const float *w_packed, const float *bias,
            const float *z, float *y,
            const int64_t *in_shape, const int64_t *out_shape, const int64_t *kernel,
            const int64_t *strides, const int64_t *pads_begin, const int64_t *dilations,
            int64_t group, float act_alpha, float act_beta, float *scratch,
            TaskRunner *runner = nullptr, int64_t tasks = 1) {
  const int64_t n = in_shape[0], c = in_shape[1], h = in_shape[2], wd = in_shape[3];
  const int64_t m = out_shape[1], oh = out_shape[2], ow = out_shape[3];
  const int64_t cg = c / group, mg = m / group, kdim = cg * kernel[0] * kernel[1];
  const int64_t npix = oh * ow;
  const bool pointwise = conv_is_pointwise(in_shape, out_shape, kernel, strides, pads_begin);
  const bool direct = !pointwise && conv_is_direct(oh, ow, kernel[0], kernel[1], strides[0],
                                                   strides[1], dilations[0], dilations[1]);
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
      if (pointwise) {
        gemm_tasks<Act>(mg, npix, kdim, wm, wp, Matrix{xg, h * wd, 1}, y + yoff, npix, ep,
                        scratch, runner, tasks);
      } else if (direct) {
        // The planes first (each task a share of the channels), then each
        // task a share of the virtual columns, or of the rows when there are
        // more output channels than columns.
        const DirectConvShape d = direct_conv_shape(oh, ow, kernel[0], kernel[1], strides[0],
                                                    strides[1], dilations[0], dilations[1]);
        float *planes = scratch;
        const int64_t plane_floats = direct_conv_plane_floats(cg, strides[0], strides[1], d);
        const int64_t per_task = direct_conv_task_scratch(mg, kdim, d).floats;
        parallel_for(runner, tasks, [&](int64_t t) {
          const Range r = split_range(cg, 1, tasks, t);
          fill_phase_planes(xg, r.begin, r.end, h, wd, d, strides[0], strides[1],
                            pads_begin[0], pads_begin[1], planes);
        });
        for (int64_t i = plane_floats - kGemmMaxNR; i < plane_floats; ++i)
          planes[i] = 0.0f; // the slack the last slivers read
        parallel_for(runner, tasks, [&](int64_t t) {
          const bool by_columns = d.cols >= mg;
          const Range r = split_range(by_columns ? d.cols : mg, by_columns ? kNR : kGemmMR,
                                      tasks, t);
          if (r.begin < r.end)
            conv2d_direct<Act>(planes, wm, wp, y + yoff, cg, mg, oh, ow, kernel, strides,
                               dilations, ep, by_columns ? 0 : r.begin, by_columns ? mg : r.end,
                               by_columns ? r.begin : 0, by_columns ? r.end : d.cols,
                               scratch + plane_floats + t * per_task);
        });
      } else {
        gemm_tasks<Act>(mg, npix, kdim, wm, wp,
                        Im2col{xg, h, wd, kernel[0], kernel[1], strides[0], strides[1],
                               pads_begin[0], pads_begin[1], dilations[0], dilations[1], ow},
                        y + yoff, npix, ep, scratch, runner, tasks);
      }
    }
}

/// A kRows x kCols tile of one depthwise channel's output vectors: rows
/// [r0, r0 + kRows), vectors [q0, q0 + kCols * kLanes) of each (the last
/// may run past ow: its extra lanes read the next row or the plane's slack
/// and are not stored). kRows * kCols independent FMA chains are in flight;
/// every address is a row pointer plus a constant. Tap t = ky * kw + kx of
/// the vector at padded-plane offset `at` reads at + tap_off[t], a
/// contiguous run. kKH/kKW > 0 fix the kernel size at compile time (3x3,
/// 5x5: the tap loop unrolls), 0 reads it from kh/kw. Each row segment gets
/// the epilogue (`ep`: the channel's bias and residual) as it is stored.
template <typename Act, int kRows, int kCols, int kKH, int kKW>
inline void depthwise_tile(const float *pad, const float *wk, int64_t kh, int64_t kw,
                           const int64_t *tap_off, int64_t r0, int64_t q0,
                           int64_t plane_row_step, int64_t ow, float *yo, const Epilogue &ep) {
  if constexpr (kKH > 0) {
    kh = kKH;
    kw = kKW;
  }
  const float *src[kRows];
  VecF acc[kRows][kCols];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    src[r] = pad + (r0 + r) * plane_row_step + q0;
#pragma GCC unroll 8
    for (int c = 0; c < kCols; ++c)
      acc[r][c] = VecF::zero();
  }
#pragma GCC unroll 5
  for (int64_t ky = 0; ky < kh; ++ky)
#pragma GCC unroll 5
    for (int64_t kx = 0; kx < kw; ++kx) {
      const int64_t off = tap_off[ky * kw + kx];
      const VecF wv = VecF::broadcast(wk[ky * kw + kx]);
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 8
        for (int c = 0; c < kCols; ++c)
          acc[r][c] = VecF::fma(VecF::load(src[r] + off + c * kLanes), wv, acc[r][c]);
    }
  const VecF bias = VecF::broadcast(ep.bias ? ep.bias[0] : 0.0f);
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    float *dst = yo + (r0 + r) * ow + q0;
    const float *res = ep.residual ? ep.residual + (r0 + r) * ow + q0 : nullptr;
#pragma GCC unroll 8
    for (int c = 0; c < kCols; ++c) {
      const int64_t valid = ow - q0 - c * kLanes;
      VecF v = acc[r][c];
      if constexpr (kVectorActivation<Act>) { // the epilogue in registers
        v = VecF::add(v, bias);
        if (res && valid >= kLanes) {
          v = VecF::add(v, VecF::load(res + c * kLanes));
        } else if (res) { // the row's last, partial vector
          alignas(64) float z[kLanes] = {};
          for (int64_t l = 0; l < valid; ++l)
            z[l] = res[c * kLanes + l];
          v = VecF::add(v, VecF::load(z));
        }
        v = vector_activation<Act>(v, ep.act_alpha, ep.act_beta);
      }
      if (valid >= kLanes)
        v.store(dst + c * kLanes);
      else
        v.store_first(dst + c * kLanes, valid);
    }
    if constexpr (!kVectorActivation<Act>)
      apply_epilogue<Act>(dst, 0, 1, min64(kCols * kLanes, ow - q0), ep, 0, (r0 + r) * ow + q0);
  }
}

/// One depthwise output channel (oh x ow) from its padded plane, in tiles
/// of eight vectors shaped to the row width: 1 x 8 vectors on wide rows
/// down to 8 rows x 1 vector on rows of one vector (7- or 14-wide planes).
template <typename Act, int kKH, int kKW>
void depthwise_channel(const float *pad, const float *wk, int64_t kh, int64_t kw,
                       const int64_t *tap_off, int64_t plane_row_step, int64_t oh, int64_t ow,
                       float *yo, const Epilogue &ep) {
  const int64_t nq = (ow + kLanes - 1) / kLanes; // vectors per output row
  auto rows = [&](auto rows_c, auto cols_c) {
    constexpr int R = decltype(rows_c)::value, C = decltype(cols_c)::value;
    int64_t r = 0;
    for (; r + R <= oh; r += R) {
      int64_t qi = 0;
      for (; qi + C <= nq; qi += C)
        depthwise_tile<Act, R, C, kKH, kKW>(pad, wk, kh, kw, tap_off, r, qi * kLanes,
                                            plane_row_step, ow, yo, ep);
      for (; qi < nq; ++qi)
        depthwise_tile<Act, R, 1, kKH, kKW>(pad, wk, kh, kw, tap_off, r, qi * kLanes,
                                            plane_row_step, ow, yo, ep);
    }
    for (; r < oh; ++r)
      for (int64_t qi = 0; qi < nq; ++qi)
        depthwise_tile<Act, 1, 1, kKH, kKW>(pad, wk, kh, kw, tap_off, r, qi * kLanes,
                                            plane_row_step, ow, yo, ep);
  };
  using I1 = std::integral_constant<int, 1>;
  using I2 = std::integral_constant<int, 2>;
  using I4 = std::integral_constant<int, 4>;
  using I8 = std::integral_constant<int, 8>;
  if (nq >= 8)
    rows(I1{}, I8{});
  else if (nq >= 4)
    rows(I2{}, I4{});
  else if (nq >= 2)
    rows(I4{}, I2{});
  else
    rows(I8{}, I1{});
}

/// Depthwise convolution (group == c, m = c * multiplier): each output
/// channel sees one input channel. Each channel is copied once into a
/// zero-padded plane (stride-2 planes split into even and odd columns), so
/// every kernel tap reads a contiguous run; outputs are computed a vector at
/// a time, several vectors interleaved, each accumulated in a register over
/// all taps. Other strides take a scalar path. `tasks` split the channels
/// (run on `runner`, see parallel.h), each with its own plane. Scratch:
/// tasks * depthwise_scratch_floats(...) floats.
template <typename Act>
void depthwise_conv2d(const float *x, const float *w, const float *bias, const float *z,
                      float *y, const int64_t *in_shape, const int64_t *out_shape,
                      const int64_t *kernel, const int64_t *strides, const int64_t *pads_begin,
                      const int64_t *dilations, float act_alpha, float act_beta,
                      float *scratch, TaskRunner *runner = nullptr, int64_t tasks = 1) {
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
  auto tap_offset = [&](int64_t ky, int64_t kx) {
    return ky * dh * row_len + (split ? (kx & 1) * wq + (kx >> 1) : kx * dw);
  };
  // The vector path reads tap offsets from a table (kernels of up to
  // kMaxTaps taps; larger ones take the scalar path).
  constexpr int64_t kMaxTaps = 64;
  int64_t tap_off[kMaxTaps];
  const bool vectorised = (sw == 1 || split) && kh * kw <= kMaxTaps;
  if (vectorised)
    for (int64_t ky = 0; ky < kh; ++ky)
      for (int64_t kx = 0; kx < kw; ++kx)
        tap_off[ky * kw + kx] = tap_offset(ky, kx);
  const int64_t per_task = depthwise_scratch_floats(oh, ow, kh, kw, sh, sw, dh, dw);
  parallel_for(runner, tasks, [&](int64_t task) {
    float *pad = scratch + task * per_task;
    // The slack past the plane that the last row's partial vectors read.
    for (int64_t t = hp * row_len; t < hp * row_len + kLanes; ++t)
      pad[t] = 0.0f;
    const Range planes = split_range(n * c, 1, tasks, task);
    for (int64_t bc = planes.begin; bc < planes.end; ++bc) {
      const int64_t b = bc / c, ch = bc % c;
      const float *plane = x + bc * h * wd;
      for (int64_t r = 0; r < hp; ++r) {
        const int64_t ih = r - pads_begin[0];
        float *dst = pad + r * row_len;
        // Zero the row, then copy the input over it. Whole vectors: the last
        // may run into the next row (filled after this one) or the slack.
        for (int64_t q = 0; q < row_len; q += kLanes)
          VecF::zero().store(dst + q);
        if (ih < 0 || ih >= h)
          continue;
        const int64_t q0 = pads_begin[1] > 0 ? pads_begin[1] : 0;
        const int64_t q1 = min64(wp, pads_begin[1] + wd);
        const float *src = plane + ih * wd - pads_begin[1];
        if (split) {
          // Padded column q goes to half q & 1 at q >> 1. Input columns are
          // deinterleaved a vector pair at a time: the even ones land in
          // half pb & 1, the odd ones in the other.
          const int64_t pb = pads_begin[1], cols = q1 - pb;
          float *even = dst + (pb & 1) * wq + (pb >> 1);
          float *odd = dst + (1 - (pb & 1)) * wq + ((pb + 1) >> 1);
          int64_t i = 0;
          for (; i + 2 * kLanes <= cols; i += 2 * kLanes)
            VecF::deinterleave(src + pb + i, even + i / 2, odd + i / 2);
          for (int64_t q = pb + i; q < q1; ++q)
            dst[(q & 1) * wq + (q >> 1)] = src[q];
        } else {
          int64_t q = q0;
          for (; q + kLanes <= q1; q += kLanes)
            VecF::load(src + q).store(dst + q);
          for (; q < q1; ++q)
            dst[q] = src[q];
        }
      }
      for (int64_t mo = 0; mo < mult; ++mo) {
        const int64_t oc = ch * mult + mo;
        const float *wk = w + oc * kh * kw;
        float *yo = y + (b * m + oc) * oh * ow;
        Epilogue ep; // the channel's: bias[oc] and its plane of the residual
        ep.bias = bias ? bias + oc : nullptr;
        ep.residual = z ? z + (b * m + oc) * oh * ow : nullptr;
        ep.act_alpha = act_alpha;
        ep.act_beta = act_beta;
        if (vectorised) {
          const int64_t step = sh * row_len;
          if (kh == 3 && kw == 3)
            depthwise_channel<Act, 3, 3>(pad, wk, kh, kw, tap_off, step, oh, ow, yo, ep);
          else if (kh == 5 && kw == 5)
            depthwise_channel<Act, 5, 5>(pad, wk, kh, kw, tap_off, step, oh, ow, yo, ep);
          else
            depthwise_channel<Act, 0, 0>(pad, wk, kh, kw, tap_off, step, oh, ow, yo, ep);
        } else {
          for (int64_t r = 0; r < oh; ++r)
            for (int64_t q = 0; q < ow; ++q) {
              const float *at = pad + r * sh * row_len + q * sw;
              float acc = 0;
              for (int64_t ky = 0; ky < kh; ++ky)
                for (int64_t kx = 0; kx < kw; ++kx)
                  acc += wk[ky * kw + kx] * at[tap_offset(ky, kx)];
              yo[r * ow + q] = acc;
            }
          apply_epilogue<Act>(yo, oh * ow, 1, oh * ow, ep, 0, 0);
        }
      }
    }
  });
}

/// 2-D max pooling without indices. Each output row takes the maximum down
/// the window's in-bounds input rows first (a vector loop into a stack row),
/// then across the window's columns of that row. Within a column or a row
/// the first element starts the maximum and only a greater one replaces it,
/// as ref::max_pool does over the whole window; the two orders agree except
/// where a window holds a NaN.
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
  // Column maxima of up to kChunk input columns at a time: the output
  // columns of a chunk are those whose windows fit in it.
  constexpr int64_t kChunk = 1024;
  const int64_t span = (kw - 1) * dw + 1;
  const int64_t per_chunk = span > kChunk ? 1 : (kChunk - span) / sw + 1;
  T colmax[kChunk];
  for (int64_t p = 0; p < planes; ++p) {
    const T *plane = x + p * h * wd;
    T *out = y + p * oh * ow;
    for (int64_t r = 0; r < oh; ++r) {
      const int64_t h0 = r * sh - pads_begin[0];
      const int64_t ky0 = first_tap(h0, dh), ky1 = end_tap(h0, dh, kh, h);
      for (int64_t qa = 0; qa < ow; qa += per_chunk) {
        const int64_t qb = min64(ow, qa + per_chunk);
        // Input columns [c0, c1) under the chunk's windows, clipped.
        const int64_t c0 = qa * sw - pads_begin[1] > 0 ? qa * sw - pads_begin[1] : 0;
        const int64_t c1 = min64(wd, (qb - 1) * sw - pads_begin[1] + span);
        if (span > kChunk || ky0 >= ky1 || c1 <= c0) { // rare: no stack row
          for (int64_t q = qa; q < qb; ++q) {
            const int64_t w0 = q * sw - pads_begin[1];
            const int64_t kx0 = first_tap(w0, dw), kx1 = end_tap(w0, dw, kw, wd);
            bool found = false;
            T best = T(0);
            for (int64_t ky = ky0; ky < ky1; ++ky)
              for (int64_t kx = kx0; kx < kx1; ++kx) {
                const T v = plane[(h0 + ky * dh) * wd + w0 + kx * dw];
                if (!found || v > best) {
                  best = v;
                  found = true;
                }
              }
            out[r * ow + q] = best;
          }
          continue;
        }
        const int64_t cols = c1 - c0;
        const T *first = plane + (h0 + ky0 * dh) * wd + c0;
        for (int64_t i = 0; i < cols; ++i)
          colmax[i] = first[i];
        for (int64_t ky = ky0 + 1; ky < ky1; ++ky) {
          const T *row = plane + (h0 + ky * dh) * wd + c0;
          for (int64_t i = 0; i < cols; ++i)
            colmax[i] = row[i] > colmax[i] ? row[i] : colmax[i];
        }
        for (int64_t q = qa; q < qb; ++q) {
          const int64_t w0 = q * sw - pads_begin[1];
          const int64_t kx0 = first_tap(w0, dw), kx1 = end_tap(w0, dw, kw, wd);
          const T *cm = colmax + (w0 - c0);
          T best = kx0 < kx1 ? cm[kx0 * dw] : T(0);
          for (int64_t kx = kx0 + 1; kx < kx1; ++kx)
            best = cm[kx * dw] > best ? cm[kx * dw] : best;
          out[r * ow + q] = best;
        }
      }
    }
  }
}

} // namespace x86
} // namespace onnxc_rt

#endif
