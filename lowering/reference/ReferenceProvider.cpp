//===- ReferenceProvider.cpp - the portable reference lowering -------------===//
//
// The last provider of every target and the constant folder's only one: it
// lowers every op onnxc supports to runtime-lite's reference kernels
// (onnxc_rt::ref), which define each op's semantics.
//
//===----------------------------------------------------------------------===//
#include "Families.h"

namespace onnxc {
namespace {

class ReferenceProvider final : public KernelProvider {
public:
  llvm::StringRef name() const override { return "reference"; }
  ProviderResult lower(mlir::Operation *op, const LoweringContext &ctx) const override {
    using Family = ProviderResult (*)(mlir::Operation *, const std::string &);
    static constexpr Family families[] = {
        reference::lowerElementwise, reference::lowerLinalg, reference::lowerConvPool,
        reference::lowerNorm,        reference::lowerTensor, reference::lowerQuant,
        reference::lowerDomain};
    for (Family family : families)
      if (ProviderResult r = family(op, ctx.elementType))
        return r;
    return std::nullopt;
  }
};

} // namespace

const KernelProvider &referenceProvider() {
  static const ReferenceProvider provider;
  return provider;
}

} // namespace onnxc
