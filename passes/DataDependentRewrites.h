//===- DataDependentRewrites.h - onnxc-data-dependent-dims' rewrites -------===//
// Private to passes/: the rewrites DataDependentDimsPass.cpp runs.
#ifndef ONNXC_PASSES_DATADEPENDENTREWRITES_H
#define ONNXC_PASSES_DATADEPENDENTREWRITES_H

#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Passes/DataDependentDims.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace onnxc {

/// Compress with a condition computed at run time is Gather by the indices
/// of the condition's true elements: NonZero's, bounded like them.
mlir::LogicalResult expandRuntimeCompress(onnx::CompressOp op);

/// The Transposes after a NonZero read its transposed form ([count, rank],
/// rows a bound apart) instead of its packed [rank, count].
void transposeNonZero(onnx::NonZeroOp op);

/// A scalar int64 constant (a size, a bound).
mlir::Value i64Scalar(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// Gives sizes the data decides to the ops that read them as values or
/// change them (Shape/Size, TopK, NonMaxSuppression, Concat along the dim,
/// reductions, Slice to a run-time end), in rounds until nothing changes;
/// `given` records the sizes of the values the rewrites make.
mlir::LogicalResult giveSizesToReaders(mlir::func::FuncOp func,
                                       const SliceExtentBuilder &sliceExtent,
                                       llvm::DenseMap<mlir::Value, DataDependentDims> &given);

/// `x` with the rows past `extent` along `dim` zeroed (graph outputs).
mlir::FailureOr<mlir::Value> zeroPastExtent(mlir::OpBuilder &b, mlir::Location loc,
                                            mlir::Value x, int64_t dim, mlir::Value extent);

/// `x` packed along `dim`, which comes after dims larger than 1: the
/// tensor of `extent` rows dense from the buffer's start, zeros after
/// (graph outputs).
mlir::FailureOr<mlir::Value> packPastExtent(mlir::OpBuilder &b, mlir::Location loc,
                                            mlir::Value x, int64_t dim, mlir::Value extent);

} // namespace onnxc

#endif
