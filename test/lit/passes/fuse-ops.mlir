// onnxc-fuse-ops: Conv + residual Add + Relu, Conv + Clip (Relu6), Conv +
// x * Sigmoid(x) (SiLU), MatMul + bias -> Gemm (3-D input reshaped), and a
// Gemm's activation seen through the Reshape; chains with other users stay.
// RUN: %onnxc-opt --onnxc-fuse-ops --onnxc-dce %s | FileCheck %s

// CHECK-LABEL: func.func @conv_add_relu
// CHECK: %[[Y:.*]] = "onnx.FusedConv"(%arg0, %{{.*}}, %{{.*}}, %arg1) {activation = "Relu", activation_alpha = 0.000000e+00 : f32, activation_beta = 0.000000e+00 : f32, auto_pad = "NOTSET", group = 1 : i64}
// CHECK-NEXT: return %[[Y]]
func.func @conv_add_relu(%arg0: tensor<1x2x4x4xf32>, %arg1: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %b = "onnx.Constant"() {value = dense<0.5> : tensor<2xf32>} : () -> tensor<2xf32>
  %c = "onnx.Conv"(%arg0, %w, %b) {group = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %s = "onnx.Add"(%arg1, %c) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %r = "onnx.Relu"(%s) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// CHECK-LABEL: func.func @conv_relu6
// CHECK: "onnx.FusedConv"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}) {activation = "Clamp", activation_alpha = 0.000000e+00 : f32, activation_beta = 6.000000e+00 : f32
// CHECK-NOT: onnx.Clip
func.func @conv_relu6(%arg0: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %n = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%arg0, %w, %n) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %lo = "onnx.Constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %hi = "onnx.Constant"() {value = dense<6.0> : tensor<f32>} : () -> tensor<f32>
  %r = "onnx.Clip"(%c, %lo, %hi) : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// CHECK-LABEL: func.func @conv_silu
// CHECK: "onnx.FusedConv"{{.*}}activation = "Silu"
// CHECK-NOT: onnx.Sigmoid
// CHECK-NOT: onnx.Mul
func.func @conv_silu(%arg0: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %n = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%arg0, %w, %n) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %s = "onnx.Sigmoid"(%c) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %m = "onnx.Mul"(%c, %s) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %m : tensor<1x2x4x4xf32>
}

// A Conv whose result is also returned keeps its Relu separate.
// CHECK-LABEL: func.func @shared_conv
// CHECK: "onnx.Conv"
// CHECK: "onnx.Relu"
func.func @shared_conv(%arg0: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %n = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%arg0, %w, %n) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %r = "onnx.Relu"(%c) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %c, %r : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// MatMul (3-D activations x constant weights) + bias + Relu: Reshape to 2-D,
// FusedGemm with the Relu, Reshape back.
// CHECK-LABEL: func.func @linear_relu
// CHECK: %[[A:.*]] = "onnx.Reshape"(%arg0, %{{.*}}) {{.*}} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
// CHECK: %[[G:.*]] = "onnx.FusedGemm"(%[[A]], %{{.*}}, %{{.*}}) {activation = "Relu"
// CHECK-SAME: -> tensor<6x5xf32>
// CHECK: %[[Y:.*]] = "onnx.Reshape"(%[[G]], %{{.*}}) {{.*}} : (tensor<6x5xf32>, tensor<3xi64>) -> tensor<2x3x5xf32>
// CHECK-NEXT: return %[[Y]]
func.func @linear_relu(%arg0: tensor<2x3x4xf32>) -> tensor<2x3x5xf32> {
  %w = "onnx.Constant"() {value = dense<0.25> : tensor<4x5xf32>} : () -> tensor<4x5xf32>
  %b = "onnx.Constant"() {value = dense<1.0> : tensor<5xf32>} : () -> tensor<5xf32>
  %m = "onnx.MatMul"(%arg0, %w) : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %a = "onnx.Add"(%m, %b) : (tensor<2x3x5xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  %r = "onnx.Relu"(%a) : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}

// A bias that is not a constant vector of the columns stays an Add.
// CHECK-LABEL: func.func @matmul_runtime_bias
// CHECK: "onnx.MatMul"
// CHECK: "onnx.Add"
func.func @matmul_runtime_bias(%arg0: tensor<3x4xf32>, %arg1: tensor<5xf32>) -> tensor<3x5xf32> {
  %w = "onnx.Constant"() {value = dense<0.25> : tensor<4x5xf32>} : () -> tensor<4x5xf32>
  %m = "onnx.MatMul"(%arg0, %w) : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %a = "onnx.Add"(%m, %arg1) : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  return %a : tensor<3x5xf32>
}
