//===- Tensor.cpp - ops that move elements ===//
//
// Data movement (Concat, Slice, Gather, Pad, Transpose, ...), indexing and
// resampling through tensor.h, resize.h and sample.h.
//
//===----------------------------------------------------------------------===//
#include "Families.h"

#include "onnxc/Lowering/CallBuilders.h"
#include "onnxc_rt/kernels/reference/tensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace onnxc::onnx;
using namespace onnxc::lowering;

namespace onnxc::reference {
namespace {

FailureOr<OpLowering> lowerConcat(ConcatOp op, std::string t) {
  auto ys = shapeOf(op.getResult());
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += ys.size();
  int64_t outer = prod(ys.take_front(axis)), innerOut = prod(ys.drop_front(axis));
  std::vector<KernelCall> cs;
  int64_t offset = 0;
  for (Value in : op.getInputs()) {
    int64_t inner = prod(shapeOf(in).drop_front(axis));
    if (inner > 0)
      cs.push_back(call("concat_part", {t}, kTensor,
                        {KernelArg::input(in), KernelArg::output(op.getResult()),
                         KernelArg::i(outer), KernelArg::i(inner),
                         KernelArg::i(innerOut), KernelArg::i(offset)}));
    offset += inner;
  }
  return calls(cs);
}

FailureOr<OpLowering> lowerSplit(SplitOp op, std::string t) {
  int64_t axis;
  auto sizes = resolveSplit(op, axis);
  if (failed(sizes))
    return failure();
  auto xs = shapeOf(op.getInput());
  int64_t outer = prod(xs.take_front(axis)), innerIn = prod(xs.drop_front(axis));
  int64_t offset = 0;
  std::vector<KernelCall> cs;
  for (Value r : op.getOutputs()) {
    int64_t inner = prod(shapeOf(r).drop_front(axis));
    cs.push_back(call("split_part", {t}, kTensor,
                      {KernelArg::input(op.getInput()), KernelArg::output(r),
                       KernelArg::i(outer), KernelArg::i(innerIn), KernelArg::i(inner),
                       KernelArg::i(offset)}));
    offset += inner;
  }
  return calls(cs);
}

FailureOr<OpLowering> lowerSlice(SliceOp op, std::string t) {
  auto g = resolveSlice(op);
  if (failed(g))
    return failure();
  if (!*g)
    return unsupported(op, "starts, ends, axes and steps computed at run time are not supported");
  auto xs = shapeOf(op.getData());
  return calls({call("slice", {t}, kTensor,
                     {KernelArg::input(op.getData()), KernelArg::output(op.getResult()),
                      KernelArg::i(xs.size()), KernelArg::array(xs),
                      KernelArg::array((*g)->outShape), KernelArg::array((*g)->starts),
                      KernelArg::array((*g)->steps)})});
}

FailureOr<OpLowering> lowerGather(GatherOp op, std::string t) {
  auto xs = shapeOf(op.getData());
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += xs.size();
  return calls({call("gather", {t, cppTypeName(eltOf(op.getIndices()))}, kTensor,
                     {KernelArg::input(op.getData()), KernelArg::input(op.getIndices()),
                      KernelArg::output(op.getResult()),
                      KernelArg::i(prod(xs.take_front(axis))), KernelArg::i(xs[axis]),
                      KernelArg::i(prod(xs.drop_front(axis + 1))),
                      KernelArg::i(numel(op.getIndices()))})});
}

FailureOr<OpLowering> lowerPad(PadOp op, std::string t) {
  auto xs = shapeOf(op.getData());
  auto pads = getConstantInts(op.getPads());
  if (!pads)
    return unsupported(op, "pads computed at run time are not supported");
  SmallVector<int64_t> axes;
  if (!isNone(op.getAxes())) {
    auto a = getConstantInts(op.getAxes());
    if (!a)
      return unsupported(op, "axes computed at run time are not supported");
    for (int64_t v : *a)
      axes.push_back(v < 0 ? v + xs.size() : v);
  } else {
    for (size_t i = 0; i < xs.size(); ++i)
      axes.push_back(i);
  }
  SmallVector<int64_t> begin(xs.size(), 0);
  for (size_t i = 0; i < axes.size(); ++i)
    begin[axes[i]] = (*pads)[i];
  StringRef mode = op.getMode();
  int64_t m = mode == "constant" ? 0 : mode == "reflect" ? 1 : mode == "edge" ? 2 : 3;
  return calls({call("pad", {t}, kTensor,
                     {KernelArg::input(op.getData()), KernelArg::output(op.getResult()),
                      KernelArg::i(xs.size()), KernelArg::array(xs),
                      KernelArg::array(shapeOf(op.getResult())), KernelArg::array(begin),
                      KernelArg::i(m), inputOrNull(op.getConstantValue())})});
}

int64_t reductionCode(StringRef r) {
  return r == "add" ? 1 : r == "mul" ? 2 : r == "max" ? 3 : r == "min" ? 4 : 0;
}

FailureOr<OpLowering> lowerGatherScatterElements(Operation *op, std::string t) {
  Value data = op->getOperand(0), idx = op->getOperand(1);
  auto ds = shapeOf(data), is = shapeOf(idx);
  int64_t axis = op->getAttrOfType<IntegerAttr>("axis")
                     ? op->getAttrOfType<IntegerAttr>("axis").getInt()
                     : 0;
  if (axis < 0)
    axis += ds.size();
  std::string ti = cppTypeName(eltOf(idx));
  if (auto s = dyn_cast<ScatterElementsOp>(op))
    return calls({call("scatter_elements", {t, ti}, kTensor,
                       {KernelArg::input(data), KernelArg::input(idx),
                        KernelArg::input(s.getUpdates()), KernelArg::output(s.getResult()),
                        KernelArg::i(ds.size()), KernelArg::array(ds), KernelArg::array(is),
                        KernelArg::i(axis), KernelArg::i(reductionCode(s.getReduction()))})});
  return calls({call("gather_elements", {t, ti}, kTensor,
                     {KernelArg::input(data), KernelArg::input(idx),
                      KernelArg::output(op->getResult(0)), KernelArg::i(ds.size()),
                      KernelArg::array(ds), KernelArg::array(is), KernelArg::i(axis)})});
}

FailureOr<OpLowering> lowerGatherND(GatherNDOp op, std::string t) {
  auto ds = shapeOf(op.getData()), is = shapeOf(op.getIndices());
  int64_t b = op.getBatchDims(), k = is.back();
  return calls({call("gather_nd", {t, cppTypeName(eltOf(op.getIndices()))}, kTensor,
                     {KernelArg::input(op.getData()), KernelArg::input(op.getIndices()),
                      KernelArg::output(op.getResult()), KernelArg::i(prod(is.take_front(b))),
                      KernelArg::i(prod(is.drop_front(b).drop_back())), KernelArg::i(k),
                      KernelArg::array(ds.slice(b, k)), KernelArg::i(prod(ds.drop_front(b))),
                      KernelArg::i(prod(ds.drop_front(b + k)))})});
}

FailureOr<OpLowering> lowerScatterND(ScatterNDOp op, std::string t) {
  auto ds = shapeOf(op.getData()), is = shapeOf(op.getIndices());
  int64_t k = is.back();
  return calls({call("scatter_nd", {t, cppTypeName(eltOf(op.getIndices()))}, kTensor,
                     {KernelArg::input(op.getData()), KernelArg::input(op.getIndices()),
                      KernelArg::input(op.getUpdates()), KernelArg::output(op.getResult()),
                      KernelArg::i(numel(op.getData())), KernelArg::i(prod(is.drop_back())),
                      KernelArg::i(k), KernelArg::array(ds.take_front(k)),
                      KernelArg::i(prod(ds.drop_front(k))),
                      KernelArg::i(reductionCode(op.getReduction()))})});
}

FailureOr<OpLowering> lowerResize(ResizeOp op, std::string t) {
  auto g = resolveResize(op);
  if (failed(g))
    return failure();
  if (!*g)
    return unsupported(op, "scales, sizes or roi computed at run time are not supported");
  StringRef m = op.getMode(), c = op.getCoordinateTransformationMode(),
            nm = op.getNearestMode();
  int64_t mode = m == "nearest" ? 0 : m == "linear" ? 1 : 2;
  int64_t coord = c == "half_pixel"           ? 0
                  : c == "asymmetric"         ? 1
                  : c == "pytorch_half_pixel" ? 2
                  : c == "align_corners"      ? 3
                  : c == "tf_crop_and_resize" ? 4
                  : c == "half_pixel_symmetric" ? 5
                                              : 6;
  int64_t nearest = nm == "round_prefer_floor" ? 0
                    : nm == "round_prefer_ceil" ? 1
                    : nm == "floor"             ? 2
                                                : 3;
  auto xs = shapeOf(op.getX());
  return calls({call("resize", {t}, kResize,
                     {KernelArg::input(op.getX()), KernelArg::output(op.getY()),
                      KernelArg::i(xs.size()), KernelArg::array(xs),
                      KernelArg::array((*g)->outShape), KernelArg::floatArray((*g)->scales),
                      KernelArg::floatArray((*g)->roi), KernelArg::i(mode), KernelArg::i(coord),
                      KernelArg::i(nearest), KernelArg::f(op.getCubicCoeffA().convertToFloat()),
                      KernelArg::i(op.getExcludeOutside()),
                      KernelArg::f(op.getExtrapolationValue().convertToFloat())})});
}

FailureOr<OpLowering> lowerCompress(CompressOp op, std::string t) {
  ElementsAttr cond = getConstantElements(op.getCondition());
  if (!cond)
    return unsupported(op, "a condition computed at run time is not supported");
  auto xs = shapeOf(op.getInput());
  int64_t outer = 1, extent = numel(op.getInput()), inner = 1;
  if (auto a = op.getAxis()) {
    int64_t axis = static_cast<int64_t>(*a);
    if (axis < 0)
      axis += xs.size();
    outer = prod(xs.take_front(axis));
    extent = xs[axis];
    inner = prod(xs.drop_front(axis + 1));
  }
  SmallVector<int64_t> picked;
  int64_t i = 0;
  for (bool c : cond.getValues<bool>())
    if (i < extent && c)
      picked.push_back(i++);
    else
      ++i;
  if (picked.empty())
    return calls({});
  return calls({call("gather", {t, "int64_t"}, kTensor,
                     {KernelArg::input(op.getInput()), KernelArg::array(picked),
                      KernelArg::output(op.getResult()), KernelArg::i(outer),
                      KernelArg::i(extent), KernelArg::i(inner),
                      KernelArg::i(picked.size())})});
}

} // namespace

ProviderResult lowerTensor(Operation *op, const std::string &t) {
  return TypeSwitch<Operation *, ProviderResult>(op)
      .Case<TransposeOp>([&](TransposeOp o) { return calls({transposeCall(o, t)}); })
      .Case<ConcatOp>([&](ConcatOp o) { return lowerConcat(o, t); })
      .Case<SplitOp>([&](SplitOp o) { return lowerSplit(o, t); })
      .Case<SliceOp>([&](SliceOp o) { return lowerSlice(o, t); })
      .Case<GatherOp>([&](GatherOp o) { return lowerGather(o, t); })
      .Case<TileOp>([&](TileOp o) {
        auto xs = shapeOf(o.getInput());
        return calls({call("tile", {t}, kTensor,
                           {KernelArg::input(o.getInput()), KernelArg::output(o.getResult()),
                            KernelArg::i(xs.size()), KernelArg::array(xs),
                            KernelArg::array(shapeOf(o.getResult()))})});
      })
      .Case<PadOp>([&](PadOp o) { return lowerPad(o, t); })
      .Case<GatherElementsOp, ScatterElementsOp>(
          [&](Operation *o) { return lowerGatherScatterElements(o, t); })
      .Case<GatherNDOp>([&](GatherNDOp o) { return lowerGatherND(o, t); })
      .Case<ScatterNDOp>([&](ScatterNDOp o) { return lowerScatterND(o, t); })
      .Case<TriluOp>([&](TriluOp o) -> FailureOr<OpLowering> {
        int64_t k = 0;
        if (!isNone(o.getK())) {
          auto kv = getConstantInts(o.getK());
          if (!kv || kv->size() != 1)
            return unsupported(o, "a k computed at run time is not supported");
          k = (*kv)[0];
        }
        auto xs = shapeOf(o.getInput());
        return calls({call("trilu", {t}, kTensor,
                           {KernelArg::input(o.getInput()), KernelArg::output(o.getResult()),
                            KernelArg::i(prod(xs.drop_back(2))), KernelArg::i(xs[xs.size() - 2]),
                            KernelArg::i(xs.back()), KernelArg::i(k),
                            KernelArg::i(o.getUpper())})});
      })
      .Case<CumSumOp>([&](CumSumOp o) -> FailureOr<OpLowering> {
        auto a = getConstantInts(o.getAxis());
        auto xs = shapeOf(o.getX());
        if (!a || a->size() != 1)
          return unsupported(o, "an axis computed at run time is not supported");
        auto axis = normalizeAxis(o, (*a)[0], xs.size(), "axis");
        if (failed(axis))
          return failure();
        return calls({call("cumsum", {t}, kTensor,
                           {KernelArg::input(o.getX()), KernelArg::output(o.getY()),
                            KernelArg::i(prod(xs.take_front(*axis))), KernelArg::i(xs[*axis]),
                            KernelArg::i(prod(xs.drop_front(*axis + 1))),
                            KernelArg::i(o.getExclusive()), KernelArg::i(o.getReverse())})});
      })
      .Case<OneHotOp>([&](OneHotOp o) -> FailureOr<OpLowering> {
        auto is = shapeOf(o.getIndices());
        auto os = shapeOf(o.getResult());
        int64_t axis = static_cast<int64_t>(o.getAxis());
        if (axis < 0)
          axis += os.size();
        return calls({call("one_hot", {t, cppTypeName(eltOf(o.getValues()))}, kTensor,
                           {KernelArg::input(o.getIndices()), KernelArg::input(o.getValues()),
                            KernelArg::output(o.getResult()), KernelArg::i(prod(is.take_front(axis))),
                            KernelArg::i(os[axis]), KernelArg::i(prod(is.drop_front(axis)))})});
      })
      .Case<EyeLikeOp>([&](EyeLikeOp o) {
        auto os = shapeOf(o.getResult());
        return calls({call("eye_like", {cppTypeName(eltOf(o.getResult()))}, kTensor,
                           {KernelArg::output(o.getResult()), KernelArg::i(os[0]),
                            KernelArg::i(os[1]), KernelArg::i(o.getK())})});
      })
      .Case<TopKOp>([&](TopKOp o) {
        auto xs = shapeOf(o.getX());
        int64_t axis = static_cast<int64_t>(o.getAxis());
        if (axis < 0)
          axis += xs.size();
        return calls({call("topk", {t}, kTensor,
                           {KernelArg::input(o.getX()), KernelArg::output(o.getValues()),
                            KernelArg::output(o.getIndices()), KernelArg::i(prod(xs.take_front(axis))),
                            KernelArg::i(xs[axis]), KernelArg::i(prod(xs.drop_front(axis + 1))),
                            KernelArg::i(shapeOf(o.getValues())[axis]),
                            KernelArg::i(o.getLargest()), KernelArg::i(o.getSorted()),
                            KernelArg::output(o.getExtent()),
                            getConstantInts(o.getK()) ? KernelArg::null()
                                                      : KernelArg::input(o.getK()),
                            isNone(o.getN()) ? KernelArg::null() : KernelArg::input(o.getN())})});
      })
      .Case<CompressOp>([&](CompressOp o) { return lowerCompress(o, t); })
      .Case<NonZeroOp>([&](NonZeroOp o) {
        auto xs = shapeOf(o.getX());
        return calls({call("nonzero", {t}, kTensor,
                           {KernelArg::input(o.getX()), KernelArg::output(o.getY()),
                            KernelArg::output(o.getExtent()), KernelArg::i(xs.size()),
                            KernelArg::array(xs), KernelArg::i(numel(o.getX())),
                            KernelArg::i(o->hasAttr(kTransposedNonZeroAttr))})});
      })
      .Case<UniqueOp>([&](UniqueOp o) {
        auto xs = shapeOf(o.getX());
        int64_t outer = 1, n = numel(o.getX()), inner = 1;
        if (o.getAxis()) {
          int64_t axis = o.dataDependentDim(0); // the axis, normalised
          outer = prod(xs.take_front(axis));
          n = xs[axis];
          inner = prod(xs.drop_front(axis + 1));
        }
        return calls({call("unique", {t}, kTensor,
                           {KernelArg::input(o.getX()), KernelArg::output(o.getY()),
                            outputOrNull(o.getIndices()), outputOrNull(o.getInverseIndices()),
                            outputOrNull(o.getCounts()), KernelArg::output(o.getExtent()),
                            KernelArg::i(outer), KernelArg::i(n), KernelArg::i(inner),
                            KernelArg::i(o.getSorted()),
                            KernelArg::scratch(onnxc_rt::ref::kUniqueScratchPerSlice * std::max<int64_t>(n, 1) * 8,
                                              "int64_t")})});
      })
      .Case<ReverseSequenceOp>([&](ReverseSequenceOp o) -> FailureOr<OpLowering> {
        auto xs = shapeOf(o.getInput());
        int64_t ba = o.getBatchAxis(), ta = o.getTimeAxis();
        if (!((ba == 0 && ta == 1) || (ba == 1 && ta == 0)))
          return unsupported(o, "batch_axis/time_axis other than 0 and 1 are not supported");
        int64_t inner = prod(xs.drop_front(2));
        int64_t s0 = xs[1] * inner, s1 = inner;
        return calls({call("reverse_sequence", {t, cppTypeName(eltOf(o.getSequenceLens()))},
                           kTensor,
                           {KernelArg::input(o.getInput()), KernelArg::input(o.getSequenceLens()),
                            KernelArg::output(o.getY()), KernelArg::i(xs[ba]), KernelArg::i(xs[ta]),
                            KernelArg::i(ba == 0 ? s0 : s1), KernelArg::i(ta == 0 ? s0 : s1),
                            KernelArg::i(inner), KernelArg::i(numel(o.getInput()))})});
      })
      .Case<ResizeOp>([&](ResizeOp o) { return lowerResize(o, t); })
      .Case<GridSampleOp>([&](GridSampleOp o) {
        auto xs = shapeOf(o.getX()), ys = shapeOf(o.getY());
        int64_t mode = o.getMode() == "bilinear" ? 0 : o.getMode() == "nearest" ? 1 : 2;
        int64_t pad = o.getPaddingMode() == "zeros" ? 0 : o.getPaddingMode() == "border" ? 1 : 2;
        return calls({call("grid_sample", {t}, kSample,
                           {KernelArg::input(o.getX()), KernelArg::input(o.getGrid()),
                            KernelArg::output(o.getY()), KernelArg::i(xs[0]), KernelArg::i(xs[1]),
                            KernelArg::i(xs[2]), KernelArg::i(xs[3]), KernelArg::i(ys[2]),
                            KernelArg::i(ys[3]), KernelArg::i(mode), KernelArg::i(pad),
                            KernelArg::i(o.getAlignCorners())})});
      })
      .Case<RoiAlignOp>([&](RoiAlignOp o) -> FailureOr<OpLowering> {
        auto xs = shapeOf(o.getX());
        StringRef ctm = o.getCoordinateTransformationMode();
        if (ctm != "half_pixel" && ctm != "output_half_pixel")
          return unsupported(o, "coordinate_transformation_mode '" + ctm + "' is not supported");
        return calls({call("roi_align", {t, cppTypeName(eltOf(o.getBatchIndices()))}, kSample,
                           {KernelArg::input(o.getX()), KernelArg::input(o.getRois()),
                            KernelArg::input(o.getBatchIndices()), KernelArg::output(o.getY()),
                            KernelArg::i(xs[1]), KernelArg::i(xs[2]), KernelArg::i(xs[3]),
                            KernelArg::i(shapeOf(o.getRois())[0]), KernelArg::i(o.getOutputHeight()),
                            KernelArg::i(o.getOutputWidth()), KernelArg::i(o.getSamplingRatio()),
                            KernelArg::f(o.getSpatialScale().convertToFloat()),
                            KernelArg::i(o.getMode() == "max"), KernelArg::i(ctm == "half_pixel")})});
      })
      .Default([](Operation *) -> ProviderResult { return std::nullopt; });
}

} // namespace onnxc::reference
