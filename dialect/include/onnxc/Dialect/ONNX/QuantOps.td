//===- QuantOps.td - integer ops of the qs8 scheme --------------------------===//
//
// Not ONNX operators: onnxc-fold-qdq rewrites DequantizeLinear -> op ->
// QuantizeLinear chains into these, so that no float arithmetic is left
// between a model's Q and DQ nodes. They compute in the qs8 scheme of
// runtime-lite's reference/qs8.h (TFLite / CMSIS-NN int8): int32
// accumulation, fixed-point requantization, results saturated to the output
// type and clamped to [act_min, act_max] (quantized values: the type's range,
// or narrower where a Relu or Clip was folded in).
//
// Quantization parameters are attributes: `x_scale` and `x_zero_point` for
// the input (`a_`/`b_` for the two inputs of an add), `y_` for the output,
// `w_scale` per output channel (or one value) for symmetric int8 weights.
// Activations are int8 or uint8; the output type is the result's.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_QUANT_OPS_TD
#define ONNXC_QUANT_OPS_TD

include "onnxc/Dialect/ONNX/ONNXBase.td"

def ONNX_QConvOp : ONNX_Op<"QConv", [ONNX_CompilerInternal, DeclareOpInterfaceMethods<ONNX_ComputeCostInterface>]> {
  let summary = "quantized Conv (qs8): X int8/uint8, W int8 per-channel symmetric, B int32";
  let description = [{
    Y = clamp(y_zero_point + requantize(sum((X - x_zero_point) * W) + B)),
    requantized per output channel by x_scale * w_scale[c] / y_scale. B's
    scale is x_scale * w_scale[c]; padding reads x_zero_point (real 0).
    (The Cortex-M targets fold a MaxPool after it into their own
    cortexm.QConvMaxPool, targets/cortex-m/CortexMOps.td.)
  }];
  let arguments = (ins AnyTensor:$X, AnyTensor:$W, ONNX_TensorOrNone:$B,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   ONNX_GroupAttr:$group,
                   OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides,
                   F32Attr:$x_scale, I64Attr:$x_zero_point,
                   DenseF32ArrayAttr:$w_scale,
                   F32Attr:$y_scale, I64Attr:$y_zero_point,
                   I64Attr:$act_min, I64Attr:$act_max);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_QMatMulOp : ONNX_Op<"QMatMul", [ONNX_CompilerInternal, DeclareOpInterfaceMethods<ONNX_ComputeCostInterface>]> {
  let summary = "quantized MatMul/Gemm (qs8): A (..., K) x W (K, N) int8, + B int32 (N)";
  let description = [{
    Y = clamp(y_zero_point + requantize((A - x_zero_point) x W + B)) with
    w_scale per column of W (or one value). A Gemm with a constant B
    (transposed at compile time where transB) and MatMul with a constant
    right operand fold into it.
  }];
  let arguments = (ins AnyTensor:$A, AnyTensor:$W, ONNX_TensorOrNone:$B,
                   F32Attr:$x_scale, I64Attr:$x_zero_point,
                   DenseF32ArrayAttr:$w_scale,
                   F32Attr:$y_scale, I64Attr:$y_zero_point,
                   I64Attr:$act_min, I64Attr:$act_max);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_QAddOp : ONNX_Op<"QAdd", [ONNX_CompilerInternal]> {
  let summary = "quantized Add (qs8), numpy broadcasting";
  let arguments = (ins AnyTensor:$A, AnyTensor:$B,
                   F32Attr:$a_scale, I64Attr:$a_zero_point,
                   F32Attr:$b_scale, I64Attr:$b_zero_point,
                   F32Attr:$y_scale, I64Attr:$y_zero_point,
                   I64Attr:$act_min, I64Attr:$act_max);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_QMulOp : ONNX_Op<"QMul", [ONNX_CompilerInternal]> {
  let summary = "quantized Mul (qs8), numpy broadcasting";
  let description = [{
    (A - a_zero_point) * (B - b_zero_point) brought to the output by
    a_scale * b_scale / y_scale, plus y_zero_point, clamped.
  }];
  let arguments = (ins AnyTensor:$A, AnyTensor:$B,
                   F32Attr:$a_scale, I64Attr:$a_zero_point,
                   F32Attr:$b_scale, I64Attr:$b_zero_point,
                   F32Attr:$y_scale, I64Attr:$y_zero_point,
                   I64Attr:$act_min, I64Attr:$act_max);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_QAveragePoolOp : ONNX_Op<"QAveragePool", [ONNX_CompilerInternal]> {
  let summary = "quantized AveragePool / GlobalAveragePool (qs8)";
  let description = [{
    The window's mean of X - x_zero_point, rounded half away from zero,
    brought to the output's quantization (x_scale / y_scale). A
    GlobalAveragePool is the window of the whole plane.
  }];
  let arguments = (ins AnyTensor:$X,
                   DenseI64ArrayAttr:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides,
                   DefaultValuedAttr<I64Attr, "0">:$count_include_pad,
                   F32Attr:$x_scale, I64Attr:$x_zero_point,
                   F32Attr:$y_scale, I64Attr:$y_zero_point);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_QRescaleOp : ONNX_Op<"QRescale", [ONNX_CompilerInternal]> {
  let summary = "one quantization to another: a DequantizeLinear followed by a QuantizeLinear";
  let arguments = (ins AnyTensor:$X,
                   F32Attr:$x_scale, I64Attr:$x_zero_point,
                   F32Attr:$y_scale, I64Attr:$y_zero_point);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_QLookupOp : ONNX_Op<"QLookup", [ONNX_CompilerInternal]> {
  let summary = "Y = Table[X - lowest]: an element-wise function of one quantized value";
  let description = [{
    Table holds the function's quantized result for each of the 256 values
    of X's type, in order from the lowest. onnxc-fold-qdq builds it as
    QuantizeLinear(f(DequantizeLinear(all values))), which constant
    folding evaluates with the reference kernels of f.
  }];
  let arguments = (ins AnyTensor:$X, AnyTensor:$Table);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

#endif
