// onnxc-layout-selection: with the x86 kernels, convolutions go
// channel-blocked (a dense one reads an NCHW input as it is, a depthwise one
// gets it converted), pools and lane-wise ops follow a blocked operand
// (per-channel constants converted at compile time, channel-broadcast
// operands viewed with a trailing unit dim), channel Concats of whole blocks
// stay blocked; a value leaving the region is converted back once. Other
// kernel sets are left alone.
// RUN: %onnxc-opt --split-input-file --onnxc-layout-selection --onnxc-dce %s | FileCheck %s

// CHECK-LABEL: func.func @stem_pool_flatten
// CHECK: %[[C:.*]] = "simd.BlockedConv"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}) {activation = "Relu"{{.*}}} : (tensor<1x3x8x8xf32>, tensor<20x3x3x3xf32>, tensor<20xf32>, none) -> tensor<1x2x8x8x16xf32>
// CHECK-NEXT: %[[P:.*]] = "simd.BlockedPool"(%[[C]]) {{{.*}}kernel_shape = array<i64: 2, 2>, mode = #simd<pool max>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8x16xf32>) -> tensor<1x2x4x4x16xf32>
// CHECK-NEXT: %[[N:.*]] = "simd.FromBlocked"(%[[P]]) {channels = 20 : i64} : (tensor<1x2x4x4x16xf32>) -> tensor<1x20x4x4xf32>
// CHECK-NEXT: %[[F:.*]] = "onnx.Flatten"(%[[N]])
// CHECK-NEXT: return %[[F]]
module attributes {onnxc.target = #onnx.target<name = "x86-64">} {
func.func @stem_pool_flatten(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x320xf32> {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<20x3x3x3xf32>} : () -> tensor<20x3x3x3xf32>
  %b = "onnx.Constant"() {value = dense<0.25> : tensor<20xf32>} : () -> tensor<20xf32>
  %n = "onnx.NoValue"() : () -> none
  %c = "onnx.FusedConv"(%arg0, %w, %b, %n) {activation = "Relu", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<20x3x3x3xf32>, tensor<20xf32>, none) -> tensor<1x20x8x8xf32>
  %p, %i = "onnx.MaxPool"(%c) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x20x8x8xf32>) -> (tensor<1x20x4x4xf32>, none)
  %f = "onnx.Flatten"(%p) {axis = 1 : i64} : (tensor<1x20x4x4xf32>) -> tensor<1x320xf32>
  return %f : tensor<1x320xf32>
}
}

// -----

// A depthwise convolution of a graph input, a squeeze-excite scale (global
// pool, Sigmoid, broadcast Mul), a per-channel constant and a residual Add.
// CHECK-LABEL: func.func @depthwise_squeeze_excite
// CHECK: %[[X:.*]] = "simd.ToBlocked"(%arg0) : (tensor<1x24x6x6xf32>) -> tensor<1x2x6x6x16xf32>
// CHECK: %[[D:.*]] = "simd.BlockedConv"(%[[X]], {{.*}}) {{{.*}}group = 24 : i64{{.*}}} : (tensor<1x2x6x6x16xf32>, tensor<24x1x3x3xf32>, none, none) -> tensor<1x2x6x6x16xf32>
// CHECK: %[[G:.*]] = "simd.BlockedPool"(%[[D]]) {{{.*}}mode = #simd<pool global_average>} : (tensor<1x2x6x6x16xf32>) -> tensor<1x2x1x1x16xf32>
// CHECK: %[[S:.*]] = "onnx.Sigmoid"(%[[G]]) : (tensor<1x2x1x1x16xf32>) -> tensor<1x2x1x1x16xf32>
// CHECK: %[[M:.*]] = "onnx.Mul"(%[[D]], %[[S]]) : (tensor<1x2x6x6x16xf32>, tensor<1x2x1x1x16xf32>) -> tensor<1x2x6x6x16xf32>
// The constant's 24 channels of 2.0, then zeros in the padding lanes:
// CHECK: %[[BIAS:.*]] = "onnx.Constant"() {value = dense<{{\[+}}2.000000e+00, {{.*}}]]], {{\[+}}2.000000e+00, 2.000000e+00, 2.000000e+00, 2.000000e+00, 2.000000e+00, 2.000000e+00, 2.000000e+00, 2.000000e+00, 0.000000e+00, {{.*}}> : tensor<1x2x1x1x16xf32>}
// CHECK: %[[A:.*]] = "onnx.Add"(%[[M]], %[[BIAS]]) : (tensor<1x2x6x6x16xf32>, tensor<1x2x1x1x16xf32>) -> tensor<1x2x6x6x16xf32>
// CHECK: %[[R:.*]] = "onnx.Add"(%[[A]], %[[X]]) : (tensor<1x2x6x6x16xf32>, tensor<1x2x6x6x16xf32>) -> tensor<1x2x6x6x16xf32>
// CHECK: %[[Y:.*]] = "simd.FromBlocked"(%[[R]]) {channels = 24 : i64}
// CHECK-NEXT: return %[[Y]]
module attributes {onnxc.target = #onnx.target<name = "x86-64">} {
func.func @depthwise_squeeze_excite(%arg0: tensor<1x24x6x6xf32>) -> tensor<1x24x6x6xf32> {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<24x1x3x3xf32>} : () -> tensor<24x1x3x3xf32>
  %n = "onnx.NoValue"() : () -> none
  %d = "onnx.Conv"(%arg0, %w, %n) {group = 24 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x24x6x6xf32>, tensor<24x1x3x3xf32>, none) -> tensor<1x24x6x6xf32>
  %g = "onnx.GlobalAveragePool"(%d) : (tensor<1x24x6x6xf32>) -> tensor<1x24x1x1xf32>
  %s = "onnx.Sigmoid"(%g) : (tensor<1x24x1x1xf32>) -> tensor<1x24x1x1xf32>
  %m = "onnx.Mul"(%d, %s) : (tensor<1x24x6x6xf32>, tensor<1x24x1x1xf32>) -> tensor<1x24x6x6xf32>
  %c = "onnx.Constant"() {value = dense<2.0> : tensor<24x1x1xf32>} : () -> tensor<24x1x1xf32>
  %a = "onnx.Add"(%m, %c) : (tensor<1x24x6x6xf32>, tensor<24x1x1xf32>) -> tensor<1x24x6x6xf32>
  %r = "onnx.Add"(%a, %arg0) : (tensor<1x24x6x6xf32>, tensor<1x24x6x6xf32>) -> tensor<1x24x6x6xf32>
  return %r : tensor<1x24x6x6xf32>
}
}

// -----

// A scalar operand is broadcast over the channels: a view with a trailing
// unit dim. A Concat of whole blocks stays blocked; one of 8 + 16 channels
// read only outside the region does not, and reads the converted-back
// values.
// CHECK-LABEL: func.func @scalar_and_concats
// CHECK: %[[C1:.*]] = "simd.BlockedConv"(%arg0, {{.*}}) -> tensor<1x1x4x4x16xf32>
// CHECK: %[[V:.*]] = "onnx.Reshape"(%{{.*}}, %{{.*}}) {{.*}} -> tensor<1x1x1x1x1xf32>
// CHECK: %[[MUL:.*]] = "onnx.Mul"(%[[C1]], %[[V]]) : (tensor<1x1x4x4x16xf32>, tensor<1x1x1x1x1xf32>) -> tensor<1x1x4x4x16xf32>
// CHECK: %[[N1:.*]] = "simd.FromBlocked"(%[[MUL]]) {channels = 16 : i64}
// CHECK: %[[C2:.*]] = "simd.BlockedConv"(%arg0, {{.*}}) -> tensor<1x1x4x4x16xf32>
// CHECK: %[[N2:.*]] = "simd.FromBlocked"(%[[C2]]) {channels = 8 : i64}
// CHECK: %[[CAT:.*]] = "onnx.Concat"(%[[MUL]], %[[MUL]]) {axis = 1 : i64} : (tensor<1x1x4x4x16xf32>, tensor<1x1x4x4x16xf32>) -> tensor<1x2x4x4x16xf32>
// CHECK-NEXT: "simd.FromBlocked"(%[[CAT]]) {channels = 32 : i64}
// CHECK-NEXT: "onnx.Concat"(%[[N2]], %[[N1]]) {axis = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x24x4x4xf32>
module attributes {onnxc.target = #onnx.target<name = "x86-64">} {
func.func @scalar_and_concats(%arg0: tensor<1x4x4x4xf32>, %arg1: tensor<f32>) -> (tensor<1x32x4x4xf32>, tensor<1x24x4x4xf32>) {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<16x4x1x1xf32>} : () -> tensor<16x4x1x1xf32>
  %w2 = "onnx.Constant"() {value = dense<0.5> : tensor<8x4x1x1xf32>} : () -> tensor<8x4x1x1xf32>
  %n = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%arg0, %w, %n) : (tensor<1x4x4x4xf32>, tensor<16x4x1x1xf32>, none) -> tensor<1x16x4x4xf32>
  %m = "onnx.Mul"(%c, %arg1) : (tensor<1x16x4x4xf32>, tensor<f32>) -> tensor<1x16x4x4xf32>
  %c2 = "onnx.Conv"(%arg0, %w2, %n) : (tensor<1x4x4x4xf32>, tensor<8x4x1x1xf32>, none) -> tensor<1x8x4x4xf32>
  %cat = "onnx.Concat"(%m, %m) {axis = -3 : i64} : (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x32x4x4xf32>
  %cat2 = "onnx.Concat"(%c2, %m) {axis = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x24x4x4xf32>
  return %cat, %cat2 : tensor<1x32x4x4xf32>, tensor<1x24x4x4xf32>
}
}

// -----

// The reference kernels keep NCHW.
// CHECK-LABEL: func.func @reference_kernels
// CHECK: "onnx.Conv"
// CHECK-NOT: Blocked
func.func @reference_kernels(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x20x6x6xf32> {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<20x3x3x3xf32>} : () -> tensor<20x3x3x3xf32>
  %n = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%arg0, %w, %n) : (tensor<1x3x8x8xf32>, tensor<20x3x3x3xf32>, none) -> tensor<1x20x6x6xf32>
  return %c : tensor<1x20x6x6xf32>
}

// -----

// A one-channel map broadcast over 32 channels stays NCHW: in the blocked
// layout it would broadcast a block of lanes, not its channel.
// CHECK-LABEL: func.func @channel_broadcast
// CHECK: %[[A:.*]] = "simd.BlockedConv"(%arg0, {{.*}}) -> tensor<1x2x4x4x16xf32>
// CHECK: %[[NA:.*]] = "simd.FromBlocked"(%[[A]]) {channels = 32 : i64}
// CHECK: %[[M:.*]] = "simd.BlockedConv"(%arg0, {{.*}}) -> tensor<1x1x4x4x16xf32>
// CHECK: %[[NM:.*]] = "simd.FromBlocked"(%[[M]]) {channels = 1 : i64}
// CHECK: "onnx.Mul"(%[[NA]], %[[NM]]) : (tensor<1x32x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x32x4x4xf32>
module attributes {onnxc.target = #onnx.target<name = "x86-64">} {
func.func @channel_broadcast(%arg0: tensor<1x4x4x4xf32>) -> tensor<1x32x4x4xf32> {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<32x4x1x1xf32>} : () -> tensor<32x4x1x1xf32>
  %w1 = "onnx.Constant"() {value = dense<0.5> : tensor<1x4x1x1xf32>} : () -> tensor<1x4x1x1xf32>
  %n = "onnx.NoValue"() : () -> none
  %a = "onnx.Conv"(%arg0, %w, %n) : (tensor<1x4x4x4xf32>, tensor<32x4x1x1xf32>, none) -> tensor<1x32x4x4xf32>
  %m = "onnx.Conv"(%arg0, %w1, %n) : (tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>, none) -> tensor<1x1x4x4xf32>
  %r = "onnx.Mul"(%a, %m) : (tensor<1x32x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x32x4x4xf32>
  return %r : tensor<1x32x4x4xf32>
}
}

// -----

// Winograd F(4x4, 3x3) for a blocked 3x3 stride-1 convolution with at least
// kWinogradMinTiles (4) output tiles where its weights stay cached: 16x16 (16 tiles) and 5x5 (4 tiles)
// outputs yes; the first convolutions (NCHW inputs), a stride-2 one and a
// 4x4 output (1 tile) stay direct.
// CHECK-LABEL: func.func @winograd_where_it_pays
// CHECK: %[[A:.*]] = "simd.BlockedConv"(%arg0, {{.*}}) {{{.*}}algorithm = #simd<algorithm direct>{{.*}}} : (tensor<1x16x16x16xf32>, {{.*}}) -> tensor<1x1x16x16x16xf32>
// CHECK-NEXT: %[[B:.*]] = "simd.BlockedConv"(%[[A]], {{.*}}) {{{.*}}algorithm = #simd<algorithm winograd>{{.*}}} : (tensor<1x1x16x16x16xf32>, {{.*}}) -> tensor<1x1x16x16x16xf32>
// CHECK-NEXT: %[[C:.*]] = "simd.BlockedConv"(%[[B]], {{.*}}) {{{.*}}algorithm = #simd<algorithm direct>{{.*}}strides = array<i64: 2, 2>} : {{.*}} -> tensor<1x1x8x8x16xf32>
// CHECK: %[[D:.*]] = "simd.BlockedConv"(%arg1, {{.*}}) {{{.*}}algorithm = #simd<algorithm direct>{{.*}}} : (tensor<1x16x6x6xf32>, {{.*}}) -> tensor<1x1x6x6x16xf32>
// CHECK-NEXT: %[[E:.*]] = "simd.BlockedConv"(%[[D]], {{.*}}) {{{.*}}algorithm = #simd<algorithm direct>{{.*}}} : {{.*}} -> tensor<1x1x4x4x16xf32>
// CHECK: %[[F:.*]] = "simd.BlockedConv"(%[[D]], {{.*}}) {{{.*}}algorithm = #simd<algorithm winograd>{{.*}}} : {{.*}} -> tensor<1x1x5x5x16xf32>
module attributes {onnxc.target = #onnx.target<name = "x86-64">} {
func.func @winograd_where_it_pays(%arg0: tensor<1x16x16x16xf32>, %arg1: tensor<1x16x6x6xf32>) -> (tensor<1x16x8x8xf32>, tensor<1x16x4x4xf32>, tensor<1x16x5x5xf32>) {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<16x16x3x3xf32>} : () -> tensor<16x16x3x3xf32>
  %n = "onnx.NoValue"() : () -> none
  %a = "onnx.FusedConv"(%arg0, %w, %n, %n) {activation = "Relu", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x16x16xf32>, tensor<16x16x3x3xf32>, none, none) -> tensor<1x16x16x16xf32>
  %b = "onnx.FusedConv"(%a, %w, %n, %n) {activation = "Relu", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x16x16xf32>, tensor<16x16x3x3xf32>, none, none) -> tensor<1x16x16x16xf32>
  %c = "onnx.FusedConv"(%b, %w, %n, %n) {activation = "Relu", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x16x16x16xf32>, tensor<16x16x3x3xf32>, none, none) -> tensor<1x16x8x8xf32>
  %d = "onnx.FusedConv"(%arg1, %w, %n, %n) {activation = "Relu", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x6x6xf32>, tensor<16x16x3x3xf32>, none, none) -> tensor<1x16x6x6xf32>
  %e = "onnx.FusedConv"(%d, %w, %n, %n) {activation = "Relu"} : (tensor<1x16x6x6xf32>, tensor<16x16x3x3xf32>, none, none) -> tensor<1x16x4x4xf32>
  %f = "onnx.FusedConv"(%d, %w, %n, %n) {activation = "Relu", pads = array<i64: 0, 0, 1, 1>} : (tensor<1x16x6x6xf32>, tensor<16x16x3x3xf32>, none, none) -> tensor<1x16x5x5xf32>
  return %c, %e, %f : tensor<1x16x8x8xf32>, tensor<1x16x4x4xf32>, tensor<1x16x5x5xf32>
}
}

// -----

// Transformed weights past kWinogradCachedBytes (4 MB: 512 x 512 channels
// are 37.7 MB as F(4x4, 3x3)'s) are streamed from memory each inference:
// on AVX-512 F(4x4, 3x3) then needs 25 4x4 tiles (the target's
// winogradStreamedTiles), or else F(2x2, 3x3) 16 2x2 ones (its
// winogradSmallTiles). A 7x7 output (4 and 16 tiles) and a 9x9 one (9 and
// 25) are F(2x2, 3x3), a 20x20 one (25 4x4 tiles) F(4x4, 3x3). (The first
// of each pair is direct: its input is not blocked.)
// CHECK-LABEL: func.func @winograd_streamed_weights
// CHECK: "simd.BlockedConv"({{.*}}algorithm = #simd<algorithm direct>{{.*}} -> tensor<1x32x7x7x16xf32>
// CHECK: "simd.BlockedConv"({{.*}}algorithm = #simd<algorithm winograd_f2>{{.*}} -> tensor<1x32x7x7x16xf32>
// CHECK: "simd.BlockedConv"({{.*}}algorithm = #simd<algorithm direct>{{.*}} -> tensor<1x32x9x9x16xf32>
// CHECK: "simd.BlockedConv"({{.*}}algorithm = #simd<algorithm winograd_f2>{{.*}} -> tensor<1x32x9x9x16xf32>
// CHECK: "simd.BlockedConv"({{.*}}algorithm = #simd<algorithm direct>{{.*}} -> tensor<1x32x20x20x16xf32>
// CHECK: "simd.BlockedConv"({{.*}}algorithm = #simd<algorithm winograd>{{.*}} -> tensor<1x32x20x20x16xf32>
module attributes {onnxc.target = #onnx.target<name = "x86-64-avx512">} {
func.func @winograd_streamed_weights(%arg0: tensor<1x512x7x7xf32>, %arg1: tensor<1x512x9x9xf32>, %arg2: tensor<1x512x20x20xf32>) -> (tensor<1x512x7x7xf32>, tensor<1x512x9x9xf32>, tensor<1x512x20x20xf32>) {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<512x512x3x3xf32>} : () -> tensor<512x512x3x3xf32>
  %n = "onnx.NoValue"() : () -> none
  %a = "onnx.FusedConv"(%arg0, %w, %n, %n) {activation = "Relu", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>, none, none) -> tensor<1x512x7x7xf32>
  %b = "onnx.FusedConv"(%a, %w, %n, %n) {activation = "Relu", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>, none, none) -> tensor<1x512x7x7xf32>
  %c = "onnx.FusedConv"(%arg1, %w, %n, %n) {activation = "Relu", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x512x9x9xf32>, tensor<512x512x3x3xf32>, none, none) -> tensor<1x512x9x9xf32>
  %d = "onnx.FusedConv"(%c, %w, %n, %n) {activation = "Relu", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x512x9x9xf32>, tensor<512x512x3x3xf32>, none, none) -> tensor<1x512x9x9xf32>
  %e = "onnx.FusedConv"(%arg2, %w, %n, %n) {activation = "Relu", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x512x20x20xf32>, tensor<512x512x3x3xf32>, none, none) -> tensor<1x512x20x20xf32>
  %f = "onnx.FusedConv"(%e, %w, %n, %n) {activation = "Relu", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x512x20x20xf32>, tensor<512x512x3x3xf32>, none, none) -> tensor<1x512x20x20xf32>
  return %b, %d, %f : tensor<1x512x7x7xf32>, tensor<1x512x9x9xf32>, tensor<1x512x20x20xf32>
}
}

// -----

// The same 7x7 layer on AVX2 (x86-64): 4 tiles pay even with its weights
// streamed.
// CHECK-LABEL: func.func @winograd_streamed_weights_avx2
// CHECK: "simd.BlockedConv"({{.*}}algorithm = #simd<algorithm direct>{{.*}} -> tensor<1x32x7x7x16xf32>
// CHECK: "simd.BlockedConv"({{.*}}algorithm = #simd<algorithm winograd>{{.*}} -> tensor<1x32x7x7x16xf32>
module attributes {onnxc.target = #onnx.target<name = "x86-64">} {
func.func @winograd_streamed_weights_avx2(%arg0: tensor<1x512x7x7xf32>) -> tensor<1x512x7x7xf32> {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<512x512x3x3xf32>} : () -> tensor<512x512x3x3xf32>
  %n = "onnx.NoValue"() : () -> none
  %a = "onnx.FusedConv"(%arg0, %w, %n, %n) {activation = "Relu", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>, none, none) -> tensor<1x512x7x7xf32>
  %b = "onnx.FusedConv"(%a, %w, %n, %n) {activation = "Relu", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>, none, none) -> tensor<1x512x7x7xf32>
  return %b : tensor<1x512x7x7xf32>
}
}

// -----

// `--no-winograd` (the SIMD targets' option winograd = false): every convolution stays direct.
// CHECK-LABEL: func.func @no_winograd
// CHECK: "simd.BlockedConv"({{.*}}algorithm = #simd<algorithm direct>
// CHECK: "simd.BlockedConv"({{.*}}algorithm = #simd<algorithm direct>
// CHECK: return
module attributes {onnxc.target = #onnx.target<name = "x86-64", options = {winograd = false}>} {
func.func @no_winograd(%arg0: tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32> {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<16x16x3x3xf32>} : () -> tensor<16x16x3x3xf32>
  %n = "onnx.NoValue"() : () -> none
  %a = "onnx.FusedConv"(%arg0, %w, %n, %n) {activation = "Relu", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x16x16xf32>, tensor<16x16x3x3xf32>, none, none) -> tensor<1x16x16x16xf32>
  %b = "onnx.FusedConv"(%a, %w, %n, %n) {activation = "Relu", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x16x16xf32>, tensor<16x16x3x3xf32>, none, none) -> tensor<1x16x16x16xf32>
  return %b : tensor<1x16x16x16xf32>
}
}

// -----

// aarch64 converts an NCHW input of more than 4 channels before a dense
// convolution (Target::blocksConvInput: NEON reads 4 channels per load
// from a blocked input, one from an NCHW one); x86 reads it as it is; a
// 3-channel image stays NCHW on both (the first test).
// CHECK-LABEL: func.func @nchw_input_a64
// CHECK: %[[B:.*]] = "simd.ToBlocked"(%arg0) : (tensor<1x8x4x4xf32>) -> tensor<1x1x4x4x16xf32>
// CHECK: "simd.BlockedConv"(%[[B]], {{.*}} : (tensor<1x1x4x4x16xf32>, tensor<16x8x1x1xf32>
module attributes {onnxc.target = #onnx.target<name = "aarch64">} {
func.func @nchw_input_a64(%arg0: tensor<1x8x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<16x8x1x1xf32>} : () -> tensor<16x8x1x1xf32>
  %b = "onnx.Constant"() {value = dense<0.25> : tensor<16xf32>} : () -> tensor<16xf32>
  %c = "onnx.Conv"(%arg0, %w, %b) : (tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  return %c : tensor<1x16x4x4xf32>
}
}

// -----

// CHECK-LABEL: func.func @nchw_input_x86
// CHECK-NOT: simd.ToBlocked
// CHECK: "simd.BlockedConv"(%arg0, {{.*}} : (tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32>
module attributes {onnxc.target = #onnx.target<name = "x86-64">} {
func.func @nchw_input_x86(%arg0: tensor<1x8x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<16x8x1x1xf32>} : () -> tensor<16x8x1x1xf32>
  %b = "onnx.Constant"() {value = dense<0.25> : tensor<16xf32>} : () -> tensor<16xf32>
  %c = "onnx.Conv"(%arg0, %w, %b) : (tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  return %c : tensor<1x16x4x4xf32>
}
}

// -----

// An inverted-residual block after a stem convolution: the pointwise
// expand (Relu6 as Clamp 0..6) whose only reader is the depthwise
// convolution fuses with it into one simd.BlockedExpandDepthwise, and that
// with the project convolution that is its only reader into one
// simd.BlockedInvertedResidual (neither the expanded 1x48x8x8 tensor nor
// the depthwise one is a value): the depthwise window its own, the
// activations as expand_activation and depthwise_activation, the project's
// residual (the skip connection) its Z.
// CHECK-LABEL: func.func @inverted_residual
// CHECK: %[[S:.*]] = "simd.BlockedConv"(%arg0,
// CHECK: %[[E:.*]] = "simd.BlockedInvertedResidual"(%[[S]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[S]]) {activation = "Identity", activation_alpha = 0.000000e+00 : f32, activation_beta = 0.000000e+00 : f32, auto_pad = "NOTSET", depthwise_activation = "Clamp", depthwise_activation_alpha = 0.000000e+00 : f32, depthwise_activation_beta = 6.000000e+00 : f32, expand_activation = "Clamp", expand_activation_alpha = 0.000000e+00 : f32, expand_activation_beta = 6.000000e+00 : f32, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x8x8x16xf32>, tensor<48x16x1x1xf32>, tensor<48xf32>, tensor<48x1x3x3xf32>, tensor<48xf32>, tensor<16x48x1x1xf32>, none, tensor<1x1x8x8x16xf32>) -> tensor<1x1x8x8x16xf32>
// CHECK-NOT: simd.BlockedConv
// CHECK-NOT: simd.BlockedExpandDepthwise
// The depthwise output read twice (here also a model output): the expand
// and depthwise convolutions fuse, the project stays a BlockedConv.
// CHECK-LABEL: func.func @depthwise_read_twice
// CHECK: %[[S:.*]] = "simd.BlockedConv"(%arg0,
// CHECK: %[[E:.*]] = "simd.BlockedExpandDepthwise"(%[[S]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {activation = "Clamp", activation_alpha = 0.000000e+00 : f32, activation_beta = 6.000000e+00 : f32, auto_pad = "NOTSET", expand_activation = "Clamp", expand_activation_alpha = 0.000000e+00 : f32, expand_activation_beta = 6.000000e+00 : f32, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x8x8x16xf32>, tensor<48x16x1x1xf32>, tensor<48xf32>, tensor<48x1x3x3xf32>, tensor<48xf32>, none) -> tensor<1x3x8x8x16xf32>
// CHECK: "simd.BlockedConv"(%[[E]], %{{.*}}, %{{.*}}, %[[S]])
// CHECK-NOT: simd.BlockedInvertedResidual
// A block without an expand convolution (MobileNetV2's first): the
// depthwise and the project convolution fuse, WE and BE none.
// CHECK-LABEL: func.func @block_without_expand
// CHECK: %[[S:.*]] = "simd.BlockedConv"(%arg0,
// CHECK: "simd.BlockedInvertedResidual"(%[[S]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {activation = "Identity", {{.*}}depthwise_activation = "Clamp", depthwise_activation_alpha = 0.000000e+00 : f32, depthwise_activation_beta = 6.000000e+00 : f32, expand_activation = "Identity", {{.*}} : (tensor<1x1x8x8x16xf32>, none, none, tensor<16x1x3x3xf32>, tensor<16xf32>, tensor<8x16x1x1xf32>, none, none) -> tensor<1x1x8x8x16xf32>
// CHECK-NOT: simd.BlockedConv
module attributes {onnxc.target = #onnx.target<name = "x86-64">} {
func.func @inverted_residual(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %ws = "onnx.Constant"() {value = dense<0.5> : tensor<16x3x3x3xf32>} : () -> tensor<16x3x3x3xf32>
  %we = "onnx.Constant"() {value = dense<0.5> : tensor<48x16x1x1xf32>} : () -> tensor<48x16x1x1xf32>
  %wd = "onnx.Constant"() {value = dense<0.25> : tensor<48x1x3x3xf32>} : () -> tensor<48x1x3x3xf32>
  %wp = "onnx.Constant"() {value = dense<0.125> : tensor<16x48x1x1xf32>} : () -> tensor<16x48x1x1xf32>
  %b = "onnx.Constant"() {value = dense<0.25> : tensor<48xf32>} : () -> tensor<48xf32>
  %n = "onnx.NoValue"() : () -> none
  %s = "onnx.Conv"(%arg0, %ws, %n) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  %e = "onnx.FusedConv"(%s, %we, %b, %n) {activation = "Clamp", activation_alpha = 0.0 : f32, activation_beta = 6.0 : f32} : (tensor<1x16x8x8xf32>, tensor<48x16x1x1xf32>, tensor<48xf32>, none) -> tensor<1x48x8x8xf32>
  %d = "onnx.FusedConv"(%e, %wd, %b, %n) {activation = "Clamp", activation_alpha = 0.0 : f32, activation_beta = 6.0 : f32, group = 48 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x48x8x8xf32>, tensor<48x1x3x3xf32>, tensor<48xf32>, none) -> tensor<1x48x8x8xf32>
  %p = "onnx.FusedConv"(%d, %wp, %n, %s) : (tensor<1x48x8x8xf32>, tensor<16x48x1x1xf32>, none, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %p : tensor<1x16x8x8xf32>
}
func.func @depthwise_read_twice(%arg0: tensor<1x3x8x8xf32>) -> (tensor<1x16x8x8xf32>, tensor<1x48x8x8xf32>) {
  %ws = "onnx.Constant"() {value = dense<0.5> : tensor<16x3x3x3xf32>} : () -> tensor<16x3x3x3xf32>
  %we = "onnx.Constant"() {value = dense<0.5> : tensor<48x16x1x1xf32>} : () -> tensor<48x16x1x1xf32>
  %wd = "onnx.Constant"() {value = dense<0.25> : tensor<48x1x3x3xf32>} : () -> tensor<48x1x3x3xf32>
  %wp = "onnx.Constant"() {value = dense<0.125> : tensor<16x48x1x1xf32>} : () -> tensor<16x48x1x1xf32>
  %b = "onnx.Constant"() {value = dense<0.25> : tensor<48xf32>} : () -> tensor<48xf32>
  %n = "onnx.NoValue"() : () -> none
  %s = "onnx.Conv"(%arg0, %ws, %n) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  %e = "onnx.FusedConv"(%s, %we, %b, %n) {activation = "Clamp", activation_alpha = 0.0 : f32, activation_beta = 6.0 : f32} : (tensor<1x16x8x8xf32>, tensor<48x16x1x1xf32>, tensor<48xf32>, none) -> tensor<1x48x8x8xf32>
  %d = "onnx.FusedConv"(%e, %wd, %b, %n) {activation = "Clamp", activation_alpha = 0.0 : f32, activation_beta = 6.0 : f32, group = 48 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x48x8x8xf32>, tensor<48x1x3x3xf32>, tensor<48xf32>, none) -> tensor<1x48x8x8xf32>
  %p = "onnx.FusedConv"(%d, %wp, %n, %s) : (tensor<1x48x8x8xf32>, tensor<16x48x1x1xf32>, none, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %p, %d : tensor<1x16x8x8xf32>, tensor<1x48x8x8xf32>
}
func.func @block_without_expand(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %ws = "onnx.Constant"() {value = dense<0.5> : tensor<16x3x3x3xf32>} : () -> tensor<16x3x3x3xf32>
  %wd = "onnx.Constant"() {value = dense<0.25> : tensor<16x1x3x3xf32>} : () -> tensor<16x1x3x3xf32>
  %wp = "onnx.Constant"() {value = dense<0.125> : tensor<8x16x1x1xf32>} : () -> tensor<8x16x1x1xf32>
  %b = "onnx.Constant"() {value = dense<0.25> : tensor<16xf32>} : () -> tensor<16xf32>
  %n = "onnx.NoValue"() : () -> none
  %s = "onnx.Conv"(%arg0, %ws, %n) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  %d = "onnx.FusedConv"(%s, %wd, %b, %n) {activation = "Clamp", activation_alpha = 0.0 : f32, activation_beta = 6.0 : f32, group = 16 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<16x1x3x3xf32>, tensor<16xf32>, none) -> tensor<1x16x8x8xf32>
  %p = "onnx.Conv"(%d, %wp, %n) : (tensor<1x16x8x8xf32>, tensor<8x16x1x1xf32>, none) -> tensor<1x8x8x8xf32>
  return %p : tensor<1x8x8x8xf32>
}
}

// -----

// No fusion where the expanded tensor has another reader (here a model
// output), where the pointwise convolution is strided, or with
// `--no-block-fusion` (block-fusion = false).
// CHECK-LABEL: func.func @expand_read_twice
// CHECK: simd.BlockedConv
// CHECK-NOT: simd.BlockedExpandDepthwise
// CHECK-LABEL: func.func @strided_expand
// CHECK: simd.BlockedConv
// CHECK-NOT: simd.BlockedExpandDepthwise
// CHECK: return
module attributes {onnxc.target = #onnx.target<name = "x86-64">} {
func.func @expand_read_twice(%arg0: tensor<1x3x8x8xf32>) -> (tensor<1x48x8x8xf32>, tensor<1x48x8x8xf32>) {
  %ws = "onnx.Constant"() {value = dense<0.5> : tensor<16x3x3x3xf32>} : () -> tensor<16x3x3x3xf32>
  %we = "onnx.Constant"() {value = dense<0.5> : tensor<48x16x1x1xf32>} : () -> tensor<48x16x1x1xf32>
  %wd = "onnx.Constant"() {value = dense<0.25> : tensor<48x1x3x3xf32>} : () -> tensor<48x1x3x3xf32>
  %n = "onnx.NoValue"() : () -> none
  %s = "onnx.Conv"(%arg0, %ws, %n) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  %e = "onnx.Conv"(%s, %we, %n) : (tensor<1x16x8x8xf32>, tensor<48x16x1x1xf32>, none) -> tensor<1x48x8x8xf32>
  %d = "onnx.Conv"(%e, %wd, %n) {group = 48 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x48x8x8xf32>, tensor<48x1x3x3xf32>, none) -> tensor<1x48x8x8xf32>
  return %e, %d : tensor<1x48x8x8xf32>, tensor<1x48x8x8xf32>
}
func.func @strided_expand(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x48x4x4xf32> {
  %ws = "onnx.Constant"() {value = dense<0.5> : tensor<16x3x3x3xf32>} : () -> tensor<16x3x3x3xf32>
  %we = "onnx.Constant"() {value = dense<0.5> : tensor<48x16x1x1xf32>} : () -> tensor<48x16x1x1xf32>
  %wd = "onnx.Constant"() {value = dense<0.25> : tensor<48x1x3x3xf32>} : () -> tensor<48x1x3x3xf32>
  %n = "onnx.NoValue"() : () -> none
  %s = "onnx.Conv"(%arg0, %ws, %n) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  %e = "onnx.Conv"(%s, %we, %n) {strides = array<i64: 2, 2>} : (tensor<1x16x8x8xf32>, tensor<48x16x1x1xf32>, none) -> tensor<1x48x4x4xf32>
  %d = "onnx.Conv"(%e, %wd, %n) {group = 48 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x48x4x4xf32>, tensor<48x1x3x3xf32>, none) -> tensor<1x48x4x4xf32>
  return %d : tensor<1x48x4x4xf32>
}
}

// -----

// CHECK-LABEL: func.func @block_fusion_off
// CHECK: simd.BlockedConv
// CHECK-NOT: simd.BlockedExpandDepthwise
// CHECK: return
module attributes {onnxc.target = #onnx.target<name = "x86-64", options = {"block-fusion" = false}>} {
func.func @block_fusion_off(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x48x8x8xf32> {
  %ws = "onnx.Constant"() {value = dense<0.5> : tensor<16x3x3x3xf32>} : () -> tensor<16x3x3x3xf32>
  %we = "onnx.Constant"() {value = dense<0.5> : tensor<48x16x1x1xf32>} : () -> tensor<48x16x1x1xf32>
  %wd = "onnx.Constant"() {value = dense<0.25> : tensor<48x1x3x3xf32>} : () -> tensor<48x1x3x3xf32>
  %n = "onnx.NoValue"() : () -> none
  %s = "onnx.Conv"(%arg0, %ws, %n) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, none) -> tensor<1x16x8x8xf32>
  %e = "onnx.Conv"(%s, %we, %n) : (tensor<1x16x8x8xf32>, tensor<48x16x1x1xf32>, none) -> tensor<1x48x8x8xf32>
  %d = "onnx.Conv"(%e, %wd, %n) {group = 48 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x48x8x8xf32>, tensor<48x1x3x3xf32>, none) -> tensor<1x48x8x8xf32>
  return %d : tensor<1x48x8x8xf32>
}
}

// -----

// A squeeze-and-excite scale (one value per channel, from the pooled
// tensor) times the depthwise output, read only by a pointwise convolution
// with fewer output channels (8) than pixels (16): both become one
// simd.BlockedScaledConv (X, S, W, B, Z), whichever operand of the Mul the
// scale is. With as many output channels as pixels (16) scaling the
// weights is no cheaper: the Mul stays.
// CHECK-LABEL: func.func @se_fold
// CHECK: %[[D:.*]] = "simd.BlockedConv"{{.*}}group = 16
// CHECK: %[[S:.*]] = "onnx.Sigmoid"
// CHECK-NOT: "onnx.Mul"
// CHECK: "simd.BlockedScaledConv"(%[[D]], %[[S]], %{{.*}}, %{{.*}}, %{{.*}}) {{.*}}: (tensor<1x1x4x4x16xf32>, tensor<1x1x1x1x16xf32>, tensor<8x16x1x1xf32>, none, none) -> tensor<1x1x4x4x16xf32>
// CHECK-LABEL: func.func @se_wide_project
// CHECK: "onnx.Mul"
// CHECK: "simd.BlockedConv"
// CHECK-NOT: simd.BlockedScaledConv
// CHECK: return
module attributes {onnxc.target = #onnx.target<name = "x86-64">} {
func.func @se_fold(%arg0: tensor<1x16x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %wd = "onnx.Constant"() {value = dense<0.25> : tensor<16x1x3x3xf32>} : () -> tensor<16x1x3x3xf32>
  %wr = "onnx.Constant"() {value = dense<0.5> : tensor<16x16x1x1xf32>} : () -> tensor<16x16x1x1xf32>
  %wp = "onnx.Constant"() {value = dense<0.5> : tensor<8x16x1x1xf32>} : () -> tensor<8x16x1x1xf32>
  %n = "onnx.NoValue"() : () -> none
  %d = "onnx.Conv"(%arg0, %wd, %n) {group = 16 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x4x4xf32>, tensor<16x1x3x3xf32>, none) -> tensor<1x16x4x4xf32>
  %p = "onnx.GlobalAveragePool"(%d) : (tensor<1x16x4x4xf32>) -> tensor<1x16x1x1xf32>
  %r = "onnx.Conv"(%p, %wr, %n) : (tensor<1x16x1x1xf32>, tensor<16x16x1x1xf32>, none) -> tensor<1x16x1x1xf32>
  %s = "onnx.Sigmoid"(%r) : (tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  %m = "onnx.Mul"(%s, %d) : (tensor<1x16x1x1xf32>, tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %y = "onnx.Conv"(%m, %wp, %n) : (tensor<1x16x4x4xf32>, tensor<8x16x1x1xf32>, none) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}
func.func @se_wide_project(%arg0: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %wd = "onnx.Constant"() {value = dense<0.25> : tensor<16x1x3x3xf32>} : () -> tensor<16x1x3x3xf32>
  %wr = "onnx.Constant"() {value = dense<0.5> : tensor<16x16x1x1xf32>} : () -> tensor<16x16x1x1xf32>
  %wp = "onnx.Constant"() {value = dense<0.5> : tensor<16x16x1x1xf32>} : () -> tensor<16x16x1x1xf32>
  %n = "onnx.NoValue"() : () -> none
  %d = "onnx.Conv"(%arg0, %wd, %n) {group = 16 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x4x4xf32>, tensor<16x1x3x3xf32>, none) -> tensor<1x16x4x4xf32>
  %p = "onnx.GlobalAveragePool"(%d) : (tensor<1x16x4x4xf32>) -> tensor<1x16x1x1xf32>
  %r = "onnx.Conv"(%p, %wr, %n) : (tensor<1x16x1x1xf32>, tensor<16x16x1x1xf32>, none) -> tensor<1x16x1x1xf32>
  %s = "onnx.Sigmoid"(%r) : (tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  %m = "onnx.Mul"(%d, %s) : (tensor<1x16x4x4xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x4x4xf32>
  %y = "onnx.Conv"(%m, %wp, %n) : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>, none) -> tensor<1x16x4x4xf32>
  return %y : tensor<1x16x4x4xf32>
}
}

// -----

// A ReduceMean over a blocked value's spatial axes (x.mean((2, 3)), as
// ShuffleNetV2 ends) is its global pool: a BlockedPool, converted back at
// 1x1, then a Reshape where keepdims is 0. Over other axes it stays.
// CHECK-LABEL: func.func @spatial_mean
// CHECK: %[[P:.*]] = "simd.BlockedPool"(%{{.*}}) {{{.*}}mode = #simd<pool global_average>} : (tensor<1x2x8x8x16xf32>) -> tensor<1x2x1x1x16xf32>
// CHECK-NEXT: %[[F:.*]] = "simd.FromBlocked"(%[[P]]) {channels = 20 : i64} : (tensor<1x2x1x1x16xf32>) -> tensor<1x20x1x1xf32>
// CHECK: "onnx.Reshape"(%[[F]], %{{.*}}) {{.*}} -> tensor<1x20xf32>
// CHECK-NOT: onnx.ReduceMean
// CHECK-LABEL: func.func @channel_mean
// CHECK: "onnx.ReduceMean"
module attributes {onnxc.target = #onnx.target<name = "x86-64">} {
func.func @spatial_mean(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x20xf32> {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<20x3x3x3xf32>} : () -> tensor<20x3x3x3xf32>
  %n = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%arg0, %w, %n) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<20x3x3x3xf32>, none) -> tensor<1x20x8x8xf32>
  %m = "onnx.ReduceMean"(%c) {axes = array<i64: -1, 2>, keepdims = 0 : i64} : (tensor<1x20x8x8xf32>) -> tensor<1x20xf32>
  return %m : tensor<1x20xf32>
}
func.func @channel_mean(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x8x8xf32> {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<20x3x3x3xf32>} : () -> tensor<20x3x3x3xf32>
  %n = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%arg0, %w, %n) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<20x3x3x3xf32>, none) -> tensor<1x20x8x8xf32>
  %m = "onnx.ReduceMean"(%c) {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<1x20x8x8xf32>) -> tensor<1x8x8xf32>
  return %m : tensor<1x8x8xf32>
}
}

// -----

// ShuffleNet's unit boundary: a Concat of two blocked values of 6 channels
// each (not whole blocks), its channel shuffle (Reshape, Transpose (0, 2,
// 1, 3, 4), Reshape) and the next unit's split into halves (Slices): no
// NCHW Transpose, one BlockedChannelGather a half, each from the Concat's
// inputs (channel 2i is input channel i, 2i + 1 is 6 + i), the shuffle's
// own gather dead. A Slice of a blocked convolution's output gathers from
// it.
// CHECK-LABEL: func.func @channel_shuffle_split
// CHECK: %[[A:.*]] = "simd.BlockedConv"(%arg0,
// CHECK: %[[B:.*]] = "simd.BlockedConv"(%arg0,
// CHECK-NOT: onnx.Transpose
// CHECK-NOT: onnx.Concat
// CHECK: %[[L:.*]] = "simd.BlockedChannelGather"(%[[A]], %[[B]]) {channels = array<i64: 0, 6, 1, 7, 2, 8>, in_channels = array<i64: 6, 6>} : (tensor<1x1x4x4x16xf32>, tensor<1x1x4x4x16xf32>) -> tensor<1x1x4x4x16xf32>
// CHECK: %[[R:.*]] = "simd.BlockedChannelGather"(%[[A]], %[[B]]) {channels = array<i64: 3, 9, 4, 10, 5, 11>, in_channels = array<i64: 6, 6>}
// CHECK: "simd.BlockedConv"(%[[R]],
// CHECK: %[[S:.*]] = "simd.BlockedChannelGather"(%[[A]]) {channels = array<i64: 2, 3, 4>, in_channels = array<i64: 6>} : (tensor<1x1x4x4x16xf32>) -> tensor<1x1x4x4x16xf32>
// CHECK-NOT: simd.BlockedChannelGather
// CHECK: return
module attributes {onnxc.target = #onnx.target<name = "x86-64">} {
func.func @channel_shuffle_split(%arg0: tensor<1x8x4x4xf32>) -> (tensor<1x6x4x4xf32>, tensor<1x6x4x4xf32>, tensor<1x3x4x4xf32>) {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<6x8x1x1xf32>} : () -> tensor<6x8x1x1xf32>
  %w2 = "onnx.Constant"() {value = dense<0.25> : tensor<6x6x1x1xf32>} : () -> tensor<6x6x1x1xf32>
  %n = "onnx.NoValue"() : () -> none
  %a = "onnx.Conv"(%arg0, %w, %n) : (tensor<1x8x4x4xf32>, tensor<6x8x1x1xf32>, none) -> tensor<1x6x4x4xf32>
  %b = "onnx.Conv"(%arg0, %w, %n) : (tensor<1x8x4x4xf32>, tensor<6x8x1x1xf32>, none) -> tensor<1x6x4x4xf32>
  %cat = "onnx.Concat"(%a, %b) {axis = 1 : i64} : (tensor<1x6x4x4xf32>, tensor<1x6x4x4xf32>) -> tensor<1x12x4x4xf32>
  %s5 = "onnx.Constant"() {value = dense<[1, 2, 6, 4, 4]> : tensor<5xi64>} : () -> tensor<5xi64>
  %r5 = "onnx.Reshape"(%cat, %s5) : (tensor<1x12x4x4xf32>, tensor<5xi64>) -> tensor<1x2x6x4x4xf32>
  %t = "onnx.Transpose"(%r5) {perm = array<i64: 0, 2, 1, 3, 4>} : (tensor<1x2x6x4x4xf32>) -> tensor<1x6x2x4x4xf32>
  %s4 = "onnx.Constant"() {value = dense<[1, 12, 4, 4]> : tensor<4xi64>} : () -> tensor<4xi64>
  %sh = "onnx.Reshape"(%t, %s4) : (tensor<1x6x2x4x4xf32>, tensor<4xi64>) -> tensor<1x12x4x4xf32>
  %z = "onnx.Constant"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %six = "onnx.Constant"() {value = dense<6> : tensor<1xi64>} : () -> tensor<1xi64>
  %end = "onnx.Constant"() {value = dense<12> : tensor<1xi64>} : () -> tensor<1xi64>
  %one = "onnx.Constant"() {value = dense<1> : tensor<1xi64>} : () -> tensor<1xi64>
  %x1 = "onnx.Slice"(%sh, %z, %six, %one, %n) : (tensor<1x12x4x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<1x6x4x4xf32>
  %x2 = "onnx.Slice"(%sh, %six, %end, %one, %one) : (tensor<1x12x4x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x6x4x4xf32>
  %c2 = "onnx.Conv"(%x2, %w2, %n) : (tensor<1x6x4x4xf32>, tensor<6x6x1x1xf32>, none) -> tensor<1x6x4x4xf32>
  %two = "onnx.Constant"() {value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %five = "onnx.Constant"() {value = dense<5> : tensor<1xi64>} : () -> tensor<1xi64>
  %part = "onnx.Slice"(%a, %two, %five, %one, %n) : (tensor<1x6x4x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<1x3x4x4xf32>
  return %x1, %c2, %part : tensor<1x6x4x4xf32>, tensor<1x6x4x4xf32>, tensor<1x3x4x4xf32>
}
}

// -----

// A Split of a blocked value along the channels (YOLO's C2f blocks, torch's
// chunk in some exports): a BlockedChannelGather a result, the one read
// outside the region converted back.
// CHECK-LABEL: func.func @channel_split
// CHECK: %[[A:.*]] = "simd.BlockedConv"(%arg0,
// CHECK-NOT: onnx.Split
// CHECK: %[[L:.*]] = "simd.BlockedChannelGather"(%[[A]]) {channels = array<i64: 0, 1, 2, 3, 4, 5>, in_channels = array<i64: 20>} : (tensor<1x2x4x4x16xf32>) -> tensor<1x1x4x4x16xf32>
// CHECK-NEXT: "simd.FromBlocked"(%[[L]]) {channels = 6 : i64}
// CHECK-NEXT: %[[R:.*]] = "simd.BlockedChannelGather"(%[[A]]) {channels = array<i64: 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19>, in_channels = array<i64: 20>}
// CHECK: %[[C:.*]] = "simd.BlockedConv"(%[[R]],
// A Concat of 6 + 6 channels read by a convolution: one gather of both.
// CHECK-NOT: onnx.Concat
// CHECK: %[[J:.*]] = "simd.BlockedChannelGather"(%[[L]], %[[C]]) {channels = array<i64: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11>, in_channels = array<i64: 6, 6>}
// CHECK: "simd.BlockedConv"(%[[J]],
module attributes {onnxc.target = #onnx.target<name = "x86-64">} {
func.func @channel_split(%arg0: tensor<1x8x4x4xf32>) -> (tensor<1x6x4x4xf32>, tensor<1x6x4x4xf32>, tensor<1x6x4x4xf32>) {
  %w = "onnx.Constant"() {value = dense<0.5> : tensor<20x8x1x1xf32>} : () -> tensor<20x8x1x1xf32>
  %w2 = "onnx.Constant"() {value = dense<0.25> : tensor<6x14x1x1xf32>} : () -> tensor<6x14x1x1xf32>
  %n = "onnx.NoValue"() : () -> none
  %a = "onnx.Conv"(%arg0, %w, %n) : (tensor<1x8x4x4xf32>, tensor<20x8x1x1xf32>, none) -> tensor<1x20x4x4xf32>
  %sizes = "onnx.Constant"() {value = dense<[6, 14]> : tensor<2xi64>} : () -> tensor<2xi64>
  %l, %r = "onnx.Split"(%a, %sizes) {axis = 1 : i64} : (tensor<1x20x4x4xf32>, tensor<2xi64>) -> (tensor<1x6x4x4xf32>, tensor<1x14x4x4xf32>)
  %c = "onnx.Conv"(%r, %w2, %n) : (tensor<1x14x4x4xf32>, tensor<6x14x1x1xf32>, none) -> tensor<1x6x4x4xf32>
  %j = "onnx.Concat"(%l, %c) {axis = 1 : i64} : (tensor<1x6x4x4xf32>, tensor<1x6x4x4xf32>) -> tensor<1x12x4x4xf32>
  %w3 = "onnx.Constant"() {value = dense<0.125> : tensor<6x12x1x1xf32>} : () -> tensor<6x12x1x1xf32>
  %d = "onnx.Conv"(%j, %w3, %n) : (tensor<1x12x4x4xf32>, tensor<6x12x1x1xf32>, none) -> tensor<1x6x4x4xf32>
  return %l, %c, %d : tensor<1x6x4x4xf32>, tensor<1x6x4x4xf32>, tensor<1x6x4x4xf32>
}
}
