//===- Pipeline.h - the pass pipelines onnxc runs -------------------------===//
#ifndef ONNXC_PIPELINES_PIPELINE_H
#define ONNXC_PIPELINES_PIPELINE_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

namespace onnxc {

class Target;

/// Graph-level simplification: shape inference, QDQ folding into integer ops,
/// constant folding, dead-code
/// elimination, BatchNorm folding, fusion, layout selection; then the
/// target's own passes for PipelineStage::BeforeKernelSelection. Runs on the
/// module (nests into the model function).
void buildOptimizationPipeline(mlir::OpPassManager &pm, const Target *target = nullptr);

/// Kernel selection, the target's passes for
/// PipelineStage::AfterKernelSelection, memory planning, then (with
/// `lowerToEmitC`) the C++ emitter's lowering to EmitC.
void buildCodegenPipeline(mlir::OpPassManager &pm, bool lowerToEmitC = true,
                          const Target *target = nullptr);

/// Dialects onnxc uses (onnx, func, emitc).
void registerOnnxcDialects(mlir::DialectRegistry &registry);

/// Registers the onnxc-* passes and the `onnxc-optimize`/`onnxc-codegen`
/// pipelines (for onnxc-opt and --pass-pipeline).
void registerOnnxcPassesAndPipelines();

} // namespace onnxc

#endif
