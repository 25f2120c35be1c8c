//===- QuantOps.cpp - inference and verifiers of the qs8 ops ---------------===//
//
// QConv's and QMatMul's shapes follow Conv's and MatMul's (NNOps.cpp,
// MathOps.cpp), QAveragePool's AveragePool's; the rest are here. Every
// result keeps the quantized element type it was created with.
//
//===----------------------------------------------------------------------===//
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"

using namespace mlir;

namespace onnxc::onnx {

static Type resultElementType(Operation *op) {
  return cast<ShapedType>(op->getResult(0).getType()).getElementType();
}

/// int8 (signless i8, as onnx's signed integers are) or uint8 (ui8), and
/// int16 / uint16 (the 16x8 scheme): the activations the qs8 kernels take.
static bool isQuantizedActivation(Type t) {
  auto i = dyn_cast<IntegerType>(t);
  return i && (i.getWidth() == 8 || i.getWidth() == 16) && !i.isSigned();
}

/// What every qs8 op checks: its input and output are int8/uint8, the
/// clamp range lies in the output type and is not empty, scales are
/// positive and zero points within the types.
static LogicalResult verifyQuantized(Operation *op, Value x, std::optional<int64_t> actMin,
                                     std::optional<int64_t> actMax) {
  Type in = cast<ShapedType>(x.getType()).getElementType(), out = resultElementType(op);
  if (!isQuantizedActivation(in) || !isQuantizedActivation(out))
    return op->emitOpError() << "takes and returns int8, uint8, int16 or uint16 tensors, not "
                             << in << " -> " << out;
  const unsigned bits = out.getIntOrFloatBitWidth();
  const int64_t lo = out.isUnsignedInteger() ? 0 : -(int64_t(1) << (bits - 1));
  const int64_t hi = out.isUnsignedInteger() ? (int64_t(1) << bits) - 1
                                             : (int64_t(1) << (bits - 1)) - 1;
  if (actMin && actMax && (*actMin < lo || *actMax > hi || *actMin > *actMax))
    return op->emitOpError() << "clamp [" << *actMin << ", " << *actMax << "] is not a range of "
                             << out;
  for (NamedAttribute a : op->getAttrs()) {
    StringRef name = a.getName().strref();
    if (name.ends_with("_scale")) {
      auto check = [&](double s) { return s > 0 && std::isfinite(s); };
      bool ok = true;
      if (auto f = dyn_cast<FloatAttr>(a.getValue()))
        ok = check(f.getValueAsDouble());
      else if (auto arr = dyn_cast<DenseF32ArrayAttr>(a.getValue()))
        for (float v : arr.asArrayRef())
          ok = ok && check(v);
      if (!ok)
        return op->emitOpError() << name << " must be positive and finite";
    }
  }
  return success();
}

/// Int8 weights of `rank` (0: any) with one w_scale or one per channel
/// along `channelDim`.
static LogicalResult verifyWeights(Operation *op, Value wv, ArrayRef<float> wScale,
                                   int64_t rank, int64_t channelDim) {
  auto w = dyn_cast<ShapedType>(wv.getType());
  if (!w)
    return success();
  if (!w.getElementType().isSignlessInteger(8) || (rank && (!w.hasRank() || w.getRank() != rank)))
    return op->emitOpError() << "weights must be " << (rank ? "2-D " : "") << "int8, not " << w;
  if (w.hasStaticShape() && wScale.size() != 1 &&
      (int64_t)wScale.size() != w.getDimSize(channelDim))
    return op->emitOpError() << "w_scale has " << wScale.size() << " values for "
                             << w.getDimSize(channelDim) << " output channels";
  return success();
}

LogicalResult verifyQConv(Operation *op, Value x, Value w, ArrayRef<float> wScale,
                          int64_t actMin, int64_t actMax) {
  if (failed(verifyWeights(op, w, wScale, 0, 0)))
    return failure();
  return verifyQuantized(op, x, actMin, actMax);
}

LogicalResult QConvOp::verify() {
  return verifyQConv(getOperation(), getX(), getW(), getWScale(), getActMin(), getActMax());
}

LogicalResult QMatMulOp::verify() {
  if (failed(verifyWeights(getOperation(), getW(), getWScale(), 2, 1)))
    return failure();
  return verifyQuantized(getOperation(), getA(), getActMin(), getActMax());
}

/// QAdd and QMul: operands of one type, broadcast.
static LogicalResult verifyBinary(Operation *op, Value a, Value b, int64_t actMin,
                                  int64_t actMax) {
  Type ta = cast<ShapedType>(a.getType()).getElementType();
  Type tb = cast<ShapedType>(b.getType()).getElementType();
  if (ta != tb)
    return op->emitOpError() << "operands differ in type (" << ta << ", " << tb << ")";
  return verifyQuantized(op, a, actMin, actMax);
}

static LogicalResult inferBinary(Operation *op, Value av, Value bv) {
  auto a = dyn_cast<RankedTensorType>(av.getType());
  auto b = dyn_cast<RankedTensorType>(bv.getType());
  Type elt = resultElementType(op);
  if (!a || !b) {
    op->getResult(0).setType(UnrankedTensorType::get(elt));
    return success();
  }
  auto shape = broadcastShapes(a.getShape(), b.getShape());
  if (!shape)
    return op->emitOpError() << "operands " << a << " and " << b << " do not broadcast";
  op->getResult(0).setType(RankedTensorType::get(*shape, elt));
  return success();
}

LogicalResult QAddOp::verify() {
  return verifyBinary(getOperation(), getA(), getB(), getActMin(), getActMax());
}
LogicalResult QMulOp::verify() {
  return verifyBinary(getOperation(), getA(), getB(), getActMin(), getActMax());
}
LogicalResult QAddOp::inferShapes() { return inferBinary(getOperation(), getA(), getB()); }
LogicalResult QMulOp::inferShapes() { return inferBinary(getOperation(), getA(), getB()); }

LogicalResult QAveragePoolOp::verify() {
  if (cast<ShapedType>(getX().getType()).getElementType() != resultElementType(getOperation()))
    return emitOpError("input and output must have one type");
  return verifyQuantized(getOperation(), getX(), std::nullopt, std::nullopt);
}

LogicalResult QRescaleOp::verify() {
  return verifyQuantized(getOperation(), getX(), std::nullopt, std::nullopt);
}

LogicalResult QRescaleOp::inferShapes() {
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  Type elt = resultElementType(getOperation());
  getOperation()->getResult(0).setType(x ? Type(RankedTensorType::get(x.getShape(), elt))
                   : Type(UnrankedTensorType::get(elt)));
  return success();
}

LogicalResult QLookupOp::inferShapes() { return inferSameAsOperand(getOperation(), 0); }

LogicalResult QLookupOp::verify() {
  auto x = cast<ShapedType>(getX().getType());
  auto table = dyn_cast<ShapedType>(getTable().getType());
  if (!isQuantizedActivation(x.getElementType()) || x.getElementTypeBitWidth() != 8)
    return emitOpError() << "looks up int8 or uint8 values, not " << x.getElementType();
  if (table && table.hasStaticShape() &&
      (table.getRank() != 1 || table.getDimSize(0) != 256 ||
       table.getElementType() != x.getElementType()))
    return emitOpError() << "table must hold 256 values of " << x.getElementType() << ", not "
                         << table;
  return success();
}

} // namespace onnxc::onnx
