// Unit tests of the calibration observers (compiler/lib/Quantize): the
// ranges Percentile chooses on known distributions.
#include <catch2/catch.hpp>

#include "onnxc/Quantize/Quantize.h"

#include <algorithm>
#include <random>
#include <vector>

using namespace onnxc;

TEST_CASE("Percentile clips each tail and keeps 0 inside", "[observers]") {
  std::vector<float> v(10000);
  for (int i = 0; i < 10000; ++i)
    v[i] = float(i) - 2000.0f; // uniform on [-2000, 7999]
  Histogram h(-2000.0f, 7999.0f);
  h.add(v.data(), int64_t(v.size()));
  TensorRange r = h.percentileRange(99.0); // 1% (100 values) outside on each side
  const float bin = 9999.0f / 2048.0f;
  CHECK(r.lo == Approx(-1900.0f).margin(2 * bin));
  CHECK(r.hi == Approx(7900.0f).margin(2 * bin));
  SECTION("all of a non-negative tensor's lower tail is 0") {
    std::vector<float> relu(1000);
    for (int i = 0; i < 1000; ++i)
      relu[i] = float(i);
    Histogram hr(0.0f, 999.0f);
    hr.add(relu.data(), 1000);
    TensorRange rr = hr.percentileRange(99.9);
    CHECK(rr.lo == 0.0f);
    CHECK(rr.hi == Approx(999.0f).margin(2.0f));
  }
}

TEST_CASE("Percentile ignores a far outlier that MinMax keeps", "[observers]") {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(200000);
  for (float &x : v)
    x = normal(rng);
  v[17] = 1000.0f; // one outlier
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  CHECK(*hi == 1000.0f);
  Histogram h(*lo, *hi, 2048);
  h.add(v.data(), int64_t(v.size()));
  TensorRange p = h.percentileRange(99.99);
  CHECK(p.hi < 6.0f);
  CHECK(p.lo > -6.0f);
  CHECK(p.hi > 2.0f);
}

TEST_CASE("Entropy clips a long thin tail and keeps the bulk", "[observers]") {
  // Normal(0, 1) with 0.01% of the values spread out to 100: MinMax would
  // spend 97% of the int8 steps on the sparse tail.
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> tail(4.0f, 100.0f);
  std::vector<float> v(200000);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = i % 10000 == 0 ? tail(rng) : normal(rng);
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  Histogram h(*lo, *hi);
  h.add(v.data(), int64_t(v.size()), /*skipZeros=*/true);
  TensorRange r = h.entropyRange();
  CHECK(r.hi < 30.0f);  // the tail is clipped
  CHECK(r.hi > 3.0f);   // the bulk is not
  CHECK(r.lo <= -3.0f); // the negative side has no tail to clip
  CHECK(r.lo >= *lo);
}

TEST_CASE("Entropy ignores a ReLU's zeros and keeps 0 inside", "[observers]") {
  // 80% exact zeros, the rest uniform on (0, 6]: a uniform distribution has
  // nothing to clip, whatever the spike at 0.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.0f, 6.0f);
  std::vector<float> v(100000, 0.0f);
  for (size_t i = 0; i < v.size(); i += 5)
    v[i] = u(rng);
  Histogram h(0.0f, *std::max_element(v.begin(), v.end()));
  h.add(v.data(), int64_t(v.size()), /*skipZeros=*/true);
  TensorRange r = h.entropyRange();
  CHECK(r.lo == 0.0f);
  CHECK(r.hi > 5.5f);
}
