//===- onnxc-opt.cpp - mlir-opt with the onnx dialect and onnxc passes -----===//
// For lit tests: `onnxc-opt --onnxc-constant-folding file.mlir`.
#include "onnxc/Lowering/Target.h"
#include "onnxc/Pipelines/Pipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  onnxc::registerAllTargets();
  mlir::DialectRegistry registry;
  onnxc::registerOnnxcDialects(registry);
  onnxc::registerOnnxcPassesAndPipelines();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "onnxc optimizer driver\n", registry));
}
