//===- ONNXBase.td - the onnx dialect, its interfaces and op classes ------===//
//
// The ONNX dialect mirrors ONNX operators one to one. Op names keep ONNX's
// spelling (`onnx.Conv`), attributes keep ONNX's names, and missing optional
// inputs/outputs are values of type `none` (from `onnx.NoValue`), so operand
// positions always match the ONNX spec. Opset differences are resolved by the
// importer: every op here has exactly one semantics, the one of the newest
// opset onnxc supports, cited in its description.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_ONNX_BASE_TD
#define ONNXC_ONNX_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def ONNX_Dialect : Dialect {
  let name = "onnx";
  let cppNamespace = "::onnxc::onnx";
  let summary = "ONNX operators, one op per ONNX operator";
  // Plain attributes keep generic import (attribute name -> value) simple.
  let usePropertiesForAttributes = 0;
  let hasConstantMaterializer = 1;
  let useDefaultTypePrinterParser = 1;
}

// ONNX's string element type (`tensor<4x!onnx.string>`). In generated code a
// string is an `onnxc_string` (runtime-lite's string.h): a pointer and a size
// into the caller's input, the arena, or read-only data; host targets only.
def ONNX_StringType : TypeDef<ONNX_Dialect, "String"> {
  let mnemonic = "string";
  let summary = "the element type of ONNX string tensors";
}

include "onnxc/Dialect/ONNX/ShapeInferenceInterface.td"

def ONNX_TensorOrNone : AnyTypeOf<[AnyTensor, NoneType]>;

class ONNX_Op<string mnemonic, list<Trait> traits = []> :
    Op<ONNX_Dialect, mnemonic,
       !listconcat([Pure, DeclareOpInterfaceMethods<ShapeInferenceOpInterface>],
                   traits)> {
  // The generic form is the readable one for ONNX ops (attributes by name).
  let assemblyFormat = ?;
}

// Elementwise ops share one inference rule; they only name their ONNX op.
class ONNX_UnaryOp<string mnemonic, string summaryText> : ONNX_Op<mnemonic> {
  let summary = summaryText;
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferShapes() {
      return ::onnxc::onnx::inferSameAsOperand(getOperation(), 0);
    }
  }];
}

class ONNX_BinaryOp<string mnemonic, string summaryText, bit isCompare = 0>
    : ONNX_Op<mnemonic> {
  let summary = summaryText;
  let description = "Elementwise with multidirectional (numpy) broadcasting.";
  let arguments = (ins AnyTensor:$A, AnyTensor:$B);
  let results = (outs AnyTensor:$C);
  let extraClassDefinition = !if(isCompare, [{
    ::mlir::LogicalResult $cppClass::inferShapes() {
      return ::onnxc::onnx::inferBroadcast(getOperation(), /*boolResult=*/true);
    }
  }], [{
    ::mlir::LogicalResult $cppClass::inferShapes() {
      return ::onnxc::onnx::inferBroadcast(getOperation(), /*boolResult=*/false);
    }
  }]);
}

class ONNX_VariadicOp<string mnemonic, string summaryText> : ONNX_Op<mnemonic> {
  let summary = summaryText;
  let description = "Elementwise over all inputs, with numpy broadcasting.";
  let arguments = (ins Variadic<AnyTensor>:$data_0);
  let results = (outs AnyTensor:$result);
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferShapes() {
      return ::onnxc::onnx::inferBroadcast(getOperation(), /*boolResult=*/false);
    }
  }];
}

#endif
