//===- FoldBatchNorm.cpp - onnxc-fold-batchnorm ----------------------------===//
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"
#include "onnxc/Passes/Passes.h"

#include "onnxc_rt/kernels/reference/norm.h"

#include "mlir/IR/Builders.h"

#include <cstring>

using namespace mlir;
using namespace onnxc::onnx;

namespace onnxc {
#define GEN_PASS_DEF_FOLDBATCHNORMPASS
#include "onnxc/Passes/Passes.h.inc"

namespace {

/// W' = W * scale / sqrt(var + eps) per output channel and
/// B' = (B - mean) * scale / sqrt(var + eps) + beta, by runtime-lite's
/// batch_norm_fold (batch_norm's own factors; the quantizer folds with it
/// too), W viewed as outer x M x rest.
template <typename T>
void foldInto(std::vector<char> &w, std::vector<char> &b, int64_t outer, int64_t m,
              const std::vector<char> &scale, const std::vector<char> &beta,
              const std::vector<char> &mean, const std::vector<char> &var,
              float eps) {
  auto p = [](const std::vector<char> &v) { return reinterpret_cast<const T *>(v.data()); };
  auto q = [](std::vector<char> &v) { return reinterpret_cast<T *>(v.data()); };
  int64_t rest = static_cast<int64_t>(w.size() / sizeof(T)) / (outer * m);
  onnxc_rt::ref::batch_norm_fold<T>(q(w), q(b), outer, m, rest, p(scale), p(beta), p(mean),
                                    p(var), eps);
}

/// The bias of a Gemm's M outputs as an M-vector: C itself when it is one,
/// a scalar or 1 x M broadcast to it, zeros when there is none; empty when
/// C varies along the rows (N x M) and cannot take a per-channel fold.
std::vector<char> gemmBiasVector(GemmOp gemm, ElementsAttr c, int64_t m, Type elt) {
  size_t bytes = elementByteSize(elt);
  if (isNone(gemm.getC()))
    return std::vector<char>(m * bytes, 0);
  ArrayRef<int64_t> shape = c.getShapedType().getShape();
  int64_t count = c.getNumElements();
  if (shape.size() == 2 && shape[0] != 1)
    return {};
  std::vector<char> raw = rawBytesOf(c);
  if (count == m)
    return raw;
  if (count != 1)
    return {};
  std::vector<char> out(m * bytes);
  for (int64_t j = 0; j < m; ++j)
    std::memcpy(out.data() + j * bytes, raw.data(), bytes);
  return out;
}

struct FoldBatchNorm : impl::FoldBatchNormPassBase<FoldBatchNorm> {
  void runOnOperation() override {
    SmallVector<BatchNormalizationOp> bns;
    getOperation().walk([&](BatchNormalizationOp bn) { bns.push_back(bn); });
    for (BatchNormalizationOp bn : bns) {
      Operation *producer = bn.getX().getDefiningOp();
      auto conv = dyn_cast_or_null<ConvOp>(producer);
      auto gemm = dyn_cast_or_null<GemmOp>(producer);
      if ((!conv && !gemm) || !producer->hasOneUse() || bn.getTrainingMode() ||
          !isNone(bn.getRunningMean()) || !isNone(bn.getRunningVar()))
        continue;
      Value weight = conv ? conv.getW() : gemm.getB();
      Value biasValue = conv ? conv.getB() : gemm.getC();
      ElementsAttr w = getConstantElements(weight);
      ElementsAttr scale = getConstantElements(bn.getScale());
      ElementsAttr beta = getConstantElements(bn.getB());
      ElementsAttr mean = getConstantElements(bn.getInputMean());
      ElementsAttr var = getConstantElements(bn.getInputVar());
      ElementsAttr bias = isNone(biasValue) ? nullptr : getConstantElements(biasValue);
      if (!w || !scale || !beta || !mean || !var || (!isNone(biasValue) && !bias))
        continue;
      Type elt = w.getElementType();
      if (!elt.isF32() && !elt.isF64())
        continue;
      if (scale.getElementType() != elt || mean.getElementType() != elt ||
          var.getElementType() != elt || beta.getElementType() != elt ||
          (bias && bias.getElementType() != elt))
        continue;
      // The channels BatchNormalization scales are the weight's output
      // channels: a Conv's dim 0, a Gemm's columns of op(B) (B's dim 0 with
      // transB, dim 1 without; then each of B's K rows holds M of them).
      int64_t outer = 1, m = w.getShapedType().getDimSize(0);
      std::vector<char> bb;
      if (gemm) {
        if (w.getShapedType().getRank() != 2 ||
            (!isNone(gemm.getC()) && gemm.getBeta().convertToDouble() != 1.0))
          continue;
        if (!gemm.getTransB()) {
          outer = m;
          m = w.getShapedType().getDimSize(1);
        }
        bb = gemmBiasVector(gemm, bias, m, elt);
        if (bb.empty())
          continue;
      } else {
        bb = bias ? rawBytesOf(bias) : std::vector<char>(m * elementByteSize(elt), 0);
      }
      if (scale.getNumElements() != m)
        continue;
      std::vector<char> wb = rawBytesOf(w);
      float eps = bn.getEpsilon().convertToFloat();
      if (elt.isF32())
        foldInto<float>(wb, bb, outer, m, rawBytesOf(scale), rawBytesOf(beta),
                        rawBytesOf(mean), rawBytesOf(var), eps);
      else
        foldInto<double>(wb, bb, outer, m, rawBytesOf(scale), rawBytesOf(beta),
                         rawBytesOf(mean), rawBytesOf(var), eps);
      OpBuilder b(producer);
      auto newW = elementsFromRawBytes(w.getShapedType(), wb);
      auto newB = elementsFromRawBytes(RankedTensorType::get({m}, elt), bb);
      Value wv = b.create<ConstantOp>(weight.getLoc(), newW.getType(), newW);
      Value bv = b.create<ConstantOp>(producer->getLoc(), newB.getType(), newB);
      producer->setOperand(1, wv);
      producer->setOperand(2, bv);
      if (gemm)
        gemm.setBetaAttr(b.getF32FloatAttr(1.0f));
      bn.getY().replaceAllUsesWith(producer->getResult(0));
      bn->erase();
    }
  }
};
} // namespace
} // namespace onnxc
