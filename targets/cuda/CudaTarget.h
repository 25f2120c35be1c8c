//===- CudaTarget.h - the CUDA target's pieces ------------------------------===//
#ifndef ONNXC_TARGETS_CUDA_CUDATARGET_H
#define ONNXC_TARGETS_CUDA_CUDATARGET_H

#include "onnxc/Codegen/ModelEmitter.h"
#include "onnxc/Lowering/KernelProvider.h"

#include <memory>

namespace onnxc::cuda {

/// Lowers every op onto runtime-lite's CUDA kernels, or names why it cannot.
std::unique_ptr<KernelProvider> createCudaKernelProvider();

/// Writes NAME.cu (the schedule and the session entry points), NAME.h (the
/// C API: create, run, enqueue, destroy) and the weights.
const ModelEmitter &cudaModelEmitter();

} // namespace onnxc::cuda

#endif
