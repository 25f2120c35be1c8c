//===- NNOps.cpp - inference and verifiers for the nn ops ------------------===//
#include "onnxc/Dialect/ONNX/ONNXDialect.h"

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

LogicalResult ConvOp::inferShapes() {
  auto x = staticNCX(getOperation(), getX());
  auto w = dyn_cast<RankedTensorType>(getW().getType());
  Type elt = elementTypeOf(getX());
  if (!x || !w || !w.hasStaticShape()) {
    getOperation()->getResult(0).setType(UnrankedTensorType::get(elt));
    return success();
  }
  if (w.getRank() != x.getRank())
    return emitError() << "weights " << w << " and input " << x
                       << " differ in rank";
  int64_t group = getGroup();
  if (group < 1 || x.getDimSize(1) % group != 0 ||
      w.getDimSize(0) % group != 0 || x.getDimSize(1) / group != w.getDimSize(1))
    return emitError() << "input channels (" << x.getDimSize(1)
                       << ") do not match weights " << w << " with group "
                       << group;
  SmallVector<int64_t> kernel(w.getShape().drop_front(2));
  if (auto ks = getKernelShape())
    if (ArrayRef<int64_t>(*ks) != ArrayRef<int64_t>(kernel))
      return emitError("kernel_shape does not match the weights");
  if (!isNone(getB())) {
    auto b = dyn_cast<RankedTensorType>(getB().getType());
    if (b && (b.getRank() != 1 || b.getDimSize(0) != w.getDimSize(0)))
      return emitError() << "bias " << b << " must be 1-D of size "
                         << w.getDimSize(0);
  }
  auto g = resolveWindow(getOperation(), x.getShape().drop_front(2), kernel,
                         /*ceilMode=*/false);
  if (failed(g))
    return failure();
  SmallVector<int64_t> out{x.getDimSize(0), w.getDimSize(0)};
  out.append(g->outSpatial);
  setResultType(getOperation(), 0, out, elt);
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
LogicalResult GRUOp::verify() {
  return verifyActivations(getOperation(), {"Sigmoid", "Tanh"});
}

} // namespace onnxc::onnx
