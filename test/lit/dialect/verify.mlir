// Inconsistent ops are rejected with the reason.
// RUN: %onnxc-opt --onnxc-shape-inference --split-input-file --verify-diagnostics %s

func.func @bad_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{cannot be broadcast together}}
  %0 = "onnx.Add"(%a, %b) : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @bad_matmul(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{MatMul inner dimensions differ}}
  %0 = "onnx.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @bad_reshape(%a: tensor<2x3xf32>) -> tensor<*xf32> {
  %s = "onnx.Constant"() {value = dense<[4, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  // expected-error @+1 {{cannot reshape}}
  %0 = "onnx.Reshape"(%a, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @bad_conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{input channels (3) do not match weights}}
  %0 = "onnx.Conv"(%x, %w, %n) : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @bad_lstm_activation(%x: tensor<2x1x3xf32>, %w: tensor<1x16x3xf32>, %r: tensor<1x16x4xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{activation 'Relu' is not supported}}
  %y, %h, %c = "onnx.LSTM"(%x, %w, %r, %n, %n, %n, %n, %n) {activations = ["Relu", "Tanh", "Tanh"], hidden_size = 4 : i64} : (tensor<2x1x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, none, none, none, none, none) -> (tensor<*xf32>, none, none)
  return %y : tensor<*xf32>
}

// -----

// The qs8 ops (QuantOps.td): int8 weights, a clamp within the output type,
// positive scales, a table of 256 values.
func.func @qconv_float_weights(%x: tensor<1x1x4x4xi8>, %w: tensor<2x1x3x3xf32>) -> tensor<*xi8> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{weights must be int8}}
  %0 = "onnx.QConv"(%x, %w, %n) {x_scale = 1.0 : f32, x_zero_point = 0 : i64, w_scale = array<f32: 1.0>, y_scale = 1.0 : f32, y_zero_point = 0 : i64, act_min = -128 : i64, act_max = 127 : i64} : (tensor<1x1x4x4xi8>, tensor<2x1x3x3xf32>, none) -> tensor<*xi8>
  return %0 : tensor<*xi8>
}

// -----

func.func @qconv_scales_per_channel(%x: tensor<1x1x4x4xi8>, %w: tensor<2x1x3x3xi8>) -> tensor<*xi8> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{w_scale has 3 values for 2 output channels}}
  %0 = "onnx.QConv"(%x, %w, %n) {x_scale = 1.0 : f32, x_zero_point = 0 : i64, w_scale = array<f32: 1.0, 2.0, 3.0>, y_scale = 1.0 : f32, y_zero_point = 0 : i64, act_min = -128 : i64, act_max = 127 : i64} : (tensor<1x1x4x4xi8>, tensor<2x1x3x3xi8>, none) -> tensor<*xi8>
  return %0 : tensor<*xi8>
}

// -----

func.func @qadd_clamp_outside_uint8(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<*xui8> {
  // expected-error @+1 {{clamp [-5, 255] is not a range of 'ui8'}}
  %0 = "onnx.QAdd"(%a, %b) {a_scale = 1.0 : f32, a_zero_point = 0 : i64, b_scale = 1.0 : f32, b_zero_point = 0 : i64, y_scale = 1.0 : f32, y_zero_point = 0 : i64, act_min = -5 : i64, act_max = 255 : i64} : (tensor<4xui8>, tensor<4xui8>) -> tensor<*xui8>
  return %0 : tensor<*xui8>
}

// -----

func.func @qrescale_zero_scale(%x: tensor<4xi8>) -> tensor<*xi8> {
  // expected-error @+1 {{y_scale must be positive and finite}}
  %0 = "onnx.QRescale"(%x) {x_scale = 1.0 : f32, x_zero_point = 0 : i64, y_scale = 0.0 : f32, y_zero_point = 0 : i64} : (tensor<4xi8>) -> tensor<*xi8>
  return %0 : tensor<*xi8>
}

// -----

func.func @qlookup_short_table(%x: tensor<4xi8>, %t: tensor<128xi8>) -> tensor<*xi8> {
  // expected-error @+1 {{table must hold 256 values of 'i8'}}
  %0 = "onnx.QLookup"(%x, %t) : (tensor<4xi8>, tensor<128xi8>) -> tensor<*xi8>
  return %0 : tensor<*xi8>
}
