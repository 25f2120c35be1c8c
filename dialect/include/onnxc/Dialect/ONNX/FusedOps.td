//===- FusedOps.td - ops only onnxc's fusion pass creates ------------------===//
//
// Not ONNX operators: onnxc-fuse-ops rewrites op chains into these (as ONNX
// Runtime's com.microsoft FusedConv/FusedGemm do), so that one kernel call
// computes the chain and writes its result once. Import never creates them.
// `activation` names a unary op of the reference kernels (Identity, Relu,
// LeakyRelu, Clamp, Sigmoid, HardSigmoid, HardSwish, Silu, Tanh, Gelu, ...);
// `activation_alpha`/`activation_beta` are its parameters.
//
// (The channel-blocked layout's ops belong to the SIMD targets: the simd
// dialect, targets/simd/SimdOps.td.)
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_FUSED_OPS_TD
#define ONNXC_FUSED_OPS_TD

include "onnxc/Dialect/ONNX/ONNXBase.td"

def ONNX_FusedConvOp : ONNX_Op<"FusedConv", [ONNX_CompilerInternal, DeclareOpInterfaceMethods<ONNX_ComputeCostInterface>]> {
  let summary = "Y = activation(Conv(X, W, B) + Z); Z (optional) has Y's shape";
  let arguments = (ins AnyTensor:$X, AnyTensor:$W, ONNX_TensorOrNone:$B,
                   ONNX_TensorOrNone:$Z,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   ONNX_GroupAttr:$group,
                   OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides,
                   DefaultValuedAttr<StrAttr, "\"Identity\"">:$activation,
                   DefaultValuedAttr<F32Attr, "0.0f">:$activation_alpha,
                   DefaultValuedAttr<F32Attr, "0.0f">:$activation_beta);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_FusedGemmOp : ONNX_Op<"FusedGemm", [ONNX_CompilerInternal, DeclareOpInterfaceMethods<ONNX_ComputeCostInterface>]> {
  let summary = "Y = activation(alpha * A' B' + beta * C), as Gemm";
  let arguments = (ins AnyTensor:$A, AnyTensor:$B, ONNX_TensorOrNone:$C,
                   DefaultValuedAttr<F32Attr, "1.0f">:$alpha,
                   DefaultValuedAttr<F32Attr, "1.0f">:$beta,
                   DefaultValuedAttr<I64Attr, "0">:$transA,
                   DefaultValuedAttr<I64Attr, "0">:$transB,
                   DefaultValuedAttr<StrAttr, "\"Identity\"">:$activation,
                   DefaultValuedAttr<F32Attr, "0.0f">:$activation_alpha,
                   DefaultValuedAttr<F32Attr, "0.0f">:$activation_beta);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

#endif
