// conv2d's panel form (simd/qs8/conv2d.h): rows of register tiles
// (simd/qs8/tile.h) over an im2col panel (conv_tile_row), which the direct and
// AMX forms fall back on too, the rule by which every form splits a group's
// output among its tasks (conv_splits_pixels), and the form itself
// (conv2d_panel).
#ifndef ONNXC_RT_SIMD_QS8_CONV_PANEL_H
#define ONNXC_RT_SIMD_QS8_CONV_PANEL_H

#include "onnxc_rt/kernels/simd/qs8/conv_staging.h"

namespace onnxc_rt {
namespace simd {
namespace qs8 {
namespace detail {

/// Widest tile: 24 accumulators of 32 AVX-512 registers, 8 of 16 on AVX2,
/// 24 of 32 on NEON with SDOT / USDOT by element (with the 6 vectors of
/// activations and the weights' one: 31; with i8mm's USMMLA 24 of 2 x 2
/// blocks, two weight vectors and the pixel pair loaded: 27); with
/// armv8-a's 16-byte products each vector of pixels is a 4 x 4 tile of
/// its own (16 accumulators), two a call.
constexpr int kConvVectors = kLanes == 16 ? 6 : kDepth16 ? 2 : kLanes == 4 ? 6 : 2;

/// ConvPixels' bound (qs8/pack.h) for computing stride-1 convolutions over
/// virtual rows: on x86 the gather of each tap's rows costs more than the
/// dropped pixels' products while extra / ow * channels < 64 (ResNet-18
/// int8 -6%, CIFAR -7%); on NEON its copies are fewer instructions than
/// those products (the CIFAR CNN under qemu-aarch64: +9% on armv8-a, +3%
/// with SDOT), so never.
#if defined(__ARM_NEON)
constexpr int64_t kVirtualRowsBound = 0;
#else
constexpr int64_t kVirtualRowsBound = 64;
#endif

/// How conv2d and conv2d_amx split a group's output into tasks: by pixels
/// (each task a run of whole units of pixels, packing its own panels)
/// where those units make four a task or outnumber the units of output
/// channels, else by channels (every task packs every panel, and computes
/// a share of the output channels: 7 x 7 and 14 x 14 planes have one to
/// three blocks).
inline bool conv_splits_pixels(int64_t pixel_units, int64_t channel_units, int64_t tasks) {
  return pixel_units >= 4 * tasks || pixel_units >= channel_units;
}

/// conv_splits_pixels for conv2d's VPDPBUSD forms, which also weigh where
/// the cut falls: where each output channel's plane (`pixels` values of
/// `value_bytes`) is not whole 64-byte cache lines, a split by pixels cuts
/// every plane inside a line that two cores then write, so those go by
/// channels instead where `channels_pay` (the form's channel split costs
/// little) and the channels go round the tasks.
inline bool conv_splits_pixels_at_lines(int64_t pixel_units, int64_t channel_units,
                                        int64_t tasks, int64_t pixels, int64_t value_bytes,
                                        bool channels_pay) {
  const bool whole_lines = pixels * value_bytes % 64 == 0;
  return conv_splits_pixels(pixel_units, channel_units, tasks) &&
         (whole_lines || !channels_pay || channel_units < tasks);
}

/// conv_tile<nv> for nv in [1, kConvVectors].
template <typename T, int NV = kConvVectors>
void conv_tiles(int64_t nv, const uint8_t *panel, int64_t panel_stride, const int8_t *w,
                int64_t dgroups, bool narrow, const Requant *q, int64_t rows, VecI y_zp,
                VecI act_min, VecI act_max, T *__restrict y, int64_t y_stride, int64_t valid) {
  if (nv == NV)
    return conv_tile<NV>(panel, panel_stride, w, dgroups, narrow, q, rows, y_zp, act_min,
                         act_max, y, y_stride, valid);
  if constexpr (NV > 1)
    conv_tiles<T, NV - 1>(nv, panel, panel_stride, w, dgroups, narrow, q, rows, y_zp, act_min,
                          act_max, y, y_stride, valid);
}

/// The tiles of one tile of channels across packed pixels [0, np): whole
/// kConvVectors-wide tiles in one loop, their kernel inline, then the last
/// narrower one (conv_tiles), as many vectors as its pixels need (not as
/// the panel's rounding to 16 pixels: on NEON that gave 7 x 7 planes' last
/// pixel a tile of 4 vectors). One call per tile of channels: a call per
/// tile cost about 23 instructions, 2.8 M per inference of MobileNetV2 on
/// armv8-a, whose tiles are 8 pixels wide. Not inlined into conv2d: there
/// GCC stepped the depth loop by a counter and loaded the pixels one vector
/// at a time (35 instructions per 24 SDOT against 31). GCC's first
/// scheduling pass is off here where the ISA header says so (armv8-a: it
/// spilled 4 of the 16 sums of a 4 x 4 tile of 16-byte products).
template <typename T>
__attribute__((noinline)) ONNXC_RT_SIMD_NO_PRESCHEDULE void
conv_tile_row(int64_t np, const uint8_t *panel, int64_t panel_stride, const int8_t *w,
              int64_t dgroups, bool narrow, const Requant *q, int64_t rows, VecI y_zp,
              VecI act_min, VecI act_max, T *__restrict y, int64_t y_stride) {
  static_assert(kConvVectors > 1, "the last tile is narrower than a whole one");
  constexpr int64_t kTile = kConvVectors * kLanes;
  // Whole tiles: those whose pixels need all kConvVectors vectors.
  const int64_t whole = np > kTile - kLanes ? (np - (kTile - kLanes) + kTile - 1) / kTile : 0;
  int64_t px = 0;
  for (int64_t t = 0; t < whole; ++t, px += kTile)
    conv_tile<kConvVectors>(panel + px * kDepthGroup, panel_stride, w, dgroups, narrow, q, rows,
                            y_zp, act_min, act_max, y + px, y_stride, np - px);
  if (px < np)
    conv_tiles<T, kConvVectors - 1>((np - px + kLanes - 1) / kLanes, panel + px * kDepthGroup,
                                    panel_stride, w, dgroups, narrow, q, rows, y_zp, act_min,
                                    act_max, y + px, y_stride, np - px);
}

/// conv2d in the panel form: each block of output pixels' im2col panel
/// (from the padded planes, or the input itself where it needs no
/// padding) times every tile of output channels (conv_tile_row).
template <int G, typename T, typename TOut>
void conv2d_panel(const T *x, const int8_t *w, const int32_t *bias, TOut *y, const Conv2d &g,
                  int64_t n, int64_t m, int64_t group, int32_t x_zp, const int32_t *multiplier,
                  const int32_t *shift, int64_t count, VecI vzp, VecI vmin, VecI vmax,
                  bool narrow_weights, uint8_t *scratch, TaskRunner *runner, int64_t tasks) {
  const int64_t cg = g.c / group, mg = m / group;
  const int64_t depth = cg * g.kh * g.kw, depth_pad = round_up(depth, G), dgroups = depth_pad / G;
  const int64_t tile_bytes = depth_pad * kConvRows,
                group_bytes = round_up(mg, kConvRows) * depth_pad;
  const bool reads_input =
      conv_reads_input(g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.h, g.w, g.oh, g.ow);
  const PaddedPlane pp = padded_plane(g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw);
  const ConvPixels cp = conv_pixels(depth, g.oh, g.ow, g.sh, mg, pp, reads_input,
                                    kVirtualRowsBound);
  const int64_t pixels = g.oh * g.ow, block = cp.block;
  const ConvScratch sl =
      conv_scratch(depth, g.oh, g.ow, g.sh, cg, pp, reads_input, G, sizeof(TOut), tasks);
  uint8_t *planes = reads_input ? nullptr : scratch + sl.planes;
  const uint8_t pad = static_cast<uint8_t>(static_cast<T>(x_zp));
  // Estimated at ~32 multiply-adds a cycle (parallel.h's tasks_for).
  const int64_t used = tasks_for(cp.count * mg * depth / 32, tasks);
  constexpr int64_t kTile = kConvVectors * kLanes; // pixels a whole tile
  // As the direct form's split (conv2d_dot_direct): pixels where the
  // output planes are whole cache lines; elsewhere channels, where there
  // are 128 or more (every task then packs the whole panel: MobileNetV2's
  // 32 -> 192 layer at 28 x 28 ran 14.5 -> 11.9 us at two threads on the
  // Zen 5 host, its 144 -> 32 one slower).
  const bool by_pixels = conv_splits_pixels_at_lines((cp.count + kTile - 1) / kTile,
                                                     (mg + kConvRows - 1) / kConvRows, used,
                                                     pixels, sizeof(TOut), mg >= 128);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t gi = 0; gi < group; ++gi) {
      const T *xg = x + (b * g.c + gi * cg) * g.h * g.w;
      if (planes)
        pad_planes(xg, g, pp, pad, cg, planes, runner, used, by_pixels);
      parallel_for(runner, used, [&](int64_t t) {
        uint8_t *panel = scratch + t * sl.task, *rows = panel + sl.rows;
        TOut *stage = reinterpret_cast<TOut *>(panel + sl.stage);
        const Range px = by_pixels ? split_range(cp.count, kTile, used, t)
                                   : Range{0, cp.count};
        const Range ch = by_pixels ? Range{0, mg} : split_range(mg, kConvRows, used, t);
        if (ch.begin >= ch.end)
          return;
        for (int64_t p0 = px.begin; p0 < px.end; p0 += block) {
          const int64_t np = px.end - p0 < block ? px.end - p0 : block;
          const int64_t nv = round_up(np, 16);
          pack_panel<G>(xg, planes, pp, g, cg, p0, np, nv, depth_pad, pad, cp.virtual_rows,
                        panel, rows);
          for (int64_t mt = ch.begin; mt < ch.end; mt += kConvRows) {
            const int64_t live = ch.end - mt < kConvRows ? ch.end - mt : kConvRows;
            Requant q[kConvRows];
            channel_requants(q, gi * mg + mt, live, bias, multiplier, shift, count);
            const int8_t *wt = w + gi * group_bytes + (mt / kConvRows) * tile_bytes;
            TOut *yc = y + (b * m + gi * mg + mt) * pixels;
            // Virtual rows go through the stage (their padding pixels dropped).
            TOut *yt = cp.virtual_rows ? stage : yc + p0;
            const int64_t y_stride = cp.virtual_rows ? block : pixels;
            conv_tile_row(np, panel, nv * G, wt, dgroups, narrow_weights, q, live, vzp, vmin,
                          vmax, yt, y_stride);
            if (cp.virtual_rows)
              store_virtual_rows(stage, block, live, p0, np, pp.phase, g.ow, yc, pixels);
          }
        }
      });
    }
}

} // namespace detail
} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_QS8_CONV_PANEL_H
