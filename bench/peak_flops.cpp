// The core's float multiply-add peak, measured: each thread runs
// independent chains of VecF::fma (simd/vec.h, the vectors onnxc's kernels
// use, built with the target's flags), more chains than the FMA units'
// latency x throughput, for about 0.3 s; prints {"gflops": total} (2 FLOPs
// a lane per FMA). run_bench.py divides a model's FLOPs per second by it.
// With `int8` after THREADS: the int8 multiply-add peak of VecI::dot_u8s8
// (vpdpbusd with VNNI, else as the target builds it: 4 multiply-adds a
// lane), in 24 chains (the int8 conv2d tile's 4 x 6 accumulators), as
// {"gmacs": total}: run_bench.py --int8's share of peak.
//   c++ -O3 <target flags> -Iruntime-lite/include peak_flops.cpp -pthread && ./a.out THREADS
#include "onnxc_rt/kernels/simd/vec.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

using onnxc_rt::simd::VecF;
using onnxc_rt::simd::VecI;

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

constexpr int kDotChains = 24;

// The int8 chains: each its own start (chains alike would be folded into one).
__attribute__((noinline)) float dot_chains(long iterations, int32_t seed) {
  VecI acc[kDotChains];
  for (int i = 0; i < kDotChains; ++i)
    acc[i] = VecI{VecI::Int{} + (seed + i)};
  const VecI u{VecI::Int{} + 0x01020304}, s{VecI::Int{} + 0x01FF0102};
  for (long n = 0; n < iterations; ++n)
#pragma GCC unroll 24
    for (int i = 0; i < kDotChains; ++i)
      acc[i] = VecI::dot_u8s8(acc[i], u, s);
  float sum = 0;
  for (int i = 0; i < kDotChains; ++i)
    for (int l = 0; l < VecI::kLanes; ++l)
      sum += static_cast<float>(acc[i].v[l]);
  return sum;
}

} // namespace

int main(int argc, char **argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  const bool int8 = argc > 2 && std::strcmp(argv[2], "int8") == 0;
  const long iterations = int8 ? 10'000'000 : 20'000'000;
  double best = 0;
  for (int round = 0; round < 3; ++round) {
    std::vector<std::thread> pool;
    std::vector<float> sink(threads);
    const auto t0 = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        sink[t] = int8 ? dot_chains(iterations, t) : fma_chains(iterations, float(t));
      });
    for (std::thread &t : pool)
      t.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double ops = int8 ? 4.0 * VecI::kLanes * kDotChains * double(iterations) * threads
                            : 2.0 * VecF::kLanes * kChains * double(iterations) * threads;
    best = ops / s / 1e9 > best ? ops / s / 1e9 : best;
    if (sink[0] == 12345.f)
      std::puts("");
  }
  std::printf(int8 ? "{\"gmacs\": %.1f}\n" : "{\"gflops\": %.1f}\n", best);
}
