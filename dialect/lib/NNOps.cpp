//===- NNOps.cpp - inference and verifiers for the nn ops ------------------===//
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace onnxc::onnx {

static Type elementTypeOf(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}

/// Conv and pools: NC + spatial dims, all static, else dynamic result.
static RankedTensorType staticNCX(Operation *op, Value x) {
  auto t = dyn_cast<RankedTensorType>(x.getType());
  if (!t || !t.hasStaticShape() || t.getRank() < 3)
    return nullptr;
  return t;
}

LogicalResult inferConvLike(Operation *op, Value xv, Value wv, Value bias, Type elt) {
  auto x = staticNCX(op, xv);
  auto w = dyn_cast<RankedTensorType>(wv.getType());
  if (!x || !w || !w.hasStaticShape()) {
    op->getResult(0).setType(UnrankedTensorType::get(elt));
    return success();
  }
  auto groupAttr = op->getAttrOfType<IntegerAttr>("group");
  int64_t group = groupAttr ? groupAttr.getInt() : 1;
  if (w.getRank() != x.getRank())
    return op->emitError() << "weights " << w << " and input " << x
                           << " differ in rank";
  if (group < 1 || x.getDimSize(1) % group != 0 ||
      w.getDimSize(0) % group != 0 || x.getDimSize(1) / group != w.getDimSize(1))
    return op->emitError() << "input channels (" << x.getDimSize(1)
                           << ") do not match weights " << w << " with group "
                           << group;
  SmallVector<int64_t> kernel(w.getShape().drop_front(2));
  if (auto ks = op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape"))
    if (ks.asArrayRef() != ArrayRef<int64_t>(kernel))
      return op->emitError("kernel_shape does not match the weights");
  if (bias && !isNone(bias)) {
    auto b = dyn_cast<RankedTensorType>(bias.getType());
    if (b && (b.getRank() != 1 || b.getDimSize(0) != w.getDimSize(0)))
      return op->emitError() << "bias " << b << " must be 1-D of size "
                             << w.getDimSize(0);
  }
  auto g = resolveWindow(op, x.getShape().drop_front(2), kernel, /*ceilMode=*/false);
  if (failed(g))
    return failure();
  SmallVector<int64_t> out{x.getDimSize(0), w.getDimSize(0)};
  out.append(g->outSpatial);
  setResultType(op, 0, out, elt);
  return success();
}

LogicalResult ConvOp::inferShapes() {
  return inferConvLike(getOperation(), getX(), getW(), getB(), elementTypeOf(getX()));
}

LogicalResult FusedConvOp::inferShapes() {
  return inferConvLike(getOperation(), getX(), getW(), getB(), elementTypeOf(getX()));
}

bool isFusedActivation(MLIRContext *ctx, StringRef name) {
  // The fusion's own functors: none, Clip's Clamp and x * Sigmoid(x)'s Silu.
  if (llvm::is_contained({"Identity", "Clamp", "Silu"}, name))
    return true;
  std::optional<RegisteredOperationName> op =
      RegisteredOperationName::lookup(("onnx." + name).str(), ctx);
  return op && op->hasTrait<Activation>();
}

LogicalResult FusedConvOp::verify() {
  if (!isFusedActivation(getContext(), getActivation()))
    return emitOpError() << "unknown activation '" << getActivation() << "'";
  if (!isNone(getZ()) && getZ().getType() != getY().getType() &&
      isa<RankedTensorType>(getY().getType()))
    return emitOpError() << "Z " << getZ().getType() << " must have the result's type "
                         << getY().getType();
  return success();
}

LogicalResult ConvIntegerOp::inferShapes() {
  return inferConvLike(getOperation(), getX(), getW(), nullptr,
                       IntegerType::get(getContext(), 32));
}

LogicalResult QLinearConvOp::inferShapes() {
  return inferConvLike(getOperation(), getX(), getW(), getB(),
                       elementTypeOf(getYZeroPoint()));
}

LogicalResult QConvOp::inferShapes() {
  return inferConvLike(getOperation(), getX(), getW(), getB(), elementTypeOf(getY()));
}

LogicalResult QuantizeLinearOp::inferShapes() {
  Type q = isNone(getYZeroPoint()) ? Type(IntegerType::get(getContext(), 8, IntegerType::Unsigned))
                                   : elementTypeOf(getYZeroPoint());
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  getOperation()->getResult(0).setType(x ? Type(RankedTensorType::get(x.getShape(), q))
                                         : Type(UnrankedTensorType::get(q)));
  return success();
}

LogicalResult DequantizeLinearOp::inferShapes() {
  Type f = elementTypeOf(getXScale());
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  getOperation()->getResult(0).setType(x ? Type(RankedTensorType::get(x.getShape(), f))
                                         : Type(UnrankedTensorType::get(f)));
  return success();
}

/// A quantization's parameters: a constant scale must be positive and
/// finite (a zero scale divides by zero), and the zero point has the
/// quantized tensor's type (so it lies in its range).
static LogicalResult verifyQuantParams(Operation *op, Value scale, Value zp, Type quantized) {
  if (ElementsAttr s = getConstantElements(scale))
    if (isa<FloatType>(s.getElementType()))
      for (APFloat v : s.getValues<APFloat>()) {
        double d = v.convertToDouble();
        if (!(d > 0) || !std::isfinite(d))
          return op->emitOpError() << "scale must be positive and finite, not " << d;
      }
  // (The importer verifies a QuantizeLinear before its result type is
  // inferred: a float placeholder is not the quantized type yet.)
  if (!isNone(zp) && quantized && isa<IntegerType>(quantized)) {
    Type z = elementTypeOf(zp);
    if (z != quantized)
      return op->emitOpError() << "zero point is " << z << " but the quantized tensor is "
                               << quantized;
  }
  return success();
}

LogicalResult QuantizeLinearOp::verify() {
  auto y = dyn_cast<ShapedType>(getY().getType());
  return verifyQuantParams(getOperation(), getYScale(), getYZeroPoint(),
                           y ? y.getElementType() : Type());
}

LogicalResult DequantizeLinearOp::verify() {
  return verifyQuantParams(getOperation(), getXScale(), getXZeroPoint(), elementTypeOf(getX()));
}

LogicalResult DynamicQuantizeLinearOp::inferShapes() {
  Type u8 = IntegerType::get(getContext(), 8, IntegerType::Unsigned);
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  getOperation()->getResult(0).setType(x ? Type(RankedTensorType::get(x.getShape(), u8))
                                         : Type(UnrankedTensorType::get(u8)));
  setResultType(getOperation(), 1, {}, Float32Type::get(getContext()));
  setResultType(getOperation(), 2, {}, u8);
  return success();
}

static LogicalResult inferPool(Operation *op, Value xv, ArrayRef<int64_t> kernel,
                               bool ceilMode) {
  auto x = staticNCX(op, xv);
  Type elt = elementTypeOf(xv);
  if (!x) {
    for (Value r : op->getResults())
      if (!isa<NoneType>(r.getType()))
        r.setType(UnrankedTensorType::get(r == op->getResult(0)
                                              ? elt
                                              : IntegerType::get(op->getContext(), 64)));
    return success();
  }
  auto g = resolveWindow(op, x.getShape().drop_front(2), kernel, ceilMode);
  if (failed(g))
    return failure();
  SmallVector<int64_t> out{x.getDimSize(0), x.getDimSize(1)};
  out.append(g->outSpatial);
  setResultType(op, 0, out, elt);
  if (op->getNumResults() > 1 && !isa<NoneType>(op->getResult(1).getType()))
    setResultType(op, 1, out, IntegerType::get(op->getContext(), 64));
  return success();
}

LogicalResult MaxPoolOp::inferShapes() {
  return inferPool(getOperation(), getX(), getKernelShape(), getCeilMode());
}

LogicalResult AveragePoolOp::inferShapes() {
  return inferPool(getOperation(), getX(), getKernelShape(), getCeilMode());
}

/// Input and output share their type (onnxc-fold-qdq folds no pool that
/// changes it).
LogicalResult QAveragePoolOp::inferShapes() {
  return inferPool(getOperation(), getX(), getKernelShape(), /*ceilMode=*/false);
}

static LogicalResult inferGlobalPool(Operation *op) {
  Value x = op->getOperand(0);
  auto t = dyn_cast<RankedTensorType>(x.getType());
  if (!t) {
    op->getResult(0).setType(x.getType());
    return success();
  }
  if (t.getRank() < 3)
    return op->emitError("global pooling needs an input of rank >= 3 (N, C, ...)");
  SmallVector<int64_t> out(t.getShape());
  for (size_t i = 2; i < out.size(); ++i)
    out[i] = 1;
  setResultType(op, 0, out, t.getElementType());
  return success();
}

LogicalResult GlobalAveragePoolOp::inferShapes() {
  return inferGlobalPool(getOperation());
}
LogicalResult GlobalMaxPoolOp::inferShapes() {
  return inferGlobalPool(getOperation());
}

LogicalResult BatchNormalizationOp::inferShapes() {
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  if (x) {
    if (x.getRank() < 2)
      return emitError("BatchNormalization input must have rank >= 2");
    int64_t c = x.getDimSize(1);
    for (Value p : {getScale(), getB(), getInputMean(), getInputVar()}) {
      auto t = dyn_cast<RankedTensorType>(p.getType());
      if (t && (t.getRank() != 1 ||
                (!ShapedType::isDynamic(c) && t.getDimSize(0) != c)))
        return emitError() << "BatchNormalization parameter " << t
                           << " must be 1-D of size " << c;
    }
  }
  for (unsigned r = 1; r < 3; ++r)
    if (!isa<NoneType>(getOperation()->getResult(r).getType()))
      getOperation()->getResult(r).setType(getInputMean().getType());
  return inferSameAsOperand(getOperation(), 0);
}

LogicalResult LayerNormalizationOp::inferShapes() {
  getOperation()->getResult(0).setType(getX().getType());
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  if (!x)
    return success();
  auto axis = normalizeAxis(getOperation(), getAxis(), x.getRank(), "axis");
  if (failed(axis))
    return failure();
  // Mean and InvStdDev keep the leading dims and have 1 for the normalised ones.
  SmallVector<int64_t> stat(x.getShape());
  for (int64_t i = *axis; i < x.getRank(); ++i)
    stat[i] = 1;
  for (unsigned r = 1; r < 3; ++r)
    if (!isa<NoneType>(getResult(r).getType()))
      setResultType(getOperation(), r, stat, x.getElementType());
  return success();
}

LogicalResult DropoutOp::inferShapes() {
  getOperation()->getResult(0).setType(getData().getType());
  if (!isa<NoneType>(getMask().getType())) {
    auto x = dyn_cast<RankedTensorType>(getData().getType());
    Type i1 = IntegerType::get(getContext(), 1);
    getOperation()->getResult(1).setType(x ? Type(RankedTensorType::get(x.getShape(), i1))
                        : Type(UnrankedTensorType::get(i1)));
  }
  return success();
}

FailureOr<WindowGeometry> resolveConvTranspose(Operation *op) {
  auto ct = cast<ConvTransposeOp>(op);
  auto x = cast<RankedTensorType>(ct.getX().getType());
  auto w = cast<RankedTensorType>(ct.getW().getType());
  size_t n = x.getRank() - 2;
  WindowGeometry g;
  g.kernel.assign(w.getShape().begin() + 2, w.getShape().end());
  auto arr = [&](std::optional<ArrayRef<int64_t>> a, int64_t dflt, size_t count) {
    SmallVector<int64_t> v(count, dflt);
    if (a && a->size() == count)
      v.assign(a->begin(), a->end());
    return v;
  };
  g.strides = arr(ct.getStrides(), 1, n);
  g.dilations = arr(ct.getDilations(), 1, n);
  SmallVector<int64_t> outPad = arr(ct.getOutputPadding(), 0, n);
  SmallVector<int64_t> pads = arr(ct.getPads(), 0, 2 * n);
  std::optional<ArrayRef<int64_t>> outShape = ct.getOutputShape();
  SmallVector<int64_t> target;
  if (outShape) {
    target.assign(outShape->begin(), outShape->end());
    if (target.size() == n + 2)
      target.erase(target.begin(), target.begin() + 2);
    if (target.size() != n)
      return op->emitError("output_shape must give the spatial dims");
  }
  StringRef autoPad = ct.getAutoPad();
  for (size_t i = 0; i < n; ++i) {
    int64_t span = (g.kernel[i] - 1) * g.dilations[i] + 1;
    int64_t full = g.strides[i] * (x.getDimSize(i + 2) - 1) + outPad[i] + span;
    int64_t pb = pads[i], pe = pads[i + n];
    if (!target.empty() || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t out = !target.empty() ? target[i] : x.getDimSize(i + 2) * g.strides[i];
      int64_t total = full - out;
      if (total < 0) { // a larger output than the input covers: extra zeros at the end
        pb = 0;
        pe = total;
      } else if (autoPad == "SAME_UPPER") {
        pb = total / 2;
        pe = total - total / 2;
      } else {
        pb = total - total / 2;
        pe = total / 2;
      }
    } else if (autoPad == "VALID") {
      pb = pe = 0;
    }
    int64_t out = full - pb - pe;
    if (out < 1)
      return op->emitError("ConvTranspose produces an empty output");
    g.padsBegin.push_back(pb);
    g.padsEnd.push_back(pe);
    g.outSpatial.push_back(out);
  }
  return g;
}

LogicalResult ConvTransposeOp::inferShapes() {
  auto x = staticNCX(getOperation(), getX());
  auto w = dyn_cast<RankedTensorType>(getW().getType());
  Type elt = elementTypeOf(getX());
  if (!x || !w || !w.hasStaticShape())
    return setUnrankedResult(getOperation(), elt);
  if (w.getRank() != x.getRank() || w.getDimSize(0) != x.getDimSize(1) ||
      x.getDimSize(1) % getGroup() != 0)
    return emitError() << "weights " << w << " do not match input " << x << " with group "
                       << getGroup();
  auto g = resolveConvTranspose(getOperation());
  if (failed(g))
    return failure();
  SmallVector<int64_t> out{x.getDimSize(0), w.getDimSize(1) * (int64_t)getGroup()};
  out.append(g->outSpatial);
  setResultType(getOperation(), 0, out, elt);
  return success();
}

static SmallVector<double> constantDoubles(ElementsAttr e) {
  SmallVector<double> v;
  if (isa<FloatType>(e.getElementType()))
    for (APFloat f : e.getValues<APFloat>())
      v.push_back(f.convertToDouble());
  else
    for (APInt i : e.getValues<APInt>())
      v.push_back((double)i.getSExtValue());
  return v;
}

FailureOr<std::optional<ResizeGeometry>> resolveResize(Operation *op) {
  auto r = cast<ResizeOp>(op);
  auto x = dyn_cast<RankedTensorType>(r.getX().getType());
  if (!x || !x.hasStaticShape())
    return std::optional<ResizeGeometry>();
  int64_t rank = x.getRank();
  if (r.getKeepAspectRatioPolicy() != "stretch")
    return op->emitError() << "keep_aspect_ratio_policy '" << r.getKeepAspectRatioPolicy()
                           << "' is not supported";
  if (r.getAntialias())
    return op->emitError("antialias is not supported");
  SmallVector<int64_t> axes;
  if (auto a = r.getAxes()) {
    for (int64_t v : *a) {
      auto n = normalizeAxis(op, v, rank, "axis");
      if (failed(n))
        return failure();
      axes.push_back(*n);
    }
  } else {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  ResizeGeometry g;
  g.scales.assign(rank, 1.0);
  g.outShape.assign(x.getShape().begin(), x.getShape().end());
  bool haveSizes = !isNone(r.getSizes()) &&
                   cast<ShapedType>(r.getSizes().getType()).getNumElements() > 0;
  bool haveScales = !isNone(r.getScales()) &&
                    cast<ShapedType>(r.getScales().getType()).getNumElements() > 0;
  if (haveSizes == haveScales)
    return op->emitError("Resize needs exactly one of scales and sizes");
  ElementsAttr e = getConstantElements(haveSizes ? r.getSizes() : r.getScales());
  if (!e)
    return std::optional<ResizeGeometry>();
  SmallVector<double> v = constantDoubles(e);
  if (v.size() != axes.size())
    return op->emitError() << "Resize has " << v.size() << " scales/sizes for "
                           << axes.size() << " axes";
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = axes[i], in = x.getDimSize(a);
    if (haveSizes) {
      g.outShape[a] = (int64_t)v[i];
      g.scales[a] = in ? (double)g.outShape[a] / in : 1.0;
    } else {
      if (v[i] <= 0)
        return op->emitError("Resize scales must be positive");
      g.scales[a] = v[i];
      g.outShape[a] = (int64_t)std::floor(in * v[i]);
    }
  }
  g.roi.assign(2 * rank, 0.0);
  for (int64_t i = 0; i < rank; ++i)
    g.roi[rank + i] = 1.0;
  if (r.getCoordinateTransformationMode() == "tf_crop_and_resize") {
    ElementsAttr roi = getConstantElements(r.getRoi());
    if (!roi)
      return std::optional<ResizeGeometry>();
    SmallVector<double> rv = constantDoubles(roi);
    if (rv.size() != 2 * axes.size())
      return op->emitError("Resize roi must have 2 values per axis");
    for (size_t i = 0; i < axes.size(); ++i) {
      g.roi[axes[i]] = rv[i];
      g.roi[rank + axes[i]] = rv[axes.size() + i];
    }
  }
  return std::optional<ResizeGeometry>(g);
}

LogicalResult ResizeOp::inferShapes() {
  Type elt = elementTypeOf(getX());
  StringRef mode = getMode(), coord = getCoordinateTransformationMode();
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return emitError() << "Resize mode '" << mode << "' is not supported";
  if (coord != "half_pixel" && coord != "asymmetric" && coord != "pytorch_half_pixel" &&
      coord != "align_corners" && coord != "tf_crop_and_resize" &&
      coord != "half_pixel_symmetric" && coord != "tf_half_pixel_for_nn")
    return emitError() << "coordinate_transformation_mode '" << coord
                       << "' is not supported";
  auto g = resolveResize(getOperation());
  if (failed(g))
    return failure();
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  if (*g)
    setResultType(getOperation(), 0, (*g)->outShape, elt);
  else if (x)
    setResultType(getOperation(), 0, SmallVector<int64_t>(x.getRank(), ShapedType::kDynamic), elt);
  else
    getOperation()->getResult(0).setType(UnrankedTensorType::get(elt));
  return success();
}

/// Shared by the two losses: the loss shape (the target's, or a scalar).
static LogicalResult inferLoss(Operation *op, Value input, Value target, StringRef reduction) {
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return op->emitError() << "reduction '" << reduction << "' is not supported";
  Type elt = elementTypeOf(input);
  auto t = dyn_cast<RankedTensorType>(target.getType());
  if (reduction != "none")
    setResultType(op, 0, {}, elt);
  else if (t)
    setResultType(op, 0, t.getShape(), elt);
  else
    op->getResult(0).setType(UnrankedTensorType::get(elt));
  return success();
}

LogicalResult NegativeLogLikelihoodLossOp::inferShapes() {
  return inferLoss(getOperation(), getInput(), getTarget(), getReduction());
}

LogicalResult SoftmaxCrossEntropyLossOp::inferShapes() {
  if (failed(inferLoss(getOperation(), getScores(), getLabels(), getReduction())))
    return failure();
  if (!isa<NoneType>(getOperation()->getResult(1).getType()))
    getOperation()->getResult(1).setType(getScores().getType());
  return success();
}

LogicalResult GridSampleOp::inferShapes() {
  Type elt = elementTypeOf(getX());
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  auto g = dyn_cast<RankedTensorType>(getGrid().getType());
  if (!x || !g)
    return setUnrankedResult(getOperation(), elt);
  if (x.getRank() != 4 || g.getRank() != 4 || g.getDimSize(3) != 2)
    return emitError("GridSample supports 4-D X and a (N, H, W, 2) grid");
  if (getMode() != "bilinear" && getMode() != "nearest" && getMode() != "bicubic")
    return emitError() << "GridSample mode '" << getMode() << "' is not supported";
  if (getPaddingMode() != "zeros" && getPaddingMode() != "border" &&
      getPaddingMode() != "reflection")
    return emitError() << "padding_mode '" << getPaddingMode() << "' is not supported";
  setResultType(getOperation(), 0,
                {x.getDimSize(0), x.getDimSize(1), g.getDimSize(1), g.getDimSize(2)}, elt);
  return success();
}

LogicalResult RoiAlignOp::inferShapes() {
  Type elt = elementTypeOf(getX());
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  auto r = dyn_cast<RankedTensorType>(getRois().getType());
  if (!x || !r)
    return setUnrankedResult(getOperation(), elt);
  if (x.getRank() != 4 || r.getRank() != 2)
    return emitError() << "RoiAlign takes a 4-D X and 2-D rois, not rank " << x.getRank()
                       << " and " << r.getRank();
  setResultType(getOperation(), 0,
                {r.getDimSize(0), x.getDimSize(1), (int64_t)getOutputHeight(),
                 (int64_t)getOutputWidth()},
                elt);
  return success();
}

/// The DFT length along the axis (dft_length when given).
static std::optional<int64_t> dftLength(DFTOp op, RankedTensorType in, int64_t axis) {
  if (isNone(op.getDftLength()))
    return in.getDimSize(axis);
  auto v = getConstantInts(op.getDftLength());
  if (!v || v->size() != 1)
    return std::nullopt;
  return (*v)[0];
}

LogicalResult DFTOp::inferShapes() {
  Type elt = elementTypeOf(getInput());
  auto in = dyn_cast<RankedTensorType>(getInput().getType());
  if (!in || !in.hasStaticShape())
    return setUnrankedResult(getOperation(), elt);
  if (in.getRank() < 3 || (in.getDimSize(in.getRank() - 1) != 1 && in.getDimSize(in.getRank() - 1) != 2))
    return emitError("DFT input must end in a dim of 1 (real) or 2 (complex)");
  auto axis = normalizeAxis(getOperation(), getAxis(), in.getRank() - 1, "axis");
  if (failed(axis))
    return failure();
  SmallVector<int64_t> out(in.getShape());
  auto n = dftLength(*this, in, *axis);
  out[*axis] = !n ? ShapedType::kDynamic : getOnesided() ? *n / 2 + 1 : *n;
  out.back() = 2;
  setResultType(getOperation(), 0, out, elt);
  return success();
}

LogicalResult STFTOp::inferShapes() {
  Type elt = elementTypeOf(getSignal());
  auto s = dyn_cast<RankedTensorType>(getSignal().getType());
  auto step = getConstantInts(getFrameStep());
  if (s && s.getRank() != 3)
    return emitError() << "STFT signal must be [batch, length, 1 or 2], not rank " << s.getRank();
  std::optional<int64_t> length;
  if (!isNone(getFrameLength())) {
    if (auto l = getConstantInts(getFrameLength()); l && l->size() == 1)
      length = (*l)[0];
  } else if (!isNone(getWindow())) {
    if (auto w = dyn_cast<RankedTensorType>(getWindow().getType())) {
      if (w.getRank() != 1)
        return emitError() << "STFT window must be 1-D, not rank " << w.getRank();
      length = w.getDimSize(0);
    }
  }
  if (!s || !s.hasStaticShape() || !step || step->size() != 1 || !length ||
      ShapedType::isDynamic(*length))
    return setUnrankedResult(getOperation(), elt);
  if ((*step)[0] < 1 || *length < 1 || *length > s.getDimSize(1))
    return emitError() << "STFT frame step " << (*step)[0] << " and frame length " << *length
                       << " do not fit a signal of " << s.getDimSize(1) << " samples";
  int64_t frames = 1 + (s.getDimSize(1) - *length) / (*step)[0];
  setResultType(getOperation(), 0,
                {s.getDimSize(0), frames, getOnesided() ? *length / 2 + 1 : *length, 2}, elt);
  return success();
}

LogicalResult MelWeightMatrixOp::inferShapes() {
  Type elt = elementTypeFromOnnx(getContext(), getOutputDatatype());
  if (!elt)
    return emitError("MelWeightMatrix output_datatype is not supported");
  auto bins = getConstantInts(getNumMelBins()), len = getConstantInts(getDftLength());
  if (!bins || !len) {
    setResultType(getOperation(), 0, {ShapedType::kDynamic, ShapedType::kDynamic}, elt);
    return success();
  }
  if (bins->size() != 1 || len->size() != 1 || (*bins)[0] < 1 || (*len)[0] < 1)
    return emitError("MelWeightMatrix num_mel_bins and dft_length must be positive scalars");
  setResultType(getOperation(), 0, {(*len)[0] / 2 + 1, (*bins)[0]}, elt);
  return success();
}

LogicalResult TfIdfVectorizerOp::inferShapes() {
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  Type f32 = Float32Type::get(getContext());
  int64_t dim = 0;
  for (int64_t i : getNgramIndexes())
    dim = std::max(dim, i + 1);
  if (!x)
    return setUnrankedResult(getOperation(), f32);
  if (x.getRank() == 1)
    setResultType(getOperation(), 0, {dim}, f32);
  else if (x.getRank() == 2)
    setResultType(getOperation(), 0, {x.getDimSize(0), dim}, f32);
  else
    return emitError("TfIdfVectorizer input must be 1-D or 2-D");
  return success();
}

//===-- Recurrent layers ---------------------------------------------------===//

/// Checks the parts shared by LSTM and GRU and infers Y, Y_h (and Y_c).
/// `gates` is 4 for LSTM and 3 for GRU.
static LogicalResult inferRecurrent(Operation *op, int64_t gates) {
  Value x = op->getOperand(0), w = op->getOperand(1);
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  auto wt = dyn_cast<RankedTensorType>(w.getType());
  Type elt = elementTypeOf(x);
  if (!xt || !wt || xt.getRank() != 3 || wt.getRank() != 3) {
    if (xt && xt.getRank() != 3)
      return op->emitError("X must be 3-D");
    for (Value r : op->getResults())
      if (!isa<NoneType>(r.getType()))
        r.setType(UnrankedTensorType::get(elt));
    return success();
  }
  auto layoutAttr = op->getAttrOfType<IntegerAttr>("layout");
  bool batchFirst = layoutAttr && layoutAttr.getInt() != 0;
  int64_t seq = xt.getDimSize(batchFirst ? 1 : 0);
  int64_t batch = xt.getDimSize(batchFirst ? 0 : 1);
  int64_t dirs = wt.getDimSize(0);
  int64_t hidden = wt.getDimSize(1) / gates;
  if (auto h = op->getAttrOfType<IntegerAttr>("hidden_size")) {
    if (!ShapedType::isDynamic(wt.getDimSize(1)) &&
        h.getInt() * gates != wt.getDimSize(1))
      return op->emitError() << "hidden_size " << h.getInt()
                             << " does not match W " << wt;
    hidden = h.getInt();
  }
  StringRef dir = op->getAttrOfType<StringAttr>("direction")
                      ? op->getAttrOfType<StringAttr>("direction").getValue()
                      : "forward";
  int64_t expectDirs = dir == "bidirectional" ? 2 : 1;
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    return op->emitError() << "unknown direction '" << dir << "'";
  if (dirs != expectDirs)
    return op->emitError() << "W has " << dirs << " directions but direction is '"
                           << dir << "'";
  SmallVector<int64_t> y = batchFirst
                               ? SmallVector<int64_t>{batch, seq, dirs, hidden}
                               : SmallVector<int64_t>{seq, dirs, batch, hidden};
  SmallVector<int64_t> yh = batchFirst
                                ? SmallVector<int64_t>{batch, dirs, hidden}
                                : SmallVector<int64_t>{dirs, batch, hidden};
  if (!isa<NoneType>(op->getResult(0).getType()))
    setResultType(op, 0, y, elt);
  for (unsigned r = 1; r < op->getNumResults(); ++r)
    if (!isa<NoneType>(op->getResult(r).getType()))
      setResultType(op, r, yh, elt);
  return success();
}

/// onnxc implements the default activations; others are rejected clearly.
static LogicalResult verifyActivations(Operation *op,
                                       ArrayRef<StringRef> defaults) {
  auto acts = op->getAttrOfType<ArrayAttr>("activations");
  if (acts) {
    for (auto [i, a] : llvm::enumerate(acts.getAsValueRange<StringAttr>()))
      if (a != defaults[i % defaults.size()])
        return op->emitOpError() << "activation '" << a
                                 << "' is not supported (only the defaults)";
  }
  if (op->hasAttr("activation_alpha") || op->hasAttr("activation_beta"))
    return op->emitOpError("activation_alpha/activation_beta are not supported");
  return success();
}

LogicalResult LSTMOp::inferShapes() { return inferRecurrent(getOperation(), 4); }
LogicalResult LSTMOp::verify() {
  if (getInputForget() != 0)
    return emitOpError("input_forget = 1 is not supported");
  return verifyActivations(getOperation(), {"Sigmoid", "Tanh", "Tanh"});
}

LogicalResult GRUOp::inferShapes() { return inferRecurrent(getOperation(), 3); }
LogicalResult RNNOp::inferShapes() { return inferRecurrent(getOperation(), 1); }
LogicalResult RNNOp::verify() { return verifyActivations(getOperation(), {"Tanh"}); }

LogicalResult MaxUnpoolOp::inferShapes() {
  Type elt = elementTypeOf(getX());
  auto x = staticNCX(getOperation(), getX());
  if (!x)
    return setUnrankedResult(getOperation(), elt);
  if (!isNone(getOutputShape())) {
    auto s = getConstantInts(getOutputShape());
    if (!s) {
      setResultType(getOperation(), 0, SmallVector<int64_t>(x.getRank(), ShapedType::kDynamic), elt);
      return success();
    }
    setResultType(getOperation(), 0, *s, elt);
    return success();
  }
  size_t n = x.getRank() - 2;
  ArrayRef<int64_t> k = getKernelShape();
  SmallVector<int64_t> pads(2 * n, 0), strides(n, 1);
  if (auto p = getPads())
    pads.assign(p->begin(), p->end());
  if (auto s = getStrides())
    strides.assign(s->begin(), s->end());
  if (k.size() != n || strides.size() != n || pads.size() != 2 * n)
    return emitOpError() << "kernel_shape, strides and pads must have " << n << ", " << n
                         << " and " << 2 * n << " values for a rank-" << x.getRank()
                         << " input (got " << k.size() << ", " << strides.size() << " and "
                         << pads.size() << ")";
  SmallVector<int64_t> out{x.getDimSize(0), x.getDimSize(1)};
  for (size_t i = 0; i < n; ++i)
    out.push_back((x.getDimSize(i + 2) - 1) * strides[i] + k[i] - pads[i] - pads[i + n]);
  setResultType(getOperation(), 0, out, elt);
  return success();
}
LogicalResult GRUOp::verify() {
  return verifyActivations(getOperation(), {"Sigmoid", "Tanh"});
}

} // namespace onnxc::onnx

namespace onnxc::onnx {

LogicalResult NonMaxSuppressionOp::inferShapes() {
  Operation *op = getOperation();
  Type i64 = IntegerType::get(getContext(), 64);
  setResultType(op, 1, {}, i64);
  auto boxes = dyn_cast<RankedTensorType>(getBoxes().getType());
  auto scores = dyn_cast<RankedTensorType>(getScores().getType());
  if (!boxes || !scores || !boxes.hasStaticShape() || !scores.hasStaticShape()) {
    setResultType(op, 0, {ShapedType::kDynamic, 3}, i64);
    return success();
  }
  if (boxes.getRank() != 3 || boxes.getDimSize(2) != 4 || scores.getRank() != 3 ||
      scores.getDimSize(0) != boxes.getDimSize(0) || scores.getDimSize(2) != boxes.getDimSize(1))
    return emitError() << "NonMaxSuppression needs boxes [batches, boxes, 4] and scores "
                          "[batches, classes, boxes]";
  if (getCenterPointBox() != 0 && getCenterPointBox() != 1)
    return emitError() << "center_point_box must be 0 or 1";
  int64_t perClass = boxes.getDimSize(1);
  if (auto k = getConstantInts(getMaxOutputBoxesPerClass()); k && k->size() == 1)
    perClass = std::clamp<int64_t>((*k)[0], 0, perClass);
  else if (isNone(getMaxOutputBoxesPerClass()))
    perClass = 0; // the default: no output
  setResultType(op, 0, {scores.getDimSize(0) * scores.getDimSize(1) * perClass, 3}, i64);
  return success();
}

int64_t NonMaxSuppressionOp::dataDependentDim(unsigned result) { return result == 0 ? 0 : -1; }

LogicalResult StringNormalizerOp::inferShapes() {
  Operation *op = getOperation();
  setResultType(op, 1, {}, IntegerType::get(getContext(), 64));
  Type elt = cast<ShapedType>(getX().getType()).getElementType();
  if (!isa<StringType>(elt))
    return emitError() << "StringNormalizer takes strings, not " << elt;
  StringRef action = getCaseChangeAction();
  if (action != "NONE" && action != "LOWER" && action != "UPPER")
    return emitError() << "case_change_action '" << action << "' is not supported";
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  if (!x)
    return setUnrankedResult(op, elt);
  if (!x.hasStaticShape() || !(x.getRank() == 1 || (x.getRank() == 2 && x.getDimSize(0) == 1)))
    return emitError() << "StringNormalizer takes [C] or [1, C] strings, not " << x;
  SmallVector<int64_t> y(x.getShape());
  y.back() = std::max<int64_t>(y.back(), 1);
  setResultType(op, 0, y, elt);
  return success();
}

int64_t StringNormalizerOp::dataDependentDim(unsigned result) {
  auto y = dyn_cast<RankedTensorType>(getY().getType());
  return result == 0 ? (y ? y.getRank() - 1 : 0) : -1;
}

} // namespace onnxc::onnx
