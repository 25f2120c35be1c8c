// The SIMD kernel tests' main: skips (exit 77) on a CPU without the
// instruction set the binary was built for, starts the two-thread pool the
// split runs use, then runs Catch2.
#define CATCH_CONFIG_RUNNER
#include "support.h"

#include <cstdio>

namespace kernel_test {
static ThreadPool *the_pool = nullptr;
ThreadPool *pool() { return the_pool; }
} // namespace kernel_test

static bool cpuRunsThisBuild() {
#if defined(__x86_64__) && defined(__AVX512F__)
#if defined(__AVX512VNNI__)
  if (!__builtin_cpu_supports("avx512vnni"))
    return false;
#endif
#if defined(__AVX512VBMI__)
  if (!__builtin_cpu_supports("avx512vbmi"))
    return false;
#endif
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#elif defined(__x86_64__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return true;
#endif
}

int main(int argc, char **argv) {
  if (!cpuRunsThisBuild()) {
    std::printf("this CPU lacks the instruction set the kernels were built for: skipped\n");
    return 77;
  }
  onnxc_rt::ThreadPool two_threads(2);
  kernel_test::the_pool = &two_threads;
  return Catch::Session().run(argc, argv);
}
