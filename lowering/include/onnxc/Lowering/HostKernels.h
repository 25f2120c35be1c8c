//===- HostKernels.h - runtime-lite kernels the compiler runs -------------===//
//
// The constant folder evaluates an op by running its kernel calls here, on
// the same runtime-lite code the generated C++ calls (HostKernels.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_LOWERING_HOSTKERNELS_H
#define ONNXC_LOWERING_HOSTKERNELS_H

#include "onnxc/Lowering/KernelCall.h"

namespace onnxc {

/// Runs `calls` on the host through the same runtime-lite kernels, the
/// compiler's constant folder's way of evaluating an op. `tensors` maps each
/// Tensor argument (in order of appearance) to its buffer. Returns false if
/// some kernel was not compiled into the host registry.
bool runKernelCallsOnHost(llvm::ArrayRef<KernelCall> calls, llvm::ArrayRef<void *> tensors);
/// Whether the host registry holds the kernel `call` names.
bool hostKernelAvailable(const KernelCall &call);

} // namespace onnxc

#endif
