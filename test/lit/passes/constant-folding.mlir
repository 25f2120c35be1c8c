// The Shape -> Gather -> Unsqueeze -> Concat -> Reshape chain an exporter
// leaves behind folds away in one walk; the Reshape becomes static.
// RUN: %onnxc-opt --onnxc-constant-folding --onnxc-dce %s | FileCheck %s

// CHECK-LABEL: func.func @shape_chain
// CHECK-SAME: -> tensor<2x12xf32>
// CHECK-NOT: onnx.Shape
// CHECK-NOT: onnx.Gather
// CHECK-NOT: onnx.Concat
// CHECK: %[[S:.*]] = "onnx.Constant"() {value = dense<[2, -1]> : tensor<2xi64>}
// CHECK: "onnx.Reshape"(%arg0, %[[S]]) {allowzero = 0 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
func.func @shape_chain(%arg0: tensor<2x3x4xf32>) -> tensor<*xf32> {
  %0 = "onnx.Shape"(%arg0) {start = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %1 = "onnx.Constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %2 = "onnx.Gather"(%0, %1) {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %3 = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %4 = "onnx.Unsqueeze"(%2, %3) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %5 = "onnx.Constant"() {value = dense<-1> : tensor<1xi64>} : () -> tensor<1xi64>
  %6 = "onnx.Concat"(%4, %5) {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %7 = "onnx.Reshape"(%arg0, %6) {allowzero = 0 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %7 : tensor<*xf32>
}

// Arithmetic on constants runs through the runtime-lite kernels.
// CHECK-LABEL: func.func @arith
// CHECK: "onnx.Constant"() {value = dense<[5.000000e+00, 7.000000e+00]> : tensor<2xf32>}
// CHECK-NOT: onnx.Add
func.func @arith() -> tensor<2xf32> {
  %a = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = "onnx.Constant"() {value = dense<[4.0, 5.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %c = "onnx.Add"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %c : tensor<2xf32>
}

// Results much larger than their inputs are not materialised.
// CHECK-LABEL: func.func @no_grow
// CHECK: onnx.ConstantOfShape
func.func @no_grow() -> tensor<*xf32> {
  %s = "onnx.Constant"() {value = dense<[1024, 1024]> : tensor<2xi64>} : () -> tensor<2xi64>
  %c = "onnx.ConstantOfShape"(%s) : (tensor<2xi64>) -> tensor<*xf32>
  return %c : tensor<*xf32>
}

// Ops that do nothing for their types fold to their operand.
// CHECK-LABEL: func.func @no_ops
// CHECK-NEXT: %[[R:.*]] = "onnx.Relu"(%arg0)
// CHECK-NEXT: return %[[R]]
func.func @no_ops(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "onnx.Identity"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "onnx.Cast"(%0) {to = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "onnx.Transpose"(%1) {perm = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = "onnx.Constant"() {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %3 = "onnx.Reshape"(%2, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %4 = "onnx.Relu"(%3) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %4 : tensor<2x3xf32>
}

// An op whose shape the data decides, on a constant (torch's nonzero() on a
// fixed mask), folds to its real size; its users see the real shape.
// CHECK-LABEL: func.func @nonzero_of_constant
// CHECK-SAME: -> tensor<2x1xi64>
// CHECK: "onnx.Constant"() {value = dense<{{\[}}[1], [3]]> : tensor<2x1xi64>}
// CHECK-NOT: onnx.NonZero
func.func @nonzero_of_constant() -> tensor<*xi64> {
  %m = "onnx.Constant"() {value = dense<[0, 5, 0, 7]> : tensor<4xi64>} : () -> tensor<4xi64>
  %y, %n = "onnx.NonZero"(%m) : (tensor<4xi64>) -> (tensor<1x4xi64>, tensor<i64>)
  %t = "onnx.Transpose"(%y) {perm = array<i64: 1, 0>} : (tensor<1x4xi64>) -> tensor<*xi64>
  return %t : tensor<*xi64>
}

// -----

// The data decides the size of NonZero's dim 1 (the type holds the bound,
// 6): a Shape reading it is not a constant, one reading only dim 0 is.
// CHECK-LABEL: func.func @shape_of_data_dependent_dim
// CHECK: "onnx.Shape"(%{{.*}}) {start = 0 : i64}
// CHECK: "onnx.Constant"() {value = dense<1> : tensor<1xi64>}
func.func @shape_of_data_dependent_dim(%x: tensor<6xf32>) -> (tensor<*xi64>, tensor<*xi64>) {
  %y, %n = "onnx.NonZero"(%x) : (tensor<6xf32>) -> (tensor<1x6xi64>, tensor<i64>)
  %s = "onnx.Shape"(%y) {start = 0 : i64} : (tensor<1x6xi64>) -> tensor<*xi64>
  %r = "onnx.Shape"(%y) {start = 0 : i64, end = 1 : i64} : (tensor<1x6xi64>) -> tensor<*xi64>
  return %s, %r : tensor<*xi64>, tensor<*xi64>
}

// A Resize to the input's own size and a Pad by zeros do nothing: they fold
// to their input (torchvision's detection transform at 320 x 320); a
// tf_crop_and_resize one samples the roi, so it stays.
// CHECK-LABEL: func.func @same_size_resize_and_zero_pad
// CHECK-NOT: onnx.Pad
// CHECK: "onnx.Resize"(%arg0, {{.*}}coordinate_transformation_mode = "tf_crop_and_resize"
// CHECK-NOT: onnx.Resize
// CHECK: return %arg0,
func.func @same_size_resize_and_zero_pad(%x: tensor<1x3x8x8xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %sizes = "onnx.Constant"() {value = dense<[1, 3, 8, 8]> : tensor<4xi64>} : () -> tensor<4xi64>
  %roi = "onnx.Constant"() {value = dense<[0.0, 0.0, 0.1, 0.1, 1.0, 1.0, 0.9, 0.9]> : tensor<8xf32>} : () -> tensor<8xf32>
  %r = "onnx.Resize"(%x, %none, %none, %sizes) {mode = "linear"} : (tensor<1x3x8x8xf32>, none, none, tensor<4xi64>) -> tensor<*xf32>
  %pads = "onnx.Constant"() {value = dense<0> : tensor<8xi64>} : () -> tensor<8xi64>
  %p = "onnx.Pad"(%r, %pads, %none, %none) : (tensor<*xf32>, tensor<8xi64>, none, none) -> tensor<*xf32>
  %c = "onnx.Resize"(%x, %roi, %none, %sizes) {mode = "linear", coordinate_transformation_mode = "tf_crop_and_resize"} : (tensor<1x3x8x8xf32>, tensor<8xf32>, none, tensor<4xi64>) -> tensor<*xf32>
  return %p, %c : tensor<*xf32>, tensor<*xf32>
}
