// The weight layouts of the SIMD qs8 kernels (simd/qs8/), and the packing
// the compiler does once, at compile time. Plain C++ with no instruction
// set: the compiler includes it, and both x86 widths read the same layout.
//
// The kernels multiply unsigned activation bytes by signed weight bytes
// four at a time (vpdpbusd): an int8 activation x enters as x + 128, a
// uint8 one as it is, so every product of the window sees u = x + flip
// (flip 128 or 0) and the padding enters as u_zp = x_zp + flip. Then
//   sum_k w * (x - x_zp) = sum_k w * u - u_zp * sum_k w,
// and the second term, with the bias, is one int32 per output channel
// folded here (fold_zero_point): the kernels add it to the accumulator and
// requantize exactly as reference/qs8.h does. (NEON's SDOT and SMULL
// multiply signed bytes: there the kernels take u - 128, and the weights'
// share that leaves out folds in too: packed_zero_point.)
#ifndef ONNXC_RT_SIMD_QS8_PACK_H
#define ONNXC_RT_SIMD_QS8_PACK_H

#include <stdint.h>

namespace onnxc_rt {
namespace simd {
namespace qs8 {

/// Output channels of a convolution's register tile: its weights are
/// packed [groups][channel tiles][depth / G][kConvRows][G], G the depth
/// group of the instruction set's product (conv_depth_group).
constexpr int64_t kConvRows = 4;
/// Output columns of a fully connected block: weights packed
/// [column blocks][depth / G][kFcCols][G] (G as the convolution's).
constexpr int64_t kFcCols = 16;
/// The most rows a fully connected register tile takes (8 with NEON's
/// SDOT, else 4): the rows its scratch packs are rounded up
/// to it.
constexpr int64_t kFcMaxRows = 8;

/// G, the depth values the convolution and fully connected kernels keep
/// together, in packed weights and packed activations alike: 4 for the
/// byte dot products (x86's vpdpbusd, NEON's SDOT / USDOT: four bytes a
/// lane), 8 for NEON's i8mm matrix multiply (USMMLA: two rows of 8 bytes
/// times two columns of 8), 16 on armv8-a (NEON without dot products:
/// 16 bytes of one operand multiplied by 16 of the other at once, SMULL,
/// SMLAL2, SADALP, instead of broadcasting 4 bytes to 4 lanes and keeping
/// pair sums of two vectors). The compiler packs for its target's;
/// simd/qs8/conv2d.h and fully_connected.h take it as a template argument
/// and check it against their own (kDepthGroup) at compile time.
constexpr int64_t kDotDepthGroup = 4, kMatMulDepthGroup = 8, kWideDepthGroup = 16;

inline int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

/// The convolution's depth group on CPUs with AMX (Intel's tile matrix
/// multiply, x86-64-amx): its weights are TDPBSUD's first operand, tiles
/// of kAmxConvRows channels by 64 depth bytes, packed
/// [groups][16-channel tiles][depth / 64][16][64]; the activations' panel
/// keeps the byte dot product's groups of 4 ([depth/4][pixels][4], the
/// second operand's layout as it is), its depth padded to 64.
constexpr int64_t kAmxDepthGroup = 64, kAmxConvRows = 16;

/// How conv2d's dot-product tiles (depth groups of 4; AMX's have their
/// own) take a convolution, chosen by conv_form: from the im2col panel,
/// 16 pixels a vector and 4 channels a row (kPanel); with the channels in
/// the lanes (kChannelLanes, conv_channel_lanes), reading the taps in place
/// from channel quads where it can (kLanesDirect, conv_lanes_direct);
/// reading the taps in place over virtual rows (kDotDirect,
/// conv_dot_direct); 3x3 stride-1
/// ones by Winograd F(2x2, 3x3) in 16-bit integers (kWinograd,
/// conv_winograd). The packed weights' tiles and order and the scratch
/// follow the form.
enum class ConvForm : uint8_t { kPanel, kChannelLanes, kDotDirect, kWinograd, kLanesDirect };

/// The forms beyond the panel an instruction set's kernels have
/// (simd/qs8/conv2d.h's kConvForms; the compiler's Qs8Packing for its
/// target): AVX-512 has the first two, AVX2 Winograd's.
struct ConvForms {
  bool channel_lanes = false, dot_direct = false, winograd = false;
};

/// Output channels a convolution's packed weights hold per tile for depth
/// group `dg`: kAmxConvRows for AMX's, kConvLaneRows in the channel-lanes
/// forms, else kConvRows.
constexpr int64_t kConvLaneRows = 16;
constexpr int64_t conv_weight_rows(int64_t dg, ConvForm form = ConvForm::kPanel) {
  return form == ConvForm::kChannelLanes || form == ConvForm::kLanesDirect ? kConvLaneRows
         : dg == kAmxDepthGroup          ? kAmxConvRows
                                         : kConvRows;
}

/// The depth values a convolution's packed activations keep together for
/// weights in depth groups of `dg`: the same, but 4 for AMX's.
constexpr int64_t conv_panel_group(int64_t dg) {
  return dg == kAmxDepthGroup ? kDotDepthGroup : dg;
}

/// Whether a convolution of this depth (input channels per group times
/// taps) runs on AMX tiles where the target has them: from 128 on. Below,
/// the depth padded to 64 wastes a third or more of the tiles' products and
/// the sums' round trip through memory outweighs them; the byte dot
/// products win there (Intel Xeon with AMX, one thread, qs8_conv_bench:
/// MobileNetV2's 1x1 16->96 @112 274 us by VPDPBUSD against 418 by tiles,
/// 96->24 @56 53 against 75; 144->32 @28 20 against 17, 384->96 @14 37
/// against 30, ResNet-18's stem (depth 147) 784 against 664).
constexpr int64_t kAmxMinDepth = 128;
constexpr bool conv_amx_applies(int64_t depth) { return depth >= kAmxMinDepth; }

/// Whether a fully connected layer (rows x depth times depth x n) runs on
/// AMX tiles where the target has them: 16 rows or more (a tile's; batch
/// 1's one row would waste 15 of 16) and depth 128 or more, as the
/// convolutions. Its weights are then pack_fc_weights' with the depth
/// rounded up to 64 (each 16 columns' 16 depth groups, a tile, 1 KiB in
/// one piece), depth group kAmxDepthGroup in the generated call.
constexpr bool fc_amx_applies(int64_t rows, int64_t depth) {
  return rows >= kAmxConvRows && conv_amx_applies(depth);
}

/// Whether an AMX convolution (weights in kAmxDepthGroup) reads its taps in
/// place (conv2d's direct form): from the group's input channels, padded
/// and interleaved by 4 into quad planes ([cg/4][plane pixels][4]), each
/// tap's second operand a tile of them at the tap's offset over virtual
/// rows, instead of an im2col panel `taps` times the input's size. Needs
/// stride 1, whole 64-channel steps per tap (cg a multiple of 64) and at
/// most kAmxDirectTaps taps (their offsets are kept on the stack).
constexpr int64_t kAmxDirectTaps = 64;
constexpr bool conv_amx_direct(int64_t cg, int64_t taps, int64_t stride_h, int64_t stride_w) {
  return cg % kAmxDepthGroup == 0 && taps <= kAmxDirectTaps && stride_h == 1 && stride_w == 1;
}

/// The flip that makes T's values unsigned: 128 for int8, 0 for uint8.
template <typename T> constexpr int32_t flip_of() { return T(-1) < T(0) ? 128 : 0; }

/// Winograd F(2x2, 3x3) on 16-bit integers (ConvForm::kWinograd, the
/// kernel in simd/qs8/winograd.h): each 4x4 input tile d (the bytes u, as
/// the other forms multiply them) becomes V = B^T d B and each 3x3 kernel
/// g becomes U = G' g G'^T with G' = 2 G, integers both:
///   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1],
///   G'  = [2 0 0; 1 1 1; 1 -1 1; 0 0 2],  A^T = [1 1 1 0; 0 1 -1 -1],
/// and the tile's 2x2 outputs are A^T (sum over channels of U . V) A / 4:
/// 16 products a channel for 4 outputs where the direct form takes 36.
/// |V| <= 4 * 255 and |U| <= 9 * 128 fit in int16 (vpmaddwd's operands,
/// their products exact in 32 bits); the sums wrap in int32 harmlessly
/// (addition and multiplication modulo 2^32) as long as the result, 4
/// times the convolution's sum of 9 * cg products of at most 255 * 128,
/// fits: cg at most kWinogradMaxChannels.
constexpr int64_t kWinogradMaxChannels = 1024;
static_assert(4 * 9 * kWinogradMaxChannels * 255 * 128 < (int64_t(1) << 31),
              "Winograd's int32 sums hold 4 times the convolution's");

/// The positions of a Winograd tile (4 x 4).
constexpr int64_t kWinogradPositions = 16;

/// Bytes of a Winograd convolution's packed weights (cg input channels a
/// group): per group and tile position, int16 values in tiles of
/// kConvRows output channels, [cg/2][kConvRows][2] each (a channel pair
/// of each row together: vpmaddwd's pair).
inline int64_t winograd_packed_bytes(int64_t m, int64_t group, int64_t cg) {
  return group * kWinogradPositions * round_up(m / group, kConvRows) * round_up(cg, 2) * 2;
}

/// The transformed weights U = G' g G'^T of w (m, cg, 3, 3), packed
/// [group][position][channel tiles][cg/2][kConvRows][2] as little-endian
/// int16 (the padding channels zero).
inline void pack_winograd_weights(const int8_t *w, int64_t m, int64_t group, int64_t cg,
                                  int8_t *out) {
  static constexpr int32_t kG[4][3] = {{2, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 0, 2}};
  const int64_t mg = m / group, mp = round_up(mg, kConvRows), cp = round_up(cg, 2);
  const int64_t position_bytes = mp * cp * 2;
  for (int64_t g = 0; g < group; ++g)
    for (int64_t o = 0; o < mp; ++o)
      for (int64_t c = 0; c < cp; ++c) {
        int32_t u[4][4] = {};
        if (o < mg && c < cg) {
          const int8_t *k = w + ((g * mg + o) * cg + c) * 9;
          int32_t t[4][3] = {}; // G' g
          for (int i = 0; i < 4; ++i)
            for (int x = 0; x < 3; ++x)
              for (int y = 0; y < 3; ++y)
                t[i][x] += kG[i][y] * k[y * 3 + x];
          for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j)
              for (int x = 0; x < 3; ++x)
                u[i][j] += t[i][x] * kG[j][x];
        }
        const int64_t tile = o / kConvRows, r = o % kConvRows;
        for (int64_t p = 0; p < kWinogradPositions; ++p) {
          const int64_t at = ((g * kWinogradPositions + p) * position_bytes +
                              ((tile * (cp / 2) + c / 2) * kConvRows + r) * 4 + (c % 2) * 2);
          const uint16_t v = uint16_t(int16_t(u[p / 4][p % 4]));
          out[at] = int8_t(uint8_t(v & 0xFF));
          out[at + 1] = int8_t(uint8_t(v >> 8));
        }
      }
}

/// Whether conv2d takes a convolution by Winograd F(2x2, 3x3)
/// (ConvForm::kWinograd): `isa` (AVX2, whose byte products take 16-bit
/// lanes anyway: vpmaddwd on Winograd's int16 operands does as many
/// products an instruction, 2.25 times fewer of them), depth groups of 4,
/// a 3x3 kernel at stride 1 undilated, cg within kWinogradMaxChannels,
/// and channels enough for the transforms to pay (at least
/// kWinogradMinChannels in and out: the transforms cost a few
/// instructions per input and output value, the products 4 per output
/// pixel and input channel).
constexpr int64_t kWinogradMinChannels = 16;
inline bool conv_winograd(bool isa, int64_t dg, int64_t cg, int64_t mg, int64_t kh, int64_t kw,
                          int64_t sh, int64_t sw, int64_t dh, int64_t dw) {
  return isa && dg == kDotDepthGroup && kh == 3 && kw == 3 && sh == 1 && sw == 1 && dh == 1 &&
         dw == 1 && cg >= kWinogradMinChannels && cg <= kWinogradMaxChannels &&
         mg >= kWinogradMinChannels;
}

/// The tiles of a Winograd convolution's output (oh x ow): rows and
/// columns of 2x2 tiles, and its scratch (conv2d's, by the form): the
/// group's input planes, padded (each `plane` bytes: 2 th + 2 rows of
/// `width`, the columns' 16-byte reads past the last tile included), then
/// per task `task` bytes: a block of `block` tiles' transformed inputs
/// (int16, [16][cg/2][block + 8][2]) and their products' stage (int32,
/// [16][kConvRows][block]).
struct WinogradScratch {
  int64_t th, tw, width, plane, block, inputs, task, tasks_at, bytes;
};

/// Tiles a block: whole register tiles (16) whose transformed inputs stay
/// near 192 KiB (L2), at least one register tile, at most the image's.
inline WinogradScratch winograd_scratch(int64_t cg, int64_t oh, int64_t ow, int64_t tasks) {
  WinogradScratch s{};
  s.th = (oh + 1) / 2;
  s.tw = (ow + 1) / 2;
  s.width = round_up(2 * s.tw + 2 + 16, 16);
  s.plane = (2 * s.th + 2) * s.width;
  const int64_t pairs = round_up(cg, 2) / 2, step = 16;
  const int64_t fit = (int64_t(192) << 10) / (kWinogradPositions * pairs * 4) / step * step;
  const int64_t all = round_up(s.th * s.tw, step);
  s.block = fit < step ? step : (fit < all ? fit : all);
  s.inputs = kWinogradPositions * pairs * (s.block + 8) * 4;
  s.task = round_up(s.inputs + kWinogradPositions * kConvRows * s.block * 4, 64);
  s.tasks_at = round_up(cg * s.plane, 64);
  s.bytes = s.tasks_at + tasks * s.task;
  return s;
}

/// Bytes of a convolution's packed weights: m output channels in `group`
/// groups, `depth` = input channels per group * kernel taps, depth groups
/// of `dg` bytes.
inline int64_t conv_packed_bytes(int64_t m, int64_t group, int64_t depth, int64_t dg,
                                 ConvForm form = ConvForm::kPanel) {
  if (form == ConvForm::kWinograd)
    return winograd_packed_bytes(m, group, depth / 9);
  return group * round_up(m / group, conv_weight_rows(dg, form)) * round_up(depth, dg);
}

/// Output channels of one tile of the channel-lanes form (simd/qs8/conv_lanes.h's
/// kLaneTileVectors vectors of 16).
constexpr int64_t kConvLaneTileChannels = 64;

/// Whether conv2d computes a group's output channels in the vector lanes,
/// 16 a vector, and its pixels a few at a time (a fully connected tile's
/// shape over the im2col panel), instead of 16 pixels a vector and 4
/// channels at a time: where the pixels fill their vectors worse than the
/// channels would (7 x 7 planes: 49 pixels in 64 lanes, a quarter of the
/// products wasted; 1 x 1 planes of squeeze-and-excitation), or, with a
/// whole tile of channels or more, where the panel over virtual rows
/// (`panel_pixels`, conv_pixels' count) computes 15% more lanes: 13 x 13
/// planes, 193 pixels in 208 lanes against 169 (SqueezeNet's 3x3
/// 48->192 and 64->256 15% faster on qs8_conv_bench, Zen 5; 14 x 14's
/// 224 against 196 are 3% slower, 16 and 32 channels at 13 x 13 25-60%).
/// `isa`: the target's kernels have this form (AVX-512,
/// simd/qs8/conv2d.h's kConvForms); weights then packed in tiles of
/// kConvLaneRows channels. Decided by the compiler's packing and by conv2d
/// alike, from the shapes.
inline bool conv_channel_lanes(bool isa, int64_t dg, int64_t pixels, int64_t mg,
                               int64_t panel_pixels) {
  const int64_t by_channels = round_up(mg, kConvLaneRows) * pixels;
  auto by_pixels = [&](int64_t n) { return round_up(n, 16) * round_up(mg, kConvRows); };
  return isa && dg == kDotDepthGroup &&
         (10 * by_channels < 9 * by_pixels(pixels) ||
          (mg >= kConvLaneTileChannels && 20 * by_channels < 17 * by_pixels(panel_pixels)));
}

/// Whether the channel-lanes form reads a convolution's taps in place from
/// channel quads (kLanesDirect: fill_quads' layout, the direct form's, but
/// pixel by pixel, so without virtual rows) rather than from an im2col
/// panel it packs: depth groups of 4, whole quads of input channels, 2 to
/// kAmxDirectTaps taps. The panel cost ResNet-18's 7 x 7 layers a fifth
/// of their time (it holds each input value 9 times). Weights tap-major.
constexpr bool conv_lanes_direct(int64_t dg, int64_t cg, int64_t taps) {
  return dg == kDotDepthGroup && cg % 4 == 0 && taps > 1 && taps <= kAmxDirectTaps;
}

/// w: (m, depth) as ONNX stores a convolution's weights (m, c / group,
/// kh, kw). Tiles of conv_weight_rows(dg) channels per group, `dg` depth
/// bytes of each channel together; the padding (channels and depth) is
/// zero; the channel-lanes form: tiles of kConvLaneRows.
/// `taps` above 1 (the direct forms, conv_amx_direct and conv_dot_direct;
/// conv_weight_taps): the depth taken tap-major (k = tap * cg + c instead
/// of ONNX's c * taps + tap).
inline void pack_conv_weights(const int8_t *w, int64_t m, int64_t group, int64_t depth,
                              int64_t dg, int8_t *out, int64_t taps = 1,
                              ConvForm form = ConvForm::kPanel) {
  if (form == ConvForm::kWinograd)
    return pack_winograd_weights(w, m, group, depth / 9, out);
  const int64_t rows = conv_weight_rows(dg, form), cg = depth / taps;
  const int64_t mg = m / group, mp = round_up(mg, rows), dp = round_up(depth, dg);
  for (int64_t g = 0; g < group; ++g)
    for (int64_t t = 0; t < mp; t += rows)
      for (int64_t kg = 0; kg < dp; kg += dg)
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t j = 0; j < dg; ++j) {
            const int64_t c = t + r, k = kg + j;
            const int64_t src = taps > 1 ? k % cg * taps + k / cg : k;
            *out++ = c < mg && k < depth ? w[(g * mg + c) * depth + src] : int8_t(0);
          }
}

/// The `taps` pack_conv_weights takes for a convolution (cg input
/// channels per group, kernel kh x kw, strides) packed in depth groups of
/// `dg`: the kernel's taps for AMX's direct form and the dot products'
/// (ConvForm::kDotDirect, kLanesDirect), else 1.
constexpr int64_t conv_weight_taps(int64_t dg, int64_t cg, int64_t kh, int64_t kw,
                                   int64_t stride_h, int64_t stride_w,
                                   ConvForm form = ConvForm::kPanel) {
  return form == ConvForm::kDotDirect || form == ConvForm::kLanesDirect ||
                 (dg == kAmxDepthGroup && conv_amx_direct(cg, kh * kw, stride_h, stride_w))
             ? kh * kw
             : 1;
}

/// Bytes of a fully connected layer's packed weights (depth, n), depth
/// groups of `dg`.
inline int64_t fc_packed_bytes(int64_t depth, int64_t n, int64_t dg) {
  return round_up(n, kFcCols) * round_up(depth, dg);
}

/// w: (depth, n) row-major, as MatMul's right operand. AMX's depth group:
/// groups of 4, the depth rounded up to 64.
inline void pack_fc_weights(const int8_t *w, int64_t depth, int64_t n, int64_t dg, int8_t *out) {
  const int64_t np = round_up(n, kFcCols), dp = round_up(depth, dg);
  dg = conv_panel_group(dg);
  for (int64_t b = 0; b < np; b += kFcCols)
    for (int64_t kg = 0; kg < dp; kg += dg)
      for (int64_t c = 0; c < kFcCols; ++c)
        for (int64_t j = 0; j < dg; ++j) {
          const int64_t col = b + c, k = kg + j;
          *out++ = col < n && k < depth ? w[k * n + col] : int8_t(0);
        }
}

/// The zero point fold_zero_point takes for the convolution and fully
/// connected kernels: u_zp = x_zp + flip_of<T>() where their products take
/// the bytes u themselves (x86's vpdpbusd, NEON's USDOT and USMMLA); 128
/// less where they take u - 128 as signed bytes (`shifted`: NEON's SDOT
/// and SMULL), since sum w * u = sum w * (u - 128) + 128 * sum w and the
/// second term then folds with the rest.
inline int32_t packed_zero_point(int32_t u_zp, bool shifted) {
  return shifted ? u_zp - 128 : u_zp;
}

/// Whether no weight of w (n of them) is -128: conv2d and fully_connected
/// may then sum two products of signed bytes in 16 bits (armv8-a's
/// SMULL + SMLAL: |(u - 128) * w| <= 128 * 127).
inline bool weights_are_narrow(const int8_t *w, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (w[i] == -128)
      return false;
  return true;
}

/// out[o] = sum_k w[o, k] for the `outputs` weight vectors
/// w[o * o_stride + k * k_stride], k < depth (fully_connected_sums'
/// column_sums: o_stride 1, k_stride n).
inline void weight_sums(const int8_t *w, int64_t outputs, int64_t depth, int64_t o_stride,
                        int64_t k_stride, int32_t *out) {
  for (int64_t o = 0; o < outputs; ++o) {
    int32_t sum = 0;
    for (int64_t k = 0; k < depth; ++k)
      sum += w[o * o_stride + k * k_stride];
    out[o] = sum;
  }
}

/// out[o] = bias[o] (0 without one) - u_zp * sum_k w[o, k], the sums as
/// weight_sums takes them.
inline void fold_zero_point(const int8_t *w, const int32_t *bias, int64_t outputs, int64_t depth,
                            int64_t o_stride, int64_t k_stride, int32_t u_zp, int32_t *out) {
  weight_sums(w, outputs, depth, o_stride, k_stride, out);
  for (int64_t o = 0; o < outputs; ++o)
    out[o] = (bias ? bias[o] : 0) - u_zp * out[o];
}

/// Output pixels a convolution packs (im2col) and computes per block: a
/// multiple of 96 (whole register tiles at both widths) whose packed
/// activations (depth rounded up to 4, bytes) stay near 256 KiB, at least
/// one tile, at most the image.
inline int64_t conv_pixel_block(int64_t depth, int64_t pixels) {
  const int64_t fit = (int64_t(256) << 10) / round_up(depth, 4) / 96 * 96;
  const int64_t block = fit < 96 ? 96 : fit;
  const int64_t all = round_up(pixels, 96);
  return block < all ? block : all;
}

/// An input plane as the kernels read it: with its padding (the zero
/// point's byte), `rows` rows of the window's reach, each split into
/// `stride_w` column phases of `phase` bytes (phase f holds padded columns
/// f, f + stride_w, ...), so a tap of a strided window reads contiguous
/// bytes; 16 bytes of slack end each phase for whole-vector reads. At
/// stride 1 a row is exactly the window's reach (ow + (kw - 1) * dw) and
/// the slack ends the plane: a tap's output rows are then one run of it
/// (ConvPixels' virtual rows).
struct PaddedPlane {
  int64_t rows, stride_w, phase, slack;
  /// 0: the layout above. Else the direct form's (direct_plane): the
  /// padded plane split by row phase too, into row_phases x stride_w
  /// phase planes one after another in (ry, rx) order, phase plane
  /// (ry, rx) holding padded rows ry, ry + row_phases, ... and of each
  /// the columns rx, rx + stride_w, ...: rows / row_phases rows of
  /// `phase` bytes, back to back.
  int64_t row_phases = 0;
  int64_t bytes() const { return rows * stride_w * phase + slack; }
};

inline PaddedPlane padded_plane(int64_t out_h, int64_t out_w, int64_t kernel_h,
                                int64_t kernel_w, int64_t stride_h, int64_t stride_w,
                                int64_t dilation_h, int64_t dilation_w) {
  const int64_t rows = (out_h - 1) * stride_h + (kernel_h - 1) * dilation_h + 1;
  if (stride_w == 1)
    return {rows, 1, out_w + (kernel_w - 1) * dilation_w, 32};
  return {rows, stride_w, out_w + (kernel_w - 1) * dilation_w / stride_w + 1 + 16, 0};
}

/// Whether a convolution reads its input as it is rather than from padded
/// planes: 1x1, no padding before and none after that reaches an output
/// pixel (its last one inside the in_h x in_w input). At stride 1 its
/// rows are read in place; at larger strides (ResNet's downsampling 1x1
/// layers) each task gathers its pixels straight into its panel
/// (conv_staging.h's gather_strided_row), with no padded planes between:
/// those were a second pass and a second join, and at two threads half of
/// them the other core's (docs/design.md).
inline bool conv_reads_input(int64_t kernel_h, int64_t kernel_w, int64_t stride_h,
                             int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t in_h,
                             int64_t in_w, int64_t out_h, int64_t out_w) {
  return kernel_h == 1 && kernel_w == 1 && pad_h == 0 && pad_w == 0 &&
         (out_h - 1) * stride_h < in_h && (out_w - 1) * stride_w < in_w;
}

/// The pixels conv2d packs (im2col) and computes. Normally the output's
/// oh * ow, each tap's row gathered from the padded plane output row by
/// output row. With virtual rows (stride 1 from padded planes), output
/// rows are computed at the padded plane's width, their last
/// (kw - 1) * dw pixels dropped when stored: each tap's row is then one
/// run of the plane, read in place. That pays while the dropped share of
/// the pixels (extra / ow) times the output channels stays below `bound`,
/// the instruction set's (simd/qs8/conv_panel.h's kVirtualRowsBound).
struct ConvPixels {
  bool virtual_rows;
  int64_t count, block; // pixels packed, and per panel (conv_pixel_block)
};

/// Whether a convolution may run over virtual rows (stride 1, from padded
/// planes; at any stride from phase planes, direct_plane).
inline bool conv_virtual_rows_possible(int64_t stride_h, const PaddedPlane &plane,
                                       bool reads_input) {
  return !reads_input && (plane.row_phases > 0 || (plane.stride_w == 1 && stride_h == 1));
}

/// The plane conv2d's direct form reads its taps from: the padded plane
/// split into stride_h x stride_w phase planes (PaddedPlane's row_phases),
/// so that at any stride each tap's pixels over virtual rows are one run
/// of one phase plane: output pixel (oy, ox) reads tap (ky, kx) at row
/// oy + ky dh / sh, column ox + kx dw / sw of phase plane (ky dh % sh,
/// kx dw % sw) (direct_tap_offset), its rows ow + (kw - 1) dw / sw wide,
/// the virtual rows' pitch. At stride 1 it is padded_plane's plane: one
/// phase, rows of the window's reach, 32 bytes of slack ending it.
inline PaddedPlane direct_plane(int64_t out_h, int64_t out_w, int64_t kernel_h,
                                int64_t kernel_w, int64_t stride_h, int64_t stride_w,
                                int64_t dilation_h, int64_t dilation_w) {
  const int64_t rows = out_h + (kernel_h - 1) * dilation_h / stride_h;
  return {rows * stride_h, stride_w, out_w + (kernel_w - 1) * dilation_w / stride_w, 32,
          stride_h};
}

/// Tap (ky, kx)'s offset in pixels from output pixel (0, 0)'s place in a
/// direct_plane (the kernel's strides and dilations).
inline int64_t direct_tap_offset(const PaddedPlane &plane, int64_t ky, int64_t kx,
                                 int64_t stride_h, int64_t stride_w, int64_t dilation_h,
                                 int64_t dilation_w) {
  const int64_t y = ky * dilation_h, x = kx * dilation_w;
  const int64_t phase_plane = plane.rows / plane.row_phases * plane.phase;
  return ((y % stride_h) * stride_w + x % stride_w) * phase_plane + y / stride_h * plane.phase +
         x / stride_w;
}

/// Whether conv2d's dot-product tiles read a convolution's taps in place
/// from channel quads (the input's padded planes interleaved by 4
/// channels, [cg/4][plane][4], as AMX's direct form reads them) instead of
/// an im2col panel `taps` times the input's size: `isa` (the target's
/// kernels have the form: x86 with AVX-512), depth groups of 4, 2 to
/// kAmxDirectTaps taps and whole quads of input channels, and where the
/// virtual rows' dropped pixels (extra / ow x channels) stay under
/// kDotDirectRowsBound (the kVirtualRowsBound of conv_panel.h for the
/// instruction sets with the form: at stride 1 the panel would run over
/// virtual rows too, so that the products are the same). `plane`:
/// direct_plane's, whose phase planes make every tap an offset over
/// virtual rows at any stride (ResNet's strided 3x3 layers had taken the
/// panel, at two thirds of the stride-1 layers' rate). Its weights are
/// packed tap-major (pack_conv_weights' taps).
constexpr int64_t kDotDirectRowsBound = 64;
inline bool conv_dot_direct(bool isa, int64_t dg, int64_t cg, int64_t mg, int64_t taps,
                            int64_t stride_h, int64_t out_w, const PaddedPlane &plane,
                            bool reads_input) {
  return isa && dg == kDotDepthGroup && cg % 4 == 0 && taps > 1 && taps <= kAmxDirectTaps &&
         conv_virtual_rows_possible(stride_h, plane, reads_input) &&
         (plane.phase - out_w) * mg < kDotDirectRowsBound * out_w;
}

/// The pixels packed: with virtual rows, every output row but the last at
/// the padded plane's width.
inline int64_t conv_pixel_count(int64_t out_h, int64_t out_w, const PaddedPlane &plane,
                                bool virtual_rows) {
  return virtual_rows ? (out_h - 1) * plane.phase + out_w : out_h * out_w;
}

inline ConvPixels conv_pixels(int64_t depth, int64_t out_h, int64_t out_w, int64_t stride_h,
                              int64_t mg, const PaddedPlane &plane, bool reads_input,
                              int64_t bound) {
  const bool virtual_rows = conv_virtual_rows_possible(stride_h, plane, reads_input) &&
                            (plane.phase - out_w) * mg < bound * out_w;
  const int64_t count = conv_pixel_count(out_h, out_w, plane, virtual_rows);
  return {virtual_rows, count, conv_pixel_block(depth, count)};
}

/// The form conv2d takes a convolution in, on an instruction set with
/// `isa`'s forms, for weights in depth groups of `dg`: channel lanes where
/// they fill the vectors better, else the direct form where it computes
/// the panel's products, else the panel. The one choice the compiler's
/// packing, conv2d, the tests and the benchmarks all read. cg and mg:
/// input and output channels a group; the kernel, strides, output size,
/// leading pads and dilations as conv2d takes them.
inline ConvForm conv_form(ConvForms isa, int64_t dg, int64_t cg, int64_t mg, int64_t kh,
                          int64_t kw, int64_t sh, int64_t sw, int64_t oh, int64_t ow, int64_t ph,
                          int64_t pw, int64_t dh, int64_t dw) {
  if (conv_winograd(isa.winograd, dg, cg, mg, kh, kw, sh, sw, dh, dw))
    return ConvForm::kWinograd;
  const PaddedPlane plane = padded_plane(oh, ow, kh, kw, sh, sw, dh, dw);
  // conv_reads_input but for the input's size (padding after it that
  // reaches an output pixel): that changes nothing here, a 1x1 kernel's
  // pixels are the output's from the input or its planes alike.
  const bool reads_input = kh == 1 && kw == 1 && ph == 0 && pw == 0;
  if (conv_channel_lanes(isa.channel_lanes, dg, oh * ow, mg,
                         conv_pixels(cg * kh * kw, oh, ow, sh, mg, plane, reads_input,
                                     kDotDirectRowsBound)
                             .count))
    return conv_lanes_direct(dg, cg, kh * kw) ? ConvForm::kLanesDirect
                                              : ConvForm::kChannelLanes;
  const PaddedPlane direct = direct_plane(oh, ow, kh, kw, sh, sw, dh, dw);
  if (conv_dot_direct(isa.dot_direct, dg, cg, mg, kh * kw, sh, ow, direct, reads_input)) {
    // Both read the taps in place; the channel-lanes tiles where the direct
    // form's virtual rows compute 5% more lanes than there are pixels, with
    // more than two tiles of channels. qs8_conv_bench, Zen 5: ResNet-18's
    // 3x3 layers at 14 x 14 328 -> 284 us (224 lanes a channel against
    // 196), strided from 28 x 28 197 -> 164; at 56 x 56 (3% more) the same
    // either way. With 128 channels (one tile each of two tasks) the lanes
    // ran 3-13% slower at two threads (ResNet-18's 128 at 28 x 28 179-184
    // -> 187-188 us, SqueezeNet's 32 -> 128 at 27 x 27 50-52 -> 59) and
    // 0-3% faster at one.
    const int64_t lanes = round_up(mg, kConvLaneRows) * oh * ow;
    const int64_t rows = round_up(conv_pixel_count(oh, ow, direct, true), 16) *
                         round_up(mg, kConvRows);
    if (isa.channel_lanes && conv_lanes_direct(dg, cg, kh * kw) &&
        mg > 2 * kConvLaneTileChannels && 20 * lanes < 19 * rows)
      return ConvForm::kLanesDirect;
    return ConvForm::kDotDirect;
  }
  return ConvForm::kPanel;
}

/// The plane a convolution in `form` reads (conv_scratch's `plane`):
/// direct_plane for the direct forms, else padded_plane.
inline PaddedPlane conv_plane(ConvForm form, int64_t out_h, int64_t out_w, int64_t kernel_h,
                              int64_t kernel_w, int64_t stride_h, int64_t stride_w,
                              int64_t dilation_h, int64_t dilation_w) {
  return form == ConvForm::kDotDirect || form == ConvForm::kLanesDirect
             ? direct_plane(out_h, out_w, kernel_h, kernel_w, stride_h, stride_w, dilation_h,
                            dilation_w)
             : padded_plane(out_h, out_w, kernel_h, kernel_w, stride_h, stride_w, dilation_h,
                            dilation_w);
}

/// A convolution's scratch, laid out for whichever way conv_pixels
/// chooses (the compiler need not know the instruction set's bound): the
/// packed block of activations (depth rounded up to `dg`, from 0),
/// conv_panel_group(dg) gathered rows of it, where virtual rows are
/// possible a stage of kConvRows output rows (two AMX tiles' with AMX's
/// `dg`), and (unless it reads its input as it is) the
/// group's padded planes (`plane` each, `planes` of them); offsets in bytes.
/// Split into `tasks` (simd/qs8/conv2d.h), each task has its own panel,
/// rows and stage, `task` bytes from t * task; the planes (and quads) are
/// shared, after the last task's.
struct ConvScratch {
  int64_t rows, stage, planes, bytes, quads = 0, task = 0;
};

/// Bytes of one channel's padded plane in a quad plane (plane.bytes()
/// rounded up to 16 for the interleave; a quad plane is 4 of them).
inline int64_t conv_quad_plane_bytes(const PaddedPlane &plane) {
  return round_up(plane.bytes(), 16);
}

inline ConvScratch conv_scratch(int64_t depth, int64_t out_h, int64_t out_w, int64_t stride_h,
                                int64_t planes, const PaddedPlane &plane, bool reads_input,
                                int64_t dg, int64_t out_bytes = 1, int64_t tasks = 1,
                                ConvForm form = ConvForm::kPanel) {
  if (form == ConvForm::kWinograd)
    return {0, 0, 0, winograd_scratch(planes, out_h, out_w, tasks).bytes};
  const bool amx_direct =
      dg == kAmxDepthGroup && conv_amx_direct(planes, depth / planes, stride_h, plane.stride_w);
  if (amx_direct || form == ConvForm::kDotDirect || form == ConvForm::kLanesDirect) {
    // The direct forms (AMX's, conv_dot_direct, conv_lanes_direct): per
    // task the stage of two AMX tiles of channels (or one dot-product
    // tile's; none for the channel lanes, whose tiles store their outputs
    // themselves) and (from `rows`) four padded planes to interleave, then
    // the group's channel quads (no panel).
    const int64_t block = conv_pixel_block(depth, conv_pixel_count(out_h, out_w, plane, true));
    const int64_t quad_plane = conv_quad_plane_bytes(plane);
    const int64_t stage_rows = amx_direct ? 2 * kAmxConvRows : kConvRows;
    ConvScratch s{};
    if (form != ConvForm::kLanesDirect)
      s.rows = round_up(stage_rows * block * out_bytes + 64, 64);
    s.task = s.rows + 4 * quad_plane;
    s.planes = tasks * s.task;
    s.quads = s.planes;
    s.bytes = s.quads + planes * quad_plane;
    return s;
  }
  const bool possible = conv_virtual_rows_possible(stride_h, plane, reads_input);
  // The larger block: virtual rows pack more pixels.
  const int64_t block =
      conv_pixel_block(depth, conv_pixel_count(out_h, out_w, plane, possible));
  ConvScratch s{};
  s.rows = round_up(depth, dg) * block;
  s.stage = s.rows + conv_panel_group(dg) * block + 64;
  // AMX's stage takes two tiles of channels.
  const int64_t stage_rows = dg == kAmxDepthGroup ? 2 * kAmxConvRows : kConvRows;
  s.task = round_up(s.stage + (possible ? stage_rows * block * out_bytes + 64 : 0), 64);
  s.planes = tasks * s.task;
  s.bytes = s.planes + (reads_input ? 0 : planes * plane.bytes());
  return s;
}

inline int64_t conv_scratch_bytes(int64_t depth, int64_t out_h, int64_t out_w, int64_t stride_h,
                                  int64_t planes, const PaddedPlane &plane, bool reads_input,
                                  int64_t dg, int64_t tasks = 1,
                                  ConvForm form = ConvForm::kPanel) {
  return conv_scratch(depth, out_h, out_w, stride_h, planes, plane, reads_input, dg, 1, tasks,
                      form)
      .bytes;
}

/// conv2d_sums' scratch: its m output channels' run-time constants (int32),
/// then conv2d's with int32 outputs staged.
inline int64_t conv_sums_scratch_bytes(int64_t m, int64_t depth, int64_t out_h, int64_t out_w,
                                       int64_t stride_h, int64_t planes, const PaddedPlane &plane,
                                       bool reads_input, int64_t dg, int64_t tasks = 1) {
  return round_up(m * 4, 64) +
         conv_scratch(depth, out_h, out_w, stride_h, planes, plane, reads_input, dg, 4, tasks)
             .bytes;
}

/// Bytes of scratch a fully connected layer of `rows` rows needs: its rows
/// of activations as the kernel packs them (rounded up to kFcMaxRows),
/// depth rounded up to `dg`, and 64 bytes of slack (its stores are whole
/// 16-byte vectors).
inline int64_t fc_scratch_bytes(int64_t rows, int64_t depth, int64_t dg) {
  // AMX's tiles read 16 rows at a time (fc_amx_applies).
  const int64_t row_tile = dg == kAmxDepthGroup ? kAmxConvRows : kFcMaxRows;
  return round_up(round_up(rows, row_tile) * round_up(depth, dg), 64) + 64;
}

/// fully_connected_sums' scratch: fully_connected's, then the n columns'
/// run-time constants (int32).
inline int64_t fc_sums_scratch_bytes(int64_t rows, int64_t depth, int64_t n, int64_t dg) {
  return fc_scratch_bytes(rows, depth, dg) + round_up(n, 16) * 4;
}

} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif
