//===- CallBuilders.h - helpers the kernel providers share ----------------===//
//
// Shapes, argument lists and call constructors used by the reference
// lowering (lowering/reference/) and by the targets' providers
// (targets/*/), so a window, a broadcast or a fused activation is described
// to a kernel one way.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_LOWERING_CALLBUILDERS_H
#define ONNXC_LOWERING_CALLBUILDERS_H

#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Lowering/KernelProvider.h"

#include <string>
#include <vector>

namespace onnxc::lowering {

// Headers of the reference kernels, by family.
constexpr const char *kElementwise = "onnxc_rt/kernels/reference/elementwise.h";
constexpr const char *kLinalg = "onnxc_rt/kernels/reference/linalg.h";
constexpr const char *kConv = "onnxc_rt/kernels/reference/conv.h";
constexpr const char *kNorm = "onnxc_rt/kernels/reference/norm.h";
constexpr const char *kReduce = "onnxc_rt/kernels/reference/reduce.h";
constexpr const char *kTensor = "onnxc_rt/kernels/reference/tensor.h";
constexpr const char *kRnn = "onnxc_rt/kernels/reference/rnn.h";
constexpr const char *kResize = "onnxc_rt/kernels/reference/resize.h";
constexpr const char *kQuant = "onnxc_rt/kernels/reference/quant.h";
constexpr const char *kQs8 = "onnxc_rt/kernels/reference/qs8.h";
constexpr const char *kSample = "onnxc_rt/kernels/reference/sample.h";
constexpr const char *kSignal = "onnxc_rt/kernels/reference/signal.h";
constexpr const char *kText = "onnxc_rt/kernels/reference/text.h";
constexpr const char *kDetection = "onnxc_rt/kernels/reference/detection.h";
constexpr const char *kStrings = "onnxc_rt/kernels/reference/strings.h";

llvm::ArrayRef<int64_t> shapeOf(mlir::Value v);
int64_t numel(mlir::Value v);
mlir::Type eltOf(mlir::Value v);
int64_t prod(llvm::ArrayRef<int64_t> s);

/// A call into `ns` (default: the reference kernels, onnxc_rt::ref).
KernelCall call(llvm::StringRef callee, llvm::ArrayRef<std::string> targs, const char *header,
                std::vector<KernelArg> args, llvm::StringRef ns = "onnxc_rt::ref");

/// The trailing arguments of a kernel that splits its work into tasks: the
/// model's runner and the task count.
void appendTasks(std::vector<KernelArg> &args, int64_t tasks);

/// ref::transpose of `op`'s input (element type `t`); with `tasks` (the
/// SIMD targets'), ref::transpose_split on the model's runner.
KernelCall transposeCall(mlir::Operation *op, const std::string &t, int64_t tasks = 0);

/// Strides of `operandShape` broadcast into `outShape` (0 on broadcast dims).
llvm::SmallVector<int64_t> broadcastStrides(llvm::ArrayRef<int64_t> operandShape,
                                            llvm::ArrayRef<int64_t> outShape);
/// Merges adjacent dims where every operand is contiguous across them, so a
/// broadcast kernel usually sees rank 1 or 2. Size-1 dims are dropped.
void collapseBroadcast(llvm::SmallVector<int64_t> &shape,
                       llvm::SmallVector<llvm::SmallVector<int64_t>> &strides);
/// A binary/ternary broadcast call: callee(in..., out, rank, shape, strides...).
KernelCall broadcastCall(llvm::StringRef callee, llvm::ArrayRef<std::string> targs,
                         mlir::ValueRange inputs, mlir::Value out);

KernelArg inputOrNull(mlir::Value v);
KernelArg outputOrNull(mlir::Value v);
float floatAttr(mlir::Operation *op, llvm::StringRef name, float dflt);

mlir::FailureOr<OpLowering> calls(std::vector<KernelCall> cs);
/// Emits "<Op>: <why>" at the op (naming its node) and fails.
mlir::FailureOr<OpLowering> unsupported(mlir::Operation *op, const llvm::Twine &why);
/// Fails with an error unless the op's first operand is a float type.
mlir::LogicalResult requireFloat(mlir::Operation *op);

/// A fused op's activation: the reference functor and its parameters
/// (Identity for the plain ops).
struct FusedActivation {
  std::string functor = "onnxc_rt::ref::Identity";
  float alpha = 0, beta = 0;
  bool isIdentity() const { return functor == "onnxc_rt::ref::Identity"; }
};
/// `op`'s activation attributes (`prefix`: a second activation's, e.g.
/// "expand_" for expand_activation, expand_activation_alpha, ...).
FusedActivation activationOf(mlir::Operation *op, llvm::StringRef prefix = "");
/// The reference path of a fused op's activation: y = act(y) in place.
KernelCall activationInPlace(mlir::Value y, const FusedActivation &act, const std::string &t);

/// The window arguments of the reference conv.h kernels (any rank).
std::vector<KernelArg> windowArgs(mlir::Value x, mlir::Value y, const onnx::WindowGeometry &g);
/// Resolves the window of Conv or a pool, then windowArgs.
mlir::FailureOr<std::vector<KernelArg>> windowArgs(mlir::Operation *op, mlir::Value x,
                                                   mlir::Value y,
                                                   llvm::ArrayRef<int64_t> kernel, bool ceil);

/// numpy.matmul operands as the linalg kernels take them: (m, k, n) and
/// the broadcast batch space with each operand's batch strides.
struct MatMulGeometry {
  int64_t m, k, n;
  llvm::SmallVector<int64_t> batch;
  llvm::SmallVector<llvm::SmallVector<int64_t>> strides;
  std::vector<KernelArg> args() const;
};
MatMulGeometry matmulGeometry(mlir::Value a, mlir::Value b);

/// Gemm's (m, n, k) and C's broadcast strides, and the argument list every
/// Gemm kernel starts with: A, B, C, Y, m, n, k, transA, transB, alpha,
/// beta, C's row and column strides.
struct GemmGeometry {
  int64_t m, n, k;
  std::vector<KernelArg> args;
};
template <typename GemmLike> GemmGeometry gemmGeometry(GemmLike op) {
  auto ys = shapeOf(op.getY());
  const int64_t m = ys[0], n = ys[1];
  auto as = shapeOf(op.getA());
  const int64_t k = op.getTransA() ? as[0] : as[1];
  int64_t csm = 0, csn = 0;
  if (!onnx::isNone(op.getC())) {
    auto st = broadcastStrides(shapeOf(op.getC()), ys);
    csm = st[0];
    csn = st[1];
  }
  return {m, n, k,
          {KernelArg::input(op.getA()), KernelArg::input(op.getB()), inputOrNull(op.getC()),
           KernelArg::output(op.getY()), KernelArg::i(m), KernelArg::i(n), KernelArg::i(k),
           KernelArg::i(op.getTransA()), KernelArg::i(op.getTransB()),
           KernelArg::f(op.getAlpha().convertToFloat()),
           KernelArg::f(op.getBeta().convertToFloat()), KernelArg::i(csm), KernelArg::i(csn)}};
}

/// The logical NCHW dims of a channel-blocked (rank 5) or NCHW value; a
/// blocked value's channels are `channels` (0: all its lanes).
llvm::SmallVector<int64_t> logicalShape(mlir::Value v, int64_t channels = 0);

/// Constant float data of `v` (a constant operand), or an empty vector.
std::vector<float> constantFloats(mlir::Value v);
/// `data` as a rank-1 f32 constant kernel argument (packed weights).
KernelArg packedFloats(mlir::MLIRContext *ctx, llvm::ArrayRef<float> data);

/// Constant integer data of `v` (a constant operand of element type i8 or
/// i32 respectively), or an empty vector.
std::vector<int8_t> constantInt8s(mlir::Value v);
std::vector<int32_t> constantInt32s(mlir::Value v);
/// `data` as a rank-1 i8 / i32 constant kernel argument.
KernelArg packedInt8s(mlir::MLIRContext *ctx, llvm::ArrayRef<int8_t> data);
KernelArg packedInt32s(mlir::MLIRContext *ctx, llvm::ArrayRef<int32_t> data);
/// `data` as a rank-1 ui16 constant (uint16_t: bf16 values' bits).
KernelArg packedUint16s(mlir::MLIRContext *ctx, llvm::ArrayRef<uint16_t> data);
/// `data` as a rank-1 i64 / f64 constant: an op's compile-time tables in
/// the weights blob (on the device for GPU targets, where a kernel reads
/// them); null when empty.
KernelArg packedInt64s(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> data);
KernelArg packedDoubles(mlir::MLIRContext *ctx, llvm::ArrayRef<double> data);

/// The qs8 scheme's fixed-point multipliers of x_scale * w_scale[c] /
/// y_scale, one per w_scale value, as two int32 constants (multipliers,
/// shifts) computed by runtime-lite's quantize_multiplier: the compiler and
/// the kernels share the rounding.
std::pair<KernelArg, KernelArg> qs8Multipliers(mlir::MLIRContext *ctx, float xScale,
                                               llvm::ArrayRef<float> wScales, float yScale);

} // namespace onnxc::lowering

#endif
