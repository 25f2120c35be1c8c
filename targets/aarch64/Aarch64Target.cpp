//===- Aarch64Target.cpp - 64-bit Arm Linux --------------------------------===//
//
// Cross-compiled with aarch64-linux-gnu-g++; the reference kernels for now
// (NEON kernels are their own provider, to come in this folder). `onnxc run`
// runs it under qemu-aarch64 (user mode: the program's file I/O is the host's).
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
    // A static program needs no aarch64 libraries on the host at run time.
    emulated = EmulatedRunner{"qemu-aarch64", {}, "qemu-user", {}, {"-static"}};
    emulated->qemuPlugins = true;
  }
};

} // namespace

void registerAarch64Target() { TargetRegistry::add(std::make_unique<Aarch64Target>()); }

} // namespace onnxc
