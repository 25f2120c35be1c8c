//===- OpFacts.td - what passes and the lowering ask of an op ------------===//
//
// Facts about an op's kernel that the memory planner, layout selection,
// fusion and the compile summary need, declared on the ops themselves
// rather than kept as lists of op names in each pass.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_ONNX_OPFACTS_TD
#define ONNXC_ONNX_OPFACTS_TD

include "mlir/IR/OpBase.td"

class ONNX_Fact<string name> : NativeOpTrait<name> {
  let cppNamespace = "::onnxc::onnx";
}

// The kernel may write its result over operand 0: it reads each element at
// the index it writes, before writing it (the memory planner also requires
// equal shapes and byte sizes).
def ONNX_InPlaceOperand0 : ONNX_Fact<"InPlaceOperand0">;
// ... over any of its operands (elementwise broadcast ops).
def ONNX_InPlaceAnyOperand : ONNX_Fact<"InPlaceAnyOperand">;
// Its result 0 is a view of operand 0: the same bytes under a new shape
// (no kernel runs; the memory planner gives both one buffer).
def ONNX_View : ONNX_Fact<"View">;
// Keeps each channel in its lane and maps finite values to finite ones, so
// it runs unchanged on channel-blocked values (whose padding lanes then stay
// harmless; onnxc-layout-selection).
def ONNX_LaneWise : ONNX_Fact<"LaneWise">;
// Each output element is one function of the matching input element (the
// first operand; any other operand is a parameter), the same for every
// element: on int8 data the function is a 256-entry table (onnxc-fold-qdq).
def ONNX_ElementFunction : ONNX_Fact<"ElementFunction">;
// A unary op a convolution or Gemm can apply in its epilogue: its reference
// functor is named like the op (onnxc-fuse-ops).
def ONNX_Activation : ONNX_Fact<"Activation">;
// Computed by the reference `unary` kernel with the functor named like the op
// (runtime-lite's reference/elementwise.h, ONNXC_UNARY) and its
// UnaryKernelParams: the reference lowering has no case of its own for it.
def ONNX_UnaryFunctor : ONNX_Fact<"UnaryFunctor">;
// Its functor is defined for every element type (the others are float only:
// another element type is refused, naming the node).
def ONNX_AnyElementType : ONNX_Fact<"AnyElementType">;
// Not an ONNX operator: an op the passes make (fused, channel-blocked and
// int8 integer ops). The importer refuses it as a model's node type and
// `onnxc --list-ops` leaves it out.
def ONNX_CompilerInternal : ONNX_Fact<"CompilerInternal">;

def ONNX_UnaryKernelParamsInterface : OpInterface<"UnaryKernelParams"> {
  let cppNamespace = "::onnxc::onnx";
  let description = [{
    A unary op whose reference functor takes parameters: the (alpha, beta)
    the `unary` kernel passes it, read from the op's attributes with the
    defaults of its ODS definition.
  }];
  let methods = [
    InterfaceMethod<"(alpha, beta) of the reference functor",
                    "std::pair<float, float>", "kernelParams">,
  ];
}

def ONNX_ComputeCostInterface : OpInterface<"ComputeCost"> {
  let cppNamespace = "::onnxc::onnx";
  let description = [{
    Ops whose work is more than one operation per output element (products,
    convolutions, recurrences) say how much: floating-point operations of
    one run, a multiply-add counting two, fused bias, residual and
    activation one per output each. Other ops count one per output element
    (views none) in the compile summary.
  }];
  let methods = [
    InterfaceMethod<"operations of one run", "int64_t", "flops">,
  ];
}

#endif
