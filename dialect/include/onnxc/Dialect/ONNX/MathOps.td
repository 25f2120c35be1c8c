//===- MathOps.td - elementwise math, comparison, reduction, matmul ------===//
#ifndef ONNXC_ONNX_MATH_OPS_TD
#define ONNXC_ONNX_MATH_OPS_TD

include "onnxc/Dialect/ONNX/ONNXBase.td"

//===-- Unary elementwise (opset 13/14 forms) ----------------------------===//
def ONNX_AbsOp        : ONNX_UnaryOp<"Abs", "y = |x|", [ONNX_AnyElementType]>;
def ONNX_NegOp        : ONNX_UnaryOp<"Neg", "y = -x", [ONNX_AnyElementType]>;
def ONNX_ReciprocalOp : ONNX_UnaryOp<"Reciprocal", "y = 1 / x">;
def ONNX_SqrtOp       : ONNX_UnaryOp<"Sqrt", "y = sqrt(x)">;
def ONNX_ExpOp        : ONNX_UnaryOp<"Exp", "y = e^x">;
def ONNX_LogOp        : ONNX_UnaryOp<"Log", "y = ln(x)">;
def ONNX_ErfOp        : ONNX_UnaryOp<"Erf", "y = erf(x)">;
def ONNX_TanhOp       : ONNX_UnaryOp<"Tanh", "y = tanh(x)", [ONNX_LaneWise, ONNX_Activation]>;
def ONNX_SigmoidOp    : ONNX_UnaryOp<"Sigmoid", "y = 1 / (1 + e^-x)",
                                   [ONNX_LaneWise, ONNX_Activation]>;
def ONNX_ReluOp       : ONNX_UnaryOp<"Relu", "y = max(x, 0)",
                                   [ONNX_AnyElementType, ONNX_LaneWise, ONNX_Activation]>;
def ONNX_CeilOp       : ONNX_UnaryOp<"Ceil", "y = ceil(x)", [ONNX_AnyElementType]>;
def ONNX_FloorOp      : ONNX_UnaryOp<"Floor", "y = floor(x)", [ONNX_AnyElementType]>;
def ONNX_SinOp        : ONNX_UnaryOp<"Sin", "y = sin(x)">;
def ONNX_CosOp        : ONNX_UnaryOp<"Cos", "y = cos(x)">;
def ONNX_SoftplusOp   : ONNX_UnaryOp<"Softplus", "y = ln(1 + e^x)">;
def ONNX_SoftsignOp   : ONNX_UnaryOp<"Softsign", "y = x / (1 + |x|)">;
def ONNX_HardSwishOp  : ONNX_UnaryOp<"HardSwish", "y = x * max(0, min(1, x/6 + 1/2))",
                                   [ONNX_LaneWise, ONNX_Activation]>;
def ONNX_NotOp        : ONNX_UnaryOp<"Not", "logical not of a bool tensor", [ONNX_AnyElementType]> {
  let hasFolder = 1;
}
def ONNX_SignOp       : ONNX_UnaryOp<"Sign", "y = sign(x)", [ONNX_AnyElementType]>;
def ONNX_RoundOp      : ONNX_UnaryOp<"Round", "round half to even">;
def ONNX_TanOp        : ONNX_UnaryOp<"Tan", "y = tan(x)">;
def ONNX_AsinOp       : ONNX_UnaryOp<"Asin", "y = asin(x)">;
def ONNX_AcosOp       : ONNX_UnaryOp<"Acos", "y = acos(x)">;
def ONNX_AtanOp       : ONNX_UnaryOp<"Atan", "y = atan(x)">;
def ONNX_SinhOp       : ONNX_UnaryOp<"Sinh", "y = sinh(x)">;
def ONNX_CoshOp       : ONNX_UnaryOp<"Cosh", "y = cosh(x)">;
def ONNX_AsinhOp      : ONNX_UnaryOp<"Asinh", "y = asinh(x)">;
def ONNX_AcoshOp      : ONNX_UnaryOp<"Acosh", "y = acosh(x)">;
def ONNX_AtanhOp      : ONNX_UnaryOp<"Atanh", "y = atanh(x)">;

def ONNX_MishOp : ONNX_UnaryOp<"Mish", "y = x * tanh(softplus(x)) (opset 18)">;
def ONNX_BitwiseNotOp : ONNX_UnaryOp<"BitwiseNot", "y = ~x (opset 18)", [ONNX_AnyElementType]>;
def ONNX_GeluOp : ONNX_UnaryOp<"Gelu", "y = x * Phi(x), exact or tanh-approximated (opset 20)",
                              [ONNX_Activation, DeclareOpInterfaceMethods<ONNX_UnaryKernelParamsInterface>]> {
  let arguments = (ins AnyTensor:$X, DefaultValuedAttr<StrAttr, "\"none\"">:$approximate);
}

def ONNX_SeluOp : ONNX_UnaryOp<"Selu", "y = gamma * (x <= 0 ? alpha * (e^x - 1) : x)",
                              [DeclareOpInterfaceMethods<ONNX_UnaryKernelParamsInterface>]> {
  let arguments = (ins AnyTensor:$X,
                   DefaultValuedAttr<F32Attr, "1.67326319217681884765625">:$alpha,
                   DefaultValuedAttr<F32Attr, "1.05070102214813232421875">:$gamma);
}
def ONNX_ThresholdedReluOp : ONNX_UnaryOp<"ThresholdedRelu", "y = x > alpha ? x : 0",
                                         [DeclareOpInterfaceMethods<ONNX_UnaryKernelParamsInterface>]> {
  let arguments = (ins AnyTensor:$X, DefaultValuedAttr<F32Attr, "1.0">:$alpha);
}
def ONNX_ShrinkOp : ONNX_UnaryOp<"Shrink",
                                 "y = x < -lambd ? x + bias : x > lambd ? x - bias : 0",
                                 [ONNX_AnyElementType, DeclareOpInterfaceMethods<ONNX_UnaryKernelParamsInterface>]> {
  let arguments = (ins AnyTensor:$input, DefaultValuedAttr<F32Attr, "0.0">:$bias,
                   DefaultValuedAttr<F32Attr, "0.5">:$lambd);
}
def ONNX_CeluOp : ONNX_UnaryOp<"Celu", "y = max(0, x) + min(0, alpha * (e^(x/alpha) - 1))",
                              [DeclareOpInterfaceMethods<ONNX_UnaryKernelParamsInterface>]> {
  let arguments = (ins AnyTensor:$X, DefaultValuedAttr<F32Attr, "1.0">:$alpha);
}

// Predicates: bool results of the input's shape.
class ONNX_PredicateOp<string mnemonic, string summaryText> : ONNX_Op<mnemonic> {
  let summary = summaryText;
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferShapes() {
      return ::onnxc::onnx::inferBoolLike(getOperation(), 0);
    }
  }];
}
def ONNX_IsNaNOp : ONNX_PredicateOp<"IsNaN", "x is NaN">;
def ONNX_IsInfOp : ONNX_PredicateOp<"IsInf", "x is +inf (detect_positive) or -inf (detect_negative)"> {
  let arguments = (ins AnyTensor:$X, DefaultValuedAttr<I64Attr, "1">:$detect_negative,
                   DefaultValuedAttr<I64Attr, "1">:$detect_positive);
}

def ONNX_LeakyReluOp : ONNX_UnaryOp<"LeakyRelu", "y = x < 0 ? alpha * x : x",
                                   [ONNX_LaneWise, ONNX_Activation, DeclareOpInterfaceMethods<ONNX_UnaryKernelParamsInterface>]> {
  let arguments = (ins AnyTensor:$X, DefaultValuedAttr<F32Attr, "0.01">:$alpha);
}
def ONNX_EluOp : ONNX_UnaryOp<"Elu", "y = x < 0 ? alpha * (e^x - 1) : x",
                             [ONNX_Activation, DeclareOpInterfaceMethods<ONNX_UnaryKernelParamsInterface>]> {
  let arguments = (ins AnyTensor:$X, DefaultValuedAttr<F32Attr, "1.0">:$alpha);
}
def ONNX_HardSigmoidOp : ONNX_UnaryOp<"HardSigmoid",
                                      "y = max(0, min(1, alpha * x + beta))",
                                      [ONNX_LaneWise, ONNX_Activation, DeclareOpInterfaceMethods<ONNX_UnaryKernelParamsInterface>]> {
  let arguments = (ins AnyTensor:$X, DefaultValuedAttr<F32Attr, "0.2">:$alpha,
                   DefaultValuedAttr<F32Attr, "0.5">:$beta);
}

// Clip (opset 13): min and max are optional scalar inputs. The importer turns
// opset-6 attributes into constant inputs.
def ONNX_ClipOp : ONNX_Op<"Clip", [ONNX_InPlaceOperand0, ONNX_LaneWise, ONNX_ElementFunction]> {
  let summary = "y = min(max(x, min), max)";
  let arguments = (ins AnyTensor:$input, ONNX_TensorOrNone:$min,
                   ONNX_TensorOrNone:$max);
  let results = (outs AnyTensor:$output);
}

//===-- Binary elementwise, broadcasting ---------------------------------===//
def ONNX_AddOp : ONNX_BinaryOp<"Add", "C = A + B", 0, [ONNX_LaneWise]>;
def ONNX_SubOp : ONNX_BinaryOp<"Sub", "C = A - B", 0, [ONNX_LaneWise]>;
def ONNX_MulOp : ONNX_BinaryOp<"Mul", "C = A * B", 0, [ONNX_LaneWise]>;
def ONNX_DivOp : ONNX_BinaryOp<"Div", "C = A / B (integer division truncates)">;
def ONNX_PowOp : ONNX_BinaryOp<"Pow", "C = A ^ B (result has A's type)">;
def ONNX_EqualOp   : ONNX_BinaryOp<"Equal", "C = A == B", 1>;
def ONNX_LessOp    : ONNX_BinaryOp<"Less", "C = A < B", 1>;
def ONNX_GreaterOp : ONNX_BinaryOp<"Greater", "C = A > B", 1>;
def ONNX_LessOrEqualOp    : ONNX_BinaryOp<"LessOrEqual", "C = A <= B", 1>;
def ONNX_GreaterOrEqualOp : ONNX_BinaryOp<"GreaterOrEqual", "C = A >= B", 1>;
def ONNX_AndOp : ONNX_BinaryOp<"And", "C = A && B", 1>;
def ONNX_OrOp  : ONNX_BinaryOp<"Or", "C = A || B", 1>;
def ONNX_XorOp : ONNX_BinaryOp<"Xor", "C = A != B (bool)", 1>;
def ONNX_BitwiseAndOp : ONNX_BinaryOp<"BitwiseAnd", "C = A & B (opset 18)">;
def ONNX_BitwiseOrOp  : ONNX_BinaryOp<"BitwiseOr", "C = A | B (opset 18)">;
def ONNX_BitwiseXorOp : ONNX_BinaryOp<"BitwiseXor", "C = A ^ B (opset 18)">;
def ONNX_ModOp : ONNX_BinaryOp<"Mod", "C = A mod B: sign of B (fmod = 0, integers) or of A (fmod = 1)"> {
  let arguments = (ins AnyTensor:$A, AnyTensor:$B, DefaultValuedAttr<I64Attr, "0">:$fmod);
}
def ONNX_BitShiftOp : ONNX_BinaryOp<"BitShift", "C = A << B or A >> B (unsigned)"> {
  let arguments = (ins AnyTensor:$X, AnyTensor:$Y, StrAttr:$direction);
  let results = (outs AnyTensor:$Z);
}
def ONNX_PReluOp : ONNX_BinaryOp<"PRelu", "C = A < 0 ? slope * A : A (slope broadcast to A)"> {
  let arguments = (ins AnyTensor:$X, AnyTensor:$slope);
  let results = (outs AnyTensor:$Y);
}

def ONNX_MaxOp  : ONNX_VariadicOp<"Max", "elementwise maximum">;
def ONNX_MinOp  : ONNX_VariadicOp<"Min", "elementwise minimum">;
def ONNX_SumOp  : ONNX_VariadicOp<"Sum", "elementwise sum">;
def ONNX_MeanOp : ONNX_VariadicOp<"Mean", "elementwise mean">;

def ONNX_WhereOp : ONNX_Op<"Where", [ONNX_InPlaceAnyOperand]> {
  let summary = "Y = condition ? X : Y, with broadcasting";
  let arguments = (ins AnyTensor:$condition, AnyTensor:$X, AnyTensor:$Y);
  let results = (outs AnyTensor:$output);
}

//===-- Matrix products ----------------------------------------------------===//
def ONNX_MatMulOp : ONNX_Op<"MatMul", [DeclareOpInterfaceMethods<ONNX_ComputeCostInterface>]> {
  let summary = "numpy.matmul: batched, broadcasting matrix product";
  let arguments = (ins AnyTensor:$A, AnyTensor:$B);
  let results = (outs AnyTensor:$Y);
}

def ONNX_GemmOp : ONNX_Op<"Gemm", [DeclareOpInterfaceMethods<ONNX_ComputeCostInterface>]> {
  let summary = "Y = alpha * op(A) * op(B) + beta * C (opset 13)";
  let description = [{
    A is MxK (KxM if transA), B is KxN (NxK if transB), C is optional and
    unidirectionally broadcast to MxN.
  }];
  let arguments = (ins AnyTensor:$A, AnyTensor:$B, ONNX_TensorOrNone:$C,
                   DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                   DefaultValuedAttr<F32Attr, "1.0">:$beta,
                   DefaultValuedAttr<I64Attr, "0">:$transA,
                   DefaultValuedAttr<I64Attr, "0">:$transB);
  let results = (outs AnyTensor:$Y);
}

def ONNX_EinsumOp : ONNX_Op<"Einsum"> {
  let summary = "Einstein summation over one or two operands (explicit or implicit output)";
  let arguments = (ins Variadic<AnyTensor>:$Inputs, StrAttr:$equation);
  let results = (outs AnyTensor:$Output);
}

def ONNX_DetOp : ONNX_Op<"Det"> {
  let summary = "determinant of the trailing square matrices";
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
}

// Window functions (opset 17): the size is a scalar input.
class ONNX_WindowOp<string mnemonic, string summaryText> : ONNX_Op<mnemonic> {
  let summary = summaryText;
  let arguments = (ins AnyTensor:$size, DefaultValuedAttr<I64Attr, "1">:$output_datatype,
                   DefaultValuedAttr<I64Attr, "1">:$periodic);
  let results = (outs AnyTensor:$output);
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferShapes() {
      return ::onnxc::onnx::inferWindow(getOperation());
    }
  }];
}
def ONNX_HannWindowOp : ONNX_WindowOp<"HannWindow", "0.5 - 0.5 cos(2 pi n / N)">;
def ONNX_HammingWindowOp : ONNX_WindowOp<"HammingWindow", "25/46 - 21/46 cos(2 pi n / N)">;
def ONNX_BlackmanWindowOp : ONNX_WindowOp<"BlackmanWindow",
                                          "0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)">;

//===-- Reductions (opset 13 form: axes attribute; ReduceSum axes input) --===//
// The importer converts every opset to this form: `axes` is an attribute and
// an empty list means "all axes" unless noop_with_empty_axes is set.
class ONNX_ReduceOp<string mnemonic, string summaryText> : ONNX_Op<mnemonic> {
  let summary = summaryText;
  let arguments = (ins AnyTensor:$data, OptionalAttr<DenseI64ArrayAttr>:$axes,
                   DefaultValuedAttr<I64Attr, "1">:$keepdims,
                   DefaultValuedAttr<I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs AnyTensor:$reduced);
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferShapes() {
      return ::onnxc::onnx::inferReduce(getOperation());
    }
  }];
}
def ONNX_ReduceMeanOp : ONNX_ReduceOp<"ReduceMean", "mean over axes">;
def ONNX_ReduceSumOp  : ONNX_ReduceOp<"ReduceSum", "sum over axes">;
def ONNX_ReduceMaxOp  : ONNX_ReduceOp<"ReduceMax", "maximum over axes">;
def ONNX_ReduceMinOp  : ONNX_ReduceOp<"ReduceMin", "minimum over axes">;
def ONNX_ReduceProdOp : ONNX_ReduceOp<"ReduceProd", "product over axes">;
def ONNX_ReduceSumSquareOp : ONNX_ReduceOp<"ReduceSumSquare", "sum of squares">;
def ONNX_ReduceL1Op   : ONNX_ReduceOp<"ReduceL1", "sum of absolute values">;
def ONNX_ReduceL2Op   : ONNX_ReduceOp<"ReduceL2", "square root of the sum of squares">;
def ONNX_ReduceLogSumOp : ONNX_ReduceOp<"ReduceLogSum", "log of the sum">;
def ONNX_ReduceLogSumExpOp : ONNX_ReduceOp<"ReduceLogSumExp", "log of the sum of exponentials">;

class ONNX_ArgOp<string mnemonic, string summaryText> : ONNX_Op<mnemonic> {
  let summary = summaryText;
  let arguments = (ins AnyTensor:$data, DefaultValuedAttr<I64Attr, "0">:$axis,
                   DefaultValuedAttr<I64Attr, "1">:$keepdims,
                   DefaultValuedAttr<I64Attr, "0">:$select_last_index);
  let results = (outs AnyTensor:$reduced);
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferShapes() {
      return ::onnxc::onnx::inferArgReduce(getOperation());
    }
  }];
}
def ONNX_ArgMaxOp : ONNX_ArgOp<"ArgMax", "index of the maximum along axis (int64)">;
def ONNX_ArgMinOp : ONNX_ArgOp<"ArgMin", "index of the minimum along axis (int64)">;

#endif
