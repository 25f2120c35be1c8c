//===- TensorOps.td - constants, shape manipulation, data movement -------===//
#ifndef ONNXC_ONNX_TENSOR_OPS_TD
#define ONNXC_ONNX_TENSOR_OPS_TD

include "onnxc/Dialect/ONNX/ONNXBase.td"

def ONNX_ConstantOp : ONNX_Op<"Constant", [ConstantLike]> {
  let summary = "a constant tensor (initializers and Constant nodes)";
  let description = [{
    Every ONNX initializer and Constant node (whatever its value_* attribute)
    becomes one of these, holding an ElementsAttr.
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyTensor:$output);
  let hasFolder = 1;
}

def ONNX_NoValueOp : ONNX_Op<"NoValue", [ConstantLike]> {
  let summary = "stands for an omitted optional input or output";
  let arguments = (ins);
  let results = (outs NoneType:$none);
}

def ONNX_IdentityOp : ONNX_UnaryOp<"Identity", "y = x", [ONNX_View], /*referenceFunctor=*/0> {
  let hasFolder = 1;
}

def ONNX_CastOp : ONNX_Op<"Cast", [ONNX_InPlaceOperand0]> {
  let summary = "element type conversion; `to` is the ONNX TensorProto type";
  let arguments = (ins AnyTensor:$input, I64Attr:$to,
                   DefaultValuedAttr<I64Attr, "1">:$saturate);
  let results = (outs AnyTensor:$output);
  let hasFolder = 1;
}

def ONNX_ShapeOp : ONNX_Op<"Shape"> {
  let summary = "the shape of a tensor as 1-D int64, sliced by start/end (opset 15)";
  let arguments = (ins AnyTensor:$data, OptionalAttr<I64Attr>:$end,
                   DefaultValuedAttr<I64Attr, "0">:$start);
  let results = (outs AnyTensor:$shape);
}

def ONNX_SizeOp : ONNX_Op<"Size"> {
  let summary = "the number of elements as an int64 scalar";
  let arguments = (ins AnyTensor:$data);
  let results = (outs AnyTensor:$size);
}

def ONNX_ConstantOfShapeOp : ONNX_Op<"ConstantOfShape"> {
  let summary = "a tensor of the given shape filled with `value` (default 0.0f)";
  let arguments = (ins AnyTensor:$input, OptionalAttr<ElementsAttr>:$value);
  let results = (outs AnyTensor:$output);
}

def ONNX_RangeOp : ONNX_Op<"Range"> {
  let summary = "start, start+delta, ... up to (excluding) limit";
  let arguments = (ins AnyTensor:$start, AnyTensor:$limit, AnyTensor:$delta);
  let results = (outs AnyTensor:$output);
}

def ONNX_ReshapeOp : ONNX_Op<"Reshape", [ONNX_View]> {
  let summary = "new shape, same data (0 copies a dim unless allowzero, -1 infers)";
  let arguments = (ins AnyTensor:$data, AnyTensor:$shape,
                   DefaultValuedAttr<I64Attr, "0">:$allowzero);
  let results = (outs AnyTensor:$reshaped);
  let hasFolder = 1;
}

def ONNX_FlattenOp : ONNX_Op<"Flatten", [ONNX_View]> {
  let summary = "2-D view: dims before axis times dims from axis";
  let arguments = (ins AnyTensor:$input, DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs AnyTensor:$output);
}

// Squeeze/Unsqueeze in opset-13 form: axes as an (optional) constant input.
def ONNX_SqueezeOp : ONNX_Op<"Squeeze", [ONNX_View]> {
  let summary = "remove size-1 dims (all of them when axes is absent)";
  let arguments = (ins AnyTensor:$data, ONNX_TensorOrNone:$axes);
  let results = (outs AnyTensor:$squeezed);
}

def ONNX_UnsqueezeOp : ONNX_Op<"Unsqueeze", [ONNX_View]> {
  let summary = "insert size-1 dims at axes (of the output)";
  let arguments = (ins AnyTensor:$data, AnyTensor:$axes);
  let results = (outs AnyTensor:$expanded);
}

def ONNX_TransposeOp : ONNX_Op<"Transpose"> {
  let summary = "permute dims (reverse when perm is absent)";
  let arguments = (ins AnyTensor:$data, OptionalAttr<DenseI64ArrayAttr>:$perm);
  let results = (outs AnyTensor:$transposed);
  let hasFolder = 1;
}

def ONNX_ConcatOp : ONNX_Op<"Concat"> {
  let summary = "join along axis";
  let arguments = (ins Variadic<AnyTensor>:$inputs, I64Attr:$axis);
  let results = (outs AnyTensor:$concat_result);
}

def ONNX_SplitOp : ONNX_Op<"Split"> {
  let summary = "split along axis by sizes (input) or into equal parts (opset 18)";
  let arguments = (ins AnyTensor:$input, ONNX_TensorOrNone:$split,
                   DefaultValuedAttr<I64Attr, "0">:$axis,
                   OptionalAttr<I64Attr>:$num_outputs);
  let results = (outs Variadic<AnyTensor>:$outputs);
}

def ONNX_SliceOp : ONNX_Op<"Slice"> {
  let summary = "strided slice with starts/ends/axes/steps inputs (opset 13)";
  let arguments = (ins AnyTensor:$data, AnyTensor:$starts, AnyTensor:$ends,
                   ONNX_TensorOrNone:$axes, ONNX_TensorOrNone:$steps);
  let results = (outs AnyTensor:$output);
}

def ONNX_GatherOp : ONNX_Op<"Gather"> {
  let summary = "take along axis with an index tensor (negative indices wrap)";
  let arguments = (ins AnyTensor:$data, AnyTensor:$indices,
                   DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs AnyTensor:$output);
}

def ONNX_ExpandOp : ONNX_Op<"Expand"> {
  let summary = "broadcast to a shape (bidirectional)";
  let arguments = (ins AnyTensor:$input, AnyTensor:$shape);
  let results = (outs AnyTensor:$output);
  let hasFolder = 1;
}

def ONNX_TileOp : ONNX_Op<"Tile"> {
  let summary = "repeat the tensor `repeats[i]` times along dim i";
  let arguments = (ins AnyTensor:$input, AnyTensor:$repeats);
  let results = (outs AnyTensor:$output);
}

def ONNX_PadOp : ONNX_Op<"Pad"> {
  let summary = "pad with a constant, reflect, edge or wrap (opset 19)";
  let arguments = (ins AnyTensor:$data, AnyTensor:$pads,
                   ONNX_TensorOrNone:$constant_value, ONNX_TensorOrNone:$axes,
                   DefaultValuedAttr<StrAttr, "\"constant\"">:$mode);
  let results = (outs AnyTensor:$output);
  let hasFolder = 1;
}

def ONNX_GatherElementsOp : ONNX_Op<"GatherElements"> {
  let summary = "out[i] = data[i with index[axis] replaced by indices[i]]";
  let arguments = (ins AnyTensor:$data, AnyTensor:$indices,
                   DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs AnyTensor:$output);
}

def ONNX_ScatterElementsOp : ONNX_Op<"ScatterElements"> {
  let summary = "data with updates written (or reduced) at indices along axis (opset 18)";
  let arguments = (ins AnyTensor:$data, AnyTensor:$indices, AnyTensor:$updates,
                   DefaultValuedAttr<I64Attr, "0">:$axis,
                   DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs AnyTensor:$output);
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferShapes() {
      return ::onnxc::onnx::inferSameAsOperand(getOperation(), 0);
    }
  }];
}

def ONNX_GatherNDOp : ONNX_Op<"GatherND"> {
  let summary = "slices of data addressed by the last dim of indices";
  let arguments = (ins AnyTensor:$data, AnyTensor:$indices,
                   DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs AnyTensor:$output);
}

def ONNX_ScatterNDOp : ONNX_Op<"ScatterND"> {
  let summary = "data with update slices written (or reduced) at indices (opset 18)";
  let arguments = (ins AnyTensor:$data, AnyTensor:$indices, AnyTensor:$updates,
                   DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs AnyTensor:$output);
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferShapes() {
      return ::onnxc::onnx::inferSameAsOperand(getOperation(), 0);
    }
  }];
}

def ONNX_TriluOp : ONNX_Op<"Trilu"> {
  let summary = "upper or lower triangle of the last two dims, offset by k";
  let arguments = (ins AnyTensor:$input, ONNX_TensorOrNone:$k,
                   DefaultValuedAttr<I64Attr, "1">:$upper);
  let results = (outs AnyTensor:$output);
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferShapes() {
      return ::onnxc::onnx::inferSameAsOperand(getOperation(), 0);
    }
  }];
}

def ONNX_CumSumOp : ONNX_Op<"CumSum"> {
  let summary = "cumulative sum along axis (exclusive, reverse)";
  let arguments = (ins AnyTensor:$x, AnyTensor:$axis,
                   DefaultValuedAttr<I64Attr, "0">:$exclusive,
                   DefaultValuedAttr<I64Attr, "0">:$reverse);
  let results = (outs AnyTensor:$y);
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferShapes() {
      return ::onnxc::onnx::inferSameAsOperand(getOperation(), 0);
    }
  }];
}

def ONNX_OneHotOp : ONNX_Op<"OneHot"> {
  let summary = "values[1] where indices point, values[0] elsewhere; depth at axis";
  let arguments = (ins AnyTensor:$indices, AnyTensor:$depth, AnyTensor:$values,
                   DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs AnyTensor:$output);
}

def ONNX_EyeLikeOp : ONNX_Op<"EyeLike"> {
  let summary = "ones on the k-th diagonal of a 2-D tensor shaped like the input";
  let arguments = (ins AnyTensor:$input, OptionalAttr<I64Attr>:$dtype,
                   DefaultValuedAttr<I64Attr, "0">:$k);
  let results = (outs AnyTensor:$output);
}

def ONNX_TopKOp : ONNX_Op<"TopK",
    [DeclareOpInterfaceMethods<DataDependentShapeOpInterface>]> {
  let summary = "the K largest (or smallest) values along axis and their indices";
  let description = [{
    With K computed at run time, Values and Indices are bounded along axis
    by X's size there (K <= it) and Extent holds the K of the run. `n`
    (not an ONNX input; onnxc-data-dependent-dims sets it) is the run-time
    size of X along axis when the data decides it: then K is at most n.
  }];
  let arguments = (ins AnyTensor:$X, AnyTensor:$K, ONNX_TensorOrNone:$n,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<I64Attr, "1">:$largest,
                   DefaultValuedAttr<I64Attr, "1">:$sorted);
  let results = (outs AnyTensor:$Values, AnyTensor:$Indices, AnyTensor:$Extent);
}

def ONNX_CompressOp : ONNX_Op<"Compress"> {
  let summary = "the slices along axis (or of the flattened input) where condition is true";
  let arguments = (ins AnyTensor:$input, AnyTensor:$condition, OptionalAttr<I64Attr>:$axis);
  let results = (outs AnyTensor:$output);
}

def ONNX_NonZeroOp : ONNX_Op<"NonZero",
    [DeclareOpInterfaceMethods<DataDependentShapeOpInterface>]> {
  let summary = "the indices of the non-zero elements, one row per dimension";
  let description = [{
    Y is [rank(X), numel(X)] (the bound); its first rank * extent elements
    are the [rank, extent] result, in row-major order of the elements.
  }];
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y, AnyTensor:$extent);
}

def ONNX_UniqueOp : ONNX_Op<"Unique",
    [DeclareOpInterfaceMethods<DataDependentShapeOpInterface>]> {
  let summary = "the distinct elements (or slices along axis), first indices, inverse, counts";
  let description = [{
    Y, indices and counts hold `extent` entries along their data-dependent
    dimension (axis of Y, or 0); inverse_indices is static.
  }];
  let arguments = (ins AnyTensor:$X, OptionalAttr<I64Attr>:$axis,
                   DefaultValuedAttr<I64Attr, "1">:$sorted);
  let results = (outs AnyTensor:$Y, ONNX_TensorOrNone:$indices,
                      ONNX_TensorOrNone:$inverse_indices, ONNX_TensorOrNone:$counts,
                      AnyTensor:$extent);
}

def ONNX_ReverseSequenceOp : ONNX_Op<"ReverseSequence"> {
  let summary = "reverse the first sequence_lens[b] steps of each batch entry";
  let arguments = (ins AnyTensor:$input, AnyTensor:$sequence_lens,
                   DefaultValuedAttr<I64Attr, "1">:$batch_axis,
                   DefaultValuedAttr<I64Attr, "0">:$time_axis);
  let results = (outs AnyTensor:$Y);
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferShapes() {
      return ::onnxc::onnx::inferSameAsOperand(getOperation(), 0);
    }
  }];
}

#endif
