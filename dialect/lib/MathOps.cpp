//===- MathOps.cpp - inference for math ops with their own rules -----------===//
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"

#include <map>

using namespace mlir;

namespace onnxc::onnx {

// Not folds at import already: conditions of If and Loop built from
// OptionalHasElement must be known while sequences are expanded.
OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  auto in = dyn_cast_or_null<DenseElementsAttr>(adaptor.getX());
  if (!in || !in.getElementType().isInteger(1))
    return nullptr;
  SmallVector<bool> out;
  for (bool b : in.getValues<bool>())
    out.push_back(!b);
  return DenseElementsAttr::get(in.getType(), out);
}

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

/// numpy.matmul's shape rule, shared by MatMul, MatMulInteger and QLinearMatMul.
static LogicalResult inferMatMulLike(Operation *op, Value av, Value bv, Type elt) {
  auto a = dyn_cast<RankedTensorType>(av.getType());
  auto b = dyn_cast<RankedTensorType>(bv.getType());
  if (!a || !b) {
    op->getResult(0).setType(UnrankedTensorType::get(elt));
    return success();
  }
  if (a.getRank() == 0 || b.getRank() == 0)
    return op->emitError("MatMul operands must have rank >= 1");
  SmallVector<int64_t> as(a.getShape()), bs(b.getShape());
  // numpy.matmul: 1-D operands are promoted and the new dim removed after.
  bool aVec = as.size() == 1, bVec = bs.size() == 1;
  if (aVec)
    as.insert(as.begin(), 1);
  if (bVec)
    bs.push_back(1);
  int64_t k1 = as.back(), k2 = bs[bs.size() - 2];
  if (!ShapedType::isDynamic(k1) && !ShapedType::isDynamic(k2) && k1 != k2)
    return op->emitError() << "MatMul inner dimensions differ: " << a << " x " << b;
  auto batch = broadcastShapes(ArrayRef<int64_t>(as).drop_back(2),
                               ArrayRef<int64_t>(bs).drop_back(2));
  if (!batch)
    return op->emitError() << "MatMul batch dimensions cannot be broadcast: " << a
                           << " x " << b;
  SmallVector<int64_t> out(*batch);
  if (!aVec)
    out.push_back(as[as.size() - 2]);
  if (!bVec)
    out.push_back(bs.back());
  setResultType(op, 0, out, elt);
  return success();
}

LogicalResult MatMulOp::inferShapes() {
  return inferMatMulLike(getOperation(), getA(), getB(),
                         cast<ShapedType>(getA().getType()).getElementType());
}

LogicalResult MatMulIntegerOp::inferShapes() {
  return inferMatMulLike(getOperation(), getA(), getB(), IntegerType::get(getContext(), 32));
}

LogicalResult QLinearMatMulOp::inferShapes() {
  return inferMatMulLike(getOperation(), getA(), getB(),
                         cast<ShapedType>(getYZeroPoint().getType()).getElementType());
}

LogicalResult QMatMulOp::inferShapes() {
  return inferMatMulLike(getOperation(), getA(), getW(),
                         cast<ShapedType>(getY().getType()).getElementType());
}

/// Gemm and FusedGemm share one shape rule.
static LogicalResult inferGemmLike(Operation *op, Value av, Value bv, Value cv, bool transA,
                                   bool transB) {
  auto a = dyn_cast<RankedTensorType>(av.getType());
  auto b = dyn_cast<RankedTensorType>(bv.getType());
  Type elt = cast<ShapedType>(av.getType()).getElementType();
  if (!a || !b)
    return setUnrankedResult(op, elt);
  if (a.getRank() != 2 || b.getRank() != 2)
    return op->emitError() << "Gemm operands must be 2-D, got " << a << " and " << b;
  int64_t m = transA ? a.getDimSize(1) : a.getDimSize(0);
  int64_t k1 = transA ? a.getDimSize(0) : a.getDimSize(1);
  int64_t k2 = transB ? b.getDimSize(1) : b.getDimSize(0);
  int64_t n = transB ? b.getDimSize(0) : b.getDimSize(1);
  if (!ShapedType::isDynamic(k1) && !ShapedType::isDynamic(k2) && k1 != k2)
    return op->emitError() << "Gemm inner dimensions differ (" << k1 << " vs " << k2
                           << ")";
  if (!isNone(cv)) {
    if (auto c = dyn_cast<RankedTensorType>(cv.getType())) {
      auto bc = broadcastShapes({m, n}, c.getShape());
      if (!bc || c.getRank() > 2 || (*bc)[0] != m || (*bc)[1] != n)
        return op->emitError() << "Gemm bias " << c
                               << " cannot be broadcast to " << m << "x" << n;
    }
  }
  setResultType(op, 0, {m, n}, elt);
  return success();
}

LogicalResult GemmOp::inferShapes() {
  return inferGemmLike(getOperation(), getA(), getB(), getC(), getTransA(), getTransB());
}

LogicalResult FusedGemmOp::inferShapes() {
  return inferGemmLike(getOperation(), getA(), getB(), getC(), getTransA(), getTransB());
}

LogicalResult FusedGemmOp::verify() {
  if (!isFusedActivation(getContext(), getActivation()))
    return emitOpError() << "unknown activation '" << getActivation() << "'";
  return success();
}

FailureOr<EinsumGeometry> resolveEinsum(Operation *op) {
  auto e = cast<EinsumOp>(op);
  std::string eq;
  for (char c : e.getEquation())
    if (c != ' ')
      eq.push_back(c);
  size_t arrow = eq.find("->");
  std::string lhs = arrow == std::string::npos ? eq : eq.substr(0, arrow);
  SmallVector<std::string> terms;
  {
    size_t start = 0, comma;
    while ((comma = lhs.find(',', start)) != std::string::npos) {
      terms.push_back(lhs.substr(start, comma - start));
      start = comma + 1;
    }
    terms.push_back(lhs.substr(start));
  }
  if (terms.size() != e.getInputs().size())
    return op->emitError() << "Einsum equation has " << terms.size() << " operands, the op "
                           << e.getInputs().size();
  EinsumGeometry g;
  // Labels are letters; an ellipsis stands for the operand's leftover dims,
  // labelled '0', '1', ... counted from the right (numpy's alignment).
  int64_t ellipsisRank = 0;
  auto expand = [&](const std::string &t, int64_t rank) -> std::string {
    size_t dots = t.find("...");
    if (dots == std::string::npos)
      return t;
    int64_t n = rank - (int64_t)(t.size() - 3);
    ellipsisRank = std::max(ellipsisRank, n);
    std::string mid;
    for (int64_t i = n - 1; i >= 0; --i)
      mid.push_back(char('0' + i));
    return t.substr(0, dots) + mid + t.substr(dots + 3);
  };
  std::map<char, int64_t> ids, count;
  for (auto [t0, v] : llvm::zip(terms, e.getInputs())) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape())
      return failure();
    std::string t = expand(t0, type.getRank());
    if ((int64_t)t.size() != type.getRank())
      return op->emitError() << "Einsum term '" << t0 << "' does not match rank "
                             << type.getRank();
    SmallVector<int64_t> labels;
    for (auto [i, c] : llvm::enumerate(t)) {
      if (!std::isalnum(static_cast<unsigned char>(c)))
        return op->emitError() << "Einsum label '" << c << "' is not a letter";
      auto [it, fresh] = ids.emplace(c, g.labelSizes.size());
      if (fresh)
        g.labelSizes.push_back(type.getDimSize(i));
      else if (g.labelSizes[it->second] != type.getDimSize(i))
        return op->emitError() << "Einsum label '" << c << "' has sizes "
                               << g.labelSizes[it->second] << " and " << type.getDimSize(i);
      labels.push_back(it->second);
      ++count[c];
    }
    g.operandLabels.push_back(labels);
  }
  if (arrow != std::string::npos) {
    std::string rhs = eq.substr(arrow + 2);
    if (size_t dots = rhs.find("..."); dots != std::string::npos) {
      std::string mid;
      for (int64_t i = ellipsisRank - 1; i >= 0; --i)
        mid.push_back(char('0' + i));
      rhs = rhs.substr(0, dots) + mid + rhs.substr(dots + 3);
    }
    for (char c : rhs) {
      auto it = ids.find(c);
      if (it == ids.end())
        return op->emitError() << "Einsum output label '" << c << "' is not an input label";
      g.outputLabels.push_back(it->second);
    }
  } else { // implicit: the ellipsis dims, then labels seen once, alphabetically
    for (int64_t i = ellipsisRank - 1; i >= 0; --i)
      g.outputLabels.push_back(ids[char('0' + i)]);
    for (auto [c, n] : count)
      if (n == 1 && std::isalpha(static_cast<unsigned char>(c)))
        g.outputLabels.push_back(ids[c]);
  }
  return g;
}

LogicalResult EinsumOp::inferShapes() {
  Type elt = cast<ShapedType>(getInputs().front().getType()).getElementType();
  auto g = resolveEinsum(getOperation());
  if (failed(g)) {
    for (Value v : getInputs()) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t || !t.hasStaticShape()) { // not resolvable yet
        getOperation()->getResult(0).setType(UnrankedTensorType::get(elt));
        return success();
      }
    }
    return failure();
  }
  SmallVector<int64_t> out;
  for (int64_t l : g->outputLabels)
    out.push_back(g->labelSizes[l]);
  setResultType(getOperation(), 0, out, elt);
  return success();
}

LogicalResult DetOp::inferShapes() {
  Type elt = cast<ShapedType>(getX().getType()).getElementType();
  auto t = dyn_cast<RankedTensorType>(getX().getType());
  if (!t)
    return setUnrankedResult(getOperation(), elt);
  if (t.getRank() < 2 || t.getDimSize(t.getRank() - 1) != t.getDimSize(t.getRank() - 2))
    return emitError() << "Det needs square matrices, got " << t;
  setResultType(getOperation(), 0, t.getShape().drop_back(2), elt);
  return success();
}

LogicalResult inferWindow(Operation *op) {
  int64_t dt = op->getAttrOfType<IntegerAttr>("output_datatype")
                   ? op->getAttrOfType<IntegerAttr>("output_datatype").getInt()
                   : 1;
  Type elt = elementTypeFromOnnx(op->getContext(), dt);
  if (!elt)
    return op->emitError() << "output_datatype " << onnxTypeName(dt) << " is not supported";
  auto size = getConstantInts(op->getOperand(0));
  setResultType(op, 0, {size && size->size() == 1 ? (*size)[0] : ShapedType::kDynamic}, elt);
  return success();
}

} // namespace onnxc::onnx
