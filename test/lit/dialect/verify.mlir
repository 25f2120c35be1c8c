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

func.func @bad_winograd_stride(%x: tensor<1x1x8x8x16xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{winograd needs a blocked input and a 3x3, stride-1, undilated, group-1 convolution}}
  %0 = "onnx.BlockedConv"(%x, %w, %n, %n) {algorithm = "winograd", strides = array<i64: 2, 2>} : (tensor<1x1x8x8x16xf32>, tensor<16x16x3x3xf32>, none, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @bad_conv_algorithm(%x: tensor<1x1x8x8x16xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{unknown algorithm 'fft'}}
  %0 = "onnx.BlockedConv"(%x, %w, %n, %n) {algorithm = "fft"} : (tensor<1x1x8x8x16xf32>, tensor<16x16x3x3xf32>, none, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
