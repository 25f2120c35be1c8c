//===- TensorOps.cpp - inference for constants and data movement ops -------===//
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"

using namespace mlir;

namespace onnxc::onnx {

static Type elementTypeOf(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}
static Type i64Type(MLIRContext *ctx) { return IntegerType::get(ctx, 64); }
static const int64_t kDyn = ShapedType::kDynamic;

LogicalResult ConstantOp::inferShapes() {
  getOperation()->getResult(0).setType(getValue().getShapedType());
  return success();
}

LogicalResult NoValueOp::inferShapes() { return success(); }

LogicalResult CastOp::inferShapes() {
  Type to = elementTypeFromOnnx(getContext(), getTo());
  if (!to)
    return emitError() << "Cast to " << onnxTypeName(getTo())
                       << " is not supported";
  auto t = dyn_cast<RankedTensorType>(getInput().getType());
  getOperation()->getResult(0).setType(t ? Type(RankedTensorType::get(t.getShape(), to))
                        : Type(UnrankedTensorType::get(to)));
  return success();
}

LogicalResult ShapeOp::inferShapes() {
  auto t = dyn_cast<RankedTensorType>(getData().getType());
  if (!t) {
    setResultType(getOperation(), 0, {kDyn}, i64Type(getContext()));
    return success();
  }
  int64_t r = t.getRank();
  auto clampIdx = [&](int64_t i) {
    if (i < 0)
      i += r;
    return std::clamp<int64_t>(i, 0, r);
  };
  int64_t start = clampIdx(getStart());
  int64_t end = getEnd() ? clampIdx(*getEnd()) : r;
  setResultType(getOperation(), 0, {std::max<int64_t>(0, end - start)},
                i64Type(getContext()));
  return success();
}

LogicalResult SizeOp::inferShapes() {
  setResultType(getOperation(), 0, {}, i64Type(getContext()));
  return success();
}

LogicalResult ConstantOfShapeOp::inferShapes() {
  Type elt = Float32Type::get(getContext());
  if (auto v = getValue()) {
    if (v->getNumElements() != 1)
      return emitError("ConstantOfShape value must hold one element");
    elt = v->getElementType();
  }
  if (auto dims = getConstantInts(getInput())) {
    for (int64_t d : *dims)
      if (d < 0)
        return emitError() << "ConstantOfShape dimension " << d
                           << " is negative";
    setResultType(getOperation(), 0, *dims, elt);
    return success();
  }
  auto s = dyn_cast<RankedTensorType>(getInput().getType());
  if (s && s.hasStaticShape() && s.getRank() == 1) {
    setResultType(getOperation(), 0, SmallVector<int64_t>(s.getDimSize(0), kDyn),
                  elt);
    return success();
  }
  getOperation()->getResult(0).setType(UnrankedTensorType::get(elt));
  return success();
}

LogicalResult RangeOp::inferShapes() {
  Type elt = elementTypeOf(getStart());
  auto scalar = [](Value v) -> std::optional<double> {
    ElementsAttr e = getConstantElements(v);
    if (!e || e.getNumElements() != 1)
      return std::nullopt;
    if (isa<FloatType>(e.getElementType()))
      return (*e.getValues<APFloat>().begin()).convertToDouble();
    return static_cast<double>((*e.getValues<APInt>().begin()).getSExtValue());
  };
  auto s = scalar(getStart()), l = scalar(getLimit()), d = scalar(getDelta());
  if (s && l && d) {
    if (*d == 0)
      return emitError("Range delta is zero");
    int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((*l - *s) / *d)));
    setResultType(getOperation(), 0, {n}, elt);
  } else {
    setResultType(getOperation(), 0, {kDyn}, elt);
  }
  return success();
}

LogicalResult ReshapeOp::inferShapes() {
  Type elt = elementTypeOf(getData());
  auto in = dyn_cast<RankedTensorType>(getData().getType());
  auto target = getConstantInts(getShape());
  if (!target) {
    auto s = dyn_cast<RankedTensorType>(getShape().getType());
    if (s && s.hasStaticShape() && s.getRank() == 1)
      setResultType(getOperation(), 0,
                    SmallVector<int64_t>(s.getDimSize(0), kDyn), elt);
    else
      getOperation()->getResult(0).setType(UnrankedTensorType::get(elt));
    return success();
  }
  SmallVector<int64_t> out(*target);
  int64_t inferIdx = -1, known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 0 && !getAllowzero()) {
      if (!in || i >= static_cast<size_t>(in.getRank()))
        return emitError("Reshape copies a dimension (0) the input does not have");
      out[i] = in.getDimSize(i);
    }
    if (out[i] == -1) {
      if (inferIdx >= 0)
        return emitError("Reshape has more than one -1 dimension");
      inferIdx = i;
      continue;
    }
    if (out[i] < -1)
      return emitError() << "Reshape dimension " << out[i] << " is invalid";
    if (ShapedType::isDynamic(out[i]))
      known = -1;
    else if (known >= 0 && __builtin_mul_overflow(known, out[i], &known))
      return emitError() << "Reshape's target shape has more elements than int64 counts";
  }
  if (in && in.hasStaticShape() && known >= 0) {
    int64_t total = in.getNumElements();
    if (inferIdx >= 0) {
      if (known == 0 || total % known != 0)
        return emitError() << "cannot reshape " << in << " to the requested shape";
      out[inferIdx] = total / known;
    } else if (total != known) {
      return emitError() << "cannot reshape " << in << " (" << total
                         << " elements) to " << known << " elements";
    }
  } else if (inferIdx >= 0) {
    out[inferIdx] = kDyn;
  }
  setResultType(getOperation(), 0, out, elt);
  return success();
}

LogicalResult FlattenOp::inferShapes() {
  Type elt = elementTypeOf(getInput());
  auto in = dyn_cast<RankedTensorType>(getInput().getType());
  if (!in) {
    setResultType(getOperation(), 0, {kDyn, kDyn}, elt);
    return success();
  }
  int64_t axis = getAxis();
  if (axis < -in.getRank() || axis > in.getRank())
    return emitError() << "axis " << axis << " is out of range";
  if (axis < 0)
    axis += in.getRank();
  auto prod = [&](int64_t b, int64_t e) {
    int64_t p = 1;
    for (int64_t i = b; i < e; ++i) {
      if (in.isDynamicDim(i))
        return kDyn;
      p *= in.getDimSize(i);
    }
    return p;
  };
  setResultType(getOperation(), 0, {prod(0, axis), prod(axis, in.getRank())},
                elt);
  return success();
}

LogicalResult SqueezeOp::inferShapes() {
  Type elt = elementTypeOf(getData());
  auto in = dyn_cast<RankedTensorType>(getData().getType());
  if (!in)
    return setUnrankedResult(getOperation(), elt);
  SmallVector<int64_t> out;
  if (isNone(getAxes())) {
    if (!in.hasStaticShape())
      return setUnrankedResult(getOperation(), elt);
    for (int64_t d : in.getShape())
      if (d != 1)
        out.push_back(d);
  } else {
    auto axes = getConstantInts(getAxes());
    if (!axes)
      return setUnrankedResult(getOperation(), elt);
    SmallVector<bool> drop(in.getRank(), false);
    for (int64_t a : *axes) {
      auto n = normalizeAxis(getOperation(), a, in.getRank(), "axis");
      if (failed(n))
        return failure();
      if (!in.isDynamicDim(*n) && in.getDimSize(*n) != 1)
        return emitError() << "cannot squeeze dimension " << *n << " of size "
                           << in.getDimSize(*n);
      drop[*n] = true;
    }
    for (int64_t i = 0; i < in.getRank(); ++i)
      if (!drop[i])
        out.push_back(in.getDimSize(i));
  }
  setResultType(getOperation(), 0, out, elt);
  return success();
}

LogicalResult UnsqueezeOp::inferShapes() {
  Type elt = elementTypeOf(getData());
  auto in = dyn_cast<RankedTensorType>(getData().getType());
  auto axes = getConstantInts(getAxes());
  if (!in || !axes)
    return setUnrankedResult(getOperation(), elt);
  int64_t rank = in.getRank() + axes->size();
  SmallVector<bool> inserted(rank, false);
  for (int64_t a : *axes) {
    auto n = normalizeAxis(getOperation(), a, rank, "axis");
    if (failed(n))
      return failure();
    if (inserted[*n])
      return emitError("Unsqueeze axes repeat an axis");
    inserted[*n] = true;
  }
  SmallVector<int64_t> out;
  size_t j = 0;
  for (int64_t i = 0; i < rank; ++i)
    out.push_back(inserted[i] ? 1 : in.getDimSize(j++));
  setResultType(getOperation(), 0, out, elt);
  return success();
}

LogicalResult TransposeOp::inferShapes() {
  Type elt = elementTypeOf(getData());
  auto in = dyn_cast<RankedTensorType>(getData().getType());
  if (!in)
    return setUnrankedResult(getOperation(), elt);
  SmallVector<int64_t> perm = transposePerm(getOperation(), in.getRank());
  if (static_cast<int64_t>(perm.size()) != in.getRank())
    return emitError("perm must list every dimension once");
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> out;
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p])
      return emitError("perm must list every dimension once");
    seen[p] = true;
    out.push_back(in.getDimSize(p));
  }
  setResultType(getOperation(), 0, out, elt);
  return success();
}

LogicalResult ConcatOp::inferShapes() {
  if (getInputs().empty())
    return emitError("Concat needs at least one input");
  Type elt = elementTypeOf(getInputs().front());
  SmallVector<int64_t> out;
  int64_t axis = 0;
  for (auto [i, v] : llvm::enumerate(getInputs())) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      return setUnrankedResult(getOperation(), elt);
    if (i == 0) {
      auto a = normalizeAxis(getOperation(), getAxis(), t.getRank(), "axis");
      if (failed(a))
        return failure();
      axis = *a;
      out.assign(t.getShape().begin(), t.getShape().end());
      continue;
    }
    if (t.getRank() != static_cast<int64_t>(out.size()))
      return emitError("Concat inputs differ in rank");
    for (int64_t d = 0; d < t.getRank(); ++d) {
      if (d == axis) {
        out[d] = (ShapedType::isDynamic(out[d]) || t.isDynamicDim(d))
                     ? kDyn
                     : out[d] + t.getDimSize(d);
      } else if (!t.isDynamicDim(d) && !ShapedType::isDynamic(out[d]) &&
                 t.getDimSize(d) != out[d]) {
        return emitError() << "Concat input " << i << " " << t
                           << " differs outside axis " << axis;
      }
    }
  }
  setResultType(getOperation(), 0, out, elt);
  return success();
}

FailureOr<SmallVector<int64_t>> resolveSplit(Operation *op, int64_t &axis) {
  auto split = cast<SplitOp>(op);
  auto in = cast<RankedTensorType>(split.getInput().getType());
  auto a = normalizeAxis(op, split.getAxis(), in.getRank(), "axis");
  if (failed(a))
    return failure();
  axis = *a;
  int64_t dim = in.getDimSize(axis);
  int64_t n = op->getNumResults();
  if (n < 1)
    return op->emitError("Split needs at least one output");
  SmallVector<int64_t> sizes;
  if (!isNone(split.getSplit())) {
    auto s = getConstantInts(split.getSplit());
    if (!s)
      return op->emitError("Split sizes computed at run time are not supported");
    sizes = *s;
    if (static_cast<int64_t>(sizes.size()) != n)
      return op->emitError() << "Split has " << sizes.size() << " sizes but "
                             << n << " outputs";
    int64_t total = 0;
    for (int64_t x : sizes)
      if (x < 0 || __builtin_add_overflow(total, x, &total))
        return op->emitError() << "Split sizes must not be negative or overflow (" << x << ")";
    if (!ShapedType::isDynamic(dim) && total != dim)
      return op->emitError() << "Split sizes sum to " << total
                             << " but the dimension is " << dim;
    return sizes;
  }
  if (ShapedType::isDynamic(dim))
    return SmallVector<int64_t>(n, kDyn);
  // Equal parts; the last one smaller when it does not divide (opset 18).
  int64_t part = (dim + n - 1) / n;
  for (int64_t i = 0; i < n; ++i)
    sizes.push_back(std::max<int64_t>(0, std::min(part, dim - i * part)));
  return sizes;
}

LogicalResult SplitOp::inferShapes() {
  Type elt = elementTypeOf(getInput());
  auto in = dyn_cast<RankedTensorType>(getInput().getType());
  if (!in) {
    for (Value r : getResults())
      static_cast<Value>(r).setType(UnrankedTensorType::get(elt));
    return success();
  }
  int64_t axis;
  auto sizes = resolveSplit(getOperation(), axis);
  if (failed(sizes))
    return failure();
  for (auto [i, r] : llvm::enumerate(getResults())) {
    SmallVector<int64_t> shape(in.getShape());
    shape[axis] = (*sizes)[i];
    static_cast<Value>(r).setType(RankedTensorType::get(shape, elt));
  }
  return success();
}

FailureOr<std::optional<SliceGeometry>> resolveSlice(Operation *op) {
  auto slice = cast<SliceOp>(op);
  auto in = cast<RankedTensorType>(slice.getData().getType());
  auto starts = getConstantInts(slice.getStarts());
  auto ends = getConstantInts(slice.getEnds());
  if (!starts || !ends)
    return std::optional<SliceGeometry>();
  size_t n = starts->size();
  if (ends->size() != n)
    return op->emitError("Slice starts and ends differ in length");
  SmallVector<int64_t> axes, steps(n, 1);
  if (!isNone(slice.getAxes())) {
    auto a = getConstantInts(slice.getAxes());
    if (!a)
      return std::optional<SliceGeometry>();
    axes = *a;
  } else {
    for (size_t i = 0; i < n; ++i)
      axes.push_back(i);
  }
  if (!isNone(slice.getSteps())) {
    auto s = getConstantInts(slice.getSteps());
    if (!s)
      return std::optional<SliceGeometry>();
    steps = *s;
  }
  if (axes.size() != n || steps.size() != n)
    return op->emitError("Slice starts, ends, axes and steps differ in length");
  SliceGeometry g;
  int64_t rank = in.getRank();
  g.starts.assign(rank, 0);
  g.steps.assign(rank, 1);
  g.outShape.assign(in.getShape().begin(), in.getShape().end());
  SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < n; ++i) {
    auto axis = normalizeAxis(op, axes[i], rank, "axis");
    if (failed(axis))
      return failure();
    if (seen[*axis])
      return op->emitError("Slice axes repeat an axis");
    seen[*axis] = true;
    int64_t dim = in.getDimSize(*axis), step = steps[i];
    if (ShapedType::isDynamic(dim))
      return std::optional<SliceGeometry>();
    if (step == 0)
      return op->emitError("Slice step is zero");
    int64_t s = (*starts)[i], e = (*ends)[i];
    if (s < 0)
      s += dim;
    if (e < 0)
      e += dim;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      g.outShape[*axis] = e > s ? (e - s + step - 1) / step : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      g.outShape[*axis] = s > e ? (s - e + (-step) - 1) / (-step) : 0;
    }
    g.starts[*axis] = s;
    g.steps[*axis] = step;
  }
  return std::optional<SliceGeometry>(g);
}

LogicalResult SliceOp::inferShapes() {
  Type elt = elementTypeOf(getData());
  auto in = dyn_cast<RankedTensorType>(getData().getType());
  if (!in)
    return setUnrankedResult(getOperation(), elt);
  auto g = resolveSlice(getOperation());
  if (failed(g))
    return failure();
  if (*g) {
    setResultType(getOperation(), 0, (*g)->outShape, elt);
    return success();
  }
  setResultType(getOperation(), 0, SmallVector<int64_t>(in.getRank(), kDyn), elt);
  return success();
}

LogicalResult GatherOp::inferShapes() {
  Type elt = elementTypeOf(getData());
  auto data = dyn_cast<RankedTensorType>(getData().getType());
  auto idx = dyn_cast<RankedTensorType>(getIndices().getType());
  if (!data || !idx)
    return setUnrankedResult(getOperation(), elt);
  auto axis = normalizeAxis(getOperation(), getAxis(), data.getRank(), "axis");
  if (failed(axis))
    return failure();
  SmallVector<int64_t> out(data.getShape().take_front(*axis));
  out.append(idx.getShape().begin(), idx.getShape().end());
  out.append(data.getShape().drop_front(*axis + 1).begin(),
             data.getShape().end());
  setResultType(getOperation(), 0, out, elt);
  return success();
}

LogicalResult ExpandOp::inferShapes() {
  Type elt = elementTypeOf(getInput());
  auto in = dyn_cast<RankedTensorType>(getInput().getType());
  auto shape = getConstantInts(getShape());
  if (!in || !shape)
    return setUnrankedResult(getOperation(), elt);
  auto out = broadcastShapes(in.getShape(), *shape);
  if (!out)
    return emitError() << "cannot expand " << in << " to the requested shape";
  setResultType(getOperation(), 0, *out, elt);
  return success();
}

LogicalResult TileOp::inferShapes() {
  Type elt = elementTypeOf(getInput());
  auto in = dyn_cast<RankedTensorType>(getInput().getType());
  auto reps = getConstantInts(getRepeats());
  if (!in)
    return setUnrankedResult(getOperation(), elt);
  if (!reps) {
    setResultType(getOperation(), 0, SmallVector<int64_t>(in.getRank(), kDyn), elt);
    return success();
  }
  if (static_cast<int64_t>(reps->size()) != in.getRank())
    return emitError("Tile repeats must have one value per dimension");
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < in.getRank(); ++i) {
    int64_t d;
    if ((*reps)[i] < 0)
      return emitError() << "Tile repeats must not be negative (" << (*reps)[i] << ")";
    if (in.isDynamicDim(i))
      d = kDyn;
    else if (__builtin_mul_overflow(in.getDimSize(i), (*reps)[i], &d))
      return emitError() << "Tile's output dimension " << i << " (" << in.getDimSize(i)
                         << " x " << (*reps)[i] << ") overflows";
    out.push_back(d);
  }
  setResultType(getOperation(), 0, out, elt);
  return success();
}

LogicalResult PadOp::inferShapes() {
  Type elt = elementTypeOf(getData());
  auto in = dyn_cast<RankedTensorType>(getData().getType());
  auto pads = getConstantInts(getPads());
  if (!in)
    return setUnrankedResult(getOperation(), elt);
  StringRef mode = getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    return emitError() << "unknown Pad mode '" << mode << "'";
  int64_t rank = in.getRank();
  SmallVector<int64_t> axes;
  if (!isNone(getAxes())) {
    auto a = getConstantInts(getAxes());
    if (!a) {
      setResultType(getOperation(), 0, SmallVector<int64_t>(rank, kDyn), elt);
      return success();
    }
    for (int64_t x : *a) {
      auto n = normalizeAxis(getOperation(), x, rank, "axis");
      if (failed(n))
        return failure();
      axes.push_back(*n);
    }
  } else {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  if (!pads) {
    setResultType(getOperation(), 0, SmallVector<int64_t>(rank, kDyn), elt);
    return success();
  }
  if (pads->size() != 2 * axes.size())
    return emitError() << "Pad has " << pads->size() << " pads for "
                       << axes.size() << " axes";
  SmallVector<int64_t> out(in.getShape());
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = axes[i];
    if (!ShapedType::isDynamic(out[a]))
      out[a] += (*pads)[i] + (*pads)[i + axes.size()];
    if (!ShapedType::isDynamic(out[a]) && out[a] < 0)
      return emitError("Pad removes more than the dimension holds");
  }
  setResultType(getOperation(), 0, out, elt);
  return success();
}

LogicalResult GatherElementsOp::inferShapes() {
  auto data = dyn_cast<RankedTensorType>(getData().getType());
  auto idx = dyn_cast<RankedTensorType>(getIndices().getType());
  Type elt = elementTypeOf(getData());
  if (!idx || !data)
    return setUnrankedResult(getOperation(), elt);
  if (idx.getRank() != data.getRank())
    return emitError("GatherElements indices must have the data's rank");
  if (failed(normalizeAxis(getOperation(), getAxis(), data.getRank(), "axis")))
    return failure();
  setResultType(getOperation(), 0, idx.getShape(), elt);
  return success();
}

LogicalResult GatherNDOp::inferShapes() {
  auto data = dyn_cast<RankedTensorType>(getData().getType());
  auto idx = dyn_cast<RankedTensorType>(getIndices().getType());
  Type elt = elementTypeOf(getData());
  if (!idx || !data)
    return setUnrankedResult(getOperation(), elt);
  if (idx.getRank() < 1 || data.getRank() < 1)
    return emitError("GatherND needs data and indices of rank 1 or more");
  if (idx.isDynamicDim(idx.getRank() - 1))
    return setUnrankedResult(getOperation(), elt);
  int64_t b = getBatchDims(), k = idx.getDimSize(idx.getRank() - 1);
  if (b < 0 || b >= idx.getRank() || b + k > data.getRank())
    return emitError("GatherND indices do not fit the data");
  SmallVector<int64_t> out(idx.getShape().drop_back());
  out.append(data.getShape().begin() + b + k, data.getShape().end());
  setResultType(getOperation(), 0, out, elt);
  return success();
}

LogicalResult OneHotOp::inferShapes() {
  Type elt = elementTypeOf(getValues());
  auto idx = dyn_cast<RankedTensorType>(getIndices().getType());
  ElementsAttr depth = getConstantElements(getDepth());
  if (!idx || !depth || depth.getNumElements() != 1)
    return setUnrankedResult(getOperation(), elt);
  double d = isa<FloatType>(depth.getElementType())
                 ? (*depth.getValues<APFloat>().begin()).convertToDouble()
                 : (double)(*depth.getValues<APInt>().begin()).getSExtValue();
  auto axis = normalizeAxis(getOperation(), getAxis(), idx.getRank() + 1, "axis");
  if (failed(axis))
    return failure();
  SmallVector<int64_t> out(idx.getShape());
  out.insert(out.begin() + *axis, (int64_t)d);
  setResultType(getOperation(), 0, out, elt);
  return success();
}

LogicalResult EyeLikeOp::inferShapes() {
  Type elt = elementTypeOf(getInput());
  if (auto d = getDtype()) {
    elt = elementTypeFromOnnx(getContext(), *d);
    if (!elt)
      return emitError() << "EyeLike dtype " << onnxTypeName(*d) << " is not supported";
  }
  auto t = dyn_cast<RankedTensorType>(getInput().getType());
  if (t && t.getRank() != 2)
    return emitError("EyeLike needs a 2-D input");
  getOperation()->getResult(0).setType(t ? Type(RankedTensorType::get(t.getShape(), elt))
                                         : Type(UnrankedTensorType::get(elt)));
  return success();
}

LogicalResult TopKOp::inferShapes() {
  Type elt = elementTypeOf(getX());
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  auto k = getConstantInts(getK());
  setResultType(getOperation(), 2, {}, i64Type(getContext())); // the run's K
  SmallVector<int64_t> out;
  if (x) {
    auto axis = normalizeAxis(getOperation(), getAxis(), x.getRank(), "axis");
    if (failed(axis))
      return failure();
    out.assign(x.getShape().begin(), x.getShape().end());
    // K at run time: bounded by X's size along axis.
    if (k && k->size() == 1)
      out[*axis] = (*k)[0];
    if (k && k->size() == 1 && !x.isDynamicDim(*axis) &&
        ((*k)[0] < 0 || (*k)[0] > x.getDimSize(*axis)))
      return emitError() << "TopK K = " << (*k)[0] << " is out of range";
  }
  for (unsigned r = 0; r < 2; ++r) {
    Type t = r == 0 ? elt : i64Type(getContext());
    getOperation()->getResult(r).setType(x ? Type(RankedTensorType::get(out, t))
                                           : Type(UnrankedTensorType::get(t)));
  }
  return success();
}

int64_t TopKOp::dataDependentDim(unsigned result) {
  auto k = getConstantInts(getK());
  if (result > 1 || (k && k->size() == 1 && isNone(getN())))
    return -1;
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  if (!x)
    return -1;
  int64_t axis = static_cast<int64_t>(getAxis());
  return axis < 0 ? axis + x.getRank() : axis;
}

LogicalResult CompressOp::inferShapes() {
  Type elt = elementTypeOf(getInput());
  auto in = dyn_cast<RankedTensorType>(getInput().getType());
  ElementsAttr cond = getConstantElements(getCondition());
  if (!in)
    return setUnrankedResult(getOperation(), elt);
  int64_t axis = -1, extent = in.hasStaticShape() ? in.getNumElements() : kDyn;
  if (getAxis()) {
    auto a = normalizeAxis(getOperation(), *getAxis(), in.getRank(), "axis");
    if (failed(a))
      return failure();
    axis = *a;
    extent = in.getDimSize(axis);
  }
  int64_t count = kDyn;
  if (cond && !ShapedType::isDynamic(extent)) {
    count = 0;
    int64_t i = 0;
    for (bool c : cond.getValues<bool>())
      if (i++ < extent && c)
        ++count;
  }
  SmallVector<int64_t> out;
  if (axis < 0) {
    out.push_back(count);
  } else {
    out.assign(in.getShape().begin(), in.getShape().end());
    out[axis] = count;
  }
  setResultType(getOperation(), 0, out, elt);
  return success();
}

//===-- Folds: ops that do nothing for their operand types ----------------===//
// These return the operand itself; value folding (constants) is the
// onnxc-constant-folding pass's, through the runtime kernels.

static OpFoldResult sameTypeOperand(Value in, Value out) {
  auto t = dyn_cast<RankedTensorType>(out.getType());
  return t && t.hasStaticShape() && in.getType() == out.getType() ? in : nullptr;
}

OpFoldResult IdentityOp::fold(FoldAdaptor) { return getX(); }
/// No padding: every pad 0 (torchvision's batching of one image).
OpFoldResult PadOp::fold(FoldAdaptor) {
  auto pads = getConstantInts(getPads());
  if (!pads || llvm::any_of(*pads, [](int64_t p) { return p != 0; }))
    return nullptr;
  return sameTypeOperand(getData(), getOutput());
}
/// A resize to the input's own size samples each input element at its own
/// coordinate (every mode but tf_crop_and_resize maps x to x at scale 1,
/// and linear, cubic and their antialiased filters weigh only that sample):
/// torchvision's detection transform resizes a 320 x 320 image to 320 x 320.
OpFoldResult ResizeOp::fold(FoldAdaptor) {
  if (getCoordinateTransformationMode() == "tf_crop_and_resize")
    return nullptr;
  return sameTypeOperand(getX(), getY());
}
OpFoldResult CastOp::fold(FoldAdaptor) { return sameTypeOperand(getInput(), getResult()); }
OpFoldResult ReshapeOp::fold(FoldAdaptor) { return sameTypeOperand(getData(), getResult()); }
OpFoldResult ExpandOp::fold(FoldAdaptor) { return sameTypeOperand(getInput(), getResult()); }
OpFoldResult TransposeOp::fold(FoldAdaptor) {
  auto t = dyn_cast<RankedTensorType>(getData().getType());
  if (!t)
    return nullptr;
  SmallVector<int64_t> perm = transposePerm(getOperation(), t.getRank());
  for (auto [i, p] : llvm::enumerate(perm))
    if (p != static_cast<int64_t>(i))
      return nullptr;
  return getData();
}

} // namespace onnxc::onnx

//===-- Data-dependent shapes: the bound, and which dim the data decides ---===//

namespace onnxc::onnx {

/// Sets result `i` unless it is an omitted optional output (`none`).
static void setResultIfPresent(Operation *op, unsigned i, ArrayRef<int64_t> shape, Type elt) {
  if (!isa<NoneType>(op->getResult(i).getType()))
    setResultType(op, i, shape, elt);
}

/// The extra result holding the size the run produced: a scalar int64.
static void setExtentResult(Operation *op) {
  setResultType(op, op->getNumResults() - 1, {}, i64Type(op->getContext()));
}

LogicalResult NonZeroOp::inferShapes() {
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  setExtentResult(getOperation());
  if (!x || !x.hasStaticShape()) {
    setResultType(getOperation(), 0, {x ? x.getRank() : kDyn, kDyn}, i64Type(getContext()));
    return success();
  }
  if ((*this)->hasAttr(kTransposedNonZeroAttr))
    setResultType(getOperation(), 0, {x.getNumElements(), x.getRank()}, i64Type(getContext()));
  else
    setResultType(getOperation(), 0, {x.getRank(), x.getNumElements()}, i64Type(getContext()));
  return success();
}

int64_t NonZeroOp::dataDependentDim(unsigned result) {
  if (result != 0)
    return -1;
  return (*this)->hasAttr(kTransposedNonZeroAttr) ? 0 : 1;
}

LogicalResult UniqueOp::inferShapes() {
  Operation *op = getOperation();
  Type elt = elementTypeOf(getX()), i64 = i64Type(getContext());
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  setExtentResult(op);
  if (!x || !x.hasStaticShape()) {
    (void)setUnrankedResult(op, elt);
    for (unsigned r = 1; r < 4; ++r)
      setResultIfPresent(op, r, {kDyn}, i64);
    return success();
  }
  SmallVector<int64_t> y = {x.getNumElements()};
  int64_t slices = x.getNumElements();
  if (getAxis()) {
    auto a = normalizeAxis(op, *getAxis(), x.getRank(), "axis");
    if (failed(a))
      return failure();
    y.assign(x.getShape().begin(), x.getShape().end());
    slices = x.getDimSize(*a);
  }
  setResultType(op, 0, y, elt);
  for (unsigned r = 1; r < 4; ++r)
    setResultIfPresent(op, r, {slices}, i64);
  return success();
}

int64_t UniqueOp::dataDependentDim(unsigned result) {
  if (result == 0) {
    if (!getAxis())
      return 0;
    int64_t rank = cast<ShapedType>(getX().getType()).getRank();
    int64_t axis = static_cast<int64_t>(*getAxis());
    return axis < 0 ? axis + rank : axis;
  }
  return result == 1 || result == 3 ? 0 : -1;
}

} // namespace onnxc::onnx
