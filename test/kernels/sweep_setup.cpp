// The SIMD kernel sweeps' setup, compiled with each sweep's instruction-set
// flags: the skip (exit 77) on a CPU without that instruction set, and the
// two-thread pool the split runs use. Catch2's main is test/catch_main.cpp,
// compiled once for every test binary.
//
// With -DKERNEL_TEST_ISA_PROBE the file is a program of its own: CMake
// builds and runs it at configure time for each sweep ISA (exit 0: this
// host runs it, 77: it does not; targets/x86-64/tests.cmake), so that the
// build and the skip ask the same question.
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

#if !defined(KERNEL_TEST_ISA_PROBE)
#include "support.h"

namespace kernel_test {
/// Started at the first split run, joined at exit.
ThreadPool *pool() {
  static ThreadPool two_threads(2);
  return &two_threads;
}
} // namespace kernel_test
#endif

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

#if defined(KERNEL_TEST_ISA_PROBE)
int main() { return 0; } // reached only when the CPU runs the flags' ISA
#endif
