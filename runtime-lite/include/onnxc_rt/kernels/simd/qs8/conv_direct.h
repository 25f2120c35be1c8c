// conv2d's direct form (pack.h's conv_dot_direct; simd/qs8/conv2d.h): each
// tap of a tile read in place from the group's channel quads over virtual rows,
// at any stride from phase planes.
#ifndef ONNXC_RT_SIMD_QS8_CONV_DIRECT_H
#define ONNXC_RT_SIMD_QS8_CONV_DIRECT_H

#include "onnxc_rt/kernels/simd/qs8/conv_panel.h"
#include "onnxc_rt/kernels/simd/qs8/conv_lanes.h"

namespace onnxc_rt {
namespace simd {
namespace qs8 {
namespace detail {

/// Whether this instruction set's conv2d has the dot products' direct form
/// (pack.h's conv_dot_direct): AVX-512's broadcast tile (not NEON's
/// assembly tiles, which read a panel). Its choice and the panel's read
/// the same bound on virtual rows, so that the products are the same.
constexpr bool kConvDotDirect = kConvLanes;
static_assert(!kConvDotDirect || kVirtualRowsBound == kDotDirectRowsBound,
              "the direct form's bound is the panel's (pack.h's conv_dot_direct)");

/// One tile of conv2d's direct form: kConvRows channels x NV vectors of
/// virtual pixels from `a` (the tile's first pixel in the group's first
/// channel quad), the taps at tap_off, each over `quads` channel quads
/// `quad_stride` apart; the weights tap-major, one depth group of the
/// kConvRows channels after another. Requantized and stored as conv_tile.
template <int NV, typename T>
ONNXC_RT_SIMD_INLINE void conv_direct_tile(const uint8_t *a, int64_t quad_stride,
                                           const int64_t *tap_off, int64_t taps, int64_t quads,
                                           const int8_t *w, const Requant *q, int64_t rows,
                                           VecI y_zp, VecI act_min, VecI act_max,
                                           T *__restrict y, int64_t y_stride, int64_t valid) {
  // The sums from each row's added constant (tile.h's kConvSumsAdded:
  // broadcast_step accumulates in place).
  VecI acc[kConvRows][NV];
  for_each_index<kConvRows>([&](auto r) {
    for (int v = 0; v < NV; ++v)
      acc[r][v] = q[r].add;
  });
  const int8_t *wk = w;
  for (int64_t t = 0; t < taps; ++t) {
    const uint8_t *at = a + tap_off[t];
    for (int64_t cq = 0; cq < quads; ++cq, at += quad_stride, wk += kConvRows * 4)
      broadcast_step(acc, at, wk);
  }
  for_each_index<kConvRows>([&](auto r) ONNXC_RT_SIMD_LAMBDA {
    if (r < rows)
      requantize_store<NV, T, true>(acc[r], q[r], y_zp, act_min, act_max, y + r * y_stride,
                                    valid);
  });
}

/// conv_direct_tile<nv> for nv in [1, NV].
template <typename T, int NV = kConvVectors, typename... Args>
void conv_direct_tiles(int64_t nv, Args... args) {
  if (nv == NV)
    return conv_direct_tile<NV, T>(args...);
  if constexpr (NV > 1)
    conv_direct_tiles<T, NV - 1>(nv, args...);
}

/// The direct form's tiles of one tile of channels across virtual pixels
/// [0, np) from `a`: whole kConvVectors-wide tiles inline, then a narrower
/// one (as conv_tile_row).
template <typename T>
__attribute__((noinline)) void
conv_direct_row(int64_t np, const uint8_t *a, int64_t quad_stride, const int64_t *tap_off,
                int64_t taps, int64_t quads, const int8_t *w, const Requant *q, int64_t rows,
                VecI y_zp, VecI act_min, VecI act_max, T *__restrict y, int64_t y_stride) {
  constexpr int64_t kTile = kConvVectors * kLanes;
  int64_t px = 0;
  for (; np - px > kTile - kLanes; px += kTile)
    conv_direct_tile<kConvVectors>(a + px * 4, quad_stride, tap_off, taps, quads, w, q, rows,
                                   y_zp, act_min, act_max, y + px, y_stride, np - px);
  if (px < np)
    conv_direct_tiles<T, kConvVectors - 1>((np - px + kLanes - 1) / kLanes, a + px * 4,
                                           quad_stride, tap_off, taps, quads, w, q, rows, y_zp,
                                           act_min, act_max, y + px, y_stride, np - px);
}

/// conv2d's direct form (pack.h's conv_dot_direct; weights packed
/// tap-major): the group's input as channel quads of its phase planes
/// (fill_quads, pack.h's direct_plane), each tap of a tile read in place
/// at its offset over virtual rows (at any stride), which go
/// through the stage (their padding pixels dropped). `tasks` as conv2d's:
/// blocks of pixels or tiles of channels.
template <typename T, typename TOut>
void conv2d_dot_direct(const T *x, const int8_t *w, const int32_t *bias, TOut *y, const Conv2d &g,
                       int64_t n, int64_t m, int64_t group, int32_t x_zp,
                       const int32_t *multiplier, const int32_t *shift, int64_t count, VecI vzp,
                       VecI vmin, VecI vmax, uint8_t *scratch, TaskRunner *runner,
                       int64_t tasks) {
  const int64_t cg = g.c / group, mg = m / group, taps = g.kh * g.kw, depth = cg * taps;
  const int64_t tile_bytes = depth * kConvRows, group_bytes = round_up(mg, kConvRows) * depth;
  const PaddedPlane pp = direct_plane(g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw);
  const int64_t count_px = conv_pixel_count(g.oh, g.ow, pp, true);
  const int64_t block = conv_pixel_block(depth, count_px), pixels = g.oh * g.ow;
  const ConvScratch sl = conv_scratch(depth, g.oh, g.ow, g.sh, cg, pp, false, kDotDepthGroup,
                                      sizeof(TOut), tasks, ConvForm::kDotDirect);
  const uint8_t pad = static_cast<uint8_t>(static_cast<T>(x_zp));
  const uint8_t flip = static_cast<uint8_t>(flip_of<T>() ^ VecI::kPackedFlip);
  const int64_t quad_stride = 4 * conv_quad_plane_bytes(pp);
  int64_t tap_off[kAmxDirectTaps] = {0};
  quad_tap_offsets(g, pp, tap_off);
  uint8_t *quads = scratch + sl.quads;
  const int64_t used = tasks_for(count_px * mg * depth / 32, tasks);
  constexpr int64_t kTile = kConvVectors * kLanes;
  // Pixels to the tasks only where each channel's output plane is whole
  // cache lines (or the channels are too few to go round): elsewhere the
  // split leaves a line of every channel's plane written by two cores. At
  // two threads on a 2-core EPYC (Zen 5), ResNet-18's 128-channel 28 x 28
  // layer ran 209 us split by pixels against 174 us by channels, and
  // SqueezeNet's 3x3 layers at 55 x 55 and 27 x 27 1.3x as long
  // (bench/qs8_conv_bench.cpp --threads 2); at 56 x 56 (49 lines a plane)
  // the pixel split measured as fast as the channel split or faster.
  const bool by_pixels =
      conv_splits_pixels_at_lines((count_px + kTile - 1) / kTile, (mg + kConvRows - 1) / kConvRows,
                                  used, pixels, sizeof(TOut), true);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t gi = 0; gi < group; ++gi) {
      fill_quads(x + (b * g.c + gi * cg) * g.h * g.w, g, pp, pad, flip, cg, scratch, sl, quads,
                 runner, used, by_pixels ? kTile : 0, count_px);
      parallel_for(runner, used, [&](int64_t t) {
        TOut *stage = reinterpret_cast<TOut *>(scratch + t * sl.task + sl.stage);
        const Range px = by_pixels ? split_range(count_px, kTile, used, t) : Range{0, count_px};
        const Range ch = by_pixels ? Range{0, mg} : split_range(mg, kConvRows, used, t);
        if (ch.begin >= ch.end)
          return;
        for (int64_t p0 = px.begin; p0 < px.end; p0 += block) {
          const int64_t np = px.end - p0 < block ? px.end - p0 : block;
          for (int64_t mt = ch.begin; mt < ch.end; mt += kConvRows) {
            const int64_t live = ch.end - mt < kConvRows ? ch.end - mt : kConvRows;
            Requant q[kConvRows];
            channel_requants(q, gi * mg + mt, live, bias, multiplier, shift, count);
            conv_direct_row(np, quads + p0 * kDotDepthGroup, quad_stride, tap_off, taps, cg / 4,
                            w + gi * group_bytes + (mt / kConvRows) * tile_bytes, q, live, vzp,
                            vmin, vmax, stage, block);
            store_virtual_rows(stage, block, live, p0, np, pp.phase, g.ow,
                               y + (b * m + gi * mg + mt) * pixels, pixels);
          }
        }
      });
    }
}

} // namespace detail
} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_QS8_CONV_DIRECT_H
