//===- CudaTarget.cpp - NVIDIA GPUs through CUDA C++ ------------------------===//
//
// The `cuda` target: the model's schedule as CUDA C++ (NAME.cu) on
// runtime-lite's CUDA kernels (kernels/cuda/), run through a session that
// holds the device memory and replays the schedule as a CUDA Graph. Built by
// nvcc ($CUDACXX, else nvcc on PATH, else /usr/local/cuda/bin/nvcc) for
// sm_80 and sm_90 (--cuda-arch chooses others), with PTX for the newest so
// newer GPUs JIT it; `onnxc run
// --target cuda` builds a program and runs it on this machine's GPU
// (exit 77 when there is none).
//
//===----------------------------------------------------------------------===//
#include "CudaTarget.h"

#include "onnxc/Lowering/Target.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"

#include <algorithm>
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

/// The default architectures: Ampere and Hopper.
const std::vector<std::string> kDefaultArchitectures = {"sm_80", "sm_90"};

/// nvcc's -gencode flags for `archs` (sorted, validated): machine code for
/// each, and PTX for the newest so later GPUs can JIT it.
std::vector<std::string> gencodeFlags(const std::vector<std::string> &archs) {
  std::vector<std::string> flags;
  for (size_t i = 0; i < archs.size(); ++i) {
    const std::string compute = "compute_" + archs[i].substr(3);
    flags.push_back("-gencode=arch=" + compute + ",code=" +
                    (i + 1 == archs.size() ? "[" + archs[i] + "," + compute + "]" : archs[i]));
  }
  return flags;
}

Toolchain cudaToolchain(const std::vector<std::string> &archs) {
  Toolchain t{cudaCompiler(), "ar", {"-O3"}, gencodeFlags(archs)};
  // The host compiler gets the flags every target shares; the device code
  // is C++17 too.
  t.sharedFlags = {"-std=c++17", "-Xcompiler=-fno-exceptions,-fno-rtti,-Wall,-Wextra"};
  t.assembler = "c++"; // nvcc does not assemble the weights .S
  t.sourceLanguage = "CUDA";
  return t;
}

/// The compute capability of "sm_NN" (NN, or "sm_NNa": Hopper's
/// architecture-specific features, which the kernels do not need but
/// accept), or 0 when `arch` is not of that form.
int computeCapability(const std::string &arch) {
  llvm::StringRef rest(arch);
  if (!rest.consume_front("sm_"))
    return 0;
  rest.consume_back("a");
  int cc = 0;
  if (rest.size() < 2 || rest.getAsInteger(10, cc))
    return 0;
  return cc;
}

class CudaTarget final : public Target {
public:
  explicit CudaTarget(const std::vector<std::string> &archs)
      : Target("cuda", "NVIDIA GPUs (" + llvm::join(archs, ", ") +
                           "): CUDA C++, one device arena, a CUDA Graph",
               cudaToolchain(archs)),
        architectures(archs) {
    addProvider(cuda::createCudaKernelProvider());
    // A program on this machine's GPU; the toolkit's Debian package.
    emulated = EmulatedRunner{"", {}, "nvidia-cuda-toolkit (Debian non-free)", {}, {}};
  }

  std::vector<TargetOption> options() const override {
    // tf32, fp16, bf16: the matrix products on tensor cores (mma.sync's
    // m16n8k8 TF32 and m16n8k16 FP16/BF16 shapes need sm_80 or newer).
    TargetOption precision{"precision",
                           "the arithmetic of float matrix products (--precision)",
                           {"fp32", "tf32", "fp16", "bf16"},
                           "",
                           false};
    for (const std::string &a : architectures)
      if (computeCapability(a) < 80) {
        precision.values = {"fp32"};
        precision.note = "tf32, fp16 and bf16 need sm_80 or newer, and --cuda-arch names " + a;
        break;
      }
    // Built into the variant: its one value is the variant's own list.
    TargetOption arch{"arch", "the GPU architectures built for (--cuda-arch)",
                      {llvm::join(architectures, ",")}, "", true};
    return {precision, arch};
  }
  const ModelEmitter *emitter() const override { return &cuda::cudaModelEmitter(); }

  std::unique_ptr<Target> variantFor(llvm::StringRef option, llvm::StringRef value,
                                     std::string &canonical, std::string &error) const override {
    if (option != "arch")
      return Target::variantFor(option, value, canonical, error);
    llvm::SmallVector<llvm::StringRef> parts;
    value.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    std::vector<std::string> archs;
    for (llvm::StringRef p : parts)
      archs.push_back(p.trim().str());
    std::vector<std::string> chosen;
    for (const std::string &a : archs) {
      const int cc = computeCapability(a);
      if (cc == 0) {
        error = "--cuda-arch: '" + a + "' is not a GPU architecture (sm_NN, e.g. sm_86)";
        return nullptr;
      }
      if (cc < 70) {
        error = "--cuda-arch: " + a + " is older than the kernels support (sm_70 and newer)";
        return nullptr;
      }
      if (std::find(chosen.begin(), chosen.end(), a) == chosen.end())
        chosen.push_back(a);
    }
    if (chosen.empty()) {
      error = "--cuda-arch names no architecture";
      return nullptr;
    }
    std::stable_sort(chosen.begin(), chosen.end(), [](const std::string &x, const std::string &y) {
      return computeCapability(x) < computeCapability(y);
    });
    canonical = llvm::join(chosen, ",");
    return std::make_unique<CudaTarget>(chosen);
  }

private:
  /// The architectures it builds for (sm_80, ...), oldest first.
  std::vector<std::string> architectures;
};

} // namespace

void registerCudaTarget() {
  TargetRegistry::add(std::make_unique<CudaTarget>(kDefaultArchitectures));
}

} // namespace onnxc
