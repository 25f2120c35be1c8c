//===- OpFacts.h - the op-fact traits and interfaces (OpFacts.td) --------===//
#ifndef ONNXC_DIALECT_ONNX_OPFACTS_H
#define ONNXC_DIALECT_ONNX_OPFACTS_H

#include "mlir/IR/OpDefinition.h"

#include <utility>

namespace onnxc::onnx {

template <typename ConcreteType>
class InPlaceOperand0 : public mlir::OpTrait::TraitBase<ConcreteType, InPlaceOperand0> {};
template <typename ConcreteType>
class InPlaceAnyOperand : public mlir::OpTrait::TraitBase<ConcreteType, InPlaceAnyOperand> {};
template <typename ConcreteType>
class View : public mlir::OpTrait::TraitBase<ConcreteType, View> {};
template <typename ConcreteType>
class LaneWise : public mlir::OpTrait::TraitBase<ConcreteType, LaneWise> {};
template <typename ConcreteType>
class Activation : public mlir::OpTrait::TraitBase<ConcreteType, Activation> {};
template <typename ConcreteType>
class ElementFunction : public mlir::OpTrait::TraitBase<ConcreteType, ElementFunction> {};
template <typename ConcreteType>
class UnaryFunctor : public mlir::OpTrait::TraitBase<ConcreteType, UnaryFunctor> {};
template <typename ConcreteType>
class AnyElementType : public mlir::OpTrait::TraitBase<ConcreteType, AnyElementType> {};

template <typename ConcreteType>
class CompilerInternal : public mlir::OpTrait::TraitBase<ConcreteType, CompilerInternal> {};

/// The (alpha, beta) a unary op's reference functor takes, from its
/// attributes (LeakyRelu's alpha, HardSigmoid's alpha and beta, ...: the
/// UnaryKernelParams interface); (0, 0) for the others.
std::pair<float, float> unaryKernelParams(mlir::Operation *op);

/// Whether result 0 of `op` is a view of operand 0 (the View fact).
bool isAliasOp(mlir::Operation *op);

/// The module attribute of a model compiled at one size of its bounded dims
/// (a probe of a --dim NAME=LO..HI build, codegen/BoundedDims.h): kernel
/// providers whose kernels take sizes at compile time (template arguments)
/// leave such a model to kernels that take them at run time.
constexpr const char *kBoundedProbeAttr = "onnxc.bounded_probe";
bool inBoundedProbe(mlir::Operation *op);

/// Whether the kernel of `op` may write its result over operand `operand`
/// (the InPlace facts: it reads each element at the index it writes, before
/// writing it). The memory planner also requires equal shapes and byte
/// sizes.
bool canRunInPlace(mlir::Operation *op, unsigned operand);

/// The ComputeCost of a convolution with its fused epilogue: 2 x C/group x
/// KH x KW per output (W's dims after the first), plus one per output for
/// each of bias, residual and activation (FusedConv and the SIMD targets'
/// BlockedConv).
int64_t fusedConvFlops(int64_t outputs, mlir::Value w, mlir::Value bias, mlir::Value residual,
                       llvm::StringRef activation);

} // namespace onnxc::onnx

#include "onnxc/Dialect/ONNX/OpFacts.h.inc"

#endif
