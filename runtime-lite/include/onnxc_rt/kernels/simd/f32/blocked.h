// SIMD kernels on the channel-blocked layout (NCHW16c, see blocking.h): the
// conversions to and from NCHW, dense and depthwise convolutions, max and
// average pooling, global average pooling. onnxc-layout-selection puts a
// region of a model in this layout so that its convolutions and pools read
// and write whole vectors of channels per pixel, with no transposes between
// them (the NCHW pixel-major path transposes every output; the depthwise one
// transposes in and out).
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
