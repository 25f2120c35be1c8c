// SIMD 2-D convolution: grouped/dense convolutions as packed GEMMs whose B
// operand is read in place from a zero-padded copy of the input (1x1
// stride-1 ones read the input itself) or, on small planes, as pixel-major
// GEMMs whose rows are output pixels read in place; depthwise ones as a
// direct kernel (depthwise.h). All take the
// fused epilogue: bias, residual add (the Z of onnx.FusedConv) and an
// activation functor from the reference kernels.
#ifndef ONNXC_RT_SIMD_F32_CONV_H
#define ONNXC_RT_SIMD_F32_CONV_H

#include "onnxc_rt/kernels/simd/f32/gemm.h"
#include "onnxc_rt/kernels/simd/f32/padded.h"

namespace onnxc_rt {
namespace simd {

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

/// sum[r] += the input value x(r) of pixel r x the packed weight row at b
/// (kVecs vectors), for the MR pixels of a tile; b moves on to the next row.
/// One step of window_tile and window_strip, which differ only in where a
/// pixel's value is.
template <int MR, int kVecs, typename X>
ONNXC_RT_SIMD_INLINE void window_row_step(const X &x, const float *&b, VecF (&sum)[MR][2]) {
  const VecF b0 = VecF::load(b);
  const VecF b1 = kVecs == 2 ? VecF::load(b + kLanes) : b0;
  b += kPixelMajorBlock;
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
    const VecF a = VecF::broadcast(x(r));
    sum[r][0] = VecF::fma(a, b0, sum[r][0]);
    if constexpr (kVecs == 2)
      sum[r][1] = VecF::fma(a, b1, sum[r][1]);
  }
}

/// One register tile of a convolution whose windows are read in place: kGemmMR
/// output pixels (the windows at px[r]: lane l of channel step u at tap t at
/// px[r] + u * ustride + tap_off[t] + l) by kVecs vectors of output
/// channels (packed weight row p at b + p * kPixelMajorBlock), summed over
/// all channel steps, taps and lanes. kL: lanes per channel step (1 for an
/// NCHW input, 16 for a channel-blocked one); kTaps: the tap count if fixed
/// (1, 9), else 0 (`taps`). `channels`: the input's; where the last step
/// has fewer than kL (its other lanes zero, as are their weight rows),
/// x86 skips them (window_strip says why the sums do not change). The
/// pixel-major and the blocked convolutions' tile.
template <int kL, int kTaps, int kVecs>
ONNXC_RT_SIMD_INLINE void window_tile(const float *const (&px)[kGemmMR], const int64_t *tap_off,
                                     int64_t taps, int64_t channels, int64_t ustride,
                                     const float *b, VecF (&acc)[kGemmMR][2]) {
  if constexpr (kTaps > 0)
    taps = kTaps;
  const int64_t units = (channels + kL - 1) / kL;
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
  VecF sum[kGemmMR][2]; // local: GCC otherwise stores acc back every step
  for (int r = 0; r < kGemmMR; ++r)
    sum[r][0] = sum[r][1] = VecF::zero();
  const int64_t full = channels / kL, tail = channels % kL; // whole steps, lanes of the last
  for (int64_t u = 0; u < full; ++u) {
#pragma GCC unroll 9
    for (int64_t t = 0; t < taps; ++t) {
      const int64_t off = tap_off[t];
#pragma GCC unroll 16
      for (int l = 0; l < kL; ++l)
        window_row_step<kGemmMR, kVecs>([&](int r) { return at[r][off + l]; }, b, sum);
    }
    for (int r = 0; r < kGemmMR; ++r)
      at[r] += ustride;
  }
  if (tail > 0) {
#pragma GCC unroll 1
    for (int64_t t = 0; t < taps; ++t) {
      const int64_t off = tap_off[t];
#pragma GCC unroll 1
      for (int l = 0; l < tail; ++l)
        window_row_step<kGemmMR, kVecs>([&](int r) { return at[r][off + l]; }, b, sum);
      b += (kL - tail) * kPixelMajorBlock;
    }
  }
  for (int r = 0; r < kGemmMR; ++r)
    acc[r][0] = sum[r][0], acc[r][1] = sum[r][1];
}

/// How many packed weight rows (kPixelMajorBlock floats each) ahead of
/// the one it multiplies window_strip prefetches: two taps of a channel
/// block (4 KB on AVX-512, the only instruction set with strips).
constexpr int64_t kStripPrefetchRows = 32;

/// One step of window_strip: lane l of the MR pixels' windows at q (kSW
/// blocks apart) times the weight row at b, which moves on. Asking for the
/// row kStripPrefetchRows ahead keeps the panel's first pass (from L3 or
/// memory where a layer's weights are megabytes) from waiting on each line
/// (bench/conv_bench.cpp --cold; figures in docs/design.md).
template <int MR, int kVecs, int kSW>
ONNXC_RT_SIMD_INLINE void strip_step(const float *q, int l, const float *&b,
                                    VecF (&sum)[MR][2]) {
  __builtin_prefetch(b + kStripPrefetchRows * kPixelMajorBlock);
  if constexpr (kVecs == 2)
    __builtin_prefetch(b + kStripPrefetchRows * kPixelMajorBlock + kLanes);
  window_row_step<MR, kVecs>([&](int r) { return q[r * kSW * kChannelBlock + l]; }, b, sum);
}

/// window_tile for MR output pixels side by side in one output row of a
/// stride-1 channel-blocked convolution (pixel r's window at p0 + r *
/// kChannelBlock): one base pointer with the pixels at fixed displacements,
/// where window_tile holds a pointer per pixel, which frees the general
/// registers for AVX-512's taller tiles (up to VecF::kWindowStripMax: 14
/// pixels, 28 accumulators, each weight vector loaded once for 28 FMAs
/// where window_tile's 6 pixels use it for 12). `channels`: the input's,
/// in channel blocks of 16 (the last block's lanes past channels are
/// zero, as are their weight rows: they are skipped, which saves a quarter
/// of the work of a 24-channel input). Same sums in the same order as
/// window_tile (the skipped products are +0, and a sum that starts at +0
/// is never -0), so the results do not depend on the tile.
template <int kTaps, int kVecs, int kSW, int MR>
ONNXC_RT_SIMD_INLINE void window_strip(const float *p0, const int64_t *tap_off, int64_t taps,
                                      int64_t channels, int64_t ustride, const float *b,
                                      VecF (&acc)[MR][2]) {
  constexpr int kL = static_cast<int>(kChannelBlock);
  if constexpr (kTaps > 0)
    taps = kTaps;
  const int64_t full = channels / kL, tail = channels % kL; // whole blocks, lanes of the last
  // The sums in a local array: GCC otherwise stores acc back every step.
  VecF sum[MR][2];
  for (int r = 0; r < MR; ++r)
    sum[r][0] = sum[r][1] = VecF::zero();
  for (int64_t u = 0; u < full; ++u) {
#pragma GCC unroll 1
    for (int64_t t = 0; t < taps; ++t) {
      const float *q = p0 + tap_off[t];
#pragma GCC unroll 4
      for (int l = 0; l < kL; ++l)
        strip_step<MR, kVecs, kSW>(q, l, b, sum);
    }
    p0 += ustride;
  }
  if (tail > 0) {
#pragma GCC unroll 1
    for (int64_t t = 0; t < taps; ++t) {
      const float *q = p0 + tap_off[t];
#pragma GCC unroll 1
      for (int l = 0; l < tail; ++l)
        strip_step<MR, kVecs, kSW>(q, l, b, sum);
      b += (kL - tail) * kPixelMajorBlock;
    }
  }
  for (int r = 0; r < MR; ++r)
    acc[r][0] = sum[r][0], acc[r][1] = sum[r][1];
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
/// im2col (conv2d_method; where the compiler names the method as kMethod,
/// the other paths are dead code, left out of the build). `tasks` split
/// each group's output (run on `runner`, see parallel.h). Scratch:
/// conv2d_scratch_floats(..., tasks) floats.
template <typename Act, ConvMethod kMethod = ConvMethod::Any>
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
  const ConvMethod method =
      kMethod != ConvMethod::Any
          ? kMethod
          : conv2d_method(in_shape, out_shape, kernel, strides, pads_begin, dilations, group,
                          w_packed != nullptr);
  const bool pixel_major = method == ConvMethod::PixelMajor;
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
      const Epilogue ep = conv_epilogue(bias, z, g, mg, yoff, npix, act_alpha, act_beta);
      const Matrix wm{w + g * mg * kdim, kdim, 1};
      const float *wp =
          !w_packed ? nullptr
          : pixel_major ? w_packed + g * kdim * round_up(mg, kPixelMajorBlock)
                        : w_packed + g * packed_a_floats(mg, kdim);
      if (pixel_major) {
        // The input's padded copy if it needs one (each task a share of the
        // channels), then each task a share of the (channel tile, pixel
        // chunk) units (tile_chunks).
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
        const TileChunks split = tile_chunks(tiles, kNR, mg - (tiles - 1) * kNR, npix,
                                             cg * h * wd, kdim * mg, tasks);
        const int64_t chunk = round_up((npix + split.chunks - 1) / split.chunks, kLanes);
        float *stages = scratch + (in.padded ? cg * in.cstride : 0);
        parallel_for(runner, tasks, [&](int64_t t) {
          float *stage = stages + t * pixel_major_stage_floats(npix);
          // Zeros in the rows past a chunk's last tile that its last
          // transposes read (lanes not stored).
          for (int64_t i = 0; i < round_up(min64(chunk, npix), kLanes) * kNR; ++i)
            stage[i] = 0.0f;
          const Range r = split_range(tiles * split.chunks, 1, tasks, t);
          for (int64_t u = r.begin; u < r.end; ++u) {
            const int64_t p0 = split.chunk(u, tiles) * chunk;
            if (p0 < npix)
              conv2d_pixel_major<Act>(src, in.wp, in.cstride, tap_off, taps, cg, wp, y + yoff,
                                      mg, ow, npix, strides[0], strides[1], ep,
                                      split.tile(u, tiles) * kNR, p0, min64(npix, p0 + chunk),
                                      stage);
          }
        });
      } else if (method == ConvMethod::Pointwise) {
        gemm_tasks<Act, kGemmMR>(mg, npix, kdim, wm, wp, Matrix{xg, h * wd, 1}, y + yoff, npix,
                                 ep, scratch, runner, tasks);
      } else if (method == ConvMethod::Direct) {
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

} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_F32_CONV_H
