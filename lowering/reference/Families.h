//===- Families.h - the reference lowering, one function per op family ---===//
//
// Each family lowers its ops to onnxc_rt::ref kernels and answers "not mine"
// (std::nullopt) for any other op; ReferenceProvider asks them in turn.
// `t` is the C++ element type of the op's first operand.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_LOWERING_REFERENCE_FAMILIES_H
#define ONNXC_LOWERING_REFERENCE_FAMILIES_H

#include "onnxc/Lowering/KernelProvider.h"

namespace onnxc::reference {

ProviderResult lowerElementwise(mlir::Operation *op, const std::string &t);
ProviderResult lowerLinalg(mlir::Operation *op, const std::string &t);
ProviderResult lowerConvPool(mlir::Operation *op, const std::string &t);
ProviderResult lowerNorm(mlir::Operation *op, const std::string &t);
ProviderResult lowerTensor(mlir::Operation *op, const std::string &t);
ProviderResult lowerQuant(mlir::Operation *op, const std::string &t);
ProviderResult lowerDomain(mlir::Operation *op, const std::string &t);

} // namespace onnxc::reference

#endif
