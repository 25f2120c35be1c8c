//===- ContribOps.cpp - ONNX Runtime's com.microsoft QLinear* ops ----------===//
//
// ONNX Runtime's QOperator format (its quantizer with QuantFormat.QOperator)
// writes, beside the standard QLinearConv / QLinearMatMul, operators of its
// own com.microsoft domain for the quantized element-wise, pooling and
// concatenation layers. Each is defined as the float op between a
// DequantizeLinear of every input and a QuantizeLinear of the output, so
// that is how they are imported; onnxc-fold-qdq then folds each group into
// the integer op the QDQ form gets (QAdd, QMul, QLookup, QAveragePool, a
// Concat that rescales, QMatMul for QGemm), with the one semantics the rest
// of the compiler has.
//
//===----------------------------------------------------------------------===//
#include "NodeImport.h"

#include "onnxc/Dialect/ONNX/ONNXDialect.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace onnxc {
namespace {

/// One contrib op: its float op and how many (x, scale, zero point)
/// triples it quantizes.
struct ContribOp {
  const char *name;
  const char *floatOp;
  int quantizedInputs; // -1: variadic (QLinearConcat)
};

const ContribOp kContribOps[] = {
    {"QLinearAdd", "Add", 2},
    {"QLinearMul", "Mul", 2},
    {"QLinearSigmoid", "Sigmoid", 1},
    {"QLinearLeakyRelu", "LeakyRelu", 1},
    {"QLinearAveragePool", "AveragePool", 1},
    {"QLinearGlobalAveragePool", "GlobalAveragePool", 1},
    {"QLinearConcat", "Concat", -1},
    {"QGemm", "Gemm", 2}, // importQGemm: B per column, an int32 C, a float Y without y_scale
    // ONNX's own ops, for the 16-bit types before opset 21 (importQdq).
    {"QuantizeLinear", "QuantizeLinear", 0},
    {"DequantizeLinear", "DequantizeLinear", 0},
};

const ContribOp *findContribOp(StringRef domain, StringRef opType) {
  if (domain != "com.microsoft")
    return nullptr;
  for (const ContribOp &op : kContribOps)
    if (opType == op.name)
      return &op;
  return nullptr;
}

bool present(Value v) { return v && !onnx::isNone(v); }

/// A zero point of x's element type (the contrib ops' default when the
/// node leaves it out; QuantizeLinear alone would default to uint8).
Value zeroPointLike(NodeImport &n, Value x) {
  auto type = RankedTensorType::get({}, cast<TensorType>(x.getType()).getElementType());
  return n.constant(DenseElementsAttr::get(type, n.builder.getZeroAttr(type.getElementType())));
}

FailureOr<Value> dequantize(NodeImport &n, Value x, Value scale, Value zeroPoint) {
  if (!present(x) || !present(scale))
    return emitError(n.loc) << n.opType << " needs each quantized input with its scale";
  return n.build1("DequantizeLinear",
                  {x, scale, present(zeroPoint) ? zeroPoint : zeroPointLike(n, x)});
}

/// QGemm: Y = alpha * A' B' + C', A' and B' dequantized (B per tensor or
/// per output column: axis 0 of a transposed B), C int32 at a_scale *
/// b_scale; quantized by y_scale and y_zero_point, or float without them.
LogicalResult importQGemm(NodeImport &n) {
  if (n.inputs.size() < 6 || n.inputs.size() > 9)
    return emitError(n.loc) << "QGemm takes 6 to 9 inputs (A, a_scale, a_zero_point, B, b_scale, "
                               "b_zero_point, C, y_scale, y_zero_point), not "
                            << n.inputs.size();
  auto transB = dyn_cast_or_null<IntegerAttr>(n.getAttr("transB"));
  const bool transposedB = transB && transB.getInt() != 0;
  auto a = dequantize(n, n.input(0), n.input(1), n.input(2));
  if (failed(a))
    return failure();
  auto axis = n.builder.getNamedAttr("axis", n.builder.getI64IntegerAttr(transposedB ? 0 : 1));
  if (!present(n.input(3)) || !present(n.input(4)))
    return emitError(n.loc) << "QGemm needs B with its scale";
  auto b = n.build1("DequantizeLinear",
                    {n.input(3), n.input(4),
                     present(n.input(5)) ? n.input(5) : zeroPointLike(n, n.input(3))},
                    {axis});
  if (failed(b))
    return failure();
  SmallVector<Value> operands{*a, *b};
  Value c = n.inputs.size() > 6 ? n.input(6) : Value();
  if (present(c)) {
    auto ct = dyn_cast<RankedTensorType>(c.getType());
    if (!ct || !ct.getElementType().isSignlessInteger(32))
      return emitError(n.loc) << "QGemm's C must be int32";
    auto scale = n.build1("Mul", {n.input(1), n.input(4)});
    if (failed(scale))
      return failure();
    auto cf = n.build1("DequantizeLinear", {c, *scale, zeroPointLike(n, c)},
                       {n.builder.getNamedAttr("axis", n.builder.getI64IntegerAttr(0))});
    if (failed(cf))
      return failure();
    operands.push_back(*cf);
  } else {
    operands.push_back(n.noValue());
  }
  auto y = n.build1("Gemm", operands, n.attrs);
  if (failed(y))
    return failure();
  Value yScale = n.inputs.size() > 7 ? n.input(7) : Value();
  Value yZeroPoint = n.inputs.size() > 8 ? n.input(8) : Value();
  if (!present(yScale)) {
    n.replacedOutputs = {*y};
    return success();
  }
  auto q = n.build1("QuantizeLinear",
                    {*y, yScale, present(yZeroPoint) ? yZeroPoint : zeroPointLike(n, n.input(0))});
  if (failed(q))
    return failure();
  n.replacedOutputs = {*q};
  return success();
}

/// com.microsoft QuantizeLinear / DequantizeLinear: ONNX's (opset 21) on
/// any of the 8- and 16-bit integer types, which ONNX Runtime's quantizer
/// writes for int16 activations in a model of an earlier opset. The zero
/// point gives the quantized type: without one the node says nothing of it.
LogicalResult importQdq(NodeImport &n) {
  if (n.inputs.size() != 3 || !present(n.input(2)))
    return emitError(n.loc) << "com.microsoft " << n.opType
                            << " needs its zero point (it gives the quantized type)";
  auto y = n.build1(n.opType, {n.input(0), n.input(1), n.input(2)}, n.attrs);
  if (failed(y))
    return failure();
  n.replacedOutputs = {*y};
  return success();
}

} // namespace

bool isContribOp(StringRef domain, StringRef opType) { return findContribOp(domain, opType) != nullptr; }

std::vector<std::string> contribOpNameList() {
  std::vector<std::string> names;
  for (const ContribOp &op : kContribOps)
    names.push_back(op.name);
  return names;
}

std::string contribOpNames() {
  std::string names;
  for (const ContribOp &op : kContribOps)
    names += (names.empty() ? "" : ", ") + std::string(op.name);
  return names;
}

LogicalResult importContribOp(NodeImport &n, StringRef domain) {
  const ContribOp *op = findContribOp(domain, n.opType);
  if (!op)
    return emitError(n.loc) << "operator '" << n.opType << "' of domain '" << domain
                            << "' is not supported";
  if (StringRef(op->name) == "QGemm")
    return importQGemm(n);
  if (op->quantizedInputs == 0)
    return importQdq(n);
  // Inputs: the triples (x, scale, zero point), then the output's scale and
  // zero point; QLinearConcat puts the output's first.
  SmallVector<Value> floats;
  Value yScale, yZeroPoint, like;
  if (op->quantizedInputs < 0) {
    if (n.inputs.size() < 5 || (n.inputs.size() - 2) % 3 != 0)
      return emitError(n.loc) << n.opType
                              << " takes Y_scale, Y_zero_point and then (X, scale, zero "
                                 "point) triples, not "
                              << n.inputs.size() << " inputs";
    yScale = n.input(0);
    yZeroPoint = n.input(1);
    for (unsigned i = 2; i < n.inputs.size(); i += 3) {
      auto x = dequantize(n, n.input(i), n.input(i + 1), n.input(i + 2));
      if (failed(x))
        return failure();
      floats.push_back(*x);
    }
    like = n.input(2);
  } else {
    const unsigned triples = unsigned(op->quantizedInputs);
    const unsigned need = 3 * triples + 1; // the output's zero point may be left out
    if (n.inputs.size() < need || n.inputs.size() > need + 1)
      return emitError(n.loc) << n.opType << " takes " << need << " or " << need + 1
                              << " inputs, not " << n.inputs.size();
    for (unsigned t = 0; t < triples; ++t) {
      auto x = dequantize(n, n.input(3 * t), n.input(3 * t + 1), n.input(3 * t + 2));
      if (failed(x))
        return failure();
      floats.push_back(*x);
    }
    yScale = n.input(3 * triples);
    yZeroPoint = n.inputs.size() > need ? n.input(need) : Value();
    like = n.input(0);
  }
  if (!present(yScale))
    return emitError(n.loc) << n.opType << " needs the output's scale";
  if (present(yZeroPoint) && cast<TensorType>(yZeroPoint.getType()).getElementType() !=
                                 cast<TensorType>(like.getType()).getElementType())
    return emitError(n.loc) << n.opType
                            << ": the output's zero point has another type than the input";

  // The float op keeps the node's own attributes (alpha, axis, kernel_shape,
  // ...); channels_last (NHWC pooling) has no float counterpart here.
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute a : n.attrs) {
    if (a.getName() == "channels_last") {
      auto v = dyn_cast<IntegerAttr>(a.getValue());
      if (v && v.getInt() != 0)
        return emitError(n.loc) << n.opType
                                << " with channels_last = 1 (NHWC) is not supported";
      continue;
    }
    attrs.push_back(a);
  }
  auto y = n.build1(op->floatOp, floats, attrs);
  if (failed(y))
    return failure();
  auto q = n.build1("QuantizeLinear",
                    {*y, yScale, present(yZeroPoint) ? yZeroPoint : zeroPointLike(n, like)});
  if (failed(q))
    return failure();
  n.replacedOutputs = {*q};
  return success();
}

} // namespace onnxc
