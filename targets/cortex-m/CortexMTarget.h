//===- CortexMTarget.h - the Cortex-M targets' kernel provider -------------===//
#ifndef ONNXC_TARGETS_CORTEXM_CORTEXMTARGET_H
#define ONNXC_TARGETS_CORTEXM_CORTEXMTARGET_H

#include "onnxc/Lowering/Target.h"

namespace onnxc::cortexm {

/// Lowers what runtime-lite's microcontroller kernels (onnxc_rt::mcu)
/// cover: float and int8 convolutions, fully connected layers, max pooling.
class McuKernelProvider final : public KernelProvider {
public:
  llvm::StringRef name() const override;
  ProviderResult lower(mlir::Operation *op, const LoweringContext &ctx) const override;
};

} // namespace onnxc::cortexm

#endif
