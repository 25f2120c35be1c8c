//===- Importer.cpp - ONNX ModelProto -> func.func in the onnx dialect -----===//
#include "onnxc/Import/Importer.h"

#include "GraphImporter.h"
#include "OnnxSchema.h"
#include "TensorProto.h"
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <limits>
#include <set>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

using namespace mlir;

namespace onnxc {

/// The default domain's opsets onnxc knows the semantics of.
constexpr int64_t kMinOpset = 1, kMaxOpset = 22;

/// Protobuf's default nesting limit (100 messages) stops a model whose
/// subgraphs nest about 33 deep; the file is re-read with this limit only to
/// say so instead of "does not parse".
constexpr int kDiagnosticRecursionLimit = 2000;

//===-- NodeImport helpers ---------------------------------------------------===//

Attribute NodeImport::getAttr(StringRef name) const {
  for (const NamedAttribute &a : attrs)
    if (a.getName() == name)
      return a.getValue();
  return nullptr;
}

Attribute NodeImport::takeAttr(StringRef name) {
  for (auto it = attrs.begin(); it != attrs.end(); ++it)
    if (it->getName() == name) {
      Attribute v = it->getValue();
      attrs.erase(it);
      return v;
    }
  return nullptr;
}

void NodeImport::setAttr(StringRef name, Attribute value) {
  takeAttr(name);
  attrs.push_back(builder.getNamedAttr(name, value));
}

Value NodeImport::constant(ElementsAttr value) {
  return builder.create<onnx::ConstantOp>(loc, value.getShapedType(), value);
}

Value NodeImport::constantI64(ArrayRef<int64_t> values, bool scalar) {
  auto type = RankedTensorType::get(
      scalar ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{(int64_t)values.size()},
      builder.getI64Type());
  return constant(DenseElementsAttr::get(type, values));
}

Value NodeImport::noValue() {
  return builder.create<onnx::NoValueOp>(loc, builder.getNoneType());
}

void NodeImport::setInput(unsigned i, Value v) {
  while (inputs.size() <= i)
    inputs.push_back(noValue());
  inputs[i] = v;
}

Value NodeImport::input(unsigned i) const {
  return i < inputs.size() ? inputs[i] : Value();
}

FailureOr<Value> NodeImport::build1(StringRef type, ValueRange operands,
                                    ArrayRef<NamedAttribute> opAttrs) {
  auto op = buildOp(type, operands, opAttrs, 1);
  if (failed(op))
    return failure();
  return (*op)->getResult(0);
}

FailureOr<Operation *> NodeImport::buildOp(StringRef type, ValueRange operands,
                                           ArrayRef<NamedAttribute> opAttrs,
                                           unsigned numResults,
                                           ArrayRef<bool> present) {
  std::string name = ("onnx." + type).str();
  auto info = RegisteredOperationName::lookup(name, builder.getContext());
  if (!info)
    return emitError(loc) << "operator '" << type << "' is not supported";
  for (const NamedAttribute &a : opAttrs)
    if (!llvm::is_contained(info->getAttributeNames(), a.getName()))
      return emitError(loc) << type << " attribute '" << a.getName().getValue()
                            << "' is not supported";
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addAttributes(opAttrs);
  for (unsigned i = 0; i < numResults; ++i)
    state.addTypes(i < present.size() && !present[i]
                       ? Type(builder.getNoneType())
                       : Type(UnrankedTensorType::get(builder.getF32Type())));
  Operation *op = builder.create(state);
  if (failed(mlir::verify(op, /*verifyRecursively=*/false))) {
    op->erase();
    return failure();
  }
  if (auto si = dyn_cast<onnx::ShapeInference>(op))
    if (failed(si.inferShapes()) || failed(onnx::checkResultSizes(op))) {
      op->erase();
      return failure();
    }
  // Fold hooks that produce constants run right away (cheap, and the
  // static expansion of sequences needs e.g. Not(OptionalHasElement)).
  SmallVector<Attribute> constants;
  for (Value v : op->getOperands())
    constants.push_back(onnx::getConstantElements(v));
  SmallVector<OpFoldResult> folded;
  if (op->getNumResults() == 1 && llvm::any_of(constants, [](Attribute a) { return a; }) &&
      succeeded(op->fold(constants, folded)) && folded.size() == 1)
    if (auto attr = dyn_cast_if_present<Attribute>(folded[0]))
      if (auto e = dyn_cast<ElementsAttr>(attr)) {
        Operation *c = builder.create<onnx::ConstantOp>(loc, e.getShapedType(), e);
        op->replaceAllUsesWith(c);
        op->erase();
        return c;
      }
  return op;
}

//===-- Attributes -------------------------------------------------------------===//

static FailureOr<Attribute> convertAttribute(OpBuilder &b, Location loc,
                                             const ::onnx::AttributeProto &a,
                                             StringRef baseDir) {
  MLIRContext *ctx = b.getContext();
  switch (a.type()) {
  case ::onnx::AttributeProto::FLOAT:
    return Attribute(b.getF32FloatAttr(a.f()));
  case ::onnx::AttributeProto::INT:
    return Attribute(b.getI64IntegerAttr(a.i()));
  case ::onnx::AttributeProto::STRING:
    return Attribute(b.getStringAttr(a.s()));
  case ::onnx::AttributeProto::FLOATS:
    return Attribute(DenseF32ArrayAttr::get(
        ctx, SmallVector<float>(a.floats().begin(), a.floats().end())));
  case ::onnx::AttributeProto::INTS:
    return Attribute(DenseI64ArrayAttr::get(
        ctx, SmallVector<int64_t>(a.ints().begin(), a.ints().end())));
  case ::onnx::AttributeProto::STRINGS: {
    SmallVector<Attribute> strs;
    for (const std::string &s : a.strings())
      strs.push_back(b.getStringAttr(s));
    return Attribute(b.getArrayAttr(strs));
  }
  case ::onnx::AttributeProto::TENSOR: {
    std::string error;
    auto e = tensorProtoToElements(*ctx, a.t(), baseDir, error);
    if (!e)
      return emitError(loc) << "attribute '" << a.name() << "': " << error;
    return Attribute(e);
  }
  case ::onnx::AttributeProto::GRAPH:
  case ::onnx::AttributeProto::GRAPHS:
    return emitError(loc) << "attribute '" << a.name()
                          << "' holds a subgraph; control flow is not supported yet";
  default:
    return emitError(loc) << "attribute '" << a.name() << "' has a type that is not supported";
  }
}

//===-- The graph importer (GraphImporter.h) ---------------------------------------===//

/// Whether `opType` of the default domain is an ONNX operator the dialect
/// holds: not one of its own internal ops (ONNX_CompilerInternal), nor the
/// dialect's structural NoValue and Yield.
static bool isOnnxOperator(StringRef opType, MLIRContext &ctx) {
  if (opType == "NoValue" || opType == "Yield")
    return false;
  std::optional<RegisteredOperationName> name =
      RegisteredOperationName::lookup(("onnx." + opType).str(), &ctx);
  return name && !name->hasTrait<onnx::CompilerInternal>();
}

LogicalResult GraphImporter::checkOpsAndDomains(const ::onnx::GraphProto &g) {
  bool ok = true;
  for (int i = 0; i < g.node_size(); ++i) {
    const ::onnx::NodeProto &node = g.node(i);
    StringRef domain = node.domain();
    if (!domain.empty() && domain != "ai.onnx") {
      if (isContribOp(domain, node.op_type()))
        continue;
      InFlightDiagnostic d = emitError(nodeLoc(node, i))
                             << "operator '" << node.op_type() << "' of custom domain '"
                             << domain << "' is not supported";
      if (domain == "com.microsoft")
        d << " (of com.microsoft, onnxc imports " << contribOpNames() << ")";
      ok = false;
      continue;
    }
    if (!expandedAtImport(node.op_type()) && !isStaticOp(node.op_type()) &&
        !isOnnxOperator(node.op_type(), ctx)) {
      emitError(nodeLoc(node, i)) << "operator '" << node.op_type()
                                  << "' is not supported";
      ok = false;
    }
  }
  return success(ok);
}

FailureOr<std::vector<int>> GraphImporter::topologicalOrder(const ::onnx::GraphProto &g) {
  llvm::StringMap<int> producer;
  llvm::StringSet<> available;
  bool ok = true;
  for (const auto &t : g.initializer())
    if (!available.insert(t.name()).second) {
      emitError(UnknownLoc::get(&ctx)) << "initializer '" << t.name() << "' is defined twice";
      ok = false;
    }
  llvm::StringSet<> inputs; // (older IRs list initializers as inputs too)
  for (const auto &in : g.input()) {
    if (!inputs.insert(in.name()).second) {
      emitError(UnknownLoc::get(&ctx)) << "graph input '" << in.name() << "' is listed twice";
      ok = false;
    }
    available.insert(in.name());
  }
  for (const auto &kv : values) // names of enclosing graphs (subgraphs)
    available.insert(kv.getKey());
  for (const auto &kv : sequences)
    available.insert(kv.getKey());
  for (const auto &kv : optionals)
    available.insert(kv.getKey());
  for (int i = 0; i < g.node_size(); ++i)
    for (const std::string &out : g.node(i).output()) {
      if (out.empty())
        continue;
      if (available.count(out) || producer.count(out)) {
        emitError(nodeLoc(g.node(i), i))
            << "output '" << out << "' is already produced elsewhere in the graph";
        ok = false;
      }
      producer[out] = i;
    }
  std::vector<std::vector<int>> users(g.node_size());
  std::vector<int> pending(g.node_size(), 0);
  for (int i = 0; i < g.node_size(); ++i) {
    for (const std::string &in : g.node(i).input()) {
      if (in.empty() || available.count(in))
        continue;
      auto it = producer.find(in);
      if (it == producer.end()) {
        emitError(nodeLoc(g.node(i), i))
            << "input '" << in
            << "' is not produced by any node, initializer or graph input";
        ok = false;
        continue;
      }
      users[it->second].push_back(i);
      ++pending[i];
    }
  }
  if (!ok)
    return failure();
  // Kahn's algorithm, keeping the file order among ready nodes.
  std::vector<int> order, ready;
  for (int i = g.node_size() - 1; i >= 0; --i)
    if (pending[i] == 0)
      ready.push_back(i);
  while (!ready.empty()) {
    int n = ready.back();
    ready.pop_back();
    order.push_back(n);
    std::vector<int> next;
    for (int u : users[n])
      if (--pending[u] == 0)
        next.push_back(u);
    std::sort(next.rbegin(), next.rend());
    ready.insert(ready.end(), next.begin(), next.end());
    std::sort(ready.rbegin(), ready.rend());
  }
  if (static_cast<int>(order.size()) != g.node_size()) {
    std::string names;
    for (int i = 0; i < g.node_size(); ++i)
      if (pending[i] > 0)
        names += (names.empty() ? "'" : ", '") +
                 (g.node(i).name().empty() ? g.node(i).op_type() : g.node(i).name()) +
                 "'";
    emitError(UnknownLoc::get(&ctx)) << "the graph has a cycle through nodes " << names;
    return failure();
  }
  return order;
}

LogicalResult GraphImporter::importNode(const ::onnx::NodeProto &node, int index) {
  NodeImport ni(nodeLoc(node, index), builder);
  ni.opType = node.op_type();
  ni.nodeName = node.name();
  ni.opset = opset;
  ni.numOutputs = node.output_size();
  for (const std::string &in : node.input()) {
    if (in.empty()) {
      ni.inputs.push_back(ni.noValue());
      continue;
    }
    Value v = values.lookup(in);
    if (!v && failedOutputs.contains(in))
      return failure(); // its producer's error said it all
    if (!v && !isStaticOp(node.op_type()) && node.op_type() != "Identity" &&
        node.op_type() != "Loop" && node.op_type() != "If") {
      bool seq = sequences.count(in) > 0;
      return emitError(ni.loc) << node.op_type() << " takes '" << in << "', "
                               << (seq ? "a sequence" : "an optional")
                               << ": sequences and optionals feeding this op are not supported";
    }
    ni.inputs.push_back(v);
  }
  if (failed(checkAgainstSchema(node, ni)))
    return failure();
  SmallVector<std::pair<std::string, const ::onnx::GraphProto *>> graphs;
  for (const ::onnx::AttributeProto &a : node.attribute()) {
    if (a.type() == ::onnx::AttributeProto::GRAPH) {
      graphs.push_back({a.name(), &a.g()});
      continue;
    }
    if (a.type() == ::onnx::AttributeProto::TYPE_PROTO && isStaticOp(node.op_type()))
      continue; // Optional's `type`: the import tracks kinds itself
    auto attr = convertAttribute(builder, ni.loc, a, baseDir);
    if (failed(attr))
      return failure();
    ni.attrs.push_back(builder.getNamedAttr(a.name(), *attr));
  }
  {
    auto handled = importStaticOp(node, ni);
    if (failed(handled))
      return failure();
    if (*handled)
      return success();
    handled = importStaticControlFlow(node, ni);
    if (failed(handled))
      return failure();
    if (*handled)
      return success();
  }
  const bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
  if (failed(defaultDomain ? applyOpsetHandler(ni) : importContribOp(ni, node.domain())))
    return failure();

  SmallVector<Value> outputs;
  if (!graphs.empty() && ni.opType == "Scan" && ni.opset < 9) {
    auto outs = importBatchedScan(node, ni, graphs);
    if (failed(outs))
      return failure();
    outputs = *outs;
  } else if (!graphs.empty()) {
    auto op = importRegionOp(node, ni, graphs);
    if (failed(op))
      return failure();
    outputs.assign((*op)->getResults().begin(), (*op)->getResults().end());
  } else if (!ni.replacedOutputs.empty()) {
    outputs = ni.replacedOutputs;
  } else {
    unsigned nOperands = std::max<unsigned>(dialectOperandCount(ni.opType),
                                            ni.inputs.size());
    while (ni.inputs.size() < nOperands)
      ni.inputs.push_back(ni.noValue());
    unsigned nResults = std::max<unsigned>(dialectResultCount(ni.opType), ni.numOutputs);
    // Outputs the node does not name are `none`.
    SmallVector<bool> present;
    for (unsigned i = 0; i < nResults; ++i)
      present.push_back(i < (unsigned)node.output_size() && !node.output(i).empty());
    // A data-dependent shape's extent is onnxc's result, always there.
    auto info = RegisteredOperationName::lookup("onnx." + ni.opType, &ctx);
    if (info && info->hasInterface<onnx::DataDependentShape>())
      present.back() = true;
    auto op = ni.buildOp(ni.opType, ni.inputs, ni.attrs, nResults, present);
    if (failed(op))
      return failure();
    outputs.assign((*op)->getResults().begin(), (*op)->getResults().end());
  }
  for (int i = 0; i < node.output_size(); ++i)
    if (!node.output(i).empty() && i < (int)outputs.size())
      values[node.output(i)] = outputs[i];
  return success();
}

LogicalResult GraphImporter::checkAgainstSchema(const ::onnx::NodeProto &node,
                                                 const NodeImport &ni) {
  // The number of inputs first: every op's import and shape inference may
  // then take the inputs its schema requires as given.
  InputArity arity;
  const bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
  if (!defaultDomain || !inputArity(node.op_type(), static_cast<int>(opset), arity)) {
    // No schema at this opset: an op ONNX added later, or one libonnx does
    // not know (the lowering names those).
    if (int since = defaultDomain ? introducedIn(node.op_type()) : 0; since > opset)
      return emitError(ni.loc) << node.op_type() << " does not exist in opset " << opset
                               << " (ONNX added it in opset " << since << ")";
  } else {
    int n = node.input_size();
    if (n < arity.min || n > arity.max) {
      InFlightDiagnostic d = emitError(ni.loc) << node.op_type() << " (opset " << opset
                                               << ") takes ";
      if (arity.max == std::numeric_limits<int>::max())
        d << "at least " << arity.min;
      else if (arity.min == arity.max)
        d << arity.min;
      else
        d << arity.min << " to " << arity.max;
      bool one = arity.min == 1 && (arity.max == 1 || arity.max == std::numeric_limits<int>::max());
      return d << " input" << (one ? "" : "s") << ", not " << n;
    }
    for (int i = 0; i < n && i < (int)arity.required.size(); ++i)
      if (arity.required[i] && node.input(i).empty())
        return emitError(ni.loc) << node.op_type() << " input " << i
                                 << " is required but the node leaves it empty";
  }
  std::vector<std::string> params =
      inputTypeParameters(node.op_type(), static_cast<int>(opset), ni.inputs.size());
  llvm::StringMap<std::pair<Type, size_t>> bound; // type parameter -> (type, first input)
  for (size_t i = 0; i < ni.inputs.size(); ++i) {
    auto t = ni.inputs[i] ? dyn_cast<TensorType>(ni.inputs[i].getType()) : TensorType();
    if (!t || params[i].empty())
      continue;
    auto [it, fresh] = bound.try_emplace(params[i], t.getElementType(), i);
    if (fresh || it->second.first == t.getElementType())
      continue;
    size_t j = it->second.second;
    return emitError(ni.loc)
           << node.op_type() << " input " << i << " ('" << node.input(i) << "') is "
           << onnxTypeName(onnxFromElementType(t.getElementType())) << " but input " << j
           << " ('" << node.input(j) << "') is "
           << onnxTypeName(onnxFromElementType(it->second.first))
           << "; ONNX requires one type (" << params[i] << ") for both";
  }
  return success();
}

GraphImporter::ImportValue GraphImporter::lookupValue(const std::string &name) {
  ImportValue v;
  if (auto it = sequences.find(name); it != sequences.end()) {
    v.kind = ImportValue::Sequence;
    v.items = it->second;
  } else if (auto o = optionals.find(name); o != optionals.end()) {
    v.kind = ImportValue::Optional;
    v.present = o->second.present;
    v.optionalOfSequence = o->second.isSequence;
    v.items = o->second.isSequence ? o->second.sequence : SmallVector<Value>{};
    if (!o->second.isSequence && o->second.present)
      v.items = {o->second.tensor};
  } else {
    v.tensor = values.lookup(name);
  }
  return v;
}

void GraphImporter::defineValue(const std::string &name, const ImportValue &v) {
  values.erase(name);
  sequences.erase(name);
  optionals.erase(name);
  if (v.kind == ImportValue::Sequence) {
    sequences[name] = v.items;
  } else if (v.kind == ImportValue::Optional) {
    Optional o;
    o.present = v.present;
    o.isSequence = v.optionalOfSequence;
    if (o.isSequence)
      o.sequence = v.items;
    else if (o.present && !v.items.empty())
      o.tensor = v.items.front();
    optionals[name] = o;
  } else if (v.tensor) {
    values[name] = v.tensor;
  }
}


OwningOpRef<ModuleOp> GraphImporter::run(const ::onnx::ModelProto &model) {
  if (!model.has_graph()) {
    emitError(UnknownLoc::get(&ctx)) << "the model has no graph";
    return nullptr;
  }
  bool haveDefault = false;
  for (const auto &os : model.opset_import())
    if (os.domain().empty() || os.domain() == "ai.onnx") {
      opset = os.version();
      haveDefault = true;
    }
  if (!haveDefault) {
    emitError(UnknownLoc::get(&ctx)) << "the model imports no opset of the default ONNX domain";
    return nullptr;
  }
  if (opset < kMinOpset || opset > kMaxOpset) {
    // A newer opset than onnxc knows is a missing feature (exit 3, "not
    // supported"); one below 1 is a malformed model.
    emitError(UnknownLoc::get(&ctx))
        << "the model imports opset " << opset << " of the default ONNX domain"
        << (opset > kMaxOpset ? ", which is not supported" : ", which is not a valid opset")
        << "; onnxc supports " << kMinOpset << " to " << kMaxOpset;
    return nullptr;
  }
  const ::onnx::GraphProto &g = model.graph();
  if (failed(checkOpsAndDomains(g)))
    return nullptr;
  auto order = topologicalOrder(g);
  if (failed(order))
    return nullptr;

  OwningOpRef<ModuleOp> module = ModuleOp::create(FileLineColLoc::get(&ctx, modelPath, 0, 0));
  (*module)->setAttr("onnx.opset", builder.getI64IntegerAttr(opset));
  if (!model.producer_name().empty())
    (*module)->setAttr("onnx.producer", builder.getStringAttr(model.producer_name() + " " + model.producer_version()));
  std::string imports; // for the header's provenance
  for (const auto &os : model.opset_import())
    imports += (imports.empty() ? "" : ", ") + (os.domain().empty() ? "ai.onnx" : os.domain()) +
               " " + std::to_string(os.version());
  (*module)->setAttr("onnx.opset_imports", builder.getStringAttr(imports));

  // Graph inputs (older IRs also list initializers as inputs: skip those).
  llvm::StringSet<> initNames;
  for (const auto &t : g.initializer())
    initNames.insert(t.name());
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames, argOnnxNames;
  SmallVector<size_t> argPosition; // graph-input position of each argument
  SmallVector<bool> argIsComposite;
  struct Composite {
    std::string name;
    CompositeInput info;
    size_t firstArg;
  };
  SmallVector<Composite> composites;
  // Wrong names in --shape/--dim/--bind first: the open dimensions they
  // failed to close would only repeat the problem.
  if (failed(checkOptionNames(g, initNames)))
    return nullptr;
  bool ok = true;
  size_t position = 0;
  for (const auto &vi : g.input()) {
    if (initNames.count(vi.name()))
      continue;
    const ::onnx::TypeProto &tp = vi.type();
    if (tp.has_sequence_type() || tp.has_optional_type()) {
      auto it = opts.compositeInputs.find(position++);
      const ::onnx::TypeProto &inner =
          tp.has_optional_type() ? tp.optional_type().elem_type() : tp;
      const ::onnx::TypeProto &tensor =
          inner.has_sequence_type() ? inner.sequence_type().elem_type() : inner;
      Type elt = tensor.has_tensor_type()
                     ? elementTypeFromOnnx(&ctx, tensor.tensor_type().elem_type())
                     : Type();
      const char *kind = tp.has_optional_type() ? "optional" : "sequence";
      CompositeInput info;
      if (it != opts.compositeInputs.end()) {
        info = it->second;
      } else if (auto named = opts.namedCompositeInputs.find(vi.name());
                 named != opts.namedCompositeInputs.end() && elt) {
        info = named->second;
        info.isOptional = tp.has_optional_type();
        info.isSequence = inner.has_sequence_type();
        if (failed(checkElements(vi.name(), info, tensor))) {
          ok = false;
          continue;
        }
      } else {
        const std::string how =
            tp.has_optional_type()
                ? "--elements " + vi.name() + "=SHAPE, or " + vi.name() + "=none when absent"
                : "--elements " + vi.name() + "=SHAPE,SHAPE,... with one shape a tensor, " +
                      vi.name() + "= when empty";
        emitError(UnknownLoc::get(&ctx))
            << "graph input '" << vi.name() << "' is " << (tp.has_optional_type() ? "an " : "a ")
            << kind
            << (elt ? ": give its tensors' shapes (" + how +
                          "), or run it with onnxc run, which takes them from its files"
                    : std::string(" of no tensor type: not supported"));
        ok = false;
        continue;
      }
      composites.push_back({vi.name(), info, argTypes.size()});
      for (auto [i, shape] : llvm::enumerate(info.elementShapes)) {
        argPosition.push_back(position - 1);
        argIsComposite.push_back(true);
        argTypes.push_back(RankedTensorType::get(shape, elt));
        argNames.push_back(vi.name() + "_" + std::to_string(i));
        argOnnxNames.push_back(info.isSequence ? vi.name() + "[" + std::to_string(i) + "]"
                                                     : vi.name());
      }
      continue;
    }
    argPosition.push_back(position);
    argIsComposite.push_back(false);
    auto t = inputType(vi, position++);
    if (failed(t)) {
      ok = false;
      continue;
    }
    argTypes.push_back(*t);
    argNames.push_back(vi.name());
    argOnnxNames.push_back(vi.name());
  }
  if (!ok)
    return nullptr;
  if (rebatchedTo)
    (*module)->setAttr(kRebatchedAttr, builder.getI64IntegerAttr(rebatchedTo));
  if (g.output_size() == 0) {
    emitError(UnknownLoc::get(&ctx)) << "the graph has no outputs";
    return nullptr;
  }
  builder.setInsertionPointToEnd(module->getBody());
  auto func = builder.create<func::FuncOp>(
      module->getLoc(), opts.functionName, builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  // What the header says of them (ModelEmitter's compositesNote).
  SmallVector<Attribute> compositeInfo;
  for (const Composite &c : composites)
    compositeInfo.push_back(builder.getDictionaryAttr(
        {builder.getNamedAttr("name", builder.getStringAttr(c.name)),
         builder.getNamedAttr(
             "kind", builder.getStringAttr(!c.info.isOptional   ? "sequence"
                                           : c.info.isSequence ? "optional_sequence"
                                                               : "optional")),
         builder.getNamedAttr("count", builder.getI64IntegerAttr(c.info.elementShapes.size())),
         builder.getNamedAttr("present", builder.getBoolAttr(c.info.present))}));
  if (!compositeInfo.empty())
    func->setAttr("onnx.composite_inputs", builder.getArrayAttr(compositeInfo));
  for (const Composite &c : composites) {
    SmallVector<Value> items;
    for (size_t k = 0; k < c.info.elementShapes.size(); ++k)
      items.push_back(entry->getArgument(c.firstArg + k));
    if (c.info.isOptional) {
      Optional o;
      o.present = c.info.present;
      o.isSequence = c.info.isSequence;
      if (o.isSequence)
        o.sequence = items;
      else if (o.present && !items.empty())
        o.tensor = items.front();
      optionals[c.name] = o;
    } else {
      sequences[c.name] = items;
    }
  }
  for (auto [i, name] : llvm::enumerate(argNames)) {
    func.setArgAttr(i, "onnx.name", builder.getStringAttr(argOnnxNames[i]));
    if (argIsComposite[i])
      continue;
    size_t pos = argPosition[i];
    values[name] = entry->getArgument(i);
    // A bound input is a constant inside; the parameter stays, unread.
    DenseElementsAttr bound;
    if (pos < opts.positionalBound.size())
      bound = opts.positionalBound[pos];
    if (auto it = opts.boundInputs.find(name); !bound && it != opts.boundInputs.end())
      bound = it->second;
    if (!bound)
      continue;
    if (bound.getType() != argTypes[i]) {
      emitError(UnknownLoc::get(&ctx)) << "the value bound to input '" << name << "' is "
                                       << bound.getType() << " but the input is "
                                       << argTypes[i];
      return nullptr;
    }
    values[name] = builder.create<onnx::ConstantOp>(
        NameLoc::get(StringAttr::get(&ctx, name)), bound.getType(), bound);
  }

  for (const auto &t : g.initializer()) {
    std::string error;
    auto e = tensorProtoToElements(ctx, t, baseDir, error);
    Location loc = NameLoc::get(StringAttr::get(&ctx, t.name()));
    if (!e) {
      emitError(UnknownLoc::get(&ctx)) << "initializer '" << t.name() << "': " << error;
      return nullptr;
    }
    values[t.name()] = builder.create<onnx::ConstantOp>(loc, e.getType(), e);
  }
  for (int idx : *order)
    if (failed(importNode(g.node(idx), idx))) {
      noteFailed(g.node(idx));
      ok = false;
    }
  if (!ok)
    return nullptr;

  // Every tensor's size fits what the planner and kernels address (an input
  // of 2^40 x 2^40 would otherwise wrap to 0 elements).
  // (Ops built by buildOp were checked as they were made; this also covers
  // the constants and region ops made otherwise.)
  WalkResult tooLarge = func.walk([&](Operation *op) {
    return failed(onnx::checkResultSizes(op)) ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (tooLarge.wasInterrupted())
    return nullptr;

  // (Values whose shape the data decides may only leave the graph; the
  // check waits for constant folding, which gives a NonZero of a constant
  // its real shape: onnxc-select-kernels.)

  // Sequences and optionals leave as their tensors; `onnx.outputs` records
  // how graph outputs map to results (for onnxc run), and for an output whose
  // shape the data decides, which result holds its size.
  SmallVector<Value> results;
  SmallVector<Value> extents; // results after the graph outputs'
  SmallVector<std::string> extentNames;
  SmallVector<std::string> resultNames;
  SmallVector<Attribute> outputs;
  for (const auto &out : g.output()) {
    std::string kind = "tensor";
    bool present = true;
    SmallVector<Value> items;
    if (sequences.count(out.name())) {
      kind = "sequence";
      items = sequences[out.name()];
    } else if (optionals.count(out.name())) {
      Optional &o = optionals[out.name()];
      kind = o.isSequence ? "optional_sequence" : "optional";
      present = o.present;
      if (o.isSequence)
        items = o.sequence;
      else if (o.present)
        items = {o.tensor};
    } else if (Value v = values.lookup(out.name())) {
      items = {v};
    } else {
      emitError(UnknownLoc::get(&ctx))
          << "graph output '" << out.name() << "' is not produced by the graph";
      return nullptr;
    }
    for (auto [k, v] : llvm::enumerate(items)) {
      results.push_back(v);
      resultNames.push_back(kind == "tensor" || kind == "optional"
                                ? out.name()
                                : out.name() + "[" + std::to_string(k) + "]");
    }
    SmallVector<NamedAttribute> entry = {
        builder.getNamedAttr("name", builder.getStringAttr(out.name())),
        builder.getNamedAttr("kind", builder.getStringAttr(kind)),
        builder.getNamedAttr("count", builder.getI64IntegerAttr(items.size())),
        builder.getNamedAttr("present", builder.getBoolAttr(present))};
    auto source = kind == "tensor" ? items[0].getDefiningOp<onnx::DataDependentShape>()
                                   : onnx::DataDependentShape();
    int64_t dim = source ? source.dataDependentDim(cast<OpResult>(items[0]).getResultNumber()) : -1;
    if (dim >= 0) {
      // The extent results follow the graph outputs' (one per producing op).
      auto it = llvm::find(extents, source.getExtent());
      if (it == extents.end()) {
        extents.push_back(source.getExtent());
        extentNames.push_back(out.name() + ".extent");
        it = std::prev(extents.end());
      }
      entry.push_back(builder.getNamedAttr("extent", builder.getI64IntegerAttr(it - extents.begin())));
      entry.push_back(builder.getNamedAttr("extent_dim", builder.getI64IntegerAttr(dim)));
    }
    outputs.push_back(builder.getDictionaryAttr(entry));
  }
  // "extent" counted from the first extent result; make it a result index.
  for (Attribute &a : outputs) {
    auto d = cast<DictionaryAttr>(a);
    auto k = d.getAs<IntegerAttr>("extent");
    if (!k)
      continue;
    NamedAttrList entry(d);
    entry.set("extent", builder.getI64IntegerAttr(results.size() + k.getInt()));
    a = entry.getDictionary(&ctx);
  }
  results.append(extents.begin(), extents.end());
  resultNames.append(extentNames.begin(), extentNames.end());
  builder.create<func::ReturnOp>(func.getLoc(), results);
  func.setFunctionType(builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, name] : llvm::enumerate(resultNames))
    func.setResultAttr(i, "onnx.name", builder.getStringAttr(name));
  if (!sequences.empty() || !optionals.empty() || !extents.empty())
    func->setAttr("onnx.outputs", builder.getArrayAttr(outputs));
  return module;
}

std::string rebatchProblem(int64_t batch) {
  return "the model was exported at batch 1 and is re-batched to " + std::to_string(batch) +
         " here (--batch, or inputs of that batch): a shape fixed for batch 1 inside the "
         "graph (above) cannot take another batch; export it with a dynamic batch "
         "(dynamic_axes) or run it at batch 1";
}

OwningOpRef<ModuleOp> importOnnxFile(MLIRContext &ctx, StringRef path,
                                     const ImportOptions &options) {
  ctx.loadDialect<onnx::ONNXDialect, func::FuncDialect>();
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf) {
    emitError(UnknownLoc::get(&ctx)) << "cannot read '" << path << "': "
                                     << buf.getError().message();
    return nullptr;
  }
  ::onnx::ModelProto model;
  google::protobuf::io::ArrayInputStream raw((*buf)->getBufferStart(),
                                             (int)(*buf)->getBufferSize());
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT32_MAX);
  if (!model.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage() ||
      (*buf)->getBufferSize() == 0) {
    google::protobuf::io::ArrayInputStream again((*buf)->getBufferStart(),
                                                 (int)(*buf)->getBufferSize());
    google::protobuf::io::CodedInputStream deep(&again);
    deep.SetTotalBytesLimit(INT32_MAX);
    deep.SetRecursionLimit(kDiagnosticRecursionLimit);
    ::onnx::ModelProto probe;
    if ((*buf)->getBufferSize() > 0 && probe.ParseFromCodedStream(&deep) &&
        deep.ConsumedEntireMessage())
      emitError(UnknownLoc::get(&ctx))
          << "'" << path << "' nests subgraphs deeper than protobuf parses ("
          << google::protobuf::io::CodedInputStream::GetDefaultRecursionLimit()
          << " nested messages, about a third as many levels of If/Loop/Scan); such "
          << "models are not supported";
    else
      emitError(UnknownLoc::get(&ctx))
          << "'" << path << "' is not a valid ONNX model (the protobuf does not parse;"
          << " truncated or not an .onnx file)";
    return nullptr;
  }
  if (!model.has_ir_version() || !model.has_graph()) {
    emitError(UnknownLoc::get(&ctx))
        << "'" << path << "' is not an ONNX model (no ir_version or graph)";
    return nullptr;
  }
  GraphImporter importer(ctx, options, path);
  OwningOpRef<ModuleOp> module = importer.run(model);
  if (!module && importer.rebatched())
    emitError(UnknownLoc::get(&ctx)) << rebatchProblem(importer.rebatched());
  return module;
}

std::vector<std::string> supportedOnnxOps(MLIRContext &ctx) {
  ctx.loadDialect<onnx::ONNXDialect>();
  std::vector<std::string> ops;
  for (RegisteredOperationName name : ctx.getRegisteredOperations())
    if (name.getDialectNamespace() == "onnx" && isOnnxOperator(name.stripDialect(), ctx))
      ops.push_back(name.stripDialect().str());
  for (const std::string &op : opsExpandedAtImport())
    ops.push_back(op);
  for (const char *op : staticOps())
    ops.push_back(op);
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  // ONNX Runtime's operators, by their domain.
  for (const std::string &op : contribOpNameList())
    ops.push_back("com.microsoft." + op);
  return ops;
}

} // namespace onnxc
