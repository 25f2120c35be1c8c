//===- FusedOps.td - ops only onnxc's fusion pass creates ------------------===//
//
// Not ONNX operators: onnxc-fuse-ops rewrites op chains into these (as ONNX
// Runtime's com.microsoft FusedConv/FusedGemm do), so that one kernel call
// computes the chain and writes its result once. Import never creates them.
// `activation` names a unary op of the reference kernels (Identity, Relu,
// LeakyRelu, Clamp, Sigmoid, HardSigmoid, HardSwish, Silu, Tanh, Gelu, ...);
// `activation_alpha`/`activation_beta` are its parameters.
//
// The Blocked* ops are the channel-blocked layout that onnxc-layout-selection
// introduces for targets with blocked kernels (Target::channelBlock): a
// tensor of logical shape (N, C, H, W) is stored as (N, ceil(C/16), H, W, 16),
// channel c at block c / 16, lane c % 16. The lanes past C are padding:
// finite values that no result depends on.
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

def ONNX_ToBlockedOp : ONNX_Op<"ToBlocked", [ONNX_CompilerInternal]> {
  let summary = "NCHW (N, C, H, W) -> channel-blocked (N, ceil(C/16), H, W, 16), padding lanes zero";
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
}

def ONNX_FromBlockedOp : ONNX_Op<"FromBlocked", [ONNX_CompilerInternal]> {
  let summary = "channel-blocked -> NCHW with `channels` channels (the padding lanes dropped)";
  let arguments = (ins AnyTensor:$X, I64Attr:$channels);
  let results = (outs AnyTensor:$Y);
}

def ONNX_BlockedConvOp : ONNX_Op<"BlockedConv", [ONNX_CompilerInternal, DeclareOpInterfaceMethods<ONNX_ComputeCostInterface>]> {
  let summary = "FusedConv on the channel-blocked layout";
  let description = [{
    Y = activation(Conv(X, W, B) + Z) as onnx.FusedConv, with Y and Z
    channel-blocked and X channel-blocked (rank 5) or NCHW (rank 4: a
    model's first convolution reads its input as it is). W (M, C/group, kH,
    kW) and B stay as Conv's; group is 1, or C = M (depthwise).
    `algorithm` "direct": the register-tiled direct convolution;
    "winograd": Winograd F(4x4, 3x3) (3x3, stride 1, dilation 1, group 1,
    X blocked; onnxc-layout-selection picks it where it pays).
  }];
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
                   DefaultValuedAttr<F32Attr, "0.0f">:$activation_beta,
                   DefaultValuedAttr<StrAttr, "\"direct\"">:$algorithm);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def ONNX_BlockedPoolOp : ONNX_Op<"BlockedPool", [ONNX_CompilerInternal]> {
  let summary = "MaxPool, AveragePool or GlobalAveragePool on the channel-blocked layout";
  let description = [{
    `mode` "max": MaxPool without indices; "average": AveragePool over the
    in-bounds taps (count_include_pad = 0, or no pads); "global_average":
    GlobalAveragePool (no window attributes). Window attributes as ONNX's.
  }];
  let arguments = (ins AnyTensor:$X, StrAttr:$mode,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

#endif
