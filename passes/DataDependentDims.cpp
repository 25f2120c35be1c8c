//===- DataDependentDims.cpp - which dims carry a size the data decides ----===//
#include "onnxc/Passes/DataDependentDims.h"

#include "onnxc/Dialect/ONNX/NodeNames.h"
#include "onnxc/Dialect/ONNX/ONNXDialect.h"

#include "llvm/ADT/STLExtras.h"


using namespace mlir;

namespace onnxc {
std::string nodeLabel(Operation *op) {
  std::string name = nodeNameOf(op->getLoc());
  return name.empty() ? op->getName().getStringRef().str() : name;
}

namespace {
ArrayRef<int64_t> shapeOf(Value v) { return cast<RankedTensorType>(v.getType()).getShape(); }
} // namespace

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

namespace {

using onnx::getConstantInts;

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

} // namespace onnxc
