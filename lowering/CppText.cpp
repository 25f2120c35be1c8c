//===- CppText.cpp - C and C++ spelling of what the model names -----------===//
#include "onnxc/Lowering/CppText.h"

#include <cstdio>
#include <set>
#include <string>

namespace onnxc {

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

} // namespace onnxc
