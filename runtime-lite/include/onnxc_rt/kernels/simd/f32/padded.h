// Zero-padded copies of float planes for the SIMD convolutions
// (simd/f32/conv.h, depthwise.h, blocked.h): a direct convolution's phase
// planes and one channel's padded plane, each float written once, a whole
// vector at a time.
#ifndef ONNXC_RT_SIMD_F32_PADDED_H
#define ONNXC_RT_SIMD_F32_PADDED_H

#include "onnxc_rt/kernels/simd/f32/gemm.h"

namespace onnxc_rt {
namespace simd {

/// Copies channels [c0, c1) of x (h x w each) into a direct convolution's phase
/// planes (DirectConvShape: channel c's phase (ry, rx) at
/// ((c * sh + ry) * sw + rx) * hq * wq), zeros where they overhang the input.
inline void fill_phase_planes(const float *x, int64_t c0, int64_t c1, int64_t h, int64_t w,
                              const DirectConvShape &d, int64_t sh, int64_t sw, int64_t ph,
                              int64_t pw, float *planes) {
  // Plane columns [b0, b1) of phase rx hold input columns b * sw + rx - pw.
  auto first_at_least = [&](int64_t rx, int64_t col) {
    const int64_t num = col + pw - rx;
    return num <= 0 ? 0 : min64(d.wq, (num + sw - 1) / sw);
  };
  float *dst = planes + c0 * sh * sw * d.hq * d.wq;
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t ry = 0; ry < sh; ++ry)
      for (int64_t rx = 0; rx < sw; ++rx) {
        const int64_t b0 = first_at_least(rx, 0), b1 = first_at_least(rx, w);
        for (int64_t a = 0; a < d.hq; ++a, dst += d.wq) {
          const int64_t ih = a * sh + ry - ph;
          if (ih < 0 || ih >= h) {
            for (int64_t b = 0; b < d.wq; ++b)
              dst[b] = 0.0f;
            continue;
          }
          const float *row = x + (c * h + ih) * w;
          for (int64_t b = 0; b < b0; ++b)
            dst[b] = 0.0f;
          for (int64_t b = b0; b < b1; ++b)
            dst[b] = row[b * sw + rx - pw];
          for (int64_t b = b1; b < d.wq; ++b)
            dst[b] = 0.0f;
        }
      }
}

/// dst[j] = src[(j - j0) * step] for j in [j0, j0 + count), zero for the
/// rest of [0, width) (step 1, or 2: every other float). Whole vectors: the
/// zeros may run up to a vector past width, into what the caller writes
/// next; loads read nothing past the count elements taken.
inline void fill_padded_run(float *dst, int64_t width, int64_t j0, int64_t count,
                            const float *src, int64_t step) {
  for (int64_t j = 0; j < j0; j += kLanes) // the data overwrites what runs past j0
    VecF::zero().store(dst + j);
  // Whole vectors while another follows (so a step-2 load of 2 * kLanes
  // floats stays inside the run), then the last one masked.
  int64_t t = 0;
  for (; t + kLanes < count; t += kLanes) {
    if (step == 1) {
      VecF::load(src + t).store(dst + j0 + t);
    } else {
      VecF even, odd;
      VecF::deinterleave(VecF::load(src + 2 * t), VecF::load(src + 2 * t + kLanes), even, odd);
      even.store(dst + j0 + t);
    }
  }
  if (t < count) {
    const int64_t n = count - t;
    VecF v;
    if (step == 1) {
      v = VecF::load_first(src + t, n);
    } else { // the even lanes of the 2n - 1 floats from src[2t]
      const int64_t floats = 2 * n - 1;
      const float *at = src + 2 * t;
      const VecF a = floats >= kLanes ? VecF::load(at) : VecF::load_first(at, floats);
      const VecF b = floats > kLanes ? VecF::load_first(at + kLanes, floats - kLanes)
                                     : VecF::zero();
      VecF odd;
      VecF::deinterleave(a, b, v, odd);
    }
    v.store_first(dst + j0 + t, n);
  }
  for (int64_t j = j0 + (count > 0 ? count : 0); j < width; j += kLanes)
    VecF::zero().store(dst + j);
}

/// Copies one input channel (h x wd) into its zero-padded plane: hp rows of
/// row_len floats, padded column q of row r holding input (r - pt, q - pl);
/// a split plane (stride 2) holds a row's even padded columns, then from wq
/// on its odd ones. Each float is written once (padding zeros and data), a
/// whole vector at a time; input columns past the padded width wp (which
/// no output reads) are left out.
inline void fill_padded_plane(const float *src, int64_t h, int64_t wd, int64_t pt, int64_t pl,
                              int64_t hp, int64_t wp, int64_t row_len, int64_t wq, bool split,
                              float *pad) {
  const int64_t cols = min64(wd, wp - pl);
  // Rows in order: a row's trailing zeros may run into the next row.
  for (int64_t r = 0; r < hp; ++r) {
    float *dst = pad + r * row_len;
    const int64_t ih = r - pt;
    if (ih < 0 || ih >= h || cols <= 0) {
      fill_padded_run(dst, row_len, 0, 0, nullptr, 1);
      continue;
    }
    const float *row = src + ih * wd;
    if (!split) {
      fill_padded_run(dst, row_len, pl, cols, row, 1);
      continue;
    }
    // Half hf holds padded columns 2j + hf: its data starts at the first j
    // with 2j + hf >= pl, input column s = 2 * j0 + hf - pl (0 or 1). The
    // even half first: its trailing zeros may run into the odd one.
    for (int64_t hf = 0; hf < 2; ++hf) {
      const int64_t j0 = (pl - hf + 1) / 2, s = 2 * j0 + hf - pl;
      const int64_t count = min64(wq - j0, (cols - s + 1) / 2);
      fill_padded_run(dst + hf * wq, wq, j0, count, row + s, 2);
    }
  }
}

} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_F32_PADDED_H
