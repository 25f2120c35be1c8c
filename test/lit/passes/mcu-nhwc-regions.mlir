// onnxc-mcu-nhwc-regions (the Cortex-M targets' layout pass): a region of
// dense QConvs and same-shape QAdds goes NHWC where its im2col gathers save
// more than the transposes at its edges cost (the default costs: the DSP
// cores'), one transpose per value in and out; a lone 1x1 convolution,
// whose gathers save less than its transposes cost, stays NCHW, unless
// --conv-layout nhwc asks for every region; --conv-layout nchw keeps them
// all. Then the Cortex-M kernels: conv2d with Layout::Nhwc, the
// transposes by nchw_to_nhwc and nhwc_to_nchw.
// RUN: %onnxc-opt --split-input-file --onnxc-mcu-nhwc-regions %s | FileCheck %s
// RUN: %onnxc-opt --split-input-file --onnxc-mcu-nhwc-regions --onnxc-select-kernels --mlir-elide-elementsattrs-if-larger=8 %s | FileCheck %s --check-prefix=KERNEL

// CHECK-LABEL: func.func @region
// CHECK: %[[IN:.*]] = "onnx.Transpose"(%arg0) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x6x6xi8>) -> tensor<1x6x6x4xi8>
// CHECK: %[[C1:.*]] = "cortexm.QConvNhwc"(%[[IN]], {{.*}} -> tensor<1x6x6x4xi8>
// CHECK: %[[C2:.*]] = "cortexm.QConvNhwc"(%[[C1]], {{.*}} -> tensor<1x6x6x4xi8>
// CHECK: %[[SUM:.*]] = "onnx.QAdd"(%[[C2]], %[[IN]]) {{.*}} -> tensor<1x6x6x4xi8>
// CHECK: %[[OUT:.*]] = "onnx.Transpose"(%[[SUM]]) {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x6x6x4xi8>) -> tensor<1x4x6x6xi8>
// CHECK-NOT: onnx.Transpose
// CHECK: return %[[OUT]]
// KERNEL-LABEL: func.func @region
// KERNEL: "onnx.Transpose"{{.*}}callee = "onnxc_rt::mcu::nchw_to_nhwc"{{.*}}"int8_t", "4", "36"
// KERNEL: "cortexm.QConvNhwc"{{.*}}callee = "onnxc_rt::mcu::qs8::conv2d"{{.*}}"onnxc_rt::mcu::Window<4, 6, 6, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1>"{{.*}}"onnxc_rt::mcu::qs8::Smlad", "onnxc_rt::mcu::Layout::Nhwc"
// KERNEL: "onnx.Transpose"{{.*}}callee = "onnxc_rt::mcu::nhwc_to_nchw"{{.*}}"int8_t", "4", "36"
module attributes {onnxc.target = #onnx.target<name = "cortex-m4">} {
func.func @region(%arg0: tensor<1x4x6x6xi8>) -> tensor<1x4x6x6xi8> {
  %w = "onnx.Constant"() {value = dense<3> : tensor<4x4x3x3xi8>} : () -> tensor<4x4x3x3xi8>
  %n = "onnx.NoValue"() : () -> none
  %c1 = "onnx.QConv"(%arg0, %w, %n) {act_max = 127 : i64, act_min = -128 : i64, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, w_scale = array<f32: 0.01>, x_scale = 0.5 : f32, x_zero_point = -1 : i64, y_scale = 1.0 : f32, y_zero_point = 0 : i64} : (tensor<1x4x6x6xi8>, tensor<4x4x3x3xi8>, none) -> tensor<1x4x6x6xi8>
  %c2 = "onnx.QConv"(%c1, %w, %n) {act_max = 127 : i64, act_min = -128 : i64, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, w_scale = array<f32: 0.01>, x_scale = 1.0 : f32, x_zero_point = 0 : i64, y_scale = 1.0 : f32, y_zero_point = 0 : i64} : (tensor<1x4x6x6xi8>, tensor<4x4x3x3xi8>, none) -> tensor<1x4x6x6xi8>
  %s = "onnx.QAdd"(%c2, %arg0) {a_scale = 1.0 : f32, a_zero_point = 0 : i64, act_max = 127 : i64, act_min = -128 : i64, b_scale = 0.5 : f32, b_zero_point = -1 : i64, y_scale = 1.0 : f32, y_zero_point = 0 : i64} : (tensor<1x4x6x6xi8>, tensor<1x4x6x6xi8>) -> tensor<1x4x6x6xi8>
  return %s : tensor<1x4x6x6xi8>
}
}

// -----

// CHECK-LABEL: func.func @lone_pointwise
// CHECK-NOT: onnx.Transpose
// CHECK: "onnx.QConv"
module attributes {onnxc.target = #onnx.target<name = "cortex-m4">} {
func.func @lone_pointwise(%arg0: tensor<1x4x8x8xi8>) -> tensor<1x4x8x8xi8> {
  %w = "onnx.Constant"() {value = dense<1> : tensor<4x4x1x1xi8>} : () -> tensor<4x4x1x1xi8>
  %n = "onnx.NoValue"() : () -> none
  %c = "onnx.QConv"(%arg0, %w, %n) {act_max = 127 : i64, act_min = -128 : i64, group = 1 : i64, w_scale = array<f32: 0.01>, x_scale = 0.5 : f32, x_zero_point = 0 : i64, y_scale = 1.0 : f32, y_zero_point = 0 : i64} : (tensor<1x4x8x8xi8>, tensor<4x4x1x1xi8>, none) -> tensor<1x4x8x8xi8>
  return %c : tensor<1x4x8x8xi8>
}
}

// -----

// CHECK-LABEL: func.func @forced
// CHECK: "onnx.Transpose"
// CHECK: "cortexm.QConvNhwc"
// CHECK: "onnx.Transpose"
module attributes {onnxc.target = #onnx.target<name = "cortex-m4", options = {"conv-layout" = "nhwc"}>} {
func.func @forced(%arg0: tensor<1x4x8x8xi8>) -> tensor<1x4x8x8xi8> {
  %w = "onnx.Constant"() {value = dense<1> : tensor<4x4x1x1xi8>} : () -> tensor<4x4x1x1xi8>
  %n = "onnx.NoValue"() : () -> none
  %c = "onnx.QConv"(%arg0, %w, %n) {act_max = 127 : i64, act_min = -128 : i64, group = 1 : i64, w_scale = array<f32: 0.01>, x_scale = 0.5 : f32, x_zero_point = 0 : i64, y_scale = 1.0 : f32, y_zero_point = 0 : i64} : (tensor<1x4x8x8xi8>, tensor<4x4x1x1xi8>, none) -> tensor<1x4x8x8xi8>
  return %c : tensor<1x4x8x8xi8>
}
}

// -----

// A QConv whose weights are not constants has no Cortex-M kernel: it stays
// NCHW (the reference kernel runs it), whatever --conv-layout says.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: onnx.Transpose
// CHECK-NOT: cortexm.QConvNhwc
module attributes {onnxc.target = #onnx.target<name = "cortex-m4", options = {"conv-layout" = "nhwc"}>} {
func.func @kept(%arg0: tensor<1x4x6x6xi8>, %w: tensor<4x4x3x3xi8>) -> tensor<1x4x6x6xi8> {
  %n = "onnx.NoValue"() : () -> none
  %c = "onnx.QConv"(%arg0, %w, %n) {act_max = 127 : i64, act_min = -128 : i64, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, w_scale = array<f32: 0.01>, x_scale = 0.5 : f32, x_zero_point = 0 : i64, y_scale = 1.0 : f32, y_zero_point = 0 : i64} : (tensor<1x4x6x6xi8>, tensor<4x4x3x3xi8>, none) -> tensor<1x4x6x6xi8>
  return %c : tensor<1x4x6x6xi8>
}
}

// -----

// --conv-layout nchw: no region.
// CHECK-LABEL: func.func @nchw
// CHECK-NOT: onnx.Transpose
// CHECK-NOT: cortexm.QConvNhwc
module attributes {onnxc.target = #onnx.target<name = "cortex-m4", options = {"conv-layout" = "nchw"}>} {
func.func @nchw(%arg0: tensor<1x4x6x6xi8>) -> tensor<1x4x6x6xi8> {
  %w = "onnx.Constant"() {value = dense<3> : tensor<4x4x3x3xi8>} : () -> tensor<4x4x3x3xi8>
  %n = "onnx.NoValue"() : () -> none
  %c = "onnx.QConv"(%arg0, %w, %n) {act_max = 127 : i64, act_min = -128 : i64, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, w_scale = array<f32: 0.01>, x_scale = 0.5 : f32, x_zero_point = 0 : i64, y_scale = 1.0 : f32, y_zero_point = 0 : i64} : (tensor<1x4x6x6xi8>, tensor<4x4x3x3xi8>, none) -> tensor<1x4x6x6xi8>
  return %c : tensor<1x4x6x6xi8>
}
}

// -----

// Two regions reading one input: it is transposed once, for both.
// CHECK-LABEL: func.func @shared_entry
// CHECK: %[[IN:.*]] = "onnx.Transpose"(%arg0) {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NOT: perm = array<i64: 0, 2, 3, 1>
// CHECK: "cortexm.QConvNhwc"(%[[IN]],
// CHECK: "onnx.Transpose"({{.*}}) {perm = array<i64: 0, 3, 1, 2>}
// CHECK: "cortexm.QConvNhwc"(%[[IN]],
// CHECK: "onnx.Transpose"({{.*}}) {perm = array<i64: 0, 3, 1, 2>}
module attributes {onnxc.target = #onnx.target<name = "cortex-m4">} {
func.func @shared_entry(%arg0: tensor<1x4x6x6xi8>) -> (tensor<1x4x6x6xi8>, tensor<1x4x6x6xi8>) {
  %w = "onnx.Constant"() {value = dense<3> : tensor<4x4x3x3xi8>} : () -> tensor<4x4x3x3xi8>
  %n = "onnx.NoValue"() : () -> none
  %c1 = "onnx.QConv"(%arg0, %w, %n) {act_max = 127 : i64, act_min = -128 : i64, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, w_scale = array<f32: 0.01>, x_scale = 0.5 : f32, x_zero_point = 0 : i64, y_scale = 1.0 : f32, y_zero_point = 0 : i64} : (tensor<1x4x6x6xi8>, tensor<4x4x3x3xi8>, none) -> tensor<1x4x6x6xi8>
  %c2 = "onnx.QConv"(%arg0, %w, %n) {act_max = 127 : i64, act_min = -128 : i64, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, w_scale = array<f32: 0.02>, x_scale = 0.5 : f32, x_zero_point = 0 : i64, y_scale = 1.0 : f32, y_zero_point = 0 : i64} : (tensor<1x4x6x6xi8>, tensor<4x4x3x3xi8>, none) -> tensor<1x4x6x6xi8>
  return %c1, %c2 : tensor<1x4x6x6xi8>, tensor<1x4x6x6xi8>
}
}
