//===- TensorProtoIO.cpp - TensorProto <-> dense elements ------------------===//
#include "TensorProto.h"
#include "onnx/onnx-data_pb.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"
#include "onnxc/Import/TensorProtoIO.h"
#include "onnxc/Dialect/ONNX/ONNXDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;

namespace onnxc {

template <typename Src, typename Dst>
static void appendAs(std::vector<char> &out, const Src &values) {
  for (auto v : values) {
    Dst d = static_cast<Dst>(v);
    const char *p = reinterpret_cast<const char *>(&d);
    out.insert(out.end(), p, p + sizeof(Dst));
  }
}

DenseElementsAttr tensorProtoToElements(MLIRContext &ctx,
                                        const ::onnx::TensorProto &t,
                                        StringRef baseDir, std::string &error) {
  Type elt = elementTypeFromOnnx(&ctx, t.data_type());
  if (!elt) {
    error = "tensor '" + t.name() + "' has element type " +
            onnxTypeName(t.data_type()).str() + ", which is not supported";
    return nullptr;
  }
  SmallVector<int64_t> dims;
  for (int64_t d : t.dims()) {
    if (d < 0) {
      error = "tensor '" + t.name() + "' has a negative dimension";
      return nullptr;
    }
    dims.push_back(d);
  }
  if (checkedTensorBytes(dims, elt) < 0) {
    error = "tensor '" + t.name() + "' is larger than onnxc addresses (" +
            std::to_string(kMaxTensorBytes >> 40) +
            " TiB; the element count overflows or exceeds it)";
    return nullptr;
  }
  auto type = RankedTensorType::get(dims, elt);
  const int64_t n = type.getNumElements();
  if (t.data_type() == ::onnx::TensorProto::STRING) {
    if (t.string_data_size() != n) {
      error = "tensor '" + t.name() + "' holds " + std::to_string(t.string_data_size()) +
              " strings but its shape needs " + std::to_string(n);
      return nullptr;
    }
    SmallVector<StringRef> strings(t.string_data().begin(), t.string_data().end());
    return DenseStringElementsAttr::get(type, strings);
  }
  const int64_t size = elementByteSize(elt);
  std::vector<char> raw;
  if (t.data_location() == ::onnx::TensorProto::EXTERNAL) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto &kv : t.external_data()) {
      if (kv.key() == "location")
        location = kv.value();
      else if ((kv.key() == "offset" &&
                StringRef(kv.value()).getAsInteger(10, offset)) ||
               (kv.key() == "length" &&
                StringRef(kv.value()).getAsInteger(10, length))) {
        error = "tensor '" + t.name() + "' has a malformed external data " +
                kv.key();
        return nullptr;
      }
    }
    SmallString<256> path(baseDir);
    llvm::sys::path::append(path, location);
    if (location.empty() || llvm::sys::path::is_absolute(location) ||
        StringRef(location).contains("..")) {
      error = "tensor '" + t.name() + "' has an invalid external data location '" +
              location + "'";
      return nullptr;
    }
    auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
    if (!buf) {
      error = "cannot read external data '" + std::string(path) + "' of tensor '" +
              t.name() + "'";
      return nullptr;
    }
    int64_t want = length >= 0 ? length : n * size;
    if (offset < 0 || offset + want > static_cast<int64_t>((*buf)->getBufferSize())) {
      error = "external data of tensor '" + t.name() + "' lies outside '" +
              location + "'";
      return nullptr;
    }
    raw.assign((*buf)->getBufferStart() + offset,
               (*buf)->getBufferStart() + offset + want);
  } else if (t.has_raw_data()) {
    raw.assign(t.raw_data().begin(), t.raw_data().end());
  } else {
    switch (t.data_type()) {
    case ::onnx::TensorProto::FLOAT:
      appendAs<decltype(t.float_data()), float>(raw, t.float_data());
      break;
    case ::onnx::TensorProto::DOUBLE:
      appendAs<decltype(t.double_data()), double>(raw, t.double_data());
      break;
    case ::onnx::TensorProto::INT64:
      appendAs<decltype(t.int64_data()), int64_t>(raw, t.int64_data());
      break;
    case ::onnx::TensorProto::UINT32:
      appendAs<decltype(t.uint64_data()), uint32_t>(raw, t.uint64_data());
      break;
    case ::onnx::TensorProto::UINT64:
      appendAs<decltype(t.uint64_data()), uint64_t>(raw, t.uint64_data());
      break;
    case ::onnx::TensorProto::INT32:
      appendAs<decltype(t.int32_data()), int32_t>(raw, t.int32_data());
      break;
    case ::onnx::TensorProto::INT16:
      appendAs<decltype(t.int32_data()), int16_t>(raw, t.int32_data());
      break;
    case ::onnx::TensorProto::UINT16:
    case ::onnx::TensorProto::FLOAT16:
    case ::onnx::TensorProto::BFLOAT16:
      appendAs<decltype(t.int32_data()), uint16_t>(raw, t.int32_data());
      break;
    case ::onnx::TensorProto::INT8:
      appendAs<decltype(t.int32_data()), int8_t>(raw, t.int32_data());
      break;
    case ::onnx::TensorProto::UINT8:
    case ::onnx::TensorProto::BOOL:
      appendAs<decltype(t.int32_data()), uint8_t>(raw, t.int32_data());
      break;
    default:
      error = "tensor '" + t.name() + "' has no data in a supported field";
      return nullptr;
    }
  }
  if (static_cast<int64_t>(raw.size()) != n * size) {
    error = "tensor '" + t.name() + "' holds " + std::to_string(raw.size()) +
            " bytes but its shape needs " + std::to_string(n * size) +
            " (is it a sequence or optional? those are not supported)";
    return nullptr;
  }
  return elementsFromRawBytes(type, raw);
}

DenseElementsAttr readTensorFile(MLIRContext &ctx, StringRef path,
                                 std::string &name, std::string &error) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf) {
    error = "cannot read '" + path.str() + "'";
    return nullptr;
  }
  ::onnx::TensorProto t;
  if (!t.ParseFromArray((*buf)->getBufferStart(),
                        static_cast<int>((*buf)->getBufferSize()))) {
    error = "'" + path.str() + "' is not a serialized ONNX TensorProto";
    return nullptr;
  }
  name = t.name();
  return tensorProtoToElements(ctx, t, llvm::sys::path::parent_path(path), error);
}

DenseElementsAttr readNpyFile(MLIRContext &ctx, StringRef path, std::string &error) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf) {
    error = "cannot read '" + path.str() + "'";
    return nullptr;
  }
  StringRef bytes = (*buf)->getBuffer();
  auto bad = [&](const std::string &why) {
    error = "'" + path.str() + "' " + why;
    return nullptr;
  };
  // Magic, version, header length (2 bytes in 1.0, 4 after), then a
  // Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
  if (bytes.size() < 10 || !bytes.starts_with("\x93NUMPY"))
    return bad("is not a NumPy .npy file");
  const unsigned major = uint8_t(bytes[6]);
  if (major < 1 || major > 3)
    return bad("has .npy format version " + std::to_string(major) + " (1 to 3 are read)");
  size_t headerLen, start;
  if (major == 1) {
    headerLen = uint8_t(bytes[8]) | size_t(uint8_t(bytes[9])) << 8;
    start = 10;
  } else {
    if (bytes.size() < 12)
      return bad("is truncated");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
    start = 12;
  }
  if (start + headerLen > bytes.size())
    return bad("is truncated");
  StringRef header = bytes.substr(start, headerLen);
  auto field = [&](StringRef key) -> StringRef {
    size_t at = header.find("'" + key.str() + "'");
    if (at == StringRef::npos)
      return "";
    StringRef rest = header.drop_front(at + key.size() + 2).ltrim(" :");
    return rest;
  };
  StringRef descr = field("descr");
  if (!descr.consume_front("'"))
    return bad("has no 'descr' in its header");
  descr = descr.take_until([](char c) { return c == '\''; });
  if (field("fortran_order").starts_with("True"))
    return bad("is in Fortran order (save it with numpy.ascontiguousarray)");
  StringRef shapeText = field("shape");
  if (!shapeText.consume_front("("))
    return bad("has no 'shape' in its header");
  shapeText = shapeText.take_until([](char c) { return c == ')'; });
  SmallVector<int64_t> shape;
  SmallVector<StringRef> dims;
  shapeText.split(dims, ',', -1, /*KeepEmpty=*/false);
  for (StringRef d : dims) {
    d = d.trim();
    if (d.empty())
      continue;
    int64_t v;
    if (d.getAsInteger(10, v) || v < 0)
      return bad("has a shape entry '" + d.str() + "' that is not a size");
    shape.push_back(v);
  }
  Builder b(&ctx);
  Type elt;
  // Byte order: '<' little-endian, '|' not applicable (one byte), '=' native.
  char order = descr.empty() ? 0 : descr.front();
  StringRef kind = descr.drop_front(1);
  if (order == '>' && kind.drop_front(1) != "1")
    return bad("is big-endian ('" + descr.str() + "'); save it little-endian");
  if (kind == "f4")
    elt = b.getF32Type();
  else if (kind == "f8")
    elt = b.getF64Type();
  else if (kind == "f2")
    elt = b.getF16Type();
  else if (kind == "i1")
    elt = b.getIntegerType(8);
  else if (kind == "i2")
    elt = b.getIntegerType(16);
  else if (kind == "i4")
    elt = b.getIntegerType(32);
  else if (kind == "i8")
    elt = b.getIntegerType(64);
  else if (kind == "u1")
    elt = b.getIntegerType(8, /*isSigned=*/false);
  else if (kind == "u2")
    elt = b.getIntegerType(16, false);
  else if (kind == "u4")
    elt = b.getIntegerType(32, false);
  else if (kind == "u8")
    elt = b.getIntegerType(64, false);
  else if (kind == "b1")
    elt = b.getI1Type();
  else
    return bad("holds NumPy type '" + descr.str() + "', which onnxc does not read");
  auto type = RankedTensorType::get(shape, elt);
  const size_t want = size_t(type.getNumElements()) * elementByteSize(elt);
  StringRef data = bytes.drop_front(start + headerLen);
  if (data.size() != want)
    return bad("holds " + std::to_string(data.size()) + " data bytes; its header's shape and type "
               "need " + std::to_string(want));
  return elementsFromRawBytes(type, ArrayRef<char>(data.data(), data.size()));
}

static void fillTensor(::onnx::TensorProto &t, StringRef name, ShapedType type,
                       ArrayRef<char> raw) {
  t.set_name(name.str());
  t.set_data_type(onnxFromElementType(type.getElementType()));
  for (int64_t d : type.getShape())
    t.add_dims(d);
  if (isa<onnx::StringType>(type.getElementType())) { // onnxc_string records
    auto strings = cast<DenseStringElementsAttr>(elementsFromRawBytes(type, raw));
    for (StringRef str : strings.getValues<StringRef>())
      t.add_string_data(str.str());
    return;
  }
  t.set_raw_data(std::string(raw.data(), raw.size()));
}

static LogicalResult writeBytes(StringRef path, const std::string &bytes, std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    error = "cannot write '" + path.str() + "': " + ec.message();
    return failure();
  }
  os << bytes;
  return success();
}

LogicalResult readValueFile(MLIRContext &ctx, StringRef path, bool isOptional,
                            bool isSequence, ValueFile &out, std::string &error) {
  out.isOptional = isOptional;
  out.isSequence = isSequence;
  if (!isOptional && !isSequence) {
    auto t = readTensorFile(ctx, path, out.name, error);
    if (!t)
      return failure();
    out.tensors = {t};
    return success();
  }
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf) {
    error = "cannot read '" + path.str() + "'";
    return failure();
  }
  auto readSeq = [&](const ::onnx::SequenceProto &s) -> LogicalResult {
    if (s.elem_type() != ::onnx::SequenceProto::TENSOR && s.tensor_values().empty() &&
        s.elem_type() != ::onnx::SequenceProto::UNDEFINED) {
      error = "sequences of non-tensors are not supported";
      return failure();
    }
    for (const ::onnx::TensorProto &t : s.tensor_values()) {
      auto e = tensorProtoToElements(ctx, t, llvm::sys::path::parent_path(path), error);
      if (!e)
        return failure();
      out.tensors.push_back(e);
    }
    return success();
  };
  if (isOptional) {
    ::onnx::OptionalProto o;
    if (!o.ParseFromArray((*buf)->getBufferStart(), (int)(*buf)->getBufferSize())) {
      error = "'" + path.str() + "' is not an OptionalProto";
      return failure();
    }
    out.name = o.name();
    out.present = o.has_tensor_value() || o.has_sequence_value();
    if (o.has_tensor_value()) {
      auto e = tensorProtoToElements(ctx, o.tensor_value(), llvm::sys::path::parent_path(path),
                                     error);
      if (!e)
        return failure();
      out.tensors = {e};
    } else if (o.has_sequence_value()) {
      return readSeq(o.sequence_value());
    }
    return success();
  }
  ::onnx::SequenceProto s;
  if (!s.ParseFromArray((*buf)->getBufferStart(), (int)(*buf)->getBufferSize())) {
    error = "'" + path.str() + "' is not a SequenceProto";
    return failure();
  }
  out.name = s.name();
  return readSeq(s);
}

LogicalResult writeValueFile(StringRef path, StringRef name, bool isOptional, bool isSequence,
                             bool present, ArrayRef<ShapedType> types,
                             ArrayRef<ArrayRef<char>> raws, std::string &error) {
  if (!isOptional && !isSequence)
    return writeTensorFile(path, name, types.front(), raws.front(), error);
  ::onnx::SequenceProto seq;
  seq.set_name(name.str());
  seq.set_elem_type(::onnx::SequenceProto::TENSOR);
  for (auto [t, r] : llvm::zip(types, raws))
    fillTensor(*seq.add_tensor_values(), "", t, r);
  std::string bytes;
  if (isOptional) {
    ::onnx::OptionalProto o;
    o.set_name(name.str());
    o.set_elem_type(isSequence ? ::onnx::OptionalProto::SEQUENCE : ::onnx::OptionalProto::TENSOR);
    if (present && isSequence)
      *o.mutable_sequence_value() = seq;
    else if (present)
      fillTensor(*o.mutable_tensor_value(), "", types.front(), raws.front());
    o.SerializeToString(&bytes);
  } else {
    seq.SerializeToString(&bytes);
  }
  return writeBytes(path, bytes, error);
}

LogicalResult writeTensorFile(StringRef path, StringRef name, ShapedType type,
                              ArrayRef<char> raw, std::string &error) {
  ::onnx::TensorProto t;
  fillTensor(t, name, type, raw);
  std::string bytes;
  if (!t.SerializeToString(&bytes)) {
    error = "cannot serialize tensor '" + name.str() + "'";
    return failure();
  }
  return writeBytes(path, bytes, error);
}

} // namespace onnxc
