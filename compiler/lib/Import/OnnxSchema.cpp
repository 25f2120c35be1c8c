//===- OnnxSchema.cpp - queries on libonnx's operator schemas --------------===//
#include "OnnxSchema.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <set>

namespace onnxc {

std::vector<std::string> inputTypeParameters(const std::string &opType, int opset,
                                             size_t numInputs) {
  std::vector<std::string> params(numInputs);
  const ::onnx::OpSchema *schema = ::onnx::OpSchemaRegistry::Schema(opType, opset, "");
  if (!schema || schema->inputs().empty())
    return params;
  std::set<std::string> declared;
  for (const auto &p : schema->typeConstraintParams())
    declared.insert(p.type_param_str);
  const auto &formals = schema->inputs();
  for (size_t i = 0; i < numInputs; ++i) {
    const auto &f = formals[std::min(i, formals.size() - 1)];
    bool variadic = f.GetOption() == ::onnx::OpSchema::Variadic;
    if ((i >= formals.size() && !variadic) || (variadic && !f.GetIsHomogeneous()))
      continue;
    if (declared.count(f.GetTypeStr()))
      params[i] = f.GetTypeStr();
  }
  return params;
}

} // namespace onnxc
