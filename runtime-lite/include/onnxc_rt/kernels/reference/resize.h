// Reference N-d Resize, following the ONNX reference implementation: each
// output coordinate maps to an input coordinate (coordinate_transformation_mode),
// which takes 1-D weights over its neighbours (nearest: 2, linear: 2,
// cubic: 4, edge-clamped); the N-d value is the product of the 1-D weights.
// One output element's rule (detail::resize_element) serves the host loop
// and the CUDA kernel (kernels/cuda/resize.cuh).
#ifndef ONNXC_RT_REF_RESIZE_H
#define ONNXC_RT_REF_RESIZE_H

#include <math.h>

#include "onnxc_rt/base.h"

namespace onnxc_rt {
namespace ref {

enum ResizeMode : int64_t { kResizeNearest = 0, kResizeLinear = 1, kResizeCubic = 2 };
enum ResizeCoord : int64_t {
  kHalfPixel = 0, kAsymmetric = 1, kPytorchHalfPixel = 2, kAlignCorners = 3,
  kTfCropAndResize = 4, kHalfPixelSymmetric = 5, kTfHalfPixelForNn = 6
};
enum ResizeNearest : int64_t {
  kRoundPreferFloor = 0, kRoundPreferCeil = 1, kFloor = 2, kCeil = 3
};

namespace detail {

/// Input coordinate for output coordinate `x` of one dim; false when it
/// falls outside the crop (tf_crop_and_resize extrapolates).
ONNXC_RT_HD inline bool resize_source(double x, int64_t in, int64_t out, double scale,
                                      int64_t coord, double roi_start, double roi_end,
                                      double *src) {
  const double out_width = scale * double(in);
  double s;
  switch (coord) {
  case kAlignCorners:
    s = out_width == 1 ? 0.0 : x * double(in - 1) / (out_width - 1);
    break;
  case kAsymmetric:
    s = x / scale;
    break;
  case kTfCropAndResize:
    s = out_width == 1 ? (roi_end - roi_start) * double(in - 1) / 2
                       : x * (roi_end - roi_start) * double(in - 1) / (out_width - 1);
    s += roi_start * double(in - 1);
    *src = s;
    return s >= 0 && s <= double(in - 1);
  case kPytorchHalfPixel:
    s = out_width == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    break;
  case kHalfPixelSymmetric: {
    const double adjustment = double(out) / out_width;
    const double center = double(in) / 2;
    s = center * (1 - adjustment) + (x + 0.5) / scale - 0.5;
    break;
  }
  case kTfHalfPixelForNn:
    s = (x + 0.5) / scale;
    break;
  default: // half_pixel
    s = (x + 0.5) / scale - 0.5;
  }
  *src = s;
  return true;
}

/// The n (2 or 4) weights and the first neighbour index for source
/// coordinate `s`; neighbour indices are clamped to [0, in) by the caller.
ONNXC_RT_HD inline int64_t resize_weights(double s, int64_t in, int64_t mode,
                                          int64_t nearest, double cubic_a,
                                          int64_t exclude_outside, double *w, int64_t *first) {
  const double f = floor(s);
  const bool integral = f == s;
  const double ratio = integral ? 1.0 : s - f;
  int64_t n = 2;
  if (mode == kResizeNearest) {
    if (integral) {
      w[0] = 0;
      w[1] = 1;
    } else if (nearest == kRoundPreferFloor) {
      w[0] = ratio <= 0.5;
      w[1] = ratio > 0.5;
    } else if (nearest == kRoundPreferCeil) {
      w[0] = ratio < 0.5;
      w[1] = ratio >= 0.5;
    } else if (nearest == kFloor) {
      w[0] = 1;
      w[1] = 0;
    } else {
      w[0] = 0;
      w[1] = 1;
    }
  } else if (mode == kResizeLinear) {
    w[0] = 1 - ratio;
    w[1] = ratio;
  } else {
    n = 4;
    const double A = cubic_a, r = ratio, q = 1 - ratio;
    w[0] = ((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A;
    w[1] = ((A + 2) * r - (A + 3)) * r * r + 1;
    w[2] = ((A + 2) * q - (A + 3)) * q * q + 1;
    w[3] = ((A * (q + 1) - 5 * A) * (q + 1) + 8 * A) * (q + 1) - 4 * A;
  }
  // The n nearest indices, ties to the smaller: a window ending at or just
  // after s.
  *first = (integral ? int64_t(s) : int64_t(f) + 1) - n / 2;
  if (exclude_outside) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      int64_t idx = *first + i;
      if (idx < 0 || idx >= in)
        w[i] = 0;
      sum += w[i];
    }
    for (int64_t i = 0; i < n; ++i)
      w[i] = sum != 0 ? w[i] / sum : 0;
  }
  return n;
}

/// The output element at coordinates idx[0..rank) (in_strides: the
/// input's row-major strides).
template <typename T>
ONNXC_RT_HD inline T resize_element(const T *x, int64_t rank, const int64_t *in_shape,
                                    const int64_t *in_strides, const int64_t *out_shape,
                                    const int64_t *idx, const double *scales, const double *roi,
                                    int64_t mode, int64_t coord, int64_t nearest, float cubic_a,
                                    int64_t exclude_outside, float extrapolation_value) {
  double w[kMaxRank][4];
  int64_t first[kMaxRank], n[kMaxRank];
  bool outside = false;
  for (int64_t d = 0; d < rank; ++d) {
    double s;
    if (!resize_source(double(idx[d]), in_shape[d], out_shape[d], scales[d], coord, roi[d],
                       roi[rank + d], &s))
      outside = true;
    n[d] = resize_weights(s, in_shape[d], mode, nearest, cubic_a, exclude_outside, w[d],
                          &first[d]);
  }
  if (outside)
    return T(extrapolation_value);
  // Sum over the neighbour grid, skipping zero weights.
  double acc = 0;
  int64_t k[kMaxRank] = {};
  for (;;) {
    double weight = 1;
    int64_t off = 0;
    for (int64_t d = 0; d < rank && weight != 0; ++d) {
      weight *= w[d][k[d]];
      int64_t i = first[d] + k[d];
      i = i < 0 ? 0 : i >= in_shape[d] ? in_shape[d] - 1 : i;
      off += i * in_strides[d];
    }
    if (weight != 0)
      acc += weight * double(x[off]);
    int64_t d = rank - 1;
    for (; d >= 0; --d) {
      if (++k[d] < n[d])
        break;
      k[d] = 0;
    }
    if (d < 0)
      break;
  }
  return T(acc);
}

} // namespace detail

/// scales and roi (2 * rank: starts then ends) are per dim, in double as
/// in the ONNX reference.
template <typename T>
void resize(const T *x, T *y, int64_t rank, const int64_t *in_shape,
            const int64_t *out_shape, const double *scales, const double *roi,
            int64_t mode, int64_t coord, int64_t nearest, float cubic_a,
            int64_t exclude_outside, float extrapolation_value) {
  int64_t in_strides[kMaxRank];
  {
    int64_t s = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      in_strides[d] = s;
      s *= in_shape[d];
    }
  }
  const int64_t total = product(out_shape, rank);
  int64_t idx[kMaxRank] = {};
  for (int64_t o = 0; o < total; ++o) {
    y[o] = detail::resize_element(x, rank, in_shape, in_strides, out_shape, idx, scales, roi,
                                  mode, coord, nearest, cubic_a, exclude_outside,
                                  extrapolation_value);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < out_shape[d])
        break;
      idx[d] = 0;
    }
  }
}

} // namespace ref
} // namespace onnxc_rt

#endif
