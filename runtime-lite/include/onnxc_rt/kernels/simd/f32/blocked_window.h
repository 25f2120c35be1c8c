// Window ops on the channel-blocked layout (NCHW16c, see blocking.h): the
// depthwise convolution, max and average pooling and global average
// pooling, each tap one vector op for a block of channels; the blocked
// epilogue (blocked_store, bias_lanes) is blocked.h's.
#ifndef ONNXC_RT_SIMD_F32_BLOCKED_WINDOW_H
#define ONNXC_RT_SIMD_F32_BLOCKED_WINDOW_H

#include <type_traits>

#include "onnxc_rt/kernels/simd/f32/blocked.h"

namespace onnxc_rt {
namespace simd {

/// The window of a blocked depthwise convolution or pool, per tap: Sum
/// (FMA with a per-tap weight vector), Max, or Mean (a sum, divided by the
/// taps counted). kFirst: the first tap starts the accumulator (Max, as
/// ref::max_pool: only a greater value replaces it).
struct BlockedWindow {
  int64_t h, w, oh, ow, kh, kw, sh, sw, pt, pl, dh, dw;
};

/// Depthwise taps: acc += x * w[t]; finished with bias, residual, Act.
template <typename Act>
struct DepthwiseTaps {
  static constexpr bool kFirst = false;
  /// A tap on a zero adds an exact zero (+0 plus either zero is +0, and the
  /// sums start at +0), so a zero-padded copy of the plane gives the same
  /// sums as skipping the taps outside, while every weight is finite.
  static constexpr bool kZeroPadExact = true;
  const float *wt; // this vector's weights, tap t at wt + t * kChannelBlock
  VecF bias;
  const float *z; // this vector's residual plane (blocked), or null
  float alpha, beta;
  ONNXC_RT_SIMD_INLINE VecF step(VecF acc, VecF x, int64_t t) const {
    return VecF::fma(x, VecF::load(wt + t * kChannelBlock), acc);
  }
  ONNXC_RT_SIMD_INLINE void finish(VecF acc, int64_t, int64_t p, float *dst) const {
    blocked_store<Act>(acc, bias, z ? z + p * kChannelBlock : nullptr, dst, alpha, beta);
  }
};

struct MaxTaps {
  static constexpr bool kFirst = true;
  static constexpr bool kZeroPadExact = false;
  ONNXC_RT_SIMD_INLINE VecF step(VecF acc, VecF x, int64_t) const { return VecF::max(x, acc); }
  ONNXC_RT_SIMD_INLINE void finish(VecF acc, int64_t, int64_t, float *dst) const {
    acc.store(dst);
  }
};

/// Mean over the window's in-bounds taps (AveragePool, count_include_pad 0,
/// or without pads; GlobalAveragePool).
struct MeanTaps {
  static constexpr bool kFirst = false;
  static constexpr bool kZeroPadExact = false;
  ONNXC_RT_SIMD_INLINE VecF step(VecF acc, VecF x, int64_t) const { return VecF::add(acc, x); }
  ONNXC_RT_SIMD_INLINE void finish(VecF acc, int64_t count, int64_t, float *dst) const {
    VecF::mul(acc, VecF::broadcast(count > 0 ? 1.0f / static_cast<float>(count) : 0.0f))
        .store(dst);
  }
};

/// kPixels outputs of kRows rows from (r, ox) whose windows lie inside the
/// input across, over window rows [ky0, ky1): all of them where the rows lie
/// inside too, a top or bottom row's in-bounds window rows otherwise (kRows
/// 1 there). Each tap one vector op per pixel; two rows give a short row's
/// tiles independent sums enough to cover the FMA's latency (7 wide: 2 x 4
/// and 2 x 3, not 4 and 3). The taps are walked as window rows and columns
/// by pointer, not through a table of tap offsets: the table's load and
/// add per tap measured slower.
/// kSW: the column stride where the caller fixes it (1 or 2), else 0
/// (g.sw). Fixed, each tap's pixels are one pointer and constant
/// displacements; with the stride known only at run time GCC held an index
/// a pixel, spilled them, and address arithmetic took most of the loop.
template <int kRows, int kPixels, int kSW, typename Taps>
ONNXC_RT_SIMD_INLINE void blocked_window_pixels(const float *x, const BlockedWindow &g,
                                               int64_t ky0, int64_t ky1, int64_t r, int64_t ox,
                                               const Taps &taps, float *y) {
  const int64_t sw = kSW > 0 ? kSW : g.sw, step = sw * kChannelBlock;
  const int64_t row_step = g.sh * g.w * kChannelBlock;
  const int64_t tap_row = g.dh * g.w * kChannelBlock, tap_col = g.dw * kChannelBlock;
  // Offsets, not pointers, until a tap's: a top row's window starts above
  // the plane.
  const int64_t at = ((r * g.sh - g.pt) * g.w + ox * sw - g.pl) * kChannelBlock;
  VecF acc[kRows][kPixels];
  const float *row = x + (at + ky0 * tap_row);
  const int64_t t0 = ky0 * g.kw;
#pragma GCC unroll 2
  for (int i = 0; i < kRows; ++i)
#pragma GCC unroll 8
    for (int p = 0; p < kPixels; ++p) {
      const VecF v = VecF::load(row + i * row_step + p * step);
      acc[i][p] = Taps::kFirst ? v : taps.step(VecF::zero(), v, t0);
    }
  auto tap = [&](const float *at_tap, int64_t t) __attribute__((always_inline)) {
#pragma GCC unroll 2
    for (int i = 0; i < kRows; ++i)
#pragma GCC unroll 8
      for (int p = 0; p < kPixels; ++p)
        acc[i][p] = taps.step(acc[i][p], VecF::load(at_tap + i * row_step + p * step), t);
  };
  for (int64_t kx = 1; kx < g.kw; ++kx)
    tap(row + kx * tap_col, t0 + kx);
  for (int64_t ky = ky0 + 1; ky < ky1; ++ky) {
    row += tap_row;
    for (int64_t kx = 0; kx < g.kw; ++kx)
      tap(row + kx * tap_col, ky * g.kw + kx);
  }
#pragma GCC unroll 2
  for (int i = 0; i < kRows; ++i)
#pragma GCC unroll 8
    for (int p = 0; p < kPixels; ++p) {
      const int64_t q = (r + i) * g.ow + ox + p;
      taps.finish(acc[i][p], (ky1 - ky0) * g.kw, q, y + q * kChannelBlock);
    }
}

/// blocked_window_pixels for a 3-wide window of stride SW (1 or 2, no
/// dilation across): each input row's vectors are loaded once and shared
/// by the pixels and taps that read them ((kPixels - 1) * SW + 3 loads a row
/// instead of 3 * kPixels), for instruction sets whose arithmetic cannot
/// take a memory operand (NEON).
template <int kPixels, int SW, typename Taps>
ONNXC_RT_SIMD_INLINE void blocked_window_pixels_3wide(const float *x, const BlockedWindow &g,
                                                     int64_t r, int64_t ox, const Taps &taps,
                                                     float *y) {
  constexpr int kSpan = (kPixels - 1) * SW + 3;
  const float *at = x + ((r * g.sh - g.pt) * g.w + ox * SW - g.pl) * kChannelBlock;
  VecF acc[kPixels];
  // One window row's taps; the first row's first tap starts the sums (the
  // first row peeled off, so that acc is visibly set before any use).
  auto row_taps = [&](int64_t ky, auto first_row) __attribute__((always_inline)) {
    const float *row = at + ky * g.dh * g.w * kChannelBlock;
    VecF v[kSpan];
#pragma GCC unroll 24
    for (int i = 0; i < kSpan; ++i)
      v[i] = VecF::load(row + i * kChannelBlock);
#pragma GCC unroll 3
    for (int kx = 0; kx < 3; ++kx) {
      const int64_t t = ky * 3 + kx;
#pragma GCC unroll 8
      for (int p = 0; p < kPixels; ++p) {
        if (decltype(first_row)::value && kx == 0)
          acc[p] = Taps::kFirst ? v[p * SW] : taps.step(VecF::zero(), v[p * SW], 0);
        else
          acc[p] = taps.step(acc[p], v[p * SW + kx], t);
      }
    }
  };
  row_taps(int64_t(0), std::true_type());
  for (int64_t ky = 1; ky < g.kh; ++ky)
    row_taps(ky, std::false_type());
#pragma GCC unroll 8
  for (int p = 0; p < kPixels; ++p) {
    const int64_t q = r * g.ow + ox + p;
    taps.finish(acc[p], g.kh * 3, q, y + q * kChannelBlock);
  }
}

/// The window taps [lo, hi) of an axis that land inside it (size values):
/// output o starts at o * s - pad, tap k reads start + k * d.
inline void taps_inside(int64_t o, int64_t size, int64_t k, int64_t s, int64_t pad, int64_t d,
                        int64_t &lo, int64_t &hi) {
  const int64_t start = o * s - pad;
  lo = start >= 0 ? 0 : (-start + d - 1) / d;
  hi = start >= size ? 0 : min64(k, (size - 1 - start) / d + 1);
  if (hi < lo)
    hi = lo;
}

/// kRows outputs of column q from row r over their window rows [ky0, ky1)
/// and the column's in-bounds taps across, in tap order, the rows' sums
/// side by side: a left or right border column down rows whose windows lie
/// inside (every window row), or with kRows 1 any pixel on its in-bounds
/// taps only (blocked_window_edge).
template <int kRows, typename Taps>
ONNXC_RT_SIMD_INLINE void blocked_window_column(const float *x, const BlockedWindow &g,
                                               int64_t r, int64_t q, int64_t ky0, int64_t ky1,
                                               const Taps &taps, float *y) {
  int64_t kx0, kx1;
  taps_inside(q, g.w, g.kw, g.sw, g.pl, g.dw, kx0, kx1);
  // Offsets, not pointers: a border window starts outside the plane.
  const int64_t at = ((r * g.sh - g.pt) * g.w + q * g.sw - g.pl) * kChannelBlock;
  const int64_t row_step = g.sh * g.w * kChannelBlock;
  VecF acc[kRows];
#pragma GCC unroll 8
  for (int i = 0; i < kRows; ++i)
    acc[i] = VecF::zero();
  bool first = true;
  for (int64_t ky = ky0; ky < ky1; ++ky)
    for (int64_t kx = kx0; kx < kx1; ++kx) {
      const int64_t off = at + (ky * g.dh * g.w + kx * g.dw) * kChannelBlock;
#pragma GCC unroll 8
      for (int i = 0; i < kRows; ++i) {
        const VecF v = VecF::load(x + off + i * row_step);
        acc[i] = Taps::kFirst && first ? v : taps.step(acc[i], v, ky * g.kw + kx);
      }
      first = false;
    }
#pragma GCC unroll 8
  for (int i = 0; i < kRows; ++i) {
    const int64_t p = (r + i) * g.ow + q;
    taps.finish(acc[i], (ky1 - ky0) * (kx1 - kx0), p, y + p * kChannelBlock);
  }
}

/// One output pixel over the window's in-bounds taps only, in tap order
/// (the rectangle of them found first: no test per tap). Not inlined: the
/// corners are few, and inlined into the plane's loops they slowed its
/// tiles by 3-5% (conv_bench, EfficientNet's 5x5 layers).
template <typename Taps>
__attribute__((noinline)) void blocked_window_edge(const float *x, const BlockedWindow &g,
                                                   int64_t r, int64_t q, const Taps &taps,
                                                   float *y) {
  int64_t ky0, ky1;
  taps_inside(r, g.h, g.kh, g.sh, g.pt, g.dh, ky0, ky1);
  blocked_window_column<1>(x, g, r, q, ky0, ky1, taps, y);
}

/// Columns whose windows lie inside across take blocked_window_pixels,
/// eight pixels at a time, then 4, then the rest in one tile (a top or
/// bottom row on its window rows inside); the left and right border
/// columns blocked_window_column down the rows inside, four at a time, as
/// those rows pass; the corners blocked_window_edge. Every output's taps in
/// the same order whichever path takes it. At 14 x 14 a 5 x 5 window's
/// border is half the pixels, at 7 x 7 all but 9, so the border runs tiles
/// too (blocked_window_plane pads such planes first where it may).
template <typename Taps>
void blocked_window_tiles(const float *x, const BlockedWindow &g, const Taps &taps, float *y) {
  // Outputs [lo, hi) of an axis have whole windows: start >= 0, end <= size.
  auto inside = [](int64_t out, int64_t size, int64_t k, int64_t s, int64_t pad, int64_t d,
                   int64_t &lo, int64_t &hi) {
    lo = min64(out, (pad + s - 1) / s);
    const int64_t last = size - 1 - (k - 1) * d + pad; // largest start * s
    hi = last < 0 ? 0 : min64(out, last / s + 1);
    if (hi < lo)
      hi = lo;
  };
  int64_t r_lo, r_hi, q_lo, q_hi;
  inside(g.oh, g.h, g.kh, g.sh, g.pt, g.dh, r_lo, r_hi);
  inside(g.ow, g.w, g.kw, g.sw, g.pl, g.dw, q_lo, q_hi);
  // kRows rows' columns inside across from row r, on window rows [ky0, ky1).
  auto rows_inside = [&](auto rows_c, int64_t r, int64_t ky0, int64_t ky1, bool whole) {
    constexpr int kRows = decltype(rows_c)::value;
    int64_t q = q_lo;
    // Eight and four pixels (most of a row) with the stride fixed where it
    // is 1 or 2 (first NEON's 3-wide tiles, where they apply), the rest
    // with it read; the pair's rows side by side (the eights on AVX-512).
    auto wide = [&](auto sw_c) {
      constexpr int kSW = decltype(sw_c)::value;
      if constexpr (!VecF::kArithmeticFromMemory && kSW > 0)
        if (whole && g.kw == 3 && g.dw == 1)
          for (; q + 8 <= q_hi; q += 8)
            for (int i = 0; i < kRows; ++i)
              blocked_window_pixels_3wide<8, kSW>(x, g, r + i, q, taps, y);
      // Eight sums a row cover the latency already; a pair's 16 share each
      // weight load and fit AVX-512's 32 registers (not AVX2's 16).
      for (; q + 8 <= q_hi; q += 8) {
        if constexpr (VecF::kLanes == 16)
          blocked_window_pixels<kRows, 8, kSW>(x, g, ky0, ky1, r, q, taps, y);
        else
          for (int i = 0; i < kRows; ++i)
            blocked_window_pixels<1, 8, kSW>(x, g, ky0, ky1, r + i, q, taps, y);
      }
      if (q_hi - q >= 4) {
        blocked_window_pixels<kRows, 4, kSW>(x, g, ky0, ky1, r, q, taps, y);
        q += 4;
      }
    };
    if (g.sw == 1)
      wide(std::integral_constant<int, 1>{});
    else if (g.sw == 2)
      wide(std::integral_constant<int, 2>{});
    else
      wide(std::integral_constant<int, 0>{});
    if (q_hi - q == 3)
      blocked_window_pixels<kRows, 3, 0>(x, g, ky0, ky1, r, q, taps, y);
    else if (q_hi - q == 2)
      blocked_window_pixels<kRows, 2, 0>(x, g, ky0, ky1, r, q, taps, y);
    else if (q_hi - q == 1)
      blocked_window_pixels<kRows, 1, 0>(x, g, ky0, ky1, r, q, taps, y);
  };
  for (int64_t r = 0; r < g.oh;) {
    // A top or bottom row runs its columns inside across on the window rows
    // that land inside (window rows [ky0, ky1)); a row with none, edge by edge.
    int64_t ky0, ky1;
    taps_inside(r, g.h, g.kh, g.sh, g.pt, g.dh, ky0, ky1);
    if (ky0 == ky1) {
      for (int64_t q = 0; q < g.ow; ++q)
        blocked_window_edge(x, g, r, q, taps, y);
      ++r;
      continue;
    }
    // Rows inside down go up to four at a time, their border columns as
    // column tiles (read while the rows are in cache).
    const bool whole = ky0 == 0 && ky1 == g.kh; // the window's every row
    const int64_t rows = whole ? min64(4, r_hi - r) : 1;
    auto border = [&](int64_t q) {
      if (rows == 4)
        blocked_window_column<4>(x, g, r, q, 0, g.kh, taps, y);
      else if (rows == 3)
        blocked_window_column<3>(x, g, r, q, 0, g.kh, taps, y);
      else if (rows == 2)
        blocked_window_column<2>(x, g, r, q, 0, g.kh, taps, y);
      else
        blocked_window_edge(x, g, r, q, taps, y);
    };
    for (int64_t q = 0; q < q_lo; ++q)
      border(q);
    int64_t i = 0;
    for (; i + 2 <= rows; i += 2)
      rows_inside(std::integral_constant<int, 2>{}, r + i, 0, g.kh, true);
    if (i < rows)
      rows_inside(std::integral_constant<int, 1>{}, r + i, ky0, ky1, whole);
    for (int64_t q = q_hi; q < g.ow; ++q)
      border(q);
    r += rows;
  }
}

/// Output row r of a K x K depthwise window of stride S (both ways),
/// dilation 1 and left pad (K - 1) / 2, whose row is kOW (7 or 14) pixels:
/// one sum a pixel, over window rows [ky0, ky1) and the taps across that
/// land inside, in tap order; each tap's input vector an operand from
/// memory. The taps left of the plane are known at compile time, those
/// right of it tested. Skipping the taps outside sums as the border tiles
/// and the zero-padded copy do (DepthwiseTaps::kZeroPadExact), bit for bit.
template <int K, int S, int kOW, typename Taps>
ONNXC_RT_SIMD_INLINE void blocked_window_row(const float *x, const BlockedWindow &g, int64_t r,
                                            int64_t ky0, int64_t ky1, const Taps &taps,
                                            float *y) {
  constexpr int kPad = (K - 1) / 2;
  VecF acc[kOW];
#pragma GCC unroll 16
  for (int p = 0; p < kOW; ++p)
    acc[p] = VecF::zero();
  for (int64_t ky = ky0; ky < ky1; ++ky) {
    // Input column 0 of the window row (pixel 0's first tap at -kPad).
    const float *row = x + (r * g.sh - g.pt + ky) * g.w * kChannelBlock;
#pragma GCC unroll 5
    for (int kx = 0; kx < K; ++kx)
#pragma GCC unroll 16
      for (int p = 0; p < kOW; ++p) {
        constexpr int kFirstCol = -kPad;
        const int col = kFirstCol + p * S + kx;
        if (col < 0 || col >= g.w)
          continue;
        acc[p] = taps.step(acc[p], VecF::load(row + col * kChannelBlock), ky * K + kx);
      }
  }
#pragma GCC unroll 16
  for (int p = 0; p < kOW; ++p) {
    const int64_t q = r * g.ow + p;
    taps.finish(acc[p], 0, q, y + q * kChannelBlock);
  }
}

/// A depthwise plane row by row (blocked_window_row) where its rows are 7
/// or 14 pixels, its window 3x3 or 5x5 of stride 1 or 2 both ways,
/// dilation 1 and left pad (K - 1) / 2 (any pads down and right); else
/// false. A row's sums stay in registers and nothing is copied: against
/// the padded copy and its tiles (bench/conv_bench.cpp's dw rows, Zen 5,
/// x86-64-vbmi) 960 at 7 x 7 1.6x faster, 1152 5x5 at 7 x 7 1.5x, 576 14
/// -> 7 stride 2 1.6x, 384 at 14 x 14 1.1x; 5x5 at 14 x 14 ran 3% slower
/// with AVX-512 (1.15x faster with AVX2) and wider rows slower (the tiles'
/// two rows share each weight), so those stay in tiles. x86 only: NEON's
/// arithmetic takes no memory operand (unmeasured there).
template <typename Taps>
bool blocked_window_by_rows(const float *x, const BlockedWindow &g, const Taps &taps, float *y) {
  if constexpr (!VecF::kArithmeticFromMemory) {
    return false;
  } else {
    const int64_t k = g.kw;
    if (g.kh != k || (k != 3 && k != 5) || g.dh != 1 || g.dw != 1 || g.sh != g.sw ||
        (g.sw != 1 && g.sw != 2) || g.pl != (k - 1) / 2 || (g.ow != 7 && g.ow != 14) ||
        (k == 5 && g.ow == 14 && VecF::kLanes == 16))
      return false;
    auto run = [&](auto k_c, auto s_c, auto ow_c) {
      constexpr int K = decltype(k_c)::value, S = decltype(s_c)::value;
      constexpr int kOW = decltype(ow_c)::value;
      for (int64_t r = 0; r < g.oh; ++r) {
        int64_t ky0, ky1;
        taps_inside(r, g.h, K, g.sh, g.pt, 1, ky0, ky1);
        blocked_window_row<K, S, kOW>(x, g, r, ky0, ky1, taps, y);
      }
    };
    auto by_width = [&](auto k_c, auto s_c) {
      if (g.ow == 7)
        run(k_c, s_c, std::integral_constant<int, 7>{});
      else
        run(k_c, s_c, std::integral_constant<int, 14>{});
    };
    auto by_stride = [&](auto k_c) {
      if (g.sw == 1)
        by_width(k_c, std::integral_constant<int, 1>{});
      else
        by_width(k_c, std::integral_constant<int, 2>{});
    };
    if (k == 3)
      by_stride(std::integral_constant<int, 3>{});
    else
      by_stride(std::integral_constant<int, 5>{});
    return true;
  }
}

/// The most pixels of a zero-padded plane blocked_window_plane copies to
/// its stack (kChannelBlock floats each: 20.7 KB): 14 x 14 under a 5 x 5
/// window with its pads is 18 x 18.
constexpr int64_t kPaddedWindowPixels = 324;

/// The extents of the input a window over g's outputs spans, its pads
/// included: `rows` x `cols`, input (0, 0) at (g.pt, g.pl).
inline void padded_window_extent(const BlockedWindow &g, int64_t &rows, int64_t &cols) {
  rows = (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1;
  cols = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
}

/// Whether the `taps` weight vectors from wt (kChannelBlock floats apart)
/// are all finite: w - w is 0 for a finite w, NaN for an infinite or NaN one.
inline bool finite_tap_weights(const float *wt, int64_t taps) {
  VecF sum = VecF::zero();
  for (int64_t t = 0; t < taps; ++t) {
    const VecF w = VecF::load(wt + t * kChannelBlock);
    sum = VecF::add(sum, VecF::sub(w, w));
  }
  alignas(64) float lanes[VecF::kLanes];
  sum.store(lanes);
  bool finite = true;
  for (int i = 0; i < VecF::kLanes; ++i)
    finite = finite && lanes[i] == 0.0f;
  return finite;
}

/// One vector's plane (x, y: a block's plane offset to the vector's lanes)
/// of a window op. A depthwise window on a small plane whose border is a
/// large share of it (7 x 7 and 14 x 14 in MobileNetV2 and EfficientNet-B0)
/// is copied into a zero-padded plane on the stack first, so that every
/// output takes the tiles of the inside (blocked_window_tiles) and none
/// the border's narrower ones: the same sums bit for bit
/// (DepthwiseTaps::kZeroPadExact), 1.2-1.6x faster on those layers
/// (bench/conv_bench.cpp's dw rows). Larger planes, pools and infinite
/// weights take the border tiles.
template <typename Taps>
void blocked_window_plane(const float *x, const BlockedWindow &g, const Taps &taps, float *y) {
  if constexpr (Taps::kZeroPadExact) {
    if (blocked_window_by_rows(x, g, taps, y))
      return;
    int64_t rows, cols;
    padded_window_extent(g, rows, cols);
    const bool border = g.pt > 0 || g.pl > 0 || rows > g.h || cols > g.w;
    if (border && rows * cols <= kPaddedWindowPixels &&
        finite_tap_weights(taps.wt, g.kh * g.kw)) {
      alignas(64) float padded[kPaddedWindowPixels * kChannelBlock];
      // Input rows and columns the windows read: [0, in_rows) x [0, in_cols).
      const int64_t in_rows = min64(g.h, rows - g.pt), in_cols = min64(g.w, cols - g.pl);
      for (int64_t r = 0; r < rows; ++r) {
        float *dst = padded + r * cols * kChannelBlock;
        const int64_t ir = r - g.pt;
        if (ir < 0 || ir >= in_rows) {
          for (int64_t q = 0; q < cols; ++q)
            VecF::zero().store(dst + q * kChannelBlock);
          continue;
        }
        const float *src = x + ir * g.w * kChannelBlock;
        for (int64_t q = 0; q < g.pl; ++q)
          VecF::zero().store(dst + q * kChannelBlock);
        for (int64_t q = 0; q < in_cols; ++q)
          VecF::load(src + q * kChannelBlock).store(dst + (g.pl + q) * kChannelBlock);
        for (int64_t q = g.pl + in_cols; q < cols; ++q)
          VecF::zero().store(dst + q * kChannelBlock);
      }
      BlockedWindow p = g;
      p.h = rows;
      p.w = cols;
      p.pt = p.pl = 0;
      blocked_window_tiles(padded, p, taps, y);
      return;
    }
  }
  blocked_window_tiles(x, g, taps, y);
}

/// Runs `plane(x_vec, y_vec, image, block, sub)` for every vector's plane of
/// a blocked tensor (n images of cb blocks of kBlockVecs vectors), split
/// among `tasks`.
template <typename F>
inline void for_each_block_vector(const float *x, float *y, int64_t n, int64_t cb,
                                  int64_t in_plane, int64_t out_plane, TaskRunner *runner,
                                  int64_t tasks, const F &plane) {
  parallel_for(runner, tasks, [&](int64_t task) {
    const Range r = split_range(n * cb * kBlockVecs, 1, tasks, task);
    for (int64_t i = r.begin; i < r.end; ++i) {
      const int64_t bb = i / kBlockVecs, sub = i % kBlockVecs;
      plane(x + bb * in_plane * kChannelBlock + sub * kLanes,
            y + bb * out_plane * kChannelBlock + sub * kLanes, bb / cb, bb % cb, sub);
    }
  });
}

inline BlockedWindow blocked_window(const int64_t *in_shape, const int64_t *out_shape,
                                    const int64_t *kernel, const int64_t *strides,
                                    const int64_t *pads_begin, const int64_t *dilations) {
  return {in_shape[2], in_shape[3], out_shape[2], out_shape[3], kernel[0],     kernel[1],
          strides[0],  strides[1],  pads_begin[0], pads_begin[1], dilations[0], dilations[1]};
}

/// Depthwise convolution (group == c == m) on blocked X, Y and Z (may be
/// null); `w_packed`: pack_blocked_conv_weights(..., depthwise). Every tap
/// is one vector FMA for a block's channels, whatever the stride; windows
/// that reach into padding take their in-bounds taps only. `tasks` split
/// the blocks.
template <typename Act>
void depthwise_conv2d_blocked(const float *x, const float *w_packed, const float *bias,
                              const float *z, float *y, const int64_t *in_shape,
                              const int64_t *out_shape, const int64_t *kernel,
                              const int64_t *strides, const int64_t *pads_begin,
                              const int64_t *dilations, float act_alpha, float act_beta,
                              TaskRunner *runner = nullptr, int64_t tasks = 1) {
  const BlockedWindow g =
      blocked_window(in_shape, out_shape, kernel, strides, pads_begin, dilations);
  const int64_t m = out_shape[1], cb = channel_blocks(m), taps = g.kh * g.kw;
  for_each_block_vector(
      x, y, in_shape[0], cb, g.h * g.w, g.oh * g.ow, runner, tasks,
      [&](const float *xv, float *yv, int64_t b, int64_t blk, int64_t sub) {
        DepthwiseTaps<Act> t;
        t.wt = w_packed + blk * taps * kChannelBlock + sub * kLanes;
        t.bias = bias_lanes(bias, blk * kChannelBlock + sub * kLanes, m);
        t.z = z ? z + ((b * cb + blk) * g.oh * g.ow) * kChannelBlock + sub * kLanes : nullptr;
        t.alpha = act_alpha;
        t.beta = act_beta;
        blocked_window_plane(xv, g, t, yv);
      });
}

/// MaxPool (is_max) or AveragePool over in-bounds taps on blocked X and Y
/// (logical NCHW shapes).
inline void pool2d_blocked(const float *x, float *y, const int64_t *in_shape,
                           const int64_t *out_shape, const int64_t *kernel,
                           const int64_t *strides, const int64_t *pads_begin,
                           const int64_t *dilations, int64_t is_max,
                           TaskRunner *runner = nullptr, int64_t tasks = 1) {
  const BlockedWindow g =
      blocked_window(in_shape, out_shape, kernel, strides, pads_begin, dilations);
  for_each_block_vector(x, y, in_shape[0], channel_blocks(in_shape[1]), g.h * g.w, g.oh * g.ow,
                        runner, tasks,
                        [&](const float *xv, float *yv, int64_t, int64_t, int64_t) {
                          if (is_max)
                            blocked_window_plane(xv, g, MaxTaps{}, yv);
                          else
                            blocked_window_plane(xv, g, MeanTaps{}, yv);
                        });
}

/// GlobalAveragePool on blocked X (n x c x hw) into blocked Y (n x c x 1):
/// four accumulators per vector (independent adds).
inline void global_average_pool_blocked(const float *x, float *y, int64_t n, int64_t c,
                                        int64_t hw, TaskRunner *runner = nullptr,
                                        int64_t tasks = 1) {
  const float scale = hw > 0 ? 1.0f / static_cast<float>(hw) : 0.0f;
  for_each_block_vector(x, y, n, channel_blocks(c), hw, 1, runner, tasks,
                        [&](const float *xv, float *yv, int64_t, int64_t, int64_t) {
                          VecF acc[4] = {VecF::zero(), VecF::zero(), VecF::zero(), VecF::zero()};
                          const float *at = xv, *const end = xv + hw * kChannelBlock;
                          for (; end - at >= 4 * kChannelBlock; at += 4 * kChannelBlock)
                            for (int i = 0; i < 4; ++i)
                              acc[i] = VecF::add(acc[i], VecF::load(at + i * kChannelBlock));
                          for (; at < end; at += kChannelBlock)
                            acc[0] = VecF::add(acc[0], VecF::load(at));
                          const VecF sum =
                              VecF::add(VecF::add(acc[0], acc[1]), VecF::add(acc[2], acc[3]));
                          VecF::mul(sum, VecF::broadcast(scale)).store(yv);
                        });
}

} // namespace simd
} // namespace onnxc_rt

#endif
