//===- Norm.cpp - normalizations, softmax, reductions, losses ===//
//
// Normalizations, softmax and the losses through norm.h; reductions through
// reduce.h.
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

FailureOr<OpLowering> lowerBatchNorm(BatchNormalizationOp op, std::string t) {
  auto xs = shapeOf(op.getX());
  if (op.getTrainingMode())
    return calls({call("batch_norm_training", {t}, kNorm,
                       {KernelArg::input(op.getX()), KernelArg::input(op.getScale()),
                        KernelArg::input(op.getB()), KernelArg::input(op.getInputMean()),
                        KernelArg::input(op.getInputVar()), KernelArg::output(op.getY()),
                        outputOrNull(op.getRunningMean()), outputOrNull(op.getRunningVar()),
                        KernelArg::i(xs[0]), KernelArg::i(xs[1]),
                        KernelArg::i(prod(xs.drop_front(2))),
                        KernelArg::f(op.getEpsilon().convertToFloat()),
                        KernelArg::f(op.getMomentum().convertToFloat())})});
  return calls({call("batch_norm", {t}, kNorm,
                     {KernelArg::input(op.getX()), KernelArg::input(op.getScale()),
                      KernelArg::input(op.getB()), KernelArg::input(op.getInputMean()),
                      KernelArg::input(op.getInputVar()), KernelArg::output(op.getY()),
                      KernelArg::i(xs[0]), KernelArg::i(xs[1]),
                      KernelArg::i(prod(xs.drop_front(2))),
                      KernelArg::f(op.getEpsilon().convertToFloat())})});
}

FailureOr<OpLowering> lowerLayerNorm(LayerNormalizationOp op, const std::string &t) {
  auto xs = shapeOf(op.getX());
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += xs.size();
  int64_t outer = prod(xs.take_front(axis)), inner = prod(xs.drop_front(axis));
  if (numel(op.getScale()) != inner ||
      (!isNone(op.getB()) && numel(op.getB()) != inner))
    return unsupported(op, "Scale and B that broadcast over the normalized dims are not supported");
  std::vector<KernelArg> args{KernelArg::input(op.getX()), KernelArg::input(op.getScale()),
                              inputOrNull(op.getB()), KernelArg::output(op.getY()),
                              outputOrNull(op.getMean()), outputOrNull(op.getInvStdDev()),
                              KernelArg::i(outer), KernelArg::i(inner),
                              KernelArg::f(op.getEpsilon().convertToFloat())};
  return calls({call("layer_norm", {t}, kNorm, std::move(args))});
}

FailureOr<OpLowering> lowerSoftmax(Operation *op, const std::string &t, int64_t mode) {
  auto xs = shapeOf(op->getOperand(0));
  auto axis = normalizeAxis(op, op->getAttrOfType<IntegerAttr>("axis")
                                    ? op->getAttrOfType<IntegerAttr>("axis").getInt()
                                    : -1,
                            xs.size(), "axis");
  if (failed(axis))
    return failure();
  return calls({call("softmax", {t}, kNorm,
                     {KernelArg::input(op->getOperand(0)),
                      KernelArg::output(op->getResult(0)),
                      KernelArg::i(prod(xs.take_front(*axis))), KernelArg::i(xs[*axis]),
                      KernelArg::i(prod(xs.drop_front(*axis + 1))), KernelArg::i(mode)})});
}

FailureOr<OpLowering> lowerReduce(Operation *op, std::string t) {
  auto xs = shapeOf(op->getOperand(0));
  auto axes = resolveReduceAxes(op, xs.size());
  if (failed(axes))
    return failure();
  if (axes->empty()) // noop_with_empty_axes
    return calls({call("unary", {"onnxc_rt::ref::Identity", t}, kElementwise,
                       {KernelArg::input(op->getOperand(0)),
                        KernelArg::output(op->getResult(0)),
                        KernelArg::i(numel(op->getResult(0))), KernelArg::f(0),
                        KernelArg::f(0)})});
  SmallVector<int64_t> mask(xs.size(), 0);
  for (int64_t a : *axes)
    mask[a] = 1;
  std::string reducer = ("onnxc_rt::ref::" + op->getName().stripDialect()).str();
  return calls({call("reduce", {reducer, t}, kReduce,
                     {KernelArg::input(op->getOperand(0)),
                      KernelArg::output(op->getResult(0)), KernelArg::i(xs.size()),
                      KernelArg::array(xs), KernelArg::array(mask)})});
}

FailureOr<OpLowering> lowerArgReduce(Operation *op, std::string t, bool isMax) {
  auto xs = shapeOf(op->getOperand(0));
  auto axis = normalizeAxis(op, op->getAttrOfType<IntegerAttr>("axis").getInt(),
                            xs.size(), "axis");
  if (failed(axis))
    return failure();
  auto last = op->getAttrOfType<IntegerAttr>("select_last_index");
  return calls({call("arg_reduce", {t}, kReduce,
                     {KernelArg::input(op->getOperand(0)),
                      KernelArg::output(op->getResult(0)),
                      KernelArg::i(prod(xs.take_front(*axis))), KernelArg::i(xs[*axis]),
                      KernelArg::i(prod(xs.drop_front(*axis + 1))), KernelArg::i(isMax),
                      KernelArg::i(last ? last.getInt() : 0)})});
}

KernelCall nllCall(Operation *op, Value input, KernelArg inputArg, Value target, Value weight,
                   Value result, std::string t) {
  auto is = shapeOf(input);
  auto red = op->getAttrOfType<StringAttr>("reduction");
  StringRef r = red ? red.getValue() : "mean";
  auto ignore = op->getAttrOfType<IntegerAttr>("ignore_index");
  return call("nll_loss", {t, cppTypeName(eltOf(target))}, kNorm,
              {inputArg, KernelArg::input(target), inputOrNull(weight),
               KernelArg::output(result), KernelArg::i(is[0]), KernelArg::i(is[1]),
               KernelArg::i(prod(is.drop_front(2))),
               KernelArg::i(r == "none" ? 0 : r == "sum" ? 1 : 2),
               KernelArg::i(ignore ? ignore.getInt() : 0), KernelArg::i(ignore ? 1 : 0)});
}

FailureOr<OpLowering> lowerSoftmaxCrossEntropy(SoftmaxCrossEntropyLossOp op, std::string t) {
  auto ss = shapeOf(op.getScores());
  Value logProb = op.getLogProb();
  int64_t bytes = numel(op.getScores()) * (t == "double" ? 8 : 4);
  KernelArg out = isNone(logProb) ? KernelArg::scratch(bytes, t) : KernelArg::output(logProb);
  KernelArg in = isNone(logProb) ? KernelArg::scratch(bytes, t) : KernelArg::input(logProb);
  KernelCall lsm = call("softmax", {t}, kNorm,
                        {KernelArg::input(op.getScores()), out, KernelArg::i(ss[0]),
                         KernelArg::i(ss[1]), KernelArg::i(prod(ss.drop_front(2))),
                         KernelArg::i(1)});
  return calls({lsm, nllCall(op, op.getScores(), in, op.getLabels(), op.getWeights(),
                             op.getOutput(), t)});
}

} // namespace

ProviderResult lowerNorm(Operation *op, const std::string &t) {
  return TypeSwitch<Operation *, ProviderResult>(op)
      .Case<GroupNormalizationOp>([&](GroupNormalizationOp o) -> FailureOr<OpLowering> {
        auto xs = shapeOf(o.getX());
        int64_t groups = o.getNumGroups();
        if (groups < 1 || xs[1] % groups)
          return o.emitError() << "num_groups " << groups << " does not divide " << xs[1]
                               << " channels";
        if (numel(o.getScale()) != xs[1])
          return unsupported(o, "per-group scale and bias (opset 18) are not supported; "
                                "opset 21 takes one per channel");
        return calls({call("group_norm", {t}, kNorm,
                           {KernelArg::input(o.getX()), KernelArg::input(o.getScale()),
                            KernelArg::input(o.getBias()), KernelArg::output(o.getY()),
                            KernelArg::i(xs[0]), KernelArg::i(xs[1]),
                            KernelArg::i(prod(xs.drop_front(2))), KernelArg::i(groups),
                            KernelArg::f(o.getEpsilon().convertToFloat())})});
      })
      .Case<BatchNormalizationOp>([&](BatchNormalizationOp o) { return lowerBatchNorm(o, t); })
      .Case<LayerNormalizationOp>(
          [&](LayerNormalizationOp o) { return lowerLayerNorm(o, t); })
      .Case<SoftmaxOp>([&](Operation *o) { return lowerSoftmax(o, t, 0); })
      .Case<LogSoftmaxOp>([&](Operation *o) { return lowerSoftmax(o, t, 1); })
      .Case<HardmaxOp>([&](Operation *o) { return lowerSoftmax(o, t, 2); })
      .Case<ReduceMeanOp, ReduceSumOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp,
            ReduceSumSquareOp, ReduceL1Op, ReduceL2Op, ReduceLogSumOp,
            ReduceLogSumExpOp>([&](Operation *o) { return lowerReduce(o, t); })
      .Case<ArgMaxOp>([&](Operation *o) { return lowerArgReduce(o, t, true); })
      .Case<ArgMinOp>([&](Operation *o) { return lowerArgReduce(o, t, false); })
      .Case<InstanceNormalizationOp>([&](InstanceNormalizationOp o) {
        auto xs = shapeOf(o.getInput());
        return calls({call("instance_norm", {t}, kNorm,
                           {KernelArg::input(o.getInput()), KernelArg::input(o.getScale()),
                            KernelArg::input(o.getB()), KernelArg::output(o.getOutput()),
                            KernelArg::i(xs[0]), KernelArg::i(xs[1]),
                            KernelArg::i(prod(xs.drop_front(2))),
                            KernelArg::f(o.getEpsilon().convertToFloat())})});
      })
      .Case<LRNOp>([&](LRNOp o) {
        auto xs = shapeOf(o.getX());
        return calls({call("lrn", {t}, kNorm,
                           {KernelArg::input(o.getX()), KernelArg::output(o.getY()),
                            KernelArg::i(xs[0]), KernelArg::i(xs[1]),
                            KernelArg::i(prod(xs.drop_front(2))),
                            KernelArg::f(o.getAlpha().convertToFloat()),
                            KernelArg::f(o.getBeta().convertToFloat()),
                            KernelArg::f(o.getBias().convertToFloat()), KernelArg::i(o.getSize())})});
      })
      .Case<NegativeLogLikelihoodLossOp>([&](NegativeLogLikelihoodLossOp o) {
        return calls({nllCall(o, o.getInput(), KernelArg::input(o.getInput()), o.getTarget(),
                              o.getWeight(), o.getLoss(), t)});
      })
      .Case<SoftmaxCrossEntropyLossOp>(
          [&](SoftmaxCrossEntropyLossOp o) { return lowerSoftmaxCrossEntropy(o, t); })
      .Default([](Operation *) -> ProviderResult { return std::nullopt; });
}

} // namespace onnxc::reference
