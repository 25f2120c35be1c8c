// The layout of the host memory a device session holds for the host steps
// of its schedule (kernels/cuda/host.cuh), shared by the runtime and the
// compiler that lays it out (codegen/LowerToEmitC.cpp): the run's status
// word first, then each host call's slot and the tensors it stages.
#ifndef ONNXC_RT_HOST_STEPS_H
#define ONNXC_RT_HOST_STEPS_H

#include <stdint.h>

namespace onnxc_rt {

/// Bytes at the start that hold the run's status (ONNXC_STATUS_*), which a
/// host step sets and session_run reads after the run.
constexpr int64_t kHostStatusBytes = 64;
/// Bytes that hold one host call's function and arguments.
constexpr int64_t kHostCallBytes = 256;

} // namespace onnxc_rt

#endif
