//===- SimdOps.td - the SIMD targets' channel-blocked layout ops ----------===//
//
// The `simd` dialect holds what only the SIMD targets (x86-64, aarch64) run:
// the channel-blocked layout NCHW16c that their onnxc-layout-selection pass
// puts convolution regions in, and the convolution and pools on it. A
// tensor of logical shape (N, C, H, W) is stored (N, ceil(C/16), H, W, 16),
// so a pixel's channels are whole vectors; padding lanes stay zero-safe.
// One op is NCHW: ChannelGather, the int8 kernels' channel shuffle
// (onnxc-qs8-channel-gather), whose tensors stay NCHW.
// The ops keep the onnx ops' attribute names (copied from the Conv or pool
// they replace) and their shapes come from the onnx dialect's shape
// inference interface, so the generic passes treat them like any op.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_SIMD_OPS_TD
#define ONNXC_SIMD_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "onnxc/Dialect/ONNX/ShapeInferenceInterface.td"
include "onnxc/Dialect/ONNX/OpFacts.td"

def Simd_Dialect : Dialect {
  let name = "simd";
  let cppNamespace = "::onnxc::simd";
  let summary = "the SIMD targets' channel-blocked layout (NCHW16c) and its ops";
  // Plain attributes: the layout pass copies a Conv's or a pool's as they are.
  let usePropertiesForAttributes = 0;
  let useDefaultAttributePrinterParser = 1;
}

def Simd_ConvAlgorithm : I32EnumAttr<"ConvAlgorithm", "how a BlockedConv computes", [
    I32EnumAttrCase<"direct", 0>,
    I32EnumAttrCase<"winograd", 1>,
    I32EnumAttrCase<"winograd_f2", 2>]> {
  let cppNamespace = "::onnxc::simd";
  let genSpecializedAttr = 0;
}
def Simd_ConvAlgorithmAttr : EnumAttr<Simd_Dialect, Simd_ConvAlgorithm, "algorithm">;

def Simd_PoolMode : I32EnumAttr<"PoolMode", "the pooling a BlockedPool computes", [
    I32EnumAttrCase<"max", 0>,
    I32EnumAttrCase<"average", 1>,
    I32EnumAttrCase<"global_average", 2>]> {
  let cppNamespace = "::onnxc::simd";
  let genSpecializedAttr = 0;
}
def Simd_PoolModeAttr : EnumAttr<Simd_Dialect, Simd_PoolMode, "pool">;

class Simd_Op<string mnemonic, list<Trait> traits = []> :
    Op<Simd_Dialect, mnemonic,
       !listconcat([Pure, DeclareOpInterfaceMethods<ShapeInferenceOpInterface>], traits)>;

def Simd_ToBlockedOp : Simd_Op<"ToBlocked"> {
  let summary = "NCHW (N, C, H, W) -> channel-blocked (N, ceil(C/16), H, W, 16), padding lanes zero";
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
}

def Simd_FromBlockedOp : Simd_Op<"FromBlocked"> {
  let summary = "channel-blocked -> NCHW with `channels` channels (the padding lanes dropped)";
  let arguments = (ins AnyTensor:$X, I64Attr:$channels);
  let results = (outs AnyTensor:$Y);
}

def Simd_TensorOrNone : AnyTypeOf<[AnyTensor, NoneType]>;

def Simd_BlockedConvOp : Simd_Op<"BlockedConv",
                                 [DeclareOpInterfaceMethods<ONNX_ComputeCostInterface>]> {
  let summary = "FusedConv on the channel-blocked layout";
  let description = [{
    Y = activation(Conv(X, W, B) + Z) as onnx.FusedConv, with Y and Z
    channel-blocked and X channel-blocked (rank 5) or NCHW (rank 4: a
    model's first convolution reads its input as it is). W (M, C/group, kH,
    kW) and B stay as Conv's; group is 1, or C = M (depthwise).
    `algorithm` direct: the register-tiled direct convolution; winograd:
    Winograd F(4x4, 3x3); winograd_f2: Winograd F(2x2, 3x3) (both 3x3,
    stride 1, dilation 1, group 1, X blocked; onnxc-layout-selection picks
    them where they pay).
  }];
  let arguments = (ins AnyTensor:$X, AnyTensor:$W, Simd_TensorOrNone:$B,
                   Simd_TensorOrNone:$Z,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$group,
                   OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides,
                   DefaultValuedAttr<StrAttr, "\"Identity\"">:$activation,
                   DefaultValuedAttr<F32Attr, "0.0f">:$activation_alpha,
                   DefaultValuedAttr<F32Attr, "0.0f">:$activation_beta,
                   DefaultValuedAttr<Simd_ConvAlgorithmAttr,
                                     "::onnxc::simd::ConvAlgorithm::direct">:$algorithm);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def Simd_BlockedExpandDepthwiseOp : Simd_Op<"BlockedExpandDepthwise",
                              [DeclareOpInterfaceMethods<ONNX_ComputeCostInterface>]> {
  let summary = "an inverted-residual block's pointwise expand and depthwise BlockedConvs, fused";
  let description = [{
    Y = activation(depthwise(expand_activation(Conv1x1(X, WE, BE)), WD, BD)
    + Z) with X, Y and Z channel-blocked: two BlockedConvs (WE (M, C, 1, 1),
    group 1, stride 1, no padding; WD (M, 1, kH, kW), group M) whose
    expanded tensor has no other reader. The window attributes are the
    depthwise convolution's. Its kernel (simd/f32/expand_depthwise.h)
    keeps the expanded tensor in bands of rows in scratch, never in the
    arena; onnxc-layout-selection forms it (the target's `block-fusion`
    option).
  }];
  let arguments = (ins AnyTensor:$X, AnyTensor:$WE, Simd_TensorOrNone:$BE,
                   AnyTensor:$WD, Simd_TensorOrNone:$BD, Simd_TensorOrNone:$Z,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides,
                   DefaultValuedAttr<StrAttr, "\"Identity\"">:$expand_activation,
                   DefaultValuedAttr<F32Attr, "0.0f">:$expand_activation_alpha,
                   DefaultValuedAttr<F32Attr, "0.0f">:$expand_activation_beta,
                   DefaultValuedAttr<StrAttr, "\"Identity\"">:$activation,
                   DefaultValuedAttr<F32Attr, "0.0f">:$activation_alpha,
                   DefaultValuedAttr<F32Attr, "0.0f">:$activation_beta);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def Simd_BlockedInvertedResidualOp : Simd_Op<"BlockedInvertedResidual",
                              [DeclareOpInterfaceMethods<ONNX_ComputeCostInterface>]> {
  let summary = "a whole inverted-residual block (expand, depthwise, project BlockedConvs)";
  let description = [{
    Y = activation(Conv1x1(D, WP, BP) + Z) with D =
    depthwise_activation(depthwise(expand_activation(Conv1x1(X, WE, BE)),
    WD, BD)), X, Y and Z channel-blocked: a BlockedExpandDepthwise with no
    residual whose only reader is a pointwise BlockedConv (WP (P, M, 1, 1),
    group 1, stride 1, no padding), the block's project convolution with
    its skip connection Z. A block without an expand convolution (WE and BE
    none: MobileNetV2's first) has D = depthwise_activation(depthwise(X,
    WD, BD)). The window attributes are the depthwise
    convolution's. Its kernel (simd/f32/expand_depthwise.h) walks the
    output in bands of rows, all channels of a band's expanded and
    depthwise rows in scratch, so neither tensor reaches the arena, and
    each task keeps its own rows from block to block; onnxc-layout-selection
    forms it (the target's `block-fusion` option).
  }];
  let arguments = (ins AnyTensor:$X, Simd_TensorOrNone:$WE, Simd_TensorOrNone:$BE,
                   AnyTensor:$WD, Simd_TensorOrNone:$BD, AnyTensor:$WP,
                   Simd_TensorOrNone:$BP, Simd_TensorOrNone:$Z,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides,
                   DefaultValuedAttr<StrAttr, "\"Identity\"">:$expand_activation,
                   DefaultValuedAttr<F32Attr, "0.0f">:$expand_activation_alpha,
                   DefaultValuedAttr<F32Attr, "0.0f">:$expand_activation_beta,
                   DefaultValuedAttr<StrAttr, "\"Identity\"">:$depthwise_activation,
                   DefaultValuedAttr<F32Attr, "0.0f">:$depthwise_activation_alpha,
                   DefaultValuedAttr<F32Attr, "0.0f">:$depthwise_activation_beta,
                   DefaultValuedAttr<StrAttr, "\"Identity\"">:$activation,
                   DefaultValuedAttr<F32Attr, "0.0f">:$activation_alpha,
                   DefaultValuedAttr<F32Attr, "0.0f">:$activation_beta);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def Simd_BlockedScaledConvOp : Simd_Op<"BlockedScaledConv",
                              [DeclareOpInterfaceMethods<ONNX_ComputeCostInterface>]> {
  let summary = "a pointwise BlockedConv of its input times a per-channel scale";
  let description = [{
    Y = activation(Conv1x1(X * S, W, B) + Z) with X, Y and Z
    channel-blocked and S (N, C/16, 1, 1, 16) blocked too: one scale per
    image and input channel, broadcast over the pixels (a squeeze-and-excite
    block's Mul before its project convolution). W (M, C, 1, 1), group 1,
    stride 1, no padding. Its kernel (conv2d_blocked_scaled) scales the
    weights, not X; onnxc-layout-selection forms it where M x C is less than
    C x H x W (the target's `block-fusion` option).
  }];
  let arguments = (ins AnyTensor:$X, AnyTensor:$S, AnyTensor:$W, Simd_TensorOrNone:$B,
                   Simd_TensorOrNone:$Z,
                   DefaultValuedAttr<StrAttr, "\"Identity\"">:$activation,
                   DefaultValuedAttr<F32Attr, "0.0f">:$activation_alpha,
                   DefaultValuedAttr<F32Attr, "0.0f">:$activation_beta);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def Simd_BlockedChannelGatherOp : Simd_Op<"BlockedChannelGather"> {
  let summary = "channels picked from one or two blocked tensors, on the channel-blocked layout";
  let description = [{
    Y's channel j is channel `channels[j]` of the channel concatenation of
    the inputs X (one or two, blocked, with `in_channels` logical channels
    each; the same N, H, W): a channel Concat, shuffle (Reshape, Transpose,
    Reshape) and Slice chain as one copy. Y's padding lanes are zero.
  }];
  let arguments = (ins Variadic<AnyTensor>:$X, DenseI64ArrayAttr:$in_channels,
                   DenseI64ArrayAttr:$channels);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def Simd_ChannelGatherOp : Simd_Op<"ChannelGather"> {
  let summary = "channels picked from one or two int8 / uint8 NCHW tensors, each through a table";
  let description = [{
    BlockedChannelGather's NCHW form for the int8 kernels (whose tensors stay
    NCHW): Y's channel j is channel `channels[j]` of the channel
    concatenation of the inputs X (one or two, NCHW, `in_channels` channels
    each, the same N, H, W). `tables`, where present, holds one entry per
    input: a 256-value table that input's bytes map through (QLookup's:
    the QRescale a Concat input of another scale had), or a unit attribute
    for none. A quantized channel shuffle (QRescale, Concat, Reshape,
    Transpose, Reshape) and the Slices of its halves as one copy each.
  }];
  let arguments = (ins Variadic<AnyTensor>:$X, DenseI64ArrayAttr:$in_channels,
                   DenseI64ArrayAttr:$channels, OptionalAttr<ArrayAttr>:$tables);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def Simd_BlockedPoolOp : Simd_Op<"BlockedPool"> {
  let summary = "MaxPool, AveragePool or GlobalAveragePool on the channel-blocked layout";
  let description = [{
    `mode` max: MaxPool without indices; average: AveragePool over the
    in-bounds taps (count_include_pad = 0, or no pads); global_average:
    GlobalAveragePool (no window attributes). Window attributes as ONNX's.
  }];
  let arguments = (ins AnyTensor:$X, Simd_PoolModeAttr:$mode,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y);
}

#endif
