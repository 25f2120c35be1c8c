//===- Qs8ChannelGather.cpp - onnxc-qs8-channel-gather ----------------------===//
//
// The SIMD targets' pass for the int8 kernels' channel moves (after
// onnxc-layout-selection, whose blocked region holds float tensors alone;
// the int8 ones stay NCHW). In program order:
// - a channel shuffle of int8 or uint8 values (ShuffleNet's: Concat,
//   Reshape, Transpose, Reshape; ChannelMoves.h) becomes one
//   simd.ChannelGather from the Concat's inputs, and a Concat input that is
//   a QRescale read by the Concat alone (an input of another scale) comes
//   in as the QRescale's own input with its table (rescaleTable), so the
//   rescale is no pass of its own;
// - a channel Slice or Split of a gather's result becomes a gather from
//   that gather's inputs and tables (a shuffle's halves: one copy each);
// - a gather whose readers all did so (the shuffle itself) is dropped.
// Where the generic ops took five passes over the data (two rescales, the
// Concat, the Transpose, a Slice a half), the gathers take one.
//
//===----------------------------------------------------------------------===//
#include "ChannelMoves.h"
#include "SimdDialect.h"
#include "SimdTarget.h"

#include "onnxc/Passes/PassUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace onnxc::onnx;

namespace onnxc::simd {
namespace {

struct Qs8ChannelGather : PassWrapper<Qs8ChannelGather, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(Qs8ChannelGather)
  StringRef getArgument() const override { return "onnxc-qs8-channel-gather"; }
  StringRef getDescription() const override {
    return "Run int8 channel shuffles and their Slices as simd.ChannelGather, the Concat "
           "inputs' QRescales as its tables (the SIMD targets)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<SimdDialect>();
  }

  llvm::SetVector<Operation *> replaced; // ops whose results the gathers replaced

  void runOnOperation() override {
    Block &body = getOperation().getBody().front();
    for (Operation &op : body) {
      if (auto cat = dyn_cast<ConcatOp>(op))
        gatherShuffle(cat);
      else if (auto slice = dyn_cast<SliceOp>(op))
        regatherSlice(slice);
      else if (auto split = dyn_cast<SplitOp>(op))
        regatherSplit(split);
    }
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (replaced.count(&op) || (isa<ChannelGatherOp>(op) && op.use_empty()))
        op.erase();
    replaced.clear();
  }

  /// A ChannelGather before `at` of `channels` of `inputs`' channel
  /// concatenation (`inChannels` each), through `tables` (null: none).
  static Value createGather(Operation *at, ValueRange inputs, ArrayRef<int64_t> inChannels,
                            ArrayRef<int64_t> channels, ArrayAttr tables) {
    OpBuilder b(at);
    OperationState st(at->getLoc(), ChannelGatherOp::getOperationName());
    st.addOperands(inputs);
    st.addAttribute("in_channels", b.getDenseI64ArrayAttr(inChannels));
    st.addAttribute("channels", b.getDenseI64ArrayAttr(channels));
    if (tables)
      st.addAttribute("tables", tables);
    st.addTypes(
        UnrankedTensorType::get(cast<ShapedType>(inputs.front().getType()).getElementType()));
    Operation *gather = b.create(st);
    (void)refreshTypes(gather);
    return gather->getResult(0);
  }

  void gatherShuffle(ConcatOp cat) {
    auto shuffle = matchChannelShuffle(cat, staticBytes);
    if (!shuffle)
      return;
    SmallVector<Value> inputs;
    SmallVector<int64_t> inChannels;
    SmallVector<Attribute> tables;
    bool anyTable = false;
    for (Value v : cat.getInputs()) {
      auto rescale = v.getDefiningOp<QRescaleOp>();
      DenseElementsAttr table = rescale && v.hasOneUse() ? rescaleTable(rescale) : nullptr;
      if (table) {
        inputs.push_back(rescale.getX());
        tables.push_back(table);
        replaced.insert(rescale);
        anyTable = true;
      } else {
        inputs.push_back(v);
        tables.push_back(UnitAttr::get(cat.getContext()));
      }
      inChannels.push_back(cast<ShapedType>(v.getType()).getDimSize(1));
    }
    Value gather = createGather(cat, inputs, inChannels, shuffle->from,
                                anyTable ? ArrayAttr::get(cat.getContext(), tables) : nullptr);
    shuffle->merge.getReshaped().replaceAllUsesWith(gather);
    for (Operation *op : {cat.getOperation(), shuffle->split.getOperation(),
                          shuffle->swap.getOperation(), shuffle->merge.getOperation()})
      replaced.insert(op);
  }

  /// A gather before `at` of channels [first, first + count) of `g`'s result,
  /// from `g`'s inputs.
  static Value regather(Operation *at, ChannelGatherOp g, ChannelRun run) {
    return createGather(at, g.getX(), g.getInChannels(),
                        g.getChannels().slice(run.first, run.count), g.getTablesAttr());
  }

  void regatherSlice(SliceOp slice) {
    auto g = slice.getData().getDefiningOp<ChannelGatherOp>();
    auto run = g ? channelRunOfSlice(slice, staticBytes) : std::nullopt;
    if (!run)
      return;
    slice.getOutput().replaceAllUsesWith(regather(slice, g, *run));
    replaced.insert(slice);
  }

  void regatherSplit(SplitOp split) {
    auto g = split.getInput().getDefiningOp<ChannelGatherOp>();
    auto runs = g ? channelRunsOfSplit(split, staticBytes) : std::nullopt;
    if (!runs)
      return;
    for (auto [out, run] : llvm::zip(split.getOutputs(), *runs))
      out.replaceAllUsesWith(regather(split, g, run));
    replaced.insert(split);
  }
};

} // namespace

std::unique_ptr<Pass> createQs8ChannelGatherPass() { return std::make_unique<Qs8ChannelGather>(); }

void registerQs8ChannelGatherPass() {
  static const bool registered = (PassRegistration<Qs8ChannelGather>(), true);
  (void)registered;
}

} // namespace onnxc::simd
