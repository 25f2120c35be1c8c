// onnxc-select-kernels: which kernel each op gets, per target. The x86
// targets' provider takes the convolution (weights packed at compile time),
// the Gemm, the 2-D MaxPool and the last-axis Softmax, and leaves Relu and
// the axis-0 Softmax to the reference provider; generic lowers everything to
// the reference kernels, Cortex-M its convolutions and Gemms to the mcu ones. The task count comes from the
// target attribute (x86: `threads = 2`: the runner and 2 end the call).
// RUN: %onnxc-opt --split-input-file --onnxc-select-kernels --mlir-elide-elementsattrs-if-larger=8 %s | FileCheck %s

// CHECK-LABEL: func.func @net_generic
// CHECK: "onnx.Conv"{{.*}}callee = "onnxc_rt::ref::conv"
// CHECK: "onnx.Relu"{{.*}}callee = "onnxc_rt::ref::unary"{{.*}}template = ["onnxc_rt::ref::Relu", "float"]
// CHECK: "onnx.MaxPool"{{.*}}callee = "onnxc_rt::ref::max_pool"
// CHECK: "onnx.Gemm"{{.*}}callee = "onnxc_rt::ref::gemm"
// CHECK: "onnx.Softmax"{{.*}}callee = "onnxc_rt::ref::softmax"
// CHECK: "onnx.Softmax"{{.*}}callee = "onnxc_rt::ref::softmax"
module attributes {onnxc.target = #onnx.target<name = "generic">} {
func.func @net_generic(%x: tensor<1x3x8x8xf32>, %a: tensor<2x16xf32>) -> (tensor<1x4x4x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<4x3x3x3xf32>} : () -> tensor<4x3x3x3xf32>
  %n = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%x, %w, %n) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
  %r = "onnx.Relu"(%c) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p, %i = "onnx.MaxPool"(%r) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, none)
  %b = "onnx.Constant"() {value = dense<0.25> : tensor<16x8xf32>} : () -> tensor<16x8xf32>
  %g = "onnx.Gemm"(%a, %b, %n) : (tensor<2x16xf32>, tensor<16x8xf32>, none) -> tensor<2x8xf32>
  %s = "onnx.Softmax"(%g) {axis = -1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %s0 = "onnx.Softmax"(%g) {axis = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %p, %s, %s0 : tensor<1x4x4x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}
}

// -----

// CHECK-LABEL: func.func @net_x86
// CHECK: "onnx.Conv"{{.*}}args = [{kind = "tensor", operand = 0 : i64}, {kind = "tensor", operand = 1 : i64}, dense_resource<__elided__> : tensor<{{[0-9]+}}xf32>, {{.*}}{kind = "runner"}, 2]{{.*}}callee = "onnxc_rt::simd::conv2d"
// CHECK: "onnx.Relu"{{.*}}callee = "onnxc_rt::ref::unary"
// CHECK: "onnx.MaxPool"{{.*}}callee = "onnxc_rt::simd::max_pool2d"
// A constant B is packed at compile time, in slivers of AVX2's 16 columns (16 x 8 -> 16 x 16).
// CHECK: "onnx.Gemm"{{.*}}args = [{kind = "tensor", operand = 0 : i64}, dense_resource<__elided__> : tensor<256xf32>, unit, {{.*}}{kind = "runner"}, 2]{{.*}}callee = "onnxc_rt::simd::gemm_prepacked"{{.*}}template = ["onnxc_rt::ref::Identity", "16"]
// CHECK: "onnx.Softmax"{{.*}}callee = "onnxc_rt::simd::softmax"
// CHECK: "onnx.Softmax"{{.*}}callee = "onnxc_rt::ref::softmax"
module attributes {onnxc.target = #onnx.target<name = "x86-64", threads = 2>} {
func.func @net_x86(%x: tensor<1x3x8x8xf32>, %a: tensor<2x16xf32>) -> (tensor<1x4x4x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<4x3x3x3xf32>} : () -> tensor<4x3x3x3xf32>
  %n = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%x, %w, %n) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
  %r = "onnx.Relu"(%c) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p, %i = "onnx.MaxPool"(%r) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, none)
  %b = "onnx.Constant"() {value = dense<0.25> : tensor<16x8xf32>} : () -> tensor<16x8xf32>
  %g = "onnx.Gemm"(%a, %b, %n) : (tensor<2x16xf32>, tensor<16x8xf32>, none) -> tensor<2x8xf32>
  %s = "onnx.Softmax"(%g) {axis = -1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %s0 = "onnx.Softmax"(%g) {axis = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %p, %s, %s0 : tensor<1x4x4x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}
}

// -----

// Data type is an axis of the kernel: a double convolution on an x86 target
// gets the reference kernel.
// CHECK-LABEL: func.func @double_x86
// CHECK: "onnx.Conv"{{.*}}callee = "onnxc_rt::ref::conv"{{.*}}template = ["double"]
module attributes {onnxc.target = #onnx.target<name = "x86-64-avx512">} {
func.func @double_x86(%x: tensor<1x3x8x8xf64>) -> tensor<1x4x8x8xf64> {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<4x3x3x3xf64>} : () -> tensor<4x3x3x3xf64>
  %n = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%x, %w, %n) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf64>, tensor<4x3x3x3xf64>, none) -> tensor<1x4x8x8xf64>
  return %c : tensor<1x4x8x8xf64>
}
}

// -----

// Cortex-M4: the microcontroller kernels, every shape a template argument;
// a grouped convolution is not theirs and runs on the reference kernel.
// CHECK-LABEL: func.func @net_cortex_m4
// CHECK: "onnx.Conv"{{.*}}callee = "onnxc_rt::mcu::conv2d"{{.*}}template = ["onnxc_rt::mcu::Window<3, 8, 8, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1>", "4", "onnxc_rt::ref::Identity"]
// CHECK: "onnx.Gemm"{{.*}}callee = "onnxc_rt::mcu::fully_connected"{{.*}}template = ["2", "16", "8", "onnxc_rt::ref::Identity"]
// CHECK: "onnx.Conv"{{.*}}callee = "onnxc_rt::ref::conv"
module attributes {onnxc.target = #onnx.target<name = "cortex-m4">} {
func.func @net_cortex_m4(%x: tensor<1x3x8x8xf32>, %a: tensor<2x16xf32>, %y: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<2x8xf32>, tensor<1x4x8x8xf32>) {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<4x3x3x3xf32>} : () -> tensor<4x3x3x3xf32>
  %n = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%x, %w, %n) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
  %b = "onnx.Constant"() {value = dense<0.25> : tensor<16x8xf32>} : () -> tensor<16x8xf32>
  %g = "onnx.Gemm"(%a, %b, %n) : (tensor<2x16xf32>, tensor<16x8xf32>, none) -> tensor<2x8xf32>
  %dw = "onnx.Constant"() {value = dense<0.5> : tensor<4x1x3x3xf32>} : () -> tensor<4x1x3x3xf32>
  %d = "onnx.Conv"(%y, %dw, %n) {group = 4 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>, none) -> tensor<1x4x8x8xf32>
  return %c, %g, %d : tensor<1x4x8x8xf32>, tensor<2x8xf32>, tensor<1x4x8x8xf32>
}
}
