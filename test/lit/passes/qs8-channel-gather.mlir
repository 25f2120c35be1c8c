// onnxc-qs8-channel-gather: an int8 channel shuffle (Concat, Reshape,
// Transpose (0, 2, 1, 3, 4), Reshape) becomes one simd.ChannelGather from
// the Concat's inputs, a QRescale read by the Concat alone coming in as its
// input with the table of its 256 results; the Slices (or a Split) of the
// shuffle's halves gather from the same inputs with the same tables and the
// shuffle's own gather is dropped. A QRescale with another reader, and the
// float chain (the layout pass's), stay.
// RUN: %onnxc-opt --split-input-file --onnxc-qs8-channel-gather --onnxc-dce %s | FileCheck %s

// CHECK-LABEL: func.func @shuffle_halves
// CHECK-NOT: onnx.QRescale
// CHECK-NOT: onnx.Transpose
// CHECK: %[[L:.*]] = "simd.ChannelGather"(%arg0, %arg1) {channels = array<i64: 0, 3, 1>, in_channels = array<i64: 3, 3>, tables = [unit, dense<{{.*}}> : tensor<256xi8>]} : (tensor<1x3x2x2xi8>, tensor<1x3x2x2xi8>) -> tensor<1x3x2x2xi8>
// CHECK-NEXT: %[[R:.*]] = "simd.ChannelGather"(%arg0, %arg1) {channels = array<i64: 4, 2, 5>, in_channels = array<i64: 3, 3>, tables = [unit, dense<{{.*}}> : tensor<256xi8>]}
// CHECK-NOT: simd.ChannelGather
// CHECK: return %[[L]], %[[R]]
func.func @shuffle_halves(%a: tensor<1x3x2x2xi8>, %b: tensor<1x3x2x2xi8>) -> (tensor<1x3x2x2xi8>, tensor<1x3x2x2xi8>) {
  %n = "onnx.NoValue"() : () -> none
  %rb = "onnx.QRescale"(%b) {x_scale = 0.5 : f32, x_zero_point = 3 : i64, y_scale = 0.25 : f32, y_zero_point = -2 : i64} : (tensor<1x3x2x2xi8>) -> tensor<1x3x2x2xi8>
  %cat = "onnx.Concat"(%a, %rb) {axis = 1 : i64} : (tensor<1x3x2x2xi8>, tensor<1x3x2x2xi8>) -> tensor<1x6x2x2xi8>
  %s5 = "onnx.Constant"() {value = dense<[1, 2, 3, 2, 2]> : tensor<5xi64>} : () -> tensor<5xi64>
  %r5 = "onnx.Reshape"(%cat, %s5) : (tensor<1x6x2x2xi8>, tensor<5xi64>) -> tensor<1x2x3x2x2xi8>
  %t = "onnx.Transpose"(%r5) {perm = array<i64: 0, 2, 1, 3, 4>} : (tensor<1x2x3x2x2xi8>) -> tensor<1x3x2x2x2xi8>
  %s4 = "onnx.Constant"() {value = dense<[1, 6, 2, 2]> : tensor<4xi64>} : () -> tensor<4xi64>
  %sh = "onnx.Reshape"(%t, %s4) : (tensor<1x3x2x2x2xi8>, tensor<4xi64>) -> tensor<1x6x2x2xi8>
  %z = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %three = "onnx.Constant"() {value = dense<3> : tensor<1xi64>} : () -> tensor<1xi64>
  %end = "onnx.Constant"() {value = dense<6> : tensor<1xi64>} : () -> tensor<1xi64>
  %one = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %x1 = "onnx.Slice"(%sh, %z, %three, %one, %n) : (tensor<1x6x2x2xi8>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<1x3x2x2xi8>
  %x2 = "onnx.Slice"(%sh, %three, %end, %one, %one) : (tensor<1x6x2x2xi8>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x3x2x2xi8>
  return %x1, %x2 : tensor<1x3x2x2xi8>, tensor<1x3x2x2xi8>
}

// -----

// uint8 halves by a Split; the QRescale also read elsewhere stays (the
// gather reads its result, no table), and the whole shuffle is returned too.
// CHECK-LABEL: func.func @shuffle_split_kept
// CHECK: %[[Q:.*]] = "onnx.QRescale"(%arg0)
// CHECK: %[[S:.*]] = "simd.ChannelGather"(%[[Q]], %arg1) {channels = array<i64: 0, 2, 1, 3>, in_channels = array<i64: 2, 2>} : (tensor<1x2x1x3xui8>, tensor<1x2x1x3xui8>) -> tensor<1x4x1x3xui8>
// CHECK-NEXT: %[[L:.*]] = "simd.ChannelGather"(%[[Q]], %arg1) {channels = array<i64: 0, 2>, in_channels = array<i64: 2, 2>}
// CHECK-NEXT: %[[R:.*]] = "simd.ChannelGather"(%[[Q]], %arg1) {channels = array<i64: 1, 3>, in_channels = array<i64: 2, 2>}
// CHECK-NOT: onnx.Split
// CHECK: return %[[S]], %[[L]], %[[R]], %[[Q]]
func.func @shuffle_split_kept(%a: tensor<1x2x1x3xui8>, %b: tensor<1x2x1x3xui8>) -> (tensor<1x4x1x3xui8>, tensor<1x2x1x3xui8>, tensor<1x2x1x3xui8>, tensor<1x2x1x3xui8>) {
  %ra = "onnx.QRescale"(%a) {x_scale = 0.5 : f32, x_zero_point = 128 : i64, y_scale = 0.25 : f32, y_zero_point = 120 : i64} : (tensor<1x2x1x3xui8>) -> tensor<1x2x1x3xui8>
  %cat = "onnx.Concat"(%ra, %b) {axis = -3 : i64} : (tensor<1x2x1x3xui8>, tensor<1x2x1x3xui8>) -> tensor<1x4x1x3xui8>
  %s5 = "onnx.Constant"() {value = dense<[1, 2, 2, 1, 3]> : tensor<5xi64>} : () -> tensor<5xi64>
  %r5 = "onnx.Reshape"(%cat, %s5) : (tensor<1x4x1x3xui8>, tensor<5xi64>) -> tensor<1x2x2x1x3xui8>
  %t = "onnx.Transpose"(%r5) {perm = array<i64: 0, 2, 1, 3, 4>} : (tensor<1x2x2x1x3xui8>) -> tensor<1x2x2x1x3xui8>
  %s4 = "onnx.Constant"() {value = dense<[1, 4, 1, 3]> : tensor<4xi64>} : () -> tensor<4xi64>
  %sh = "onnx.Reshape"(%t, %s4) : (tensor<1x2x2x1x3xui8>, tensor<4xi64>) -> tensor<1x4x1x3xui8>
  %sp = "onnx.Constant"() {value = dense<[2, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  %h:2 = "onnx.Split"(%sh, %sp) {axis = 1 : i64} : (tensor<1x4x1x3xui8>, tensor<2xi64>) -> (tensor<1x2x1x3xui8>, tensor<1x2x1x3xui8>)
  return %sh, %h#0, %h#1, %ra : tensor<1x4x1x3xui8>, tensor<1x2x1x3xui8>, tensor<1x2x1x3xui8>, tensor<1x2x1x3xui8>
}

// -----

// Float tensors are the layout pass's: untouched here.
// CHECK-LABEL: func.func @float_shuffle
// CHECK-NOT: simd.ChannelGather
// CHECK: onnx.Transpose
func.func @float_shuffle(%a: tensor<1x2x1x1xf32>, %b: tensor<1x2x1x1xf32>) -> tensor<1x4x1x1xf32> {
  %cat = "onnx.Concat"(%a, %b) {axis = 1 : i64} : (tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>) -> tensor<1x4x1x1xf32>
  %s5 = "onnx.Constant"() {value = dense<[1, 2, 2, 1, 1]> : tensor<5xi64>} : () -> tensor<5xi64>
  %r5 = "onnx.Reshape"(%cat, %s5) : (tensor<1x4x1x1xf32>, tensor<5xi64>) -> tensor<1x2x2x1x1xf32>
  %t = "onnx.Transpose"(%r5) {perm = array<i64: 0, 2, 1, 3, 4>} : (tensor<1x2x2x1x1xf32>) -> tensor<1x2x2x1x1xf32>
  %s4 = "onnx.Constant"() {value = dense<[1, 4, 1, 1]> : tensor<4xi64>} : () -> tensor<4xi64>
  %sh = "onnx.Reshape"(%t, %s4) : (tensor<1x2x2x1x1xf32>, tensor<4xi64>) -> tensor<1x4x1x1xf32>
  return %sh : tensor<1x4x1x1xf32>
}
