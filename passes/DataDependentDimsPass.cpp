//===- DataDependentDimsPass.cpp - onnxc-data-dependent-dims ----------------===//
#include "DataDependentRewrites.h"

#include "onnxc/Passes/PassUtils.h"
#include "onnxc/Passes/Passes.h"

using namespace mlir;

namespace onnxc {
#define GEN_PASS_DEF_DATADEPENDENTDIMSPASS
#include "onnxc/Passes/Passes.h.inc"

namespace {

ArrayRef<int64_t> shapeOf(Value v) { return cast<RankedTensorType>(v.getType()).getShape(); }

struct DataDependentDimsPass : impl::DataDependentDimsPassBase<DataDependentDimsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<onnx::CompressOp> compresses;
    func.walk([&](onnx::CompressOp op) { compresses.push_back(op); });
    for (onnx::CompressOp op : compresses)
      if (failed(expandRuntimeCompress(op)))
        return signalPassFailure();
    // One NonZero per mask: torch writes one per `x[keep]`, and values
    // sized by two of them could not meet (`scores[keep] * boxes[keep]`).
    SmallVector<onnx::NonZeroOp> nonZeros;
    func.walk([&](onnx::NonZeroOp op) { nonZeros.push_back(op); });
    for (auto [i, op] : llvm::enumerate(nonZeros))
      for (onnx::NonZeroOp first : ArrayRef(nonZeros).take_front(i))
        if (first && first.getX() == op.getX() && first->getBlock() == op->getBlock() &&
            first->getAttrDictionary() == op->getAttrDictionary()) {
          op->replaceAllUsesWith(first);
          op->erase();
          nonZeros[i] = nullptr;
          break;
        }
    for (onnx::NonZeroOp op : nonZeros)
      if (op)
        transposeNonZero(op);
    WalkResult typed = func.walk([](Operation *op) {
      return failed(refreshTypes(op)) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (typed.wasInterrupted())
      return signalPassFailure();

    // A Slice's size: max(0, min(n, end) - start), made once per Slice.
    DenseMap<Operation *, Value> sliceSizes;
    SliceExtentBuilder sliceExtent = [&](Operation *slice, Value n, int64_t start,
                                         int64_t end) -> Value {
      Value &size = sliceSizes[slice];
      if (size)
        return size;
      OpBuilder b(slice);
      Location loc = slice->getLoc();
      FailureOr<Value> v = buildOnnxOp(b, loc, "Min", {n, i64Scalar(b, loc, end)});
      if (succeeded(v) && start > 0) {
        v = buildOnnxOp(b, loc, "Sub", {*v, i64Scalar(b, loc, start)});
        if (succeeded(v))
          v = buildOnnxOp(b, loc, "Max", {*v, i64Scalar(b, loc, 0)});
      }
      return size = succeeded(v) ? *v : Value();
    };
    DenseMap<Value, DataDependentDims> given;
    if (failed(giveSizesToReaders(func, sliceExtent, given)))
      return signalPassFailure();
    DataDependentDimsAnalysis dims(func, sliceExtent, &given);
    if (Operation *op = dims.refuser()) {
      emitError(op->getLoc()) << dims.refusal();
      return signalPassFailure();
    }
    if (!dims.any())
      return updateFunctionResultTypes(func);
    if (failed(giveOutputsTheirSizes(func, dims)))
      return signalPassFailure();
  }

  /// A graph output that is TopK's own result keeps the bound's rows; where
  /// its axis comes after dims larger than 1 it is packed here.
  static LogicalResult packTopK(OpBuilder &b, func::ReturnOp ret, int64_t at,
                                DictionaryAttr entry) {
    Value v = ret.getOperand(at);
    auto topk = v.getDefiningOp<onnx::TopKOp>();
    if (!topk)
      return success();
    int64_t dim = entry.getAs<IntegerAttr>("extent_dim").getInt();
    if (llvm::all_of(shapeOf(v).take_front(dim), [](int64_t s) { return s == 1; }))
      return success();
    auto packed = packPastExtent(b, v.getLoc(), v, dim, topk.getExtent());
    if (failed(packed))
      return failure();
    ret.setOperand(at, *packed);
    return success();
  }

  /// Each graph output that carries a size the data decides gets it as an
  /// extent result (onnx.outputs' "extent"/"extent_dim", as the importer
  /// writes for NonZero's own), and zeros past it.
  LogicalResult giveOutputsTheirSizes(func::FuncOp func, const DataDependentDimsAnalysis &dims) {
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    MLIRContext *ctx = func.getContext();
    Builder attrs(ctx);
    SmallVector<Attribute> entries;
    if (auto outs = func->getAttrOfType<ArrayAttr>("onnx.outputs")) {
      entries.assign(outs.begin(), outs.end());
    } else {
      for (unsigned i = 0; i < ret.getNumOperands(); ++i)
        entries.push_back(attrs.getDictionaryAttr(
            {attrs.getNamedAttr("name", func.getResultAttr(i, "onnx.name")),
             attrs.getNamedAttr("kind", attrs.getStringAttr("tensor")),
             attrs.getNamedAttr("count", attrs.getI64IntegerAttr(1)),
             attrs.getNamedAttr("present", attrs.getBoolAttr(true))}));
    }
    OpBuilder b(ret);
    int64_t first = 0;
    for (Attribute &a : entries) {
      auto entry = cast<DictionaryAttr>(a);
      int64_t count = entry.getAs<IntegerAttr>("count").getInt();
      int64_t at = first;
      first += count;
      if (entry.getAs<StringAttr>("kind").getValue() != "tensor" || count != 1)
        continue;
      Value v = ret.getOperand(at);
      if (entry.get("extent")) { // the importer's: an op's own result
        if (failed(packTopK(b, ret, at, entry)))
          return failure();
        continue;
      }
      ArrayRef<DataDependentDim> d = dims.dimsOf(v);
      if (d.empty())
        continue;
      std::string name = entry.getAs<StringAttr>("name").str();
      if (d.size() > 1)
        return ret.emitError() << "graph output '" << name
                               << "' has more than one dim whose size the data decides "
                                  "(not supported)";
      // NonZero, Unique, NonMaxSuppression and StringNormalizer write their
      // results packed; TopK's, like every value carried through other ops,
      // keep the bound's rows.
      auto producer = v.getDefiningOp<onnx::DataDependentShape>();
      bool packed = producer && !isa<onnx::TopKOp>(producer.getOperation()) &&
                    producer.dataDependentDim(cast<OpResult>(v).getResultNumber()) >= 0;
      if (!packed) {
        // Rows on the bound are the packed tensor only when nothing comes before them.
        bool leading =
            llvm::all_of(shapeOf(v).take_front(d[0].dim), [](int64_t s) { return s == 1; });
        if (!leading && !isa<IntegerType, FloatType>(getElementTypeOrSelf(v.getType())))
          return ret.emitError()
                 << "graph output '" << name << "': its dim " << d[0].dim
                 << ", whose size the data decides, comes after dims larger than 1 "
                 << "(packed only for numbers; not supported)";
        auto fixed = leading ? zeroPastExtent(b, v.getLoc(), v, d[0].dim, d[0].extent)
                             : packPastExtent(b, v.getLoc(), v, d[0].dim, d[0].extent);
        if (failed(fixed))
          return failure();
        ret.setOperand(at, *fixed);
      }
      unsigned index = ret.getNumOperands();
      for (unsigned i = 0; i < ret.getNumOperands(); ++i)
        if (ret.getOperand(i) == d[0].extent)
          index = i;
      if (index == ret.getNumOperands()) {
        ret->insertOperands(index, d[0].extent);
        func.insertResult(index, d[0].extent.getType(),
                          attrs.getDictionaryAttr({attrs.getNamedAttr(
                              "onnx.name", attrs.getStringAttr(name + ".extent"))}));
      }
      NamedAttrList e(entry);
      e.set("extent", attrs.getI64IntegerAttr(index));
      e.set("extent_dim", attrs.getI64IntegerAttr(d[0].dim));
      a = e.getDictionary(ctx);
    }
    func->setAttr("onnx.outputs", attrs.getArrayAttr(entries));
    updateFunctionResultTypes(func);
    return success();
  }
};

} // namespace
} // namespace onnxc
