//===- CudaTarget.cpp - NVIDIA GPUs through CUDA C++ ------------------------===//
//
// The `cuda` target: the model's schedule as CUDA C++ (NAME.cu) on
// runtime-lite's CUDA kernels (kernels/cuda/), run through a session that
// holds the device memory and replays the schedule as a CUDA Graph. Built by
// nvcc ($CUDACXX, else nvcc on PATH, else /usr/local/cuda/bin/nvcc) for
// sm_80 and sm_90, with PTX for sm_90 so newer GPUs JIT it; `onnxc run
// --target cuda` builds a program and runs it on this machine's GPU
// (exit 77 when there is none).
//
//===----------------------------------------------------------------------===//
#include "CudaTarget.h"

#include "onnxc/Lowering/Target.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

namespace onnxc {
namespace {

std::string cudaCompiler() {
  if (const char *env = std::getenv("CUDACXX"); env && *env)
    return env;
  if (llvm::sys::findProgramByName("nvcc"))
    return "nvcc";
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/nvcc"))
    return "/usr/local/cuda/bin/nvcc";
  return "nvcc";
}

Toolchain cudaToolchain() {
  Toolchain t{cudaCompiler(), "ar", {"-O3"},
              {"-gencode=arch=compute_80,code=sm_80",
               "-gencode=arch=compute_90,code=[sm_90,compute_90]"}};
  // The host compiler gets the flags every target shares; the device code
  // is C++17 too.
  t.sharedFlags = {"-std=c++17", "-Xcompiler=-fno-exceptions,-fno-rtti,-Wall,-Wextra"};
  t.assembler = "c++"; // nvcc does not assemble the weights .S
  t.sourceLanguage = "CUDA";
  return t;
}

class CudaTarget final : public Target {
public:
  CudaTarget()
      : Target("cuda", "NVIDIA GPUs (sm_80, sm_90): CUDA C++, one device arena, a CUDA Graph",
               cudaToolchain()) {
    addProvider(cuda::createCudaKernelProvider());
    precisions = {"fp32", "tf32"}; // tf32: the matrix products on tensor cores
    // A program on this machine's GPU; the toolkit's Debian package.
    emulated = EmulatedRunner{"", {}, "nvidia-cuda-toolkit (Debian non-free)", {}, {}};
  }
  const ModelEmitter *emitter() const override { return &cuda::cudaModelEmitter(); }
};

} // namespace

void registerCudaTarget() { TargetRegistry::add(std::make_unique<CudaTarget>()); }

} // namespace onnxc
