//===- GraphInputs.cpp - graph inputs: their types, the options that fix them -===//
// What each graph input becomes in the imported function: its tensor type
// from the model, --shape, --dim and --batch; the names those options and
// --bind and --elements give, checked against the model; and the element
// shapes --elements gives a sequence or optional input. (Importer.cpp's
// GraphImporter::run puts them together.)
#include "GraphImporter.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace onnxc {
static std::string shapeText(ArrayRef<int64_t> dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? " x " : "") + std::to_string(dims[i]);
  return s + "]";
}

FailureOr<Type> GraphImporter::inputType(const ::onnx::ValueInfoProto &vi,
                                         size_t position) {
  Location loc = UnknownLoc::get(&ctx);
  if (!vi.type().has_tensor_type())
    return emitError(loc) << "graph input '" << vi.name()
                          << "' is not a tensor (sequence, map and optional inputs are not supported)";
  const auto &tt = vi.type().tensor_type();
  Type elt = elementTypeFromOnnx(&ctx, tt.elem_type());
  if (!elt)
    return emitError(loc) << "graph input '" << vi.name() << "' has element type "
                          << onnxTypeName(tt.elem_type())
                          << ", which is not supported";
  SmallVector<int64_t> dims;
  const std::vector<int64_t> *given = nullptr;
  if (position < opts.positionalShapes.size())
    given = &opts.positionalShapes[position];
  else if (auto it = opts.inputShapes.find(vi.name()); it != opts.inputShapes.end())
    given = &it->second;
  if (given) {
    if (tt.has_shape() && tt.shape().dim_size() != (int)given->size())
      return emitError(loc) << "the shape given for input '" << vi.name() << "' has "
                            << given->size() << " dims but the input has rank "
                            << tt.shape().dim_size();
    for (size_t i = 0; i < given->size(); ++i) {
      // Re-batching: a batch given for a model exported at batch 1.
      if (i == 0 && tt.has_shape() && tt.shape().dim(0).has_dim_value() &&
          tt.shape().dim(0).dim_value() == 1 && (*given)[0] != 1) {
        dims.push_back(opts.asExported ? 1 : (*given)[0]);
        rebatchedTo = opts.asExported ? rebatchedTo : (*given)[0];
        continue;
      }
      if (tt.has_shape() && tt.shape().dim(i).has_dim_value() &&
          tt.shape().dim(i).dim_value() != (*given)[i])
        return emitError(loc) << "the shape given for input '" << vi.name()
                              << "' sets dimension " << i << " to " << (*given)[i]
                              << " but the model fixes it to "
                              << tt.shape().dim(i).dim_value();
      dims.push_back((*given)[i]);
    }
    return sizedInputType(vi.name(), dims, elt);
  }
  if (!tt.has_shape())
    return emitError(loc) << "graph input '" << vi.name()
                          << "' has no shape: pass --shape " << vi.name() << "=...";
  bool open = false;
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const auto &d = tt.shape().dim(i);
    if (i == 0 && opts.batch > 0 && d.has_dim_value() && d.dim_value() == 1) {
      dims.push_back(opts.asExported ? 1 : opts.batch); // --batch N
      rebatchedTo = opts.asExported || opts.batch == 1 ? rebatchedTo : opts.batch;
      continue;
    }
    if (d.has_dim_value() && d.dim_value() >= 0) {
      dims.push_back(d.dim_value());
      continue;
    }
    if (d.has_dim_param()) {
      auto p = opts.dimParams.find(d.dim_param());
      if (p != opts.dimParams.end()) {
        dims.push_back(p->second);
        continue;
      }
      emitError(loc) << "dimension " << i << " ('" << d.dim_param()
                     << "') of input '" << vi.name()
                     << "' is left open: pass --dim " << d.dim_param()
                     << "=N or --shape " << vi.name() << "=...";
    } else {
      emitError(loc) << "dimension " << i << " of input '" << vi.name()
                     << "' is left open: pass --shape " << vi.name() << "=...";
    }
    open = true;
  }
  if (open)
    return failure();
  return sizedInputType(vi.name(), dims, elt);
}

/// --shape, --dim and --bind name the model's inputs and dimensions: a name
/// the model does not have (a typo, another model's name) is an error that
/// lists the names it has, never an option silently ignored.
LogicalResult GraphImporter::checkOptionNames(const ::onnx::GraphProto &g,
                                              const llvm::StringSet<> &initNames) {
  std::string inputs, dimNames;
  llvm::StringSet<> inputSet, dimSet;
  for (const auto &vi : g.input()) {
    if (initNames.count(vi.name()))
      continue;
    inputSet.insert(vi.name());
    std::string dims;
    if (vi.type().has_tensor_type() && vi.type().tensor_type().has_shape())
      for (const auto &d : vi.type().tensor_type().shape().dim()) {
        dims += (dims.empty() ? "" : ",") +
                (d.has_dim_value() ? std::to_string(d.dim_value())
                                   : d.has_dim_param() ? d.dim_param() : std::string("?"));
        if (d.has_dim_param() && dimSet.insert(d.dim_param()).second)
          dimNames += (dimNames.empty() ? "'" : ", '") + d.dim_param() + "' (input '" +
                      vi.name() + "')";
      }
    inputs += (inputs.empty() ? "'" : ", '") + vi.name() + "'" +
              (dims.empty() ? std::string() : " [" + dims + "]");
  }
  if (inputs.empty())
    inputs = "none";
  bool ok = true;
  auto unknownInput = [&](const char *option, const std::string &name) {
    emitError(UnknownLoc::get(&ctx)) << option << " names input '" << name
                                     << "', which the model does not have; its inputs: "
                                     << inputs;
    ok = false;
  };
  for (const auto &[name, dims] : opts.inputShapes)
    if (!inputSet.count(name))
      unknownInput("--shape", name);
  for (const auto &[name, value] : opts.boundInputs)
    if (!inputSet.count(name))
      unknownInput("--bind", name);
  for (const auto &[name, value] : opts.namedCompositeInputs)
    if (!inputSet.count(name)) {
      unknownInput("--elements", name);
    } else {
      for (const auto &vi : g.input())
        if (vi.name() == name && vi.type().has_tensor_type()) {
          emitError(UnknownLoc::get(&ctx))
              << "--elements names input '" << name
              << "', a tensor: --elements is for sequence and optional inputs (--shape "
                 "fixes a tensor's shape)";
          ok = false;
        }
    }
  for (const auto &[name, value] : opts.dimParams)
    if (!dimSet.count(name)) {
      emitError(UnknownLoc::get(&ctx))
          << "--dim names dimension '" << name
          << "', which no input of the model has; "
          << (dimNames.empty() ? "its inputs have no named dimension (inputs: " + inputs + ")"
                               : "its named dimensions: " + dimNames);
      ok = false;
    }
  return success(ok);
}

LogicalResult GraphImporter::checkElements(StringRef name, const CompositeInput &info,
                                           const ::onnx::TypeProto &tensor) {
  const size_t count = info.elementShapes.size();
  if (!info.isOptional && !info.present)
    return emitError(UnknownLoc::get(&ctx))
           << "--elements " << name << "=none: input '" << name
           << "' is a sequence, not an optional (an empty sequence: --elements " << name << "=)";
  if (info.isOptional && !info.isSequence && info.present && count != 1)
    return emitError(UnknownLoc::get(&ctx))
           << "--elements for input '" << name << "' gives " << count
           << " shapes: it is an optional tensor (one shape, or none)";
  const bool ranked = tensor.tensor_type().has_shape();
  const auto &dims = tensor.tensor_type().shape().dim();
  Type elt = elementTypeFromOnnx(&ctx, tensor.tensor_type().elem_type());
  for (auto [k, shape] : llvm::enumerate(info.elementShapes)) {
    bool agrees = !ranked || int64_t(shape.size()) == dims.size();
    for (int i = 0; agrees && ranked && i < dims.size(); ++i)
      agrees = !dims[i].has_dim_value() || dims[i].dim_value() == shape[i];
    if (!agrees) {
      std::string want;
      for (const auto &d : dims)
        want += (want.empty() ? "" : "x") +
                (d.has_dim_value() ? std::to_string(d.dim_value())
                                   : d.has_dim_param() ? d.dim_param() : std::string("?"));
      return emitError(UnknownLoc::get(&ctx))
             << "--elements for input '" << name << "': element " << k << "'s shape "
             << shapeText(shape) << " does not fit the model's element type ["
             << (want.empty() ? "scalar" : want) << "]";
    }
    if (failed(sizedInputType(name, shape, elt)))
      return failure();
  }
  return success();
}

FailureOr<Type> GraphImporter::sizedInputType(StringRef name, ArrayRef<int64_t> dims,
                                              Type elt) {
  if (checkedTensorBytes(dims, elt) < 0)
    return emitError(UnknownLoc::get(&ctx))
           << "graph input '" << name << "' of shape " << shapeText(dims)
           << " is larger than onnxc addresses (" << (kMaxTensorBytes >> 40)
           << " TiB; the element count overflows or exceeds it)";
  return Type(RankedTensorType::get(dims, elt));
}

} // namespace onnxc
