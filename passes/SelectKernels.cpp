//===- SelectKernels.cpp - onnxc-select-kernels -----------------------------===//
//
// Runs the target's kernel providers once per op and records the chosen
// calls on it (see Passes.td and onnxc/Lowering/KernelProvider.h).
//
//===----------------------------------------------------------------------===//
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Lowering/Target.h"
#include "onnxc/Passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace onnxc {
#define GEN_PASS_DEF_SELECTKERNELSPASS
#include "onnxc/Passes/Passes.h.inc"

namespace {

/// A target without double-precision floating point in hardware refuses
/// float64 arithmetic (software emulation: tens of instructions per
/// operation), naming the node; constants folded at compile time are fine.
LogicalResult checkNoDouble(Operation *op, const Target &target) {
  auto isDouble = [](Value v) {
    auto t = dyn_cast<ShapedType>(v.getType());
    return t && t.getElementType().isF64();
  };
  if (llvm::none_of(op->getOperands(), isDouble) && llvm::none_of(op->getResults(), isDouble))
    return success();
  return op->emitError() << op->getName().stripDialect() << " computes in float64, which is "
                         << "not supported on " << target.name()
                         << " (no double-precision FPU); cast the model to float32 or choose "
                            "a target with one";
}

struct SelectKernels : impl::SelectKernelsPassBase<SelectKernels> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    onnx::TargetAttr attr = targetAttrOf(func);
    const Target *target = targetOf(func);
    if (attr && !target) {
      func->emitError() << "unknown target '" << attr.getName() << "'";
      return signalPassFailure();
    }
    ArrayRef<const KernelProvider *> providers =
        target ? target->kernelProviders() : ArrayRef<const KernelProvider *>();
    const LoweringContext ctx = loweringContextOf(func);
    bool ok = true;
    func.walk([&](Operation *op) {
      // Every op of the graph: the onnx dialect's and a target's own (the
      // simd and cortexm dialects), not the function's structure.
      if (isa<func::FuncDialect>(op->getDialect()) || isa<onnx::ConstantOp, onnx::NoValueOp>(op))
        return;
      if (target && !target->doubleFloat && failed(checkNoDouble(op, *target))) {
        ok = false;
        return;
      }
      FailureOr<OpLowering> lowering = selectLowering(op, providers, ctx);
      if (failed(lowering)) {
        ok = false; // the lowering named the node; report every op at once
        return;
      }
      op->setAttr(kKernelRecordAttr, encodeLowering(op, *lowering));
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
} // namespace onnxc
