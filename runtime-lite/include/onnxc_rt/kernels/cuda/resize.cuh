// CUDA Resize: one output element per thread, by the reference's rule
// (ref::detail::resize_element: coordinate transform, 1-D weights of the
// nearest, linear or cubic neighbours, extrapolation), so the host and the
// GPU compute the same doubles in the same order.
#ifndef ONNXC_RT_CUDA_RESIZE_CUH
#define ONNXC_RT_CUDA_RESIZE_CUH

#include "onnxc_rt/kernels/cuda/common.cuh"
#include "onnxc_rt/kernels/reference/resize.h"

namespace onnxc_rt {
namespace cuda {
namespace detail {

/// Resize's per-dim constants, by value: scales, and roi as the reference
/// reads it (rank starts, then rank ends).
struct ResizeWindow {
  double scales[kMaxRank], roi[2 * kMaxRank];
};

template <typename T>
__global__ void resize_kernel(const T *x, T *y, int64_t n, int rank, Dims in_shape,
                              Dims in_strides, Dims out_shape, ResizeWindow win, int mode,
                              int coord, int nearest, float cubic_a, int exclude_outside,
                              float extrapolation_value) {
  ONNXC_CUDA_FOR(i, n) {
    int64_t idx[kMaxRank] = {}, rest = i;
    for (int d = rank - 1; d >= 0; --d) {
      idx[d] = rest % out_shape.v[d];
      rest /= out_shape.v[d];
    }
    y[i] = ref::detail::resize_element(x, rank, in_shape.v, in_strides.v, out_shape.v, idx,
                                       win.scales, win.roi, mode, coord, nearest, cubic_a,
                                       exclude_outside, extrapolation_value);
  }
}

} // namespace detail

/// ref::resize's arguments (scales and roi the generated code's constants).
template <typename T>
void resize(Stream *stream, const T *x, T *y, int64_t rank, const int64_t *in_shape,
            const int64_t *out_shape, const double *scales, const double *roi, int64_t mode,
            int64_t coord, int64_t nearest, float cubic_a, int64_t exclude_outside,
            float extrapolation_value) {
  detail::ResizeWindow win{};
  for (int64_t d = 0; d < rank && d < kMaxRank; ++d) {
    win.scales[d] = scales[d];
    win.roi[d] = roi[d];
    win.roi[rank + d] = roi[rank + d];
  }
  const int64_t n = product(out_shape, rank);
  launch_over(n, detail::resize_kernel<T>, stream, x, y, n, int(rank), dims_of(in_shape, rank),
              row_major(in_shape, rank), dims_of(out_shape, rank), win, int(mode), int(coord),
              int(nearest), cubic_a, int(exclude_outside), extrapolation_value);
}

} // namespace cuda
} // namespace onnxc_rt

#endif
