// int8 max pooling micro-benchmark: runtime-lite's qs8 max_pool2d on the
// e2e models' pools (SqueezeNet 1.1's three 3x3 stride-2 pools read in
// place, ResNet-18's padded one), one thread (`--threads N`: N tasks on a
// ThreadPool of N, as --threads N compiles), best and median of 300 calls
// in microseconds, and a checksum of the output (numbers only: the
// kernel's exactness is test/kernels/simd_qs8_test.cpp's). Build with the
// target's flags (`onnxc --print-target-flags --target T`), e.g.
//   c++ -O3 -march=x86-64-v4 -mavx512vnni -std=c++17 -pthread
//       -Iruntime-lite/include bench/qs8_pool_bench.cpp -o qs8_pool_bench
#include "onnxc_rt/kernels/simd/qs8/pack.h"
#include "onnxc_rt/kernels/simd/qs8/pool.h"
#include "onnxc_rt/threads.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char **argv) {
  int64_t tasks = 1;
  if (argc > 2 && std::strcmp(argv[1], "--threads") == 0)
    tasks = std::atoi(argv[2]);
  onnxc_rt::ThreadPool pool{static_cast<int>(tasks)};
  onnxc_rt::TaskRunner *runner = tasks > 1 ? &pool : nullptr;
  struct Pool {
    const char *what;
    int64_t c, h, oh, k, s, p;
  };
  const Pool pools[] = {{"squeezenet1_1 3x3 s2 64 @111", 64, 111, 55, 3, 2, 0},
                        {"squeezenet1_1 3x3 s2 128 @55", 128, 55, 27, 3, 2, 0},
                        {"squeezenet1_1 3x3 s2 256 @27", 256, 27, 13, 3, 2, 0},
                        {"resnet18 3x3 s2 pad 1 64 @112", 64, 112, 56, 3, 2, 1}};
  std::printf("| pool | best us | median us | checksum |\n|---|---|---|---|\n");
  for (const Pool &q : pools) {
    std::vector<int8_t> x(size_t(q.c * q.h * q.h)), y(size_t(q.c * q.oh * q.oh));
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = int8_t(i * 7919u >> 3);
    const int64_t in[4] = {1, q.c, q.h, q.h}, out[4] = {1, q.c, q.oh, q.oh};
    const int64_t kernel[2] = {q.k, q.k}, strides[2] = {q.s, q.s}, pads[2] = {q.p, q.p},
                  dil[2] = {1, 1};
    // 64-byte aligned, as the arena's are.
    std::vector<int8_t> scratch_bytes(
        size_t(onnxc_rt::simd::qs8::maxpool_scratch_bytes(q.oh, q.k, q.s, 1) * tasks + 64));
    int8_t *scratch = scratch_bytes.data() + (64 - uintptr_t(scratch_bytes.data()) % 64) % 64;
    std::vector<double> us(300);
    for (double &t : us) {
      const auto t0 = std::chrono::steady_clock::now();
      onnxc_rt::simd::qs8::max_pool2d(x.data(), y.data(), in, out, kernel, strides, pads, dil,
                                      scratch, runner, tasks);
      t = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
              .count();
    }
    std::sort(us.begin(), us.end());
    long sum = 0;
    for (int8_t v : y)
      sum += v;
    std::printf("| %s | %.1f | %.1f | %ld |\n", q.what, us[0], us[us.size() / 2], sum);
  }
}
