//===- Driver.h - what the onnxc command does -----------------------------===//
#ifndef ONNXC_DRIVER_DRIVER_H
#define ONNXC_DRIVER_DRIVER_H

#include "onnxc/Import/Importer.h"

#include <limits>
#include <memory>
#include <map>
#include <string>

namespace onnxc {

/// How --quantize turns observed values into ranges (--calibrate-method).
struct CalibrationMethod {
  enum Kind { MinMax, Percentile, Entropy } kind = MinMax;
  double percentile = 99.99; // --calibrate-percentile
  /// "MinMax", "Percentile 99.99", "Entropy".
  std::string describe() const;
  /// Parses "minmax", "percentile" or "entropy"; false otherwise.
  bool parse(const std::string &name);
};

/// --quantize int8 and the options that go with it (`onnxc` and `onnxc run`).
struct QuantizeOptions {
  std::string kind; // "" (the model as it is), "int8" or "int16x8"
  /// --quantize-int16: nodes (by name or first output) with int16
  /// activations in an int8 model.
  std::vector<std::string> int16Layers;
  /// --quantize-fallback int16: --quantize-error-budget makes a layer
  /// below the budget int16 first, float only if it stays below.
  bool int16Fallback = false;
  std::string calibrationDir;
  CalibrationMethod method;
  /// --quantize-error-budget DB: Conv/Gemm/MatMul layers whose output SQNR
  /// against float falls below it run in float (NaN: no budget).
  double errorBudgetDb = std::numeric_limits<double>::quiet_NaN();
  std::string reportPath; // --quantize-report FILE.md
  /// --io int8: quantized graph inputs and outputs are the model's own
  /// int8 tensors (no float conversion at the edges).
  bool ioInteger = false;
  int ioBits = 8; // --io int8 or int16
  /// An earlier identical quantization (model, samples, options) is taken
  /// from onnxc's build cache (`onnxc run --no-cache`: false).
  bool useCache = true;
  bool enabled() const { return !kind.empty(); }
  /// A scheme onnxc has (kind's values above).
  bool knownKind() const { return kind == "int8" || kind == "int16x8"; }
  bool hasBudget() const { return errorBudgetDb == errorBudgetDb; }
};

/// What `onnxc` and `onnxc run` both take: the model, the target and how to
/// compile for it. onnxc.cpp fills it once for either command.
struct ModelOptions {
  std::string modelPath;
  std::string target = "generic"; // a registry name, or "native"
  ImportOptions import;
  /// --quantize int8 --calibration DIR: static post-training quantization.
  QuantizeOptions quantize;
  /// --threads N: parallel kernels split into N tasks (targets with them);
  /// `onnxc run` also runs them on a pool of N threads.
  int threads = 1;
  /// --no-winograd: every convolution direct (otherwise targets that prefer
  /// Winograd F(4x4, 3x3) for large 3x3 stride-1 ones pick it).
  bool winograd = true;
  /// --no-block-fusion: an inverted-residual block's expand and depthwise
  /// convolutions run as two kernels (otherwise the SIMD targets fuse them,
  /// the expanded tensor kept in bands of rows: simd.BlockedExpandDepthwise).
  bool blockFusion = true;
  /// --precision: float matrix products in fp32, or tf32 / bf16 (targets
  /// with it: cuda, x86-64-amx).
  std::string precision = "fp32";
  /// --conv-weights int16|int8: how the SMLAD cores' int8 convolutions
  /// store their weights (empty: int16 pairs, or, when --flash-budget is
  /// not met so, int8).
  std::string convWeights;
  /// --conv-layout auto|nchw|nhwc: where the Cortex-M int8 convolutions run
  /// on NHWC tensors (empty: auto, the cost model's regions).
  std::string convLayout;
  /// --cuda-arch: the GPU architectures to build for, comma-separated
  /// (empty: the target's defaults).
  std::string cudaArch;
  bool quiet = false;
  /// --profile: the generated code calls NAME_profile_mark(K) as node K
  /// begins (the program defines it); --emit firmware's firmware times each
  /// node with it.
  bool profile = false;
  /// --dim NAME=LO..HI: bounded dims, one library for every size in the
  /// range (docs/design.md, "Bounded dimensions"); NAME -> (LO, HI).
  std::map<std::string, std::pair<int64_t, int64_t>> dimRanges;
};

/// `onnxc MODEL -o DIR`.
struct CompileOptions : ModelOptions {
  std::string outDir;
  std::string name;             // default: the model file's stem, made a C identifier
  std::string emit = "cpp";     // cpp | lib | mlir | qdq-onnx
  /// --bind NAME=FILE.pb: inputs compiled in as constants.
  std::vector<std::string> bindings;
  /// --report: flash (weights + code) and RAM (arena + stack) on the target,
  /// from the model compiled with the target's toolchain.
  bool report = false;
  /// --depfile FILE: a Make-style rule, NAME.h depending on every file read.
  std::string depfile;
  /// --ram-budget / --flash-budget (bytes; -1: none): over it, the compile
  /// fails with the figures and the largest tensors, writing nothing.
  int64_t ramBudget = -1, flashBudget = -1;
  /// --board NAME (a board or chip of the database, targets/cortex-m/
  /// boards.json): the target (its core, unless --target names the same),
  /// the memory the model must fit, checked before anything is written;
  /// --emit firmware writes a project for it.
  std::string board;
  bool targetGiven = false; // --target was on the command line
};

/// `onnxc run MODEL --inputs DIR --outputs DIR`.
struct RunOptions : ModelOptions {
  /// A folder of input files (input_0.pb, ... or NAME.pb / NAME.npy), or of
  /// sub-folders of them, one per input set (test_data_set_0, ...).
  std::string inputsDir;
  std::string outputsDir;
  int repeat = 0;
  /// --count-instructions: emulated targets; the instructions one inference
  /// executes under QEMU, counted by a TCG plugin as ((1 + N) runs - 1 run) / N
  /// with N = --repeat (default 4).
  bool countInstructions = false;
  /// --sanitize: host targets only; the model built into a program of its own
  /// with AddressSanitizer and UBSan, whose findings fail the run.
  bool sanitize = false;
  /// onnxc's build cache (--no-cache: false): a model built before with the
  /// same code, flags and compiler is not compiled again.
  bool useCache = true;
};

/// `onnxc MODEL -o DIR`: writes NAME.h, NAME.cpp, NAME.weights.bin,
/// NAME_weights.S (and libNAME.a with --emit lib, or NAME.mlir with --emit
/// mlir). All files appear together or not at all. Returns the exit code.
int compileModel(const CompileOptions &options);

class Target;
/// The target --target `name` and --cuda-arch `cudaArch` (comma-separated;
/// empty: the target's defaults) select: the registry's, or a variant of it
/// for those GPU architectures, owned by `variant`. Null with `error` set
/// when there is none.
const Target *selectTarget(const std::string &name, const std::string &cudaArch,
                           std::unique_ptr<Target> &variant, std::string &error);


/// `onnxc run MODEL --inputs DIR --outputs DIR`: compiles for the host,
/// runs on TensorProto inputs and writes TensorProto outputs.
int runModel(const RunOptions &options);

/// `onnxc MODEL --verify-header NAME.h`: whether the header's recorded
/// provenance names this model file (its sha256). Prints the recorded
/// compiler version and options; returns 0 on a match, 1 otherwise.
int verifyHeader(const std::string &headerPath, const std::string &modelPath);

/// `onnxc --list-boards`: the board database, board by board.
int listBoards();

/// `onnxc validate MODEL --board B (--port DEV | --qemu FIRMWARE.elf) --inputs DIR`.
struct ValidateOptions : ModelOptions {
  std::string board;
  /// The board's console: a serial device (--port; the firmware from
  /// --emit firmware flashed and running) or the firmware run under QEMU's
  /// model of the board (--qemu).
  std::string port, qemuFirmware;
  std::string inputsDir; // as `onnxc run --inputs`
  /// An output element agrees when |board - host| <= tolerance x max(1, |host|).
  double tolerance = 1e-4;
  unsigned timeoutSeconds = 300; // for each answer of the firmware
};

/// Runs each input set on the board's firmware and on the host build of
/// the same model, compares the outputs (max difference, argmax) and
/// prints them with the board's cycles. 0 when every output agrees.
int validateOnBoard(const ValidateOptions &options);

/// The version string (`onnxc --version`).
const char *onnxcVersion();

/// Exit codes: 0 success, 1 error (bad model, toolchain failure), 2 bad
/// command line, 3 the model uses something onnxc does not support yet.
/// kExitNoDevice: `onnxc run` built a device target's program but this
/// machine has no such device (77: what CTest's SKIP_RETURN_CODE and
/// automake read as "skipped").
enum ExitCode {
  kExitOk = 0, kExitError = 1, kExitUsage = 2, kExitUnsupported = 3, kExitNoDevice = 77
};

/// Prints diagnostics as "onnxc: error: node 'NAME': message" and remembers
/// whether one reported a missing feature ("... is not supported").
struct DiagnosticPrinter {
  explicit DiagnosticPrinter(mlir::MLIRContext &ctx);
  bool sawUnsupported = false;
  /// kExitUnsupported if a diagnostic said so, else kExitError.
  int failureCode() const { return sawUnsupported ? kExitUnsupported : kExitError; }
};

} // namespace onnxc

#endif
