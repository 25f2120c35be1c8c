//===- SimdTarget.h - targets that run runtime-lite's SIMD kernels --------===//
//
// The SIMD kernels (onnxc_rt::simd) are written once over simd/vec.h's
// vector types, defined per instruction set in simd/isa/ (x86.h, neon.h).
// Every target that compiles them shares this folder: the provider that
// lowers the ops they cover (float here, qs8 in SimdQs8.cpp) and the layout
// hooks, which read the kernels' own size rules (simd/f32/blocking.h) so the
// compiler and the kernels agree by construction. A target folder
// (x86-64, aarch64) adds its toolchain, flags and how its code runs.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_TARGETS_SIMD_SIMDTARGET_H
#define ONNXC_TARGETS_SIMD_SIMDTARGET_H

#include "onnxc/Lowering/Target.h"

#include <memory>

namespace mlir {
class DenseElementsAttr;
class Pass;
} // namespace mlir
namespace onnxc::onnx {
class QRescaleOp;
} // namespace onnxc::onnx
#include "onnxc_rt/kernels/simd/f32/blocking.h"
#include "onnxc_rt/kernels/simd/f32/winograd_plan.h"
#include "onnxc_rt/kernels/simd/qs8/pack.h"

namespace onnxc::simd {

/// What the qs8 kernels of a target's instruction set need packed and
/// folded their way at compile time (simd/qs8/pack.h; the kernels check
/// these against their own): the depth group of the convolution's and the
/// fully connected layer's weights (kDotDepthGroup, kMatMulDepthGroup
/// where the target has a byte matrix multiply, NEON's i8mm, and
/// kWideDepthGroup for armv8-a's 16-byte products), and whether their
/// products take the activations' bytes as u - 128 (NEON's SDOT and SMULL;
/// packed_zero_point); and whether the depthwise convolution sums quads
/// of taps by byte dot products (simd/qs8/depthwise.h's kQuadDepthwise: VNNI,
/// dotprod, i8mm), which reads the bytes as packed, not widened.
/// `amxConvolutions`: the convolutions and fully connected layers large
/// enough for AMX tiles (qs8/pack.h's conv_amx_applies, fc_amx_applies)
/// multiply on them (x86-64-amx), their weights in AMX's depth groups
/// (kAmxDepthGroup).
/// `windowDepthwise`: whether the depthwise convolution may read its
/// planes' rows in place (simd/qs8/depthwise.h's depthwise_rows:
/// VecI::kByteWindows, x86), which sizes its scratch.
struct Qs8Packing {
  int64_t depthGroup;
  bool shiftedBytes;
  bool quadDepthwise;
  bool amxConvolutions = false;
  bool windowDepthwise = false;
  /// The forms conv2d has beyond the im2col panel (pack.h's conv_form:
  /// AVX-512 has channel lanes, which pack some layers' weights in tiles
  /// of 16 channels, and the dot products' direct form, tap-major).
  onnxc_rt::simd::qs8::ConvForms convForms{};
  /// The depth group of a dense or grouped convolution's packed weights
  /// (`depth`: input channels per group times taps).
  int64_t convDepthGroup(int64_t depth) const;
  /// The same for a fully connected layer's (rows x depth).
  int64_t fcDepthGroup(int64_t rows, int64_t depth) const;
};

/// Lowers what runtime-lite's SIMD kernels cover: float ops, and the qs8
/// ops through lowerQs8. `name` tells the instruction set ("x86-simd");
/// `matrixColumns` is the width of the Gemm/MatMul register tile (simd/
/// gemm.h kNR: two vectors), for which constant B operands are packed.
class SimdKernelProvider final : public KernelProvider {
public:
  SimdKernelProvider(std::string name, Qs8Packing packing, int64_t matrixColumns)
      : providerName(std::move(name)), packing(packing), matrixColumns(matrixColumns) {}
  llvm::StringRef name() const override { return providerName; }
  ProviderResult lower(mlir::Operation *op, const LoweringContext &ctx) const override;

private:
  std::string providerName;
  Qs8Packing packing;
  int64_t matrixColumns;
};

/// A target whose code runs the SIMD kernels: their provider, the
/// channel-blocked layout (NCHW16c) and Winograd where the kernels' rules
/// say. The toolchain's flags get -ffp-contract=off: the kernels write their
/// FMAs explicitly; left to itself GCC contracts an epilogue's multiply-add
/// in one inlined copy of a kernel and not in another, so a product split
/// into tasks would differ in the last bit from the same product in one task.
class SimdTarget : public Target, public LayoutPolicy {
public:
  /// `vectorLanes`: floats in one of the instruction set's vectors.
  SimdTarget(std::string name, std::string description, Toolchain toolchain,
             std::string providerName, Qs8Packing packing, int64_t vectorLanes);

  /// `winograd` (true; false: every convolution direct, --no-winograd).
  std::vector<TargetOption> options() const override;
  const LayoutPolicy *layout() const override { return this; }
  /// onnxc-layout-selection at PipelineStage::Layout (the simd dialect's
  /// channel-blocked layout, LayoutSelection.cpp).
  void addPasses(mlir::OpPassManager &funcPasses, PipelineStage stage) const override;
  void registerDialects(mlir::DialectRegistry &registry) const override;

  int64_t channelBlock() const override;
  bool blocksDenseConv(int64_t taps) const override;
  bool blocksConvInput(int64_t channels) const override { return false; }
  int64_t winogradTile(const ConvShape &c, onnx::TargetAttr target) const override;

protected:
  /// The output tiles a Winograd convolution needs where its transformed
  /// weights are streamed from memory each inference (simd/f32/blocking.h's
  /// winograd_applies): more where the core's vectors are wider (AVX-512).
  int64_t winogradStreamedTiles = onnxc_rt::simd::kWinogradMinTiles;
  /// The 2x2 output tiles F(2x2, 3x3) needs to take a layer whose F(4x4,
  /// 3x3) weights would be streamed (simd/f32/winograd_plan.h's winograd_tile);
  /// 0: never (measured on AVX-512 only).
  int64_t winogradSmallTiles = 0;
};

/// The namespace of the SIMD qs8 kernels and their headers, one kernel
/// family a header (runtime-lite's simd/qs8/).
constexpr const char *kSimdQs8Namespace = "onnxc_rt::simd::qs8";
constexpr const char *kSimdQs8Conv = "onnxc_rt/kernels/simd/qs8/conv2d.h";
constexpr const char *kSimdQs8Depthwise = "onnxc_rt/kernels/simd/qs8/depthwise.h";
constexpr const char *kSimdQs8FullyConnected = "onnxc_rt/kernels/simd/qs8/fully_connected.h";
constexpr const char *kSimdQs8Elementwise = "onnxc_rt/kernels/simd/qs8/elementwise.h";
constexpr const char *kSimdQs8ChannelGather = "onnxc_rt/kernels/simd/qs8/channel_gather.h";
constexpr const char *kSimdQs8Pool = "onnxc_rt/kernels/simd/qs8/pool.h";
constexpr const char *kSimdQs8Quantize = "onnxc_rt/kernels/simd/qs8/quantize.h";

/// onnxc-layout-selection (LayoutSelection.cpp); registered once however
/// many SIMD targets register.
std::unique_ptr<mlir::Pass> createLayoutSelectionPass();
void registerLayoutSelectionPass();
/// onnxc-qs8-channel-gather (Qs8ChannelGather.cpp), the same.
std::unique_ptr<mlir::Pass> createQs8ChannelGatherPass();
void registerQs8ChannelGatherPass();

/// The qs8 ops simd/qs8/ runs (SimdQs8.cpp), constants packed as
/// `packing` says, convolutions split into `tasks` (--threads); std::nullopt
/// for the rest.
ProviderResult lowerQs8(mlir::Operation *op, const Qs8Packing &packing, int64_t tasks);

/// The arguments both channel gathers' kernels start with (BlockedChannelGather's,
/// ChannelGather's): x0 and its channel count, x1 (null without a second input)
/// and its, the picked channels and their count, y, its images n and each
/// plane's pixels hw.
std::vector<KernelArg> channelGatherArgs(mlir::ValueRange x, llvm::ArrayRef<int64_t> inChannels,
                                         llvm::ArrayRef<int64_t> channels, mlir::Value y,
                                         int64_t n, int64_t hw);

/// A QRescale of int8 or uint8 to the same type as the table of its 256
/// results (the reference's rescale of every byte), which its own lookup
/// and a ChannelGather's input map through; null for the rest.
mlir::DenseElementsAttr rescaleTable(onnx::QRescaleOp op);

} // namespace onnxc::simd

#endif
