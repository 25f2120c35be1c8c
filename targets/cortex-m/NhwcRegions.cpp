//===- NhwcRegions.cpp - onnxc-mcu-nhwc-regions ----------------------------===//
//
// The Cortex-M targets' layout pass (after onnxc-mcu-fuse-conv-pool): puts
// the regions of a quantized model where NHWC pays into NHWC.
//
// The microcontroller convolution gathers each output pixel's window into a
// column (im2col) before its products. From NCHW planes a window row is KW
// values of one channel, gathered value by value; from NHWC pixels it is one
// run of KW x C contiguous values (mcu/window.h's gather_window_nhwc: on the
// DSP cores four values widened a word). What that saves per gathered value
// is the core's (NhwcCosts, measured on ResNet-8: bench/results/cmsis-nn.md);
// what it costs is a transpose at each edge of the region.
//
// A region is a connected set of the ops that can run on NHWC tensors: dense
// QConv and QConvMaxPool that the conv2d kernel runs (runsDenseConvKernel:
// the provider's own test), and the element-wise QAdd and QMul of two
// same-shape 4-D tensors (layout does not matter to them), linked through
// their activations. Per region, the gathers' saving (each convolution's
// gathered values times the saving per value) is weighed against the
// transposes' cost (each value entering or leaving the region, its elements
// times the cost per element); where the saving is larger, the region's
// convolutions become cortexm.QConvNhwc, its element-wise ops take NHWC
// types, and onnx.Transpose converts each entering value once (right after
// its definition; a value entering two regions once for both) and each
// leaving value once (right after the op that makes it). Regions and their
// ops are visited in program order, so the output is deterministic. Depthwise convolutions stay NCHW (their kernel walks planes),
// so a pointwise convolution between two of them stays too: alone, its
// transposes cost more than its gathers.
//
//===----------------------------------------------------------------------===//
#include "CortexMTarget.h"

#include "CortexMDialect.h"

#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Lowering/Target.h"

#include "onnxc_rt/kernels/mcu/qs8/dot.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace onnxc::onnx;

namespace onnxc::cortexm {
namespace {

/// A static 4-D batch-1 tensor type, or null.
RankedTensorType batchOne4d(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() && t.getRank() == 4 && t.getDimSize(0) == 1 ? t : nullptr;
}

/// `t` (N x C x H x W) as N x H x W x C.
RankedTensorType nhwcType(RankedTensorType t) {
  ArrayRef<int64_t> s = t.getShape();
  return RankedTensorType::get({s[0], s[2], s[3], s[1]}, t.getElementType());
}

bool isConv(Operation *op) { return isa<QConvOp, QConvMaxPoolOp>(op); }

/// QAdd and QMul of two same-shape batch-1 4-D tensors: element by element,
/// whatever the layout.
bool isLayoutFreeElementwise(Operation *op) {
  if (!isa<QAddOp, QMulOp>(op))
    return false;
  auto a = batchOne4d(op->getOperand(0)), b = batchOne4d(op->getOperand(1)),
       y = batchOne4d(op->getResult(0));
  return a && b && y && a.getShape() == b.getShape() && a.getShape() == y.getShape();
}

/// The activations of a region op: a convolution's X, both operands of an
/// element-wise op.
SmallVector<Value, 2> activations(Operation *op) {
  if (isConv(op))
    return {op->getOperand(0)};
  return {op->getOperand(0), op->getOperand(1)};
}

/// Window values a convolution gathers: per output pixel (per pooled output,
/// pool_columns of them) the window's C x kH x kW.
int64_t gatheredValues(Operation *conv) {
  auto x = cast<RankedTensorType>(conv->getOperand(0).getType());
  auto w = cast<RankedTensorType>(conv->getOperand(1).getType());
  auto y = cast<RankedTensorType>(conv->getResult(0).getType());
  const int64_t k = x.getDimSize(1) * w.getDimSize(2) * w.getDimSize(3);
  const int64_t outputs = y.getDimSize(2) * y.getDimSize(3);
  if (auto pooled = dyn_cast<QConvMaxPoolOp>(conv)) {
    ArrayRef<int64_t> p = pooled.getMaxPool();
    return outputs * onnxc_rt::mcu::qs8::pool_columns(int(p[0]), int(p[1])) * k;
  }
  return outputs * k;
}

struct NhwcRegionsPass : PassWrapper<NhwcRegionsPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(NhwcRegionsPass)
  NhwcRegionsPass() = default;
  NhwcRegionsPass(const NhwcRegionsPass &other) : PassWrapper(other) {}
  explicit NhwcRegionsPass(NhwcCosts costs) {
    gatherSaving = costs.gatherSaving;
    transposeCost = costs.transposeCost;
  }
  StringRef getArgument() const override { return "onnxc-mcu-nhwc-regions"; }
  StringRef getDescription() const override {
    return "Run the quantized convolution regions where NHWC pays in NHWC (Cortex-M)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<CortexMDialect>();
  }
  Option<double> gatherSaving{
      *this, "gather-saving",
      llvm::cl::desc("instructions saved per window value gathered from NHWC pixels"),
      llvm::cl::init(NhwcCosts{}.gatherSaving)};
  Option<double> transposeCost{
      *this, "transpose-cost",
      llvm::cl::desc("instructions per element of a transpose at a region's edge"),
      llvm::cl::init(NhwcCosts{}.transposeCost)};

  void runOnOperation() override {
    // --conv-layout: auto weighs each region, nchw keeps them all, nhwc
    // takes every region with a convolution.
    double saving = gatherSaving, cost = transposeCost;
    if (const Target *target = targetOf(getOperation())) {
      const std::string layout = target->optionValue(targetAttrOf(getOperation()), "conv-layout");
      if (layout == "nchw")
        return;
      if (layout == "nhwc")
        cost = 0;
    }
    // The candidates, in program order, and their regions.
    SmallVector<Operation *> members;
    llvm::EquivalenceClasses<Operation *> regions;
    Block &body = getOperation().getBody().front();
    getOperation().walk([&](Operation *op) {
      if (op->getBlock() != &body)
        return;
      const bool conv = isConv(op) && batchOne4d(op->getOperand(0)) &&
                        batchOne4d(op->getResult(0)) && runsDenseConvKernel(op);
      if (!conv && !isLayoutFreeElementwise(op))
        return;
      members.push_back(op);
      regions.insert(op);
      for (Value v : activations(op))
        if (Operation *def = v.getDefiningOp(); def && regions.findValue(def) != regions.end())
          regions.unionSets(def, op);
    });
    // Each region's ops in program order, the regions in the order of their
    // first op (deterministic output: nothing below iterates pointers).
    llvm::MapVector<Operation *, OpRegion> byLeader;
    for (Operation *op : members) {
      OpRegion &r = byLeader[regions.getLeaderValue(op)];
      r.ops.push_back(op);
      r.set.insert(op);
    }
    Edges made;
    for (auto &entry : byLeader)
      if (worthIt(entry.second, saving, cost))
        rewrite(entry.second, made);
  }

  /// The transposes made so far: each entering value's NHWC form (a value
  /// entering two regions is transposed once), and the last entry transpose
  /// placed after each definition (null: the function's arguments), so that
  /// the next goes after it, in the order they were made.
  struct Edges {
    DenseMap<Value, Value> nhwc;
    DenseMap<Operation *, Operation *> lastAfter;
  };

  struct OpRegion {
    SmallVector<Operation *> ops; // program order
    llvm::SmallPtrSet<Operation *, 16> set;
  };

  /// The values entering the region (activations made outside it) and
  /// leaving it (made inside, read outside), in program order.
  static std::pair<llvm::SetVector<Value>, llvm::SetVector<Value>> edges(const OpRegion &region) {
    llvm::SetVector<Value> in, out;
    for (Operation *op : region.ops) {
      for (Value v : activations(op))
        if (!region.set.contains(v.getDefiningOp()))
          in.insert(v);
      for (Operation *user : op->getResult(0).getUsers())
        if (!region.set.contains(user))
          out.insert(op->getResult(0));
    }
    return {in, out};
  }

  /// Whether the region's gathers save more than its edges' transposes
  /// cost, at `perValue` instructions saved a gathered value and `perElement`
  /// spent a transposed element.
  static bool worthIt(const OpRegion &region, double perValue, double perElement) {
    double saving = 0, cost = 0;
    for (Operation *op : region.ops)
      if (isConv(op))
        saving += double(gatheredValues(op)) * perValue;
    auto [in, out] = edges(region);
    for (const llvm::SetVector<Value> *side : {&in, &out})
      for (Value v : *side)
        cost += double(cast<RankedTensorType>(v.getType()).getNumElements()) * perElement;
    return saving > cost;
  }

  static void rewrite(const OpRegion &region, Edges &made) {
    auto [in, out] = edges(region);
    DenseMap<Value, Value> &nhwc = made.nhwc;
    auto transpose = [](OpBuilder &b, Location loc, Value v, RankedTensorType type,
                        ArrayRef<int64_t> perm) {
      return b.create<TransposeOp>(loc, type, v, b.getDenseI64ArrayAttr(perm)).getTransposed();
    };
    for (Value v : in) {
      if (nhwc.count(v))
        continue;
      Operation *def = v.getDefiningOp();
      OpBuilder b(v.getContext());
      if (Operation *last = made.lastAfter.lookup(def))
        b.setInsertionPointAfter(last);
      else if (def)
        b.setInsertionPointAfter(def);
      else
        b.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
      nhwc[v] = transpose(b, v.getLoc(), v, nhwcType(cast<RankedTensorType>(v.getType())),
                          {0, 2, 3, 1});
      made.lastAfter[def] = nhwc[v].getDefiningOp();
    }
    for (Operation *op : region.ops) { // program order: operands first
      Value y = op->getResult(0);
      auto nchw = cast<RankedTensorType>(y.getType());
      OpBuilder b(op);
      Value result;
      if (isConv(op)) {
        SmallVector<Value, 3> operands(op->getOperands());
        operands[0] = nhwc.lookup(operands[0]);
        result = b.create<QConvNhwcOp>(op->getLoc(), TypeRange{nhwcType(nchw)}, operands,
                                       op->getAttrs())
                     .getY();
      } else {
        for (OpOperand &operand : op->getOpOperands())
          operand.set(nhwc.lookup(operand.get()));
        result = y;
      }
      SmallVector<OpOperand *> outside;
      for (OpOperand &use : y.getUses())
        if (!region.set.contains(use.getOwner()))
          outside.push_back(&use);
      if (result == y)
        y.setType(nhwcType(nchw));
      nhwc[y] = result;
      if (out.contains(y)) {
        b.setInsertionPointAfter(result.getDefiningOp());
        Value back = transpose(b, op->getLoc(), result, nchw, {0, 3, 1, 2});
        for (OpOperand *use : outside)
          use->set(back);
      }
    }
    for (Operation *op : llvm::reverse(region.ops))
      if (isConv(op))
        op->erase();
  }
};

} // namespace

std::unique_ptr<Pass> createNhwcRegionsPass(NhwcCosts costs) {
  return std::make_unique<NhwcRegionsPass>(costs);
}

void registerNhwcRegionsPass() { PassRegistration<NhwcRegionsPass>(); }

} // namespace onnxc::cortexm
