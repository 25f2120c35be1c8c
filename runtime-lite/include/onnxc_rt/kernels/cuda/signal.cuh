// CUDA DFT and STFT, one output bin a thread by the reference's dft_bin
// and stft_bin (the sums in double, in the host's order; the GPU's cos and
// sin may differ from the host's in the last place), and MelWeightMatrix,
// one mel bin's column a thread (mel_edge, mel_column).
#ifndef ONNXC_RT_CUDA_SIGNAL_CUH
#define ONNXC_RT_CUDA_SIGNAL_CUH

#include "onnxc_rt/kernels/cuda/common.cuh"
#include "onnxc_rt/kernels/reference/signal.h"

namespace onnxc_rt {
namespace cuda {
namespace detail {

template <typename T>
__global__ void dft_kernel(const T *x, T *y, int64_t outer, int64_t n_in, int64_t inner,
                           int64_t complex_in, int64_t n_fft, int64_t n_out, int64_t inverse) {
  ONNXC_CUDA_FOR(i, outer * n_out * inner) {
    const int64_t in = i % inner, k = i / inner % n_out, o = i / (inner * n_out);
    ref::dft_bin(x, y, o, in, k, n_in, inner, complex_in, n_fft, n_out, inverse);
  }
}

template <typename T>
__global__ void stft_kernel(const T *x, const T *window, T *y, int64_t batch, int64_t length,
                            int64_t complex_in, int64_t frame_step, int64_t frame_length,
                            int64_t frames, int64_t n_out) {
  ONNXC_CUDA_FOR(i, batch * frames * n_out) {
    const int64_t k = i % n_out, f = i / n_out % frames, b = i / (n_out * frames);
    ref::stft_bin(x, window, y, b, f, k, length, complex_in, frame_step, frame_length, frames,
                  n_out);
  }
}

template <typename T, typename R, typename F>
__global__ void mel_kernel(T *y, int64_t num_mel_bins, int64_t dft_length, const R *rate,
                           const F *lower, const F *upper) {
  const double sample_rate = double(*rate), lower_hz = double(*lower), upper_hz = double(*upper);
  ONNXC_CUDA_FOR(i, num_mel_bins) {
    auto edge = [&](int64_t e) {
      return ref::mel_edge(e, num_mel_bins, dft_length, sample_rate, lower_hz, upper_hz);
    };
    ref::mel_column(y, i, num_mel_bins, dft_length / 2 + 1, edge(i), edge(i + 1), edge(i + 2));
  }
}

} // namespace detail

template <typename T>
void stft(Stream *stream, const T *x, const T *window, T *y, int64_t batch, int64_t length,
          int64_t complex_in, int64_t frame_step, int64_t frame_length, int64_t frames,
          int64_t n_out) {
  const int64_t bins = batch * frames * n_out;
  launch_over(bins, detail::stft_kernel<T>, stream, x, window, y, batch, length, complex_in,
              frame_step, frame_length, frames, n_out);
}

/// MelWeightMatrix (the scratch the reference's edges use is not needed:
/// each column's thread works out its three).
template <typename T, typename R, typename F>
void mel_weight_matrix(Stream *stream, T *y, int64_t num_mel_bins, int64_t dft_length,
                       const R *rate, const F *lower, const F *upper, int64_t *scratch) {
  (void)scratch;
  launch_over(num_mel_bins, detail::mel_kernel<T, R, F>, stream, y, num_mel_bins, dft_length, rate,
              lower, upper);
}

template <typename T>
void dft(Stream *stream, const T *x, T *y, int64_t outer, int64_t n_in, int64_t inner,
         int64_t complex_in, int64_t n_fft, int64_t n_out, int64_t inverse) {
  const int64_t bins = outer * n_out * inner;
  launch_over(bins, detail::dft_kernel<T>, stream, x, y, outer, n_in, inner, complex_in, n_fft,
              n_out, inverse);
}

} // namespace cuda
} // namespace onnxc_rt

#endif // ONNXC_RT_CUDA_SIGNAL_CUH
