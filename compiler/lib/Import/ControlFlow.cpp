//===- ControlFlow.cpp - If, Loop and Scan: at import, or with regions -----===//
#include "GraphImporter.h"
#include "OnnxSchema.h"
#include "TensorProto.h"
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;

namespace onnxc {

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

} // namespace onnxc
