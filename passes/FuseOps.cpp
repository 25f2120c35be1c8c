//===- FuseOps.cpp - onnxc-fuse-ops ----------------------------------------===//
//
// Local rewrites into FusedConv / FusedGemm / Gemm; see Passes.td. Each
// rewrite needs the intermediate result to have exactly the users the
// pattern consumes, so fusing never computes anything twice.
//
//===----------------------------------------------------------------------===//
#include "onnxc/Codegen/KernelCall.h"
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
  if (isa<ReluOp, LeakyReluOp, SigmoidOp, HardSigmoidOp, HardSwishOp, TanhOp, EluOp, GeluOp>(
          op)) {
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
  auto shapeConst = [&](ArrayRef<int64_t> dims) -> Value {
    auto t = RankedTensorType::get({(int64_t)dims.size()}, b.getI64Type());
    return b.create<ConstantOp>(loc, t, DenseElementsAttr::get(t, dims));
  };
  Value a2 = mm.getA();
  const int64_t m = a.getNumElements() / k;
  auto f32 = b.getF32Type();
  if (a.getRank() != 2)
    a2 = b.create<ReshapeOp>(loc, RankedTensorType::get({m, k}, f32), a2, shapeConst({m, k}));
  Value y = b.create<GemmOp>(loc, RankedTensorType::get({m, n}, f32), a2, mm.getB(), bias,
                            b.getF32FloatAttr(1), b.getF32FloatAttr(1),
                            b.getI64IntegerAttr(0), b.getI64IntegerAttr(0));
  if (a.getRank() != 2)
    y = b.create<ReshapeOp>(loc, mm.getY().getType(), y,
                            shapeConst(cast<RankedTensorType>(mm.getY().getType()).getShape()));
  add.getC().replaceAllUsesWith(y);
  add->erase();
  mm->erase();
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
        if (changed)
          break;
      }
    }
  }
};

} // namespace
} // namespace onnxc
