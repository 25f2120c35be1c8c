//===- DeadCodeElimination.cpp - onnxc-dce ---------------------------------===//
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Passes/PassUtils.h"
#include "onnxc/Passes/Passes.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace onnxc {
#define GEN_PASS_DEF_DEADCODEELIMINATIONPASS
#include "onnxc/Passes/Passes.h.inc"

void eraseDeadOps(Block &body) {
  // Reverse order: users go before their producers, so chains die at once.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (isa<onnx::ONNXDialect>(op.getDialect()) && op.use_empty())
      op.erase();
}

namespace {
struct DeadCodeElimination
    : impl::DeadCodeEliminationPassBase<DeadCodeElimination> {
  void runOnOperation() override { eraseDeadOps(getOperation().getBody().front()); }
};
} // namespace
} // namespace onnxc
