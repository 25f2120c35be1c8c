// Unit tests of the calibration observers (compiler/lib/Quantize): the
// ranges Percentile chooses on known distributions.
#define CATCH_CONFIG_MAIN
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
