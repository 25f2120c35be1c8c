//===- CortexMOps.td - the Cortex-M targets' own op -----------------------===//
//
// The `cortexm` dialect holds what only the Cortex-M targets run: a
// quantized convolution with the MaxPool after it folded in
// (onnxc-mcu-fuse-conv-pool), which the microcontroller kernel computes by
// keeping each window's largest int32 accumulator and requantizing that one;
// and the same convolutions on NHWC tensors (onnxc-mcu-nhwc-regions).
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_CORTEXM_OPS_TD
#define ONNXC_CORTEXM_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "onnxc/Dialect/ONNX/ShapeInferenceInterface.td"
include "onnxc/Dialect/ONNX/OpFacts.td"

def CortexM_Dialect : Dialect {
  let name = "cortexm";
  let cppNamespace = "::onnxc::cortexm";
  let summary = "the Cortex-M targets' own ops (onnxc-mcu-fuse-conv-pool, "
                "onnxc-mcu-nhwc-regions)";
  // Plain attributes: the fusion copies the QConv's as they are.
  let usePropertiesForAttributes = 0;
}

def CortexM_TensorOrNone : AnyTypeOf<[AnyTensor, NoneType]>;

def CortexM_QConvMaxPoolOp : Op<CortexM_Dialect, "QConvMaxPool",
    [Pure, DeclareOpInterfaceMethods<ShapeInferenceOpInterface>,
     DeclareOpInterfaceMethods<ONNX_ComputeCostInterface>]> {
  let summary = "onnx.QConv, 2-D, its output max-pooled by whole windows";
  let description = [{
    Y is onnx.QConv's output (the same operands and attributes) max-pooled
    by a `max_pool` = (pH, pW) window at stride (pH, pW), no padding, rows
    and columns past the last whole window dropped. The Cortex-M kernel
    (onnxc_rt::mcu::qs8::conv2d_max_pool) runs it where it can, the
    reference one (qs8::conv_max_pool: the convolution, then the pool)
    elsewhere.
  }];
  let arguments = (ins AnyTensor:$X, AnyTensor:$W, CortexM_TensorOrNone:$B,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$group,
                   OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides,
                   DenseI64ArrayAttr:$max_pool,
                   F32Attr:$x_scale, I64Attr:$x_zero_point,
                   DenseF32ArrayAttr:$w_scale,
                   F32Attr:$y_scale, I64Attr:$y_zero_point,
                   I64Attr:$act_min, I64Attr:$act_max);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

def CortexM_QConvNhwcOp : Op<CortexM_Dialect, "QConvNhwc",
    [Pure, DeclareOpInterfaceMethods<ShapeInferenceOpInterface>,
     DeclareOpInterfaceMethods<ONNX_ComputeCostInterface>]> {
  let summary = "onnx.QConv (2-D, group 1) on NHWC tensors, optionally max-pooled";
  let description = [{
    onnx.QConv's convolution (the same operands, W in ONNX's M x C x kH x kW
    order, and the same attributes) of an NHWC X (N x H x W x C) into an
    NHWC Y (N x OH x OW x M), or, with `max_pool`, QConvMaxPool's pooled
    output in NHWC. onnxc-mcu-nhwc-regions makes it where the cost of the
    Cortex-M convolution's im2col gathers from NCHW planes outweighs that of
    transposing the region's edges; the microcontroller kernel
    (onnxc_rt::mcu::qs8::conv2d with Layout::Nhwc) runs it, a window row
    being one run of kW x C values.
  }];
  let arguments = (ins AnyTensor:$X, AnyTensor:$W, CortexM_TensorOrNone:$B,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$group,
                   OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides,
                   OptionalAttr<DenseI64ArrayAttr>:$max_pool,
                   F32Attr:$x_scale, I64Attr:$x_zero_point,
                   DenseF32ArrayAttr:$w_scale,
                   F32Attr:$y_scale, I64Attr:$y_zero_point,
                   I64Attr:$act_min, I64Attr:$act_max);
  let results = (outs AnyTensor:$Y);
  let hasVerifier = 1;
}

#endif
