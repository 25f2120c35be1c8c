// The simd dialect (the SIMD targets' channel-blocked layout ops,
// targets/simd/SimdOps.td) refuses what its kernels cannot run.
// RUN: %onnxc-opt --split-input-file --onnxc-shape-inference --verify-diagnostics %s

func.func @bad_winograd_stride(%x: tensor<1x1x8x8x16xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{winograd needs a blocked input and a 3x3, stride-1, undilated, group-1 convolution}}
  %0 = "simd.BlockedConv"(%x, %w, %n, %n) {algorithm = #simd<algorithm winograd>, strides = array<i64: 2, 2>} : (tensor<1x1x8x8x16xf32>, tensor<16x16x3x3xf32>, none, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @bad_conv_algorithm(%x: tensor<1x1x8x8x16xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+2 {{ConvAlgorithm to be one of: direct, winograd, winograd_f2}}
  // expected-error @+1 {{failed to parse Simd_ConvAlgorithmAttr parameter}}
  %0 = "simd.BlockedConv"(%x, %w, %n, %n) {algorithm = #simd<algorithm fft>} : (tensor<1x1x8x8x16xf32>, tensor<16x16x3x3xf32>, none, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @bad_blocked_channels(%x: tensor<1x2x4x4x16xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{40 channels do not fill 2 blocks}}
  %0 = "simd.FromBlocked"(%x) {channels = 40 : i64} : (tensor<1x2x4x4x16xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @bad_scaled_conv_scale(%x: tensor<1x2x4x4x16xf32>, %s: tensor<1x1x1x1x16xf32>, %w: tensor<8x32x1x1xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{S 'tensor<1x1x1x1x16xf32>' is not one scale per image and channel of X 'tensor<1x2x4x4x16xf32>'}}
  %0 = "simd.BlockedScaledConv"(%x, %s, %w, %n, %n) : (tensor<1x2x4x4x16xf32>, tensor<1x1x1x1x16xf32>, tensor<8x32x1x1xf32>, none, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @bad_scaled_conv_window(%x: tensor<1x2x4x4x16xf32>, %s: tensor<1x2x1x1x16xf32>, %w: tensor<8x32x3x3xf32>) -> tensor<*xf32> {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{W 'tensor<8x32x3x3xf32>' is not a pointwise convolution's}}
  %0 = "simd.BlockedScaledConv"(%x, %s, %w, %n, %n) : (tensor<1x2x4x4x16xf32>, tensor<1x2x1x1x16xf32>, tensor<8x32x3x3xf32>, none, none) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @bad_gather_channel(%a: tensor<1x1x4x4x16xf32>, %b: tensor<1x1x4x4x16xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{channel 12 is not one of the inputs' 12}}
  %0 = "simd.BlockedChannelGather"(%a, %b) {in_channels = array<i64: 6, 6>, channels = array<i64: 0, 12>} : (tensor<1x1x4x4x16xf32>, tensor<1x1x4x4x16xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @bad_gather_inputs(%a: tensor<1x1x4x4x16xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{takes one or two inputs, not 3}}
  %0 = "simd.BlockedChannelGather"(%a, %a, %a) {in_channels = array<i64: 6, 6, 6>, channels = array<i64: 0>} : (tensor<1x1x4x4x16xf32>, tensor<1x1x4x4x16xf32>, tensor<1x1x4x4x16xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @bad_gather_blocks(%a: tensor<1x1x4x4x16xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{input 'tensor<1x1x4x4x16xf32>' does not hold 20 channels}}
  %0 = "simd.BlockedChannelGather"(%a) {in_channels = array<i64: 20>, channels = array<i64: 0>} : (tensor<1x1x4x4x16xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @bad_nchw_gather_channels(%a: tensor<1x6x4x4xi8>) -> tensor<*xi8> {
  // expected-error @+1 {{input 'tensor<1x6x4x4xi8>' does not hold 16 channels}}
  %0 = "simd.ChannelGather"(%a) {in_channels = array<i64: 16>, channels = array<i64: 0>} : (tensor<1x6x4x4xi8>) -> tensor<*xi8>
  return %0 : tensor<*xi8>
}

// -----

func.func @bad_nchw_gather_table(%a: tensor<1x6x4x4xi8>) -> tensor<*xi8> {
  // expected-error @+1 {{is not 256 of its input's values, or unit}}
  %0 = "simd.ChannelGather"(%a) {in_channels = array<i64: 6>, channels = array<i64: 5>, tables = [dense<1> : tensor<16xi8>]} : (tensor<1x6x4x4xi8>) -> tensor<*xi8>
  return %0 : tensor<*xi8>
}

// -----

func.func @bad_nchw_gather_floats(%a: tensor<1x6x4x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{gathers bytes, not 'f32'}}
  %0 = "simd.ChannelGather"(%a) {in_channels = array<i64: 6>, channels = array<i64: 5>} : (tensor<1x6x4x4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
