// onnxc-mcu-fuse-conv-pool (the Cortex-M targets' pass): a QConv whose only
// user is a MaxPool of whole non-overlapping windows becomes one
// cortexm.QConvMaxPool (odd sizes drop the last row and column, as the pool
// did) where the Cortex-M conv2d kernel runs it; an
// overlapping or padded pool, a pool with Indices, and a QConv with another
// user stay as they are. Then the Cortex-M kernels: the pooled convolution
// runs onnxc_rt::mcu::qs8::conv2d_max_pool.
// RUN: %onnxc-opt --split-input-file --onnxc-mcu-fuse-conv-pool %s | FileCheck %s
// RUN: %onnxc-opt --split-input-file --onnxc-mcu-fuse-conv-pool --onnxc-select-kernels --mlir-elide-elementsattrs-if-larger=8 %s | FileCheck %s --check-prefix=KERNEL

// CHECK-LABEL: func.func @fused
// CHECK: %[[Y:.*]] = "cortexm.QConvMaxPool"(%arg0, %{{.*}}, %{{.*}}) {act_max = 127 : i64, act_min = -128 : i64, group = 1 : i64, max_pool = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>{{.*}} -> tensor<1x2x3x2xi8>
// CHECK-NOT: onnx.MaxPool
// CHECK: return %[[Y]]
// KERNEL-LABEL: func.func @fused
// KERNEL: "cortexm.QConvMaxPool"{{.*}}callee = "onnxc_rt::mcu::qs8::conv2d_max_pool"{{.*}}"int8_t", "onnxc_rt::mcu::Window<1, 7, 5, 7, 5, 3, 3, 1, 1, 1, 1, 1, 1>", "2", "-1", "0", "-128", "127", "false", "2", "2"
module attributes {onnxc.target = #onnx.target<name = "cortex-m4">} {
func.func @fused(%arg0: tensor<1x1x7x5xi8>) -> tensor<1x2x3x2xi8> {
  %w = "onnx.Constant"() {value = dense<[[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[-1, 0, 1], [2, -2, 3], [0, 0, 1]]]]> : tensor<2x1x3x3xi8>} : () -> tensor<2x1x3x3xi8>
  %b = "onnx.Constant"() {value = dense<[10, -20]> : tensor<2xi32>} : () -> tensor<2xi32>
  %c = "onnx.QConv"(%arg0, %w, %b) {act_max = 127 : i64, act_min = -128 : i64, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, w_scale = array<f32: 0.25, 0.5>, x_scale = 0.5 : f32, x_zero_point = -1 : i64, y_scale = 1.0 : f32, y_zero_point = 0 : i64} : (tensor<1x1x7x5xi8>, tensor<2x1x3x3xi8>, tensor<2xi32>) -> tensor<1x2x7x5xi8>
  %p, %i = "onnx.MaxPool"(%c) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x7x5xi8>) -> (tensor<1x2x3x2xi8>, none)
  return %p : tensor<1x2x3x2xi8>
}
}

// -----

// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: "onnx.MaxPool"
module attributes {onnxc.target = #onnx.target<name = "cortex-m4">} {
func.func @kept(%arg0: tensor<1x1x6x6xi8>) -> (tensor<1x1x5x5xi8>, tensor<1x1x4x4xi8>, tensor<1x1x3x3xi8>, tensor<1x1x6x6xi8>) {
  %w = "onnx.Constant"() {value = dense<1> : tensor<1x1x1x1xi8>} : () -> tensor<1x1x1x1xi8>
  %n = "onnx.NoValue"() : () -> none
  %c1 = "onnx.QConv"(%arg0, %w, %n) {act_max = 127 : i64, act_min = -128 : i64, group = 1 : i64, w_scale = array<f32: 1.0>, x_scale = 1.0 : f32, x_zero_point = 0 : i64, y_scale = 1.0 : f32, y_zero_point = 0 : i64} : (tensor<1x1x6x6xi8>, tensor<1x1x1x1xi8>, none) -> tensor<1x1x6x6xi8>
  %p1, %i1 = "onnx.MaxPool"(%c1) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>} : (tensor<1x1x6x6xi8>) -> (tensor<1x1x5x5xi8>, none)
  %c2 = "onnx.QConv"(%arg0, %w, %n) {act_max = 127 : i64, act_min = -128 : i64, group = 1 : i64, w_scale = array<f32: 1.0>, x_scale = 1.0 : f32, x_zero_point = 0 : i64, y_scale = 1.0 : f32, y_zero_point = 0 : i64} : (tensor<1x1x6x6xi8>, tensor<1x1x1x1xi8>, none) -> tensor<1x1x6x6xi8>
  %p2, %i2 = "onnx.MaxPool"(%c2) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x6x6xi8>) -> (tensor<1x1x4x4xi8>, none)
  %c3 = "onnx.QConv"(%arg0, %w, %n) {act_max = 127 : i64, act_min = -128 : i64, group = 1 : i64, w_scale = array<f32: 1.0>, x_scale = 1.0 : f32, x_zero_point = 0 : i64, y_scale = 1.0 : f32, y_zero_point = 0 : i64} : (tensor<1x1x6x6xi8>, tensor<1x1x1x1xi8>, none) -> tensor<1x1x6x6xi8>
  %p3, %i3 = "onnx.MaxPool"(%c3) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x6x6xi8>) -> (tensor<1x1x3x3xi8>, none)
  return %p1, %p2, %p3, %c3 : tensor<1x1x5x5xi8>, tensor<1x1x4x4xi8>, tensor<1x1x3x3xi8>, tensor<1x1x6x6xi8>
}
}

// -----

// A QConv whose weights are not constants has no Cortex-M kernel: the
// pooled convolution runs the reference kernel.
// CHECK-LABEL: func.func @no_kernel
// CHECK: "cortexm.QConvMaxPool"
// KERNEL-LABEL: func.func @no_kernel
// KERNEL: "cortexm.QConvMaxPool"{{.*}}callee = "onnxc_rt::ref::qs8::conv_max_pool"
module attributes {onnxc.target = #onnx.target<name = "cortex-m4">} {
func.func @no_kernel(%arg0: tensor<1x1x4x4xi8>, %w: tensor<1x1x1x1xi8>) -> tensor<1x1x2x2xi8> {
  %n = "onnx.NoValue"() : () -> none
  %c = "onnx.QConv"(%arg0, %w, %n) {act_max = 127 : i64, act_min = -128 : i64, group = 1 : i64, w_scale = array<f32: 1.0>, x_scale = 1.0 : f32, x_zero_point = 0 : i64, y_scale = 1.0 : f32, y_zero_point = 0 : i64} : (tensor<1x1x4x4xi8>, tensor<1x1x1x1xi8>, none) -> tensor<1x1x4x4xi8>
  %p, %i = "onnx.MaxPool"(%c) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xi8>) -> (tensor<1x1x2x2xi8>, none)
  return %p : tensor<1x1x2x2xi8>
}
}
