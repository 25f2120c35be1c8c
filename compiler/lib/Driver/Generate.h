//===- Generate.h - model file -> generated sources, in memory -------------===//
#ifndef ONNXC_DRIVER_GENERATE_H
#define ONNXC_DRIVER_GENERATE_H

#include "onnxc/Codegen/ModelEmitter.h"
#include "onnxc/Driver/Driver.h"
#include "onnxc/Import/Importer.h"

#include "onnxc/Dialect/ONNX/ONNXDialect.h"

#include "mlir/IR/MLIRContext.h"

#include <string>
#include <vector>

namespace onnxc_rt {
class TaskRunner;
}

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
};

/// The summary's "control" lines: the Ifs compiled as one branch (condition
/// known at compile time) and those with both branches (run-time condition).
void printControlFlowSummary(const CompileSummary &summary);

struct GeneratedModel {
  ModelInterface iface;
  EmittedModel files; // the target's emitter's output (empty with mlirOnly)
  std::string mlir;   // with mlirOnly
  CompileSummary summary;
};

/// A compiled model loaded into this process (host targets): the shared
/// library built from its files in `dir` (written there by the caller with
/// writeModelFiles, as "model"), closed when this goes away.
class HostModel {
public:
  HostModel() = default;
  HostModel(const HostModel &) = delete;
  HostModel &operator=(const HostModel &) = delete;
  ~HostModel();
  /// With `useCache`, the library comes from onnxc's build cache where an
  /// identical build is there (fromCache() then says so).
  bool load(const Target &target, const GeneratedModel &g, const std::string &dir,
            std::string &error, bool useCache = true);
  bool fromCache() const { return fromCache_; }
  /// model_run_v_on: the model's status (0: success).
  int run(const void *const *inputs, void *const *outputs, void *arena,
          onnxc_rt::TaskRunner *threads) const;

private:
  using RunOnFn = int (*)(const void *const *, void *const *, void *, void *);
  void *handle_ = nullptr;
  RunOnFn runOn_ = nullptr;
  bool fromCache_ = false;
};

/// Writes the model's files into `dir` (which must exist).
bool writeModelFiles(const GeneratedModel &g, const std::string &dir,
                     const std::string &name, std::vector<std::string> &files,
                     std::string &error);

/// A temporary directory removed (with its contents) when this goes away.
struct ScopedTempDir {
  std::string path; // empty until create() succeeds
  ScopedTempDir() = default;
  ScopedTempDir(const ScopedTempDir &) = delete;
  ScopedTempDir &operator=(const ScopedTempDir &) = delete;
  ~ScopedTempDir();
  bool create(const std::string &prefix);
  std::string file(const std::string &name) const;
};

/// An input's file name stem in an inputs or calibration folder (NAME.pb,
/// NAME.npy): its name, with the characters a file name cannot hold
/// written '_'.
std::string inputFileName(const std::string &name);

/// `--quantize int8 --calibration DIR`: calibrates the float model on this
/// machine and writes its int8 QDQ form to `qdqPath`. Returns the exit code
/// (errors printed, naming the file, input or node).
int quantizeModel(const std::string &modelPath, const ImportOptions &import,
                  const QuantizeOptions &options, const std::string &qdqPath, bool quiet);
/// --quantize-report: quantizeModel leaves the report beside `qdqPath`;
/// once the compile or run has succeeded this copies it to its place, so a
/// failure leaves no report behind. Returns the exit code.
int publishQuantizeReport(const QuantizeOptions &options, const std::string &qdqPath,
                          bool quiet);

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
/// --precision: precision).
onnx::TargetAttr targetAttrFor(mlir::MLIRContext &ctx, const Target &target,
                               const ModelOptions &options);

/// Why --precision `precision` is not acceptable for `target`, or "".
std::string precisionProblem(const Target &target, const std::string &precision);

/// The hex sha256 of a file's bytes, or "" if it cannot be read.
std::string sha256OfFile(const std::string &path);
/// A hex sha256 over a folder's files (relative paths and contents).
std::string sha256OfTree(const std::string &dir);

} // namespace onnxc

#endif
