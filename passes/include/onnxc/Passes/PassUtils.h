//===- PassUtils.h - helpers shared by the graph passes --------------------===//
#ifndef ONNXC_PASSES_PASSUTILS_H
#define ONNXC_PASSES_PASSUTILS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace onnxc {

/// Re-infers the result types of one op (no-op for ops without inference).
mlir::LogicalResult refreshTypes(mlir::Operation *op);

/// Makes the function's signature match its return operands' types.
void updateFunctionResultTypes(mlir::func::FuncOp func);

/// Erases the onnx ops of `body` whose results are unused, chains at once
/// (onnxc-dce).
void eraseDeadOps(mlir::Block &body);

/// A 1-D i64 constant holding `dims` (a Reshape's shape operand), at b's insertion point.
mlir::Value shapeConstant(mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<int64_t> dims);

/// Builds the onnx op `name` ("Unsqueeze") at b's insertion point and infers
/// its result type; failure when inference rejects it (error emitted).
mlir::FailureOr<mlir::Value> buildOnnxOp(mlir::OpBuilder &b, mlir::Location loc,
                                         llvm::StringRef name, mlir::ValueRange operands,
                                         llvm::ArrayRef<mlir::NamedAttribute> attrs = {});

} // namespace onnxc

#endif
