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
//     asymmetric, per tensor; int16, symmetric, where QdqOptions asks) on
//     those activations, int8 weights symmetric per output channel and
//     int32 biases for Conv, Gemm and MatMul.
// Ops with no integer form are left between a DequantizeLinear and a
// QuantizeLinear: they run in float, automatically.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_QUANTIZE_QUANTIZE_H
#define ONNXC_QUANTIZE_QUANTIZE_H

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace onnxc {

/// A graph input as the model declares it: what calibration samples must be.
struct InputSpec {
  std::string name;
  std::vector<int64_t> dims; // -1: symbolic or unknown
  bool isFloat = false;      // float32
};

/// The activations to observe and a model that outputs them (serialized).
struct CalibrationPlan {
  std::vector<InputSpec> inputs;
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
  void add(const float *values, int64_t n, bool skipZeros = false);
  /// The range that leaves (100 - percentile)% of the values outside on
  /// each side (Percentile; 99.99 by default), with 0 inside.
  TensorRange percentileRange(double percentile) const;

  /// The range [a, b] (0 inside) whose int8 rendering (256 steps, values
  /// outside clipped to its ends) is closest to the observed distribution
  /// in KL divergence: TensorRT's entropy calibration, searched over both
  /// ends since the activations are asymmetric. Fill the histogram with
  /// add(..., skipZeros = true): 0 is exact at every range, and a ReLU's
  /// spike of zeros would otherwise dominate the divergence.
  TensorRange entropyRange() const;

private:
  double edge(int64_t bin) const;
  float lo_, hi_;
  std::vector<int64_t> counts_;
  int64_t total_ = 0;
};

/// How writeQdqModel writes the model.
struct QdqOptions {
  /// Quantized graph inputs and outputs become int8 tensors (--io int8).
  bool ioInteger = false;
  int ioBits = 8; // int8 (--io int8) or int16 (--io int16): what each must be
  /// Conv/Gemm/MatMul nodes (named by their first output) kept in float,
  /// with Q/DQ at their edges (--quantize-error-budget).
  std::set<std::string> floatLayers;
  /// Every activation int16, weights int8 (--quantize int16x8).
  bool int16All = false;
  /// Nodes (by name or first output) whose activations are int16, the
  /// rest int8 (--quantize-int16 NODE,...).
  std::set<std::string> int16Layers;
};

struct QuantizeSummary {
  int quantizedTensors = 0; // activations with Q/DQ
  int quantizedWeights = 0; // per-channel int8 weight tensors
  int64_t floatWeightBytes = 0, int8WeightBytes = 0; // of the quantized layers
  int64_t weightBytesBefore = 0, weightBytesAfter = 0; // all initializers
  /// Every quantized activation, in graph order: its parameters, the node
  /// that makes it and the QDQ model's tensor holding its dequantized value.
  struct Tensor {
    std::string name, producer, dequantized;
    float scale = 0;
    int zeroPoint = 0;
    int bits = 8; // int8 or int16
  };
  std::vector<Tensor> tensors;
  /// Conv/Gemm/MatMul layers: the node, its input activation and the
  /// quantized tensor after it (past a fused Relu/Clip).
  struct Layer {
    std::string node, output, input, quantizedOutput;
    bool int8 = false;
  };
  std::vector<Layer> layers;
  /// Nodes that run in float between DQ and Q, and why.
  std::vector<std::pair<std::string, std::string>> floatOps;
  /// --io int8: the graph inputs and outputs that became int8.
  std::vector<Tensor> integerIo;
};

/// Writes the QDQ form of the float model at `modelPath` to `outPath`,
/// with activation parameters from `ranges` (every tensor planCalibration
/// listed).
bool writeQdqModel(const std::string &modelPath, const std::map<std::string, TensorRange> &ranges,
                   const QdqOptions &options, const std::string &outPath,
                   QuantizeSummary &summary, std::string &error);

/// Adds each of `tensors` to the graph outputs of the model at `path` (a
/// copy written to `outPath`): what a measurement run reads.
bool addGraphOutputs(const std::string &path, const std::vector<std::string> &tensors,
                     const std::string &outPath, std::string &error);

} // namespace onnxc

#endif
