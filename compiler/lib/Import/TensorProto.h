//===- TensorProto.h - TensorProto -> elements (import-internal) -----------===//
#ifndef ONNXC_IMPORT_TENSORPROTO_INTERNAL_H
#define ONNXC_IMPORT_TENSORPROTO_INTERNAL_H

#include "mlir/IR/BuiltinAttributes.h"
#include "onnx/onnx_pb.h"

#include <string>

namespace onnxc {

/// Converts a TensorProto (inline typed fields, raw_data, or external data
/// resolved against `baseDir`) into dense elements; sets `error` on failure.
mlir::DenseElementsAttr tensorProtoToElements(mlir::MLIRContext &ctx,
                                              const ::onnx::TensorProto &t,
                                              llvm::StringRef baseDir,
                                              std::string &error);

} // namespace onnxc

#endif
