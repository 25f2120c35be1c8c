//===- CortexMTarget.h - the Cortex-M targets' kernel provider -------------===//
#ifndef ONNXC_TARGETS_CORTEXM_CORTEXMTARGET_H
#define ONNXC_TARGETS_CORTEXM_CORTEXMTARGET_H

#include "onnxc/Lowering/Target.h"

#include <memory>

namespace mlir {
class Operation;
class Pass;
} // namespace mlir

namespace onnxc::cortexm {

/// Lowers what runtime-lite's microcontroller kernels (onnxc_rt::mcu)
/// cover: float and int8 convolutions, fully connected layers, max pooling.
class CortexMKernelProvider final : public KernelProvider {
public:
  /// `helium`: the core has MVE (the M55): int8 convolutions multiply with
  /// VMLADAVA (qs8::Vmladava) instead of SMLAD. `mla`: an ARMv7-M core
  /// without the DSP extension (the M3): int8 convolutions with int8
  /// weights and inputs multiply by MLA on byte columns (qs8::Mla).
  /// `armv6m`: the M0, M0+: fully connected weights stored plus 128
  /// (qs8::FcBytes::Biased).
  explicit CortexMKernelProvider(bool helium = false, bool mla = false, bool armv6m = false)
      : helium_(helium), mla_(mla), armv6m_(armv6m) {}
  llvm::StringRef name() const override;
  ProviderResult lower(mlir::Operation *op, const LoweringContext &ctx) const override;

private:
  bool helium_, mla_, armv6m_;
};

/// Whether the dense conv2d kernel runs `op` (a QConv or QConvMaxPool):
/// what onnxc-mcu-nhwc-regions may put in NHWC (CortexMKernelProvider.cpp).
bool runsDenseConvKernel(mlir::Operation *op);

/// What onnxc-mcu-nhwc-regions weighs, in instructions of the core: the
/// saving per window value gathered from NHWC pixels instead of NCHW
/// planes, and the cost per element of a transpose at a region's edge
/// (the defaults: the DSP cores' on ResNet-8, bench/results/cmsis-nn.md).
struct NhwcCosts {
  double gatherSaving = 3.6;
  double transposeCost = 3.5;
};

/// onnxc-mcu-nhwc-regions (NhwcRegions.cpp): the quantized convolution
/// regions where NHWC's gathers save more than the edges' transposes cost
/// -> cortexm.QConvNhwc and NHWC element-wise ops, onnx.Transpose at the
/// edges.
std::unique_ptr<mlir::Pass> createNhwcRegionsPass(NhwcCosts costs);
/// Makes it known to onnxc-opt (lit tests), with the default costs.
void registerNhwcRegionsPass();

/// onnxc-mcu-fuse-conv-pool (FuseConvPool.cpp): QConv + MaxPool of whole
/// windows -> cortexm.QConvMaxPool.
std::unique_ptr<mlir::Pass> createFuseConvPoolPass();
/// Makes it known to onnxc-opt (lit tests).
void registerFuseConvPoolPass();

} // namespace onnxc::cortexm

#endif
