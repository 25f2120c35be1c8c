// The SIMD convolutions against the reference kernels: direct, pixel-major
// (W packed ahead, as the compiler does) and depthwise in NCHW, the
// channel-blocked (NCHW16c) dense and depthwise convolutions, Winograd
// F(4x4, 3x3) on every 3x3 stride-1 case (whatever its tile count), each with
// every epilogue (bias, residual, activations), one task and kTasks
// (bit-identical); max pooling and blocked max / average pooling; the fused
// expand + depthwise block and the whole inverted-residual block against the
// reference and the blocked kernels they fuse (bit-identical).
#include "support.h"

#include "onnxc_rt/kernels/reference/conv.h"
#include "onnxc_rt/kernels/reference/elementwise.h"
#include "onnxc_rt/kernels/simd/f32/blocked.h"
#include "onnxc_rt/kernels/simd/f32/blocked_window.h"
#include "onnxc_rt/kernels/simd/f32/conv.h"
#include "onnxc_rt/kernels/simd/f32/depthwise.h"
#include "onnxc_rt/kernels/simd/f32/expand_depthwise.h"
#include "onnxc_rt/kernels/simd/f32/pool.h"
#include "onnxc_rt/kernels/simd/f32/winograd.h"

#include <array>
#include <limits>

using namespace onnxc_rt;
using namespace kernel_test;

namespace {

struct ConvCase {
  int64_t n, c, h, w, m, kh, kw, sh, sw, ph, pw, pe_h, pe_w, dh, dw, group;
};

/// The same convolution on the blocked layout (conv2d_blocked from a blocked
/// input and from the NCHW one; depthwise_conv2d_blocked), one task and
/// kTasks; `want` is the reference's NCHW result.
template <typename Act>
void checkBlockedConv(const ConvCase &q, const std::vector<float> &x,
                             const std::vector<float> &w, const float *bp, const float *zp,
                             const std::vector<float> &want, const int64_t *in,
                             const int64_t *out, const int64_t *kernel, const int64_t *strides,
                             const int64_t *pb, const int64_t *dil, float aa, float ab) {
  const bool depthwise = q.group != 1;
  const int64_t taps = q.kh * q.kw, ny = (int64_t)want.size();
  const std::vector<float> xb = blocked(x, in);
  std::vector<float> zb;
  if (zp)
    zb = blocked(std::vector<float>(zp, zp + ny), out);
  const int64_t yb_floats = out[0] * simd::channel_blocks(q.m) * simd::kChannelBlock * out[2] * out[3];
  for (int in_blocked = depthwise ? 1 : 0; in_blocked < 2; ++in_blocked) {
    std::vector<float> packed(
        simd::blocked_conv_weights_floats(q.m, q.c, taps, in_blocked, depthwise));
    simd::pack_blocked_conv_weights(w.data(), q.m, q.c, taps, in_blocked, depthwise,
                                   packed.data());
    std::vector<float> scratch(
        simd::blocked_conv_scratch_floats(in, out, kernel, strides, pb, dil, in_blocked) + 1);
    std::vector<float> yb(yb_floats, 7.f), split(yb_floats, 7.f);
    const float *xin = in_blocked ? xb.data() : x.data();
    const float *z = zp ? zb.data() : nullptr;
    for (int tasks : {1, (int)kTasks}) {
      float *y = tasks == 1 ? yb.data() : split.data();
      if (depthwise)
        simd::depthwise_conv2d_blocked<Act>(xin, packed.data(), bp, z, y, in, out, kernel,
                                           strides, pb, dil, aa, ab, pool(), tasks);
      else
        simd::conv2d_blocked<Act>(xin, packed.data(), bp, z, y, in, out, kernel, strides, pb, dil,
                                 in_blocked, aa, ab, scratch.data(), pool(), tasks);
    }
    const char *what = depthwise    ? "depthwise_conv2d_blocked"
                       : in_blocked ? "conv2d_blocked"
                                    : "conv2d_blocked (NCHW input)";
    CHECK_CLOSE(what, unblocked(yb, out), want, ny, q.c / q.group * taps);
    CHECK_SAME(what, split, yb, yb_floats);
  }
  // Winograd F(4x4, 3x3), F(2x2, 3x3) and F(6x6, 3x3): every 3x3 stride-1
  // dense case, below kWinogradMinTiles too (that threshold is a cost
  // decision).
  if (depthwise || q.kh != 3 || q.kw != 3 || q.sh != 1 || q.sw != 1 || q.dh != 1 || q.dw != 1)
    return;
  for (int64_t tile : {int64_t{4}, int64_t{2}, int64_t{6}}) {
    std::vector<float> u(simd::winograd_weights_floats(q.m, q.c, tile)), work(q.m * q.c);
    simd::pack_winograd_weights(w.data(), q.m, q.c, work.data(), u.data(), tile);
    std::vector<float> scratch(simd::winograd_scratch_floats(in, out, tile));
    std::vector<float> yb(yb_floats, 7.f), split(yb_floats, 7.f);
    for (int tasks : {1, (int)kTasks}) {
      float *y = tasks == 1 ? yb.data() : split.data();
      const float *zb_or_null = zp ? zb.data() : nullptr;
      simd::winograd_conv2d_blocked_tile<Act>(tile, xb.data(), u.data(), bp, zb_or_null, y, in,
                                              out, pb, aa, ab, scratch.data(), pool(), tasks);
    }
    const char *what = tile == 4   ? "winograd_conv2d_blocked F(4x4, 3x3)"
                       : tile == 2 ? "winograd_conv2d_blocked F(2x2, 3x3)"
                                   : "winograd_conv2d_blocked F(6x6, 3x3)";
    CHECK_CLOSE(what, unblocked(yb, out), want, ny, q.c * taps);
    CHECK_SAME(what, split, yb, yb_floats);
  }
}

template <typename Act>
void checkConv(const ConvCase &q, bool withBias, bool withResidual, float aa, float ab) {
  const int64_t oh = (q.h + q.ph + q.pe_h - q.dh * (q.kh - 1) - 1) / q.sh + 1;
  const int64_t ow = (q.w + q.pw + q.pe_w - q.dw * (q.kw - 1) - 1) / q.sw + 1;
  int64_t in[4] = {q.n, q.c, q.h, q.w}, out[4] = {q.n, q.m, oh, ow};
  int64_t kernel[2] = {q.kh, q.kw}, strides[2] = {q.sh, q.sw}, pb[2] = {q.ph, q.pw},
          pe[2] = {q.pe_h, q.pe_w}, dil[2] = {q.dh, q.dw};
  const int64_t cg = q.c / q.group, ny = q.n * q.m * oh * ow;
  auto x = randomVec(q.n * q.c * q.h * q.w), w = randomVec(q.m * cg * q.kh * q.kw);
  auto bias = randomVec(q.m), z = randomVec(ny);
  std::vector<float> want(ny), got(ny, 7.f);
  ref::conv<float>(x.data(), w.data(), withBias ? bias.data() : nullptr, want.data(), 2, in,
                   out, kernel, strides, pb, pe, dil, q.group);
  for (int64_t i = 0; i < ny; ++i)
    want[i] = Act::apply(want[i] + (withResidual ? z[i] : 0.f), aa, ab);
  const float *bp = withBias ? bias.data() : nullptr, *zp = withResidual ? z.data() : nullptr;
  const bool depthwise = cg == 1;
  std::vector<float> scratch(
      depthwise ? simd::depthwise_scratch_floats(q.c, q.m, oh, ow, q.kh, q.kw, q.sh, q.sw, q.dh, q.dw)
                : simd::conv2d_scratch_floats(in, out, kernel, strides, pb, dil, q.group));
  // Once packing W on the fly, once with W packed ahead (as the compiler
  // does; then a small plane runs pixel-major: conv_is_pixel_major).
  std::vector<float> packed(
      depthwise ? 0 : simd::conv_packed_weights_floats(in, out, kernel, strides, pb, dil, q.group));
  if (!depthwise)
    simd::pack_conv_weights(w.data(), in, out, kernel, strides, pb, dil, q.group, packed.data());
  if (depthwise)
    simd::depthwise_conv2d<Act>(x.data(), w.data(), bp, zp, got.data(), in, out, kernel, strides,
                               pb, dil, aa, ab, scratch.data());
  else {
    simd::conv2d<Act>(x.data(), w.data(), nullptr, bp, zp, got.data(), in, out, kernel, strides,
                     pb, dil, q.group, aa, ab, scratch.data());
    CHECK_CLOSE("conv2d (W packed at run time)", got, want, ny, cg * q.kh * q.kw);
    simd::conv2d<Act>(x.data(), w.data(), packed.data(), bp, zp, got.data(), in, out, kernel,
                     strides, pb, dil, q.group, aa, ab, scratch.data());
  }
  CHECK_CLOSE(depthwise ? "depthwise_conv2d" : "conv2d", got, want, ny, cg * q.kh * q.kw);
  std::vector<float> split(ny, 7.f);
  std::vector<float> split_scratch(
      depthwise ? kTasks * scratch.size()
                : simd::conv2d_scratch_floats(in, out, kernel, strides, pb, dil, q.group, kTasks));
  if (depthwise)
    simd::depthwise_conv2d<Act>(x.data(), w.data(), bp, zp, split.data(), in, out, kernel,
                               strides, pb, dil, aa, ab, split_scratch.data(), pool(), kTasks);
  else
    simd::conv2d<Act>(x.data(), w.data(), packed.data(), bp, zp, split.data(), in, out, kernel,
                     strides, pb, dil, q.group, aa, ab, split_scratch.data(), pool(), kTasks);
  CHECK_SAME(depthwise ? "depthwise_conv2d" : "conv2d", split, got, ny);
  if (q.group == 1 || (depthwise && q.m == q.c))
    checkBlockedConv<Act>(q, x, w, bp, zp, want, in, out, kernel, strides, pb, dil, aa, ab);
}

/// One convolution with each kind of epilogue: no bias, bias, residual,
/// bias and residual; an activation applied in registers (Relu, Clamp with
/// its bounds) and one applied to the stored tile (HardSigmoid). Every path
/// applies Act through epilogue.h's one vector_activation / apply_epilogue,
/// so the other functors are not instantiated on every path here (each
/// costs the build a full set of convolution kernels, minutes per ISA):
/// LeakyRelu takes HardSigmoid's stored-tile path, Sigmoid and SiLU Clamp's
/// in-register one; the GEMM sweep runs every functor through the fused
/// epilogue and simd_norm_test the vector exp's accuracy.
void checkConvEpilogues(const ConvCase &q) {
  checkConv<ref::Identity>(q, false, false, 0, 0);
  checkConv<ref::Relu>(q, true, false, 0, 0);
  checkConv<ref::Relu>(q, true, true, 0, 0);
  checkConv<ref::HardSigmoid>(q, true, true, 0.2f, 0.5f);
  checkConv<ref::Clamp>(q, false, true, 0.0f, 6.0f);
}


const ConvCase kConvs[] = {
    {1, 3, 9, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},      // 3x3 same
    {2, 5, 11, 7, 19, 3, 3, 2, 2, 1, 1, 0, 1, 1, 1, 1},    // stride 2, asymmetric pad
    {1, 16, 8, 8, 32, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},    // pointwise
    {1, 16, 8, 8, 12, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1},    // strided 1x1
    {1, 8, 10, 10, 8, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1},    // dilation 2
    {1, 8, 7, 9, 12, 3, 2, 1, 2, 1, 0, 1, 1, 1, 1, 4},     // groups
    {1, 3, 32, 32, 7, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1},    // ResNet stem shape
    {1, 300, 6, 6, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // k = 2700 > kGemmKC
    {1, 4, 20, 50, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // wide rows: one-row slivers
    {1, 4, 9, 70, 8, 5, 3, 1, 2, 2, 1, 2, 1, 1, 2, 1},     // wide, strided, dilated
    {1, 8, 40, 40, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // direct: column blocks, m % 6
    {1, 16, 14, 14, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},  // stride-2 phase planes, 7x7 out
    {1, 8, 9, 9, 8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},      // 1x1 with padding: direct
    // Pointwise on the blocked layout (NEON: 4-pixel x 16-channel tiles):
    // pixel chunks not whole tiles, channels past whole blocks, stride 2.
    {1, 24, 23, 23, 20, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},  // 529 pixels, 24 -> 20 channels
    {2, 40, 9, 11, 36, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1},   // stride 2, batch 2
    // One pixel (squeeze-and-excite): blocked_matvec, depths past 4s.
    {2, 40, 1, 1, 50, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},    // 40 -> 50, batch 2
    {1, 1152, 1, 1, 48, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},  // EfficientNet-B0's reduce
    {1, 20, 1, 1, 1152, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},  // and expand (20: 4 + 16)
    {1, 6, 12, 1, 8, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 1},     // 1-wide plane: im2col
    {1, 16, 9, 9, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16},   // depthwise
    {1, 16, 9, 10, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 16},  // depthwise stride 2
    {2, 8, 12, 12, 8, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 8},    // depthwise 5x5
    {1, 6, 8, 8, 12, 3, 3, 1, 2, 0, 1, 2, 1, 2, 1, 6},     // depthwise multiplier 2
    {1, 5, 30, 41, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 5},    // depthwise, wide, stride 2
    {1, 5, 30, 45, 5, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 5},    // depthwise, wide, 5x5
    {1, 3, 20, 40, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1, 2, 3},    // depthwise stride 3, dilated
    {1, 4, 7, 7, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4},      // depthwise 7x7 plane
    {1, 4, 14, 14, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 4},    // depthwise 14 -> 7, stride 2
    {1, 3, 14, 14, 3, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 3},    // depthwise 5x5 stride 2
    {1, 2, 112, 112, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},  // depthwise 112 wide
    {1, 2, 23, 1500, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2},  // wider than a pooling chunk
    // Channel-blocked depthwise (rows of at most 16): partial blocks of
    // channels, pixel tails of 4/2/1, bands, asymmetric pads, dilation.
    {1, 21, 7, 7, 21, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 21},   // 7x7, 16 + 5 channels
    {2, 17, 15, 13, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 17}, // 15 x 13 planes, batch 2
    {1, 33, 14, 14, 33, 5, 5, 2, 2, 2, 2, 1, 2, 1, 1, 33}, // 5x5 stride 2, asymmetric pad
    {1, 16, 30, 16, 16, 3, 3, 2, 2, 0, 1, 1, 0, 1, 1, 16}, // stride 2 into 8-wide rows
    {1, 8, 200, 11, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8},   // tall: several bands
    {1, 9, 12, 12, 9, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 9},    // dilated
    {1, 4, 20, 20, 4, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 4},    // stride 3
    {1, 3, 11, 40, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},    // plane path: 3x3 row tails
    {1, 3, 13, 70, 3, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 3},    // plane path: 5x5 stride 2
    {1, 4, 5, 1, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 4},      // 1 wide, stride 2: no whole window
    {1, 16, 6, 6, 16, 3, 3, 1, 1, 3, 3, 3, 3, 1, 1, 16},   // pads past the window: rows of no tap
    {1, 20, 7, 7, 20, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 20},   // 5x5 on 7x7: 3 whole columns
    // Winograd F(4x4, 3x3): outputs not whole tiles, channels past
    // whole blocks and panels, unpadded / asymmetric / wide pads, batch
    // 2, several bands (winograd_band_tiles).
    {2, 20, 13, 10, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // 13 x 10: partial tiles
    {1, 33, 16, 16, 48, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1},  // unpadded 14 x 14 out
    {1, 16, 11, 9, 17, 3, 3, 1, 1, 2, 0, 1, 2, 1, 1, 1},   // asymmetric pads
    {1, 160, 22, 21, 144, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, // one band as large as the weights
    {1, 8, 70, 66, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},     // 2, 3 and 2 bands (F4, F2, F6)
    // AVX-512's Winograd products in strips of 7 to 14 tiles: 64 4x4
    // tiles (5 x 13 - 1), 25 6x6 ones (13 + 12), the rest below 7.
    {1, 24, 30, 30, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // 30 x 30
    // AVX-512's strips of 7 to 14 pixels (window_strip): rows cut into
    // equal strips (27: 14 + 13; 100: 7 x 13 + 9; 56: 4 x 14; 7; 10), rows
    // narrower than 7 beside them, partial channel blocks and panels,
    // strides 1 and 2, pointwise strips across narrow rows.
    {1, 20, 6, 27, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // 27 wide
    {1, 16, 3, 100, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // 100 wide
    {1, 16, 5, 56, 48, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},   // pointwise, 56 wide
    {1, 40, 7, 7, 36, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // 7 x 7, 36 channels
    {2, 17, 9, 10, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // 10 wide, batch 2
    {1, 16, 30, 5, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // 5 wide: tiles of 6 only
    // Pointwise on rows of 7 or fewer: strips across rows (49: 13 + 3 x 12).
    {1, 40, 7, 7, 36, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},    // 7 x 7, 36 channels
    {2, 20, 9, 3, 40, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},    // 3 wide, batch 2
    {1, 48, 4, 4, 70, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},    // 16 pixels, 70 channels
    {1, 16, 20, 40, 24, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},  // stride 2: 20 wide, 10 + 10
    {1, 32, 28, 29, 40, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1},  // pointwise stride 2: 15 wide
    // Tasks tile-major (tile_chunks: weights larger than the input, the
    // channel tiles shared within 1/8): 3 tiles of 32, and 8.5 tiles.
    {1, 64, 12, 12, 96, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},  // 3 tiles, stride 2
    {1, 16, 4, 4, 272, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},   // a half last tile
};

const ConvCase kPixelMajor[] = {
    {1, 64, 7, 7, 62, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // 49 pixels, 62 channels
    {1, 256, 1, 1, 32, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},   // one pixel
    {1, 96, 14, 14, 64, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1},  // 1x1 stride 2, in place
    {1, 48, 9, 9, 32, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1},    // 3x3 unpadded, in place
    {1, 32, 10, 9, 32, 3, 3, 1, 1, 2, 1, 1, 2, 2, 1, 1},   // asymmetric pads, dilation
    {1, 24, 8, 8, 32, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 1},    // 5x5
    {2, 64, 9, 8, 64, 3, 2, 2, 1, 1, 0, 1, 1, 1, 1, 2},    // 3x2, strides 2x1, groups
    {1, 128, 20, 20, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, // 400 pixels: two chunks
};

std::string describe(const ConvCase &q) {
  std::ostringstream os;
  os << "n=" << q.n << " c=" << q.c << " " << q.h << "x" << q.w << " m=" << q.m << " k=" << q.kh
     << "x" << q.kw << " s=" << q.sh << "," << q.sw << " p=" << q.ph << "," << q.pw
     << " d=" << q.dh << " g=" << q.group;
  return os.str();
}

} // namespace

TEST_CASE("convolutions with every epilogue", "[conv]") {
  for (size_t i = caseFirst(); i < std::size(kConvs); i += caseStride()) {
    INFO(describe(kConvs[i]));
    checkConvEpilogues(kConvs[i]);
  }
}

// Pixel-major convolutions (conv_is_pixel_major, with W packed ahead):
// pixel counts around the register tile (6) and the transposes (8, 16),
// channels past whole tiles, windows read in place (unpadded, strided) or
// from a padded copy, taps other than 1 and 9, groups, batch 2, and more
// pixels than a chunk.
TEST_CASE("pixel-major convolutions", "[conv]") {
  for (const ConvCase &q : kPixelMajor) {
    const int64_t oh = (q.h + q.ph + q.pe_h - q.dh * (q.kh - 1) - 1) / q.sh + 1;
    const int64_t ow = (q.w + q.pw + q.pe_w - q.dw * (q.kw - 1) - 1) / q.sw + 1;
    int64_t in[4] = {q.n, q.c, q.h, q.w}, out[4] = {q.n, q.m, oh, ow};
    int64_t kernel[2] = {q.kh, q.kw}, strides[2] = {q.sh, q.sw}, pb[2] = {q.ph, q.pw},
            dil[2] = {q.dh, q.dw};
    INFO("c=" << q.c << " m=" << q.m << " " << q.h << "x" << q.w);
    CHECK(simd::conv_is_pixel_major(in, out, kernel, strides, pb, dil, q.group));
  }
  for (size_t i = caseFirst(); i < std::size(kPixelMajor); i += caseStride()) {
    INFO(describe(kPixelMajor[i]));
    checkConvEpilogues(kPixelMajor[i]);
  }
}

// Max pooling, including ceil-mode windows that overhang the far edge, and
// blocked max / average pooling over in-bounds taps.
TEST_CASE("pooling", "[pool]") {
  // Max pooling, including ceil-mode windows that overhang the far edge.
  for (const ConvCase &q : kConvs) {
    const int64_t oh = (q.h + q.ph + q.pe_h - q.dh * (q.kh - 1) - 1 + q.sh - 1) / q.sh + 1;
    const int64_t ow = (q.w + q.pw + q.pe_w - q.dw * (q.kw - 1) - 1 + q.sw - 1) / q.sw + 1;
    if (q.ph >= q.kh || q.pw >= q.kw)
      continue;
    int64_t in[4] = {q.n, q.c, q.h, q.w}, out[4] = {q.n, q.c, oh, ow};
    int64_t kernel[2] = {q.kh, q.kw}, strides[2] = {q.sh, q.sw}, pb[2] = {q.ph, q.pw},
            pe[2] = {q.pe_h + q.sh - 1, q.pe_w + q.sw - 1}, dil[2] = {q.dh, q.dw};
    auto x = randomVec(q.n * q.c * q.h * q.w);
    std::vector<float> want(q.n * q.c * oh * ow), got(want.size());
    ref::max_pool<float>(x.data(), want.data(), nullptr, 2, in, out, kernel, strides, pb, pe,
                         dil, 0);
    simd::max_pool2d<float>(x.data(), got.data(), in, out, kernel, strides, pb, dil);
    CHECK_CLOSE("max_pool2d", got, want, (int64_t)want.size(), 0);
    // Blocked max pooling and average pooling over in-bounds taps.
    const std::vector<float> xb = blocked(x, in);
    std::vector<float> yb(q.n * simd::channel_blocks(q.c) * simd::kChannelBlock * oh * ow);
    simd::pool2d_blocked(xb.data(), yb.data(), in, out, kernel, strides, pb, dil, 1, pool(), kTasks);
    CHECK_CLOSE("pool2d_blocked max", unblocked(yb, out), want, (int64_t)want.size(), 0);
    ref::avg_pool<float>(x.data(), want.data(), 2, in, out, kernel, strides, pb, pe, dil, 0);
    simd::pool2d_blocked(xb.data(), yb.data(), in, out, kernel, strides, pb, dil, 0, pool(), kTasks);
    CHECK_CLOSE("pool2d_blocked average", unblocked(yb, out), want, (int64_t)want.size(),
                q.kh * q.kw);
  }
}

namespace {

/// An inverted-residual block's expand (1x1, c -> mid) and depthwise
/// (k x k, stride s, pads pb / pe, dilation d) convolutions.
struct BlockCase {
  int64_t n, c, h, w, mid, k, s, pb, pe, d;
  bool residual;
};

/// A block case's depthwise window as the kernels take it, its output
/// size, and the 1x1 convolutions' unit window (one, zero).
struct BlockWindow {
  int64_t oh, ow, one[2], zero[2], kernel[2], strides[2], pb[2], pe[2], dil[2];
  explicit BlockWindow(const BlockCase &q)
      : oh((q.h + q.pb + q.pe - q.d * (q.k - 1) - 1) / q.s + 1),
        ow((q.w + q.pb + q.pe - q.d * (q.k - 1) - 1) / q.s + 1), one{1, 1}, zero{0, 0},
        kernel{q.k, q.k}, strides{q.s, q.s}, pb{q.pb, q.pb}, pe{q.pe, q.pe}, dil{q.d, q.d} {}
};

/// expand_depthwise_blocked against the reference (two convolutions and
/// their epilogues), bit-identical to conv2d_blocked then
/// depthwise_conv2d_blocked, and one task and kTasks bit-identical.
template <typename ActE, typename ActD>
void checkExpandDepthwise(const BlockCase &q, float ae, float be, float ad, float bd) {
  const BlockWindow window(q);
  const auto &[oh, ow, one, zero, kernel, strides, pb, pe, dil] = window;
  int64_t in[4] = {q.n, q.c, q.h, q.w}, mid[4] = {q.n, q.mid, q.h, q.w},
          out[4] = {q.n, q.mid, oh, ow};
  const int64_t taps = q.k * q.k, ny = q.n * q.mid * oh * ow;
  auto x = randomVec(q.n * q.c * q.h * q.w), we = randomVec(q.mid * q.c),
       wd = randomVec(q.mid * taps), bias_e = randomVec(q.mid), bias_d = randomVec(q.mid),
       z = randomVec(ny);
  std::vector<float> expanded(q.n * q.mid * q.h * q.w), want(ny);
  ref::conv<float>(x.data(), we.data(), bias_e.data(), expanded.data(), 2, in, mid, one, one,
                   zero, zero, one, 1);
  for (float &v : expanded)
    v = ActE::apply(v, ae, be);
  ref::conv<float>(expanded.data(), wd.data(), bias_d.data(), want.data(), 2, mid, out, kernel,
                   strides, pb, pe, dil, q.mid);
  for (int64_t i = 0; i < ny; ++i)
    want[i] = ActD::apply(want[i] + (q.residual ? z[i] : 0.f), ad, bd);

  std::vector<float> we_packed(simd::blocked_conv_weights_floats(q.mid, q.c, 1, true, false)),
      wd_packed(simd::blocked_conv_weights_floats(q.mid, q.mid, taps, true, true));
  simd::pack_blocked_conv_weights(we.data(), q.mid, q.c, 1, true, false, we_packed.data());
  simd::pack_blocked_conv_weights(wd.data(), q.mid, q.mid, taps, true, true, wd_packed.data());
  const std::vector<float> xb = blocked(x, in);
  const std::vector<float> zb = blocked(z, out);
  const float *zp = q.residual ? zb.data() : nullptr;
  const int64_t yb_floats = q.n * simd::channel_blocks(q.mid) * simd::kChannelBlock * oh * ow;
  // The two kernels the block fuses, as the compiler calls them unfused.
  std::vector<float> mid_b(q.n * simd::channel_blocks(q.mid) * simd::kChannelBlock * q.h * q.w),
      unfused(yb_floats, 7.f);
  simd::conv2d_blocked<ActE, 1, 1>(xb.data(), we_packed.data(), bias_e.data(), nullptr,
                                   mid_b.data(), in, mid, one, one, zero, one, 1, ae, be, nullptr);
  simd::depthwise_conv2d_blocked<ActD>(mid_b.data(), wd_packed.data(), bias_d.data(), zp,
                                       unfused.data(), mid, out, kernel, strides, pb, dil, ad,
                                       bd);
  std::vector<float> fused(yb_floats, 7.f), split(yb_floats, 7.f);
  std::vector<float> scratch(
      simd::expand_depthwise_scratch_floats(in, out, kernel, strides, dil, kTasks));
  for (int tasks : {1, (int)kTasks})
    simd::expand_depthwise_blocked<ActE, ActD>(
        xb.data(), we_packed.data(), bias_e.data(), wd_packed.data(), bias_d.data(), zp,
        tasks == 1 ? fused.data() : split.data(), in, q.mid, out, kernel, strides, pb, dil, ae,
        be, ad, bd, scratch.data(), pool(), tasks);
  CHECK_CLOSE("expand_depthwise_blocked", unblocked(fused, out), want, ny, q.c + taps);
  CHECK_SAME("expand_depthwise_blocked vs the two kernels", fused, unfused, yb_floats);
  CHECK_SAME("expand_depthwise_blocked", split, fused, yb_floats);
}

const BlockCase kBlocks[] = {
    {1, 16, 56, 56, 96, 3, 2, 1, 1, 1, false},  // EfficientNet-B0 stage 2 (halved): bands
    {1, 24, 30, 30, 144, 3, 1, 1, 1, 1, true},  // stride 1, a residual
    {2, 40, 14, 14, 240, 5, 1, 2, 2, 1, false}, // 5x5, batch 2
    {1, 3, 20, 13, 40, 3, 2, 0, 1, 1, false},   // channels past blocks, asymmetric pads
    {1, 17, 9, 70, 20, 3, 1, 2, 2, 2, false},   // dilation 2, wide rows
    {1, 8, 200, 5, 16, 3, 1, 1, 1, 1, false},   // tall and narrow: many bands
    {1, 16, 7, 7, 32, 5, 2, 2, 2, 1, false},    // a 7x7 plane, 5x5 stride 2
    {1, 32, 1, 9, 48, 3, 1, 1, 1, 1, false},    // one row
    {1, 160, 7, 7, 960, 3, 1, 1, 1, 1, true},   // MobileNetV2's last blocks: one band
};

/// expand_depthwise_project_blocked (a whole block, projecting to m
/// channels; without the expand convolution where !expand: the depthwise
/// one over X's q.mid channels) against the reference, bit-identical to
/// the kernels the compiler calls where it fuses less (expand_depthwise_
/// blocked or depthwise_conv2d_blocked, then conv2d_blocked), one task and
/// kTasks bit-identical.
template <typename ActE, typename ActD, typename ActP>
void checkExpandDepthwiseProject(const BlockCase &q, bool expand, int64_t m, float ae, float be,
                                 float ad, float bd, float ap, float bp) {
  const BlockWindow window(q);
  const auto &[oh, ow, one, zero, kernel, strides, pb, pe, dil] = window;
  const int64_t c = expand ? q.c : q.mid;
  int64_t in[4] = {q.n, c, q.h, q.w}, mid[4] = {q.n, q.mid, q.h, q.w},
          dw[4] = {q.n, q.mid, oh, ow}, out[4] = {q.n, m, oh, ow};
  const int64_t taps = q.k * q.k, ndw = q.n * q.mid * oh * ow, ny = q.n * m * oh * ow;
  auto x = randomVec(q.n * c * q.h * q.w), we = randomVec(q.mid * c),
       wd = randomVec(q.mid * taps), wp = randomVec(m * q.mid), bias_e = randomVec(q.mid),
       bias_d = randomVec(q.mid), bias_p = randomVec(m), z = randomVec(ny);
  std::vector<float> expanded = x, dwo(ndw), want(ny);
  if (expand) {
    expanded.resize(q.n * q.mid * q.h * q.w);
    ref::conv<float>(x.data(), we.data(), bias_e.data(), expanded.data(), 2, in, mid, one, one,
                     zero, zero, one, 1);
    for (float &v : expanded)
      v = ActE::apply(v, ae, be);
  }
  ref::conv<float>(expanded.data(), wd.data(), bias_d.data(), dwo.data(), 2, mid, dw, kernel,
                   strides, pb, pe, dil, q.mid);
  for (float &v : dwo)
    v = ActD::apply(v, ad, bd);
  ref::conv<float>(dwo.data(), wp.data(), bias_p.data(), want.data(), 2, dw, out, one, one, zero,
                   zero, one, 1);
  for (int64_t i = 0; i < ny; ++i)
    want[i] = ActP::apply(want[i] + (q.residual ? z[i] : 0.f), ap, bp);

  std::vector<float> we_packed(simd::blocked_conv_weights_floats(q.mid, c, 1, true, false)),
      wd_packed(simd::blocked_conv_weights_floats(q.mid, q.mid, taps, true, true)),
      wp_packed(simd::blocked_conv_weights_floats(m, q.mid, 1, true, false));
  simd::pack_blocked_conv_weights(we.data(), q.mid, c, 1, true, false, we_packed.data());
  simd::pack_blocked_conv_weights(wd.data(), q.mid, q.mid, taps, true, true, wd_packed.data());
  simd::pack_blocked_conv_weights(wp.data(), m, q.mid, 1, true, false, wp_packed.data());
  const std::vector<float> xb = blocked(x, in);
  const std::vector<float> zb = blocked(z, out);
  const float *zp = q.residual ? zb.data() : nullptr;
  const int64_t yb_floats = q.n * simd::channel_blocks(m) * simd::kChannelBlock * oh * ow;
  // The kernels the compiler calls where it fuses less.
  std::vector<float> dw_b(q.n * simd::channel_blocks(q.mid) * simd::kChannelBlock * oh * ow),
      unfused(yb_floats, 7.f);
  std::vector<float> scratch2(
      simd::expand_depthwise_scratch_floats(in, dw, kernel, strides, dil, 1));
  if (expand)
    simd::expand_depthwise_blocked<ActE, ActD>(xb.data(), we_packed.data(), bias_e.data(),
                                               wd_packed.data(), bias_d.data(), nullptr,
                                               dw_b.data(), in, q.mid, dw, kernel, strides, pb,
                                               dil, ae, be, ad, bd, scratch2.data());
  else
    simd::depthwise_conv2d_blocked<ActD>(xb.data(), wd_packed.data(), bias_d.data(), nullptr,
                                         dw_b.data(), mid, dw, kernel, strides, pb, dil, ad,
                                         bd);
  simd::conv2d_blocked<ActP, 1, 1>(dw_b.data(), wp_packed.data(), bias_p.data(), zp,
                                   unfused.data(), dw, out, one, one, zero, one, 1, ap, bp,
                                   nullptr);
  std::vector<float> fused(yb_floats, 7.f), split(yb_floats, 7.f);
  std::vector<float> scratch(simd::expand_depthwise_project_scratch_floats(
      in, q.mid, out, kernel, strides, dil, expand, kTasks));
  for (int tasks : {1, (int)kTasks})
    simd::expand_depthwise_project_blocked<ActE, ActD, ActP>(
        xb.data(), expand ? we_packed.data() : nullptr, bias_e.data(), wd_packed.data(),
        bias_d.data(), wp_packed.data(), bias_p.data(), zp,
        tasks == 1 ? fused.data() : split.data(), in, q.mid, out, kernel, strides, pb, dil, ae,
        be, ad, bd, ap, bp, scratch.data(), pool(), tasks);
  CHECK_CLOSE("expand_depthwise_project_blocked", unblocked(fused, out), want, ny,
              c + taps + q.mid);
  CHECK_SAME("expand_depthwise_project_blocked vs the kernels it fuses", fused, unfused,
             yb_floats);
  CHECK_SAME("expand_depthwise_project_blocked", split, fused, yb_floats);
}

} // namespace

namespace {

/// depthwise_conv2d_blocked's planes (Relu, with bias) through the border
/// tiles only (blocked_window_tiles), as each plane ran before small ones
/// were padded first.
std::vector<float> depthwiseByBorderTiles(const ConvCase &q, const std::vector<float> &xb,
                                          const float *packed, const float *bias,
                                          const int64_t *in, const int64_t *out,
                                          const int64_t *kernel, const int64_t *strides,
                                          const int64_t *pb, const int64_t *dil) {
  const simd::BlockedWindow g = simd::blocked_window(in, out, kernel, strides, pb, dil);
  const int64_t cb = simd::channel_blocks(q.m), taps = q.kh * q.kw;
  std::vector<float> y(q.n * cb * simd::kChannelBlock * g.oh * g.ow);
  for (int64_t bb = 0; bb < q.n * cb; ++bb)
    for (int64_t sub = 0; sub < simd::kBlockVecs; ++sub) {
      const int64_t blk = bb % cb, lane0 = blk * simd::kChannelBlock + sub * simd::VecF::kLanes;
      simd::DepthwiseTaps<ref::Relu> t;
      t.wt = packed + blk * taps * simd::kChannelBlock + sub * simd::VecF::kLanes;
      t.bias = simd::bias_lanes(bias, lane0, q.m);
      t.z = nullptr;
      t.alpha = t.beta = 0.f;
      simd::blocked_window_tiles(
          xb.data() + bb * g.h * g.w * simd::kChannelBlock + sub * simd::VecF::kLanes, g, t,
          y.data() + bb * g.oh * g.ow * simd::kChannelBlock + sub * simd::VecF::kLanes);
    }
  return y;
}

/// depthwise_conv2d_blocked (Relu, with bias) on `q` the same bit for bit
/// as the border tiles alone; with an infinite and a NaN weight, against
/// the reference too.
void checkDepthwiseAgainstBorderTiles(const ConvCase &q) {
  for (bool infinite : {false, true}) {
    INFO(describe(q) << (infinite ? " with an infinite and a NaN weight" : ""));
    const int64_t oh = (q.h + q.ph + q.pe_h - q.dh * (q.kh - 1) - 1) / q.sh + 1;
    const int64_t ow = (q.w + q.pw + q.pe_w - q.dw * (q.kw - 1) - 1) / q.sw + 1;
    int64_t in[4] = {q.n, q.c, q.h, q.w}, out[4] = {q.n, q.m, oh, ow};
    int64_t kernel[2] = {q.kh, q.kw}, strides[2] = {q.sh, q.sw}, pb[2] = {q.ph, q.pw},
            dil[2] = {q.dh, q.dw};
    const int64_t taps = q.kh * q.kw;
    auto x = randomVec(q.n * q.c * q.h * q.w), w = randomVec(q.m * taps), bias = randomVec(q.m);
    if (infinite) {
      w[0] = std::numeric_limits<float>::infinity();         // channel 0's first tap
      w[taps * (q.m - 1)] = std::numeric_limits<float>::quiet_NaN(); // the last channel's
    }
    std::vector<float> packed(simd::blocked_conv_weights_floats(q.m, q.c, taps, true, true));
    simd::pack_blocked_conv_weights(w.data(), q.m, q.c, taps, true, true, packed.data());
    const std::vector<float> xb = blocked(x, in);
    std::vector<float> y(q.n * simd::channel_blocks(q.m) * simd::kChannelBlock * oh * ow);
    simd::depthwise_conv2d_blocked<ref::Relu>(xb.data(), packed.data(), bias.data(), nullptr,
                                              y.data(), in, out, kernel, strides, pb, dil, 0.f,
                                              0.f);
    const std::vector<float> want =
        depthwiseByBorderTiles(q, xb, packed.data(), bias.data(), in, out, kernel, strides,
                               pb, dil);
    const int64_t ny = q.n * q.m * oh * ow;
    CHECK(kernel_test::sameMismatch(unblocked(y, out), unblocked(want, out), ny) == "");
    if (!infinite)
      continue;
    // The border tiles skip the taps outside as the reference does: its
    // infinities and NaNs where it has them, its sums elsewhere.
    std::vector<float> ref_y(ny);
    ref::conv<float>(x.data(), w.data(), bias.data(), ref_y.data(), 2, in, out, kernel,
                     strides, pb, std::array<int64_t, 2>{q.pe_h, q.pe_w}.data(), dil, q.group);
    const std::vector<float> got = unblocked(y, out);
    for (int64_t i = 0; i < ny; ++i) {
      const float r = ref::Relu::apply(ref_y[i], 0.f, 0.f);
      INFO("element " << i << " got " << got[i] << " want " << r);
      const float tol = 2e-6f * float(taps + 8) * (1 + std::fabs(r));
      CHECK((std::isnan(r)   ? std::isnan(got[i])
             : std::isinf(r) ? got[i] == r
                             : std::fabs(got[i] - r) <= tol));
    }
  }
}

} // namespace

// Blocked depthwise convolutions on planes small enough to be padded on
// the stack first (blocked_window_plane): the same sums bit for bit as the
// border tiles, up to the largest padded plane (18 x 18) and past it; with
// an infinite and a NaN weight they take the border tiles (a padded tap
// would add inf * 0 = NaN where the reference skips the tap). On x86 those
// with rows of 7 or 14 take the rows in registers (next test case).
TEST_CASE("blocked depthwise: padded small planes", "[conv]") {
  const ConvCase cases[] = {
      {1, 20, 7, 7, 20, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 20},    // 5x5 on 7x7
      {2, 17, 14, 14, 17, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 17},  // 18 x 18 padded: the largest
      {1, 16, 15, 15, 16, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 16},  // 19 x 19: not padded
      {1, 33, 14, 14, 33, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 33},  // stride 2
      {1, 16, 14, 13, 16, 5, 5, 2, 2, 2, 1, 1, 2, 1, 1, 16},  // asymmetric pads, stride 2
      {1, 16, 6, 6, 16, 3, 3, 1, 1, 3, 3, 3, 3, 1, 1, 16},    // pads past the window
      {1, 9, 12, 12, 9, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 9},     // dilated
      {1, 8, 9, 5, 8, 3, 3, 1, 1, 0, 1, 0, 1, 1, 1, 8},       // pads across only
  };
  for (const ConvCase &q : cases)
    checkDepthwiseAgainstBorderTiles(q);
}

// Blocked depthwise planes whose rows of 7 or 14 pixels keep their sums in
// registers (blocked_window_by_rows, x86): 3x3 and 5x5, strides 1 and 2,
// pads down and right of any size (taps right of the plane skipped), a row
// narrower than its window, rows of no tap, partial channel blocks, batch 2;
// the same sums bit for bit as the border tiles. Elsewhere (NEON) the same
// cases take the padded copy or the tiles.
TEST_CASE("blocked depthwise: rows of 7 and 14 pixels", "[conv]") {
  const ConvCase cases[] = {
      {1, 40, 7, 7, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 40},    // 7 x 7, 3x3
      {2, 21, 14, 14, 21, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 21},  // 14 x 14, batch 2
      {1, 16, 14, 14, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 16},  // 14 -> 7, stride 2
      {1, 16, 13, 13, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 16},  // 13 -> 7: the last right tap outside
      {1, 17, 7, 7, 17, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 17},    // 5x5 at 7 x 7
      {1, 16, 14, 14, 16, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 16},  // 5x5, 14 -> 7
      {1, 16, 14, 14, 16, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 16},  // 5x5 at 14 (AVX2 only)
      {1, 16, 9, 12, 16, 3, 3, 1, 1, 0, 1, 0, 3, 1, 1, 16},   // 12 + 3 right pads -> 14
      {1, 16, 6, 5, 16, 3, 3, 1, 1, 3, 1, 3, 3, 1, 1, 16},    // 5 wide -> 7, rows of no tap
      {1, 16, 8, 2, 16, 5, 5, 1, 1, 2, 2, 2, 7, 1, 1, 16},    // 2 wide, narrower than 5
      {1, 16, 14, 28, 16, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, 16},  // strides 1 x 2: tiles
  };
  for (const ConvCase &q : cases)
    checkDepthwiseAgainstBorderTiles(q);
}

// Inverted-residual blocks' expand + depthwise pairs in one pass: bands of
// rows, the rows bands share, channel tiles past whole blocks, segments of
// rows among tasks; Relu6 (Clamp) on both, and an activation applied to
// the stored tile (HardSigmoid) then none.
TEST_CASE("fused expand + depthwise blocks", "[conv]") {
  for (const BlockCase &q : kBlocks) {
    INFO("n=" << q.n << " c=" << q.c << " " << q.h << "x" << q.w << " mid=" << q.mid
              << " k=" << q.k << " s=" << q.s << " p=" << q.pb << "," << q.pe << " d=" << q.d);
    checkExpandDepthwise<ref::Clamp, ref::Clamp>(q, 0.f, 6.f, 0.f, 6.f);
    checkExpandDepthwise<ref::HardSigmoid, ref::Identity>(q, 0.2f, 0.5f, 0.f, 0.f);
  }
}

// Whole inverted-residual blocks (expand, depthwise, project) in one pass,
// and blocks without the expand: the cases above projected to as many
// channels as the block's input (a skip connection's), to fewer, and to
// channels past whole blocks; the linear bottleneck (no activation) and an
// activation on the projection. A sampled sweep (caseTaken) takes block b's
// variant v where b + v falls in its share, so that each block keeps one.
TEST_CASE("fused inverted-residual blocks", "[conv]") {
  for (size_t b = 0; b < std::size(kBlocks); ++b)
    for (size_t v = 0; v < 4; ++v) {
      if (!caseTaken(b + v))
        continue;
      const BlockCase &q = kBlocks[b];
      const bool expand = v < 2;
      const int64_t m = v % 2 == 0 ? q.c : q.mid / 3 + 1;
      INFO("n=" << q.n << " c=" << q.c << " " << q.h << "x" << q.w << " mid=" << q.mid
                << " k=" << q.k << " s=" << q.s << " p=" << q.pb << "," << q.pe << " d=" << q.d
                << " m=" << m << (expand ? "" : " no expand"));
      checkExpandDepthwiseProject<ref::Clamp, ref::Clamp, ref::Identity>(
          q, expand, m, 0.f, 6.f, 0.f, 6.f, 0.f, 0.f);
      checkExpandDepthwiseProject<ref::HardSigmoid, ref::Identity, ref::Clamp>(
          q, expand, m, 0.2f, 0.5f, 0.f, 0.f, 0.f, 6.f);
    }
}

// A squeeze-and-excite block's channel scale folded into its project
// convolution (conv2d_blocked_scaled): against the reference's Mul then
// Conv, batch 2 (each image its own scale), channels past whole blocks on
// both sides, one task and kTasks bit-identical.
TEST_CASE("pointwise convolutions of a channel-scaled input", "[conv]") {
  struct ScaledCase {
    int64_t n, c, h, w, m;
  };
  for (const ScaledCase &q : {ScaledCase{2, 40, 7, 9, 36}, ScaledCase{1, 96, 14, 14, 24},
                              ScaledCase{1, 16, 3, 5, 70}, ScaledCase{2, 20, 1, 1, 8}}) {
    INFO("n=" << q.n << " c=" << q.c << " " << q.h << "x" << q.w << " m=" << q.m);
    const int64_t hw = q.h * q.w, k = simd::channel_blocks(q.c) * simd::kChannelBlock;
    int64_t in[4] = {q.n, q.c, q.h, q.w}, out[4] = {q.n, q.m, q.h, q.w};
    int64_t kernel[2] = {1, 1}, ones[2] = {1, 1}, zeros[2] = {0, 0};
    auto x = randomVec(q.n * q.c * hw), s = randomVec(q.n * q.c), w = randomVec(q.m * q.c);
    auto bias = randomVec(q.m), z = randomVec(q.n * q.m * hw);
    std::vector<float> xs(x.size()), want(q.n * q.m * hw);
    for (int64_t i = 0; i < (int64_t)x.size(); ++i)
      xs[i] = x[i] * s[i / hw]; // image b, channel ci: s[b * c + ci]
    ref::conv<float>(xs.data(), w.data(), bias.data(), want.data(), 2, in, out, kernel, ones,
                     zeros, zeros, ones, 1);
    for (int64_t i = 0; i < (int64_t)want.size(); ++i)
      want[i] = ref::Silu::apply(want[i] + z[i], 0.f, 0.f);
    // S blocked: each image's channels in order, padding lanes 0.5 (a
    // Sigmoid of zero), which weigh nothing.
    std::vector<float> sb(q.n * k, 0.5f);
    for (int64_t b = 0; b < q.n; ++b)
      for (int64_t ci = 0; ci < q.c; ++ci)
        sb[b * k + ci] = s[b * q.c + ci];
    std::vector<float> packed(simd::blocked_conv_weights_floats(q.m, q.c, 1, true, false));
    simd::pack_blocked_conv_weights(w.data(), q.m, q.c, 1, true, false, packed.data());
    std::vector<float> scratch(simd::blocked_scaled_conv_scratch_floats(q.m, q.c));
    const std::vector<float> xb = blocked(x, in), zb = blocked(z, out);
    const int64_t yb_floats = q.n * simd::channel_blocks(q.m) * simd::kChannelBlock * hw;
    std::vector<float> yb(yb_floats, 7.f), split(yb_floats, 7.f);
    for (int tasks : {1, (int)kTasks})
      simd::conv2d_blocked_scaled<ref::Silu>(xb.data(), packed.data(), sb.data(), bias.data(),
                                             zb.data(), tasks == 1 ? yb.data() : split.data(),
                                             in, out, 0.f, 0.f, scratch.data(), pool(), tasks);
    CHECK_CLOSE("conv2d_blocked_scaled", unblocked(yb, out), want, (int64_t)want.size(), q.c);
    CHECK_SAME("conv2d_blocked_scaled", split, yb, yb_floats);
  }
}
