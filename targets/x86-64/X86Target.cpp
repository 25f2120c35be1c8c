//===- X86Target.cpp - x86-64 (AVX2+FMA), x86-64-avx512, -vnni, -vbmi, -amx ===//
//
// All run runtime-lite's SIMD kernels (onnxc_rt::simd, one source for every
// ISA over simd/vec.h; simd/isa/x86.h here) through ../simd: their
// convolution regions in the channel-blocked layout NCHW16c (one AVX-512
// vector or two AVX2 ones per block), and large 3x3 stride-1 convolutions by
// Winograd F(4x4, 3x3) (int8 ones on AVX2 by F(2x2, 3x3) in 16-bit
// integers). x86-64-vnni is x86-64-avx512 plus the byte dot
// product (vpdpbusd) of the int8 kernels, x86-64-vbmi that plus byte
// permutes (vpermb); x86-64-amx adds AMX tiles for the int8 convolutions.
//
//===----------------------------------------------------------------------===//
#include "../simd/SimdTarget.h"

#include "onnxc_rt/kernels/simd/isa/amx_state.h"
#include "onnxc_rt/kernels/simd/qs8/pack.h"

namespace onnxc::x86 {
namespace {

class X86Target final : public simd::SimdTarget {
public:
  X86Target(std::string name, std::string description, std::vector<std::string> isaFlags,
            int rank, bool (*cpuHasIsa)(), int64_t streamedWinogradTiles, int64_t lanes,
            bool vnni = false, bool amx = false)
      : SimdTarget(std::move(name), std::move(description),
                   Toolchain{"c++", "ar", {"-O3"}, std::move(isaFlags), {}, {}, "CXX",
                             "immintrin.h", "onnxc_rt/kernels/simd/"},
                   "x86-simd",
                   // On AVX2 the depthwise convolution sums quads of
                   // taps (simd/isa/x86.h's kDepthwiseQuads);
                   // AVX512-VNNI's byte windows for depthwise convolutions
                   // (simd/isa/x86.h's kByteWindows).
                   // On AVX-512, small planes' channels in the vector lanes
                   // and stride-1 taps read in place from channel quads; on
                   // AVX2, 3x3 stride-1 int8 convolutions by Winograd
                   // F(2x2, 3x3) in 16-bit integers (simd/qs8/winograd.h).
                   {onnxc_rt::simd::qs8::kDotDepthGroup, false, lanes == 8, amx, vnni,
                    {lanes == 16, lanes == 16, lanes == 8}},
                   lanes),
        cpuHasIsa(cpuHasIsa), amx(amx) {
    hostCode = true;
    parallelKernels = true;
    processor = "x86_64";
    nativeRank = rank;
    winogradStreamedTiles = streamedWinogradTiles;
    // F(2x2, 3x3) on AVX-512 from 16 2x2 tiles (a 7x7 plane): where F(4x4)'s
    // weights are streamed it beat direct on 7x7 planes of 256 and 512
    // channels by 1.06-1.78x on the Intel Xeon and the AMD EPYC Zen 5
    // (bench/conv_algo_fit.py, weights streamed and cached).
    winogradSmallTiles = lanes == 16 ? 16 : 0;
  }

  bool runsHere() const override { return cpuHasIsa(); }

  /// x86-64-amx adds `precision`: fp32, or bf16 (float convolutions and
  /// matrix products on AMX-BF16 tiles, simd/bf16/).
  std::vector<TargetOption> options() const override {
    std::vector<TargetOption> opts = SimdTarget::options();
    if (amx)
      opts.push_back({"precision",
                      "the arithmetic of float convolutions and matrix products (--precision): "
                      "fp32, or bf16 (their operands rounded to bfloat16 and multiplied on "
                      "AMX-BF16 tiles, fp32 sums)",
                      {"fp32", "bf16"},
                      "",
                      false});
    return opts;
  }

private:
  bool (*cpuHasIsa)();
  bool amx;
};

bool hasAvx2() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

bool hasAvx512() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
#else
  return false;
#endif
}

bool hasAvx512Vnni() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return hasAvx512() && __builtin_cpu_supports("avx512vnni");
#else
  return false;
#endif
}

bool hasAvx512Vbmi() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return hasAvx512Vnni() && __builtin_cpu_supports("avx512vbmi");
#else
  return false;
#endif
}

/// AMX-INT8 in the CPU and its tile state granted to this process (asked
/// as the kernels ask, simd/isa/amx_state.h).
bool hasAmx() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (!hasAvx512Vbmi() || !__builtin_cpu_supports("amx-tile") ||
      !__builtin_cpu_supports("amx-int8"))
    return false;
  return onnxc_rt::simd::amx_state_granted();
#else
  return false;
#endif
}

} // namespace
} // namespace onnxc::x86

namespace onnxc {
void registerX86Targets() {
  // The last two arguments: the output tiles a Winograd convolution needs
  // where its transformed weights are streamed from memory (simd/f32/blocking.h's
  // winograd_applies and winograd_tile): AVX-512 does twice AVX2's
  // multiply-adds per byte read, so the weights' 4x size costs it more
  // (ResNet-18's 7x7 layers: direct 28% faster on AVX-512, Winograd 15%
  // faster on AVX2), and with the 14-pixel strips its direct convolution
  // gained again: 25 tiles (its 14x14 layers' 16 4x4 tiles run F(2x2, 3x3)
  // instead, 49 tiles, and so do its 7x7 ones, 16); the floats of a vector.
  TargetRegistry::add(std::make_unique<x86::X86Target>(
      "x86-64", "x86-64 with AVX2 and FMA (x86-64-v3)", std::vector<std::string>{"-march=x86-64-v3"},
      2, x86::hasAvx2, 4, 8));
  TargetRegistry::add(std::make_unique<x86::X86Target>(
      "x86-64-avx512", "x86-64 with AVX-512 (x86-64-v4)",
      std::vector<std::string>{"-march=x86-64-v4"}, 3, x86::hasAvx512, 25, 16));
  // The int8 kernels' byte dot product in one instruction (vpdpbusd):
  // Cascade Lake, Ice Lake, Sapphire Rapids, Zen 4 and later.
  TargetRegistry::add(std::make_unique<x86::X86Target>(
      "x86-64-vnni", "x86-64 with AVX-512 and AVX512-VNNI (x86-64-v4 + int8 dot products)",
      std::vector<std::string>{"-march=x86-64-v4", "-mavx512vnni"}, 4, x86::hasAvx512Vnni, 25,
      16, true));
  // x86-64-vnni with AVX512-VBMI's byte permutes (vpermb, vpermi2b): the
  // int8 depthwise convolutions' windows in one instruction and narrow rows
  // several to a vector, the int8 lookups' tables in registers. Ice Lake,
  // Zen 4 and later (not Cascade Lake). On the Zen 5 EPYC against
  // x86-64-vnni, medians of 6 alternating rounds: EfficientNet-B0 int8
  // 0.89x the time, ShuffleNetV2 0.96x, MobileNetV2 0.99x (docs/targets.md).
  TargetRegistry::add(std::make_unique<x86::X86Target>(
      "x86-64-vbmi",
      "x86-64 with AVX-512, AVX512-VNNI and AVX512-VBMI (Ice Lake, Zen 4 and later: the int8 "
      "kernels' byte permutes)",
      std::vector<std::string>{"-march=x86-64-v4", "-mavx512vnni", "-mavx512vbmi"}, 5,
      x86::hasAvx512Vbmi, 25, 16, true));
  // x86-64-vbmi with the int8 convolutions'
  // products on AMX tiles (TDPBSUD,
  // 16 channels x 16 pixels x 64 depth bytes an instruction), and with
  // --precision bf16 the float ones' (TDPBF16PS): Sapphire Rapids and
  // later. Its code falls back to VPDPBUSD / FMAs where the OS refuses the
  // tile state, so it runs on any AVX512-VNNI CPU with VBMI (Ice Lake, Zen 4 and later).
  TargetRegistry::add(std::make_unique<x86::X86Target>(
      "x86-64-amx",
      "x86-64 with AVX-512, AVX512-VNNI and AMX (int8 convolutions and products on AMX-INT8 "
      "tiles; --precision bf16: float convolutions and products on AMX-BF16)",
      std::vector<std::string>{"-march=x86-64-v4", "-mavx512vnni", "-mavx512vbmi", "-mamx-tile",
                               "-mamx-int8", "-mamx-bf16"},
      6,
      x86::hasAmx, 25, 16, true, true));
}
} // namespace onnxc
