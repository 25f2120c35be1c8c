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
