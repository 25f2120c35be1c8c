// The core's float multiply-add peak, measured: each thread runs
// independent chains of VecF::fma (simd/vec.h, the vectors onnxc's kernels
// use, built with the target's flags), more chains than the FMA units'
// latency x throughput, for about 0.3 s; prints {"gflops": total} (2 FLOPs
// a lane per FMA). run_bench.py divides a model's FLOPs per second by it.
//   c++ -O3 <target flags> -Iruntime-lite/include peak_flops.cpp -pthread && ./a.out THREADS
#include "onnxc_rt/kernels/simd/vec.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

using onnxc_rt::simd::VecF;

namespace {

constexpr int kChains = 16;

// Returns the sum of the chains so the work is not optimised away.
__attribute__((noinline)) float fma_chains(long iterations, float seed) {
  VecF acc[kChains];
  for (int i = 0; i < kChains; ++i)
    acc[i] = VecF::broadcast(seed + i);
  const VecF a = VecF::broadcast(0.999999f), b = VecF::broadcast(1e-7f);
  for (long n = 0; n < iterations; ++n)
#pragma GCC unroll 16
    for (int i = 0; i < kChains; ++i)
      acc[i] = VecF::fma(acc[i], a, b);
  float lanes[VecF::kLanes * kChains];
  for (int i = 0; i < kChains; ++i)
    acc[i].store(lanes + i * VecF::kLanes);
  float s = 0;
  for (float v : lanes)
    s += v;
  return s;
}

} // namespace

int main(int argc, char **argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  const long iterations = 20'000'000;
  double best = 0;
  for (int round = 0; round < 3; ++round) {
    std::vector<std::thread> pool;
    std::vector<float> sink(threads);
    const auto t0 = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] { sink[t] = fma_chains(iterations, float(t)); });
    for (std::thread &t : pool)
      t.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double flops = 2.0 * VecF::kLanes * kChains * double(iterations) * threads;
    best = flops / s / 1e9 > best ? flops / s / 1e9 : best;
    if (sink[0] == 12345.f)
      std::puts("");
  }
  std::printf("{\"gflops\": %.1f}\n", best);
}
