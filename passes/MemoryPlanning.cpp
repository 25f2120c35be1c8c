//===- MemoryPlanning.cpp - onnxc-memory-planning --------------------------===//
#include "onnxc/Lowering/KernelProvider.h"
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/OpFacts.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"
#include "onnxc/Passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace onnxc {
#define GEN_PASS_DEF_MEMORYPLANNINGPASS
#include "onnxc/Passes/Passes.h.inc"

namespace {

constexpr int64_t kAlign = 64;
int64_t alignUp(int64_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

int64_t bytesOf(Value v) {
  auto t = cast<ShapedType>(v.getType());
  return t.getNumElements() * elementByteSize(t.getElementType());
}

/// One buffer of the plan: a group of values sharing bytes.
struct Buffer {
  int64_t size = 0;
  int64_t def = 0, lastUse = 0; // op indices
  bool external = false;        // graph input or weights: not in the arena
  int64_t output = -1;          // written straight into graph output k
  int64_t offset = kNotInArena;
  int parent = -1;              // union-find: merged into another buffer
  int64_t at = 0;               // where in the parent's bytes (a Concat's part)
};

class Planner {
public:
  explicit Planner(func::FuncOp func) : func(func) {}
  LogicalResult run();

private:
  int find(int b) {
    while (buffers[b].parent >= 0)
      b = buffers[b].parent;
    return b;
  }
  int bufferOf(Value v) { return find(valueBuffer.lookup(v)); }
  /// Bytes into the arena: the root's offset plus each part's place in its parent.
  int64_t offsetOf(int b) {
    int64_t at = 0;
    for (; buffers[b].parent >= 0; b = buffers[b].parent)
      at += buffers[b].at;
    return buffers[b].offset + at;
  }
  /// Buffer b becomes bytes [at, at + size) of buffer `into`, which then lives
  /// as long as either did.
  void merge(int b, int into, int64_t at) {
    buffers[b].parent = into;
    buffers[b].at = at;
    Buffer &o = buffers[into];
    o.def = std::min(o.def, buffers[b].def);
    o.lastUse = std::max(o.lastUse, buffers[b].lastUse);
  }
  bool concatInPlace(onnx::ConcatOp cat);
  int newBuffer(Value v, int64_t def, bool external) {
    Buffer b;
    b.size = external ? 0 : bytesOf(v);
    b.def = b.lastUse = def;
    b.external = external;
    buffers.push_back(b);
    valueBuffer[v] = buffers.size() - 1;
    return buffers.size() - 1;
  }
  void pack();

  func::FuncOp func;
  std::vector<Buffer> buffers;
  llvm::DenseMap<Value, int> valueBuffer;
};

LogicalResult Planner::run() {
  Block &body = func.getBody().front();
  for (BlockArgument a : body.getArguments())
    newBuffer(a, -1, /*external=*/true);

  // 1. Buffers per result; views join their operand's buffer.
  SmallVector<Operation *> ops;
  std::vector<int64_t> scratch;
  std::vector<bool> scratchKept; // text results point into: live to the end
  for (Operation &op : body) {
    int64_t idx = ops.size();
    ops.push_back(&op);
    if (isa<func::ReturnOp>(op))
      continue;
    if (isa<onnx::ConstantOp>(op)) {
      newBuffer(op.getResult(0), idx, /*external=*/true);
      continue;
    }
    if (isa<onnx::NoValueOp>(op))
      continue;
    auto lowering = lowerToKernelCalls(&op);
    if (failed(lowering))
      return failure();
    int64_t scratchBytes = 0;
    bool kept = false;
    for (const KernelCall &c : lowering->calls) {
      scratchBytes = std::max(scratchBytes, c.scratchBytes());
      kept |= c.persistentScratch();
    }
    scratch.push_back(scratchBytes);
    scratchKept.push_back(kept);
    if (lowering->kind == OpLowering::Kind::Alias) {
      valueBuffer[op.getResult(0)] = bufferOf(op.getOperand(0));
      for (unsigned i = 1; i < op.getNumResults(); ++i)
        if (!onnx::isNone(op.getResult(i)))
          newBuffer(op.getResult(i), idx, false);
      continue;
    }
    for (Value r : op.getResults())
      if (!onnx::isNone(r))
        newBuffer(r, idx, false);
  }

  // 2. Graph outputs: the producing op writes into the caller's buffer when
  // the output's buffer is the op's own (not an input, weight or another
  // output's); otherwise the emitter copies.
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (auto [k, v] : llvm::enumerate(ret.getOperands())) {
    Buffer &b = buffers[bufferOf(v)];
    if (!b.external && b.output < 0 && b.size == bytesOf(v))
      b.output = k;
  }

  // 3. Live ranges.
  for (auto [idx, op] : llvm::enumerate(ops))
    for (Value v : op->getOperands())
      if (!onnx::isNone(v) && valueBuffer.count(v)) {
        Buffer &b = buffers[bufferOf(v)];
        b.lastUse = std::max<int64_t>(b.lastUse, idx);
      }

  // 4. Concats in place: each operand is produced straight into its part of
  // the result, and the Concat copies nothing (onnxc.in_place). Not in a
  // bounded-dims probe, whose parts would move with the sizes.
  if (!onnx::inBoundedProbe(func))
    for (Operation *op : ops)
      if (auto cat = dyn_cast<onnx::ConcatOp>(op); cat && concatInPlace(cat))
        cat->setAttr(kInPlaceAttr, UnitAttr::get(func.getContext()));

  // 5. In place: a result takes over an operand's buffer that dies at its op.
  for (auto [idx, op] : llvm::enumerate(ops)) {
    if (op->getNumResults() != 1 || onnx::isNone(op->getResult(0)) ||
        onnx::isAliasOp(op) || !valueBuffer.count(op->getResult(0)))
      continue;
    int rb = bufferOf(op->getResult(0));
    if (buffers[rb].output >= 0 || buffers[rb].external)
      continue;
    for (auto [i, v] : llvm::enumerate(op->getOperands())) {
      if (onnx::isNone(v) || !onnx::canRunInPlace(op, i) || !valueBuffer.count(v))
        continue;
      int ob = bufferOf(v);
      Buffer &o = buffers[ob];
      if (o.external || o.output >= 0 || o.lastUse != (int64_t)idx ||
          o.size != buffers[rb].size ||
          cast<ShapedType>(v.getType()).getShape() !=
              cast<ShapedType>(op->getResult(0).getType()).getShape())
        continue;
      merge(rb, ob, 0);
      break;
    }
  }

  // 6. Scratch buffers live only during their op, text to the end.
  std::vector<int> scratchBuffer(ops.size(), -1);
  {
    size_t s = 0;
    for (auto [idx, op] : llvm::enumerate(ops)) {
      if (isa<func::ReturnOp, onnx::ConstantOp, onnx::NoValueOp>(op))
        continue;
      if (scratch[s] > 0) {
        Buffer b;
        b.size = scratch[s];
        b.def = b.lastUse = idx;
        if (scratchKept[s])
          b.lastUse = ops.size();
        buffers.push_back(b);
        scratchBuffer[idx] = buffers.size() - 1;
      }
      ++s;
    }
  }

  pack();

  // 7. Record the plan.
  Builder builder(func.getContext());
  int64_t arena = 0, naive = 0;
  for (Buffer &b : buffers)
    if (b.parent < 0 && !b.external && b.output < 0)
      arena = std::max(arena, b.offset + alignUp(b.size));
  for (auto [idx, op] : llvm::enumerate(ops)) {
    if (isa<func::ReturnOp, onnx::ConstantOp, onnx::NoValueOp>(op))
      continue;
    SmallVector<int64_t> offsets;
    for (Value r : op->getResults()) {
      if (onnx::isNone(r) || (onnx::isAliasOp(op) && r == op->getResult(0))) {
        offsets.push_back(kNotInArena);
        continue;
      }
      const Buffer &b = buffers[bufferOf(r)];
      naive += alignUp(bytesOf(r));
      offsets.push_back(b.external || b.output >= 0 ? kNotInArena
                                                     : offsetOf(valueBuffer.lookup(r)));
    }
    op->setAttr(kOffsetAttr, builder.getDenseI64ArrayAttr(offsets));
    if (scratchBuffer[idx] >= 0) {
      op->setAttr(kScratchOffsetAttr,
                  builder.getI64IntegerAttr(buffers[scratchBuffer[idx]].offset));
      naive += alignUp(buffers[scratchBuffer[idx]].size);
    }
  }
  func->setAttr(kArenaSizeAttr, builder.getI64IntegerAttr(arena));
  func->setAttr(kNaiveSizeAttr, builder.getI64IntegerAttr(naive));
  return success();
}

/// Whether `cat`'s operands can be its result's parts: the result's bytes
/// hold them one after another (nothing outside the axis but 1s, as a
/// batch-1 channel Concat in NCHW or in blocks), each operand's buffer is
/// the arena's and its own (not a graph input, weight or output; no other
/// operand's; not part of another Concat), and each part starts 64-byte
/// aligned, as kernels' outputs do. If so, merges them into the result's
/// buffer. Elementwise ops then do not run in place into a part (sizes
/// differ), so a part holds its value until the Concat's result dies.
bool Planner::concatInPlace(onnx::ConcatOp cat) {
  Value result = cat.getResult();
  auto shape = cast<ShapedType>(result.getType()).getShape();
  int64_t axis = cat.getAxis();
  if (axis < 0)
    axis += shape.size();
  if (llvm::any_of(shape.take_front(axis), [](int64_t d) { return d != 1; }) ||
      !valueBuffer.count(result))
    return false;
  const int whole = bufferOf(result);
  if (buffers[whole].external || buffers[whole].output >= 0)
    return false;
  SmallVector<std::pair<int, int64_t>> parts;
  int64_t at = 0;
  for (Value in : cat.getInputs()) {
    const int64_t bytes = bytesOf(in);
    if (bytes == 0)
      continue;
    if (!valueBuffer.count(in) || bytes % kAlign)
      return false;
    const int b = bufferOf(in);
    const Buffer &p = buffers[b];
    if (p.external || p.output >= 0 || p.size != bytes || b == whole ||
        llvm::any_of(parts, [&](auto part) { return part.first == b; }))
      return false;
    parts.push_back({b, at});
    at += bytes;
  }
  if (parts.empty())
    return false;
  for (auto [b, offset] : parts)
    merge(b, whole, offset);
  return true;
}

/// Greedy by size (largest first, then earliest): each buffer goes to the
/// lowest aligned offset that does not overlap a placed buffer whose live
/// range intersects its own.
void Planner::pack() {
  std::vector<int> order;
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].parent < 0 && !buffers[i].external && buffers[i].output < 0)
      order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (buffers[a].size != buffers[b].size)
      return buffers[a].size > buffers[b].size;
    return buffers[a].def < buffers[b].def;
  });
  std::vector<int> placed;
  for (int i : order) {
    Buffer &b = buffers[i];
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (int j : placed) {
      const Buffer &o = buffers[j];
      if (o.def <= b.lastUse && b.def <= o.lastUse)
        busy.push_back({o.offset, o.offset + alignUp(o.size)});
    }
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (auto [lo, hi] : busy) {
      if (offset + alignUp(b.size) <= lo)
        break;
      offset = std::max(offset, hi);
    }
    b.offset = offset;
    placed.push_back(i);
  }
}

struct MemoryPlanning : impl::MemoryPlanningPassBase<MemoryPlanning> {
  void runOnOperation() override {
    if (failed(Planner(getOperation()).run()))
      signalPassFailure();
  }
};
} // namespace
} // namespace onnxc
