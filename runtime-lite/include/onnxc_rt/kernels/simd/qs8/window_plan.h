// The geometry and scratch of the SIMD qs8 window kernels, depthwise
// convolution (simd/qs8/depthwise.h) and max pooling (simd/qs8/pool.h):
// their bands, rows, small-plane windows and scratch sizes. Plain C++ with
// no instruction set, as pack.h: the compiler sizes each call's scratch
// from the same functions the kernels lay it out by.
#ifndef ONNXC_RT_SIMD_QS8_WINDOW_PLAN_H
#define ONNXC_RT_SIMD_QS8_WINDOW_PLAN_H

#include "onnxc_rt/kernels/simd/qs8/pack.h"

namespace onnxc_rt {
namespace simd {
namespace qs8 {

/// Most taps a depthwise convolution's weight table holds (larger
/// kernels run the reference kernel).
constexpr int64_t kMaxDepthwiseTaps = 64;

/// A depthwise convolution computed channel-blocked (simd/qs8/common.h's
/// depthwise_blocked): kDepthwiseBlock channels interleaved pixel by pixel,
/// zero-point padded, one band of `rows` output rows at a time: `in_rows`
/// padded input rows of `in_width` pixels (the window's reach, or the
/// input's width and left padding if wider), then the band's outputs
/// staged as bytes, pixel by pixel, before they are transposed back to
/// NCHW. Each input value takes a 4-byte slot in the band, in one of two
/// forms (`quad`, the target's Qs8Packing::quadDepthwise):
/// - widened, one tap a multiply-add (each input is read by every tap:
///   widened once; x86 reads int32 lanes as they are, a memory operand of
///   vpdpwssd; NEON's SMLAL takes int16 and uses the first half);
/// - quads, where the ISA has a byte dot product (vpdpbusd, SDOT, USDOT):
///   pixel q's slot holds the bytes of columns q, q + dw, q + 2 dw and
///   q + 3 dw, packed as conv2d packs them, so that one dot product sums
///   four taps of a kernel row. They are built from a band of the packed
///   bytes themselves, 3 dw columns wider.
/// Bands keep the buffers within about kDepthwiseBandBytes.
constexpr int64_t kDepthwiseBlock = 16;
constexpr int64_t kDepthwiseBandBytes = 131072;
/// Bytes an input value takes in the band.
constexpr int64_t kDepthwiseValueBytes = 4;
/// Taps a quad slot holds: one kernel row's columns kx .. kx + 3.
constexpr int64_t kDepthwiseQuad = 4;
struct DepthwiseBand {
  int64_t rows, in_rows, in_width, bytes_width, bytes;
};
/// Multiply-adds per kernel row: one per tap, or one per quad of taps.
inline int64_t depthwise_row_units(int64_t kw, bool quad) {
  return quad ? (kw + kDepthwiseQuad - 1) / kDepthwiseQuad : kw;
}
inline DepthwiseBand depthwise_band(int64_t w, int64_t oh, int64_t ow, int64_t kh, int64_t kw,
                                    int64_t sh, int64_t sw, int64_t pw, int64_t dh, int64_t dw,
                                    bool quad) {
  const int64_t reach_w = (ow - 1) * sw + (kw - 1) * dw + 1, reach_h = (kh - 1) * dh + 1;
  const int64_t in_width = reach_w > pw + w ? reach_w : pw + w;
  // Quads: one byte more a value (the bytes they are built from), whose
  // rows reach 3 dw columns further.
  const int64_t bytes_width = quad ? in_width + (kDepthwiseQuad - 1) * dw : 0;
  const int64_t row_bytes = kDepthwiseValueBytes * in_width + bytes_width;
  // Bytes a band of b rows needs: its input rows and its staged outputs.
  const int64_t per_row = (sh * row_bytes + ow) * kDepthwiseBlock;
  int64_t rows = (kDepthwiseBandBytes - (reach_h - sh) * row_bytes * kDepthwiseBlock) / per_row;
  rows = rows < 1 ? 1 : rows > oh ? oh : rows;
  const int64_t in_rows = (rows - 1) * sh + reach_h;
  // Slack: the transposes move whole 16-pixel tiles.
  return {rows, in_rows, in_width, bytes_width,
          (in_rows * row_bytes + rows * ow + kDepthwiseBlock) * kDepthwiseBlock};
}

/// Output rows narrower than this take the channel-blocked form where the
/// ISA forms windows but cannot gather bytes: a vector of 16 pixels would
/// be mostly empty (x86-64-vnni on an Intel Xeon, bench/qs8_conv_bench.cpp:
/// MobileNetV2's 7x7 layer 49 us in rows against 43 blocked, its 14x14 one
/// 31 against 43).
constexpr int64_t kDepthwiseRowsMinWidth = 12;

/// The column stride depthwise_conv2d's in-row and unrolled forms are
/// compiled for (simd/qs8/depthwise.h): 1 or 2 where the row is undilated,
/// else 0 (neither form).
inline int64_t depthwise_window_stride(int64_t sw, int64_t dw) {
  return dw == 1 && (sw == 1 || sw == 2) ? sw : 0;
}

/// Whether an int8 depthwise convolution may read its plane's rows in
/// place (simd/qs8/depthwise.h's depthwise_rows, on ISAs with
/// VecI::kByteWindows): windows of 4 bytes at a column stride of 1 or 2,
/// kernel rows of up to 8 taps (two quads). The kernel takes it for rows
/// of kDepthwiseRowsMinWidth or more, and where the ISA gathers bytes
/// (VecI::kByteGather) for narrow rows several to a vector
/// (depthwise_rows_per_vector); the scratch fits either form.
inline bool depthwise_reads_rows(int64_t kw, int64_t sw, int64_t dw) {
  return depthwise_window_stride(sw, dw) != 0 && kw <= 2 * kDepthwiseQuad;
}

/// The window simd/qs8/depthwise.h's depthwise_conv2d unrolls for a kh x
/// kw kernel at column stride sw and column dilation dw: 3 or 5 for a 3x3
/// or 5x5 window at a column stride of 1 or 2, undilated along the row;
/// else 0 (its taps in a loop). With depthwise_window_stride, the
/// template arguments the compiler names (so that a model's code holds
/// only the forms its layers take) and the kernel's run-time choice reads.
inline int64_t depthwise_unrolled_kernel(int64_t kh, int64_t kw, int64_t sw, int64_t dw) {
  return depthwise_window_stride(sw, dw) != 0 && kh == kw && (kh == 3 || kh == 5) ? kh : 0;
}

/// Output rows a vector of `lanes` pixels holds in depthwise_rows: 1 for
/// rows of kDepthwiseRowsMinWidth or more; for narrower ones (byte gathers
/// only) as many whole rows as fit in the lanes and whose windows lie in
/// one 64-byte load (row r's at r sh pitch bytes), or 0: the blocked form.
inline int64_t depthwise_rows_per_vector(int64_t ow, int64_t kw, int64_t sh, int64_t sw,
                                         int64_t pitch, int64_t lanes, bool gather) {
  if (ow >= kDepthwiseRowsMinWidth)
    return 1;
  if (!gather)
    return 0;
  const int64_t quads = (kw + kDepthwiseQuad - 1) / kDepthwiseQuad;
  int64_t rows = lanes / ow;
  while (rows > 1 && (rows - 1) * sh * pitch + (ow - 1) * sw + quads * kDepthwiseQuad > 64)
    --rows;
  return rows > 1 ? rows : 0;
}

/// The padded plane depthwise_rows reads: `rows` rows of `pitch` bytes
/// (every row an output row's windows reach; columns to the farthest
/// window, or the input's if wider), then slack for a vector's window
/// load past the last row (64 bytes from a window's start) and for the
/// padding's whole 16-byte stores (AVX-512's padded_plane: a row's whole
/// 16-, 32- or 64-byte store, up to 63 bytes past it, within the 64 + 32
/// + 8); `quads` of taps a kernel row.
struct DepthwiseRows {
  int64_t rows, pitch, quads, bytes;
};
inline DepthwiseRows depthwise_rows_geometry(int64_t w, int64_t oh, int64_t ow, int64_t kh,
                                             int64_t kw, int64_t sh, int64_t sw, int64_t pw,
                                             int64_t dh) {
  const int64_t rows = (oh - 1) * sh + (kh - 1) * dh + 1;
  const int64_t reach = (ow - 1) * sw + kw;
  const int64_t pitch = reach > pw + w ? reach : pw + w;
  constexpr int64_t kSlack = 64 + 16 * 2 + 2 * kDepthwiseQuad;
  static_assert(kSlack >= 63, "a padded_plane row store reaches 63 bytes past the plane");
  return {rows, pitch, (kw + kDepthwiseQuad - 1) / kDepthwiseQuad, rows * pitch + kSlack};
}

/// simd/qs8/depthwise.h's small-plane form, where the ISA permutes the
/// bytes of two tables (VecI::kBytePermute2: AVX512-VBMI's vpermt2b): the
/// output plane in runs of 16 pixels, row after row; per run and kernel row
/// one entry, a 64-byte window of the input plane itself (from `base`, the
/// bytes under `mask`) and an index whose byte 4 i + j is the window's byte
/// that lane i's tap j reads, or 64 where that tap is padding (or past the
/// row): no padded copy of the plane to write and read back. For up to 64
/// output pixels (7 x 7 planes) and kernel rows of up to 4 taps (one quad):
/// bench/qs8_conv_bench.cpp on AMD Zen 5 ran 384 channels at 14 x 14 in
/// 25.6 us this way against 17.6 in rows, and 5 x 5 kernels (two quads a
/// row) at 7 x 7 4-6% slower.
constexpr int64_t kDepthwiseSmallPixels = 64;
struct DepthwiseSmallEntry {
  int64_t base;
  uint64_t mask;
};

/// Entries of the small-plane form (one a run of 16 pixels and kernel row)
/// where the plane and kernel may take it, else 0 (a larger plane or wider
/// kernel rows); whether they do, their windows' spans decide
/// (depthwise_small_windows).
constexpr int64_t depthwise_small_entries(int64_t oh, int64_t ow, int64_t kh, int64_t kw) {
  constexpr int64_t L = 16, Q = kDepthwiseQuad;
  const int64_t pixels = oh * ow;
  return pixels > kDepthwiseSmallPixels || kw > Q || kh * Q > 64 // a vector of quads
             ? 0
             : (pixels + L - 1) / L * kh;
}

/// The entries of the small-plane form, run by run, kernel row by kernel
/// row: written where index and entry are given (64 bytes an index; room
/// for depthwise_small_entries of them), in one pass; returns how many, or
/// 0 where the form does not apply (depthwise_small_entries 0, or a window
/// spanning more than 64 bytes: some entries may then have been written).
inline int64_t depthwise_small_windows(int64_t h, int64_t w, int64_t oh, int64_t ow, int64_t kh,
                                       int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                                       int64_t pw, int64_t dh, int64_t dw, uint8_t *index,
                                       DepthwiseSmallEntry *entry) {
  constexpr int64_t L = 16, Q = kDepthwiseQuad;
  const int64_t pixels = oh * ow;
  if (depthwise_small_entries(oh, ow, kh, kw) == 0)
    return 0;
  int64_t e = 0, oy = 0, ox = 0;
  for (int64_t p0 = 0; p0 < pixels; p0 += L) {
    // Each lane's first input row and column (row by row, no divisions).
    int64_t iy0[L], ix0[L];
    for (int64_t i = 0; i < L; ++i) {
      iy0[i] = p0 + i < pixels ? oy * sh - ph : -(int64_t(1) << 40);
      ix0[i] = ox * sw - pw;
      if (++ox == ow)
        ox = 0, ++oy;
    }
    for (int64_t ky = 0; ky < kh; ++ky, ++e) {
      // The plane offset each tap reads, -1 where it is padding.
      int64_t at[L * Q], lo = INT64_MAX, hi = -1;
      for (int64_t i = 0; i < L; ++i)
        for (int64_t j = 0; j < Q; ++j) {
          const int64_t iy = iy0[i] + ky * dh, ix = ix0[i] + j * dw;
          const bool inside = j < kw && iy >= 0 && iy < h && ix >= 0 && ix < w;
          const int64_t o = inside ? iy * w + ix : -1;
          at[i * Q + j] = o;
          lo = inside && o < lo ? o : lo;
          hi = o > hi ? o : hi;
        }
      const int64_t base = hi < 0 ? 0 : lo;
      if (hi - base >= 64)
        return 0;
      if (!index)
        continue;
      const int64_t span = hi < 0 ? 0 : hi - base + 1;
      entry[e] = {base, span >= 64 ? ~uint64_t(0) : (uint64_t(1) << span) - 1};
      for (int64_t i = 0; i < L * Q; ++i)
        index[e * 64 + i] = static_cast<uint8_t>(at[i] < 0 ? 64 : at[i] - base);
    }
  }
  return e;
}

/// The scratch depthwise_small_windows' entries take (at the start of the
/// convolution's scratch, read by every task): room for
/// depthwise_small_entries, which the kernel writes in one pass before it
/// knows whether every window fits.
constexpr int64_t depthwise_small_bytes(int64_t oh, int64_t ow, int64_t kh, int64_t kw) {
  return depthwise_small_entries(oh, ow, kh, kw) * (64 + int64_t(sizeof(DepthwiseSmallEntry)));
}

/// Bytes of scratch a depthwise convolution needs: one band of a channel
/// block (depthwise_band), or where the ISA forms windows of bytes
/// (`windows`: VecI::kByteWindows) and depthwise_reads_rows, the larger of
/// that and a padded plane (the kernel picks the form by rules of its ISA);
/// per task, rounded up to 64 bytes (depthwise_scratch_bytes).
inline int64_t depthwise_task_bytes(const int64_t *in_shape, const int64_t *out_shape,
                                    const int64_t *kernel, const int64_t *strides,
                                    const int64_t *pads_begin, const int64_t *dilations,
                                    bool quad, bool windows) {
  const int64_t band =
      depthwise_band(in_shape[3], out_shape[2], out_shape[3], kernel[0], kernel[1], strides[0],
                     strides[1], pads_begin[1], dilations[0], dilations[1], quad)
          .bytes;
  if (!windows)
    return round_up(band, 64);
  const int64_t small =
      depthwise_small_bytes(out_shape[2], out_shape[3], kernel[0], kernel[1]);
  const int64_t most = small > band ? small : band;
  if (!depthwise_reads_rows(kernel[1], strides[1], dilations[1]))
    return round_up(most, 64);
  const int64_t plane = depthwise_rows_geometry(in_shape[3], out_shape[2], out_shape[3],
                                                kernel[0], kernel[1], strides[0], strides[1],
                                                pads_begin[1], dilations[0])
                            .bytes;
  return round_up(plane > most ? plane : most, 64);
}

/// Scratch of a depthwise convolution split into `tasks`, each a share of
/// the channels with its own band or plane.
inline int64_t depthwise_scratch_bytes(const int64_t *in_shape, const int64_t *out_shape,
                                       const int64_t *kernel, const int64_t *strides,
                                       const int64_t *pads_begin, const int64_t *dilations,
                                       bool quad, bool windows, int64_t tasks = 1) {
  return tasks * depthwise_task_bytes(in_shape, out_shape, kernel, strides, pads_begin,
                                      dilations, quad, windows);
}

/// Bytes past a max pooling's padded row that its last step may read (those
/// lanes are dropped): two of pool.h's widest steps (kPoolBytes, 64), for
/// every target alike, since the compiler sizes the scratch.
constexpr int64_t kMaxPoolRowSlack = 128;

/// Output rows a max pooling computes together (their padded rows, then
/// their windows).
constexpr int64_t kMaxPoolRows = 8;

/// Bytes of scratch a max pooling needs: kMaxPoolRows padded rows, each
/// with its slack, rounded up to 64 bytes, a task's share (max_pool2d's
/// tasks take one each): where two tasks' rows shared a cache line, the
/// line went back and forth between the cores: ResNet-18's pool took 65 us
/// on one thread, 53-57 on two, 35-36 since (qs8_pool_bench, Zen 5).
inline int64_t maxpool_scratch_bytes(int64_t out_w, int64_t kernel_w, int64_t stride_w,
                                     int64_t dilation_w) {
  return round_up(kMaxPoolRows * ((out_w - 1) * stride_w + (kernel_w - 1) * dilation_w + 1 +
                                  kMaxPoolRowSlack),
                  64);
}

} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif
