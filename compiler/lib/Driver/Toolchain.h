//===- Toolchain.h - running the target's compiler -------------------------===//
#ifndef ONNXC_DRIVER_TOOLCHAIN_H
#define ONNXC_DRIVER_TOOLCHAIN_H

#include "onnxc/Lowering/Target.h"

#include <string>
#include <vector>

namespace onnxc {

/// Runs a program; on failure sets `error` to its command line and output.
bool runProgram(const std::string &program, const std::vector<std::string> &args,
                std::string &error);

/// The directory holding onnxc_rt/ (runtime-lite's headers).
std::string runtimeIncludeDir();

/// The compiler for `target` ($CXX overrides it for host targets). Builds
/// add $ONNXC_CXXFLAGS to the target's flags.
std::string targetCompiler(const Target &target);

/// Builds libNAME.a in `dir` from NAME.cpp and NAME_weights.S there.
bool buildStaticLibrary(const Target &target, const std::string &dir,
                        const std::string &name, std::string &error);

/// Builds a shared library NAME.so in `dir` (host targets only).
bool buildSharedLibrary(const Target &target, const std::string &dir,
                        const std::string &name, std::string &error);

} // namespace onnxc

#endif
