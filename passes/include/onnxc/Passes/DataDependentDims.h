//===- DataDependentDims.h - sizes the data decides, through the graph ----===//
//
// NonZero, Unique and NonMaxSuppression give results whose size along one
// dim the data decides (the DataDependentShape interface): the type holds
// the bound, a scalar int64 result the size a run produced. Ops that keep
// each row along such a dim to itself (element-wise ops, Cast, views,
// Transpose, Gather/GatherND by such indices, Slice, Split and Concat along
// other dims) carry the dim to their results: their kernels run on the
// bound, the rows past the size hold values nothing real reads. Which dims
// of which values are such, and which scalar holds each size, is worked out
// here once, for constant folding (a Shape over such a dim is not a
// constant) and for onnxc-data-dependent-dims (which refuses the readers
// that cannot carry one and gives graph outputs their sizes).
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_PASSES_DATADEPENDENTDIMS_H
#define ONNXC_PASSES_DATADEPENDENTDIMS_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <string>

namespace onnxc {

/// A dim of a value whose size the data decides (the value's type holds its
/// bound), and the scalar int64 value holding the size a run produced.
struct DataDependentDim {
  int64_t dim;
  mlir::Value extent;
};
using DataDependentDims = llvm::SmallVector<DataDependentDim, 1>;

/// Makes the run-time size of a Slice along such a dim, rows
/// [start, min(end, n)) of n = `extent`; the analysis of constant folding,
/// which only asks which dims are such, has none (the size is then unknown).
using SliceExtentBuilder =
    std::function<mlir::Value(mlir::Operation *slice, mlir::Value extent, int64_t start,
                              int64_t end)>;

/// The data-dependent dims of every value of a function, in program order.
class DataDependentDimsAnalysis {
public:
  /// Works through `root`'s regions. Stops at the first op that reads such a
  /// dim and cannot carry it: refuser() and refusal() say which and why
  /// (its results then count every dim as data-dependent).
  /// `given`: values whose dims onnxc-data-dependent-dims made by rewriting
  /// (a Concat along such a dim packed by a Gather), taken as they are.
  explicit DataDependentDimsAnalysis(
      mlir::Operation *root, SliceExtentBuilder sliceExtent = nullptr,
      const llvm::DenseMap<mlir::Value, DataDependentDims> *given = nullptr);

  /// The dims of `v` whose size the data decides (empty for most values).
  llvm::ArrayRef<DataDependentDim> dimsOf(mlir::Value v) const;
  /// Whether any value of the function has such a dim.
  bool any() const { return !dims.empty(); }

  mlir::Operation *refuser() const { return refuser_; }
  const std::string &refusal() const { return refusal_; }

private:
  void visit(mlir::Operation *op);

  SliceExtentBuilder sliceExtent;
  const llvm::DenseMap<mlir::Value, DataDependentDims> *given;
  llvm::DenseMap<mlir::Value, DataDependentDims> dims;
  mlir::Operation *refuser_ = nullptr;
  std::string refusal_;
};

/// On a reduction or Softmax over a dim whose size the data decides: its
/// operand's rows past the size hold the reduction's identity (and on the
/// Where that puts it there).
constexpr const char *kRowsMaskedAttr = "onnxc.rows_masked";

/// On a Concat along a dim whose size the data decides: its result holds
/// each operand's bound of rows, the real ones not yet together (a Gather,
/// the only reader, packs them).
constexpr const char *kPaddedRowsAttr = "onnxc.padded_rows";

/// Reductions along axes (ReduceX, ArgMax/ArgMin, Softmax/LogSoftmax: the
/// rows along the axis are one result, or normalised together).
bool isRowReduction(mlir::Operation *op);

/// The axes a row reduction reduces (normalised).
llvm::SmallVector<int64_t> reducedAxes(mlir::Operation *op);

/// The node name of `op` for messages ("#1 Transpose", or the op's name).
std::string nodeLabel(mlir::Operation *op);

} // namespace onnxc

#endif
