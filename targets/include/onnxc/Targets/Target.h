//===- Target.h - what onnxc needs to know about a target ------------------===//
//
// A target names its toolchain (compiler, archiver, flags) for building the
// model's static library and its kernel namespace. Today every target uses
// the portable reference kernels (onnxc_rt::ref); tuned kernels plug in here.
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
};

/// The target called `name`, or null.
const Target *findTarget(const std::string &name);
const std::vector<Target> &allTargets();

} // namespace onnxc

#endif
