// Cache blocking of the SIMD GEMM and the scratch sizes it implies. Kept free of
// intrinsics so the compiler includes it too: the scratch an op's kernel call
// gets is computed here, once, for both sides.
#ifndef ONNXC_RT_SIMD_F32_BLOCKING_H
#define ONNXC_RT_SIMD_F32_BLOCKING_H

#include <stdint.h>

namespace onnxc_rt {
namespace simd {

/// Register tile: kGemmMR rows of C by two vectors of columns (16 with AVX2,
/// 32 with AVX-512); kGemmMaxNR is the widest, used for scratch sizes. The
/// convolutions' tiles (and weights packed at compile time) have kGemmMR
/// rows on every target; Gemm and MatMul, whose A is packed at run time,
/// take the instruction set's own (simd/f32/gemm.h kMatrixMR: kGemmMR, or
/// kMatrixMaxMR on NEON), so their scratch is sized for either.
constexpr int64_t kGemmMR = 6;
constexpr int64_t kMatrixMaxMR = 8;
constexpr int64_t kGemmMaxNR = 32;
/// Cache blocks: a kc x nc panel of B stays in L2/L3, an mc x kc block of A
/// in L2, a kc x NR sliver of B in L1 while the micro-kernel sweeps A.
constexpr int64_t kGemmKC = 256;
constexpr int64_t kGemmMC = 96;
constexpr int64_t kGemmNC = 512;

constexpr int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }
constexpr int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/// Rows of a packed A block of an m-row product: whole panels of kGemmMR
/// or of kMatrixMaxMR rows, whichever takes more (kGemmMC is a multiple of both).
constexpr int64_t gemm_a_block_rows(int64_t m) {
  const int64_t rows = min64(m, kGemmMC);
  return round_up(rows, kGemmMR) > round_up(rows, kMatrixMaxMR) ? round_up(rows, kGemmMR)
                                                                 : round_up(rows, kMatrixMaxMR);
}
static_assert(kGemmMC % kGemmMR == 0 && kGemmMC % kMatrixMaxMR == 0, "A blocks are whole panels");

/// Depth of one packed block of a product over k: kGemmKC at most, and at
/// least 1 (an empty product still packs a block).
constexpr int64_t gemm_depth_block(int64_t k) { return k < 1 ? 1 : min64(k, kGemmKC); }

/// Floats of scratch one product whose B is packed ahead needs
/// (gemm_prepacked): the A block alone.
constexpr int64_t prepacked_gemm_scratch_floats(int64_t m, int64_t k) {
  return gemm_a_block_rows(m) * gemm_depth_block(k);
}

/// ... and one m x n x k product that packs B too: A's block and B's.
constexpr int64_t gemm_scratch_floats(int64_t m, int64_t n, int64_t k) {
  return prepacked_gemm_scratch_floats(m, k) +
         gemm_depth_block(k) * round_up(min64(n, kGemmNC), kGemmMaxNR);
}

/// Floats of a k x n B operand packed ahead in nr-column slivers (pack_b_ahead).
constexpr int64_t packed_b_floats(int64_t k, int64_t n, int64_t nr) {
  return round_up(n, nr) * k;
}

/// Packs B (k x n, element (p, j) at b[p * rs + j * cs]) ahead as the
/// Gemm/MatMul micro-kernel reads it: nr-column slivers (nr: the target's
/// two vectors, simd/f32/gemm.h kNR), each k-major (element (p, j) at (j / nr
/// * k + p) * nr + j % nr), columns past n zero. The compiler packs
/// constant weights so (gemm_prepacked reads them in place of packing B
/// every run); a transposed B is packed from its strides.
inline void pack_b_ahead(const float *b, int64_t rs, int64_t cs, int64_t k, int64_t n,
                         int64_t nr, float *dst) {
  for (int64_t j0 = 0; j0 < n; j0 += nr)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = j0; j < j0 + nr; ++j)
        *dst++ = j < n ? b[p * rs + j * cs] : 0.0f;
}

/// Floats of a whole m x k A operand in the packed layout below.
constexpr int64_t packed_a_floats(int64_t m, int64_t k) { return round_up(m, kGemmMR) * k; }

/// The packed layout of an A operand (the micro-kernel's): MR-row panels,
/// each k-major (element (i, p) of panel q = i / MR at q * k * MR + p * MR
/// + i % MR), rows past m zero, so a cache block of it is one contiguous
/// run per panel. pack_a_panels writes columns [p0, p0 + kc) of an m-row A
/// so (k = kc): the compiler packs constant weights whole (p0 = 0, kc = k;
/// MR = kGemmMR) at compile time, the GEMM packs other operands one cache
/// block at a time.
template <int64_t MR = kGemmMR>
inline void pack_a_panels(const float *a, int64_t rs, int64_t cs, int64_t m, int64_t p0,
                          int64_t kc, float *dst) {
  for (int64_t i0 = 0; i0 < m; i0 += MR)
    for (int64_t p = p0; p < p0 + kc; ++p)
      for (int64_t r = 0; r < MR; ++r)
        *dst++ = i0 + r < m ? a[(i0 + r) * rs + p * cs] : 0.0f;
}

/// Rows (or columns) of the zero-padded input plane a depthwise convolution
/// reads; the plane is its scratch.
constexpr int64_t padded_extent(int64_t out, int64_t k, int64_t stride, int64_t dilation) {
  return (out - 1) * stride + (k - 1) * dilation + 1;
}

/// A depthwise convolution computed channel-blocked (simd depthwise_block):
/// a block of channels (one vector's lanes, at most kDepthwiseMaxBlock)
/// interleaved pixel by pixel, zero-padded, one band of `band_rows` output
/// rows at a time (`in_rows` padded input rows of `in_width` pixels), the
/// band's outputs staged the same way before they are transposed back.
/// Bands keep the block's buffers within about kDepthwiseBandFloats.
constexpr int64_t kDepthwiseMaxBlock = 16;
constexpr int64_t kDepthwiseBandFloats = 32768;
struct DepthwiseBlocked {
  int64_t band_rows, in_rows, in_width, floats;
};
constexpr DepthwiseBlocked depthwise_blocked_shape(int64_t oh, int64_t ow, int64_t kh,
                                                   int64_t kw, int64_t sh, int64_t sw,
                                                   int64_t dh, int64_t dw) {
  const int64_t wp = padded_extent(ow, kw, sw, dw), reach = (kh - 1) * dh + 1;
  // Floats a band of b rows needs: its input rows and its output rows.
  const int64_t per_row = (sh * wp + ow) * kDepthwiseMaxBlock;
  int64_t band = (kDepthwiseBandFloats - (reach - sh) * wp * kDepthwiseMaxBlock) / per_row;
  band = band < 1 ? 1 : band > oh ? oh : band;
  const int64_t in_rows = (band - 1) * sh + reach;
  return {band, in_rows, wp, (in_rows * wp + band * ow) * kDepthwiseMaxBlock};
}

/// Whether simd::depthwise_conv2d computes a depthwise convolution
/// channel-blocked (depthwise_blocked_shape) rather than a plane at a time:
/// where output rows are narrow (at most 16 wide: a plane's vectors would
/// be part empty and its per-channel costs dominate) or the plane layout
/// has no vector path (strides other than 1 and 2, dilated stride 2).
/// Not with a multiplier (m > c), nor kernels of more than
/// kDepthwiseMaxTaps taps. (Measured with bench/conv_bench.cpp: on wider
/// planes the transposes cost more than the plane path loses.)
constexpr int64_t kDepthwiseMaxTaps = 64;
constexpr bool depthwise_is_blocked(int64_t c, int64_t m, int64_t ow, int64_t kh, int64_t kw,
                                    int64_t sw, int64_t dw) {
  const bool plane_vectorised = sw == 1 || (sw == 2 && dw == 1);
  return m == c && kh * kw <= kDepthwiseMaxTaps && (ow <= 16 || !plane_vectorised);
}

/// How simd::depthwise_conv2d computes a depthwise convolution:
/// channel-blocked (depthwise_is_blocked), or a plane at a time with the
/// tiles specialised for square 3x3 / 5x5 kernels at stride 1 or 2 (no
/// dilation), with tiles that read any kernel's taps from a table (stride
/// 1 or 2, at most kDepthwiseMaxTaps taps), or scalar. Named as
/// depthwise_conv2d's template argument as ConvMethod is conv2d's.
enum class DepthwiseMethod { Any, Blocked, K3S1, K3S2, K5S1, K5S2, Taps, Scalar };
constexpr DepthwiseMethod depthwise_method(int64_t c, int64_t m, int64_t ow, int64_t kh,
                                           int64_t kw, int64_t sh, int64_t sw, int64_t dh,
                                           int64_t dw) {
  if (depthwise_is_blocked(c, m, ow, kh, kw, sw, dw))
    return DepthwiseMethod::Blocked;
  const bool vectorised = (sw == 1 || (sw == 2 && dw == 1)) && kh * kw <= kDepthwiseMaxTaps;
  if (!vectorised)
    return DepthwiseMethod::Scalar;
  if (kh == kw && (kh == 3 || kh == 5) && dh == 1 && dw == 1 && sh == sw && (sh == 1 || sh == 2))
    return kh == 3 ? (sh == 1 ? DepthwiseMethod::K3S1 : DepthwiseMethod::K3S2)
                   : (sh == 1 ? DepthwiseMethod::K5S1 : DepthwiseMethod::K5S2);
  return DepthwiseMethod::Taps;
}
/// The enumerator's name, as generated code spells the template argument.
constexpr const char *depthwise_method_name(DepthwiseMethod m) {
  constexpr const char *kNames[] = {"Any",  "Blocked", "K3S1", "K3S2",
                                    "K5S1", "K5S2",    "Taps", "Scalar"};
  return kNames[static_cast<int>(m)];
}

/// Floats of scratch one task of a depthwise convolution needs: blocked,
/// the block's buffers; otherwise its padded input plane, rows rounded to
/// even length (stride-2 planes are split by column parity), plus one
/// vector of slack (kGemmMaxNR / 2 lanes at most).
constexpr int64_t depthwise_scratch_floats(int64_t c, int64_t m, int64_t oh, int64_t ow,
                                           int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                                           int64_t dh, int64_t dw) {
  if (depthwise_is_blocked(c, m, ow, kh, kw, sw, dw))
    return depthwise_blocked_shape(oh, ow, kh, kw, sh, sw, dh, dw).floats;
  return padded_extent(oh, kh, sh, dh) * round_up(padded_extent(ow, kw, sw, dw), 2) +
         kGemmMaxNR / 2;
}

/// A direct convolution's view of its input (simd::conv2d): the group's
/// channels copied zero-padded, each split into stride_h x stride_w phase
/// planes of hq x wq (phase (ry, rx) holds padded rows ry, ry + sh, ... and
/// columns rx, rx + sw, ...). Output pixel (oy, ox) becomes column
/// q = oy * wq + ox of a "virtual" output whose rows are wq wide, and every
/// kernel tap reads its input at q plus a constant: each row of the im2col
/// matrix is a contiguous run of the planes, read in place. Columns with
/// ox >= ow are computed and dropped.
struct DirectConvShape {
  int64_t hq, wq, cols; // phase plane extent; virtual columns (oh - 1) * wq + ow
};

constexpr DirectConvShape direct_conv_shape(int64_t oh, int64_t ow, int64_t kh, int64_t kw,
                                            int64_t sh, int64_t sw, int64_t dh, int64_t dw) {
  const int64_t hq = (padded_extent(oh, kh, sh, dh) + sh - 1) / sh;
  const int64_t wq = (padded_extent(ow, kw, sw, dw) + sw - 1) / sw;
  return {hq, wq, (oh - 1) * wq + ow};
}

/// Whether a convolution is a plain product with its input (1x1, stride 1,
/// no padding): conv2d reads the input as the GEMM's B matrix.
constexpr bool conv_is_pointwise(const int64_t *in_shape, const int64_t *out_shape,
                                 const int64_t *kernel, const int64_t *strides,
                                 const int64_t *pads_begin) {
  return kernel[0] == 1 && kernel[1] == 1 && strides[0] == 1 && strides[1] == 1 &&
         pads_begin[0] == 0 && pads_begin[1] == 0 && out_shape[2] == in_shape[2] &&
         out_shape[3] == in_shape[3];
}

/// Whether conv2d's channel-major path computes a convolution directly
/// (conv2d_direct): not a pointwise one (a GEMM over the input itself), and
/// not where the dropped columns would make it half as much work again
/// (planes far narrower than the kernel: a GEMM over an implicit im2col).
constexpr bool conv_is_direct(const int64_t *in_shape, const int64_t *out_shape,
                              const int64_t *kernel, const int64_t *strides,
                              const int64_t *pads_begin, const int64_t *dilations) {
  const int64_t oh = out_shape[2], ow = out_shape[3];
  return !conv_is_pointwise(in_shape, out_shape, kernel, strides, pads_begin) &&
         2 * direct_conv_shape(oh, ow, kernel[0], kernel[1], strides[0], strides[1],
                               dilations[0], dilations[1])
                     .cols <=
             3 * oh * ow;
}

/// Floats of the phase planes of a direct convolution (shared by its
/// tasks), with a sliver of slack read past the last.
constexpr int64_t direct_conv_plane_floats(int64_t cg, int64_t sh, int64_t sw,
                                           const DirectConvShape &d) {
  return cg * sh * sw * d.hq * d.wq + kGemmMaxNR;
}

/// A direct convolution task's scratch: the A block packed at run time
/// (`packed_a_block` floats), then the virtual output block (whole register
/// tiles: rows to a multiple of kGemmMR, columns to one of kGemmMaxNR).
struct DirectConvTaskScratch {
  int64_t packed_a_block, vout_ld, floats;
};
constexpr DirectConvTaskScratch direct_conv_task_scratch(int64_t mg, int64_t k,
                                                         const DirectConvShape &d) {
  const int64_t pa = round_up(min64(mg, kGemmMC), kGemmMR) * min64(k, kGemmKC);
  const int64_t ld = min64(round_up(d.cols, kGemmMaxNR), kGemmNC);
  return {pa, ld, pa + round_up(mg, kGemmMR) * ld};
}

/// Output columns conv2d's channel-major GEMM computes per output channel:
/// the pixels (pointwise, im2col) or the direct convolution's virtual
/// columns, in whole register slivers.
constexpr int64_t channel_major_columns(const int64_t *in_shape, const int64_t *out_shape,
                                        const int64_t *kernel, const int64_t *strides,
                                        const int64_t *pads_begin, const int64_t *dilations) {
  const int64_t oh = out_shape[2], ow = out_shape[3];
  if (!conv_is_direct(in_shape, out_shape, kernel, strides, pads_begin, dilations))
    return round_up(oh * ow, kGemmMaxNR);
  return round_up(direct_conv_shape(oh, ow, kernel[0], kernel[1], strides[0], strides[1],
                                    dilations[0], dilations[1])
                      .cols,
                  kGemmMaxNR);
}

/// A pixel-major convolution (simd::conv2d_pixel_major) swaps the GEMM's
/// roles: rows are output pixels (kGemmMR a tile, each reading its input
/// window in place), columns output channels (vectors of them, from weights
/// packed k x kPixelMajorBlock per block of channels). Small planes waste
/// less that way (49 pixels are 54 rows, not 64 columns), no virtual
/// columns are computed, and strides cost nothing; its tiles' outputs are
/// transposed back, about kPixelMajorOverhead multiply-adds' worth each.
/// Chosen where its tiles' work is less than the channel-major path's, for
/// kernels of up to kPixelMajorMaxTaps taps (the cost model fitted to
/// bench/conv_bench.cpp's shapes: it wins on ResNet-18's 3x3 layers and
/// its stride-2 ones, on 7x7-14x14 pointwise layers and SqueezeNet's
/// classifier, loses on pointwise layers with k <= 32 and channel counts
/// far from a multiple of 32).
constexpr int64_t kPixelMajorBlock = kGemmMaxNR;
constexpr int64_t kPixelMajorMaxTaps = 64;
constexpr int64_t kPixelMajorOverhead = 8;
constexpr bool conv_is_pixel_major(const int64_t *in_shape, const int64_t *out_shape,
                                   const int64_t *kernel, const int64_t *strides,
                                   const int64_t *pads_begin, const int64_t *dilations,
                                   int64_t group) {
  const int64_t mg = out_shape[1] / group, npix = out_shape[2] * out_shape[3];
  const int64_t k = in_shape[1] / group * kernel[0] * kernel[1];
  const int64_t channel_major =
      channel_major_columns(in_shape, out_shape, kernel, strides, pads_begin, dilations) *
      round_up(mg, kGemmMR) * k;
  const int64_t pixel_major =
      round_up(npix, kGemmMR) * round_up(mg, kPixelMajorBlock) * (k + kPixelMajorOverhead);
  return kernel[0] * kernel[1] <= kPixelMajorMaxTaps && pixel_major < channel_major;
}

/// How simd::conv2d computes a convolution, decided from the shapes (and
/// whether the weights come packed ahead): pixel-major, a GEMM over the
/// input itself (pointwise), directly from phase planes, or a GEMM over an
/// implicit im2col. The compiler names the method as conv2d's template
/// argument, so that a model's code holds only the path it runs (the others
/// are dead code: each is seconds of the C++ compiler's time and tens of
/// KB of code); Any decides at run time (a bounded-dims build, whose shapes
/// vary, and the kernel tests).
enum class ConvMethod { Any, PixelMajor, Pointwise, Direct, Im2col };
constexpr ConvMethod conv2d_method(const int64_t *in_shape, const int64_t *out_shape,
                                   const int64_t *kernel, const int64_t *strides,
                                   const int64_t *pads_begin, const int64_t *dilations,
                                   int64_t group, bool weights_packed) {
  if (weights_packed &&
      conv_is_pixel_major(in_shape, out_shape, kernel, strides, pads_begin, dilations, group))
    return ConvMethod::PixelMajor;
  if (conv_is_pointwise(in_shape, out_shape, kernel, strides, pads_begin))
    return ConvMethod::Pointwise;
  if (conv_is_direct(in_shape, out_shape, kernel, strides, pads_begin, dilations))
    return ConvMethod::Direct;
  return ConvMethod::Im2col;
}
constexpr const char *conv_method_name(ConvMethod m) {
  constexpr const char *kNames[] = {"Any", "PixelMajor", "Pointwise", "Direct", "Im2col"};
  return kNames[static_cast<int>(m)];
}

/// The window tile conv2d_blocked specialises for a kernel of `taps` taps:
/// 1 (pointwise), 9 (3x3), or 0 (any count).
constexpr int blocked_tap_class(int64_t taps) {
  return taps == 1 || taps == 9 ? static_cast<int>(taps) : 0;
}

/// A pixel-major convolution's view of its input: the windows are read in
/// place from the input when no output reaches into padding, else from a
/// zero-padded copy (`padded`) of hp x wp planes `cstride` floats apart
/// (the slack after each takes the vector fill's overrun).
struct PixelMajorInput {
  bool padded;
  int64_t hp, wp, cstride;
};
constexpr PixelMajorInput pixel_major_input(const int64_t *in_shape, const int64_t *out_shape,
                                            const int64_t *kernel, const int64_t *strides,
                                            const int64_t *pads_begin,
                                            const int64_t *dilations) {
  const int64_t h = in_shape[2], w = in_shape[3];
  const int64_t hp = padded_extent(out_shape[2], kernel[0], strides[0], dilations[0]);
  const int64_t wp = padded_extent(out_shape[3], kernel[1], strides[1], dilations[1]);
  const bool padded = pads_begin[0] != 0 || pads_begin[1] != 0 || hp > h || wp > w;
  return padded ? PixelMajorInput{true, hp, wp, hp * wp + kGemmMaxNR / 2}
                : PixelMajorInput{false, h, w, h * w};
}

/// A pixel-major convolution works on chunks of at most kPixelMajorChunk
/// output pixels (so a chunk's stage stays in L1/L2).
constexpr int64_t kPixelMajorChunk = 256;

/// How a convolution's units of work (a tile of output channels by a chunk
/// of at most kPixelMajorChunk pixels) go to tasks, each task a run of
/// units: tile-major (a tile's chunks one after another: its weights stay
/// in cache; each task reads its tiles' weights and all the input, and
/// writes whole planes) where that shares the channels out evenly, the
/// busiest task within 1/8 of the mean (`width` channels a tile,
/// `last_width` in the last), and the input (`input_floats`) is no larger
/// than the weights (`weight_floats`); else chunk-major with the chunks a
/// multiple of the tasks, so that each task takes whole chunks of every
/// tile, reading all the weights and its chunks' input (tile-major, a last
/// partial tile or a tile count the tasks do not divide left one task up
/// to twice another's work: EfficientNet-B0's projections to 40 and 80
/// channels). SqueezeNet's classifier (1000 channels, 31 tiles and a half)
/// went chunk-major when only even tiles the tasks divide went tile-major:
/// each of two tasks read all 2 MB of its weights. ResNet-18's 7 x 7 stem
/// and stride-2 layers (inputs 2-25x their weights) went tile-major, each
/// task reading all their input: chunk-major, ResNet-18 ran 0.995-1.079x
/// (mean 1.035) as fast on two threads (four alternating runs, a noisy
/// hour on the Intel Xeon host).
struct TileChunks {
  int64_t chunks;
  bool chunk_major;
  constexpr int64_t tile(int64_t unit, int64_t tiles) const {
    return chunk_major ? unit % tiles : unit / chunks;
  }
  constexpr int64_t chunk(int64_t unit, int64_t tiles) const {
    return chunk_major ? unit / tiles : unit % chunks;
  }
};
constexpr TileChunks tile_chunks(int64_t tiles, int64_t width, int64_t last_width, int64_t npix,
                                 int64_t input_floats, int64_t weight_floats, int64_t tasks) {
  const int64_t by_size = (npix + kPixelMajorChunk - 1) / kPixelMajorChunk;
  if (tasks <= 1)
    return {by_size, false};
  if (input_floats > weight_floats)
    return {round_up(by_size, tasks), true};
  // Tile-major: task t's units as split_range (parallel.h) shares them.
  const int64_t units = tiles * by_size, per = units / tasks, extra = units % tasks;
  int64_t busiest = 0;
  for (int64_t t = 0, u = 0; t < tasks; ++t) {
    int64_t work = 0;
    for (const int64_t end = u + per + (t < extra ? 1 : 0); u < end; ++u)
      work += u / by_size == tiles - 1 ? last_width : width;
    busiest = work > busiest ? work : busiest;
  }
  const int64_t total = ((tiles - 1) * width + last_width) * by_size;
  if (busiest * tasks * 8 <= total * 9)
    return {by_size, false};
  return {round_up(by_size, tasks), true};
}

/// Floats of a pixel-major convolution task's stage: a chunk's output
/// pixels (rounded to whole transposes, and to whole register tiles) by one
/// tile's output channels.
constexpr int64_t pixel_major_stage_floats(int64_t npix) {
  return (round_up(min64(npix, kPixelMajorChunk), kGemmMaxNR / 2) + kGemmMR) * kGemmMaxNR;
}

/// Floats of scratch simd::conv2d needs (arguments as conv2d's) with its work
/// split into `tasks`: for a direct convolution one group's phase planes,
/// then per task the A block packed at run time and the virtual output
/// block (whole register tiles); otherwise per task the GEMM's. A
/// pixel-major convolution (which needs its weights packed ahead, and
/// otherwise runs channel-major) takes one group's padded planes, if it
/// copies them, and a stage per task.
constexpr int64_t conv2d_scratch_floats(const int64_t *in_shape, const int64_t *out_shape,
                                        const int64_t *kernel, const int64_t *strides,
                                        const int64_t *pads_begin, const int64_t *dilations,
                                        int64_t group, int64_t tasks = 1) {
  const int64_t cg = in_shape[1] / group, mg = out_shape[1] / group;
  const int64_t oh = out_shape[2], ow = out_shape[3], k = cg * kernel[0] * kernel[1];
  int64_t floats = 0;
  if (!conv_is_direct(in_shape, out_shape, kernel, strides, pads_begin, dilations)) {
    floats = tasks * gemm_scratch_floats(mg, oh * ow, k);
  } else {
    const DirectConvShape d = direct_conv_shape(oh, ow, kernel[0], kernel[1], strides[0],
                                                strides[1], dilations[0], dilations[1]);
    floats = direct_conv_plane_floats(cg, strides[0], strides[1], d) +
             tasks * direct_conv_task_scratch(mg, k, d).floats;
  }
  if (conv_is_pixel_major(in_shape, out_shape, kernel, strides, pads_begin, dilations, group)) {
    const PixelMajorInput in =
        pixel_major_input(in_shape, out_shape, kernel, strides, pads_begin, dilations);
    const int64_t pixel_major =
        (in.padded ? cg * in.cstride : 0) + tasks * pixel_major_stage_floats(oh * ow);
    floats = floats > pixel_major ? floats : pixel_major;
  }
  return floats;
}

/// Floats of conv2d's weights packed ahead (pack_conv_weights).
constexpr int64_t conv_packed_weights_floats(const int64_t *in_shape, const int64_t *out_shape,
                                             const int64_t *kernel, const int64_t *strides,
                                             const int64_t *pads_begin,
                                             const int64_t *dilations, int64_t group) {
  const int64_t mg = out_shape[1] / group, k = in_shape[1] / group * kernel[0] * kernel[1];
  return group * (conv_is_pixel_major(in_shape, out_shape, kernel, strides, pads_begin,
                                      dilations, group)
                      ? k * round_up(mg, kPixelMajorBlock)
                      : packed_a_floats(mg, k));
}

/// Packs conv2d's weights W (m, c/group, kh, kw) ahead, per group, in the
/// layout its path reads: for a pixel-major convolution blocks of
/// kPixelMajorBlock output channels, each k-major (element (j, p) of block
/// b = j / kPixelMajorBlock at (b * k + p) * kPixelMajorBlock + j %
/// kPixelMajorBlock, channels past the group's zero); otherwise A panels
/// (pack_a_panels). The compiler packs constant weights so.
inline void pack_conv_weights(const float *w, const int64_t *in_shape, const int64_t *out_shape,
                              const int64_t *kernel, const int64_t *strides,
                              const int64_t *pads_begin, const int64_t *dilations,
                              int64_t group, float *dst) {
  const int64_t mg = out_shape[1] / group, k = in_shape[1] / group * kernel[0] * kernel[1];
  const bool pixel_major =
      conv_is_pixel_major(in_shape, out_shape, kernel, strides, pads_begin, dilations, group);
  for (int64_t g = 0; g < group; ++g) {
    const float *wg = w + g * mg * k;
    if (!pixel_major) {
      pack_a_panels(wg, k, 1, mg, 0, k, dst);
      dst += packed_a_floats(mg, k);
      continue;
    }
    for (int64_t j0 = 0; j0 < mg; j0 += kPixelMajorBlock)
      for (int64_t p = 0; p < k; ++p)
        for (int64_t j = j0; j < j0 + kPixelMajorBlock; ++j)
          *dst++ = j < mg ? wg[j * k + p] : 0.0f;
  }
}

//===-- The channel-blocked layout (NCHW16c) -----------------------------------===//

/// A tensor of logical shape (n, c, h, w) in the channel-blocked layout is
/// (n, ceil(c / 16), h, w, 16) floats: channel ch of pixel (y, x) at block
/// ch / 16, lane ch % 16, so one pixel's channels are contiguous vectors (one
/// with AVX-512, two with AVX2) and a window's taps are vector loads for a
/// whole block of channels. The lanes past c ("padding lanes") hold finite
/// values no consumer reads into a result: the blocked convolutions weight
/// them with zeros, pools and elementwise ops keep them to their own lane.
/// onnxc-layout-selection chooses the layout; the compiler and the kernels
/// share these sizes.
constexpr int64_t kChannelBlock = 16;
constexpr int64_t channel_blocks(int64_t c) { return (c + kChannelBlock - 1) / kChannelBlock; }

/// A blocked convolution's input channel steps: a blocked input is read a
/// block of 16 channels per pixel at a time, an NCHW one (a model's first
/// convolution, whose input has 1-4 channels) a channel at a time.
constexpr int64_t blocked_conv_lanes(bool in_blocked) { return in_blocked ? kChannelBlock : 1; }

/// Floats of a blocked convolution's packed weights (pack_blocked_conv_weights):
/// dense, kPixelMajorBlock output channels a block, each with k =
/// (channel steps x taps x lanes) rows; depthwise, one vector of a block's
/// channels per tap.
constexpr int64_t blocked_conv_weights_floats(int64_t m, int64_t c, int64_t taps,
                                              bool in_blocked, bool depthwise) {
  if (depthwise)
    return round_up(m, kChannelBlock) * taps;
  return round_up(m, kPixelMajorBlock) * round_up(c, blocked_conv_lanes(in_blocked)) * taps;
}

/// Packs W (m, c, kh, kw), or W (c, 1, kh, kw) of a depthwise convolution,
/// for the blocked kernels. Dense: element (j, p) of output block b = j /
/// kPixelMajorBlock at (b * k + p) * kPixelMajorBlock + j % kPixelMajorBlock,
/// row p = (u * taps + t) * lanes + l the weight of input channel u * lanes +
/// l at tap t (zero past c and m: the padding lanes weigh nothing).
/// Depthwise: channel j's tap t at (j / 16 * taps + t) * 16 + j % 16.
inline void pack_blocked_conv_weights(const float *w, int64_t m, int64_t c, int64_t taps,
                                      bool in_blocked, bool depthwise, float *dst) {
  if (depthwise) {
    for (int64_t b = 0; b < channel_blocks(m); ++b)
      for (int64_t t = 0; t < taps; ++t)
        for (int64_t l = 0; l < kChannelBlock; ++l) {
          const int64_t j = b * kChannelBlock + l;
          *dst++ = j < m ? w[j * taps + t] : 0.0f;
        }
    return;
  }
  const int64_t lanes = blocked_conv_lanes(in_blocked), units = round_up(c, lanes) / lanes;
  for (int64_t j0 = 0; j0 < m; j0 += kPixelMajorBlock)
    for (int64_t u = 0; u < units; ++u)
      for (int64_t t = 0; t < taps; ++t)
        for (int64_t l = 0; l < lanes; ++l)
          for (int64_t j = j0; j < j0 + kPixelMajorBlock; ++j) {
            const int64_t ci = u * lanes + l;
            *dst++ = j < m && ci < c ? w[(j * c + ci) * taps + t] : 0.0f;
          }
}

/// A blocked convolution's view of its input (PixelMajorInput): read in
/// place unless some window reaches into padding, else from a zero-padded
/// copy of hp x wp pixels per channel step, `cstride` floats apart (a block
/// of 16 channels per step for a blocked input, one channel for NCHW).
constexpr PixelMajorInput blocked_conv_input(const int64_t *in_shape, const int64_t *out_shape,
                                              const int64_t *kernel, const int64_t *strides,
                                              const int64_t *pads_begin,
                                              const int64_t *dilations, bool in_blocked) {
  const PixelMajorInput p =
      pixel_major_input(in_shape, out_shape, kernel, strides, pads_begin, dilations);
  if (!in_blocked)
    return {p.padded, p.hp, p.wp, p.cstride};
  return {p.padded, p.hp, p.wp, p.hp * p.wp * kChannelBlock};
}

/// The fused expand + depthwise block (expand_depthwise.h) holds a band of
/// expanded rows of one channel tile (at most kExpandTileChannels channels,
/// the widest instruction set's tile, so that the compiler and every
/// target agree on the bands) a task: about kExpandBandFloats floats, at
/// least one depthwise window's height.
constexpr int64_t kExpandTileChannels = kPixelMajorBlock;
constexpr int64_t kExpandBandFloats = 16 * 1024;

/// Output rows a band of the fused block computes (`w`: the input's width,
/// the expanded rows' too).
constexpr int64_t expand_band_rows(int64_t w, int64_t oh, int64_t kh, int64_t sh, int64_t dh) {
  const int64_t row = kExpandTileChannels * w; // floats of one expanded row
  const int64_t rows = kExpandBandFloats / (row > 0 ? row : 1), window = (kh - 1) * dh + 1;
  const int64_t band = rows > window ? (rows - window) / sh + 1 : 1;
  return band < oh ? band : (oh > 0 ? oh : 1);
}

/// Expanded rows (input rows) a band of `band` output rows reads.
constexpr int64_t expand_band_input_rows(int64_t band, int64_t kh, int64_t sh, int64_t dh) {
  return (band - 1) * sh + (kh - 1) * dh + 1;
}

/// Floats of scratch expand_depthwise_blocked needs: a band of one channel
/// tile's expanded rows per task.
constexpr int64_t expand_depthwise_scratch_floats(const int64_t *in_shape,
                                                  const int64_t *out_shape,
                                                  const int64_t *kernel, const int64_t *strides,
                                                  const int64_t *dilations, int64_t tasks) {
  const int64_t band = expand_band_rows(in_shape[3], out_shape[2], kernel[0], strides[0],
                                        dilations[0]);
  return (tasks > 0 ? tasks : 1) * kExpandTileChannels * in_shape[3] *
         expand_band_input_rows(band, kernel[0], strides[0], dilations[0]);
}

/// The whole inverted-residual block (expand_depthwise_project_blocked)
/// holds a band's expanded rows and depthwise output rows of all the
/// expanded channels a task: about kProjectBandFloats floats (512 KB, in
/// L2 beside the weights), at least one output row. Smaller bands re-read
/// the block's weights more often: MobileNetV2's blocks ran 0.89x, 0.94x,
/// 0.98x the unfused kernels' speed with 96, 192, 384 KB bands on the
/// Intel host, 1.00x with 512 KB and 768 KB (one thread).
constexpr int64_t kProjectBandFloats = 128 * 1024;

/// A band of the whole block: `rows` output rows, `input_rows` expanded
/// (none where the block has no expand convolution: `expand` false).
struct ProjectBand {
  int64_t rows, input_rows;
};

constexpr ProjectBand project_band(const int64_t *in_shape, int64_t mid,
                                   const int64_t *out_shape, const int64_t *kernel,
                                   const int64_t *strides, const int64_t *dilations,
                                   bool expand) {
  const int64_t h = in_shape[2], w = in_shape[3], oh = out_shape[2], ow = out_shape[3];
  const int64_t channels = round_up(mid, kChannelBlock);
  auto input_rows = [&](int64_t band) {
    const int64_t rows = expand_band_input_rows(band, kernel[0], strides[0], dilations[0]);
    return !expand ? 0 : rows < h ? rows : h;
  };
  int64_t band = 1;
  while (band < oh &&
         channels * (input_rows(band + 1) * w + (band + 1) * ow) <= kProjectBandFloats)
    ++band;
  return {band, input_rows(band)};
}

/// Floats of scratch expand_depthwise_project_blocked needs.
constexpr int64_t expand_depthwise_project_scratch_floats(const int64_t *in_shape, int64_t mid,
                                                          const int64_t *out_shape,
                                                          const int64_t *kernel,
                                                          const int64_t *strides,
                                                          const int64_t *dilations, bool expand,
                                                          int64_t tasks) {
  const ProjectBand b =
      project_band(in_shape, mid, out_shape, kernel, strides, dilations, expand);
  return (tasks > 0 ? tasks : 1) * round_up(mid, kChannelBlock) *
         (b.input_rows * in_shape[3] + b.rows * out_shape[3]);
}

/// Floats of scratch simd::conv2d_blocked needs: the padded copy, if any.
constexpr int64_t blocked_conv_scratch_floats(const int64_t *in_shape, const int64_t *out_shape,
                                              const int64_t *kernel, const int64_t *strides,
                                              const int64_t *pads_begin,
                                              const int64_t *dilations, bool in_blocked) {
  const PixelMajorInput in =
      blocked_conv_input(in_shape, out_shape, kernel, strides, pads_begin, dilations, in_blocked);
  const int64_t units = in_blocked ? channel_blocks(in_shape[1]) : in_shape[1];
  return in.padded ? units * in.cstride : 0;
}

/// Floats of scratch conv2d_blocked_scaled (blocked.h) needs: an image's
/// scaled copy of the pointwise weights.
constexpr int64_t blocked_scaled_conv_scratch_floats(int64_t m, int64_t c) {
  return blocked_conv_weights_floats(m, c, 1, true, false);
}

} // namespace simd
} // namespace onnxc_rt

#endif
