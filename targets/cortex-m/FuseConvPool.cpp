//===- FuseConvPool.cpp - onnxc-mcu-fuse-conv-pool -------------------------===//
//
// The Cortex-M targets' own graph pass: a QConv whose only user is a 2-D
// MaxPool with non-overlapping windows (stride = window, no padding or
// dilation, no Indices) becomes one cortexm.QConvMaxPool (CortexMOps.td).
// Max pooling
// commutes with the requantization (it is monotonic in the accumulator), so
// the microcontroller kernel takes the window's maximum of the int32
// accumulators and requantizes a quarter of the values a 2 x 2 pool would
// otherwise see, and the unpooled tensor never takes arena space. Where
// the kernel does not run it, the reference kernel's conv_max_pool does (the
// convolution, then the pool, as the two ops did).
//
//===----------------------------------------------------------------------===//
#include "CortexMTarget.h"

#include "CortexMDialect.h"

#include "onnxc/Dialect/ONNX/ONNXDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace onnxc::onnx;

namespace onnxc::cortexm {
namespace {

/// The window of `pool` when it reads whole non-overlapping windows of a
/// 2-D input, as QConvMaxPool's max_pool takes them; none otherwise.
std::optional<SmallVector<int64_t, 2>> nonOverlappingWindow(MaxPoolOp pool) {
  auto x = dyn_cast<RankedTensorType>(pool.getX().getType());
  auto y = dyn_cast<RankedTensorType>(pool.getY().getType());
  if (!x || !y || !x.hasStaticShape() || !y.hasStaticShape() || x.getRank() != 4 ||
      !isNone(pool.getIndices()) || pool.getKernelShape().size() != 2)
    return std::nullopt;
  auto g = resolveWindow(pool, x.getShape().drop_front(2), pool.getKernelShape(),
                         pool.getCeilMode());
  if (failed(g))
    return std::nullopt;
  for (int d = 0; d < 2; ++d)
    if (g->strides[d] != g->kernel[d] || g->dilations[d] != 1 || g->padsBegin[d] != 0 ||
        g->padsEnd[d] != 0 || y.getDimSize(2 + d) != x.getDimSize(2 + d) / g->kernel[d])
      return std::nullopt;
  return SmallVector<int64_t, 2>{g->kernel[0], g->kernel[1]};
}

struct FuseConvPoolPass : PassWrapper<FuseConvPoolPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FuseConvPoolPass)
  StringRef getArgument() const override { return "onnxc-mcu-fuse-conv-pool"; }
  StringRef getDescription() const override {
    return "Fold a MaxPool of whole windows into the QConv before it (Cortex-M)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<CortexMDialect>();
  }
  void runOnOperation() override {
    SmallVector<MaxPoolOp> pools;
    getOperation().walk([&](MaxPoolOp p) { pools.push_back(p); });
    for (MaxPoolOp pool : pools) {
      auto conv = pool.getX().getDefiningOp<QConvOp>();
      if (!conv || !conv->hasOneUse())
        continue;
      auto window = nonOverlappingWindow(pool);
      if (!window)
        continue;
      OpBuilder b(pool);
      auto fused = b.create<QConvMaxPoolOp>(b.getFusedLoc({conv.getLoc(), pool.getLoc()}),
                                            TypeRange{pool.getY().getType()},
                                            conv->getOperands(), conv->getAttrs());
      fused.setMaxPoolAttr(b.getDenseI64ArrayAttr(*window));
      pool.getY().replaceAllUsesWith(fused.getY());
      pool.erase();
      conv.erase();
    }
  }
};

} // namespace

std::unique_ptr<Pass> createFuseConvPoolPass() { return std::make_unique<FuseConvPoolPass>(); }

void registerFuseConvPoolPass() { PassRegistration<FuseConvPoolPass>(); }

} // namespace onnxc::cortexm
