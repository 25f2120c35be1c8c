//===- Aarch64Target.cpp - 64-bit Arm Linux --------------------------------===//
//
// Cross-compiled with aarch64-linux-gnu-g++; the reference kernels for now
// (NEON kernels are their own provider, to come in this folder).
//
//===----------------------------------------------------------------------===//
#include "onnxc/Lowering/Target.h"

namespace onnxc {
namespace {

class Aarch64Target final : public Target {
public:
  Aarch64Target()
      : Target("aarch64", "64-bit Arm Linux (aarch64-linux-gnu)",
               Toolchain{"aarch64-linux-gnu-g++", "aarch64-linux-gnu-ar", {"-O3"},
                         {"-march=armv8-a"}}) {
    runner = "qemu-aarch64 (not wired into onnxc run yet)";
  }
};

} // namespace

void registerAarch64Target() { TargetRegistry::add(std::make_unique<Aarch64Target>()); }

} // namespace onnxc
