//===- FoldQdq.cpp - onnxc-fold-qdq -----------------------------------------===//
//
// Rewrites a QDQ model's DequantizeLinear -> op -> QuantizeLinear chains
// into integer ops of the qs8 scheme (QuantOps.td), so that no float
// arithmetic is left between Q and DQ. See Passes.td for the patterns. A
// chain that does not fit (per-axis activations, asymmetric or uint8
// weights, an op with no integer form) is left as it is: it still runs,
// in float between its Q and DQ, exactly as the model says.
//
//===----------------------------------------------------------------------===//
#include "onnxc/Passes/PassUtils.h"
#include "onnxc/Dialect/ONNX/NodeNames.h"
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"
#include "onnxc/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace mlir;
using namespace onnxc::onnx;

namespace onnxc {
#define GEN_PASS_DEF_FOLDQDQPASS
#include "onnxc/Passes/Passes.h.inc"

namespace {

/// Per-tensor quantization parameters of an int8/uint8 (or int16/uint16)
/// value.
struct QParams {
  float scale = 0;
  int64_t zeroPoint = 0;
  Type type; // i8 (signed) or ui8; i16 or ui16
  bool operator==(const QParams &o) const {
    return scale == o.scale && zeroPoint == o.zeroPoint && type == o.type;
  }
  unsigned bits() const { return type.getIntOrFloatBitWidth(); }
  int64_t lowest() const { return type.isUnsignedInteger() ? 0 : -(int64_t(1) << (bits() - 1)); }
  int64_t highest() const {
    return type.isUnsignedInteger() ? (int64_t(1) << bits()) - 1
                                    : (int64_t(1) << (bits() - 1)) - 1;
  }
};

/// int8 (onnx's signed integers are signless i8) or uint8 (ui8), and the
/// 16x8 scheme's int16 / uint16 activations.
bool isQuantizedType(Type t) {
  auto i = dyn_cast<IntegerType>(t);
  return i && (i.getWidth() == 8 || i.getWidth() == 16) && !i.isSigned();
}

/// Lookup tables (QLookup) cover the 256 values of an 8-bit type: a
/// 16-bit activation's function stays in float between its Q and DQ.
bool hasLookupTable(Type t) { return t.getIntOrFloatBitWidth() == 8; }

/// The values of a constant float operand (any float type), or empty.
SmallVector<double> constantReals(Value v) {
  SmallVector<double> out;
  ElementsAttr e = getConstantElements(v);
  if (!e || !isa<FloatType>(e.getElementType()))
    return out;
  for (APFloat f : e.getValues<APFloat>())
    out.push_back(f.convertToDouble());
  return out;
}

/// The values of a constant integer operand, or empty.
SmallVector<int64_t> constantIntegers(Value v) {
  SmallVector<int64_t> out;
  ElementsAttr e = getConstantElements(v);
  if (!e || !isa<IntegerType>(e.getElementType()))
    return out;
  bool isUnsigned = e.getElementType().isUnsignedInteger();
  for (APInt i : e.getValues<APInt>())
    out.push_back(isUnsigned ? int64_t(i.getZExtValue()) : i.getSExtValue());
  return out;
}

/// Per-tensor parameters from a Q/DQ op's scale and zero-point operands
/// (constant, one value each; no zero point: uint8 0).
std::optional<QParams> perTensor(Value scale, Value zp, Type quantized) {
  if (!isQuantizedType(quantized))
    return std::nullopt;
  SmallVector<double> s = constantReals(scale);
  if (s.size() != 1 || !(s[0] > 0) || !std::isfinite(s[0]))
    return std::nullopt;
  QParams p;
  p.scale = float(s[0]);
  p.type = quantized;
  if (!isNone(zp)) {
    SmallVector<int64_t> z = constantIntegers(zp);
    if (z.size() != 1)
      return std::nullopt;
    p.zeroPoint = z[0];
  }
  return p;
}

Type eltOfValue(Value v) { return cast<ShapedType>(v.getType()).getElementType(); }

/// The quantized value and its parameters when `v` is a per-tensor
/// DequantizeLinear's result.
std::optional<std::pair<Value, QParams>> dequantized(Value v) {
  auto dq = v.getDefiningOp<DequantizeLinearOp>();
  if (!dq)
    return std::nullopt;
  auto p = perTensor(dq.getXScale(), dq.getXZeroPoint(), eltOfValue(dq.getX()));
  if (!p)
    return std::nullopt;
  return std::make_pair(dq.getX(), *p);
}

/// Weights as the qs8 scheme takes them: a constant int8 tensor (zero
/// point 0) with a scale per tensor or per channel of one axis.
struct Weights {
  Value values;              // the int8 constant
  SmallVector<float> scales; // 1 or one per channel of `axis`
};

/// f(value - its zero point) for each element of quantized `data`, the
/// zero point per channel of `axis` when `z` has more than one (the
/// channel of flat element k: (k / inner) % channels).
template <typename F>
void forEachCentred(DenseElementsAttr data, ArrayRef<int64_t> z, int64_t axis, F &&f) {
  auto shape = cast<ShapedType>(data.getType()).getShape();
  const bool isSigned = !data.getElementType().isUnsignedInteger();
  int64_t inner = 1;
  for (size_t d = size_t(axis) + 1; d < shape.size(); ++d)
    inner *= shape[d];
  const int64_t channels = shape.empty() ? 1 : shape[axis];
  int64_t k = 0;
  for (APInt v : data.getValues<APInt>()) {
    const int64_t c = z.size() > 1 ? (k / inner) % channels : 0;
    f((isSigned ? v.getSExtValue() : int64_t(v.getZExtValue())) - z[c]);
    ++k;
  }
}

/// Why constant weights `values` with `scale` and `zeroPoint` (per tensor,
/// or per channel of `scaleAxis`, which must be `axis`) cannot be the
/// scheme's int8 weights, or "" when they can: int8 with zero points 0 as
/// they are, int8/uint8 with other zero points re-expressed as int8 around 0
/// when every value minus its zero point fits (uint8 weights at 128, as some
/// exporters write them). The summary names the reason for a layer left in
/// float.
std::string weightsProblem(Value values, Value scale, Value zeroPoint, int64_t scaleAxis,
                           int64_t axis) {
  auto data = dyn_cast_or_null<DenseElementsAttr>(getConstantElements(values));
  if (!data)
    return "its weights are not constant";
  if (!isQuantizedType(data.getElementType()))
    return "its weights are not int8 or uint8";
  SmallVector<double> s = constantReals(scale);
  if (s.empty())
    return "its weights' scale is not constant";
  auto shape = cast<ShapedType>(values.getType()).getShape();
  if (scaleAxis < 0)
    scaleAxis += int64_t(shape.size());
  if (s.size() > 1 && (scaleAxis != axis || shape[axis] != int64_t(s.size())))
    return "its weights are quantized per channel of axis " + std::to_string(scaleAxis) +
           ", not of the output channels";
  SmallVector<int64_t> z = isNone(zeroPoint) ? SmallVector<int64_t>{0} : constantIntegers(zeroPoint);
  if (z.empty() || (z.size() > 1 && z.size() != s.size()))
    return "its weights' zero points are not constant";
  for (double x : s)
    if (!(x > 0) || !std::isfinite(x))
      return "a weight scale is not positive and finite";
  bool fits = true;
  forEachCentred(data, z, axis, [&](int64_t x) { fits = fits && x >= -128 && x <= 127; });
  if (!fits)
    return "its weights minus their zero points leave int8 (asymmetric weights; the kernels "
           "take symmetric ones)";
  return "";
}

/// The scheme's int8 weights for `values` (weightsProblem says when there
/// are none).
std::optional<Weights> int8Weights(OpBuilder &b, Location loc, Value values, Value scale,
                                   Value zeroPoint, int64_t scaleAxis, int64_t axis) {
  if (!weightsProblem(values, scale, zeroPoint, scaleAxis, axis).empty())
    return std::nullopt;
  auto data = cast<DenseElementsAttr>(getConstantElements(values));
  Weights w;
  for (double x : constantReals(scale))
    w.scales.push_back(float(x));
  SmallVector<int64_t> z = isNone(zeroPoint) ? SmallVector<int64_t>{0} : constantIntegers(zeroPoint);
  const bool isSigned = !data.getElementType().isUnsignedInteger();
  if (isSigned && llvm::all_of(z, [](int64_t v) { return v == 0; })) {
    w.values = values;
    return w;
  }
  SmallVector<int8_t> shifted;
  forEachCentred(data, z, axis, [&](int64_t x) { shifted.push_back(int8_t(x)); });
  auto shape = cast<ShapedType>(values.getType()).getShape();
  auto type = RankedTensorType::get(shape, b.getIntegerType(8));
  w.values = b.create<ConstantOp>(loc, type, DenseElementsAttr::get(type, ArrayRef<int8_t>(shifted)))
                 .getResult();
  return w;
}

/// Symmetric int8 weights of a QDQ model: a DequantizeLinear of a constant.
std::optional<Weights> symmetricWeights(OpBuilder &b, Location loc, Value v, int64_t axis) {
  auto dq = v.getDefiningOp<DequantizeLinearOp>();
  if (!dq)
    return std::nullopt;
  return int8Weights(b, loc, dq.getX(), dq.getXScale(), dq.getXZeroPoint(), int64_t(dq.getAxis()),
                     axis);
}

/// A bias as int32 at scale x_scale * w_scale[c]: from a DequantizeLinear
/// of int32 (the QDQ form) or a float constant, re-expressed at that scale
/// (the values are unchanged when the model's bias scale is that product).
std::optional<Value> int32Bias(OpBuilder &b, Location loc, Value bias, float xScale,
                               ArrayRef<float> wScales, int64_t channels) {
  if (isNone(bias))
    return Value();
  // Exporters share equal initializers through Identity nodes.
  while (auto id = bias.getDefiningOp<IdentityOp>())
    bias = id->getOperand(0);
  SmallVector<double> real;
  if (auto dq = bias.getDefiningOp<DequantizeLinearOp>()) {
    SmallVector<int64_t> q = constantIntegers(dq.getX());
    SmallVector<double> s = constantReals(dq.getXScale());
    SmallVector<int64_t> z =
        isNone(dq.getXZeroPoint()) ? SmallVector<int64_t>{0} : constantIntegers(dq.getXZeroPoint());
    if (q.empty() || s.empty() || z.empty())
      return std::nullopt;
    for (size_t i = 0; i < q.size(); ++i)
      real.push_back(double(q[i] - z[z.size() > 1 ? i : 0]) * s[s.size() > 1 ? i : 0]);
  } else {
    real = constantReals(bias);
  }
  if (int64_t(real.size()) != channels)
    return std::nullopt;
  SmallVector<int32_t> q;
  for (int64_t c = 0; c < channels; ++c) {
    const double scale = double(xScale) * double(wScales[wScales.size() > 1 ? c : 0]);
    double v = std::nearbyint(real[c] / scale);
    if (!(std::abs(v) <= double(std::numeric_limits<int32_t>::max())))
      return std::nullopt;
    q.push_back(int32_t(v));
  }
  auto type = RankedTensorType::get({channels}, b.getIntegerType(32));
  return b.create<ConstantOp>(loc, type, DenseElementsAttr::get(type, ArrayRef<int32_t>(q)))
      .getResult();
}

/// The clamp a Relu or Clip between the op and its QuantizeLinear puts on
/// the quantized output, and the op it follows; without one, the output
/// type's range and `v`'s producer.
struct Activation {
  Operation *producer = nullptr;
  int64_t lo, hi;
};

Activation activationBefore(Value v, const QParams &y) {
  Activation a{v.getDefiningOp(), y.lowest(), y.highest()};
  if (!a.producer || !v.hasOneUse())
    return {nullptr, a.lo, a.hi};
  auto toQ = [&](double r) { return int64_t(std::nearbyint(r / y.scale)) + y.zeroPoint; };
  if (auto relu = dyn_cast<ReluOp>(a.producer)) {
    a.lo = std::max(a.lo, y.zeroPoint);
    a.producer = relu.getX().hasOneUse() ? relu.getX().getDefiningOp() : nullptr;
  } else if (auto clip = dyn_cast<ClipOp>(a.producer)) {
    SmallVector<double> lo = isNone(clip.getMin()) ? SmallVector<double>{-INFINITY}
                                                   : constantReals(clip.getMin());
    SmallVector<double> hi = isNone(clip.getMax()) ? SmallVector<double>{INFINITY}
                                                   : constantReals(clip.getMax());
    if (lo.size() != 1 || hi.size() != 1)
      return a; // a run-time clip: the op before Q is the Clip itself
    if (std::isfinite(lo[0]))
      a.lo = std::max(a.lo, toQ(lo[0]));
    if (std::isfinite(hi[0]))
      a.hi = std::min(a.hi, toQ(hi[0]));
    a.producer = clip.getInput().hasOneUse() ? clip.getInput().getDefiningOp() : nullptr;
  }
  if (a.lo > a.hi)
    a.lo = a.hi;
  return a;
}

/// The quantization attributes of QConv and QMatMul (QuantOps.td).
NamedAttrList weightedAttrs(OpBuilder &b, const QParams &x, ArrayRef<float> wScales,
                            const QParams &y, const Activation &act) {
  NamedAttrList a;
  a.set("x_scale", b.getF32FloatAttr(x.scale));
  a.set("x_zero_point", b.getI64IntegerAttr(x.zeroPoint));
  a.set("w_scale", b.getDenseF32ArrayAttr(wScales));
  a.set("y_scale", b.getF32FloatAttr(y.scale));
  a.set("y_zero_point", b.getI64IntegerAttr(y.zeroPoint));
  a.set("act_min", b.getI64IntegerAttr(act.lo));
  a.set("act_max", b.getI64IntegerAttr(act.hi));
  return a;
}

/// `bias`, or a `none` value for an op without one.
Value biasOrNone(OpBuilder &b, Location loc, Value bias) {
  return bias ? bias : b.create<NoValueOp>(loc, b.getNoneType()).getResult();
}

/// An int8/uint8 tensor type of `v`'s shape.
Type quantizedLike(Value v, Type elt) {
  if (auto r = dyn_cast<RankedTensorType>(v.getType()))
    return RankedTensorType::get(r.getShape(), elt);
  return UnrankedTensorType::get(elt);
}

/// Records on the function the quantization of its int8/uint8 inputs and
/// outputs (onnx.scale, onnx.zero_point): an input read only by
/// DequantizeLinears of one per-tensor quantization, an output made by a
/// QuantizeLinear. The header gives them to the caller (--io int8).
void recordIoQuantization(func::FuncOp f) {
  OpBuilder b(f.getContext());
  auto record = [&](auto setAttr, const QParams &p) {
    setAttr("onnx.scale", b.getF32FloatAttr(p.scale));
    setAttr("onnx.zero_point", b.getI64IntegerAttr(p.zeroPoint));
  };
  for (BlockArgument arg : f.getArguments()) {
    std::optional<QParams> common;
    bool allDequantized = !arg.use_empty();
    for (Operation *user : arg.getUsers()) {
      auto dq = dyn_cast<DequantizeLinearOp>(user);
      auto p = dq && dq.getX() == arg ? perTensor(dq.getXScale(), dq.getXZeroPoint(), eltOfValue(arg))
                                      : std::nullopt;
      allDequantized = allDequantized && p && (!common || *common == *p);
      if (p)
        common = p;
    }
    if (allDequantized && common)
      record([&](StringRef n, Attribute a) { f.setArgAttr(arg.getArgNumber(), n, a); }, *common);
  }
  f.walk([&](func::ReturnOp ret) {
    for (auto [i, v] : llvm::enumerate(ret.getOperands()))
      if (auto q = v.getDefiningOp<QuantizeLinearOp>())
        if (auto p = perTensor(q.getYScale(), q.getYZeroPoint(), eltOfValue(q.getY())))
          record([&](StringRef n, Attribute a) { f.setResultAttr(unsigned(i), n, a); }, *p);
  });
}

struct FoldQdq : impl::FoldQdqPassBase<FoldQdq> {
  void runOnOperation() override {
    recordIoQuantization(getOperation());
    foldQOperators();
    SmallVector<QuantizeLinearOp> qs;
    getOperation().walk([&](QuantizeLinearOp q) { qs.push_back(q); });
    for (QuantizeLinearOp q : qs) {
      auto y = perTensor(q.getYScale(), q.getYZeroPoint(), eltOfValue(q.getY()));
      if (!y)
        continue;
      OpBuilder b(q);
      if (Value folded = fold(b, q, *y)) {
        if (auto shaped = dyn_cast<ShapeInference>(folded.getDefiningOp()))
          (void)shaped.inferShapes();
        q.getY().replaceAllUsesWith(folded);
        q.erase();
      }
    }
    // The float ops of the folded chains are dead now: the summary counts
    // what runs.
    eraseDeadOps(getOperation().getBody().front());
    recordSummary();
  }

  /// On a quantized graph, records on the function what the compile
  /// summary reports (kQuantizationAttr): how many convolutions and matrix
  /// products run on integer kernels, each one that reads quantized values
  /// but stays float, with the reason, and the other ops that do (Softmax,
  /// LayerNormalization's pieces, ...: no integer form).
  void recordSummary() {
    func::FuncOp f = getOperation();
    Builder b(f.getContext());
    bool quantized = false;
    int64_t integer = 0;
    SmallVector<Attribute> floats, others;
    auto readsQuantized = [](Operation *op) {
      return llvm::any_of(op->getOperands(),
                          [](Value v) { return v.getDefiningOp<DequantizeLinearOp>(); });
    };
    auto described = [&](Operation *op, const std::string &why) {
      return b.getStringAttr(op->getName().stripDialect() + " '" + nodeNameOf(op->getLoc()) +
                             "': " + why);
    };
    f.walk([&](Operation *op) {
      if (isa<QuantizeLinearOp, DequantizeLinearOp, DynamicQuantizeLinearOp>(op))
        quantized = true;
      if (isa<QConvOp, QMatMulOp, ConvIntegerOp, MatMulIntegerOp, QLinearConvOp, QLinearMatMulOp>(
              op)) {
        quantized = true;
        ++integer;
        return;
      }
      if (!isa<ONNXDialect>(op->getDialect()) || !readsQuantized(op) ||
          isa<QuantizeLinearOp, DequantizeLinearOp>(op) || isElementMoving(op))
        return;
      if (isa<ConvOp, ConvTransposeOp, GemmOp, MatMulOp>(op))
        floats.push_back(described(op, whyFloat(op)));
      else
        others.push_back(described(op, "no integer form (float between its DequantizeLinear and "
                                       "QuantizeLinear)"));
    });
    if (!quantized)
      return;
    f->setAttr(kQuantizationAttr,
               b.getDictionaryAttr({b.getNamedAttr("integer", b.getI64IntegerAttr(integer)),
                                    b.getNamedAttr("float", b.getArrayAttr(floats)),
                                    b.getNamedAttr("float_other", b.getArrayAttr(others))}));
  }

  /// Why a Conv, ConvTranspose, Gemm or MatMul that reads quantized values
  /// was not folded (fold()'s conditions, in the order a user fixes them).
  static std::string whyFloat(Operation *op) {
    if (isa<ConvTransposeOp>(op))
      return "ConvTranspose has no integer kernel";
    Value x = op->getOperand(0), w = op->getOperand(1);
    if (!x.getDefiningOp<DequantizeLinearOp>())
      return "its input is float (no DequantizeLinear before it)";
    auto in = dequantized(x);
    if (!in)
      return "its input's quantization is not per tensor with constant parameters";
    auto wdq = w.getDefiningOp<DequantizeLinearOp>();
    if (!wdq)
      return getConstantElements(w) ? "its weights are float (no DequantizeLinear before them)"
                                    : "its weights are computed at run time";
    int64_t axis = 0; // Conv: (M, C/group, k...), a Gemm's transposed B: (N, K)
    if (auto gemm = dyn_cast<GemmOp>(op))
      axis = gemm.getTransB() ? 0 : 1;
    else if (isa<MatMulOp>(op))
      axis = 1;
    if (!isa<ConvOp>(op) && cast<ShapedType>(w.getType()).getRank() != 2)
      return "its weights are not a 2-D matrix";
    std::string weights =
        weightsProblem(wdq.getX(), wdq.getXScale(), wdq.getXZeroPoint(), wdq.getAxis(), axis);
    if (!weights.empty())
      return weights;
    if (auto conv = dyn_cast<ConvOp>(op); conv && conv.getAutoPad() != "NOTSET")
      return "auto_pad " + conv.getAutoPad().str() + " has no integer form (explicit pads have)";
    if (auto gemm = dyn_cast<GemmOp>(op);
        gemm && (gemm.getTransA() || gemm.getAlpha().convertToDouble() != 1.0 ||
                 gemm.getBeta().convertToDouble() != 1.0))
      return "transA, alpha or beta is not the default";
    // The output: through a Relu or Clip (and a MatMul's bias Add) to a
    // QuantizeLinear.
    Operation *user = op;
    auto next = [](Operation *o) -> Operation * {
      Value r = o->getResult(0);
      return r.hasOneUse() ? *r.getUsers().begin() : nullptr;
    };
    user = next(user);
    if (user && isa<MatMulOp>(op) && isa<AddOp>(user))
      user = next(user);
    if (user && isa<ReluOp, ClipOp>(user))
      user = next(user);
    auto q = dyn_cast_or_null<QuantizeLinearOp>(user);
    if (!q)
      return "its output is not quantized (no QuantizeLinear reads it alone)";
    auto out = perTensor(q.getYScale(), q.getYZeroPoint(), eltOfValue(q.getY()));
    if (!out)
      return "its output's quantization is not per tensor with constant parameters";
    if (out->type != in->second.type)
      return "its input and output are quantized to different types";
    return "its bias does not fit int32 at x_scale * w_scale";
  }

  /// QOperator models: QLinearConv and QLinearMatMul with constant
  /// parameters and weights become QConv / QMatMul (the scheme's
  /// fixed-point requantization instead of ONNX's float one: the same
  /// result but where x * M lands within rounding of a half step).
  void foldQOperators() {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<QLinearConvOp, QLinearMatMulOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      Value folded;
      if (auto conv = dyn_cast<QLinearConvOp>(op))
        folded = foldQLinearConv(b, conv);
      else
        folded = foldQLinearMatMul(b, cast<QLinearMatMulOp>(op));
      if (!folded)
        continue;
      if (auto shaped = dyn_cast<ShapeInference>(folded.getDefiningOp()))
        (void)shaped.inferShapes();
      op->getResult(0).replaceAllUsesWith(folded);
      op->erase();
    }
  }

  /// x and y of a QOperator op: per-tensor, one type.
  static std::optional<std::pair<QParams, QParams>> ioParams(Value x, Value xScale, Value xZp,
                                                             Value y, Value yScale, Value yZp) {
    auto xp = perTensor(xScale, xZp, eltOfValue(x));
    auto yp = perTensor(yScale, yZp, eltOfValue(y));
    if (!xp || !yp || xp->type != yp->type)
      return std::nullopt;
    return std::make_pair(*xp, *yp);
  }

  Value foldQLinearConv(OpBuilder &b, QLinearConvOp conv) {
    Location loc = conv.getLoc();
    auto io = ioParams(conv.getX(), conv.getXScale(), conv.getXZeroPoint(), conv.getY(),
                       conv.getYScale(), conv.getYZeroPoint());
    if (!io || conv.getAutoPad() != "NOTSET")
      return nullptr;
    auto w = int8Weights(b, loc, conv.getW(), conv.getWScale(), conv.getWZeroPoint(), 0, 0);
    if (!w)
      return nullptr;
    // B: int32 at x_scale * w_scale[c] already, as the scheme keeps it.
    Value bias;
    if (!isNone(conv.getB())) {
      int64_t channels = cast<ShapedType>(w->values.getType()).getDimSize(0);
      auto bt = dyn_cast<RankedTensorType>(conv.getB().getType());
      if (!getConstantElements(conv.getB()) || !bt || !bt.getElementType().isSignlessInteger(32) ||
          bt.getRank() != 1 || bt.getDimSize(0) != channels)
        return nullptr;
      bias = conv.getB();
    }
    Activation none{nullptr, io->second.lowest(), io->second.highest()};
    NamedAttrList attrs = weightedAttrs(b, io->first, w->scales, io->second, none);
    for (StringRef name : {"dilations", "group", "kernel_shape", "pads", "strides"})
      if (Attribute a = conv->getAttr(name))
        attrs.set(name, a);
    return b.create<QConvOp>(loc, TypeRange{conv.getY().getType()},
                             ValueRange{conv.getX(), w->values, biasOrNone(b, loc, bias)},
                             attrs.getAttrs())
        .getResult();
  }

  Value foldQLinearMatMul(OpBuilder &b, QLinearMatMulOp mm) {
    Location loc = mm.getLoc();
    auto io = ioParams(mm.getA(), mm.getAScale(), mm.getAZeroPoint(), mm.getY(), mm.getYScale(),
                       mm.getYZeroPoint());
    auto bt = dyn_cast<RankedTensorType>(mm.getB().getType());
    if (!io || !bt || bt.getRank() != 2)
      return nullptr;
    auto w = int8Weights(b, loc, mm.getB(), mm.getBScale(), mm.getBZeroPoint(), 1, 1);
    if (!w)
      return nullptr;
    Activation none{nullptr, io->second.lowest(), io->second.highest()};
    return b.create<QMatMulOp>(loc, TypeRange{mm.getY().getType()},
                               ValueRange{mm.getA(), w->values, biasOrNone(b, loc, Value())},
                               weightedAttrs(b, io->first, w->scales, io->second, none).getAttrs())
        .getResult();
  }

  /// The integer value that replaces `q`, or null.
  Value fold(OpBuilder &b, QuantizeLinearOp q, const QParams &y) {
    Location loc = q.getLoc();
    // Q(DQ(x)): x itself, or x brought to the other quantization.
    if (auto in = dequantized(q.getX())) {
      if (in->second == y)
        return in->first;
      return b.create<QRescaleOp>(loc, quantizedLike(q.getX(), y.type), in->first,
                                  b.getF32FloatAttr(in->second.scale),
                                  b.getI64IntegerAttr(in->second.zeroPoint),
                                  b.getF32FloatAttr(y.scale), b.getI64IntegerAttr(y.zeroPoint));
    }
    Activation act = activationBefore(q.getX(), y);
    Operation *op = act.producer;
    if (!op)
      return nullptr;
    bool activated = op != q.getX().getDefiningOp();
    if (activated && isa<DequantizeLinearOp>(op))
      return foldActivation(b, q, act, y);
    if (!activated && q.getX() != op->getResult(0))
      return nullptr;
    // One result that matters (MaxPool's omitted Indices are `none`).
    for (Value r : op->getResults().drop_front())
      if (!isa<NoneType>(r.getType()) && !r.use_empty())
        return nullptr;
    b.setInsertionPoint(q);
    loc = op->getLoc(); // the folded op keeps the node's name
    Type outType = quantizedLike(q.getX(), y.type);
    if (auto conv = dyn_cast<ConvOp>(op))
      return foldConv(b, loc, conv, y, act, outType);
    if (auto gemm = dyn_cast<GemmOp>(op))
      return foldGemm(b, loc, gemm, y, act, outType);
    if (auto mm = dyn_cast<MatMulOp>(op))
      return foldMatMul(b, loc, mm.getA(), mm.getB(), Value(), /*transB=*/false, y, act, outType);
    if (auto add = dyn_cast<AddOp>(op))
      if (Value folded = foldMatMulBias(b, add, y, act, outType))
        return folded;
    if (isa<AddOp, MulOp>(op)) {
      if (hasLookupTable(y.type))
        if (Value table = foldExpression(b, loc, q, y))
          return table;
      return foldBinary(b, loc, op, y, act, outType);
    }
    if (activated)
      return nullptr; // below: ops whose output a Relu/Clip would change
    if (isa<AveragePoolOp, GlobalAveragePoolOp>(op) || isSpatialMean(op))
      return foldAveragePool(b, loc, op, y, outType);
    if (isElementMoving(op))
      return foldElementMoving(b, op, y);
    if (op->getNumOperands() >= 1 && isLookupCandidate(op) && hasLookupTable(y.type))
      return foldLookup(b, loc, q, op, y);
    return nullptr;
  }

  /// Q(Relu(DQ(x))) or Q(Clip(DQ(x))), the activation a stage of its own
  /// (PyTorch exports a Linear's Relu so): the clamp of x's producer (a
  /// QConv, QMatMul, QAdd or QMul) when x has that quantization and is read
  /// here alone, else a lookup table of the activation.
  Value foldActivation(OpBuilder &b, QuantizeLinearOp q, const Activation &act, const QParams &y) {
    Operation *activation = q.getX().getDefiningOp();
    auto x = dequantized(act.producer->getResult(0));
    if (!x || x->second.type != y.type)
      return nullptr;
    Operation *producer = x->first.getDefiningOp();
    if (x->second == y && producer && x->first.hasOneUse() &&
        isa<QConvOp, QMatMulOp, QAddOp, QMulOp>(producer)) {
      auto bound = [&](StringRef name, int64_t v, bool lower) {
        int64_t old = cast<IntegerAttr>(producer->getAttr(name)).getInt();
        producer->setAttr(name, b.getI64IntegerAttr(lower ? std::max(old, v) : std::min(old, v)));
      };
      bound("act_min", act.lo, /*lower=*/true);
      bound("act_max", act.hi, /*lower=*/false);
      if (cast<IntegerAttr>(producer->getAttr("act_min")).getInt() >
          cast<IntegerAttr>(producer->getAttr("act_max")).getInt())
        producer->setAttr("act_min", producer->getAttr("act_max"));
      return x->first;
    }
    if (!isLookupCandidate(activation) || !hasLookupTable(y.type))
      return nullptr;
    b.setInsertionPoint(q);
    return foldLookup(b, activation->getLoc(), q, activation, y);
  }

  Value foldConv(OpBuilder &b, Location loc, ConvOp conv, const QParams &y, const Activation &act,
                 Type outType) {
    auto x = dequantized(conv.getX());
    auto w = symmetricWeights(b, loc, conv.getW(), 0);
    if (!x || !w || x->second.type != y.type || conv.getAutoPad() != "NOTSET")
      return nullptr;
    int64_t channels = cast<ShapedType>(w->values.getType()).getDimSize(0);
    auto bias = int32Bias(b, loc, conv.getB(), x->second.scale, w->scales, channels);
    if (!bias)
      return nullptr;
    NamedAttrList attrs = weightedAttrs(b, x->second, w->scales, y, act);
    for (StringRef name : {"dilations", "group", "kernel_shape", "pads", "strides"})
      if (Attribute a = conv->getAttr(name))
        attrs.set(name, a);
    return b.create<QConvOp>(loc, TypeRange{outType},
                             ValueRange{x->first, w->values, biasOrNone(b, loc, *bias)},
                             attrs.getAttrs())
        .getResult();
  }

  Value foldGemm(OpBuilder &b, Location loc, GemmOp gemm, const QParams &y, const Activation &act,
                 Type outType) {
    if (gemm.getTransA() || gemm.getAlpha().convertToDouble() != 1.0 ||
        gemm.getBeta().convertToDouble() != 1.0)
      return nullptr;
    return foldMatMul(b, loc, gemm.getA(), gemm.getB(), gemm.getC(), gemm.getTransB(), y, act,
                      outType);
  }

  /// A (..., K) x W (K, N) [+ bias (N)]: W constant int8 per column (or,
  /// transposed, per row of a Gemm's (N, K) B).
  Value foldMatMul(OpBuilder &b, Location loc, Value a, Value wv, Value c, bool transB,
                   const QParams &y, const Activation &act, Type outType) {
    auto x = dequantized(a);
    auto wt = dyn_cast<RankedTensorType>(wv.getType());
    if (!x || x->second.type != y.type || !wt || wt.getRank() != 2)
      return nullptr;
    auto w = symmetricWeights(b, loc, wv, transB ? 0 : 1);
    if (!w)
      return nullptr;
    Value values = w->values;
    int64_t n = transB ? wt.getDimSize(0) : wt.getDimSize(1);
    if (transB) { // (N, K) -> (K, N) at compile time
      auto data = cast<DenseElementsAttr>(getConstantElements(values));
      int64_t k = wt.getDimSize(1);
      SmallVector<int8_t> src(data.getValues<int8_t>()), t(src.size());
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < k; ++j)
          t[j * n + i] = src[i * k + j];
      auto type = RankedTensorType::get({k, n}, data.getElementType());
      values = b.create<ConstantOp>(loc, type, DenseElementsAttr::get(type, ArrayRef<int8_t>(t)))
                   .getResult();
    }
    Value bias;
    if (c && !isNone(c)) {
      auto ct = dyn_cast<RankedTensorType>(c.getType());
      if (!ct || ct.getNumElements() != n || ct.getShape().back() != n)
        return nullptr;
      auto q = int32Bias(b, loc, c, x->second.scale, w->scales, n);
      if (!q)
        return nullptr;
      bias = *q;
    }
    return b.create<QMatMulOp>(loc, TypeRange{outType},
                               ValueRange{x->first, values, biasOrNone(b, loc, bias)},
                               weightedAttrs(b, x->second, w->scales, y, act).getAttrs())
        .getResult();
  }

  /// MatMul then an Add of a bias (N values along the last axis, a DQ of
  /// int32 or a float constant), the MatMul's output read by the Add
  /// alone and not quantized between: one QMatMul with that bias (how
  /// exporters write a Linear layer of a 3-D input).
  Value foldMatMulBias(OpBuilder &b, AddOp add, const QParams &y, const Activation &act,
                       Type outType) {
    for (int i = 0; i < 2; ++i) {
      Value product = add->getOperand(i), bias = add->getOperand(1 - i);
      auto mm = product.getDefiningOp<MatMulOp>();
      if (!mm || !product.hasOneUse() || product.getType() != add.getResult().getType())
        continue;
      if (Value folded = foldMatMul(b, mm.getLoc(), mm.getA(), mm.getB(), bias,
                                    /*transB=*/false, y, act, outType))
        return folded;
    }
    return nullptr;
  }

  /// Add and Mul of two per-tensor quantized values.
  Value foldBinary(OpBuilder &b, Location loc, Operation *op, const QParams &y,
                   const Activation &act, Type outType) {
    auto l = dequantized(op->getOperand(0)), r = dequantized(op->getOperand(1));
    if (!l || !r || l->second.type != y.type || r->second.type != y.type)
      return nullptr;
    NamedAttrList a;
    a.set("a_scale", b.getF32FloatAttr(l->second.scale));
    a.set("a_zero_point", b.getI64IntegerAttr(l->second.zeroPoint));
    a.set("b_scale", b.getF32FloatAttr(r->second.scale));
    a.set("b_zero_point", b.getI64IntegerAttr(r->second.zeroPoint));
    a.set("y_scale", b.getF32FloatAttr(y.scale));
    a.set("y_zero_point", b.getI64IntegerAttr(y.zeroPoint));
    a.set("act_min", b.getI64IntegerAttr(act.lo));
    a.set("act_max", b.getI64IntegerAttr(act.hi));
    SmallVector<Value, 2> operands{l->first, r->first}; // owned: a ValueRange would dangle
    if (isa<AddOp>(op))
      return b.create<QAddOp>(loc, TypeRange{outType}, operands, a.getAttrs()).getResult();
    return b.create<QMulOp>(loc, TypeRange{outType}, operands, a.getAttrs()).getResult();
  }

  /// ReduceMean over every spatial axis (2 to rank - 1) of a static
  /// tensor: GlobalAveragePool's mean (and shape, with keepdims).
  static bool isSpatialMean(Operation *op) {
    auto mean = dyn_cast<ReduceMeanOp>(op);
    auto xt = mean ? dyn_cast<RankedTensorType>(mean.getData().getType()) : nullptr;
    std::optional<ArrayRef<int64_t>> given = mean ? mean.getAxes() : std::nullopt;
    if (!xt || !xt.hasStaticShape() || xt.getRank() < 3 || !given)
      return false;
    const int64_t rank = xt.getRank();
    SmallVector<int64_t> axes;
    for (int64_t a : *given)
      axes.push_back(a < 0 ? a + rank : a);
    llvm::sort(axes);
    return axes.size() == size_t(rank - 2) &&
           llvm::all_of(llvm::enumerate(axes),
                        [](auto e) { return e.value() == int64_t(e.index()) + 2; });
  }

  Value foldAveragePool(OpBuilder &b, Location loc, Operation *op, const QParams &y,
                        Type outType) {
    auto x = dequantized(op->getOperand(0));
    auto xt = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!x || x->second.type != y.type || !xt || !xt.hasStaticShape() || xt.getRank() < 3)
      return nullptr;
    // 16-bit windows of 2^15 values or more could overflow the kernel's
    // 64-bit sum times its multiplier: those stay in float.
    auto windowFits = [&](ArrayRef<int64_t> window) {
      int64_t n = 1;
      for (int64_t d : window)
        n *= d;
      return y.bits() == 8 || n < (int64_t(1) << 15);
    };
    if (isa<GlobalAveragePoolOp, ReduceMeanOp>(op)) {
      if (!windowFits(xt.getShape().drop_front(2)))
        return nullptr;
      // Planes of (N, C, 1, ...); a ReduceMean without keepdims reshapes
      // them to its (N, C).
      SmallVector<int64_t> pooled(xt.getShape().take_front(2));
      pooled.append(xt.getRank() - 2, 1);
      auto out = cast<RankedTensorType>(outType);
      auto poolType = RankedTensorType::get(pooled, out.getElementType());
      Value pool = b.create<QAveragePoolOp>(
          loc, poolType, x->first, b.getDenseI64ArrayAttr(xt.getShape().drop_front(2)),
          DenseI64ArrayAttr(), DenseI64ArrayAttr(), b.getI64IntegerAttr(0),
          b.getF32FloatAttr(x->second.scale), b.getI64IntegerAttr(x->second.zeroPoint),
          b.getF32FloatAttr(y.scale), b.getI64IntegerAttr(y.zeroPoint));
      if (poolType == out)
        return pool;
      return b.create<ReshapeOp>(loc, out, pool, shapeConstant(b, loc, out.getShape()));
    }
    auto pool = cast<AveragePoolOp>(op);
    if (pool.getCeilMode() || pool.getAutoPad() != "NOTSET" || !windowFits(pool.getKernelShape()) ||
        (pool.getDilations() && llvm::any_of(*pool.getDilations(), [](int64_t d) { return d != 1; })))
      return nullptr;
    return b.create<QAveragePoolOp>(loc, outType, x->first, pool.getKernelShapeAttr(),
                                    pool.getPadsAttr(), pool.getStridesAttr(),
                                    b.getI64IntegerAttr(pool.getCountIncludePad()),
                                    b.getF32FloatAttr(x->second.scale),
                                    b.getI64IntegerAttr(x->second.zeroPoint),
                                    b.getF32FloatAttr(y.scale), b.getI64IntegerAttr(y.zeroPoint))
        .getResult();
  }

  /// Ops whose outputs are some of their inputs' elements: on quantized
  /// values of one quantization they compute the same thing.
  static bool isElementMoving(Operation *op) {
    return isa<ReshapeOp, FlattenOp, TransposeOp, SqueezeOp, UnsqueezeOp, IdentityOp, ConcatOp,
               SliceOp, GatherOp, MaxPoolOp, GlobalMaxPoolOp>(op);
  }

  /// The op on the quantized values when every data operand is a
  /// DequantizeLinear of the output's type (Concat: all its inputs, the
  /// others: the first). Where the quantizations differ, the values are
  /// rescaled: a Concat's inputs before it, the other ops' result after
  /// (moving elements and requantizing commute; the smaller tensor for a
  /// MaxPool or Slice).
  Value foldElementMoving(OpBuilder &b, Operation *op, const QParams &y) {
    bool concat = isa<ConcatOp>(op);
    unsigned data = concat ? op->getNumOperands() : 1;
    for (unsigned i = 0; i < data; ++i) {
      auto in = dequantized(op->getOperand(i));
      if (!in || in->second.type != y.type)
        return nullptr;
    }
    auto rescale = [&](Value v, const QParams &from) -> Value {
      if (from == y)
        return v;
      return b.create<QRescaleOp>(op->getLoc(), v.getType(), v, b.getF32FloatAttr(from.scale),
                                  b.getI64IntegerAttr(from.zeroPoint), b.getF32FloatAttr(y.scale),
                                  b.getI64IntegerAttr(y.zeroPoint))
          .getResult();
    };
    IRMapping map;
    for (unsigned i = 0; i < data; ++i) {
      auto in = dequantized(op->getOperand(i));
      map.map(op->getOperand(i), concat ? rescale(in->first, in->second) : in->first);
    }
    Operation *clone = b.clone(*op, map);
    clone->getResult(0).setType(quantizedLike(op->getResult(0), y.type));
    if (concat)
      return clone->getResult(0);
    return rescale(clone->getResult(0), dequantized(op->getOperand(0))->second);
  }

  /// Q(expression of one quantized value x): a table of x's 256 values.
  /// The expression is element-wise, of x alone (read through its
  /// DequantizeLinears, also inside QuantizeLinear -> DequantizeLinear pairs
  /// and lookups), with constants of one element: SiLU's x * sigmoid(x)
  /// becomes one lookup instead of a lookup and a QMul, and computes the
  /// QDQ model's arithmetic exactly.
  Value foldExpression(OpBuilder &b, Location loc, QuantizeLinearOp q, const QParams &y) {
    Value source;
    SmallVector<Operation *> order; // post-order
    llvm::SmallPtrSet<Operation *, 16> seen;
    auto shape = cast<ShapedType>(q.getX().getType()).getShape();
    auto sameShape = [&](Value v) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      return t && t.getShape() == shape;
    };
    auto isScalarConstant = [](Value v) {
      ElementsAttr e = getConstantElements(v);
      return e && e.getNumElements() == 1;
    };
    std::function<bool(Value)> visit = [&](Value v) -> bool {
      Operation *op = v.getDefiningOp();
      if (op && seen.contains(op))
        return true;
      auto quantizedValue = isQuantizedType(eltOfValue(v));
      if (quantizedValue && !(op && isa<QuantizeLinearOp, QLookupOp>(op))) {
        if (source && source != v)
          return false; // a second run-time input
        source = v;
        return sameShape(v);
      }
      if (!op || !sameShape(v) || seen.size() >= 16 || op->getNumResults() != 1)
        return false;
      unsigned visited = 1; // operand 0, or both of a binary op
      if (isa<AddOp, SubOp, MulOp, DivOp>(op))
        visited = 2;
      else if (!isa<QuantizeLinearOp, DequantizeLinearOp, QLookupOp>(op) &&
               !op->hasTrait<ElementFunction>())
        return false;
      for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
        if (i >= visited) {
          // (A QLookup's table is computed at compile time, from
          // constants, but may not be folded into one yet.)
          if (!isNone(operand) && !isScalarConstant(operand) && !isa<QLookupOp>(op))
            return false;
          continue;
        }
        if (isScalarConstant(operand))
          continue;
        if (!visit(operand))
          return false;
      }
      seen.insert(op);
      order.push_back(op);
      return true;
    };
    if (!visit(q.getX()) || !source || eltOfValue(source) != y.type)
      return nullptr;
    // Only where two branches meet (x * f(x), x + f(x)): a chain of one
    // function is foldLookup's.
    bool meets = llvm::any_of(order, [&](Operation *op) {
      return isa<AddOp, SubOp, MulOp, DivOp>(op) && !isScalarConstant(op->getOperand(0)) &&
             !isScalarConstant(op->getOperand(1));
    });
    if (!meets)
      return nullptr;
    Value all = allValues(b, loc, y.type);
    IRMapping map;
    map.map(source, all);
    for (Operation *op : order) {
      Operation *c = b.clone(*op, map);
      auto t = cast<ShapedType>(op->getResult(0).getType());
      c->getResult(0).setType(RankedTensorType::get({256}, t.getElementType()));
    }
    Operation *quant = b.clone(*q.getOperation(), map);
    quant->getResult(0).setType(all.getType());
    return b.create<QLookupOp>(loc, quantizedLike(q.getY(), y.type), source, quant->getResult(0))
        .getResult();
  }

  /// A constant of every value of the int8/uint8 type `elt`, in order.
  static Value allValues(OpBuilder &b, Location loc, Type elt) {
    auto allType = RankedTensorType::get({256}, elt);
    DenseElementsAttr all;
    if (elt.isUnsignedInteger()) {
      SmallVector<uint8_t> v(256);
      for (int i = 0; i < 256; ++i)
        v[i] = uint8_t(i);
      all = DenseElementsAttr::get(allType, ArrayRef<uint8_t>(v));
    } else {
      SmallVector<int8_t> v(256);
      for (int i = 0; i < 256; ++i)
        v[i] = int8_t(i - 128);
      all = DenseElementsAttr::get(allType, ArrayRef<int8_t>(v));
    }
    return b.create<ConstantOp>(loc, allType, all).getResult();
  }

  /// Element-wise float functions of one value with no other run-time input.
  static bool isLookupCandidate(Operation *op) {
    if (!op->hasTrait<ElementFunction>())
      return false;
    for (Value v : op->getOperands().drop_front())
      if (!isNone(v) && !getConstantElements(v))
        return false;
    return op->getNumResults() == 1;
  }

  /// QLookup(x, Q(f(DQ(every value of x's type)))): constant folding
  /// evaluates the table with f's reference kernel.
  Value foldLookup(OpBuilder &b, Location loc, QuantizeLinearOp q, Operation *op,
                   const QParams &y) {
    auto x = dequantized(op->getOperand(0));
    if (!x || x->second.type != y.type)
      return nullptr;
    auto dq = op->getOperand(0).getDefiningOp<DequantizeLinearOp>();
    Type elt = y.type;
    auto allType = RankedTensorType::get({256}, elt);
    Value values = allValues(b, loc, elt);
    Type floatElt = eltOfValue(op->getResult(0));
    auto floatType = RankedTensorType::get({256}, floatElt);
    IRMapping map;
    Operation *deq = b.clone(*dq.getOperation(), map);
    deq->setOperand(0, values);
    deq->getResult(0).setType(floatType);
    map.map(op->getOperand(0), deq->getResult(0));
    Operation *f = b.clone(*op, map);
    f->getResult(0).setType(floatType);
    Operation *quant = b.clone(*q.getOperation());
    quant->setOperand(0, f->getResult(0));
    quant->getResult(0).setType(allType);
    return b.create<QLookupOp>(loc, quantizedLike(q.getY(), elt), x->first, quant->getResult(0))
        .getResult();
  }
};

} // namespace
} // namespace onnxc
