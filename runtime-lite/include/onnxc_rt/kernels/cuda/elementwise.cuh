// CUDA element-wise kernels: the reference functors (kernels/reference/
// elementwise.h, ONNXC_RT_HD) applied one element per thread, so an op's
// arithmetic is defined once. Every kernel tolerates y aliasing its first
// input (each thread reads the element it writes), as the memory planner
// expects.
#ifndef ONNXC_RT_CUDA_ELEMENTWISE_CUH
#define ONNXC_RT_CUDA_ELEMENTWISE_CUH

#include "onnxc_rt/kernels/cuda/common.cuh"
#include "onnxc_rt/kernels/reference/elementwise.h"

namespace onnxc_rt {
namespace cuda {
namespace detail {

template <typename Op, typename T>
__global__ void unary_kernel(const T *x, T *y, int64_t n, float alpha, float beta) {
  ONNXC_CUDA_FOR(i, n) { y[i] = Op::apply(x[i], alpha, beta); }
}

template <typename Op, typename T, typename U, typename TOut>
__global__ void binary_kernel(const T *a, const U *b, TOut *y, int64_t n, int rank, Dims shape,
                              Dims a_strides, Dims b_strides) {
  const Dims strides[2] = {a_strides, b_strides};
  ONNXC_CUDA_FOR(i, n) {
    int64_t off[2];
    strided_offsets<2>(i, n, rank, shape, strides, off);
    y[i] = static_cast<TOut>(Op::apply(a[off[0]], b[off[1]]));
  }
}

template <typename Op, typename T, typename U, typename TOut>
__global__ void binary_same_shape(const T *a, const U *b, TOut *y, int64_t n) {
  ONNXC_CUDA_FOR(i, n) { y[i] = static_cast<TOut>(Op::apply(a[i], b[i])); }
}

template <typename T>
__global__ void where_kernel(const bool *cond, const T *x, const T *y, T *out, int64_t n,
                             int rank, Dims shape, Dims cs, Dims xs, Dims ys) {
  const Dims strides[3] = {cs, xs, ys};
  ONNXC_CUDA_FOR(i, n) {
    int64_t off[3];
    strided_offsets<3>(i, n, rank, shape, strides, off);
    out[i] = cond[off[0]] ? x[off[1]] : y[off[2]];
  }
}

template <typename T>
__global__ void broadcast_copy_kernel(const T *x, T *y, int64_t n, int rank, Dims shape,
                                      Dims xs) {
  const Dims strides[1] = {xs};
  ONNXC_CUDA_FOR(i, n) {
    int64_t off[1];
    strided_offsets<1>(i, n, rank, shape, strides, off);
    y[i] = x[off[0]];
  }
}

template <typename T>
__global__ void clip_kernel(const T *x, T *y, int64_t n, const T *lo, const T *hi) {
  ONNXC_CUDA_FOR(i, n) { y[i] = ref::clip_value(x[i], lo, hi); }
}

template <typename TIn, typename TOut>
__global__ void cast_kernel(const TIn *x, TOut *y, int64_t n) {
  ONNXC_CUDA_FOR(i, n) { y[i] = static_cast<TOut>(x[i]); }
}

inline int64_t count(const int64_t *shape, int64_t rank) { return product(shape, rank); }

/// IsNaN (mode 0) and IsInf, by the reference's rule (ref::classify_one).
template <typename T>
__global__ void classify_kernel(const T *x, bool *y, int64_t n, int mode, int detect_negative,
                                int detect_positive) {
  ONNXC_CUDA_FOR(i, n) { y[i] = ref::classify_one(x[i], mode, detect_negative, detect_positive); }
}

} // namespace detail

template <typename Op, typename T>
void unary(Stream *stream, const T *x, T *y, int64_t n, float alpha, float beta) {
  launch_over(n, detail::unary_kernel<Op, T>, stream, x, y, n, alpha, beta);
}

template <typename Op, typename T, typename U, typename TOut>
void binary(Stream *stream, const T *a, const U *b, TOut *y, int64_t rank, const int64_t *shape,
            const int64_t *a_strides, const int64_t *b_strides) {
  const int64_t n = detail::count(shape, rank);
  if (n == 0)
    return;
  bool dense = true;
  const Dims rm = row_major(shape, rank);
  for (int64_t d = 0; d < rank; ++d)
    dense = dense && (shape[d] == 1 || (a_strides[d] == rm.v[d] && b_strides[d] == rm.v[d]));
  if (dense)
    launch(detail::binary_same_shape<Op, T, U, TOut>, blocks_for(n), kThreads, stream, a, b, y, n);
  else
    launch(detail::binary_kernel<Op, T, U, TOut>, blocks_for(n), kThreads, stream,
        a, b, y, n, int(rank), dims_of(shape, rank), dims_of(a_strides, rank),
        dims_of(b_strides, rank));
}

template <typename T>
void where(Stream *stream, const bool *cond, const T *x, const T *y, T *out, int64_t rank,
           const int64_t *shape, const int64_t *c_strides, const int64_t *x_strides,
           const int64_t *y_strides) {
  const int64_t n = detail::count(shape, rank);
  launch_over(n, detail::where_kernel<T>, stream, cond, x, y, out, n, int(rank),
              dims_of(shape, rank), dims_of(c_strides, rank), dims_of(x_strides, rank),
              dims_of(y_strides, rank));
}

template <typename T>
void broadcast_copy(Stream *stream, const T *x, T *y, int64_t rank, const int64_t *shape,
                    const int64_t *x_strides) {
  const int64_t n = detail::count(shape, rank);
  launch_over(n, detail::broadcast_copy_kernel<T>, stream, x, y, n, int(rank), dims_of(shape, rank),
              dims_of(x_strides, rank));
}

template <typename T>
void clip(Stream *stream, const T *x, T *y, int64_t n, const T *lo, const T *hi) {
  launch_over(n, detail::clip_kernel<T>, stream, x, y, n, lo, hi);
}

template <typename TIn, typename TOut> void cast(Stream *stream, const TIn *x, TOut *y, int64_t n) {
  launch_over(n, detail::cast_kernel<TIn, TOut>, stream, x, y, n);
}

namespace detail {
template <typename T>
__global__ void window_kernel(T *y, int64_t n, int64_t kind, int64_t periodic) {
  ONNXC_CUDA_FOR(i, n) { y[i] = T(ref::window_value(i, n, kind, periodic)); }
}
} // namespace detail

/// HannWindow, HammingWindow, BlackmanWindow by the reference's
/// window_value (double; the GPU's cos may differ in the last place).
template <typename T>
void window(Stream *stream, T *y, int64_t n, int64_t kind, int64_t periodic) {
  launch_over(n, detail::window_kernel<T>, stream, y, n, kind, periodic);
}

template <typename T>
void classify(Stream *stream, const T *x, bool *y, int64_t n, int64_t mode,
              int64_t detect_negative, int64_t detect_positive) {
  launch_over(n, detail::classify_kernel<T>, stream, x, y, n, int(mode), int(detect_negative),
              int(detect_positive));
}

} // namespace cuda
} // namespace onnxc_rt

#endif
