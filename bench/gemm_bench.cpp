// GEMM micro-benchmark: the single-core FMA peak of this machine, measured by
// this binary (independent FMA chains on the widest vectors the build
// targets), and runtime-lite's x86 packed GEMM on square sizes as a fraction
// of it; then batch-1 fully connected layers (a row times a transposed B, as
// a classifier at batch 1 runs), median microseconds and weight GB/s with
// the weights cached and not (calls rotating over copies that fill 160 MB).
// Build with the target's flags, e.g.
//   g++ -O3 -march=x86-64-v3 -std=c++17 -Iruntime-lite/include bench/gemm_bench.cpp
#include "onnxc_rt/kernels/simd/f32/gemm.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace onnxc_rt;
using Clock = std::chrono::steady_clock;

static double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// 12 independent accumulators hide the FMA latency (4 cycles x 2 ports on
// current cores needs at least 8).
__attribute__((noinline)) static float fmaPeakLoop(int64_t iters, float seed) {
  simd::VecF acc[12];
  for (int i = 0; i < 12; ++i)
    acc[i] = simd::VecF::broadcast(seed + float(i));
  const simd::VecF a = simd::VecF::broadcast(0.999999f), b = simd::VecF::broadcast(1e-7f);
  for (int64_t it = 0; it < iters; ++it)
    for (int i = 0; i < 12; ++i)
      acc[i] = simd::VecF::fma(acc[i], a, b);
  alignas(64) float out[simd::kLanes];
  simd::VecF s = acc[0];
  for (int i = 1; i < 12; ++i)
    s = simd::VecF::add(s, acc[i]);
  s.store(out);
  return out[0];
}

static double measurePeakGflops() {
  const int64_t iters = 50000000;
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = Clock::now();
    volatile float sink = fmaPeakLoop(iters, float(rep));
    (void)sink;
    auto t1 = Clock::now();
    double flops = double(iters) * 12 * simd::kLanes * 2;
    double g = flops / seconds(t0, t1) / 1e9;
    if (g > best)
      best = g;
  }
  return best;
}

int main(int argc, char **argv) {
  std::vector<int64_t> sizes = {64, 128, 256, 384, 512, 768, 1024};
  if (argc > 1) {
    sizes.clear();
    for (int i = 1; i < argc; ++i)
      sizes.push_back(std::atoll(argv[i]));
  }
  const double peak = measurePeakGflops();
  std::printf("vector lanes %d, micro-tile %lldx%lld\n", int(simd::kLanes),
              (long long)simd::kMatrixMR, (long long)simd::kNR);
  std::printf("single-core FMA peak: %.1f GFLOP/s\n", peak);
  std::printf("| n | GFLOP/s | %% of peak |\n|---|---|---|\n");
  for (int64_t n : sizes) {
    std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n);
    std::vector<float> scratch(simd::gemm_scratch_floats(n, n, n));
    const simd::Epilogue ep;
    auto run = [&] {
      simd::gemm_packed<ref::Identity, simd::kMatrixMR>(
          n, n, n, simd::Matrix{a.data(), n, 1}, nullptr, simd::Matrix{b.data(), n, 1},
          c.data(), n, ep, scratch.data());
    };
    run();
    const double flops = 2.0 * double(n) * n * n;
    const int reps = int(4e9 / flops) + 3;
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
      auto t0 = Clock::now();
      run();
      double s = seconds(t0, Clock::now());
      if (s < best)
        best = s;
    }
    const double g = flops / best / 1e9;
    std::printf("| %lld | %.1f | %.0f%% |\n", (long long)n, g, 100.0 * g / peak);
  }
  std::printf("\n| fully connected k -> n, batch 1 | cached us | GB/s | not cached us | GB/s |\n"
              "|---|---|---|---|---|\n");
  for (auto [k, n] : {std::pair<int64_t, int64_t>{512, 1000}, {1280, 1000}, {2048, 1000}}) {
    const int64_t copies = std::max<int64_t>(2, 40000000 / (k * n));
    std::vector<std::vector<float>> w(copies, std::vector<float>(k * n, 0.01f));
    std::vector<float> x(k, 0.5f), bias(n, 0.1f), y(n);
    auto median_us = [&](int64_t rotate) {
      std::vector<double> t;
      for (int r = 0; r < 201; ++r) {
        auto t0 = Clock::now();
        simd::gemm<ref::Identity>(x.data(), w[r % rotate].data(), bias.data(), y.data(), 1, n,
                                  k, 0, 1, 1.0f, 1.0f, 0, 1, 0, 0, nullptr);
        t.push_back(seconds(t0, Clock::now()) * 1e6);
      }
      std::sort(t.begin(), t.end());
      return t[t.size() / 2];
    };
    const double cached = median_us(1), cold = median_us(copies), mb = 4e-3 * k * n;
    std::printf("| %lld -> %lld | %.0f | %.1f | %.0f | %.1f |\n", (long long)k, (long long)n,
                cached, mb / cached, cold, mb / cold);
  }
  return 0;
}
