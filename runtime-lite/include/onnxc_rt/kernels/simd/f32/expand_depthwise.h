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
// kernels' own and the outputs equal theirs bit for bit.
#ifndef ONNXC_RT_KERNELS_SIMD_F32_EXPAND_DEPTHWISE_H
#define ONNXC_RT_KERNELS_SIMD_F32_EXPAND_DEPTHWISE_H

#include "onnxc_rt/kernels/simd/f32/blocked.h"

namespace onnxc_rt {
namespace simd {

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
  const int64_t kh = kernel[0], sh = strides[0], dh = dilations[0], pt = pads_begin[0];
  const int64_t taps = kh * kernel[1], units = channel_blocks(c), cb = channel_blocks(mid);
  const int64_t tile_channels = blocked_tile_channels(true, 1);
  static_assert(blocked_tile_channels(true, 1) <= kExpandTileChannels, "a band holds a tile");
  const int64_t tiles = (round_up(mid, kChannelBlock) + tile_channels - 1) / tile_channels;
  const int64_t band = expand_band_rows(w, oh, kh, sh, dh);
  const int64_t band_rows = expand_band_input_rows(band, kh, sh, dh);
  const int64_t buffer = kExpandTileChannels * w * band_rows; // floats a task
  const int64_t plane = band_rows * w;                   // pixels of a block's band
  // Too few tiles to share among the tasks: each tile's rows in segments.
  const int64_t segments = tiles >= 4 * tasks || tasks <= 1 ? 1 : (tasks < oh ? tasks : oh);
  const int64_t tap0 = 0;
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
          const int64_t need_lo = r0 * sh > pt ? r0 * sh - pt : 0;
          const int64_t need_hi = min64(h, (r1 - 1) * sh - pt + (kh - 1) * dh + 1);
          // Rows shared with the previous band move to the buffer's start.
          int64_t keep = 0;
          if (need_lo >= lo && need_lo < hi) {
            keep = hi - need_lo;
            for (int64_t k = 0; k < blocks; ++k) {
              float *blk = band_buf + k * plane * kChannelBlock;
              const float *from = blk + (need_lo - lo) * w * kChannelBlock;
              if (from != blk)
                for (int64_t i = 0; i < keep * w * kChannelBlock; i += kLanes)
                  VecF::load(from + i).store(blk + i);
            }
          }
          lo = need_lo;
          hi = need_hi;
          if (lo + keep < hi)
            conv2d_blocked_tile<ActE, 1, 1>(
                true, xb + (lo + keep) * w * kChannelBlock, w, h * w * kChannelBlock, &tap0, 1,
                units, we_packed, bias_e, nullptr, band_buf + keep * w * kChannelBlock, mid, w,
                plane, 1, 1, alpha_e, beta_e, j0, 0, (hi - lo - keep) * w);
          // The depthwise window over the band: the band is an image of
          // rows [lo, hi) whose first output row is r0.
          const BlockedWindow g{hi - lo, w,           r1 - r0,    ow,
                                kh,      kernel[1],   sh,         strides[1],
                                pt + lo - r0 * sh, pads_begin[1], dh, dilations[1]};
          for (int64_t k = 0; k < blocks; ++k) {
            const int64_t blk = j0 / kChannelBlock + k;
            const int64_t at_y = ((b * cb + blk) * npix + r0 * ow) * kChannelBlock;
            for (int64_t sub = 0; sub < kBlockVecs; ++sub) {
              DepthwiseTaps<ActD> t;
              t.wt = wd_packed + blk * taps * kChannelBlock + sub * kLanes;
              t.bias = bias_lanes(bias_d, blk * kChannelBlock + sub * kLanes, mid);
              t.z = z ? z + at_y + sub * kLanes : nullptr;
              t.alpha = alpha_d;
              t.beta = beta_d;
              blocked_window_plane(band_buf + k * plane * kChannelBlock + sub * kLanes, g, t,
                                   y + at_y + sub * kLanes);
            }
          }
        }
      }
    });
  }
}

} // namespace simd
} // namespace onnxc_rt

#endif
