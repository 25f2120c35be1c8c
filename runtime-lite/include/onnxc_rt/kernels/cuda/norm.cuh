// CUDA Softmax (and LogSoftmax, Hardmax), LayerNormalization, inference
// BatchNormalization (one element a thread, the reference's per-channel
// factors), training-mode BatchNormalization (one channel a thread) and the
// negative log-likelihood loss (NegativeLogLikelihoodLoss, and with a
// log-softmax before it SoftmaxCrossEntropyLoss). A row along the reduced
// axis is one warp when it is contiguous (the last axis); a strided one
// (inner > 1) is one thread per column. Float tensors are summed in float,
// double ones in double (Acc).
#ifndef ONNXC_RT_CUDA_NORM_CUH
#define ONNXC_RT_CUDA_NORM_CUH

#include "onnxc_rt/kernels/cuda/common.cuh"
#include "onnxc_rt/kernels/reference/norm.h"

namespace onnxc_rt {
namespace cuda {
namespace detail {

template <typename A> __device__ inline A warp_sum(A v) {
  for (int off = 16; off > 0; off /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

template <typename A> __device__ inline A warp_max(A v) {
  for (int off = 16; off > 0; off /= 2)
    v = max_of(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}

/// Warps of the grid, each taking rows r = its index + k * warps.
#define ONNXC_CUDA_FOR_WARP_ROWS(r, rows)                                      \
  for (int64_t r = int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; \
       r < (rows); r += int64_t(gridDim.x) * (blockDim.x / 32))

/// mode 0: softmax, 1: log-softmax, 2: hardmax (the first maximum).
template <typename T>
__global__ void softmax_rows(const T *x, T *y, int64_t rows, int64_t len, int mode) {
  using A = Acc<T>;
  const int lane = threadIdx.x % 32;
  ONNXC_CUDA_FOR_WARP_ROWS(r, rows) {
    const T *xr = x + r * len;
    T *yr = y + r * len;
    A mx = -INFINITY;
    for (int64_t i = lane; i < len; i += 32)
      mx = max_of(mx, A(xr[i]));
    mx = warp_max(mx);
    if (mode == 2) {
      // The first index holding the maximum, as the reference picks.
      int64_t first = len;
      for (int64_t i = lane; i < len; i += 32)
        if (A(xr[i]) == mx && i < first)
          first = i;
      for (int off = 16; off > 0; off /= 2) {
        const int64_t other = __shfl_xor_sync(0xffffffffu, first, off);
        first = other < first ? other : first;
      }
      for (int64_t i = lane; i < len; i += 32)
        yr[i] = T(i == first ? 1 : 0);
      continue;
    }
    A sum = 0;
    for (int64_t i = lane; i < len; i += 32)
      sum += exp_of(A(xr[i]) - mx);
    sum = warp_sum(sum);
    if (mode == 0) {
      const A inv = A(1) / sum;
      for (int64_t i = lane; i < len; i += 32)
        yr[i] = T(exp_of(A(xr[i]) - mx) * inv);
    } else {
      const A lse = log_of(sum);
      for (int64_t i = lane; i < len; i += 32)
        yr[i] = T(A(xr[i]) - mx - lse);
    }
  }
}

template <typename T>
__global__ void softmax_columns(const T *x, T *y, int64_t outer, int64_t len, int64_t inner,
                                int mode) {
  using A = Acc<T>;
  ONNXC_CUDA_FOR(col, outer * inner) {
    const int64_t o = col / inner, in = col % inner;
    const T *xp = x + o * len * inner + in;
    T *yp = y + o * len * inner + in;
    A mx = A(xp[0]);
    int64_t arg = 0;
    for (int64_t i = 1; i < len; ++i)
      if (A(xp[i * inner]) > mx) {
        mx = A(xp[i * inner]);
        arg = i;
      }
    if (mode == 2) {
      for (int64_t i = 0; i < len; ++i)
        yp[i * inner] = T(i == arg ? 1 : 0);
      continue;
    }
    A sum = 0;
    for (int64_t i = 0; i < len; ++i)
      sum += exp_of(A(xp[i * inner]) - mx);
    const A inv = A(1) / sum, lse = log_of(sum);
    for (int64_t i = 0; i < len; ++i) {
      const A v = A(xp[i * inner]) - mx;
      yp[i * inner] = T(mode == 0 ? exp_of(v) * inv : v - lse);
    }
  }
}

/// A warp's row xr of len values: its mean, then 1 / sqrt(the mean squared
/// deviation + epsilon) (two passes, as the reference).
template <typename T, typename A>
__device__ inline void row_moments(const T *xr, int64_t len, float epsilon, int lane, A &mean,
                                   A &inv) {
  A sum = 0;
  for (int64_t i = lane; i < len; i += 32)
    sum += A(xr[i]);
  mean = warp_sum(sum) / A(len);
  A dev = 0;
  for (int64_t i = lane; i < len; i += 32) {
    const A d = A(xr[i]) - mean;
    dev = fma_of(d, d, dev);
  }
  inv = rsqrt_of(warp_sum(dev) / A(len) + A(epsilon));
}

template <typename T>
__global__ void layer_norm_rows(const T *x, const T *scale, const T *bias, T *y, T *mean_out,
                                T *inv_std_out, int64_t rows, int64_t len, float epsilon) {
  using A = Acc<T>;
  const int lane = threadIdx.x % 32;
  ONNXC_CUDA_FOR_WARP_ROWS(r, rows) {
    const T *xr = x + r * len;
    T *yr = y + r * len;
    A mean, inv;
    row_moments(xr, len, epsilon, lane, mean, inv);
    for (int64_t i = lane; i < len; i += 32) {
      A v = (A(xr[i]) - mean) * inv * A(scale[i]);
      if (bias)
        v += A(bias[i]);
      yr[i] = T(v);
    }
    if (lane == 0 && mean_out)
      mean_out[r] = T(mean);
    if (lane == 0 && inv_std_out)
      inv_std_out[r] = T(inv);
  }
}

template <typename T, typename I>
__global__ void nll_loss_each(const T *input, const I *target, const T *weight, T *y,
                              int64_t count, int64_t c, int64_t d, int64_t ignore_index,
                              int64_t has_ignore) {
  ONNXC_CUDA_FOR(e, count) {
    double loss, w;
    ref::nll_term(input, target, weight, c, d, e, ignore_index, has_ignore, loss, w);
    y[e] = T(loss);
  }
}

/// Sum (reduction 1) or weighted mean (2) in one block of kThreads: each
/// thread adds a strided share in double, then a tree over the threads in a
/// fixed order, so the result does not depend on scheduling.
template <typename T, typename I>
__global__ void nll_loss_total(const T *input, const I *target, const T *weight, T *y,
                               int64_t count, int64_t c, int64_t d, int reduction,
                               int64_t ignore_index, int64_t has_ignore) {
  __shared__ double sums[kThreads], weights[kThreads];
  double sum = 0, wsum = 0;
  for (int64_t e = threadIdx.x; e < count; e += kThreads) {
    double loss, w;
    ref::nll_term(input, target, weight, c, d, e, ignore_index, has_ignore, loss, w);
    sum += loss;
    wsum += w;
  }
  sums[threadIdx.x] = sum;
  weights[threadIdx.x] = wsum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (int(threadIdx.x) < half) {
      sums[threadIdx.x] += sums[threadIdx.x + half];
      weights[threadIdx.x] += weights[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    y[0] = T(reduction == 1 ? sums[0] : sums[0] / weights[0]);
}

} // namespace detail

/// ref::nll_loss's arguments: input (N, C, D), target (N, D), weight
/// (C, may be null); reduction 0 none, 1 sum, 2 mean.
template <typename T, typename I>
void nll_loss(Stream *stream, const T *input, const I *target, const T *weight, T *y, int64_t n,
              int64_t c, int64_t d, int64_t reduction, int64_t ignore_index,
              int64_t has_ignore) {
  const int64_t count = n * d;
  if (reduction == 0) {
    launch_over(count, detail::nll_loss_each<T, I>, stream, input, target, weight, y, count, c, d,
                ignore_index, has_ignore);
    return;
  }
  launch(detail::nll_loss_total<T, I>, 1, kThreads, stream, input, target, weight, y, count, c,
         d, int(reduction), ignore_index, has_ignore);
}

template <typename T>
void softmax(Stream *stream, const T *x, T *y, int64_t outer, int64_t axis_dim, int64_t inner,
             int64_t mode) {
  if (outer * axis_dim * inner == 0)
    return;
  if (inner == 1)
    launch(detail::softmax_rows<T>, blocks_for(outer * 32), kThreads, stream, x, y, outer,
                                                                            axis_dim, int(mode));
  else
    launch(detail::softmax_columns<T>, blocks_for(outer * inner), kThreads, stream,
        x, y, outer, axis_dim, inner, int(mode));
}

namespace detail {
/// Group normalization, a warp per (image, group) of cg channels x
/// spatial values, then each channel's scale and bias (instance
/// normalization: a group per channel).
template <typename T>
__global__ void group_norm_rows(const T *x, const T *scale, const T *bias, T *y, int64_t rows,
                                int64_t groups, int64_t cg, int64_t spatial, float epsilon) {
  using A = Acc<T>;
  const int lane = threadIdx.x % 32;
  const int64_t len = cg * spatial;
  ONNXC_CUDA_FOR_WARP_ROWS(r, rows) {
    const T *xr = x + r * len;
    T *yr = y + r * len;
    A mean, inv;
    row_moments(xr, len, epsilon, lane, mean, inv);
    for (int64_t i = lane; i < len; i += 32) {
      const int64_t ch = r % groups * cg + i / spatial;
      yr[i] = T((A(xr[i]) - mean) * inv * A(scale[ch]) + A(bias[ch]));
    }
  }
}
} // namespace detail

template <typename T>
void group_norm(Stream *stream, const T *x, const T *scale, const T *bias, T *y, int64_t n,
                int64_t c, int64_t spatial, int64_t groups, float epsilon) {
  if (n * c * spatial > 0)
    launch(detail::group_norm_rows<T>, blocks_for(n * groups * 32), kThreads, stream, x, scale,
           bias, y, n * groups, groups, c / groups, spatial, epsilon);
}

template <typename T>
void instance_norm(Stream *stream, const T *x, const T *scale, const T *bias, T *y, int64_t n,
                   int64_t c, int64_t spatial, float epsilon) {
  group_norm(stream, x, scale, bias, y, n, c, spatial, c, epsilon);
}

template <typename T>
void layer_norm(Stream *stream, const T *x, const T *scale, const T *bias, T *y, T *mean_out,
                T *inv_std_out, int64_t outer, int64_t inner, float epsilon) {
  if (outer * inner > 0)
    launch(detail::layer_norm_rows<T>, blocks_for(outer * 32), kThreads, stream,
        x, scale, bias, y, mean_out, inv_std_out, outer, inner, epsilon);
}

namespace detail {
template <typename T>
__global__ void batch_norm_kernel(const T *x, const T *scale, const T *bias, const T *mean,
                                  const T *var, T *y, int64_t total, int64_t c, int64_t spatial,
                                  float epsilon) {
  ONNXC_CUDA_FOR(i, total) {
    const int64_t ch = (i / spatial) % c;
    T mul, add;
    ref::batch_norm_factors(scale[ch], bias[ch], mean[ch], var[ch], epsilon, mul, add);
    y[i] = x[i] * mul + add;
  }
}
} // namespace detail

template <typename T>
void batch_norm(Stream *stream, const T *x, const T *scale, const T *bias, const T *mean,
                const T *var, T *y, int64_t n, int64_t c, int64_t spatial, float epsilon) {
  const int64_t total = n * c * spatial;
  launch_over(total, detail::batch_norm_kernel<T>, stream, x, scale, bias, mean, var, y, total, c,
              spatial, epsilon);
}

namespace detail {
template <typename T>
__global__ void batch_norm_training_kernel(const T *x, const T *scale, const T *bias,
                                           const T *in_mean, const T *in_var, T *y,
                                           T *running_mean, T *running_var, int64_t n, int64_t c,
                                           int64_t spatial, float epsilon, float momentum) {
  ONNXC_CUDA_FOR(ch, c) {
    ref::batch_norm_training_channel(ch, x, scale, bias, in_mean, in_var, y, running_mean,
                                     running_var, n, c, spatial, epsilon, momentum);
  }
}
} // namespace detail

/// Training-mode BatchNormalization, one channel a thread by the
/// reference's batch_norm_training_channel (its statistics in double, in
/// the host's order).
template <typename T>
void batch_norm_training(Stream *stream, const T *x, const T *scale, const T *bias,
                         const T *in_mean, const T *in_var, T *y, T *running_mean,
                         T *running_var, int64_t n, int64_t c, int64_t spatial, float epsilon,
                         float momentum) {
  launch_over(c, detail::batch_norm_training_kernel<T>, stream, x, scale, bias, in_mean, in_var, y,
              running_mean, running_var, n, c, spatial, epsilon, momentum);
}

namespace detail {
template <typename T>
__global__ void lrn_kernel(const T *x, T *y, int64_t total, int64_t c, int64_t spatial,
                           float alpha, float beta, float bias, int64_t size) {
  ONNXC_CUDA_FOR(i, total) { y[i] = ref::lrn_element(x, c, spatial, i, alpha, beta, bias, size); }
}
} // namespace detail

/// LRN: one output a thread, the reference's rule (ref::lrn_element).
template <typename T>
void lrn(Stream *stream, const T *x, T *y, int64_t n, int64_t c, int64_t spatial, float alpha,
         float beta, float bias, int64_t size) {
  const int64_t total = n * c * spatial;
  launch_over(total, detail::lrn_kernel<T>, stream, x, y, total, c, spatial, alpha, beta, bias,
              size);
}

} // namespace cuda
} // namespace onnxc_rt

#endif
