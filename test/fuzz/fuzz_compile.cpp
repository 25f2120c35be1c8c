//===- fuzz_compile.cpp - libFuzzer over parse -> import -> passes -> emit -===//
//
// Each input is an .onnx file's bytes. It goes through what `onnxc MODEL -o
// DIR` does before writing files (generateModel: protobuf parse, import,
// the optimization and codegen pipelines, the C++ emitter) for one target,
// chosen by the input's last byte so one corpus covers the generic, x86-64
// and Cortex-M lowering. Errors are the expected outcome for most inputs and
// are swallowed; a crash, hang, leak or sanitizer report is a bug. Built with
// clang (-DONNXC_FUZZ=ON, scripts/fuzz.sh).
//
//===----------------------------------------------------------------------===//
#include "Generate.h"
#include "onnxc/Lowering/Target.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"

#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <memory>
#include <string>
#include <unistd.h>

namespace {

// The importer reads a path (and external data beside it): each input is
// written to one file in memory-backed /dev/shm, in a folder of its own, so
// external-data references find nothing but that file.
std::string inputPath() {
  static const std::string path = [] {
    std::string dir = "/dev/shm/onnxc-fuzz-" + std::to_string(getpid());
    if (llvm::sys::fs::create_directories(dir))
      std::abort();
    return dir + "/model.onnx";
  }();
  return path;
}

} // namespace

// LLVM's BumpPtrAllocator poisons its slabs in ASan builds; this code inlines
// the instrumented copy while Debian's libMLIR.so allocates from the same
// slabs without unpoisoning, which ASan would report as use-after-poison.
// Manual poisoning is LLVM's bookkeeping, not a finding: ignore it.
extern "C" const char *__asan_default_options() { return "allow_user_poisoning=0"; }

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  onnxc::registerAllTargets();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const kTargets[] = {"generic", "x86-64", "cortex-m4"};
  const onnxc::Target *target =
      onnxc::TargetRegistry::find(kTargets[size ? data[size - 1] % 3 : 0]);
  const std::string path = inputPath();
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    std::abort();
  if (size && std::fwrite(data, 1, size, f) != size)
    std::abort();
  std::fclose(f);

  // Making a context and loading the dialects costs about as much as a
  // typical (rejected) input: one context serves kInputsPerContext inputs,
  // then is replaced so the attributes and types it uniqued do not pile up.
  // (A finding replays alone, in a fresh context, like `onnxc` runs it.)
  constexpr int kInputsPerContext = 256;
  static std::unique_ptr<mlir::MLIRContext> ctx;
  static int served = 0;
  if (!ctx || ++served == kInputsPerContext) {
    ctx = std::make_unique<mlir::MLIRContext>(mlir::MLIRContext::Threading::DISABLED);
    served = 0;
  }
  mlir::ScopedDiagnosticHandler quiet(ctx.get(),
                                      [](mlir::Diagnostic &) { return mlir::success(); });
  onnxc::ImportOptions import;
  (void)onnxc::generateModel(*ctx, path, "fuzz", import, *target, onnxc::ModelOptions(),
                             /*mlirOnly=*/false);
  return 0;
}
