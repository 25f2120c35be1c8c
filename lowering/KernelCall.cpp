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
      bytes = std::max(bytes, a.intValue);
  return bytes;
}

/// `s` as a C string literal: printable ASCII as is, other bytes as three-
/// digit octal escapes (which, unlike \x, never run into the next char).
std::string cStringLiteral(llvm::StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || c == '?') {
      out += '\\';
      out += c;
    } else if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", u);
      out += buf;
    }
  }
  return out + "\"";
}

bool isCppReservedWord(llvm::StringRef s) {
  static const std::set<std::string, std::less<>> kWords = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
      "bool", "break", "case", "catch", "char", "char16_t", "char32_t", "class",
      "compl", "const", "constexpr", "const_cast", "continue", "decltype",
      "default", "delete", "do", "double", "dynamic_cast", "else", "enum",
      "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
      "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept",
      "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private",
      "protected", "public", "register", "reinterpret_cast", "restrict",
      "return", "short", "signed", "sizeof", "static", "static_assert",
      "static_cast", "struct", "switch", "template", "this", "thread_local",
      "throw", "true", "try", "typedef", "typeid", "typename", "union",
      "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while",
      "xor", "xor_eq", "NULL"};
  return kWords.count(s.str()) > 0;
}

std::string cCommentLiteral(llvm::StringRef s) {
  std::string lit = cStringLiteral(s), out;
  for (size_t i = 0; i < lit.size(); ++i) {
    bool nextToStar = (i > 0 && lit[i - 1] == '*') || (i + 1 < lit.size() && lit[i + 1] == '*');
    out += lit[i] == '/' && nextToStar ? std::string("\\057") : std::string(1, lit[i]);
  }
  return out;
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

bool isAliasOp(Operation *op) {
  return isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, IdentityOp, DropoutOp>(op);
}

bool canRunInPlace(Operation *op, unsigned operand) {
  if (op->hasTrait<InPlaceAnyOperand>())
    return true;
  return operand == 0 && op->hasTrait<InPlaceOperand0>();
}

} // namespace onnxc
