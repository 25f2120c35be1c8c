//===- StaticOps.cpp - sequences and optionals, evaluated at import --------===//
#include "GraphImporter.h"
#include "OnnxSchema.h"
#include "TensorProto.h"
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace onnxc {

/// Ops on sequences and optionals, which onnxc evaluates at import.
static const char *const kStaticOps[] = {
    "SequenceEmpty", "SequenceConstruct", "SequenceInsert", "SequenceAt", "SequenceErase",
    "SequenceLength", "ConcatFromSequence", "SplitToSequence", "SequenceMap",
    "Optional", "OptionalHasElement", "OptionalGetElement"};

ArrayRef<const char *> staticOps() { return kStaticOps; }
bool isStaticOp(StringRef op) { return llvm::is_contained(kStaticOps, op); }

FailureOr<bool> GraphImporter::importStaticOp(const ::onnx::NodeProto &node, NodeImport &ni) {
  StringRef op = node.op_type();
  auto in = [&](int i) -> std::string { return i < node.input_size() ? node.input(i) : ""; };
  auto out = [&](int i) -> std::string { return i < node.output_size() ? node.output(i) : ""; };
  auto isSeq = [&](const std::string &n) { return sequences.count(n) > 0; };
  // Identity (and the like) of a sequence or an optional passes it on.
  if (op == "Identity" && isSeq(in(0))) {
    sequences[out(0)] = sequences[in(0)];
    return true;
  }
  if (op == "Identity" && optionals.count(in(0))) {
    optionals[out(0)] = optionals[in(0)];
    return true;
  }
  if (!isStaticOp(op))
    return false;
  auto position = [&](int i, int64_t size, bool insert) -> FailureOr<int64_t> {
    if (in(i).empty())
      return insert ? size : size - 1;
    auto p = onnx::getConstantInts(values.lookup(in(i)));
    if (!p || p->size() != 1)
      return emitError(ni.loc) << op << ": a position computed at run time is not supported";
    int64_t v = (*p)[0] < 0 ? (*p)[0] + size : (*p)[0];
    if (v < 0 || v > size || (!insert && v == size))
      return emitError(ni.loc) << op << ": position " << (*p)[0] << " is out of range";
    return v;
  };
  auto tensorIn = [&](int i) -> FailureOr<Value> {
    Value v = in(i).empty() ? Value() : values.lookup(in(i));
    if (!v)
      return emitError(ni.loc) << op << " input " << i << " ('" << in(i)
                               << "') must be a tensor";
    return v;
  };
  auto seqIn = [&](int i) -> FailureOr<SmallVector<Value>> {
    if (!isSeq(in(i)))
      return emitError(ni.loc) << op << ": input '" << in(i) << "' is not a sequence";
    return sequences[in(i)];
  };
  if (op == "SequenceEmpty") {
    sequences[out(0)] = {};
  } else if (op == "SequenceConstruct") {
    SmallVector<Value> items;
    for (int i = 0; i < node.input_size(); ++i) {
      auto v = tensorIn(i);
      if (failed(v))
        return failure();
      items.push_back(*v);
    }
    sequences[out(0)] = items;
  } else if (op == "SequenceInsert" || op == "SequenceErase" || op == "SequenceAt") {
    auto s = seqIn(0);
    if (failed(s))
      return failure();
    bool insert = op == "SequenceInsert";
    auto p = position(insert ? 2 : 1, s->size(), insert);
    if (failed(p))
      return failure();
    if (op == "SequenceAt") {
      values[out(0)] = (*s)[*p];
      return true;
    }
    if (insert) {
      auto v = tensorIn(1);
      if (failed(v))
        return failure();
      s->insert(s->begin() + *p, *v);
    } else
      s->erase(s->begin() + *p);
    sequences[out(0)] = *s;
  } else if (op == "SequenceLength") {
    auto s = seqIn(0);
    if (failed(s))
      return failure();
    values[out(0)] = ni.constantI64({(int64_t)s->size()}, /*scalar=*/true);
  } else if (op == "ConcatFromSequence") {
    auto s = seqIn(0);
    if (failed(s))
      return failure();
    if (s->empty())
      return emitError(ni.loc) << "ConcatFromSequence of an empty sequence is not supported";
    auto axisAttr = dyn_cast_or_null<IntegerAttr>(ni.getAttr("axis"));
    auto newAxisAttr = dyn_cast_or_null<IntegerAttr>(ni.getAttr("new_axis"));
    int64_t axis = axisAttr ? axisAttr.getInt() : 0;
    SmallVector<Value> parts = *s;
    if (newAxisAttr && newAxisAttr.getInt()) {
      for (Value &v : parts) {
        auto u = ni.build1("Unsqueeze", {v, ni.constantI64({axis})});
        if (failed(u))
          return failure();
        v = *u;
      }
    }
    auto c = ni.build1("Concat", parts, {builder.getNamedAttr("axis", builder.getI64IntegerAttr(axis))});
    if (failed(c))
      return failure();
    values[out(0)] = *c;
  } else if (op == "SplitToSequence") {
    auto input = tensorIn(0);
    if (failed(input))
      return failure();
    Value x = *input;
    auto t = dyn_cast<RankedTensorType>(x.getType());
    auto axisAttr = dyn_cast_or_null<IntegerAttr>(ni.getAttr("axis"));
    auto keepAttr = dyn_cast_or_null<IntegerAttr>(ni.getAttr("keepdims"));
    if (!t || !t.hasStaticShape())
      return emitError(ni.loc) << "SplitToSequence needs a static input shape";
    int64_t axis = axisAttr ? axisAttr.getInt() : 0;
    if (axis < -t.getRank() || axis >= t.getRank())
      return emitError(ni.loc) << "SplitToSequence axis " << axis
                               << " is out of range for a rank-" << t.getRank() << " input";
    if (axis < 0)
      axis += t.getRank();
    int64_t dim = t.getDimSize(axis);
    SmallVector<int64_t> sizes;
    bool squeeze = false;
    // Each piece is a value of its own: a sequence is bounded like an
    // unrolled loop (checked before the sizes are built).
    auto tooMany = [&](int64_t pieces) {
      return emitError(ni.loc) << "SplitToSequence into " << pieces
                               << " pieces is not supported (at most " << kMaxSequenceLength
                               << ")";
    };
    if (in(1).empty()) {
      if (dim > (int64_t)kMaxSequenceLength)
        return tooMany(dim);
      sizes.assign(dim, 1);
      squeeze = !keepAttr || keepAttr.getInt() != 0 ? false : true;
    } else {
      auto splitIn = tensorIn(1);
      if (failed(splitIn))
        return failure();
      auto s = onnx::getConstantInts(*splitIn);
      if (!s)
        return emitError(ni.loc) << "SplitToSequence: split sizes computed at run time are not supported";
      auto st = cast<ShapedType>(splitIn->getType());
      if (st.getRank() == 0) {
        if ((*s)[0] < 1)
          return emitError(ni.loc) << "SplitToSequence split size " << (*s)[0]
                                   << " must be positive";
        int64_t pieces = dim / (*s)[0] + (dim % (*s)[0] != 0);
        if (pieces > (int64_t)kMaxSequenceLength)
          return tooMany(pieces);
        for (int64_t left = dim; left > 0; left -= (*s)[0])
          sizes.push_back(std::min(left, (*s)[0]));
      } else {
        if (s->size() > kMaxSequenceLength)
          return tooMany(s->size());
        sizes = *s;
      }
    }
    auto split = ni.buildOp("Split", {x, ni.constantI64(sizes)},
                            {builder.getNamedAttr("axis", builder.getI64IntegerAttr(axis))},
                            sizes.size());
    if (failed(split))
      return failure();
    SmallVector<Value> items((*split)->getResults().begin(), (*split)->getResults().end());
    if (squeeze)
      for (Value &v : items) {
        auto q = ni.build1("Squeeze", {v, ni.constantI64({axis})});
        if (failed(q))
          return failure();
        v = *q;
      }
    sequences[out(0)] = items;
  } else if (op == "SequenceMap") {
    const ::onnx::GraphProto *body = nullptr;
    for (const auto &a : node.attribute())
      if (a.name() == "body")
        body = &a.g();
    auto s = seqIn(0);
    if (!body || failed(s))
      return failure();
    SmallVector<SmallVector<Value>> results(node.output_size());
    for (size_t i = 0; i < s->size(); ++i) {
      SmallVector<ImportValue> args;
      for (int k = 0; k < node.input_size(); ++k) {
        if (isSeq(in(k))) {
          if (sequences[in(k)].size() != s->size())
            return emitError(ni.loc) << "SequenceMap sequences differ in length";
          args.push_back(ImportValue::of(sequences[in(k)][i]));
        } else {
          auto v = tensorIn(k);
          if (failed(v))
            return failure();
          args.push_back(ImportValue::of(*v));
        }
      }
      auto r = importInline(*body, args);
      if (failed(r))
        return failure();
      for (int k = 0; k < node.output_size(); ++k) {
        if ((*r)[k].kind != ImportValue::Tensor)
          return emitError(ni.loc) << "SequenceMap bodies yielding sequences are not supported";
        results[k].push_back((*r)[k].tensor);
      }
    }
    for (int k = 0; k < node.output_size(); ++k)
      sequences[out(k)] = results[k];
  } else if (op == "Optional") {
    Optional o;
    if (!in(0).empty()) {
      o.present = true;
      o.isSequence = isSeq(in(0));
      if (o.isSequence) {
        o.sequence = sequences[in(0)];
      } else {
        auto v = tensorIn(0);
        if (failed(v))
          return failure();
        o.tensor = *v;
      }
    }
    optionals[out(0)] = o;
  } else if (op == "OptionalHasElement") {
    bool present = in(0).empty() ? false
                   : optionals.count(in(0)) ? optionals[in(0)].present
                                            : true; // a tensor or sequence (opset 18)
    auto type = RankedTensorType::get({}, builder.getI1Type());
    values[out(0)] = ni.constant(DenseElementsAttr::get(type, present));
  } else if (op == "OptionalGetElement") {
    if (!optionals.count(in(0))) { // opset 18: a plain tensor or sequence passes
      if (isSeq(in(0))) {
        sequences[out(0)] = sequences[in(0)];
      } else {
        auto v = tensorIn(0);
        if (failed(v))
          return failure();
        values[out(0)] = *v;
      }
      return true;
    }
    Optional &o = optionals[in(0)];
    if (!o.present)
      return emitError(ni.loc) << "OptionalGetElement of an empty optional";
    if (o.isSequence)
      sequences[out(0)] = o.sequence;
    else
      values[out(0)] = o.tensor;
  }
  return true;
}

} // namespace onnxc
