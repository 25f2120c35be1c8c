//===- OpFacts.cpp - the ops' kernel parameters and compute costs ---------===//
#include "onnxc/Dialect/ONNX/ONNXDialect.h"

using namespace mlir;

namespace onnxc::onnx {

//===-- UnaryKernelParams: (alpha, beta) of the reference functor ----------===//

std::pair<float, float> LeakyReluOp::kernelParams() {
  return {getAlpha().convertToFloat(), 0.0f};
}
std::pair<float, float> EluOp::kernelParams() { return {getAlpha().convertToFloat(), 0.0f}; }
std::pair<float, float> HardSigmoidOp::kernelParams() {
  return {getAlpha().convertToFloat(), getBeta().convertToFloat()};
}
std::pair<float, float> SeluOp::kernelParams() {
  return {getAlpha().convertToFloat(), getGamma().convertToFloat()};
}
std::pair<float, float> ThresholdedReluOp::kernelParams() {
  return {getAlpha().convertToFloat(), 0.0f};
}
std::pair<float, float> CeluOp::kernelParams() { return {getAlpha().convertToFloat(), 0.0f}; }
std::pair<float, float> GeluOp::kernelParams() {
  return {getApproximate() == "tanh" ? 1.0f : 0.0f, 0.0f};
}
std::pair<float, float> ShrinkOp::kernelParams() {
  return {getLambd().convertToFloat(), getBias().convertToFloat()};
}

//===-- ComputeCost: operations of one run ---------------------------------===//

namespace {

int64_t numel(Value v) {
  auto t = dyn_cast<ShapedType>(v.getType());
  return t && t.hasStaticShape() ? t.getNumElements() : 0;
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

ArrayRef<int64_t> shapeOf(Value v) { return cast<ShapedType>(v.getType()).getShape(); }

/// One operation per output element for each fused elementwise stage.
int64_t epilogue(int64_t outputs, Value bias, Value residual, StringRef activation) {
  return outputs * ((bias && !isNone(bias)) + (residual && !isNone(residual)) +
                    (activation != "Identity"));
}

/// A convolution: each of `outputs` values takes C/group x KH x KW
/// multiply-adds (W's dims after the first).
int64_t convFlops(int64_t outputs, Value w) {
  auto ws = dyn_cast<ShapedType>(w.getType());
  if (!ws || !ws.hasStaticShape())
    return 0;
  return 2 * outputs * product(ws.getShape().drop_front());
}

int64_t gemmFlops(Value y, Value a, bool transA) {
  if (!numel(y))
    return 0;
  auto as = shapeOf(a);
  return 2 * numel(y) * (transA ? as[0] : as[1]);
}

int64_t recurrentFlops(Operation *op) {
  auto x = cast<ShapedType>(op->getOperand(0).getType());
  auto w = cast<ShapedType>(op->getOperand(1).getType());
  auto r = cast<ShapedType>(op->getOperand(2).getType());
  if (!x.hasStaticShape() || !w.hasStaticShape() || !r.hasStaticShape())
    return 0;
  const int64_t steps = x.getDimSize(0) * x.getDimSize(1);
  return 2 * steps * w.getDimSize(0) * w.getDimSize(1) * (w.getDimSize(2) + r.getDimSize(2));
}

} // namespace

std::pair<float, float> unaryKernelParams(Operation *op) {
  if (auto params = dyn_cast<UnaryKernelParams>(op))
    return params.kernelParams();
  return {0.0f, 0.0f};
}

bool isAliasOp(Operation *op) { return op->hasTrait<View>(); }

bool inBoundedProbe(Operation *op) {
  for (; op; op = op->getParentOp())
    if (op->hasAttr(kBoundedProbeAttr))
      return true;
  return false;
}

bool canRunInPlace(Operation *op, unsigned operand) {
  if (op->hasTrait<InPlaceAnyOperand>())
    return true;
  return operand == 0 && op->hasTrait<InPlaceOperand0>();
}

int64_t fusedConvFlops(int64_t outputs, Value w, Value bias, Value residual,
                       StringRef activation) {
  return convFlops(outputs, w) + epilogue(outputs, bias, residual, activation);
}

int64_t MatMulOp::flops() {
  auto as = cast<ShapedType>(getA().getType());
  return as.hasStaticShape() ? 2 * numel(getY()) * as.getShape().back() : 0;
}
int64_t GemmOp::flops() {
  return gemmFlops(getY(), getA(), getTransA()) + epilogue(numel(getY()), getC(), {}, "Identity");
}
int64_t FusedGemmOp::flops() {
  return gemmFlops(getY(), getA(), getTransA()) +
         epilogue(numel(getY()), getC(), {}, getActivation());
}
int64_t ConvOp::flops() {
  return convFlops(numel(getY()), getW()) + epilogue(numel(getY()), getB(), {}, "Identity");
}
int64_t FusedConvOp::flops() {
  return fusedConvFlops(numel(getY()), getW(), getB(), getZ(), getActivation());
}
int64_t QConvOp::flops() { return convFlops(numel(getY()), getW()); }
int64_t QMatMulOp::flops() {
  auto w = shapeOf(getW());
  return w.size() == 2 ? 2 * numel(getY()) * w[0] : 0;
}
int64_t ConvTransposeOp::flops() {
  // Every input value is scattered through M/group x KH x KW weights.
  return convFlops(numel(getX()), getW()) + epilogue(numel(getY()), getB(), {}, "Identity");
}
int64_t RNNOp::flops() { return recurrentFlops(*this); }
int64_t LSTMOp::flops() { return recurrentFlops(*this); }
int64_t GRUOp::flops() { return recurrentFlops(*this); }

} // namespace onnxc::onnx
