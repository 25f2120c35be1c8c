// onnxc-fuse-ops: Conv + residual Add + Relu, Conv + Clip (Relu6), Conv +
// x * Sigmoid(x) (SiLU), MatMul + bias -> Gemm (3-D input reshaped), and a
// Gemm's activation seen through the Reshape; unit-dim Transposes as Reshapes;
// LayerNorm recognised from its exported chain; chains with other users stay.
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

// A Transpose that only moves a dim of size 1 is a Reshape (a view); one
// that moves data stays.
// CHECK-LABEL: func.func @transpose_unit_dim
// CHECK: %[[R:.*]] = "onnx.Reshape"(%arg0, %{{.*}}) {allowzero = 0 : i64} : (tensor<4x1x8xf32>, tensor<3xi64>) -> tensor<1x4x8xf32>
// CHECK: "onnx.Transpose"(%[[R]]) {perm = array<i64: 0, 2, 1>}
func.func @transpose_unit_dim(%arg0: tensor<4x1x8xf32>) -> tensor<1x8x4xf32> {
  %t = "onnx.Transpose"(%arg0) {perm = array<i64: 1, 0, 2>} : (tensor<4x1x8xf32>) -> tensor<1x4x8xf32>
  %u = "onnx.Transpose"(%t) {perm = array<i64: 0, 2, 1>} : (tensor<1x4x8xf32>) -> tensor<1x8x4xf32>
  return %u : tensor<1x8x4xf32>
}

// LayerNorm as exported before opset 17 (ReduceMean, Sub, Pow, ReduceMean,
// Add eps, Sqrt, Div, Mul scale, Add bias) -> LayerNormalization.
// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[Y:.*]], %{{.*}}, %{{.*}} = "onnx.LayerNormalization"(%arg0, %{{.*}}, %{{.*}}) {axis = -1 : i64, epsilon = 9.99999974E-6 : f32, stash_type = 1 : i64} : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x3x8xf32>, none, none)
// CHECK-NEXT: return %[[Y]]
func.func @layer_norm(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %m = "onnx.ReduceMean"(%x) {axes = array<i64: -1>, keepdims = 1 : i64} : (tensor<2x3x8xf32>) -> tensor<2x3x1xf32>
  %d = "onnx.Sub"(%x, %m) : (tensor<2x3x8xf32>, tensor<2x3x1xf32>) -> tensor<2x3x8xf32>
  %two = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %p = "onnx.Pow"(%d, %two) : (tensor<2x3x8xf32>, tensor<f32>) -> tensor<2x3x8xf32>
  %v = "onnx.ReduceMean"(%p) {axes = array<i64: 2>, keepdims = 1 : i64} : (tensor<2x3x8xf32>) -> tensor<2x3x1xf32>
  %eps = "onnx.Constant"() {value = dense<1.0e-5> : tensor<f32>} : () -> tensor<f32>
  %ve = "onnx.Add"(%v, %eps) : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
  %s = "onnx.Sqrt"(%ve) : (tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %n = "onnx.Div"(%d, %s) : (tensor<2x3x8xf32>, tensor<2x3x1xf32>) -> tensor<2x3x8xf32>
  %g = "onnx.Constant"() {value = dense<1.5> : tensor<8xf32>} : () -> tensor<8xf32>
  %b = "onnx.Constant"() {value = dense<0.25> : tensor<8xf32>} : () -> tensor<8xf32>
  %sc = "onnx.Mul"(%n, %g) : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %y = "onnx.Add"(%b, %sc) : (tensor<8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}

// The normalised value is also returned: the chain is not a LayerNorm.
// CHECK-LABEL: func.func @layer_norm_escaping
// CHECK-NOT: onnx.LayerNormalization
// CHECK: onnx.ReduceMean
func.func @layer_norm_escaping(%x: tensor<3x8xf32>) -> (tensor<3x8xf32>, tensor<3x8xf32>) {
  %m = "onnx.ReduceMean"(%x) {axes = array<i64: -1>, keepdims = 1 : i64} : (tensor<3x8xf32>) -> tensor<3x1xf32>
  %d = "onnx.Sub"(%x, %m) : (tensor<3x8xf32>, tensor<3x1xf32>) -> tensor<3x8xf32>
  %p = "onnx.Mul"(%d, %d) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
  %v = "onnx.ReduceMean"(%p) {axes = array<i64: -1>, keepdims = 1 : i64} : (tensor<3x8xf32>) -> tensor<3x1xf32>
  %eps = "onnx.Constant"() {value = dense<1.0e-5> : tensor<f32>} : () -> tensor<f32>
  %ve = "onnx.Add"(%v, %eps) : (tensor<3x1xf32>, tensor<f32>) -> tensor<3x1xf32>
  %s = "onnx.Sqrt"(%ve) : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %n = "onnx.Div"(%d, %s) : (tensor<3x8xf32>, tensor<3x1xf32>) -> tensor<3x8xf32>
  %g = "onnx.Constant"() {value = dense<1.5> : tensor<8xf32>} : () -> tensor<8xf32>
  %sc = "onnx.Mul"(%n, %g) : (tensor<3x8xf32>, tensor<8xf32>) -> tensor<3x8xf32>
  return %sc, %n : tensor<3x8xf32>, tensor<3x8xf32>
}
