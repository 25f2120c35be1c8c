//===- ExpandControlFlow.cpp - onnxc-expand-control-flow -------------------===//
#include "onnxc/Passes/PassUtils.h"
#include "onnxc/Dialect/ONNX/NodeNames.h"
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>

using namespace mlir;
using namespace onnxc::onnx;

namespace onnxc {
#define GEN_PASS_DEF_EXPANDCONTROLFLOWPASS
#include "onnxc/Passes/Passes.h.inc"

namespace {

/// Clones `region`'s single block before the builder's insertion point with
/// its arguments mapped to `args`; returns the values it yields.
SmallVector<Value> inlineBody(OpBuilder &b, Region &region, ValueRange args) {
  Block &block = region.front();
  IRMapping map;
  for (auto [arg, v] : llvm::zip(block.getArguments(), args))
    map.map(arg, v);
  for (Operation &op : block.without_terminator())
    b.clone(op, map);
  SmallVector<Value> out;
  for (Value v : block.getTerminator()->getOperands())
    out.push_back(map.lookupOrDefault(v));
  return out;
}

Value constantI64(OpBuilder &b, Location loc, ArrayRef<int64_t> v, bool scalar) {
  auto type = RankedTensorType::get(scalar ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{(int64_t)v.size()},
                                    b.getI64Type());
  auto attr = DenseElementsAttr::get(type, v);
  return b.create<ConstantOp>(loc, type, attr);
}

/// Stacks per-iteration slices along `axis` (reversed when `reverse`).
FailureOr<Value> stack(OpBuilder &b, Location loc, SmallVector<Value> slices, int64_t axis,
                       bool reverse) {
  if (reverse)
    std::reverse(slices.begin(), slices.end());
  int64_t rank = cast<RankedTensorType>(slices.front().getType()).getRank();
  if (axis < 0)
    axis += rank + 1;
  Value axes = constantI64(b, loc, {axis}, false);
  SmallVector<Value> expanded;
  for (Value s : slices) {
    auto u = buildOnnxOp(b, loc, "Unsqueeze", {s, axes});
    if (failed(u))
      return failure();
    expanded.push_back(*u);
  }
  if (expanded.size() == 1)
    return expanded.front();
  return buildOnnxOp(b, loc, "Concat", expanded, {b.getNamedAttr("axis", b.getI64IntegerAttr(axis))});
}

/// Replaces an unrolled Loop/Scan: its carried values, then each scan
/// output's per-iteration slices stacked along axes[k] (reversed where asked).
LogicalResult replaceUnrolled(Operation *op, OpBuilder &b, SmallVector<Value> results,
                              ArrayRef<SmallVector<Value>> slices, ArrayRef<int64_t> axes,
                              ArrayRef<bool> reverse) {
  for (auto [k, s] : llvm::enumerate(slices)) {
    auto st = stack(b, op->getLoc(), s, axes[k], reverse[k]);
    if (failed(st))
      return failure();
    results.push_back(*st);
  }
  op->replaceAllUsesWith(results);
  op->erase();
  return success();
}

std::optional<bool> constantBool(Value v) {
  ElementsAttr e = getConstantElements(v);
  if (!e || e.getNumElements() != 1)
    return std::nullopt;
  if (e.getElementType().isInteger(1))
    return *e.getValues<bool>().begin();
  if (isa<IntegerType>(e.getElementType()))
    return (*e.getValues<APInt>().begin()).getSExtValue() != 0;
  return std::nullopt;
}

/// The node name an op was imported with ("" when it has none).
std::string nodeName(Operation *op) { return nodeNameOf(op->getLoc()); }

/// The graph inputs `v` is computed from, by their ONNX names.
SmallVector<std::string> graphInputsOf(Value v, func::FuncOp func) {
  SmallVector<std::string> names;
  SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      if (arg.getOwner()->getParentOp() == func.getOperation())
        if (auto n = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "onnx.name"))
          names.push_back(n.str());
      continue;
    }
    Operation *def = x.getDefiningOp();
    for (Value operand : def->getOperands())
      work.push_back(operand);
    // Values captured from outside the regions of nested ops count as well.
    def->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (!def->isProperAncestor(operand.getParentRegion()->getParentOp()) &&
            operand.getParentRegion()->getParentOp() != def)
          work.push_back(operand);
    });
  }
  llvm::sort(names);
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

/// What to do about a run-time If the user may mean to fix: "; its condition
/// depends on input 'sr': ..." naming the graph inputs it reads ("" if none).
std::string bindAdvice(IfOp op, func::FuncOp func) {
  SmallVector<std::string> inputs = graphInputsOf(op.getCond(), func);
  if (inputs.empty())
    return "";
  return "; its condition depends on input '" + llvm::join(inputs, "', '") +
         "': fix it at compile time (--bind " + inputs.front() +
         "=FILE) and onnxc compiles only the branch it selects";
}

/// Inlines the branch an If with a constant condition takes; records it as
/// "NODE:then" or "NODE:else" in `taken`. Returns false (and changes
/// nothing) when the condition is not a constant.
bool specialiseIf(IfOp op, SmallVector<Attribute> &taken) {
  auto c = constantBool(op.getCond());
  if (!c)
    return false;
  OpBuilder b(op);
  taken.push_back(b.getStringAttr(nodeName(op) + (*c ? ":then" : ":else")));
  SmallVector<Value> out = inlineBody(b, *c ? op.getThenBranch() : op.getElseBranch(), {});
  op.replaceAllUsesWith(out);
  op.erase();
  return true;
}

/// An If whose condition is known only at run time: both branches are
/// inlined before it (ONNX ops have no side effects), so the control flow
/// nested in them is expanded like any other, and the If is left yielding
/// their results: a select, which `selectWithWhere` finishes once everything
/// is expanded and the branch types are known.
void inlineBothBranches(IfOp op) {
  OpBuilder b(op);
  for (Region *r : {&op.getThenBranch(), &op.getElseBranch()}) {
    SmallVector<Value> out = inlineBody(b, *r, {});
    r->dropAllReferences();
    r->getBlocks().clear();
    Block *block = new Block();
    r->push_back(block);
    OpBuilder::atBlockEnd(block).create<YieldOp>(op.getLoc(), out);
  }
}

/// A select between an empty tensor (size 0 along one dim) and another of
/// the same shape elsewhere (torchvision's `if boxes.numel() == 0: return
/// empty`): the other with its rows along that dim cut to 0 or kept, a
/// Slice whose end the condition picks at run time (its size is then one
/// the data decides: onnxc-data-dependent-dims). Null when not that case.
FailureOr<Value> emptyOrOther(OpBuilder &b, IfOp op, Value tv, Value ev) {
  auto tt = dyn_cast<RankedTensorType>(tv.getType());
  auto et = dyn_cast<RankedTensorType>(ev.getType());
  if (!tt || !et || !tt.hasStaticShape() || !et.hasStaticShape() || tt == et ||
      tt.getRank() != et.getRank() || tt.getElementType() != et.getElementType())
    return Value();
  int64_t dim = -1;
  for (int64_t d = 0; d < tt.getRank(); ++d)
    if (tt.getDimSize(d) != et.getDimSize(d)) {
      if (dim >= 0)
        return Value();
      dim = d;
    }
  bool thenEmpty = tt.getDimSize(dim) == 0;
  if (!thenEmpty && et.getDimSize(dim) != 0)
    return Value();
  Location loc = op.getLoc();
  int64_t all = std::numeric_limits<int64_t>::max();
  Value zero = constantI64(b, loc, {0}, false), keep = constantI64(b, loc, {all}, false);
  auto end = buildOnnxOp(b, loc, "Where",
                         {op.getCond(), thenEmpty ? zero : keep, thenEmpty ? keep : zero});
  if (failed(end))
    return failure();
  Value none = b.create<NoValueOp>(loc, b.getNoneType());
  return buildOnnxOp(b, loc, "Slice",
                     {thenEmpty ? ev : tv, zero, *end, constantI64(b, loc, {dim}, false), none});
}

/// Each output of a select left by `inlineBothBranches` becomes
/// Where(cond, then, else); both branches must give it the same type.
LogicalResult selectWithWhere(IfOp op, func::FuncOp func) {
  OpBuilder b(op);
  auto t = op.getThenBranch().front().getTerminator()->getOperands();
  auto e = op.getElseBranch().front().getTerminator()->getOperands();
  SmallVector<Value> out;
  for (auto [tv, ev] : llvm::zip(t, e)) {
    if (auto cut = emptyOrOther(b, op, tv, ev); failed(cut)) {
      return failure();
    } else if (*cut) {
      out.push_back(*cut);
      continue;
    }
    if (tv.getType() != ev.getType() || !isa<RankedTensorType>(tv.getType()))
      return op.emitError() << "If with a run-time condition and branches of different types ("
                            << tv.getType() << " vs " << ev.getType() << ") is not supported"
                            << bindAdvice(op, func);
    auto w = buildOnnxOp(b, op.getLoc(), "Where", {op.getCond(), tv, ev});
    if (failed(w))
      return failure();
    out.push_back(*w);
  }
  op.replaceAllUsesWith(out);
  op.erase();
  return success();
}

LogicalResult expandLoop(LoopOp op, int64_t maxIterations) {
  auto m = getConstantInts(op.getM());
  std::optional<bool> cond = isNone(op.getCond()) ? std::optional<bool>(true)
                                                  : constantBool(op.getCond());
  if ((!isNone(op.getM()) && (!m || m->size() != 1)) || (isNone(op.getM()) && !cond))
    return op.emitError("Loop with a trip count known only at run time is not supported");
  if (!cond)
    return op.emitError("Loop with a condition known only at run time is not supported");
  // The body must pass the condition through: then the trip count is M.
  Block &body = op.getBody().front();
  Value condOut = body.getTerminator()->getOperand(0);
  while (auto id = condOut.getDefiningOp<IdentityOp>())
    condOut = id.getX();
  if (condOut != body.getArgument(1) && !constantBool(condOut).value_or(false))
    return op.emitError("Loop whose body computes its exit condition is not supported");
  if (isNone(op.getM()))
    return op.emitError("Loop without a trip count (exit by condition only) is not supported");
  int64_t trips = *cond ? (*m)[0] : 0;
  if (trips > maxIterations)
    return op.emitError() << "Loop of " << trips << " iterations is above the unroll limit ("
                          << maxIterations << "): not supported";
  size_t nv = op.getVInitial().size();
  size_t nScan = op.getNumResults() - nv;
  if (trips == 0 && nScan > 0)
    return op.emitError("Loop with zero iterations and scan outputs is not supported");
  OpBuilder b(op);
  SmallVector<Value> carried(op.getVInitial().begin(), op.getVInitial().end());
  SmallVector<SmallVector<Value>> scans(nScan);
  Value condValue = isNone(op.getCond()) ? Value() : op.getCond();
  for (int64_t i = 0; i < trips; ++i) {
    SmallVector<Value> args{constantI64(b, op.getLoc(), {i}, true)};
    if (!condValue) {
      auto t = RankedTensorType::get({}, b.getI1Type());
      condValue = b.create<ConstantOp>(op.getLoc(), t, DenseElementsAttr::get(t, true));
    }
    args.push_back(condValue);
    args.append(carried.begin(), carried.end());
    SmallVector<Value> out = inlineBody(b, op.getBody(), args);
    carried.assign(out.begin() + 1, out.begin() + 1 + nv);
    for (size_t k = 0; k < nScan; ++k)
      scans[k].push_back(out[1 + nv + k]);
  }
  return replaceUnrolled(op, b, carried, scans, SmallVector<int64_t>(nScan, 0),
                         SmallVector<bool>(nScan, false));
}

LogicalResult expandScan(ScanOp op, int64_t maxIterations) {
  int64_t nScan = op.getNumScanInputs();
  auto operands = op.getInitialStateAndScanInputs();
  int64_t nState = operands.size() - nScan;
  auto attr = [](std::optional<ArrayRef<int64_t>> a, int64_t i) {
    return a && i < (int64_t)a->size() ? (*a)[i] : 0;
  };
  int64_t len = -1;
  SmallVector<int64_t> axes;
  for (int64_t k = 0; k < nScan; ++k) {
    auto t = dyn_cast<RankedTensorType>(operands[nState + k].getType());
    if (!t || !t.hasStaticShape())
      return op.emitError("Scan over an input of unknown shape is not supported");
    int64_t axis = attr(op.getScanInputAxes(), k);
    if (axis < 0)
      axis += t.getRank();
    axes.push_back(axis);
    if (len >= 0 && t.getDimSize(axis) != len)
      return op.emitError("Scan inputs differ in length");
    len = t.getDimSize(axis);
  }
  if (len < 1)
    return op.emitError("Scan of zero length is not supported");
  if (len > maxIterations)
    return op.emitError() << "Scan of " << len << " iterations is above the unroll limit: not supported";
  OpBuilder b(op);
  SmallVector<Value> state(operands.begin(), operands.begin() + nState);
  int64_t nOut = op.getNumResults() - nState;
  SmallVector<SmallVector<Value>> outs(nOut);
  for (int64_t t = 0; t < len; ++t) {
    SmallVector<Value> args(state);
    for (int64_t k = 0; k < nScan; ++k) {
      int64_t pos = attr(op.getScanInputDirections(), k) ? len - 1 - t : t;
      auto slice = buildOnnxOp(b, op.getLoc(), "Gather",
                         {operands[nState + k], constantI64(b, op.getLoc(), {pos}, true)},
                         {b.getNamedAttr("axis", b.getI64IntegerAttr(axes[k]))});
      if (failed(slice))
        return failure();
      args.push_back(*slice);
    }
    SmallVector<Value> out = inlineBody(b, op.getBody(), args);
    state.assign(out.begin(), out.begin() + nState);
    for (int64_t k = 0; k < nOut; ++k)
      outs[k].push_back(out[nState + k]);
  }
  SmallVector<int64_t> outAxes;
  SmallVector<bool> outReverse;
  for (int64_t k = 0; k < nOut; ++k) {
    outAxes.push_back(attr(op.getScanOutputAxes(), k));
    outReverse.push_back(attr(op.getScanOutputDirections(), k) != 0);
  }
  return replaceUnrolled(op, b, state, outs, outAxes, outReverse);
}

struct ExpandControlFlow : impl::ExpandControlFlowPassBase<ExpandControlFlow> {
  using Base::Base;

  /// Re-infers types and folds constants: an inlined branch makes the shapes
  /// in it static, which folds the conditions and trip counts of the control
  /// flow nested in it (exporters test shapes: `if x.shape[0] == 1`).
  LogicalResult refold() {
    OpPassManager pm(func::FuncOp::getOperationName());
    pm.addPass(createShapeInferencePass());
    pm.addPass(createConstantFoldingPass());
    return runPipeline(pm, getOperation());
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<Attribute> taken;
    llvm::SmallPtrSet<Operation *, 4> selects; // run-time Ifs, branches inlined
    // Outermost first; nested control flow is expanded when its copy lands in
    // the function body. Ifs with a constant condition go first, and the code
    // is refolded before anything else is expanded, so that a condition that
    // folds once its enclosing branch is inlined is never taken for a
    // run-time one.
    for (;;) {
      SmallVector<Operation *> ops;
      for (Operation &op : func.getBody().front())
        if (isa<IfOp, LoopOp, ScanOp>(op) && !selects.contains(&op))
          ops.push_back(&op);
      if (ops.empty())
        break;
      bool specialised = false;
      for (Operation *op : ops)
        if (auto i = dyn_cast<IfOp>(op))
          specialised |= specialiseIf(i, taken);
      if (!specialised) {
        for (Operation *op : ops) {
          LogicalResult r = success();
          if (auto i = dyn_cast<IfOp>(op)) {
            inlineBothBranches(i);
            selects.insert(op);
          } else if (auto l = dyn_cast<LoopOp>(op)) {
            r = expandLoop(l, maxIterations);
          } else {
            r = expandScan(cast<ScanOp>(op), maxIterations);
          }
          if (failed(r))
            return signalPassFailure();
        }
      }
      if (failed(refold())) {
        // The failure may lie in a branch the model never takes with the
        // inputs it is meant for (a sample-rate switch, say).
        for (Operation *op : selects)
          emitRemark(op->getLoc())
              << "both branches of this If are compiled, as its condition is known only at "
                 "run time"
              << bindAdvice(cast<IfOp>(op), func);
        return signalPassFailure();
      }
    }
    SmallVector<Attribute> both;
    for (Operation *op : selects) {
      both.push_back(StringAttr::get(func.getContext(), nodeName(op)));
      if (failed(selectWithWhere(cast<IfOp>(op), func)))
        return signalPassFailure();
    }
    if (!both.empty())
      func->setAttr(kRunTimeIfsAttr, ArrayAttr::get(func.getContext(), both));
    if (!taken.empty())
      func->setAttr(kSpecialisedIfsAttr, ArrayAttr::get(func.getContext(), taken));
    updateFunctionResultTypes(func);
  }
};
} // namespace
} // namespace onnxc
