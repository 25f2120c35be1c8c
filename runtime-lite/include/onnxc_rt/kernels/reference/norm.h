// Reference normalizations and the softmax family.
#ifndef ONNXC_RT_REF_NORM_H
#define ONNXC_RT_REF_NORM_H

#include <cmath>

#include "onnxc_rt/base.h"

namespace onnxc_rt {
namespace ref {

namespace detail {
/// Mean and (biased) variance of n contiguous values, two-pass in double:
/// the statistics of layer, instance and group normalization.
template <typename T> inline void moments(const T *x, int64_t n, double &mean, double &var) {
  mean = 0;
  var = 0;
  for (int64_t i = 0; i < n; ++i)
    mean += double(x[i]);
  mean /= double(n);
  for (int64_t i = 0; i < n; ++i)
    var += (double(x[i]) - mean) * (double(x[i]) - mean);
  var /= double(n);
}
} // namespace detail

/// Inference batch norm's per-channel affine map y = x * mul + add (host
/// and CUDA).
template <typename T>
ONNXC_RT_HD inline void batch_norm_factors(T scale, T bias, T mean, T var, float epsilon, T &mul,
                               T &add) {
  const T inv = T(1) / T(std::sqrt(var + T(epsilon)));
  mul = scale * inv;
  add = bias - mean * mul;
}

/// Inference batch norm over (N, C, spatial) with per-channel parameters.
template <typename T>
void batch_norm(const T *x, const T *scale, const T *bias, const T *mean,
                const T *var, T *y, int64_t n, int64_t c, int64_t spatial,
                float epsilon) {
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      T mul, add;
      batch_norm_factors(scale[ch], bias[ch], mean[ch], var[ch], epsilon, mul, add);
      const int64_t base = (b * c + ch) * spatial;
      for (int64_t i = 0; i < spatial; ++i)
        y[base + i] = x[base + i] * mul + add;
    }
}

/// Folds an inference batch norm into the linear layer before it (a Conv,
/// or a Gemm): its weights w, laid out outer x c x rest with the c output
/// channels on the middle axis (a Conv's M x (C/g*kh*kw) is 1 x M x rest,
/// a Gemm's K x M B is K x M x 1), become w * mul and its bias b (c values)
/// b * mul + add, with batch_norm's own factors: the compiler's fold and
/// the quantizer's are this one function.
template <typename T>
void batch_norm_fold(T *w, T *b, int64_t outer, int64_t c, int64_t rest, const T *scale,
                     const T *bias, const T *mean, const T *var, float epsilon) {
  for (int64_t ch = 0; ch < c; ++ch) {
    T mul, add;
    batch_norm_factors(scale[ch], bias[ch], mean[ch], var[ch], epsilon, mul, add);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < rest; ++i)
        w[(o * c + ch) * rest + i] *= mul;
    b[ch] = b[ch] * mul + add;
  }
}

/// Training-mode batch norm of channel ch (below): its statistics in double
/// in the host's order. Host and CUDA.
template <typename T>
ONNXC_RT_HD inline void batch_norm_training_channel(
    int64_t ch, const T *x, const T *scale, const T *bias, const T *in_mean, const T *in_var,
    T *y, T *running_mean, T *running_var, int64_t n, int64_t c, int64_t spatial, float epsilon,
    float momentum) {
  const double count = double(n * spatial);
  double mean = 0, var = 0;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < spatial; ++i)
      mean += double(x[(b * c + ch) * spatial + i]);
  mean /= count;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < spatial; ++i) {
      const double d = double(x[(b * c + ch) * spatial + i]) - mean;
      var += d * d;
    }
  var /= count;
  const double inv = 1.0 / std::sqrt(var + double(epsilon));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < spatial; ++i) {
      const int64_t o = (b * c + ch) * spatial + i;
      y[o] = T((double(x[o]) - mean) * inv * double(scale[ch]) + double(bias[ch]));
    }
  if (running_mean)
    running_mean[ch] = T(double(in_mean[ch]) * momentum + mean * (1 - double(momentum)));
  if (running_var)
    running_var[ch] = T(double(in_var[ch]) * momentum + var * (1 - double(momentum)));
}

/// Training-mode batch norm: normalise with the batch's per-channel mean and
/// biased variance; running_mean/running_var (may be null) get
/// input * momentum + batch * (1 - momentum).
template <typename T>
void batch_norm_training(const T *x, const T *scale, const T *bias, const T *in_mean,
                         const T *in_var, T *y, T *running_mean, T *running_var, int64_t n,
                         int64_t c, int64_t spatial, float epsilon, float momentum) {
  for (int64_t ch = 0; ch < c; ++ch)
    batch_norm_training_channel(ch, x, scale, bias, in_mean, in_var, y, running_mean,
                                running_var, n, c, spatial, epsilon, momentum);
}

/// Layer norm over the trailing `inner` elements of each of `outer` rows.
/// scale/bias (bias may be null) have `inner` elements; mean/inv_std (may be
/// null) receive one value per row. Statistics are computed in float or wider.
template <typename T>
void layer_norm(const T *x, const T *scale, const T *bias, T *y, T *mean_out,
                T *inv_std_out, int64_t outer, int64_t inner, float epsilon) {
  for (int64_t r = 0; r < outer; ++r) {
    const T *xr = x + r * inner;
    T *yr = y + r * inner;
    double mean, var;
    detail::moments(xr, inner, mean, var);
    const double inv = 1.0 / std::sqrt(var + double(epsilon));
    for (int64_t i = 0; i < inner; ++i) {
      double v = (double(xr[i]) - mean) * inv * double(scale[i]);
      if (bias)
        v += double(bias[i]);
      yr[i] = T(v);
    }
    if (mean_out)
      mean_out[r] = T(mean);
    if (inv_std_out)
      inv_std_out[r] = T(inv);
  }
}

/// mode 0: softmax, 1: log-softmax, 2: hardmax; along the middle dim of
/// (outer, axis_dim, inner).
template <typename T>
void softmax(const T *x, T *y, int64_t outer, int64_t axis_dim, int64_t inner,
             int64_t mode) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      const T *xp = x + o * axis_dim * inner + in;
      T *yp = y + o * axis_dim * inner + in;
      T mx = xp[0];
      int64_t arg = 0;
      for (int64_t i = 1; i < axis_dim; ++i)
        if (xp[i * inner] > mx) {
          mx = xp[i * inner];
          arg = i;
        }
      if (mode == 2) {
        for (int64_t i = 0; i < axis_dim; ++i)
          yp[i * inner] = T(i == arg ? 1 : 0);
        continue;
      }
      T sum = T(0);
      for (int64_t i = 0; i < axis_dim; ++i) {
        T e = T(std::exp(xp[i * inner] - mx));
        if (mode == 0)
          yp[i * inner] = e;
        sum += e;
      }
      if (mode == 0) {
        const T inv = T(1) / sum;
        for (int64_t i = 0; i < axis_dim; ++i)
          yp[i * inner] *= inv;
      } else {
        const T lse = T(std::log(sum));
        for (int64_t i = 0; i < axis_dim; ++i)
          yp[i * inner] = xp[i * inner] - mx - lse;
      }
    }
}

/// Instance norm: each (n, c) plane of `spatial` elements normalised, then
/// scale[c] and bias[c].
template <typename T>
void instance_norm(const T *x, const T *scale, const T *bias, T *y, int64_t n,
                   int64_t c, int64_t spatial, float epsilon) {
  for (int64_t p = 0; p < n * c; ++p) {
    const T *xp = x + p * spatial;
    T *yp = y + p * spatial;
    double mean, var;
    detail::moments(xp, spatial, mean, var);
    const double inv = 1.0 / std::sqrt(var + double(epsilon));
    const int64_t ch = p % c;
    for (int64_t i = 0; i < spatial; ++i)
      yp[i] = T((double(xp[i]) - mean) * inv * double(scale[ch]) + double(bias[ch]));
  }
}

/// Group norm: channels in `groups` groups, each (n, group) normalised over
/// its channels and spatial positions, then scale[c] and bias[c].
template <typename T>
void group_norm(const T *x, const T *scale, const T *bias, T *y, int64_t n, int64_t c,
                int64_t spatial, int64_t groups, float epsilon) {
  const int64_t cg = c / groups, size = cg * spatial;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t base = (b * c + g * cg) * spatial;
      double mean, var;
      detail::moments(x + base, size, mean, var);
      const double inv = 1.0 / std::sqrt(var + double(epsilon));
      for (int64_t i = 0; i < size; ++i) {
        const int64_t ch = g * cg + i / spatial;
        y[base + i] = T((double(x[base + i]) - mean) * inv * double(scale[ch]) + double(bias[ch]));
      }
    }
}

/// Local response normalization's value at element `off` = (b, ch, i) of
/// (N, C, spatial): x over (bias + alpha / size * the sum of squares of
/// the `size` channels around ch) ^ beta, in double (host and CUDA).
template <typename T>
ONNXC_RT_HD inline T lrn_element(const T *x, int64_t c, int64_t spatial, int64_t off,
                                 float alpha, float beta, float bias, int64_t size) {
  const int64_t before = (size - 1) / 2, after = size - 1 - before;
  const int64_t ch = off / spatial % c, plane0 = off - ch * spatial;
  double sq = 0;
  for (int64_t k = ch - before; k <= ch + after; ++k)
    if (k >= 0 && k < c) {
      const double v = double(x[plane0 + k * spatial]);
      sq += v * v;
    }
  return T(double(x[off]) /
           std::pow(double(bias) + double(alpha) / double(size) * sq, double(beta)));
}

/// Local response normalization across channels of (N, C, spatial).
template <typename T>
void lrn(const T *x, T *y, int64_t n, int64_t c, int64_t spatial, float alpha,
         float beta, float bias, int64_t size) {
  for (int64_t off = 0; off < n * c * spatial; ++off)
    y[off] = lrn_element(x, c, spatial, off, alpha, beta, bias, size);
}

/// Negative log likelihood over input (N, C, D) and target (N, D):
/// loss[n, d] = -input[n, t, d] * weight[t] (weight may be null; targets
/// equal to ignore_index contribute nothing). reduction: 0 none (y has N*D
/// values), 1 sum, 2 mean (divided by the total weight).
/// One element's term: e = b * D + i; loss and weight 0 for an ignored or
/// out-of-range target. (Also the CUDA kernel's, hence ONNXC_RT_HD.)
template <typename T, typename I>
ONNXC_RT_HD inline void nll_term(const T *input, const I *target, const T *weight, int64_t c,
                                 int64_t d, int64_t e, int64_t ignore_index,
                                 int64_t has_ignore, double &loss, double &w) {
  const int64_t b = e / d, i = e % d;
  const int64_t t = static_cast<int64_t>(target[e]);
  loss = 0;
  w = 0;
  if (!(has_ignore && t == ignore_index) && t >= 0 && t < c) {
    w = weight ? double(weight[t]) : 1.0;
    loss = -double(input[(b * c + t) * d + i]) * w;
  }
}

template <typename T, typename I>
void nll_loss(const T *input, const I *target, const T *weight, T *y, int64_t n,
              int64_t c, int64_t d, int64_t reduction, int64_t ignore_index,
              int64_t has_ignore) {
  double sum = 0, wsum = 0;
  for (int64_t e = 0; e < n * d; ++e) {
    double loss, w;
    nll_term(input, target, weight, c, d, e, ignore_index, has_ignore, loss, w);
    if (reduction == 0)
      y[e] = T(loss);
    sum += loss;
    wsum += w;
  }
  if (reduction == 1)
    y[0] = T(sum);
  else if (reduction == 2)
    y[0] = T(sum / wsum);
}

} // namespace ref
} // namespace onnxc_rt

#endif
