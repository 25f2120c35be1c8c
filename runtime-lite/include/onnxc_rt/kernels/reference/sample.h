// Reference sampling kernels: GridSample (PyTorch's grid_sample semantics,
// which ONNX adopted) and RoiAlign (ONNX Runtime's, which the ONNX reference
// mirrors).
#ifndef ONNXC_RT_REF_SAMPLE_H
#define ONNXC_RT_REF_SAMPLE_H

#include <cmath>

#include "onnxc_rt/base.h"

namespace onnxc_rt {
namespace ref {

namespace detail {
ONNXC_RT_HD inline double grid_unnormalize(double c, int64_t size, int64_t align) {
  return align ? (c + 1) / 2 * double(size - 1) : ((c + 1) * double(size) - 1) / 2;
}
ONNXC_RT_HD inline double reflect_coordinate(double c, double twice_low, double twice_high) {
  if (twice_low == twice_high)
    return 0;
  const double lo = twice_low / 2, span = (twice_high - twice_low) / 2;
  c = std::fabs(c - lo);
  const double extra = std::fmod(c, span);
  const int64_t flips = int64_t(std::floor(c / span));
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}
/// padding: 0 zeros, 1 border, 2 reflection.
ONNXC_RT_HD inline double grid_pad(double c, int64_t size, int64_t padding, int64_t align) {
  if (padding == 1) {
    c = c < 0 ? 0 : c > double(size - 1) ? double(size - 1) : c;
  } else if (padding == 2) {
    c = align ? reflect_coordinate(c, 0, 2.0 * double(size - 1))
              : reflect_coordinate(c, -1, 2.0 * double(size) - 1);
    c = c < 0 ? 0 : c > double(size - 1) ? double(size - 1) : c;
  }
  return c;
}
template <typename T>
ONNXC_RT_HD inline double grid_value(const T *plane, int64_t h, int64_t w, int64_t y, int64_t x) {
  return (y >= 0 && y < h && x >= 0 && x < w) ? double(plane[y * w + x]) : 0.0;
}
ONNXC_RT_HD inline double cubic1(double x, double a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
ONNXC_RT_HD inline double cubic2(double x, double a) {
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

/// The grid point (g[0], g[1]) (normalised x, y) in pixels of an h x w
/// plane: unnormalised, and padded except for bicubic, whose taps are
/// padded one by one (host and CUDA).
template <typename T>
ONNXC_RT_HD inline void grid_point(const T *g, int64_t h, int64_t w, int64_t mode,
                                   int64_t padding, int64_t align, double &gx, double &gy) {
  gx = grid_unnormalize(double(g[0]), w, align);
  gy = grid_unnormalize(double(g[1]), h, align);
  if (mode != 2) {
    gx = grid_pad(gx, w, padding, align);
    gy = grid_pad(gy, h, padding, align);
  }
}

/// One plane's value at grid point (gx, gy). mode: 0 bilinear, 1 nearest,
/// 2 bicubic (host and CUDA).
template <typename T>
ONNXC_RT_HD inline double grid_sample_at(const T *plane, int64_t h, int64_t w, double gx,
                                         double gy, int64_t mode, int64_t padding,
                                         int64_t align) {
  if (mode == 1)
    return grid_value(plane, h, w, int64_t(std::nearbyint(gy)), int64_t(std::nearbyint(gx)));
  const double x0 = std::floor(gx), y0 = std::floor(gy);
  if (mode == 0) {
    const double dx = gx - x0, dy = gy - y0;
    const int64_t ix = int64_t(x0), iy = int64_t(y0);
    return grid_value(plane, h, w, iy, ix) * (1 - dx) * (1 - dy) +
           grid_value(plane, h, w, iy, ix + 1) * dx * (1 - dy) +
           grid_value(plane, h, w, iy + 1, ix) * (1 - dx) * dy +
           grid_value(plane, h, w, iy + 1, ix + 1) * dx * dy;
  }
  // bicubic: 4x4 taps, each tap index padded on its own
  const double tx = gx - x0, ty = gy - y0, a = -0.75;
  const double cx[4] = {cubic2(tx + 1, a), cubic1(tx, a), cubic1(1 - tx, a), cubic2(2 - tx, a)};
  const double cy[4] = {cubic2(ty + 1, a), cubic1(ty, a), cubic1(1 - ty, a), cubic2(2 - ty, a)};
  double v = 0;
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t q = 0; q < 4; ++q) {
      const double py = grid_pad(y0 - 1 + r, h, padding, align);
      const double px = grid_pad(x0 - 1 + q, w, padding, align);
      v += cy[r] * cx[q] * grid_value(plane, h, w, int64_t(py), int64_t(px));
    }
  return v;
}
} // namespace detail

/// X (N, C, H, W) sampled at grid (N, Ho, Wo, 2) of normalised (x, y).
/// mode: 0 bilinear, 1 nearest, 2 bicubic.
template <typename T>
void grid_sample(const T *x, const T *grid, T *y, int64_t n, int64_t c, int64_t h,
                 int64_t w, int64_t ho, int64_t wo, int64_t mode, int64_t padding,
                 int64_t align) {
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < ho; ++i)
      for (int64_t j = 0; j < wo; ++j) {
        double gx, gy;
        detail::grid_point(grid + ((b * ho + i) * wo + j) * 2, h, w, mode, padding, align, gx,
                           gy);
        for (int64_t ch = 0; ch < c; ++ch)
          y[((b * c + ch) * ho + i) * wo + j] = T(detail::grid_sample_at(
              x + (b * c + ch) * h * w, h, w, gx, gy, mode, padding, align));
      }
}

namespace detail {
/// RoiAlign's output (r, ch, ph, pw): the roi's bin at (ph, pw) sampled on
/// its grid of bilinear points in double, averaged (mode 0) or maxed
/// (host and CUDA).
template <typename T, typename I>
ONNXC_RT_HD inline T roi_align_one(const T *x, const T *rois, const I *batch_indices, int64_t c,
                                   int64_t h, int64_t w, int64_t out_h, int64_t out_w,
                                   int64_t sampling_ratio, float spatial_scale, int64_t mode,
                                   int64_t half_pixel, int64_t r, int64_t ch, int64_t ph,
                                   int64_t pw) {
  const double offset = half_pixel ? 0.5 : 0.0;
  const T *roi = rois + r * 4;
  const int64_t b = static_cast<int64_t>(batch_indices[r]);
  const double sw = double(roi[0]) * spatial_scale - offset;
  const double sh = double(roi[1]) * spatial_scale - offset;
  double rw = double(roi[2]) * spatial_scale - offset - sw;
  double rh = double(roi[3]) * spatial_scale - offset - sh;
  if (!half_pixel) {
    rw = rw > 1 ? rw : 1;
    rh = rh > 1 ? rh : 1;
  }
  const double bin_h = rh / double(out_h), bin_w = rw / double(out_w);
  const int64_t gh = sampling_ratio > 0 ? sampling_ratio : int64_t(std::ceil(rh / double(out_h)));
  const int64_t gw = sampling_ratio > 0 ? sampling_ratio : int64_t(std::ceil(rw / double(out_w)));
  const double count = double(gh * gw > 1 ? gh * gw : 1);
  const T *plane = x + (b * c + ch) * h * w;
  double acc = 0;
  bool first = true;
  for (int64_t iy = 0; iy < gh; ++iy)
    for (int64_t ix = 0; ix < gw; ++ix) {
      double yy = sh + double(ph) * bin_h + (double(iy) + 0.5) * bin_h / double(gh);
      double xx = sw + double(pw) * bin_w + (double(ix) + 0.5) * bin_w / double(gw);
      double v = 0, vmax = 0;
      if (!(yy < -1.0 || yy > double(h) || xx < -1.0 || xx > double(w))) {
        yy = yy < 0 ? 0 : yy;
        xx = xx < 0 ? 0 : xx;
        int64_t y0 = int64_t(yy), x0 = int64_t(xx), y1, x1;
        if (y0 >= h - 1) {
          y1 = y0 = h - 1;
          yy = double(y0);
        } else {
          y1 = y0 + 1;
        }
        if (x0 >= w - 1) {
          x1 = x0 = w - 1;
          xx = double(x0);
        } else {
          x1 = x0 + 1;
        }
        const double ly = yy - double(y0), lx = xx - double(x0);
        const double hy = 1 - ly, hx = 1 - lx;
        const double p[4] = {hy * hx * double(plane[y0 * w + x0]),
                             hy * lx * double(plane[y0 * w + x1]),
                             ly * hx * double(plane[y1 * w + x0]),
                             ly * lx * double(plane[y1 * w + x1])};
        v = p[0] + p[1] + p[2] + p[3];
        vmax = p[0];
        for (int k = 1; k < 4; ++k)
          vmax = p[k] > vmax ? p[k] : vmax;
      }
      if (mode == 0)
        acc += v;
      else
        acc = first || vmax > acc ? vmax : acc;
      first = false;
    }
  return T(mode == 0 ? acc / count : acc);
}
} // namespace detail

/// RoiAlign over X (N, C, H, W) for rois (R, 4: x1, y1, x2, y2) of images
/// batch_indices[r]. mode 0 avg, 1 max; half_pixel shifts by -0.5.
template <typename T, typename I>
void roi_align(const T *x, const T *rois, const I *batch_indices, T *y, int64_t c,
               int64_t h, int64_t w, int64_t num_rois, int64_t out_h, int64_t out_w,
               int64_t sampling_ratio, float spatial_scale, int64_t mode, int64_t half_pixel) {
  for (int64_t r = 0; r < num_rois; ++r)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t ph = 0; ph < out_h; ++ph)
        for (int64_t pw = 0; pw < out_w; ++pw)
          y[((r * c + ch) * out_h + ph) * out_w + pw] =
              detail::roi_align_one(x, rois, batch_indices, c, h, w, out_h, out_w, sampling_ratio,
                                    spatial_scale, mode, half_pixel, r, ch, ph, pw);
}

} // namespace ref
} // namespace onnxc_rt

#endif
