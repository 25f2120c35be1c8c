//===- X86Target.h - the x86-64 targets (AVX2+FMA, AVX-512) ---------------===//
#ifndef ONNXC_TARGETS_X86_X86TARGET_H
#define ONNXC_TARGETS_X86_X86TARGET_H

#include "onnxc/Lowering/Target.h"

namespace onnxc::x86 {

/// Lowers what runtime-lite's SIMD kernels (onnxc_rt::simd) cover on x86:
/// float ops, and the qs8 ops through lowerQs8.
class X86KernelProvider final : public KernelProvider {
public:
  llvm::StringRef name() const override;
  ProviderResult lower(mlir::Operation *op, const LoweringContext &ctx) const override;
};

/// The header and namespace of the SIMD qs8 kernels.
constexpr const char *kSimdQs8 = "onnxc_rt/kernels/simd/qs8.h";
constexpr const char *kSimdQs8Namespace = "onnxc_rt::simd::qs8";

/// The qs8 ops simd/qs8.h runs (X86Qs8.cpp); std::nullopt for the rest.
ProviderResult lowerQs8(mlir::Operation *op);

} // namespace onnxc::x86

#endif
