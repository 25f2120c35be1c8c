//===- Generate.h - model file -> generated sources, in memory -------------===//
//
// The driver's private headers: Generate.h (import, pipelines, emission,
// the target checks), HostModel.h (a host build loaded in process),
// Calibration.h (--quantize), Files.h (temporary folders, digests, input
// file names), Toolchain.h (building and the build cache).
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_DRIVER_GENERATE_H
#define ONNXC_DRIVER_GENERATE_H

#include "onnxc/Codegen/ModelEmitter.h"
#include "onnxc/Driver/Driver.h"
#include "onnxc/Import/Importer.h"

#include "onnxc/Dialect/ONNX/ONNXDialect.h"

#include "mlir/IR/MLIRContext.h"

#include <string>
#include <vector>

namespace onnxc {

class Target;

struct CompileSummary {
  int64_t opsImported = 0, opsAfter = 0, batchNormsFolded = 0;
  int64_t arenaBytes = 0, naiveBytes = 0, weightBytes = 0, flops = 0;
  std::vector<std::string> specialisedIfs; // "NODE:then" / "NODE:else"
  std::vector<std::string> runTimeIfs;     // both branches compiled
  /// The largest tensors in the arena and the nodes with the most weight
  /// bytes (packed weights included), largest first: what a --ram-budget or
  /// --flash-budget error names.
  struct NodeBytes {
    std::string node;
    int64_t bytes = 0;
    bool scratch = false; // the node's kernels' scratch, not its output
  };
  std::vector<NodeBytes> largestArenaTensors, largestWeights;
  /// The int8 ops ("QConv 'node'") that the target's kernel providers left
  /// to the reference kernels (a target with providers only).
  std::vector<std::string> int8OnReference;
  /// A quantized model's convolutions and matrix products on integer
  /// kernels (-1: the model is not quantized), and those that read
  /// quantized values but stay float ("Gemm 'node': why"), then the other
  /// ops that do, from onnxc-fold-qdq.
  int64_t integerMatrixOps = -1;
  /// Of the integer ops, those on int16 activations (the 16x8 scheme).
  int64_t int16Ops = 0;
  std::vector<std::string> floatMatrixOps, floatOtherOps;
};

struct GeneratedModel {
  ModelInterface iface;
  EmittedModel files; // the target's emitter's output (empty with mlirOnly)
  std::string mlir;   // with mlirOnly
  CompileSummary summary;
};

/// Writes the model's files into `dir` (which must exist).
bool writeModelFiles(const GeneratedModel &g, const std::string &dir,
                     const std::string &name, std::vector<std::string> &files,
                     std::string &error);

/// Why `threads` (--threads) is not acceptable for `target`, or "" if it is:
/// 1 to ThreadPool::kMaxThreads, and above 1 only where kernels run in parallel.
std::string threadsProblem(const Target &target, int threads);

/// Imports, optimizes, plans and emits. With `mlirOnly` it stops after
/// memory planning and fills `mlir` instead of the sources. The module is
/// compiled for `target` (its kernel providers and layout preferences)
/// with `options`' --threads and target options (targetAttrFor).
/// `provenance` goes into the header; its producer and opsets, when empty,
/// are the imported model's.
mlir::FailureOr<GeneratedModel> generateModel(mlir::MLIRContext &ctx,
                                              const std::string &modelPath,
                                              const std::string &name,
                                              const ImportOptions &import,
                                              const Target &target,
                                              const ModelOptions &options, bool mlirOnly,
                                              const Provenance &provenance = {});

/// The module's #onnx.target: the target, --threads, and the options the
/// target declares that `options`' flags set (--no-winograd: winograd;
/// --no-block-fusion: block-fusion;
/// --precision: precision; --conv-weights: conv-weights).
onnx::TargetAttr targetAttrFor(mlir::MLIRContext &ctx, const Target &target,
                               const ModelOptions &options);

/// Why `options`' target options (--precision, --conv-weights) are not
/// acceptable for `target`, or "".
std::string targetOptionsProblem(const Target &target, const ModelOptions &options);

} // namespace onnxc

#endif
