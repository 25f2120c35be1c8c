//===- ControlFlowOps.cpp - result types of If, Loop and Scan --------------===//
#include "onnxc/Dialect/ONNX/ONNXDialect.h"

using namespace mlir;

namespace onnxc::onnx {

static YieldOp yieldOf(Region &r) { return cast<YieldOp>(r.front().getTerminator()); }

LogicalResult IfOp::inferShapes() {
  YieldOp t = yieldOf(getThenBranch()), e = yieldOf(getElseBranch());
  if (t.getNumOperands() != getNumResults() || e.getNumOperands() != getNumResults())
    return emitError("If branches must yield one value per output");
  for (auto [r, a, b] : llvm::zip(getResults(), t.getOperands(), e.getOperands()))
    r.setType(a.getType() == b.getType() ? a.getType() : Type(UnrankedTensorType::get(
                                                   cast<ShapedType>(a.getType()).getElementType())));
  return success();
}

/// A stacked scan output: `count` slices of `slice` along `axis`.
static Type stacked(Type slice, int64_t count, int64_t axis) {
  auto t = dyn_cast<RankedTensorType>(slice);
  if (!t)
    return UnrankedTensorType::get(cast<ShapedType>(slice).getElementType());
  SmallVector<int64_t> shape(t.getShape());
  if (axis < 0)
    axis += shape.size() + 1;
  shape.insert(shape.begin() + std::clamp<int64_t>(axis, 0, shape.size()), count);
  return RankedTensorType::get(shape, t.getElementType());
}

LogicalResult LoopOp::inferShapes() {
  YieldOp y = yieldOf(getBody());
  size_t nv = getVInitial().size();
  if (y.getNumOperands() < 1 + nv || getNumResults() != y.getNumOperands() - 1)
    return emitError("Loop body must yield the condition, the carried values and the scan outputs");
  int64_t trips = ShapedType::kDynamic;
  if (auto m = getConstantInts(getM()); m && m->size() == 1)
    trips = (*m)[0];
  for (size_t i = 0; i < nv; ++i)
    getResult(i).setType(getVInitial()[i].getType());
  for (size_t i = nv; i < getNumResults(); ++i)
    getResult(i).setType(stacked(y.getOperand(1 + i).getType(), trips, 0));
  return success();
}

LogicalResult ScanOp::inferShapes() {
  YieldOp y = yieldOf(getBody());
  int64_t nScan = getNumScanInputs();
  int64_t nState = getInitialStateAndScanInputs().size() - nScan;
  if (nState < 0 || (int64_t)y.getNumOperands() != (int64_t)getNumResults())
    return emitError("Scan body outputs do not match the op's results");
  int64_t len = ShapedType::kDynamic;
  if (nScan > 0) {
    auto first = dyn_cast<RankedTensorType>(getInitialStateAndScanInputs()[nState].getType());
    int64_t axis = getScanInputAxes() ? (*getScanInputAxes())[0] : 0;
    if (first && axis < 0)
      axis += first.getRank();
    if (first && axis >= 0 && axis < first.getRank())
      len = first.getDimSize(axis);
  }
  for (int64_t i = 0; i < (int64_t)getNumResults(); ++i) {
    if (i < nState) {
      getResult(i).setType(getInitialStateAndScanInputs()[i].getType());
      continue;
    }
    int64_t k = i - nState;
    int64_t axis = getScanOutputAxes() && k < (int64_t)getScanOutputAxes()->size()
                       ? (*getScanOutputAxes())[k]
                       : 0;
    getResult(i).setType(stacked(y.getOperand(i).getType(), len, axis));
  }
  return success();
}

} // namespace onnxc::onnx
