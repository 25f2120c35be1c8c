//===- ShapeInference.cpp - inference rules shared by many ops -------------===//
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace onnxc::onnx {

bool isNone(Value v) { return !v || isa<NoneType>(v.getType()); }

void setResultType(Operation *op, unsigned i, ArrayRef<int64_t> shape,
                   Type elementType) {
  op->getResult(i).setType(RankedTensorType::get(shape, elementType));
}

LogicalResult checkResultSizes(Operation *op) {
  for (OpResult r : op->getResults()) {
    auto t = dyn_cast<RankedTensorType>(r.getType());
    if (!t || !t.hasStaticShape() || checkedTensorBytes(t.getShape(), t.getElementType()) >= 0)
      continue;
    InFlightDiagnostic d = op->emitError() << "result " << r.getResultNumber() << " of shape [";
    llvm::interleave(t.getShape(), d, " x ");
    return d << "] is larger than onnxc addresses (" << (kMaxTensorBytes >> 40) << " TiB)";
  }
  return success();
}

LogicalResult setUnrankedResult(Operation *op, Type elementType) {
  op->getResult(0).setType(UnrankedTensorType::get(elementType));
  return success();
}

static void setUnranked(Operation *op, unsigned i, Type elementType) {
  op->getResult(i).setType(UnrankedTensorType::get(elementType));
}

FailureOr<int64_t> normalizeAxis(Operation *op, int64_t axis, int64_t rank,
                                 StringRef what) {
  if (axis < -rank || axis >= rank) {
    op->emitError() << what << " " << axis << " is out of range for rank "
                    << rank;
    return failure();
  }
  return axis < 0 ? axis + rank : axis;
}

ElementsAttr getConstantElements(Value v) {
  if (!v)
    return nullptr;
  if (auto c = v.getDefiningOp<ConstantOp>())
    return c.getValue();
  return nullptr;
}

std::optional<SmallVector<int64_t>> getConstantInts(Value v) {
  ElementsAttr e = getConstantElements(v);
  if (!e || !isa<IntegerType>(e.getElementType()))
    return std::nullopt;
  SmallVector<int64_t> out;
  for (APInt x : e.getValues<APInt>())
    out.push_back(x.getSExtValue());
  return out;
}

std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                    ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == 1)
      out[i] = db;
    else if (db == 1)
      out[i] = da;
    else if (ShapedType::isDynamic(da) || ShapedType::isDynamic(db))
      out[i] = ShapedType::isDynamic(da) ? db : da;
    else if (da == db)
      out[i] = da;
    else
      return std::nullopt;
  }
  return out;
}

LogicalResult inferSameAsOperand(Operation *op, unsigned operand) {
  op->getResult(0).setType(op->getOperand(operand).getType());
  return success();
}

LogicalResult inferBoolLike(Operation *op, unsigned operand) {
  Type i1 = IntegerType::get(op->getContext(), 1);
  auto t = dyn_cast<RankedTensorType>(op->getOperand(operand).getType());
  op->getResult(0).setType(t ? Type(RankedTensorType::get(t.getShape(), i1))
                             : Type(UnrankedTensorType::get(i1)));
  return success();
}

LogicalResult inferBroadcast(Operation *op, bool boolResult) {
  Type elt = cast<ShapedType>(op->getOperand(0).getType()).getElementType();
  // Where's first operand is the bool condition: take the data type from X.
  if (isa<WhereOp>(op))
    elt = cast<ShapedType>(op->getOperand(1).getType()).getElementType();
  Type resultElt = boolResult ? IntegerType::get(op->getContext(), 1) : elt;
  SmallVector<int64_t> shape;
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t) {
      setUnranked(op, 0, resultElt);
      return success();
    }
    if (i == 0) {
      shape.assign(t.getShape().begin(), t.getShape().end());
      continue;
    }
    auto b = broadcastShapes(shape, t.getShape());
    if (!b)
      return op->emitError() << "operand shapes " << op->getOperand(0).getType()
                             << " and " << t << " cannot be broadcast together";
    shape = *b;
  }
  setResultType(op, 0, shape, resultElt);
  return success();
}

FailureOr<SmallVector<int64_t>> resolveReduceAxes(Operation *op, int64_t rank) {
  SmallVector<int64_t> axes;
  if (auto a = op->getAttrOfType<DenseI64ArrayAttr>("axes"))
    axes.assign(a.asArrayRef().begin(), a.asArrayRef().end());
  if (axes.empty()) {
    auto noop = op->getAttrOfType<IntegerAttr>("noop_with_empty_axes");
    if (noop && noop.getInt() != 0)
      return axes; // reduces nothing
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
    return axes;
  }
  for (int64_t &a : axes) {
    auto n = normalizeAxis(op, a, rank, "reduction axis");
    if (failed(n))
      return failure();
    a = *n;
  }
  llvm::sort(axes);
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    return op->emitError("reduction axes repeat an axis");
  return axes;
}

LogicalResult inferReduce(Operation *op) {
  auto t = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  Type elt = cast<ShapedType>(op->getOperand(0).getType()).getElementType();
  if (!t) {
    setUnranked(op, 0, elt);
    return success();
  }
  auto axes = resolveReduceAxes(op, t.getRank());
  if (failed(axes))
    return failure();
  bool keep = op->getAttrOfType<IntegerAttr>("keepdims")
                  ? op->getAttrOfType<IntegerAttr>("keepdims").getInt() != 0
                  : true;
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < t.getRank(); ++i) {
    if (llvm::is_contained(*axes, i)) {
      if (keep)
        shape.push_back(1);
    } else {
      shape.push_back(t.getDimSize(i));
    }
  }
  setResultType(op, 0, shape, elt);
  return success();
}

LogicalResult inferArgReduce(Operation *op) {
  auto t = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  Type i64 = IntegerType::get(op->getContext(), 64);
  if (!t) {
    setUnranked(op, 0, i64);
    return success();
  }
  auto axis = normalizeAxis(op, op->getAttrOfType<IntegerAttr>("axis")
                                    ? op->getAttrOfType<IntegerAttr>("axis").getInt()
                                    : 0,
                            t.getRank(), "axis");
  if (failed(axis))
    return failure();
  auto keepAttr = op->getAttrOfType<IntegerAttr>("keepdims");
  bool keep = !keepAttr || keepAttr.getInt() != 0;
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < t.getRank(); ++i) {
    if (i == *axis) {
      if (keep)
        shape.push_back(1);
    } else {
      shape.push_back(t.getDimSize(i));
    }
  }
  setResultType(op, 0, shape, i64);
  return success();
}

FailureOr<WindowGeometry> resolveWindow(Operation *op, ArrayRef<int64_t> in,
                                        ArrayRef<int64_t> kernel,
                                        bool ceilMode) {
  size_t n = in.size();
  WindowGeometry g;
  g.kernel.assign(kernel.begin(), kernel.end());
  if (kernel.size() != n)
    return op->emitError() << "kernel has " << kernel.size()
                           << " spatial dims but the input has " << n;
  auto arr = [&](StringRef name, int64_t dflt,
                 size_t count) -> FailureOr<SmallVector<int64_t>> {
    SmallVector<int64_t> v(count, dflt);
    if (auto a = op->getAttrOfType<DenseI64ArrayAttr>(name)) {
      if (a.size() != static_cast<int64_t>(count))
        return op->emitError() << "attribute '" << name << "' has " << a.size()
                               << " values, expected " << count;
      v.assign(a.asArrayRef().begin(), a.asArrayRef().end());
    }
    return v;
  };
  auto strides = arr("strides", 1, n);
  auto dilations = arr("dilations", 1, n);
  auto pads = arr("pads", 0, 2 * n);
  if (failed(strides) || failed(dilations) || failed(pads))
    return failure();
  g.strides = *strides;
  g.dilations = *dilations;
  StringRef autoPad = "NOTSET";
  if (auto a = op->getAttrOfType<StringAttr>("auto_pad"))
    autoPad = a.getValue();
  for (size_t i = 0; i < n; ++i) {
    if (g.strides[i] < 1 || g.dilations[i] < 1 || g.kernel[i] < 1)
      return op->emitError("strides, dilations and kernel sizes must be >= 1");
    int64_t span = (g.kernel[i] - 1) * g.dilations[i] + 1;
    int64_t pb = (*pads)[i], pe = (*pads)[i + n], out;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      out = (in[i] + g.strides[i] - 1) / g.strides[i];
      int64_t total = std::max<int64_t>(0, (out - 1) * g.strides[i] + span - in[i]);
      pb = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe = total - pb;
    } else if (autoPad == "VALID") {
      pb = pe = 0;
      out = (in[i] - span) / g.strides[i] + 1;
    } else if (autoPad == "NOTSET") {
      int64_t extent = in[i] + pb + pe - span;
      if (extent < 0)
        return op->emitError() << "the window (" << span
                               << ") is larger than the padded input ("
                               << in[i] + pb + pe << ")";
      out = ceilMode ? (extent + g.strides[i] - 1) / g.strides[i] + 1
                     : extent / g.strides[i] + 1;
      // A window may not start inside the end padding (ONNX, PyTorch).
      if (ceilMode && (out - 1) * g.strides[i] >= in[i] + pb)
        --out;
    } else {
      return op->emitError() << "unknown auto_pad value '" << autoPad << "'";
    }
    if (out < 1)
      return op->emitError("the window produces an empty output");
    g.padsBegin.push_back(pb);
    g.padsEnd.push_back(pe);
    g.outSpatial.push_back(out);
  }
  return g;
}

SmallVector<int64_t> transposePerm(Operation *op, int64_t rank) {
  SmallVector<int64_t> perm;
  if (auto p = op->getAttrOfType<DenseI64ArrayAttr>("perm"))
    perm.assign(p.asArrayRef().begin(), p.asArrayRef().end());
  else
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  return perm;
}

} // namespace onnxc::onnx
