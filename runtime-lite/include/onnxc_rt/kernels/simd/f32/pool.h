// SIMD 2-D max pooling (NCHW, float): the column maxima of each output row's
// window rows, then the row maxima across them in whole vectors
// (row_max_vectors). The blocked (NCHW16c) pools are in blocked.h, the int8
// ones in qs8.h.
#ifndef ONNXC_RT_SIMD_F32_POOL_H
#define ONNXC_RT_SIMD_F32_POOL_H

#include "onnxc_rt/kernels/simd/f32/gemm.h"

namespace onnxc_rt {
namespace simd {

/// Input columns max_pool2d takes a row's column maxima of at a time.
constexpr int64_t kMaxPoolChunk = 1024;

/// out[q] = the maximum of cm[base + q * sw + kx * dw] over kx < kw, for q
/// < n, whole vectors at a time (the last one masked), every window inside
/// cm's `cols` floats; stride 1, or 2 undilated (cm then split into its even
/// and odd elements first). The first tap starts the maximum and only a
/// greater value replaces it, as ref::max_pool.
inline void row_max_vectors(const float *cm, int64_t cols, int64_t base, int64_t n, int64_t kw,
                            int64_t sw, int64_t dw, float *out) {
  // Stride 2: tap kx of output q is element j = base + 2q + kx, which is
  // half[j & 1][j >> 1]: per tap a contiguous run again.
  float halves[2][kMaxPoolChunk / 2 + kLanes];
  if (sw == 2) {
    for (int64_t i = 0; 2 * i < cols; i += kLanes) {
      const int64_t left = cols - 2 * i; // floats from cm[2i]
      const VecF a = left >= kLanes ? VecF::load(cm + 2 * i) : VecF::load_first(cm + 2 * i, left);
      const VecF b = left >= 2 * kLanes ? VecF::load(cm + 2 * i + kLanes)
                     : left > kLanes    ? VecF::load_first(cm + 2 * i + kLanes, left - kLanes)
                                        : VecF::zero();
      VecF even, odd;
      VecF::deinterleave(a, b, even, odd);
      even.store(halves[0] + i);
      odd.store(halves[1] + i);
    }
  }
  auto tap = [&](int64_t kx) {
    const int64_t j = base + kx * dw;
    return sw == 1 ? cm + j : halves[j & 1] + (j >> 1);
  };
  for (int64_t q = 0; q < n; q += kLanes) {
    const int64_t lanes = min64(kLanes, n - q);
    auto load = [&](const float *p) {
      return lanes == kLanes ? VecF::load(p + q) : VecF::load_first(p + q, lanes);
    };
    VecF best = load(tap(0));
    for (int64_t kx = 1; kx < kw; ++kx)
      best = VecF::max(load(tap(kx)), best);
    if (lanes == kLanes)
      best.store(out + q);
    else
      best.store_first(out + q, lanes);
  }
}

/// 2-D max pooling without indices. Each output row takes the maximum down
/// the window's in-bounds input rows first (a vector loop into a stack row),
/// then across the window's columns of that row (whole vectors of outputs
/// where the windows lie inside the row and the stride is 1 or 2:
/// row_max_vectors). Within a column or a row
/// the first element starts the maximum and only a greater one replaces it,
/// as ref::max_pool does over the whole window; the two orders agree except
/// where a window holds a NaN.
template <typename T>
void max_pool2d(const T *x, T *y, const int64_t *in_shape, const int64_t *out_shape,
                const int64_t *kernel, const int64_t *strides, const int64_t *pads_begin,
                const int64_t *dilations) {
  const int64_t planes = in_shape[0] * in_shape[1], h = in_shape[2], wd = in_shape[3];
  const int64_t oh = out_shape[2], ow = out_shape[3];
  const int64_t kh = kernel[0], kw = kernel[1], sh = strides[0], sw = strides[1];
  const int64_t dh = dilations[0], dw = dilations[1];
  // First tap index at or after 0 / count of taps inside [0, extent).
  auto first_tap = [](int64_t start, int64_t d) { return start >= 0 ? 0 : (-start + d - 1) / d; };
  auto end_tap = [](int64_t start, int64_t d, int64_t k, int64_t extent) {
    const int64_t last = extent - 1 - start; // largest in-bounds offset
    return last < 0 ? 0 : min64(k, last / d + 1);
  };
  // Column maxima of up to kChunk input columns at a time: the output
  // columns of a chunk are those whose windows fit in it.
  constexpr int64_t kChunk = kMaxPoolChunk;
  const int64_t span = (kw - 1) * dw + 1;
  const int64_t per_chunk = span > kChunk ? 1 : (kChunk - span) / sw + 1;
  T colmax[kChunk];
  for (int64_t p = 0; p < planes; ++p) {
    const T *plane = x + p * h * wd;
    T *out = y + p * oh * ow;
    for (int64_t r = 0; r < oh; ++r) {
      const int64_t h0 = r * sh - pads_begin[0];
      const int64_t ky0 = first_tap(h0, dh), ky1 = end_tap(h0, dh, kh, h);
      for (int64_t qa = 0; qa < ow; qa += per_chunk) {
        const int64_t qb = min64(ow, qa + per_chunk);
        // Input columns [c0, c1) under the chunk's windows, clipped.
        const int64_t c0 = qa * sw - pads_begin[1] > 0 ? qa * sw - pads_begin[1] : 0;
        const int64_t c1 = min64(wd, (qb - 1) * sw - pads_begin[1] + span);
        if (span > kChunk || ky0 >= ky1 || c1 <= c0) { // rare: no stack row
          for (int64_t q = qa; q < qb; ++q) {
            const int64_t w0 = q * sw - pads_begin[1];
            const int64_t kx0 = first_tap(w0, dw), kx1 = end_tap(w0, dw, kw, wd);
            bool found = false;
            T best = T(0);
            for (int64_t ky = ky0; ky < ky1; ++ky)
              for (int64_t kx = kx0; kx < kx1; ++kx) {
                const T v = plane[(h0 + ky * dh) * wd + w0 + kx * dw];
                if (!found || v > best) {
                  best = v;
                  found = true;
                }
              }
            out[r * ow + q] = best;
          }
          continue;
        }
        const int64_t cols = c1 - c0;
        const T *first = plane + (h0 + ky0 * dh) * wd + c0;
        for (int64_t i = 0; i < cols; ++i)
          colmax[i] = first[i];
        for (int64_t ky = ky0 + 1; ky < ky1; ++ky) {
          const T *row = plane + (h0 + ky * dh) * wd + c0;
          for (int64_t i = 0; i < cols; ++i)
            colmax[i] = row[i] > colmax[i] ? row[i] : colmax[i];
        }
        auto row_max = [&](int64_t q) {
          const int64_t w0 = q * sw - pads_begin[1];
          const int64_t kx0 = first_tap(w0, dw), kx1 = end_tap(w0, dw, kw, wd);
          const T *cm = colmax + (w0 - c0);
          T best = kx0 < kx1 ? cm[kx0 * dw] : T(0);
          for (int64_t kx = kx0 + 1; kx < kx1; ++kx)
            best = cm[kx * dw] > best ? cm[kx * dw] : best;
          out[r * ow + q] = best;
        };
        // Columns whose windows lie wholly inside the chunk's input columns
        // take whole vectors (float, stride 1 or 2 undilated), the rest
        // row_max.
        int64_t v0 = qb, v1 = qb;
        if constexpr (std::is_same_v<T, float>) {
          if (sw == 1 || (sw == 2 && dw == 1)) {
            v0 = min64(qb, (pads_begin[1] + c0 + sw - 1) / sw);
            v0 = v0 < qa ? qa : v0;
            const int64_t last = c1 - span + pads_begin[1]; // sw * the last q
            v1 = last < 0 ? v0 : min64(qb, last / sw + 1);
            v1 = v1 < v0 ? v0 : v1;
          }
          if (v0 < v1)
            row_max_vectors(colmax, cols, v0 * sw - pads_begin[1] - c0, v1 - v0, kw, sw, dw,
                            out + r * ow + v0);
        }
        for (int64_t q = qa; q < v0; ++q)
          row_max(q);
        for (int64_t q = v1; q < qb; ++q)
          row_max(q);
      }
    }
  }
}

} // namespace simd
} // namespace onnxc_rt

#endif
