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
  let useDefaultAttributePrinterParser = 1;
}

// ONNX's string element type (`tensor<4x!onnx.string>`). In generated code a
// string is an `onnxc_string` (runtime-lite's string.h): a pointer and a size
// into the caller's input, the arena, or read-only data; host targets only.
def ONNX_StringType : TypeDef<ONNX_Dialect, "String"> {
  let mnemonic = "string";
  let summary = "the element type of ONNX string tensors";
}

// The target a module is compiled for, as the module attribute
// `onnxc.target`: a name from the target registry (targets/) and the compile
// options that shape its kernel choice. Passes and the kernel providers read
// it through `targetOf(op)` (onnxc/Lowering/Target.h), never as a string.
def ONNX_TargetAttr : AttrDef<ONNX_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "the registered target a module is compiled for";
  let parameters = (ins
      StringRefParameter<"the target's registry name">:$name,
      DefaultValuedParameter<"int64_t", "1", "tasks the parallel kernels split into">:$threads,
      OptionalParameter<"::mlir::DictionaryAttr",
                        "the options the target declares (Target::options) that differ "
                        "from their defaults, e.g. {winograd = false} or "
                        "{precision = \"tf32\"}">:$options);
  let assemblyFormat = "`<` struct(params) `>`";
}

include "onnxc/Dialect/ONNX/ShapeInferenceInterface.td"
include "onnxc/Dialect/ONNX/OpFacts.td"

def ONNX_TensorOrNone : AnyTypeOf<[AnyTensor, NoneType]>;

// A convolution's `group` (and GroupNormalization's group count): at least 1,
// checked by the verifier before any inference divides by it.
def ONNX_GroupAttr : DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">;
def ONNX_GroupCountAttr : ConfinedAttr<I64Attr, [IntPositive]>;

class ONNX_Op<string mnemonic, list<Trait> traits = []> :
    Op<ONNX_Dialect, mnemonic,
       !listconcat([Pure, DeclareOpInterfaceMethods<ShapeInferenceOpInterface>],
                   traits)> {
  // The generic form is the readable one for ONNX ops (attributes by name).
  let assemblyFormat = ?;
}

// Elementwise ops share one inference rule; they only name their ONNX op.
// Every unary op's kernel is elementwise, so it may run in place.
// A function of one value: by default computed by the reference functor named
// like the op (ONNX_UnaryFunctor), which is all a new one needs besides that
// functor and its tests.
class ONNX_UnaryOp<string mnemonic, string summaryText, list<Trait> traits = [],
                   bit referenceFunctor = 1>
    : ONNX_Op<mnemonic, !listconcat([ONNX_InPlaceOperand0, ONNX_ElementFunction],
                                    !if(referenceFunctor, [ONNX_UnaryFunctor], []),
                                    traits)> {
  let summary = summaryText;
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferShapes() {
      return ::onnxc::onnx::inferSameAsOperand(getOperation(), 0);
    }
  }];
}

class ONNX_BinaryOp<string mnemonic, string summaryText, bit isCompare = 0,
                    list<Trait> traits = []>
    : ONNX_Op<mnemonic, !listconcat([ONNX_InPlaceAnyOperand], traits)> {
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
