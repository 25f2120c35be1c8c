//===- CortexMDialect.cpp - QConvMaxPool, QConvNhwc: shapes, verifiers ----===//
#include "CortexMDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace onnxc::onnx;

#include "targets/cortex-m/CortexMDialect.cpp.inc"

namespace onnxc::cortexm {

void CortexMDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "targets/cortex-m/CortexMOps.cpp.inc"
      >();
}

LogicalResult QConvMaxPoolOp::inferShapes() {
  auto elt = cast<ShapedType>(getY().getType()).getElementType();
  if (failed(inferConvLike(getOperation(), getX(), getW(), getB(), elt)))
    return failure();
  auto y = dyn_cast<RankedTensorType>(getY().getType());
  if (!y)
    return success();
  // Whole windows only (verify() checks the rank and the window).
  ArrayRef<int64_t> pool = getMaxPool();
  SmallVector<int64_t> out(y.getShape());
  for (size_t d = 0; d < pool.size() && d + 2 < out.size(); ++d)
    out[2 + d] /= std::max<int64_t>(pool[d], 1);
  setResultType(getOperation(), 0, out, y.getElementType());
  return success();
}

LogicalResult QConvMaxPoolOp::verify() {
  ArrayRef<int64_t> pool = getMaxPool();
  auto x = dyn_cast<ShapedType>(getX().getType());
  if (pool.size() != 2 || pool[0] < 1 || pool[1] < 1 || (x && x.hasRank() && x.getRank() != 4))
    return emitOpError() << "max_pool must be two window sizes of a 2-D convolution";
  return verifyQConv(getOperation(), getX(), getW(), getWScale(), getActMin(), getActMax());
}

int64_t QConvMaxPoolOp::flops() {
  // As QConv's: the products of the (pooled) outputs.
  auto y = dyn_cast<ShapedType>(getY().getType());
  const int64_t outputs = y && y.hasStaticShape() ? y.getNumElements() : 0;
  return fusedConvFlops(outputs, getW(), Value(), Value(), "Identity");
}

LogicalResult QConvNhwcOp::inferShapes() {
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  auto w = dyn_cast<RankedTensorType>(getW().getType());
  auto elt = cast<ShapedType>(getY().getType()).getElementType();
  if (!x || !w || !x.hasStaticShape() || !w.hasStaticShape() || x.getRank() != 4 ||
      w.getRank() != 4)
    return setUnrankedResult(getOperation(), elt);
  // N x H x W x C: the window over (H, W), the output channels last.
  auto g = resolveWindow(getOperation(), x.getShape().slice(1, 2), w.getShape().drop_front(2),
                         false);
  if (failed(g))
    return failure();
  SmallVector<int64_t> out{x.getDimSize(0), g->outSpatial[0], g->outSpatial[1], w.getDimSize(0)};
  if (std::optional<ArrayRef<int64_t>> pool = getMaxPool())
    for (size_t d = 0; d < pool->size() && d < 2; ++d)
      out[1 + d] /= std::max<int64_t>((*pool)[d], 1);
  setResultType(getOperation(), 0, out, elt);
  return success();
}

LogicalResult QConvNhwcOp::verify() {
  auto x = dyn_cast<ShapedType>(getX().getType());
  if (x && x.hasRank() && x.getRank() != 4)
    return emitOpError() << "X must be an N x H x W x C tensor";
  if (getGroup() != 1)
    return emitOpError() << "takes dense convolutions (group 1)";
  if (std::optional<ArrayRef<int64_t>> pool = getMaxPool())
    if (pool->size() != 2 || (*pool)[0] < 1 || (*pool)[1] < 1)
      return emitOpError() << "max_pool must be two window sizes of a 2-D convolution";
  return success();
}

int64_t QConvNhwcOp::flops() {
  auto y = dyn_cast<ShapedType>(getY().getType());
  const int64_t outputs = y && y.hasStaticShape() ? y.getNumElements() : 0;
  return fusedConvFlops(outputs, getW(), Value(), Value(), "Identity");
}

} // namespace onnxc::cortexm

#define GET_OP_CLASSES
#include "targets/cortex-m/CortexMOps.cpp.inc"
