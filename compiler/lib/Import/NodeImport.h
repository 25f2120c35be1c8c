//===- NodeImport.h - one ONNX node on its way into the dialect ------------===//
//
// The importer turns each NodeProto into a NodeImport (inputs as values,
// attributes converted generically), lets the opset handler for (op type,
// since-version) rewrite it into the dialect's single semantics, then builds
// the op. Handlers live in OpsetHandlers.cpp, the one place that knows about
// opset differences.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_IMPORT_NODEIMPORT_H
#define ONNXC_IMPORT_NODEIMPORT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace onnxc {

struct NodeImport {
  std::string opType;   // ONNX op type; a handler may change it
  std::string nodeName; // for diagnostics
  int64_t opset = 0;    // opset version of the default domain
  mlir::Location loc;
  mlir::OpBuilder &builder;
  llvm::SmallVector<mlir::Value> inputs; // none-typed values for omitted inputs
  llvm::SmallVector<mlir::NamedAttribute> attrs;
  unsigned numOutputs = 0; // as in the node; the importer pads to the op's count
  /// Set by handlers that build the result themselves (e.g. legacy Softmax):
  /// the values standing for the node's outputs.
  llvm::SmallVector<mlir::Value> replacedOutputs;

  NodeImport(mlir::Location l, mlir::OpBuilder &b) : loc(l), builder(b) {}

  mlir::Attribute getAttr(llvm::StringRef name) const;
  /// Removes and returns an attribute (null if absent).
  mlir::Attribute takeAttr(llvm::StringRef name);
  void setAttr(llvm::StringRef name, mlir::Attribute value);

  /// Creates an onnx.Constant holding int64 values (1-D, or 0-D if scalar).
  mlir::Value constantI64(llvm::ArrayRef<int64_t> values, bool scalar = false);
  mlir::Value constant(mlir::ElementsAttr value);
  mlir::Value noValue();
  /// Sets input i (growing the list with none values as needed).
  void setInput(unsigned i, mlir::Value v);
  mlir::Value input(unsigned i) const;

  /// Builds a dialect op by name with result types inferred. Results whose
  /// `present` entry is false (omitted optional outputs) are `none`.
  mlir::FailureOr<mlir::Operation *>
  buildOp(llvm::StringRef opType, mlir::ValueRange operands,
          llvm::ArrayRef<mlir::NamedAttribute> attrs, unsigned numResults,
          llvm::ArrayRef<bool> present = {});
  /// Builds a single-result helper op (used by handlers that expand a node).
  mlir::FailureOr<mlir::Value> build1(llvm::StringRef opType,
                                      mlir::ValueRange operands,
                                      llvm::ArrayRef<mlir::NamedAttribute> attrs = {});
};

/// Rewrites the node into the dialect's form for its opset; failure means an
/// error was emitted at the node.
mlir::LogicalResult applyOpsetHandler(NodeImport &node);

/// ONNX Runtime's com.microsoft QLinear* ops (ContribOps.cpp): whether
/// (domain, op type) is one, their names for messages, and the import as
/// DequantizeLinear -> float op -> QuantizeLinear.
bool isContribOp(llvm::StringRef domain, llvm::StringRef opType);
std::string contribOpNames();
/// The com.microsoft operators onnxc imports (QLinearAdd, ...).
std::vector<std::string> contribOpNameList();
mlir::LogicalResult importContribOp(NodeImport &node, llvm::StringRef domain);

/// ONNX ops that have no dialect op of their own: their handler expresses
/// them with other ops (CastLike -> Cast, DepthToSpace -> Reshape/Transpose).
bool expandedAtImport(llvm::StringRef opType);
const std::vector<std::string> &opsExpandedAtImport();

/// The number of operands / results the dialect op has when the ONNX op has
/// optional trailing inputs/outputs (0 = as many as the node has).
unsigned dialectOperandCount(llvm::StringRef opType);
unsigned dialectResultCount(llvm::StringRef opType);

} // namespace onnxc

#endif
