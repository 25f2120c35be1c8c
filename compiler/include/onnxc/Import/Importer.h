//===- Importer.h - ONNX protobuf -> onnx dialect --------------------------===//
#ifndef ONNXC_IMPORT_IMPORTER_H
#define ONNXC_IMPORT_IMPORTER_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <vector>

namespace onnxc {

/// A sequence or optional graph input, as `onnxc run` sees it in its files.
struct CompositeInput {
  bool isOptional = false;
  bool present = true;     // optionals
  bool isSequence = false; // a sequence (possibly inside the optional)
  std::vector<std::vector<int64_t>> elementShapes; // one per tensor
};

/// What a graph input is (from the model's type protos).
struct GraphInputKind {
  std::string name;
  bool isOptional = false, isSequence = false;
};

struct ImportOptions {
  /// Whole-shape overrides for graph inputs: name -> dims.
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Shapes by position among the graph inputs (used by `onnxc run`, which
  /// takes them from the given input tensors); wins over inputShapes.
  std::vector<std::vector<int64_t>> positionalShapes;
  /// Graph inputs compiled in as constants ("bound"): by name, and by
  /// position among the graph inputs (null entries are not bound). The
  /// generated function keeps the parameter but does not read it.
  std::map<std::string, mlir::DenseElementsAttr> boundInputs;
  std::vector<mlir::DenseElementsAttr> positionalBound;
  /// Sequence/optional inputs by position among the graph inputs. Each
  /// tensor of theirs becomes one parameter of the generated function.
  std::map<size_t, CompositeInput> compositeInputs;
  /// The same by name (--elements NAME=...): the element shapes and, for an
  /// optional, whether it is present; the model's type says which kind the
  /// input is (isOptional/isSequence are filled in from it).
  std::map<std::string, CompositeInput> namedCompositeInputs;
  /// Values for symbolic dimensions: dim_param -> size.
  std::map<std::string, int64_t> dimParams;
  /// Re-batching (--batch N, or a shape given for an input whose dim 0 the
  /// model fixes to 1): every input whose dim 0 the model fixes to 1 gets N;
  /// the module records it (kRebatchedAttr). 0: none.
  int64_t batch = 0;
  /// Import as exported: dim 0 stays the model's 1 where a re-batch would
  /// change it (the driver's reference for the batch-polymorphism check).
  bool asExported = false;
  /// Name of the generated function (the model name).
  std::string functionName = "model";
};

/// The module attribute of a re-batched import: the batch (i64).
constexpr const char *kRebatchedAttr = "onnxc.rebatched";
/// What a re-batched model that fails to compile is told (after the error
/// naming the node).
std::string rebatchProblem(int64_t batch);

/// Reads an .onnx file (and its external data files, relative to it) and
/// builds a module with one func.func in the onnx dialect. Every problem is
/// reported as an MLIR diagnostic naming the ONNX node (all unsupported ops
/// at once); returns null on failure.
mlir::OwningOpRef<mlir::ModuleOp> importOnnxFile(mlir::MLIRContext &ctx,
                                                 llvm::StringRef path,
                                                 const ImportOptions &options);

/// Positions (among the graph inputs that are not initializers) of the
/// inputs whose values decide shapes or control flow: they reach a Reshape
/// shape, Slice bounds, Pad pads, reduction axes, an If condition and the
/// like. `onnxc run` binds those to the given values, as it fixes dimensions
/// to the given shapes. Empty if the
/// file cannot be read (the import reports that).
std::vector<size_t> shapeDecidingInputs(llvm::StringRef path);

/// The external data files the model's initializers name (paths beside the
/// model, as the import reads them). Empty if the file cannot be read.
std::vector<std::string> externalDataFiles(llvm::StringRef path);

/// The graph inputs (not initializers) and whether each is a sequence or an
/// optional. Empty if the file cannot be read.
std::vector<GraphInputKind> graphInputKinds(llvm::StringRef path);

/// The ONNX operator names the dialect implements (for `onnxc --list-ops`
/// and the conformance runner).
std::vector<std::string> supportedOnnxOps(mlir::MLIRContext &ctx);

} // namespace onnxc

#endif
