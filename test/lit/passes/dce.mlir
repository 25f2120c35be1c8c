// Unused ops and weights go, whole chains at once.
// RUN: %onnxc-opt --onnxc-dce %s | FileCheck %s

// CHECK-LABEL: func.func @dead_chain
// CHECK-NEXT: %[[R:.*]] = "onnx.Relu"(%arg0)
// CHECK-NEXT: return %[[R]]
func.func @dead_chain(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = "onnx.Mul"(%arg0, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "onnx.Sigmoid"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "onnx.Relu"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
