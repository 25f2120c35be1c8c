// Winograd F(m x m, 3x3) on the channel-blocked layout, the part without
// intrinsics: which layers take it and with which tile (the compiler's
// choice and the kernel's, one rule), the tiles, bands and scratch it
// implies, and the weight transform the compiler runs at build time. The
// kernel itself is simd/f32/winograd.h.
#ifndef ONNXC_RT_SIMD_F32_WINOGRAD_PLAN_H
#define ONNXC_RT_SIMD_F32_WINOGRAD_PLAN_H

#include "onnxc_rt/kernels/simd/f32/blocking.h"

namespace onnxc_rt {
namespace simd {

/// A 3x3 stride-1 convolution computed by Winograd's minimal filtering
/// F(m x m, 3x3) (Lavin & Gray 2016): each (m + 2) x (m + 2) input tile d
/// gives an m x m output tile A^T [(G g G^T) . (B^T d B)] A. Per tile
/// position xi of the (m + 2)^2 the products summed over input channels are
/// one GEMM (tiles x C) x (C x M), so the work becomes an input transform,
/// (m + 2)^2 GEMMs and an output transform. The filter transform U = G g
/// G^T is done at compile time (in double, then rounded). Two tile sizes:
/// F(4x4, 3x3) (points 0, +-1, +-2, inf; 36 multiplies per 4x4 output tile
/// and channel pair where the direct convolution spends 144: 4x fewer) and
/// F(2x2, 3x3) (points 0, +-1, inf; 16 per 2x2 tile against 36: 2.25x
/// fewer, with transformed weights 16/9 of the direct ones where F(4x4)'s
/// are 4x: the choice for small planes whose weights are streamed, and the
/// more accurate of the two: its transforms only add and halve). A third,
/// F(6x6, 3x3) (points 0, +-1, +-2, +-1/2, inf; 64 multiplies per 6x6
/// tile: 1.78 a pixel against F(4x4)'s 2.25), is in the kernel library and
/// its tests, and no rule picks it: bench/conv_algo_fit.py measures it
/// the fastest on 2 of 32 shapes with the weights streamed and on 10 with
/// them cached, by 1.02-1.25x (results/conv-algo-intel*.md); its tiles
/// waste more of planes that are not multiples of 6, its weights are 64/36
/// of F(4x4)'s and its error about twice theirs.
constexpr int64_t kWinogradOut = 4;    // F(4x4, 3x3)'s output pixels per tile side
constexpr int64_t kWinogradIn = 6;     // its input pixels per tile side
constexpr int64_t kWinogradPoints = 36; // kWinogradIn^2

/// Input pixels per tile side and points of F(tile x tile, 3x3).
constexpr int64_t winograd_in(int64_t tile) { return tile + 2; }
constexpr int64_t winograd_points(int64_t tile) { return (tile + 2) * (tile + 2); }

/// Output tiles of an oh x ow output.
constexpr int64_t winograd_tiles(int64_t oh, int64_t ow, int64_t tile = kWinogradOut) {
  return (oh + tile - 1) / tile * ((ow + tile - 1) / tile);
}

/// Whether a convolution (c input channels) runs as
/// winograd_conv2d_blocked: 3x3, stride 1, dilation 1, group 1, blocked
/// input, and enough output tiles to pay for its transformed weights. Those
/// are 4 times the direct ones (36 floats per channel pair against 9), and
/// at batch 1 a model's weights are read once per inference: Winograd
/// saves `tiles` multiply-adds (108 a tile) per extra weight byte (108 a
/// channel pair). Where the transformed weights stay cached between
/// inferences (up to kWinogradCachedBytes) 4 tiles pay; where they are
/// streamed from memory, the tiles it takes depend on how many
/// multiply-adds the core does per byte it reads, and the target says
/// (`streamed_tiles`, SimdTarget's winogradStreamedTiles): 25 with AVX-512
/// (9 before its direct convolution took 14-pixel strips; the layers
/// between go to F(2x2, 3x3): winograd_tile), 4 with AVX2 and NEON.
/// bench/run_bench.py on an EPYC with 48 KiB L1d,
/// 1 MiB L2 and 32 MiB L3, per inference: ResNet-18 (7x7 layers of 37.7 MB
/// transformed, 4 tiles) 19.4 ms with them as Winograd against 13.9 ms
/// direct on x86-64-vnni, but 32.4 against 38.3 ms on x86-64 (AVX2); its
/// 14x14 layers (16 tiles) break even on AVX-512; the CIFAR CNN (8x8 layer,
/// 1.2 MB, 4 tiles) 64 us as Winograd against 93 us direct. (bench/conv_bench
/// repeats one layer, its weights cached: there a 7x7 output with 512
/// channels ran 1.5x faster as Winograd on AVX-512.) A single tile (4x4
/// output and less) is 1.3-3x slower than direct.
constexpr int64_t kWinogradMinTiles = 4;
constexpr int64_t kWinogradCachedBytes = int64_t(4) << 20;
constexpr bool winograd_applies(const int64_t *out_shape, int64_t c, const int64_t *kernel,
                                const int64_t *strides, const int64_t *dilations, int64_t group,
                                bool in_blocked, int64_t streamed_tiles = kWinogradMinTiles) {
  const int64_t tiles = winograd_tiles(out_shape[2], out_shape[3]);
  const int64_t bytes = kWinogradPoints * c * out_shape[1] * int64_t(sizeof(float));
  const int64_t needed = bytes <= kWinogradCachedBytes ? kWinogradMinTiles
                         : streamed_tiles > kWinogradMinTiles ? streamed_tiles
                                                              : kWinogradMinTiles;
  return in_blocked && group == 1 && kernel[0] == 3 && kernel[1] == 3 && strides[0] == 1 &&
         strides[1] == 1 && dilations[0] == 1 && dilations[1] == 1 && tiles >= needed;
}

/// The Winograd F(m x m, 3x3) a convolution runs as: 4 where
/// winograd_applies (F(4x4, 3x3)); else, where the target takes small tiles
/// (`small_tiles` > 0, SimdTarget's winogradSmallTiles: AVX-512) and
/// F(4x4)'s weights would be streamed, 2 where F(2x2, 3x3) has at least
/// `small_tiles` 2x2 tiles (16 floats a channel pair, 2.25x fewer
/// multiply-adds than direct); 0: direct. bench/conv_bench.cpp on the
/// Intel Xeon host, one thread, ms direct / F(4x4) / F(2x2), best of 3
/// noisy runs: 14x14x256 (ResNet-18's layer3) 1.38 / 1.18 / 0.93; 14x14x512
/// 7.37 / 6.47 / 5.89; 14x14x384 3.34 / 3.26 / 2.71; 10x10x256 0.79 / 0.66 /
/// 0.52; 28x28x256 (49 4x4 tiles) 6.16 / 3.41 / 3.88; where F(4x4)'s
/// weights stay cached (up to 4 MB: 56x56x64, 28x28x128, 14x14x128, the
/// CIFAR and SqueezeNet layers) it is the fastest. 7x7 planes (16 2x2
/// tiles) of 256 and 512 channels run F(2x2) 1.06-1.78x faster than direct
/// in all four of bench/conv_algo_fit.py's grids (Intel Xeon and AMD EPYC
/// Zen 5, weights streamed and cached; results/conv-algo-*.md).
constexpr int64_t winograd_tile(const int64_t *out_shape, int64_t c, const int64_t *kernel,
                                const int64_t *strides, const int64_t *dilations, int64_t group,
                                bool in_blocked, int64_t streamed_tiles, int64_t small_tiles) {
  if (winograd_applies(out_shape, c, kernel, strides, dilations, group, in_blocked,
                       streamed_tiles))
    return 4;
  const bool shape = in_blocked && group == 1 && kernel[0] == 3 && kernel[1] == 3 &&
                     strides[0] == 1 && strides[1] == 1 && dilations[0] == 1 &&
                     dilations[1] == 1;
  const bool f4_streamed =
      kWinogradPoints * c * out_shape[1] * int64_t(sizeof(float)) > kWinogradCachedBytes;
  return small_tiles > 0 && shape && f4_streamed &&
                 winograd_tiles(out_shape[2], out_shape[3], 2) >= small_tiles
             ? 2
             : 0;
}

/// Floats of the transformed, packed weights: per tile position one packed
/// 1x1 blocked weight matrix (pack_blocked_conv_weights with one tap).
constexpr int64_t winograd_weights_floats(int64_t m, int64_t c, int64_t tile = kWinogradOut) {
  return winograd_points(tile) * blocked_conv_weights_floats(m, c, 1, true, false);
}

/// Tiles per band: the transformed input and the products of a band
/// (points x tiles x (C + M) floats) are kept under kWinogradBandFloats so
/// that they stay in the cache between the three phases, or, where the
/// transformed weights are larger, under their size: every band reads all
/// of them, and a band that outgrows the cache costs at most the weight
/// traffic it saves (128 -> 128 channels on a 28 x 28 output: 2.4 MB of
/// weights read once instead of in 3 bands of 24, 24 and 1 tiles; 512 ->
/// 512: once instead of 9 times). The tiles are shared out evenly among
/// the bands, in whole register tiles of kGemmMR.
constexpr int64_t kWinogradBandFloats = int64_t{1} << 18;
constexpr int64_t winograd_band_tiles(int64_t tiles, int64_t c, int64_t m,
                                      int64_t tile = kWinogradOut) {
  const int64_t cp = round_up(c, kChannelBlock), mp = round_up(m, kChannelBlock);
  const int64_t per_tile = winograd_points(tile) * (cp + mp);
  const int64_t weights = winograd_points(tile) * cp * mp;
  const int64_t budget = weights > kWinogradBandFloats ? weights : kWinogradBandFloats;
  const int64_t fit = budget / per_tile > 1 ? budget / per_tile : 1;
  const int64_t bands = (tiles + fit - 1) / fit;
  const int64_t band = round_up((tiles + bands - 1) / bands, kGemmMR);
  return band < tiles ? band : tiles;
}

/// Whether winograd_conv2d_blocked's tasks split a band of `band` tiles
/// by tiles, each task through all three phases, rather than each phase
/// its own way (the GEMMs by point): where the transformed weights, which
/// every task then reads whole, are no larger than the band's transformed
/// input and products, which the phase-by-phase split moves between cores
/// (SqueezeNet's 16 -> 64 layers, ResNet-18's 64 -> 64; not its 256 -> 256
/// at 14 x 14, 9.4 MB of weights), or where each task's tiles fill the
/// instruction set's register tiles (`full_tiles` a task, AVX-512's
/// shortest strip; 0: never) and the weights are at most
/// kWinogradSplitWeightsRatio (4) times that data (each extra task reads
/// them again). A kernel bench on the Intel Xeon
/// host, two threads, best of 2000 calls: split by tiles at 8-24 tiles a
/// task, 14 x 14 x 256 397 us against 428 by phases, SqueezeNet's 13 x 13
/// 48 -> 192 53 against 67, 28 x 28 x 128 320 against 339, the CIFAR CNN's
/// 16 x 16 64 -> 128 52 against 60 (weights 1.3-2.7x the data); at 2 to 5
/// tiles a task (7 x 7 x 512, 12 x 12 x 128) slower than one thread.
/// ResNet-18's 7 x 7 x 512 layers as F(2x2) (8 tiles a task, 16.8 MB of
/// weights, 16x the data) took 6.5-7.4 M cycles by tiles against 4.7-6.3
/// M by phases (node_profile.py --threads 2, Zen 5, 3 alternating runs).
/// Results do not depend on the split.
constexpr int64_t kWinogradSplitWeightsRatio = 4;
constexpr bool winograd_split_tiles(int64_t band, int64_t c, int64_t m, int64_t tasks,
                                    int64_t full_tiles) {
  const int64_t cp = round_up(c, kChannelBlock), mp = round_up(m, kChannelBlock);
  const int64_t weights = cp * mp, data = band * (cp + mp); // floats a point
  return weights <= data || (full_tiles > 0 && band / tasks >= full_tiles &&
                             weights <= kWinogradSplitWeightsRatio * data);
}

/// Floats of scratch winograd_conv2d_blocked needs: one band's transformed
/// input and products.
constexpr int64_t winograd_scratch_floats(const int64_t *in_shape, const int64_t *out_shape,
                                          int64_t tile = kWinogradOut) {
  const int64_t c = in_shape[1], m = out_shape[1];
  const int64_t band =
      winograd_band_tiles(winograd_tiles(out_shape[2], out_shape[3], tile), c, m, tile);
  return winograd_points(tile) * band * (round_up(c, kChannelBlock) + round_up(m, kChannelBlock));
}

/// Transforms W (m, c, 3, 3) to U = G g G^T per (output, input) channel for
/// F(tile x tile, 3x3) and packs tile position xi's m x c matrix at dst +
/// xi * winograd_weights_floats(m, c, tile) / points
/// (pack_blocked_conv_weights' 1x1 layout). `work`: m * c floats.
inline void pack_winograd_weights(const float *w, int64_t m, int64_t c, float *work, float *dst,
                                  int64_t tile = kWinogradOut) {
  static constexpr double kG4[6][3] = {
      {1.0 / 4, 0, 0},
      {-1.0 / 6, -1.0 / 6, -1.0 / 6},
      {-1.0 / 6, 1.0 / 6, -1.0 / 6},
      {1.0 / 24, 1.0 / 12, 1.0 / 6},
      {1.0 / 24, -1.0 / 12, 1.0 / 6},
      {0, 0, 1}};
  static constexpr double kG2[4][3] = {
      {1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  // F(6x6)'s rows at +-1/2 carry a factor 1/32 that its output transform
  // (winograd.h) multiplies back.
  static constexpr double kG6[8][3] = {
      {1, 0, 0},
      {-2.0 / 9, -2.0 / 9, -2.0 / 9},
      {-2.0 / 9, 2.0 / 9, -2.0 / 9},
      {1.0 / 90, 1.0 / 45, 2.0 / 45},
      {1.0 / 90, -1.0 / 45, 2.0 / 45},
      {1.0 / 45, 1.0 / 90, 1.0 / 180},
      {1.0 / 45, -1.0 / 90, 1.0 / 180},
      {0, 0, 1}};
  const int64_t in = winograd_in(tile), points = winograd_points(tile);
  const int64_t per = blocked_conv_weights_floats(m, c, 1, true, false);
  const auto g_row = [&](int64_t r) -> const double * {
    return tile == 2 ? kG2[r] : tile == 6 ? kG6[r] : kG4[r];
  };
  for (int64_t xi = 0; xi < points; ++xi) {
    const double *ga = g_row(xi / in), *gb = g_row(xi % in);
    for (int64_t j = 0; j < m * c; ++j) {
      const float *g = w + j * 9;
      double u = 0;
      for (int ky = 0; ky < 3; ++ky)
        for (int kx = 0; kx < 3; ++kx)
          u += ga[ky] * g[ky * 3 + kx] * gb[kx];
      work[j] = static_cast<float>(u);
    }
    pack_blocked_conv_weights(work, m, c, 1, true, false, dst + xi * per);
  }
}

} // namespace simd
} // namespace onnxc_rt

#endif
