// SIMD qs8 conv2d's Winograd form (qs8/pack.h's ConvForm::kWinograd): 3x3
// stride-1 convolutions as F(2x2, 3x3) in 16-bit integers on AVX2, whose
// byte products take 16-bit lanes anyway (vpmaddwd): the same products an
// instruction on Winograd's transformed operands, 16 of them a channel for
// a 2x2 tile of outputs where the direct form takes 36. Exact: the
// transforms are integer (pack.h says why nothing overflows), and the
// outputs are requantized as the other forms requantize theirs.
//
// Per group: the input planes padded (the bytes u that conv2d multiplies,
// the padding u_zp's); then tiles in blocks, each task its own run of
// tiles (or, where tiles are few, its own output channels of every
// block): a block's transformed inputs V ([16][cg/2][tiles][2] int16, a
// channel pair of a tile together: vpmaddwd's pair), for each 4 output
// channels 16 products (one a tile position: 4 channels x 16 tiles in
// registers over the depth), then the output transform, requantized.
#ifndef ONNXC_RT_SIMD_QS8_WINOGRAD_H
#define ONNXC_RT_SIMD_QS8_WINOGRAD_H

#include "onnxc_rt/kernels/simd/qs8/tile.h"

#if defined(__AVX2__) && !defined(__AVX512F__)
#include <immintrin.h>
#define ONNXC_RT_SIMD_QS8_WINOGRAD 1
#else
#define ONNXC_RT_SIMD_QS8_WINOGRAD 0
#endif

namespace onnxc_rt {
namespace simd {
namespace qs8 {
namespace detail {

#if ONNXC_RT_SIMD_QS8_WINOGRAD

/// V = B^T d B of 8 tiles side by side (their 4x4 inputs d from row `p`
/// of two channels' planes, 2 columns apart) for two channels: position
/// k's 8 tiles' channel pairs (16 int16) at out + k * position_stride.
/// Both channels in one vector (channel 0 the low 128 bits), columns of
/// the tiles by 16-bit lanes (a byte pair's low byte the even column, its
/// high byte the odd one).
ONNXC_RT_SIMD_INLINE void winograd_inputs(const uint8_t *p0, const uint8_t *p1, int64_t width,
                                          int16_t *out, int64_t position_stride) {
  const __m256i low = _mm256_set1_epi16(0xFF);
  // Each pair's channel-0 word, then its channel-1 word: in each 128-bit
  // lane, after vpermq's swap of the middle quads, words 0-3 are channel
  // 0's and 4-7 channel 1's of the same 4 tiles.
  const __m256i pairs = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15,
                                         0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
  __m256i t[4][4];
  for (int r = 0; r < 4; ++r) {
    auto load = [&](int64_t at) {
      return _mm256_inserti128_si256(
          _mm256_castsi128_si256(
              _mm_loadu_si128(reinterpret_cast<const __m128i *>(p0 + r * width + at))),
          _mm_loadu_si128(reinterpret_cast<const __m128i *>(p1 + r * width + at)), 1);
    };
    const __m256i a = load(0), b = load(2);
    const __m256i c0 = _mm256_and_si256(a, low), c1 = _mm256_srli_epi16(a, 8);
    const __m256i c2 = _mm256_and_si256(b, low), c3 = _mm256_srli_epi16(b, 8);
    t[r][0] = _mm256_sub_epi16(c0, c2);
    t[r][1] = _mm256_add_epi16(c1, c2);
    t[r][2] = _mm256_sub_epi16(c2, c1);
    t[r][3] = _mm256_sub_epi16(c1, c3);
  }
  auto store = [&](int k, __m256i v) {
    const __m256i paired = _mm256_shuffle_epi8(_mm256_permute4x64_epi64(v, 0xD8), pairs);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + k * position_stride), paired);
  };
  for (int j = 0; j < 4; ++j) {
    store(j, _mm256_sub_epi16(t[0][j], t[2][j]));
    store(4 + j, _mm256_add_epi16(t[1][j], t[2][j]));
    store(8 + j, _mm256_sub_epi16(t[2][j], t[1][j]));
    store(12 + j, _mm256_sub_epi16(t[1][j], t[3][j]));
  }
}

/// One position's products for kConvRows output channels x NV vectors of
/// 8 tiles over `pairs` channel pairs: v the tiles' pairs (pair_stride
/// int16 apart), u the channels' ([pairs][kConvRows][2]); the sums to
/// m, rows row_stride apart.
template <int NV>
ONNXC_RT_SIMD_INLINE void winograd_products(const int16_t *v, int64_t pair_stride,
                                            const int16_t *u, int64_t pairs, int32_t *m,
                                            int64_t row_stride) {
  __m256i acc[kConvRows][NV];
  for (int r = 0; r < kConvRows; ++r)
    for (int j = 0; j < NV; ++j)
      acc[r][j] = _mm256_setzero_si256();
  for (int64_t k = 0; k < pairs; ++k) {
    __m256i x[NV];
    for (int j = 0; j < NV; ++j)
      x[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(v + k * pair_stride + j * 16));
    for (int r = 0; r < kConvRows; ++r) {
      int32_t pair;
      __builtin_memcpy(&pair, u + (k * kConvRows + r) * 2, 4);
      const __m256i b = _mm256_set1_epi32(pair);
      for (int j = 0; j < NV; ++j)
        acc[r][j] = _mm256_add_epi32(acc[r][j], _mm256_madd_epi16(x[j], b));
    }
  }
  for (int r = 0; r < kConvRows; ++r)
    for (int j = 0; j < NV; ++j)
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(m + r * row_stride + j * 8), acc[r][j]);
}

/// winograd_products<nv> for nv in [1, 2]: 8 sums, 2 vectors of tiles,
/// the broadcast and a product in registers (4 x 3 tiles spilled a sum:
/// ResNet-18's int8 3x3 layers 2-5% slower on an AMD EPYC, Zen).
inline void winograd_products_n(int64_t nv, const int16_t *v, int64_t pair_stride,
                                const int16_t *u, int64_t pairs, int32_t *m,
                                int64_t row_stride) {
  if (nv >= 2)
    winograd_products<2>(v, pair_stride, u, pairs, m, row_stride);
  else
    winograd_products<1>(v, pair_stride, u, pairs, m, row_stride);
}

/// a and b's lanes interleaved: a0 b0 a1 b1 ... a7 b7 as two vectors.
ONNXC_RT_SIMD_INLINE void interleave_lanes(__m256i a, __m256i b, VecI (&out)[2]) {
  const __m256i lo = _mm256_unpacklo_epi32(a, b), hi = _mm256_unpackhi_epi32(a, b);
  out[0] = VecI::of(_mm256_permute2x128_si256(lo, hi, 0x20));
  out[1] = VecI::of(_mm256_permute2x128_si256(lo, hi, 0x31));
}

/// The output transform of 8 tiles of one channel (the 16 positions'
/// sums at m, `stride` apart), Y = A^T M A / 4: the tiles' two output
/// rows, each as 16 sums in pixel order (tile by tile, 2 columns each).
ONNXC_RT_SIMD_INLINE void winograd_outputs(const int32_t *m, int64_t stride, VecI (&row0)[2],
                                           VecI (&row1)[2]) {
  __m256i a[4][2];
  for (int i = 0; i < 4; ++i) {
    auto at = [&](int j) {
      return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(m + (4 * i + j) * stride));
    };
    const __m256i m0 = at(0), m1 = at(1), m2 = at(2), m3 = at(3);
    a[i][0] = _mm256_add_epi32(_mm256_add_epi32(m0, m1), m2);
    a[i][1] = _mm256_sub_epi32(_mm256_sub_epi32(m1, m2), m3);
  }
  __m256i y[2][2];
  for (int j = 0; j < 2; ++j) {
    const __m256i top = _mm256_add_epi32(_mm256_add_epi32(a[0][j], a[1][j]), a[2][j]);
    const __m256i bottom = _mm256_sub_epi32(_mm256_sub_epi32(a[1][j], a[2][j]), a[3][j]);
    y[0][j] = _mm256_srai_epi32(top, 2); // 4 Y exactly (pack.h's G' = 2 G)
    y[1][j] = _mm256_srai_epi32(bottom, 2);
  }
  interleave_lanes(y[0][0], y[0][1], row0);
  interleave_lanes(y[1][0], y[1][1], row1);
}

/// conv2d by Winograd F(2x2, 3x3) (conv2d's arguments; w packed by
/// pack_winograd_weights, bias folded as the other forms fold it; scratch
/// winograd_scratch's bytes).
template <typename T>
void conv2d_winograd(const T *x, const int8_t *w, const int32_t *bias, T *y, const Conv2d &g,
                     int64_t n, int64_t m, int64_t group, int32_t x_zp,
                     const int32_t *multiplier, const int32_t *shift, int64_t count, VecI vzp,
                     VecI vmin, VecI vmax, uint8_t *scratch, TaskRunner *runner, int64_t tasks) {
  const int64_t cg = g.c / group, mg = m / group, pairs = round_up(cg, 2) / 2;
  const int64_t mp = round_up(mg, kConvRows), pixels = g.oh * g.ow;
  const WinogradScratch s = winograd_scratch(cg, g.oh, g.ow, tasks);
  const int64_t tiles = s.th * s.tw;
  const int64_t lanes = s.block + 8, position_stride = pairs * lanes * 2;
  const uint8_t flip = static_cast<uint8_t>(flip_of<T>());
  const uint8_t pad = static_cast<uint8_t>(static_cast<uint8_t>(static_cast<T>(x_zp)) ^ flip);
  // Per group, each position's weights: mp rows x pairs x 2 int16.
  const int16_t *u = reinterpret_cast<const int16_t *>(w);
  const int64_t position_u = mp * pairs * 2, group_u = kWinogradPositions * position_u;
  // ~8 products a cycle (vpmaddwd's 16 every other cycle). Each task
  // takes an equal run of tiles (in vectors of 8) where there are 32 or
  // more a task, else an equal share of the output channel tiles of every
  // tile (each task then transforms every input tile, and reads only its
  // channels' weights: 7 x 7 planes have 16 tiles and 512 channels).
  const int64_t used = tasks_for(tiles * mg * cg * 2, tasks);
  const bool by_tiles = tiles >= 32 * used;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t gi = 0; gi < group; ++gi) {
      const T *xg = x + (b * g.c + gi * cg) * g.h * g.w;
      parallel_for(runner, used, [&](int64_t t) {
        const Range r = split_range(cg, 1, used, t);
        for (int64_t ci = r.begin; ci < r.end; ++ci)
          pad_flipped_plane(reinterpret_cast<const uint8_t *>(xg + ci * g.h * g.w), g.h, g.w,
                            g.ph, g.pw, 2 * s.th + 2, s.width, pad, flip, scratch + ci * s.plane);
      });
      parallel_for(runner, used, [&](int64_t t) {
        uint8_t *own = scratch + s.tasks_at + t * s.task;
        int16_t *v = reinterpret_cast<int16_t *>(own);
        int32_t *stage = reinterpret_cast<int32_t *>(own + s.inputs);
        const Range tr = by_tiles ? split_range(tiles, 8, used, t) : Range{0, tiles};
        const Range ch = by_tiles ? Range{0, mg} : split_range(mg, kConvRows, used, t);
        if (ch.begin >= ch.end || tr.begin >= tr.end)
          return;
        for (int64_t t0 = tr.begin; t0 < tr.end; t0 += s.block) {
          const int64_t nt = tr.end - t0 < s.block ? tr.end - t0 : s.block;
          const int64_t nv = (nt + 7) / 8;
          // The block's inputs, tile row by tile row, 8 tiles at a time:
          // a row's last vector runs on into the next row's first tiles,
          // whose own vector, stored after it, rewrites them. Lanes past
          // the block's last tile (to its last vector's end) keep what the
          // buffer held: every step is lane by lane, and their sums are
          // never stored.
          for (int64_t k = 0; k < pairs; ++k) {
            const uint8_t *p0 = scratch + 2 * k * s.plane;
            const uint8_t *p1 = 2 * k + 1 < cg ? p0 + s.plane : p0;
            for (int64_t ty = t0 / s.tw; ty * s.tw < t0 + nt; ++ty) {
              const int64_t first = t0 > ty * s.tw ? t0 - ty * s.tw : 0;
              const int64_t end = t0 + nt - ty * s.tw < s.tw ? t0 + nt - ty * s.tw : s.tw;
              for (int64_t tx = first; tx < end; tx += 8) {
                const int64_t at = 2 * ty * s.width + 2 * tx;
                winograd_inputs(p0 + at, p1 + at, s.width,
                                v + (k * lanes + ty * s.tw + tx - t0) * 2, position_stride);
              }
            }
          }
          for (int64_t mt = ch.begin; mt < ch.end; mt += kConvRows) {
            const int64_t live = ch.end - mt < kConvRows ? ch.end - mt : kConvRows;
            const int16_t *um = u + gi * group_u + mt * pairs * 2;
            for (int64_t p = 0; p < kWinogradPositions; ++p)
              for (int64_t j = 0; j < nv; j += 2)
                winograd_products_n(nv - j, v + p * position_stride + j * 16, lanes * 2,
                                    um + p * position_u, pairs,
                                    stage + p * kConvRows * s.block + j * 8, s.block);
            Requant q[kConvRows];
            channel_requants(q, gi * mg + mt, live, bias, multiplier, shift, count);
            for (int64_t r = 0; r < live; ++r) {
              T *yc = y + (b * m + gi * mg + mt + r) * pixels;
              for (int64_t j = 0; j < nv; ++j) {
                VecI row0[2], row1[2];
                winograd_outputs(stage + r * s.block + j * 8, kConvRows * s.block, row0, row1);
                const int64_t first = t0 + j * 8, ty = first / s.tw, tx = first % s.tw;
                if (j * 8 + 8 <= nt && tx + 8 <= s.tw && 2 * ty + 1 < g.oh &&
                    2 * tx + 16 <= g.ow) {
                  // 8 whole tiles of one row: two runs of 16 pixels.
                  T *at = yc + 2 * ty * g.ow + 2 * tx;
                  requantize_store<2, T>(row0, q[r], vzp, vmin, vmax, at, 16);
                  requantize_store<2, T>(row1, q[r], vzp, vmin, vmax, at + g.ow, 16);
                  continue;
                }
                T staged[2][16];
                requantize_store<2, T>(row0, q[r], vzp, vmin, vmax, staged[0], 16);
                requantize_store<2, T>(row1, q[r], vzp, vmin, vmax, staged[1], 16);
                for (int64_t l = 0; l < 8 && j * 8 + l < nt; ++l) {
                  const int64_t lt = first + l, oy = 2 * (lt / s.tw), ox = 2 * (lt % s.tw);
                  for (int64_t i = 0; i < 2 && oy + i < g.oh; ++i)
                    for (int64_t c = 0; c < 2 && ox + c < g.ow; ++c)
                      yc[(oy + i) * g.ow + ox + c] = staged[i][2 * l + c];
                }
              }
            }
          }
        }
      });
    }
}

#endif // ONNXC_RT_SIMD_QS8_WINOGRAD

} // namespace detail
} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_QS8_WINOGRAD_H
