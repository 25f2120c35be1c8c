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

/// A quantized 2-D convolution (reference/qs8.h's conv) in the form
/// `kForm`: the one conv2d_form chooses for its shape, which the compiler
/// chooses as it packs the weights (pack.h's conv_form) and names in the
/// call, so that a model's code holds only the forms its layers take (each
/// form's tiles are instantiated for every width: the channel-lanes form's
/// 24 alone cost GCC about 7 s; docs/design.md has the models' figures).
/// x (N, C, H, W) of T with zero point x_zp; weights packed by
/// pack_conv_weights in `kForm` in depth groups of G; `bias` the folded
/// per-channel constant of fold_zero_point with u_zp =
/// packed_zero_point(x_zp + flip_of<T>(), kShifted); G and kShifted as
/// this instruction set takes them (conv_depth_group(depth),
/// kShiftedBytes: the compiler packs for its target, and a mismatch does
/// not compile); `count` multipliers (1 or M); `narrow_weights`: no
/// weight is -128 (weights_are_narrow of qs8/pack.h). `tasks` split each
/// group (conv_splits_pixels, conv2d_amx; run on `runner`, see
/// parallel.h). Scratch: conv_scratch_bytes(..., G, tasks, kForm) of
/// qs8/pack.h. TOut int32_t: the sums themselves, not requantized
/// (conv2d_sums; the panel form).
template <ConvForm kForm, typename T, int G, bool kShifted, typename TOut = T>
void conv2d_in_form(const T *x, const int8_t *w, const int32_t *bias, TOut *y,
                    const int64_t *in_shape, const int64_t *out_shape, const int64_t *kernel,
                    const int64_t *strides, const int64_t *pads_begin, const int64_t *dilations,
                    int64_t group, int32_t x_zp, const int32_t *multiplier, const int32_t *shift,
                    int64_t count, int32_t y_zp, int32_t act_min, int32_t act_max,
                    bool narrow_weights, uint8_t *scratch, TaskRunner *runner = nullptr,
                    int64_t tasks = 1) {
  using namespace detail;
  const Conv2d g{in_shape[1], in_shape[2], in_shape[3], out_shape[2], out_shape[3],
                 kernel[0],   kernel[1],   strides[0],  strides[1],   pads_begin[0],
                 pads_begin[1], dilations[0], dilations[1]};
  const int64_t n = in_shape[0], m = out_shape[1];
  static_assert((G == kDepthGroup || (kAmx && G == kAmxDepthGroup)) &&
                    kShifted == kShiftedBytes,
                "weights packed and folded for another instruction set (qs8/pack.h)");
  constexpr bool kSums = std::is_same_v<TOut, int32_t>;
  static_assert(kForm == ConvForm::kPanel ||
                    (!kSums && G == kDepthGroup &&
                     (kForm == ConvForm::kWinograd      ? kConvWinograd
                      : kForm == ConvForm::kChannelLanes || kForm == ConvForm::kLanesDirect
                          ? kConvLanes
                                                         : kConvDotDirect)),
                "a form this instruction set's conv2d does not have (pack.h's conv_form)");
  const VecI vzp = VecI::broadcast(y_zp), vmin = VecI::broadcast(act_min),
             vmax = VecI::broadcast(act_max);
#if ONNXC_RT_SIMD_AMX
  if constexpr (G == kAmxDepthGroup)
    conv2d_amx<T>(x, w, bias, y, g, n, m, group, x_zp, multiplier, shift, count, vzp, vmin, vmax,
                  scratch, runner, tasks);
  else
#endif
#if ONNXC_RT_SIMD_QS8_WINOGRAD
  if constexpr (kForm == ConvForm::kWinograd)
    conv2d_winograd<T>(x, w, bias, y, g, n, m, group, x_zp, multiplier, shift, count, vzp, vmin,
                       vmax, scratch, runner, tasks);
  else
#endif
  if constexpr (kConvLanes &&
                (kForm == ConvForm::kChannelLanes || kForm == ConvForm::kLanesDirect))
    conv2d_lanes<kForm == ConvForm::kLanesDirect, T>(x, w, bias, y, g, n, m, group, x_zp,
                                                     multiplier, shift, count, vzp, vmin, vmax,
                                                     scratch, runner, tasks);
  else if constexpr (kConvDotDirect && kForm == ConvForm::kDotDirect)
    conv2d_dot_direct<T>(x, w, bias, y, g, n, m, group, x_zp, multiplier, shift, count, vzp,
                         vmin, vmax, scratch, runner, tasks);
  else
    conv2d_panel<G>(x, w, bias, y, g, n, m, group, x_zp, multiplier, shift, count, vzp, vmin,
                    vmax, narrow_weights, scratch, runner, tasks);
}

/// conv2d_in_form in the form conv2d_form chooses at run time, for callers
/// that do not know it (the kernel tests' sweeps, which so cover every
/// form); weights packed in that form, arguments as conv2d_in_form's.
template <typename T, int G, bool kShifted, typename TOut = T>
void conv2d(const T *x, const int8_t *w, const int32_t *bias, TOut *y, const int64_t *in_shape,
            const int64_t *out_shape, const int64_t *kernel, const int64_t *strides,
            const int64_t *pads_begin, const int64_t *dilations, int64_t group, int32_t x_zp,
            const int32_t *multiplier, const int32_t *shift, int64_t count, int32_t y_zp,
            int32_t act_min, int32_t act_max, bool narrow_weights, uint8_t *scratch,
            TaskRunner *runner = nullptr, int64_t tasks = 1) {
  const auto run = [&](auto form) {
    conv2d_in_form<decltype(form)::value, T, G, kShifted, TOut>(
        x, w, bias, y, in_shape, out_shape, kernel, strides, pads_begin, dilations, group, x_zp,
        multiplier, shift, count, y_zp, act_min, act_max, narrow_weights, scratch, runner,
        tasks);
  };
  if constexpr (G == kDepthGroup && !std::is_same_v<TOut, int32_t>) {
    const int64_t m = out_shape[1];
    switch (conv2d_form(G, in_shape[1] / group, m / group, kernel[0], kernel[1], strides[0],
                        strides[1], out_shape[2], out_shape[3], pads_begin[0], pads_begin[1],
                        dilations[0], dilations[1])) {
    case ConvForm::kWinograd:
      if constexpr (detail::kConvWinograd)
        return run(std::integral_constant<ConvForm, ConvForm::kWinograd>());
      break;
    case ConvForm::kChannelLanes:
      if constexpr (detail::kConvLanes)
        return run(std::integral_constant<ConvForm, ConvForm::kChannelLanes>());
      break;
    case ConvForm::kLanesDirect:
      if constexpr (detail::kConvLanes)
        return run(std::integral_constant<ConvForm, ConvForm::kLanesDirect>());
      break;
    case ConvForm::kDotDirect:
      if constexpr (detail::kConvDotDirect)
        return run(std::integral_constant<ConvForm, ConvForm::kDotDirect>());
      break;
    case ConvForm::kPanel:
      break;
    }
  }
  run(std::integral_constant<ConvForm, ConvForm::kPanel>());
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
  conv2d_in_form<ConvForm::kPanel, T, G, kShifted, int32_t>(
      x, w, folded, y, in_shape, out_shape, kernel, strides, pads_begin, dilations, group, zp,
      &unused, &unused, 1, 0, 0, 0, narrow_weights, scratch + round_up(m * 4, 64), runner, tasks);
}

} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_QS8_CONV2D_H
