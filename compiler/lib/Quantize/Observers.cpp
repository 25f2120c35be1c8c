//===- Observers.cpp - calibration ranges from observed values --------------===//
//
// See Quantize.h. MinMax takes the observed extremes; Percentile looks at a
// histogram of the values (2048 bins over [min, max], filled in a second
// pass over the calibration samples) and clips rare outliers, which buys
// resolution for the bulk of the values. Entropy searches the clipping
// threshold whose quantized histogram loses the least information (KL
// divergence), as TensorRT's calibrator does.
//
//===----------------------------------------------------------------------===//
#include "onnxc/Quantize/Quantize.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace onnxc {

Histogram::Histogram(float lo, float hi, int bins)
    : lo_(std::min(lo, 0.0f)), hi_(std::max(hi, 0.0f)), counts_(bins, 0) {}

void Histogram::add(const float *v, int64_t n, bool skipZeros) {
  const double width = (double(hi_) - double(lo_)) / double(counts_.size());
  for (int64_t i = 0; i < n; ++i) {
    if (skipZeros && v[i] == 0.0f)
      continue;
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

TensorRange Histogram::entropyRange() const {
  const int64_t nb = int64_t(counts_.size());
  constexpr int64_t kLevels = 256; // int8 steps across the range
  if (total_ == 0 || nb < kLevels)
    return {lo_, hi_};
  // The bin holding 0: every candidate range keeps 0 inside.
  const int64_t zero = std::clamp<int64_t>(
      int64_t(-double(lo_) / (double(hi_) - double(lo_)) * double(nb)), 0, nb - 1);
  // Candidate ends: every `step`-th bin edge on each side of 0, with the
  // observed extremes (a 2-D search of ~64 x 64 ranges).
  const int64_t step = std::max<int64_t>(1, nb / 64);
  std::vector<int64_t> firsts, ends;
  for (int64_t a = zero; a > 0; a -= step)
    firsts.push_back(a);
  firsts.push_back(0);
  for (int64_t e = zero + 1; e < nb; e += step)
    ends.push_back(e);
  ends.push_back(nb);
  double best = std::numeric_limits<double>::infinity();
  int64_t bestFirst = 0, bestEnd = nb;
  std::vector<double> p(nb), q(nb);
  // upTo[j]: the values in bins [0, j), for the clipped tails of each range.
  std::vector<int64_t> upTo(nb + 1, 0);
  for (int64_t j = 0; j < nb; ++j)
    upTo[j + 1] = upTo[j] + counts_[j];
  for (int64_t first : firsts)
    for (int64_t end : ends) {
      const int64_t width = end - first;
      if (width < kLevels)
        continue;
      // P: the bins of the range, the values outside clipped into its
      // first and last bins.
      const double below = double(upTo[first]), above = double(upTo[nb] - upTo[end]);
      for (int64_t j = first; j < end; ++j)
        p[j] = double(counts_[j]);
      p[first] += below;
      p[end - 1] += above;
      // Q: the range's bins without the clipped values, merged into
      // kLevels groups, each group's count spread over its non-empty bins.
      // What was clipped shows as P's excess in the end bins.
      for (int64_t g = 0; g < kLevels; ++g) {
        const int64_t from = first + g * width / kLevels, to = first + (g + 1) * width / kLevels;
        double sum = 0;
        int64_t nonEmpty = 0;
        for (int64_t j = from; j < to; ++j) {
          sum += double(counts_[j]);
          nonEmpty += counts_[j] > 0;
        }
        for (int64_t j = from; j < to; ++j)
          q[j] = counts_[j] > 0 ? sum / double(nonEmpty) : 0.0;
      }
      // KL(P || Q) of the normalised histograms; where Q is empty and P is
      // not (an end bin that only clipped values fill), Q counts as a small
      // epsilon (TensorRT smooths the same way).
      double pTotal = 0, qTotal = 0;
      for (int64_t j = first; j < end; ++j) {
        pTotal += p[j];
        qTotal += q[j];
      }
      if (qTotal <= 0)
        continue;
      constexpr double kEpsilon = 1e-4;
      double kl = 0;
      for (int64_t j = first; j < end; ++j)
        if (p[j] > 0) {
          const double pj = p[j] / pTotal, qj = std::max(q[j] / qTotal, kEpsilon * pj);
          kl += pj * std::log(pj / qj);
        }
      if (kl < best) {
        best = kl;
        bestFirst = first;
        bestEnd = end;
      }
    }
  return {float(std::min(edge(bestFirst), 0.0)), float(std::max(edge(bestEnd), 0.0))};
}

} // namespace onnxc
