//===- GraphImporter.h - the graph importer's class (Importer.cpp) ---------===//
//
// Private to the import library: the importer of one ONNX graph, whose
// parts live in Importer.cpp (the graph, nodes and values), StaticOps.cpp
// (sequences and optionals, evaluated at import) and ControlFlow.cpp (If,
// Loop and Scan: evaluated at import, or as ops with regions).
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_IMPORT_GRAPHIMPORTER_H
#define ONNXC_IMPORT_GRAPHIMPORTER_H

#include "onnxc/Import/Importer.h"

#include "NodeImport.h"
#include "onnx/onnx_pb.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <vector>

namespace onnxc {

/// Ops on sequences and optionals, which onnxc evaluates at import
/// (StaticOps.cpp).
llvm::ArrayRef<const char *> staticOps();
bool isStaticOp(llvm::StringRef op);

/// The longest sequence the import expands (each element is a value of its
/// own), as an unrolled loop is bounded.
constexpr size_t kMaxSequenceLength = 4096;

using namespace mlir;

class GraphImporter {
public:
  GraphImporter(MLIRContext &ctx, const ImportOptions &opts, StringRef modelPath)
      : ctx(ctx), opts(opts), modelPath(modelPath.str()),
        baseDir(llvm::sys::path::parent_path(modelPath).str()), builder(&ctx) {}

  OwningOpRef<ModuleOp> run(const ::onnx::ModelProto &model);

  /// The batch the inputs were re-batched to (ImportOptions::batch), or 0.
  int64_t rebatched() const { return rebatchedTo; }
private:
  Location nodeLoc(const ::onnx::NodeProto &node, int index) {
    std::string name = node.name().empty()
                           ? ("#" + std::to_string(index) + " " + node.op_type())
                           : node.name();
    return NameLoc::get(StringAttr::get(&ctx, name),
                        FileLineColLoc::get(&ctx, modelPath, index + 1, 0));
  }
  LogicalResult checkOpsAndDomains(const ::onnx::GraphProto &g);
  FailureOr<std::vector<int>> topologicalOrder(const ::onnx::GraphProto &g);
  FailureOr<Type> inputType(const ::onnx::ValueInfoProto &vi, size_t position);
  /// The input's tensor type, or an error when it is too large to address.
  FailureOr<Type> sizedInputType(StringRef name, ArrayRef<int64_t> dims, Type elt);
  LogicalResult checkOptionNames(const ::onnx::GraphProto &g, const llvm::StringSet<> &initNames);
  /// --elements for a sequence/optional input: a count its kind allows and
  /// shapes that agree with the sizes its element type fixes.
  LogicalResult checkElements(StringRef name, const CompositeInput &info,
                              const ::onnx::TypeProto &tensor);
  LogicalResult importNode(const ::onnx::NodeProto &node, int index);
  /// What ONNX's schema of the node's op says: how many inputs it takes and
  /// which must be given; inputs it binds to one type parameter (Add's T)
  /// have one element type (the kernels assume it).
  LogicalResult checkAgainstSchema(const ::onnx::NodeProto &node, const NodeImport &ni);
  /// If, Loop, Scan: the op with its subgraphs imported as regions.
  FailureOr<Operation *> importRegionOp(
      const ::onnx::NodeProto &node, NodeImport &ni,
      ArrayRef<std::pair<std::string, const ::onnx::GraphProto *>> graphs);
  /// Scan-8: a leading batch dim and sequence_lens. Each batch entry becomes
  /// one opset-9 Scan on its slices; the results are stacked again.
  FailureOr<SmallVector<Value>> importBatchedScan(
      const ::onnx::NodeProto &node, NodeImport &ni,
      ArrayRef<std::pair<std::string, const ::onnx::GraphProto *>> graphs);
  /// Imports a subgraph into `block` (whose arguments stand for its inputs)
  /// and ends it with onnx.Yield. Outer names stay visible; inner ones go
  /// out of scope afterwards.
  LogicalResult importSubgraph(const ::onnx::GraphProto &g, Block *block);
  /// A value while importing: a tensor, or a sequence/optional as its list.
  struct ImportValue {
    enum Kind { Tensor, Sequence, Optional } kind = Tensor;
    Value tensor;
    SmallVector<Value> items; // Sequence; Optional: the tensor or the sequence
    bool present = true, optionalOfSequence = false;
    static ImportValue of(Value v) {
      ImportValue r;
      r.tensor = v;
      return r;
    }
  };
  ImportValue lookupValue(const std::string &name);
  void defineValue(const std::string &name, const ImportValue &v);
  /// Imports a subgraph's nodes at the insertion point with its inputs bound
  /// to `inputs` and returns its outputs; the names stay local.
  FailureOr<SmallVector<ImportValue>> importInline(const ::onnx::GraphProto &g,
                                                   ArrayRef<ImportValue> inputs);
  /// If and Loop evaluated while importing (sequences or optionals flow
  /// through them): needs the condition / trip count as constants. Returns
  /// false when the node is left to the region form.
  FailureOr<bool> importStaticControlFlow(const ::onnx::NodeProto &node, NodeImport &ni);

  MLIRContext &ctx;
  const ImportOptions &opts;
  int64_t rebatchedTo = 0; // the batch a re-batched input got (ImportOptions::batch)
  std::string modelPath, baseDir;
  OpBuilder builder;
  int64_t opset = 0;
  llvm::StringMap<Value> values;
  // Sequences and optionals exist only at import: a sequence is its list of
  // tensors, an optional holds a tensor or a sequence, or nothing.
  struct Optional {
    bool present = false, isSequence = false;
    Value tensor;
    SmallVector<Value> sequence;
  };
  llvm::StringMap<SmallVector<Value>> sequences;
  llvm::StringMap<Optional> optionals;
  /// Outputs of nodes that failed to import: their readers fail quietly
  /// (one error per cause, not one per reader).
  llvm::StringSet<> failedOutputs;
  void noteFailed(const ::onnx::NodeProto &node) {
    for (const std::string &out : node.output())
      failedOutputs.insert(out);
  }
  /// Sequence and optional ops, done on those lists. Returns failure() on
  /// error, false if `node` is not one of them.
  FailureOr<bool> importStaticOp(const ::onnx::NodeProto &node, NodeImport &ni);
};

} // namespace onnxc

#endif
