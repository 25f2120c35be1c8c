// SIMD kernels on the channel-blocked layout (NCHW16c, see blocking.h): the
// conversions to and from NCHW and the dense convolutions; the depthwise
// convolution and the pools are blocked_window.h's. onnxc-layout-selection
// puts a region of a model in this layout so that its convolutions and pools
// read and write whole vectors of channels per pixel, with no transposes
// between them (the NCHW pixel-major path transposes every output; the
// depthwise one transposes in and out).
#ifndef ONNXC_RT_SIMD_F32_BLOCKED_H
#define ONNXC_RT_SIMD_F32_BLOCKED_H

#include <type_traits>

#include "onnxc_rt/kernels/simd/f32/conv.h"

namespace onnxc_rt {
namespace simd {

/// Vectors per channel block: 1 with AVX-512, 2 with AVX2.
constexpr int kBlockVecs = static_cast<int>(kChannelBlock) / kLanes;

/// The conversions' traversal: f(b, c0, sub, p0, np, blk) for every image
/// b, block of channels from c0 (blk: the offset of its blocked plane),
/// vector `sub` of the block and group of np <= kLanes pixels from p0 (one
/// kLanes x kLanes transpose each); `tasks` split the blocks.
template <typename F>
inline void for_each_transpose_tile(int64_t n, int64_t c, int64_t hw, TaskRunner *runner,
                                    int64_t tasks, const F &f) {
  const int64_t cb = channel_blocks(c);
  parallel_for(runner, tasks, [&](int64_t task) {
    const Range r = split_range(n * cb, 1, tasks, task);
    for (int64_t bb = r.begin; bb < r.end; ++bb)
      for (int64_t p0 = 0; p0 < hw; p0 += kLanes)
        for (int sub = 0; sub < kBlockVecs; ++sub)
          f(bb / cb, bb % cb * kChannelBlock, sub, p0, min64(kLanes, hw - p0),
            bb * hw * kChannelBlock);
  });
}

/// y (blocked) = x (NCHW, n x c planes of hw floats); padding lanes zero.
/// `tasks` split the blocks.
inline void to_blocked(const float *x, float *y, int64_t n, int64_t c, int64_t hw,
                       TaskRunner *runner = nullptr, int64_t tasks = 1) {
  auto tile = [&](int64_t b, int64_t c0, int sub, int64_t p0, int64_t np, int64_t blk) {
    VecF v[kLanes];
    for (int j = 0; j < kLanes; ++j) {
      const int64_t ch = c0 + sub * kLanes + j;
      const float *src = x + (b * c + ch) * hw + p0;
      v[j] = ch >= c          ? VecF::zero()
             : np == kLanes ? VecF::load(src)
                            : VecF::load_first(src, np);
    }
    VecF::transpose(v); // v[i]: pixel p0 + i's kLanes channels
    for (int64_t i = 0; i < np; ++i)
      v[i].store(y + blk + (p0 + i) * kChannelBlock + sub * kLanes);
  };
  for_each_transpose_tile(n, c, hw, runner, tasks, tile);
}

/// y (NCHW) = x (blocked), dropping the padding lanes. `tasks` split the blocks.
inline void from_blocked(const float *x, float *y, int64_t n, int64_t c, int64_t hw,
                         TaskRunner *runner = nullptr, int64_t tasks = 1) {
  auto tile = [&](int64_t b, int64_t c0, int sub, int64_t p0, int64_t np, int64_t blk) {
    VecF v[kLanes];
    for (int64_t i = 0; i < kLanes; ++i)
      v[i] = i < np ? VecF::load(x + blk + (p0 + i) * kChannelBlock + sub * kLanes)
                    : VecF::zero();
    VecF::transpose(v); // v[j]: channel c0 + sub * kLanes + j's pixels
    for (int j = 0; j < kLanes && c0 + sub * kLanes + j < c; ++j) {
      float *dst = y + (b * c + c0 + sub * kLanes + j) * hw + p0;
      if (np == kLanes)
        v[j].store(dst);
      else
        v[j].store_first(dst, np);
    }
  };
  for_each_transpose_tile(n, c, hw, runner, tasks, tile);
}

/// One vector of blocked outputs through the epilogue: v + bias (`b`, the
/// vector's bias lanes, zero where none) + residual (`z`, null: none), then
/// Act (in registers, or on the stored vector out of line: apply_activation),
/// stored to dst (all kLanes lanes: padding lanes too, finite).
template <typename Act>
ONNXC_RT_SIMD_INLINE void blocked_store(VecF v, VecF b, const float *z, float *dst,
                                       float alpha, float beta) {
  v = VecF::add(v, b);
  if (z)
    v = VecF::add(v, VecF::load(z));
  if constexpr (kVectorActivation<Act>) {
    vector_activation<Act>(v, alpha, beta).store(dst);
  } else {
    v.store(dst);
    apply_activation<Act>(dst, kLanes, alpha, beta);
  }
}

/// The bias lanes of channels [ch, ch + kLanes) (zero past m or without bias).
inline VecF bias_lanes(const float *bias, int64_t ch, int64_t m) {
  if (!bias || ch >= m)
    return VecF::zero();
  return m - ch >= kLanes ? VecF::load(bias + ch) : VecF::load_first(bias + ch, m - ch);
}

/// Calls f(std::integral_constant<int, rows>{}) for rows in [kMin, kMax].
template <int kMin, int kMax, typename F>
ONNXC_RT_SIMD_INLINE void dispatch_rows(int64_t rows, F &&f) {
  if constexpr (kMin <= kMax) {
    if (rows == kMin)
      f(std::integral_constant<int, kMin>{});
    else
      dispatch_rows<kMin + 1, kMax>(rows, f);
  }
}

/// Output channels [j0, j0 + kVecs * kLanes) x pixels [p0, p1) of a blocked
/// convolution (conv2d_blocked): register tiles of kPixels pixels (the last
/// tile's missing pixels repeat the last pixel, not stored) by kVecs
/// vectors, stored straight into the blocked output with the epilogue (y
/// and z at channel block j0 / 16's plane, planes y_plane pixels apart). The
/// tiles: window_tile's kGemmMR pixels by 1 or 2 vectors, or (kPixels 4,
/// kVecs 4: a pointwise convolution of a blocked input, taps 1) NEON's
/// fma_tile_4x16, whose weight rows of 16 channels are one load each. (V
/// is VecF: a template, so that only NEON compiles that tile.) kTaps: the
/// window_tile specialisation (1, 9 or 0 for any count) where the caller
/// knows it, -1 to choose from `taps`. `channels`: the input's (kL lanes a
/// step; past them, to the step's end, zeros).
template <typename Act, int kL, int kPixels, int kVecs, int kTaps = -1, typename V = VecF>
void conv2d_blocked_tiles(const float *src, int64_t row_w, int64_t ustride,
                          const int64_t *tap_off, int64_t taps, int64_t channels,
                          const float *wt, const float *bias, const float *z, float *y,
                          int64_t m, int64_t ow, int64_t y_plane, int64_t sh, int64_t sw,
                          float alpha, float beta, int64_t j0, int64_t p0, int64_t p1) {
  constexpr bool kTile4x16 = kPixels == 4 && kVecs == 4;
  const int64_t units = (channels + kL - 1) / kL;
  static_assert(kTile4x16 || kPixels == kGemmMR, "window_tile's tiles are kGemmMR pixels");
  const int64_t k = units * taps * kL;
  const int tap_class = kTaps >= 0 ? kTaps : blocked_tap_class(taps);
  const float *b = wt + j0 / kPixelMajorBlock * k * kPixelMajorBlock + j0 % kPixelMajorBlock;
  VecF bv[kVecs];
  int64_t voff[kVecs]; // where vector v of pixel 0 goes in y
  for (int v = 0; v < kVecs; ++v) {
    const int64_t ch = j0 + v * kLanes;
    bv[v] = bias_lanes(bias, ch, m);
    voff[v] = (ch / kChannelBlock - j0 / kChannelBlock) * y_plane * kChannelBlock +
              ch % kChannelBlock;
  }
  int64_t ox = p0 % ow;
  const float *at = src + (p0 / ow * sh * row_w + ox * sw) * kL;
  // Stores the first `rows` pixels of a tile from pixel i0 on.
  auto store = [&](auto &acc, int64_t i0, int64_t rows) {
    for (int64_t r = 0; r < rows; ++r)
      for (int v = 0; v < kVecs; ++v) {
        const int64_t at_y = voff[v] + (i0 + r) * kChannelBlock;
        blocked_store<Act>(acc[r][v], bv[v], z ? z + at_y : nullptr, y + at_y, alpha, beta);
      }
  };
  // Where the instruction set has taller tiles (VecF::kWindowStripMax >
  // kPixels), each row of a stride-1 blocked convolution is cut into strips
  // of 7 to kWindowStripMax pixels (window_strip), as equal as they come
  // (a row of 56: 4 x 14; 27: 14 + 13; 13: 13; 7: 7), so that no strip
  // computes pixels it throws away; rows narrower than 7 (and the pieces a
  // task's range cuts off) take kPixels-pixel tiles, which may run on
  // into the next row.
  constexpr int kStripMax =
      !kTile4x16 && kL == kChannelBlock && VecF::kWindowStripMax > kPixels ? VecF::kWindowStripMax
                                                                          : 0;
  constexpr int kStripMin = kStripMax / 2;
  // A pointwise, stride-1 layer read in place: its pixels follow each other
  // across rows, so on rows of kStripMin pixels or fewer a strip may span
  // rows (a 7 x 7 plane: 13 + 3 x 12 rather than 7 strips of 7, each a pass
  // over the channel tile's weights; 5-7% faster in conv_bench, where rows
  // of 13 gain nothing).
  const bool flat =
      tap_class == 1 && taps == 1 && sh == 1 && sw == 1 && row_w == ow && ow <= kStripMin;
  auto strip = [&](auto rows_c, auto sw_c, int64_t i0) {
    constexpr int kRows = decltype(rows_c)::value, kSW = decltype(sw_c)::value;
    VecF acc[kRows][2];
    if (tap_class == 1)
      window_strip<1, kVecs, kSW>(at, tap_off, taps, channels, ustride, b, acc);
    else if (tap_class == 9)
      window_strip<9, kVecs, kSW>(at, tap_off, taps, channels, ustride, b, acc);
    else
      window_strip<0, kVecs, kSW>(at, tap_off, taps, channels, ustride, b, acc);
    store(acc, i0, kRows);
    at += kRows * kSW * kL;
    for (ox += kRows; ox >= ow; ox -= ow) // once at most, but where `flat`
      at += (sh * row_w - ow * kSW) * kL;
  };
  for (int64_t i0 = p0; i0 < p1;) {
    if constexpr (kStripMax > 0) {
      const int64_t left = flat ? p1 - i0 : min64(ow - ox, p1 - i0);
      if ((sw == 1 || sw == 2) && left >= kStripMin) {
        const int64_t strips = (left + kStripMax - 1) / kStripMax;
        const int64_t rows = (left + strips - 1) / strips;
        dispatch_rows<kStripMin, kStripMax>(rows, [&](auto rows_c) {
          if (sw == 1)
            strip(rows_c, std::integral_constant<int, 1>{}, i0);
          else
            strip(rows_c, std::integral_constant<int, 2>{}, i0);
        });
        i0 += rows;
        continue;
      }
    }
    const float *px[kPixels];
    for (int r = 0; r < kPixels; ++r) {
      px[r] = at;
      if (i0 + r + 1 < p1) {
        at += sw * kL;
        if (++ox == ow) {
          ox = 0;
          at += (sh * row_w - ow * sw) * kL;
        }
      }
    }
    VecF acc[kPixels][kVecs > 2 ? kVecs : 2];
    if constexpr (kTile4x16) {
      const float *w = b;
      V::fma_tile_4x16(px, units, ustride * 4, w, kPixelMajorBlock * 4, acc);
    } else if (tap_class == 1) {
      window_tile<kL, 1, kVecs>(px, tap_off, taps, channels, ustride, b, acc);
    } else if (tap_class == 9) {
      window_tile<kL, 9, kVecs>(px, tap_off, taps, channels, ustride, b, acc);
    } else {
      window_tile<kL, 0, kVecs>(px, tap_off, taps, channels, ustride, b, acc);
    }
    store(acc, i0, min64(kPixels, p1 - i0));
    i0 += kPixels;
  }
}

/// The output channels of one conv2d_blocked_tile: kNR (window_tile's two
/// vectors), or 16 where NEON's 4 x 16 tile applies (a pointwise
/// convolution of a blocked input).
constexpr int64_t blocked_tile_channels(bool in_blocked, int64_t taps) {
  return VecF::kBlockedTile4x16 && in_blocked && taps == 1 ? kChannelBlock : kNR;
}

/// conv2d_blocked_tiles for output channels [j0, j0 +
/// blocked_tile_channels(in_blocked, taps)) (fewer past m's last block) by
/// pixels [p0, p1), in the register tile the instruction set prefers. The
/// blocked convolution's and the fused expand + depthwise block's
/// (expand_depthwise.h) channel tile. kInBlocked: in_blocked where the
/// caller knows it (0 or 1), so that only that input layout's tiles are
/// compiled; -1 decides at run time.
template <typename Act, int kTaps, int kInBlocked = -1>
void conv2d_blocked_tile(bool in_blocked, const float *src, int64_t row_w, int64_t ustride,
                         const int64_t *tap_off, int64_t taps, int64_t channels,
                         const float *wt, const float *bias, const float *z, float *y,
                         int64_t m, int64_t ow, int64_t y_plane, int64_t sh, int64_t sw,
                         float alpha, float beta, int64_t j0, int64_t p0, int64_t p1) {
  auto run = [&](auto l_c, auto p_c, auto v_c) {
    conv2d_blocked_tiles<Act, decltype(l_c)::value, decltype(p_c)::value, decltype(v_c)::value,
                         kTaps>(src, row_w, ustride, tap_off, taps, channels, wt, bias, z, y, m,
                                ow, y_plane, sh, sw, alpha, beta, j0, p0, p1);
  };
  using L16 = std::integral_constant<int, static_cast<int>(kChannelBlock)>;
  using L1 = std::integral_constant<int, 1>;
  using P = std::integral_constant<int, static_cast<int>(kGemmMR)>;
  using V1 = std::integral_constant<int, 1>;
  using V2 = std::integral_constant<int, 2>;
  if constexpr (kInBlocked >= 0)
    in_blocked = kInBlocked != 0;
  if constexpr (VecF::kBlockedTile4x16 && kInBlocked != 0) {
    if (blocked_tile_channels(in_blocked, taps) == kChannelBlock) {
      using P4 = std::integral_constant<int, 4>;
      using V4 = std::integral_constant<int, 4>;
      run(L16{}, P4{}, V4{});
      return;
    }
  }
  const bool two = round_up(m, kChannelBlock) - j0 >= kNR;
  if constexpr (kInBlocked != 0) {
    if (in_blocked) {
      two ? run(L16{}, P{}, V2{}) : run(L16{}, P{}, V1{});
      return;
    }
  }
  if constexpr (kInBlocked != 1)
    two ? run(L1{}, P{}, V2{}) : run(L1{}, P{}, V1{});
}

/// A pointwise convolution of a one-pixel blocked input (a squeeze-and-
/// excite layer's, N x C x 1 x 1): output vectors [v0, v1) of y = Act(W x
/// + B + Z), over pack_blocked_conv_weights' rows, four partial sums a
/// vector so that its FMAs do not wait on each other (conv2d_blocked_tiles
/// would compute kGemmMR copies of the pixel).
template <typename Act>
void blocked_matvec(const float *x, const float *w_packed, const float *bias, const float *z,
                    float *y, int64_t c, int64_t m, float alpha, float beta, int64_t v0,
                    int64_t v1) {
  const int64_t k = round_up(c, kChannelBlock); // the packed rows
  for (int64_t v = v0; v < v1; ++v) {
    const int64_t j = v * kLanes;
    const float *b = w_packed + j / kPixelMajorBlock * k * kPixelMajorBlock + j % kPixelMajorBlock;
    VecF acc[4] = {VecF::zero(), VecF::zero(), VecF::zero(), VecF::zero()};
    int64_t p = 0;
    for (; p + 4 <= k; p += 4)
      for (int i = 0; i < 4; ++i)
        acc[i] = VecF::fma(VecF::broadcast(x[p + i]), VecF::load(b + (p + i) * kPixelMajorBlock),
                           acc[i]);
    for (; p < k; ++p)
      acc[0] = VecF::fma(VecF::broadcast(x[p]), VecF::load(b + p * kPixelMajorBlock), acc[0]);
    const VecF sum = VecF::add(VecF::add(acc[0], acc[1]), VecF::add(acc[2], acc[3]));
    blocked_store<Act>(sum, bias_lanes(bias, j, m), z ? z + j : nullptr, y + j, alpha, beta);
  }
}

/// Y = Act(conv(X, W) + B + Z), group 1, Y and Z blocked, X blocked
/// (in_blocked) or NCHW; shapes are the logical NCHW ones. `w_packed`:
/// pack_blocked_conv_weights. Register tiles of kGemmMR output pixels by two
/// vectors of output channels, each pixel's window read in place at per-tap
/// offsets (from the input, or from a zero-padded copy where windows reach
/// into padding: blocked_conv_input); no im2col, no transposes. Work is
/// split into (channel tile, chunk of pixels) units for `tasks`. Scratch:
/// blocked_conv_scratch_floats(...) floats. The compiler names the input
/// layout (kInBlocked 0 or 1) and the tap specialisation (kTaps 1, 9 or 0)
/// it knows, so that the model's code holds only that tile's loops; -1
/// decides at run time (the kernel tests).
template <typename Act, int kInBlocked = -1, int kTaps = -1>
void conv2d_blocked(const float *x, const float *w_packed, const float *bias, const float *z,
                    float *y, const int64_t *in_shape, const int64_t *out_shape,
                    const int64_t *kernel, const int64_t *strides, const int64_t *pads_begin,
                    const int64_t *dilations, int64_t in_blocked_arg, float act_alpha,
                    float act_beta, float *scratch, TaskRunner *runner = nullptr,
                    int64_t tasks = 1) {
  const bool in_blocked = kInBlocked >= 0 ? kInBlocked != 0 : in_blocked_arg != 0;
  const int64_t n = in_shape[0], c = in_shape[1], h = in_shape[2], wd = in_shape[3];
  const int64_t m = out_shape[1], oh = out_shape[2], ow = out_shape[3], npix = oh * ow;
  const int64_t lanes = blocked_conv_lanes(in_blocked);
  const int64_t units = round_up(c, lanes) / lanes, taps = kernel[0] * kernel[1];
  const PixelMajorInput in = blocked_conv_input(in_shape, out_shape, kernel, strides,
                                                 pads_begin, dilations, in_blocked);
  int64_t tap_off[kPixelMajorMaxTaps];
  for (int64_t t = 0; t < taps && t < kPixelMajorMaxTaps; ++t)
    tap_off[t] = (t / kernel[1] * dilations[0] * in.wp + t % kernel[1] * dilations[1]) * lanes;
  const int64_t in_image = units * lanes * h * wd, out_image = channel_blocks(m) * kChannelBlock * npix;
  if (in_blocked && taps == 1 && h == 1 && wd == 1 && npix == 1 && !pads_begin[0] &&
      !pads_begin[1]) {
    // One pixel in, one out: a matrix-vector product (blocked_matvec).
    const int64_t vecs = channel_blocks(m) * kBlockVecs, in_image = units * kChannelBlock;
    const int64_t out_image = channel_blocks(m) * kChannelBlock;
    parallel_for(runner, tasks, [&](int64_t t) {
      const Range r = split_range(n * vecs, 1, tasks, t);
      for (int64_t i = r.begin; i < r.end;) {
        const int64_t b = i / vecs, v1 = min64(r.end - b * vecs, vecs);
        blocked_matvec<Act>(x + b * in_image, w_packed, bias, z ? z + b * out_image : nullptr,
                            y + b * out_image, c, m, act_alpha, act_beta, i % vecs, v1);
        i = b * vecs + v1;
      }
    });
    return;
  }
  const int64_t tile_channels = blocked_tile_channels(in_blocked, taps);
  const int64_t mp = round_up(m, kChannelBlock), tiles = (mp + tile_channels - 1) / tile_channels;
  const TileChunks split = tile_chunks(tiles, tile_channels, mp - (tiles - 1) * tile_channels,
                                       npix, in_image, units * lanes * taps * mp, tasks);
  const int64_t chunks = split.chunks, chunk = (npix + chunks - 1) / chunks;
  for (int64_t b = 0; b < n; ++b) {
    const float *xb = x + b * (in_blocked ? in_image : c * h * wd);
    const float *src = xb;
    if (in.padded) {
      parallel_for(runner, tasks, [&](int64_t t) {
        const Range r = split_range(units, 1, tasks, t);
        for (int64_t u = r.begin; u < r.end; ++u) {
          float *dst = scratch + u * in.cstride;
          if (!in_blocked) {
            fill_padded_plane(xb + u * h * wd, h, wd, pads_begin[0], pads_begin[1], in.hp,
                              in.wp, in.wp, in.wp, false, dst);
            continue;
          }
          // Pixel (r, q) of the padded block: input (r - pt, q - pl) or zeros.
          const float *blk = xb + u * h * wd * kChannelBlock;
          for (int64_t row = 0; row < in.hp; ++row)
            for (int64_t q = 0; q < in.wp; ++q) {
              const int64_t ih = row - pads_begin[0], iw = q - pads_begin[1];
              float *d = dst + (row * in.wp + q) * kChannelBlock;
              const bool inside = ih >= 0 && ih < h && iw >= 0 && iw < wd;
              for (int s = 0; s < kBlockVecs; ++s)
                (inside ? VecF::load(blk + (ih * wd + iw) * kChannelBlock + s * kLanes)
                        : VecF::zero())
                    .store(d + s * kLanes);
            }
        }
      });
      src = scratch;
    }
    const float *zb = z ? z + b * out_image : nullptr;
    float *yb = y + b * out_image;
    parallel_for(runner, tasks, [&](int64_t t) {
      const Range r = split_range(tiles * chunks, 1, tasks, t);
      for (int64_t u = r.begin; u < r.end; ++u) {
        const int64_t j0 = split.tile(u, tiles) * tile_channels;
        const int64_t p0 = split.chunk(u, tiles) * chunk;
        const int64_t p1 = min64(npix, p0 + chunk);
        if (p0 >= p1)
          continue;
        const int64_t at_block = j0 / kChannelBlock * npix * kChannelBlock;
        conv2d_blocked_tile<Act, kTaps, kInBlocked>(
            in_blocked, src, in.wp, in.cstride, tap_off, taps, c, w_packed, bias,
            zb ? zb + at_block : nullptr, yb + at_block, m, ow, npix, strides[0], strides[1],
            act_alpha, act_beta, j0, p0, p1);
      }
    });
  }
}

/// Y = Act(conv1x1(X * S, W) + B + Z) on blocked X, Y, Z (logical shapes
/// in_shape, out_shape; stride 1, no padding): a pointwise convolution of X
/// with each input channel scaled by S (n x round_up(c, 16), blocked: an
/// image's channels in order), as a squeeze-and-excite block's Mul before
/// its project convolution. The scale goes into the weights instead of X:
/// a copy of `w_packed` (pack_blocked_conv_weights, one tap, a blocked
/// input: row p of each output block is input channel p's) with each row
/// times its channel's scale, per image, then conv2d_blocked on it: m x c
/// products instead of a pass over c x h x w values. The sums differ from
/// the Mul then the convolution by rounding only ((w s) x against w (x s)).
template <typename Act>
void conv2d_blocked_scaled(const float *x, const float *w_packed, const float *s,
                           const float *bias, const float *z, float *y, const int64_t *in_shape,
                           const int64_t *out_shape, float act_alpha, float act_beta,
                           float *scratch, TaskRunner *runner = nullptr, int64_t tasks = 1) {
  static_assert(kPixelMajorBlock % kLanes == 0, "an output block's row is whole vectors");
  const int64_t n = in_shape[0], c = in_shape[1], m = out_shape[1];
  const int64_t k = round_up(c, kChannelBlock); // rows of an output block
  const int64_t rows = round_up(m, kPixelMajorBlock) / kPixelMajorBlock * k;
  const int64_t in1[4] = {1, c, in_shape[2], in_shape[3]};
  const int64_t out1[4] = {1, m, out_shape[2], out_shape[3]};
  const int64_t ones[2] = {1, 1}, zeros[2] = {0, 0};
  const int64_t x_image = k * in_shape[2] * in_shape[3];
  const int64_t y_image = round_up(m, kChannelBlock) * out_shape[2] * out_shape[3];
  for (int64_t b = 0; b < n; ++b) {
    const float *sb = s + b * k;
    for (int64_t r = 0; r < rows; ++r) {
      const VecF sv = VecF::broadcast(sb[r % k]);
      const float *from = w_packed + r * kPixelMajorBlock;
      float *to = scratch + r * kPixelMajorBlock;
      for (int64_t j = 0; j < kPixelMajorBlock; j += kLanes)
        VecF::mul(VecF::load(from + j), sv).store(to + j);
    }
    conv2d_blocked<Act, 1, blocked_tap_class(1)>(
        x + b * x_image, scratch, bias, z ? z + b * y_image : nullptr, y + b * y_image, in1, out1,
        ones, ones, zeros, ones, 1, act_alpha, act_beta, nullptr, runner, tasks); // no padded copy
  }
}

} // namespace simd
} // namespace onnxc_rt

#endif
