//===- ConvPool.cpp - convolutions and pools ===//
//
// Windowed ops through conv.h; the channel-blocked layout conversions
// through tensor.h. The blocked convolution and pools have no reference
// kernel: only a target that selects the blocked layout lowers them.
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

FailureOr<OpLowering> lowerConv(Operation *op, Value x, Value w, Value b, Value z, Value y,
                                int64_t group, const std::string &t) {
  auto ws = shapeOf(w);
  SmallVector<int64_t> kernel(ws.drop_front(2));
  const FusedActivation act = activationOf(op);
  auto g = resolveWindow(op, shapeOf(x).drop_front(2), kernel, false);
  if (failed(g))
    return failure();
  std::vector<KernelArg> args{KernelArg::input(x), KernelArg::input(w), inputOrNull(b),
                              KernelArg::output(y)};
  for (KernelArg &a : windowArgs(x, y, *g))
    args.push_back(std::move(a));
  args.push_back(KernelArg::i(group));
  std::vector<KernelCall> cs{call("conv", {t}, kConv, std::move(args))};
  if (!isNone(z))
    cs.push_back(call("binary", {"onnxc_rt::ref::Add", t, t, t}, kElementwise,
                      {KernelArg::output(y), KernelArg::input(z), KernelArg::output(y),
                       KernelArg::i(1), KernelArg::array({numel(y)}), KernelArg::array({1}),
                       KernelArg::array({1})}));
  if (!act.isIdentity())
    cs.push_back(activationInPlace(y, act, t));
  return calls(std::move(cs));
}

FailureOr<OpLowering> lowerMaxPool(MaxPoolOp op, const std::string &t) {
  Value x = op.getX(), y = op.getY();
  auto g = resolveWindow(op, shapeOf(x).drop_front(2), op.getKernelShape(), op.getCeilMode());
  if (failed(g))
    return failure();
  std::vector<KernelArg> args{KernelArg::input(x), KernelArg::output(y),
                              outputOrNull(op.getIndices())};
  for (KernelArg &a : windowArgs(x, y, *g))
    args.push_back(std::move(a));
  args.push_back(KernelArg::i(op.getStorageOrder()));
  return calls({call("max_pool", {t}, kConv, std::move(args))});
}

FailureOr<OpLowering> lowerAvgPool(AveragePoolOp op, std::string t) {
  auto win = windowArgs(op, op.getX(), op.getY(), op.getKernelShape(), op.getCeilMode());
  if (failed(win))
    return failure();
  std::vector<KernelArg> args{KernelArg::input(op.getX()), KernelArg::output(op.getY())};
  args.insert(args.end(), win->begin(), win->end());
  args.push_back(KernelArg::i(op.getCountIncludePad()));
  return calls({call("avg_pool", {t}, kConv, std::move(args))});
}

FailureOr<OpLowering> lowerGlobalPool(Operation *op, const std::string &t, bool isMax) {
  auto xs = shapeOf(op->getOperand(0));
  return calls({call("global_pool", {t}, kConv,
                     {KernelArg::input(op->getOperand(0)),
                      KernelArg::output(op->getResult(0)),
                      KernelArg::i(xs[0] * xs[1]), KernelArg::i(prod(xs.drop_front(2))),
                      KernelArg::i(isMax)})});
}

FailureOr<OpLowering> lowerConvTranspose(ConvTransposeOp op, std::string t) {
  auto g = resolveConvTranspose(op);
  if (failed(g))
    return failure();
  return calls({call("conv_transpose", {t}, kConv,
                     {KernelArg::input(op.getX()), KernelArg::input(op.getW()),
                      inputOrNull(op.getB()), KernelArg::output(op.getY()),
                      KernelArg::i(g->kernel.size()), KernelArg::array(shapeOf(op.getX())),
                      KernelArg::array(shapeOf(op.getY())), KernelArg::array(g->kernel),
                      KernelArg::array(g->strides), KernelArg::array(g->padsBegin),
                      KernelArg::array(g->padsEnd), KernelArg::array(g->dilations),
                      KernelArg::i(op.getGroup())})});
}

} // namespace

ProviderResult lowerConvPool(Operation *op, const std::string &t) {
  return TypeSwitch<Operation *, ProviderResult>(op)
      .Case<ConvOp>([&](ConvOp o) -> FailureOr<OpLowering> {
        if (failed(requireFloat(o)))
          return failure();
        return lowerConv(o, o.getX(), o.getW(), o.getB(), Value(), o.getY(), o.getGroup(), t);
      })
      .Case<FusedConvOp>([&](FusedConvOp o) -> FailureOr<OpLowering> {
        if (failed(requireFloat(o)))
          return failure();
        return lowerConv(o, o.getX(), o.getW(), o.getB(), o.getZ(), o.getY(), o.getGroup(), t);
      })
      .Case<MaxPoolOp>([&](MaxPoolOp o) { return lowerMaxPool(o, t); })
      .Case<AveragePoolOp>([&](AveragePoolOp o) { return lowerAvgPool(o, t); })
      .Case<GlobalAveragePoolOp>([&](Operation *o) { return lowerGlobalPool(o, t, false); })
      .Case<GlobalMaxPoolOp>([&](Operation *o) { return lowerGlobalPool(o, t, true); })
      .Case<MaxUnpoolOp>([&](MaxUnpoolOp o) {
        auto xs = shapeOf(o.getX());
        size_t n = xs.size() - 2;
        ArrayRef<int64_t> k = o.getKernelShape();
        SmallVector<int64_t> pads(2 * n, 0), strides(n, 1);
        if (auto p = o.getPads())
          pads.assign(p->begin(), p->end());
        if (auto s = o.getStrides())
          strides.assign(s->begin(), s->end());
        SmallVector<int64_t> pool{xs[0], xs[1]};
        for (size_t i = 0; i < n; ++i)
          pool.push_back((xs[i + 2] - 1) * strides[i] + k[i] - pads[i] - pads[i + n]);
        return calls({call("max_unpool", {t, cppTypeName(eltOf(o.getI()))}, kConv,
                           {KernelArg::input(o.getX()), KernelArg::input(o.getI()),
                            KernelArg::output(o.getOutput()), KernelArg::i(xs.size()),
                            KernelArg::array(pool), KernelArg::array(shapeOf(o.getOutput())),
                            KernelArg::i(numel(o.getX()))})});
      })
      .Case<ConvTransposeOp>([&](ConvTransposeOp o) -> FailureOr<OpLowering> {
        if (failed(requireFloat(o)))
          return failure();
        return lowerConvTranspose(o, t);
      })
      .Default([](Operation *) -> ProviderResult { return std::nullopt; });
}

} // namespace onnxc::reference
