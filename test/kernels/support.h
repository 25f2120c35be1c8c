// Shared by the SIMD kernel tests (one Catch2 binary per kernel family and
// ISA): random inputs, the comparisons against the reference kernels, the
// thread pool the split runs use, and the NCHW <-> blocked oracle.
#ifndef ONNXC_TEST_KERNELS_SUPPORT_H
#define ONNXC_TEST_KERNELS_SUPPORT_H

#include "onnxc_rt/kernels/reference/tensor.h"
#include "onnxc_rt/kernels/simd/f32/blocking.h"
#include "onnxc_rt/threads.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace kernel_test {

using namespace onnxc_rt;

/// Kernels split into kTasks tasks run on two threads: the split must not
/// change a single bit of the result.
constexpr int64_t kTasks = 3;
/// The two-thread pool (sweep_setup.cpp).
ThreadPool *pool();

/// Every how many cases a long sweep takes (ONNXC_KERNEL_TEST_EVERY,
/// default 1: all), starting from which (ONNXC_KERNEL_TEST_FIRST, default
/// 0): the emulated runs under qemu-aarch64 take a share of the longest
/// sweeps for CI's time, the int8 builds each another half
/// (targets/aarch64/tests.cmake).
inline size_t caseStride() {
  const char *every = std::getenv("ONNXC_KERNEL_TEST_EVERY");
  const long n = every ? std::atol(every) : 1;
  return n > 1 ? size_t(n) : 1;
}
inline size_t caseFirst() {
  const char *first = std::getenv("ONNXC_KERNEL_TEST_FIRST");
  const long k = first ? std::atol(first) : 0;
  return k > 0 ? size_t(k) % caseStride() : 0;
}
/// Whether the sweep takes its `i`-th case.
inline bool caseTaken(size_t i) { return i % caseStride() == caseFirst(); }

inline std::mt19937 &rng() {
  static std::mt19937 r(1234);
  return r;
}

inline std::vector<float> randomVec(int64_t n) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n > 0 ? n : 1);
  for (float &x : v)
    x = d(rng());
  return v;
}

/// "" when |got - want| <= tol * (1 + |want|) for every element, tol scaled
/// by the reduction length k (the kernels sum in another order); else the
/// first element that is not.
inline std::string closeMismatch(const std::vector<float> &got, const std::vector<float> &want,
                                 int64_t n, int64_t k) {
  const float tol = 2e-6f * float(k + 8);
  for (int64_t i = 0; i < n; ++i)
    if (!(std::fabs(got[i] - want[i]) <= tol * (1 + std::fabs(want[i])))) {
      std::ostringstream os;
      os << "element " << i << " got " << got[i] << " want " << want[i];
      return os.str();
    }
  return "";
}

/// "" when the two are bit-identical (NaN matching NaN); else the first
/// element that differs.
inline std::string sameMismatch(const std::vector<float> &got, const std::vector<float> &want,
                                int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!(got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i])))) {
      std::ostringstream os;
      os << "element " << i << " got " << got[i] << ", one task " << want[i];
      return os.str();
    }
  return "";
}

/// NCHW <-> blocked through the reference conversions (the oracle's).
inline std::vector<float> blocked(const std::vector<float> &x, const int64_t *shape) {
  std::vector<float> y(shape[0] * simd::channel_blocks(shape[1]) * simd::kChannelBlock *
                       shape[2] * shape[3]);
  ref::to_blocked(x.data(), y.data(), shape[0], shape[1], shape[2] * shape[3],
                  simd::kChannelBlock);
  return y;
}
inline std::vector<float> unblocked(const std::vector<float> &x, const int64_t *shape) {
  std::vector<float> y(shape[0] * shape[1] * shape[2] * shape[3]);
  ref::from_blocked(x.data(), y.data(), shape[0], shape[1], shape[2] * shape[3],
                    simd::kChannelBlock);
  return y;
}

} // namespace kernel_test

/// The SIMD result is within the reference's rounding (k: reduction length).
#define CHECK_CLOSE(what, got, want, n, k)                                                        \
  do {                                                                                             \
    INFO((what));                                                                                  \
    CHECK(kernel_test::closeMismatch(got, want, n, k) == "");                                      \
  } while (0)
/// Split into tasks, the result is bit-identical to one task's.
#define CHECK_SAME(what, got, want, n)                                                             \
  do {                                                                                             \
    INFO((what) << " (" << kernel_test::kTasks << " tasks)");                                      \
    CHECK(kernel_test::sameMismatch(got, want, n) == "");                                          \
  } while (0)

#endif
