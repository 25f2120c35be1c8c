//===- Quant.cpp - quantization and integer ops ===//
//
// QuantizeLinear/DequantizeLinear, DynamicQuantizeLinear and the integer
// matrix and convolution ops through quant.h, linalg.h and conv.h.
//
//===----------------------------------------------------------------------===//
#include "Families.h"

#include "onnxc/Lowering/CallBuilders.h"

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
  if (quantize && ty != "uint8_t" && ty != "int8_t")
    return unsupported(op, "quantizing to " + ty + " is not supported");
  return calls({call(quantize ? "quantize_linear" : "dequantize_linear", {tx, ty}, kQuant,
                     {KernelArg::input(x), KernelArg::input(scale), inputOrNull(zp),
                      KernelArg::output(op->getResult(0)), KernelArg::i(outer),
                      KernelArg::i(axisDim), KernelArg::i(inner), KernelArg::i(count)})});
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
      .Default([](Operation *) -> ProviderResult { return std::nullopt; });
}

} // namespace onnxc::reference
