//===- LayoutSelection.cpp - onnxc-layout-selection -------------------------===//
//
// The SIMD targets' own graph pass (SimdTarget::addPasses, before kernel
// selection): puts the convolution regions of a model into the
// channel-blocked layout NCHW16c of the simd dialect (SimdOps.td):
// convolutions the target's blocked kernels run become simd.BlockedConv,
// and pools, elementwise ops and channel Concats whose operands are blocked
// follow them; conversions are placed only at the region's edges, one per
// value. The target's LayoutPolicy says which convolutions block and which
// run as Winograd.
//
// In program order:
// - every 2-D float convolution with constant weights, dense (as many taps
//   as LayoutPolicy::blocksDenseConv takes) or depthwise, becomes
//   simd.BlockedConv; a dense one reads an NCHW input as it is (a model's
//   first convolution), a depthwise one needs it blocked;
// - MaxPool, AveragePool (over in-bounds taps) and GlobalAveragePool of a
//   blocked value become simd.BlockedPool, a ReduceMean over its spatial
//   axes too (a GlobalAveragePool, then a Reshape without keepdims);
// - lane-wise ops (the LaneWise fact: finite in, finite out, so the padding
//   lanes stay harmless) with a blocked operand, and channel Concats of
//   whole blocks, run on the blocked values: per-channel operands are
//   converted (constants now), operands broadcast over the channels get a
//   trailing unit dim (a view);
// - a channel Slice or Split of a blocked value, and a channel shuffle (Concat of
//   one or two values, Reshape, Transpose (0, 2, 1, 3, 4), Reshape:
//   ShuffleNet's) or a channel Concat of one or two values of other than
//   whole blocks, with a blocked operand, become simd.BlockedChannelGather,
//   a Slice of a gather's result gathering from that gather's inputs.
// Values that leave a region are converted back once (simd.FromBlocked)
// right after their definition. A blocked convolution the target prefers as
// Winograd F(4x4, 3x3) or F(2x2, 3x3) (LayoutPolicy::winogradTile, which
// reads the target's `winograd` option: --no-winograd) gets algorithm
// winograd or winograd_f2.
// Last, each inverted-residual block's pointwise expand BlockedConv whose
// only reader is a depthwise BlockedConv fuses with it into
// simd.BlockedExpandDepthwise, and that (or a depthwise BlockedConv: a
// block without an expand) with the pointwise project BlockedConv that is
// its only reader into simd.BlockedInvertedResidual (blocks without
// squeeze-and-excite), and a squeeze-and-excite block's channel
// scale (a Mul by one value per channel) folds into the pointwise project
// BlockedConv that reads it, simd.BlockedScaledConv, where scaling the
// weights is less work than the Mul (the target's `block-fusion` option:
// --no-block-fusion; not under --precision bf16, whose convolutions run on
// AMX).
//
//===----------------------------------------------------------------------===//
#include "ChannelMoves.h"
#include "SimdDialect.h"
#include "SimdTarget.h"

#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Lowering/Target.h"
#include "onnxc/Passes/PassUtils.h"

#include "onnxc_rt/kernels/reference/tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace onnxc::onnx;

namespace onnxc::simd {
namespace {

int64_t groupOf(Operation *op) {
  auto g = op->getAttrOfType<IntegerAttr>("group");
  return g ? g.getInt() : 1;
}

bool isWindow2d(Operation *op) {
  auto k = op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape");
  return !k || k.size() == 2;
}

/// A convolution the target's blocked kernels run: 2-D float with constant
/// weights, dense (group 1, as many taps as the target takes) or depthwise.
bool isBlockableConv(Operation *op, const LayoutPolicy &layout) {
  if (!isa<ConvOp, FusedConvOp>(op))
    return false;
  Value x = op->getOperand(0), w = op->getOperand(1);
  auto xt = staticF32(x, 4), wt = staticF32(w, 4);
  if (!xt || !wt || !staticF32(op->getResult(0), 4) || !getConstantElements(w))
    return false;
  const int64_t group = groupOf(op);
  const int64_t taps = wt.getDimSize(2) * wt.getDimSize(3);
  if (group == 1)
    return layout.blocksDenseConv(taps);
  return wt.getDimSize(1) == 1 && group == xt.getDimSize(1) && group == wt.getDimSize(0);
}

/// A pool the blocked kernels run, given a blocked input.
bool isBlockablePool(Operation *op) {
  if (!isa<MaxPoolOp, AveragePoolOp, GlobalAveragePoolOp>(op) || !staticF32(op->getOperand(0), 4))
    return false;
  if (auto mp = dyn_cast<MaxPoolOp>(op))
    return isNone(mp.getIndices()) && isWindow2d(op) && mp.getStorageOrder() == 0;
  if (auto ap = dyn_cast<AveragePoolOp>(op)) {
    // The blocked mean divides by the in-bounds taps: count_include_pad 0,
    // or a window that never leaves the input.
    auto pads = ap.getPads();
    const bool no_pads = (!pads || llvm::all_of(*pads, [](int64_t p) { return p == 0; })) &&
                         (ap.getAutoPad() == "NOTSET" || ap.getAutoPad() == "VALID") &&
                         !ap.getCeilMode();
    return isWindow2d(op) && (ap.getCountIncludePad() == 0 || no_pads);
  }
  return true;
}

/// Elementwise ops that keep each channel in its lane and map finite
/// values to finite ones (so the padding lanes stay harmless).
bool isLaneWise(Operation *op) {
  return op->hasTrait<LaneWise>() && staticF32(op->getResult(0), 4);
}

/// Concat of channels whose inputs fill whole blocks of `block` lanes.
bool isBlockConcat(Operation *op, int64_t block) {
  auto cat = dyn_cast<ConcatOp>(op);
  if (!cat || !staticF32(cat.getResult(), 4) || !isChannelAxis(cat.getAxis()))
    return false;
  return llvm::all_of(cat.getInputs(), [&](Value v) {
    auto t = staticF32(v, 4);
    return t && t.getDimSize(1) % block == 0;
  });
}

struct LayoutSelection : PassWrapper<LayoutSelection, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LayoutSelection)
  StringRef getArgument() const override { return "onnxc-layout-selection"; }
  StringRef getDescription() const override {
    return "Run convolution regions in the channel-blocked layout where the target asks "
           "(the SIMD targets)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<SimdDialect>();
  }

  DenseMap<Value, Value> blockedOf; // NCHW value -> its blocked form
  DenseSet<Operation *> rewritten;  // ops replaced by blocked ones
  const Target *target = nullptr;       // the module's target
  const LayoutPolicy *layout = nullptr; // its layout policy
  onnx::TargetAttr targetAttr;          // the module's #onnx.target
  int64_t kBlock = 0;                   // its channel block

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    target = targetOf(func);
    layout = target ? target->layout() : nullptr;
    kBlock = layout ? layout->channelBlock() : 0;
    if (!kBlock)
      return;
    targetAttr = targetAttrOf(func);
    Block &body = func.getBody().front();
    // Decide in program order: convolutions start regions, the rest joins a
    // region when an operand is in one.
    auto blockedOperand = [&](Operation *op) {
      return llvm::any_of(op->getOperands(), [&](Value v) { return blockedOf.count(v); });
    };
    for (Operation &each : llvm::make_early_inc_range(body)) {
      Operation *op = &each;
      if (rewritten.count(op)) // taken with an earlier op (a channel shuffle's chain)
        continue;
      // A spatial mean of a blocked value is its GlobalAveragePool.
      if (auto mean = dyn_cast<ReduceMeanOp>(op); mean && blockedOf.count(mean.getData()))
        if (Operation *pool = meanAsGlobalPool(mean))
          op = pool;
      Value blocked;
      if (auto cat = dyn_cast<ConcatOp>(op); cat && blockedOperand(op) && gatherShuffle(cat))
        continue;
      if (auto split = dyn_cast<SplitOp>(op); split && blockedOperand(op)) {
        if (gatherChannelSplit(split))
          rewritten.insert(op);
        continue;
      }
      if (isBlockableConv(op, *layout))
        blocked = rewriteConv(op);
      else if (isBlockablePool(op) && blockedOf.count(op->getOperand(0)))
        blocked = rewritePool(op);
      else if ((isLaneWise(op) || isBlockConcat(op, kBlock)) && blockedOperand(op))
        blocked = rewriteLaneWise(op);
      else if (auto slice = dyn_cast<SliceOp>(op); slice && blockedOf.count(slice.getData()))
        blocked = gatherChannelSlice(slice);
      else if (auto cat = dyn_cast<ConcatOp>(op); cat && blockedOperand(op))
        blocked = gatherConcat(cat);
      if (!blocked)
        continue;
      blockedOf[op->getResult(0)] = blocked;
      rewritten.insert(op);
    }
    // The region's edges: the users left outside read the NCHW form, one
    // conversion per value, placed right after its blocked definition.
    for (Operation &op : body) {
      if (!rewritten.count(&op))
        continue;
      for (Value old : op.getResults()) { // a Split's every result
        if (llvm::all_of(old.getUsers(), [&](Operation *u) { return rewritten.count(u); }))
          continue;
        Value blocked = blockedOf[old];
        OpBuilder b(blocked.getContext());
        b.setInsertionPointAfterValue(blocked);
        auto back = b.create<FromBlockedOp>(op.getLoc(), old.getType(), blocked,
                                            cast<ShapedType>(old.getType()).getDimSize(1));
        old.replaceUsesWithIf(back.getY(), [&](OpOperand &use) {
          return !rewritten.count(use.getOwner());
        });
      }
    }
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (rewritten.count(&op))
        op.erase();
    // Gathers whose every reader gathered from their inputs instead (a
    // shuffle's result, read by the two Slices of the next unit).
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (isa<BlockedChannelGatherOp>(op) && op.use_empty())
        op.erase();
    blockedOf.clear();
    rewritten.clear();
    if (target->optionValue(targetAttr, "block-fusion") == "true" &&
        target->optionValue(targetAttr, "precision") != "bf16")
      for (Operation &op : llvm::make_early_inc_range(body))
        if (auto conv = dyn_cast<BlockedConvOp>(&op)) {
          if (!foldChannelScale(conv) && !fuseExpandDepthwise(conv))
            fuseProject(conv);
        }
  }

  /// Adds `from`'s window attributes (auto_pad, dilations, kernel_shape,
  /// pads, strides) to `st`.
  static void copyWindowAttrs(Operation *from, OperationState &st) {
    for (StringRef name : {"auto_pad", "dilations", "kernel_shape", "pads", "strides"})
      if (Attribute a = from->getAttr(name))
        st.addAttribute(name, a);
  }

  /// Adds `from`'s activation attributes (`fromPrefix`activation, _alpha,
  /// _beta) to `st`, named `toPrefix`activation, ...
  static void copyActivationAttrs(Operation *from, StringRef fromPrefix, OperationState &st,
                                  StringRef toPrefix) {
    for (StringRef name : {"activation", "activation_alpha", "activation_beta"})
      if (Attribute a = from->getAttr((fromPrefix + name).str()))
        st.addAttribute((toPrefix + name).str(), a);
  }

  /// Creates `st` before `chain`'s first op (the chain's last value, the one
  /// with readers after the fusion) with its result type, gives those readers
  /// the new op's result and erases `chain`, each op read only by the one
  /// before it in the list.
  static Operation *replaceChain(OperationState &st, ArrayRef<Operation *> chain) {
    OpBuilder b(chain.front());
    st.addTypes(chain.front()->getResult(0).getType());
    Operation *fused = b.create(st);
    chain.front()->getResult(0).replaceAllUsesWith(fused->getResult(0));
    for (Operation *op : chain)
      op->erase();
    return fused;
  }

  /// A direct pointwise BlockedConv: group 1, 1x1 weights (static),
  /// stride 1, undilated, unpadded (the block fusions' first condition).
  static bool isPlainPointwise(BlockedConvOp conv) {
    auto w = dyn_cast<RankedTensorType>(conv.getW().getType());
    return conv.getGroup() == 1 && w && w.hasStaticShape() && w.getDimSize(2) == 1 &&
           w.getDimSize(3) == 1 && conv.getAlgorithm() == ConvAlgorithm::direct &&
           allOrAbsent(conv.getStrides(), 1) && allOrAbsent(conv.getDilations(), 1) &&
           allOrAbsent(conv.getPads(), 0) &&
           llvm::is_contained({"NOTSET", "VALID"}, conv.getAutoPad());
  }

  /// A pointwise BlockedConv (group 1, 1x1, stride 1, unpadded, direct) of
  /// a blocked Mul's result, the Mul (no other reader) of a tensor by one
  /// scale per image and channel (N, C/16, 1, 1, 16: squeeze-and-excite's):
  /// both become one BlockedScaledConv, whose kernel scales the M x C
  /// weights instead of the C x H x W values, where that is less work
  /// (M < H x W). Returns whether it folded.
  static bool foldChannelScale(BlockedConvOp conv) {
    auto mul = conv.getX().getDefiningOp<MulOp>();
    if (!mul || !mul.getResult().hasOneUse() || !isPlainPointwise(conv))
      return false;
    auto w = cast<RankedTensorType>(conv.getW().getType());
    auto y = dyn_cast<RankedTensorType>(mul.getResult().getType());
    if (!y || !y.hasStaticShape() || y.getRank() != 5)
      return false;
    auto isScale = [&](Value v) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      return t && t.hasStaticShape() && t.getRank() == 5 && t.getDimSize(0) == y.getDimSize(0) &&
             t.getDimSize(1) == y.getDimSize(1) && t.getDimSize(2) == 1 &&
             t.getDimSize(3) == 1 && t.getDimSize(4) == y.getDimSize(4);
    };
    Value a = mul.getOperand(0), b = mul.getOperand(1);
    if (isScale(a) && b.getType() == y)
      std::swap(a, b);
    if (a.getType() != y || !isScale(b) || w.getDimSize(0) >= y.getDimSize(2) * y.getDimSize(3))
      return false;
    OperationState st(Builder(conv.getContext()).getFusedLoc({mul.getLoc(), conv.getLoc()}),
                      BlockedScaledConvOp::getOperationName());
    st.addOperands({a, b, conv.getW(), conv.getB(), conv.getZ()});
    copyActivationAttrs(conv, "", st, "");
    replaceChain(st, {conv, mul});
    return true;
  }

  /// ReduceMean over the spatial axes (2 and 3) of a 4-D float tensor (a
  /// global pool as TensorFlow and some PyTorch models export it: x.mean((2,
  /// 3))) as a GlobalAveragePool in its place, then a Reshape where
  /// keepdims is 0; the pool, or null where `mean` is not one.
  static Operation *meanAsGlobalPool(ReduceMeanOp mean) {
    auto x = staticF32(mean.getData(), 4);
    auto axes = mean.getAxes();
    auto y = dyn_cast<RankedTensorType>(mean.getReduced().getType());
    if (!x || !axes || axes->size() != 2 || !y || !y.hasStaticShape())
      return nullptr;
    SmallVector<int64_t> dims;
    for (int64_t a : *axes)
      dims.push_back(a < 0 ? a + 4 : a);
    llvm::sort(dims);
    if (dims != SmallVector<int64_t>{2, 3})
      return nullptr;
    OpBuilder b(mean);
    auto pooled = RankedTensorType::get({x.getDimSize(0), x.getDimSize(1), 1, 1},
                                        x.getElementType());
    Operation *pool = b.create<GlobalAveragePoolOp>(mean.getLoc(), pooled, mean.getData());
    Value result = pool->getResult(0);
    if (mean.getKeepdims() == 0)
      result = b.create<ReshapeOp>(mean.getLoc(), mean.getReduced().getType(), result,
                                   shapeConstant(b, mean.getLoc(),
                                                 {x.getDimSize(0), x.getDimSize(1)}),
                                   b.getI64IntegerAttr(0));
    mean.getReduced().replaceAllUsesWith(result);
    mean.erase();
    return pool;
  }

  /// A pointwise expand BlockedConv (group 1, 1x1, stride 1, unpadded, of a
  /// blocked input, no residual) read only by depthwise BlockedConv `dw`:
  /// both become one BlockedExpandDepthwise. Returns whether it fused.
  static bool fuseExpandDepthwise(BlockedConvOp dw) {
    auto expand = dw.getX().getDefiningOp<BlockedConvOp>();
    if (dw.getGroup() == 1 || !expand || !expand.getY().hasOneUse() ||
        !isPlainPointwise(expand) || !isNone(expand.getZ()))
      return false;
    auto x = dyn_cast<RankedTensorType>(expand.getX().getType());
    if (!x || x.getRank() != 5)
      return false;
    OperationState st(Builder(dw.getContext()).getFusedLoc({expand.getLoc(), dw.getLoc()}),
                      BlockedExpandDepthwiseOp::getOperationName());
    st.addOperands({expand.getX(), expand.getW(), expand.getB(), dw.getW(), dw.getB(), dw.getZ()});
    copyWindowAttrs(dw, st);
    copyActivationAttrs(dw, "", st, "");
    copyActivationAttrs(expand, "", st, "expand_");
    replaceChain(st, {dw, expand});
    return true;
  }

  /// A pointwise project BlockedConv (group 1, 1x1, stride 1, unpadded,
  /// direct) of a BlockedExpandDepthwise, or of a depthwise BlockedConv of
  /// a blocked input (a block without an expand convolution), with no
  /// residual and no other reader: they become one BlockedInvertedResidual,
  /// the project's residual (the block's skip connection) and activation its
  /// own, the depthwise one's as depthwise_activation.
  static void fuseProject(BlockedConvOp project) {
    Operation *block = project.getX().getDefiningOp();
    auto depthwise = dyn_cast_or_null<BlockedConvOp>(block);
    if (!block || !(isa<BlockedExpandDepthwiseOp>(block) || depthwise) ||
        !block->getResult(0).hasOneUse() || !isPlainPointwise(project))
      return;
    if (depthwise) {
      auto x = dyn_cast<RankedTensorType>(depthwise.getX().getType());
      if (depthwise.getGroup() == 1 || !isNone(depthwise.getZ()) || !x || x.getRank() != 5 ||
          depthwise.getAlgorithm() != ConvAlgorithm::direct)
        return;
    }
    auto expand = dyn_cast<BlockedExpandDepthwiseOp>(block);
    if (expand && !isNone(expand.getZ()))
      return;
    OperationState st(Builder(project.getContext()).getFusedLoc({block->getLoc(),
                                                                  project.getLoc()}),
                      BlockedInvertedResidualOp::getOperationName());
    if (expand) {
      st.addOperands({expand.getX(), expand.getWE(), expand.getBE(), expand.getWD(),
                      expand.getBD()});
      copyActivationAttrs(expand, "expand_", st, "expand_");
    } else {
      OpBuilder b(project);
      Value none = b.create<NoValueOp>(block->getLoc(), b.getNoneType());
      st.addOperands({depthwise.getX(), none, none, depthwise.getW(), depthwise.getB()});
    }
    st.addOperands({project.getW(), project.getB(), project.getZ()});
    copyWindowAttrs(block, st);
    copyActivationAttrs(block, "", st, "depthwise_");
    copyActivationAttrs(project, "", st, "");
    replaceChain(st, {project, block});
  }

  /// A BlockedChannelGather before `at` of channels `from` of `inputs`'
  /// concatenation (blocked, `channels` logical channels each).
  static Value createGather(Operation *at, ValueRange inputs, ArrayRef<int64_t> channels,
                            ArrayRef<int64_t> from) {
    OpBuilder b(at);
    OperationState st(at->getLoc(), BlockedChannelGatherOp::getOperationName());
    st.addOperands(inputs);
    st.addAttribute("in_channels", b.getDenseI64ArrayAttr(channels));
    st.addAttribute("channels", b.getDenseI64ArrayAttr(from));
    st.addTypes(UnrankedTensorType::get(b.getF32Type()));
    Operation *gather = b.create(st);
    (void)refreshTypes(gather);
    return gather->getResult(0);
  }

  /// A channel shuffle (ShuffleNet's: matchChannelShuffle) of a Concat of
  /// one or two values with a blocked one among them. All four ops become
  /// one BlockedChannelGather from the Concat's inputs, the blocked form of
  /// the last Reshape, in place of leaving the region for the NCHW
  /// Transpose. Returns whether it formed.
  bool gatherShuffle(ConcatOp cat) {
    auto shuffle = matchChannelShuffle(cat, staticF32);
    if (!shuffle)
      return false;
    blockedOf[shuffle->merge.getReshaped()] = gatherConcatInputs(cat, shuffle->from);
    for (Operation *op : {cat.getOperation(), shuffle->split.getOperation(),
                          shuffle->swap.getOperation(), shuffle->merge.getOperation()})
      rewritten.insert(op);
    return true;
  }

  /// A channel Concat of one or two values, a blocked one among them, that
  /// fill no whole blocks (those of whole blocks stay a blocked Concat: no
  /// copy), read by an op that would join the region (a convolution, pool
  /// or lane-wise op; one read only outside stays an NCHW Concat, written in
  /// place): a BlockedChannelGather of all their channels in order.
  Value gatherConcat(ConcatOp cat) {
    auto joins = [&](Operation *u) {
      return isBlockableConv(u, *layout) || isBlockablePool(u) || isLaneWise(u);
    };
    if (!isGatherableConcat(cat, staticF32) || llvm::none_of(cat.getResult().getUsers(), joins))
      return {};
    auto ct = staticF32(cat.getResult(), 4);
    SmallVector<int64_t> from(ct.getDimSize(1));
    for (int64_t j = 0; j < ct.getDimSize(1); ++j)
      from[j] = j;
    return gatherConcatInputs(cat, from);
  }

  /// A BlockedChannelGather before `cat` of channels `from` of its (4-D)
  /// inputs' concatenation, each input blocked (converted where it is not).
  Value gatherConcatInputs(ConcatOp cat, ArrayRef<int64_t> from) {
    SmallVector<Value> inputs;
    SmallVector<int64_t> channels;
    for (Value v : cat.getInputs()) {
      inputs.push_back(toBlocked(v));
      channels.push_back(cast<ShapedType>(v.getType()).getDimSize(1));
    }
    return createGather(cat, inputs, channels, from);
  }

  /// A Slice of a blocked value's channels alone (a run along axis 1, step
  /// 1, the other axes whole): a BlockedChannelGather of them, taken from
  /// the inputs of the gather that made the value where one did (a
  /// shuffle's halves: one copy each, the shuffle itself none). Null where
  /// the Slice is not one.
  Value gatherChannelSlice(SliceOp slice) {
    auto run = channelRunOfSlice(slice, staticF32);
    return run ? gatherRange(slice, slice.getData(), run->first, run->count) : Value();
  }

  /// A Split of a blocked value along the channels (static results that
  /// keep N, H and W): each result a BlockedChannelGather of its run of
  /// channels (gatherRange). Returns whether it formed.
  bool gatherChannelSplit(SplitOp split) {
    auto runs = channelRunsOfSplit(split, staticF32);
    if (!runs)
      return false;
    for (auto [out, run] : llvm::zip(split.getOutputs(), *runs))
      blockedOf[out] = gatherRange(split, split.getInput(), run.first, run.count);
    return true;
  }

  /// A BlockedChannelGather before `at` of channels [first, first + m) of
  /// `nchw`'s blocked form: from the inputs of the gather that made it where
  /// one did (one copy, not two).
  Value gatherRange(Operation *at, Value nchw, int64_t first, int64_t m) {
    Value x = blockedOf[nchw];
    if (auto g = x.getDefiningOp<BlockedChannelGatherOp>())
      return createGather(at, g.getX(), g.getInChannels(), g.getChannels().slice(first, m));
    SmallVector<int64_t> from(m);
    for (int64_t j = 0; j < m; ++j)
      from[j] = first + j;
    return createGather(at, x, {cast<ShapedType>(nchw.getType()).getDimSize(1)}, from);
  }

  /// `v` (NCHW) in the blocked layout: its blocked form, a constant
  /// converted now, or a ToBlocked right after its definition (one per value).
  Value toBlocked(Value v) {
    if (auto it = blockedOf.find(v); it != blockedOf.end())
      return it->second;
    auto t = cast<RankedTensorType>(v.getType());
    auto shape = t.getShape();
    auto type = RankedTensorType::get(
        {shape[0], (shape[1] + kBlock - 1) / kBlock, shape[2], shape[3], kBlock},
        t.getElementType());
    OpBuilder b(v.getContext());
    b.setInsertionPointAfterValue(v);
    Value blocked;
    if (auto dense = dyn_cast_or_null<DenseElementsAttr>(getConstantElements(v))) {
      std::vector<float> src(dense.getValues<float>().begin(), dense.getValues<float>().end());
      std::vector<float> dst(type.getNumElements());
      onnxc_rt::ref::to_blocked(src.data(), dst.data(), shape[0], shape[1], shape[2] * shape[3],
                                kBlock);
      blocked = b.create<ConstantOp>(v.getLoc(), type,
                                     DenseElementsAttr::get(type, ArrayRef<float>(dst)));
    } else {
      blocked = b.create<ToBlockedOp>(v.getLoc(), type, v);
    }
    blockedOf[v] = blocked;
    return blocked;
  }

  /// An operand of a lane-wise op on blocked tensors: NCHW-shaped (any
  /// rank up to 4, broadcast) operands with the result's channels go
  /// blocked; ones broadcast over channels get a trailing unit dim (a view).
  Value laneOperand(Value v, int64_t channels, OpBuilder &b, Location loc) {
    if (blockedOf.count(v))
      return blockedOf[v];
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape() || t.getRank() > 4)
      return {};
    SmallVector<int64_t> shape(4 - t.getRank(), 1);
    shape.append(t.getShape().begin(), t.getShape().end());
    if (shape[1] == channels) {
      Value four = v;
      if (t.getRank() != 4) {
        if (!getConstantElements(v))
          return {};
        auto dense = cast<DenseElementsAttr>(getConstantElements(v));
        four = b.create<ConstantOp>(loc, RankedTensorType::get(shape, t.getElementType()),
                                    dense.reshape(RankedTensorType::get(shape, t.getElementType())));
      }
      return toBlocked(four);
    }
    shape.push_back(1);
    auto type = RankedTensorType::get(shape, t.getElementType());
    auto dims = RankedTensorType::get({5}, b.getI64Type());
    Value target = b.create<ConstantOp>(loc, dims, DenseElementsAttr::get(dims, ArrayRef(shape)));
    return b.create<ReshapeOp>(loc, type, v, target, b.getI64IntegerAttr(0));
  }

  Value rewriteConv(Operation *op) {
    OpBuilder b(op);
    Value x = op->getOperand(0);
    const bool depthwise = groupOf(op) != 1;
    // A dense convolution reads an NCHW input as it is (a model's first),
    // unless the target would rather convert it.
    const int64_t channels = cast<RankedTensorType>(x.getType()).getDimSize(1);
    Value input = blockedOf.count(x) || depthwise || layout->blocksConvInput(channels)
                      ? toBlocked(x)
                      : x;
    b.setInsertionPoint(op);
    // Conv has no residual operand: a none for Z (FusedConv's may be one).
    Value z = isa<FusedConvOp>(op) ? op->getOperand(3)
                                   : b.create<NoValueOp>(op->getLoc(), b.getNoneType());
    Value zb = isNone(z) ? z : toBlocked(z);
    b.setInsertionPoint(op);
    Value bias = op->getOperand(2);
    OperationState st(op->getLoc(), BlockedConvOp::getOperationName());
    st.addOperands({input, op->getOperand(1), bias, zb});
    st.addAttributes(op->getAttrs());
    st.addTypes(UnrankedTensorType::get(b.getF32Type()));
    Operation *conv = b.create(st);
    (void)refreshTypes(conv);
    if (const int64_t tile = winogradTile(conv))
      conv->setAttr("algorithm",
                    ConvAlgorithmAttr::get(b.getContext(), tile == 4 ? ConvAlgorithm::winograd
                                                                     : ConvAlgorithm::winograd_f2));
    return conv->getResult(0);
  }

  /// The Winograd tile (4 or 2) the target runs a BlockedConv fastest as,
  /// or 0 for direct (its kernels' own rule: shape, tile count, weight
  /// size), where its options allow Winograd.
  int64_t winogradTile(Operation *conv) const {
    auto y = dyn_cast<RankedTensorType>(conv->getResult(0).getType());
    auto w = cast<RankedTensorType>(conv->getOperand(1).getType());
    if (!y || !y.hasStaticShape() || y.getRank() != 5)
      return 0;
    auto attr = [&](StringRef name) -> SmallVector<int64_t> {
      auto a = conv->getAttrOfType<DenseI64ArrayAttr>(name);
      return a ? SmallVector<int64_t>(a.asArrayRef()) : SmallVector<int64_t>{1, 1};
    };
    SmallVector<int64_t> strides = attr("strides"), dilations = attr("dilations");
    const int64_t out[4] = {y.getDimSize(0), w.getDimSize(0), y.getDimSize(2), y.getDimSize(3)};
    const int64_t kernel[2] = {w.getDimSize(2), w.getDimSize(3)};
    const bool inBlocked = cast<ShapedType>(conv->getOperand(0).getType()).getRank() == 5;
    return layout->winogradTile(ConvShape{out, w.getDimSize(1) * groupOf(conv), kernel,
                                             strides, dilations, groupOf(conv), inBlocked},
                                   targetAttr);
  }

  Value rewritePool(Operation *op) {
    Value x = toBlocked(op->getOperand(0));
    OpBuilder b(op);
    OperationState st(op->getLoc(), BlockedPoolOp::getOperationName());
    st.addOperands(x);
    for (NamedAttribute a : op->getAttrs())
      if (llvm::is_contained({"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads",
                              "strides"},
                             a.getName().getValue()))
        st.addAttribute(a.getName(), a.getValue());
    st.addAttribute("mode", PoolModeAttr::get(b.getContext(),
                                              isa<MaxPoolOp>(op)       ? PoolMode::max
                                              : isa<AveragePoolOp>(op) ? PoolMode::average
                                                                       : PoolMode::global_average));
    st.addTypes(UnrankedTensorType::get(b.getF32Type()));
    Operation *pool = b.create(st);
    (void)refreshTypes(pool);
    return pool->getResult(0);
  }

  /// The same op on blocked operands (a channel Concat along the blocks).
  Value rewriteLaneWise(Operation *op) {
    const int64_t channels = cast<ShapedType>(op->getResult(0).getType()).getDimSize(1);
    OpBuilder b(op);
    SmallVector<Value> operands;
    for (Value v : op->getOperands()) {
      // A blocked operand broadcast over the channels would broadcast its
      // first lane's block, not its one channel: such an op stays NCHW.
      if (!isa<ConcatOp>(op) && blockedOf.count(v) &&
          cast<ShapedType>(v.getType()).getDimSize(1) != channels)
        return {};
    }
    for (Value v : op->getOperands()) {
      if (isNone(v) || (isa<ClipOp>(op) && v != op->getOperand(0))) {
        operands.push_back(v); // Clip's bounds stay scalars
        continue;
      }
      Value lane = isa<ConcatOp>(op) ? toBlocked(v) : laneOperand(v, channels, b, op->getLoc());
      if (!lane)
        return {};
      b.setInsertionPoint(op);
      operands.push_back(lane);
    }
    OperationState st(op->getLoc(), op->getName());
    st.addOperands(operands);
    st.addAttributes(op->getAttrs());
    if (isa<ConcatOp>(op)) // the blocks' axis (a negative axis would count from the lanes)
      st.attributes.set("axis", b.getI64IntegerAttr(1));
    st.addTypes(UnrankedTensorType::get(b.getF32Type()));
    Operation *blocked = b.create(st);
    if (failed(refreshTypes(blocked))) {
      blocked->erase();
      return {};
    }
    return blocked->getResult(0);
  }
};

} // namespace

std::unique_ptr<Pass> createLayoutSelectionPass() { return std::make_unique<LayoutSelection>(); }

void registerLayoutSelectionPass() {
  static const bool registered = (PassRegistration<LayoutSelection>(), true);
  (void)registered;
}

} // namespace onnxc::simd
