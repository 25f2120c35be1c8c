// Times a model compiled by onnxc (linked as libNAME.a), bound at compile
// time through MODEL_HEADER's RUN_V_ON (NAME_run_v_on) and THREADS (the
// model's --threads: a runtime-lite ThreadPool of that many). Usage:
//   onnxc_bench INPUT.bin RUNS
// Reads the first input's raw float32 data; other inputs (if any) are zero.
// Prints one JSON line: {"median_us":..., "p99_us":..., "rss_bytes":...}.
#include MODEL_HEADER
#include "onnxc_rt/threads.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  std::vector<char> in0;
  if (FILE *f = std::fopen(argv[1], "rb")) {
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
      in0.insert(in0.end(), buf, buf + n);
    std::fclose(f);
  }
  const int runs = std::atoi(argv[2]);
  // Buffers: inputs and outputs from the header's sizes, 64-byte aligned.
  std::vector<void *> ins, outs;
  for (size_t i = 0; i < sizeof(kInputBytes) / sizeof(kInputBytes[0]); ++i) {
    void *p = std::aligned_alloc(64, (kInputBytes[i] + 63) / 64 * 64 + 64);
    std::fill((char *)p, (char *)p + kInputBytes[i], 0);
    if (i == 0)
      std::copy(in0.begin(), in0.begin() + std::min(in0.size(), kInputBytes[0]), (char *)p);
    ins.push_back(p);
  }
  for (size_t i = 0; i < sizeof(kOutputBytes) / sizeof(kOutputBytes[0]); ++i)
    outs.push_back(std::aligned_alloc(64, (kOutputBytes[i] + 63) / 64 * 64 + 64));
  void *arena = std::aligned_alloc(64, ARENA_SIZE + 64);
  onnxc_rt::ThreadPool pool(THREADS);
  onnxc_rt::TaskRunner *threads = THREADS > 1 ? &pool : nullptr;
  for (int i = 0; i < 3; ++i)
    RUN_V_ON(ins.data(), outs.data(), arena, threads);
  std::vector<double> us;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    RUN_V_ON(ins.data(), outs.data(), arena, threads);
    auto t1 = std::chrono::steady_clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(us.begin(), us.end());
  size_t p99 = std::min(us.size() - 1, (size_t)((us.size() * 99 + 99) / 100) - 1);
  // Peak RSS of this process image: VmHWM (ru_maxrss would carry over the
  // launching process's peak across exec).
  long hwm_kb = 0;
  if (FILE *f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "VmHWM: %ld kB", &hwm_kb) == 1)
        break;
    std::fclose(f);
  }
  std::printf("{\"median_us\": %.1f, \"p99_us\": %.1f, \"rss_bytes\": %ld}\n", us[us.size() / 2],
              us[p99], hwm_kb * 1024L);
  return 0;
}
