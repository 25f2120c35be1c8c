//===- FoldBatchNorm.cpp - onnxc-fold-batchnorm ----------------------------===//
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"
#include "onnxc/Passes/Passes.h"

#include "onnxc_rt/kernels/reference/norm.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace onnxc::onnx;

namespace onnxc {
#define GEN_PASS_DEF_FOLDBATCHNORMPASS
#include "onnxc/Passes/Passes.h.inc"

namespace {

/// W' = W * scale / sqrt(var + eps) per output channel and
/// B' = (B - mean) * scale / sqrt(var + eps) + beta, both computed with
/// runtime-lite's batch_norm kernel (W viewed as 1 x M x rest, with zero
/// mean and bias), so the fold and the unfused op agree by construction.
template <typename T>
void foldInto(std::vector<char> &w, std::vector<char> &b, int64_t m,
              const std::vector<char> &scale, const std::vector<char> &beta,
              const std::vector<char> &mean, const std::vector<char> &var,
              float eps) {
  auto p = [](const std::vector<char> &v) { return reinterpret_cast<const T *>(v.data()); };
  auto q = [](std::vector<char> &v) { return reinterpret_cast<T *>(v.data()); };
  int64_t rest = static_cast<int64_t>(w.size() / sizeof(T)) / m;
  std::vector<T> zeros(m, T(0));
  onnxc_rt::ref::batch_norm<T>(q(w), p(scale), zeros.data(), zeros.data(), p(var),
                               q(w), 1, m, rest, eps);
  onnxc_rt::ref::batch_norm<T>(q(b), p(scale), p(beta), p(mean), p(var), q(b), 1,
                               m, 1, eps);
}

struct FoldBatchNorm : impl::FoldBatchNormPassBase<FoldBatchNorm> {
  void runOnOperation() override {
    SmallVector<BatchNormalizationOp> bns;
    getOperation().walk([&](BatchNormalizationOp bn) { bns.push_back(bn); });
    for (BatchNormalizationOp bn : bns) {
      auto conv = bn.getX().getDefiningOp<ConvOp>();
      if (!conv || !conv->hasOneUse() || bn.getTrainingMode() ||
          !isNone(bn.getRunningMean()) || !isNone(bn.getRunningVar()))
        continue;
      ElementsAttr w = getConstantElements(conv.getW());
      ElementsAttr scale = getConstantElements(bn.getScale());
      ElementsAttr beta = getConstantElements(bn.getB());
      ElementsAttr mean = getConstantElements(bn.getInputMean());
      ElementsAttr var = getConstantElements(bn.getInputVar());
      ElementsAttr bias = isNone(conv.getB()) ? nullptr : getConstantElements(conv.getB());
      if (!w || !scale || !beta || !mean || !var || (!isNone(conv.getB()) && !bias))
        continue;
      Type elt = w.getElementType();
      if (!elt.isF32() && !elt.isF64())
        continue;
      if (scale.getElementType() != elt || mean.getElementType() != elt ||
          var.getElementType() != elt || beta.getElementType() != elt)
        continue;
      int64_t m = w.getShapedType().getDimSize(0);
      std::vector<char> wb = rawBytesOf(w);
      std::vector<char> bb = bias ? rawBytesOf(bias)
                                  : std::vector<char>(m * elementByteSize(elt), 0);
      float eps = bn.getEpsilon().convertToFloat();
      if (elt.isF32())
        foldInto<float>(wb, bb, m, rawBytesOf(scale), rawBytesOf(beta),
                        rawBytesOf(mean), rawBytesOf(var), eps);
      else
        foldInto<double>(wb, bb, m, rawBytesOf(scale), rawBytesOf(beta),
                         rawBytesOf(mean), rawBytesOf(var), eps);
      OpBuilder b(conv);
      auto newW = elementsFromRawBytes(w.getShapedType(), wb);
      auto newB = elementsFromRawBytes(RankedTensorType::get({m}, elt), bb);
      Value wv = b.create<ConstantOp>(conv.getW().getLoc(), newW.getType(), newW);
      Value bv = b.create<ConstantOp>(conv.getLoc(), newB.getType(), newB);
      conv->setOperand(1, wv);
      conv->setOperand(2, bv);
      bn.getY().replaceAllUsesWith(conv.getY());
      bn->erase();
    }
  }
};
} // namespace
} // namespace onnxc
