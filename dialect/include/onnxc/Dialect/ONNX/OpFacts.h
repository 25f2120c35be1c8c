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

} // namespace onnxc::onnx

#include "onnxc/Dialect/ONNX/OpFacts.h.inc"

#endif
