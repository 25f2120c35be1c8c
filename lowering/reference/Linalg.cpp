//===- Linalg.cpp - MatMul, Gemm, Einsum, Det ===//
//
// Linear algebra through linalg.h.
//
//===----------------------------------------------------------------------===//
#include "Families.h"

#include "onnxc/Lowering/CallBuilders.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace onnxc::onnx;
using namespace onnxc::lowering;

namespace onnxc::reference {
namespace {

FailureOr<OpLowering> lowerMatMul(MatMulOp op, const std::string &t) {
  std::vector<KernelArg> args{KernelArg::input(op.getA()), KernelArg::input(op.getB()),
                              KernelArg::output(op.getY())};
  for (KernelArg &a : matmulGeometry(op.getA(), op.getB()).args())
    args.push_back(a);
  return calls({call("matmul", {t}, kLinalg, std::move(args))});
}

/// Gemm and FusedGemm (its activation applied in place afterwards).
template <typename GemmLike>
FailureOr<OpLowering> lowerGemm(GemmLike op, const std::string &t) {
  const FusedActivation act = activationOf(op);
  std::vector<KernelCall> cs{call("gemm", {t}, kLinalg, gemmGeometry(op).args)};
  if (!act.isIdentity())
    cs.push_back(activationInPlace(op.getY(), act, t));
  return calls(std::move(cs));
}

FailureOr<OpLowering> lowerEinsum(EinsumOp op, std::string t) {
  auto g = resolveEinsum(op);
  if (failed(g))
    return failure();
  if (op.getInputs().size() > 2)
    return unsupported(op, "Einsum with more than two operands is not supported");
  int64_t nl = g->labelSizes.size();
  auto labelStrides = [&](ArrayRef<int64_t> labels, ArrayRef<int64_t> shape) {
    SmallVector<int64_t> st(nl, 0);
    int64_t s = 1;
    for (int64_t d = labels.size() - 1; d >= 0; --d) {
      st[labels[d]] += s;
      s *= shape[d];
    }
    return st;
  };
  SmallVector<int64_t> ys;
  for (int64_t l : g->outputLabels)
    ys.push_back(g->labelSizes[l]);
  Value a = op.getInputs()[0];
  Value b = op.getInputs().size() > 1 ? op.getInputs()[1] : Value();
  SmallVector<int64_t> as = labelStrides(g->operandLabels[0], shapeOf(a));
  SmallVector<int64_t> bs = b ? labelStrides(g->operandLabels[1], shapeOf(b))
                              : SmallVector<int64_t>(nl, 0);
  return calls({call("einsum", {t}, kLinalg,
                     {KernelArg::input(a), b ? KernelArg::input(b) : KernelArg::null(),
                      KernelArg::output(op.getOutput()), KernelArg::i(nl),
                      KernelArg::array(g->labelSizes), KernelArg::array(as),
                      KernelArg::array(bs), KernelArg::array(labelStrides(g->outputLabels, ys)),
                      KernelArg::i(prod(ys))})});
}

} // namespace

ProviderResult lowerLinalg(Operation *op, const std::string &t) {
  return TypeSwitch<Operation *, ProviderResult>(op)
      .Case<MatMulOp>([&](MatMulOp o) { return lowerMatMul(o, t); })
      .Case<GemmOp>([&](GemmOp o) { return lowerGemm(o, t); })
      .Case<FusedGemmOp>([&](FusedGemmOp o) { return lowerGemm(o, t); })
      .Case<EinsumOp>([&](EinsumOp o) { return lowerEinsum(o, t); })
      .Case<DetOp>([&](DetOp o) {
        auto xs = shapeOf(o.getX());
        int64_t n = xs.back();
        return calls({call("det", {t}, kLinalg,
                           {KernelArg::input(o.getX()), KernelArg::output(o.getY()),
                            KernelArg::i(prod(xs.drop_back(2))), KernelArg::i(n),
                            KernelArg::scratch(prod(xs) * 8, "double")})});
      })
      .Default([](Operation *) -> ProviderResult { return std::nullopt; });
}

} // namespace onnxc::reference
