// onnxc-select-kernels refuses a target the registry does not know, and
// reports every op no kernel can run (each naming its node), not just the
// first.
// RUN: not %onnxc-opt --split-input-file --onnxc-select-kernels %s 2>&1 | FileCheck %s

// CHECK: error: unknown target 'riscv-vector'
module attributes {onnxc.target = #onnx.target<name = "riscv-vector">} {
func.func @unknown(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = "onnx.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
}

// -----

// CHECK: loc("first"): Sqrt on 'i32' is not supported
// CHECK: loc("second"): Exp on 'i32' is not supported
module attributes {onnxc.target = #onnx.target<name = "generic">} {
func.func @two_bad(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %a = "onnx.Sqrt"(%x) : (tensor<4xi32>) -> tensor<4xi32> loc("first")
  %b = "onnx.Exp"(%x) : (tensor<4xi32>) -> tensor<4xi32> loc("second")
  return %a, %b : tensor<4xi32>, tensor<4xi32>
}
}
