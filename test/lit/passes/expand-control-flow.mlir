// If, Loop and Scan become straight-line code.
// RUN: %onnxc-opt --onnxc-expand-control-flow --onnxc-constant-folding --onnxc-dce %s | FileCheck %s

// A constant condition inlines one branch.
// CHECK-LABEL: func.func @if_constant
// CHECK-NEXT: %[[R:.*]] = "onnx.Neg"(%arg0)
// CHECK-NEXT: return %[[R]]
func.func @if_constant(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %c = "onnx.Constant"() {value = dense<false> : tensor<i1>} : () -> tensor<i1>
  %r = "onnx.If"(%c) ({
    %a = "onnx.Relu"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    "onnx.Yield"(%a) : (tensor<2xf32>) -> ()
  }, {
    %b = "onnx.Neg"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    "onnx.Yield"(%b) : (tensor<2xf32>) -> ()
  }) : (tensor<i1>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// A run-time condition computes both branches and selects.
// CHECK-LABEL: func.func @if_runtime
// CHECK-DAG: %[[A:.*]] = "onnx.Relu"(%arg1)
// CHECK-DAG: %[[B:.*]] = "onnx.Neg"(%arg1)
// CHECK: "onnx.Where"(%arg0, %[[A]], %[[B]])
func.func @if_runtime(%arg0: tensor<i1>, %arg1: tensor<2xf32>) -> tensor<2xf32> {
  %r = "onnx.If"(%arg0) ({
    %a = "onnx.Relu"(%arg1) : (tensor<2xf32>) -> tensor<2xf32>
    "onnx.Yield"(%a) : (tensor<2xf32>) -> ()
  }, {
    %b = "onnx.Neg"(%arg1) : (tensor<2xf32>) -> tensor<2xf32>
    "onnx.Yield"(%b) : (tensor<2xf32>) -> ()
  }) : (tensor<i1>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// A 3-trip Loop accumulating x: three Adds; the scan output stacks each y.
// CHECK-LABEL: func.func @loop
// CHECK-SAME: -> (tensor<2xf32>, tensor<3x2xf32>)
// CHECK: %[[Y0:.*]] = "onnx.Add"(%arg0, %arg0)
// CHECK: %[[Y1:.*]] = "onnx.Add"(%[[Y0]], %arg0)
// CHECK: %[[Y2:.*]] = "onnx.Add"(%[[Y1]], %arg0)
// CHECK: "onnx.Concat"
// CHECK-NOT: onnx.Loop
func.func @loop(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<*xf32>) {
  %m = "onnx.Constant"() {value = dense<3> : tensor<i64>} : () -> tensor<i64>
  %t = "onnx.Constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %v, %s = "onnx.Loop"(%m, %t, %arg0) ({
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>):
    %y = "onnx.Add"(%x, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "onnx.Yield"(%c, %y, %y) : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<*xf32>)
  return %v, %s : tensor<2xf32>, tensor<*xf32>
}
