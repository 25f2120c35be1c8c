// SIMD depthwise 2-D convolution (one input and one output channel per
// group): a direct kernel over a zero-padded copy of each channel
// (simd/f32/padded.h), register tiles of output vectors whose every address
// is a row pointer plus a constant; the fused epilogue as conv.h's.
#ifndef ONNXC_RT_SIMD_F32_DEPTHWISE_H
#define ONNXC_RT_SIMD_F32_DEPTHWISE_H

#include "onnxc_rt/kernels/simd/f32/gemm.h"
#include "onnxc_rt/kernels/simd/f32/padded.h"

namespace onnxc_rt {
namespace simd {

/// Stores a depthwise tile's accumulators (kRows x kCols output vectors of
/// one channel, rows from r0, columns from q0) with the epilogue (`ep`: the
/// channel's bias and its plane of the residual); the last vector of a row
/// may run past ow and is stored in part.
template <typename Act, int kRows, int kCols>
ONNXC_RT_SIMD_INLINE void depthwise_store(VecF (&acc)[kRows][kCols], int64_t r0, int64_t q0,
                                         int64_t ow, float *yo, const Epilogue &ep) {
#pragma GCC unroll 16
  for (int r = 0; r < kRows; ++r) {
    float *dst = yo + (r0 + r) * ow + q0;
    const float *res = ep.residual ? ep.residual + (r0 + r) * ow + q0 : nullptr;
#pragma GCC unroll 8
    for (int c = 0; c < kCols; ++c) {
      const int64_t lanes = min64(kLanes, ow - q0 - c * kLanes);
      VecF v = acc[r][c];
      if constexpr (kVectorActivation<Act>) // the epilogue in registers
        v = epilogue_vector<Act>(v, ep, ep.bias, res ? res + c * kLanes : nullptr, lanes);
      if (lanes == kLanes)
        v.store(dst + c * kLanes);
      else
        v.store_first(dst + c * kLanes, lanes);
    }
    if constexpr (!kVectorActivation<Act>)
      apply_epilogue<Act>(dst, 0, 1, min64(kCols * kLanes, ow - q0), ep, 0, (r0 + r) * ow + q0);
  }
}

/// A kRows x kCols tile of one depthwise channel's output vectors (rows
/// [r0, r0 + kRows), vectors from column q0) for a kKH x kKW kernel at
/// stride kS (1, or 2 on a split plane), no dilation: every address is a
/// row pointer plus a constant, and each input vector is loaded once and
/// feeds every output row of the tile that reads it (kRows + kKH - 1 input
/// rows at stride 1 rather than kRows * kKH). Reads may run past the row
/// (into the next one or the plane's slack); those lanes are not stored.
template <typename Act, int kRows, int kCols, int kKH, int kKW, int kS>
ONNXC_RT_SIMD_INLINE void depthwise_tile(const float *pad, const float *wk, int64_t row_len,
                                        int64_t wq, int64_t r0, int64_t q0, int64_t ow, float *yo,
                                        const Epilogue &ep) {
  constexpr int kInRows = (kRows - 1) * kS + kKH;
  VecF acc[kRows][kCols];
#pragma GCC unroll 16
  for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 8
    for (int c = 0; c < kCols; ++c)
      acc[r][c] = VecF::zero();
  const float *base = pad + r0 * kS * row_len + q0;
#pragma GCC unroll 32
  for (int i = 0; i < kInRows; ++i) {
    const float *in_row = base + i * row_len;
#pragma GCC unroll 8
    for (int kx = 0; kx < kKW; ++kx) {
      // A split plane holds the even padded columns, then (wq on) the odd.
      const float *at = kS == 1 ? in_row + kx : in_row + (kx & 1) * wq + (kx >> 1);
#pragma GCC unroll 8
      for (int c = 0; c < kCols; ++c) {
        const VecF v = VecF::load(at + c * kLanes);
#pragma GCC unroll 16
        for (int r = 0; r < kRows; ++r) {
          const int ky = i - r * kS; // the tap row input row i is to output row r
          if (ky >= 0 && ky < kKH)
            acc[r][c] = VecF::fma(v, VecF::broadcast(wk[ky * kKW + kx]), acc[r][c]);
        }
      }
    }
  }
  depthwise_store<Act>(acc, r0, q0, ow, yo, ep);
}

/// The same tile for any kernel, stride and dilation the plane layout takes
/// (stride 1, or 2 split): tap t = ky * kw + kx of the vector at plane
/// offset `at` reads at + tap_off[t].
template <typename Act, int kRows, int kCols>
inline void depthwise_tile_any(const float *pad, const float *wk, int64_t kh, int64_t kw,
                               const int64_t *tap_off, int64_t r0, int64_t q0,
                               int64_t plane_row_step, int64_t ow, float *yo,
                               const Epilogue &ep) {
  const float *src[kRows];
  VecF acc[kRows][kCols];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    src[r] = pad + (r0 + r) * plane_row_step + q0;
#pragma GCC unroll 8
    for (int c = 0; c < kCols; ++c)
      acc[r][c] = VecF::zero();
  }
  for (int64_t t = 0; t < kh * kw; ++t) {
    const int64_t off = tap_off[t];
    const VecF wv = VecF::broadcast(wk[t]);
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 8
      for (int c = 0; c < kCols; ++c)
        acc[r][c] = VecF::fma(VecF::load(src[r] + off + c * kLanes), wv, acc[r][c]);
  }
  depthwise_store<Act>(acc, r0, q0, ow, yo, ep);
}

/// Covers an oh-row plane of nq output vectors per row with tiles:
/// tile(Rows, Cols, r, q) computes Rows x Cols vectors from row r, vector
/// q. Eight vectors a tile, shaped to the row (1 x 8 on wide rows down to
/// 8 x 1 on rows of one vector); the rows left over take tiles of 4, 2 and
/// 1 rows, the vectors left over tiles of one column.
template <typename Tile>
inline void depthwise_cover(int64_t oh, int64_t nq, const Tile &tile) {
  auto rows = [&](auto rows_c, auto cols_c) {
    constexpr int R = decltype(rows_c)::value, C = decltype(cols_c)::value;
    auto band = [&](auto band_c, int64_t r) {
      constexpr int B = decltype(band_c)::value;
      int64_t qi = 0;
      for (; qi + C <= nq; qi += C)
        tile(std::integral_constant<int, B>{}, std::integral_constant<int, C>{}, r, qi);
      for (; qi < nq; ++qi)
        tile(std::integral_constant<int, B>{}, std::integral_constant<int, 1>{}, r, qi);
    };
    int64_t r = 0;
    for (; r + R <= oh; r += R)
      band(std::integral_constant<int, R>{}, r);
    if constexpr (R >= 8)
      if (oh - r >= 4) {
        band(std::integral_constant<int, 4>{}, r);
        r += 4;
      }
    if constexpr (R >= 4)
      if (oh - r >= 2) {
        band(std::integral_constant<int, 2>{}, r);
        r += 2;
      }
    if constexpr (R >= 2)
      if (oh - r >= 1)
        band(std::integral_constant<int, 1>{}, r);
  };
  using I1 = std::integral_constant<int, 1>;
  using I2 = std::integral_constant<int, 2>;
  using I4 = std::integral_constant<int, 4>;
  using I8 = std::integral_constant<int, 8>;
  if (nq >= 8)
    rows(I1{}, I8{});
  else if (nq >= 4)
    rows(I2{}, I4{});
  else if (nq >= 2)
    rows(I4{}, I2{});
  else
    rows(I8{}, I1{});
}

/// Pixels [ox, ox + kPixels) of output row r of a channel-blocked band
/// (see depthwise_block): each tap one vector FMA for all the block's
/// channels, whatever the stride or dilation. kEpilogue: the bias (a vector
/// of the block's channels) and the activation applied in registers.
template <typename Act, bool kEpilogue, int kPixels>
ONNXC_RT_SIMD_INLINE void depthwise_block_pixels(const float *in, const float *wt, int64_t wp,
                                                int64_t kh, int64_t kw, int64_t sh,
                                                int64_t sw, int64_t dh, int64_t dw, int64_t r,
                                                int64_t ox, int64_t ow, VecF bias, float alpha,
                                                float beta, float *out) {
  VecF acc[kPixels];
#pragma GCC unroll 8
  for (int p = 0; p < kPixels; ++p)
    acc[p] = VecF::zero();
  for (int64_t ky = 0; ky < kh; ++ky)
    for (int64_t kx = 0; kx < kw; ++kx) {
      const VecF wv = VecF::load(wt + (ky * kw + kx) * kLanes);
      const float *at = in + ((r * sh + ky * dh) * wp + ox * sw + kx * dw) * kLanes;
#pragma GCC unroll 8
      for (int p = 0; p < kPixels; ++p)
        acc[p] = VecF::fma(VecF::load(at + p * sw * kLanes), wv, acc[p]);
    }
#pragma GCC unroll 8
  for (int p = 0; p < kPixels; ++p) {
    if constexpr (kEpilogue && kVectorActivation<Act>)
      acc[p] = vector_activation<Act>(VecF::add(acc[p], bias), alpha, beta);
    acc[p].store(out + (r * ow + ox + p) * kLanes);
  }
}

/// Depthwise convolution (multiplier 1) of channels [c0, c0 + nc), nc <=
/// kLanes, of one image, channel-blocked: the channels' inputs are
/// transposed into vectors of one pixel's kLanes channels, zero-padded, a
/// band of output rows at a time (depthwise_blocked_shape), so every tap is
/// one vector FMA for the whole block and the lanes stay full however
/// narrow the plane or large the stride; the outputs are transposed back
/// with the epilogue. x, z, y are the image's (z may be null).
template <typename Act>
void depthwise_block(const float *x, const float *w, const float *bias, const float *z,
                     float *y, int64_t h, int64_t wd, int64_t oh, int64_t ow,
                     const int64_t *kernel, const int64_t *strides, const int64_t *pads_begin,
                     const int64_t *dilations, float act_alpha, float act_beta, int64_t c0,
                     int64_t nc, float *scratch) {
  const int64_t kh = kernel[0], kw = kernel[1], sh = strides[0], sw = strides[1];
  const int64_t dh = dilations[0], dw = dilations[1], taps = kh * kw;
  const int64_t pt = pads_begin[0], pl = pads_begin[1];
  const DepthwiseBlocked blk = depthwise_blocked_shape(oh, ow, kh, kw, sh, sw, dh, dw);
  const int64_t wp = blk.in_width;
  float *in = scratch;
  float *out = in + blk.in_rows * wp * kLanes;
  // The block's weights tap by tap, a vector of channels each (the last
  // block's missing channels zero); these are the taps' only loads of W.
  alignas(64) float wt[kDepthwiseMaxTaps * kLanes];
  for (int64_t t = 0; t < taps; ++t)
    for (int64_t j = 0; j < kLanes; ++j)
      wt[t * kLanes + j] = j < nc ? w[(c0 + j) * taps + t] : 0.0f;
  // Without a residual, the epilogue runs on the blocked outputs in
  // registers (bias_v: the block's biases); else on the way back to planes.
  const bool in_registers = kVectorActivation<Act> && !z;
  alignas(64) float bias_lanes[kLanes];
  for (int64_t j = 0; j < kLanes; ++j)
    bias_lanes[j] = bias && j < nc ? bias[c0 + j] : 0.0f;
  const VecF bias_v = VecF::load(bias_lanes);
  const int64_t cols = min64(wd, wp - pl); // input columns any output reads
  for (int64_t r0 = 0; r0 < oh; r0 += blk.band_rows) {
    const int64_t rows = min64(blk.band_rows, oh - r0);
    const int64_t in_rows = (rows - 1) * sh + (kh - 1) * dh + 1;
    // The band's padded input rows: zeros, then the image's columns.
    for (int64_t i = 0; i < in_rows; ++i) {
      float *dst = in + i * wp * kLanes;
      const int64_t ih = r0 * sh - pt + i;
      const bool inside = ih >= 0 && ih < h && cols > 0;
      for (int64_t p = 0; p < wp; ++p)
        if (!inside || p < pl || p >= pl + cols)
          VecF::zero().store(dst + p * kLanes);
      if (!inside)
        continue;
      for (int64_t x0 = 0; x0 < cols; x0 += kLanes) {
        const int64_t n = min64(kLanes, cols - x0);
        VecF v[kLanes];
        for (int64_t j = 0; j < kLanes; ++j) {
          const float *src = x + ((c0 + j) * h + ih) * wd + x0;
          v[j] = j >= nc ? VecF::zero() : n == kLanes ? VecF::load(src) : VecF::load_first(src, n);
        }
        VecF::transpose(v);
        for (int64_t p = 0; p < n; ++p)
          v[p].store(dst + (pl + x0 + p) * kLanes);
      }
    }
    // The band's outputs, eight pixels at a time, then 4, 2, 1.
    auto band = [&](auto epilogue_c) {
      constexpr bool E = decltype(epilogue_c)::value;
      for (int64_t r = 0; r < rows; ++r) {
        int64_t ox = 0;
        for (; ox + 8 <= ow; ox += 8)
          depthwise_block_pixels<Act, E, 8>(in, wt, wp, kh, kw, sh, sw, dh, dw, r, ox, ow,
                                            bias_v, act_alpha, act_beta, out);
        if (ow - ox >= 4) {
          depthwise_block_pixels<Act, E, 4>(in, wt, wp, kh, kw, sh, sw, dh, dw, r, ox, ow,
                                            bias_v, act_alpha, act_beta, out);
          ox += 4;
        }
        if (ow - ox >= 2) {
          depthwise_block_pixels<Act, E, 2>(in, wt, wp, kh, kw, sh, sw, dh, dw, r, ox, ow,
                                            bias_v, act_alpha, act_beta, out);
          ox += 2;
        }
        if (ow - ox >= 1)
          depthwise_block_pixels<Act, E, 1>(in, wt, wp, kh, kw, sh, sw, dh, dw, r, ox, ow,
                                            bias_v, act_alpha, act_beta, out);
      }
    };
    if (in_registers)
      band(std::true_type{});
    else
      band(std::false_type{});
    // Back to planes, kLanes pixels at a time, with the epilogue.
    const int64_t first = r0 * ow, npix = rows * ow;
    for (int64_t p0 = 0; p0 < npix; p0 += kLanes) {
      const int64_t n = min64(kLanes, npix - p0);
      VecF v[kLanes];
      for (int64_t i = 0; i < kLanes; ++i)
        v[i] = i < n ? VecF::load(out + (p0 + i) * kLanes) : VecF::zero();
      VecF::transpose(v);
      if (in_registers) {
        for (int64_t j = 0; j < nc; ++j) {
          float *dst = y + (c0 + j) * oh * ow + first + p0;
          if (n == kLanes)
            v[j].store(dst);
          else
            v[j].store_first(dst, n);
        }
        continue;
      }
      alignas(64) float lanes[kLanes];
      for (int64_t j = 0; j < nc; ++j) {
        Epilogue ep; // channel c0 + j's bias and residual plane
        ep.bias = bias ? bias + c0 + j : nullptr;
        ep.residual = z ? z + (c0 + j) * oh * ow : nullptr;
        ep.act_alpha = act_alpha;
        ep.act_beta = act_beta;
        v[j].store(lanes);
        store_with_epilogue<Act>(lanes, y + (c0 + j) * oh * ow + first + p0, n, ep, 0,
                                 first + p0);
      }
    }
  }
}

/// Depthwise convolution (group == c, m = c * multiplier): each output
/// channel sees one input channel. Where depthwise_is_blocked says so (rows
/// of at most 16 outputs, strides the planes cannot vectorise) a vector's
/// worth of channels at a time runs channel-blocked (depthwise_block).
/// Otherwise each channel is copied once into a zero-padded plane (stride-2
/// planes split into even and odd columns), so every kernel tap reads a
/// contiguous run; outputs are computed a vector at a time in tiles of
/// several vectors (depthwise_cover), each accumulated in a register over
/// all taps. 3x3 and 5x5 kernels at stride 1 or 2 take tiles specialised to
/// them; what neither path vectorises (a multiplier with strides above 2,
/// kernels of more than kDepthwiseMaxTaps taps) takes a scalar path.
/// `tasks` split the channels or channel blocks (run on `runner`, see
/// parallel.h), each with its own scratch. Scratch: tasks *
/// depthwise_scratch_floats(...) floats.
template <typename Act, DepthwiseMethod kMethod = DepthwiseMethod::Any>
void depthwise_conv2d(const float *x, const float *w, const float *bias, const float *z,
                      float *y, const int64_t *in_shape, const int64_t *out_shape,
                      const int64_t *kernel, const int64_t *strides, const int64_t *pads_begin,
                      const int64_t *dilations, float act_alpha, float act_beta,
                      float *scratch, TaskRunner *runner = nullptr, int64_t tasks = 1) {
  const int64_t n = in_shape[0], c = in_shape[1], h = in_shape[2], wd = in_shape[3];
  const int64_t m = out_shape[1], oh = out_shape[2], ow = out_shape[3];
  const int64_t kh = kernel[0], kw = kernel[1], sh = strides[0], sw = strides[1];
  const int64_t dh = dilations[0], dw = dilations[1];
  const int64_t per_task = depthwise_scratch_floats(c, m, oh, ow, kh, kw, sh, sw, dh, dw);
  using M = DepthwiseMethod;
  const M method =
      kMethod != M::Any ? kMethod : depthwise_method(c, m, ow, kh, kw, sh, sw, dh, dw);
  if (method == M::Blocked) {
    const int64_t blocks = (c + kLanes - 1) / kLanes;
    parallel_for(runner, tasks, [&](int64_t task) {
      const Range r = split_range(n * blocks, 1, tasks, task);
      for (int64_t bb = r.begin; bb < r.end; ++bb) {
        const int64_t b = bb / blocks, c0 = bb % blocks * kLanes;
        depthwise_block<Act>(x + b * c * h * wd, w, bias, z ? z + b * m * oh * ow : nullptr,
                             y + b * m * oh * ow, h, wd, oh, ow, kernel, strides, pads_begin,
                             dilations, act_alpha, act_beta, c0, min64(kLanes, c - c0),
                             scratch + task * per_task);
      }
    });
    return;
  }
  const int64_t mult = m / c;
  const int64_t hp = padded_extent(oh, kh, sh, dh), wp = padded_extent(ow, kw, sw, dw);
  // Stride 1: one plane; stride 2 (no dilation): even columns then odd ones
  // per row, each wq wide; other strides read the plane with a stride.
  const bool split = sw == 2 && dw == 1;
  const int64_t wq = split ? (wp + 1) / 2 : wp, row_len = split ? 2 * wq : wp;
  auto tap_offset = [&](int64_t ky, int64_t kx) {
    return ky * dh * row_len + (split ? (kx & 1) * wq + (kx >> 1) : kx * dw);
  };
  // The Taps path reads tap offsets from a table (kernels of up to
  // kDepthwiseMaxTaps taps; larger ones take the scalar path).
  int64_t tap_off[kDepthwiseMaxTaps];
  if (method == M::Taps)
    for (int64_t ky = 0; ky < kh; ++ky)
      for (int64_t kx = 0; kx < kw; ++kx)
        tap_off[ky * kw + kx] = tap_offset(ky, kx);
  const int64_t nq = (ow + kLanes - 1) / kLanes; // output vectors per row
  parallel_for(runner, tasks, [&](int64_t task) {
    float *pad = scratch + task * per_task;
    // The slack past the plane that the last row's partial vectors read.
    for (int64_t t = hp * row_len; t < hp * row_len + kLanes; ++t)
      pad[t] = 0.0f;
    const Range planes = split_range(n * c, 1, tasks, task);
    for (int64_t bc = planes.begin; bc < planes.end; ++bc) {
      const int64_t b = bc / c, ch = bc % c;
      fill_padded_plane(x + bc * h * wd, h, wd, pads_begin[0], pads_begin[1], hp, wp,
                           row_len, wq, split, pad);
      for (int64_t mo = 0; mo < mult; ++mo) {
        const int64_t oc = ch * mult + mo;
        const float *wk = w + oc * kh * kw;
        float *yo = y + (b * m + oc) * oh * ow;
        Epilogue ep; // the channel's: bias[oc] and its plane of the residual
        ep.bias = bias ? bias + oc : nullptr;
        ep.residual = z ? z + (b * m + oc) * oh * ow : nullptr;
        ep.act_alpha = act_alpha;
        ep.act_beta = act_beta;
        auto fixed_tiles = [&](auto k_c, auto s_c) {
          constexpr int K = decltype(k_c)::value, S = decltype(s_c)::value;
          depthwise_cover(oh, nq, [&](auto rows_c, auto cols_c, int64_t r, int64_t qi) {
            depthwise_tile<Act, decltype(rows_c)::value, decltype(cols_c)::value, K, K, S>(
                pad, wk, row_len, wq, r, qi * kLanes, ow, yo, ep);
          });
        };
        using I1 = std::integral_constant<int, 1>;
        using I2 = std::integral_constant<int, 2>;
        using I3 = std::integral_constant<int, 3>;
        using I5 = std::integral_constant<int, 5>;
        if (method == M::K3S1)
          fixed_tiles(I3{}, I1{});
        else if (method == M::K3S2)
          fixed_tiles(I3{}, I2{});
        else if (method == M::K5S1)
          fixed_tiles(I5{}, I1{});
        else if (method == M::K5S2)
          fixed_tiles(I5{}, I2{});
        else if (method == M::Taps)
          depthwise_cover(oh, nq, [&](auto rows_c, auto cols_c, int64_t r, int64_t qi) {
            depthwise_tile_any<Act, decltype(rows_c)::value, decltype(cols_c)::value>(
                pad, wk, kh, kw, tap_off, r, qi * kLanes, sh * row_len, ow, yo, ep);
          });
        else {
          for (int64_t r = 0; r < oh; ++r)
            for (int64_t q = 0; q < ow; ++q) {
              const float *at = pad + r * sh * row_len + q * sw;
              float acc = 0;
              for (int64_t ky = 0; ky < kh; ++ky)
                for (int64_t kx = 0; kx < kw; ++kx)
                  acc += wk[ky * kw + kx] * at[tap_offset(ky, kx)];
              yo[r * ow + q] = acc;
            }
          apply_epilogue<Act>(yo, oh * ow, 1, oh * ow, ep, 0, 0);
        }
      }
    }
  });
}

} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_F32_DEPTHWISE_H
