//===- Domain.cpp - recurrent, signal, text, string and detection ops ===//
//
// RNN/GRU/LSTM (rnn.h), DFT/STFT/windows (signal.h), TfIdf (text.h),
// StringNormalizer (strings.h) and NonMaxSuppression (detection.h).
//
//===----------------------------------------------------------------------===//
#include "Families.h"

#include "onnxc/Lowering/CallBuilders.h"
#include "onnxc_rt/kernels/reference/detection.h"
#include "onnxc_rt/kernels/reference/strings.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace onnxc::onnx;
using namespace onnxc::lowering;

namespace onnxc::reference {
namespace {

/// Arena bytes for the text an op makes from its input strings, per input
/// string (StringNormalizer's case change): the run returns
/// ONNXC_STATUS_STRING_SPACE when the strings need more.
constexpr int64_t kTextBytesPerString = 64;

FailureOr<OpLowering> lowerRecurrent(Operation *op, std::string t, bool isLstm) {
  Value x = op->getOperand(0);
  auto xs = shapeOf(x), ws = shapeOf(op->getOperand(1));
  auto layoutAttr = op->getAttrOfType<IntegerAttr>("layout");
  int64_t layout = layoutAttr ? layoutAttr.getInt() : 0;
  int64_t seq = xs[layout ? 1 : 0], batch = xs[layout ? 0 : 1], input = xs[2];
  const bool isRnn = isa<RNNOp>(op);
  int64_t hidden = ws[1] / (isLstm ? 4 : isRnn ? 1 : 3);
  StringRef dir = op->getAttrOfType<StringAttr>("direction")
                      ? op->getAttrOfType<StringAttr>("direction").getValue()
                      : "forward";
  int64_t direction = dir == "reverse" ? 1 : dir == "bidirectional" ? 2 : 0;
  float clip = floatAttr(op, "clip", 0.f);
  Value seqLens = op->getOperand(4);
  std::string lensType = isNone(seqLens) ? "int32_t" : cppTypeName(eltOf(seqLens));
  std::vector<KernelArg> args{KernelArg::input(x), KernelArg::input(op->getOperand(1)),
                              KernelArg::input(op->getOperand(2)),
                              inputOrNull(op->getOperand(3)), inputOrNull(seqLens),
                              inputOrNull(op->getOperand(5))};
  if (isLstm) {
    args.push_back(inputOrNull(op->getOperand(6)));
    args.push_back(inputOrNull(op->getOperand(7)));
  }
  for (Value r : op->getResults())
    args.push_back(outputOrNull(r));
  for (int64_t v : {seq, batch, input, hidden, direction, layout})
    args.push_back(KernelArg::i(v));
  args.push_back(KernelArg::f(clip));
  if (!isLstm && !isRnn) {
    auto lbr = op->getAttrOfType<IntegerAttr>("linear_before_reset");
    args.push_back(KernelArg::i(lbr ? lbr.getInt() : 0));
  }
  args.push_back(KernelArg::scratch((isRnn ? 2 : 6) * hidden * (t == "double" ? 8 : 4), t));
  return calls({call(isLstm ? "lstm" : isRnn ? "rnn" : "gru", {t, lensType}, kRnn,
                     std::move(args))});
}

} // namespace

ProviderResult lowerDomain(Operation *op, const std::string &t) {
  return TypeSwitch<Operation *, ProviderResult>(op)
      .Case<LSTMOp>([&](Operation *o) { return lowerRecurrent(o, t, true); })
      .Case<GRUOp, RNNOp>([&](Operation *o) { return lowerRecurrent(o, t, false); })
      .Case<HannWindowOp, HammingWindowOp, BlackmanWindowOp>([&](Operation *o) {
        auto p = o->getAttrOfType<IntegerAttr>("periodic");
        int64_t kind = isa<HannWindowOp>(o) ? 0 : isa<HammingWindowOp>(o) ? 1 : 2;
        return calls({call("window", {cppTypeName(eltOf(o->getResult(0)))}, kElementwise,
                           {KernelArg::output(o->getResult(0)), KernelArg::i(numel(o->getResult(0))),
                            KernelArg::i(kind), KernelArg::i(p ? p.getInt() : 1)})});
      })
      .Case<StringNormalizerOp>([&](StringNormalizerOp o) {
        std::vector<std::string> stopwords;
        if (auto w = o.getStopwords())
          for (Attribute a : *w)
            stopwords.push_back(cast<StringAttr>(a).str());
        StringRef action = o.getCaseChangeAction();
        int64_t n = numel(o.getX()), change = action == "LOWER" ? 1 : action == "UPPER" ? 2 : 0;
        int64_t textBytes = change ? n * kTextBytesPerString : 0;
        std::vector<KernelArg> args = {
            KernelArg::input(o.getX()), KernelArg::output(o.getY()),
            KernelArg::output(o.getExtent()), KernelArg::i(n),
            KernelArg::stringArray(stopwords), KernelArg::i(stopwords.size()),
            KernelArg::i(o.getIsCaseSensitive()), KernelArg::i(change),
            textBytes ? KernelArg::text(textBytes) : KernelArg::null(), KernelArg::i(textBytes),
            KernelArg::status()};
        return calls({call("string_normalizer", {}, kStrings, std::move(args))});
      })
      .Case<NonMaxSuppressionOp>([&](NonMaxSuppressionOp o) -> FailureOr<OpLowering> {
        if (!eltOf(o.getBoxes()).isF32() || !eltOf(o.getScores()).isF32())
          return unsupported(o, "boxes and scores other than float are not supported");
        auto ss = shapeOf(o.getScores());
        return calls({call("non_max_suppression", {}, kDetection,
                           {KernelArg::input(o.getBoxes()), KernelArg::input(o.getScores()),
                            inputOrNull(o.getMaxOutputBoxesPerClass()),
                            inputOrNull(o.getIouThreshold()), inputOrNull(o.getScoreThreshold()),
                            KernelArg::output(o.getSelectedIndices()),
                            KernelArg::output(o.getExtent()), KernelArg::i(ss[0]),
                            KernelArg::i(ss[1]), KernelArg::i(ss[2]),
                            KernelArg::i(o.getCenterPointBox()),
                            KernelArg::i(shapeOf(o.getSelectedIndices())[0]),
                            KernelArg::scratch(onnxc_rt::ref::kNmsScratchPerBox *
                                                  std::max<int64_t>(ss[2], 1) * 8,
                                              "int64_t"),
                            inputOrNull(o.getN())})});
      })
      .Case<DFTOp>([&](DFTOp o) {
        auto xs = shapeOf(o.getInput()), ys = shapeOf(o.getOutput());
        int64_t axis = static_cast<int64_t>(o.getAxis());
        if (axis < 0)
          axis += xs.size() - 1;
        int64_t nOut = ys[axis];
        int64_t nFft = o.getOnesided() ? 2 * (nOut - 1) : nOut;
        if (!isNone(o.getDftLength()))
          nFft = (*getConstantInts(o.getDftLength()))[0];
        else
          nFft = xs[axis];
        return calls({call("dft", {t}, kSignal,
                           {KernelArg::input(o.getInput()), KernelArg::output(o.getOutput()),
                            KernelArg::i(prod(xs.take_front(axis))), KernelArg::i(xs[axis]),
                            KernelArg::i(prod(xs.drop_front(axis + 1).drop_back())),
                            KernelArg::i(xs.back()), KernelArg::i(nFft), KernelArg::i(nOut),
                            KernelArg::i(o.getInverse())})});
      })
      .Case<STFTOp>([&](STFTOp o) -> FailureOr<OpLowering> {
        auto xs = shapeOf(o.getSignal()), ys = shapeOf(o.getOutput());
        auto step = getConstantInts(o.getFrameStep());
        int64_t length = !isNone(o.getFrameLength()) ? (*getConstantInts(o.getFrameLength()))[0]
                                                      : shapeOf(o.getWindow())[0];
        return calls({call("stft", {t}, kSignal,
                           {KernelArg::input(o.getSignal()), inputOrNull(o.getWindow()),
                            KernelArg::output(o.getOutput()), KernelArg::i(xs[0]),
                            KernelArg::i(xs[1]), KernelArg::i(xs[2]), KernelArg::i((*step)[0]),
                            KernelArg::i(length), KernelArg::i(ys[1]), KernelArg::i(ys[2])})});
      })
      .Case<MelWeightMatrixOp>([&](MelWeightMatrixOp o) -> FailureOr<OpLowering> {
        auto ys = shapeOf(o.getOutput());
        int64_t dftLen = (*getConstantInts(o.getDftLength()))[0];
        return calls({call("mel_weight_matrix",
                           {cppTypeName(eltOf(o.getOutput())), cppTypeName(eltOf(o.getSampleRate())),
                            cppTypeName(eltOf(o.getLowerEdgeHertz()))},
                           kSignal,
                           {KernelArg::output(o.getOutput()), KernelArg::i(ys[1]),
                            KernelArg::i(dftLen), KernelArg::input(o.getSampleRate()),
                            KernelArg::input(o.getLowerEdgeHertz()),
                            KernelArg::input(o.getUpperEdgeHertz()),
                            KernelArg::scratch((ys[1] + 2) * 8, "int64_t")})});
      })
      .Case<TfIdfVectorizerOp>([&](TfIdfVectorizerOp o) -> FailureOr<OpLowering> {
        if (!o.getPoolInt64s())
          return unsupported(o, "string pools are not supported");
        StringRef mode = o.getMode();
        auto xs = shapeOf(o.getX());
        int64_t rows = xs.size() == 2 ? xs[0] : 1, cols = xs.back();
        ArrayRef<int64_t> pool = *o.getPoolInt64s();
        SmallVector<double> weights;
        if (auto w = o.getWeights())
          for (float v : *w)
            weights.push_back(v);
        // The tables as constant data (weights blob): a pool may hold
        // thousands of grams, and a GPU kernel reads them from its memory.
        MLIRContext *ctx = o.getContext();
        return calls({call("tfidf", {t}, kText,
                           {KernelArg::input(o.getX()), KernelArg::output(o.getY()),
                            KernelArg::i(rows), KernelArg::i(cols),
                            KernelArg::i(o.getMinGramLength()), KernelArg::i(o.getMaxGramLength()),
                            KernelArg::i(o.getMaxSkipCount()), packedInt64s(ctx, pool),
                            KernelArg::i(pool.size()), packedInt64s(ctx, o.getNgramCounts()),
                            KernelArg::i(o.getNgramCounts().size()),
                            packedInt64s(ctx, o.getNgramIndexes()),
                            KernelArg::i(o.getNgramIndexes().size()), packedDoubles(ctx, weights),
                            KernelArg::i(shapeOf(o.getY()).back()),
                            KernelArg::i(mode == "TF" ? 0 : mode == "IDF" ? 1 : 2)})});
      })
      .Default([](Operation *) -> ProviderResult { return std::nullopt; });
}

} // namespace onnxc::reference
