// SIMD row-wise normalisations over the last axis: softmax / log-softmax,
// layer normalisation and the row mean (global average pooling). Each row is read a few times while it sits in L1;
// exponentials use the vector exp of simd.h. Same semantics as the
// reference kernels (ref::softmax modes 0 and 1, ref::layer_norm), float
// only, computed in float rather than the reference's double.
#ifndef ONNXC_RT_SIMD_F32_NORM_H
#define ONNXC_RT_SIMD_F32_NORM_H

#include <math.h>

#include "onnxc_rt/base.h"
#include "onnxc_rt/parallel.h"
#include "onnxc_rt/kernels/simd/vec.h"

namespace onnxc_rt {
namespace simd {

/// Softmax (mode 0) or log-softmax (mode 1) of each of `outer` rows of n
/// contiguous floats: y = e^(x - max) / sum, or x - max - ln(sum).
/// `tasks` take runs of the rows (at about 2 cycles a value).
inline void softmax(const float *x, float *y, int64_t outer, int64_t n, int64_t mode,
                    TaskRunner *runner = nullptr, int64_t tasks = 1) {
  if (tasks > 1)
    return for_each_split(runner, tasks, outer, 1, 2 * outer * n, [&](int64_t r0, int64_t r1) {
      softmax(x + r0 * n, y + r0 * n, r1 - r0, n, mode);
    });
  constexpr int64_t L = VecF::kLanes;
  // Whole vectors end at nv; the tails are separate loops from nv (GCC
  // misjudges a tail loop that continues the vector loop's index).
  const int64_t nv = n / L * L;
  for (int64_t r = 0; r < outer && n > 0; ++r) {
    const float *xr = x + r * n;
    float *yr = y + r * n;
    float mx = xr[0];
    if (nv > 0) {
      VecF m = VecF::load(xr);
      for (int64_t i = L; i < nv; i += L)
        m = VecF::max(VecF::load(xr + i), m);
      mx = reduce_max(m);
    }
    for (int64_t i = nv; i < n; ++i)
      mx = xr[i] > mx ? xr[i] : mx;
    const VecF vmx = VecF::broadcast(mx);
    VecF acc = VecF::zero();
    for (int64_t i = 0; i < nv; i += L) {
      const VecF e = exp(VecF::sub(VecF::load(xr + i), vmx));
      acc = VecF::add(acc, e);
      if (mode == 0)
        e.store(yr + i);
    }
    float sum = reduce_add(acc);
    for (int64_t i = nv; i < n; ++i) {
      const float e = expf(xr[i] - mx);
      sum += e;
      if (mode == 0)
        yr[i] = e;
    }
    if (mode == 0) {
      const float inv = 1.0f / sum;
      for (int64_t i = 0; i < n; ++i)
        yr[i] *= inv;
    } else {
      const float shift = mx + logf(sum);
      for (int64_t i = 0; i < n; ++i)
        yr[i] = xr[i] - shift;
    }
  }
}

/// Layer normalisation of each of `outer` rows of `inner` floats:
/// y = (x - mean) / sqrt(var + epsilon) * scale (+ bias); mean_out and
/// inv_std_out (may be null) receive each row's mean and 1 / sqrt(var + eps).
/// `tasks` take runs of the rows (at about a cycle a value).
inline void layer_norm(const float *x, const float *scale, const float *bias, float *y,
                       float *mean_out, float *inv_std_out, int64_t outer, int64_t inner,
                       float epsilon, TaskRunner *runner = nullptr, int64_t tasks = 1) {
  if (tasks > 1)
    return for_each_split(runner, tasks, outer, 1, outer * inner, [&](int64_t r0, int64_t r1) {
      layer_norm(x + r0 * inner, scale, bias, y + r0 * inner, mean_out ? mean_out + r0 : nullptr,
                 inv_std_out ? inv_std_out + r0 : nullptr, r1 - r0, inner, epsilon);
    });
  constexpr int64_t L = VecF::kLanes;
  const int64_t n2 = inner / (2 * L) * (2 * L), n1 = inner / L * L; // vector ends
  for (int64_t r = 0; r < outer; ++r) {
    const float *xr = x + r * inner;
    float *yr = y + r * inner;
    // Two passes (mean, then squared deviations) as the reference does:
    // no cancellation when the mean is large against the spread.
    VecF s0 = VecF::zero(), s1 = VecF::zero();
    for (int64_t i = 0; i < n2; i += 2 * L) {
      s0 = VecF::add(s0, VecF::load(xr + i));
      s1 = VecF::add(s1, VecF::load(xr + i + L));
    }
    float sum = reduce_add(VecF::add(s0, s1));
    for (int64_t i = n2; i < inner; ++i)
      sum += xr[i];
    const float mean = sum / float(inner);
    const VecF vmean = VecF::broadcast(mean);
    s0 = s1 = VecF::zero();
    for (int64_t i = 0; i < n2; i += 2 * L) {
      const VecF d0 = VecF::sub(VecF::load(xr + i), vmean);
      const VecF d1 = VecF::sub(VecF::load(xr + i + L), vmean);
      s0 = VecF::fma(d0, d0, s0);
      s1 = VecF::fma(d1, d1, s1);
    }
    float sq = reduce_add(VecF::add(s0, s1));
    for (int64_t i = n2; i < inner; ++i)
      sq += (xr[i] - mean) * (xr[i] - mean);
    const float inv = 1.0f / sqrtf(sq / float(inner) + epsilon);
    const VecF vinv = VecF::broadcast(inv);
    for (int64_t i = 0; i < n1; i += L) {
      VecF v = VecF::mul(VecF::mul(VecF::sub(VecF::load(xr + i), vmean), vinv),
                         VecF::load(scale + i));
      if (bias)
        v = VecF::add(v, VecF::load(bias + i));
      v.store(yr + i);
    }
    for (int64_t i = n1; i < inner; ++i)
      yr[i] = (xr[i] - mean) * inv * scale[i] + (bias ? bias[i] : 0.0f);
    if (mean_out)
      mean_out[r] = mean;
    if (inv_std_out)
      inv_std_out[r] = inv;
  }
}

/// y[r] = the mean of row r's n floats, for `outer` rows (GlobalAveragePool
/// over NCHW: a row per channel). Four vector accumulators (the adds'
/// latency otherwise bounds the loop), summed in float like the reference's
/// eight interleaved partial sums, in a different order.
inline void row_mean(const float *x, float *y, int64_t outer, int64_t n) {
  constexpr int64_t L = VecF::kLanes;
  const int64_t n4 = n / (4 * L) * (4 * L), nv = n / L * L;
  for (int64_t r = 0; r < outer; ++r) {
    const float *xr = x + r * n;
    VecF acc[4] = {VecF::zero(), VecF::zero(), VecF::zero(), VecF::zero()};
    for (int64_t i = 0; i < n4; i += 4 * L)
      for (int k = 0; k < 4; ++k)
        acc[k] = VecF::add(acc[k], VecF::load(xr + i + k * L));
    for (int64_t i = n4; i < nv; i += L)
      acc[0] = VecF::add(acc[0], VecF::load(xr + i));
    float sum = reduce_add(VecF::add(VecF::add(acc[0], acc[1]), VecF::add(acc[2], acc[3])));
    for (int64_t i = nv; i < n; ++i)
      sum += xr[i];
    y[r] = n > 0 ? sum / float(n) : 0.0f;
  }
}

} // namespace simd
} // namespace onnxc_rt

#endif
