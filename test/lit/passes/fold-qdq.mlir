// onnxc-fold-qdq: DequantizeLinear -> op -> QuantizeLinear chains become qs8 ops.
// RUN: %onnxc-opt --onnxc-fold-qdq --onnxc-dce %s | FileCheck %s

// Conv with per-channel int8 weights, an int32 bias at x_scale * w_scale and
// a Relu: one QConv clamped at the output zero point.
// CHECK-LABEL: func.func @conv_relu
// CHECK: %[[Y:.*]] = "onnx.QConv"(%arg0, %{{.*}}, %{{.*}}) {act_max = 127 : i64, act_min = -3 : i64, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, w_scale = array<f32: 2.500000e-01, 5.000000e-01>, x_scale = 5.000000e-01 : f32, x_zero_point = 2 : i64, y_scale = 1.000000e+00 : f32, y_zero_point = -3 : i64} : (tensor<1x1x3x3xi8>, tensor<2x1x3x3xi8>, tensor<2xi32>) -> tensor<1x2x3x3xi8>
// CHECK-NOT: onnx.Dequantize
// CHECK-NOT: onnx.Conv"
// CHECK: return %[[Y]]
func.func @conv_relu(%x: tensor<1x1x3x3xi8>) -> tensor<1x2x3x3xi8> {
  %xs = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %xz = "onnx.Constant"() {value = dense<2> : tensor<i8>} : () -> tensor<i8>
  %dx = "onnx.DequantizeLinear"(%x, %xs, %xz) : (tensor<1x1x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<1x1x3x3xf32>
  %wq = "onnx.Constant"() {value = dense<1> : tensor<2x1x3x3xi8>} : () -> tensor<2x1x3x3xi8>
  %ws = "onnx.Constant"() {value = dense<[0.25, 0.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  %wz = "onnx.Constant"() {value = dense<0> : tensor<2xi8>} : () -> tensor<2xi8>
  %dw = "onnx.DequantizeLinear"(%wq, %ws, %wz) {axis = 0 : i64} : (tensor<2x1x3x3xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x1x3x3xf32>
  %bq = "onnx.Constant"() {value = dense<[8, -4]> : tensor<2xi32>} : () -> tensor<2xi32>
  %bs = "onnx.Constant"() {value = dense<[0.125, 0.25]> : tensor<2xf32>} : () -> tensor<2xf32>
  %none = "onnx.NoValue"() : () -> none
  %db = "onnx.DequantizeLinear"(%bq, %bs, %none) {axis = 0 : i64} : (tensor<2xi32>, tensor<2xf32>, none) -> tensor<2xf32>
  %c = "onnx.Conv"(%dx, %dw, %db) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %r = "onnx.Relu"(%c) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %ys = "onnx.Constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %yz = "onnx.Constant"() {value = dense<-3> : tensor<i8>} : () -> tensor<i8>
  %y = "onnx.QuantizeLinear"(%r, %ys, %yz) : (tensor<1x2x3x3xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x3x3xi8>
  return %y : tensor<1x2x3x3xi8>
}

// (Above, the bias keeps its integers: its scale is x_scale * w_scale.)
// A Gemm with transB gets its weights transposed and its float bias
// expressed in int32 at x_scale * w_scale.
// CHECK-LABEL: func.func @gemm
// CHECK-DAG: %[[W:.*]] = "onnx.Constant"() {value = dense<{{\[\[}}1, 3], [2, 4]]> : tensor<2x2xi8>}
// CHECK-DAG: %[[B:.*]] = "onnx.Constant"() {value = dense<[4, -2]> : tensor<2xi32>}
// CHECK: "onnx.QMatMul"(%arg0, %[[W]], %[[B]]) {act_max = 127 : i64, act_min = -128 : i64, w_scale = array<f32: 5.000000e-01>
func.func @gemm(%a: tensor<3x2xi8>) -> tensor<3x2xi8> {
  %s = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = "onnx.Constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %da = "onnx.DequantizeLinear"(%a, %s, %z) : (tensor<3x2xi8>, tensor<f32>, tensor<i8>) -> tensor<3x2xf32>
  %wq = "onnx.Constant"() {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>} : () -> tensor<2x2xi8>
  %dw = "onnx.DequantizeLinear"(%wq, %s, %z) : (tensor<2x2xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2xf32>
  %c = "onnx.Constant"() {value = dense<[1.0, -0.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  %g = "onnx.Gemm"(%da, %dw, %c) {transB = 1 : i64} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %y = "onnx.QuantizeLinear"(%g, %s, %z) : (tensor<3x2xf32>, tensor<f32>, tensor<i8>) -> tensor<3x2xi8>
  return %y : tensor<3x2xi8>
}

// A 3-D MatMul, then an Add of an int32 bias (a DQ at x_scale * w_scale, as
// the quantizer writes a Linear layer), then a Relu: one QMatMul with that
// bias, clamped at the output zero point; no float Add is left.
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK: %[[B:.*]] = "onnx.Constant"() {value = dense<[6, -2]> : tensor<2xi32>}
// CHECK: %[[Y:.*]] = "onnx.QMatMul"(%arg0, %{{.*}}, %[[B]]) {act_max = 127 : i64, act_min = 1 : i64
// CHECK-NOT: onnx.Add
// CHECK: return %[[Y]]
func.func @matmul_bias_relu(%a: tensor<1x3x2xi8>) -> tensor<1x3x2xi8> {
  %s = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = "onnx.Constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %z1 = "onnx.Constant"() {value = dense<1> : tensor<i8>} : () -> tensor<i8>
  %da = "onnx.DequantizeLinear"(%a, %s, %z) : (tensor<1x3x2xi8>, tensor<f32>, tensor<i8>) -> tensor<1x3x2xf32>
  %wq = "onnx.Constant"() {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>} : () -> tensor<2x2xi8>
  %ws = "onnx.Constant"() {value = dense<[0.25, 0.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  %wz = "onnx.Constant"() {value = dense<0> : tensor<2xi8>} : () -> tensor<2xi8>
  %dw = "onnx.DequantizeLinear"(%wq, %ws, %wz) {axis = 1 : i64} : (tensor<2x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x2xf32>
  %m = "onnx.MatMul"(%da, %dw) : (tensor<1x3x2xf32>, tensor<2x2xf32>) -> tensor<1x3x2xf32>
  %bq = "onnx.Constant"() {value = dense<[6, -2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %bs = "onnx.Constant"() {value = dense<[0.125, 0.25]> : tensor<2xf32>} : () -> tensor<2xf32>
  %bz = "onnx.Constant"() {value = dense<0> : tensor<2xi32>} : () -> tensor<2xi32>
  %db = "onnx.DequantizeLinear"(%bq, %bs, %bz) {axis = 0 : i64} : (tensor<2xi32>, tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  %sum = "onnx.Add"(%db, %m) : (tensor<2xf32>, tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
  %r = "onnx.Relu"(%sum) : (tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
  %y = "onnx.QuantizeLinear"(%r, %s, %z1) : (tensor<1x3x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x3x2xi8>
  return %y : tensor<1x3x2xi8>
}

// Add with a Clip(0, 6) after it: QAdd clamped to [zp, zp + 6 / scale].
// CHECK-LABEL: func.func @add_clip
// CHECK: "onnx.QAdd"(%arg0, %arg1) {a_scale = 1.000000e-01 : f32, a_zero_point = 0 : i64, act_max = 60 : i64, act_min = 0 : i64, b_scale = 2.000000e-01 : f32, b_zero_point = 5 : i64, y_scale = 1.000000e-01 : f32, y_zero_point = 0 : i64} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
func.func @add_clip(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %sa = "onnx.Constant"() {value = dense<0.1> : tensor<f32>} : () -> tensor<f32>
  %sb = "onnx.Constant"() {value = dense<0.2> : tensor<f32>} : () -> tensor<f32>
  %z0 = "onnx.Constant"() {value = dense<0> : tensor<ui8>} : () -> tensor<ui8>
  %z5 = "onnx.Constant"() {value = dense<5> : tensor<ui8>} : () -> tensor<ui8>
  %da = "onnx.DequantizeLinear"(%a, %sa, %z0) : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  %db = "onnx.DequantizeLinear"(%b, %sb, %z5) : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  %s = "onnx.Add"(%da, %db) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %lo = "onnx.Constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %hi = "onnx.Constant"() {value = dense<6.0> : tensor<f32>} : () -> tensor<f32>
  %c = "onnx.Clip"(%s, %lo, %hi) : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  %y = "onnx.QuantizeLinear"(%c, %sa, %z0) : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  return %y : tensor<4xui8>
}

// Element-moving ops run on the quantized values when Q and DQ agree;
// Sigmoid becomes a lookup whose table is Q(Sigmoid(DQ(all 256 values))).
// CHECK-LABEL: func.func @reshape_sigmoid
// CHECK: %[[R:.*]] = "onnx.Reshape"(%arg0, %{{.*}}) {{.*}}: (tensor<2x2xi8>, tensor<1xi64>) -> tensor<4xi8>
// CHECK: %[[ALL:.*]] = "onnx.Constant"() {value = dense<"0x808182{{[0-9A-F]*}}7D7E7F"> : tensor<256xi8>}
// CHECK: %[[D:.*]] = "onnx.DequantizeLinear"(%[[ALL]], {{.*}}) {{.*}}: (tensor<256xi8>, tensor<f32>, tensor<i8>) -> tensor<256xf32>
// CHECK: %[[F:.*]] = "onnx.Sigmoid"(%[[D]]) : (tensor<256xf32>) -> tensor<256xf32>
// CHECK: %[[T:.*]] = "onnx.QuantizeLinear"(%[[F]], {{.*}}) {{.*}}: (tensor<256xf32>, tensor<f32>, tensor<i8>) -> tensor<256xi8>
// CHECK: "onnx.QLookup"(%[[R]], %[[T]]) : (tensor<4xi8>, tensor<256xi8>) -> tensor<4xi8>
func.func @reshape_sigmoid(%x: tensor<2x2xi8>) -> tensor<4xi8> {
  %s = "onnx.Constant"() {value = dense<0.05> : tensor<f32>} : () -> tensor<f32>
  %z = "onnx.Constant"() {value = dense<1> : tensor<i8>} : () -> tensor<i8>
  %shape = "onnx.Constant"() {value = dense<4> : tensor<1xi64>} : () -> tensor<1xi64>
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<2x2xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2xf32>
  %r = "onnx.Reshape"(%d, %shape) : (tensor<2x2xf32>, tensor<1xi64>) -> tensor<4xf32>
  %q = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  %d2 = "onnx.DequantizeLinear"(%q, %s, %z) : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  %g = "onnx.Sigmoid"(%d2) : (tensor<4xf32>) -> tensor<4xf32>
  %y = "onnx.QuantizeLinear"(%g, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  return %y : tensor<4xi8>
}

// uint8 weights with a zero point are int8 around 0 (3 - 128 = -125); the
// int8 input's and output's parameters are recorded on the function for the
// header (--io int8).
// CHECK-LABEL: func.func @asymmetric_weights
// CHECK-SAME: %arg0: tensor<1x1x2x2xui8> {onnx.scale = 5.000000e-01 : f32, onnx.zero_point = 128 : i64}) -> (tensor<1x1x2x2xui8> {onnx.scale = 5.000000e-01 : f32, onnx.zero_point = 128 : i64})
// CHECK: %[[W:.*]] = "onnx.Constant"() {value = dense<-125> : tensor<1x1x1x1xi8>}
// CHECK: "onnx.QConv"(%arg0, %[[W]], %{{.*}})
func.func @asymmetric_weights(%x: tensor<1x1x2x2xui8>) -> tensor<1x1x2x2xui8> {
  %s = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = "onnx.Constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
  %dx = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<1x1x2x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x2x2xf32>
  %wq = "onnx.Constant"() {value = dense<3> : tensor<1x1x1x1xui8>} : () -> tensor<1x1x1x1xui8>
  %dw = "onnx.DequantizeLinear"(%wq, %s, %z) : (tensor<1x1x1x1xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x1x1xf32>
  %n = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%dx, %dw, %n) : (tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>, none) -> tensor<1x1x2x2xf32>
  %y = "onnx.QuantizeLinear"(%c, %s, %z) : (tensor<1x1x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x2x2xui8>
  return %y : tensor<1x1x2x2xui8>
}

// Q(DQ(x)) with other parameters: a rescale.
// CHECK-LABEL: func.func @requantize
// CHECK: "onnx.QRescale"(%arg0) {x_scale = 5.000000e-01 : f32, x_zero_point = 0 : i64, y_scale = 2.500000e-01 : f32, y_zero_point = 10 : i64} : (tensor<3xi8>) -> tensor<3xui8>
func.func @requantize(%x: tensor<3xi8>) -> tensor<3xui8> {
  %s = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = "onnx.Constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %s2 = "onnx.Constant"() {value = dense<0.25> : tensor<f32>} : () -> tensor<f32>
  %z2 = "onnx.Constant"() {value = dense<10> : tensor<ui8>} : () -> tensor<ui8>
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<3xi8>, tensor<f32>, tensor<i8>) -> tensor<3xf32>
  %y = "onnx.QuantizeLinear"(%d, %s2, %z2) : (tensor<3xf32>, tensor<f32>, tensor<ui8>) -> tensor<3xui8>
  return %y : tensor<3xui8>
}

// Mul of two quantized values; a Concat whose second input has other
// parameters gets that input rescaled to the output's.
// CHECK-LABEL: func.func @mul_concat
// CHECK: %[[M:.*]] = "onnx.QMul"(%arg0, %arg1) {a_scale = 5.000000e-01 : f32, {{.*}}y_scale = 2.500000e-01 : f32, y_zero_point = 0 : i64}
// CHECK: %[[R:.*]] = "onnx.QRescale"(%arg1) {x_scale = 1.000000e+00 : f32, x_zero_point = 3 : i64, y_scale = 2.500000e-01 : f32, y_zero_point = 0 : i64}
// CHECK: "onnx.Concat"(%[[M]], %[[R]]) {{.*}}: (tensor<2xi8>, tensor<2xi8>) -> tensor<4xi8>
func.func @mul_concat(%a: tensor<2xi8>, %b: tensor<2xi8>) -> tensor<4xi8> {
  %sa = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %sb = "onnx.Constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %sy = "onnx.Constant"() {value = dense<0.25> : tensor<f32>} : () -> tensor<f32>
  %z0 = "onnx.Constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %z3 = "onnx.Constant"() {value = dense<3> : tensor<i8>} : () -> tensor<i8>
  %da = "onnx.DequantizeLinear"(%a, %sa, %z0) : (tensor<2xi8>, tensor<f32>, tensor<i8>) -> tensor<2xf32>
  %db = "onnx.DequantizeLinear"(%b, %sb, %z3) : (tensor<2xi8>, tensor<f32>, tensor<i8>) -> tensor<2xf32>
  %m = "onnx.Mul"(%da, %db) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %qm = "onnx.QuantizeLinear"(%m, %sy, %z0) : (tensor<2xf32>, tensor<f32>, tensor<i8>) -> tensor<2xi8>
  %dm = "onnx.DequantizeLinear"(%qm, %sy, %z0) : (tensor<2xi8>, tensor<f32>, tensor<i8>) -> tensor<2xf32>
  %c = "onnx.Concat"(%dm, %db) {axis = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  %y = "onnx.QuantizeLinear"(%c, %sy, %z0) : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  return %y : tensor<4xi8>
}

// QOperator: a QLinearConv with constant parameters becomes a QConv; uint8
// weights at zero point 128 are re-expressed as int8 around 0, the int32
// bias is kept.
// CHECK-LABEL: func.func @qlinearconv
// CHECK: %[[W:.*]] = "onnx.Constant"() {value = dense<{{\[\[\[\[}}-128, 0], [1, 127]]]]> : tensor<1x1x2x2xi8>}
// CHECK: %[[Y:.*]] = "onnx.QConv"(%arg0, %[[W]], %{{.*}}) {act_max = 255 : i64, act_min = 0 : i64, group = 1 : i64, w_scale = array<f32: 2.500000e-01>, x_scale = 5.000000e-01 : f32, x_zero_point = 3 : i64, y_scale = 2.000000e+00 : f32, y_zero_point = 7 : i64}
// CHECK-NOT: onnx.QLinearConv
// CHECK: return %[[Y]]
func.func @qlinearconv(%x: tensor<1x1x2x2xui8>) -> tensor<1x1x1x1xui8> {
  %xs = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %xz = "onnx.Constant"() {value = dense<3> : tensor<ui8>} : () -> tensor<ui8>
  %w = "onnx.Constant"() {value = dense<[[[[0, 128], [129, 255]]]]> : tensor<1x1x2x2xui8>} : () -> tensor<1x1x2x2xui8>
  %ws = "onnx.Constant"() {value = dense<0.25> : tensor<f32>} : () -> tensor<f32>
  %wz = "onnx.Constant"() {value = dense<128> : tensor<ui8>} : () -> tensor<ui8>
  %ys = "onnx.Constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %yz = "onnx.Constant"() {value = dense<7> : tensor<ui8>} : () -> tensor<ui8>
  %b = "onnx.Constant"() {value = dense<[5]> : tensor<1xi32>} : () -> tensor<1xi32>
  %y = "onnx.QLinearConv"(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz, %b) : (tensor<1x1x2x2xui8>, tensor<f32>, tensor<ui8>, tensor<1x1x2x2xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<1xi32>) -> tensor<1x1x1x1xui8>
  return %y : tensor<1x1x1x1xui8>
}

// A QLinearMatMul whose weights do not fit int8 around their zero point
// (uint8 at zero point 0: 200 - 0 > 127) stays as it is.
// CHECK-LABEL: func.func @qlinearmatmul_wide
// CHECK: onnx.QLinearMatMul
func.func @qlinearmatmul_wide(%a: tensor<1x2xui8>) -> tensor<1x1xui8> {
  %s = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = "onnx.Constant"() {value = dense<0> : tensor<ui8>} : () -> tensor<ui8>
  %w = "onnx.Constant"() {value = dense<[[200], [1]]> : tensor<2x1xui8>} : () -> tensor<2x1xui8>
  %y = "onnx.QLinearMatMul"(%a, %s, %z, %w, %s, %z, %s, %z) : (tensor<1x2xui8>, tensor<f32>, tensor<ui8>, tensor<2x1xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1xui8>
  return %y : tensor<1x1xui8>
}

// SiLU, x * sigmoid(x): an expression of x alone becomes one table (the
// sigmoid's table computed on the way), not a lookup and a QMul.
// CHECK-LABEL: func.func @silu
// CHECK: %[[Y:.*]] = "onnx.QLookup"(%arg0, %{{.*}}) : (tensor<1x4xi8>, tensor<256xi8>) -> tensor<1x4xi8>
// CHECK-NOT: onnx.QMul
// CHECK: return %[[Y]]
func.func @silu(%x: tensor<1x4xi8>) -> tensor<1x4xi8> {
  %s = "onnx.Constant"() {value = dense<0.1> : tensor<f32>} : () -> tensor<f32>
  %z = "onnx.Constant"() {value = dense<-3> : tensor<i8>} : () -> tensor<i8>
  %ss = "onnx.Constant"() {value = dense<0.00390625> : tensor<f32>} : () -> tensor<f32>
  %sz = "onnx.Constant"() {value = dense<-128> : tensor<i8>} : () -> tensor<i8>
  %ys = "onnx.Constant"() {value = dense<0.05> : tensor<f32>} : () -> tensor<f32>
  %yz = "onnx.Constant"() {value = dense<-120> : tensor<i8>} : () -> tensor<i8>
  %dx = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<1x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4xf32>
  %g = "onnx.Sigmoid"(%dx) : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %qg = "onnx.QuantizeLinear"(%g, %ss, %sz) : (tensor<1x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4xi8>
  %dg = "onnx.DequantizeLinear"(%qg, %ss, %sz) : (tensor<1x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4xf32>
  %m = "onnx.Mul"(%dx, %dg) : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %y = "onnx.QuantizeLinear"(%m, %ys, %yz) : (tensor<1x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4xi8>
  return %y : tensor<1x4xi8>
}

// ReduceMean over every spatial axis is GlobalAveragePool's mean: a
// QAveragePool of the whole plane, reshaped to (N, C) without keepdims.
// Over another set of axes it stays float.
// CHECK-LABEL: func.func @spatial_mean
// CHECK: %[[P:.*]] = "onnx.QAveragePool"(%arg0) {{.*}}kernel_shape = array<i64: 2, 3>{{.*}} : (tensor<1x4x2x3xi8>) -> tensor<1x4x1x1xi8>
// CHECK: "onnx.Reshape"(%[[P]], %{{.*}}) {{.*}}-> tensor<1x4xi8>
// CHECK: "onnx.ReduceMean"(%{{.*}}) {axes = array<i64: 1, 2, 3>{{.*}} -> tensor<1x1x1x1xf32>
func.func @spatial_mean(%x: tensor<1x4x2x3xi8>) -> (tensor<1x4xi8>, tensor<1x1x1x1xi8>) {
  %s = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = "onnx.Constant"() {value = dense<-3> : tensor<i8>} : () -> tensor<i8>
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<1x4x2x3xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x2x3xf32>
  %m = "onnx.ReduceMean"(%d) {axes = array<i64: -1, 2>, keepdims = 0 : i64} : (tensor<1x4x2x3xf32>) -> tensor<1x4xf32>
  %y = "onnx.QuantizeLinear"(%m, %s, %z) : (tensor<1x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4xi8>
  %all = "onnx.ReduceMean"(%d) {axes = array<i64: 1, 2, 3>} : (tensor<1x4x2x3xf32>) -> tensor<1x1x1x1xf32>
  %y2 = "onnx.QuantizeLinear"(%all, %s, %z) : (tensor<1x1x1x1xf32>, tensor<f32>, tensor<i8>) -> tensor<1x1x1x1xi8>
  return %y, %y2 : tensor<1x4xi8>, tensor<1x1x1x1xi8>
}

// A Relu that is a Q/DQ stage of its own (PyTorch exports an unfused Linear
// + ReLU so): it tightens the clamp of the QMatMul before it; the MaxPool
// between two quantizations runs on int8 and rescales its smaller output.
// CHECK-LABEL: func.func @relu_stage_and_rescaled_pool
// CHECK: %[[M:.*]] = "onnx.QMatMul"(%arg0, {{.*}}act_max = 127 : i64, act_min = 5 : i64
// CHECK: %[[P:.*]], %{{.*}} = "onnx.MaxPool"(%arg1) {{.*}}-> (tensor<1x1x2x2xi8>, none)
// CHECK: %[[R:.*]] = "onnx.QRescale"(%[[P]]) {x_scale = 5.000000e-01 : f32, x_zero_point = 0 : i64, y_scale = 1.000000e+00 : f32, y_zero_point = 0 : i64}
// CHECK-NOT: onnx.Relu
// CHECK: return %[[M]], %[[R]]
func.func @relu_stage_and_rescaled_pool(%a: tensor<3x2xi8>, %x: tensor<1x1x4x4xi8>) -> (tensor<3x2xi8>, tensor<1x1x2x2xi8>) {
  %s = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = "onnx.Constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %s1 = "onnx.Constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %z5 = "onnx.Constant"() {value = dense<5> : tensor<i8>} : () -> tensor<i8>
  %da = "onnx.DequantizeLinear"(%a, %s, %z) : (tensor<3x2xi8>, tensor<f32>, tensor<i8>) -> tensor<3x2xf32>
  %wq = "onnx.Constant"() {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>} : () -> tensor<2x2xi8>
  %dw = "onnx.DequantizeLinear"(%wq, %s, %z) : (tensor<2x2xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2xf32>
  %g = "onnx.MatMul"(%da, %dw) : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %q = "onnx.QuantizeLinear"(%g, %s1, %z5) : (tensor<3x2xf32>, tensor<f32>, tensor<i8>) -> tensor<3x2xi8>
  %dq = "onnx.DequantizeLinear"(%q, %s1, %z5) : (tensor<3x2xi8>, tensor<f32>, tensor<i8>) -> tensor<3x2xf32>
  %r = "onnx.Relu"(%dq) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %y = "onnx.QuantizeLinear"(%r, %s1, %z5) : (tensor<3x2xf32>, tensor<f32>, tensor<i8>) -> tensor<3x2xi8>
  %dx = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<1x1x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x1x4x4xf32>
  %p, %i = "onnx.MaxPool"(%dx) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, none)
  %y2 = "onnx.QuantizeLinear"(%p, %s1, %z) : (tensor<1x1x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x1x2x2xi8>
  return %y, %y2 : tensor<3x2xi8>, tensor<1x1x2x2xi8>
}

// A layer that stays float is named with the reason in the account the
// compile summary prints: here the Gemm's output is not quantized.
// CHECK-LABEL: func.func @float_output
// CHECK-SAME: onnxc.quantization = {float = ["Gemm 'fc': its output is not quantized (no QuantizeLinear reads it alone)"], float_other = [], integer = 0 : i64}
// CHECK: "onnx.Gemm"
func.func @float_output(%a: tensor<3x2xi8>) -> tensor<3x2xf32> {
  %s = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %z = "onnx.Constant"() {value = dense<0> : tensor<i8>} : () -> tensor<i8>
  %da = "onnx.DequantizeLinear"(%a, %s, %z) : (tensor<3x2xi8>, tensor<f32>, tensor<i8>) -> tensor<3x2xf32>
  %wq = "onnx.Constant"() {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>} : () -> tensor<2x2xi8>
  %dw = "onnx.DequantizeLinear"(%wq, %s, %z) : (tensor<2x2xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2xf32>
  %c = "onnx.Constant"() {value = dense<[1.0, -0.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  %g = "onnx.Gemm"(%da, %dw, %c) {transB = 1 : i64} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32> loc("fc")
  return %g : tensor<3x2xf32>
}

// int16 activations (the 16x8 scheme): Conv + Relu fold into a QConv on
// i16 with the clamp at the int16 zero point; a Sigmoid of int16 stays float
// between its DQ and Q (no 65536-entry table); an int8 value read as int16
// is rescaled (QRescale i8 -> i16).
// CHECK-LABEL: func.func @int16_conv_sigmoid
// CHECK: %[[R:.*]] = "onnx.QRescale"(%arg0) {x_scale = 5.000000e-01 : f32, x_zero_point = 2 : i64, y_scale = 3.906250e-03 : f32, y_zero_point = 0 : i64} : (tensor<1x1x3x3xi8>) -> tensor<1x1x3x3xi16>
// CHECK: %[[C:.*]] = "onnx.QConv"(%[[R]], %{{.*}}, %{{.*}}) {act_max = 32767 : i64, act_min = 0 : i64, {{.*}}} : (tensor<1x1x3x3xi16>, tensor<2x1x3x3xi8>, tensor<2xi32>) -> tensor<1x2x3x3xi16>
// CHECK: "onnx.DequantizeLinear"(%[[C]]
// CHECK: "onnx.Sigmoid"
// CHECK: "onnx.QuantizeLinear"
func.func @int16_conv_sigmoid(%x: tensor<1x1x3x3xi8>) -> tensor<1x2x3x3xi16> {
  %xs = "onnx.Constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %xz = "onnx.Constant"() {value = dense<2> : tensor<i8>} : () -> tensor<i8>
  %dx8 = "onnx.DequantizeLinear"(%x, %xs, %xz) : (tensor<1x1x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<1x1x3x3xf32>
  %hs = "onnx.Constant"() {value = dense<0.00390625> : tensor<f32>} : () -> tensor<f32>
  %hz = "onnx.Constant"() {value = dense<0> : tensor<i16>} : () -> tensor<i16>
  %x16 = "onnx.QuantizeLinear"(%dx8, %hs, %hz) : (tensor<1x1x3x3xf32>, tensor<f32>, tensor<i16>) -> tensor<1x1x3x3xi16>
  %dx = "onnx.DequantizeLinear"(%x16, %hs, %hz) : (tensor<1x1x3x3xi16>, tensor<f32>, tensor<i16>) -> tensor<1x1x3x3xf32>
  %wq = "onnx.Constant"() {value = dense<1> : tensor<2x1x3x3xi8>} : () -> tensor<2x1x3x3xi8>
  %ws = "onnx.Constant"() {value = dense<[0.25, 0.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  %wz = "onnx.Constant"() {value = dense<0> : tensor<2xi8>} : () -> tensor<2xi8>
  %dw = "onnx.DequantizeLinear"(%wq, %ws, %wz) {axis = 0 : i64} : (tensor<2x1x3x3xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x1x3x3xf32>
  %bq = "onnx.Constant"() {value = dense<[8, -4]> : tensor<2xi32>} : () -> tensor<2xi32>
  %bs = "onnx.Constant"() {value = dense<[0.0009765625, 0.001953125]> : tensor<2xf32>} : () -> tensor<2xf32>
  %none = "onnx.NoValue"() : () -> none
  %db = "onnx.DequantizeLinear"(%bq, %bs, %none) {axis = 0 : i64} : (tensor<2xi32>, tensor<2xf32>, none) -> tensor<2xf32>
  %c = "onnx.Conv"(%dx, %dw, %db) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %r = "onnx.Relu"(%c) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %ys = "onnx.Constant"() {value = dense<0.001> : tensor<f32>} : () -> tensor<f32>
  %yz = "onnx.Constant"() {value = dense<0> : tensor<i16>} : () -> tensor<i16>
  %y = "onnx.QuantizeLinear"(%r, %ys, %yz) : (tensor<1x2x3x3xf32>, tensor<f32>, tensor<i16>) -> tensor<1x2x3x3xi16>
  %dy = "onnx.DequantizeLinear"(%y, %ys, %yz) : (tensor<1x2x3x3xi16>, tensor<f32>, tensor<i16>) -> tensor<1x2x3x3xf32>
  %s = "onnx.Sigmoid"(%dy) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %zs = "onnx.Constant"() {value = dense<0.0000305> : tensor<f32>} : () -> tensor<f32>
  %z = "onnx.QuantizeLinear"(%s, %zs, %yz) : (tensor<1x2x3x3xf32>, tensor<f32>, tensor<i16>) -> tensor<1x2x3x3xi16>
  return %z : tensor<1x2x3x3xi16>
}
