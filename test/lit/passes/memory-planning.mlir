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
