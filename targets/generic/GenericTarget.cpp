//===- GenericTarget.cpp - portable C++17 on the reference kernels --------===//
//
// The reference target: every op on runtime-lite's portable reference
// kernels (the oracle every other target is tested against), built by the
// host's C++ compiler. It adds no kernel provider of its own.
//
//===----------------------------------------------------------------------===//
#include "onnxc/Lowering/Target.h"

namespace onnxc {
namespace {

class GenericTarget final : public Target {
public:
  GenericTarget()
      : Target("generic", "portable C++17 for the host compiler (the reference)",
               Toolchain{"c++", "ar", {"-O2"}, {}}) {
    hostCode = true;
    nativeRank = 1;
  }
  bool runsHere() const override { return true; }
};

} // namespace

void registerGenericTarget() { TargetRegistry::add(std::make_unique<GenericTarget>()); }

} // namespace onnxc
