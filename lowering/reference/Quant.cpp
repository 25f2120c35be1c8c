//===- Quant.cpp - quantization and integer ops ===//
//
// QuantizeLinear/DequantizeLinear, DynamicQuantizeLinear and the integer
// matrix and convolution ops through quant.h, linalg.h and conv.h.
//
//===----------------------------------------------------------------------===//
#include "Families.h"

#include "onnxc/Lowering/CallBuilders.h"
#include "onnxc/Lowering/Qs8Params.h"
#include "onnxc_rt/kernels/reference/qs8.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace onnxc::onnx;
using namespace onnxc::lowering;

namespace onnxc::reference {
namespace {

/// Zero-point arguments: the pointer (or null) and how many values it has.
std::pair<KernelArg, KernelArg> zeroPoint(Value zp) {
  if (isNone(zp))
    return {KernelArg::null(), KernelArg::i(0)};
  return {KernelArg::input(zp), KernelArg::i(numel(zp))};
}

/// MatMulInteger, and QLinearMatMul's first half: int32 accumulation into
/// `acc` (a result or the op's scratch).
KernelCall matmulInteger(Value a, Value b, Value azp, Value bzp, KernelArg acc) {
  auto [az, azn] = zeroPoint(azp);
  auto [bz, bzn] = zeroPoint(bzp);
  std::vector<KernelArg> args{KernelArg::input(a), KernelArg::input(b), az, azn, bz, bzn, acc};
  for (KernelArg &g : matmulGeometry(a, b).args())
    args.push_back(g);
  return call("matmul_acc", {cppTypeName(eltOf(a)), cppTypeName(eltOf(b)), "int32_t"},
              kLinalg, std::move(args));
}

FailureOr<OpLowering> lowerQLinearMatMul(QLinearMatMulOp op) {
  int64_t bytes = numel(op.getY()) * 4;
  int64_t n = shapeOf(op.getY()).back();
  KernelCall mm = matmulInteger(op.getA(), op.getB(), op.getAZeroPoint(), op.getBZeroPoint(),
                                KernelArg::scratch(bytes, "int32_t"));
  KernelCall rq = call("requantize", {cppTypeName(eltOf(op.getY()))}, kQuant,
                       {KernelArg::scratch(bytes, "int32_t"), KernelArg::input(op.getAScale()),
                        KernelArg::input(op.getBScale()), KernelArg::i(numel(op.getBScale())),
                        KernelArg::input(op.getYScale()), KernelArg::input(op.getYZeroPoint()),
                        KernelArg::output(op.getY()), KernelArg::i(numel(op.getY()) / n),
                        KernelArg::i(n), KernelArg::i(1)});
  return calls({mm, rq});
}

/// ConvInteger and QLinearConv's first half: conv_acc into `acc`.
FailureOr<KernelCall> convInteger(Operation *op, Value x, Value w, Value xzp, Value wzp,
                                  Value bias, Value y, KernelArg acc) {
  auto win = windowArgs(op, x, y, SmallVector<int64_t>(shapeOf(w).drop_front(2)), false);
  if (failed(win))
    return failure();
  auto [wz, wzn] = zeroPoint(wzp);
  std::vector<KernelArg> args{KernelArg::input(x), KernelArg::input(w), inputOrNull(xzp),
                              wz, wzn, bias ? inputOrNull(bias) : KernelArg::null(), acc};
  args.insert(args.end(), win->begin(), win->end());
  auto group = op->getAttrOfType<IntegerAttr>("group");
  args.push_back(KernelArg::i(group ? group.getInt() : 1));
  return call("conv_acc", {cppTypeName(eltOf(x)), cppTypeName(eltOf(w)), "int32_t"}, kConv,
              std::move(args));
}

FailureOr<OpLowering> lowerQLinearConv(QLinearConvOp op) {
  int64_t bytes = numel(op.getY()) * 4;
  auto conv = convInteger(op, op.getX(), op.getW(), op.getXZeroPoint(), op.getWZeroPoint(),
                          op.getB(), op.getY(), KernelArg::scratch(bytes, "int32_t"));
  if (failed(conv))
    return failure();
  auto ys = shapeOf(op.getY());
  KernelCall rq = call("requantize", {cppTypeName(eltOf(op.getY()))}, kQuant,
                       {KernelArg::scratch(bytes, "int32_t"), KernelArg::input(op.getXScale()),
                        KernelArg::input(op.getWScale()), KernelArg::i(numel(op.getWScale())),
                        KernelArg::input(op.getYScale()), KernelArg::input(op.getYZeroPoint()),
                        KernelArg::output(op.getY()), KernelArg::i(ys[0]), KernelArg::i(ys[1]),
                        KernelArg::i(prod(ys.drop_front(2)))});
  return calls({*conv, rq});
}

/// QuantizeLinear / DequantizeLinear: per tensor, or per `axis` when the
/// scale is 1-D with more than one value.
FailureOr<OpLowering> lowerQuantizeLike(Operation *op, bool quantize) {
  Value x = op->getOperand(0), scale = op->getOperand(1), zp = op->getOperand(2);
  auto xs = shapeOf(x);
  int64_t count = numel(scale), outer = 1, axisDim = 1, inner = numel(x);
  if (count > 1) {
    auto axis = normalizeAxis(op, op->getAttrOfType<IntegerAttr>("axis").getInt(),
                              xs.size(), "axis");
    if (failed(axis))
      return failure();
    if (xs[*axis] != count)
      return op->emitError() << "scale has " << count << " values for an axis of "
                             << xs[*axis];
    outer = prod(xs.take_front(*axis));
    axisDim = xs[*axis];
    inner = prod(xs.drop_front(*axis + 1));
  }
  std::string tx = cppTypeName(eltOf(x)), ty = cppTypeName(eltOf(op->getResult(0)));
  if (quantize && ty != "uint8_t" && ty != "int8_t" && ty != "int16_t" && ty != "uint16_t")
    return unsupported(op, "quantizing to " + ty + " is not supported");
  return calls({call(quantize ? "quantize_linear" : "dequantize_linear", {tx, ty}, kQuant,
                     {KernelArg::input(x), KernelArg::input(scale), inputOrNull(zp),
                      KernelArg::output(op->getResult(0)), KernelArg::i(outer),
                      KernelArg::i(axisDim), KernelArg::i(inner), KernelArg::i(count)})});
}

//===-- The qs8 ops (QuantOps.td) through kernels/reference/qs8.h ---------===//

constexpr const char *kQs8Namespace = "onnxc_rt::ref::qs8";

/// A one-element constant of `x`'s element type holding `value` (the
/// zero-point pointer of the shared integer loops).
KernelArg scalarLike(Value x, int64_t value) {
  auto type = RankedTensorType::get({1}, eltOf(x));
  const unsigned bits = eltOf(x).getIntOrFloatBitWidth();
  return KernelArg::constantData(DenseElementsAttr::get(
      type, ArrayRef<APInt>{APInt(bits, uint64_t(value), /*isSigned=*/true)}));
}

/// The qs8 kernels' accumulator for x's activations (qs8.h's
/// Accumulator): int32, int64 for 16-bit ones.
std::pair<int64_t, const char *> accumulatorOf(Value x) {
  return eltOf(x).getIntOrFloatBitWidth() > 8 ? std::pair<int64_t, const char *>{8, "int64_t"}
                                              : std::pair<int64_t, const char *>{4, "int32_t"};
}

/// qs8::conv (referenceQConv).
FailureOr<OpLowering> lowerQConv(QConvOp op) { return referenceQConv(op, std::nullopt); }

/// qs8::fully_connected: one row of int32 scratch at a time.
FailureOr<OpLowering> lowerQMatMul(QMatMulOp op) {
  auto ws = shapeOf(op.getW());
  const int64_t k = ws[0], n = ws[1];
  auto [mult, shift] = qs8Multipliers(op.getContext(), op.getXScale().convertToFloat(),
                                   op.getWScale(), op.getYScale().convertToFloat());
  auto [accBytes, accType] = accumulatorOf(op.getA());
  return calls({call("fully_connected", {cppTypeName(eltOf(op.getA()))}, kQs8,
                     {KernelArg::input(op.getA()), KernelArg::input(op.getW()),
                      scalarLike(op.getA(), op.getXZeroPoint()), inputOrNull(op.getB()),
                      KernelArg::output(op.getY()), KernelArg::i(numel(op.getA()) / k),
                      KernelArg::i(k), KernelArg::i(n), KernelArg::scratch(n * accBytes, accType),
                      mult, shift, KernelArg::i(op.getWScale().size()),
                      KernelArg::i(op.getYZeroPoint()), KernelArg::i(op.getActMin()),
                      KernelArg::i(op.getActMax())},
                     kQs8Namespace)});
}

FailureOr<OpLowering> lowerQAdd(QAddOp op) {
  KernelCall c = broadcastCall("add", {cppTypeName(eltOf(op.getY()))}, {op.getA(), op.getB()},
                               op.getY());
  c.header = kQs8;
  c.callee = std::string(kQs8Namespace) + "::add";
  for (int32_t v : addParamList(addParams(op)))
    c.args.push_back(KernelArg::i(v));
  return calls({c});
}

FailureOr<OpLowering> lowerQMul(QMulOp op) {
  const Qs8Multiplier m = mulMultiplier(op);
  KernelCall c = broadcastCall("mul", {cppTypeName(eltOf(op.getY()))}, {op.getA(), op.getB()},
                               op.getY());
  c.header = kQs8;
  c.callee = std::string(kQs8Namespace) + "::mul";
  for (int64_t v : {int64_t(op.getAZeroPoint()), int64_t(op.getBZeroPoint()),
                    int64_t(op.getYZeroPoint()), int64_t(m.multiplier), int64_t(m.shift),
                    int64_t(op.getActMin()), int64_t(op.getActMax())})
    c.args.push_back(KernelArg::i(v));
  return calls({c});
}

FailureOr<OpLowering> lowerQAveragePool(QAveragePoolOp op) {
  auto win = windowArgs(op, op.getX(), op.getY(), op.getKernelShape(), false);
  if (failed(win))
    return failure();
  const Qs8Multiplier m = rescaleMultiplier(op);
  std::vector<KernelArg> args{KernelArg::input(op.getX()), KernelArg::output(op.getY())};
  args.insert(args.end(), win->begin(), win->end());
  for (int64_t v : {int64_t(op.getCountIncludePad()), int64_t(op.getXZeroPoint()),
                    int64_t(op.getYZeroPoint()), int64_t(m.multiplier), int64_t(m.shift)})
    args.push_back(KernelArg::i(v));
  return calls({call("average_pool", {cppTypeName(eltOf(op.getX()))}, kQs8, std::move(args),
                     kQs8Namespace)});
}

FailureOr<OpLowering> lowerQRescale(QRescaleOp op) {
  const Qs8Multiplier m = rescaleMultiplier(op);
  return calls({call("rescale", {cppTypeName(eltOf(op.getX())), cppTypeName(eltOf(op.getY()))},
                     kQs8,
                     {KernelArg::input(op.getX()), KernelArg::i(op.getXZeroPoint()),
                      KernelArg::i(m.multiplier), KernelArg::i(m.shift),
                      KernelArg::i(op.getYZeroPoint()), KernelArg::output(op.getY()),
                      KernelArg::i(numel(op.getX()))},
                     kQs8Namespace)});
}

FailureOr<OpLowering> lowerQLookup(QLookupOp op) {
  if (!getConstantElements(op.getTable()))
    return unsupported(op, "a lookup table that is not a compile-time constant");
  return calls({call("lookup", {cppTypeName(eltOf(op.getX()))}, kQs8,
                     {KernelArg::input(op.getX()), KernelArg::input(op.getTable()),
                      KernelArg::output(op.getY()), KernelArg::i(numel(op.getX()))},
                     kQs8Namespace)});
}

} // namespace

ProviderResult lowerQuant(Operation *op, const std::string &t) {
  return TypeSwitch<Operation *, ProviderResult>(op)
      .Case<QuantizeLinearOp>([&](Operation *o) { return lowerQuantizeLike(o, true); })
      .Case<DequantizeLinearOp>([&](Operation *o) { return lowerQuantizeLike(o, false); })
      .Case<DynamicQuantizeLinearOp>([&](DynamicQuantizeLinearOp o) -> FailureOr<OpLowering> {
        if (t != "float")
          return unsupported(o, "DynamicQuantizeLinear on " + t + " is not supported");
        KernelCall c = call("dynamic_quantize_linear", {}, kQuant,
                            {KernelArg::input(o.getX()), KernelArg::output(o.getY()),
                             KernelArg::output(o.getYScale()),
                             KernelArg::output(o.getYZeroPoint()), KernelArg::i(numel(o.getX()))});
        return calls({c});
      })
      .Case<MatMulIntegerOp>([&](MatMulIntegerOp o) {
        return calls({matmulInteger(o.getA(), o.getB(), o.getAZeroPoint(), o.getBZeroPoint(),
                                    KernelArg::output(o.getY()))});
      })
      .Case<QLinearMatMulOp>([&](QLinearMatMulOp o) { return lowerQLinearMatMul(o); })
      .Case<ConvIntegerOp>([&](ConvIntegerOp o) -> FailureOr<OpLowering> {
        auto c = convInteger(o, o.getX(), o.getW(), o.getXZeroPoint(), o.getWZeroPoint(),
                             nullptr, o.getY(), KernelArg::output(o.getY()));
        if (failed(c))
          return failure();
        return calls({*c});
      })
      .Case<QLinearConvOp>([&](QLinearConvOp o) { return lowerQLinearConv(o); })
      .Case<QConvOp>([&](QConvOp o) { return lowerQConv(o); })
      .Case<QMatMulOp>([&](QMatMulOp o) { return lowerQMatMul(o); })
      .Case<QAddOp>([&](QAddOp o) { return lowerQAdd(o); })
      .Case<QMulOp>([&](QMulOp o) { return lowerQMul(o); })
      .Case<QAveragePoolOp>([&](QAveragePoolOp o) { return lowerQAveragePool(o); })
      .Case<QRescaleOp>([&](QRescaleOp o) { return lowerQRescale(o); })
      .Case<QLookupOp>([&](QLookupOp o) { return lowerQLookup(o); })
      .Default([](Operation *) -> ProviderResult { return std::nullopt; });
}

} // namespace onnxc::reference

namespace onnxc {

FailureOr<OpLowering> referenceQConv(Operation *op, std::optional<ArrayRef<int64_t>> maxPool) {
  using namespace onnxc::reference;
  Value x = op->getOperand(0), w = op->getOperand(1), b = op->getOperand(2);
  Value y = op->getResult(0);
  auto intAttr = [&](StringRef name, int64_t fallback) {
    auto a = op->getAttrOfType<IntegerAttr>(name);
    return a ? a.getInt() : fallback;
  };
  auto scale = [&](StringRef name) { return op->getAttrOfType<FloatAttr>(name).getValueAsDouble(); };
  ArrayRef<float> wScale = op->getAttrOfType<DenseF32ArrayAttr>("w_scale").asArrayRef();
  auto g = resolveWindow(op, shapeOf(x).drop_front(2),
                         SmallVector<int64_t>(shapeOf(w).drop_front(2)), false);
  if (failed(g))
    return failure();
  // The convolution's own output shape (Y's before a fused pool).
  SmallVector<int64_t> convShape(shapeOf(y).take_front(2));
  convShape.append(g->outSpatial);
  auto [mult, shift] =
      qs8Multipliers(op->getContext(), float(scale("x_scale")), wScale, float(scale("y_scale")));
  const std::string t = cppTypeName(eltOf(x));
  std::vector<KernelArg> args{KernelArg::input(x), KernelArg::input(w),
                              scalarLike(x, intAttr("x_zero_point", 0)), inputOrNull(b),
                              KernelArg::output(y)};
  std::vector<KernelArg> window = windowArgs(x, y, *g);
  window[2] = KernelArg::array(convShape);
  const int64_t plane = prod(ArrayRef<int64_t>(convShape).drop_front(2));
  std::string callee = "conv";
  auto [accBytes, accType] = accumulatorOf(x);
  KernelArg scratch = KernelArg::scratch(plane * accBytes, accType);
  if (maxPool) {
    callee = "conv_max_pool";
    window.erase(window.begin()); // conv_max_pool is 2-D
    scratch = KernelArg::scratch(onnxc_rt::ref::qs8::conv_max_pool_scratch_bytes(
                                     plane, eltOf(x).getIntOrFloatBitWidth() / 8),
                                 accType);
  }
  args.insert(args.end(), window.begin(), window.end());
  args.push_back(KernelArg::i(intAttr("group", 1)));
  if (maxPool)
    args.push_back(KernelArg::array(*maxPool));
  for (KernelArg a : {scratch, mult, shift, KernelArg::i(int64_t(wScale.size())),
                      KernelArg::i(intAttr("y_zero_point", 0)), KernelArg::i(intAttr("act_min", 0)),
                      KernelArg::i(intAttr("act_max", 0))})
    args.push_back(a);
  return calls({call(callee, {t}, kQs8, std::move(args), kQs8Namespace)});
}

} // namespace onnxc
