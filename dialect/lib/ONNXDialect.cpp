//===- ONNXDialect.cpp - dialect registration and generated op definitions ===//
#include "onnxc/Dialect/ONNX/ONNXDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace onnxc::onnx;

#include "onnxc/Dialect/ONNX/ONNXDialect.cpp.inc"
#include "onnxc/Dialect/ONNX/ShapeInferenceInterface.cpp.inc"
#include "onnxc/Dialect/ONNX/OpFacts.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "onnxc/Dialect/ONNX/ONNXTypeDefs.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "onnxc/Dialect/ONNX/ONNXAttrDefs.cpp.inc"

void ONNXDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "onnxc/Dialect/ONNX/ONNXTypeDefs.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "onnxc/Dialect/ONNX/ONNXAttrDefs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "onnxc/Dialect/ONNX/ONNXOps.cpp.inc"
      >();
}

Operation *ONNXDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  if (auto elements = dyn_cast<ElementsAttr>(value))
    return builder.create<ConstantOp>(loc, type, elements);
  return nullptr;
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

#define GET_OP_CLASSES
#include "onnxc/Dialect/ONNX/ONNXOps.cpp.inc"
