//===- Aarch64Target.cpp - 64-bit Arm Linux: aarch64, -dotprod, -i8mm -----===//
//
// Cross-compiled with aarch64-linux-gnu-g++; all three run runtime-lite's
// SIMD kernels on NEON (simd/isa/neon.h) through ../simd, with the same
// channel-blocked layout and Winograd rules as x86. They differ in the int8
// byte dot product: aarch64 (armv8-a) widens bytes to 16 bits,
// aarch64-dotprod (armv8.2-a, Cortex-A55/A75 on, Neoverse N1) uses SDOT,
// aarch64-i8mm (armv8.6-a, Neoverse V1/N2, Cortex-A710 on) USDOT, and
// USMMLA in the convolutions, whose weights it packs in depth groups of 8.
//
// `onnxc run` runs them under qemu-aarch64 (user mode: the program's file
// I/O is the host's), whose default CPU has every one of these extensions.
//
//===----------------------------------------------------------------------===//
#include "../simd/SimdTarget.h"

#include "onnxc_rt/kernels/simd/qs8/pack.h"

namespace onnxc {
namespace {

class Aarch64Target final : public simd::SimdTarget {
public:
  Aarch64Target(std::string name, std::string description, std::string march,
                simd::Qs8Packing packing)
      : SimdTarget(std::move(name), std::move(description),
                   Toolchain{"aarch64-linux-gnu-g++", "aarch64-linux-gnu-ar", {"-O3"},
                             {"-march=" + march}, {}, {}, "CXX", "arm_neon.h",
                             "onnxc_rt/kernels/simd/"},
                   "neon-simd", packing, 4) {
    parallelKernels = true;
    processor = "aarch64";
    // A static program needs no aarch64 libraries on the host at run time.
    emulated = EmulatedRunner{"qemu-aarch64", {}, "qemu-user", {}, {"-static"}};
    emulated->qemuPlugins = true;
  }

  /// NEON's blocked convolution reads 4 channels of a pixel per load (FMLA
  /// by element); from an NCHW input it loads one float per channel per
  /// pixel, about 2 instructions per FMLA against 1.3. So an NCHW input of
  /// more than 4 channels (ShuffleNet's after each channel shuffle) is
  /// converted first; a model's 3-channel image is not (13 of 16 lanes
  /// would be padding).
  bool blocksConvInput(int64_t channels) const override { return channels > 4; }
};

} // namespace

void registerAarch64Target() {
  namespace qs8 = onnxc_rt::simd::qs8;
  // Without i8mm the products are SMULL or SDOT: signed bytes, u - 128.
  TargetRegistry::add(std::make_unique<Aarch64Target>(
      "aarch64", "64-bit Arm Linux, NEON (armv8-a; aarch64-linux-gnu)", "armv8-a",
      simd::Qs8Packing{qs8::kWideDepthGroup, true, false}));
  TargetRegistry::add(std::make_unique<Aarch64Target>(
      "aarch64-dotprod", "64-bit Arm Linux, NEON + int8 dot product (armv8.2-a+dotprod)",
      "armv8.2-a+dotprod",
      simd::Qs8Packing{qs8::kDotDepthGroup, true, true}));
  TargetRegistry::add(std::make_unique<Aarch64Target>(
      "aarch64-i8mm", "64-bit Arm Linux, NEON + int8 matrix multiply (armv8.6-a+i8mm)",
      "armv8.6-a+i8mm", simd::Qs8Packing{qs8::kMatMulDepthGroup, false, true}));
}

} // namespace onnxc
