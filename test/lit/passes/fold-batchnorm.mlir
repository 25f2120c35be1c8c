// BatchNormalization after a Conv with constant weights folds into the Conv:
// W' = W * scale / sqrt(var + eps), B' = (B - mean) * scale / sqrt(var + eps) + beta.
// RUN: %onnxc-opt --onnxc-fold-batchnorm --onnxc-dce %s | FileCheck %s

// CHECK-LABEL: func.func @conv_bn
// CHECK-DAG: %[[W:.*]] = "onnx.Constant"() {value = dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}1.500000e+00]]]]> : tensor<2x1x1x1xf32>}
// CHECK-DAG: %[[B:.*]] = "onnx.Constant"() {value = dense<[-1.000000e+00, 2.500000e+00]> : tensor<2xf32>}
// CHECK: "onnx.Conv"(%arg0, %[[W]], %[[B]])
// CHECK-NOT: onnx.BatchNormalization
func.func @conv_bn(%arg0: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = "onnx.Constant"() {value = dense<[[[[1.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %b = "onnx.Constant"() {value = dense<[0.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = "onnx.Conv"(%arg0, %w, %b) : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  // scale/sqrt(var+eps) = 2 and 0.5; mean 1 and 0; beta 1 and 2.
  %scale = "onnx.Constant"() {value = dense<[2.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %beta = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = "onnx.Constant"() {value = dense<[1.0, 0.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = "onnx.Constant"() {value = dense<[1.0, 4.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %z, %m1, %v1 = "onnx.BatchNormalization"(%y, %scale, %beta, %mean, %var) {epsilon = 0.0 : f32} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x2x2xf32>, none, none)
  return %z : tensor<1x2x2x2xf32>
}

// A Conv with another user keeps its BatchNormalization.
// CHECK-LABEL: func.func @shared_conv
// CHECK: onnx.BatchNormalization
func.func @shared_conv(%arg0: tensor<1x1x2x2xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) {
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<1x1x1x1xf32>} : () -> tensor<1x1x1x1xf32>
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.Conv"(%arg0, %w, %n) : (tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>, none) -> tensor<1x1x2x2xf32>
  %p = "onnx.Constant"() {value = dense<1.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %z, %m1, %v1 = "onnx.BatchNormalization"(%y, %p, %p, %p, %p) : (tensor<1x1x2x2xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<1x1x2x2xf32>, none, none)
  return %y, %z : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
}

// After a Gemm (torch's Linear + BatchNorm1d) it folds the same way into the
// columns of op(B): B's rows with transB = 1 ...
// CHECK-LABEL: func.func @gemm_transb_bn
// CHECK-DAG: %[[W:.*]] = "onnx.Constant"() {value = dense<{{\[\[}}2.000000e+00, 4.000000e+00], [1.500000e+00, 5.000000e-01]]> : tensor<2x2xf32>}
// CHECK-DAG: %[[B:.*]] = "onnx.Constant"() {value = dense<[-1.000000e+00, 2.500000e+00]> : tensor<2xf32>}
// CHECK: "onnx.Gemm"(%arg0, %[[W]], %[[B]]) {{.*}}beta = 1.000000e+00 : f32, transA = 0 : i64, transB = 1 : i64}
// CHECK-NOT: onnx.BatchNormalization
func.func @gemm_transb_bn(%arg0: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = "onnx.Constant"() {value = dense<[[1.0, 2.0], [3.0, 1.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %b = "onnx.Constant"() {value = dense<[[0.0, 1.0]]> : tensor<1x2xf32>} : () -> tensor<1x2xf32>
  %y = "onnx.Gemm"(%arg0, %w, %b) {transB = 1 : i64} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
  %scale = "onnx.Constant"() {value = dense<[2.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %beta = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = "onnx.Constant"() {value = dense<[1.0, 0.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = "onnx.Constant"() {value = dense<[1.0, 4.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %z, %m1, %v1 = "onnx.BatchNormalization"(%y, %scale, %beta, %mean, %var) {epsilon = 0.0 : f32} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<3x2xf32>, none, none)
  return %z : tensor<3x2xf32>
}

// ... B's columns without transB; no C becomes the folded bias.
// CHECK-LABEL: func.func @gemm_bn_no_bias
// CHECK-DAG: %[[W:.*]] = "onnx.Constant"() {value = dense<{{\[\[}}2.000000e+00, 1.500000e+00], [4.000000e+00, 5.000000e-01]]> : tensor<2x2xf32>}
// CHECK-DAG: %[[B:.*]] = "onnx.Constant"() {value = dense<[-1.000000e+00, 2.000000e+00]> : tensor<2xf32>}
// CHECK: "onnx.Gemm"(%arg0, %[[W]], %[[B]]) {{.*}}beta = 1.000000e+00 : f32, transA = 0 : i64, transB = 0 : i64}
// CHECK-NOT: onnx.BatchNormalization
func.func @gemm_bn_no_bias(%arg0: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = "onnx.Constant"() {value = dense<[[1.0, 3.0], [2.0, 1.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.Gemm"(%arg0, %w, %n) {beta = 0.5 : f32} : (tensor<3x2xf32>, tensor<2x2xf32>, none) -> tensor<3x2xf32>
  %scale = "onnx.Constant"() {value = dense<[2.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %beta = "onnx.Constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %mean = "onnx.Constant"() {value = dense<[1.0, 0.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %var = "onnx.Constant"() {value = dense<[1.0, 4.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %z, %m1, %v1 = "onnx.BatchNormalization"(%y, %scale, %beta, %mean, %var) {epsilon = 0.0 : f32} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<3x2xf32>, none, none)
  return %z : tensor<3x2xf32>
}

// A C that varies by row (N x M), or scaled by beta != 1, stays unfolded.
// CHECK-LABEL: func.func @gemm_row_bias
// CHECK: onnx.BatchNormalization
func.func @gemm_row_bias(%arg0: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = "onnx.Constant"() {value = dense<1.0> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %c = "onnx.Constant"() {value = dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %y = "onnx.Gemm"(%arg0, %w, %c) : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %p = "onnx.Constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %z, %m1, %v1 = "onnx.BatchNormalization"(%y, %p, %p, %p, %p) : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, none, none)
  return %z : tensor<2x2xf32>
}
