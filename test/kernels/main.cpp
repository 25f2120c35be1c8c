// The SIMD kernel tests' main: skips (exit 77) on a CPU without the
// instruction set the binary was built for, starts the two-thread pool the
// split runs use, then runs Catch2.
#define CATCH_CONFIG_RUNNER
#include "support.h"

#include <cstdio>
#include <cstdlib>

// The ISA check is compiled for the baseline x86-64 and runs as the first
// constructor (priority 101, before every default-priority static
// initialiser): Catch2's test registrations are compiled with the
// kernels' flags, and on a CPU without AVX-512 they died of an illegal
// instruction before main could skip.
#if defined(__x86_64__)
#define KERNEL_TEST_BASELINE __attribute__((target("arch=x86-64")))
#else
#define KERNEL_TEST_BASELINE
#endif

namespace kernel_test {
static ThreadPool *the_pool = nullptr;
ThreadPool *pool() { return the_pool; }
} // namespace kernel_test

KERNEL_TEST_BASELINE static bool cpuRunsThisBuild() {
#if defined(__x86_64__)
  __builtin_cpu_init(); // a constructor's caller: the CPU model is not read yet
#endif
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

KERNEL_TEST_BASELINE __attribute__((constructor(101))) static void skipWithoutIsa() {
  if (!cpuRunsThisBuild()) {
    std::fputs("this CPU lacks the instruction set the kernels were built for: skipped\n", stdout);
    std::fflush(stdout);
    std::_Exit(77);
  }
}

int main(int argc, char **argv) {
  onnxc_rt::ThreadPool two_threads(2);
  kernel_test::the_pool = &two_threads;
  return Catch::Session().run(argc, argv);
}
