//===- CppText.h - C and C++ spelling of what the model names -------------===//
//
// Names and strings from the model reach generated code only through these:
// string literals, comments, and the check that a name is not a keyword.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_LOWERING_CPPTEXT_H
#define ONNXC_LOWERING_CPPTEXT_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace onnxc {

/// `s` as a C string literal (non-printable bytes as octal escapes).
std::string cStringLiteral(llvm::StringRef s);
/// `s` as a C string literal that is also safe inside /* */ and // comments:
/// cStringLiteral's escapes (no newline, no trailing backslash, no trigraph)
/// and a '/' next to a '*' written as \057, so the comment cannot end or nest.
/// Everything the model names reaches generated comments through this.
std::string cCommentLiteral(llvm::StringRef s);
/// C and C++ keywords, alternative tokens and NULL: they cannot name a
/// parameter or a namespace in generated code.
bool isCppReservedWord(llvm::StringRef s);

} // namespace onnxc

#endif
