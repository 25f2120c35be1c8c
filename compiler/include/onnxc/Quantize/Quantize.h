//===- Quantize.h - float ONNX model -> int8 QDQ ONNX model ----------------===//
//
// Static post-training quantization at the ONNX level, as ONNX Runtime's
// quantizer does it, so that the result is a standard QDQ model
// (`--emit qdq-onnx`) that any runtime can run and that onnxc compiles
// like any other QDQ model (onnxc-fold-qdq turns it into integer ops):
//  1. planCalibration lists the float activations to quantize and makes a
//     copy of the model that also outputs them;
//  2. the driver compiles that copy for the host and runs it on the
//     calibration samples (the compiler's own kernels: one definition of
//     every op), recording each tensor's range;
//  3. writeQdqModel inserts QuantizeLinear -> DequantizeLinear pairs (int8,
//     asymmetric, per tensor) on those activations, int8 weights symmetric
//     per output channel and int32 biases for Conv, Gemm and MatMul.
// Ops with no integer form are left between a DequantizeLinear and a
// QuantizeLinear: they run in float, automatically.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_QUANTIZE_QUANTIZE_H
#define ONNXC_QUANTIZE_QUANTIZE_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace onnxc {

/// The activations to observe and a model that outputs them (serialized).
struct CalibrationPlan {
  std::vector<std::string> tensors;
  std::string model; // the calibration model, a serialized ModelProto
};

/// Plans the calibration of the float model at `modelPath`. Fails (with
/// `error` naming the node or tensor) for what the int8 rewrite cannot take:
/// no float32 activations, external data, control flow.
bool planCalibration(const std::string &modelPath, CalibrationPlan &plan, std::string &error);

/// A calibrated range [lo, hi] of one tensor.
struct TensorRange {
  float lo = 0, hi = 0;
};

/// A histogram of one tensor's values over the calibration samples, in
/// bins over [min, max] (0 included) found by a first, MinMax pass.
class Histogram {
public:
  Histogram(float lo, float hi, int bins = 2048);
  void add(const float *values, int64_t n);
  /// The range that leaves (100 - percentile)% of the values outside on
  /// each side (Percentile; 99.99 by default), with 0 inside.
  TensorRange percentileRange(double percentile) const;

private:
  double edge(int64_t bin) const;
  float lo_, hi_;
  std::vector<int64_t> counts_;
  int64_t total_ = 0;
};

struct QuantizeSummary {
  int quantizedTensors = 0; // activations with Q/DQ
  int quantizedWeights = 0; // per-channel int8 weight tensors
  int64_t floatWeightBytes = 0, int8WeightBytes = 0;
  std::vector<std::string> floatOps; // ops left in float between Q and DQ
};

/// Writes the QDQ form of the float model at `modelPath` to `outPath`,
/// with activation parameters from `ranges` (every tensor planCalibration
/// listed).
bool writeQdqModel(const std::string &modelPath, const std::map<std::string, TensorRange> &ranges,
                   const std::string &outPath, QuantizeSummary &summary, std::string &error);

} // namespace onnxc

#endif
