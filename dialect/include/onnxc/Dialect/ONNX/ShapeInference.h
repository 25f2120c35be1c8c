//===- ShapeInference.h - the shape inference interface and shared rules --===//
#ifndef ONNXC_DIALECT_ONNX_SHAPEINFERENCE_H
#define ONNXC_DIALECT_ONNX_SHAPEINFERENCE_H

#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

#include "onnxc/Dialect/ONNX/ShapeInferenceInterface.h.inc"

namespace onnxc::onnx {
// Rules shared by many ops (their ODS classes call these).
mlir::LogicalResult inferSameAsOperand(mlir::Operation *op, unsigned operand);
mlir::LogicalResult inferBroadcast(mlir::Operation *op, bool boolResult);
mlir::LogicalResult inferReduce(mlir::Operation *op);
mlir::LogicalResult inferArgReduce(mlir::Operation *op);
/// Window functions: 1-D of the (constant) size, of output_datatype.
mlir::LogicalResult inferWindow(mlir::Operation *op);

/// An Einsum equation resolved against static operand shapes: every label's
/// size, and per operand and for the output the label of each dim.
struct EinsumGeometry {
  llvm::SmallVector<int64_t> labelSizes;
  llvm::SmallVector<llvm::SmallVector<int64_t>> operandLabels;
  llvm::SmallVector<int64_t> outputLabels;
};
mlir::FailureOr<EinsumGeometry> resolveEinsum(mlir::Operation *op);

/// Result 0 is bool with operand `operand`'s shape.
mlir::LogicalResult inferBoolLike(mlir::Operation *op, unsigned operand);

/// Numpy broadcast of two shapes (dynamic dims are kShapedDynamic); nullopt
/// when they are incompatible.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// On NonZero: the result is [count, rank] (one index tuple per row, the
/// form Transpose gives its ONNX result) rather than [rank, count]; set by
/// onnxc-data-dependent-dims where a Transpose reads it.
constexpr const char *kTransposedNonZeroAttr = "onnxc.transposed";

/// The integer values of `v` when it is produced by onnx.Constant.
std::optional<llvm::SmallVector<int64_t>> getConstantInts(mlir::Value v);
/// The dense value of `v` when it is produced by onnx.Constant.
mlir::ElementsAttr getConstantElements(mlir::Value v);

/// True for a `none` value (an omitted optional input).
bool isNone(mlir::Value v);

/// Conv, ConvInteger, QLinearConv and QConv share one shape rule (N, M,
/// the window's output dims); `bias` may be null.
mlir::LogicalResult inferConvLike(mlir::Operation *op, mlir::Value x, mlir::Value w,
                                  mlir::Value bias, mlir::Type elt);
/// What QConv checks of its operands (int8 weights, one w_scale or one per
/// output channel, int8/uint8 activations, the clamp within the output
/// type, positive scales), for ops that take QConv's operands.
mlir::LogicalResult verifyQConv(mlir::Operation *op, mlir::Value x, mlir::Value w,
                                llvm::ArrayRef<float> wScale, int64_t actMin, int64_t actMax);

/// Whether FusedConv/FusedGemm can apply the unary op `name` (a functor of
/// runtime-lite's reference elementwise kernels) as their activation: an
/// op with the Activation fact, or one of the fusion's own functors.
bool isFusedActivation(mlir::MLIRContext *ctx, llvm::StringRef name);

/// Sets result `i` of `op` to a ranked tensor (dims may be dynamic).
void setResultType(mlir::Operation *op, unsigned i,
                   llvm::ArrayRef<int64_t> shape, mlir::Type elementType);

/// Fails, with an error on `op` naming the result and its shape, when a
/// static result is larger than onnxc addresses (kMaxTensorBytes). Checked
/// after each op's inference, so the products of an operand's dims that the
/// next op's inference and lowering compute never overflow int64.
mlir::LogicalResult checkResultSizes(mlir::Operation *op);

/// Sets result 0 to an unranked tensor of `elementType` (operands not known
/// well enough yet) and succeeds.
mlir::LogicalResult setUnrankedResult(mlir::Operation *op, mlir::Type elementType);

/// Normalises an axis in [-rank, rank) to [0, rank); emits an error on `op`.
mlir::FailureOr<int64_t> normalizeAxis(mlir::Operation *op, int64_t axis,
                                       int64_t rank, llvm::StringRef what);

} // namespace onnxc::onnx

#endif

namespace onnxc::onnx {

/// The window of a Conv/pool op with auto_pad resolved to explicit pads: the
/// one place that turns ONNX's window attributes into numbers, used by shape
/// inference and by the kernel lowering alike.
struct WindowGeometry {
  llvm::SmallVector<int64_t> kernel, strides, dilations;
  llvm::SmallVector<int64_t> padsBegin, padsEnd;
  llvm::SmallVector<int64_t> outSpatial;
};

/// `inSpatial` are the spatial input dims (all static). `kernel` comes from
/// the weights (Conv) or kernel_shape (pools). `ceilMode` applies to pools.
mlir::FailureOr<WindowGeometry>
resolveWindow(mlir::Operation *op, llvm::ArrayRef<int64_t> inSpatial,
              llvm::ArrayRef<int64_t> kernel, bool ceilMode);

/// Slice's starts/ends/axes/steps resolved against a static input shape, per
/// dimension (dims that are not sliced get start 0, step 1, full extent).
struct SliceGeometry {
  llvm::SmallVector<int64_t> starts, steps, outShape;
};
/// failure: an error was emitted; nullopt: the bounds are not constants yet.
mlir::FailureOr<std::optional<SliceGeometry>> resolveSlice(mlir::Operation *op);

/// ConvTranspose's window: explicit pads (from pads, auto_pad or
/// output_shape) and the output spatial dims.
mlir::FailureOr<WindowGeometry> resolveConvTranspose(mlir::Operation *op);

/// Resize resolved against a static input: per-dim scales (output/input
/// when sizes are given) and the output shape. nullopt: not constant yet.
struct ResizeGeometry {
  llvm::SmallVector<double> scales;
  llvm::SmallVector<int64_t> outShape;
  llvm::SmallVector<double> roi; // 2 * rank (starts then ends), tf_crop_and_resize
};
mlir::FailureOr<std::optional<ResizeGeometry>> resolveResize(mlir::Operation *op);

/// Split sizes along the (normalised) axis.
mlir::FailureOr<llvm::SmallVector<int64_t>> resolveSplit(mlir::Operation *op,
                                                          int64_t &axis);

/// Permutation of a Transpose (default: reversed dims).
llvm::SmallVector<int64_t> transposePerm(mlir::Operation *op, int64_t rank);

/// Reduction axes normalised and sorted; empty result with `all` set when
/// every axis is reduced.
mlir::FailureOr<llvm::SmallVector<int64_t>> resolveReduceAxes(mlir::Operation *op,
                                                              int64_t rank);

} // namespace onnxc::onnx
