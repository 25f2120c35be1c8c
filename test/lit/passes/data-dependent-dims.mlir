// onnxc-data-dependent-dims: sizes the data decides carried to the graph
// outputs, which get their extent results and zeros past them; NonZero read
// through Transpose takes its transposed form; a run-time Compress becomes
// Gather by NonZero's indices. (A reader that cannot take such a size:
// errors/data-dependent-use.onnxtxt.)
// RUN: %onnxc-opt --split-input-file --onnxc-data-dependent-dims %s | FileCheck %s

// CHECK-LABEL: func.func @mask
// CHECK-SAME: -> (tensor<12xf32> {onnx.name = "y"}, tensor<i64> {onnx.name = "y.extent"})
// CHECK-SAME: onnx.outputs = [{count = 1 : i64, extent = 1 : i64, extent_dim = 0 : i64, kind = "tensor", name = "y", present = true}]
// CHECK: %[[I:.*]], %[[N:.*]] = "onnx.NonZero"(%{{.*}}) {onnxc.transposed} : (tensor<3x4xi1>) -> (tensor<12x2xi64>, tensor<i64>)
// CHECK-NOT: onnx.Transpose
// CHECK: %[[G:.*]] = "onnx.GatherND"(%arg0, %[[I]])
// CHECK: %[[M:.*]] = "onnx.Mul"(%[[G]]
// CHECK: %[[IN:.*]] = "onnx.Less"(%{{.*}}, %[[N]])
// CHECK: %[[Z:.*]] = "onnx.Where"(%[[IN]], %[[M]], %{{.*}})
// CHECK: return %[[Z]], %[[N]]
func.func @mask(%x: tensor<3x4xf32>, %m: tensor<3x4xi1>) -> (tensor<12xf32> {onnx.name = "y"}) {
  %two = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %i, %n = "onnx.NonZero"(%m) : (tensor<3x4xi1>) -> (tensor<2x12xi64>, tensor<i64>)
  %t = "onnx.Transpose"(%i) {perm = array<i64: 1, 0>} : (tensor<2x12xi64>) -> tensor<12x2xi64>
  %g = "onnx.GatherND"(%x, %t) {batch_dims = 0 : i64} : (tensor<3x4xf32>, tensor<12x2xi64>) -> tensor<12xf32>
  %y = "onnx.Mul"(%g, %two) : (tensor<12xf32>, tensor<f32>) -> tensor<12xf32>
  return %y : tensor<12xf32>
}

// -----

// CHECK-LABEL: func.func @compress
// CHECK: %[[I:.*]], %[[N:.*]] = "onnx.NonZero"(%arg1) : (tensor<5xi1>) -> (tensor<1x5xi64>, tensor<i64>)
// CHECK: %[[S:.*]] = "onnx.Squeeze"(%[[I]]
// CHECK: "onnx.Gather"(%arg0, %[[S]]) {axis = 0 : i64} : (tensor<5x3xf32>, tensor<5xi64>) -> tensor<5x3xf32>
// CHECK-NOT: onnx.Compress
func.func @compress(%x: tensor<5x3xf32>, %c: tensor<5xi1>) -> (tensor<?x3xf32> {onnx.name = "y"}) {
  %y = "onnx.Compress"(%x, %c) {axis = 0 : i64} : (tensor<5x3xf32>, tensor<5xi1>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}
