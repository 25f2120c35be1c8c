//===- Elementwise.cpp - unary, binary, variadic, comparison, cast ops ===//
//
// Element-by-element ops: the reference functors of elementwise.h applied
// through unary/binary/broadcast kernels.
//
//===----------------------------------------------------------------------===//
#include "Families.h"

#include "onnxc/Lowering/CallBuilders.h"
#include "onnxc_rt/kernels/reference/strings.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace onnxc::onnx;
using namespace onnxc::lowering;

namespace onnxc {


} // namespace onnxc

namespace onnxc::reference {
namespace {

FailureOr<OpLowering> lowerUnary(Operation *op, std::string t) {
  StringRef name = op->getName().stripDialect();
  auto [alpha, beta] = unaryKernelParams(op);
  Value x = op->getOperand(0), y = op->getResult(0);
  return calls({call("unary", {("onnxc_rt::ref::" + name).str(), t}, kElementwise,
                     {KernelArg::input(x), KernelArg::output(y),
                      KernelArg::i(numel(y)), KernelArg::f(alpha),
                      KernelArg::f(beta)})});
}

FailureOr<OpLowering> lowerVariadic(Operation *op, std::string t) {
  StringRef name = op->getName().stripDialect();
  std::string fn = "onnxc_rt::ref::" +
                   std::string(name == "Sum" || name == "Mean" ? "Add" : name);
  Value y = op->getResult(0);
  std::vector<KernelCall> cs;
  if (op->getNumOperands() == 1) {
    cs.push_back(broadcastCall("broadcast_copy", {t}, op->getOperand(0), y));
  } else {
    cs.push_back(broadcastCall("binary", {fn, t, t, t},
                               {op->getOperand(0), op->getOperand(1)}, y));
    for (unsigned i = 2; i < op->getNumOperands(); ++i) {
      // Accumulate into y: y = y op x_i (y is read in place).
      KernelCall c = broadcastCall("binary", {fn, t, t, t}, {y, op->getOperand(i)}, y);
      c.args[0].isOutput = true;
      cs.push_back(c);
    }
  }
  if (name == "Mean")
    cs.push_back(call("unary", {"onnxc_rt::ref::Scale", t}, kElementwise,
                      {KernelArg::output(y), KernelArg::output(y),
                       KernelArg::i(numel(y)),
                       KernelArg::f(1.0 / op->getNumOperands()), KernelArg::f(0)}));
  return calls(cs);
}

FailureOr<OpLowering> lowerConstantOfShape(ConstantOfShapeOp op, std::string t) {
  KernelArg value = KernelArg::i(0);
  if (auto v = op.getValue()) {
    if (isa<FloatType>(v->getElementType()))
      value = KernelArg::f((*v->getValues<APFloat>().begin()).convertToDouble());
    else if (v->getElementType().isInteger(1))
      value = KernelArg::i((*v->getValues<bool>().begin()) ? 1 : 0);
    else
      value = KernelArg::i((*v->getValues<APInt>().begin()).getSExtValue());
  } else {
    value = KernelArg::f(0);
  }
  return calls({call("fill", {t}, kElementwise,
                     {KernelArg::output(op.getResult()),
                      KernelArg::i(numel(op.getResult())), value})});
}

} // namespace

ProviderResult lowerElementwise(Operation *op, const std::string &t) {
  // Every function of one value with a reference functor (OpFacts.td).
  if (op->hasTrait<UnaryFunctor>()) {
    if (!op->hasTrait<AnyElementType>() && failed(requireFloat(op)))
      return failure();
    return lowerUnary(op, t);
  }
  return TypeSwitch<Operation *, ProviderResult>(op)
      .Case<BitwiseAndOp, BitwiseOrOp, BitwiseXorOp>([&](Operation *o) {
        std::string fn = ("onnxc_rt::ref::" + o->getName().stripDialect()).str();
        return calls({broadcastCall("binary", {fn, t, t, t}, o->getOperands(), o->getResult(0))});
      })
      .Case<IsNaNOp, IsInfOp>([&](Operation *o) -> FailureOr<OpLowering> {
        if (failed(requireFloat(o)))
          return failure();
        auto flag = [&](StringRef n) {
          auto a = o->getAttrOfType<IntegerAttr>(n);
          return a ? a.getInt() : 1;
        };
        return calls({call("classify", {t}, kElementwise,
                           {KernelArg::input(o->getOperand(0)), KernelArg::output(o->getResult(0)),
                            KernelArg::i(numel(o->getResult(0))), KernelArg::i(isa<IsInfOp>(o)),
                            KernelArg::i(flag("detect_negative")),
                            KernelArg::i(flag("detect_positive"))})});
      })
      .Case<ModOp>([&](ModOp o) -> FailureOr<OpLowering> {
        bool isFloat = isa<FloatType>(eltOf(o.getA()));
        if (isFloat && !o.getFmod())
          return unsupported(o, "Mod with fmod = 0 on floats is not supported (the spec requires fmod = 1)");
        std::string fn = o.getFmod() ? "onnxc_rt::ref::FMod" : "onnxc_rt::ref::Mod";
        return calls({broadcastCall("binary", {fn, t, t, t}, o->getOperands(), o.getResult())});
      })
      .Case<BitShiftOp>([&](BitShiftOp o) -> FailureOr<OpLowering> {
        StringRef dir = o.getDirection();
        if (dir != "LEFT" && dir != "RIGHT")
          return unsupported(o, "BitShift direction '" + dir + "' is not supported");
        std::string fn = dir == "LEFT" ? "onnxc_rt::ref::ShiftLeft" : "onnxc_rt::ref::ShiftRight";
        return calls({broadcastCall("binary", {fn, t, t, t}, o->getOperands(), o.getResult())});
      })
      .Case<PReluOp>([&](Operation *o) {
        return calls({broadcastCall("binary", {"onnxc_rt::ref::PRelu", t, t, t},
                                    o->getOperands(), o->getResult(0))});
      })
      .Case<AddOp, SubOp, MulOp, DivOp, PowOp>([&](Operation *o) {
        std::string fn = ("onnxc_rt::ref::" + o->getName().stripDialect()).str();
        std::string tb = cppTypeName(eltOf(o->getOperand(1)));
        return calls({broadcastCall("binary", {fn, t, tb, t}, o->getOperands(),
                                    o->getResult(0))});
      })
      .Case<EqualOp, LessOp, GreaterOp, LessOrEqualOp, GreaterOrEqualOp, AndOp, OrOp,
            XorOp>([&](Operation *o) {
        std::string fn = ("onnxc_rt::ref::" + o->getName().stripDialect()).str();
        return calls({broadcastCall("binary", {fn, t, t, "bool"}, o->getOperands(),
                                    o->getResult(0))});
      })
      .Case<MaxOp, MinOp, SumOp, MeanOp>([&](Operation *o) { return lowerVariadic(o, t); })
      .Case<WhereOp>([&](WhereOp o) {
        std::string tx = cppTypeName(eltOf(o.getX()));
        return calls({broadcastCall("where", {tx}, o->getOperands(), o.getResult())});
      })
      .Case<ClipOp>([&](ClipOp o) {
        return calls({call("clip", {t}, kElementwise,
                           {KernelArg::input(o.getInput()), KernelArg::output(o.getResult()),
                            KernelArg::i(numel(o.getResult())), inputOrNull(o.getMin()),
                            inputOrNull(o.getMax())})});
      })
      .Case<CastOp>([&](CastOp o) -> FailureOr<OpLowering> {
        Type from = eltOf(o.getInput()), to = eltOf(o.getResult());
        if (isa<StringType>(from) != isa<StringType>(to)) {
          Type number = isa<StringType>(from) ? to : from;
          if (!(number.isF32() || number.isF64() || isa<IntegerType>(number)) ||
              (isa<StringType>(from) && number.isInteger(1)))
            return unsupported(o, "Cast between string and " + cppTypeName(number) +
                                      " is not supported");
          if (isa<StringType>(from))
            return calls({call("cast_from_string", {cppTypeName(to)}, kStrings,
                               {KernelArg::input(o.getInput()), KernelArg::output(o.getResult()),
                                KernelArg::i(numel(o.getResult()))})});
          return calls({call("cast_to_string", {t}, kStrings,
                             {KernelArg::input(o.getInput()), KernelArg::output(o.getResult()),
                              KernelArg::i(numel(o.getResult())),
                              KernelArg::text(numel(o.getResult()) * onnxc_rt::ref::kNumberStringBytes)})});
        }
        return calls({call("cast", {t, cppTypeName(eltOf(o.getResult()))}, kElementwise,
                           {KernelArg::input(o.getInput()), KernelArg::output(o.getResult()),
                            KernelArg::i(numel(o.getResult()))})});
      })
      .Case<ExpandOp>([&](ExpandOp o) {
        return calls({broadcastCall("broadcast_copy", {t}, o.getInput(), o.getResult())});
      })
      .Case<ConstantOfShapeOp>([&](ConstantOfShapeOp o) {
        return lowerConstantOfShape(o, cppTypeName(eltOf(o.getResult())));
      })
      .Case<RangeOp>([&](RangeOp o) {
        return calls({call("range", {t}, kElementwise,
                           {KernelArg::input(o.getStart()), KernelArg::input(o.getDelta()),
                            KernelArg::output(o.getResult()),
                            KernelArg::i(numel(o.getResult()))})});
      })
      .Default([](Operation *) -> ProviderResult { return std::nullopt; });
}

} // namespace onnxc::reference
