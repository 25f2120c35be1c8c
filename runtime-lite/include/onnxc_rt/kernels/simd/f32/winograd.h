// SIMD Winograd F(4x4, 3x3), F(2x2, 3x3) and F(6x6, 3x3) convolutions on
// the channel-blocked layout (sizes, the choice and the compile-time filter
// transform: winograd_plan.h). ResNet-style 3x3 stride-1 layers are
// compute-bound in the direct kernel at the machine's FMA peak; these do
// the same convolution with 36 multiplies per 4x4 output tile and channel
// pair instead of 144, 16 per 2x2 tile instead of 36, or 64 per 6x6 tile
// instead of 324.
#ifndef ONNXC_RT_SIMD_F32_WINOGRAD_H
#define ONNXC_RT_SIMD_F32_WINOGRAD_H

#include "onnxc_rt/kernels/simd/f32/blocked.h"
#include "onnxc_rt/kernels/simd/f32/winograd_plan.h"

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

/// F(6x6, 3x3) at the points 0, +-1, +-2, +-1/2, inf (the filter transform
/// G in winograd_plan.h scales the +-1/2 rows by 32, which the output transform's
/// 32, 16, 8, ... undo): v = B^T d for eight vectors d, o = A^T p for eight
/// products p.
template <> struct WinogradTransforms<6> {
  static constexpr int kIn = 8, kOut = 6;
  ONNXC_RT_SIMD_INLINE static void input_1d(const VecF (&d)[kIn], VecF (&v)[kIn]) {
    const VecF c525 = VecF::broadcast(5.25f), cm425 = VecF::broadcast(-4.25f),
               c025 = VecF::broadcast(0.25f), cm125 = VecF::broadcast(-1.25f),
               c05 = VecF::broadcast(0.5f), cm25 = VecF::broadcast(-2.5f),
               c2 = VecF::broadcast(2.0f), c4 = VecF::broadcast(4.0f);
    v[0] = VecF::fma(c525, VecF::sub(d[4], d[2]), VecF::sub(d[0], d[6])); // d0 - d6 + 5.25(d4 - d2)
    v[7] = VecF::fma(c525, VecF::sub(d[3], d[5]), VecF::sub(d[7], d[1])); // d7 - d1 + 5.25(d3 - d5)
    const VecF a12 = VecF::fma(cm425, d[4], VecF::add(d[2], d[6]));       // d2 + d6 - 4.25d4
    const VecF b12 = VecF::fma(cm425, d[3], VecF::add(d[1], d[5]));       // d1 + d5 - 4.25d3
    v[1] = VecF::add(a12, b12);
    v[2] = VecF::sub(a12, b12);
    const VecF a34 = VecF::fma(c025, d[2], VecF::fma(cm125, d[4], d[6])); // d6 + d2/4 - 1.25d4
    const VecF b34 = VecF::fma(c05, d[1], VecF::fma(cm25, d[3], VecF::mul(c2, d[5])));
    v[3] = VecF::add(a34, b34); // b34: d1/2 - 2.5d3 + 2d5
    v[4] = VecF::sub(a34, b34);
    const VecF a56 = VecF::fma(c4, VecF::fma(cm125, d[4], d[2]), d[6]);   // d6 + 4(d2 - 1.25d4)
    const VecF b56 = VecF::fma(c2, d[1], VecF::fma(cm25, d[3], VecF::mul(c05, d[5])));
    v[5] = VecF::add(a56, b56); // b56: 2d1 - 2.5d3 + d5/2
    v[6] = VecF::sub(a56, b56);
  }
  ONNXC_RT_SIMD_INLINE static void output_1d(const VecF (&p)[kIn], VecF (&o)[kOut]) {
    const VecF s12 = VecF::add(p[1], p[2]), m12 = VecF::sub(p[1], p[2]);
    const VecF s34 = VecF::add(p[3], p[4]), m34 = VecF::sub(p[3], p[4]);
    const VecF s56 = VecF::add(p[5], p[6]), m56 = VecF::sub(p[5], p[6]);
    const auto c = [](float k) { return VecF::broadcast(k); };
    o[0] = VecF::fma(c(32.0f), s56, VecF::add(VecF::add(p[0], s12), s34)); // p0 + s12 + s34 + 32s56
    o[1] = VecF::fma(c(16.0f), m56, VecF::fma(c(2.0f), m34, m12));        // m12 + 2m34 + 16m56
    o[2] = VecF::fma(c(8.0f), s56, VecF::fma(c(4.0f), s34, s12));         // s12 + 4s34 + 8s56
    o[3] = VecF::fma(c(4.0f), m56, VecF::fma(c(8.0f), m34, m12));         // m12 + 8m34 + 4m56
    o[4] = VecF::fma(c(2.0f), s56, VecF::fma(c(16.0f), s34, s12));        // s12 + 16s34 + 2s56
    o[5] = VecF::add(VecF::fma(c(32.0f), m34, VecF::add(m12, p[7])), m56); // p7 + m12 + 32m34 + m56
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
/// 3x3), kTile 4, 2 or 6; `u_packed`: pack_winograd_weights(..., kTile).
/// Bands of winograd_band_tiles output tiles, each in three phases: the
/// input transform (tile x channel block), (kTile + 2)^2 GEMMs (tiles x C)
/// x (C x M) through the direct kernel's register tiles (window_strip or
/// window_tile over the transformed tiles, one tap; NEON:
/// winograd_products_4x16), the output transform with the epilogue (tile x
/// output vector). `tasks` split each phase (the GEMMs by point and panel
/// of output channels, so that each task reads a share of the weights), or
/// where the weights are small beside a band's data or the tasks' shares
/// of the tiles fill the register tiles (winograd_split_tiles), each task
/// takes its share of the tiles through all three. Scratch:
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
  // A run of `band` tiles' transformed input and products in scratch at
  // `base`: point xi's band * cp floats of input at xi * band * cp, tile t
  // of channel block cb at t * tile_stride + cb * block_stride in it, then
  // the products, tile t, channel ch at (xi * band + t) * mp + ch.
  // AVX-512's taller register tiles (window_strip: up to kWindowStripMax
  // tiles by two vectors, against window_tile's kGemmMR) read a channel
  // block's tiles side by side; the others read a tile's channels side by
  // side.
  constexpr bool kStrips = !VecF::kBlockedTile4x16 && VecF::kWindowStripMax > kGemmMR;
  constexpr int kStripMin = VecF::kWindowStripMax / 2, kStripMax = VecF::kWindowStripMax;
  const int64_t tile_stride = kStrips ? kChannelBlock : cp;
  struct Run {
    float *tin, *prod;
    int64_t band, block_stride;
  };
  auto run_at = [&](float *base, int64_t band_tiles) {
    return Run{base, base + kPoints * band_tiles * cp, band_tiles,
               kStrips ? band_tiles * kChannelBlock : kChannelBlock};
  };
  const bool by_tiles =
      tasks > 1 && winograd_split_tiles(band, c, m, tasks, kStrips ? kStripMin : 0);
  for (int64_t b = 0; b < n; ++b) {
    const float *xb = x + b * cp * h * wd;
    const float *zb = z ? z + b * mp * npix : nullptr;
    float *yb = y + b * mp * npix;
    for (int64_t t0 = 0; t0 < tiles; t0 += band) {
      const int64_t nt = min64(band, tiles - t0);
      // The input transform of units [u0, u1) (tile x channel block) of
      // the run whose tile 0 is output tile `first`.
      auto transform_in = [&](const Run &q, int64_t first, int64_t u0, int64_t u1) {
        for (int64_t u = u0; u < u1; ++u) {
          const int64_t t = u / cblocks, cb = u % cblocks, tile = first + t;
          const int64_t iy0 = tile / tiles_w * kTile - pads_begin[0];
          const int64_t ix0 = tile % tiles_w * kTile - pads_begin[1];
          for (int s = 0; s < kBlockVecs; ++s)
            winograd_input_tile<kTile>(xb + cb * h * wd * kChannelBlock + s * kLanes, h, wd, iy0,
                                       ix0,
                                       q.tin + t * tile_stride + cb * q.block_stride + s * kLanes,
                                       q.band * cp);
        }
      };
      // Unit u's products (point x panel of output channels) for the run's
      // tiles [ta, tb).
      auto products = [&](const Run &q, int64_t u, int64_t ta, int64_t tb) {
        const int64_t xi = u / panels, j0 = u % panels * panel, count = tb - ta;
        const float *a = q.tin + xi * q.band * cp + ta * tile_stride;
        const float *wt = u_packed + xi * per_point +
                          j0 / kPixelMajorBlock * cp * kPixelMajorBlock + j0 % kPixelMajorBlock;
        float *out = q.prod + (xi * q.band + ta) * mp + j0;
        if constexpr (VecF::kBlockedTile4x16) {
          winograd_products_4x16(a, cp, cblocks, wt, out, mp, count);
          return;
        }
        const bool two = mp - j0 >= kNR;
        int64_t r0 = 0;
        if constexpr (kStrips) {
          // Strips of kStripMin to kStripMax tiles, as equal as they come;
          // fewer than kStripMin tiles take window_tile below.
          const int64_t tap0 = 0;
          while (count - r0 >= kStripMin) {
            const int64_t left = count - r0, strips = (left + kStripMax - 1) / kStripMax;
            const int64_t rows = (left + strips - 1) / strips;
            dispatch_rows<kStripMin, kStripMax>(rows, [&](auto rows_c) {
              constexpr int kRows = decltype(rows_c)::value;
              VecF acc[kRows][2];
              const float *p0 = a + r0 * tile_stride;
              if (two)
                window_strip<1, 2, 1>(p0, &tap0, 1, c, q.block_stride, wt, acc);
              else
                window_strip<1, 1, 1>(p0, &tap0, 1, c, q.block_stride, wt, acc);
              for (int i = 0; i < kRows; ++i) {
                acc[i][0].store(out + (r0 + i) * mp);
                if (two)
                  acc[i][1].store(out + (r0 + i) * mp + kLanes);
              }
            });
            r0 += rows;
          }
        }
        for (; r0 < count; r0 += kGemmMR) {
          const float *px[kGemmMR];
          for (int i = 0; i < kGemmMR; ++i)
            px[i] = a + min64(r0 + i, count - 1) * tile_stride;
          VecF acc[kGemmMR][2];
          constexpr int kL = static_cast<int>(kChannelBlock);
          const int64_t tap0 = 0;
          if (two)
            window_tile<kL, 1, 2>(px, &tap0, 1, c, q.block_stride, wt, acc);
          else
            window_tile<kL, 1, 1>(px, &tap0, 1, c, q.block_stride, wt, acc);
          const int64_t rows = min64(kGemmMR, count - r0);
          for (int i = 0; i < kGemmMR && i < rows; ++i) {
            acc[i][0].store(out + (r0 + i) * mp);
            if (two)
              acc[i][1].store(out + (r0 + i) * mp + kLanes);
          }
        }
      };
      // The output transform of units [u0, u1) (tile x output vector).
      auto transform_out = [&](const Run &q, int64_t first, int64_t u0, int64_t u1) {
        for (int64_t u = u0; u < u1; ++u) {
          const int64_t t = u / mvecs, ch = u % mvecs * kLanes, tile = first + t;
          const int64_t lanes = ch / kChannelBlock * npix * kChannelBlock + ch % kChannelBlock;
          winograd_output_tile<Act, kTile>(q.prod + t * mp + ch, q.band * mp,
                                           bias_lanes(bias, ch, m), zb ? zb + lanes : nullptr,
                                           yb + lanes, oh, ow, tile / tiles_w * kTile,
                                           tile % tiles_w * kTile, act_alpha, act_beta);
        }
      };
      if (by_tiles) {
        // Each task its own tiles through all three phases, in a run of
        // its own in the scratch (its share of the band's floats, not
        // rows interleaved with the other tasks' at every point, where the
        // cores' prefetchers reached into each other's lines: a third of
        // the speed-up lost), so that what it transforms stays in its core.
        parallel_for(runner, tasks, [&](int64_t task) {
          const Range r = split_range(nt, 1, tasks, task);
          const int64_t count = r.end - r.begin;
          if (count == 0)
            return;
          const Run q = run_at(scratch + r.begin * kPoints * (cp + mp), count);
          transform_in(q, t0 + r.begin, 0, count * cblocks);
          for (int64_t u = 0; u < kPoints * panels; ++u)
            products(q, u, 0, count);
          transform_out(q, t0 + r.begin, 0, count * mvecs);
        });
        continue;
      }
      const Run q = run_at(scratch, nt);
      parallel_for(runner, tasks, [&](int64_t task) {
        const Range r = split_range(nt * cblocks, 1, tasks, task);
        transform_in(q, t0, r.begin, r.end);
      });
      parallel_for(runner, tasks, [&](int64_t task) {
        const Range r = split_range(kPoints * panels, 1, tasks, task);
        for (int64_t u = r.begin; u < r.end; ++u)
          products(q, u, 0, nt);
      });
      parallel_for(runner, tasks, [&](int64_t task) {
        const Range r = split_range(nt * mvecs, 1, tasks, task);
        transform_out(q, t0, r.begin, r.end);
      });
    }
  }
}

/// winograd_conv2d_blocked with its tile (4, 2 or 6) known at run time, for
/// the kernel tests and benchmarks that sweep the tiles (generated code
/// names its tile): the same arguments after `tile`.
template <typename Act, typename... Args>
void winograd_conv2d_blocked_tile(int64_t tile, Args &&...args) {
  if (tile == 2)
    winograd_conv2d_blocked<Act, 2>(static_cast<Args &&>(args)...);
  else if (tile == 6)
    winograd_conv2d_blocked<Act, 6>(static_cast<Args &&>(args)...);
  else
    winograd_conv2d_blocked<Act, 4>(static_cast<Args &&>(args)...);
}

} // namespace simd
} // namespace onnxc_rt

#endif
