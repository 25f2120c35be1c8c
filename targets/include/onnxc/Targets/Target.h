//===- Target.h - what onnxc needs to know about a target ------------------===//
//
// A target names its toolchain (compiler, archiver, flags) for building the
// model's static library and the kernel set its code calls: the portable
// reference kernels (onnxc_rt::ref) or tuned ones (onnxc_rt::x86), which fall
// back to the reference kernels for what they do not cover.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_TARGETS_TARGET_H
#define ONNXC_TARGETS_TARGET_H

#include <string>
#include <vector>

namespace onnxc {

struct Target {
  std::string name;
  std::string description;
  std::string cxx;                    // C++ compiler (overridable with $CXX for host targets)
  std::string ar;                     // archiver
  std::vector<std::string> cxxFlags;  // flags for the generated C++ and the weights .S
  bool host = false;                  // runs on this machine (onnxc run)
  std::string kernels = "reference";  // kernel set: reference | x86
};

/// The target called `name`, or null.
const Target *findTarget(const std::string &name);
const std::vector<Target> &allTargets();

/// Whether code built for `t` runs on this machine: a host target whose
/// instruction set (AVX2+FMA, AVX-512) this CPU has.
bool runsOnThisMachine(const Target &t);

} // namespace onnxc

#endif
