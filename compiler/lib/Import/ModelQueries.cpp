//===- ModelQueries.cpp - what a model file says, without importing it -----===//
//
// Questions the driver asks of an .onnx file before (or beside) importing it:
// its graph inputs' kinds, the external data files it names, the inputs whose
// values decide shapes. Each reads the protobuf on its own; none builds IR.
//
//===----------------------------------------------------------------------===//
#include "onnxc/Import/Importer.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <set>

#include "TensorProto.h" // libonnx's generated classes

using namespace mlir;
using llvm::StringRef;

namespace onnxc {

std::vector<GraphInputKind> graphInputKinds(StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  ::onnx::ModelProto model;
  if (!buf || !model.ParseFromArray((*buf)->getBufferStart(), (*buf)->getBufferSize()))
    return {};
  llvm::StringSet<> inits;
  for (const auto &t : model.graph().initializer())
    inits.insert(t.name());
  std::vector<GraphInputKind> kinds;
  for (const auto &in : model.graph().input()) {
    if (inits.count(in.name()))
      continue;
    GraphInputKind k;
    k.name = in.name();
    const ::onnx::TypeProto &tp = in.type();
    k.isOptional = tp.has_optional_type();
    const ::onnx::TypeProto &inner = k.isOptional ? tp.optional_type().elem_type() : tp;
    k.isSequence = inner.has_sequence_type();
    kinds.push_back(k);
  }
  return kinds;
}

std::vector<std::string> externalDataFiles(StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  ::onnx::ModelProto model;
  if (!buf || !model.ParseFromArray((*buf)->getBufferStart(), (*buf)->getBufferSize()))
    return {};
  llvm::StringRef baseDir = llvm::sys::path::parent_path(path);
  std::set<std::string> files;
  for (const auto &t : model.graph().initializer())
    if (t.data_location() == ::onnx::TensorProto::EXTERNAL)
      for (const auto &kv : t.external_data())
        if (kv.key() == "location" && !kv.value().empty()) {
          llvm::SmallString<256> p(baseDir);
          llvm::sys::path::append(p, kv.value());
          files.insert(std::string(p));
        }
  return {files.begin(), files.end()};
}

std::vector<size_t> shapeDecidingInputs(StringRef path) {
  // (op type, input index) pairs whose values decide result shapes.
  static const llvm::StringMap<std::vector<int>> kShapeOperands = {
      {"Reshape", {1}}, {"Expand", {1}}, {"ConstantOfShape", {0}}, {"Tile", {1}},
      {"Pad", {1, 3}}, {"Slice", {1, 2, 3, 4}}, {"Range", {0, 1, 2}},
      {"Squeeze", {1}}, {"Unsqueeze", {1}}, {"Split", {1}}, {"TopK", {1}},
      {"OneHot", {1}}, {"Resize", {1, 2, 3}}, {"Upsample", {1}}, {"CumSum", {1}},
      {"ReduceSum", {1}}, {"ReduceMean", {1}}, {"ReduceMax", {1}}, {"ReduceMin", {1}},
      {"ReduceProd", {1}}, {"ReduceSumSquare", {1}}, {"ReduceL1", {1}},
      {"ReduceL2", {1}}, {"ReduceLogSum", {1}}, {"ReduceLogSumExp", {1}},
      {"Compress", {1}}, {"EyeLike", {}}, {"Trilu", {1}}, {"Loop", {0, 1}},
      {"SequenceInsert", {2}}, {"SequenceAt", {1}}, {"SequenceErase", {1}},
      {"SplitToSequence", {1}},
      {"BlackmanWindow", {0}}, {"HannWindow", {0}}, {"HammingWindow", {0}},
      {"MelWeightMatrix", {0, 1, 2}}, {"DFT", {1, 2}}, {"STFT", {1, 2, 3}},
      {"MaxUnpool", {2}}, {"NonMaxSuppression", {2}}};
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  ::onnx::ModelProto model;
  if (!buf || !model.ParseFromArray((*buf)->getBufferStart(), (*buf)->getBufferSize()))
    return {};
  const ::onnx::GraphProto &g = model.graph();
  llvm::StringMap<int> producer;
  for (int i = 0; i < g.node_size(); ++i)
    for (const std::string &o : g.node(i).output())
      producer[o] = i;
  // Walk backwards from every shape operand to the graph inputs it depends on.
  llvm::StringSet<> deciding, seen;
  std::vector<std::string> work;
  for (const ::onnx::NodeProto &n : g.node()) {
    auto it = kShapeOperands.find(n.op_type());
    if (it == kShapeOperands.end())
      continue;
    for (int idx : it->second)
      if (idx < n.input_size() && !n.input(idx).empty())
        work.push_back(n.input(idx));
  }
  // An If's condition decides which branch runs, and the branches may yield
  // different shapes, sequences or optionals: it is bound too, so the If is
  // compiled as the one branch these inputs select (the summary says so).
  for (const ::onnx::NodeProto &n : g.node())
    if (n.op_type() == "If" && n.input_size() > 0 && !n.input(0).empty())
      work.push_back(n.input(0));
  while (!work.empty()) {
    std::string v = work.back();
    work.pop_back();
    if (!seen.insert(v).second)
      continue;
    auto p = producer.find(v);
    if (p == producer.end()) {
      deciding.insert(v);
      continue;
    }
    // Shape, Size and the like read only their input's shape: stop there.
    const ::onnx::NodeProto &n = g.node(p->second);
    if (n.op_type() == "Shape" || n.op_type() == "Size")
      continue;
    for (const std::string &in : n.input())
      if (!in.empty())
        work.push_back(in);
  }
  llvm::StringSet<> inits;
  for (const auto &t : g.initializer())
    inits.insert(t.name());
  std::vector<size_t> positions;
  size_t pos = 0;
  for (const auto &in : g.input()) {
    if (inits.count(in.name()))
      continue;
    if (deciding.count(in.name()))
      positions.push_back(pos);
    ++pos;
  }
  return positions;
}


} // namespace onnxc
