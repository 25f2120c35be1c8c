// conv2d's channel-lanes form (pack.h's conv_channel_lanes; simd/qs8/conv2d.h):
// small planes with the output channels in the vector lanes and a few pixels a
// tile, transposed into the NCHW output.
#ifndef ONNXC_RT_SIMD_QS8_CONV_LANES_H
#define ONNXC_RT_SIMD_QS8_CONV_LANES_H

#include "onnxc_rt/kernels/simd/qs8/conv_staging.h"

namespace onnxc_rt {
namespace simd {
namespace qs8 {
namespace detail {

/// Whether this instruction set's conv2d has the channel-lanes form
/// (pack.h's conv_channel_lanes): AVX-512, whose 16 pixels a vector waste
/// the most on small planes and whose 32 registers hold the 6 x 4 tile
/// (AVX2's 8 lanes fill 49 pixels to 56). Never with AMX's depth group.
constexpr bool kConvLanes = kLanes == 16 && !kDepth16 && !VecI::kMatMul && !VecI::kLaneDot;

/// Vectors of channels a channel-lanes tile spans, and its most pixels:
/// 6 x 4 accumulators, the 4 weight vectors and a broadcast pixel (29 of
/// 32 registers).
constexpr int kLaneTileVectors = 4, kLaneTileRows = 6;
static_assert(!kConvLanes || kLaneTileVectors * kLanes == kConvLaneTileChannels,
              "pack.h's conv_channel_lanes counts a tile's channels");

/// A channel-lanes tile's R pixels x NV vectors of channels requantized
/// with output channel `oc`'s constants on, and stored transposed: channel
/// c's R pixels at y + c * pixels, the first `cols` channels.
template <int R, int NV, typename T>
ONNXC_RT_SIMD_INLINE void store_lane_tile(VecI (&acc)[R][NV], int64_t cols, const int32_t *add,
                                          const int32_t *multiplier, const int32_t *shift,
                                          int64_t count, int64_t oc, bool scales_up, VecI y_zp,
                                          VecI act_min, VecI act_max, T *y, int64_t pixels) {
  // Each vector of channels requantized with its constants, narrowed into
  // a pixel-major block, transposed 16 channels at a time (their R <= 8
  // pixels' bytes together), then each channel's R bytes copied. Byte by
  // byte (384 loads and stores a tile of 64 channels) it took about an
  // eighth of this form's samples in MobileNetV2 int8 (its 7 x 7 layers).
  static_assert(R <= 8 && sizeof(T) == 1, "a channel's pixels in 8 bytes");
  alignas(64) T block[R][NV * kLanes];
  for_each_index<NV>([&](auto v) ONNXC_RT_SIMD_LAMBDA {
    const int64_t left = cols - int64_t(v) * kLanes;
    const Requant q = requant_columns(add, multiplier, shift, count, oc + v * kLanes,
                                      left <= 0 ? 0 : left < kLanes ? left : kLanes, scales_up);
    for_each_index<R>([&](auto r) ONNXC_RT_SIMD_LAMBDA {
      to_output(requantize_scaled(VecI::add(acc[r][v], q.add), q), y_zp, act_min, act_max)
          .store_narrow(&block[r][v * kLanes], kLanes);
    });
  });
  alignas(64) uint8_t by_channel[NV * kLanes][8];
  for (int64_t c = 0; c < cols; c += 16) {
    Bytes rows[8];
    for (int r = 0; r < 8; ++r)
      rows[r] = r < R ? load_bytes(&block[r][c]) : Bytes{};
    transpose8x16(rows);
    for (int k = 0; k < 8; ++k)
      store_bytes(by_channel[c + 2 * k], rows[k]);
  }
  for (int64_t c = 0; c < cols; ++c)
    __builtin_memcpy(y + c * pixels, by_channel[c], R);
}

/// One channel-lanes tile's products: R pixels x NV vectors of channels
/// (their packed weights `block_bytes` apart, kConvLaneRows channels'
/// depth group per step), over `dgroups` depth groups; pixel r's group kk
/// at at(kk) + offset[r], a step of 4 bytes. The first `ahead` steps each
/// also ask for a line of the weights from `next` on (lane_prefetch).
template <int R, int NV, typename At>
ONNXC_RT_SIMD_INLINE void lane_tile_products(VecI (&acc)[R][NV], const int64_t *offset, At at,
                                             const int8_t *w, int64_t block_bytes,
                                             int64_t dgroups, const int8_t *next, int64_t ahead) {
  constexpr int64_t kStep = kConvLaneRows * kDotDepthGroup;
  for_each_index<R>([&](auto r) {
    for_each_index<NV>([&](auto v) { acc[r][v] = VecI::zero(); });
  });
  auto step = [&](int64_t kk) ONNXC_RT_SIMD_LAMBDA {
    VecI wk[NV];
    for_each_index<NV>([&](auto v) { wk[v] = VecI::load(w + v * block_bytes + kk * kStep); });
    const uint8_t *ak = at(kk);
    for_each_index<R>([&](auto r) {
      const VecI ab = broadcast4(ak + offset[r]);
      for_each_index<NV>([&](auto v) { acc[r][v] = VecI::dot_part(acc[r][v], ab, wk[v]); });
    });
  };
  int64_t kk = 0;
  for (; kk < ahead; ++kk) {
    __builtin_prefetch(next + kk * 64, 0, 2);
    step(kk);
  }
  for (; kk < dgroups; ++kk)
    step(kk);
}

/// The weights a channel-lanes tile asks for ahead (lane_tile_products):
/// those of the next tile of channels (after channels [c, c +
/// kLaneTileVectors * kLanes) of [., c1); weights wg, block_bytes a
/// kConvLaneRows), each pixel tile after the first a run of `dgroups`
/// lines, so that they are in L2 when the next channels' first pixel tile
/// reads them. Without it each tile of channels' first pixel tile waited
/// on memory for its weights (the other pixel tiles reuse them from L2):
/// in a model a layer's weights are rarely still cached (ResNet-18's 3x3
/// 512 -> 512 at 7 x 7: 2.4 MB, 1152 steps a pixel tile).
struct LanePrefetch {
  const int8_t *at;
  int64_t lines;
};
inline LanePrefetch lane_prefetch(const int8_t *wg, int64_t c, int64_t c1, int64_t block_bytes,
                                  int64_t tile, int64_t dgroups) {
  constexpr int64_t kUnit = kLaneTileVectors * kLanes;
  const int64_t next = c + kUnit, end = c1 < next + kUnit ? c1 : next + kUnit;
  const int8_t *at = wg + (next / kConvLaneRows) * block_bytes;
  if (tile == 0 || end <= next)
    return {at, 0};
  const int64_t total = (end - next + kConvLaneRows - 1) / kConvLaneRows * block_bytes / 64;
  const int64_t first = (tile - 1) * dgroups;
  if (first >= total)
    return {at, 0};
  return {at + first * 64, total - first < dgroups ? total - first : dgroups};
}

/// f(std::integral_constant<int, r>) for r in [1, R].
template <int R = kLaneTileRows, typename F>
ONNXC_RT_SIMD_INLINE void with_tile_rows(int64_t r, F &&f) {
  if (r == R)
    return f(std::integral_constant<int, R>());
  if constexpr (R > 1)
    with_tile_rows<R - 1>(r, f);
}

/// The channel-lanes tiles of `np` pixels (from the task's first, p0) and
/// channels [c0, c1): kLaneTileVectors vectors of channels at a time, the
/// pixels spread evenly over tiles of at most kLaneTileRows (49 pixels as
/// 4 tiles of 6 and 5 of 5: a tile of one pixel runs its four chains at
/// the dot product's latency). tile(r, nv, p, c, cols, t) runs one: r
/// pixels from p (pixel tile t), nv vectors of channels from c (cols of
/// them live).
template <typename Tile>
ONNXC_RT_SIMD_INLINE void lane_tiles(int64_t np, int64_t c0, int64_t c1, Tile &&tile) {
  const int64_t tiles = (np + kLaneTileRows - 1) / kLaneTileRows;
  for (int64_t c = c0; c < c1; c += kLaneTileVectors * kLanes) {
    const int64_t cols = c1 - c < kLaneTileVectors * kLanes ? c1 - c : kLaneTileVectors * kLanes;
    for (int64_t t = 0, p = 0; t < tiles; ++t) {
      const int64_t r = np / tiles + (t < np % tiles ? 1 : 0);
      auto rows = [&](auto nv) ONNXC_RT_SIMD_LAMBDA {
        with_tile_rows(r, [&](auto rr) ONNXC_RT_SIMD_LAMBDA { tile(rr, nv, p, c, cols, t); });
      };
      switch ((cols + kLanes - 1) / kLanes) {
      case 1: rows(std::integral_constant<int, 1>()); break;
      case 2: rows(std::integral_constant<int, 2>()); break;
      case 3: rows(std::integral_constant<int, 3>()); break;
      default: rows(std::integral_constant<int, kLaneTileVectors>()); break;
      }
      p += r;
    }
  }
}

/// The channel-lanes tiles of one panel (np pixels, depth group kk of
/// pixel p at panel + kk * panel_stride + p * 4) and channels [c0, c1) of
/// the group (packed weights wg; lane_tiles). Not inlined into conv2d,
/// like conv_tile_row.
template <typename T>
__attribute__((noinline)) void
conv_lane_row(int64_t np, const uint8_t *panel, int64_t panel_stride, const int8_t *wg,
              int64_t depth_pad, int64_t c0, int64_t c1, int64_t oc0, const int32_t *add,
              const int32_t *multiplier, const int32_t *shift, int64_t count, bool scales_up,
              VecI y_zp, VecI act_min, VecI act_max, T *y, int64_t pixels) {
  const int64_t dgroups = depth_pad / kDotDepthGroup, block_bytes = kConvLaneRows * depth_pad;
  lane_tiles(np, c0, c1, [&](auto rr, auto nv, int64_t p, int64_t c, int64_t cols,
                             int64_t t) ONNXC_RT_SIMD_LAMBDA {
    constexpr int R = decltype(rr)::value, NV = decltype(nv)::value;
    int64_t offset[R];
    for (int r = 0; r < R; ++r)
      offset[r] = (p + r) * kDotDepthGroup;
    VecI acc[R][NV];
    const LanePrefetch ahead = lane_prefetch(wg, c, c1, block_bytes, t, dgroups);
    lane_tile_products(
        acc, offset, [&](int64_t kk) ONNXC_RT_SIMD_LAMBDA { return panel + kk * panel_stride; },
        wg + (c / kConvLaneRows) * block_bytes, block_bytes, dgroups, ahead.at, ahead.lines);
    store_lane_tile<R, NV, T>(acc, cols, add, multiplier, shift, count, oc0 + c, scales_up, y_zp,
                              act_min, act_max, y + c * pixels + p, pixels);
  });
}

/// The channel-lanes tiles read in place (kLanesDirect): pixels [p0, p0 +
/// np) of the group's channel quads (`quads`, quad_stride apart; output
/// pixel (oy, ox) at (oy * phase + ox) * 4 of each, tap t tap_off[t] bytes
/// on), the weights tap-major (`quads` depth groups a tap); as
/// conv_lane_row otherwise.
template <typename T>
__attribute__((noinline)) void
conv_lane_direct_row(int64_t p0, int64_t np, const uint8_t *quads, int64_t quad_stride,
                     int64_t phase, int64_t ow, const int64_t *tap_off, int64_t taps,
                     int64_t quad_count, const int8_t *wg, int64_t c0, int64_t c1, int64_t oc0,
                     const int32_t *add, const int32_t *multiplier, const int32_t *shift,
                     int64_t count, bool scales_up, VecI y_zp, VecI act_min, VecI act_max, T *y,
                     int64_t pixels) {
  const int64_t dgroups = taps * quad_count;
  const int64_t block_bytes = kConvLaneRows * dgroups * kDotDepthGroup;
  lane_tiles(np, c0, c1, [&](auto rr, auto nv, int64_t p, int64_t c, int64_t cols,
                             int64_t t) ONNXC_RT_SIMD_LAMBDA {
    constexpr int R = decltype(rr)::value, NV = decltype(nv)::value;
    int64_t offset[R];
    for (int r = 0; r < R; ++r) {
      const int64_t pixel = p0 + p + r;
      offset[r] = (pixel / ow * phase + pixel % ow) * kDotDepthGroup;
    }
    // Depth group kk: tap kk / quad_count, quad kk % quad_count.
    int64_t tap = 0, quad = 0;
    const uint8_t *base = quads + tap_off[0];
    auto at = [&](int64_t) ONNXC_RT_SIMD_LAMBDA {
      const uint8_t *a = base + quad * quad_stride;
      if (++quad == quad_count) {
        quad = 0;
        if (++tap < taps)
          base = quads + tap_off[tap];
      }
      return a;
    };
    VecI acc[R][NV];
    const LanePrefetch ahead = lane_prefetch(wg, c, c1, block_bytes, t, dgroups);
    lane_tile_products(acc, offset, at, wg + (c / kConvLaneRows) * block_bytes, block_bytes,
                       dgroups, ahead.at, ahead.lines);
    store_lane_tile<R, NV, T>(acc, cols, add, multiplier, shift, count, oc0 + c, scales_up, y_zp,
                              act_min, act_max, y + c * pixels + p0 + p, pixels);
  });
}

/// conv2d in the channel-lanes forms (pack.h's conv_channel_lanes; weights
/// in tiles of kConvLaneRows channels), a few pixels at a time: kDirect
/// (kLanesDirect, pack.h's conv_lanes_direct) reads the taps in place from
/// the group's channel quads (fill_quads, as the direct form), else from
/// the im2col panel packed as the other form packs it (without virtual
/// rows). `tasks`: runs of 64 channels where there are enough, else of
/// the pixels (each task packing its own panels).
template <bool kDirect, typename T, typename TOut>
void conv2d_lanes(const T *x, const int8_t *w, const int32_t *bias, TOut *y, const Conv2d &g,
                  int64_t n, int64_t m, int64_t group, int32_t x_zp, const int32_t *multiplier,
                  const int32_t *shift, int64_t count, VecI vzp, VecI vmin, VecI vmax,
                  uint8_t *scratch, TaskRunner *runner, int64_t tasks) {
  constexpr int G = kDotDepthGroup;
  const int64_t cg = g.c / group, mg = m / group, taps = g.kh * g.kw;
  const int64_t depth = cg * taps, depth_pad = round_up(depth, G);
  const int64_t group_bytes = round_up(mg, kConvLaneRows) * depth_pad, pixels = g.oh * g.ow;
  const bool reads_input =
      conv_reads_input(g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.h, g.w, g.oh, g.ow);
  constexpr ConvForm kForm = kDirect ? ConvForm::kLanesDirect : ConvForm::kChannelLanes;
  const PaddedPlane pp = conv_plane(kForm, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw);
  const int64_t block = kDirect ? pixels : conv_pixel_block(depth, pixels);
  const ConvScratch sl =
      conv_scratch(depth, g.oh, g.ow, g.sh, cg, pp, reads_input, G, sizeof(TOut), tasks, kForm);
  uint8_t *planes = reads_input || kDirect ? nullptr : scratch + sl.planes;
  const uint8_t pad = static_cast<uint8_t>(static_cast<T>(x_zp));
  const bool scales_up = columns_scale_up(shift, count, 0, count);
  constexpr int64_t kUnit = kLaneTileVectors * kLanes; // channels a tile
  const int64_t used = tasks_for(pixels * mg * depth / 32, tasks);
  const bool by_channels = (mg + kUnit - 1) / kUnit >= used;
  // The direct form's quads: each tap an offset from a pixel's place.
  int64_t tap_off[kAmxDirectTaps] = {0};
  if (kDirect)
    quad_tap_offsets(g, pp, tap_off);
  const int64_t quad_stride = 4 * conv_quad_plane_bytes(pp);
  const uint8_t flip = static_cast<uint8_t>(flip_of<T>() ^ VecI::kPackedFlip);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t gi = 0; gi < group; ++gi) {
      const T *xg = x + (b * g.c + gi * cg) * g.h * g.w;
      if (kDirect)
        fill_quads(xg, g, pp, pad, flip, cg, scratch, sl, scratch + sl.quads, runner, used);
      else if (planes)
        pad_planes(xg, g, pp, pad, cg, planes, runner, used, !by_channels);
      parallel_for(runner, used, [&](int64_t t) {
        uint8_t *panel = scratch + t * sl.task, *rows = panel + sl.rows;
        const Range px = by_channels ? Range{0, pixels} : split_range(pixels, 16, used, t);
        const Range ch = by_channels ? split_range(mg, kUnit, used, t) : Range{0, mg};
        if (ch.begin >= ch.end || px.begin >= px.end)
          return;
        TOut *yg = y + (b * m + gi * mg) * pixels;
        if (kDirect)
          return conv_lane_direct_row(px.begin, px.end - px.begin, scratch + sl.quads,
                                      quad_stride, pp.phase, g.ow, tap_off, taps, cg / 4,
                                      w + gi * group_bytes, ch.begin, ch.end, gi * mg, bias,
                                      multiplier, shift, count, scales_up, vzp, vmin, vmax, yg,
                                      pixels);
        for (int64_t p0 = px.begin; p0 < px.end; p0 += block) {
          const int64_t np = px.end - p0 < block ? px.end - p0 : block;
          const int64_t nv = round_up(np, 16);
          pack_panel<G>(xg, planes, pp, g, cg, p0, np, nv, depth_pad, pad, false, panel, rows);
          conv_lane_row(np, panel, nv * G, w + gi * group_bytes, depth_pad, ch.begin, ch.end,
                        gi * mg, bias, multiplier, shift, count, scales_up, vzp, vmin, vmax,
                        yg + p0, pixels);
        }
      });
    }
}

} // namespace detail
} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_QS8_CONV_LANES_H
