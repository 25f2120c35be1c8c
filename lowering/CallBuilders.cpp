//===- CallBuilders.cpp - helpers the kernel providers share ---------------===//
#include "onnxc/Lowering/CallBuilders.h"
#include "onnxc/Lowering/Qs8Params.h"
#include "onnxc_rt/kernels/reference/qs8.h"

#include "mlir/IR/BuiltinTypes.h"

#include <type_traits>

using namespace mlir;
using namespace onnxc::onnx;

namespace onnxc::lowering {

ArrayRef<int64_t> shapeOf(Value v) { return cast<ShapedType>(v.getType()).getShape(); }
int64_t numel(Value v) { return cast<ShapedType>(v.getType()).getNumElements(); }
Type eltOf(Value v) { return cast<ShapedType>(v.getType()).getElementType(); }
int64_t prod(ArrayRef<int64_t> s) {
  int64_t p = 1;
  for (int64_t d : s)
    p *= d;
  return p;
}

KernelCall call(StringRef callee, ArrayRef<std::string> targs, const char *header,
                std::vector<KernelArg> args, StringRef ns) {
  KernelCall c;
  c.callee = (ns + "::" + callee).str();
  c.templateArgs.assign(targs.begin(), targs.end());
  c.header = header;
  c.args = std::move(args);
  return c;
}

void appendTasks(std::vector<KernelArg> &args, int64_t tasks) {
  args.push_back(KernelArg::runner());
  args.push_back(KernelArg::i(tasks));
}

KernelCall transposeCall(Operation *op, const std::string &t, int64_t tasks) {
  auto xs = shapeOf(op->getOperand(0));
  std::vector<KernelArg> args = {KernelArg::input(op->getOperand(0)),
                                 KernelArg::output(op->getResult(0)), KernelArg::i(xs.size()),
                                 KernelArg::array(xs),
                                 KernelArg::array(onnx::transposePerm(op, xs.size()))};
  if (tasks > 0)
    appendTasks(args, tasks);
  return call(tasks > 0 ? "transpose_split" : "transpose", {t}, kTensor, std::move(args));
}

/// Strides of `operandShape` broadcast into `outShape` (0 on broadcast dims).
SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> operandShape,
                                      ArrayRef<int64_t> outShape) {
  size_t r = outShape.size(), offset = r - operandShape.size();
  SmallVector<int64_t> strides(r, 0);
  int64_t s = 1;
  for (int64_t d = operandShape.size() - 1; d >= 0; --d) {
    strides[d + offset] = operandShape[d] == 1 ? 0 : s;
    s *= operandShape[d];
  }
  return strides;
}

/// Merges adjacent dims where every operand is contiguous across them, so a
/// broadcast kernel usually sees rank 1 or 2. Size-1 dims are dropped.
void collapseBroadcast(SmallVector<int64_t> &shape,
                       SmallVector<SmallVector<int64_t>> &strides) {
  SmallVector<int64_t> outShape;
  SmallVector<SmallVector<int64_t>> outStrides(strides.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1)
      continue;
    bool merge = !outShape.empty();
    for (auto &s : strides)
      if (merge && outStrides[&s - &strides[0]].back() != s[d] * shape[d])
        merge = false;
    if (merge) {
      outShape.back() *= shape[d];
      for (size_t k = 0; k < strides.size(); ++k)
        outStrides[k].back() = strides[k][d];
    } else {
      outShape.push_back(shape[d]);
      for (size_t k = 0; k < strides.size(); ++k)
        outStrides[k].push_back(strides[k][d]);
    }
  }
  if (outShape.empty()) {
    outShape.push_back(1);
    for (auto &s : outStrides)
      s.push_back(0);
  }
  shape = outShape;
  strides = outStrides;
}

/// A binary/ternary broadcast call: callee(in..., out, rank, shape, strides...).
KernelCall broadcastCall(StringRef callee, ArrayRef<std::string> targs,
                         ValueRange inputs, Value out) {
  SmallVector<int64_t> shape(shapeOf(out));
  SmallVector<SmallVector<int64_t>> strides;
  for (Value in : inputs)
    strides.push_back(broadcastStrides(shapeOf(in), shape));
  collapseBroadcast(shape, strides);
  std::vector<KernelArg> args;
  for (Value in : inputs)
    args.push_back(KernelArg::input(in));
  args.push_back(KernelArg::output(out));
  args.push_back(KernelArg::i(shape.size()));
  args.push_back(KernelArg::array(shape));
  for (auto &s : strides)
    args.push_back(KernelArg::array(s));
  return call(callee, targs, kElementwise, std::move(args));
}

KernelArg inputOrNull(Value v) {
  return isNone(v) ? KernelArg::null() : KernelArg::input(v);
}
KernelArg outputOrNull(Value v) {
  return isNone(v) ? KernelArg::null() : KernelArg::output(v);
}

float floatAttr(Operation *op, StringRef name, float dflt) {
  if (auto a = op->getAttrOfType<FloatAttr>(name))
    return a.getValueAsDouble();
  return dflt;
}

FailureOr<OpLowering> calls(std::vector<KernelCall> cs) {
  OpLowering l;
  l.kind = OpLowering::Kind::Calls;
  l.calls = std::move(cs);
  return l;
}

FailureOr<OpLowering> unsupported(Operation *op, const Twine &why) {
  return op->emitError() << op->getName().stripDialect() << ": " << why;
}

LogicalResult requireFloat(Operation *op) {
  if (!isa<FloatType>(eltOf(op->getOperand(0))))
    return op->emitError() << op->getName().stripDialect() << " on "
                           << eltOf(op->getOperand(0)) << " is not supported";
  return success();
}

std::vector<KernelArg> MatMulGeometry::args() const {
  return {KernelArg::i(m),         KernelArg::i(k),
          KernelArg::i(n),         KernelArg::i(batch.size()),
          KernelArg::array(batch), KernelArg::array(strides[0]),
          KernelArg::array(strides[1])};
}

MatMulGeometry matmulGeometry(Value a, Value b) {
  SmallVector<int64_t> as(shapeOf(a)), bs(shapeOf(b));
  if (as.size() == 1)
    as.insert(as.begin(), 1);
  if (bs.size() == 1)
    bs.push_back(1);
  int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  SmallVector<int64_t> aBatch(ArrayRef<int64_t>(as).drop_back(2));
  SmallVector<int64_t> bBatch(ArrayRef<int64_t>(bs).drop_back(2));
  auto batch = *broadcastShapes(aBatch, bBatch);
  SmallVector<SmallVector<int64_t>> strides = {broadcastStrides(aBatch, batch),
                                               broadcastStrides(bBatch, batch)};
  for (int64_t &s : strides[0])
    s *= m * k;
  for (int64_t &s : strides[1])
    s *= k * n;
  if (!batch.empty())
    collapseBroadcast(batch, strides);
  return MatMulGeometry{m, k, n, batch, strides};
}

FusedActivation activationOf(Operation *op, StringRef prefix) {
  FusedActivation a;
  const std::string name = (prefix + "activation").str();
  if (auto functor = op->getAttrOfType<StringAttr>(name)) {
    a.functor = ("onnxc_rt::ref::" + functor.getValue()).str();
    a.alpha = floatAttr(op, name + "_alpha", 0);
    a.beta = floatAttr(op, name + "_beta", 0);
  }
  return a;
}

/// The reference path of a fused op's activation: y = act(y) in place.
KernelCall activationInPlace(Value y, const FusedActivation &act, const std::string &t) {
  return call("unary", {act.functor, t}, kElementwise,
              {KernelArg::output(y), KernelArg::output(y), KernelArg::i(numel(y)),
               KernelArg::f(act.alpha), KernelArg::f(act.beta)});
}
/// The window arguments of the reference conv.h kernels (any rank).
std::vector<KernelArg> windowArgs(Value x, Value y, const WindowGeometry &g) {
  return {KernelArg::i(g.kernel.size()), KernelArg::array(shapeOf(x)),
          KernelArg::array(shapeOf(y)),  KernelArg::array(g.kernel),
          KernelArg::array(g.strides),   KernelArg::array(g.padsBegin),
          KernelArg::array(g.padsEnd),   KernelArg::array(g.dilations)};
}

/// Shared by Conv and the pools: resolves the window, then windowArgs.
FailureOr<std::vector<KernelArg>> windowArgs(Operation *op, Value x, Value y,
                                             ArrayRef<int64_t> kernel, bool ceil) {
  auto g = resolveWindow(op, shapeOf(x).drop_front(2), kernel, ceil);
  if (failed(g))
    return failure();
  return windowArgs(x, y, *g);
}


SmallVector<int64_t> logicalShape(Value v, int64_t channels) {
  auto s = shapeOf(v);
  if (s.size() == 4)
    return SmallVector<int64_t>(s);
  return {s[0], channels ? channels : s[1] * s[4], s[2], s[3]};
}

std::vector<float> constantFloats(Value v) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(getConstantElements(v));
  if (!dense || !dense.getElementType().isF32())
    return {};
  return std::vector<float>(dense.getValues<float>().begin(), dense.getValues<float>().end());
}

KernelArg packedFloats(MLIRContext *ctx, ArrayRef<float> data) {
  auto type = RankedTensorType::get({(int64_t)data.size()}, Float32Type::get(ctx));
  return KernelArg::constantData(DenseElementsAttr::get(type, data));
}

namespace {
template <typename T> std::vector<T> constantInts(Value v, unsigned width) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(getConstantElements(v));
  if (!dense || !dense.getElementType().isInteger(width))
    return {};
  return std::vector<T>(dense.getValues<T>().begin(), dense.getValues<T>().end());
}

template <typename T> KernelArg packedInts(MLIRContext *ctx, ArrayRef<T> data) {
  auto type = RankedTensorType::get(
      {(int64_t)data.size()},
      IntegerType::get(ctx, sizeof(T) * 8,
                       std::is_unsigned_v<T> ? IntegerType::Unsigned : IntegerType::Signless));
  return KernelArg::constantData(DenseElementsAttr::get(type, data));
}
} // namespace

std::vector<int8_t> constantInt8s(Value v) { return constantInts<int8_t>(v, 8); }
std::vector<int32_t> constantInt32s(Value v) { return constantInts<int32_t>(v, 32); }
KernelArg packedInt8s(MLIRContext *ctx, ArrayRef<int8_t> data) { return packedInts(ctx, data); }
KernelArg packedInt32s(MLIRContext *ctx, ArrayRef<int32_t> data) {
  return packedInts(ctx, data);
}
KernelArg packedUint16s(MLIRContext *ctx, ArrayRef<uint16_t> data) {
  return packedInts(ctx, data);
}
KernelArg packedInt64s(MLIRContext *ctx, ArrayRef<int64_t> data) {
  return data.empty() ? KernelArg::null() : packedInts(ctx, data);
}
KernelArg packedDoubles(MLIRContext *ctx, ArrayRef<double> data) {
  if (data.empty())
    return KernelArg::null();
  auto type = RankedTensorType::get({(int64_t)data.size()}, Float64Type::get(ctx));
  return KernelArg::constantData(DenseElementsAttr::get(type, data));
}

std::pair<KernelArg, KernelArg> qs8Multipliers(MLIRContext *ctx, float xScale,
                                               ArrayRef<float> wScales, float yScale) {
  SmallVector<int32_t> mult, shift;
  for (const Qs8Multiplier &m : channelMultipliers(xScale, wScales, yScale)) {
    mult.push_back(m.multiplier);
    shift.push_back(m.shift);
  }
  return {packedInt32s(ctx, mult), packedInt32s(ctx, shift)};
}

} // namespace onnxc::lowering
