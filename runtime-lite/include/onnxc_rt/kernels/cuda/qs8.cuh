// CUDA kernels of the qs8 scheme (kernels/reference/qs8.h): quantized
// convolution, fully connected, add, mul, average pool, rescale and lookup,
// one output per thread. Sums are integers (int32, int64 for 16-bit
// activations), so their order does not matter, and each output is
// requantized by the reference's own per-value rules (requantize_one,
// add_one, mul_one, average_of, rescale_one: ONNXC_RT_HD), so the GPU's
// integers are the host's, bit for bit.
#ifndef ONNXC_RT_CUDA_QS8_CUH
#define ONNXC_RT_CUDA_QS8_CUH

#include "onnxc_rt/kernels/cuda/conv.cuh"
#include "onnxc_rt/kernels/reference/qs8.h"

namespace onnxc_rt {
namespace cuda {
namespace qs8 {
namespace detail {

using ::onnxc_rt::cuda::detail::Window2d;
using ::onnxc_rt::ref::qs8::Accumulator;

/// The requantization of one output channel's sums: its multiplier and
/// shift (per channel or per tensor) and the output's zero point and
/// activation range.
struct Requant {
  const int32_t *multiplier, *shift;
  int64_t count;
  int32_t y_zp, act_min, act_max;

  template <typename T, typename Acc>
  __device__ T operator()(Acc sum, int64_t channel) const {
    const int64_t k = count > 1 ? channel : 0;
    return ref::qs8::requantize_one<T>(sum, multiplier[k], shift[k], y_zp, act_min, act_max);
  }
};

/// A plane is an (image, output channel); weights (M, C / group, KH, KW).
template <typename T>
__global__ void conv_kernel(const T *x, const int8_t *w, const T *x_zp, const int32_t *bias,
                            T *y, Window2d g, int cg, int mg, Requant rq) {
  using Acc = Accumulator<T>;
  const int pixels = g.oh * g.ow;
  const Acc zp = Acc(*x_zp);
  ONNXC_CUDA_FOR_PLANES(plane, int64_t(g.n) * g.m, pix, pixels) {
    const int image = int(plane / g.m), oc = int(plane % g.m);
    const Acc acc = ::onnxc_rt::cuda::detail::window_sum(
        x, w, zp, Acc(0), bias ? Acc(bias[oc]) : Acc(0), g, image, oc, cg, mg, pix);
    y[plane * pixels + pix] = rq.operator()<T>(acc, oc);
  }
}

/// 3 or more spatial dims, one output a thread: the reference's window
/// walk (for_window); a padded position adds nothing (its x is the zero
/// point).
template <typename T>
__global__ void conv_nd_kernel(const T *x, const int8_t *w, const T *x_zp, const int32_t *bias,
                               T *y, ::onnxc_rt::cuda::detail::WindowNd g, int64_t cg,
                               int64_t mg, Requant rq, int64_t total) {
  using Acc = Accumulator<T>;
  const ref::WindowShape s{g.rank,    g.in,         g.out,       g.kernel,
                           g.strides, g.pads_begin, g.pads_end, g.dilations};
  const int64_t ksize = product(g.kernel, g.rank), m = g.out[1];
  const Acc zp = Acc(*x_zp);
  ONNXC_CUDA_FOR(i, total) {
    const auto o = ::onnxc_rt::cuda::detail::pool_output(g, i); // plane: (image, channel)
    const int64_t oc = o.plane % m, img = o.plane / m, grp = oc / mg;
    Acc acc = bias ? Acc(bias[oc]) : Acc(0);
    for (int64_t ic = 0; ic < cg; ++ic) {
      const T *xp = x + (img * g.in[1] + grp * cg + ic) * o.in_sp;
      const int8_t *wp = w + (oc * cg + ic) * ksize;
      ref::detail::for_window(s, o.pos, [&](int64_t at_x, int64_t tap) {
        acc += (Acc(xp[at_x]) - zp) * Acc(wp[tap]);
      }, nullptr);
    }
    y[i] = rq.operator()<T>(acc, oc);
  }
}

/// y (rows, n): one output a thread, w (k, n).
template <typename T>
__global__ void fully_connected_kernel(const T *a, const int8_t *w, const T *a_zp,
                                       const int32_t *bias, T *y, int64_t rows, int64_t k,
                                       int64_t n, Requant rq) {
  using Acc = Accumulator<T>;
  const Acc zp = Acc(*a_zp);
  ONNXC_CUDA_FOR(i, rows * n) {
    const int64_t r = i / n, col = i % n;
    Acc acc = bias ? Acc(bias[col]) : Acc(0);
    for (int64_t j = 0; j < k; ++j)
      acc += (Acc(a[r * k + j]) - zp) * Acc(w[j * n + col]);
    y[i] = rq.operator()<T>(acc, col);
  }
}

template <typename T>
__global__ void add_kernel(const T *a, const T *b, T *y, int64_t n, int rank, Dims shape,
                           Dims a_strides, Dims b_strides, ref::qs8::AddParams p) {
  const Dims strides[2] = {a_strides, b_strides};
  ONNXC_CUDA_FOR(i, n) {
    int64_t off[2];
    strided_offsets<2>(i, n, rank, shape, strides, off);
    y[i] = ref::qs8::detail::add_one<T>(a[off[0]], b[off[1]], p);
  }
}

template <typename T>
__global__ void mul_kernel(const T *a, const T *b, T *y, int64_t n, int rank, Dims shape,
                           Dims a_strides, Dims b_strides, int32_t a_zp, int32_t b_zp,
                           int32_t y_zp, int32_t multiplier, int32_t shift, int32_t act_min,
                           int32_t act_max) {
  const Dims strides[2] = {a_strides, b_strides};
  ONNXC_CUDA_FOR(i, n) {
    int64_t off[2];
    strided_offsets<2>(i, n, rank, shape, strides, off);
    y[i] = ref::qs8::detail::mul_one<T>(a[off[0]], b[off[1]], a_zp, b_zp, y_zp, multiplier,
                                        shift, act_min, act_max);
  }
}

/// count_include_pad counts the window positions inside [-pads_begin,
/// size + pads_end), as the reference's for_window does.
template <typename T>
__global__ void average_pool_kernel(const T *x, T *y, Window2d g, int pad_h_end, int pad_w_end,
                                    int count_include_pad, int32_t x_zp, int32_t y_zp,
                                    int32_t multiplier, int32_t shift) {
  const int pixels = g.oh * g.ow;
  ONNXC_CUDA_FOR_PLANES(plane, int64_t(g.n) * g.c, pix, pixels) {
    const int oh = pix / g.ow, ow = pix % g.ow;
    const T *xp = x + plane * g.h * g.w;
    int64_t sum = 0, count = 0, all = 0;
    for (int r = 0; r < g.kh; ++r) {
      const int ih = oh * g.sh - g.ph + r * g.dh;
      for (int s = 0; s < g.kw; ++s) {
        const int iw = ow * g.sw - g.pw + s * g.dw;
        all += ih < g.h + pad_h_end && iw < g.w + pad_w_end;
        if (ih >= 0 && ih < g.h && iw >= 0 && iw < g.w) {
          sum += int32_t(xp[ih * g.w + iw]) - x_zp;
          ++count;
        }
      }
    }
    y[plane * pixels + pix] =
        ref::qs8::average_of<T>(sum, count_include_pad ? all : count, multiplier, shift, y_zp);
  }
}

/// 3 or more spatial dims, one output a thread by the reference's own
/// average_pool_one.
template <typename T>
__global__ void average_pool_nd_kernel(const T *x, T *y, ::onnxc_rt::cuda::detail::WindowNd g,
                                       int64_t count_include_pad, int32_t x_zp, int32_t y_zp,
                                       int32_t multiplier, int32_t shift, int64_t total) {
  const ref::WindowShape s{g.rank,    g.in,         g.out,       g.kernel,
                           g.strides, g.pads_begin, g.pads_end, g.dilations};
  ONNXC_CUDA_FOR(i, total) {
    const auto o = ::onnxc_rt::cuda::detail::pool_output(g, i);
    y[i] = ref::qs8::detail::average_pool_one(x + o.plane * o.in_sp, s, o.pos,
                                              count_include_pad, x_zp, y_zp, multiplier, shift);
  }
}

template <typename TIn, typename TOut>
__global__ void rescale_kernel(const TIn *x, int32_t x_zp, int32_t multiplier, int32_t shift,
                               int32_t y_zp, TOut *y, int64_t n) {
  ONNXC_CUDA_FOR(i, n) { y[i] = ref::qs8::rescale_one<TOut>(x[i], x_zp, multiplier, shift, y_zp); }
}

template <typename T>
__global__ void lookup_kernel(const T *x, const T *table, T *y, int64_t n) {
  ONNXC_CUDA_FOR(i, n) { y[i] = table[int32_t(x[i]) - ref::qs8::Range<T>::lo]; }
}

} // namespace detail

/// qs8::conv: 1-D and 2-D by planes, more dims one output a thread
/// (`scratch` unused: no plane of sums is stored).
template <typename T>
void conv(Stream *stream, const T *x, const int8_t *w, const T *x_zp, const int32_t *bias, T *y,
          int64_t rank, const int64_t *in_shape, const int64_t *out_shape,
          const int64_t *kernel, const int64_t *strides, const int64_t *pads_begin,
          const int64_t *pads_end, const int64_t *dilations, int64_t group,
          ref::qs8::Accumulator<T> *scratch, const int32_t *multiplier, const int32_t *shift,
          int64_t count, int32_t y_zp, int32_t act_min, int32_t act_max) {
  (void)scratch;
  if (rank > 2) {
    const int64_t total = product(out_shape, rank + 2);
    launch_over(total, detail::conv_nd_kernel<T>, stream, x, w, x_zp, bias, y,
                ::onnxc_rt::cuda::detail::window_nd(rank, in_shape, out_shape, kernel, strides,
                                                    pads_begin, pads_end, dilations),
                in_shape[1] / group, out_shape[1] / group,
                detail::Requant{multiplier, shift, count, y_zp, act_min, act_max}, total);
    return;
  }
  (void)pads_end;
  const detail::Window2d g = ::onnxc_rt::cuda::detail::window2d(rank, in_shape, out_shape,
                                                                kernel, strides, pads_begin,
                                                                dilations);
  ::onnxc_rt::cuda::detail::launch_planes(
      detail::conv_kernel<T>, g, int64_t(g.n) * g.m, stream, x, w, x_zp, bias, y, g,
      int(g.c / group), int(g.m / group),
      detail::Requant{multiplier, shift, count, y_zp, act_min, act_max});
}

template <typename T>
void fully_connected(Stream *stream, const T *a, const int8_t *w, const T *a_zp,
                     const int32_t *bias, T *y, int64_t rows, int64_t k, int64_t n,
                     ref::qs8::Accumulator<T> *scratch, const int32_t *multiplier,
                     const int32_t *shift, int64_t count, int32_t y_zp, int32_t act_min,
                     int32_t act_max) {
  (void)scratch;
  launch_over(rows * n, detail::fully_connected_kernel<T>, stream, a, w, a_zp, bias, y, rows, k, n,
              detail::Requant{multiplier, shift, count, y_zp, act_min, act_max});
}

template <typename T>
void add(Stream *stream, const T *a, const T *b, T *y, int64_t rank, const int64_t *shape,
         const int64_t *a_strides, const int64_t *b_strides, int32_t left_shift, int32_t a_zp,
         int32_t a_multiplier, int32_t a_shift, int32_t b_zp, int32_t b_multiplier,
         int32_t b_shift, int32_t y_zp, int32_t y_multiplier, int32_t y_shift, int32_t act_min,
         int32_t act_max) {
  const int64_t n = product(shape, rank);
  const ref::qs8::AddParams p{left_shift, a_zp, a_multiplier, a_shift, b_zp, b_multiplier,
                              b_shift, y_zp, y_multiplier, y_shift, act_min, act_max};
  launch_over(n, detail::add_kernel<T>, stream, a, b, y, n, int(rank), dims_of(shape, rank),
              dims_of(a_strides, rank), dims_of(b_strides, rank), p);
}

template <typename T>
void mul(Stream *stream, const T *a, const T *b, T *y, int64_t rank, const int64_t *shape,
         const int64_t *a_strides, const int64_t *b_strides, int32_t a_zp, int32_t b_zp,
         int32_t y_zp, int32_t multiplier, int32_t shift, int32_t act_min, int32_t act_max) {
  const int64_t n = product(shape, rank);
  launch_over(n, detail::mul_kernel<T>, stream, a, b, y, n, int(rank), dims_of(shape, rank),
              dims_of(a_strides, rank), dims_of(b_strides, rank), a_zp, b_zp, y_zp, multiplier,
              shift, act_min, act_max);
}

/// qs8::average_pool: 1-D and 2-D windows by planes, more dims one output
/// a thread.
template <typename T>
void average_pool(Stream *stream, const T *x, T *y, int64_t rank, const int64_t *in_shape,
                  const int64_t *out_shape, const int64_t *kernel, const int64_t *strides,
                  const int64_t *pads_begin, const int64_t *pads_end, const int64_t *dilations,
                  int64_t count_include_pad, int32_t x_zp, int32_t y_zp, int32_t multiplier,
                  int32_t shift) {
  if (rank > 2) {
    const int64_t total = product(out_shape, rank + 2);
    launch_over(total, detail::average_pool_nd_kernel<T>, stream, x, y,
                ::onnxc_rt::cuda::detail::window_nd(rank, in_shape, out_shape, kernel, strides,
                                                    pads_begin, pads_end, dilations),
                count_include_pad, x_zp, y_zp, multiplier, shift, total);
    return;
  }
  const detail::Window2d g = ::onnxc_rt::cuda::detail::window2d(rank, in_shape, out_shape,
                                                                kernel, strides, pads_begin,
                                                                dilations);
  const int pad_h_end = rank == 1 ? 0 : int(pads_end[0]);
  const int pad_w_end = int(pads_end[rank == 1 ? 0 : 1]);
  ::onnxc_rt::cuda::detail::launch_planes(detail::average_pool_kernel<T>, g,
                                          int64_t(g.n) * g.c, stream, x, y, g, pad_h_end,
                                          pad_w_end, int(count_include_pad), x_zp, y_zp,
                                          multiplier, shift);
}

template <typename TIn, typename TOut>
void rescale(Stream *stream, const TIn *x, int32_t x_zp, int32_t multiplier, int32_t shift,
             int32_t y_zp, TOut *y, int64_t n) {
  launch_over(n, detail::rescale_kernel<TIn, TOut>, stream, x, x_zp, multiplier, shift, y_zp, y, n);
}

template <typename T> void lookup(Stream *stream, const T *x, const T *table, T *y, int64_t n) {
  launch_over(n, detail::lookup_kernel<T>, stream, x, table, y, n);
}

} // namespace qs8
} // namespace cuda
} // namespace onnxc_rt

#endif
