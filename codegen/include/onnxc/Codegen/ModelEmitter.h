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
  /// An int8/uint8 tensor with a quantization (real = (q - zeroPoint) x
  /// scale): a quantized model's inputs and outputs (--io int8).
  bool quantized = false;
  float scale = 0;
  int64_t zeroPoint = 0;
  /// A model with bounded dims: each dim as C text over the dims' C names
  /// ("seq", "4*batch"), empty where it is fixed; `shape` holds the bounds.
  std::vector<std::string> dimTexts;
  std::vector<std::vector<int64_t>> dimPolys; // the same as polynomials (BoundedDims.h)
  /// The shape at `dims` (the bounded dims' sizes, in their order).
  std::vector<int64_t> shapeAt(const std::vector<int64_t> &dims) const;
  bool sized() const {
    for (const std::string &t : dimTexts)
      if (!t.empty())
        return true;
    return false;
  }
};

/// A bounded dim (--dim NAME=LO..HI): the sizes the run takes first.
struct DimBound {
  std::string name, cname;
  int64_t lo = 1, hi = 1;
};

/// How a graph output maps onto the function's results: a tensor is one
/// result; a sequence, or an optional (present or not), is `count` results.
/// Results holding data-dependent sizes follow all graph outputs' results.
struct GraphOutput {
  std::string name, kind; // tensor | sequence | optional | optional_sequence
  int64_t firstResult = 0, count = 1;
  bool present = true;
};

/// Where the files came from, recorded in the header (and checked by
/// `onnxc --verify-header`). Nothing path- or machine-dependent goes in, so
/// the same model and options give the same bytes anywhere.
struct Provenance {
  std::string modelSha256;  // of the .onnx file as given to onnxc
  std::string producer;     // the model's producer_name and producer_version
  std::string opsetImports; // "ai.onnx 17, ai.onnx.ml 3"
  std::string options;      // the options that shape the output, canonical
};

struct ModelInterface {
  std::string name;
  Provenance provenance;
  std::vector<TensorInterface> inputs, outputs;
  std::vector<GraphOutput> graphOutputs;
  /// The graph inputs that are sequences or optionals (firstResult unused).
  std::vector<GraphOutput> compositeInputs;
  std::vector<DimBound> boundedDims; // empty: every size fixed
  int64_t arenaBytes = 0;
  int threads = 1; // tasks the parallel kernels split into (--threads)
  /// --profile: the nodes NAME_run_on marks (NAME_profile_mark); -1: none.
  int64_t profileNodes = -1;
};

/// Reads the interface of a planned model function (names from onnx.name).
ModelInterface describeModel(mlir::func::FuncOp func);

std::string emitHeader(const ModelInterface &model, const std::string &version);

/// The pieces every emitter's header shares: the opening comment with the
/// provenance `--verify-header` checks, the guard and includes (left open);
/// the NUM_INPUTS / provenance / quantization #defines; the C++
/// InputN / OutputN descriptions.
std::string headerOpening(const ModelInterface &model, const std::string &version);
std::string interfaceDefines(const ModelInterface &model, const std::string &version);
std::string tensorDescriptions(const ModelInterface &model);
/// Bounded dims: their NAME_DIM_x_MIN / _MAX #defines and what `runName`
/// does with their sizes; "" without bounded dims.
std::string boundedDimsDefines(const ModelInterface &model, const std::string &runName);
/// "[1x3x224x224]", or with bounded dims "[batch x 3 x 224 x 224] (at most
/// [32x3x224x224])".
std::string shapeText(const TensorInterface &tensor);
/// The header comment's lines under an output whose size the data decides
/// (which dim, its bound, the extent output the run writes it to); "" for
/// the others.
std::string dataSizedNote(const ModelInterface &model, const TensorInterface &output);

/// The header comment's lines for the graph inputs and outputs that are
/// sequences or optionals (" *   ONNX output "s": sequence of 2 tensors"),
/// which pass as their tensors' parameters, or as none when absent; "" when
/// there are none.
std::string compositesNote(const ModelInterface &model);

/// Translates the EmitC module to C++; failure is reported as diagnostics.
mlir::FailureOr<std::string> emitSource(mlir::ModuleOp emitcModule,
                                        const std::string &banner);

/// The weights blob recorded by onnxc-lower-to-emitc.
std::vector<char> weightsBlob(mlir::ModuleOp emitcModule);

/// Assembly that places `blobFile` in read-only data as NAME_weights.
std::string weightsAssembly(const std::string &name, const std::string &blobFile);

/// A compiled model's files, in memory: NAME.h, NAME<sourceExtension>, the
/// weights blob NAME.weights.bin and NAME_weights.S, which pulls it in.
struct EmittedModel {
  std::string header, source, weightsAsm;
  std::vector<char> weights;
  std::string sourceExtension; // ".cpp", ".cu"
};

/// The calls of the test program `onnxc run` builds (C++ statements and
/// expressions; the program has `inputs` and `outputs`, arrays of pointers
/// in graph order, and, with hostArena, a static `arena`).
struct RunProgramCalls {
  std::string setup;    // before the runs; may `return` the program's exit code
  std::string run;      // an int expression: one run, 0 on success
  std::string error;    // a const char* expression describing a failed run, or ""
  std::string teardown; // after the runs
  bool hostArena = true;
};

/// Turns a memory-planned module (after onnxc-memory-planning, kernels
/// recorded on its ops) into a model's files. A target names its emitter
/// (Target::emitter); the C++ one serves every target that names none.
class ModelEmitter {
public:
  virtual ~ModelEmitter();
  virtual llvm::StringRef name() const = 0;
  /// Emits the model called `name`; `banner` opens the source. Failures are
  /// reported as diagnostics naming the node. May rewrite the module.
  virtual mlir::FailureOr<EmittedModel> emit(mlir::ModuleOp planned, const ModelInterface &iface,
                                             const std::string &name,
                                             const std::string &banner,
                                             const std::string &version) const = 0;
  /// How the program `onnxc run` builds around a model it cannot run in
  /// process calls the model (named "model"); the default is the C++ API's
  /// NAME_run_v on a static arena.
  virtual RunProgramCalls runProgramCalls(const ModelInterface &m) const;
};

/// The C++ emitter: onnxc-lower-to-emitc, then MLIR's C++ translator.
const ModelEmitter &cppModelEmitter();

} // namespace onnxc

#endif
