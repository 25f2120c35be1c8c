//===- Toolchain.h - running the target's compiler -------------------------===//
#ifndef ONNXC_DRIVER_TOOLCHAIN_H
#define ONNXC_DRIVER_TOOLCHAIN_H

#include "onnxc/Lowering/Target.h"

#include <string>
#include <vector>

namespace onnxc {

/// Runs a program; on failure sets `error` to its command line and output.
/// `output` (if given) receives its stdout and stderr; a program still
/// running after `timeoutSeconds` (0: no limit) is killed and fails.
bool runProgram(const std::string &program, const std::vector<std::string> &args,
                std::string &error, std::string *output = nullptr,
                unsigned timeoutSeconds = 0);

/// How long `onnxc run` lets an emulated program run.
constexpr unsigned kEmulatorTimeoutSeconds = 1200;

/// Why --target `name` names no registered target, listing the known ones.
std::string unknownTargetMessage(const std::string &name);

/// `dir`/`file`.
std::string joinPath(const std::string &dir, const std::string &file);

/// Writes `data` to `path`; false with `error` naming the file otherwise.
bool writeFile(const std::string &path, llvm::StringRef data, std::string &error);

/// The directory holding onnxc_rt/ (runtime-lite's headers).
std::string runtimeIncludeDir();

/// Copies runtime-lite's headers to `dir`/`prefix`onnxc_rt/ (for projects
/// that build without onnxc), adding their paths relative to `dir` to `files`.
bool copyRuntimeHeaders(const std::string &dir, const std::string &prefix,
                        std::vector<std::string> &files, std::string &error);

/// The compiler for `target` ($CXX overrides it for host targets). Builds
/// add $ONNXC_CXXFLAGS to the target's flags.
std::string targetCompiler(const Target &target);

/// The folder holding `target`'s support files (Target::supportFolder):
/// share/onnxc/targets/<folder> beside an installed onnxc, else the source tree's.
std::string targetSupportDir(const Target &target);

/// Builds the QEMU plugin that counts executed instructions
/// (tools/qemu/count_instructions.c, with the host's C compiler, $CC
/// honoured) into `dir`; returns its path, or "" with `error` set.
std::string buildInstructionCounter(const std::string &dir, std::string &error);

/// Builds libNAME.a in `dir` from NAME<sourceExt> and NAME_weights.S there.
bool buildStaticLibrary(const Target &target, const std::string &dir,
                        const std::string &name, const std::string &sourceExt,
                        std::string &error);

/// Builds a shared library NAME.so in `dir` (host targets only). With
/// `fromCache`, the build cache (buildCacheDir) is asked first and given the
/// result, and the model compiles with the target's precompiled header
/// (Toolchain::precompiledHeader, kept there); *fromCache says whether the
/// library came from it.
bool buildSharedLibrary(const Target &target, const std::string &dir,
                        const std::string &name, const std::string &sourceExt,
                        std::string &error, bool *fromCache = nullptr);

/// The folder of onnxc's build cache: $ONNXC_CACHE_DIR ("off": none), else
/// $XDG_CACHE_HOME/onnxc, else ~/.cache/onnxc; "" for none. `onnxc run` and
/// calibration keep there the libraries they built and the models they
/// quantized, keyed by the sha256 of what decides them.
std::string buildCacheDir();
/// A hex sha256 over runtime-lite's headers (part of every cache key: a
/// rebuilt onnxc of the same version may have other kernels).
std::string runtimeHeadersDigest();
/// The cached file `key` of `kind` ("builds", "quantized"), or "" (it is
/// then marked as just used).
std::string cachedFile(const std::string &kind, const std::string &key);
/// Copies `file` into the cache as `key` of `kind` (silently nothing when the
/// cache cannot be written); the least recently used entries beyond 200 a
/// kind, or 1 GiB, are removed.
void storeInCache(const std::string &kind, const std::string &key, const std::string &file);

/// Builds the program PROGRAM in `dir`: the model NAME and the `main` in
/// `mainSource`, with `extraFlags` (e.g. sanitizers) and, for a target run
/// under its emulator (Target::emulated), its support sources and link flags.
/// With `useCache`, the model compiles with the target's precompiled header
/// (Toolchain::precompiledHeader), kept in the build cache.
bool buildModelProgram(const Target &target, const std::string &dir,
                       const std::string &name, const std::string &sourceExt,
                       const std::string &mainSource, const std::string &program,
                       const std::vector<std::string> &extraFlags, bool useCache,
                       std::string &error);

/// What a compiled model occupies on its target besides its weights and
/// arena: the model object's code and static data, and the stack of its
/// deepest call chain.
struct Footprint {
  int64_t codeBytes = 0;   // .text, .rodata and .data of the model's object (flash)
  int64_t staticBytes = 0; // .data and .bss (RAM; the generated code has none)
  int64_t stackBytes = 0;  // the deepest call chain from NAME_run_on
  /// That chain, "fn (bytes) -> fn (bytes)", and whether a frame on it has
  /// a size known only at run time (then stackBytes is its static part).
  std::string stackChain;
  bool stackUnbounded = false;
};

/// Compiles `name` + sourceExt in `dir` for `target` with GCC's
/// -fstack-usage / -fcallgraph-info=su and reads the object's sections
/// (the toolchain's `size`) and its call graph: the figures of --report
/// and of the --ram-budget / --flash-budget checks.
bool measureFootprint(const Target &target, const std::string &dir, const std::string &name,
                      const std::string &sourceExt, Footprint &footprint, std::string &error);

} // namespace onnxc

#endif
