//===- FuseOps.cpp - onnxc-fuse-ops ----------------------------------------===//
//
// Local rewrites into FusedConv / FusedGemm / Gemm; see Passes.td. Each
// rewrite needs the intermediate result to have exactly the users the
// pattern consumes, so fusing never computes anything twice.
//
//===----------------------------------------------------------------------===//
#include "onnxc/Passes/PassUtils.h"
#include "onnxc/Lowering/KernelCall.h"
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Passes/Passes.h"

#include "mlir/IR/Builders.h"

#include <cfloat>

using namespace mlir;
using namespace onnxc::onnx;

namespace onnxc {
#define GEN_PASS_DEF_FUSEOPSPASS
#include "onnxc/Passes/Passes.h.inc"

namespace {

bool isF32Tensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() && t.getElementType().isF32();
}

/// The one user of `v`, or null.
Operation *soleUser(Value v) {
  return v.hasOneUse() ? *v.getUsers().begin() : nullptr;
}

/// A scalar constant (any rank, one element) as float.
std::optional<float> constantScalar(Value v) {
  auto e = getConstantElements(v);
  auto d = dyn_cast_or_null<DenseElementsAttr>(e);
  if (!d || d.getNumElements() != 1 || !d.getElementType().isF32())
    return std::nullopt;
  return *d.getValues<float>().begin();
}

/// The fused activation `op` computes on its operand 0: the reference
/// functor's name and parameters, or nothing if it is not one.
struct ActivationSpec {
  std::string name;
  float alpha = 0, beta = 0;
};

std::optional<ActivationSpec> activationComputedBy(Operation *op) {
  if (op->hasTrait<onnx::Activation>()) {
    auto [alpha, beta] = unaryKernelParams(op);
    return ActivationSpec{op->getName().stripDialect().str(), alpha, beta};
  }
  if (auto clip = dyn_cast<ClipOp>(op)) {
    ActivationSpec s{"Clamp", -FLT_MAX, FLT_MAX};
    if (!isNone(clip.getMin())) {
      auto lo = constantScalar(clip.getMin());
      if (!lo)
        return std::nullopt;
      s.alpha = *lo;
    }
    if (!isNone(clip.getMax())) {
      auto hi = constantScalar(clip.getMax());
      if (!hi)
        return std::nullopt;
      s.beta = *hi;
    }
    return s;
  }
  return std::nullopt;
}

void setActivation(Operation *op, const ActivationSpec &a) {
  Builder b(op->getContext());
  op->setAttr("activation", b.getStringAttr(a.name));
  op->setAttr("activation_alpha", b.getF32FloatAttr(a.alpha));
  op->setAttr("activation_beta", b.getF32FloatAttr(a.beta));
}

bool hasNoActivation(Operation *op) {
  auto a = op->getAttrOfType<StringAttr>("activation");
  return !a || a.getValue() == "Identity";
}

/// Rebuilds `op` as `name` with `operands`, its attributes and result type,
/// at `at`; `replaced` (op's result or a later user's) takes its value.
Operation *rebuild(Operation *op, StringRef name, ValueRange operands, Operation *at,
                   Value replaced) {
  OpBuilder b(at);
  OperationState st(op->getLoc(), name);
  st.addOperands(operands);
  st.addAttributes(op->getAttrs());
  st.addTypes(op->getResult(0).getType());
  Operation *fused = b.create(st);
  replaced.replaceAllUsesWith(fused->getResult(0));
  return fused;
}

Value noValue(Operation *at) {
  OpBuilder b(at);
  return b.create<NoValueOp>(at->getLoc(), b.getNoneType());
}

/// Conv(X, W, B) whose only user is Add(conv, Z) -> FusedConv(X, W, B, Z).
bool fuseResidual(ConvOp conv) {
  Operation *user = soleUser(conv.getY());
  auto add = dyn_cast_or_null<AddOp>(user);
  if (!add || !isF32Tensor(conv.getY()))
    return false;
  Value z = add.getA() == conv.getY() ? add.getB() : add.getA();
  if (z == conv.getY() || z.getType() != conv.getY().getType() ||
      add.getC().getType() != conv.getY().getType())
    return false;
  rebuild(conv, FusedConvOp::getOperationName(), {conv.getX(), conv.getW(), conv.getB(), z}, add,
          add.getC());
  add->erase();
  conv->erase();
  return true;
}

/// Conv/FusedConv/Gemm/FusedGemm whose only user is an activation (or the
/// pair Sigmoid(y), Mul(y, Sigmoid(y)): SiLU) -> the fused op with it.
bool fuseActivation(Operation *op) {
  Value y = op->getResult(0);
  if (!isF32Tensor(y) || !hasNoActivation(op))
    return false;
  std::optional<ActivationSpec> act;
  Operation *last = nullptr; // the op whose result the fused op replaces
  SmallVector<Operation *> dead;
  if (Operation *user = soleUser(y)) {
    act = activationComputedBy(user);
    if (!act || user->getResult(0).getType() != y.getType())
      return false;
    last = user;
    dead.push_back(user);
  } else if (!y.use_empty() && std::distance(y.use_begin(), y.use_end()) == 2) {
    SigmoidOp sig;
    MulOp mul;
    for (Operation *u : y.getUsers()) {
      if (auto s = dyn_cast<SigmoidOp>(u))
        sig = s;
      else if (auto m = dyn_cast<MulOp>(u))
        mul = m;
    }
    if (!sig || !mul || soleUser(sig.getY()) != mul.getOperation() ||
        mul.getC().getType() != y.getType() ||
        !((mul.getA() == y && mul.getB() == sig.getY()) ||
          (mul.getB() == y && mul.getA() == sig.getY())))
      return false;
    act = ActivationSpec{"Silu", 0, 0};
    last = mul;
    dead = {mul, sig};
  } else {
    return false;
  }
  StringRef name = op->getName().getStringRef();
  Operation *fused;
  if (isa<ConvOp>(op))
    fused = rebuild(op, FusedConvOp::getOperationName(),
                    {op->getOperand(0), op->getOperand(1), op->getOperand(2), noValue(op)},
                    last, last->getResult(0));
  else if (isa<GemmOp>(op))
    fused = rebuild(op, FusedGemmOp::getOperationName(), op->getOperands(), last,
                    last->getResult(0));
  else
    fused = rebuild(op, name, op->getOperands(), last, last->getResult(0));
  setActivation(fused, *act);
  for (Operation *d : dead)
    d->erase();
  op->erase();
  return true;
}

/// Gemm -> Reshape -> activation (how MatMul+Add fusion leaves a 3-D
/// Linear + Relu): the activation is elementwise, so it moves into the Gemm.
bool fuseActivationThroughReshape(Operation *gemm) {
  Value y = gemm->getResult(0);
  auto reshape = dyn_cast_or_null<ReshapeOp>(soleUser(y));
  if (!reshape || !isF32Tensor(y) || !hasNoActivation(gemm))
    return false;
  Operation *user = soleUser(reshape.getReshaped());
  std::optional<ActivationSpec> act = user ? activationComputedBy(user) : std::nullopt;
  if (!act || user->getResult(0).getType() != reshape.getReshaped().getType())
    return false;
  Operation *fused = rebuild(gemm, FusedGemmOp::getOperationName(), gemm->getOperands(), gemm, y);
  setActivation(fused, *act);
  user->getResult(0).replaceAllUsesWith(reshape.getReshaped());
  user->erase();
  gemm->erase();
  return true;
}

/// MatMul(A, W) + bias (W constant 2-D, bias constant of W's columns) ->
/// Gemm(A as 2-D, W, bias), reshaped back.
bool fuseMatMulBias(MatMulOp mm) {
  auto add = dyn_cast_or_null<AddOp>(soleUser(mm.getY()));
  if (!add || !isF32Tensor(mm.getA()) || !isF32Tensor(mm.getY()))
    return false;
  auto w = dyn_cast<RankedTensorType>(mm.getB().getType());
  auto a = cast<RankedTensorType>(mm.getA().getType());
  if (!getConstantElements(mm.getB()) || !w || w.getRank() != 2 || a.getRank() < 2)
    return false;
  Value bias = add.getA() == mm.getY() ? add.getB() : add.getA();
  auto bt = dyn_cast<RankedTensorType>(bias.getType());
  const int64_t n = w.getDimSize(1), k = w.getDimSize(0);
  if (!getConstantElements(bias) || !bt || bt.getRank() != 1 || bt.getDimSize(0) != n ||
      add.getC().getType() != mm.getY().getType())
    return false;
  OpBuilder b(add);
  Location loc = mm.getLoc();
  Value a2 = mm.getA();
  const int64_t m = a.getNumElements() / k;
  auto f32 = b.getF32Type();
  if (a.getRank() != 2)
    a2 = b.create<ReshapeOp>(loc, RankedTensorType::get({m, k}, f32), a2, shapeConstant(b, loc, {m, k}));
  Value y = b.create<GemmOp>(loc, RankedTensorType::get({m, n}, f32), a2, mm.getB(), bias,
                            b.getF32FloatAttr(1), b.getF32FloatAttr(1),
                            b.getI64IntegerAttr(0), b.getI64IntegerAttr(0));
  if (a.getRank() != 2)
    y = b.create<ReshapeOp>(loc, mm.getY().getType(), y,
                            shapeConstant(b, loc,
                                          cast<RankedTensorType>(mm.getY().getType()).getShape()));
  add.getC().replaceAllUsesWith(y);
  add->erase();
  mm->erase();
  return true;
}

/// Transpose that only moves dims of size 1 (the non-unit dims keep their
/// order, e.g. 128x1x256 -> 1x128x256): the data does not move, so it is
/// a Reshape, which the memory plan makes a view.
bool transposeAsReshape(TransposeOp tr) {
  auto in = dyn_cast<RankedTensorType>(tr.getData().getType());
  auto out = dyn_cast<RankedTensorType>(tr.getTransposed().getType());
  if (!in || !out || !in.hasStaticShape() || !out.hasStaticShape())
    return false;
  SmallVector<int64_t> perm;
  if (auto p = tr.getPerm())
    perm.assign(p->begin(), p->end());
  else
    for (int64_t d = in.getRank() - 1; d >= 0; --d)
      perm.push_back(d);
  int64_t last = -1; // the input position of the previous non-unit dim
  for (int64_t d : perm) {
    if (in.getDimSize(d) == 1)
      continue;
    if (d < last)
      return false;
    last = d;
  }
  OpBuilder b(tr);
  Value r = b.create<ReshapeOp>(tr.getLoc(), out, tr.getData(),
                                shapeConstant(b, tr.getLoc(), out.getShape()));
  tr.getTransposed().replaceAllUsesWith(r);
  tr->erase();
  return true;
}

/// ReduceMean over the last axis with keepdims, or null.
ReduceMeanOp lastAxisMean(Operation *op) {
  auto mean = dyn_cast_or_null<ReduceMeanOp>(op);
  if (!mean || mean.getKeepdims() != 1 || !mean.getAxes() || mean.getAxes()->size() != 1)
    return nullptr;
  auto data = dyn_cast<RankedTensorType>(mean.getData().getType());
  const int64_t axis = (*mean.getAxes())[0];
  return data && (axis == -1 || axis == data.getRank() - 1) ? mean : nullptr;
}

/// A constant vector of `n` floats (LayerNorm's scale or bias), or false.
bool isConstantVector(Value v, int64_t n) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && getConstantElements(v) && t.getRank() == 1 && t.getDimSize(0) == n &&
         t.getElementType().isF32();
}

/// The operand of binary `op` that is not `v`, or null if `v` is neither.
Value otherOperand(Operation *op, Value v) {
  if (op->getOperand(0) == v)
    return op->getOperand(1);
  return op->getOperand(1) == v ? op->getOperand(0) : Value();
}

/// Layer normalisation as exported before opset 17:
///   d = x - ReduceMean(x); v = ReduceMean(d ^ 2) (or d * d);
///   y = d / Sqrt(v + eps) * scale + bias
/// over the last axis, scale and bias constant vectors (bias optional)
/// -> LayerNormalization(x, scale, bias) {axis = -1, epsilon = eps}.
bool recognizeLayerNorm(ReduceMeanOp mean) {
  Value x = mean.getData();
  if (!lastAxisMean(mean) || !isF32Tensor(x))
    return false;
  auto xt = cast<RankedTensorType>(x.getType());
  const int64_t n = xt.getShape().back();
  auto sub = dyn_cast_or_null<SubOp>(soleUser(mean.getReduced()));
  if (!sub || sub.getA() != x || sub.getB() != mean.getReduced() || sub.getC().getType() != xt)
    return false;
  Value d = sub.getC();
  // d has two users: the square and the division.
  Operation *square = nullptr;
  DivOp div;
  for (Operation *u : d.getUsers()) {
    if (auto dv = dyn_cast<DivOp>(u); dv && dv.getA() == d)
      div = dv;
    else if (auto pw = dyn_cast<PowOp>(u);
             pw && pw.getA() == d && constantScalar(pw.getB()) == 2.0f)
      square = u;
    else if (auto mul = dyn_cast<MulOp>(u); mul && mul.getA() == d && mul.getB() == d)
      square = u;
    else
      return false;
  }
  if (!square || !div || std::distance(d.use_begin(), d.use_end()) != 2)
    return false;
  ReduceMeanOp var = lastAxisMean(soleUser(square->getResult(0)));
  if (!var)
    return false;
  auto addEps = dyn_cast_or_null<AddOp>(soleUser(var.getReduced()));
  std::optional<float> eps =
      addEps ? constantScalar(otherOperand(addEps, var.getReduced())) : std::nullopt;
  if (!eps || addEps.getC().getType() != var.getReduced().getType())
    return false;
  auto sqrt = dyn_cast_or_null<SqrtOp>(soleUser(addEps.getC()));
  if (!sqrt || soleUser(sqrt.getY()) != div.getOperation() || div.getB() != sqrt.getY() ||
      div.getC().getType() != xt)
    return false;
  auto scaleMul = dyn_cast_or_null<MulOp>(soleUser(div.getC()));
  Value scale = scaleMul ? otherOperand(scaleMul, div.getC()) : Value();
  if (!scale || !isConstantVector(scale, n) || scaleMul.getC().getType() != xt)
    return false;
  Operation *last = scaleMul;
  Value bias;
  if (auto biasAdd = dyn_cast_or_null<AddOp>(soleUser(scaleMul.getC()))) {
    Value b = otherOperand(biasAdd, scaleMul.getC());
    if (isConstantVector(b, n) && biasAdd.getC().getType() == xt) {
      bias = b;
      last = biasAdd;
    }
  }
  OpBuilder b(last);
  OperationState st(mean.getLoc(), LayerNormalizationOp::getOperationName());
  st.addOperands({x, scale, bias ? bias : noValue(last)});
  st.addAttribute("axis", b.getI64IntegerAttr(-1));
  st.addAttribute("epsilon", b.getF32FloatAttr(*eps));
  st.addAttribute("stash_type", b.getI64IntegerAttr(1));
  st.addTypes({xt, b.getNoneType(), b.getNoneType()});
  Operation *ln = b.create(st);
  last->getResult(0).replaceAllUsesWith(ln->getResult(0));
  // Erase the chain from its end, each op now without users.
  SmallVector<Operation *> chain{last};
  if (last != scaleMul.getOperation())
    chain.push_back(scaleMul);
  chain.append({div, sqrt, addEps, var, square, sub, mean});
  for (Operation *op : chain)
    op->erase();
  return true;
}

struct FuseOps : impl::FuseOpsPassBase<FuseOps> {
  void runOnOperation() override {
    Block &body = getOperation().getBody().front();
    // Each rewrite erases what it consumed; rescan until nothing changes.
    bool changed = true;
    while (changed) {
      changed = false;
      for (Operation &op : llvm::make_early_inc_range(body)) {
        if (auto mm = dyn_cast<MatMulOp>(op))
          changed |= fuseMatMulBias(mm);
        else if (auto conv = dyn_cast<ConvOp>(op))
          changed |= fuseResidual(conv) || fuseActivation(conv);
        else if (isa<GemmOp, FusedGemmOp>(op))
          changed |= fuseActivation(&op) || fuseActivationThroughReshape(&op);
        else if (isa<FusedConvOp>(op))
          changed |= fuseActivation(&op);
        else if (auto tr = dyn_cast<TransposeOp>(op))
          changed |= transposeAsReshape(tr);
        else if (auto mean = dyn_cast<ReduceMeanOp>(op))
          changed |= recognizeLayerNorm(mean);
        if (changed)
          break;
      }
    }
  }
};

} // namespace
} // namespace onnxc
