// CUDA QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear: one
// element per thread (the dynamic range in one block first), by the
// reference's rules (ref::quantize_value, ref::dequantize_value: the same
// float division, round half to even and saturation), so a QDQ model's
// integers on the GPU are the host's. And ONNX's integer ops (ConvInteger,
// MatMulInteger, QLinearConv, QLinearMatMul): integer sums with zero
// points, one output a thread, and the QLinear requantization in double by
// the reference's qlinear_factor.
#ifndef ONNXC_RT_CUDA_QUANT_CUH
#define ONNXC_RT_CUDA_QUANT_CUH

#include "onnxc_rt/kernels/cuda/conv.cuh"
#include "onnxc_rt/kernels/reference/quant.h"

namespace onnxc_rt {
namespace cuda {
namespace detail {

/// The scale and zero point of element i over (outer, axis_dim, inner):
/// per tensor (count 1) or per axis.
__device__ inline int64_t quant_channel(int64_t i, int64_t axis_dim, int64_t inner,
                                        int64_t count) {
  return count > 1 ? i / inner % axis_dim : 0;
}

template <typename T, typename Q>
__global__ void quantize_kernel(const T *x, const T *scale, const Q *zp, Q *y, int64_t n,
                                int64_t axis_dim, int64_t inner, int64_t count) {
  ONNXC_CUDA_FOR(i, n) {
    const int64_t c = quant_channel(i, axis_dim, inner, count);
    y[i] = ref::quantize_value<Q>(x[i], float(scale[c]), zp ? int32_t(zp[c]) : 0);
  }
}

template <typename Q, typename T>
__global__ void dequantize_kernel(const Q *x, const T *scale, const Q *zp, T *y, int64_t n,
                                  int64_t axis_dim, int64_t inner, int64_t count) {
  ONNXC_CUDA_FOR(i, n) {
    const int64_t c = quant_channel(i, axis_dim, inner, count);
    y[i] = ref::dequantize_value<T>(x[i], float(scale[c]), zp ? int32_t(zp[c]) : 0);
  }
}

/// DynamicQuantizeLinear's range in one block of kThreads (minimum and
/// maximum do not depend on order), then its scale and zero point by the
/// reference's rule, into the op's outputs.
template <typename T>
__global__ void dynamic_range_kernel(const T *x, int64_t n, float *scale, uint8_t *zp) {
  __shared__ float los[kThreads], his[kThreads];
  float lo = 0, hi = 0;
  for (int64_t i = threadIdx.x; i < n; i += kThreads) {
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  los[threadIdx.x] = lo;
  his[threadIdx.x] = hi;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (int(threadIdx.x) < half) {
      los[threadIdx.x] = los[threadIdx.x + half] < los[threadIdx.x] ? los[threadIdx.x + half]
                                                                      : los[threadIdx.x];
      his[threadIdx.x] = his[threadIdx.x + half] > his[threadIdx.x] ? his[threadIdx.x + half]
                                                                      : his[threadIdx.x];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    ref::detail::dynamic_params(los[0], his[0], *scale, *zp);
}

template <typename T>
__global__ void dynamic_quantize_kernel(const T *x, uint8_t *y, int64_t n, const float *scale,
                                        const uint8_t *zp) {
  ONNXC_CUDA_FOR(i, n) { y[i] = ref::detail::dynamic_value(x[i], *scale, *zp); }
}

/// QLinear requantization, one value a thread.
template <typename Q>
__global__ void requantize_kernel(const int32_t *acc, const float *a_scale, const float *b_scale,
                                  int64_t b_count, const float *y_scale, const Q *y_zp, Q *y,
                                  int64_t n, int64_t channels, int64_t inner) {
  ONNXC_CUDA_FOR(i, n) {
    const double mult =
        ref::qlinear_factor(a_scale, b_scale, b_count, y_scale, i / inner % channels);
    y[i] = ref::detail::saturate_round<Q>(double(acc[i]) * mult, y_zp ? int32_t(*y_zp) : 0);
  }
}

/// MatMulInteger's sums (ref::matmul_acc), one output a thread: batches
/// broadcast through the operands' batch strides, zero points a scalar or
/// one per row of A / column of B.
template <typename TA, typename TB, typename TAcc>
__global__ void matmul_acc_kernel(const TA *a, const TB *b, const TA *a_zp, int64_t a_zp_count,
                                  const TB *b_zp, int64_t b_zp_count, TAcc *y, int64_t m,
                                  int64_t k, int64_t n, int64_t total, int64_t batches,
                                  int batch_rank, Dims batch_shape, Dims a_strides,
                                  Dims b_strides) {
  const Dims strides[2] = {a_strides, b_strides};
  ONNXC_CUDA_FOR(idx, total) {
    const int64_t bi = idx / (m * n), i = idx / n % m, j = idx % n;
    int64_t off[2] = {0, 0};
    if (batch_rank > 0)
      strided_offsets<2>(bi, batches, batch_rank, batch_shape, strides, off);
    const TA *ar = a + off[0] + i * k;
    const TB *bc = b + off[1] + j;
    const TAcc az = a_zp ? TAcc(a_zp[a_zp_count > 1 ? i : 0]) : TAcc(0);
    const TAcc bz = b_zp ? TAcc(b_zp[b_zp_count > 1 ? j : 0]) : TAcc(0);
    TAcc acc = TAcc(0);
    for (int64_t p = 0; p < k; ++p)
      acc += (TAcc(ar[p]) - az) * (TAcc(bc[p * n]) - bz);
    y[idx] = acc;
  }
}

/// ConvInteger's sums (ref::conv_acc), one output a thread.
template <typename TX, typename TW, typename TAcc>
__global__ void conv_acc_kernel(const TX *x, const TW *w, const TX *x_zp, const TW *w_zp,
                                int64_t w_zp_count, const TAcc *bias, TAcc *y, Window2d g,
                                int cg, int mg) {
  const int pixels = g.oh * g.ow;
  const TAcc xz = x_zp ? TAcc(*x_zp) : TAcc(0);
  ONNXC_CUDA_FOR_PLANES(plane, int64_t(g.n) * g.m, pix, pixels) {
    const int image = int(plane / g.m), oc = int(plane % g.m);
    const TAcc wz = w_zp ? TAcc(w_zp[w_zp_count > 1 ? oc : 0]) : TAcc(0);
    y[plane * pixels + pix] =
        window_sum(x, w, xz, wz, bias ? bias[oc] : TAcc(0), g, image, oc, cg, mg, pix);
  }
}

/// conv_acc of 3 or more spatial dims, one output a thread: the
/// reference's window walk (for_window); a padded position adds nothing
/// (its x is the zero point).
template <typename TX, typename TW, typename TAcc>
__global__ void conv_acc_nd_kernel(const TX *x, const TW *w, const TX *x_zp, const TW *w_zp,
                                   int64_t w_zp_count, const TAcc *bias, TAcc *y, WindowNd g,
                                   int64_t cg, int64_t mg, int64_t total) {
  const ref::WindowShape s{g.rank,    g.in,         g.out,       g.kernel,
                           g.strides, g.pads_begin, g.pads_end, g.dilations};
  const int64_t ksize = product(g.kernel, g.rank), m = g.out[1];
  const TAcc xz = x_zp ? TAcc(*x_zp) : TAcc(0);
  ONNXC_CUDA_FOR(i, total) {
    const PoolOutput o = pool_output(g, i); // plane: (image, output channel)
    const int64_t oc = o.plane % m, img = o.plane / m, grp = oc / mg;
    const TAcc wz = w_zp ? TAcc(w_zp[w_zp_count > 1 ? oc : 0]) : TAcc(0);
    TAcc acc = bias ? bias[oc] : TAcc(0);
    for (int64_t ic = 0; ic < cg; ++ic) {
      const TX *xp = x + (img * g.in[1] + grp * cg + ic) * o.in_sp;
      const TW *wp = w + (oc * cg + ic) * ksize;
      ref::detail::for_window(s, o.pos, [&](int64_t at_x, int64_t tap) {
        acc += (TAcc(xp[at_x]) - xz) * (TAcc(wp[tap]) - wz);
      }, nullptr);
    }
    y[i] = acc;
  }
}

} // namespace detail

template <typename Q>
void requantize(Stream *stream, const int32_t *acc, const float *a_scale, const float *b_scale,
                int64_t b_count, const float *y_scale, const Q *y_zp, Q *y, int64_t outer,
                int64_t channels, int64_t inner) {
  const int64_t n = outer * channels * inner;
  launch_over(n, detail::requantize_kernel<Q>, stream, acc, a_scale, b_scale, b_count, y_scale,
              y_zp, y, n, channels, inner);
}

template <typename TA, typename TB, typename TAcc>
void matmul_acc(Stream *stream, const TA *a, const TB *b, const TA *a_zp, int64_t a_zp_count,
                const TB *b_zp, int64_t b_zp_count, TAcc *y, int64_t m, int64_t k, int64_t n,
                int64_t batch_rank, const int64_t *batch_shape, const int64_t *a_strides,
                const int64_t *b_strides) {
  const int64_t batches = product(batch_shape, batch_rank), total = batches * m * n;
  launch_over(total, detail::matmul_acc_kernel<TA, TB, TAcc>, stream, a, b, a_zp, a_zp_count, b_zp,
              b_zp_count, y, m, k, n, total, batches, int(batch_rank),
              dims_of(batch_shape, batch_rank), dims_of(a_strides, batch_rank),
              dims_of(b_strides, batch_rank));
}

/// conv_acc: 1-D and 2-D windows by planes, more dims one output a thread.
template <typename TX, typename TW, typename TAcc>
void conv_acc(Stream *stream, const TX *x, const TW *w, const TX *x_zp, const TW *w_zp,
              int64_t w_zp_count, const TAcc *bias, TAcc *y, int64_t rank,
              const int64_t *in_shape, const int64_t *out_shape, const int64_t *kernel,
              const int64_t *strides, const int64_t *pads_begin, const int64_t *pads_end,
              const int64_t *dilations, int64_t group) {
  if (rank > 2) {
    const int64_t total = product(out_shape, rank + 2);
    launch_over(total, detail::conv_acc_nd_kernel<TX, TW, TAcc>, stream, x, w, x_zp, w_zp,
                w_zp_count, bias, y,
                detail::window_nd(rank, in_shape, out_shape, kernel, strides, pads_begin,
                                  pads_end, dilations),
                in_shape[1] / group, out_shape[1] / group, total);
    return;
  }
  (void)pads_end;
  const detail::Window2d g =
      detail::window2d(rank, in_shape, out_shape, kernel, strides, pads_begin, dilations);
  detail::launch_planes(detail::conv_acc_kernel<TX, TW, TAcc>, g, int64_t(g.n) * g.m, stream, x,
                        w, x_zp, w_zp, w_zp_count, bias, y, g, int(g.c / group),
                        int(g.m / group));
}

/// DynamicQuantizeLinear: the range, then the values (two launches on the
/// stream; the second reads the scale and zero point the first wrote).
inline void dynamic_quantize_linear(Stream *stream, const float *x, uint8_t *y, float *y_scale,
                                    uint8_t *y_zero_point, int64_t n) {
  launch(detail::dynamic_range_kernel<float>, 1, kThreads, stream, x, n, y_scale,
         y_zero_point);
  launch_over(n, detail::dynamic_quantize_kernel<float>, stream, x, y, n, y_scale, y_zero_point);
}

template <typename T, typename Q>
void quantize_linear(Stream *stream, const T *x, const T *scale, const Q *zp, Q *y,
                     int64_t outer, int64_t axis_dim, int64_t inner, int64_t count) {
  const int64_t n = outer * axis_dim * inner;
  launch_over(n, detail::quantize_kernel<T, Q>, stream, x, scale, zp, y, n, axis_dim, inner, count);
}

template <typename Q, typename T>
void dequantize_linear(Stream *stream, const Q *x, const T *scale, const Q *zp, T *y,
                       int64_t outer, int64_t axis_dim, int64_t inner, int64_t count) {
  const int64_t n = outer * axis_dim * inner;
  launch_over(n, detail::dequantize_kernel<Q, T>, stream, x, scale, zp, y, n, axis_dim, inner,
              count);
}

} // namespace cuda
} // namespace onnxc_rt

#endif
