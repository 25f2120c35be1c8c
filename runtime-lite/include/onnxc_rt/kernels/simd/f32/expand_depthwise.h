// An inverted-residual block's first half in one pass on the channel-blocked
// layout (NCHW16c, see blocking.h): a pointwise "expand" convolution and
// its activation, then a depthwise convolution of the expanded tensor and
// its activation (MobileNetV2, EfficientNet, MobileNetV3). Run as two
// kernels the expanded tensor (4.8 MB in EfficientNet-B0's second stage) is
// written to the arena and read back from memory; here it lives only as a
// band of rows of one channel tile in scratch, in L1/L2: each band's new
// rows are expanded (conv2d_blocked_tile, as the pointwise kernel does) and
// the depthwise window runs over the band (blocked_window_plane, as the
// depthwise kernel does), so the arithmetic and its order are the two
// kernels' own and the outputs equal theirs bit for bit. The whole block
// (expand_depthwise_project_blocked) adds the pointwise "project"
// convolution and the skip connection: bands of rows of all channels, the
// band's depthwise rows projected from scratch (conv2d_blocked_tile again).
#ifndef ONNXC_RT_KERNELS_SIMD_F32_EXPAND_DEPTHWISE_H
#define ONNXC_RT_KERNELS_SIMD_F32_EXPAND_DEPTHWISE_H

#include "onnxc_rt/kernels/simd/f32/blocked_window.h"

namespace onnxc_rt {
namespace simd {

namespace detail {

/// One channel tile's expanded rows [lo, hi) of a band in `buf` (`blocks`
/// blocks of `plane` pixels, rows w wide, row lo first; X has c channels),
/// the rows [prev_lo, prev_hi) of the tile's previous band there: the rows
/// both bands share move to the buffer's start, the rest are expanded
/// (conv2d_blocked_tile, as the pointwise kernel does).
template <typename ActE>
ONNXC_RT_SIMD_INLINE void expand_tile_rows(const float *xb, int64_t h, int64_t w, int64_t c,
                                           const float *we_packed, const float *bias_e,
                                           int64_t mid, int64_t j0, int64_t blocks, float *buf,
                                           int64_t plane, int64_t prev_lo, int64_t prev_hi,
                                           int64_t lo, int64_t hi, float alpha, float beta) {
  const int64_t tap0 = 0;
  int64_t keep = 0;
  if (lo >= prev_lo && lo < prev_hi) {
    keep = prev_hi - lo;
    for (int64_t k = 0; k < blocks; ++k) {
      float *blk = buf + k * plane * kChannelBlock;
      const float *from = blk + (lo - prev_lo) * w * kChannelBlock;
      if (from != blk)
        for (int64_t i = 0; i < keep * w * kChannelBlock; i += kLanes)
          VecF::load(from + i).store(blk + i);
    }
  }
  if (lo + keep < hi)
    conv2d_blocked_tile<ActE, 1, 1>(true, xb + (lo + keep) * w * kChannelBlock, w,
                                    h * w * kChannelBlock, &tap0, 1, c, we_packed, bias_e,
                                    nullptr, buf + keep * w * kChannelBlock, mid, w, plane, 1, 1,
                                    alpha, beta, j0, 0, (hi - lo - keep) * w);
}

/// The depthwise window `g` over one channel tile's band of expanded rows
/// (`blocks` blocks from block blk0, `plane` pixels apart in `buf`), as the
/// depthwise kernel runs it (blocked_window_plane): block k's output rows
/// at y + k * y_block (its residual at z likewise, z may be null).
template <typename ActD>
ONNXC_RT_SIMD_INLINE void depthwise_tile_band(const float *buf, int64_t plane, int64_t blocks,
                                              const BlockedWindow &g, const float *wd_packed,
                                              const float *bias_d, int64_t mid, int64_t blk0,
                                              const float *z, float *y, int64_t y_block,
                                              float alpha, float beta) {
  const int64_t taps = g.kh * g.kw;
  for (int64_t k = 0; k < blocks; ++k) {
    const int64_t blk = blk0 + k;
    for (int64_t sub = 0; sub < kBlockVecs; ++sub) {
      DepthwiseTaps<ActD> t;
      t.wt = wd_packed + blk * taps * kChannelBlock + sub * kLanes;
      t.bias = bias_lanes(bias_d, blk * kChannelBlock + sub * kLanes, mid);
      t.z = z ? z + k * y_block + sub * kLanes : nullptr;
      t.alpha = alpha;
      t.beta = beta;
      blocked_window_plane(buf + k * plane * kChannelBlock + sub * kLanes, g, t,
                           y + k * y_block + sub * kLanes);
    }
  }
}

/// The depthwise window over a band of expanded rows [lo, hi) whose first
/// output row is r0 and last r1 - 1: the band as an image of its own.
inline BlockedWindow band_window(int64_t lo, int64_t hi, int64_t r0, int64_t r1, int64_t w,
                                 int64_t ow, const int64_t *kernel, const int64_t *strides,
                                 const int64_t *pads_begin, const int64_t *dilations) {
  return BlockedWindow{hi - lo,       w,          r1 - r0,
                       ow,            kernel[0],  kernel[1],
                       strides[0],    strides[1], pads_begin[0] + lo - r0 * strides[0],
                       pads_begin[1], dilations[0], dilations[1]};
}

/// The expanded (input) rows [lo, hi) output rows [r0, r1) read.
inline Range band_input_rows(int64_t r0, int64_t r1, int64_t h, const int64_t *kernel,
                             const int64_t *strides, const int64_t *pads_begin,
                             const int64_t *dilations) {
  const int64_t sh = strides[0], pt = pads_begin[0];
  const int64_t lo = r0 * sh > pt ? r0 * sh - pt : 0;
  return {lo, min64(h, (r1 - 1) * sh - pt + (kernel[0] - 1) * dilations[0] + 1)};
}

} // namespace detail

/// Y = ActD(depthwise(ActE(conv1x1(X, WE) + BE), WD) + BD + Z) with X (n x c x
/// h x w), Y and Z (n x m x oh x ow, may be null) blocked; `mid` expanded
/// channels (the depthwise convolution's groups). `we_packed`:
/// pack_blocked_conv_weights(WE, mid, c, 1, blocked); `wd_packed`:
/// pack_blocked_conv_weights(WD, mid, mid, kh * kw, ..., depthwise). The
/// window attributes are the depthwise convolution's. Work: (channel tile,
/// segment of output rows) units for `tasks`; each walks its rows in bands,
/// expanding only the rows the previous band did not (those it shares are
/// moved to the band's start). Scratch: expand_depthwise_scratch_floats.
template <typename ActE, typename ActD>
void expand_depthwise_blocked(const float *x, const float *we_packed, const float *bias_e,
                              const float *wd_packed, const float *bias_d, const float *z,
                              float *y, const int64_t *in_shape, int64_t mid,
                              const int64_t *out_shape, const int64_t *kernel,
                              const int64_t *strides, const int64_t *pads_begin,
                              const int64_t *dilations, float alpha_e, float beta_e,
                              float alpha_d, float beta_d, float *scratch,
                              TaskRunner *runner = nullptr, int64_t tasks = 1) {
  const int64_t n = in_shape[0], c = in_shape[1], h = in_shape[2], w = in_shape[3];
  const int64_t oh = out_shape[2], ow = out_shape[3], npix = oh * ow;
  const int64_t units = channel_blocks(c), cb = channel_blocks(mid);
  const int64_t tile_channels = blocked_tile_channels(true, 1);
  static_assert(blocked_tile_channels(true, 1) <= kExpandTileChannels, "a band holds a tile");
  const int64_t tiles = (round_up(mid, kChannelBlock) + tile_channels - 1) / tile_channels;
  const int64_t band = expand_band_rows(w, oh, kernel[0], strides[0], dilations[0]);
  const int64_t band_rows = expand_band_input_rows(band, kernel[0], strides[0], dilations[0]);
  const int64_t buffer = kExpandTileChannels * w * band_rows; // floats a task
  const int64_t plane = band_rows * w;                   // pixels of a block's band
  // Too few tiles to share among the tasks: each tile's rows in segments.
  const int64_t segments = tiles >= 4 * tasks || tasks <= 1 ? 1 : (tasks < oh ? tasks : oh);
  for (int64_t b = 0; b < n; ++b) {
    const float *xb = x + b * units * kChannelBlock * h * w;
    parallel_for(runner, tasks, [&](int64_t task) {
      float *band_buf = scratch + task * buffer;
      const Range r = split_range(tiles * segments, 1, tasks, task);
      for (int64_t u = r.begin; u < r.end; ++u) {
        const int64_t j0 = u / segments * tile_channels, seg = u % segments;
        const int64_t blocks = min64(tile_channels, round_up(mid, kChannelBlock) - j0) /
                               kChannelBlock;
        const Range rows = split_range(oh, 1, segments, seg);
        // Expanded (input) rows [lo, hi) are in the buffer, row lo first.
        int64_t lo = 0, hi = 0;
        for (int64_t r0 = rows.begin; r0 < rows.end; r0 += band) {
          const int64_t r1 = min64(rows.end, r0 + band);
          const Range need = detail::band_input_rows(r0, r1, h, kernel, strides, pads_begin,
                                                     dilations);
          detail::expand_tile_rows<ActE>(xb, h, w, c, we_packed, bias_e, mid, j0, blocks,
                                         band_buf, plane, lo, hi, need.begin, need.end,
                                         alpha_e, beta_e);
          lo = need.begin;
          hi = need.end;
          const int64_t at_y = ((b * cb + j0 / kChannelBlock) * npix + r0 * ow) * kChannelBlock;
          detail::depthwise_tile_band<ActD>(
              band_buf, plane, blocks,
              detail::band_window(lo, hi, r0, r1, w, ow, kernel, strides, pads_begin, dilations),
              wd_packed, bias_d, mid, j0 / kChannelBlock, z ? z + at_y : nullptr, y + at_y,
              npix * kChannelBlock, alpha_d, beta_d);
        }
      }
    });
  }
}

/// A whole inverted-residual block: Y = ActP(conv1x1(D, WP) + BP + Z) with
/// D = ActD(depthwise(ActE(conv1x1(X, WE) + BE), WD) + BD), X (n x c x h x
/// w), Y and Z (n x m x oh x ow, Z may be null: the block's skip
/// connection) blocked, `mid` expanded channels; `wp_packed`:
/// pack_blocked_conv_weights(WP, m, mid, 1, blocked), the others as
/// expand_depthwise_blocked's. A block without an expand convolution
/// (MobileNetV2's first: `we_packed` null, c = mid) runs the depthwise
/// window over X itself. Each task walks a segment of output rows in bands
/// (project_band), rows outer and channels inner: a band's expanded rows
/// (all channel tiles, the rows the previous band shares kept) and its
/// depthwise output stay in scratch, in L2, and the band's projection reads
/// them there; neither the expanded nor the depthwise tensor reaches the
/// arena. Each step is its kernel's own arithmetic in its order
/// (expand_depthwise_blocked's, then conv2d_blocked's), so Y equals theirs
/// bit for bit. Scratch: expand_depthwise_project_scratch_floats(...,
/// we_packed != nullptr, tasks).
template <typename ActE, typename ActD, typename ActP>
void expand_depthwise_project_blocked(
    const float *x, const float *we_packed, const float *bias_e, const float *wd_packed,
    const float *bias_d, const float *wp_packed, const float *bias_p, const float *z, float *y,
    const int64_t *in_shape, int64_t mid, const int64_t *out_shape, const int64_t *kernel,
    const int64_t *strides, const int64_t *pads_begin, const int64_t *dilations, float alpha_e,
    float beta_e, float alpha_d, float beta_d, float alpha_p, float beta_p, float *scratch,
    TaskRunner *runner = nullptr, int64_t tasks = 1) {
  const int64_t n = in_shape[0], c = in_shape[1], h = in_shape[2], w = in_shape[3];
  const int64_t m = out_shape[1], oh = out_shape[2], ow = out_shape[3], npix = oh * ow;
  const int64_t units = channel_blocks(c), cb = channel_blocks(mid);
  const int64_t mid_channels = cb * kChannelBlock, out_channels = round_up(m, kChannelBlock);
  const int64_t tile_channels = blocked_tile_channels(true, 1);
  const bool expand = we_packed != nullptr;
  const ProjectBand pb =
      project_band(in_shape, mid, out_shape, kernel, strides, dilations, expand);
  const int64_t plane = pb.input_rows * w, dw_plane = pb.rows * ow; // pixels of a block
  const int64_t tap0 = 0;
  for (int64_t b = 0; b < n; ++b) {
    const float *xb = x + b * units * kChannelBlock * h * w;
    const int64_t image = b * out_channels * npix;
    parallel_for(runner, tasks, [&](int64_t task) {
      float *expanded = scratch + task * mid_channels * (plane + dw_plane);
      float *dw = expanded + mid_channels * plane;
      const Range rows = split_range(oh, 1, tasks, task);
      // Expanded (input) rows [lo, hi) are in the buffer, row lo first.
      int64_t lo = 0, hi = 0;
      for (int64_t r0 = rows.begin; r0 < rows.end; r0 += pb.rows) {
        const int64_t r1 = min64(rows.end, r0 + pb.rows);
        const Range need = detail::band_input_rows(r0, r1, h, kernel, strides, pads_begin,
                                                   dilations);
        const BlockedWindow g = detail::band_window(need.begin, need.end, r0, r1, w, ow, kernel,
                                                    strides, pads_begin, dilations);
        for (int64_t j0 = 0; j0 < mid_channels; j0 += tile_channels) {
          const int64_t blocks = min64(tile_channels, mid_channels - j0) / kChannelBlock;
          // The band's rows of the depthwise input: expanded, or X's own.
          const float *band = xb + j0 * h * w + need.begin * w * kChannelBlock;
          int64_t band_plane = h * w;
          if (expand) {
            float *tile = expanded + j0 * plane;
            detail::expand_tile_rows<ActE>(xb, h, w, c, we_packed, bias_e, mid, j0, blocks,
                                           tile, plane, lo, hi, need.begin, need.end, alpha_e,
                                           beta_e);
            band = tile;
            band_plane = plane;
          }
          detail::depthwise_tile_band<ActD>(band, band_plane, blocks, g, wd_packed, bias_d, mid,
                                            j0 / kChannelBlock, nullptr, dw + j0 * dw_plane,
                                            dw_plane * kChannelBlock, alpha_d, beta_d);
        }
        lo = need.begin;
        hi = need.end;
        for (int64_t j0 = 0; j0 < out_channels; j0 += tile_channels) {
          const int64_t at = image + (j0 * npix) + r0 * ow * kChannelBlock;
          conv2d_blocked_tile<ActP, 1, 1>(true, dw, ow, dw_plane * kChannelBlock, &tap0, 1, mid,
                                          wp_packed, bias_p, z ? z + at : nullptr, y + at, m, ow,
                                          npix, 1, 1, alpha_p, beta_p, j0, 0, (r1 - r0) * ow);
        }
      }
    });
  }
}

} // namespace simd
} // namespace onnxc_rt

#endif
