// CUDA Einsum and Det: one output a thread by the reference's rules
// (ref::einsum_one: the summed labels' terms in the host's order; det_one:
// LU with partial pivoting in double, each thread on its own matrix's
// scratch), so the GPU computes the host's values.
#ifndef ONNXC_RT_CUDA_LINALG_CUH
#define ONNXC_RT_CUDA_LINALG_CUH

#include "onnxc_rt/kernels/cuda/common.cuh"
#include "onnxc_rt/kernels/reference/linalg.h"

namespace onnxc_rt {
namespace cuda {

namespace detail {
template <typename T>
__global__ void einsum_kernel(const T *a, const T *b, T *y, int64_t nlabels, Dims sizes,
                              Dims a_strides, Dims b_strides, Dims y_strides, int64_t total) {
  ONNXC_CUDA_FOR(i, total) {
    y[i] = ref::einsum_one(i, a, b, nlabels, sizes.v, a_strides.v, b_strides.v, y_strides.v);
  }
}

template <typename T>
__global__ void det_kernel(const T *x, T *y, int64_t batch, int64_t n, double *scratch) {
  ONNXC_CUDA_FOR(i, batch) { y[i] = ref::det_one(x + i * n * n, n, scratch + i * n * n); }
}
} // namespace detail

/// Einsum over one or two operands, up to kMaxRank labels (the provider
/// checks), one output a thread.
template <typename T>
void einsum(Stream *stream, const T *a, const T *b, T *y, int64_t nlabels, const int64_t *sizes,
            const int64_t *a_strides, const int64_t *b_strides, const int64_t *y_strides,
            int64_t y_size) {
  launch_over(y_size, detail::einsum_kernel<T>, stream, a, b, y, nlabels, dims_of(sizes, nlabels),
              dims_of(a_strides, nlabels), dims_of(b ? b_strides : a_strides, nlabels),
              dims_of(y_strides, nlabels), y_size);
}

/// Det of `batch` n x n matrices, one a thread (scratch: batch * n * n
/// doubles in device memory).
template <typename T>
void det(Stream *stream, const T *x, T *y, int64_t batch, int64_t n, double *scratch) {
  launch_over(batch, detail::det_kernel<T>, stream, x, y, batch, n, scratch);
}

} // namespace cuda
} // namespace onnxc_rt

#endif // ONNXC_RT_CUDA_LINALG_CUH
