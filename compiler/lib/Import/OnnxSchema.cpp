//===- OnnxSchema.cpp - queries on libonnx's operator schemas --------------===//
#include "OnnxSchema.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <limits>
#include <set>

namespace onnxc {

/// The newest default-domain opset this libonnx has schemas for (17 for
/// Debian 12's).
static int newestKnownOpset() {
  const auto &ranges = ::onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto known = ranges.find(::onnx::ONNX_DOMAIN);
  return known == ranges.end() ? 0 : known->second.second;
}

/// The schema of `opType` as of `opset`, or null. Past the newest opset
/// libonnx knows, a lookup would return an older version of the op, whose
/// inputs may differ (ReduceMean takes `axes` as an input from opset 18):
/// null then too.
static const ::onnx::OpSchema *schemaOf(const std::string &opType, int opset) {
  if (opset > newestKnownOpset())
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
  // Newer opsets than libonnx knows: the newest schema it has still gives
  // the inputs every version takes (ops gain optional inputs, they do not
  // lose required ones), but not the upper bound.
  const bool newer = opset > newestKnownOpset();
  const ::onnx::OpSchema *schema = ::onnx::OpSchemaRegistry::Schema(
      opType, std::min(opset, newestKnownOpset()), ::onnx::ONNX_DOMAIN);
  if (!schema)
    return false;
  arity.min = schema->min_input();
  arity.max = newer ? std::numeric_limits<int>::max() : schema->max_input();
  arity.required.clear();
  for (const auto &f : schema->inputs())
    arity.required.push_back(f.GetOption() == ::onnx::OpSchema::Single &&
                             (!newer || (int)arity.required.size() < arity.min));
  return true;
}

int introducedIn(const std::string &opType) {
  const ::onnx::OpSchema *newest =
      ::onnx::OpSchemaRegistry::Schema(opType, newestKnownOpset(), ::onnx::ONNX_DOMAIN);
  if (!newest)
    return 0;
  // The oldest version: step back while an older schema exists.
  int since = newest->SinceVersion();
  while (since > 1) {
    const ::onnx::OpSchema *older =
        ::onnx::OpSchemaRegistry::Schema(opType, since - 1, ::onnx::ONNX_DOMAIN);
    if (!older)
      break;
    since = older->SinceVersion();
  }
  return since;
}

} // namespace onnxc
