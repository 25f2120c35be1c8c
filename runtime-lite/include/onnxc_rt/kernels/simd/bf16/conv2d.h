// The bf16 convolution of x86-64-amx's --precision bf16: fp32 tensors in
// and out, the products in bf16 on AMX tiles (TDPBF16PS) with fp32 sums.
// The weights come packed at compile time (simd/bf16/pack.h); each call
// rounds its input to bf16 once, into pair planes (the padded input by
// stride phase, two channels a pixel), from which every tap's operand is a
// tile read in place. A block is 32 output channels by 32 virtual pixels:
// four tiles of sums, each step of 32 input channels at one tap four tile
// loads and four TDPBF16PS (16,384 multiply-adds). The sums go through a
// 32 x 32 stage in memory to the float convolution's epilogue (bias,
// residual, activation: simd/f32/epilogue.h), so only the products'
// operands are rounded. A process the OS does not grant AMX's state (or a
// CPU without AMX-BF16) gets the same sums from AVX-512 FMAs on the same
// operands, slower.
#ifndef ONNXC_RT_SIMD_BF16_CONV2D_H
#define ONNXC_RT_SIMD_BF16_CONV2D_H

#include "onnxc_rt/kernels/simd/bf16/tiles.h"
#include "onnxc_rt/kernels/simd/f32/blocked.h"
#include "onnxc_rt/kernels/simd/f32/epilogue.h"
#include "onnxc_rt/parallel.h"

#include <string.h>

#if ONNXC_RT_SIMD_AMX_BF16

namespace onnxc_rt {
namespace simd {
namespace bf16 {
namespace detail {

/// Pairs [k0, k1) of one group's pair planes `pp` from its input xg (cg
/// channels of h x w), padded by (pt, pl) and split by stride phase.
inline void fill_pair_planes(const float *xg, int64_t cg, int64_t h, int64_t w,
                             const PairPlanes &pp, int64_t sh, int64_t sw, int64_t pt, int64_t pl,
                             int64_t k0, int64_t k1, uint32_t *planes) {
  const int64_t filled = pp.rows * pp.wq;
  for (int64_t k = k0; k < k1; ++k) {
    const int64_t c0 = 2 * k;
    const float *even = c0 < cg ? xg + c0 * h * w : nullptr;
    const float *odd = c0 + 1 < cg ? xg + (c0 + 1) * h * w : nullptr;
    for (int64_t ph = 0; ph < pp.phases; ++ph) {
      const int64_t py = ph / sw, px = ph % sw;
      uint32_t *plane = planes + (k * pp.phases + ph) * pp.plane;
      for (int64_t r = 0; r < pp.rows; ++r) {
        const int64_t iy = r * sh + py - pt;
        uint32_t *row = plane + r * pp.wq;
        if (!even || iy < 0 || iy >= h) {
          memset(row, 0, pp.wq * 4);
          continue;
        }
        for (int64_t u = 0; u < pp.wq; u += 16) {
          const int64_t ix0 = u * sw + px - pl;
          const __m512 e = load_row(even + iy * w, w, ix0, sw);
          const __m512 o = odd ? load_row(odd + iy * w, w, ix0, sw) : _mm512_setzero_ps();
          const __mmask16 live = pp.wq - u >= 16 ? 0xffff : (1u << (pp.wq - u)) - 1;
          _mm512_mask_storeu_epi32(row + u, live, bf16_pairs(e, o));
        }
      }
      memset(plane + filled, 0, (pp.plane - filled) * 4);
    }
  }
}

/// Steps [s0, s1) of a channel-blocked input's pixel planes `pp` (each
/// step: 32 channels, blocks 2 s and 2 s + 1, of every padded pixel by
/// stride phase, 64 bytes a pixel) from xb (c channels of h x w, blocked).
inline void fill_pixel_planes(const float *xb, int64_t c, int64_t h, int64_t w,
                              const PairPlanes &pp, int64_t sh, int64_t sw, int64_t pt,
                              int64_t pl, int64_t s0, int64_t s1, uint16_t *planes) {
  const int64_t blocks = channel_blocks(c), block = h * w * kChannelBlock;
  const int64_t filled = pp.rows * pp.wq;
  for (int64_t s = s0; s < s1; ++s) {
    const float *lo = xb + 2 * s * block;
    const float *hi = 2 * s + 1 < blocks ? lo + block : nullptr;
    for (int64_t ph = 0; ph < pp.phases; ++ph) {
      const int64_t py = ph / sw, px = ph % sw;
      uint16_t *plane = planes + (s * pp.phases + ph) * pp.plane * kStepChannels;
      for (int64_t r = 0; r < pp.rows; ++r) {
        const int64_t iy = r * sh + py - pt;
        for (int64_t u = 0; u < pp.wq; ++u) {
          const int64_t ix = u * sw + px - pl;
          __m256i *d = reinterpret_cast<__m256i *>(plane + (r * pp.wq + u) * kStepChannels);
          if (iy < 0 || iy >= h || ix < 0 || ix >= w) {
            _mm256_storeu_si256(d, _mm256_setzero_si256());
            _mm256_storeu_si256(d + 1, _mm256_setzero_si256());
            continue;
          }
          const int64_t at = (iy * w + ix) * kChannelBlock;
          _mm256_storeu_si256(d, bf16_values(_mm512_loadu_ps(lo + at)));
          _mm256_storeu_si256(d + 1, hi ? bf16_values(_mm512_loadu_ps(hi + at))
                                        : _mm256_setzero_si256());
        }
      }
      memset(plane + filled * kStepChannels, 0, (pp.plane - filled) * kStepChannels * 2);
    }
  }
}

} // namespace detail

/// Y = Act(conv(X, W) + B + Z) for NCHW X (n, c, h, w) and Y (n, m, oh, ow),
/// W packed by pack_conv_weights (bf16), B and Z may be null: the products
/// in bf16, the sums and the epilogue in fp32. `tasks` split each group's
/// blocks (run on `runner`, see parallel.h). Scratch:
/// conv2d_scratch_bytes(...) bytes.
template <typename Act>
void conv2d(const float *x, const uint16_t *w, const float *bias, const float *z, float *y,
            const int64_t *in_shape, const int64_t *out_shape, const int64_t *kernel,
            const int64_t *strides, const int64_t *pads_begin, const int64_t *dilations,
            int64_t group, float act_alpha, float act_beta, uint8_t *scratch,
            TaskRunner *runner = nullptr, int64_t tasks = 1) {
  const int64_t n = in_shape[0], c = in_shape[1], h = in_shape[2], wd = in_shape[3];
  const int64_t m = out_shape[1], oh = out_shape[2], ow = out_shape[3];
  const int64_t kh = kernel[0], kw = kernel[1], sh = strides[0], sw = strides[1];
  const int64_t dh = dilations[0], dw = dilations[1], taps = kh * kw;
  const int64_t cg = c / group, mg = m / group, npix = oh * ow;
  const PairPlanes pp = pair_planes(cg, oh, ow, kh, kw, sh, sw, dh, dw);
  // The weights: steps of 16 channels x 32 inputs (1 KiB), a channel tile
  // all its taps' steps; the input: each tap an offset into the pair planes,
  // a step 16 pairs on, the block's second 16 pixels 64 bytes on.
  const int64_t step_bytes = kTileChannels * kStepChannels * 2;
  const int64_t w_tile = taps * pp.steps * step_bytes;
  int64_t x_off[kMaxTaps], w_off[kMaxTaps];
  for (int64_t t = 0; t < taps; ++t) {
    const int64_t ey = t / kw * dh, ex = t % kw * dw;
    x_off[t] = ((ey % sh * sw + ex % sw) * pp.plane + ey / sh * pp.wq + ex / sw) * 4;
    w_off[t] = t * pp.steps * step_bytes;
  }
  const detail::TileOperand wo{w_off, step_bytes, kStepChannels * 2, w_tile};
  const detail::TileOperand xo{x_off, kStepChannels / 2 * pp.pair_bytes(), pp.pair_bytes(),
                               kTilePixels * 4};
  const int64_t w_group = round_up(mg, kTileChannels) / kTileChannels * w_tile;
  const int64_t mblocks = (mg + 2 * kTileChannels - 1) / (2 * kTileChannels);
  const int64_t pblocks = (pp.cols + kBlockPixels - 1) / kBlockPixels;
  uint32_t *planes = reinterpret_cast<uint32_t *>(scratch);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t g = 0; g < group; ++g) {
      const float *xg = x + (b * c + g * cg) * h * wd;
      const int64_t yoff = (b * m + g * mg) * npix;
      parallel_for(runner, tasks, [&](int64_t t) {
        const Range r = split_range(pp.pairs, 1, tasks, t);
        detail::fill_pair_planes(xg, cg, h, wd, pp, sh, sw, pads_begin[0], pads_begin[1],
                                 r.begin, r.end, planes);
      });
      const Epilogue ep = conv_epilogue(bias, z, g, mg, yoff, npix, act_alpha, act_beta);
      const uint8_t *wg = reinterpret_cast<const uint8_t *>(w) + g * w_group;
      const uint8_t *xp = reinterpret_cast<const uint8_t *>(planes);
      float *yg = y + yoff;
      // Each task a share of the blocks, a block of channels' pixels one
      // after another (its weights stay in cache); a block's virtual pixels
      // past a row's ow are dropped on the way out.
      auto sums = [&](int64_t u, bool tiles, float *stage) {
        const int64_t mt = u / pblocks * 2 * kTileChannels, q0 = u % pblocks * kBlockPixels;
        detail::block_sums(tiles, mg - mt > kTileChannels ? 2 : 1,
                           pp.cols - q0 > kTilePixels ? 2 : 1, wg + mt / kTileChannels * w_tile,
                           wo, xp + q0 * 4, xo, taps, pp.steps, stage);
      };
      auto store = [&](int64_t u, const float *stage) {
        const int64_t mt = u / pblocks * 2 * kTileChannels, q0 = u % pblocks * kBlockPixels;
        const int64_t live = min64(2 * kTileChannels, mg - mt);
        const int64_t q1 = min64(q0 + kBlockPixels, pp.cols);
        for (int64_t q = q0; q < q1;) {
          const int64_t oy = q / pp.wq, ox = q % pp.wq;
          if (ox >= ow) {
            q += pp.wq - ox;
            continue;
          }
          const int64_t len = min64(ow - ox, q1 - q), pix = oy * ow + ox;
          for (int64_t i = 0; i < live; ++i)
            store_with_epilogue<Act>(stage + i * kBlockPixels + (q - q0),
                                     yg + (mt + i) * npix + pix, len, ep, mt + i, pix);
          q += len;
        }
      };
      parallel_for(runner, tasks, [&](int64_t t) {
        const Range r = split_range(mblocks * pblocks, 1, tasks, t);
        detail::run_blocks(r.begin, r.end, sums, store);
      });
    }
}

/// Y = Act(conv(X, W) + B + Z) for channel-blocked X, Y and Z (Z may be
/// null; group 1; shapes the logical NCHW ones), W packed by
/// pack_blocked_conv_weights (bf16), B may be null: the products in bf16,
/// the sums and the epilogue in fp32, as conv2d. The input is taken first
/// (pixel planes), so a tile of sums is 16 pixels by 16 channels and each
/// pixel's row of it one blocked output vector (simd/f32/blocked.h's
/// epilogue, padding lanes finite). `tasks` split the blocks. Scratch:
/// conv2d_scratch_bytes(...) bytes.
template <typename Act>
void conv2d_blocked(const float *x, const uint16_t *w, const float *bias, const float *z,
                    float *y, const int64_t *in_shape, const int64_t *out_shape,
                    const int64_t *kernel, const int64_t *strides, const int64_t *pads_begin,
                    const int64_t *dilations, float act_alpha, float act_beta, uint8_t *scratch,
                    TaskRunner *runner = nullptr, int64_t tasks = 1) {
  const int64_t n = in_shape[0], c = in_shape[1], h = in_shape[2], wd = in_shape[3];
  const int64_t m = out_shape[1], oh = out_shape[2], ow = out_shape[3];
  const int64_t kh = kernel[0], kw = kernel[1], sh = strides[0], sw = strides[1];
  const int64_t dh = dilations[0], dw = dilations[1], taps = kh * kw, npix = oh * ow;
  const PairPlanes pp = pair_planes(c, oh, ow, kh, kw, sh, sw, dh, dw);
  // The input: each tap an offset into the pixel planes, a step all the
  // phases' planes on, rows a pixel (64 bytes) apart, the block's second
  // 16 pixels 1 KiB on; the weights: steps of 32 inputs x 16 channels
  // (1 KiB), a channel tile all its taps' steps.
  const int64_t step_bytes = kTileChannels * kStepChannels * 2, pixel_bytes = kStepChannels * 2;
  const int64_t w_tile = taps * pp.steps * step_bytes;
  int64_t x_off[kMaxTaps], w_off[kMaxTaps];
  for (int64_t t = 0; t < taps; ++t) {
    const int64_t ey = t / kw * dh, ex = t % kw * dw;
    x_off[t] = ((ey % sh * sw + ex % sw) * pp.plane + ey / sh * pp.wq + ex / sw) * pixel_bytes;
    w_off[t] = t * pp.steps * step_bytes;
  }
  const detail::TileOperand xo{x_off, pp.phases * pp.plane * pixel_bytes, pixel_bytes,
                               kTilePixels * pixel_bytes};
  const detail::TileOperand wo{w_off, step_bytes, kTileChannels * 4, w_tile};
  const int64_t mp = channel_blocks(m) * kChannelBlock;
  const int64_t mblocks = (mp + 2 * kTileChannels - 1) / (2 * kTileChannels);
  const int64_t pblocks = (pp.cols + kBlockPixels - 1) / kBlockPixels;
  const int64_t in_image = channel_blocks(c) * kChannelBlock * h * wd, out_image = mp * npix;
  uint16_t *planes = reinterpret_cast<uint16_t *>(scratch);
  const uint8_t *xp = scratch, *wb = reinterpret_cast<const uint8_t *>(w);
  for (int64_t b = 0; b < n; ++b) {
    parallel_for(runner, tasks, [&](int64_t t) {
      const Range r = split_range(pp.steps, 1, tasks, t);
      detail::fill_pixel_planes(x + b * in_image, c, h, wd, pp, sh, sw, pads_begin[0],
                                pads_begin[1], r.begin, r.end, planes);
    });
    const float *zb = z ? z + b * out_image : nullptr;
    float *yb = y + b * out_image;
    // Each task a share of the blocks, a block of channels' pixels one
    // after another (its weights stay in cache); a block's virtual pixels
    // past a row's ow are dropped on the way out.
    auto sums = [&](int64_t u, bool tiles, float *stage) {
      const int64_t mt = u / pblocks * 2 * kTileChannels, q0 = u % pblocks * kBlockPixels;
      detail::block_sums(tiles, pp.cols - q0 > kTilePixels ? 2 : 1,
                         mp - mt > kTileChannels ? 2 : 1, xp + q0 * pixel_bytes, xo,
                         wb + mt / kTileChannels * w_tile, wo, taps, pp.steps, stage);
    };
    auto store = [&](int64_t u, const float *stage) {
      const int64_t mt = u / pblocks * 2 * kTileChannels, q0 = u % pblocks * kBlockPixels;
      const int64_t q1 = min64(q0 + kBlockPixels, pp.cols);
      const int64_t vecs = min64(2, (mp - mt) / kChannelBlock);
      VecF bl[2];
      for (int64_t v = 0; v < vecs; ++v)
        bl[v] = bias_lanes(bias, mt + v * kChannelBlock, m);
      // Virtual pixel q is output (oy, ox) where ox < ow: stepped, not
      // divided per pixel.
      for (int64_t q = q0, oy = q0 / pp.wq, ox = q0 % pp.wq; q < q1; ++q) {
        if (ox < ow) {
          const int64_t pix = oy * ow + ox;
          for (int64_t v = 0; v < vecs; ++v) {
            const int64_t at =
                (mt / kChannelBlock + v) * npix * kChannelBlock + pix * kChannelBlock;
            blocked_store<Act>(VecF::load(stage + (q - q0) * kBlockPixels + v * kChannelBlock),
                               bl[v], zb ? zb + at : nullptr, yb + at, act_alpha, act_beta);
          }
        }
        if (++ox == pp.wq) {
          ox = 0;
          ++oy;
        }
      }
    };
    parallel_for(runner, tasks, [&](int64_t t) {
      const Range r = split_range(mblocks * pblocks, 1, tasks, t);
      detail::run_blocks(r.begin, r.end, sums, store);
    });
  }
}

} // namespace bf16
} // namespace simd
} // namespace onnxc_rt

#endif
#endif // ONNXC_RT_SIMD_BF16_CONV2D_H
