//===- OnnxSchema.h - what ONNX's own operator schemas say -----------------===//
//
// libonnx's schema headers need C++ exceptions, which the compiler is built
// without: OnnxSchema.cpp is the one file compiled with them, and this header
// hands out plain data.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_IMPORT_ONNXSCHEMA_H
#define ONNXC_IMPORT_ONNXSCHEMA_H

#include <string>
#include <vector>

namespace onnxc {

/// For each of a node's first `numInputs` inputs, the type parameter (e.g.
/// "T") ONNX's schema of `opType` at `opset` binds it to: inputs with the same
/// parameter must share one element type. "" where the input's type is fixed,
/// a variadic input is heterogeneous, or there is no schema.
std::vector<std::string> inputTypeParameters(const std::string &opType, int opset,
                                             size_t numInputs);

/// How many inputs ONNX's schema of `opType` at `opset` allows, and which
/// of them must be given (not the empty name of an omitted optional input).
struct InputArity {
  int min = 0, max = 0;
  std::vector<bool> required; // by position, for the declared inputs
};

/// False when there is no schema for `opType` in the default domain. For an
/// `opset` newer than libonnx's schemas, the newest one's minimum and
/// required inputs (no upper bound); inputTypeParameters checks nothing
/// there.
bool inputArity(const std::string &opType, int opset, InputArity &arity);

/// The first default-domain opset with `opType` (0 if libonnx does not know
/// the op at all).
int introducedIn(const std::string &opType);

} // namespace onnxc

#endif
