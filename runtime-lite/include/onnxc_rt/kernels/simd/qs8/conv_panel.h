// conv2d's panel form's tiles (simd/qs8/conv2d.h): rows of register tiles
// (simd/qs8/tile.h) over an im2col panel (conv_tile_row), which the direct and
// AMX forms fall back on too, and the rule by which every form splits a group's
// output among its tasks (conv_splits_pixels).
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

} // namespace detail
} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_QS8_CONV_PANEL_H
