//===- TensorProtoIO.h - ONNX TensorProto files <-> MLIR elements ----------===//
#ifndef ONNXC_IMPORT_TENSORPROTOIO_H
#define ONNXC_IMPORT_TENSORPROTOIO_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

#include "onnxc/Dialect/ONNX/ONNXTypes.h"

namespace onnxc {

/// Reads a serialized TensorProto (the backend-test `input_0.pb` layout).
/// On failure returns null and sets `error`.
mlir::DenseElementsAttr readTensorFile(mlir::MLIRContext &ctx,
                                       llvm::StringRef path, std::string &name,
                                       std::string &error);

/// Reads a NumPy .npy file (format 1.0-3.0, C order, little-endian bool,
/// int8-64, uint8-64, float16/32/64). On failure returns null and sets
/// `error` (what the file holds that is not accepted).
mlir::DenseElementsAttr readNpyFile(mlir::MLIRContext &ctx, llvm::StringRef path,
                                    std::string &error);

/// Writes a TensorProto with raw_data. `raw` holds the elements in the
/// runtime's layout (bool as one byte each).
mlir::LogicalResult writeTensorFile(llvm::StringRef path, llvm::StringRef name,
                                    mlir::ShapedType type,
                                    llvm::ArrayRef<char> raw, std::string &error);

/// A backend-test value file: a TensorProto, or (when `kind` says so) a
/// SequenceProto or OptionalProto of tensors.
struct ValueFile {
  std::string name;
  bool isOptional = false, isSequence = false, present = true;
  std::vector<mlir::DenseElementsAttr> tensors;
};
mlir::LogicalResult readValueFile(mlir::MLIRContext &ctx, llvm::StringRef path,
                                  bool isOptional, bool isSequence, ValueFile &out,
                                  std::string &error);

/// Writes a SequenceProto (isSequence) or OptionalProto (isOptional) of the
/// given raw tensors, or a TensorProto.
mlir::LogicalResult writeValueFile(llvm::StringRef path, llvm::StringRef name,
                                   bool isOptional, bool isSequence, bool present,
                                   llvm::ArrayRef<mlir::ShapedType> types,
                                   llvm::ArrayRef<llvm::ArrayRef<char>> raws,
                                   std::string &error);

} // namespace onnxc

#endif
