// CUDA reductions (ReduceX): the reference reducers (kernels/reference/
// reduce.h, ONNXC_RT_HD), one kept output per thread walking its reduced
// elements in the reference's order.
#ifndef ONNXC_RT_CUDA_REDUCE_CUH
#define ONNXC_RT_CUDA_REDUCE_CUH

#include "onnxc_rt/kernels/cuda/common.cuh"
#include "onnxc_rt/kernels/reference/reduce.h"

namespace onnxc_rt {
namespace cuda {
namespace detail {

/// The kept and the reduced dims of a reduction, each with x's strides.
struct ReduceSpace {
  int kept_rank, red_rank;
  Dims kept_shape, kept_stride, red_shape, red_stride;
  int64_t red_n;
};

template <typename R, typename T>
__global__ void reduce_kernel(const T *x, T *y, int64_t kept_n, ReduceSpace s) {
  ONNXC_CUDA_FOR(o, kept_n) {
    int64_t base = 0, rest = o;
    for (int d = s.kept_rank - 1; d >= 0; --d) {
      base += (rest % s.kept_shape.v[d]) * s.kept_stride.v[d];
      rest /= s.kept_shape.v[d];
    }
    T a = R::init(s.red_n > 0 ? x[base] : T(0));
    for (int64_t r = 0; r < s.red_n; ++r) {
      int64_t off = base, left = r;
      for (int d = s.red_rank - 1; d >= 0; --d) {
        off += (left % s.red_shape.v[d]) * s.red_stride.v[d];
        left /= s.red_shape.v[d];
      }
      a = R::acc(a, x[off]);
    }
    y[o] = R::finish(a, s.red_n);
  }
}

template <typename T>
__global__ void arg_reduce_kernel(const T *x, int64_t *y, int64_t outer, int64_t n, int64_t inner,
                                  int64_t is_max, int64_t select_last) {
  ONNXC_CUDA_FOR(i, outer * inner) {
    const int64_t o = i / inner, in = i % inner;
    y[i] = ref::arg_reduce_row(x + o * n * inner + in, n, inner, is_max, select_last);
  }
}

} // namespace detail

/// ArgMax / ArgMin: one output per thread, the reference's row rule.
template <typename T>
void arg_reduce(Stream *stream, const T *x, int64_t *y, int64_t outer, int64_t n, int64_t inner,
                int64_t is_max, int64_t select_last) {
  launch_over(outer * inner, detail::arg_reduce_kernel<T>, stream, x, y, outer, n, inner, is_max,
              select_last);
}

template <typename R, typename T>
void reduce(Stream *stream, const T *x, T *y, int64_t rank, const int64_t *in_shape,
            const int64_t *reduce_mask) {
  const Dims strides = row_major(in_shape, rank);
  detail::ReduceSpace s{};
  for (int64_t d = 0; d < rank; ++d) {
    if (reduce_mask[d]) {
      s.red_shape.v[s.red_rank] = in_shape[d];
      s.red_stride.v[s.red_rank++] = strides.v[d];
    } else {
      s.kept_shape.v[s.kept_rank] = in_shape[d];
      s.kept_stride.v[s.kept_rank++] = strides.v[d];
    }
  }
  s.red_n = product(s.red_shape.v, s.red_rank);
  const int64_t kept_n = product(s.kept_shape.v, s.kept_rank);
  launch_over(kept_n, detail::reduce_kernel<R, T>, stream, x, y, kept_n, s);
}

} // namespace cuda
} // namespace onnxc_rt

#endif
