//===- ONNXTypes.h - ONNX element types <-> MLIR types ---------------------===//
#ifndef ONNXC_DIALECT_ONNX_ONNXTYPES_H
#define ONNXC_DIALECT_ONNX_ONNXTYPES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Types.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringRef.h"

#include <vector>

namespace onnxc {

/// The MLIR element type for an ONNX TensorProto::DataType, or null.
/// Signed integers are signless (i8..i64), unsigned are ui8..ui64, bool is i1.
mlir::Type elementTypeFromOnnx(mlir::MLIRContext *ctx, int onnxDataType);
/// The ONNX TensorProto::DataType of an MLIR element type, or 0 (UNDEFINED).
int onnxFromElementType(mlir::Type type);
/// A readable ONNX name ("float", "int64", ...) for diagnostics.
llvm::StringRef onnxTypeName(int onnxDataType);
/// Bytes of a string element in generated code: runtime-lite's onnxc_string
/// (a pointer and an int64 size) on the 64-bit hosts strings are built for.
constexpr int64_t kStringElementBytes = 16;

/// Size in bytes of one element (bool is one byte, as in the runtime).
int64_t elementByteSize(mlir::Type type);

/// The largest tensor onnxc accepts, in bytes: 2^48 (256 TiB) is beyond any
/// machine's memory and small enough that the planner's sums and products of
/// sizes never overflow int64.
constexpr int64_t kMaxTensorBytes = int64_t(1) << 48;
/// The bytes of a tensor of static `shape` and element `type`, or -1 when
/// its element count overflows or it exceeds kMaxTensorBytes. An empty
/// tensor (a 0 dim) has 0 bytes, but its other dims must multiply within the
/// bound too: shape inference multiplies subsets of dims (Flatten), which
/// must not overflow. The importer checks every tensor with it, so
/// getNumElements() and any product of dims are safe afterwards.
int64_t checkedTensorBytes(llvm::ArrayRef<int64_t> shape, mlir::Type type);

/// The bytes of an elements attribute in the runtime's layout (bool as one
/// byte each, little-endian): what the weights blob, the constant folder and
/// the runner hand to kernels. Strings become onnxc_string records pointing
/// into the attribute (valid while its context lives).
std::vector<char> rawBytesOf(mlir::ElementsAttr attr);

/// Builds a dense elements attribute from bytes in the runtime's layout.
mlir::DenseElementsAttr elementsFromRawBytes(mlir::ShapedType type,
                                             llvm::ArrayRef<char> raw);

} // namespace onnxc

#endif
