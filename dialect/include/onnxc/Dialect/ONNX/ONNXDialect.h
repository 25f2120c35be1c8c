//===- ONNXDialect.h - the onnx dialect and its ops -----------------------===//
#ifndef ONNXC_DIALECT_ONNX_ONNXDIALECT_H
#define ONNXC_DIALECT_ONNX_ONNXDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "onnxc/Dialect/ONNX/ONNXDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "onnxc/Dialect/ONNX/ONNXTypeDefs.h.inc"
#define GET_ATTRDEF_CLASSES
#include "onnxc/Dialect/ONNX/ONNXAttrDefs.h.inc"
#include "onnxc/Dialect/ONNX/ShapeInference.h"
#include "onnxc/Dialect/ONNX/OpFacts.h"

#define GET_OP_CLASSES
#include "onnxc/Dialect/ONNX/ONNXOps.h.inc"

#endif
