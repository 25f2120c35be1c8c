// Reference reductions (ReduceX, ArgMax/ArgMin).
#ifndef ONNXC_RT_REF_REDUCE_H
#define ONNXC_RT_REF_REDUCE_H

#include <cmath>

#include "onnxc_rt/base.h"

namespace onnxc_rt {
namespace ref {

// A reduction is init / accumulate / finish over the reduced elements.
#define ONNXC_REDUCER(NAME, INIT, ACC, FIN)                                    \
  struct NAME {                                                                \
    template <typename T> ONNXC_RT_HD static T init(T first) {                 \
      (void)first;                                                             \
      return INIT;                                                             \
    }                                                                          \
    template <typename T> ONNXC_RT_HD static T acc(T a, T x) { return ACC; }   \
    template <typename T> ONNXC_RT_HD static T finish(T a, int64_t n) {        \
      (void)n;                                                                 \
      return FIN;                                                              \
    }                                                                          \
  };
ONNXC_REDUCER(ReduceSum, T(0), T(a + x), a)
ONNXC_REDUCER(ReduceMean, T(0), T(a + x), T(a / T(n)))
ONNXC_REDUCER(ReduceMax, first, x > a ? x : a, a)
ONNXC_REDUCER(ReduceMin, first, x < a ? x : a, a)
ONNXC_REDUCER(ReduceProd, T(1), T(a * x), a)
ONNXC_REDUCER(ReduceSumSquare, T(0), T(a + x * x), a)
ONNXC_REDUCER(ReduceL1, T(0), T(a + (x < T(0) ? T(-x) : x)), a)
ONNXC_REDUCER(ReduceL2, T(0), T(a + x * x), T(std::sqrt(a)))
ONNXC_REDUCER(ReduceLogSum, T(0), T(a + x), T(std::log(a)))
ONNXC_REDUCER(ReduceLogSumExp, T(0), T(a + T(std::exp(x))), T(std::log(a)))
#undef ONNXC_REDUCER

/// Reduces x (shape `in_shape`, rank `rank`) over the dims where
/// reduce_mask[d] != 0; y has the kept dims in order (keepdims does not change
/// the data layout). Empty reductions give init(0) finished over n = 0.
template <typename R, typename T>
void reduce(const T *x, T *y, int64_t rank, const int64_t *in_shape,
            const int64_t *reduce_mask) {
  // Strides of x split into kept and reduced index spaces.
  int64_t kept_shape[kMaxRank], kept_stride[kMaxRank];
  int64_t red_shape[kMaxRank], red_stride[kMaxRank];
  int64_t nk = 0, nr = 0, stride = 1;
  int64_t strides[kMaxRank];
  for (int64_t d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= in_shape[d];
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (reduce_mask[d]) {
      red_shape[nr] = in_shape[d];
      red_stride[nr++] = strides[d];
    } else {
      kept_shape[nk] = in_shape[d];
      kept_stride[nk++] = strides[d];
    }
  }
  const int64_t kept_n = product(kept_shape, nk);
  const int64_t red_n = product(red_shape, nr);
  NdIndex kit(nk, kept_shape);
  int64_t koff[1] = {0};
  const int64_t *const ks[1] = {kept_stride};
  for (int64_t o = 0; o < kept_n; ++o) {
    T a = T(0);
    if (red_n > 0) {
      NdIndex rit(nr, red_shape);
      int64_t roff[1] = {0};
      const int64_t *const rs[1] = {red_stride};
      a = R::init(x[koff[0]]);
      do {
        a = R::acc(a, x[koff[0] + roff[0]]);
      } while (nr > 0 && rit.next(roff, rs));
    } else {
      a = R::init(T(0));
    }
    y[o] = R::finish(a, red_n);
    if (nk > 0)
      kit.next(koff, ks);
  }
}

/// ArgMax / ArgMin along a strided row of n: the first (or, select_last,
/// the last) index of the max (is_max) or min.
template <typename T>
ONNXC_RT_HD inline int64_t arg_reduce_row(const T *xp, int64_t n, int64_t inner, int64_t is_max,
                                          int64_t select_last) {
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i) {
    T v = xp[i * inner], b = xp[best * inner];
    bool better = is_max ? (select_last ? v >= b : v > b) : (select_last ? v <= b : v < b);
    if (better)
      best = i;
  }
  return best;
}

/// Index of the max (is_max) or min along the middle dim of (outer, n, inner).
template <typename T>
void arg_reduce(const T *x, int64_t *y, int64_t outer, int64_t n, int64_t inner,
                int64_t is_max, int64_t select_last) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in)
      y[o * inner + in] = arg_reduce_row(x + o * n * inner + in, n, inner, is_max, select_last);
}

} // namespace ref
} // namespace onnxc_rt

#endif
