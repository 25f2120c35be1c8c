//===- Importer.h - ONNX protobuf -> onnx dialect --------------------------===//
#ifndef ONNXC_IMPORT_IMPORTER_H
#define ONNXC_IMPORT_IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <vector>

namespace onnxc {

struct ImportOptions {
  /// Whole-shape overrides for graph inputs: name -> dims.
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Shapes by position among the graph inputs (used by `onnxc run`, which
  /// takes them from the given input tensors); wins over inputShapes.
  std::vector<std::vector<int64_t>> positionalShapes;
  /// Values for symbolic dimensions: dim_param -> size.
  std::map<std::string, int64_t> dimParams;
  /// Name of the generated function (the model name).
  std::string functionName = "model";
};

/// Reads an .onnx file (and its external data files, relative to it) and
/// builds a module with one func.func in the onnx dialect. Every problem is
/// reported as an MLIR diagnostic naming the ONNX node (all unsupported ops
/// at once); returns null on failure.
mlir::OwningOpRef<mlir::ModuleOp> importOnnxFile(mlir::MLIRContext &ctx,
                                                 llvm::StringRef path,
                                                 const ImportOptions &options);

/// The ONNX operator names the dialect implements (for `onnxc --list-ops`
/// and the conformance runner).
std::vector<std::string> supportedOnnxOps(mlir::MLIRContext &ctx);

} // namespace onnxc

#endif
