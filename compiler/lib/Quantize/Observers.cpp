//===- Observers.cpp - calibration ranges from observed values --------------===//
//
// See Quantize.h. MinMax takes the observed extremes; Percentile looks at a
// histogram of the values (2048 bins over [min, max], filled in a second
// pass over the calibration samples) and clips rare outliers, which buys
// resolution for the bulk of the values.
//
//===----------------------------------------------------------------------===//
#include "onnxc/Quantize/Quantize.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace onnxc {

Histogram::Histogram(float lo, float hi, int bins)
    : lo_(std::min(lo, 0.0f)), hi_(std::max(hi, 0.0f)), counts_(bins, 0) {}

void Histogram::add(const float *v, int64_t n) {
  const double width = (double(hi_) - double(lo_)) / double(counts_.size());
  for (int64_t i = 0; i < n; ++i) {
    int64_t b = width > 0 ? int64_t((double(v[i]) - lo_) / width) : 0;
    counts_[std::clamp<int64_t>(b, 0, int64_t(counts_.size()) - 1)] += 1;
    total_ += 1;
  }
}

double Histogram::edge(int64_t bin) const {
  return double(lo_) + (double(hi_) - double(lo_)) * double(bin) / double(counts_.size());
}

TensorRange Histogram::percentileRange(double percentile) const {
  if (total_ == 0)
    return {lo_, hi_};
  // Each tail keeps (100 - percentile)% of the values outside the range.
  const double tail = double(total_) * (100.0 - percentile) / 100.0;
  const int64_t nb = int64_t(counts_.size());
  int64_t first = 0, last = nb - 1;
  for (double below = 0; first < nb && below + double(counts_[first]) <= tail; ++first)
    below += double(counts_[first]);
  for (double above = 0; last > first && above + double(counts_[last]) <= tail; --last)
    above += double(counts_[last]);
  return {float(std::min(edge(first), 0.0)), float(std::max(edge(last + 1), 0.0))};
}

} // namespace onnxc
