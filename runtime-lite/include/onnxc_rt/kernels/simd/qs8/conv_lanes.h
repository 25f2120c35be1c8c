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

/// One channel-lanes tile: R pixels of the panel (a pixel's depth group kk
/// at a + kk * a_step + r * 4) x NV vectors of channels (their packed
/// weights `block_bytes` apart, kConvLaneRows channels' depth group per
/// step), requantized with output channel `oc`'s constants on, and stored
/// transposed: channel c's R pixels at y + c * pixels, the first `cols`
/// channels.
template <int R, int NV, typename T>
ONNXC_RT_SIMD_INLINE void conv_lane_tile(const uint8_t *a, int64_t a_step, const int8_t *w,
                                         int64_t block_bytes, int64_t dgroups, int64_t cols,
                                         const int32_t *add, const int32_t *multiplier,
                                         const int32_t *shift, int64_t count, int64_t oc,
                                         bool scales_up, VecI y_zp, VecI act_min, VecI act_max,
                                         T *y, int64_t pixels) {
  constexpr int64_t kStep = kConvLaneRows * kDotDepthGroup;
  VecI acc[R][NV];
  for_each_index<R>([&](auto r) {
    for_each_index<NV>([&](auto v) { acc[r][v] = VecI::zero(); });
  });
  for (int64_t kk = 0; kk < dgroups; ++kk) {
    VecI wk[NV];
    for_each_index<NV>([&](auto v) { wk[v] = VecI::load(w + v * block_bytes + kk * kStep); });
    const uint8_t *ak = a + kk * a_step;
    for_each_index<R>([&](auto r) {
      const VecI ab = broadcast4(ak + r * kDotDepthGroup);
      for_each_index<NV>([&](auto v) { acc[r][v] = VecI::dot_part(acc[r][v], ab, wk[v]); });
    });
  }
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

/// conv_lane_tile<r, NV> for r in [1, R].
template <int NV, typename T, int R = kLaneTileRows, typename... Args>
ONNXC_RT_SIMD_INLINE void conv_lane_tiles(int64_t r, Args... args) {
  if (r == R)
    return conv_lane_tile<R, NV, T>(args...);
  if constexpr (R > 1)
    conv_lane_tiles<NV, T, R - 1>(r, args...);
}

/// The channel-lanes tiles of one panel (np pixels, depth group kk of
/// pixel p at panel + kk * panel_stride + p * 4) and channels [c0, c1) of
/// the group (packed weights wg): kLaneTileVectors vectors of channels at
/// a time, the pixels spread evenly over tiles of at most kLaneTileRows
/// (49 pixels as 4 tiles of 6 and 5 of 5: a tile of one pixel runs its
/// four chains at the dot product's latency). Not inlined into conv2d,
/// like conv_tile_row.
template <typename T>
__attribute__((noinline)) void
conv_lane_row(int64_t np, const uint8_t *panel, int64_t panel_stride, const int8_t *wg,
              int64_t depth_pad, int64_t c0, int64_t c1, int64_t oc0, const int32_t *add,
              const int32_t *multiplier, const int32_t *shift, int64_t count, bool scales_up,
              VecI y_zp, VecI act_min, VecI act_max, T *y, int64_t pixels) {
  const int64_t dgroups = depth_pad / kDotDepthGroup, block_bytes = kConvLaneRows * depth_pad;
  const int64_t tiles = (np + kLaneTileRows - 1) / kLaneTileRows;
  for (int64_t c = c0; c < c1; c += kLaneTileVectors * kLanes) {
    const int64_t cols = c1 - c < kLaneTileVectors * kLanes ? c1 - c : kLaneTileVectors * kLanes;
    const int8_t *w = wg + (c / kConvLaneRows) * block_bytes;
    for (int64_t t = 0, p = 0; t < tiles; ++t) {
      const int64_t r = np / tiles + (t < np % tiles ? 1 : 0);
      auto run = [&](auto nv) ONNXC_RT_SIMD_LAMBDA {
        conv_lane_tiles<decltype(nv)::value, T>(
            r, panel + p * kDotDepthGroup, panel_stride, w, block_bytes, dgroups, cols, add,
            multiplier, shift, count, oc0 + c, scales_up, y_zp, act_min, act_max,
            y + c * pixels + p, pixels);
      };
      switch ((cols + kLanes - 1) / kLanes) {
      case 1: run(std::integral_constant<int, 1>()); break;
      case 2: run(std::integral_constant<int, 2>()); break;
      case 3: run(std::integral_constant<int, 3>()); break;
      default: run(std::integral_constant<int, kLaneTileVectors>()); break;
      }
      p += r;
    }
  }
}

/// conv2d in the channel-lanes form (pack.h's conv_channel_lanes; weights
/// in tiles of kConvLaneRows channels): the im2col panel packed as the
/// other form packs it (without virtual rows), read a few pixels at a
/// time. `tasks`: runs of 64 channels where there are enough, else of
/// the pixels (each task packing its own panels).
template <typename T, typename TOut>
void conv2d_lanes(const T *x, const int8_t *w, const int32_t *bias, TOut *y, const Conv2d &g,
                  int64_t n, int64_t m, int64_t group, int32_t x_zp, const int32_t *multiplier,
                  const int32_t *shift, int64_t count, VecI vzp, VecI vmin, VecI vmax,
                  uint8_t *scratch, TaskRunner *runner, int64_t tasks) {
  constexpr int G = kDotDepthGroup;
  const int64_t cg = g.c / group, mg = m / group;
  const int64_t depth = cg * g.kh * g.kw, depth_pad = round_up(depth, G);
  const int64_t group_bytes = round_up(mg, kConvLaneRows) * depth_pad, pixels = g.oh * g.ow;
  const bool reads_input = conv_reads_input(g.kh, g.kw, g.sh, g.sw, g.ph, g.pw);
  const PaddedPlane pp = padded_plane(g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw);
  const int64_t block = conv_pixel_block(depth, pixels);
  const ConvScratch sl =
      conv_scratch(depth, g.oh, g.ow, g.sh, cg, pp, reads_input, G, sizeof(TOut), tasks);
  uint8_t *planes = reads_input ? nullptr : scratch + sl.planes;
  const uint8_t pad = static_cast<uint8_t>(static_cast<T>(x_zp));
  const bool scales_up = columns_scale_up(shift, count, 0, count);
  constexpr int64_t kUnit = kLaneTileVectors * kLanes; // channels a tile
  const int64_t used = tasks_for(pixels * mg * depth / 32, tasks);
  const bool by_channels = (mg + kUnit - 1) / kUnit >= used;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t gi = 0; gi < group; ++gi) {
      const T *xg = x + (b * g.c + gi * cg) * g.h * g.w;
      if (planes)
        pad_planes(xg, g, pp, pad, cg, planes, runner, used, !by_channels);
      parallel_for(runner, used, [&](int64_t t) {
        uint8_t *panel = scratch + t * sl.task, *rows = panel + sl.rows;
        const Range px = by_channels ? Range{0, pixels} : split_range(pixels, 16, used, t);
        const Range ch = by_channels ? split_range(mg, kUnit, used, t) : Range{0, mg};
        if (ch.begin >= ch.end || px.begin >= px.end)
          return;
        for (int64_t p0 = px.begin; p0 < px.end; p0 += block) {
          const int64_t np = px.end - p0 < block ? px.end - p0 : block;
          const int64_t nv = round_up(np, 16);
          pack_panel<G>(xg, planes, pp, g, cg, p0, np, nv, depth_pad, pad, false, panel, rows);
          conv_lane_row(np, panel, nv * G, w + gi * group_bytes, depth_pad, ch.begin, ch.end,
                        gi * mg, bias, multiplier, shift, count, scales_up, vzp, vmin, vmax,
                        y + (b * m + gi * mg) * pixels + p0, pixels);
        }
      });
    }
}

} // namespace detail
} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_QS8_CONV_LANES_H
