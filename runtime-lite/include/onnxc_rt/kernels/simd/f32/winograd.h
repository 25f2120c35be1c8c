// SIMD Winograd F(4x4, 3x3) and F(2x2, 3x3) convolutions on the
// channel-blocked layout (sizes, the choice and the compile-time filter
// transform: blocking.h). ResNet-style 3x3 stride-1 layers are
// compute-bound in the direct kernel at the machine's FMA peak; these do
// the same convolution with 36 multiplies per 4x4 output tile and channel
// pair instead of 144, or 16 per 2x2 tile instead of 36.
#ifndef ONNXC_RT_SIMD_F32_WINOGRAD_H
#define ONNXC_RT_SIMD_F32_WINOGRAD_H

#include "onnxc_rt/kernels/simd/f32/blocked.h"

namespace onnxc_rt {
namespace simd {

// The transforms multiply only through explicit FMAs: a product left to the
// compiler could be contracted into an FMA in one inlined copy and not in
// another, and the result would depend on the task split.

template <int kTile> struct WinogradTransforms;

/// F(4x4, 3x3): v = B^T d for six vectors d (one column or row of an input
/// tile); o = A^T p for six vectors p (one column or row of a tile's
/// products).
template <> struct WinogradTransforms<4> {
  static constexpr int kIn = 6, kOut = 4;
  ONNXC_RT_SIMD_INLINE static void input_1d(const VecF (&d)[kIn], VecF (&v)[kIn]) {
    const VecF c4 = VecF::broadcast(4.0f), cm4 = VecF::broadcast(-4.0f),
               cm5 = VecF::broadcast(-5.0f), c2 = VecF::broadcast(2.0f),
               cm2 = VecF::broadcast(-2.0f);
    const VecF s12 = VecF::add(d[1], d[2]), s34 = VecF::add(d[3], d[4]);
    const VecF m12 = VecF::sub(d[1], d[2]), m43 = VecF::sub(d[4], d[3]);
    const VecF m42 = VecF::sub(d[4], d[2]), m31 = VecF::sub(d[3], d[1]);
    v[0] = VecF::fma(c4, d[0], VecF::fma(cm5, d[2], d[4])); // 4d0 - 5d2 + d4
    v[1] = VecF::fma(cm4, s12, s34);                         // -4d1 - 4d2 + d3 + d4
    v[2] = VecF::fma(c4, m12, m43);                          // 4d1 - 4d2 - d3 + d4
    v[3] = VecF::fma(c2, m31, m42);                          // -2d1 - d2 + 2d3 + d4
    v[4] = VecF::fma(cm2, m31, m42);                         // 2d1 - d2 - 2d3 + d4
    v[5] = VecF::fma(c4, d[1], VecF::fma(cm5, d[3], d[5])); // 4d1 - 5d3 + d5
  }
  ONNXC_RT_SIMD_INLINE static void output_1d(const VecF (&p)[kIn], VecF (&o)[kOut]) {
    const VecF s12 = VecF::add(p[1], p[2]), s34 = VecF::add(p[3], p[4]);
    const VecF m12 = VecF::sub(p[1], p[2]), m34 = VecF::sub(p[3], p[4]);
    o[0] = VecF::add(VecF::add(p[0], s12), s34);                      // p0 + p1 + p2 + p3 + p4
    o[1] = VecF::fma(VecF::broadcast(2.0f), m34, m12);                // p1 - p2 + 2p3 - 2p4
    o[2] = VecF::fma(VecF::broadcast(4.0f), s34, s12);                // p1 + p2 + 4p3 + 4p4
    o[3] = VecF::fma(VecF::broadcast(8.0f), m34, VecF::add(m12, p[5])); // p1 - p2 + 8p3 - 8p4 + p5
  }
};

/// F(2x2, 3x3): B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], A^T = [1 1 1 0;
/// 0 1 -1 -1]: adds only.
template <> struct WinogradTransforms<2> {
  static constexpr int kIn = 4, kOut = 2;
  ONNXC_RT_SIMD_INLINE static void input_1d(const VecF (&d)[kIn], VecF (&v)[kIn]) {
    v[0] = VecF::sub(d[0], d[2]);
    v[1] = VecF::add(d[1], d[2]);
    v[2] = VecF::sub(d[2], d[1]);
    v[3] = VecF::sub(d[1], d[3]);
  }
  ONNXC_RT_SIMD_INLINE static void output_1d(const VecF (&p)[kIn], VecF (&o)[kOut]) {
    o[0] = VecF::add(VecF::add(p[0], p[1]), p[2]);
    o[1] = VecF::sub(VecF::sub(p[1], p[2]), p[3]);
  }
};

/// B^T d B of the input tile with top-left input pixel (iy0, ix0), one
/// vector of channels (`plane`: the block's h x wd plane at the vector's
/// lanes; pixels outside it read as zeros: the convolution's padding).
/// Point xi = kIn a + b goes to dst + xi * stride.
template <int kTile>
inline void winograd_input_tile(const float *plane, int64_t h, int64_t wd, int64_t iy0,
                                int64_t ix0, float *dst, int64_t stride) {
  using T = WinogradTransforms<kTile>;
  constexpr int kIn = T::kIn;
  VecF t[kIn][kIn]; // t[a][j]: row a of B^T d, column j
  const bool inside = iy0 >= 0 && ix0 >= 0 && iy0 + kIn <= h && ix0 + kIn <= wd;
  for (int j = 0; j < kIn; ++j) {
    VecF d[kIn], col[kIn];
    const int64_t ix = ix0 + j;
    for (int i = 0; i < kIn; ++i) {
      const int64_t iy = iy0 + i;
      d[i] = inside || (iy >= 0 && iy < h && ix >= 0 && ix < wd)
                 ? VecF::load(plane + (iy * wd + ix) * kChannelBlock)
                 : VecF::zero();
    }
    T::input_1d(d, col);
    for (int a = 0; a < kIn; ++a)
      t[a][j] = col[a];
  }
  for (int a = 0; a < kIn; ++a) {
    VecF row[kIn];
    T::input_1d(t[a], row);
    for (int b = 0; b < kIn; ++b)
      row[b].store(dst + (a * kIn + b) * stride);
  }
}

/// A^T P A of one tile's products (point xi at src + xi * stride), one
/// vector of output channels, through the epilogue (bias lanes, residual z,
/// Act) into the output pixels of the tile at (oy0, ox0) inside oh x ow
/// (`y`, `z`: the block's plane at the vector's lanes; z null: none).
template <typename Act, int kTile>
inline void winograd_output_tile(const float *src, int64_t stride, VecF bias, const float *z,
                                 float *y, int64_t oh, int64_t ow, int64_t oy0, int64_t ox0,
                                 float alpha, float beta) {
  using T = WinogradTransforms<kTile>;
  constexpr int kIn = T::kIn, kOut = T::kOut;
  VecF t[kOut][kIn]; // t[a][j]: row a of A^T P, column j
  for (int j = 0; j < kIn; ++j) {
    VecF p[kIn], col[kOut];
    for (int i = 0; i < kIn; ++i)
      p[i] = VecF::load(src + (i * kIn + j) * stride);
    T::output_1d(p, col);
    for (int a = 0; a < kOut; ++a)
      t[a][j] = col[a];
  }
  for (int a = 0; a < kOut && oy0 + a < oh; ++a) {
    VecF o[kOut];
    T::output_1d(t[a], o);
    for (int b = 0; b < kOut && ox0 + b < ow; ++b) {
      const int64_t at = ((oy0 + a) * ow + ox0 + b) * kChannelBlock;
      blocked_store<Act>(o[b], bias, z ? z + at : nullptr, y + at, alpha, beta);
    }
  }
}

/// One Winograd point's products for 16 output channels on NEON: the nt
/// transformed tiles at a (rows cp floats apart, cblocks blocks of 16
/// channels) times the packed weights at wt, to out (rows mp apart), by
/// fma_tile_4x16, 4 tiles at a time (the last group repeats its last tile,
/// not stored). (V is VecF: a template, so that only NEON compiles it.)
template <typename V = VecF>
void winograd_products_4x16(const float *a, int64_t cp, int64_t cblocks, const float *wt,
                            float *out, int64_t mp, int64_t nt) {
  static_assert(V::kBlockedTile4x16, "NEON's 4 x 16 tile");
  for (int64_t r0 = 0; r0 < nt; r0 += 4) {
    const float *px[4];
    for (int i = 0; i < 4; ++i)
      px[i] = a + min64(r0 + i, nt - 1) * cp;
    VecF acc[4][4];
    const float *w = wt;
    V::fma_tile_4x16(px, cblocks, kChannelBlock * 4, w, kPixelMajorBlock * 4, acc);
    for (int64_t i = 0; i < 4 && r0 + i < nt; ++i)
      for (int v = 0; v < 4; ++v)
        acc[i][v].store(out + (r0 + i) * mp + v * kLanes);
  }
}

/// Y = Act(conv(X, W) + B + Z) for a 3x3, stride-1, group-1 convolution
/// with X, Y and Z blocked (winograd_applies), by Winograd F(kTile x kTile,
/// 3x3), kTile 4 or 2; `u_packed`: pack_winograd_weights(..., kTile). Bands of winograd_band_tiles output
/// tiles, each in three phases split over `tasks`: the input transform
/// (tile x channel block), (kTile + 2)^2 GEMMs (tiles x C) x (C x M) through the direct
/// kernel's register tile (window_tile over the transformed tiles, one tap;
/// NEON: winograd_products_4x16),
/// the output transform with the epilogue (tile x output vector). Scratch:
/// winograd_scratch_floats(..., kTile) floats.
template <typename Act, int kTile = 4>
void winograd_conv2d_blocked(const float *x, const float *u_packed, const float *bias,
                             const float *z, float *y, const int64_t *in_shape,
                             const int64_t *out_shape, const int64_t *pads_begin,
                             float act_alpha, float act_beta, float *scratch,
                             TaskRunner *runner = nullptr, int64_t tasks = 1) {
  const int64_t n = in_shape[0], c = in_shape[1], h = in_shape[2], wd = in_shape[3];
  const int64_t m = out_shape[1], oh = out_shape[2], ow = out_shape[3], npix = oh * ow;
  const int64_t cp = round_up(c, kChannelBlock), mp = round_up(m, kChannelBlock);
  const int64_t cblocks = cp / kChannelBlock, mvecs = mp / kLanes;
  using T = WinogradTransforms<kTile>;
  constexpr int64_t kPoints = int64_t{T::kIn} * T::kIn;
  const int64_t tiles_w = (ow + kTile - 1) / kTile, tiles = winograd_tiles(oh, ow, kTile);
  const int64_t band = winograd_band_tiles(tiles, c, m, kTile);
  const int64_t per_point = blocked_conv_weights_floats(m, c, 1, true, false);
  // Panels of output channels: kNR (window_tile's two vectors), or 16 for
  // NEON's 4 x 16 tile (mp is whole blocks of 16).
  const int64_t panel = VecF::kBlockedTile4x16 ? kChannelBlock : kNR;
  const int64_t panels = (mp + panel - 1) / panel;
  // The band's transformed input: point xi, tile t, channel ch at
  // (xi * band + t) * cp + ch; its products likewise with mp channels.
  float *tin = scratch, *prod = scratch + kPoints * band * cp;
  for (int64_t b = 0; b < n; ++b) {
    const float *xb = x + b * cp * h * wd;
    const float *zb = z ? z + b * mp * npix : nullptr;
    float *yb = y + b * mp * npix;
    for (int64_t t0 = 0; t0 < tiles; t0 += band) {
      const int64_t nt = min64(band, tiles - t0);
      parallel_for(runner, tasks, [&](int64_t task) {
        const Range r = split_range(nt * cblocks, 1, tasks, task);
        for (int64_t u = r.begin; u < r.end; ++u) {
          const int64_t t = u / cblocks, cb = u % cblocks, tile = t0 + t;
          const int64_t iy0 = tile / tiles_w * kTile - pads_begin[0];
          const int64_t ix0 = tile % tiles_w * kTile - pads_begin[1];
          for (int s = 0; s < kBlockVecs; ++s)
            winograd_input_tile<kTile>(xb + cb * h * wd * kChannelBlock + s * kLanes, h, wd, iy0, ix0,
                                tin + t * cp + cb * kChannelBlock + s * kLanes, band * cp);
        }
      });
      parallel_for(runner, tasks, [&](int64_t task) {
        const Range r = split_range(kPoints * panels, 1, tasks, task);
        for (int64_t u = r.begin; u < r.end; ++u) {
          const int64_t xi = u / panels, j0 = u % panels * panel;
          const float *a = tin + xi * band * cp;
          const float *wt = u_packed + xi * per_point + j0 / kPixelMajorBlock * cp * kPixelMajorBlock +
                            j0 % kPixelMajorBlock;
          float *out = prod + xi * band * mp + j0;
          if constexpr (VecF::kBlockedTile4x16) {
            winograd_products_4x16(a, cp, cblocks, wt, out, mp, nt);
            continue;
          }
          const bool two = mp - j0 >= kNR;
          for (int64_t r0 = 0; r0 < nt; r0 += kGemmMR) {
            const float *px[kGemmMR];
            for (int i = 0; i < kGemmMR; ++i)
              px[i] = a + min64(r0 + i, nt - 1) * cp;
            VecF acc[kGemmMR][2];
            constexpr int kL = static_cast<int>(kChannelBlock);
            const int64_t tap0 = 0;
            if (two)
              window_tile<kL, 1, 2>(px, &tap0, 1, cblocks, kChannelBlock, wt, acc);
            else
              window_tile<kL, 1, 1>(px, &tap0, 1, cblocks, kChannelBlock, wt, acc);
            const int64_t rows = min64(kGemmMR, nt - r0);
            for (int i = 0; i < kGemmMR && i < rows; ++i) {
              acc[i][0].store(out + (r0 + i) * mp);
              if (two)
                acc[i][1].store(out + (r0 + i) * mp + kLanes);
            }
          }
        }
      });
      parallel_for(runner, tasks, [&](int64_t task) {
        const Range r = split_range(nt * mvecs, 1, tasks, task);
        for (int64_t u = r.begin; u < r.end; ++u) {
          const int64_t t = u / mvecs, ch = u % mvecs * kLanes, tile = t0 + t;
          const int64_t lanes = ch / kChannelBlock * npix * kChannelBlock + ch % kChannelBlock;
          winograd_output_tile<Act, kTile>(prod + t * mp + ch, band * mp, bias_lanes(bias, ch, m),
                                           zb ? zb + lanes : nullptr, yb + lanes, oh, ow,
                                           tile / tiles_w * kTile, tile % tiles_w * kTile,
                                           act_alpha, act_beta);
        }
      });
    }
  }
}

} // namespace simd
} // namespace onnxc_rt

#endif
