//===- Target.h - what onnxc knows about a target, and the registry -------===//
//
// Each target lives in its own folder under targets/ and registers a Target
// from there (targets/CMakeLists.txt lists the folders; registerAllTargets()
// calls each one's registration function). A module names its target with the
// typed attribute `onnxc.target = #onnx.target<name = "...", ...>`; passes and
// the kernel lowering reach the Target through targetOf(op) and ask it for
// its kernel providers and its layout preferences. Nothing outside a target's
// folder names a target.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_LOWERING_TARGET_H
#define ONNXC_LOWERING_TARGET_H

#include "onnxc/Lowering/KernelProvider.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class ModuleOp;
class Operation;
class OpPassManager;
} // namespace mlir

namespace onnxc {
namespace onnx {
class TargetAttr;
}
class ModelEmitter; // onnxc/Codegen/ModelEmitter.h

/// How code for a target is built into a static library (`--emit lib`).
struct Toolchain {
  std::string cxx; // C++ compiler; host targets honour $CXX
  std::string ar;  // archiver
  /// Optimisation flags for `--emit lib` (a CMake consumer's build type
  /// chooses its own).
  std::vector<std::string> optFlags;
  /// Flags the generated code must be compiled with wherever it is built:
  /// the instruction set (-march, -mcpu, float ABI) and floating-point
  /// semantics. `--emit lib` uses them, add_onnx_model adds them to the
  /// model's library (`onnxc --print-target-flags`), the weights .S gets them.
  std::vector<std::string> requiredFlags;
  /// The flags every target shares (C++17, no exceptions or RTTI, -Wall
  /// -Wextra), spelled for this compiler; empty: the host compilers'
  /// spelling. A GPU compiler passes the host ones through to its host
  /// compiler.
  std::vector<std::string> sharedFlags = {};
  /// What assembles the weights .S (and compiles C support sources) when
  /// `cxx` cannot (a GPU compiler): the host compiler, without
  /// requiredFlags. Empty: `cxx` with requiredFlags.
  std::string assembler = {};
  /// The language of the generated source as CMake names it ("CXX": NAME.cpp;
  /// "CUDA": NAME.cu), for add_onnx_model (`onnxc --print-target-language`).
  std::string sourceLanguage = "CXX";
  /// A system header the target's kernels include that is most of a small
  /// model's compile time (x86: <immintrin.h>, some 60,000 lines, about 0.7
  /// of 1.8 s). `onnxc run` precompiles it once per compiler and flags into
  /// its build cache and pre-includes it into a model whose source includes
  /// a header under `precompiledHeaderUsers` (loading it costs a model that
  /// would not parse it 0.07 s). Empty: none.
  std::string precompiledHeader = {};
  std::string precompiledHeaderUsers = {};
  /// Everything `--emit lib` compiles with: the shared flags, optFlags,
  /// requiredFlags.
  std::vector<std::string> cxxFlags() const;
};

/// How `onnxc run` runs code for a target whose code does not execute in
/// the compiler's process: the driver cross-builds a test program (the model,
/// a generated main that reads the inputs from files and writes the outputs,
/// and the target's support sources) and runs it in an emulator. File I/O
/// goes through the emulator: the host's system calls for a user-mode
/// emulator, Arm semihosting for a bare-metal one.
struct EmulatedRunner {
  /// The emulator and its arguments; the program's path is appended. Empty:
  /// the program runs directly on this machine, on a device it drives (a
  /// GPU), and `package` names what builds it.
  std::string emulator;
  std::vector<std::string> args;
  /// The Debian package that provides the emulator (named in the error when
  /// it is missing).
  std::string package;
  /// Sources compiled into the test program (startup code), relative to the
  /// target's support folder, and link flags, in which "{support}" stands
  /// for that folder (a linker script).
  std::vector<std::string> supportSources;
  std::vector<std::string> linkFlags;
  /// The emulator is QEMU with TCG plugins (`-plugin`): `onnxc run
  /// --count-instructions` counts the program's instructions with one.
  bool qemuPlugins = false;
  /// The memory of the board the program runs on, as its linker script
  /// lays it out (bytes; 0: not known): `onnxc run` refuses a model whose
  /// weights or arena cannot fit before building anything.
  struct Memory {
    std::string board;           // "the micro:bit (QEMU's microbit)"
    int64_t weightsRegion = 0;   // the region the weights go to (with the code, where shared)
    int64_t ram = 0;             // RAM in all
    int64_t reservedRam = 0;     // stack and heap the linker script sets aside
  } memory = {};
};

/// Where a target's own passes go in the pipeline.
enum class PipelineStage {
  /// After the graph optimisations, where a target puts tensors in a layout
  /// of its own (the SIMD targets' onnxc-layout-selection); dead code is
  /// removed after it.
  Layout,
  /// After the graph optimisations and the layout stage, before kernels are
  /// chosen.
  BeforeKernelSelection,
  /// After kernel selection, before memory planning.
  AfterKernelSelection,
};

/// A convolution as the layout hooks see it (logical NCHW shapes).
struct ConvShape {
  llvm::ArrayRef<int64_t> output;   // N, M, OH, OW
  int64_t inChannels = 0;           // C
  llvm::ArrayRef<int64_t> kernel;   // KH, KW
  llvm::ArrayRef<int64_t> strides;  // 2 values
  llvm::ArrayRef<int64_t> dilations;
  int64_t group = 1;
  bool inputBlocked = false;        // reads the blocked layout (else NCHW)
};

/// Where a target's convolution regions run in the channel-blocked layout
/// (onnxc-layout-selection): the SIMD targets' policy, read from their
/// kernels' own size rules. A target without one keeps every tensor NCHW.
class LayoutPolicy {
public:
  virtual ~LayoutPolicy();
  /// Lanes per channel block of the blocked layout. The blocked ops hold 16
  /// lanes, so this is 16.
  virtual int64_t channelBlock() const = 0;
  /// Whether its blocked kernels run a dense 2-D convolution of `taps`
  /// kernel taps (depthwise ones always run blocked).
  virtual bool blocksDenseConv(int64_t taps) const = 0;
  /// Whether a blocked dense convolution whose input is NCHW (not made in
  /// the blocked layout: a model's first, or after a reshape) converts its
  /// `channels`-channel input to the blocked layout first instead of
  /// reading it as it is.
  virtual bool blocksConvInput(int64_t channels) const = 0;
  /// The Winograd F(m x m, 3x3) a blocked 3x3 convolution runs as: its
  /// output tile m (4 or 2), or 0 for the direct convolution, given the
  /// module's target attribute (whose options may turn Winograd off).
  virtual int64_t winogradTile(const ConvShape &conv, onnx::TargetAttr target) const = 0;
};

/// An option a target declares: its own configuration (as IREE's per-target
/// configuration dictionaries), recorded in #onnx.target's `options` where
/// it differs from the default. onnxc's flags set them by name
/// (--no-winograd: winograd = false; --precision: precision; --cuda-arch:
/// arch, which builds a variant of the target).
struct TargetOption {
  std::string name;
  std::string description;
  /// The values it takes, the default first ({"true", "false"}: a switch,
  /// a bool in #onnx.target); for a buildsVariant option, the one this
  /// target (variant) was built with.
  std::vector<std::string> values;
  /// Why a value the target family has is missing here (a variant's
  /// choice); empty otherwise.
  std::string note;
  /// Changes how the code is built (the toolchain's flags): a variant of
  /// the target (variantFor), not recorded in #onnx.target.
  bool buildsVariant = false;
};

class Target {
public:
  Target(std::string name, std::string description, Toolchain toolchain);
  virtual ~Target();

  const std::string &name() const { return name_; }
  const std::string &description() const { return description_; }
  const Toolchain &toolchain() const { return toolchain_; }

  /// Built with the host's compiler ($CXX honoured) and runnable in-process
  /// by `onnxc run` where runsHere().
  bool hostCode = false;
  /// Kernels that split their work into tasks (`--threads N` above 1).
  bool parallelKernels = false;
  /// Among the targets that run here, `--target native` picks the highest.
  int nativeRank = 0;
  /// The processor its code runs on, as CMake's CMAKE_SYSTEM_PROCESSOR
  /// names it (x86_64, aarch64, arm); empty where any will do (portable
  /// C++, a GPU's host code). add_onnx_model refuses a project built for
  /// another one (`onnxc --print-target-info`).
  std::string processor;
  /// Width of the target's addresses: a model whose arena and weights do not
  /// fit in them is refused at compile time.
  int addressBits = 64;
  /// float64 arithmetic runs in hardware; without it (microcontrollers with
  /// a single-precision FPU or none) a float64 tensor is a compile-time
  /// error naming the node.
  bool doubleFloat = true;
  /// How `onnxc run` runs code for a target that is not host code (host
  /// code runs in process, where runsHere()); none: `onnxc run` refuses it.
  std::optional<EmulatedRunner> emulated;
  /// The folder under targets/ (installed as share/onnxc/targets/<folder>)
  /// that holds its support files: startup code, linker scripts.
  std::string supportFolder;

  /// Whether code built for this target executes on this machine's CPU.
  virtual bool runsHere() const { return false; }

  /// How code built for it is run, for --list-targets.
  std::string runnerDescription() const;

  /// The options it declares (none by default).
  virtual std::vector<TargetOption> options() const { return {}; }
  /// The value of its option `name` in `attr`: the one set there, else the
  /// default; empty if it declares no such option.
  std::string optionValue(onnx::TargetAttr attr, llvm::StringRef name) const;
  /// This target with its buildsVariant option `option` set to `value`, a
  /// variant owned by the caller, and `canonical`, the value as recorded
  /// (sorted, without repeats); null with `error` set when it is not a value
  /// the target takes. Targets without such options refuse.
  virtual std::unique_ptr<Target> variantFor(llvm::StringRef option, llvm::StringRef value,
                                             std::string &canonical, std::string &error) const;

  /// Adds the target's own passes at `stage` (function-level pass manager).
  virtual void addPasses(mlir::OpPassManager &funcPasses, PipelineStage stage) const {}
  /// Registers the dialects of its own ops (the tools parse and print them).
  virtual void registerDialects(mlir::DialectRegistry &registry) const {}

  /// The emitter that writes its source; null: the C++ emitter (EmitC).
  virtual const ModelEmitter *emitter() const { return nullptr; }

  /// The providers asked before the reference provider, in order.
  llvm::ArrayRef<const KernelProvider *> kernelProviders() const { return providerView_; }

  /// Its channel-blocked layout policy; null: every tensor stays NCHW.
  virtual const LayoutPolicy *layout() const { return nullptr; }

protected:
  /// Appends a provider (asked in the order added).
  void addProvider(std::unique_ptr<KernelProvider> provider);

private:
  std::string name_, description_;
  Toolchain toolchain_;
  std::vector<std::unique_ptr<KernelProvider>> providers_;
  std::vector<const KernelProvider *> providerView_;
};

/// The registered targets. Registration happens once, at startup of a tool
/// (registerAllTargets), before any lookup.
class TargetRegistry {
public:
  static void add(std::unique_ptr<Target> target);
  /// The target called `name` ("native": the widest one that runs here), or null.
  static const Target *find(llvm::StringRef name);
  /// The widest registered target whose code runs on this machine.
  static const Target *native();
  static std::vector<const Target *> all();
};

/// Registers every target folder's targets (generated by targets/CMakeLists.txt).
void registerAllTargets();

/// The module attribute naming the target (a #onnx.target).
constexpr const char *kTargetAttr = "onnxc.target";

/// The module's #onnx.target, or null (no attribute: the reference kernels).
onnx::TargetAttr targetAttrOf(mlir::Operation *op);
/// The registered target the module of `op` is compiled for, or null (none
/// named: the portable reference kernels only).
const Target *targetOf(mlir::Operation *op);
/// The lowering context the module's target attribute implies for `op`.
LoweringContext loweringContextOf(mlir::Operation *op);

} // namespace onnxc

#endif
