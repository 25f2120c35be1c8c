//===- CortexMTarget.cpp - Arm Cortex-M4 and M7 (arm-none-eabi) -----------===//
//
// Freestanding firmware builds on the reference kernels. The startup code,
// linker script and QEMU smoke test beside this file run a model on
// qemu-system-arm (mps2-an386 for the M4).
//
//===----------------------------------------------------------------------===//
#include "onnxc/Lowering/Target.h"

namespace onnxc {
namespace {

class CortexMTarget final : public Target {
public:
  CortexMTarget(std::string name, std::string description, std::vector<std::string> cpuFlags,
                std::string runnerText)
      : Target(std::move(name), std::move(description),
               Toolchain{"arm-none-eabi-g++", "arm-none-eabi-ar",
                         {"-O2", "-ffunction-sections", "-fdata-sections"}, std::move(cpuFlags)}) {
    runner = std::move(runnerText);
  }
};

} // namespace

void registerCortexMTargets() {
  TargetRegistry::add(std::make_unique<CortexMTarget>(
      "cortex-m4", "Arm Cortex-M4 with FPU, hard float (arm-none-eabi)",
      std::vector<std::string>{"-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard",
                               "-mfpu=fpv4-sp-d16"},
      "qemu-system-arm -M mps2-an386 (targets/cortex-m/run_smoke_test.py)"));
  TargetRegistry::add(std::make_unique<CortexMTarget>(
      "cortex-m7", "Arm Cortex-M7 with double-precision FPU (arm-none-eabi)",
      std::vector<std::string>{"-mcpu=cortex-m7", "-mthumb", "-mfloat-abi=hard",
                               "-mfpu=fpv5-d16"},
      "qemu-system-arm -M mps2-an500 (untested)"));
}

} // namespace onnxc
