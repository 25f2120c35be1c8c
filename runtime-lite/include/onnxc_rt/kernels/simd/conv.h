// SIMD 2-D convolution: grouped/dense convolutions as packed GEMMs whose B
// operand is read in place from a zero-padded copy of the input (1x1
// stride-1 ones read the input itself) or, on small planes, as pixel-major
// GEMMs whose rows are output pixels read in place; depthwise ones as a
// direct kernel over a zero-padded copy of each channel. All take the
// fused epilogue: bias, residual add (the Z of onnx.FusedConv) and an
// activation functor from the reference kernels.
#ifndef ONNXC_RT_SIMD_CONV_H
#define ONNXC_RT_SIMD_CONV_H

#include "onnxc_rt/kernels/simd/gemm.h"

namespace onnxc_rt {
namespace simd {

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

/// dst[j] = src[(j - j0) * step] for j in [j0, j0 + count), zero for the
/// rest of [0, width) (step 1, or 2: every other float). Whole vectors: the
/// zeros may run up to a vector past width, into what the caller writes
/// next; loads read nothing past the count elements taken.
inline void fill_padded_run(float *dst, int64_t width, int64_t j0, int64_t count,
                            const float *src, int64_t step) {
  for (int64_t j = 0; j < j0; j += kLanes) // the data overwrites what runs past j0
    VecF::zero().store(dst + j);
  // Whole vectors while another follows (so a step-2 load of 2 * kLanes
  // floats stays inside the run), then the last one masked.
  int64_t t = 0;
  for (; t + kLanes < count; t += kLanes) {
    if (step == 1) {
      VecF::load(src + t).store(dst + j0 + t);
    } else {
      VecF even, odd;
      VecF::deinterleave(VecF::load(src + 2 * t), VecF::load(src + 2 * t + kLanes), even, odd);
      even.store(dst + j0 + t);
    }
  }
  if (t < count) {
    const int64_t n = count - t;
    VecF v;
    if (step == 1) {
      v = VecF::load_first(src + t, n);
    } else { // the even lanes of the 2n - 1 floats from src[2t]
      const int64_t floats = 2 * n - 1;
      const float *at = src + 2 * t;
      const VecF a = floats >= kLanes ? VecF::load(at) : VecF::load_first(at, floats);
      const VecF b = floats > kLanes ? VecF::load_first(at + kLanes, floats - kLanes)
                                     : VecF::zero();
      VecF odd;
      VecF::deinterleave(a, b, v, odd);
    }
    v.store_first(dst + j0 + t, n);
  }
  for (int64_t j = j0 + (count > 0 ? count : 0); j < width; j += kLanes)
    VecF::zero().store(dst + j);
}

/// Copies one input channel (h x wd) into its zero-padded plane: hp rows of
/// row_len floats, padded column q of row r holding input (r - pt, q - pl);
/// a split plane (stride 2) holds a row's even padded columns, then from wq
/// on its odd ones. Each float is written once (padding zeros and data), a
/// whole vector at a time; input columns past the padded width wp (which
/// no output reads) are left out.
inline void fill_padded_plane(const float *src, int64_t h, int64_t wd, int64_t pt, int64_t pl,
                              int64_t hp, int64_t wp, int64_t row_len, int64_t wq, bool split,
                              float *pad) {
  const int64_t cols = min64(wd, wp - pl);
  // Rows in order: a row's trailing zeros may run into the next row.
  for (int64_t r = 0; r < hp; ++r) {
    float *dst = pad + r * row_len;
    const int64_t ih = r - pt;
    if (ih < 0 || ih >= h || cols <= 0) {
      fill_padded_run(dst, row_len, 0, 0, nullptr, 1);
      continue;
    }
    const float *row = src + ih * wd;
    if (!split) {
      fill_padded_run(dst, row_len, pl, cols, row, 1);
      continue;
    }
    // Half hf holds padded columns 2j + hf: its data starts at the first j
    // with 2j + hf >= pl, input column s = 2 * j0 + hf - pl (0 or 1). The
    // even half first: its trailing zeros may run into the odd one.
    for (int64_t hf = 0; hf < 2; ++hf) {
      const int64_t j0 = (pl - hf + 1) / 2, s = 2 * j0 + hf - pl;
      const int64_t count = min64(wq - j0, (cols - s + 1) / 2);
      fill_padded_run(dst + hf * wq, wq, j0, count, row + s, 2);
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
        const ABlock<kGemmMR> ab = a_block<kGemmMR>(wm, wp, k, ic, mc, pc, kc, pa);
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

/// acc[r] += lane L of a[r] x the weight row at b (kVecs vectors).
template <int L, int kVecs>
ONNXC_RT_SIMD_INLINE void window_lane_step(const VecF (&a)[kGemmMR], const float *b,
                                          VecF (&acc)[kGemmMR][2]) {
  const VecF b0 = VecF::load(b);
  const VecF b1 = kVecs == 2 ? VecF::load(b + kLanes) : b0;
  for (int r = 0; r < kGemmMR; ++r) {
    acc[r][0] = VecF::template fma_lane<L>(a[r], b0, acc[r][0]);
    if constexpr (kVecs == 2)
      acc[r][1] = VecF::template fma_lane<L>(a[r], b1, acc[r][1]);
  }
}

/// One register tile of a convolution whose windows are read in place: kGemmMR
/// output pixels (the windows at px[r]: lane l of channel step u at tap t at
/// px[r] + u * ustride + tap_off[t] + l) by kVecs vectors of output
/// channels (packed weight row p at b + p * kPixelMajorBlock), summed over
/// all channel steps, taps and lanes. kL: lanes per channel step (1 for an
/// NCHW input, 16 for a channel-blocked one); kTaps: the tap count if fixed
/// (1, 9), else 0 (`taps`). The pixel-major and the blocked convolutions'
/// tile.
template <int kL, int kTaps, int kVecs>
ONNXC_RT_SIMD_INLINE void window_tile(const float *const (&px)[kGemmMR], const int64_t *tap_off,
                                     int64_t taps, int64_t units, int64_t ustride,
                                     const float *b, VecF (&acc)[kGemmMR][2]) {
  if constexpr (kTaps > 0)
    taps = kTaps;
  const float *at[kGemmMR];
  for (int r = 0; r < kGemmMR; ++r) {
    acc[r][0] = acc[r][1] = VecF::zero();
    at[r] = px[r];
  }
  if constexpr (VecF::kLaneFma && kL % 4 == 0) {
    // Four lanes of each pixel's input in one load, each used by FMLA by
    // element: a load per pixel per 4 lanes instead of one per lane. (The
    // sums in a local array: GCC otherwise stores acc back every step.)
    VecF sum[kGemmMR][2];
    for (int r = 0; r < kGemmMR; ++r)
      sum[r][0] = sum[r][1] = VecF::zero();
    for (int64_t u = 0; u < units; ++u) {
#pragma GCC unroll 9
      for (int64_t t = 0; t < taps; ++t) {
        const int64_t off = tap_off[t];
        for (int l = 0; l < kL; l += 4) {
          VecF a[kGemmMR];
          for (int r = 0; r < kGemmMR; ++r)
            a[r] = VecF::load(at[r] + off + l);
          window_lane_step<0, kVecs>(a, b, sum);
          window_lane_step<1, kVecs>(a, b + kPixelMajorBlock, sum);
          window_lane_step<2, kVecs>(a, b + 2 * kPixelMajorBlock, sum);
          window_lane_step<3, kVecs>(a, b + 3 * kPixelMajorBlock, sum);
          b += 4 * kPixelMajorBlock;
        }
      }
      for (int r = 0; r < kGemmMR; ++r)
        at[r] += ustride;
    }
    for (int r = 0; r < kGemmMR; ++r)
      acc[r][0] = sum[r][0], acc[r][1] = sum[r][1];
    return;
  }
  for (int64_t u = 0; u < units; ++u) {
#pragma GCC unroll 9
    for (int64_t t = 0; t < taps; ++t) {
      const int64_t off = tap_off[t];
#pragma GCC unroll 16
      for (int l = 0; l < kL; ++l) {
        const VecF b0 = VecF::load(b);
        const VecF b1 = kVecs == 2 ? VecF::load(b + kLanes) : b0;
        b += kPixelMajorBlock;
#pragma GCC unroll 6
        for (int r = 0; r < kGemmMR; ++r) {
          const VecF a = VecF::broadcast(at[r][off + l]);
          acc[r][0] = VecF::fma(a, b0, acc[r][0]);
          if constexpr (kVecs == 2)
            acc[r][1] = VecF::fma(a, b1, acc[r][1]);
        }
      }
    }
    for (int r = 0; r < kGemmMR; ++r)
      at[r] += ustride;
  }
}

/// A pixel-major tile (window_tile over an NCHW input, tap t of channel c at
/// px[r] + c * cstride + tap_off[t]) stored pixel by pixel to `out` (rows
/// kNR apart).
template <int kTaps>
ONNXC_RT_SIMD_INLINE void pixel_major_tile(const float *const (&px)[kGemmMR],
                                          const int64_t *tap_off, int64_t taps, int64_t cg,
                                          int64_t cstride, const float *b, float *out) {
  VecF acc[kGemmMR][2];
  window_tile<1, kTaps, 2>(px, tap_off, taps, cg, cstride, b, acc);
  for (int r = 0; r < kGemmMR; ++r) {
    acc[r][0].store(out + r * kNR);
    acc[r][1].store(out + r * kNR + kLanes);
  }
}

/// Stores output channels [j0, j0 + kNR) (those below mg) of pixels [p0,
/// p1) from a pixel-major stage (row p - p0: pixel p's kNR channels; rows
/// to a whole vector past p1 readable) to the channel-major output yg,
/// transposing a kLanes x kLanes block at a time, the epilogue on the way.
template <typename Act>
inline void store_pixel_major(const float *stage, int64_t p0, int64_t p1, int64_t j0,
                              int64_t mg, int64_t npix, float *yg, const Epilogue &ep) {
  alignas(64) float row[kLanes];
  for (int64_t pb = p0; pb < p1; pb += kLanes) {
    const int64_t lanes = min64(kLanes, p1 - pb);
    for (int64_t half = 0; half < 2 && j0 + half * kLanes < mg; ++half) {
      VecF v[kLanes];
      for (int i = 0; i < kLanes; ++i)
        v[i] = VecF::load(stage + (pb - p0 + i) * kNR + half * kLanes);
      VecF::transpose(v);
      const int64_t jb = j0 + half * kLanes, nj = min64(kLanes, mg - jb);
      for (int64_t j = 0; j < nj; ++j) { // channel jb + j's run of pixels from pb
        v[j].store(row);
        store_with_epilogue<Act>(row, yg + (jb + j) * npix + pb, lanes, ep, jb + j, pb);
      }
    }
  }
}

/// Output channels [j0, j0 + kNR) x pixels [p0, p1) of one group of a
/// pixel-major convolution (conv_is_pixel_major): the register tiles run
/// over the pixels a kGemmMR at a time (the last tile's missing pixels
/// repeat the last pixel), into the stage, which is then stored. `src` is
/// the input (or its padded copy: PixelMajorInput) with rows row_w wide,
/// `wt` the group's packed weights (pack_conv_weights).
template <typename Act>
void conv2d_pixel_major(const float *src, int64_t row_w, int64_t cstride, const int64_t *tap_off,
                        int64_t taps, int64_t cg, const float *wt, float *yg, int64_t mg,
                        int64_t ow, int64_t npix, int64_t sh, int64_t sw, const Epilogue &ep,
                        int64_t j0, int64_t p0, int64_t p1, float *stage) {
  const int64_t k = cg * taps;
  const float *b = wt + j0 / kPixelMajorBlock * k * kPixelMajorBlock + j0 % kPixelMajorBlock;
  // Pixel p's window, stepped through the pixels (no division per pixel).
  int64_t ox = p0 % ow;
  const float *at = src + p0 / ow * sh * row_w + ox * sw;
  for (int64_t i0 = p0; i0 < p1; i0 += kGemmMR) {
    const float *px[kGemmMR];
    for (int r = 0; r < kGemmMR; ++r) {
      px[r] = at;
      if (i0 + r + 1 < p1) { // else the last pixel repeats
        at += sw;
        if (++ox == ow) {
          ox = 0;
          at += sh * row_w - ow * sw;
        }
      }
    }
    float *out = stage + (i0 - p0) * kNR;
    if (taps == 1)
      pixel_major_tile<1>(px, tap_off, taps, cg, cstride, b, out);
    else if (taps == 9)
      pixel_major_tile<9>(px, tap_off, taps, cg, cstride, b, out);
    else
      pixel_major_tile<0>(px, tap_off, taps, cg, cstride, b, out);
  }
  store_pixel_major<Act>(stage, p0, p1, j0, mg, npix, yg, ep);
}

/// Y = Act(conv(X, W) + B + Z) for NCHW X (n, c, h, w), W (m, c/group, kh,
/// kw); B and Z may be null. `w_packed` (may be null) is W packed by
/// pack_conv_weights, as the compiler does for constant weights. With it,
/// where conv_is_pixel_major says so, the convolution runs pixel-major
/// (conv2d_pixel_major). Otherwise a pointwise convolution is a GEMM
/// reading X as B; others run directly (conv2d_direct) or, where that
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
  const bool direct =
      conv_is_direct(in_shape, out_shape, kernel, strides, pads_begin, dilations);
  // Pixel-major where chosen and the weights come packed for it.
  const bool pixel_major =
      w_packed &&
      conv_is_pixel_major(in_shape, out_shape, kernel, strides, pads_begin, dilations, group);
  const PixelMajorInput in =
      pixel_major_input(in_shape, out_shape, kernel, strides, pads_begin, dilations);
  const int64_t taps = kernel[0] * kernel[1];
  int64_t tap_off[kPixelMajorMaxTaps];
  if (pixel_major)
    for (int64_t t = 0; t < taps; ++t)
      tap_off[t] = t / kernel[1] * dilations[0] * in.wp + t % kernel[1] * dilations[1];
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
      const float *wp =
          !w_packed ? nullptr
          : pixel_major ? w_packed + g * kdim * round_up(mg, kPixelMajorBlock)
                        : w_packed + g * packed_a_floats(mg, kdim);
      if (pixel_major) {
        // The input's padded copy if it needs one (each task a share of the
        // channels), then each task a share of the (channel tile, pixel
        // chunk) units, a tile's chunks one after another (its weights stay
        // in cache); more chunks where tiles are fewer than tasks.
        const float *src = xg;
        if (in.padded) {
          parallel_for(runner, tasks, [&](int64_t t) {
            const Range r = split_range(cg, 1, tasks, t);
            for (int64_t ch = r.begin; ch < r.end; ++ch)
              fill_padded_plane(xg + ch * h * wd, h, wd, pads_begin[0], pads_begin[1], in.hp,
                                in.wp, in.wp, in.wp, false, scratch + ch * in.cstride);
          });
          src = scratch;
        }
        const int64_t tiles = (mg + kNR - 1) / kNR;
        const int64_t by_size = (npix + kPixelMajorChunk - 1) / kPixelMajorChunk;
        const int64_t by_tasks = (tasks + tiles - 1) / tiles;
        const int64_t chunks = by_size > by_tasks ? by_size : by_tasks;
        const int64_t chunk = round_up((npix + chunks - 1) / chunks, kLanes);
        float *stages = scratch + (in.padded ? cg * in.cstride : 0);
        parallel_for(runner, tasks, [&](int64_t t) {
          float *stage = stages + t * pixel_major_stage_floats(npix);
          // Zeros in the rows past a chunk's last tile that its last
          // transposes read (lanes not stored).
          for (int64_t i = 0; i < round_up(min64(chunk, npix), kLanes) * kNR; ++i)
            stage[i] = 0.0f;
          const Range r = split_range(tiles * chunks, 1, tasks, t);
          for (int64_t u = r.begin; u < r.end; ++u) {
            const int64_t p0 = u % chunks * chunk;
            if (p0 < npix)
              conv2d_pixel_major<Act>(src, in.wp, in.cstride, tap_off, taps, cg, wp, y + yoff,
                                      mg, ow, npix, strides[0], strides[1], ep, u / chunks * kNR,
                                      p0, min64(npix, p0 + chunk), stage);
          }
        });
      } else if (pointwise) {
        gemm_tasks<Act, kGemmMR>(mg, npix, kdim, wm, wp, Matrix{xg, h * wd, 1}, y + yoff, npix,
                                 ep, scratch, runner, tasks);
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
        gemm_tasks<Act, kGemmMR>(mg, npix, kdim, wm, wp,
                                 Im2col{xg, h, wd, kernel[0], kernel[1], strides[0],
                                        strides[1], pads_begin[0], pads_begin[1], dilations[0],
                                        dilations[1], ow},
                                 y + yoff, npix, ep, scratch, runner, tasks);
      }
    }
}

/// Stores a depthwise tile's accumulators (kRows x kCols output vectors of
/// one channel, rows from r0, columns from q0) with the epilogue (`ep`: the
/// channel's bias and its plane of the residual); the last vector of a row
/// may run past ow and is stored in part.
template <typename Act, int kRows, int kCols>
ONNXC_RT_SIMD_INLINE void depthwise_store(VecF (&acc)[kRows][kCols], int64_t r0, int64_t q0,
                                         int64_t ow, float *yo, const Epilogue &ep) {
#pragma GCC unroll 16
  for (int r = 0; r < kRows; ++r) {
    float *dst = yo + (r0 + r) * ow + q0;
    const float *res = ep.residual ? ep.residual + (r0 + r) * ow + q0 : nullptr;
#pragma GCC unroll 8
    for (int c = 0; c < kCols; ++c) {
      const int64_t lanes = min64(kLanes, ow - q0 - c * kLanes);
      VecF v = acc[r][c];
      if constexpr (kVectorActivation<Act>) // the epilogue in registers
        v = epilogue_vector<Act>(v, ep, ep.bias, res ? res + c * kLanes : nullptr, lanes);
      if (lanes == kLanes)
        v.store(dst + c * kLanes);
      else
        v.store_first(dst + c * kLanes, lanes);
    }
    if constexpr (!kVectorActivation<Act>)
      apply_epilogue<Act>(dst, 0, 1, min64(kCols * kLanes, ow - q0), ep, 0, (r0 + r) * ow + q0);
  }
}

/// A kRows x kCols tile of one depthwise channel's output vectors (rows
/// [r0, r0 + kRows), vectors from column q0) for a kKH x kKW kernel at
/// stride kS (1, or 2 on a split plane), no dilation: every address is a
/// row pointer plus a constant, and each input vector is loaded once and
/// feeds every output row of the tile that reads it (kRows + kKH - 1 input
/// rows at stride 1 rather than kRows * kKH). Reads may run past the row
/// (into the next one or the plane's slack); those lanes are not stored.
template <typename Act, int kRows, int kCols, int kKH, int kKW, int kS>
ONNXC_RT_SIMD_INLINE void depthwise_tile(const float *pad, const float *wk, int64_t row_len,
                                        int64_t wq, int64_t r0, int64_t q0, int64_t ow, float *yo,
                                        const Epilogue &ep) {
  constexpr int kInRows = (kRows - 1) * kS + kKH;
  VecF acc[kRows][kCols];
#pragma GCC unroll 16
  for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 8
    for (int c = 0; c < kCols; ++c)
      acc[r][c] = VecF::zero();
  const float *base = pad + r0 * kS * row_len + q0;
#pragma GCC unroll 32
  for (int i = 0; i < kInRows; ++i) {
    const float *in_row = base + i * row_len;
#pragma GCC unroll 8
    for (int kx = 0; kx < kKW; ++kx) {
      // A split plane holds the even padded columns, then (wq on) the odd.
      const float *at = kS == 1 ? in_row + kx : in_row + (kx & 1) * wq + (kx >> 1);
#pragma GCC unroll 8
      for (int c = 0; c < kCols; ++c) {
        const VecF v = VecF::load(at + c * kLanes);
#pragma GCC unroll 16
        for (int r = 0; r < kRows; ++r) {
          const int ky = i - r * kS; // the tap row input row i is to output row r
          if (ky >= 0 && ky < kKH)
            acc[r][c] = VecF::fma(v, VecF::broadcast(wk[ky * kKW + kx]), acc[r][c]);
        }
      }
    }
  }
  depthwise_store<Act>(acc, r0, q0, ow, yo, ep);
}

/// The same tile for any kernel, stride and dilation the plane layout takes
/// (stride 1, or 2 split): tap t = ky * kw + kx of the vector at plane
/// offset `at` reads at + tap_off[t].
template <typename Act, int kRows, int kCols>
inline void depthwise_tile_any(const float *pad, const float *wk, int64_t kh, int64_t kw,
                               const int64_t *tap_off, int64_t r0, int64_t q0,
                               int64_t plane_row_step, int64_t ow, float *yo,
                               const Epilogue &ep) {
  const float *src[kRows];
  VecF acc[kRows][kCols];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    src[r] = pad + (r0 + r) * plane_row_step + q0;
#pragma GCC unroll 8
    for (int c = 0; c < kCols; ++c)
      acc[r][c] = VecF::zero();
  }
  for (int64_t t = 0; t < kh * kw; ++t) {
    const int64_t off = tap_off[t];
    const VecF wv = VecF::broadcast(wk[t]);
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 8
      for (int c = 0; c < kCols; ++c)
        acc[r][c] = VecF::fma(VecF::load(src[r] + off + c * kLanes), wv, acc[r][c]);
  }
  depthwise_store<Act>(acc, r0, q0, ow, yo, ep);
}

/// Covers an oh-row plane of nq output vectors per row with tiles:
/// tile(Rows, Cols, r, q) computes Rows x Cols vectors from row r, vector
/// q. Eight vectors a tile, shaped to the row (1 x 8 on wide rows down to
/// 8 x 1 on rows of one vector); the rows left over take tiles of 4, 2 and
/// 1 rows, the vectors left over tiles of one column.
template <typename Tile>
inline void depthwise_cover(int64_t oh, int64_t nq, const Tile &tile) {
  auto rows = [&](auto rows_c, auto cols_c) {
    constexpr int R = decltype(rows_c)::value, C = decltype(cols_c)::value;
    auto band = [&](auto band_c, int64_t r) {
      constexpr int B = decltype(band_c)::value;
      int64_t qi = 0;
      for (; qi + C <= nq; qi += C)
        tile(std::integral_constant<int, B>{}, std::integral_constant<int, C>{}, r, qi);
      for (; qi < nq; ++qi)
        tile(std::integral_constant<int, B>{}, std::integral_constant<int, 1>{}, r, qi);
    };
    int64_t r = 0;
    for (; r + R <= oh; r += R)
      band(std::integral_constant<int, R>{}, r);
    if constexpr (R >= 8)
      if (oh - r >= 4) {
        band(std::integral_constant<int, 4>{}, r);
        r += 4;
      }
    if constexpr (R >= 4)
      if (oh - r >= 2) {
        band(std::integral_constant<int, 2>{}, r);
        r += 2;
      }
    if constexpr (R >= 2)
      if (oh - r >= 1)
        band(std::integral_constant<int, 1>{}, r);
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

/// Pixels [ox, ox + kPixels) of output row r of a channel-blocked band
/// (see depthwise_block): each tap one vector FMA for all the block's
/// channels, whatever the stride or dilation. kEpilogue: the bias (a vector
/// of the block's channels) and the activation applied in registers.
template <typename Act, bool kEpilogue, int kPixels>
ONNXC_RT_SIMD_INLINE void depthwise_block_pixels(const float *in, const float *wt, int64_t wp,
                                                int64_t kh, int64_t kw, int64_t sh,
                                                int64_t sw, int64_t dh, int64_t dw, int64_t r,
                                                int64_t ox, int64_t ow, VecF bias, float alpha,
                                                float beta, float *out) {
  VecF acc[kPixels];
#pragma GCC unroll 8
  for (int p = 0; p < kPixels; ++p)
    acc[p] = VecF::zero();
  for (int64_t ky = 0; ky < kh; ++ky)
    for (int64_t kx = 0; kx < kw; ++kx) {
      const VecF wv = VecF::load(wt + (ky * kw + kx) * kLanes);
      const float *at = in + ((r * sh + ky * dh) * wp + ox * sw + kx * dw) * kLanes;
#pragma GCC unroll 8
      for (int p = 0; p < kPixels; ++p)
        acc[p] = VecF::fma(VecF::load(at + p * sw * kLanes), wv, acc[p]);
    }
#pragma GCC unroll 8
  for (int p = 0; p < kPixels; ++p) {
    if constexpr (kEpilogue && kVectorActivation<Act>)
      acc[p] = vector_activation<Act>(VecF::add(acc[p], bias), alpha, beta);
    acc[p].store(out + (r * ow + ox + p) * kLanes);
  }
}

/// Depthwise convolution (multiplier 1) of channels [c0, c0 + nc), nc <=
/// kLanes, of one image, channel-blocked: the channels' inputs are
/// transposed into vectors of one pixel's kLanes channels, zero-padded, a
/// band of output rows at a time (depthwise_blocked_shape), so every tap is
/// one vector FMA for the whole block and the lanes stay full however
/// narrow the plane or large the stride; the outputs are transposed back
/// with the epilogue. x, z, y are the image's (z may be null).
template <typename Act>
void depthwise_block(const float *x, const float *w, const float *bias, const float *z,
                     float *y, int64_t h, int64_t wd, int64_t oh, int64_t ow,
                     const int64_t *kernel, const int64_t *strides, const int64_t *pads_begin,
                     const int64_t *dilations, float act_alpha, float act_beta, int64_t c0,
                     int64_t nc, float *scratch) {
  const int64_t kh = kernel[0], kw = kernel[1], sh = strides[0], sw = strides[1];
  const int64_t dh = dilations[0], dw = dilations[1], taps = kh * kw;
  const int64_t pt = pads_begin[0], pl = pads_begin[1];
  const DepthwiseBlocked blk = depthwise_blocked_shape(oh, ow, kh, kw, sh, sw, dh, dw);
  const int64_t wp = blk.in_width;
  float *in = scratch;
  float *out = in + blk.in_rows * wp * kLanes;
  // The block's weights tap by tap, a vector of channels each (the last
  // block's missing channels zero); these are the taps' only loads of W.
  alignas(64) float wt[kDepthwiseMaxTaps * kLanes];
  for (int64_t t = 0; t < taps; ++t)
    for (int64_t j = 0; j < kLanes; ++j)
      wt[t * kLanes + j] = j < nc ? w[(c0 + j) * taps + t] : 0.0f;
  // Without a residual, the epilogue runs on the blocked outputs in
  // registers (bias_v: the block's biases); else on the way back to planes.
  const bool in_registers = kVectorActivation<Act> && !z;
  alignas(64) float bias_lanes[kLanes];
  for (int64_t j = 0; j < kLanes; ++j)
    bias_lanes[j] = bias && j < nc ? bias[c0 + j] : 0.0f;
  const VecF bias_v = VecF::load(bias_lanes);
  const int64_t cols = min64(wd, wp - pl); // input columns any output reads
  for (int64_t r0 = 0; r0 < oh; r0 += blk.band_rows) {
    const int64_t rows = min64(blk.band_rows, oh - r0);
    const int64_t in_rows = (rows - 1) * sh + (kh - 1) * dh + 1;
    // The band's padded input rows: zeros, then the image's columns.
    for (int64_t i = 0; i < in_rows; ++i) {
      float *dst = in + i * wp * kLanes;
      const int64_t ih = r0 * sh - pt + i;
      const bool inside = ih >= 0 && ih < h && cols > 0;
      for (int64_t p = 0; p < wp; ++p)
        if (!inside || p < pl || p >= pl + cols)
          VecF::zero().store(dst + p * kLanes);
      if (!inside)
        continue;
      for (int64_t x0 = 0; x0 < cols; x0 += kLanes) {
        const int64_t n = min64(kLanes, cols - x0);
        VecF v[kLanes];
        for (int64_t j = 0; j < kLanes; ++j) {
          const float *src = x + ((c0 + j) * h + ih) * wd + x0;
          v[j] = j >= nc ? VecF::zero() : n == kLanes ? VecF::load(src) : VecF::load_first(src, n);
        }
        VecF::transpose(v);
        for (int64_t p = 0; p < n; ++p)
          v[p].store(dst + (pl + x0 + p) * kLanes);
      }
    }
    // The band's outputs, eight pixels at a time, then 4, 2, 1.
    auto band = [&](auto epilogue_c) {
      constexpr bool E = decltype(epilogue_c)::value;
      for (int64_t r = 0; r < rows; ++r) {
        int64_t ox = 0;
        for (; ox + 8 <= ow; ox += 8)
          depthwise_block_pixels<Act, E, 8>(in, wt, wp, kh, kw, sh, sw, dh, dw, r, ox, ow,
                                            bias_v, act_alpha, act_beta, out);
        if (ow - ox >= 4) {
          depthwise_block_pixels<Act, E, 4>(in, wt, wp, kh, kw, sh, sw, dh, dw, r, ox, ow,
                                            bias_v, act_alpha, act_beta, out);
          ox += 4;
        }
        if (ow - ox >= 2) {
          depthwise_block_pixels<Act, E, 2>(in, wt, wp, kh, kw, sh, sw, dh, dw, r, ox, ow,
                                            bias_v, act_alpha, act_beta, out);
          ox += 2;
        }
        if (ow - ox >= 1)
          depthwise_block_pixels<Act, E, 1>(in, wt, wp, kh, kw, sh, sw, dh, dw, r, ox, ow,
                                            bias_v, act_alpha, act_beta, out);
      }
    };
    if (in_registers)
      band(std::true_type{});
    else
      band(std::false_type{});
    // Back to planes, kLanes pixels at a time, with the epilogue.
    const int64_t first = r0 * ow, npix = rows * ow;
    for (int64_t p0 = 0; p0 < npix; p0 += kLanes) {
      const int64_t n = min64(kLanes, npix - p0);
      VecF v[kLanes];
      for (int64_t i = 0; i < kLanes; ++i)
        v[i] = i < n ? VecF::load(out + (p0 + i) * kLanes) : VecF::zero();
      VecF::transpose(v);
      if (in_registers) {
        for (int64_t j = 0; j < nc; ++j) {
          float *dst = y + (c0 + j) * oh * ow + first + p0;
          if (n == kLanes)
            v[j].store(dst);
          else
            v[j].store_first(dst, n);
        }
        continue;
      }
      alignas(64) float lanes[kLanes];
      for (int64_t j = 0; j < nc; ++j) {
        Epilogue ep; // channel c0 + j's bias and residual plane
        ep.bias = bias ? bias + c0 + j : nullptr;
        ep.residual = z ? z + (c0 + j) * oh * ow : nullptr;
        ep.act_alpha = act_alpha;
        ep.act_beta = act_beta;
        v[j].store(lanes);
        store_with_epilogue<Act>(lanes, y + (c0 + j) * oh * ow + first + p0, n, ep, 0,
                                 first + p0);
      }
    }
  }
}

/// Depthwise convolution (group == c, m = c * multiplier): each output
/// channel sees one input channel. Where depthwise_is_blocked says so (rows
/// of at most 16 outputs, strides the planes cannot vectorise) a vector's
/// worth of channels at a time runs channel-blocked (depthwise_block).
/// Otherwise each channel is copied once into a zero-padded plane (stride-2
/// planes split into even and odd columns), so every kernel tap reads a
/// contiguous run; outputs are computed a vector at a time in tiles of
/// several vectors (depthwise_cover), each accumulated in a register over
/// all taps. 3x3 and 5x5 kernels at stride 1 or 2 take tiles specialised to
/// them; what neither path vectorises (a multiplier with strides above 2,
/// kernels of more than kDepthwiseMaxTaps taps) takes a scalar path.
/// `tasks` split the channels or channel blocks (run on `runner`, see
/// parallel.h), each with its own scratch. Scratch: tasks *
/// depthwise_scratch_floats(...) floats.
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
  const int64_t per_task = depthwise_scratch_floats(c, m, oh, ow, kh, kw, sh, sw, dh, dw);
  if (depthwise_is_blocked(c, m, ow, kh, kw, sw, dw)) {
    const int64_t blocks = (c + kLanes - 1) / kLanes;
    parallel_for(runner, tasks, [&](int64_t task) {
      const Range r = split_range(n * blocks, 1, tasks, task);
      for (int64_t bb = r.begin; bb < r.end; ++bb) {
        const int64_t b = bb / blocks, c0 = bb % blocks * kLanes;
        depthwise_block<Act>(x + b * c * h * wd, w, bias, z ? z + b * m * oh * ow : nullptr,
                             y + b * m * oh * ow, h, wd, oh, ow, kernel, strides, pads_begin,
                             dilations, act_alpha, act_beta, c0, min64(kLanes, c - c0),
                             scratch + task * per_task);
      }
    });
    return;
  }
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
  // kDepthwiseMaxTaps taps; larger ones take the scalar path).
  int64_t tap_off[kDepthwiseMaxTaps];
  const bool vectorised = (sw == 1 || split) && kh * kw <= kDepthwiseMaxTaps;
  if (vectorised)
    for (int64_t ky = 0; ky < kh; ++ky)
      for (int64_t kx = 0; kx < kw; ++kx)
        tap_off[ky * kw + kx] = tap_offset(ky, kx);
  // The specialised tiles: square 3x3 or 5x5, no dilation, stride 1 or 2.
  const bool fixed = vectorised && kh == kw && (kh == 3 || kh == 5) && dh == 1 && dw == 1 &&
                     sh == sw && (sh == 1 || sh == 2);
  const int64_t nq = (ow + kLanes - 1) / kLanes; // output vectors per row
  parallel_for(runner, tasks, [&](int64_t task) {
    float *pad = scratch + task * per_task;
    // The slack past the plane that the last row's partial vectors read.
    for (int64_t t = hp * row_len; t < hp * row_len + kLanes; ++t)
      pad[t] = 0.0f;
    const Range planes = split_range(n * c, 1, tasks, task);
    for (int64_t bc = planes.begin; bc < planes.end; ++bc) {
      const int64_t b = bc / c, ch = bc % c;
      fill_padded_plane(x + bc * h * wd, h, wd, pads_begin[0], pads_begin[1], hp, wp,
                           row_len, wq, split, pad);
      for (int64_t mo = 0; mo < mult; ++mo) {
        const int64_t oc = ch * mult + mo;
        const float *wk = w + oc * kh * kw;
        float *yo = y + (b * m + oc) * oh * ow;
        Epilogue ep; // the channel's: bias[oc] and its plane of the residual
        ep.bias = bias ? bias + oc : nullptr;
        ep.residual = z ? z + (b * m + oc) * oh * ow : nullptr;
        ep.act_alpha = act_alpha;
        ep.act_beta = act_beta;
        auto fixed_tiles = [&](auto k_c, auto s_c) {
          constexpr int K = decltype(k_c)::value, S = decltype(s_c)::value;
          depthwise_cover(oh, nq, [&](auto rows_c, auto cols_c, int64_t r, int64_t qi) {
            depthwise_tile<Act, decltype(rows_c)::value, decltype(cols_c)::value, K, K, S>(
                pad, wk, row_len, wq, r, qi * kLanes, ow, yo, ep);
          });
        };
        using I1 = std::integral_constant<int, 1>;
        using I2 = std::integral_constant<int, 2>;
        using I3 = std::integral_constant<int, 3>;
        using I5 = std::integral_constant<int, 5>;
        if (fixed && kh == 3)
          sh == 1 ? fixed_tiles(I3{}, I1{}) : fixed_tiles(I3{}, I2{});
        else if (fixed)
          sh == 1 ? fixed_tiles(I5{}, I1{}) : fixed_tiles(I5{}, I2{});
        else if (vectorised)
          depthwise_cover(oh, nq, [&](auto rows_c, auto cols_c, int64_t r, int64_t qi) {
            depthwise_tile_any<Act, decltype(rows_c)::value, decltype(cols_c)::value>(
                pad, wk, kh, kw, tap_off, r, qi * kLanes, sh * row_len, ow, yo, ep);
          });
        else {
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

} // namespace simd
} // namespace onnxc_rt

#endif
