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

// The inner If's condition is computed in the outer branch from a shape: it
// folds once that branch is inlined, so only the inner then-branch remains
// (not both branches and a Where).
// CHECK-LABEL: func.func @if_nested_folds
// CHECK-NEXT: %[[R:.*]] = "onnx.Relu"(%arg0)
// CHECK-NEXT: return %[[R]]
func.func @if_nested_folds(%arg0: tensor<2x3xf32>) -> tensor<*xf32> {
  %c = "onnx.Constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %r = "onnx.If"(%c) ({
    %s = "onnx.Shape"(%arg0) : (tensor<2x3xf32>) -> tensor<*xi64>
    %i = "onnx.Constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
    %d = "onnx.Gather"(%s, %i) {axis = 0 : i64} : (tensor<*xi64>, tensor<i64>) -> tensor<*xi64>
    %two = "onnx.Constant"() {value = dense<2> : tensor<i64>} : () -> tensor<i64>
    %eq = "onnx.Equal"(%d, %two) : (tensor<*xi64>, tensor<i64>) -> tensor<*xi1>
    %inner = "onnx.If"(%eq) ({
      %a = "onnx.Relu"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
      "onnx.Yield"(%a) : (tensor<2x3xf32>) -> ()
    }, {
      %shape = "onnx.Constant"() {value = dense<[3, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
      %b = "onnx.Reshape"(%arg0, %shape) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
      "onnx.Yield"(%b) : (tensor<3x2xf32>) -> ()
    }) : (tensor<*xi1>) -> tensor<*xf32>
    "onnx.Yield"(%inner) : (tensor<*xf32>) -> ()
  }, {
    "onnx.Yield"(%arg0) : (tensor<2x3xf32>) -> ()
  }) : (tensor<i1>) -> tensor<*xf32>
  return %r : tensor<*xf32>
}

// A run-time If whose branches hold control flow of their own: both branches
// are inlined, the Loop in one unrolls, and the outputs meet in a Where.
// CHECK-LABEL: func.func @if_runtime_nested
// CHECK: %[[A:.*]] = "onnx.Add"(%arg1, %arg1)
// CHECK: %[[B:.*]] = "onnx.Neg"(%arg1)
// CHECK: "onnx.Where"(%arg0, %[[A]], %[[B]])
// CHECK-NOT: onnx.Loop
func.func @if_runtime_nested(%arg0: tensor<i1>, %arg1: tensor<2xf32>) -> tensor<*xf32> {
  %r = "onnx.If"(%arg0) ({
    %m = "onnx.Constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
    %t = "onnx.Constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    %v = "onnx.Loop"(%m, %t, %arg1) ({
    ^bb0(%i: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>):
      %y = "onnx.Add"(%x, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      "onnx.Yield"(%c, %y) : (tensor<i1>, tensor<2xf32>) -> ()
    }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<*xf32>
    "onnx.Yield"(%v) : (tensor<*xf32>) -> ()
  }, {
    %b = "onnx.Neg"(%arg1) : (tensor<2xf32>) -> tensor<2xf32>
    "onnx.Yield"(%b) : (tensor<2xf32>) -> ()
  }) : (tensor<i1>) -> tensor<*xf32>
  return %r : tensor<*xf32>
}
