//===- Target.cpp - the target table ----------------------------------------===//
#include "onnxc/Targets/Target.h"

namespace onnxc {

// Flags every target shares: the generated code and runtime-lite are
// freestanding C++17 with no exceptions or RTTI.
#define COMMON "-std=c++17", "-fno-exceptions", "-fno-rtti", "-Wall", "-Wextra"

const std::vector<Target> &allTargets() {
  static const std::vector<Target> targets = {
      {"generic", "portable C++17 for the host compiler (the reference)", "c++", "ar",
       {COMMON, "-O2"}, true},
      {"x86-64", "x86-64 with AVX2 and FMA (x86-64-v3)", "c++", "ar",
       {COMMON, "-O3", "-march=x86-64-v3"}, true, "x86"},
      {"x86-64-avx512", "x86-64 with AVX-512 (x86-64-v4)", "c++", "ar",
       {COMMON, "-O3", "-march=x86-64-v4"}, true, "x86"},
      {"cortex-m4", "Arm Cortex-M4 with FPU, hard float (arm-none-eabi)",
       "arm-none-eabi-g++", "arm-none-eabi-ar",
       {COMMON, "-O2", "-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard",
        "-mfpu=fpv4-sp-d16", "-ffunction-sections", "-fdata-sections"},
       false},
      {"cortex-m7", "Arm Cortex-M7 with double-precision FPU (arm-none-eabi)",
       "arm-none-eabi-g++", "arm-none-eabi-ar",
       {COMMON, "-O2", "-mcpu=cortex-m7", "-mthumb", "-mfloat-abi=hard",
        "-mfpu=fpv5-d16", "-ffunction-sections", "-fdata-sections"},
       false},
      {"aarch64", "64-bit Arm Linux (aarch64-linux-gnu)", "aarch64-linux-gnu-g++",
       "aarch64-linux-gnu-ar", {COMMON, "-O3", "-march=armv8-a"}, false},
  };
  return targets;
}

const Target *findTarget(const std::string &name) {
  for (const Target &t : allTargets())
    if (t.name == name)
      return &t;
  return nullptr;
}

bool runsOnThisMachine(const Target &t) {
  if (!t.host)
    return false;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (t.name == "x86-64")
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (t.name == "x86-64-avx512")
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  return true;
#else
  return t.kernels == "reference";
#endif
}

} // namespace onnxc
