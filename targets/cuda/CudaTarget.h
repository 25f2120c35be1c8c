//===- CudaTarget.h - the CUDA target's pieces ------------------------------===//
#ifndef ONNXC_TARGETS_CUDA_CUDATARGET_H
#define ONNXC_TARGETS_CUDA_CUDATARGET_H

#include "onnxc/Codegen/ModelEmitter.h"
#include "onnxc/Lowering/KernelProvider.h"

#include <memory>

namespace onnxc::cuda {

/// Lowers every op onto runtime-lite's CUDA kernels, or names why it cannot.
std::unique_ptr<KernelProvider> createCudaKernelProvider();

/// Whether `op` runs on the host inside the GPU schedule: an op on strings,
/// which are host data (a string points at host memory). Its reference
/// calls become host steps (kernels/cuda/host.cuh); every other op runs on
/// the GPU or is refused.
bool runsOnHost(mlir::Operation *op);

/// Writes NAME.cu (the schedule and the session entry points), NAME.h (the
/// C API: create, run, enqueue, destroy) and the weights.
const ModelEmitter &cudaModelEmitter();

} // namespace onnxc::cuda

#endif
