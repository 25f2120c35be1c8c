//===- NNOps.td - convolution, pooling, normalization, recurrent ---------===//
#ifndef ONNXC_ONNX_NN_OPS_TD
#define ONNXC_ONNX_NN_OPS_TD

include "onnxc/Dialect/ONNX/ONNXBase.td"

// Attributes shared by Conv and the pools. auto_pad is resolved into explicit
// pads by shape inference (SAME_UPPER/SAME_LOWER/VALID/NOTSET).
def ONNX_ConvOp : ONNX_Op<"Conv", [DeclareOpInterfaceMethods<ONNX_ComputeCostInterface>]> {
  let summary = "N-d convolution (opset 11), grouped, dilated, strided";
  let arguments = (ins AnyTensor:$X, AnyTensor:$W, ONNX_TensorOrNone:$B,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   ONNX_GroupAttr:$group,
                   OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y);
}

def ONNX_MaxPoolOp : ONNX_Op<"MaxPool"> {
  let summary = "N-d max pooling (opset 12)";
  let arguments = (ins AnyTensor:$X,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   DenseI64ArrayAttr:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   DefaultValuedAttr<I64Attr, "0">:$storage_order,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y, ONNX_TensorOrNone:$Indices);
}

def ONNX_AveragePoolOp : ONNX_Op<"AveragePool"> {
  let summary = "N-d average pooling (opset 19: dilations)";
  let arguments = (ins AnyTensor:$X,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                   DefaultValuedAttr<I64Attr, "0">:$count_include_pad,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   DenseI64ArrayAttr:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y);
}

def ONNX_GlobalAveragePoolOp : ONNX_Op<"GlobalAveragePool"> {
  let summary = "mean over all spatial dimensions, kept as size 1";
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
}

def ONNX_GlobalMaxPoolOp : ONNX_Op<"GlobalMaxPool"> {
  let summary = "maximum over all spatial dimensions, kept as size 1";
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
}

def ONNX_BatchNormalizationOp : ONNX_Op<"BatchNormalization", [ONNX_InPlaceOperand0]> {
  let summary = "batch normalization (opset 15)";
  let description = [{
    Y = (X - mean) / sqrt(var + epsilon) * scale + B, per channel (dim 1).
    Inference (training_mode = 0): mean and var are the inputs. Training
    mode: they are the batch's statistics (biased variance), and the optional
    outputs running_mean/running_var are input * momentum + batch * (1 -
    momentum), as the ONNX reference computes them.
  }];
  let arguments = (ins AnyTensor:$X, AnyTensor:$scale, AnyTensor:$B,
                   AnyTensor:$input_mean, AnyTensor:$input_var,
                   DefaultValuedAttr<F32Attr, "1e-05">:$epsilon,
                   DefaultValuedAttr<F32Attr, "0.9">:$momentum,
                   DefaultValuedAttr<I64Attr, "0">:$training_mode);
  let results = (outs AnyTensor:$Y, ONNX_TensorOrNone:$running_mean,
                 ONNX_TensorOrNone:$running_var);
}

def ONNX_LayerNormalizationOp : ONNX_Op<"LayerNormalization"> {
  let summary = "normalization over the trailing axes from `axis` (opset 17)";
  let arguments = (ins AnyTensor:$X, AnyTensor:$Scale, ONNX_TensorOrNone:$B,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<F32Attr, "1e-05">:$epsilon,
                   DefaultValuedAttr<I64Attr, "1">:$stash_type);
  let results = (outs AnyTensor:$Y, ONNX_TensorOrNone:$Mean,
                 ONNX_TensorOrNone:$InvStdDev);
}

class ONNX_SoftmaxFamilyOp<string mnemonic, string summaryText>
    : ONNX_Op<mnemonic, [ONNX_InPlaceOperand0]> {
  let summary = summaryText;
  let description = [{
    Opset-13 semantics: along the single axis `axis`. The importer rewrites
    opset < 13 models (coerced to 2-D at `axis`) into Flatten + op + Reshape.
  }];
  let arguments = (ins AnyTensor:$input, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs AnyTensor:$output);
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferShapes() {
      return ::onnxc::onnx::inferSameAsOperand(getOperation(), 0);
    }
  }];
}
def ONNX_SoftmaxOp    : ONNX_SoftmaxFamilyOp<"Softmax", "exp(x) / sum(exp(x)) along axis">;
def ONNX_LogSoftmaxOp : ONNX_SoftmaxFamilyOp<"LogSoftmax", "log of Softmax along axis">;
def ONNX_HardmaxOp    : ONNX_SoftmaxFamilyOp<"Hardmax", "one-hot of the first maximum along axis">;

def ONNX_DropoutOp : ONNX_Op<"Dropout", [ONNX_View]> {
  let summary = "identity at inference (training_mode must be false)";
  let arguments = (ins AnyTensor:$data, ONNX_TensorOrNone:$ratio,
                   ONNX_TensorOrNone:$training_mode,
                   OptionalAttr<I64Attr>:$seed);
  let results = (outs AnyTensor:$output, ONNX_TensorOrNone:$mask);
}

def ONNX_ConvTransposeOp : ONNX_Op<"ConvTranspose", [DeclareOpInterfaceMethods<ONNX_ComputeCostInterface>]> {
  let summary = "N-d transposed convolution (opset 11), grouped, dilated, strided";
  let arguments = (ins AnyTensor:$X, AnyTensor:$W, ONNX_TensorOrNone:$B,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   ONNX_GroupAttr:$group,
                   OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$output_padding,
                   OptionalAttr<DenseI64ArrayAttr>:$output_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$Y);
}

def ONNX_ResizeOp : ONNX_Op<"Resize"> {
  let summary = "N-d resize: nearest, linear or cubic, by scales or sizes (opset 19)";
  let arguments = (ins AnyTensor:$X, ONNX_TensorOrNone:$roi, ONNX_TensorOrNone:$scales,
                   ONNX_TensorOrNone:$sizes,
                   DefaultValuedAttr<I64Attr, "0">:$antialias,
                   OptionalAttr<DenseI64ArrayAttr>:$axes,
                   DefaultValuedAttr<StrAttr, "\"half_pixel\"">:$coordinate_transformation_mode,
                   DefaultValuedAttr<F32Attr, "-0.75">:$cubic_coeff_a,
                   DefaultValuedAttr<I64Attr, "0">:$exclude_outside,
                   DefaultValuedAttr<F32Attr, "0.0">:$extrapolation_value,
                   DefaultValuedAttr<StrAttr, "\"stretch\"">:$keep_aspect_ratio_policy,
                   DefaultValuedAttr<StrAttr, "\"nearest\"">:$mode,
                   DefaultValuedAttr<StrAttr, "\"round_prefer_floor\"">:$nearest_mode);
  let results = (outs AnyTensor:$Y);
  let hasFolder = 1;
}

def ONNX_NegativeLogLikelihoodLossOp : ONNX_Op<"NegativeLogLikelihoodLoss"> {
  let summary = "loss = -input[n, target[n, d...], d...] * weight[target], reduced";
  let arguments = (ins AnyTensor:$input, AnyTensor:$target, ONNX_TensorOrNone:$weight,
                   OptionalAttr<I64Attr>:$ignore_index,
                   DefaultValuedAttr<StrAttr, "\"mean\"">:$reduction);
  let results = (outs AnyTensor:$loss);
}

def ONNX_SoftmaxCrossEntropyLossOp : ONNX_Op<"SoftmaxCrossEntropyLoss"> {
  let summary = "NegativeLogLikelihoodLoss of LogSoftmax(scores, axis 1)";
  let arguments = (ins AnyTensor:$scores, AnyTensor:$labels, ONNX_TensorOrNone:$weights,
                   OptionalAttr<I64Attr>:$ignore_index,
                   DefaultValuedAttr<StrAttr, "\"mean\"">:$reduction);
  let results = (outs AnyTensor:$output, ONNX_TensorOrNone:$log_prob);
}

def ONNX_InstanceNormalizationOp : ONNX_Op<"InstanceNormalization"> {
  let summary = "per (n, c) normalization over the spatial dims, then scale and B per channel";
  let arguments = (ins AnyTensor:$input, AnyTensor:$scale, AnyTensor:$B,
                   DefaultValuedAttr<F32Attr, "1e-05">:$epsilon);
  let results = (outs AnyTensor:$output);
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferShapes() {
      return ::onnxc::onnx::inferSameAsOperand(getOperation(), 0);
    }
  }];
}

def ONNX_GroupNormalizationOp : ONNX_Op<"GroupNormalization"> {
  let summary = "normalization over channel groups (opset 21: per-channel scale and bias)";
  let arguments = (ins AnyTensor:$X, AnyTensor:$scale, AnyTensor:$bias,
                   DefaultValuedAttr<F32Attr, "1e-05">:$epsilon, ONNX_GroupCountAttr:$num_groups,
                   DefaultValuedAttr<I64Attr, "1">:$stash_type);
  let results = (outs AnyTensor:$Y);
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferShapes() {
      return ::onnxc::onnx::inferSameAsOperand(getOperation(), 0);
    }
  }];
}

def ONNX_LRNOp : ONNX_Op<"LRN"> {
  let summary = "local response normalization across channels";
  let arguments = (ins AnyTensor:$X, DefaultValuedAttr<F32Attr, "0.0001">:$alpha,
                   DefaultValuedAttr<F32Attr, "0.75">:$beta,
                   DefaultValuedAttr<F32Attr, "1.0">:$bias, I64Attr:$size);
  let results = (outs AnyTensor:$Y);
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferShapes() {
      return ::onnxc::onnx::inferSameAsOperand(getOperation(), 0);
    }
  }];
}

def ONNX_MaxUnpoolOp : ONNX_Op<"MaxUnpool"> {
  let summary = "scatter X to the positions in I of a zero tensor (MaxPool's inverse)";
  let arguments = (ins AnyTensor:$X, AnyTensor:$I, ONNX_TensorOrNone:$output_shape,
                   DenseI64ArrayAttr:$kernel_shape, OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$output);
}

def ONNX_RNNOp : ONNX_Op<"RNN", [DeclareOpInterfaceMethods<ONNX_ComputeCostInterface>]> {
  let summary = "simple RNN layer (tanh), forward/reverse/bidirectional (opset 14)";
  let arguments = (ins AnyTensor:$X, AnyTensor:$W, AnyTensor:$R,
                   ONNX_TensorOrNone:$B, ONNX_TensorOrNone:$sequence_lens,
                   ONNX_TensorOrNone:$initial_h,
                   OptionalAttr<DenseF32ArrayAttr>:$activation_alpha,
                   OptionalAttr<DenseF32ArrayAttr>:$activation_beta,
                   OptionalAttr<StrArrayAttr>:$activations,
                   OptionalAttr<F32Attr>:$clip,
                   DefaultValuedAttr<StrAttr, "\"forward\"">:$direction,
                   OptionalAttr<I64Attr>:$hidden_size,
                   DefaultValuedAttr<I64Attr, "0">:$layout);
  let results = (outs ONNX_TensorOrNone:$Y, ONNX_TensorOrNone:$Y_h);
  let hasVerifier = 1;
}

def ONNX_GridSampleOp : ONNX_Op<"GridSample"> {
  let summary = "sample X at normalised grid points (bilinear, nearest, bicubic)";
  let arguments = (ins AnyTensor:$X, AnyTensor:$grid,
                   DefaultValuedAttr<I64Attr, "0">:$align_corners,
                   DefaultValuedAttr<StrAttr, "\"bilinear\"">:$mode,
                   DefaultValuedAttr<StrAttr, "\"zeros\"">:$padding_mode);
  let results = (outs AnyTensor:$Y);
}

def ONNX_RoiAlignOp : ONNX_Op<"RoiAlign"> {
  let summary = "average or max of bilinear samples in each region of interest bin";
  let arguments = (ins AnyTensor:$X, AnyTensor:$rois, AnyTensor:$batch_indices,
                   DefaultValuedAttr<StrAttr, "\"half_pixel\"">:$coordinate_transformation_mode,
                   DefaultValuedAttr<StrAttr, "\"avg\"">:$mode,
                   DefaultValuedAttr<I64Attr, "1">:$output_height,
                   DefaultValuedAttr<I64Attr, "1">:$output_width,
                   DefaultValuedAttr<I64Attr, "0">:$sampling_ratio,
                   DefaultValuedAttr<F32Attr, "1.0">:$spatial_scale);
  let results = (outs AnyTensor:$Y);
}

def ONNX_NonMaxSuppressionOp : ONNX_Op<"NonMaxSuppression",
    [DeclareOpInterfaceMethods<DataDependentShapeOpInterface>]> {
  let summary = "greedy per-class selection of high-scoring boxes that overlap little";
  let description = [{
    selected_indices is [bound, 3] (batch, class, box) with `extent` rows
    filled; the bound is batches * classes * min(boxes, max_output_boxes_per_class
    when that is a constant). `n` (not an ONNX input; onnxc-data-dependent-dims
    sets it) is the run-time number of boxes when the data decides it.
  }];
  let arguments = (ins AnyTensor:$boxes, AnyTensor:$scores,
                   ONNX_TensorOrNone:$max_output_boxes_per_class,
                   ONNX_TensorOrNone:$iou_threshold, ONNX_TensorOrNone:$score_threshold,
                   ONNX_TensorOrNone:$n,
                   DefaultValuedAttr<I64Attr, "0">:$center_point_box);
  let results = (outs AnyTensor:$selected_indices, AnyTensor:$extent);
}

def ONNX_DFTOp : ONNX_Op<"DFT"> {
  let summary = "discrete Fourier transform along axis (opset 17), complex as a last dim of 2";
  let arguments = (ins AnyTensor:$input, ONNX_TensorOrNone:$dft_length,
                   DefaultValuedAttr<I64Attr, "1">:$axis,
                   DefaultValuedAttr<I64Attr, "0">:$inverse,
                   DefaultValuedAttr<I64Attr, "0">:$onesided);
  let results = (outs AnyTensor:$output);
}

def ONNX_STFTOp : ONNX_Op<"STFT"> {
  let summary = "short-time Fourier transform (opset 17)";
  let arguments = (ins AnyTensor:$signal, AnyTensor:$frame_step, ONNX_TensorOrNone:$window,
                   ONNX_TensorOrNone:$frame_length,
                   DefaultValuedAttr<I64Attr, "1">:$onesided);
  let results = (outs AnyTensor:$output);
}

def ONNX_MelWeightMatrixOp : ONNX_Op<"MelWeightMatrix"> {
  let summary = "triangular mel filter bank (opset 17)";
  let arguments = (ins AnyTensor:$num_mel_bins, AnyTensor:$dft_length,
                   AnyTensor:$sample_rate, AnyTensor:$lower_edge_hertz,
                   AnyTensor:$upper_edge_hertz,
                   DefaultValuedAttr<I64Attr, "1">:$output_datatype);
  let results = (outs AnyTensor:$output);
}

def ONNX_StringNormalizerOp : ONNX_Op<"StringNormalizer",
    [DeclareOpInterfaceMethods<DataDependentShapeOpInterface>]> {
  let summary = "drops stopwords from [C] or [1, C] strings and changes their case";
  let description = [{
    Y's last dim holds `extent` strings (at least one: "" when every string
    was a stopword). Case folding and case change apply to ASCII letters;
    `locale` is accepted and not used.
  }];
  let arguments = (ins AnyTensor:$X,
                   DefaultValuedAttr<StrAttr, "\"NONE\"">:$case_change_action,
                   DefaultValuedAttr<I64Attr, "0">:$is_case_sensitive,
                   OptionalAttr<StrAttr>:$locale, OptionalAttr<StrArrayAttr>:$stopwords);
  let results = (outs AnyTensor:$Y, AnyTensor:$extent);
}

def ONNX_TfIdfVectorizerOp : ONNX_Op<"TfIdfVectorizer"> {
  let summary = "n-gram counts (TF, IDF or TFIDF) of integer token sequences";
  let arguments = (ins AnyTensor:$X, I64Attr:$max_gram_length, I64Attr:$max_skip_count,
                   I64Attr:$min_gram_length, StrAttr:$mode,
                   DenseI64ArrayAttr:$ngram_counts, DenseI64ArrayAttr:$ngram_indexes,
                   OptionalAttr<DenseI64ArrayAttr>:$pool_int64s,
                   OptionalAttr<StrArrayAttr>:$pool_strings,
                   OptionalAttr<DenseF32ArrayAttr>:$weights);
  let results = (outs AnyTensor:$Y);
}

//===-- Quantization -----------------------------------------------------===//

def ONNX_QuantizeLinearOp : ONNX_Op<"QuantizeLinear"> {
  let summary = "y = saturate(round(x / scale) + zero_point), per tensor or per axis";
  let arguments = (ins AnyTensor:$x, AnyTensor:$y_scale, ONNX_TensorOrNone:$y_zero_point,
                   DefaultValuedAttr<I64Attr, "1">:$axis,
                   DefaultValuedAttr<I64Attr, "1">:$saturate);
  let results = (outs AnyTensor:$y);
  let hasVerifier = 1;
}

def ONNX_DequantizeLinearOp : ONNX_Op<"DequantizeLinear"> {
  let summary = "y = (x - zero_point) * scale, per tensor or per axis";
  let arguments = (ins AnyTensor:$x, AnyTensor:$x_scale, ONNX_TensorOrNone:$x_zero_point,
                   DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs AnyTensor:$y);
  let hasVerifier = 1;
}

def ONNX_DynamicQuantizeLinearOp : ONNX_Op<"DynamicQuantizeLinear"> {
  let summary = "uint8 quantization with scale and zero point from x's range";
  let arguments = (ins AnyTensor:$x);
  let results = (outs AnyTensor:$y, AnyTensor:$y_scale, AnyTensor:$y_zero_point);
}

def ONNX_MatMulIntegerOp : ONNX_Op<"MatMulInteger"> {
  let summary = "int32 (A - a_zero_point) x (B - b_zero_point), numpy.matmul rules";
  let arguments = (ins AnyTensor:$A, AnyTensor:$B, ONNX_TensorOrNone:$a_zero_point,
                   ONNX_TensorOrNone:$b_zero_point);
  let results = (outs AnyTensor:$Y);
}

def ONNX_ConvIntegerOp : ONNX_Op<"ConvInteger"> {
  let summary = "int32 convolution of (x - x_zero_point) and (w - w_zero_point)";
  let arguments = (ins AnyTensor:$x, AnyTensor:$w, ONNX_TensorOrNone:$x_zero_point,
                   ONNX_TensorOrNone:$w_zero_point,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   ONNX_GroupAttr:$group,
                   OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$y);
}

def ONNX_QLinearMatMulOp : ONNX_Op<"QLinearMatMul"> {
  let summary = "quantized MatMul: int32 accumulation, then requantized to y's scale";
  let arguments = (ins AnyTensor:$a, AnyTensor:$a_scale, AnyTensor:$a_zero_point,
                   AnyTensor:$b, AnyTensor:$b_scale, AnyTensor:$b_zero_point,
                   AnyTensor:$y_scale, AnyTensor:$y_zero_point);
  let results = (outs AnyTensor:$y);
}

def ONNX_QLinearConvOp : ONNX_Op<"QLinearConv"> {
  let summary = "quantized Conv: int32 accumulation (+ int32 bias), then requantized";
  let arguments = (ins AnyTensor:$x, AnyTensor:$x_scale, AnyTensor:$x_zero_point,
                   AnyTensor:$w, AnyTensor:$w_scale, AnyTensor:$w_zero_point,
                   AnyTensor:$y_scale, AnyTensor:$y_zero_point, ONNX_TensorOrNone:$B,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   ONNX_GroupAttr:$group,
                   OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs AnyTensor:$y);
}

// Recurrent layers (opset 14). Gates follow the ONNX equations exactly;
// activations are limited to the defaults (checked by the verifier).
def ONNX_LSTMOp : ONNX_Op<"LSTM", [DeclareOpInterfaceMethods<ONNX_ComputeCostInterface>]> {
  let summary = "LSTM layer, forward/reverse/bidirectional (opset 14)";
  let arguments = (ins AnyTensor:$X, AnyTensor:$W, AnyTensor:$R,
                   ONNX_TensorOrNone:$B, ONNX_TensorOrNone:$sequence_lens,
                   ONNX_TensorOrNone:$initial_h, ONNX_TensorOrNone:$initial_c,
                   ONNX_TensorOrNone:$P,
                   OptionalAttr<DenseF32ArrayAttr>:$activation_alpha,
                   OptionalAttr<DenseF32ArrayAttr>:$activation_beta,
                   OptionalAttr<StrArrayAttr>:$activations,
                   OptionalAttr<F32Attr>:$clip,
                   DefaultValuedAttr<StrAttr, "\"forward\"">:$direction,
                   OptionalAttr<I64Attr>:$hidden_size,
                   DefaultValuedAttr<I64Attr, "0">:$input_forget,
                   DefaultValuedAttr<I64Attr, "0">:$layout);
  let results = (outs ONNX_TensorOrNone:$Y, ONNX_TensorOrNone:$Y_h,
                 ONNX_TensorOrNone:$Y_c);
  let hasVerifier = 1;
}

def ONNX_GRUOp : ONNX_Op<"GRU", [DeclareOpInterfaceMethods<ONNX_ComputeCostInterface>]> {
  let summary = "GRU layer, forward/reverse/bidirectional (opset 14)";
  let arguments = (ins AnyTensor:$X, AnyTensor:$W, AnyTensor:$R,
                   ONNX_TensorOrNone:$B, ONNX_TensorOrNone:$sequence_lens,
                   ONNX_TensorOrNone:$initial_h,
                   OptionalAttr<DenseF32ArrayAttr>:$activation_alpha,
                   OptionalAttr<DenseF32ArrayAttr>:$activation_beta,
                   OptionalAttr<StrArrayAttr>:$activations,
                   OptionalAttr<F32Attr>:$clip,
                   DefaultValuedAttr<StrAttr, "\"forward\"">:$direction,
                   OptionalAttr<I64Attr>:$hidden_size,
                   DefaultValuedAttr<I64Attr, "0">:$layout,
                   DefaultValuedAttr<I64Attr, "0">:$linear_before_reset);
  let results = (outs ONNX_TensorOrNone:$Y, ONNX_TensorOrNone:$Y_h);
  let hasVerifier = 1;
}

#endif
