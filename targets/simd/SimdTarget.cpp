//===- SimdTarget.cpp - the layout hooks of the SIMD-kernel targets --------===//
#include "SimdTarget.h"

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
}

int64_t SimdTarget::channelBlock() const { return onnxc_rt::simd::kChannelBlock; }

bool SimdTarget::blocksDenseConv(int64_t taps) const {
  return taps <= onnxc_rt::simd::kPixelMajorMaxTaps;
}

bool SimdTarget::prefersWinograd(const ConvShape &c) const {
  if (c.output.size() != 4 || c.kernel.size() != 2 || c.strides.size() != 2 ||
      c.dilations.size() != 2)
    return false;
  return onnxc_rt::simd::winograd_applies(c.output.data(), c.inChannels, c.kernel.data(),
                                         c.strides.data(), c.dilations.data(), c.group,
                                         c.inputBlocked, winogradStreamedTiles);
}

} // namespace onnxc::simd
