// CUDA GridSample and RoiAlign: one output element per thread by the
// reference's rules (ref::detail::grid_point, grid_sample_at:
// unnormalisation, padding, the bilinear, nearest or bicubic taps in
// double; roi_align_one: a bin's bilinear samples averaged or maxed), so
// the GPU computes the host's doubles in the host's order.
#ifndef ONNXC_RT_CUDA_SAMPLE_CUH
#define ONNXC_RT_CUDA_SAMPLE_CUH

#include "onnxc_rt/kernels/cuda/common.cuh"
#include "onnxc_rt/kernels/reference/sample.h"

namespace onnxc_rt {
namespace cuda {
namespace detail {

template <typename T>
__global__ void grid_sample_kernel(const T *x, const T *grid, T *y, int64_t total, int64_t c,
                                   int64_t h, int64_t w, int64_t ho, int64_t wo, int mode,
                                   int padding, int align) {
  ONNXC_CUDA_FOR(i, total) {
    const int64_t j = i % wo, row = i / wo % ho, plane = i / (ho * wo), b = plane / c;
    double gx, gy;
    ref::detail::grid_point(grid + ((b * ho + row) * wo + j) * 2, h, w, mode, padding, align, gx,
                            gy);
    y[i] = T(ref::detail::grid_sample_at(x + plane * h * w, h, w, gx, gy, mode, padding, align));
  }
}

template <typename T, typename I>
__global__ void roi_align_kernel(const T *x, const T *rois, const I *batch_indices, T *y,
                                 int64_t total, int64_t c, int64_t h, int64_t w, int64_t out_h,
                                 int64_t out_w, int64_t sampling_ratio, float spatial_scale,
                                 int mode, int half_pixel) {
  ONNXC_CUDA_FOR(i, total) {
    const int64_t pw = i % out_w, ph = i / out_w % out_h, ch = i / (out_h * out_w) % c;
    const int64_t r = i / (c * out_h * out_w);
    y[i] = ref::detail::roi_align_one(x, rois, batch_indices, c, h, w, out_h, out_w,
                                      sampling_ratio, spatial_scale, mode, half_pixel, r, ch,
                                      ph, pw);
  }
}

} // namespace detail

/// RoiAlign: ref::roi_align's arguments.
template <typename T, typename I>
void roi_align(Stream *stream, const T *x, const T *rois, const I *batch_indices, T *y,
               int64_t c, int64_t h, int64_t w, int64_t num_rois, int64_t out_h, int64_t out_w,
               int64_t sampling_ratio, float spatial_scale, int64_t mode, int64_t half_pixel) {
  const int64_t total = num_rois * c * out_h * out_w;
  launch_over(total, detail::roi_align_kernel<T, I>, stream, x, rois, batch_indices, y, total, c, h,
              w, out_h, out_w, sampling_ratio, spatial_scale, int(mode), int(half_pixel));
}

/// GridSample: ref::grid_sample's arguments.
template <typename T>
void grid_sample(Stream *stream, const T *x, const T *grid, T *y, int64_t n, int64_t c,
                 int64_t h, int64_t w, int64_t ho, int64_t wo, int64_t mode, int64_t padding,
                 int64_t align) {
  const int64_t total = n * c * ho * wo;
  launch_over(total, detail::grid_sample_kernel<T>, stream, x, grid, y, total, c, h, w, ho, wo,
              int(mode), int(padding), int(align));
}

} // namespace cuda
} // namespace onnxc_rt

#endif
