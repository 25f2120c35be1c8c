//===- Pipeline.cpp - the pass pipelines ------------------------------------===//
#include "onnxc/Pipelines/Pipeline.h"

#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Lowering/Target.h"
#include "onnxc/Passes/Passes.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace onnxc {

void buildOptimizationPipeline(OpPassManager &pm, const Target *target) {
  OpPassManager &f = pm.nest<func::FuncOp>();
  f.addPass(createShapeInferencePass());
  // Quantization parameters computed by the exporter become constants, the
  // quantized weights stay behind their DequantizeLinear for fold-qdq.
  f.addPass(createConstantFoldingPass({/*maxGrowBytes=*/65536, /*keepDequantize=*/true}));
  f.addPass(createFoldQdqPass()); // before constant folding dequantizes the weights
  f.addPass(createConstantFoldingPass());
  f.addPass(createExpandControlFlowPass());
  f.addPass(createConstantFoldingPass());
  f.addPass(createDeadCodeEliminationPass());
  f.addPass(createFoldBatchNormPass());
  f.addPass(createFuseOpsPass());
  f.addPass(createDeadCodeEliminationPass());
  f.addPass(createShapeInferencePass());
  f.addPass(createDataDependentDimsPass());
  if (target)
    target->addPasses(f, PipelineStage::Layout);
  f.addPass(createDeadCodeEliminationPass());
  if (target)
    target->addPasses(f, PipelineStage::BeforeKernelSelection);
}

void buildCodegenPipeline(OpPassManager &pm, bool lowerToEmitC, const Target *target) {
  OpPassManager &f = pm.nest<func::FuncOp>();
  f.addPass(createSelectKernelsPass());
  if (target)
    target->addPasses(f, PipelineStage::AfterKernelSelection);
  f.addPass(createMemoryPlanningPass());
  if (lowerToEmitC)
    pm.addPass(createLowerToEmitCPass());
}

void registerOnnxcDialects(DialectRegistry &registry) {
  registry.insert<onnx::ONNXDialect, func::FuncDialect, emitc::EmitCDialect>();
  for (const Target *t : TargetRegistry::all())
    t->registerDialects(registry);
}

void registerOnnxcPassesAndPipelines() {
  registerONNXCPasses();
  PassPipelineRegistration<>("onnxc-optimize",
                             "The graph simplification onnxc runs before codegen",
                             [](OpPassManager &pm) { buildOptimizationPipeline(pm); });
  PassPipelineRegistration<>("onnxc-codegen",
                             "Kernel selection, memory planning and lowering to EmitC",
                             [](OpPassManager &pm) { buildCodegenPipeline(pm); });
}

} // namespace onnxc
