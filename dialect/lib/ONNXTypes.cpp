//===- ONNXTypes.cpp - ONNX element types <-> MLIR types -------------------===//
#include "onnxc/Dialect/ONNX/ONNXTypes.h"
#include "onnxc/Dialect/ONNX/ONNXDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

#include <cstring>

using namespace mlir;

namespace onnxc {
namespace {
// TensorProto::DataType numbers (onnx.proto), kept here so the dialect does
// not depend on protobuf.
enum OnnxType {
  kFloat = 1, kUint8 = 2, kInt8 = 3, kUint16 = 4, kInt16 = 5, kInt32 = 6,
  kInt64 = 7, kString = 8, kBool = 9, kFloat16 = 10, kDouble = 11,
  kUint32 = 12, kUint64 = 13, kBfloat16 = 16
};
} // namespace

Type elementTypeFromOnnx(MLIRContext *ctx, int t) {
  Builder b(ctx);
  auto u = [&](unsigned w) {
    return IntegerType::get(ctx, w, IntegerType::Unsigned);
  };
  switch (t) {
  case kFloat: return b.getF32Type();
  case kDouble: return b.getF64Type();
  case kFloat16: return b.getF16Type();
  case kBfloat16: return b.getBF16Type();
  case kInt8: return b.getIntegerType(8);
  case kInt16: return b.getIntegerType(16);
  case kInt32: return b.getIntegerType(32);
  case kInt64: return b.getIntegerType(64);
  case kUint8: return u(8);
  case kUint16: return u(16);
  case kUint32: return u(32);
  case kUint64: return u(64);
  case kBool: return b.getI1Type();
  case kString:
    ctx->getOrLoadDialect<onnx::ONNXDialect>();
    return onnx::StringType::get(ctx);
  default: return nullptr;
  }
}

int onnxFromElementType(Type t) {
  if (isa<onnx::StringType>(t)) return kString;
  if (t.isF32()) return kFloat;
  if (t.isF64()) return kDouble;
  if (t.isF16()) return kFloat16;
  if (t.isBF16()) return kBfloat16;
  if (auto i = dyn_cast<IntegerType>(t)) {
    if (i.getWidth() == 1) return kBool;
    bool u = i.isUnsigned();
    switch (i.getWidth()) {
    case 8: return u ? kUint8 : kInt8;
    case 16: return u ? kUint16 : kInt16;
    case 32: return u ? kUint32 : kInt32;
    case 64: return u ? kUint64 : kInt64;
    }
  }
  return 0;
}

StringRef onnxTypeName(int t) {
  switch (t) {
  case kFloat: return "float";
  case kUint8: return "uint8";
  case kInt8: return "int8";
  case kUint16: return "uint16";
  case kInt16: return "int16";
  case kInt32: return "int32";
  case kInt64: return "int64";
  case kString: return "string";
  case kBool: return "bool";
  case kFloat16: return "float16";
  case kDouble: return "double";
  case kUint32: return "uint32";
  case kUint64: return "uint64";
  case kBfloat16: return "bfloat16";
  case 0: return "undefined";
  case 14: return "complex64";
  case 15: return "complex128";
  case 17: return "float8e4m3fn";
  case 18: return "float8e4m3fnuz";
  case 19: return "float8e5m2";
  case 20: return "float8e5m2fnuz";
  case 21: return "uint4";
  case 22: return "int4";
  default: return "an unknown type code";
  }
}

int64_t elementByteSize(Type t) {
  if (t.isInteger(1)) return 1;
  if (isa<onnx::StringType>(t)) return kStringElementBytes;
  return (t.getIntOrFloatBitWidth() + 7) / 8;
}

int64_t checkedTensorBytes(ArrayRef<int64_t> shape, Type type) {
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return -1;
  int64_t bytes = elementByteSize(type);
  for (int64_t d : shape)
    if (d != 0 && (__builtin_mul_overflow(bytes, d, &bytes) || bytes > kMaxTensorBytes))
      return -1;
  return llvm::is_contained(shape, 0) ? 0 : bytes;
}

std::vector<char> rawBytesOf(ElementsAttr attr) {
  auto type = attr.getShapedType();
  Type elt = type.getElementType();
  int64_t n = type.getNumElements();
  std::vector<char> out;
  if (isa<onnx::StringType>(elt)) { // (pointer, size) pairs into the attribute's storage
    out.resize(n * kStringElementBytes);
    int64_t i = 0;
    for (StringRef str : cast<DenseStringElementsAttr>(attr).getValues<StringRef>()) {
      const char *p = str.data();
      int64_t size = str.size();
      std::memcpy(out.data() + i * kStringElementBytes, &p, sizeof p);
      std::memcpy(out.data() + i++ * kStringElementBytes + 8, &size, sizeof size);
    }
    return out;
  }
  if (elt.isInteger(1)) {
    out.reserve(n);
    for (bool b : attr.getValues<bool>())
      out.push_back(b ? 1 : 0);
    return out;
  }
  int64_t size = elementByteSize(elt);
  out.resize(n * size);
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat()) {
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(out.data() + i * size, raw.data(), size);
    } else {
      std::memcpy(out.data(), raw.data(), out.size());
    }
    return out;
  }
  // Other ElementsAttr kinds: go element by element.
  int64_t i = 0;
  if (isa<FloatType>(elt)) {
    for (APFloat v : attr.getValues<APFloat>()) {
      APInt bits = v.bitcastToAPInt();
      std::memcpy(out.data() + i++ * size, bits.getRawData(), size);
    }
  } else {
    for (APInt v : attr.getValues<APInt>())
      std::memcpy(out.data() + i++ * size, v.getRawData(), size);
  }
  return out;
}

DenseElementsAttr elementsFromRawBytes(ShapedType type, ArrayRef<char> raw) {
  if (isa<onnx::StringType>(type.getElementType())) { // copies the strings
    SmallVector<StringRef> strings;
    for (size_t off = 0; off + kStringElementBytes <= raw.size(); off += kStringElementBytes) {
      const char *p;
      int64_t size;
      std::memcpy(&p, raw.data() + off, sizeof p);
      std::memcpy(&size, raw.data() + off + 8, sizeof size);
      strings.push_back(StringRef(p, size));
    }
    return DenseStringElementsAttr::get(type, strings);
  }
  if (type.getElementType().isInteger(1)) {
    SmallVector<bool> bits;
    for (char c : raw)
      bits.push_back(c != 0);
    return DenseElementsAttr::get(type, bits);
  }
  return DenseElementsAttr::getFromRawBuffer(type, raw);
}

} // namespace onnxc
