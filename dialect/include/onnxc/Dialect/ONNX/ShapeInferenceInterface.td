//===- ShapeInferenceInterface.td - result type inference ------------------===//
#ifndef ONNXC_SHAPE_INFERENCE_INTERFACE_TD
#define ONNXC_SHAPE_INFERENCE_INTERFACE_TD

include "mlir/IR/OpBase.td"

// Every onnx op infers its result types from its operands and attributes.
// The importer calls it when it builds an op; the shape-inference pass calls
// it again once constant folding has made more operands known.
def ShapeInferenceOpInterface : OpInterface<"ShapeInference"> {
  let cppNamespace = "::onnxc::onnx";
  let description = [{
    Computes the result types of an op (element type and shape) from its
    operand types, attributes and, where the ONNX spec needs them, the values
    of constant operands (Reshape's shape, Slice's starts, ...). Dimensions
    that depend on non-constant values are left dynamic. Emits an error on the
    op (which carries the ONNX node name) when operands are inconsistent.
  }];
  let methods = [
    InterfaceMethod<"Infer and set the result types.", "::mlir::LogicalResult",
                    "inferShapes", (ins)>,
  ];
}

// Ops whose results have a dimension only the data decides (NonZero, Unique,
// NonMaxSuppression, StringNormalizer; TopK with a K or n known at run
// time). Their result types carry the largest size that dimension can take,
// and a last, extra result (tensor<i64>, not an ONNX output) holds the size
// the run produced. The kernels write the tensor densely packed at the start
// of the buffer, but TopK's, which keeps the bound's rows (zeroed past the
// size) as values carried through other ops do; onnxc-data-dependent-dims
// packs those where they leave the graph.
def DataDependentShapeOpInterface : OpInterface<"DataDependentShape"> {
  let cppNamespace = "::onnxc::onnx";
  let methods = [
    InterfaceMethod<"The dimension of result `result` whose size the data decides, or -1.",
                    "int64_t", "dataDependentDim", (ins "unsigned":$result)>,
  ];
  let extraClassDeclaration = [{
    /// The extra result holding the data-dependent size.
    ::mlir::Value getExtent() { return getOperation()->getResults().back(); }
  }];
}

#endif
