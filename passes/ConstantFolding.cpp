//===- ConstantFolding.cpp - onnxc-constant-folding ------------------------===//
#include "onnxc/Passes/PassUtils.h"
#include "onnxc/Lowering/KernelProvider.h"
#include "onnxc/Lowering/HostKernels.h"
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"
#include "onnxc/Passes/DataDependentDims.h"
#include "onnxc/Passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"

#include <cstring>

using namespace mlir;

namespace onnxc {
#define GEN_PASS_DEF_CONSTANTFOLDINGPASS
#include "onnxc/Passes/Passes.h.inc"

namespace {

int64_t bytesOf(Type t) {
  auto s = dyn_cast<ShapedType>(t);
  if (!s || !s.hasStaticShape())
    return -1;
  return s.getNumElements() * elementByteSize(s.getElementType());
}

/// Shape and Size only need the operand's (static) type, unless the data
/// decides the size of a dim they read (the type holds its bound).
SmallVector<Attribute> foldFromTypes(Operation *op, const DataDependentDimsAnalysis &runTimeDims) {
  auto t = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!t || !t.hasStaticShape())
    return {};
  ArrayRef<DataDependentDim> runTime = runTimeDims.dimsOf(op->getOperand(0));
  Builder b(op->getContext());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (isa<onnx::SizeOp>(op))
    return runTime.empty()
               ? SmallVector<Attribute>{DenseElementsAttr::get(
                     resultType, ArrayRef<int64_t>{t.getNumElements()})}
               : SmallVector<Attribute>{};
  auto shapeOp = cast<onnx::ShapeOp>(op);
  int64_t r = t.getRank();
  auto clampIdx = [&](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + r : i, 0, r); };
  int64_t start = clampIdx(shapeOp.getStart());
  int64_t end = shapeOp.getEnd() ? clampIdx(*shapeOp.getEnd()) : r;
  for (const DataDependentDim &d : runTime)
    if (d.dim >= start && d.dim < end)
      return {};
  SmallVector<int64_t> dims(t.getShape().begin() + start,
                            t.getShape().begin() + std::max(start, end));
  return {DenseElementsAttr::get(resultType, ArrayRef<int64_t>(dims))};
}

/// Evaluates `op` on its constant operands by running its kernel calls.
SmallVector<Attribute> foldWithKernels(Operation *op, int64_t maxGrowBytes) {
  int64_t inBytes = 0, outBytes = 0;
  for (Value v : op->getOperands())
    if (!onnx::isNone(v))
      inBytes += std::max<int64_t>(0, bytesOf(v.getType()));
  for (Value r : op->getResults()) {
    if (onnx::isNone(r))
      return {};
    int64_t b = bytesOf(r.getType());
    if (b < 0)
      return {};
    outBytes += b;
  }
  if (outBytes > std::max(inBytes, maxGrowBytes))
    return {};

  // The lowering reports why it cannot run an op; for folding that only
  // means "leave it", so its diagnostics are swallowed here.
  FailureOr<OpLowering> lowering = failure();
  {
    ScopedDiagnosticHandler quiet(op->getContext(), [](Diagnostic &) { return success(); });
    lowering = lowerWithReference(op);
  }
  if (failed(lowering))
    return {};

  llvm::DenseMap<Value, std::vector<char>> buffers;
  for (Value v : op->getOperands())
    if (!onnx::isNone(v))
      buffers[v] = rawBytesOf(onnx::getConstantElements(v));
  if (lowering->kind == OpLowering::Kind::Alias) {
    if (!lowering->calls.empty())
      return {};
    auto type = cast<ShapedType>(op->getResult(0).getType());
    return {elementsFromRawBytes(type, buffers[op->getOperand(0)])};
  }
  if (lowering->kind != OpLowering::Kind::Calls)
    return {};
  for (Value r : op->getResults())
    buffers[r] = std::vector<char>(bytesOf(r.getType()));
  std::vector<void *> tensors;
  for (const KernelCall &c : lowering->calls)
    for (const KernelArg &a : c.args)
      if (a.kind == KernelArg::Kind::Tensor)
        tensors.push_back(buffers[a.tensor].data());
  if (!runKernelCallsOnHost(lowering->calls, tensors))
    return {};
  // An op whose shape the data decides (NonZero on a constant mask) packed
  // its real tensor at the start of each bound-sized buffer: the constant
  // takes the real size.
  auto dataDependent = dyn_cast<onnx::DataDependentShape>(op);
  int64_t extent = -1;
  if (dataDependent)
    std::memcpy(&extent, buffers[dataDependent.getExtent()].data(), sizeof extent);
  SmallVector<Attribute> out;
  for (OpResult r : op->getResults()) {
    auto type = cast<RankedTensorType>(r.getType());
    if (int64_t d = dataDependent ? dataDependent.dataDependentDim(r.getResultNumber()) : -1;
        d >= 0) {
      if (extent < 0 || extent > type.getDimSize(d))
        return {};
      SmallVector<int64_t> shape(type.getShape());
      shape[d] = extent;
      type = type.clone(shape);
      buffers[r].resize(bytesOf(type));
    }
    out.push_back(elementsFromRawBytes(type, buffers[r]));
  }
  return out;
}

struct ConstantFolding : impl::ConstantFoldingPassBase<ConstantFolding> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<Operation *> ops;
    for (Operation &op : func.getBody().front())
      ops.push_back(&op);
    OpBuilder b(func.getContext());
    const DataDependentDimsAnalysis runTimeDims(func);
    for (Operation *op : ops) {
      if (isa<onnx::ConstantOp, onnx::NoValueOp>(op) || !isa<onnx::ONNXDialect>(op->getDialect()))
        continue;
      if (keepDequantize && isa<onnx::DequantizeLinearOp>(op))
        continue;
      if (failed(refreshTypes(op)))
        return signalPassFailure();
      // The ops' own fold hooks first (an Identity, a Reshape to the same
      // type, ...): they return an operand.
      SmallVector<Attribute> constants;
      for (Value v : op->getOperands())
        constants.push_back(onnx::getConstantElements(v));
      SmallVector<OpFoldResult> folded;
      if (succeeded(op->fold(constants, folded)) && folded.size() == op->getNumResults() &&
          llvm::all_of(folded, [](OpFoldResult r) { return isa<Value>(r); })) {
        for (auto [r, f] : llvm::zip(op->getResults(), folded))
          r.replaceAllUsesWith(cast<Value>(f));
        op->erase();
        continue;
      }
      SmallVector<Attribute> values;
      if (isa<onnx::ShapeOp, onnx::SizeOp>(op)) {
        values = foldFromTypes(op, runTimeDims);
      } else {
        bool allConstant = llvm::all_of(op->getOperands(), [](Value v) {
          return onnx::isNone(v) || onnx::getConstantElements(v);
        });
        if (allConstant && op->getNumOperands() > 0)
          values = foldWithKernels(op, maxGrowBytes);
      }
      if (values.empty())
        continue;
      b.setInsertionPoint(op);
      for (auto [r, v] : llvm::zip(op->getResults(), values)) {
        auto e = cast<ElementsAttr>(v);
        Value c = b.create<onnx::ConstantOp>(op->getLoc(), e.getShapedType(), e);
        r.replaceAllUsesWith(c);
      }
      op->erase();
    }
    updateFunctionResultTypes(func);
  }
};
} // namespace
} // namespace onnxc
