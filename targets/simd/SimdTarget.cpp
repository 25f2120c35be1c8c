//===- SimdTarget.cpp - the layout policy and options of the SIMD targets --===//
#include "SimdTarget.h"

#include "SimdDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace onnxc::simd {

namespace {
Toolchain withContractOff(Toolchain t) {
  t.requiredFlags.push_back("-ffp-contract=off");
  return t;
}
} // namespace

SimdTarget::SimdTarget(std::string name, std::string description, Toolchain toolchain,
                       std::string providerName, Qs8Packing packing, int64_t vectorLanes)
    : Target(std::move(name), std::move(description), withContractOff(std::move(toolchain))) {
  addProvider(
      std::make_unique<SimdKernelProvider>(std::move(providerName), packing, 2 * vectorLanes));
  registerLayoutSelectionPass();
  registerQs8ChannelGatherPass();
}

void SimdTarget::addPasses(mlir::OpPassManager &funcPasses, PipelineStage stage) const {
  if (stage == PipelineStage::Layout) {
    funcPasses.addPass(createLayoutSelectionPass());
    funcPasses.addPass(createQs8ChannelGatherPass());
  }
}

void SimdTarget::registerDialects(mlir::DialectRegistry &registry) const {
  registry.insert<SimdDialect>();
}

std::vector<TargetOption> SimdTarget::options() const {
  return {{"winograd", "3x3 stride-1 convolutions by Winograd F(4x4, 3x3) or F(2x2, 3x3) where the kernels' "
                       "rule says it pays (false: every convolution direct, --no-winograd)",
           {"true", "false"},
           "",
           false},
          {"block-fusion",
           "an inverted-residual block's pointwise expand and depthwise convolutions in one "
           "kernel, the expanded tensor in bands of rows, and a squeeze-and-excite scale "
           "folded into the project convolution's weights (false: apart, --no-block-fusion)",
           {"true", "false"},
           "",
           false}};
}

int64_t SimdTarget::channelBlock() const { return onnxc_rt::simd::kChannelBlock; }

bool SimdTarget::blocksDenseConv(int64_t taps) const {
  return taps <= onnxc_rt::simd::kPixelMajorMaxTaps;
}

int64_t SimdTarget::winogradTile(const ConvShape &c, onnx::TargetAttr target) const {
  if (optionValue(target, "winograd") != "true")
    return 0;
  if (c.output.size() != 4 || c.kernel.size() != 2 || c.strides.size() != 2 ||
      c.dilations.size() != 2)
    return 0;
  return onnxc_rt::simd::winograd_tile(c.output.data(), c.inChannels, c.kernel.data(),
                                      c.strides.data(), c.dilations.data(), c.group,
                                      c.inputBlocked, winogradStreamedTiles, winogradSmallTiles);
}

} // namespace onnxc::simd
