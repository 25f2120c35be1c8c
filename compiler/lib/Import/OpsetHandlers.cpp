//===- OpsetHandlers.cpp - every opset difference, resolved at import -----===//
//
// A table keyed by (op type, since-version), in the spirit of torch-mlir's
// onOp(name, sinceVersion, ...): the handler with the largest since-version
// not above the model's opset rewrites the node into the dialect's single
// semantics (usually the newest opset's). Ops without an entry import as-is.
//
//===----------------------------------------------------------------------===//
#include "NodeImport.h"

#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace onnxc {
namespace {

using HandlerFn = LogicalResult (*)(NodeImport &);
struct Handler {
  const char *op;
  int since;
  HandlerFn fn; // null: import as-is from this version on
};

int64_t intAttr(NodeImport &n, StringRef name, int64_t dflt) {
  if (auto a = dyn_cast_or_null<IntegerAttr>(n.getAttr(name)))
    return a.getInt();
  return dflt;
}

/// Moves an INTS attribute into a constant int64 input at `index`.
void intsAttrToInput(NodeImport &n, StringRef name, unsigned index) {
  if (auto a = dyn_cast_or_null<DenseI64ArrayAttr>(n.takeAttr(name)))
    n.setInput(index, n.constantI64(a.asArrayRef()));
}

/// The reverse: a constant int64 input becomes an INTS attribute. Reductions
/// need their axes at compile time.
LogicalResult intsInputToAttr(NodeImport &n, unsigned index, StringRef name) {
  Value v = n.input(index);
  if (!v || onnx::isNone(v)) {
    if (n.inputs.size() > index)
      n.inputs.erase(n.inputs.begin() + index);
    return success();
  }
  auto ints = onnx::getConstantInts(v);
  if (!ints)
    return emitError(n.loc) << n.opType << " input '" << name
                            << "' must be a constant (computed axes are not supported)";
  n.setAttr(name, DenseI64ArrayAttr::get(n.builder.getContext(), *ints));
  n.inputs.erase(n.inputs.begin() + index);
  return success();
}

LogicalResult dropAttrs(NodeImport &n, ArrayRef<StringRef> names) {
  for (StringRef name : names)
    n.takeAttr(name);
  return success();
}

//===-- Handlers -------------------------------------------------------------===//

LogicalResult constantNode(NodeImport &n) {
  MLIRContext *ctx = n.builder.getContext();
  Attribute value;
  if (auto v = n.takeAttr("value")) {
    value = v;
  } else if (auto f = dyn_cast_or_null<FloatAttr>(n.takeAttr("value_float"))) {
    value = DenseElementsAttr::get(RankedTensorType::get({}, n.builder.getF32Type()),
                                   ArrayRef<float>{(float)f.getValueAsDouble()});
  } else if (auto fs = dyn_cast_or_null<DenseF32ArrayAttr>(n.takeAttr("value_floats"))) {
    value = DenseElementsAttr::get(
        RankedTensorType::get({fs.size()}, n.builder.getF32Type()), fs.asArrayRef());
  } else if (auto i = dyn_cast_or_null<IntegerAttr>(n.takeAttr("value_int"))) {
    value = DenseElementsAttr::get(RankedTensorType::get({}, n.builder.getI64Type()),
                                   ArrayRef<int64_t>{i.getInt()});
  } else if (auto is = dyn_cast_or_null<DenseI64ArrayAttr>(n.takeAttr("value_ints"))) {
    value = DenseElementsAttr::get(
        RankedTensorType::get({is.size()}, n.builder.getI64Type()), is.asArrayRef());
  } else {
    return emitError(n.loc) << "Constant with "
                            << (n.attrs.empty() ? StringRef("no value")
                                                : n.attrs.front().getName().getValue())
                            << " is not supported";
  }
  (void)ctx;
  if (!n.attrs.empty())
    return emitError(n.loc) << "Constant has more than one value attribute";
  n.setAttr("value", value);
  return success();
}

LogicalResult clipFromAttributes(NodeImport &n) {
  Type elt = cast<ShapedType>(n.input(0).getType()).getElementType();
  auto bound = [&](StringRef name, float dflt, bool &present) -> Value {
    auto a = dyn_cast_or_null<FloatAttr>(n.takeAttr(name));
    present = a != nullptr;
    float v = a ? (float)a.getValueAsDouble() : dflt;
    auto type = RankedTensorType::get({}, elt);
    if (!isa<FloatType>(elt))
      return nullptr;
    return n.constant(DenseElementsAttr::get(
        type, APFloat(cast<FloatType>(elt).getFloatSemantics(), std::to_string(v))));
  };
  bool hasMin, hasMax;
  Value lo = bound("min", 0, hasMin), hi = bound("max", 0, hasMax);
  if (!lo && (hasMin || hasMax))
    return emitError(n.loc) << "legacy Clip needs a floating-point input";
  n.setInput(1, hasMin ? lo : n.noValue());
  n.setInput(2, hasMax ? hi : n.noValue());
  return success();
}

LogicalResult axesAttrToInput(NodeImport &n) {
  intsAttrToInput(n, "axes", 1);
  return success();
}

LogicalResult reduceAxesInput(NodeImport &n) {
  return intsInputToAttr(n, 1, "axes");
}

LogicalResult splitAttrToInput(NodeImport &n) {
  intsAttrToInput(n, "split", 1);
  return success();
}

/// Opset < 13 softmax family: the input is coerced to 2-D at `axis` (default
/// 1) and normalised over the second dim. Built as Flatten -> op -> Reshape
/// back to the input's Shape, so the input's shape need not be known yet (it
/// often comes from a Shape -> Concat -> Reshape chain that folds later).
LogicalResult legacySoftmax(NodeImport &n) {
  Value x = n.input(0);
  int64_t axis = intAttr(n, "axis", 1);
  if (auto t = dyn_cast<RankedTensorType>(x.getType())) {
    if (axis < 0)
      axis += t.getRank();
    if (axis < 0 || axis > t.getRank())
      return emitError(n.loc) << "axis " << axis << " is out of range for a rank-"
                              << t.getRank() << " input";
    if (axis == t.getRank() - 1) { // the same as opset 13
      n.setAttr("axis", n.builder.getI64IntegerAttr(axis));
      return success();
    }
  }
  auto flat = n.build1("Flatten", {x},
                       {n.builder.getNamedAttr("axis", n.builder.getI64IntegerAttr(axis))});
  if (failed(flat))
    return failure();
  auto sm = n.build1(n.opType, {*flat},
                     {n.builder.getNamedAttr("axis", n.builder.getI64IntegerAttr(1))});
  if (failed(sm))
    return failure();
  auto shape = n.build1("Shape", {x});
  if (failed(shape))
    return failure();
  auto back = n.build1("Reshape", {*sm, *shape});
  if (failed(back))
    return failure();
  n.replacedOutputs = {*back};
  return success();
}

LogicalResult batchNorm(NodeImport &n) {
  if (intAttr(n, "spatial", 1) != 1)
    return emitError(n.loc) << "BatchNormalization with spatial = 0 is not supported";
  // Before opset 14 extra outputs meant training (saved mean/var are not
  // produced by onnxc).
  if (n.opset < 14 && n.numOutputs > 1)
    return emitError(n.loc) << "BatchNormalization training outputs before opset 14 are not supported";
  if (n.numOutputs > 3)
    return emitError(n.loc) << "BatchNormalization saved statistics outputs are not supported";
  return dropAttrs(n, {"spatial", "is_test", "consumed_inputs"});
}

LogicalResult legacyDropout(NodeImport &n) {
  return dropAttrs(n, {"ratio", "is_test"});
}

LogicalResult reshapeFromAttribute(NodeImport &n) {
  intsAttrToInput(n, "shape", 1);
  return success();
}

LogicalResult sliceFromAttributes(NodeImport &n) {
  auto take = [&](StringRef name) {
    return dyn_cast_or_null<DenseI64ArrayAttr>(n.takeAttr(name));
  };
  auto starts = take("starts"), ends = take("ends"), axes = take("axes");
  if (!starts || !ends)
    return emitError(n.loc) << "Slice needs starts and ends";
  n.setInput(1, n.constantI64(starts.asArrayRef()));
  n.setInput(2, n.constantI64(ends.asArrayRef()));
  if (axes)
    n.setInput(3, n.constantI64(axes.asArrayRef()));
  return success();
}

LogicalResult padFromAttributes(NodeImport &n) {
  auto pads = dyn_cast_or_null<DenseI64ArrayAttr>(n.takeAttr("pads"));
  if (!pads)
    pads = dyn_cast_or_null<DenseI64ArrayAttr>(n.takeAttr("paddings"));
  if (!pads)
    return emitError(n.loc) << "Pad needs pads";
  n.setInput(1, n.constantI64(pads.asArrayRef()));
  if (auto v = dyn_cast_or_null<FloatAttr>(n.takeAttr("value"))) {
    Type elt = cast<ShapedType>(n.input(0).getType()).getElementType();
    if (auto ft = dyn_cast<FloatType>(elt))
      n.setInput(2, n.constant(DenseElementsAttr::get(
                        RankedTensorType::get({}, elt),
                        APFloat(ft.getFloatSemantics(),
                                std::to_string(v.getValueAsDouble())))));
  }
  return success();
}

LogicalResult castFromString(NodeImport &n) {
  static const llvm::StringMap<int64_t> kTypes = {
      {"FLOAT", 1},  {"UINT8", 2},  {"INT8", 3},    {"UINT16", 4},
      {"INT16", 5},  {"INT32", 6},  {"INT64", 7},   {"BOOL", 9},
      {"FLOAT16", 10}, {"DOUBLE", 11}, {"UINT32", 12}, {"UINT64", 13}};
  if (auto s = dyn_cast_or_null<StringAttr>(n.getAttr("to"))) {
    auto it = kTypes.find(s.getValue());
    if (it == kTypes.end())
      return emitError(n.loc) << "Cast to '" << s.getValue() << "' is not supported";
    n.setAttr("to", n.builder.getI64IntegerAttr(it->second));
  }
  return success();
}

/// Opset < 7 binary ops: `broadcast` = 1 broadcasts B onto A starting at
/// `axis` (default: aligned to the right, like numpy).
LogicalResult legacyBroadcast(NodeImport &n) {
  n.takeAttr("consumed_inputs");
  int64_t bcast = intAttr(n, "broadcast", 0);
  n.takeAttr("broadcast");
  auto axisAttr = dyn_cast_or_null<IntegerAttr>(n.takeAttr("axis"));
  if (!bcast || !axisAttr)
    return success();
  auto a = dyn_cast<RankedTensorType>(n.input(0).getType());
  auto b = dyn_cast<RankedTensorType>(n.input(1).getType());
  if (!a || !b)
    return emitError(n.loc) << "legacy broadcasting needs ranked operands";
  int64_t axis = axisAttr.getInt();
  if (axis < 0)
    axis += a.getRank();
  int64_t trailing = a.getRank() - axis - b.getRank();
  if (trailing < 0)
    return emitError(n.loc) << "legacy broadcast axis " << axis << " does not fit";
  if (trailing == 0)
    return success();
  SmallVector<int64_t> shape(b.getShape());
  shape.append(trailing, 1);
  auto r = n.build1("Reshape", {n.input(1), n.constantI64(shape)});
  if (failed(r))
    return failure();
  n.inputs[1] = *r;
  return success();
}


LogicalResult legacyGemm(NodeImport &n) { return dropAttrs(n, {"broadcast"}); }

LogicalResult legacyConcat(NodeImport &n) {
  if (!n.getAttr("axis"))
    n.setAttr("axis", n.builder.getI64IntegerAttr(1));
  return success();
}

LogicalResult legacyRecurrent(NodeImport &n) {
  if (auto o = dyn_cast_or_null<IntegerAttr>(n.takeAttr("output_sequence")))
    (void)o; // Y is produced when the node names it, whatever this says
  return success();
}

/// CastLike(x, like) is Cast(x) to like's element type.
LogicalResult castLike(NodeImport &n) {
  Type to = cast<ShapedType>(n.input(1).getType()).getElementType();
  int onnxType = onnxFromElementType(to);
  if (!onnxType)
    return emitError(n.loc) << "CastLike to " << to << " is not supported";
  n.inputs.resize(1);
  n.opType = "Cast";
  n.setAttr("to", n.builder.getI64IntegerAttr(onnxType));
  return success();
}

/// DepthToSpace and SpaceToDepth are Reshape -> Transpose -> Reshape.
LogicalResult depthSpace(NodeImport &n) {
  Value in = n.input(0); // null when the node has no input (found by the fuzzer)
  auto t = in ? dyn_cast<RankedTensorType>(in.getType()) : RankedTensorType();
  int64_t b = intAttr(n, "blocksize", 0);
  if (!t || !t.hasStaticShape() || t.getRank() != 4 || b < 1 || b > (int64_t(1) << 20))
    return emitError(n.loc) << n.opType << " needs a static 4-D input and blocksize >= 1";
  int64_t N = t.getDimSize(0), C = t.getDimSize(1), H = t.getDimSize(2), W = t.getDimSize(3);
  SmallVector<int64_t> split, perm, out;
  if (n.opType == "DepthToSpace") {
    if (C % (b * b))
      return emitError(n.loc) << "channels " << C << " are not a multiple of blocksize^2";
    auto mode = dyn_cast_or_null<StringAttr>(n.getAttr("mode"));
    bool crd = mode && mode.getValue() == "CRD";
    split = crd ? SmallVector<int64_t>{N, C / (b * b), b, b, H, W}
                : SmallVector<int64_t>{N, b, b, C / (b * b), H, W};
    perm = crd ? SmallVector<int64_t>{0, 1, 4, 2, 5, 3}
               : SmallVector<int64_t>{0, 3, 4, 1, 5, 2};
    out = {N, C / (b * b), H * b, W * b};
  } else {
    if (H % b || W % b)
      return emitError(n.loc) << "spatial dims are not multiples of blocksize " << b;
    split = {N, C, H / b, b, W / b, b};
    perm = {0, 3, 5, 1, 2, 4};
    out = {N, C * b * b, H / b, W / b};
  }
  auto r1 = n.build1("Reshape", {n.input(0), n.constantI64(split)});
  if (failed(r1))
    return failure();
  auto tr = n.build1("Transpose", {*r1},
                     {n.builder.getNamedAttr("perm", n.builder.getDenseI64ArrayAttr(perm))});
  if (failed(tr))
    return failure();
  auto r2 = n.build1("Reshape", {*tr, n.constantI64(out)});
  if (failed(r2))
    return failure();
  n.replacedOutputs = {*r2};
  return success();
}

/// Scatter (opset 9-10) is ScatterElements without reduction.
LogicalResult scatterToElements(NodeImport &n) {
  n.opType = "ScatterElements";
  return success();
}

/// Upsample (opset 7-9) is Resize with asymmetric coordinates; opset 7
/// carries the scales as an attribute.
LogicalResult upsample(NodeImport &n) {
  Value scales;
  if (auto s = dyn_cast_or_null<DenseF32ArrayAttr>(n.takeAttr("scales"))) {
    auto type = RankedTensorType::get({s.size()}, n.builder.getF32Type());
    scales = n.constant(DenseElementsAttr::get(type, s.asArrayRef()));
  } else {
    scales = n.input(1);
  }
  auto mode = dyn_cast_or_null<StringAttr>(n.takeAttr("mode"));
  n.inputs = {n.input(0), n.noValue(), scales};
  n.opType = "Resize";
  n.setAttr("mode", n.builder.getStringAttr(mode ? mode.getValue() : "nearest"));
  n.setAttr("coordinate_transformation_mode", n.builder.getStringAttr("asymmetric"));
  n.setAttr("nearest_mode", n.builder.getStringAttr("floor"));
  return success();
}

/// Resize-10 takes (X, scales) and behaves like Upsample.
LogicalResult resizeOpset10(NodeImport &n) {
  n.inputs = {n.input(0), n.noValue(), n.input(1)};
  n.setAttr("coordinate_transformation_mode", n.builder.getStringAttr("asymmetric"));
  n.setAttr("nearest_mode", n.builder.getStringAttr("floor"));
  return success();
}

/// PRelu before opset 7: a 1-D slope of C values applies per channel (dim 1).
LogicalResult legacyPRelu(NodeImport &n) {
  n.takeAttr("consumed_inputs");
  auto x = dyn_cast<RankedTensorType>(n.input(0).getType());
  auto s = dyn_cast<RankedTensorType>(n.input(1).getType());
  if (!x || !s || s.getRank() != 1 || x.getRank() < 3 || s.getDimSize(0) == 1 ||
      s.getDimSize(0) != x.getDimSize(1))
    return success();
  SmallVector<int64_t> shape{s.getDimSize(0)};
  shape.append(x.getRank() - 2, 1);
  auto r = n.build1("Reshape", {n.input(1), n.constantI64(shape)});
  if (failed(r))
    return failure();
  n.inputs[1] = *r;
  return success();
}

/// MeanVarianceNormalization is its ONNX function:
/// (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9), E over `axes`.
LogicalResult meanVarianceNormalization(NodeImport &n) {
  auto axes = dyn_cast_or_null<DenseI64ArrayAttr>(n.takeAttr("axes"));
  SmallVector<int64_t> ax = axes ? SmallVector<int64_t>(axes.asArrayRef())
                                 : SmallVector<int64_t>{0, 2, 3};
  auto reduce = [&](Value v) {
    return n.build1("ReduceMean", {v},
                    {n.builder.getNamedAttr("axes", n.builder.getDenseI64ArrayAttr(ax))});
  };
  Value x = n.input(0);
  auto mean = reduce(x);
  auto sq = n.build1("Mul", {x, x});
  if (failed(mean) || failed(sq))
    return failure();
  auto meanSq = reduce(*sq);
  auto sqMean = n.build1("Mul", {*mean, *mean});
  if (failed(meanSq) || failed(sqMean))
    return failure();
  auto var = n.build1("Sub", {*meanSq, *sqMean});
  if (failed(var))
    return failure();
  auto std = n.build1("Sqrt", {*var});
  Type elt = cast<ShapedType>(x.getType()).getElementType();
  auto ft = dyn_cast<FloatType>(elt);
  if (failed(std) || !ft)
    return emitError(n.loc) << "MeanVarianceNormalization needs a float input";
  Value eps = n.constant(DenseElementsAttr::get(RankedTensorType::get({}, elt),
                                                APFloat(ft.getFloatSemantics(), "1e-9")));
  auto denom = n.build1("Add", {*std, eps});
  auto centered = n.build1("Sub", {x, *mean});
  if (failed(denom) || failed(centered))
    return failure();
  auto y = n.build1("Div", {*centered, *denom});
  if (failed(y))
    return failure();
  n.replacedOutputs = {*y};
  return success();
}

/// GroupNormalization 18-20 has one scale/bias per group: repeat them per
/// channel, the opset-21 form.
LogicalResult groupNormPerGroup(NodeImport &n) {
  auto x = dyn_cast<RankedTensorType>(n.input(0).getType());
  int64_t groups = intAttr(n, "num_groups", 0);
  if (!x || x.getRank() < 2 || groups < 1 || x.isDynamicDim(1) || x.getDimSize(1) % groups)
    return emitError(n.loc) << "GroupNormalization needs static channels divisible by num_groups";
  int64_t c = x.getDimSize(1);
  for (unsigned i : {1u, 2u}) {
    auto col = n.build1("Reshape", {n.input(i), n.constantI64({groups, 1})});
    if (failed(col))
      return failure();
    auto rep = n.build1("Expand", {*col, n.constantI64({groups, c / groups})});
    if (failed(rep))
      return failure();
    auto flat = n.build1("Reshape", {*rep, n.constantI64({c})});
    if (failed(flat))
      return failure();
    n.inputs[i] = *flat;
  }
  return success();
}

const Handler kHandlers[] = {
    {"GroupNormalization", 18, groupNormPerGroup},
    {"GroupNormalization", 21, nullptr},
    {"MeanVarianceNormalization", 1, meanVarianceNormalization},
    {"PRelu", 1, legacyPRelu},
    {"PRelu", 7, nullptr},
    {"CastLike", 15, castLike},
    {"DepthToSpace", 1, depthSpace},
    {"SpaceToDepth", 1, depthSpace},
    {"Scatter", 9, scatterToElements},
    {"Upsample", 7, upsample},
    {"Resize", 10, resizeOpset10},
    {"Resize", 11, nullptr},
    {"Constant", 1, constantNode},
    {"Clip", 1, clipFromAttributes},
    {"Clip", 11, nullptr},
    {"Squeeze", 1, axesAttrToInput},
    {"Squeeze", 13, nullptr},
    {"Unsqueeze", 1, axesAttrToInput},
    {"Unsqueeze", 13, nullptr},
    {"Split", 1, splitAttrToInput},
    {"Split", 13, nullptr},
    {"ReduceSum", 13, reduceAxesInput},
    {"ReduceMean", 18, reduceAxesInput},
    {"ReduceMax", 18, reduceAxesInput},
    {"ReduceMin", 18, reduceAxesInput},
    {"ReduceProd", 18, reduceAxesInput},
    {"ReduceSumSquare", 18, reduceAxesInput},
    {"ReduceL1", 18, reduceAxesInput},
    {"ReduceL2", 18, reduceAxesInput},
    {"ReduceLogSum", 18, reduceAxesInput},
    {"ReduceLogSumExp", 18, reduceAxesInput},
    {"Softmax", 1, legacySoftmax},
    {"Softmax", 13, nullptr},
    {"LogSoftmax", 1, legacySoftmax},
    {"LogSoftmax", 13, nullptr},
    {"Hardmax", 1, legacySoftmax},
    {"Hardmax", 13, nullptr},
    {"BatchNormalization", 1, batchNorm},
    {"Dropout", 1, legacyDropout},
    {"Dropout", 12, nullptr},
    {"Reshape", 1, reshapeFromAttribute},
    {"Reshape", 5, nullptr},
    {"Slice", 1, sliceFromAttributes},
    {"Slice", 10, nullptr},
    {"Pad", 1, padFromAttributes},
    {"Pad", 11, nullptr},
    {"Cast", 1, castFromString},
    {"Cast", 6, nullptr},
    {"Add", 1, legacyBroadcast},
    {"Add", 7, nullptr},
    {"Sub", 1, legacyBroadcast},
    {"Sub", 7, nullptr},
    {"Mul", 1, legacyBroadcast},
    {"Mul", 7, nullptr},
    {"Div", 1, legacyBroadcast},
    {"Div", 7, nullptr},
    {"Pow", 1, legacyBroadcast},
    {"Pow", 7, nullptr},
    {"Gemm", 1, legacyGemm},
    {"Gemm", 7, nullptr},
    {"Concat", 1, legacyConcat},
    {"Concat", 4, nullptr},
    {"LSTM", 1, legacyRecurrent},
    {"GRU", 1, legacyRecurrent},
};

// Ops from opset 1-5 with `consumed_inputs` (a no-op for inference).
const char *const kConsumedInputsOps[] = {
    "Abs", "Ceil", "Elu", "Exp", "Floor", "HardSigmoid", "LeakyRelu", "Log",
    "Neg", "Reciprocal", "Relu", "Sigmoid", "Sqrt", "Tanh", "Max", "Min",
    "Sum", "Mean", "Identity"};

} // namespace

LogicalResult applyOpsetHandler(NodeImport &n) {
  if (n.opset < 6)
    for (const char *op : kConsumedInputsOps)
      if (n.opType == op)
        n.takeAttr("consumed_inputs");
  const Handler *best = nullptr;
  for (const Handler &h : kHandlers)
    if (n.opType == h.op && h.since <= n.opset && (!best || h.since > best->since))
      best = &h;
  if (!best || !best->fn)
    return success();
  return best->fn(n);
}

const std::vector<std::string> &opsExpandedAtImport() {
  static const std::vector<std::string> ops = {
      "CastLike", "DepthToSpace", "MeanVarianceNormalization", "Scatter", "SpaceToDepth",
      "Upsample"};
  return ops;
}

bool expandedAtImport(StringRef opType) {
  return llvm::is_contained(opsExpandedAtImport(), opType);
}

unsigned dialectOperandCount(StringRef op) {
  static const llvm::StringMap<unsigned> kCounts = {
      {"Conv", 3},  {"Gemm", 3},  {"Clip", 3},   {"Dropout", 3},
      {"LSTM", 8},  {"GRU", 6},   {"Slice", 5},  {"Pad", 4},
      {"Squeeze", 2}, {"Split", 2}, {"LayerNormalization", 3},
      {"ConvTranspose", 3}, {"Resize", 4}, {"Trilu", 2},
      {"NegativeLogLikelihoodLoss", 3}, {"SoftmaxCrossEntropyLoss", 3},
      {"QuantizeLinear", 3}, {"DequantizeLinear", 3}, {"MatMulInteger", 4},
      {"ConvInteger", 4}, {"QLinearConv", 9}, {"RNN", 6}, {"MaxUnpool", 3},
      {"DFT", 2}, {"STFT", 4}, {"NonMaxSuppression", 6}, {"TopK", 3}};
  // (BatchNormalization has 3 results: Y and the optional running stats.)
  auto it = kCounts.find(op);
  return it == kCounts.end() ? 0 : it->second;
}

unsigned dialectResultCount(StringRef op) {
  static const llvm::StringMap<unsigned> kCounts = {
      {"MaxPool", 2}, {"Dropout", 2}, {"LayerNormalization", 3},
      {"LSTM", 3},    {"GRU", 2}, {"SoftmaxCrossEntropyLoss", 2}, {"RNN", 2},
      {"BatchNormalization", 3},
      // Ops with a data-dependent shape: ONNX's outputs and then the extent.
      {"NonZero", 2}, {"Unique", 5}, {"NonMaxSuppression", 2}, {"StringNormalizer", 2},
      {"TopK", 3}};
  auto it = kCounts.find(op);
  return it == kCounts.end() ? 0 : it->second;
}

} // namespace onnxc
