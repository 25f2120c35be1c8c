//===- MathOps.cpp - inference for math ops with their own rules -----------===//
#include "onnxc/Dialect/ONNX/ONNXDialect.h"

using namespace mlir;

namespace onnxc::onnx {

LogicalResult ClipOp::inferShapes() {
  for (Value bound : {getMin(), getMax()}) {
    if (isNone(bound))
      continue;
    auto t = dyn_cast<RankedTensorType>(bound.getType());
    if (t && t.getNumElements() != 1)
      return emitError("Clip's min and max must be scalars");
  }
  return inferSameAsOperand(getOperation(), 0);
}

LogicalResult WhereOp::inferShapes() {
  return inferBroadcast(getOperation(), /*boolResult=*/false);
}

LogicalResult MatMulOp::inferShapes() {
  auto a = dyn_cast<RankedTensorType>(getA().getType());
  auto b = dyn_cast<RankedTensorType>(getB().getType());
  Type elt = cast<ShapedType>(getA().getType()).getElementType();
  if (!a || !b) {
    getOperation()->getResult(0).setType(UnrankedTensorType::get(elt));
    return success();
  }
  if (a.getRank() == 0 || b.getRank() == 0)
    return emitError("MatMul operands must have rank >= 1");
  SmallVector<int64_t> as(a.getShape()), bs(b.getShape());
  // numpy.matmul: 1-D operands are promoted and the new dim removed after.
  bool aVec = as.size() == 1, bVec = bs.size() == 1;
  if (aVec)
    as.insert(as.begin(), 1);
  if (bVec)
    bs.push_back(1);
  int64_t k1 = as.back(), k2 = bs[bs.size() - 2];
  if (!ShapedType::isDynamic(k1) && !ShapedType::isDynamic(k2) && k1 != k2)
    return emitError() << "MatMul inner dimensions differ: " << a << " x " << b;
  auto batch = broadcastShapes(ArrayRef<int64_t>(as).drop_back(2),
                               ArrayRef<int64_t>(bs).drop_back(2));
  if (!batch)
    return emitError() << "MatMul batch dimensions cannot be broadcast: " << a
                       << " x " << b;
  SmallVector<int64_t> out(*batch);
  if (!aVec)
    out.push_back(as[as.size() - 2]);
  if (!bVec)
    out.push_back(bs.back());
  setResultType(getOperation(), 0, out, elt);
  return success();
}

LogicalResult GemmOp::inferShapes() {
  auto a = dyn_cast<RankedTensorType>(getA().getType());
  auto b = dyn_cast<RankedTensorType>(getB().getType());
  Type elt = cast<ShapedType>(getA().getType()).getElementType();
  if (!a || !b) {
    getOperation()->getResult(0).setType(UnrankedTensorType::get(elt));
    return success();
  }
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitError() << "Gemm operands must be 2-D, got " << a << " and " << b;
  int64_t m = getTransA() ? a.getDimSize(1) : a.getDimSize(0);
  int64_t k1 = getTransA() ? a.getDimSize(0) : a.getDimSize(1);
  int64_t k2 = getTransB() ? b.getDimSize(1) : b.getDimSize(0);
  int64_t n = getTransB() ? b.getDimSize(0) : b.getDimSize(1);
  if (!ShapedType::isDynamic(k1) && !ShapedType::isDynamic(k2) && k1 != k2)
    return emitError() << "Gemm inner dimensions differ (" << k1 << " vs " << k2
                       << ")";
  if (!isNone(getC())) {
    if (auto c = dyn_cast<RankedTensorType>(getC().getType())) {
      auto bc = broadcastShapes({m, n}, c.getShape());
      if (!bc || c.getRank() > 2 || (*bc)[0] != m || (*bc)[1] != n)
        return emitError() << "Gemm bias " << c
                           << " cannot be broadcast to " << m << "x" << n;
    }
  }
  setResultType(getOperation(), 0, {m, n}, elt);
  return success();
}

} // namespace onnxc::onnx
