// CUDA QuantizeLinear and DequantizeLinear: one element per thread, by the
// reference's rules (ref::quantize_value, ref::dequantize_value: the same
// float division, round half to even and saturation), so a QDQ model's
// integers on the GPU are the host's.
#ifndef ONNXC_RT_CUDA_QUANT_CUH
#define ONNXC_RT_CUDA_QUANT_CUH

#include "onnxc_rt/kernels/cuda/common.cuh"
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

} // namespace detail

template <typename T, typename Q>
void quantize_linear(Stream *stream, const T *x, const T *scale, const Q *zp, Q *y,
                     int64_t outer, int64_t axis_dim, int64_t inner, int64_t count) {
  const int64_t n = outer * axis_dim * inner;
  if (n > 0)
    launch(detail::quantize_kernel<T, Q>, blocks_for(n), kThreads, stream, x, scale, zp, y, n,
           axis_dim, inner, count);
}

template <typename Q, typename T>
void dequantize_linear(Stream *stream, const Q *x, const T *scale, const Q *zp, T *y,
                       int64_t outer, int64_t axis_dim, int64_t inner, int64_t count) {
  const int64_t n = outer * axis_dim * inner;
  if (n > 0)
    launch(detail::dequantize_kernel<Q, T>, blocks_for(n), kThreads, stream, x, scale, zp, y, n,
           axis_dim, inner, count);
}

} // namespace cuda
} // namespace onnxc_rt

#endif
