//===- OnnxSchema.cpp - queries on libonnx's operator schemas --------------===//
#include "OnnxSchema.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <set>

namespace onnxc {

/// The schema of `opType` as of `opset`, or null. Past the newest opset this
/// libonnx knows (17 for Debian 12's), a lookup would return an older
/// version of the op, whose inputs may differ (ReduceMean takes `axes` as an
/// input from opset 18): no schema then.
static const ::onnx::OpSchema *schemaOf(const std::string &opType, int opset) {
  const auto &ranges = ::onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto known = ranges.find(::onnx::ONNX_DOMAIN);
  if (known == ranges.end() || opset > known->second.second)
    return nullptr;
  return ::onnx::OpSchemaRegistry::Schema(opType, opset, ::onnx::ONNX_DOMAIN);
}

std::vector<std::string> inputTypeParameters(const std::string &opType, int opset,
                                             size_t numInputs) {
  std::vector<std::string> params(numInputs);
  const ::onnx::OpSchema *schema = schemaOf(opType, opset);
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

bool inputArity(const std::string &opType, int opset, InputArity &arity) {
  const ::onnx::OpSchema *schema = schemaOf(opType, opset);
  if (!schema)
    return false;
  arity.min = schema->min_input();
  arity.max = schema->max_input();
  arity.required.clear();
  for (const auto &f : schema->inputs())
    arity.required.push_back(f.GetOption() == ::onnx::OpSchema::Single);
  return true;
}

} // namespace onnxc
