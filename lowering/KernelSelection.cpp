//===- KernelSelection.cpp - asking the providers, reading the record -------===//
#include "onnxc/Lowering/CallBuilders.h"
#include "onnxc/Lowering/Target.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace onnxc::onnx;
using namespace onnxc::lowering;

namespace onnxc {

ElementKind elementKindOf(mlir::Type type) {
  if (type.isF32())
    return ElementKind::Float32;
  if (type.isSignlessInteger(8) || type.isSignedInteger(8))
    return ElementKind::Int8;
  if (type.isUnsignedInteger(8))
    return ElementKind::UInt8;
  return ElementKind::Other;
}

FailureOr<OpLowering> selectLowering(Operation *op, ArrayRef<const KernelProvider *> providers,
                                     const LoweringContext &context) {
  if (isa<ConstantOp, NoValueOp>(op))
    return OpLowering{};
  SmallVector<Value> all(op->getOperands());
  all.append(op->getResults().begin(), op->getResults().end());
  for (Value v : all) {
    if (isa<NoneType>(v.getType()))
      continue;
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape())
      return op->emitError() << "shape " << v.getType()
                             << " depends on values known only at run time: dynamic "
                                "shapes are not supported";
    if (cppTypeName(t.getElementType()).empty())
      return op->emitError() << "element type " << t.getElementType()
                             << " is not supported yet";
    // Strings go through the string kernels and the ones that only move
    // elements (their kernels copy T, which onnxc_string allows).
    if (isa<StringType>(t.getElementType()) &&
        !isa<CastOp, StringNormalizerOp, ConcatOp, GatherOp, GatherElementsOp, GatherNDOp,
             SliceOp, SplitOp, TransposeOp, TileOp, ExpandOp>(op) &&
        !isAliasOp(op))
      return op->emitError() << op->getName().stripDialect()
                             << " on strings is not supported";
  }
  if (isAliasOp(op)) {
    if (auto d = dyn_cast<DropoutOp>(op)) {
      if (!isNone(d.getTrainingMode())) {
        auto tm = getConstantInts(d.getTrainingMode());
        auto te = getConstantElements(d.getTrainingMode());
        bool training = te && te.getElementType().isInteger(1)
                            ? *te.getValues<bool>().begin()
                            : (tm && !tm->empty() && (*tm)[0] != 0);
        // Training mode with a ratio of 0 drops nothing (torchvision's
        // attention functions pass training=True with p=0 at inference).
        auto ratio = getConstantElements(d.getRatio());
        bool dropsNothing = ratio && ratio.getNumElements() == 1 &&
                            isa<FloatType>(ratio.getElementType()) &&
                            (*ratio.getValues<APFloat>().begin()).isZero();
        if (!te || (training && !dropsNothing))
          return unsupported(op, "training mode with a non-zero ratio is not supported");
      }
    }
    OpLowering l;
    l.kind = OpLowering::Kind::Alias;
    // Dropout's mask at inference is all true.
    if (auto d = dyn_cast<DropoutOp>(op); d && !isNone(d.getMask()))
      l.calls.push_back(call("fill", {"bool"}, kElementwise,
                             {KernelArg::output(d.getMask()), KernelArg::i(numel(d.getMask())),
                              KernelArg::i(1)}));
    for (const KernelProvider *p : providers)
      for (KernelCall &c : l.calls)
        if (std::string why = p->adoptCall(c); !why.empty())
          return unsupported(op, why);
    return l;
  }
  if (op->getNumOperands() == 0)
    return unsupported(op, "has no operands");
  LoweringContext ctx = context;
  ctx.element = elementKindOf(eltOf(op->getOperand(0)));
  ctx.elementType = cppTypeName(eltOf(op->getOperand(0)));
  for (const KernelProvider *p : providers)
    if (ProviderResult r = p->lower(op, ctx))
      return *r;
  if (ProviderResult r = referenceProvider().lower(op, ctx))
    return *r;
  // Shape and Size always fold to constants once shapes are static.
  return unsupported(op, "internal error: no kernel (the op should have been folded)");
}

FailureOr<OpLowering> lowerWithReference(Operation *op) {
  return selectLowering(op, {}, LoweringContext{});
}

FailureOr<OpLowering> lowerToKernelCalls(Operation *op) {
  if (Attribute record = op->getAttr(kKernelRecordAttr))
    return decodeLowering(op, record);
  const Target *target = targetOf(op);
  return selectLowering(op, target ? target->kernelProviders() : ArrayRef<const KernelProvider *>(),
                        loweringContextOf(op));
}

} // namespace onnxc
