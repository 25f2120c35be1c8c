// SIMD Winograd F(4x4, 3x3) convolution on the channel-blocked layout
// (sizes, eligibility and the compile-time filter transform: blocking.h).
// ResNet-style 3x3 stride-1 layers are compute-bound in the direct kernel
// at the machine's FMA peak; this one does the same convolution with 36
// multiplies per 4x4 output tile and channel pair instead of 144.
#ifndef ONNXC_RT_SIMD_F32_WINOGRAD_H
#define ONNXC_RT_SIMD_F32_WINOGRAD_H

#include "onnxc_rt/kernels/simd/f32/blocked.h"

namespace onnxc_rt {
namespace simd {

// The transforms multiply only through explicit FMAs: a product left to the
// compiler could be contracted into an FMA in one inlined copy and not in
// another, and the result would depend on the task split.

/// v = B^T d for six vectors d (one column or row of an input tile).
ONNXC_RT_SIMD_INLINE void winograd_input_1d(const VecF (&d)[kWinogradIn],
                                           VecF (&v)[kWinogradIn]) {
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

/// o = A^T p for six vectors p (one column or row of a tile's products).
ONNXC_RT_SIMD_INLINE void winograd_output_1d(const VecF (&p)[kWinogradIn],
                                            VecF (&o)[kWinogradOut]) {
  const VecF s12 = VecF::add(p[1], p[2]), s34 = VecF::add(p[3], p[4]);
  const VecF m12 = VecF::sub(p[1], p[2]), m34 = VecF::sub(p[3], p[4]);
  o[0] = VecF::add(VecF::add(p[0], s12), s34);                      // p0 + p1 + p2 + p3 + p4
  o[1] = VecF::fma(VecF::broadcast(2.0f), m34, m12);                // p1 - p2 + 2p3 - 2p4
  o[2] = VecF::fma(VecF::broadcast(4.0f), s34, s12);                // p1 + p2 + 4p3 + 4p4
  o[3] = VecF::fma(VecF::broadcast(8.0f), m34, VecF::add(m12, p[5])); // p1 - p2 + 8p3 - 8p4 + p5
}

/// B^T d B of the 6x6 input tile with top-left input pixel (iy0, ix0), one
/// vector of channels (`plane`: the block's h x wd plane at the vector's
/// lanes; pixels outside it read as zeros: the convolution's padding).
/// Point xi = 6a + b goes to dst + xi * stride.
inline void winograd_input_tile(const float *plane, int64_t h, int64_t wd, int64_t iy0,
                                int64_t ix0, float *dst, int64_t stride) {
  VecF t[kWinogradIn][kWinogradIn]; // t[a][j]: row a of B^T d, column j
  const bool inside = iy0 >= 0 && ix0 >= 0 && iy0 + kWinogradIn <= h && ix0 + kWinogradIn <= wd;
  for (int j = 0; j < kWinogradIn; ++j) {
    VecF d[kWinogradIn], col[kWinogradIn];
    const int64_t ix = ix0 + j;
    for (int i = 0; i < kWinogradIn; ++i) {
      const int64_t iy = iy0 + i;
      d[i] = inside || (iy >= 0 && iy < h && ix >= 0 && ix < wd)
                 ? VecF::load(plane + (iy * wd + ix) * kChannelBlock)
                 : VecF::zero();
    }
    winograd_input_1d(d, col);
    for (int a = 0; a < kWinogradIn; ++a)
      t[a][j] = col[a];
  }
  for (int a = 0; a < kWinogradIn; ++a) {
    VecF row[kWinogradIn];
    winograd_input_1d(t[a], row);
    for (int b = 0; b < kWinogradIn; ++b)
      row[b].store(dst + (a * kWinogradIn + b) * stride);
  }
}

/// A^T P A of one tile's products (point xi at src + xi * stride), one
/// vector of output channels, through the epilogue (bias lanes, residual z,
/// Act) into the output pixels of the tile at (oy0, ox0) inside oh x ow
/// (`y`, `z`: the block's plane at the vector's lanes; z null: none).
template <typename Act>
inline void winograd_output_tile(const float *src, int64_t stride, VecF bias, const float *z,
                                 float *y, int64_t oh, int64_t ow, int64_t oy0, int64_t ox0,
                                 float alpha, float beta) {
  VecF t[kWinogradOut][kWinogradIn]; // t[a][j]: row a of A^T P, column j
  for (int j = 0; j < kWinogradIn; ++j) {
    VecF p[kWinogradIn], col[kWinogradOut];
    for (int i = 0; i < kWinogradIn; ++i)
      p[i] = VecF::load(src + (i * kWinogradIn + j) * stride);
    winograd_output_1d(p, col);
    for (int a = 0; a < kWinogradOut; ++a)
      t[a][j] = col[a];
  }
  for (int a = 0; a < kWinogradOut && oy0 + a < oh; ++a) {
    VecF o[kWinogradOut];
    winograd_output_1d(t[a], o);
    for (int b = 0; b < kWinogradOut && ox0 + b < ow; ++b) {
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
/// with X, Y and Z blocked (winograd_applies), by Winograd F(4x4, 3x3);
/// `u_packed`: pack_winograd_weights. Bands of winograd_band_tiles output
/// tiles, each in three phases split over `tasks`: the input transform
/// (tile x channel block), 36 GEMMs (tiles x C) x (C x M) through the direct
/// kernel's register tile (window_tile over the transformed tiles, one tap;
/// NEON: winograd_products_4x16),
/// the output transform with the epilogue (tile x output vector). Scratch:
/// winograd_scratch_floats(...) floats.
template <typename Act>
void winograd_conv2d_blocked(const float *x, const float *u_packed, const float *bias,
                             const float *z, float *y, const int64_t *in_shape,
                             const int64_t *out_shape, const int64_t *pads_begin,
                             float act_alpha, float act_beta, float *scratch,
                             TaskRunner *runner = nullptr, int64_t tasks = 1) {
  const int64_t n = in_shape[0], c = in_shape[1], h = in_shape[2], wd = in_shape[3];
  const int64_t m = out_shape[1], oh = out_shape[2], ow = out_shape[3], npix = oh * ow;
  const int64_t cp = round_up(c, kChannelBlock), mp = round_up(m, kChannelBlock);
  const int64_t cblocks = cp / kChannelBlock, mvecs = mp / kLanes;
  const int64_t tiles_w = (ow + kWinogradOut - 1) / kWinogradOut, tiles = winograd_tiles(oh, ow);
  const int64_t band = winograd_band_tiles(tiles, c, m);
  const int64_t per_point = blocked_conv_weights_floats(m, c, 1, true, false);
  // Panels of output channels: kNR (window_tile's two vectors), or 16 for
  // NEON's 4 x 16 tile (mp is whole blocks of 16).
  const int64_t panel = VecF::kBlockedTile4x16 ? kChannelBlock : kNR;
  const int64_t panels = (mp + panel - 1) / panel;
  // The band's transformed input: point xi, tile t, channel ch at
  // (xi * band + t) * cp + ch; its products likewise with mp channels.
  float *tin = scratch, *prod = scratch + kWinogradPoints * band * cp;
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
          const int64_t iy0 = tile / tiles_w * kWinogradOut - pads_begin[0];
          const int64_t ix0 = tile % tiles_w * kWinogradOut - pads_begin[1];
          for (int s = 0; s < kBlockVecs; ++s)
            winograd_input_tile(xb + cb * h * wd * kChannelBlock + s * kLanes, h, wd, iy0, ix0,
                                tin + t * cp + cb * kChannelBlock + s * kLanes, band * cp);
        }
      });
      parallel_for(runner, tasks, [&](int64_t task) {
        const Range r = split_range(kWinogradPoints * panels, 1, tasks, task);
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
          winograd_output_tile<Act>(prod + t * mp + ch, band * mp, bias_lanes(bias, ch, m),
                                    zb ? zb + lanes : nullptr, yb + lanes, oh, ow,
                                    tile / tiles_w * kWinogradOut, tile % tiles_w * kWinogradOut,
                                    act_alpha, act_beta);
        }
      });
    }
  }
}

} // namespace simd
} // namespace onnxc_rt

#endif
