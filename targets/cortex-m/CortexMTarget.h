//===- CortexMTarget.h - the Cortex-M targets' kernel provider -------------===//
#ifndef ONNXC_TARGETS_CORTEXM_CORTEXMTARGET_H
#define ONNXC_TARGETS_CORTEXM_CORTEXMTARGET_H

#include "onnxc/Lowering/Target.h"

#include <memory>

namespace mlir {
class Pass;
}

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

/// onnxc-mcu-fuse-conv-pool (FuseConvPool.cpp): QConv + MaxPool of whole
/// windows -> cortexm.QConvMaxPool.
std::unique_ptr<mlir::Pass> createFuseConvPoolPass();
/// Makes it known to onnxc-opt (lit tests).
void registerFuseConvPoolPass();

} // namespace onnxc::cortexm

#endif
