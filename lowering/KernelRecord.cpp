//===- KernelRecord.cpp - the chosen kernel calls as an attribute ----------===//
//
// onnxc-select-kernels records each op's lowering as `onnxc.kernel`:
//   {kind = "calls" | "alias", calls = [{callee, template, header, args}, ...]}
// An argument is recorded by what it is: an integer (i64), a float (f64), an
// int array (array<i64: ...>), a float array (array<f64: ...>), string
// arrays (["..."]), null (unit), packed constant data (a dense elements
// attribute), or a dictionary with `kind`: a tensor ({kind = "tensor",
// operand = i | result = i, writes}), scratch ({kind = "scratch", bytes,
// type, persistent}), the task runner or the run's status, or a size the
// run decides in a model with bounded dims ({kind = "dim", value, poly},
// {kind = "dim_array", values, polys}: KernelArg::poly).
//
//===----------------------------------------------------------------------===//
#include "onnxc/Lowering/KernelProvider.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

using namespace mlir;

namespace onnxc {
namespace {

Attribute encodeArg(Operation *op, Builder &b, const KernelArg &a) {
  auto dict = [&](StringRef kind, ArrayRef<NamedAttribute> rest = {}) {
    SmallVector<NamedAttribute> attrs{b.getNamedAttr("kind", b.getStringAttr(kind))};
    attrs.append(rest.begin(), rest.end());
    return b.getDictionaryAttr(attrs);
  };
  switch (a.kind) {
  case KernelArg::Kind::Tensor: {
    SmallVector<NamedAttribute> rest;
    for (OpOperand &use : op->getOpOperands())
      if (use.get() == a.tensor) {
        rest.push_back(b.getNamedAttr("operand", b.getI64IntegerAttr(use.getOperandNumber())));
        break;
      }
    if (rest.empty())
      for (OpResult r : op->getResults())
        if (r == a.tensor) {
          rest.push_back(b.getNamedAttr("result", b.getI64IntegerAttr(r.getResultNumber())));
          break;
        }
    assert(!rest.empty() && "a kernel argument names a value of another op");
    if (a.isOutput)
      rest.push_back(b.getNamedAttr("writes", b.getUnitAttr()));
    return dict("tensor", rest);
  }
  case KernelArg::Kind::Int:
    if (!a.poly.empty())
      return dict("dim", {b.getNamedAttr("value", b.getI64IntegerAttr(a.intValue)),
                          b.getNamedAttr("poly", b.getDenseI64ArrayAttr(a.poly))});
    return b.getI64IntegerAttr(a.intValue);
  case KernelArg::Kind::Float:
    return b.getF64FloatAttr(a.floatValue);
  case KernelArg::Kind::IntArray: {
    if (a.polys.empty())
      return b.getDenseI64ArrayAttr(a.ints);
    SmallVector<Attribute> polys;
    for (const DimPoly &p : a.polys)
      polys.push_back(b.getDenseI64ArrayAttr(p));
    return dict("dim_array", {b.getNamedAttr("values", b.getDenseI64ArrayAttr(a.ints)),
                              b.getNamedAttr("polys", b.getArrayAttr(polys))});
  }
  case KernelArg::Kind::FloatArray:
    return b.getDenseF64ArrayAttr(a.floats);
  case KernelArg::Kind::StringArray: {
    SmallVector<Attribute> strs;
    for (const std::string &s : a.strings)
      strs.push_back(b.getStringAttr(s));
    return b.getArrayAttr(strs);
  }
  case KernelArg::Kind::Null:
    return b.getUnitAttr();
  case KernelArg::Kind::Constant:
    return a.constant;
  case KernelArg::Kind::Scratch: {
    SmallVector<NamedAttribute> rest{b.getNamedAttr("bytes", b.getI64IntegerAttr(a.intValue)),
                                     b.getNamedAttr("type", b.getStringAttr(a.scratchType))};
    if (a.persistent)
      rest.push_back(b.getNamedAttr("persistent", b.getUnitAttr()));
    if (a.scratchOffset)
      rest.push_back(b.getNamedAttr("offset", b.getI64IntegerAttr(a.scratchOffset)));
    return dict("scratch", rest);
  }
  case KernelArg::Kind::Runner:
    return dict("runner");
  case KernelArg::Kind::Status:
    return dict("status");
  }
  return b.getUnitAttr();
}

FailureOr<KernelArg> decodeArg(Operation *op, Attribute attr) {
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return KernelArg::i(i.getInt());
  if (auto f = dyn_cast<FloatAttr>(attr))
    return KernelArg::f(f.getValueAsDouble());
  if (auto ints = dyn_cast<DenseI64ArrayAttr>(attr))
    return KernelArg::array(ints.asArrayRef());
  if (auto floats = dyn_cast<DenseF64ArrayAttr>(attr))
    return KernelArg::floatArray(floats.asArrayRef());
  if (auto strs = dyn_cast<ArrayAttr>(attr)) {
    std::vector<std::string> out;
    for (Attribute s : strs)
      if (auto str = dyn_cast<StringAttr>(s))
        out.push_back(str.str());
      else
        return failure();
    return KernelArg::stringArray(std::move(out));
  }
  if (isa<UnitAttr>(attr))
    return KernelArg::null();
  if (auto data = dyn_cast<ElementsAttr>(attr))
    return KernelArg::constantData(data);
  auto dict = dyn_cast<DictionaryAttr>(attr);
  auto kind = dict ? dict.getAs<StringAttr>("kind") : StringAttr();
  if (!kind)
    return failure();
  if (kind.getValue() == "tensor") {
    KernelArg a;
    if (auto i = dict.getAs<IntegerAttr>("operand")) {
      if (i.getInt() < 0 || i.getInt() >= op->getNumOperands())
        return failure();
      a = KernelArg::input(op->getOperand(i.getInt()));
    } else if (auto r = dict.getAs<IntegerAttr>("result")) {
      if (r.getInt() < 0 || r.getInt() >= op->getNumResults())
        return failure();
      a = KernelArg::input(op->getResult(r.getInt()));
    } else {
      return failure();
    }
    a.isOutput = dict.contains("writes");
    return a;
  }
  if (kind.getValue() == "scratch") {
    auto bytes = dict.getAs<IntegerAttr>("bytes");
    auto type = dict.getAs<StringAttr>("type");
    if (!bytes || !type)
      return failure();
    KernelArg a = KernelArg::scratch(bytes.getInt(), type.str());
    a.persistent = dict.contains("persistent");
    if (auto offset = dict.getAs<IntegerAttr>("offset"))
      a.scratchOffset = offset.getInt();
    return a;
  }
  if (kind.getValue() == "dim") { // a size the run decides (bounded dims)
    auto value = dict.getAs<IntegerAttr>("value");
    auto poly = dict.getAs<DenseI64ArrayAttr>("poly");
    if (!value || !poly)
      return failure();
    KernelArg a = KernelArg::i(value.getInt());
    a.poly.assign(poly.asArrayRef().begin(), poly.asArrayRef().end());
    return a;
  }
  if (kind.getValue() == "dim_array") {
    auto values = dict.getAs<DenseI64ArrayAttr>("values");
    auto polys = dict.getAs<ArrayAttr>("polys");
    if (!values || !polys || int64_t(polys.size()) != values.size())
      return failure();
    KernelArg a = KernelArg::array(values.asArrayRef());
    for (Attribute p : polys) {
      auto ints = dyn_cast<DenseI64ArrayAttr>(p);
      if (!ints)
        return failure();
      a.polys.emplace_back(ints.asArrayRef().begin(), ints.asArrayRef().end());
    }
    return a;
  }
  if (kind.getValue() == "runner")
    return KernelArg::runner();
  if (kind.getValue() == "status")
    return KernelArg::status();
  return failure();
}

} // namespace

Attribute encodeLowering(Operation *op, const OpLowering &lowering) {
  Builder b(op->getContext());
  SmallVector<Attribute> calls;
  for (const KernelCall &c : lowering.calls) {
    SmallVector<Attribute> targs, args;
    for (const std::string &t : c.templateArgs)
      targs.push_back(b.getStringAttr(t));
    for (const KernelArg &a : c.args)
      args.push_back(encodeArg(op, b, a));
    calls.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("callee", b.getStringAttr(c.callee)),
         b.getNamedAttr("template", b.getArrayAttr(targs)),
         b.getNamedAttr("header", b.getStringAttr(c.header)),
         b.getNamedAttr("args", b.getArrayAttr(args))}));
  }
  StringRef kind = lowering.kind == OpLowering::Kind::Alias ? "alias"
                   : lowering.kind == OpLowering::Kind::Calls ? "calls"
                                                              : "none";
  return b.getDictionaryAttr({b.getNamedAttr("kind", b.getStringAttr(kind)),
                              b.getNamedAttr("calls", b.getArrayAttr(calls))});
}

FailureOr<OpLowering> decodeLowering(Operation *op, Attribute record) {
  auto bad = [&]() -> FailureOr<OpLowering> {
    return op->emitError() << "malformed " << kKernelRecordAttr << " record";
  };
  auto dict = dyn_cast<DictionaryAttr>(record);
  auto kind = dict ? dict.getAs<StringAttr>("kind") : StringAttr();
  auto calls = dict ? dict.getAs<ArrayAttr>("calls") : ArrayAttr();
  if (!kind || !calls)
    return bad();
  OpLowering l;
  l.kind = kind.getValue() == "alias"   ? OpLowering::Kind::Alias
           : kind.getValue() == "calls" ? OpLowering::Kind::Calls
                                        : OpLowering::Kind::None;
  for (Attribute c : calls) {
    auto cd = dyn_cast<DictionaryAttr>(c);
    auto callee = cd ? cd.getAs<StringAttr>("callee") : StringAttr();
    auto targs = cd ? cd.getAs<ArrayAttr>("template") : ArrayAttr();
    auto header = cd ? cd.getAs<StringAttr>("header") : StringAttr();
    auto args = cd ? cd.getAs<ArrayAttr>("args") : ArrayAttr();
    if (!callee || !targs || !header || !args)
      return bad();
    KernelCall call;
    call.callee = callee.str();
    call.header = header.str();
    for (Attribute t : targs) {
      auto s = dyn_cast<StringAttr>(t);
      if (!s)
        return bad();
      call.templateArgs.push_back(s.str());
    }
    for (Attribute a : args) {
      FailureOr<KernelArg> arg = decodeArg(op, a);
      if (failed(arg))
        return bad();
      call.args.push_back(std::move(*arg));
    }
    l.calls.push_back(std::move(call));
  }
  return l;
}

} // namespace onnxc
