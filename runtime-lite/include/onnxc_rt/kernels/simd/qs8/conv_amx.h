// conv2d on AMX tiles (x86-64-amx; simd/qs8/amx.h's tile operations,
// simd/qs8/conv2d.h): the direct form by tap, else im2col panels.
#ifndef ONNXC_RT_SIMD_QS8_CONV_AMX_H
#define ONNXC_RT_SIMD_QS8_CONV_AMX_H

#include "onnxc_rt/kernels/simd/qs8/amx.h"
#include "onnxc_rt/kernels/simd/qs8/conv_panel.h"

namespace onnxc_rt {
namespace simd {
namespace qs8 {
namespace detail {

#if ONNXC_RT_SIMD_AMX
/// conv2d on AMX tiles (amx.h): the weights packed in kAmxDepthGroup, tap
/// by tap in the direct form (conv_amx_direct: each tap's second operand
/// read in place from the group's channel quads over virtual rows), else
/// as an im2col panel of whole pixel tiles (pack_panel's tile_chunks).
/// `tasks` as conv2d's: the quads (or padded planes) by channel, then
/// pixel blocks or pairs of channel tiles, each task in with_amx_tiles of
/// its own (the tile configuration is the thread's).
template <typename T, typename TOut>
void conv2d_amx(const T *x, const int8_t *w, const int32_t *bias, TOut *y, const Conv2d &g,
                int64_t n, int64_t m, int64_t group, int32_t x_zp, const int32_t *multiplier,
                const int32_t *shift, int64_t count, VecI vzp, VecI vmin, VecI vmax,
                uint8_t *scratch, TaskRunner *runner, int64_t tasks) {
  const int64_t cg = g.c / group, mg = m / group, taps = g.kh * g.kw, depth = cg * taps;
  const int64_t depth_pad = round_up(depth, kAmxDepthGroup), steps = depth_pad / kAmxDepthGroup;
  const int64_t group_bytes = round_up(mg, kAmxConvRows) * depth_pad, pixels = g.oh * g.ow;
  const bool reads_input =
      conv_reads_input(g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.h, g.w, g.oh, g.ow);
  const bool direct = conv_amx_direct(cg, taps, g.sh, g.sw);
  const PaddedPlane pp = padded_plane(g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw);
  // The direct form always runs over virtual rows (a tap is then an
  // offset); with no padding columns (1x1) they are the output rows.
  ConvPixels cp{};
  if (direct) {
    cp.count = conv_pixel_count(g.oh, g.ow, pp, true);
    cp.virtual_rows = pp.phase != g.ow;
    cp.block = conv_pixel_block(depth, cp.count);
  } else {
    cp = conv_pixels(depth, g.oh, g.ow, g.sh, mg, pp, reads_input, kVirtualRowsBound);
  }
  const ConvScratch sl = conv_scratch(depth, g.oh, g.ow, g.sh, cg, pp, reads_input,
                                      kAmxDepthGroup, sizeof(TOut), tasks);
  const uint8_t pad = static_cast<uint8_t>(static_cast<T>(x_zp));
  const uint8_t flip = static_cast<uint8_t>(flip_of<T>() ^ VecI::kPackedFlip);
  // The second operand: channel quads ([cg/4][quad_plane][4]: a tap an
  // offset, a step 16 quads, rows one quad apart, 16 pixels 64 bytes) or
  // the panel ([nv/16][depth_pad/4][16][4]).
  const int64_t quad_plane = conv_quad_plane_bytes(pp);
  int64_t tap_off[kAmxDirectTaps] = {0};
  TileOperand base{tap_off, 1, steps, kAmxStepBytes, 64, 0};
  if (direct) {
    for (int64_t t = 0; t < taps; ++t)
      tap_off[t] = ((t / g.kw) * g.dh * pp.phase + (t % g.kw) * g.dw) * kDotDepthGroup;
    base = {tap_off, taps, cg / kAmxDepthGroup, kAmxConvRows * 4 * quad_plane, 4 * quad_plane,
            kAmxPixels * kDotDepthGroup};
  }
  // ~64 multiply-adds a cycle (parallel.h's tasks_for); the pixels to the
  // tasks where their blocks are many enough, in equal runs of pairs of
  // pixel tiles (blocks of uneven runs: whole blocks split 3 as 2 + 1), else
  // pairs of channel tiles (32 output channels: conv_tiles_amx's step).
  constexpr int64_t kPair = 2 * kAmxConvRows;
  const int64_t used = tasks_for(cp.count * mg * depth / 64, tasks);
  const int64_t blocks = (cp.count + cp.block - 1) / cp.block, pairs = (mg + kPair - 1) / kPair;
  const bool by_pixels = conv_splits_pixels(blocks, pairs, used);
  uint8_t *planes = scratch + sl.planes, *quads = scratch + sl.quads;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t gi = 0; gi < group; ++gi) {
      const T *xg = x + (b * g.c + gi * cg) * g.h * g.w;
      if (direct) {
        fill_quads(xg, g, pp, pad, flip, cg, scratch, sl, quads, runner, used);
      } else if (!reads_input) {
        pad_planes(xg, g, pp, pad, cg, planes, runner, used, by_pixels);
      }
      TOut *yg = y + (b * m + gi * mg) * pixels;
      parallel_for(runner, used, [&](int64_t t) {
        uint8_t *own = scratch + t * sl.task;
        TOut *stage = reinterpret_cast<TOut *>(own + sl.stage);
        const Range px = by_pixels ? split_range(cp.count, 2 * kAmxPixels, used, t)
                                   : Range{0, cp.count};
        const Range ch = by_pixels ? Range{0, mg} : split_range(mg, kPair, used, t);
        if (px.begin >= px.end || ch.begin >= ch.end)
          return;
        TileOperand op = base;
        auto q_at = [&](int64_t c) {
          const int64_t oc = gi * mg + ch.begin + c;
          return requant_broadcast(bias[oc], multiplier[count > 1 ? oc : 0],
                                   shift[count > 1 ? oc : 0]);
        };
        with_amx_tiles([&](bool tiles) {
          for (int64_t p0 = px.begin; p0 < px.end; p0 += cp.block) {
            const int64_t np = px.end - p0 < cp.block ? px.end - p0 : cp.block;
            const uint8_t *b0 = quads + p0 * kDotDepthGroup;
            if (!direct) {
              const int64_t nv = round_up(np, 16);
              pack_panel<kDotDepthGroup>(xg, reads_input ? nullptr : planes, pp, g, cg, p0, np,
                                         nv, depth_pad, pad, cp.virtual_rows, own,
                                         own + sl.rows, true);
              op.tile = depth_pad * kAmxPixels;
              b0 = own;
            }
            // Virtual rows go through the stage (their padding pixels
            // dropped); mt counts from the task's first channel.
            auto dest = [&](int64_t mt) {
              return cp.virtual_rows ? stage : yg + (ch.begin + mt) * pixels + p0;
            };
            auto store = [&](int64_t mt, int64_t live) {
              if (cp.virtual_rows)
                store_virtual_rows(stage, cp.block, live, p0, np, pp.phase, g.ow,
                                   yg + (ch.begin + mt) * pixels, pixels);
            };
            conv_tiles_amx<TOut>(tiles, np, b0, op,
                                 w + gi * group_bytes + ch.begin / kAmxConvRows * steps *
                                                            kAmxStepBytes,
                                 steps, ch.end - ch.begin, q_at, vzp, vmin, vmax, dest,
                                 cp.virtual_rows ? cp.block : pixels, store);
          }
        });
      });
    }
}
#endif

} // namespace detail
} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_QS8_CONV_AMX_H
