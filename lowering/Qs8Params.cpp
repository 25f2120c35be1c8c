//===- Qs8Params.cpp - the qs8 ops' integer parameters, derived once ------===//
#include "onnxc/Lowering/Qs8Params.h"

namespace onnxc::lowering {

llvm::SmallVector<Qs8Multiplier> channelMultipliers(float xScale, llvm::ArrayRef<float> wScales,
                                                    float yScale) {
  llvm::SmallVector<Qs8Multiplier> out;
  for (float w : wScales)
    out.push_back(
        onnxc_rt::ref::qs8::quantize_multiplier(double(xScale) * double(w) / double(yScale)));
  return out;
}

Qs8Multiplier mulMultiplier(onnx::QMulOp op) {
  return onnxc_rt::ref::qs8::quantize_multiplier(op.getAScale().convertToDouble() *
                                                 op.getBScale().convertToDouble() /
                                                 op.getYScale().convertToDouble());
}

onnxc_rt::ref::qs8::AddParams addParams(onnx::QAddOp op) {
  return onnxc_rt::ref::qs8::add_params(
      op.getAScale().convertToDouble(), int32_t(op.getAZeroPoint()),
      op.getBScale().convertToDouble(), int32_t(op.getBZeroPoint()),
      op.getYScale().convertToDouble(), int32_t(op.getYZeroPoint()), int32_t(op.getActMin()),
      int32_t(op.getActMax()),
      int32_t(mlir::cast<mlir::ShapedType>(op.getA().getType()).getElementTypeBitWidth()));
}

llvm::SmallVector<int32_t, 12> addParamList(const onnxc_rt::ref::qs8::AddParams &p) {
  return {p.left_shift, p.a_zp, p.a_multiplier, p.a_shift, p.b_zp,    p.b_multiplier,
          p.b_shift,    p.y_zp, p.y_multiplier, p.y_shift, p.act_min, p.act_max};
}

} // namespace onnxc::lowering
