//===- CortexMTarget.cpp - the Arm Cortex-M targets (arm-none-eabi) --------===//
//
// Freestanding firmware builds for Cortex-M0+, M3, M4, M7, M33 and M55; the
// microcontroller kernels (CortexMKernelProvider.cpp) first, the reference
// ones for the rest. `onnxc run` runs a model on qemu-system-arm, on the
// board QEMU models for each core (below), with the startup code and the
// board's linker script beside this file.
//
//===----------------------------------------------------------------------===//
#include "CortexMTarget.h"

#include "CortexMDialect.h"

#include "mlir/IR/DialectRegistry.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace onnxc {
namespace {

/// One core: its compiler flags and the QEMU board that runs it.
struct Core {
  const char *name, *description;
  std::vector<std::string> cpuFlags;
  const char *machine, *qemuCpu, *linkerScript;
  bool doubleFloat; // a double-precision FPU
  bool helium;      // MVE: the int8 convolutions on VMLADAVA
  /// The int8 convolutions' weights as int8 by default: without the DSP
  /// extension but with a one-cycle MLA (the M3) they are the faster form
  /// too (the Fashion-MNIST CNN: 3.90 M instructions against 6.22 M).
  bool int8ConvWeights = false;
  /// ARMv7-M without the DSP extension (the M3): with int8 weights the
  /// convolutions multiply by MLA on byte columns (qs8::Mla).
  bool mla = false;
  /// ARMv6-M (the M0, M0+): fully connected weights stored plus 128
  /// (qs8::FcBytes::Biased), each read by one LDRB.
  bool armv6m = false;
  /// What onnxc-mcu-nhwc-regions weighs on this core (none: it keeps every
  /// convolution NCHW; Helium's conv2d_mve walks NCHW planes): instructions
  /// saved per gathered value and spent per transposed element, measured on
  /// ResNet-8 (bench/results/cmsis-nn.md). The M3's byte columns already copy
  /// a word for two 3-wide windows (qs8::ByteColumns::rows3): little to save.
  std::optional<cortexm::NhwcCosts> nhwc;
  /// The board's memory as its linker script lays it out (beside this file).
  EmulatedRunner::Memory memory;
};

class CortexMTarget final : public Target {
public:
  explicit CortexMTarget(const Core &core)
      : Target(core.name, core.description,
               Toolchain{"arm-none-eabi-g++", "arm-none-eabi-ar",
                         {"-O2", "-ffunction-sections", "-fdata-sections"}, core.cpuFlags}) {
    supportFolder = "cortex-m";
    addressBits = 32;
    processor = "arm";
    doubleFloat = core.doubleFloat;
    helium = core.helium;
    int8ConvWeights = core.int8ConvWeights;
    nhwc = core.nhwc;
    // Bare metal under QEMU: the startup code and the board's linker script
    // beside this file (it INCLUDEs sections.ld from there), newlib's
    // semihosting (rdimon) for the program's file I/O.
    emulated = EmulatedRunner{
        "qemu-system-arm",
        {"-M", core.machine, "-cpu", core.qemuCpu, "-nographic", "-monitor", "none", "-serial",
         "none", "-semihosting-config", "enable=on,target=native", "-kernel"},
        "qemu-system-arm",
        {"startup.c"},
        {"-T", "{support}/" + std::string(core.linkerScript), "-L", "{support}",
         "--specs=rdimon.specs", "-nostartfiles", "-Wl,--gc-sections"}};
    emulated->qemuPlugins = true;
    emulated->memory = core.memory;
    addProvider(
        std::make_unique<cortexm::CortexMKernelProvider>(core.helium, core.mla, core.armv6m));
  }

  std::vector<TargetOption> options() const override {
    // Helium's convolutions read int8 weights as they are; the SMLAD ones
    // store them as int16 pairs (fastest) or as int8 widened in the inner
    // loop (half the flash).
    if (helium)
      return {};
    return {TargetOption{"conv-layout",
                         "how the int8 convolutions' tensors are laid out (--conv-layout): "
                         "auto (NHWC regions where their im2col gathers save more than the "
                         "transposes at the regions' edges cost), nchw, or nhwc (every region "
                         "the convolution kernel runs)",
                         {"auto", "nchw", "nhwc"},
                         "",
                         false},
            TargetOption{"conv-weights",
                         "how the int8 convolutions store their weights (--conv-weights): "
                         "int16 pairs for SMLAD, or int8 widened by SXTB16 (without the DSP "
                         "extension: each product by itself)",
                         int8ConvWeights ? std::vector<std::string>{"int8", "int16"}
                                         : std::vector<std::string>{"int16", "int8"},
                         "",
                         false}};
  }

  void addPasses(mlir::OpPassManager &funcPasses, PipelineStage stage) const override {
    if (stage == PipelineStage::BeforeKernelSelection) {
      funcPasses.addPass(cortexm::createFuseConvPoolPass());
      if (nhwc)
        funcPasses.addPass(cortexm::createNhwcRegionsPass(*nhwc));
    }
  }
  void registerDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<cortexm::CortexMDialect>();
  }

private:
  bool helium = false; // MVE: its convolutions read int8 weights as they are
  bool int8ConvWeights = false;
  std::optional<cortexm::NhwcCosts> nhwc;
};

} // namespace

void registerCortexMTargets() {
  cortexm::registerFuseConvPoolPass();
  cortexm::registerNhwcRegionsPass();
  // QEMU 7.2's boards: the micro:bit is a real Cortex-M0 (ARMv6-M, as the
  // M0+; 256 KB flash, 16 KB RAM), the MPS2/MPS3 FPGA images the others.
  const Core cores[] = {
      {"cortex-m0plus", "Arm Cortex-M0+, no FPU, soft float (arm-none-eabi)",
       {"-mcpu=cortex-m0plus", "-mthumb", "-mfloat-abi=soft"}, "microbit", "cortex-m0",
       "microbit.ld", false, false, false, false, true, cortexm::NhwcCosts{3.9, 5.0},
       {"the micro:bit (QEMU's microbit: 256 KB flash, 16 KB RAM)", 256 << 10, 16 << 10,
        0x800 + 0x800}},
      // ARMv7-M without the DSP extension or an FPU (STM32F1, LM3S): the
      // kernels' portable C paths, Thumb-2 and hardware divide.
      {"cortex-m3", "Arm Cortex-M3, no FPU, soft float (arm-none-eabi)",
       {"-mcpu=cortex-m3", "-mthumb", "-mfloat-abi=soft"}, "mps2-an385", "cortex-m3",
       "mps2.ld", false, false, true, true, false, cortexm::NhwcCosts{0.4, 3.5},
       {"QEMU's mps2-an385 (4 MB code, 4 MB RAM)", 4 << 20, 4 << 20, 0x10000 + 0x100000}},
      {"cortex-m4", "Arm Cortex-M4 with FPU, hard float (arm-none-eabi)",
       {"-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"}, "mps2-an386",
       "cortex-m4", "mps2.ld", false, false, false, false, false, cortexm::NhwcCosts{},
       {"QEMU's mps2-an386 (4 MB code, 4 MB RAM)", 4 << 20, 4 << 20, 0x10000 + 0x100000}},
      {"cortex-m7", "Arm Cortex-M7 with double-precision FPU (arm-none-eabi)",
       {"-mcpu=cortex-m7", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv5-d16"}, "mps2-an500",
       "cortex-m7", "mps2.ld", true, false, false, false, false, cortexm::NhwcCosts{},
       {"QEMU's mps2-an500 (4 MB code, 4 MB RAM)", 4 << 20, 4 << 20, 0x10000 + 0x100000}},
      {"cortex-m33", "Arm Cortex-M33 with FPU, hard float (arm-none-eabi)",
       {"-mcpu=cortex-m33", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv5-sp-d16"},
       "mps2-an505", "cortex-m33", "mps2-an505.ld", false, false, false, false, false,
       cortexm::NhwcCosts{},
       {"QEMU's mps2-an505 (4 MB code, 4 MB RAM)", 4 << 20, 4 << 20, 0x10000 + 0x100000}},
      {"cortex-m55", "Arm Cortex-M55 with Helium (MVE) and FPU, hard float (arm-none-eabi)",
       {"-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard"}, "mps3-an547", "cortex-m55",
       "mps3-an547.ld", true, true, false, false, false, std::nullopt,
       {"QEMU's mps3-an547 (16 MB for weights, 16 MB RAM)", 16 << 20, 16 << 20,
        0x10000 + 0x100000}},
  };
  for (const Core &core : cores)
    TargetRegistry::add(std::make_unique<CortexMTarget>(core));
}

} // namespace onnxc
