//===- Generate.h - model file -> generated sources, in memory -------------===//
#ifndef ONNXC_DRIVER_GENERATE_H
#define ONNXC_DRIVER_GENERATE_H

#include "onnxc/Codegen/ModelEmitter.h"
#include "onnxc/Import/Importer.h"

#include "mlir/IR/MLIRContext.h"

#include <string>
#include <vector>

namespace onnxc {

class Target;

struct CompileSummary {
  int64_t opsImported = 0, opsAfter = 0, batchNormsFolded = 0;
  int64_t arenaBytes = 0, naiveBytes = 0, weightBytes = 0, flops = 0;
};

struct GeneratedModel {
  ModelInterface iface;
  EmittedModel files; // the target's emitter's output (empty with mlirOnly)
  std::string mlir;   // with mlirOnly
  CompileSummary summary;
};

/// Why `threads` (--threads) is not acceptable for `target`, or "" if it is:
/// 1 to ThreadPool::kMaxThreads, and above 1 only where kernels run in parallel.
std::string threadsProblem(const Target &target, int threads);

/// Imports, optimizes, plans and emits. With `mlirOnly` it stops after
/// memory planning and fills `mlir` instead of the sources. The module is
/// compiled for `target` (its kernel providers and layout preferences);
/// `threads` is the task count its parallel kernels split into (--threads);
/// `winograd` false keeps every convolution direct (--no-winograd).
mlir::FailureOr<GeneratedModel> generateModel(mlir::MLIRContext &ctx,
                                              const std::string &modelPath,
                                              const std::string &name,
                                              const ImportOptions &import,
                                              const Target &target, int threads,
                                              bool winograd, bool mlirOnly);

} // namespace onnxc

#endif
