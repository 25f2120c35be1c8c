//===- CortexMTarget.cpp - Arm Cortex-M4 and M7 (arm-none-eabi) -----------===//
//
// Freestanding firmware builds; the microcontroller kernels
// (CortexMKernelProvider.cpp) first, the reference ones for the rest. `onnxc run` runs a
// model on qemu-system-arm (mps2-an386 for the M4, mps2-an500 for the M7)
// with the startup code and linker script beside this file; the smoke test
// (run_smoke_test.py, registered in CMakeLists.txt here) checks it against the host.
//
//===----------------------------------------------------------------------===//
#include "CortexMTarget.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace onnxc {
namespace {

class CortexMTarget final : public Target {
public:
  CortexMTarget(std::string name, std::string description, std::vector<std::string> cpuFlags,
                std::string machine, std::string cpu, std::string linkerScript)
      : Target(std::move(name), std::move(description),
               Toolchain{"arm-none-eabi-g++", "arm-none-eabi-ar",
                         {"-O2", "-ffunction-sections", "-fdata-sections"}, std::move(cpuFlags)}) {
    supportFolder = "cortex-m";
    addressBits = 32;
    // Bare metal under QEMU: the startup code and linker script beside this
    // file, newlib's semihosting (rdimon) for the program's file I/O.
    emulated = EmulatedRunner{
        "qemu-system-arm",
        {"-M", std::move(machine), "-cpu", std::move(cpu), "-nographic", "-monitor", "none",
         "-serial", "none", "-semihosting-config", "enable=on,target=native", "-kernel"},
        "qemu-system-arm",
        {"startup.c"},
        {"-T", "{support}/" + linkerScript, "--specs=rdimon.specs", "-nostartfiles",
         "-Wl,--gc-sections"}};
    emulated->qemuPlugins = true;
    addProvider(std::make_unique<cortexm::McuKernelProvider>());
  }

  void addPasses(mlir::OpPassManager &funcPasses, PipelineStage stage) const override {
    if (stage == PipelineStage::BeforeKernelSelection)
      funcPasses.addPass(cortexm::createFuseConvPoolPass());
  }
};

} // namespace

void registerCortexMTargets() {
  cortexm::registerFuseConvPoolPass();
  TargetRegistry::add(std::make_unique<CortexMTarget>(
      "cortex-m4", "Arm Cortex-M4 with FPU, hard float (arm-none-eabi)",
      std::vector<std::string>{"-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard",
                               "-mfpu=fpv4-sp-d16"},
      "mps2-an386", "cortex-m4", "mps2.ld"));
  TargetRegistry::add(std::make_unique<CortexMTarget>(
      "cortex-m7", "Arm Cortex-M7 with double-precision FPU (arm-none-eabi)",
      std::vector<std::string>{"-mcpu=cortex-m7", "-mthumb", "-mfloat-abi=hard",
                               "-mfpu=fpv5-d16"},
      "mps2-an500", "cortex-m7", "mps2.ld"));
}

} // namespace onnxc
