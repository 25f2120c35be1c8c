//===- KernelCall.cpp - the kernel-call IR's plain data ---------------------===//
#include "onnxc/Lowering/KernelCall.h"

#include "onnxc/Dialect/ONNX/ONNXDialect.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cstdio>
#include <set>

using namespace mlir;
using namespace onnxc::onnx;

namespace onnxc {

/// An argument of `kind` with nothing else set; each factory fills its field.
static KernelArg ofKind(KernelArg::Kind kind) {
  KernelArg a;
  a.kind = kind;
  return a;
}
KernelArg KernelArg::input(Value v) {
  KernelArg a = ofKind(Kind::Tensor);
  a.tensor = v;
  return a;
}
KernelArg KernelArg::output(Value v) {
  KernelArg a = input(v);
  a.isOutput = true;
  return a;
}
KernelArg KernelArg::i(int64_t v) {
  KernelArg a = ofKind(Kind::Int);
  a.intValue = v;
  return a;
}
KernelArg KernelArg::f(double v) {
  KernelArg a = ofKind(Kind::Float);
  a.floatValue = v;
  return a;
}
KernelArg KernelArg::array(ArrayRef<int64_t> v) {
  KernelArg a = ofKind(Kind::IntArray);
  a.ints.assign(v.begin(), v.end());
  return a;
}
KernelArg KernelArg::floatArray(ArrayRef<double> v) {
  KernelArg a = ofKind(Kind::FloatArray);
  a.floats.assign(v.begin(), v.end());
  return a;
}
KernelArg KernelArg::stringArray(std::vector<std::string> v) {
  KernelArg a = ofKind(Kind::StringArray);
  a.strings = std::move(v);
  return a;
}
KernelArg KernelArg::null() { return ofKind(Kind::Null); }
KernelArg KernelArg::constantData(ElementsAttr data) {
  KernelArg a = ofKind(Kind::Constant);
  a.constant = data;
  return a;
}
KernelArg KernelArg::runner() { return ofKind(Kind::Runner); }
KernelArg KernelArg::status() { return ofKind(Kind::Status); }
KernelArg KernelArg::scratch(int64_t bytes, std::string cppType) {
  KernelArg a = ofKind(Kind::Scratch);
  a.intValue = bytes;
  a.scratchType = std::move(cppType);
  return a;
}
KernelArg KernelArg::scratchAt(int64_t offset, int64_t bytes, std::string cppType) {
  KernelArg a = scratch(bytes, std::move(cppType));
  a.scratchOffset = offset;
  return a;
}
KernelArg KernelArg::text(int64_t bytes) {
  KernelArg a = scratch(bytes, "char");
  a.persistent = true;
  return a;
}

std::string KernelCall::key() const {
  std::string k = callee;
  if (!templateArgs.empty()) {
    k += "<";
    for (size_t i = 0; i < templateArgs.size(); ++i)
      k += (i ? "," : "") + templateArgs[i];
    k += ">";
  }
  return k;
}

int64_t KernelCall::scratchBytes() const {
  int64_t bytes = 0;
  for (const KernelArg &a : args)
    if (a.kind == KernelArg::Kind::Scratch)
      bytes = std::max(bytes, a.scratchOffset + a.intValue);
  return bytes;
}

bool KernelCall::persistentScratch() const {
  for (const KernelArg &a : args)
    if (a.kind == KernelArg::Kind::Scratch && a.persistent)
      return true;
  return false;
}

std::string cppTypeName(Type t) {
  if (isa<onnx::StringType>(t)) return "onnxc_string";
  if (t.isF32()) return "float";
  if (t.isF64()) return "double";
  if (t.isF16()) return "onnxc_rt::float16";
  if (t.isBF16()) return "onnxc_rt::bfloat16";
  if (t.isInteger(1)) return "bool";
  if (auto i = dyn_cast<IntegerType>(t)) {
    std::string w = std::to_string(i.getWidth());
    return (i.isUnsigned() ? "uint" : "int") + w + "_t";
  }
  return "";
}

} // namespace onnxc
