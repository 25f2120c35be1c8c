// Reference signal kernels: DFT, STFT, MelWeightMatrix (opset 17), in double;
// each output (a bin, a mel column) by a rule the CUDA kernels call too.
#ifndef ONNXC_RT_REF_SIGNAL_H
#define ONNXC_RT_REF_SIGNAL_H

#include <cmath>

#include "onnxc_rt/base.h"

namespace onnxc_rt {
namespace ref {

/// Bin k of DFT's line (o, in), below: the sum in double in t order. Host
/// and CUDA (whose cos and sin may differ from the host's in the last
/// place).
template <typename T>
ONNXC_RT_HD inline void dft_bin(const T *x, T *y, int64_t o, int64_t in, int64_t k, int64_t n_in,
                                int64_t inner, int64_t complex_in, int64_t n_fft, int64_t n_out,
                                int64_t inverse) {
  const double pi = 3.14159265358979323846, sign = inverse ? 1.0 : -1.0;
  const int64_t n_used = n_in < n_fft ? n_in : n_fft;
  double re = 0, im = 0;
  for (int64_t t = 0; t < n_used; ++t) {
    const T *xp = x + ((o * n_in + t) * inner + in) * complex_in;
    const double xr = double(xp[0]), xi = complex_in == 2 ? double(xp[1]) : 0.0;
    const double a = sign * 2 * pi * double((k * t) % n_fft) / double(n_fft);
    re += xr * std::cos(a) - xi * std::sin(a);
    im += xr * std::sin(a) + xi * std::cos(a);
  }
  if (inverse) {
    re /= double(n_fft);
    im /= double(n_fft);
  }
  T *yp = y + ((o * n_out + k) * inner + in) * 2;
  yp[0] = T(re);
  yp[1] = T(im);
}

/// DFT along the middle dim of x viewed as (outer, n_in, inner, complex_in)
/// with complex_in 1 (real) or 2; y is (outer, n_out, inner, 2). The signal
/// is zero-padded or truncated to n_fft; n_out is n_fft or n_fft / 2 + 1.
template <typename T>
void dft(const T *x, T *y, int64_t outer, int64_t n_in, int64_t inner, int64_t complex_in,
         int64_t n_fft, int64_t n_out, int64_t inverse) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in)
      for (int64_t k = 0; k < n_out; ++k)
        dft_bin(x, y, o, in, k, n_in, inner, complex_in, n_fft, n_out, inverse);
}

/// Bin k of STFT's frame f of batch entry b (below): the sum in double in
/// t order. Host and CUDA.
template <typename T>
ONNXC_RT_HD inline void stft_bin(const T *x, const T *window, T *y, int64_t b, int64_t f,
                                 int64_t k, int64_t length, int64_t complex_in,
                                 int64_t frame_step, int64_t frame_length, int64_t frames,
                                 int64_t n_out) {
  const double pi = 3.14159265358979323846;
  double re = 0, im = 0;
  for (int64_t t = 0; t < frame_length; ++t) {
    const int64_t s = f * frame_step + t;
    if (s >= length)
      break;
    const T *xp = x + (b * length + s) * complex_in;
    const double wv = window ? double(window[t]) : 1.0;
    const double xr = double(xp[0]) * wv;
    const double xi = complex_in == 2 ? double(xp[1]) * wv : 0.0;
    const double a = -2 * pi * double((k * t) % frame_length) / double(frame_length);
    re += xr * std::cos(a) - xi * std::sin(a);
    im += xr * std::sin(a) + xi * std::cos(a);
  }
  T *yp = y + ((b * frames + f) * n_out + k) * 2;
  yp[0] = T(re);
  yp[1] = T(im);
}

/// STFT of signal (batch, length, complex_in): frames of frame_length every
/// frame_step, times window (may be null), each transformed to n_out bins:
/// y is (batch, frames, n_out, 2).
template <typename T>
void stft(const T *x, const T *window, T *y, int64_t batch, int64_t length,
          int64_t complex_in, int64_t frame_step, int64_t frame_length, int64_t frames,
          int64_t n_out) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t f = 0; f < frames; ++f)
      for (int64_t k = 0; k < n_out; ++k)
        stft_bin(x, window, y, b, f, k, length, complex_in, frame_step, frame_length, frames,
                 n_out);
}

/// Edge i of MelWeightMatrix's num_mel_bins + 2 (below): a DFT bin, as the
/// ONNX reference divides the mel range into num_mel_bins + 2 steps. Host
/// and CUDA.
ONNXC_RT_HD inline int64_t mel_edge(int64_t i, int64_t num_mel_bins, int64_t dft_length,
                                    double sample_rate, double lower_hz, double upper_hz) {
  const double low = 2595 * std::log10(1 + lower_hz / 700);
  const double high = 2595 * std::log10(1 + upper_hz / 700);
  const double step = (high - low) / double(num_mel_bins + 2);
  const double hz = 700 * (std::pow(10.0, (double(i) * step + low) / 2595) - 1);
  return int64_t(std::floor(double(dft_length + 1) * hz / sample_rate));
}

/// Column i (mel bin i) of MelWeightMatrix's y: its triangle between edges
/// lo, center and hi, zeros elsewhere. Host and CUDA.
template <typename T>
ONNXC_RT_HD inline void mel_column(T *y, int64_t i, int64_t num_mel_bins, int64_t bins,
                                   int64_t lo, int64_t center, int64_t hi) {
  for (int64_t j = 0; j < bins; ++j)
    y[j * num_mel_bins + i] = T(0);
  if (center - lo == 0) {
    if (center >= 0 && center < bins)
      y[center * num_mel_bins + i] = T(1);
  } else {
    for (int64_t j = lo; j <= center; ++j)
      if (j >= 0 && j < bins)
        y[j * num_mel_bins + i] = T(double(j - lo) / double(center - lo));
  }
  if (hi - center > 0)
    for (int64_t j = center; j < hi; ++j)
      if (j >= 0 && j < bins)
        y[j * num_mel_bins + i] = T(double(hi - j) / double(hi - center));
}

/// Triangular mel filters as the ONNX reference builds them: y is
/// (dft_length / 2 + 1, num_mel_bins); scratch holds num_mel_bins + 2 ints.
template <typename T, typename R, typename F>
void mel_weight_matrix(T *y, int64_t num_mel_bins, int64_t dft_length, const R *rate,
                       const F *lower, const F *upper, int64_t *scratch) {
  const double sample_rate = double(*rate), lower_hz = double(*lower),
               upper_hz = double(*upper);
  int64_t *f = scratch;
  for (int64_t i = 0; i < num_mel_bins + 2; ++i)
    f[i] = mel_edge(i, num_mel_bins, dft_length, sample_rate, lower_hz, upper_hz);
  for (int64_t i = 0; i < num_mel_bins; ++i)
    mel_column(y, i, num_mel_bins, dft_length / 2 + 1, f[i], f[i + 1], f[i + 2]);
}

} // namespace ref
} // namespace onnxc_rt

#endif
