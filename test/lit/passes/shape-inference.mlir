// Types follow from operands and attributes, including the window rules of
// Conv and pools, and the function signature is updated.
// RUN: %onnxc-opt --onnxc-shape-inference %s | FileCheck %s

// CHECK-LABEL: func.func @conv_pool
// CHECK-SAME: -> tensor<1x8x8x8xf32>
// CHECK: "onnx.Conv"{{.*}} -> tensor<1x8x16x16xf32>
// CHECK: "onnx.MaxPool"{{.*}} -> (tensor<1x8x8x8xf32>, none)
func.func @conv_pool(%x: tensor<1x3x16x16xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %n) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>, none) -> tensor<*xf32>
  %1, %2 = "onnx.MaxPool"(%0) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<*xf32>) -> (tensor<*xf32>, none)
  return %1 : tensor<*xf32>
}

// SAME_UPPER padding and ceil_mode.
// CHECK-LABEL: func.func @auto_pad
// CHECK: "onnx.AveragePool"{{.*}} -> tensor<1x1x3x3xf32>
// CHECK: "onnx.MaxPool"{{.*}} -> (tensor<1x1x3x3xf32>, none)
func.func @auto_pad(%x: tensor<1x1x5x5xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = "onnx.AveragePool"(%x) {auto_pad = "SAME_UPPER", kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> tensor<*xf32>
  %1, %2 = "onnx.MaxPool"(%x) {ceil_mode = 1 : i64, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> (tensor<*xf32>, none)
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// Broadcasting and MatMul batch broadcasting.
// CHECK-LABEL: func.func @broadcast
// CHECK: "onnx.Add"{{.*}} -> tensor<2x3x4xf32>
// CHECK: "onnx.MatMul"{{.*}} -> tensor<5x2x3x7xf32>
func.func @broadcast(%a: tensor<2x1x4xf32>, %b: tensor<3x1xf32>, %m: tensor<5x1x3x4xf32>, %n: tensor<2x4x7xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = "onnx.Add"(%a, %b) : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<*xf32>
  %1 = "onnx.MatMul"(%m, %n) : (tensor<5x1x3x4xf32>, tensor<2x4x7xf32>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}
