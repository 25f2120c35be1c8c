// SIMD qs8 conv2d: im2col of a block of output pixels into unsigned bytes,
// four depth values per pixel together ([depth/4][pixels][4]; eight with
// NEON's i8mm, whose USMMLA multiplies two pixels' 8 by two channels' 8),
// times weights packed at compile time (simd/qs8/pack.h) in register tiles
// (simd/qs8/tile.h) of 4 output channels x up to 6 (AVX-512, NEON) or 2
// (AVX2, armv8-a) vectors of pixels; requantized from registers into the
// NCHW output.
#ifndef ONNXC_RT_SIMD_QS8_CONV2D_H
#define ONNXC_RT_SIMD_QS8_CONV2D_H

#include "onnxc_rt/kernels/simd/qs8/conv_amx.h"
#include "onnxc_rt/kernels/simd/qs8/conv_direct.h"
#include "onnxc_rt/kernels/simd/qs8/conv_lanes.h"
#include "onnxc_rt/kernels/simd/qs8/winograd.h"

namespace onnxc_rt {
namespace simd {
namespace qs8 {

namespace detail {

/// Whether this instruction set's conv2d has Winograd's form (pack.h's
/// conv_winograd; simd/qs8/winograd.h): AVX2.
constexpr bool kConvWinograd = ONNXC_RT_SIMD_QS8_WINOGRAD;

/// This instruction set's forms (pack.h's conv_form).
constexpr ConvForms kConvForms{kConvLanes, kConvDotDirect, kConvWinograd};

} // namespace detail

/// The form conv2d takes a convolution in on this instruction set
/// (pack.h's conv_form, which the packed weights, their taps and the
/// scratch follow), for weights in depth groups of `dg`, cg input and mg
/// output channels a group, the kernel, strides, output size, leading pads
/// and dilations as conv2d takes them. conv2d_sums (int32 outputs) always
/// takes the panel.
inline ConvForm conv2d_form(int64_t dg, int64_t cg, int64_t mg, int64_t kh, int64_t kw,
                            int64_t sh, int64_t sw, int64_t oh, int64_t ow, int64_t ph,
                            int64_t pw, int64_t dh, int64_t dw) {
  return conv_form(detail::kConvForms, dg, cg, mg, kh, kw, sh, sw, oh, ow, ph, pw, dh, dw);
}

/// A quantized 2-D convolution (reference/qs8.h's conv): x (N, C, H, W) of
/// T with zero point x_zp; weights packed by pack_conv_weights in depth
/// groups of G; `bias` the folded per-channel constant of fold_zero_point
/// with u_zp = packed_zero_point(x_zp + flip_of<T>(), kShifted); G and
/// kShifted as this instruction set takes them (conv_depth_group(depth),
/// kShiftedBytes: the compiler packs for its target, and a mismatch does
/// not compile); `count` multipliers (1 or M); `narrow_weights`: no
/// weight is -128 (weights_are_narrow of qs8/pack.h). `tasks` split each
/// group (conv_splits_pixels, conv2d_amx; run on `runner`, see
/// parallel.h). Scratch:
/// conv_scratch_bytes(..., G, tasks) of qs8/pack.h. TOut int32_t: the sums
/// themselves, not requantized (conv2d_sums).
template <typename T, int G, bool kShifted, typename TOut = T>
void conv2d(const T *x, const int8_t *w, const int32_t *bias, TOut *y, const int64_t *in_shape,
            const int64_t *out_shape, const int64_t *kernel, const int64_t *strides,
            const int64_t *pads_begin, const int64_t *dilations, int64_t group, int32_t x_zp,
            const int32_t *multiplier, const int32_t *shift, int64_t count, int32_t y_zp,
            int32_t act_min, int32_t act_max, bool narrow_weights, uint8_t *scratch,
            TaskRunner *runner = nullptr, int64_t tasks = 1) {
  using namespace detail;
  const Conv2d g{in_shape[1], in_shape[2], in_shape[3], out_shape[2], out_shape[3],
                 kernel[0],   kernel[1],   strides[0],  strides[1],   pads_begin[0],
                 pads_begin[1], dilations[0], dilations[1]};
  const int64_t n = in_shape[0], m = out_shape[1];
  static_assert((G == kDepthGroup || (kAmx && G == kAmxDepthGroup)) &&
                    kShifted == kShiftedBytes,
                "weights packed and folded for another instruction set (qs8/pack.h)");
  const VecI vzp = VecI::broadcast(y_zp), vmin = VecI::broadcast(act_min),
             vmax = VecI::broadcast(act_max);
#if ONNXC_RT_SIMD_AMX
  if constexpr (G == kAmxDepthGroup) {
    conv2d_amx<T>(x, w, bias, y, g, n, m, group, x_zp, multiplier, shift, count, vzp, vmin, vmax,
                  scratch, runner, tasks);
    return;
  } else
#endif
  {
#if ONNXC_RT_SIMD_QS8_WINOGRAD
    if constexpr (!std::is_same_v<TOut, int32_t>) {
      if (conv2d_form(G, g.c / group, m / group, g.kh, g.kw, g.sh, g.sw, g.oh, g.ow, g.ph, g.pw,
                      g.dh, g.dw) == ConvForm::kWinograd)
        return conv2d_winograd<T>(x, w, bias, y, g, n, m, group, x_zp, multiplier, shift, count,
                                  vzp, vmin, vmax, scratch, runner, tasks);
    }
#endif
    if constexpr (kConvLanes && !std::is_same_v<TOut, int32_t>) {
      const ConvForm form = conv2d_form(G, g.c / group, m / group, g.kh, g.kw, g.sh, g.sw, g.oh,
                                        g.ow, g.ph, g.pw, g.dh, g.dw);
      if (form == ConvForm::kChannelLanes)
        return conv2d_lanes<T>(x, w, bias, y, g, n, m, group, x_zp, multiplier, shift, count,
                               vzp, vmin, vmax, scratch, runner, tasks);
      if (form == ConvForm::kDotDirect)
        return conv2d_dot_direct<T>(x, w, bias, y, g, n, m, group, x_zp, multiplier, shift,
                                    count, vzp, vmin, vmax, scratch, runner, tasks);
    }
    const int64_t cg = g.c / group, mg = m / group;
    const int64_t depth = cg * g.kh * g.kw, depth_pad = round_up(depth, G), dgroups = depth_pad / G;
    const int64_t tile_bytes = depth_pad * kConvRows,
                  group_bytes = round_up(mg, kConvRows) * depth_pad;
    const bool reads_input = conv_reads_input(g.kh, g.kw, g.sh, g.sw, g.ph, g.pw);
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
}

/// ConvInteger's int32 convolution with x's zero point known only at run
/// time (ONNX Runtime's dynamic quantization: DynamicQuantizeLinear
/// computes it; null: 0): y = sum (x - *x_zp) * w, w packed as for conv2d
/// and `weight_sums` each output channel's sum of w (qs8/pack.h). The zero
/// point's share folds per channel at run time into the front of scratch;
/// the padding is the zero point's byte, as conv2d's; `tasks` as conv2d's.
/// Scratch: conv_sums_scratch_bytes(..., G, tasks).
template <typename T, int G, bool kShifted>
void conv2d_sums(const T *x, const T *x_zp, const int8_t *w, const int32_t *weight_sums,
                 int32_t *y, const int64_t *in_shape, const int64_t *out_shape,
                 const int64_t *kernel, const int64_t *strides, const int64_t *pads_begin,
                 const int64_t *dilations, int64_t group, bool narrow_weights,
                 uint8_t *scratch, TaskRunner *runner = nullptr, int64_t tasks = 1) {
  const int64_t m = out_shape[1];
  const int32_t zp = x_zp ? int32_t(*x_zp) : 0;
  const int32_t u_zp = packed_zero_point(zp + flip_of<T>(), kShifted);
  int32_t *folded = reinterpret_cast<int32_t *>(scratch);
  for (int64_t oc = 0; oc < m; ++oc)
    folded[oc] = -u_zp * weight_sums[oc];
  const int32_t unused = 0; // no requantization: multipliers and clamps unread
  conv2d<T, G, kShifted, int32_t>(x, w, folded, y, in_shape, out_shape, kernel, strides,
                                  pads_begin, dilations, group, zp, &unused, &unused, 1, 0, 0, 0,
                                  narrow_weights, scratch + round_up(m * 4, 64), runner,
                                  tasks);
}

} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_QS8_CONV2D_H
