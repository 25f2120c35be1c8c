// Liveness-based packing: buffers whose lives do not overlap share bytes,
// elementwise ops run in place, outputs go straight to the caller.
// RUN: %onnxc-opt --onnxc-memory-planning %s | FileCheck %s

// x -> Relu (t0, 4 KB) -> Sigmoid (in place over t0) -> MatMul (t1) -> Tanh -> out
// CHECK-LABEL: func.func @chain
// CHECK-SAME: onnxc.arena_size = 8192 : i64
// CHECK-SAME: onnxc.naive_size = 16384 : i64
// CHECK: "onnx.Relu"(%arg0) {onnxc.offset = array<i64: 0>}
// CHECK: "onnx.Sigmoid"(%{{.*}}) {onnxc.offset = array<i64: 0>}
// CHECK: "onnx.MatMul"(%{{.*}}, %{{.*}}) {onnxc.offset = array<i64: 4096>}
// The last op writes the graph output directly: not in the arena.
// CHECK: "onnx.Tanh"(%{{.*}}) {onnxc.offset = array<i64: -1>}
func.func @chain(%arg0: tensor<32x32xf32>, %w: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %0 = "onnx.Relu"(%arg0) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %1 = "onnx.Sigmoid"(%0) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %2 = "onnx.MatMul"(%1, %w) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %3 = "onnx.Tanh"(%2) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %3 : tensor<32x32xf32>
}

// A view shares its operand's buffer; the buffer lives until the view's last use.
// CHECK-LABEL: func.func @view
// CHECK: "onnx.Relu"(%arg0) {onnxc.offset = array<i64: 0>}
// CHECK: "onnx.Reshape"({{.*}}) {allowzero = 0 : i64, onnxc.offset = array<i64: -1>}
// CHECK: "onnx.Exp"(%arg0) {onnxc.offset = array<i64: 64>}
func.func @view(%arg0: tensor<4x4xf32>) -> tensor<16xf32> {
  %0 = "onnx.Relu"(%arg0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = "onnx.Constant"() {value = dense<16> : tensor<1xi64>} : () -> tensor<1xi64>
  %1 = "onnx.Reshape"(%0, %s) : (tensor<4x4xf32>, tensor<1xi64>) -> tensor<16xf32>
  %2 = "onnx.Exp"(%arg0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %3 = "onnx.Reshape"(%2, %s) : (tensor<4x4xf32>, tensor<1xi64>) -> tensor<16xf32>
  %4 = "onnx.Add"(%1, %3) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %4 : tensor<16xf32>
}

// A batch-1 channel Concat in place: each operand is produced straight into
// its part of the result (the second 4 KB on), and the Concat copies nothing.
// CHECK-LABEL: func.func @concat_in_place
// CHECK-SAME: onnxc.arena_size = 8192 : i64
// CHECK: "onnx.Relu"(%arg0) {onnxc.offset = array<i64: [[#C:]]>}
// CHECK: "onnx.Sigmoid"(%arg0) {onnxc.offset = array<i64: [[#C+4096]]>}
// CHECK: "onnx.Concat"({{.*}}) {axis = 1 : i64, onnxc.in_place, onnxc.offset = array<i64: [[#C]]>}
func.func @concat_in_place(%arg0: tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32> {
  %0 = "onnx.Relu"(%arg0) : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %1 = "onnx.Sigmoid"(%arg0) : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %2 = "onnx.Concat"(%0, %1) {axis = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32>
  %3 = "onnx.Tanh"(%2) : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %3 : tensor<1x32x8x8xf32>
}

// Not in place: a graph input among the operands, a batch of 2 (the
// operands' rows interleave), the same operand twice, a part that would
// start off a 64-byte boundary, a result that is the graph's output.
// CHECK-LABEL: func.func @concat_copied
// CHECK-NOT: onnxc.in_place
// CHECK: return
func.func @concat_copied(%arg0: tensor<1x16x8x8xf32>, %arg1: tensor<2x4x4xf32>, %arg2: tensor<1x3x5xf32>) -> (tensor<1x32x8x8xf32>, tensor<2x8x4xf32>, tensor<1x32x8x8xf32>, tensor<1x6x5xf32>, tensor<1x32x8x8xf32>) {
  %0 = "onnx.Relu"(%arg0) : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %1 = "onnx.Concat"(%0, %arg0) {axis = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32>
  %2 = "onnx.Relu"(%arg1) : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %3 = "onnx.Sigmoid"(%arg1) : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %4 = "onnx.Concat"(%2, %3) {axis = 1 : i64} : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x8x4xf32>
  %5 = "onnx.Exp"(%arg0) : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %6 = "onnx.Concat"(%5, %5) {axis = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32>
  %7 = "onnx.Relu"(%arg2) : (tensor<1x3x5xf32>) -> tensor<1x3x5xf32>
  %8 = "onnx.Sigmoid"(%arg2) : (tensor<1x3x5xf32>) -> tensor<1x3x5xf32>
  %9 = "onnx.Concat"(%7, %8) {axis = 1 : i64} : (tensor<1x3x5xf32>, tensor<1x3x5xf32>) -> tensor<1x6x5xf32>
  %10 = "onnx.Tanh"(%arg0) : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %11 = "onnx.Abs"(%arg0) : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %12 = "onnx.Concat"(%10, %11) {axis = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %1, %4, %6, %9, %12 : tensor<1x32x8x8xf32>, tensor<2x8x4xf32>, tensor<1x32x8x8xf32>, tensor<1x6x5xf32>, tensor<1x32x8x8xf32>
}
