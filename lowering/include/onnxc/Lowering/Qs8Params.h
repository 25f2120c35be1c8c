//===- Qs8Params.h - the qs8 ops' integer parameters, derived once --------===//
//
// Every provider of the qs8 ops (the reference lowering, the SIMD and the
// Cortex-M ones) passes its kernels integers derived from the op's float
// scales: fixed-point multipliers and shifts, QAdd's rescalings. They are
// derived here, once, by runtime-lite's own functions (reference/qs8.h's
// quantize_multiplier and add_params), so the kernels of every target see
// the same integers and share the reference's rounding.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_LOWERING_QS8PARAMS_H
#define ONNXC_LOWERING_QS8PARAMS_H

#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc_rt/kernels/reference/qs8.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

namespace onnxc::lowering {

using Qs8Multiplier = onnxc_rt::ref::qs8::Multiplier;

/// x_scale * w_scale[c] / y_scale for each w_scale value: a QConv's or a
/// QMatMul's per-channel (or per-tensor) requantization.
llvm::SmallVector<Qs8Multiplier> channelMultipliers(float xScale, llvm::ArrayRef<float> wScales,
                                                    float yScale);

/// x_scale / y_scale: the rescaling of QAveragePool and QRescale.
template <typename Op> Qs8Multiplier rescaleMultiplier(Op op) {
  return onnxc_rt::ref::qs8::quantize_multiplier(op.getXScale().convertToDouble() /
                                                 op.getYScale().convertToDouble());
}

/// a_scale * b_scale / y_scale: QMul's.
Qs8Multiplier mulMultiplier(onnx::QMulOp op);

/// QAdd's rescalings to a common scale and back (add_params).
onnxc_rt::ref::qs8::AddParams addParams(onnx::QAddOp op);
/// The same as the SIMD and reference add kernels take them, in order:
/// left_shift, a_zp, a_multiplier, a_shift, b_zp, ..., act_min, act_max.
llvm::SmallVector<int32_t, 12> addParamList(const onnxc_rt::ref::qs8::AddParams &p);

} // namespace onnxc::lowering

#endif
