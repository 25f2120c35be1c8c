//===- Importer.cpp - ONNX ModelProto -> func.func in the onnx dialect -----===//
#include "onnxc/Import/Importer.h"

#include "NodeImport.h"
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

/// Ops on sequences and optionals, which onnxc evaluates at import.
static const char *const kStaticOps[] = {
    "SequenceEmpty", "SequenceConstruct", "SequenceInsert", "SequenceAt", "SequenceErase",
    "SequenceLength", "ConcatFromSequence", "SplitToSequence", "SequenceMap",
    "Optional", "OptionalHasElement", "OptionalGetElement"};

static bool isStaticOp(StringRef op) { return llvm::is_contained(kStaticOps, op); }

/// The longest sequence the import expands (each element is a value of its
/// own), as an unrolled loop is bounded.
constexpr size_t kMaxSequenceLength = 4096;

/// The default domain's opsets onnxc knows the semantics of.
constexpr int64_t kMinOpset = 1, kMaxOpset = 22;

/// Protobuf's default nesting limit (100 messages) stops a model whose
/// subgraphs nest about 33 deep; the file is re-read with this limit only to
/// say so instead of "does not parse".
constexpr int kDiagnosticRecursionLimit = 2000;

static std::string shapeText(ArrayRef<int64_t> dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? " x " : "") + std::to_string(dims[i]);
  return s + "]";
}

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

//===-- The graph importer -------------------------------------------------------===//

namespace {
class GraphImporter {
public:
  GraphImporter(MLIRContext &ctx, const ImportOptions &opts, StringRef modelPath)
      : ctx(ctx), opts(opts), modelPath(modelPath.str()),
        baseDir(llvm::sys::path::parent_path(modelPath).str()), builder(&ctx) {}

  OwningOpRef<ModuleOp> run(const ::onnx::ModelProto &model);

private:
  Location nodeLoc(const ::onnx::NodeProto &node, int index) {
    std::string name = node.name().empty()
                           ? ("#" + std::to_string(index) + " " + node.op_type())
                           : node.name();
    return NameLoc::get(StringAttr::get(&ctx, name),
                        FileLineColLoc::get(&ctx, modelPath, index + 1, 0));
  }
  LogicalResult checkOpsAndDomains(const ::onnx::GraphProto &g);
  FailureOr<std::vector<int>> topologicalOrder(const ::onnx::GraphProto &g);
  FailureOr<Type> inputType(const ::onnx::ValueInfoProto &vi, size_t position);
  /// The input's tensor type, or an error when it is too large to address.
  FailureOr<Type> sizedInputType(StringRef name, ArrayRef<int64_t> dims, Type elt);
  LogicalResult checkOptionNames(const ::onnx::GraphProto &g, const llvm::StringSet<> &initNames);
  LogicalResult importNode(const ::onnx::NodeProto &node, int index);
  /// What ONNX's schema of the node's op says: how many inputs it takes and
  /// which must be given; inputs it binds to one type parameter (Add's T)
  /// have one element type (the kernels assume it).
  LogicalResult checkAgainstSchema(const ::onnx::NodeProto &node, const NodeImport &ni);
  /// If, Loop, Scan: the op with its subgraphs imported as regions.
  FailureOr<Operation *> importRegionOp(
      const ::onnx::NodeProto &node, NodeImport &ni,
      ArrayRef<std::pair<std::string, const ::onnx::GraphProto *>> graphs);
  /// Scan-8: a leading batch dim and sequence_lens. Each batch entry becomes
  /// one opset-9 Scan on its slices; the results are stacked again.
  FailureOr<SmallVector<Value>> importBatchedScan(
      const ::onnx::NodeProto &node, NodeImport &ni,
      ArrayRef<std::pair<std::string, const ::onnx::GraphProto *>> graphs);
  /// Imports a subgraph into `block` (whose arguments stand for its inputs)
  /// and ends it with onnx.Yield. Outer names stay visible; inner ones go
  /// out of scope afterwards.
  LogicalResult importSubgraph(const ::onnx::GraphProto &g, Block *block);
  /// A value while importing: a tensor, or a sequence/optional as its list.
  struct ImportValue {
    enum Kind { Tensor, Sequence, Optional } kind = Tensor;
    Value tensor;
    SmallVector<Value> items; // Sequence; Optional: the tensor or the sequence
    bool present = true, optionalOfSequence = false;
    static ImportValue of(Value v) {
      ImportValue r;
      r.tensor = v;
      return r;
    }
  };
  ImportValue lookupValue(const std::string &name);
  void defineValue(const std::string &name, const ImportValue &v);
  /// Imports a subgraph's nodes at the insertion point with its inputs bound
  /// to `inputs` and returns its outputs; the names stay local.
  FailureOr<SmallVector<ImportValue>> importInline(const ::onnx::GraphProto &g,
                                                   ArrayRef<ImportValue> inputs);
  /// If and Loop evaluated while importing (sequences or optionals flow
  /// through them): needs the condition / trip count as constants. Returns
  /// false when the node is left to the region form.
  FailureOr<bool> importStaticControlFlow(const ::onnx::NodeProto &node, NodeImport &ni);

  MLIRContext &ctx;
  const ImportOptions &opts;
  std::string modelPath, baseDir;
  OpBuilder builder;
  int64_t opset = 0;
  llvm::StringMap<Value> values;
  // Sequences and optionals exist only at import: a sequence is its list of
  // tensors, an optional holds a tensor or a sequence, or nothing.
  struct Optional {
    bool present = false, isSequence = false;
    Value tensor;
    SmallVector<Value> sequence;
  };
  llvm::StringMap<SmallVector<Value>> sequences;
  llvm::StringMap<Optional> optionals;
  /// Outputs of nodes that failed to import: their readers fail quietly
  /// (one error per cause, not one per reader).
  llvm::StringSet<> failedOutputs;
  void noteFailed(const ::onnx::NodeProto &node) {
    for (const std::string &out : node.output())
      failedOutputs.insert(out);
  }
  /// Sequence and optional ops, done on those lists. Returns failure() on
  /// error, false if `node` is not one of them.
  FailureOr<bool> importStaticOp(const ::onnx::NodeProto &node, NodeImport &ni);
};
} // namespace

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

FailureOr<Type> GraphImporter::sizedInputType(StringRef name, ArrayRef<int64_t> dims,
                                              Type elt) {
  if (checkedTensorBytes(dims, elt) < 0)
    return emitError(UnknownLoc::get(&ctx))
           << "graph input '" << name << "' of shape " << shapeText(dims)
           << " is larger than onnxc addresses (" << (kMaxTensorBytes >> 40)
           << " TiB; the element count overflows or exceeds it)";
  return Type(RankedTensorType::get(dims, elt));
}


FailureOr<bool> GraphImporter::importStaticOp(const ::onnx::NodeProto &node, NodeImport &ni) {
  StringRef op = node.op_type();
  auto in = [&](int i) -> std::string { return i < node.input_size() ? node.input(i) : ""; };
  auto out = [&](int i) -> std::string { return i < node.output_size() ? node.output(i) : ""; };
  auto isSeq = [&](const std::string &n) { return sequences.count(n) > 0; };
  // Identity (and the like) of a sequence or an optional passes it on.
  if (op == "Identity" && isSeq(in(0))) {
    sequences[out(0)] = sequences[in(0)];
    return true;
  }
  if (op == "Identity" && optionals.count(in(0))) {
    optionals[out(0)] = optionals[in(0)];
    return true;
  }
  if (!isStaticOp(op))
    return false;
  auto position = [&](int i, int64_t size, bool insert) -> FailureOr<int64_t> {
    if (in(i).empty())
      return insert ? size : size - 1;
    auto p = onnx::getConstantInts(values.lookup(in(i)));
    if (!p || p->size() != 1)
      return emitError(ni.loc) << op << ": a position computed at run time is not supported";
    int64_t v = (*p)[0] < 0 ? (*p)[0] + size : (*p)[0];
    if (v < 0 || v > size || (!insert && v == size))
      return emitError(ni.loc) << op << ": position " << (*p)[0] << " is out of range";
    return v;
  };
  auto tensorIn = [&](int i) -> FailureOr<Value> {
    Value v = in(i).empty() ? Value() : values.lookup(in(i));
    if (!v)
      return emitError(ni.loc) << op << " input " << i << " ('" << in(i)
                               << "') must be a tensor";
    return v;
  };
  auto seqIn = [&](int i) -> FailureOr<SmallVector<Value>> {
    if (!isSeq(in(i)))
      return emitError(ni.loc) << op << ": input '" << in(i) << "' is not a sequence";
    return sequences[in(i)];
  };
  if (op == "SequenceEmpty") {
    sequences[out(0)] = {};
  } else if (op == "SequenceConstruct") {
    SmallVector<Value> items;
    for (int i = 0; i < node.input_size(); ++i) {
      auto v = tensorIn(i);
      if (failed(v))
        return failure();
      items.push_back(*v);
    }
    sequences[out(0)] = items;
  } else if (op == "SequenceInsert" || op == "SequenceErase" || op == "SequenceAt") {
    auto s = seqIn(0);
    if (failed(s))
      return failure();
    bool insert = op == "SequenceInsert";
    auto p = position(insert ? 2 : 1, s->size(), insert);
    if (failed(p))
      return failure();
    if (op == "SequenceAt") {
      values[out(0)] = (*s)[*p];
      return true;
    }
    if (insert) {
      auto v = tensorIn(1);
      if (failed(v))
        return failure();
      s->insert(s->begin() + *p, *v);
    } else
      s->erase(s->begin() + *p);
    sequences[out(0)] = *s;
  } else if (op == "SequenceLength") {
    auto s = seqIn(0);
    if (failed(s))
      return failure();
    values[out(0)] = ni.constantI64({(int64_t)s->size()}, /*scalar=*/true);
  } else if (op == "ConcatFromSequence") {
    auto s = seqIn(0);
    if (failed(s))
      return failure();
    if (s->empty())
      return emitError(ni.loc) << "ConcatFromSequence of an empty sequence is not supported";
    auto axisAttr = dyn_cast_or_null<IntegerAttr>(ni.getAttr("axis"));
    auto newAxisAttr = dyn_cast_or_null<IntegerAttr>(ni.getAttr("new_axis"));
    int64_t axis = axisAttr ? axisAttr.getInt() : 0;
    SmallVector<Value> parts = *s;
    if (newAxisAttr && newAxisAttr.getInt()) {
      for (Value &v : parts) {
        auto u = ni.build1("Unsqueeze", {v, ni.constantI64({axis})});
        if (failed(u))
          return failure();
        v = *u;
      }
    }
    auto c = ni.build1("Concat", parts, {builder.getNamedAttr("axis", builder.getI64IntegerAttr(axis))});
    if (failed(c))
      return failure();
    values[out(0)] = *c;
  } else if (op == "SplitToSequence") {
    auto input = tensorIn(0);
    if (failed(input))
      return failure();
    Value x = *input;
    auto t = dyn_cast<RankedTensorType>(x.getType());
    auto axisAttr = dyn_cast_or_null<IntegerAttr>(ni.getAttr("axis"));
    auto keepAttr = dyn_cast_or_null<IntegerAttr>(ni.getAttr("keepdims"));
    if (!t || !t.hasStaticShape())
      return emitError(ni.loc) << "SplitToSequence needs a static input shape";
    int64_t axis = axisAttr ? axisAttr.getInt() : 0;
    if (axis < -t.getRank() || axis >= t.getRank())
      return emitError(ni.loc) << "SplitToSequence axis " << axis
                               << " is out of range for a rank-" << t.getRank() << " input";
    if (axis < 0)
      axis += t.getRank();
    int64_t dim = t.getDimSize(axis);
    SmallVector<int64_t> sizes;
    bool squeeze = false;
    // Each piece is a value of its own: a sequence is bounded like an
    // unrolled loop (checked before the sizes are built).
    auto tooMany = [&](int64_t pieces) {
      return emitError(ni.loc) << "SplitToSequence into " << pieces
                               << " pieces is not supported (at most " << kMaxSequenceLength
                               << ")";
    };
    if (in(1).empty()) {
      if (dim > (int64_t)kMaxSequenceLength)
        return tooMany(dim);
      sizes.assign(dim, 1);
      squeeze = !keepAttr || keepAttr.getInt() != 0 ? false : true;
    } else {
      auto splitIn = tensorIn(1);
      if (failed(splitIn))
        return failure();
      auto s = onnx::getConstantInts(*splitIn);
      if (!s)
        return emitError(ni.loc) << "SplitToSequence: split sizes computed at run time are not supported";
      auto st = cast<ShapedType>(splitIn->getType());
      if (st.getRank() == 0) {
        if ((*s)[0] < 1)
          return emitError(ni.loc) << "SplitToSequence split size " << (*s)[0]
                                   << " must be positive";
        int64_t pieces = dim / (*s)[0] + (dim % (*s)[0] != 0);
        if (pieces > (int64_t)kMaxSequenceLength)
          return tooMany(pieces);
        for (int64_t left = dim; left > 0; left -= (*s)[0])
          sizes.push_back(std::min(left, (*s)[0]));
      } else {
        if (s->size() > kMaxSequenceLength)
          return tooMany(s->size());
        sizes = *s;
      }
    }
    auto split = ni.buildOp("Split", {x, ni.constantI64(sizes)},
                            {builder.getNamedAttr("axis", builder.getI64IntegerAttr(axis))},
                            sizes.size());
    if (failed(split))
      return failure();
    SmallVector<Value> items((*split)->getResults().begin(), (*split)->getResults().end());
    if (squeeze)
      for (Value &v : items) {
        auto q = ni.build1("Squeeze", {v, ni.constantI64({axis})});
        if (failed(q))
          return failure();
        v = *q;
      }
    sequences[out(0)] = items;
  } else if (op == "SequenceMap") {
    const ::onnx::GraphProto *body = nullptr;
    for (const auto &a : node.attribute())
      if (a.name() == "body")
        body = &a.g();
    auto s = seqIn(0);
    if (!body || failed(s))
      return failure();
    SmallVector<SmallVector<Value>> results(node.output_size());
    for (size_t i = 0; i < s->size(); ++i) {
      SmallVector<ImportValue> args;
      for (int k = 0; k < node.input_size(); ++k) {
        if (isSeq(in(k))) {
          if (sequences[in(k)].size() != s->size())
            return emitError(ni.loc) << "SequenceMap sequences differ in length";
          args.push_back(ImportValue::of(sequences[in(k)][i]));
        } else {
          auto v = tensorIn(k);
          if (failed(v))
            return failure();
          args.push_back(ImportValue::of(*v));
        }
      }
      auto r = importInline(*body, args);
      if (failed(r))
        return failure();
      for (int k = 0; k < node.output_size(); ++k) {
        if ((*r)[k].kind != ImportValue::Tensor)
          return emitError(ni.loc) << "SequenceMap bodies yielding sequences are not supported";
        results[k].push_back((*r)[k].tensor);
      }
    }
    for (int k = 0; k < node.output_size(); ++k)
      sequences[out(k)] = results[k];
  } else if (op == "Optional") {
    Optional o;
    if (!in(0).empty()) {
      o.present = true;
      o.isSequence = isSeq(in(0));
      if (o.isSequence) {
        o.sequence = sequences[in(0)];
      } else {
        auto v = tensorIn(0);
        if (failed(v))
          return failure();
        o.tensor = *v;
      }
    }
    optionals[out(0)] = o;
  } else if (op == "OptionalHasElement") {
    bool present = in(0).empty() ? false
                   : optionals.count(in(0)) ? optionals[in(0)].present
                                            : true; // a tensor or sequence (opset 18)
    auto type = RankedTensorType::get({}, builder.getI1Type());
    values[out(0)] = ni.constant(DenseElementsAttr::get(type, present));
  } else if (op == "OptionalGetElement") {
    if (!optionals.count(in(0))) { // opset 18: a plain tensor or sequence passes
      if (isSeq(in(0))) {
        sequences[out(0)] = sequences[in(0)];
      } else {
        auto v = tensorIn(0);
        if (failed(v))
          return failure();
        values[out(0)] = *v;
      }
      return true;
    }
    Optional &o = optionals[in(0)];
    if (!o.present)
      return emitError(ni.loc) << "OptionalGetElement of an empty optional";
    if (o.isSequence)
      sequences[out(0)] = o.sequence;
    else
      values[out(0)] = o.tensor;
  }
  return true;
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

FailureOr<SmallVector<GraphImporter::ImportValue>>
GraphImporter::importInline(const ::onnx::GraphProto &g, ArrayRef<ImportValue> inputs) {
  // Names the subgraph defines shadow outer ones until it is done.
  std::map<std::string, ImportValue> saved;
  auto note = [&](const std::string &name) {
    if (!saved.count(name))
      saved[name] = lookupValue(name);
  };
  bool ok = true;
  for (auto [i, in] : llvm::enumerate(g.input())) {
    note(in.name());
    defineValue(in.name(), inputs[i]);
  }
  for (const auto &t : g.initializer()) {
    std::string error;
    auto e = tensorProtoToElements(ctx, t, baseDir, error);
    if (!e) {
      emitError(UnknownLoc::get(&ctx)) << "initializer '" << t.name() << "': " << error;
      ok = false;
      continue;
    }
    note(t.name());
    values[t.name()] = builder.create<onnx::ConstantOp>(
        NameLoc::get(StringAttr::get(&ctx, t.name())), e.getType(), e);
  }
  SmallVector<ImportValue> results;
  if (ok) {
    auto order = topologicalOrder(g);
    if (failed(order)) {
      ok = false;
    } else {
      for (int idx : *order) {
        for (const std::string &out : g.node(idx).output())
          if (!out.empty())
            note(out);
        if (failed(importNode(g.node(idx), idx))) {
          noteFailed(g.node(idx));
          ok = false;
        }
      }
    }
  }
  if (ok)
    for (const auto &out : g.output()) {
      ImportValue v = lookupValue(out.name());
      if (v.kind == ImportValue::Tensor && !v.tensor) {
        emitError(UnknownLoc::get(&ctx))
            << "subgraph output '" << out.name() << "' is not produced by the subgraph";
        ok = false;
        break;
      }
      results.push_back(v);
    }
  for (auto &[name, v] : saved)
    defineValue(name, v);
  if (!ok)
    return failure();
  return results;
}

FailureOr<bool> GraphImporter::importStaticControlFlow(const ::onnx::NodeProto &node,
                                                       NodeImport &ni) {
  StringRef op = node.op_type();
  if (op != "If" && op != "Loop")
    return false;
  auto composite = [](const ::onnx::TypeProto &t) {
    return t.has_sequence_type() || t.has_optional_type();
  };
  bool involved = false;
  for (const std::string &in : node.input())
    involved |= sequences.count(in) || optionals.count(in);
  for (const auto &a : node.attribute())
    if (a.type() == ::onnx::AttributeProto::GRAPH) {
      for (const auto &o : a.g().output())
        involved |= composite(o.type());
      for (const auto &i : a.g().input())
        involved |= composite(i.type());
    }
  if (!involved)
    return false;
  auto graph = [&](StringRef name) -> const ::onnx::GraphProto * {
    for (const auto &a : node.attribute())
      if (a.name() == name && a.type() == ::onnx::AttributeProto::GRAPH)
        return &a.g();
    return nullptr;
  };
  auto define = [&](ArrayRef<ImportValue> outs) {
    for (int i = 0; i < node.output_size() && i < (int)outs.size(); ++i)
      if (!node.output(i).empty())
        defineValue(node.output(i), outs[i]);
  };
  auto constantBool = [&](const std::string &name) -> std::optional<bool> {
    ElementsAttr e = onnx::getConstantElements(values.lookup(name));
    if (!e || e.getNumElements() != 1)
      return std::nullopt;
    return e.getElementType().isInteger(1) ? *e.getValues<bool>().begin()
                                           : (*e.getValues<APInt>().begin()).getSExtValue() != 0;
  };
  if (op == "If") {
    auto c = constantBool(node.input(0));
    if (!c)
      return emitError(ni.loc) << "If producing sequences or optionals needs a condition known "
                                  "at compile time; a run-time one is not supported";
    const ::onnx::GraphProto *branch = graph(*c ? "then_branch" : "else_branch");
    if (!branch)
      return emitError(ni.loc) << "If is missing a branch";
    auto outs = importInline(*branch, {});
    if (failed(outs))
      return failure();
    define(*outs);
    return true;
  }
  // Loop: unrolled here, carrying sequences and optionals as lists.
  const ::onnx::GraphProto *body = graph("body");
  auto m = node.input_size() > 0 && !node.input(0).empty()
               ? onnx::getConstantInts(values.lookup(node.input(0)))
               : std::nullopt;
  std::optional<bool> cond = node.input_size() > 1 && !node.input(1).empty()
                                 ? constantBool(node.input(1))
                                 : std::optional<bool>(true);
  if (!body || !m || m->size() != 1 || !cond)
    return emitError(ni.loc) << "Loop over sequences or optionals needs its trip count and "
                                "condition at compile time; run-time ones are not supported";
  // The body must pass its condition through (then M is the trip count).
  std::string condOut = body->output(0).name();
  for (bool moved = true; moved;) {
    moved = false;
    for (const auto &n : body->node())
      if (n.op_type() == "Identity" && n.output(0) == condOut) {
        condOut = n.input(0);
        moved = true;
      }
  }
  if (condOut != body->input(1).name())
    return emitError(ni.loc) << "Loop whose body computes its exit condition is not supported";
  size_t nv = node.input_size() - 2;
  SmallVector<ImportValue> carried;
  for (size_t i = 0; i < nv; ++i)
    carried.push_back(lookupValue(node.input(2 + i)));
  int64_t trips = *cond ? (*m)[0] : 0;
  size_t nScan = body->output_size() - 1 - nv;
  SmallVector<SmallVector<Value>> scans(nScan);
  auto boolType = RankedTensorType::get({}, builder.getI1Type());
  for (int64_t i = 0; i < trips; ++i) {
    SmallVector<ImportValue> args{ImportValue::of(ni.constantI64({i}, true)),
                                  ImportValue::of(ni.constant(DenseElementsAttr::get(boolType, true)))};
    args.append(carried.begin(), carried.end());
    auto outs = importInline(*body, args);
    if (failed(outs))
      return failure();
    carried.assign(outs->begin() + 1, outs->begin() + 1 + nv);
    for (size_t k = 0; k < nScan; ++k) {
      const ImportValue &v = (*outs)[1 + nv + k];
      if (v.kind != ImportValue::Tensor)
        return emitError(ni.loc) << "Loop scan outputs that are sequences are not supported";
      auto u = ni.build1("Unsqueeze", {v.tensor, ni.constantI64({0})});
      if (failed(u))
        return failure();
      scans[k].push_back(*u);
    }
  }
  SmallVector<ImportValue> outs(carried);
  for (auto &s : scans) {
    if (s.empty())
      return emitError(ni.loc) << "Loop with zero iterations and scan outputs is not supported";
    auto c = s.size() == 1 ? FailureOr<Value>(s.front())
                           : ni.build1("Concat", s, {builder.getNamedAttr("axis", builder.getI64IntegerAttr(0))});
    if (failed(c))
      return failure();
    outs.push_back(ImportValue::of(*c));
  }
  define(outs);
  return true;
}

LogicalResult GraphImporter::importSubgraph(const ::onnx::GraphProto &g, Block *block) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  SmallVector<ImportValue> args;
  for (BlockArgument a : block->getArguments())
    args.push_back(ImportValue::of(a));
  auto results = importInline(g, args);
  if (failed(results))
    return failure();
  SmallVector<Value> yielded;
  for (const ImportValue &v : *results) {
    if (v.kind != ImportValue::Tensor) {
      emitError(UnknownLoc::get(&ctx))
          << "a sequence or optional leaving a subgraph whose condition or trip count is "
             "known only at run time is not supported";
      return failure();
    }
    yielded.push_back(v.tensor);
  }
  builder.create<onnx::YieldOp>(UnknownLoc::get(&ctx), yielded);
  return success();
}

FailureOr<SmallVector<Value>> GraphImporter::importBatchedScan(
    const ::onnx::NodeProto &node, NodeImport &ni,
    ArrayRef<std::pair<std::string, const ::onnx::GraphProto *>> graphs) {
  if (!onnx::isNone(ni.input(0)))
    return emitError(ni.loc) << "Scan-8 with sequence_lens is not supported";
  if (ni.inputs.size() < 2)
    return emitError(ni.loc) << "Scan has no inputs";
  SmallVector<Value> operands(ni.inputs.begin() + 1, ni.inputs.end());
  auto first = dyn_cast<RankedTensorType>(operands.front().getType());
  if (!first || first.getRank() < 1 || first.isDynamicDim(0))
    return emitError(ni.loc) << "Scan-8 needs a static batch dimension";
  // Each batch entry becomes a Scan of its own, so the batch is bounded like
  // an unrolled trip count.
  constexpr int64_t kMaxBatch = 4096;
  int64_t batch = first.getDimSize(0);
  if (batch < 1 || batch > kMaxBatch)
    return emitError(ni.loc) << "Scan-8 batch of " << batch << " is not supported (1 to "
                             << kMaxBatch << ")";
  // Scan-8 scans axis 1 of every scan input (axis 0 once the batch is off).
  SmallVector<NamedAttribute> attrs;
  for (const NamedAttribute &a : ni.attrs)
    if (a.getName() != "directions")
      attrs.push_back(a);
  if (auto d = dyn_cast_or_null<DenseI64ArrayAttr>(ni.getAttr("directions")))
    attrs.push_back(builder.getNamedAttr("scan_input_directions", d));
  SmallVector<SmallVector<Value>> perBatch(node.output_size());
  for (int64_t b = 0; b < batch; ++b) {
    NodeImport sub(ni.loc, builder);
    sub.opType = "Scan";
    sub.opset = 9;
    sub.attrs = attrs;
    for (Value v : operands) {
      auto g = sub.build1("Gather", {v, sub.constantI64({b}, /*scalar=*/true)},
                          {builder.getNamedAttr("axis", builder.getI64IntegerAttr(0))});
      if (failed(g))
        return failure();
      sub.inputs.push_back(*g);
    }
    auto op = importRegionOp(node, sub, graphs);
    if (failed(op))
      return failure();
    for (int i = 0; i < node.output_size(); ++i) {
      auto u = sub.build1("Unsqueeze", {(*op)->getResult(i), sub.constantI64({0})});
      if (failed(u))
        return failure();
      perBatch[i].push_back(*u);
    }
  }
  SmallVector<Value> outs;
  for (auto &parts : perBatch) {
    if (parts.size() == 1) {
      outs.push_back(parts.front());
      continue;
    }
    auto c = ni.build1("Concat", parts, {builder.getNamedAttr("axis", builder.getI64IntegerAttr(0))});
    if (failed(c))
      return failure();
    outs.push_back(*c);
  }
  return outs;
}

FailureOr<Operation *> GraphImporter::importRegionOp(
    const ::onnx::NodeProto &node, NodeImport &ni,
    ArrayRef<std::pair<std::string, const ::onnx::GraphProto *>> graphs) {
  StringRef op = ni.opType;
  auto graph = [&](StringRef name) -> const ::onnx::GraphProto * {
    for (auto &[n, g] : graphs)
      if (n == name)
        return g;
    return nullptr;
  };
  SmallVector<std::pair<const ::onnx::GraphProto *, SmallVector<Type>>> regions;
  Type i64 = RankedTensorType::get({}, builder.getI64Type());
  Type i1 = RankedTensorType::get({}, builder.getI1Type());
  if (op == "If") {
    if (!graph("then_branch") || !graph("else_branch"))
      return emitError(ni.loc) << "If needs then_branch and else_branch";
    regions.push_back({graph("then_branch"), {}});
    regions.push_back({graph("else_branch"), {}});
  } else if (op == "Loop") {
    while (ni.inputs.size() < 2)
      ni.inputs.push_back(ni.noValue());
    SmallVector<Type> args{i64, i1};
    for (size_t i = 2; i < ni.inputs.size(); ++i)
      args.push_back(ni.inputs[i].getType());
    regions.push_back({graph("body"), args});
  } else if (op == "Scan") {
    auto nScanAttr = dyn_cast_or_null<IntegerAttr>(ni.getAttr("num_scan_inputs"));
    int64_t nScan = nScanAttr ? nScanAttr.getInt() : 0;
    if (nScan < 1 || nScan > (int64_t)ni.inputs.size())
      return emitError(ni.loc) << "Scan's num_scan_inputs (" << nScan
                               << ") must be between 1 and its number of inputs ("
                               << ni.inputs.size() << ")";
    int64_t nState = (int64_t)ni.inputs.size() - nScan;
    auto axesAttr = dyn_cast_or_null<DenseI64ArrayAttr>(ni.getAttr("scan_input_axes"));
    if (axesAttr && (int64_t)axesAttr.size() != nScan)
      return emitError(ni.loc) << "Scan's scan_input_axes has " << axesAttr.size()
                               << " values for " << nScan << " scan inputs";
    SmallVector<Type> args;
    for (int64_t i = 0; i < (int64_t)ni.inputs.size(); ++i) {
      Type t = ni.inputs[i].getType();
      if (i >= nState) { // one slice: the scan axis removed
        auto rt = dyn_cast<RankedTensorType>(t);
        if (!rt)
          return emitError(ni.loc) << "Scan inputs must be ranked";
        int64_t axis = axesAttr ? axesAttr[i - nState] : 0;
        if (axis < -rt.getRank() || axis >= rt.getRank())
          return emitError(ni.loc) << "Scan axis " << axis << " is out of range for scan input "
                                   << i - nState << " of rank " << rt.getRank();
        if (axis < 0)
          axis += rt.getRank();
        SmallVector<int64_t> shape(rt.getShape());
        shape.erase(shape.begin() + axis);
        t = RankedTensorType::get(shape, rt.getElementType());
      }
      args.push_back(t);
    }
    regions.push_back({graph("body"), args});
  } else {
    return emitError(ni.loc) << op << " with a subgraph attribute is not supported";
  }
  for (auto &[g, args] : regions)
    if (!g)
      return emitError(ni.loc) << op << " is missing its body";

  OperationState state(ni.loc, ("onnx." + op).str());
  state.addOperands(ni.inputs);
  state.addAttributes(ni.attrs);
  for (int i = 0; i < node.output_size(); ++i)
    state.addTypes(UnrankedTensorType::get(builder.getF32Type()));
  for (size_t i = 0; i < regions.size(); ++i)
    state.addRegion();
  Operation *created = builder.create(state);
  for (auto [i, r] : llvm::enumerate(regions)) {
    auto &[g, args] = r;
    if (g->input_size() != (int)args.size()) {
      emitError(ni.loc) << op << " body takes " << g->input_size() << " inputs, expected "
                        << args.size();
      created->erase();
      return failure();
    }
    Block *block = new Block();
    created->getRegion(i).push_back(block);
    for (Type t : args)
      block->addArgument(t, ni.loc);
    if (failed(importSubgraph(*g, block))) {
      created->erase();
      return failure();
    }
  }
  if (failed(mlir::verify(created, /*verifyRecursively=*/false)) ||
      failed(cast<onnx::ShapeInference>(created).inferShapes())) {
    created->erase();
    return failure();
  }
  return created;
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
      if (it == opts.compositeInputs.end() || !elt) {
        emitError(UnknownLoc::get(&ctx))
            << "graph input '" << vi.name() << "' is a " << (tp.has_optional_type() ? "optional" : "sequence")
            << ": supported by onnxc run, which sees its elements; other uses are not supported";
        ok = false;
        continue;
      }
      composites.push_back({vi.name(), it->second, argTypes.size()});
      for (auto [i, shape] : llvm::enumerate(it->second.elementShapes)) {
        argPosition.push_back(position - 1);
        argIsComposite.push_back(true);
        argTypes.push_back(RankedTensorType::get(shape, elt));
        argNames.push_back(vi.name() + "_" + std::to_string(i));
        argOnnxNames.push_back(it->second.isSequence ? vi.name() + "[" + std::to_string(i) + "]"
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
  if (g.output_size() == 0) {
    emitError(UnknownLoc::get(&ctx)) << "the graph has no outputs";
    return nullptr;
  }
  builder.setInsertionPointToEnd(module->getBody());
  auto func = builder.create<func::FuncOp>(
      module->getLoc(), opts.functionName, builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
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

  // Values whose shape the data decides may only leave the graph.
  WalkResult dynamicUse = func.walk([&](onnx::DataDependentShape op) {
    for (OpResult r : op->getResults())
      if (op.dataDependentDim(r.getResultNumber()) >= 0)
        for (Operation *user : r.getUsers()) {
          auto producer = dyn_cast<NameLoc>(op->getLoc());
          emitError(user->getLoc())
              << "reads a result of node '"
              << (producer ? producer.getName().str() : op->getName().getStringRef().str())
              << "', whose shape depends on the "
              << "data; such values are supported only as graph outputs (run-time shapes "
              << "inside a model are not supported)";
          return WalkResult::interrupt();
        }
    return WalkResult::advance();
  });
  if (dynamicUse.wasInterrupted())
    return nullptr;

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
  return importer.run(model);
}

std::vector<std::string> supportedOnnxOps(MLIRContext &ctx) {
  ctx.loadDialect<onnx::ONNXDialect>();
  std::vector<std::string> ops;
  for (RegisteredOperationName name : ctx.getRegisteredOperations())
    if (name.getDialectNamespace() == "onnx" && isOnnxOperator(name.stripDialect(), ctx))
      ops.push_back(name.stripDialect().str());
  for (const std::string &op : opsExpandedAtImport())
    ops.push_back(op);
  for (const char *op : kStaticOps)
    ops.push_back(op);
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  // ONNX Runtime's operators, by their domain.
  for (const std::string &op : contribOpNameList())
    ops.push_back("com.microsoft." + op);
  return ops;
}

} // namespace onnxc
