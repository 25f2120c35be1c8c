//===- Pipeline.h - the pass pipelines onnxc runs -------------------------===//
#ifndef ONNXC_PIPELINES_PIPELINE_H
#define ONNXC_PIPELINES_PIPELINE_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

namespace onnxc {

/// Graph-level simplification: shape inference, constant folding, dead-code
/// elimination, BatchNorm folding. Runs on the module (nests into the model
/// function).
void buildOptimizationPipeline(mlir::OpPassManager &pm);

/// Memory planning, then lowering to EmitC.
void buildCodegenPipeline(mlir::OpPassManager &pm, bool lowerToEmitC = true);

/// Dialects onnxc uses (onnx, func, emitc).
void registerOnnxcDialects(mlir::DialectRegistry &registry);

/// Registers the onnxc-* passes and the `onnxc-optimize`/`onnxc-codegen`
/// pipelines (for onnxc-opt and --pass-pipeline).
void registerOnnxcPassesAndPipelines();

} // namespace onnxc

#endif
