//===- DataDependentRewrites.cpp - readers given a size the data decides --===//
//
// The rewrites of onnxc-data-dependent-dims (DataDependentRewrites.h): ops
// that read a size the data decides as a value, or change it, are given
// it as ordinary small integer ops; the analysis (DataDependentDims.cpp)
// then carries the sizes they make.
//
//===----------------------------------------------------------------------===//
#include "DataDependentRewrites.h"

#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Passes/PassUtils.h"

#include "llvm/ADT/STLExtras.h"

#include <limits>

using namespace mlir;

namespace onnxc {
namespace {

using onnx::getConstantInts;

ArrayRef<int64_t> shapeOf(Value v) { return cast<RankedTensorType>(v.getType()).getShape(); }

} // namespace

/// Compress with a condition computed at run time is Gather by the indices
/// of the condition's true elements: NonZero's, bounded like them.
LogicalResult expandRuntimeCompress(onnx::CompressOp op) {
  if (onnx::getConstantElements(op.getCondition()))
    return success();
  auto in = dyn_cast<RankedTensorType>(op.getInput().getType());
  auto cond = dyn_cast<RankedTensorType>(op.getCondition().getType());
  if (!in || !in.hasStaticShape() || !cond || !cond.hasStaticShape() || cond.getRank() != 1)
    return op.emitError("Compress needs a static input and a 1-D condition");
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value x = op.getInput();
  int64_t axis = 0;
  if (auto a = op.getAxis()) {
    axis = static_cast<int64_t>(*a);
    if (axis < 0)
      axis += in.getRank();
  } else {
    auto flat = buildOnnxOp(b, loc, "Reshape", {x, shapeConstant(b, loc, {in.getNumElements()})});
    if (failed(flat))
      return failure();
    x = *flat;
  }
  int64_t length = shapeOf(x)[axis];
  Value c = op.getCondition();
  if (cond.getDimSize(0) > length) { // elements past the input's are ignored
    Value none = b.create<onnx::NoValueOp>(loc, b.getNoneType());
    auto s = buildOnnxOp(b, loc, "Slice",
                         {c, shapeConstant(b, loc, {0}), shapeConstant(b, loc, {length}), none, none});
    if (failed(s))
      return failure();
    c = *s;
  }
  OperationState st(loc, onnx::NonZeroOp::getOperationName());
  st.addOperands(c);
  st.addTypes({UnrankedTensorType::get(b.getI64Type()), UnrankedTensorType::get(b.getI64Type())});
  Operation *nz = b.create(st);
  if (failed(refreshTypes(nz)))
    return failure();
  auto indices = buildOnnxOp(b, loc, "Squeeze", {nz->getResult(0), shapeConstant(b, loc, {0})});
  if (failed(indices))
    return failure();
  auto y = buildOnnxOp(b, loc, "Gather", {x, *indices},
                       {b.getNamedAttr("axis", b.getI64IntegerAttr(axis))});
  if (failed(y))
    return failure();
  op.getResult().replaceAllUsesWith(*y);
  op.erase();
  return success();
}

/// NonZero's [rank, count] result is packed (its rows count apart), so no
/// kernel reads it on the bound; the Transpose exporters put after it reads
/// NonZero's transposed form, [count, rank], whose rows are already apart.
void transposeNonZero(onnx::NonZeroOp op) {
  auto x = dyn_cast<RankedTensorType>(op.getX().getType());
  if (!x || x.getRank() < 2 || op->hasAttr(onnx::kTransposedNonZeroAttr))
    return;
  SmallVector<onnx::TransposeOp> transposes;
  for (Operation *user : op.getY().getUsers())
    if (auto t = dyn_cast<onnx::TransposeOp>(user);
        t && onnx::transposePerm(t, 2) == SmallVector<int64_t>{1, 0})
      transposes.push_back(t);
  if (transposes.empty())
    return;
  OpBuilder b(op);
  Operation *rowsFirst = b.clone(*op);
  rowsFirst->setAttr(onnx::kTransposedNonZeroAttr, b.getUnitAttr());
  (void)refreshTypes(rowsFirst);
  for (onnx::TransposeOp t : transposes) {
    t.getResult().replaceAllUsesWith(rowsFirst->getResult(0));
    t.erase();
  }
  if (op.getY().use_empty() && op.getExtent().use_empty())
    op.erase();
}

/// A scalar int64 constant (a size, a bound).
Value i64Scalar(OpBuilder &b, Location loc, int64_t v) {
  auto t = RankedTensorType::get({}, b.getI64Type());
  return b.create<onnx::ConstantOp>(loc, t, DenseElementsAttr::get(t, v));
}

namespace {

/// The row numbers 0 .. shape[dim) - 1 along `dim`, 1 along the other dims
/// of `shape`'s rank (to compare with a size, broadcast).
Value rowNumbers(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, int64_t dim) {
  SmallVector<int64_t> rowsShape(shape.size(), 1);
  rowsShape[dim] = shape[dim];
  auto type = RankedTensorType::get(rowsShape, b.getI64Type());
  SmallVector<int64_t> rows(shape[dim]);
  for (int64_t i = 0; i < shape[dim]; ++i)
    rows[i] = i;
  return b.create<onnx::ConstantOp>(loc, type, DenseElementsAttr::get(type, ArrayRef(rows)));
}

/// A Shape or Size reading dims whose size the data decides becomes the
/// run-time value: the fixed dims as constants, the others their extents.
LogicalResult shapeAtRunTime(Operation *op, ArrayRef<DataDependentDim> runTime,
                             DenseMap<Value, DataDependentDims> &given) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  auto shape = shapeOf(op->getOperand(0));
  // ConstantOfShape of it (torch's full_like, ones_like) fills the bound,
  // with the sizes of the dims it copies.
  if (auto s = dyn_cast<onnx::ShapeOp>(op)) {
    int64_t r = shape.size();
    auto clampIdx = [&](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + r : i, 0, r); };
    int64_t start = clampIdx(s.getStart()), end = s.getEnd() ? clampIdx(*s.getEnd()) : r;
    SmallVector<onnx::ConstantOfShapeOp> fills;
    for (Operation *user : op->getUsers())
      if (auto c = dyn_cast<onnx::ConstantOfShapeOp>(user))
        fills.push_back(c);
    for (onnx::ConstantOfShapeOp c : fills) {
      OpBuilder at(c);
      c->setOperand(0, shapeConstant(at, c.getLoc(), shape.slice(start, end - start)));
      if (failed(refreshTypes(c)))
        return failure();
      DataDependentDims dims;
      for (const DataDependentDim &d : runTime)
        if (d.dim >= start && d.dim < end)
          dims.push_back({d.dim - start, d.extent});
      given[c.getResult()] = dims;
    }
    if (op->use_empty()) {
      op->erase();
      return success();
    }
  }
  auto extentOf = [&](int64_t d) -> Value {
    for (const DataDependentDim &x : runTime)
      if (x.dim == d)
        return x.extent;
    return nullptr;
  };
  FailureOr<Value> result;
  if (isa<onnx::SizeOp>(op)) {
    result = i64Scalar(b, loc, 1);
    for (int64_t d = 0; d < (int64_t)shape.size() && succeeded(result); ++d) {
      Value e = extentOf(d);
      Value size = e ? e : i64Scalar(b, loc, shape[d]);
      result = buildOnnxOp(b, loc, "Mul", {*result, size});
    }
  } else {
    auto s = cast<onnx::ShapeOp>(op);
    int64_t r = shape.size();
    auto clampIdx = [&](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + r : i, 0, r); };
    int64_t start = clampIdx(s.getStart()), end = s.getEnd() ? clampIdx(*s.getEnd()) : r;
    SmallVector<Value> pieces;
    SmallVector<int64_t> fixed;
    auto flush = [&] {
      if (!fixed.empty())
        pieces.push_back(shapeConstant(b, loc, fixed));
      fixed.clear();
    };
    for (int64_t d = start; d < end; ++d) {
      Value e = extentOf(d);
      if (!e) {
        fixed.push_back(shape[d]);
        continue;
      }
      flush();
      auto one = buildOnnxOp(b, loc, "Reshape", {e, shapeConstant(b, loc, {1})});
      if (failed(one))
        return failure();
      pieces.push_back(*one);
    }
    flush();
    result = pieces.size() == 1
                 ? FailureOr<Value>(pieces.front())
                 : buildOnnxOp(b, loc, "Concat", pieces,
                               {b.getNamedAttr("axis", b.getI64IntegerAttr(0))});
  }
  if (failed(result))
    return failure();
  op->getResult(0).replaceAllUsesWith(*result);
  op->erase();
  return success();
}

/// Where(inside, x, fill): x where `inside` holds, `fill` elsewhere.
FailureOr<Value> keepInside(OpBuilder &b, Location loc, Value inside, Value x, Attribute fill) {
  auto fillType = RankedTensorType::get({}, cast<RankedTensorType>(x.getType()).getElementType());
  Value f = b.create<onnx::ConstantOp>(loc, fillType, DenseElementsAttr::get(fillType, fill));
  auto kept = buildOnnxOp(b, loc, "Where", {inside, x, f});
  if (succeeded(kept))
    kept->getDefiningOp()->setAttr(kRowsMaskedAttr, b.getUnitAttr());
  return kept;
}

/// A Where keeping x's rows before `extent` along `dim` and `fill` past it.
FailureOr<Value> keepRows(OpBuilder &b, Location loc, Value x, int64_t dim, Value extent,
                          Attribute fill) {
  Value rows = rowNumbers(b, loc, cast<RankedTensorType>(x.getType()).getShape(), dim);
  auto inside = buildOnnxOp(b, loc, "Less", {rows, extent});
  if (failed(inside))
    return failure();
  return keepInside(b, loc, *inside, x, fill);
}

/// Zero of `elt`; null for strings (nothing to zero in a reference).
Attribute zeroOf(OpBuilder &b, Type elt) {
  if (isa<FloatType>(elt))
    return b.getFloatAttr(elt, 0.0);
  if (isa<IntegerType>(elt))
    return b.getIntegerAttr(elt, 0);
  return {};
}

/// The value that leaves `op`'s reduction unchanged: the rows past a size
/// the data decides are given it.
FailureOr<Attribute> reductionIdentity(Operation *op, Type elt) {
  enum { Lowest, Highest, Zero, One } kind = Zero;
  if (isa<onnx::ReduceMaxOp, onnx::ArgMaxOp, onnx::ReduceLogSumExpOp, onnx::SoftmaxOp,
          onnx::LogSoftmaxOp>(op))
    kind = Lowest;
  else if (isa<onnx::ReduceMinOp, onnx::ArgMinOp>(op))
    kind = Highest;
  else if (isa<onnx::ReduceProdOp>(op))
    kind = One;
  Builder b(op->getContext());
  if (auto f = dyn_cast<FloatType>(elt)) {
    if (kind == Lowest || kind == Highest)
      return Attribute(FloatAttr::get(elt, APFloat::getInf(f.getFloatSemantics(), kind == Lowest)));
    return Attribute(FloatAttr::get(elt, kind == One ? 1.0 : 0.0));
  }
  if (auto i = dyn_cast<IntegerType>(elt)) {
    unsigned w = i.getWidth();
    bool isSigned = !i.isUnsigned() && w > 1;
    APInt v = kind == Lowest    ? (isSigned ? APInt::getSignedMinValue(w) : APInt::getMinValue(w))
              : kind == Highest ? (isSigned ? APInt::getSignedMaxValue(w) : APInt::getMaxValue(w))
                                : APInt(w, kind == One ? 1 : 0);
    return Attribute(IntegerAttr::get(elt, v));
  }
  return failure();
}

/// Gives a reduction over dim d.dim, whose size the data decides, only the
/// real rows: the rest take its identity (and a mean divides by the real
/// count: scaled by bound / size).
LogicalResult maskRowsPastSize(Operation *op, const DataDependentDim &d) {
  Value x = op->getOperand(0);
  auto t = cast<RankedTensorType>(x.getType());
  auto fill = reductionIdentity(op, t.getElementType());
  if (failed(fill))
    return emitError(op->getLoc()) << "reduces over a dim whose size the data decides, on "
                                   << t.getElementType() << " (not supported)";
  OpBuilder b(op);
  auto masked = keepRows(b, op->getLoc(), x, d.dim, d.extent, *fill);
  if (failed(masked))
    return failure();
  op->setOperand(0, *masked);
  op->setAttr(kRowsMaskedAttr, b.getUnitAttr());
  if (!isa<onnx::ReduceMeanOp>(op))
    return success();
  if (!t.getElementType().isF32())
    return emitError(op->getLoc())
           << "ReduceMean over a dim whose size the data decides is float32 only (not supported)";
  b.setInsertionPointAfter(op);
  Location loc = op->getLoc();
  auto f32 = RankedTensorType::get({}, b.getF32Type());
  Value bound = b.create<onnx::ConstantOp>(
      loc, f32, DenseElementsAttr::get(f32, static_cast<float>(t.getDimSize(d.dim))));
  auto count = buildOnnxOp(b, loc, "Cast", {d.extent}, {b.getNamedAttr("to", b.getI64IntegerAttr(1))});
  if (failed(count))
    return failure();
  auto scale = buildOnnxOp(b, loc, "Div", {bound, *count});
  if (failed(scale))
    return failure();
  Value y = op->getResult(0);
  auto scaled = buildOnnxOp(b, loc, "Mul", {y, *scale});
  if (failed(scaled))
    return failure();
  y.replaceAllUsesExcept(*scaled, scaled->getDefiningOp());
  return success();
}

/// `name`(operands) once: an identical op already before b's insertion
/// point is reused, so the same sizes summed twice are one value (a
/// NonMaxSuppression's boxes and scores then agree on their count).
FailureOr<Value> buildShared(OpBuilder &b, Location loc, StringRef name, ValueRange operands) {
  Operation *at = &*b.getInsertionPoint();
  for (Operation *user : operands.front().getUsers())
    if (user->getName().getStringRef() == ("onnx." + name).str() &&
        user->getOperands() == operands && user->getBlock() == at->getBlock() &&
        user->isBeforeInBlock(at))
      return user->getResult(0);
  return buildOnnxOp(b, loc, name, operands);
}

/// A Concat along dim `axis`, whose size the data decides in some operands,
/// packs the real rows: the Concat of the bounds (rows of operand i from
/// B_i = its bounds' prefix sum), then a Gather taking row j from
/// j + sum over i >= 1 with j >= S_i (the sizes' prefix sum) of
/// (bound_{i-1} - n_{i-1}). Its size is S_k; `given` records it.
LogicalResult packConcat(onnx::ConcatOp op, int64_t axis, ArrayRef<Value> sizes,
                         DenseMap<Value, DataDependentDims> &given) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Operation *padded = b.clone(*op);
  padded->setAttr(kPaddedRowsAttr, b.getUnitAttr());
  Value rows = rowNumbers(b, loc, {shapeOf(op.getResult())[axis]}, 0);
  FailureOr<Value> index = rows, prefix = sizes.front();
  for (unsigned i = 1; i < sizes.size() && succeeded(index); ++i) {
    int64_t bound = shapeOf(op.getInputs()[i - 1])[axis];
    auto past = buildOnnxOp(b, loc, "GreaterOrEqual", {rows, *prefix});
    if (failed(past))
      return failure();
    auto step = buildOnnxOp(b, loc, "Cast", {*past}, {b.getNamedAttr("to", b.getI64IntegerAttr(7))});
    auto gap = buildOnnxOp(b, loc, "Sub", {i64Scalar(b, loc, bound), sizes[i - 1]});
    if (failed(step) || failed(gap))
      return failure();
    auto shift = buildOnnxOp(b, loc, "Mul", {*step, *gap});
    if (failed(shift))
      return failure();
    index = buildOnnxOp(b, loc, "Add", {*index, *shift});
    prefix = buildShared(b, loc, "Add", {*prefix, sizes[i]});
    if (failed(prefix))
      return failure();
  }
  if (failed(index))
    return failure();
  auto packed = buildOnnxOp(b, loc, "Gather", {padded->getResult(0), *index},
                            {b.getNamedAttr("axis", b.getI64IntegerAttr(axis))});
  if (failed(packed))
    return failure();
  given[*packed] = {{axis, *prefix}};
  op.getResult().replaceAllUsesWith(*packed);
  op.erase();
  return success();
}

/// A Slice along one dim whose end is computed at run time (`x[:k]`; an If
/// choosing an empty result, onnxc-expand-control-flow) keeps its rows from
/// `start` to the bound (a Slice to the end) and sizes them at run time:
/// max(0, min(n, end) - start), a negative end counting from n. `given`
/// records it with the data's other such dims.
LogicalResult sliceToRunTimeEnd(onnx::SliceOp op, ArrayRef<DataDependentDim> inDims,
                                DenseMap<Value, DataDependentDims> &given) {
  auto starts = getConstantInts(op.getStarts());
  std::optional<SmallVector<int64_t>> axes = SmallVector<int64_t>{0}, steps = axes;
  if (!onnx::isNone(op.getAxes()))
    axes = getConstantInts(op.getAxes());
  (*steps)[0] = 1;
  if (!onnx::isNone(op.getSteps()))
    steps = getConstantInts(op.getSteps());
  auto data = dyn_cast<RankedTensorType>(op.getData().getType());
  if (!starts || !axes || !steps || starts->size() != 1 || axes->size() != 1 ||
      (*steps)[0] != 1 || (*starts)[0] < 0 || !data || !data.hasStaticShape())
    return emitError(op.getLoc()) << "Slice with bounds computed at run time is supported along "
                                     "one dim, from a constant start >= 0, step 1 (not supported)";
  int64_t dim = (*axes)[0] < 0 ? (*axes)[0] + data.getRank() : (*axes)[0];
  int64_t start = (*starts)[0];
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value n = i64Scalar(b, loc, data.getDimSize(dim));
  DataDependentDims out;
  for (const DataDependentDim &d : inDims)
    if (d.dim == dim)
      n = d.extent;
    else
      out.push_back(d);
  auto end = buildOnnxOp(b, loc, "Reshape", {op.getEnds(), shapeConstant(b, loc, {})});
  if (failed(end))
    return failure();
  auto negative = buildOnnxOp(b, loc, "Less", {*end, i64Scalar(b, loc, 0)});
  auto fromEnd = buildOnnxOp(b, loc, "Add", {*end, n});
  if (failed(negative) || failed(fromEnd))
    return failure();
  FailureOr<Value> size = buildOnnxOp(b, loc, "Where", {*negative, *fromEnd, *end});
  if (succeeded(size))
    size = buildOnnxOp(b, loc, "Min", {n, *size});
  if (succeeded(size))
    size = buildOnnxOp(b, loc, "Sub", {*size, i64Scalar(b, loc, start)});
  if (succeeded(size))
    size = buildOnnxOp(b, loc, "Max", {*size, i64Scalar(b, loc, 0)});
  if (failed(size))
    return failure();
  op.getEndsMutable().assign(shapeConstant(b, loc, {std::numeric_limits<int64_t>::max()}));
  if (failed(refreshTypes(op)))
    return failure();
  out.push_back({dim, *size});
  given[op.getResult()] = out;
  return success();
}

} // namespace

/// Gives sizes the data decides to the ops that read them as values: Shape
/// and Size become run-time values, TopK along such a dim gets it as `n`.
/// Rounds until nothing changes (a TopK's result may feed a Shape).
LogicalResult giveSizesToReaders(func::FuncOp func, const SliceExtentBuilder &sliceExtent,
                                 DenseMap<Value, DataDependentDims> &given) {
  for (bool changed = true; changed;) {
    changed = false;
    DataDependentDimsAnalysis dims(func, sliceExtent, &given);
    SmallVector<Operation *> shapes;
    SmallVector<std::pair<onnx::TopKOp, Value>> topks;
    SmallVector<std::pair<Operation *, DataDependentDim>> reductions;
    SmallVector<std::pair<onnx::ConcatOp, int64_t>> concats;
    SmallVector<std::pair<onnx::NonMaxSuppressionOp, Value>> boxCounts;
    SmallVector<onnx::SliceOp> runTimeEnds;
    func.walk([&](Operation *op) {
      if (auto c = dyn_cast<onnx::ConcatOp>(op); c && !c->hasAttr(kPaddedRowsAttr) &&
                                                 isa<RankedTensorType>(c.getType())) {
        int64_t rank = shapeOf(c.getResult()).size(), axis = static_cast<int64_t>(c.getAxis());
        axis = axis < 0 ? axis + rank : axis;
        for (Value v : c.getInputs())
          for (const DataDependentDim &d : dims.dimsOf(v))
            if (d.dim == axis && d.extent && !llvm::is_contained(concats, std::pair(c, axis)))
              concats.push_back({c, axis});
      }
      if (isRowReduction(op) && !op->hasAttr(kRowsMaskedAttr) &&
          isa<RankedTensorType>(op->getOperand(0).getType()))
        for (const DataDependentDim &d : dims.dimsOf(op->getOperand(0)))
          if (d.extent && llvm::is_contained(reducedAxes(op), d.dim)) {
            reductions.push_back({op, d});
            break;
          }
      if (isa<onnx::ShapeOp, onnx::SizeOp>(op) && !dims.dimsOf(op->getOperand(0)).empty() &&
          dims.dimsOf(op->getOperand(0)).front().extent)
        shapes.push_back(op);
      if (auto sl = dyn_cast<onnx::SliceOp>(op);
          sl && !getConstantInts(sl.getEnds()) && dims.dimsOf(sl.getEnds()).empty() &&
          llvm::all_of(dims.dimsOf(sl.getData()), [](const DataDependentDim &d) { return d.extent; }))
        runTimeEnds.push_back(sl);
      if (auto nms = dyn_cast<onnx::NonMaxSuppressionOp>(op); nms && onnx::isNone(nms.getN()))
        for (const DataDependentDim &d : dims.dimsOf(nms.getBoxes()))
          if (d.extent && d.dim == 1)
            boxCounts.push_back({nms, d.extent});
      if (auto t = dyn_cast<onnx::TopKOp>(op); t && onnx::isNone(t.getN()))
        if (auto x = dyn_cast<RankedTensorType>(t.getX().getType()))
          for (const DataDependentDim &d : dims.dimsOf(t.getX())) {
            int64_t axis = static_cast<int64_t>(t.getAxis());
            if (d.extent && d.dim == (axis < 0 ? axis + x.getRank() : axis))
              topks.push_back({t, d.extent});
          }
    });
    for (Operation *op : shapes) {
      SmallVector<DataDependentDim> runTime(dims.dimsOf(op->getOperand(0)));
      if (failed(shapeAtRunTime(op, runTime, given)))
        return failure();
      changed = true;
    }
    for (onnx::SliceOp sl : runTimeEnds) {
      SmallVector<DataDependentDim> inDims(dims.dimsOf(sl.getData()));
      if (failed(sliceToRunTimeEnd(sl, inDims, given)))
        return failure();
      changed = true;
    }
    for (auto [nms, extent] : boxCounts) {
      nms.getNMutable().assign(extent);
      changed = true;
    }
    for (auto [t, extent] : topks) {
      t.getNMutable().assign(extent);
      changed = true;
    }
    for (auto [c, axis] : concats) {
      // Each operand's size along axis: its run's, or its fixed size.
      SmallVector<Value> sizes;
      OpBuilder b(c);
      for (Value v : c.getInputs()) {
        Value size;
        for (const DataDependentDim &d : dims.dimsOf(v))
          if (d.dim == axis)
            size = d.extent;
          else
            return emitError(c.getLoc())
                   << "joins values whose sizes the data decides along dim " << axis
                   << " that have such a size along another dim too (not supported)";
        if (!size)
          size = i64Scalar(b, c.getLoc(), shapeOf(v)[axis]);
        sizes.push_back(size);
      }
      if (failed(packConcat(c, axis, sizes, given)))
        return failure();
      changed = true;
    }
    for (auto [op, d] : reductions) {
      if (failed(maskRowsPastSize(op, d)))
        return failure();
      changed = true;
    }
    WalkResult typed = func.walk([](Operation *op) {
      return failed(refreshTypes(op)) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (typed.wasInterrupted())
      return failure();
  }
  return success();
}

/// `x` with the rows past its size along `dim` zeroed (graph outputs: the
/// header promises zeros there).
FailureOr<Value> zeroPastExtent(OpBuilder &b, Location loc, Value x, int64_t dim, Value extent) {
  Attribute zero = zeroOf(b, cast<RankedTensorType>(x.getType()).getElementType());
  return zero ? keepRows(b, loc, x, dim, extent, zero) : FailureOr<Value>(x);
}

/// `x` (its size along `dim` the data decides: `extent` rows of the bound)
/// packed as graph outputs promise: the (outer, extent, inner) tensor dense
/// from the buffer's start, zeros after. Where `dim` comes after dims larger
/// than 1 the rows on the bound are not that tensor, so each position p of
/// the packed buffer gathers outer block a = p / (extent x inner) at offset
/// p mod (extent x inner) of the bound's block a; p past outer x extent x
/// inner gets zero.
FailureOr<Value> packPastExtent(OpBuilder &b, Location loc, Value x, int64_t dim, Value extent) {
  auto t = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> shape = t.getShape();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d)
    (d < dim ? outer : inner) *= d == dim ? 1 : shape[d];
  const int64_t n = outer * shape[dim] * inner;
  auto flatType = RankedTensorType::get({n}, b.getI64Type());
  SmallVector<int64_t> positions(n);
  for (int64_t p = 0; p < n; ++p)
    positions[p] = p;
  Value pos = b.create<onnx::ConstantOp>(loc, flatType,
                                         DenseElementsAttr::get(flatType, ArrayRef(positions)));
  auto shapeConst = [&](ArrayRef<int64_t> v) -> Value {
    auto type = RankedTensorType::get({int64_t(v.size())}, b.getI64Type());
    return b.create<onnx::ConstantOp>(loc, type, DenseElementsAttr::get(type, v));
  };
  auto op = [&](StringRef name, ValueRange operands) { return buildOnnxOp(b, loc, name, operands); };
  auto block = op("Mul", {extent, i64Scalar(b, loc, inner)}); // extent x inner
  if (failed(block))
    return failure();
  auto divisor = op("Max", {*block, i64Scalar(b, loc, 1)}); // extent 0: no p is kept
  auto packedSize = op("Mul", {*block, i64Scalar(b, loc, outer)});
  if (failed(divisor) || failed(packedSize))
    return failure();
  auto a = op("Div", {pos, *divisor});
  if (failed(a))
    return failure();
  auto aStart = op("Mul", {*a, *divisor});
  auto boundStart = op("Mul", {*a, i64Scalar(b, loc, shape[dim] * inner)});
  auto kept = op("Less", {pos, *packedSize});
  if (failed(aStart) || failed(boundStart) || failed(kept))
    return failure();
  auto offset = op("Sub", {pos, *aStart});
  if (failed(offset))
    return failure();
  auto source = op("Add", {*boundStart, *offset});
  if (failed(source))
    return failure();
  auto inRange = op("Where", {*kept, *source, i64Scalar(b, loc, 0)});
  auto flat = op("Reshape", {x, shapeConst({n})});
  if (failed(inRange) || failed(flat))
    return failure();
  auto gathered = op("Gather", {*flat, *inRange});
  if (failed(gathered))
    return failure();
  // Positions past the packed size gathered position 0: zero them.
  Attribute zero = zeroOf(b, t.getElementType());
  auto packed = zero ? keepInside(b, loc, *kept, *gathered, zero) : gathered;
  if (failed(packed))
    return failure();
  return op("Reshape", {*packed, shapeConst(shape)});
}

} // namespace onnxc
