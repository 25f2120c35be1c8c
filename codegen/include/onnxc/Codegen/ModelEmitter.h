//===- ModelEmitter.h - the files of a compiled model ----------------------===//
//
// NAME.h (the C/C++ API), NAME.cpp (EmitC's C++), NAME.weights.bin (the
// constants, 64-byte aligned) and NAME_weights.S (pulls the blob into
// .rodata with .incbin, so a 50 MB model compiles in the time of a copy).
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_CODEGEN_MODELEMITTER_H
#define ONNXC_CODEGEN_MODELEMITTER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace onnxc {

struct TensorInterface {
  std::string name;  // the ONNX tensor name
  std::string cname; // a C identifier derived from it
  mlir::Type elementType;
  std::vector<int64_t> shape; // an output with a data-dependent dim: the bound
  int64_t bytes = 0;
  /// Outputs only: the dim whose size the data decides (-1: none), and the
  /// output (a scalar int64) the run writes that size to.
  int64_t dynamicDim = -1, extentOutput = -1;
};

/// How a graph output maps onto the function's results: a tensor is one
/// result; a sequence, or an optional (present or not), is `count` results.
/// Results holding data-dependent sizes follow all graph outputs' results.
struct GraphOutput {
  std::string name, kind; // tensor | sequence | optional | optional_sequence
  int64_t firstResult = 0, count = 1;
  bool present = true;
};

struct ModelInterface {
  std::string name;
  std::vector<TensorInterface> inputs, outputs;
  std::vector<GraphOutput> graphOutputs;
  int64_t arenaBytes = 0;
  int threads = 1; // tasks the parallel kernels split into (--threads)
};

/// Reads the interface of a planned model function (names from onnx.name).
ModelInterface describeModel(mlir::func::FuncOp func);

std::string emitHeader(const ModelInterface &model, const std::string &version);

/// Translates the EmitC module to C++; failure is reported as diagnostics.
mlir::FailureOr<std::string> emitSource(mlir::ModuleOp emitcModule,
                                        const std::string &banner);

/// The weights blob recorded by onnxc-lower-to-emitc.
std::vector<char> weightsBlob(mlir::ModuleOp emitcModule);

/// Assembly that places `blobFile` in read-only data as NAME_weights.
std::string weightsAssembly(const std::string &name, const std::string &blobFile);

} // namespace onnxc

#endif
