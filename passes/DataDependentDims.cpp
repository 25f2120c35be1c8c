//===- DataDependentDims.cpp - onnxc-data-dependent-dims --------------------===//
#include "onnxc/Passes/DataDependentDims.h"

#include "onnxc/Dialect/ONNX/NodeNames.h"
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Passes/PassUtils.h"
#include "onnxc/Passes/Passes.h"

#include "llvm/ADT/STLExtras.h"

#include <limits>

using namespace mlir;

namespace onnxc {
#define GEN_PASS_DEF_DATADEPENDENTDIMSPASS
#include "onnxc/Passes/Passes.h.inc"

std::string nodeLabel(Operation *op) {
  std::string name = nodeNameOf(op->getLoc());
  return name.empty() ? op->getName().getStringRef().str() : name;
}

namespace {

using onnx::getConstantInts;

ArrayRef<int64_t> shapeOf(Value v) { return cast<RankedTensorType>(v.getType()).getShape(); }

int64_t product(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

/// Each output element is a function of the elements at the same index of
/// its (numpy-broadcast) operands.
bool isElementwise(Operation *op) {
  return op->hasTrait<onnx::ElementFunction>() || op->hasTrait<onnx::InPlaceAnyOperand>() ||
         isa<onnx::CastOp, onnx::IsNaNOp, onnx::IsInfOp, onnx::MaxOp, onnx::MinOp, onnx::SumOp,
             onnx::MeanOp>(op);
}

/// On a reduction or Softmax over a dim whose size the data decides: its
/// operand's rows past the size hold the reduction's identity.
constexpr const char *kRowsMaskedAttr = "onnxc.rows_masked";

/// On a Concat along a dim whose size the data decides: its result holds
/// each operand's bound of rows, the real ones not yet together (a Gather,
/// the only reader, packs them).
constexpr const char *kPaddedRowsAttr = "onnxc.padded_rows";

/// Reductions along axes (ReduceX, ArgMax/ArgMin, Softmax/LogSoftmax: the
/// rows along the axis are one result, or normalised together).
bool isRowReduction(Operation *op) {
  return isa<onnx::ReduceMeanOp, onnx::ReduceSumOp, onnx::ReduceMaxOp, onnx::ReduceMinOp,
             onnx::ReduceProdOp, onnx::ReduceSumSquareOp, onnx::ReduceL1Op, onnx::ReduceL2Op,
             onnx::ReduceLogSumOp, onnx::ReduceLogSumExpOp, onnx::ArgMaxOp, onnx::ArgMinOp,
             onnx::SoftmaxOp, onnx::LogSoftmaxOp>(op);
}

/// The axes a row reduction reduces (normalised).
SmallVector<int64_t> reducedAxes(Operation *op) {
  int64_t rank = shapeOf(op->getOperand(0)).size();
  if (auto a = op->getAttrOfType<IntegerAttr>("axis")) { // ArgMax, Softmax
    int64_t axis = a.getInt();
    return {axis < 0 ? axis + rank : axis};
  }
  auto axes = onnx::resolveReduceAxes(op, rank);
  return succeeded(axes) ? *axes : SmallVector<int64_t>();
}

/// Why `op` cannot carry its operands' data-dependent dims, or "" when it
/// can; `out` receives each result's dims.
using Carried = SmallVector<DataDependentDims>;
std::string carry(Operation *op, ArrayRef<DataDependentDims> in, Carried &out,
                  const SliceExtentBuilder &sliceExtent) {
  out.assign(op->getNumResults(), {});
  // Gives result `r` operand dim `from`'s size at dim `to`; two sizes on one
  // dim must be the same run-time value.
  auto give = [&](unsigned r, int64_t to, const DataDependentDim &from) -> std::string {
    for (DataDependentDim &d : out[r])
      if (d.dim == to) {
        if (d.extent != from.extent)
          return "two sizes the data decides meet on dim " + std::to_string(to);
        return "";
      }
    out[r].push_back({to, from.extent});
    return "";
  };
  if (op->getNumResults() == 0 || !isa<RankedTensorType>(op->getResult(0).getType()))
    return "its result has no known shape";
  auto outShape = shapeOf(op->getResult(0));

  if (isElementwise(op)) {
    int64_t rank = outShape.size();
    for (auto [i, dims] : llvm::enumerate(in)) {
      auto s = shapeOf(op->getOperand(i));
      for (const DataDependentDim &d : dims) {
        int64_t to = d.dim + rank - (int64_t)s.size();
        if (s[d.dim] != outShape[to])
          return "the size the data decides would be broadcast";
        if (std::string e = give(0, to, d); !e.empty())
          return e;
      }
    }
    // Another operand's fixed size on such a dim must be 1 (broadcast): a
    // fixed size > 1 is right only when the data makes it so. (The Where
    // that masks rows past the size compares a bound's row numbers.)
    if (op->hasAttr(kRowsMaskedAttr))
      return "";
    for (const DataDependentDim &d : out[0])
      for (auto [i, dims] : llvm::enumerate(in)) {
        auto s = shapeOf(op->getOperand(i));
        int64_t from = d.dim - (rank - (int64_t)s.size());
        if (from >= 0 && s[from] != 1 &&
            !llvm::any_of(dims, [&](const DataDependentDim &x) { return x.dim == from; }))
          return "operand " + std::to_string(i) + " has the fixed size " +
                 std::to_string(s[from]) + " where another operand's size is decided by the data";
      }
    return "";
  }
  if (op->hasTrait<onnx::View>()) {
    // Reshape, Flatten, Squeeze, Unsqueeze, Identity: a dim keeps its rows
    // when the elements before it and its bound are unchanged.
    auto s = shapeOf(op->getOperand(0));
    for (const DataDependentDim &d : in[0]) {
      int64_t before = product(s.take_front(d.dim)), to = -1;
      for (int64_t j = 0; j < (int64_t)outShape.size() && to < 0; ++j)
        if (outShape[j] == s[d.dim] && product(outShape.take_front(j)) == before)
          to = j;
      if (to < 0)
        return "it reshapes the dim whose size the data decides";
      if (std::string e = give(0, to, d); !e.empty())
        return e;
    }
    for (unsigned i = 1; i < in.size(); ++i)
      if (!in[i].empty())
        return "its shape operand is computed from a size the data decides";
    return "";
  }
  if (isRowReduction(op)) {
    // Over such a dim only once the rows past its size hold the reduction's
    // identity (onnxc-data-dependent-dims masks them: kRowsMaskedAttr).
    auto axes = reducedAxes(op);
    bool keep = !op->hasAttr("keepdims") || op->getAttrOfType<IntegerAttr>("keepdims").getInt();
    for (const DataDependentDim &d : in[0]) {
      if (llvm::is_contained(axes, d.dim)) {
        if (!op->hasAttr(kRowsMaskedAttr))
          return "it reduces over the dim whose size the data decides, unmasked";
        if (isa<onnx::SoftmaxOp, onnx::LogSoftmaxOp>(op))
          (void)give(0, d.dim, d);
        continue;
      }
      int64_t to = d.dim;
      if (!keep)
        to -= llvm::count_if(axes, [&](int64_t a) { return a < d.dim; });
      (void)give(0, to, d);
    }
    return "";
  }
  if (auto t = dyn_cast<onnx::TransposeOp>(op)) {
    SmallVector<int64_t> perm = onnx::transposePerm(op, shapeOf(t.getData()).size());
    for (const DataDependentDim &d : in[0])
      (void)give(0, llvm::find(perm, d.dim) - perm.begin(), d);
    return "";
  }
  if (auto g = dyn_cast<onnx::GatherOp>(op)) {
    int64_t rank = shapeOf(g.getData()).size(), q = shapeOf(g.getIndices()).size();
    int64_t axis = static_cast<int64_t>(g.getAxis());
    if (axis < 0)
      axis += rank;
    for (const DataDependentDim &d : in[0]) // data: rows picked along axis end it
      if (d.dim != axis)
        (void)give(0, d.dim < axis ? d.dim : d.dim - 1 + q, d);
    for (const DataDependentDim &d : in[1])
      if (std::string e = give(0, axis + d.dim, d); !e.empty())
        return e;
    return "";
  }
  if (auto g = dyn_cast<onnx::GatherNDOp>(op)) {
    auto idx = shapeOf(g.getIndices());
    int64_t b = g.getBatchDims(), q = idx.size(), k = idx.back();
    for (const DataDependentDim &d : in[1]) {
      if (d.dim == q - 1)
        return "its index tuples' length is decided by the data";
      if (d.dim < b)
        return "a batch dim's size is decided by the data";
      (void)give(0, d.dim, d);
    }
    for (const DataDependentDim &d : in[0]) {
      if (d.dim < b)
        return "a batch dim's size is decided by the data";
      if (d.dim >= b + k)
        if (std::string e = give(0, q - 1 + d.dim - b - k, d); !e.empty())
          return e;
    }
    return "";
  }
  if (auto s = dyn_cast<onnx::SliceOp>(op)) {
    for (unsigned i = 1; i < in.size(); ++i)
      if (!in[i].empty())
        return "its bounds are computed from a size the data decides";
    int64_t rank = shapeOf(s.getData()).size();
    auto starts = getConstantInts(s.getStarts()), ends = getConstantInts(s.getEnds());
    if (!starts || !ends)
      return "its bounds are not constants";
    SmallVector<int64_t> axes, steps(starts->size(), 1);
    for (int64_t i = 0; i < (int64_t)starts->size(); ++i)
      axes.push_back(i);
    if (!onnx::isNone(s.getAxes()))
      if (auto a = getConstantInts(s.getAxes()))
        axes = *a;
    if (!onnx::isNone(s.getSteps()))
      if (auto st = getConstantInts(s.getSteps()))
        steps = *st;
    for (const DataDependentDim &d : in[0]) {
      DataDependentDim kept = d;
      for (auto [i, a] : llvm::enumerate(axes)) {
        if ((a < 0 ? a + rank : a) != d.dim)
          continue;
        // Rows [start, min(end, n)): counted from the run's first row; from
        // its end (negative) or backwards they would move with the size.
        int64_t start = (*starts)[i], end = (*ends)[i];
        if (steps[i] != 1 || start < 0 || end < 0)
          return "it slices the dim whose size the data decides from its end or by steps";
        kept.extent = sliceExtent && d.extent ? sliceExtent(op, d.extent, start, end) : Value();
      }
      (void)give(0, d.dim, kept);
    }
    return "";
  }
  if (auto s = dyn_cast<onnx::SplitOp>(op)) {
    if (in.size() > 1 && !in[1].empty())
      return "its sizes are computed from a size the data decides";
    int64_t rank = shapeOf(s.getInput()).size();
    int64_t axis = static_cast<int64_t>(s.getAxis());
    if (axis < 0)
      axis += rank;
    for (const DataDependentDim &d : in[0]) {
      if (d.dim == axis)
        return "it splits the dim whose size the data decides";
      for (unsigned r = 0; r < op->getNumResults(); ++r)
        (void)give(r, d.dim, d);
    }
    return "";
  }
  if (auto c = dyn_cast<onnx::ConcatOp>(op)) {
    if (op->hasAttr(kPaddedRowsAttr))
      return ""; // read only by the Gather that packs its rows
    int64_t rank = outShape.size();
    int64_t axis = static_cast<int64_t>(c.getAxis());
    if (axis < 0)
      axis += rank;
    for (const DataDependentDims &dims : in)
      for (const DataDependentDim &d : dims) {
        if (d.dim == axis)
          return "it joins along the dim whose size the data decides";
        if (std::string e = give(0, d.dim, d); !e.empty())
          return e;
      }
    // Every operand must have the same run-time size on such a dim.
    for (const DataDependentDim &d : out[0])
      for (const DataDependentDims &dims : in)
        if (!llvm::any_of(dims, [&](const DataDependentDim &x) { return x.dim == d.dim; }))
          return "an operand has a fixed size where another's is decided by the data";
    return "";
  }
  return "it does not take such values yet (the ops that do: element-wise ops, Cast, "
         "Reshape, Squeeze, Unsqueeze, Flatten, Transpose, Gather, GatherND, and Slice, "
         "Split and Concat along other dims)";
}

/// The op whose data decides the size (none past a refused reader).
Operation *producerOf(const DataDependentDim &d) {
  return d.extent ? d.extent.getDefiningOp() : nullptr;
}

} // namespace

DataDependentDimsAnalysis::DataDependentDimsAnalysis(
    Operation *root, SliceExtentBuilder sliceExtent,
    const DenseMap<Value, DataDependentDims> *given)
    : sliceExtent(std::move(sliceExtent)), given(given) {
  for (Region &r : root->getRegions())
    for (Block &b : r)
      for (Operation &op : b)
        visit(&op);
}

ArrayRef<DataDependentDim> DataDependentDimsAnalysis::dimsOf(Value v) const {
  auto it = dims.find(v);
  return it == dims.end() ? ArrayRef<DataDependentDim>() : ArrayRef(it->second);
}

void DataDependentDimsAnalysis::visit(Operation *op) {
  // Regions first: an op's results come after the ops inside it.
  for (Region &r : op->getRegions())
    for (Block &b : r)
      for (Operation &inner : b)
        visit(&inner);
  // The function's return hands such values to the caller (with their
  // sizes: onnxc-data-dependent-dims); a region's terminator to its op.
  if (op->hasTrait<OpTrait::IsTerminator>())
    return;
  if (given && op->getNumResults() == 1 && given->count(op->getResult(0))) {
    dims[op->getResult(0)] = given->lookup(op->getResult(0));
    return;
  }
  SmallVector<DataDependentDims> in;
  bool reads = false;
  for (Value v : op->getOperands()) {
    in.push_back(DataDependentDims(dimsOf(v)));
    reads |= !in.back().empty();
  }
  // A region reading such a value from outside, or yielding one, counts as
  // the op reading it.
  Operation *source = nullptr;
  op->walk([&](Operation *inner) {
    if (inner == op)
      return;
    for (Value v : inner->getOperands())
      if (!dimsOf(v).empty() && (inner->hasTrait<OpTrait::IsTerminator>() ||
                                 !op->isProperAncestor(v.getParentBlock()->getParentOp())))
        reads = true, source = source ? source : producerOf(dimsOf(v).front());
  });
  std::string why;
  auto topk = dyn_cast<onnx::TopKOp>(op);
  if (topk && !isa<RankedTensorType>(topk.getX().getType())) {
    if (!reads)
      return;
    why = "its input has no known shape";
  } else if (topk) {
    // Rows along other dims are carried; along axis X's size must be its
    // `n` (onnxc-data-dependent-dims gives it); the run's K decides there.
    int64_t rank = shapeOf(topk.getX()).size(), axis = static_cast<int64_t>(topk.getAxis());
    axis = axis < 0 ? axis + rank : axis;
    DataDependentDims carried;
    for (const DataDependentDim &d : in[0])
      if (d.dim != axis)
        carried.push_back(d);
      else if (topk.getN() != d.extent)
        why = "TopK along a dim whose size the data decides is not given that size";
    if (!in[1].empty())
      why = "its K has a size the data decides";
    if (topk.dataDependentDim(0) >= 0)
      carried.push_back({axis, topk.getExtent()});
    if (why.empty()) {
      if (!carried.empty())
        for (unsigned r = 0; r < 2; ++r)
          dims[op->getResult(r)] = carried;
      return;
    }
  } else if (auto nms = dyn_cast<onnx::NonMaxSuppressionOp>(op); nms && reads) {
    // The boxes (dim 1 of boxes, dim 2 of scores) may be sized by the data:
    // then `n` (onnxc-data-dependent-dims gives it) must be that size.
    for (auto [i, d] : llvm::enumerate(in))
      for (const DataDependentDim &x : d)
        if (i > 1 || x.dim != (i == 0 ? 1 : 2))
          why = "its batches, classes or parameters have a size the data decides";
        else if (nms.getN() != x.extent)
          why = "NonMaxSuppression of boxes whose number the data decides is not given it";
    if (why.empty()) {
      dims[nms.getSelectedIndices()].push_back({0, nms.getExtent()});
      return;
    }
  } else if (auto dd = dyn_cast<onnx::DataDependentShape>(op)) {
    for (OpResult r : op->getResults())
      if (int64_t d = dd.dataDependentDim(r.getResultNumber()); d >= 0)
        dims[r].push_back({d, dd.getExtent()});
    if (!reads)
      return;
    why = "it does not take such values yet";
  } else {
    if (!reads)
      return;
    Carried out;
    why = op->getNumRegions() ? "it does not take such values yet"
                              : carry(op, in, out, sliceExtent);
    if (why.empty()) {
      for (auto [r, d] : llvm::zip(op->getResults(), out))
        if (!d.empty())
          dims[r] = d;
      return;
    }
  }
  if (!refuser_) {
    for (const DataDependentDims &d : in)
      if (!d.empty() && !source)
        source = producerOf(d.front());
    refuser_ = op;
    refusal_ = "reads a value whose size the data decides (from node '" +
               (source ? nodeLabel(source) : std::string("?")) + "'); not supported: " + why;
  }
  // Its results are not known: no Shape of them may fold.
  for (OpResult r : op->getResults())
    if (auto t = dyn_cast<RankedTensorType>(r.getType())) {
      dims[r].clear();
      for (int64_t d = 0; d < t.getRank(); ++d)
        dims[r].push_back({d, Value()});
    }
}

namespace {

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

/// A Where keeping x's rows before `extent` along `dim` and `fill` past it.
FailureOr<Value> keepRows(OpBuilder &b, Location loc, Value x, int64_t dim, Value extent,
                          Attribute fill) {
  auto t = cast<RankedTensorType>(x.getType());
  Value rows = rowNumbers(b, loc, t.getShape(), dim);
  auto fillType = RankedTensorType::get({}, t.getElementType());
  Value f = b.create<onnx::ConstantOp>(loc, fillType, DenseElementsAttr::get(fillType, fill));
  auto inside = buildOnnxOp(b, loc, "Less", {rows, extent});
  if (failed(inside))
    return failure();
  auto kept = buildOnnxOp(b, loc, "Where", {*inside, x, f});
  if (succeeded(kept))
    kept->getDefiningOp()->setAttr(kRowsMaskedAttr, b.getUnitAttr());
  return kept;
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
  Type elt = cast<RankedTensorType>(x.getType()).getElementType();
  if (isa<FloatType>(elt))
    return keepRows(b, loc, x, dim, extent, b.getFloatAttr(elt, 0.0));
  if (isa<IntegerType>(elt))
    return keepRows(b, loc, x, dim, extent, b.getIntegerAttr(elt, 0));
  return x; // strings: nothing to zero in a reference
}

struct DataDependentDimsPass : impl::DataDependentDimsPassBase<DataDependentDimsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<onnx::CompressOp> compresses;
    func.walk([&](onnx::CompressOp op) { compresses.push_back(op); });
    for (onnx::CompressOp op : compresses)
      if (failed(expandRuntimeCompress(op)))
        return signalPassFailure();
    // One NonZero per mask: torch writes one per `x[keep]`, and values
    // sized by two of them could not meet (`scores[keep] * boxes[keep]`).
    SmallVector<onnx::NonZeroOp> nonZeros;
    func.walk([&](onnx::NonZeroOp op) { nonZeros.push_back(op); });
    for (auto [i, op] : llvm::enumerate(nonZeros))
      for (onnx::NonZeroOp first : ArrayRef(nonZeros).take_front(i))
        if (first && first.getX() == op.getX() && first->getBlock() == op->getBlock() &&
            first->getAttrDictionary() == op->getAttrDictionary()) {
          op->replaceAllUsesWith(first);
          op->erase();
          nonZeros[i] = nullptr;
          break;
        }
    for (onnx::NonZeroOp op : nonZeros)
      if (op)
        transposeNonZero(op);
    WalkResult typed = func.walk([](Operation *op) {
      return failed(refreshTypes(op)) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (typed.wasInterrupted())
      return signalPassFailure();

    // A Slice's size: max(0, min(n, end) - start), made once per Slice.
    DenseMap<Operation *, Value> sliceSizes;
    SliceExtentBuilder sliceExtent = [&](Operation *slice, Value n, int64_t start,
                                         int64_t end) -> Value {
      Value &size = sliceSizes[slice];
      if (size)
        return size;
      OpBuilder b(slice);
      Location loc = slice->getLoc();
      FailureOr<Value> v = buildOnnxOp(b, loc, "Min", {n, i64Scalar(b, loc, end)});
      if (succeeded(v) && start > 0) {
        v = buildOnnxOp(b, loc, "Sub", {*v, i64Scalar(b, loc, start)});
        if (succeeded(v))
          v = buildOnnxOp(b, loc, "Max", {*v, i64Scalar(b, loc, 0)});
      }
      return size = succeeded(v) ? *v : Value();
    };
    DenseMap<Value, DataDependentDims> given;
    if (failed(giveSizesToReaders(func, sliceExtent, given)))
      return signalPassFailure();
    DataDependentDimsAnalysis dims(func, sliceExtent, &given);
    if (Operation *op = dims.refuser()) {
      emitError(op->getLoc()) << dims.refusal();
      return signalPassFailure();
    }
    if (!dims.any())
      return updateFunctionResultTypes(func);
    if (failed(giveOutputsTheirSizes(func, dims)))
      return signalPassFailure();
  }

  /// Each graph output that carries a size the data decides gets it as an
  /// extent result (onnx.outputs' "extent"/"extent_dim", as the importer
  /// writes for NonZero's own), and zeros past it.
  LogicalResult giveOutputsTheirSizes(func::FuncOp func, const DataDependentDimsAnalysis &dims) {
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    MLIRContext *ctx = func.getContext();
    Builder attrs(ctx);
    SmallVector<Attribute> entries;
    if (auto outs = func->getAttrOfType<ArrayAttr>("onnx.outputs")) {
      entries.assign(outs.begin(), outs.end());
    } else {
      for (unsigned i = 0; i < ret.getNumOperands(); ++i)
        entries.push_back(attrs.getDictionaryAttr(
            {attrs.getNamedAttr("name", func.getResultAttr(i, "onnx.name")),
             attrs.getNamedAttr("kind", attrs.getStringAttr("tensor")),
             attrs.getNamedAttr("count", attrs.getI64IntegerAttr(1)),
             attrs.getNamedAttr("present", attrs.getBoolAttr(true))}));
    }
    OpBuilder b(ret);
    int64_t first = 0;
    for (Attribute &a : entries) {
      auto entry = cast<DictionaryAttr>(a);
      int64_t count = entry.getAs<IntegerAttr>("count").getInt();
      int64_t at = first;
      first += count;
      if (entry.get("extent") || entry.getAs<StringAttr>("kind").getValue() != "tensor" ||
          count != 1)
        continue;
      Value v = ret.getOperand(at);
      ArrayRef<DataDependentDim> d = dims.dimsOf(v);
      if (d.empty())
        continue;
      std::string name = entry.getAs<StringAttr>("name").str();
      if (d.size() > 1)
        return ret.emitError() << "graph output '" << name
                               << "' has more than one dim whose size the data decides "
                                  "(not supported)";
      auto producer = v.getDefiningOp<onnx::DataDependentShape>();
      bool packed = producer && producer.dataDependentDim(cast<OpResult>(v).getResultNumber()) >= 0;
      if (!packed) {
        // Rows on the bound are the packed tensor only when nothing comes before them.
        if (llvm::any_of(shapeOf(v).take_front(d[0].dim), [](int64_t s) { return s != 1; }))
          return ret.emitError()
                 << "graph output '" << name << "': its dim " << d[0].dim
                 << ", whose size the data decides, comes after dims larger than 1 "
                 << "(outputs are packed only along such a leading dim; not supported)";
        auto zeroed = zeroPastExtent(b, v.getLoc(), v, d[0].dim, d[0].extent);
        if (failed(zeroed))
          return failure();
        ret.setOperand(at, *zeroed);
      }
      unsigned index = ret.getNumOperands();
      for (unsigned i = 0; i < ret.getNumOperands(); ++i)
        if (ret.getOperand(i) == d[0].extent)
          index = i;
      if (index == ret.getNumOperands()) {
        ret->insertOperands(index, d[0].extent);
        func.insertResult(index, d[0].extent.getType(),
                          attrs.getDictionaryAttr({attrs.getNamedAttr(
                              "onnx.name", attrs.getStringAttr(name + ".extent"))}));
      }
      NamedAttrList e(entry);
      e.set("extent", attrs.getI64IntegerAttr(index));
      e.set("extent_dim", attrs.getI64IntegerAttr(d[0].dim));
      a = e.getDictionary(ctx);
    }
    func->setAttr("onnx.outputs", attrs.getArrayAttr(entries));
    updateFunctionResultTypes(func);
    return success();
  }
};

} // namespace
} // namespace onnxc
