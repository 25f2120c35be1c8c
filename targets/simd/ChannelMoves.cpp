//===- ChannelMoves.cpp - recognising channel shuffles, slices and splits -===//
#include "ChannelMoves.h"

#include "onnxc/Passes/PassUtils.h"

#include <algorithm>

using namespace mlir;
using namespace onnxc::onnx;

namespace onnxc::simd {

namespace {
RankedTensorType staticOf(Value v, int64_t rank, bool (*element)(Type)) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() && t.getRank() == rank && element(t.getElementType()) ? t
                                                                                       : nullptr;
}

/// Whether two 4-D tensors differ in their channels alone (N, H, W equal).
bool sameImages(RankedTensorType a, RankedTensorType b) {
  return a.getDimSize(0) == b.getDimSize(0) && a.getDimSize(2) == b.getDimSize(2) &&
         a.getDimSize(3) == b.getDimSize(3);
}
} // namespace

RankedTensorType staticF32(Value v, int64_t rank) {
  return staticOf(v, rank, [](Type t) { return t.isF32(); });
}

RankedTensorType staticBytes(Value v, int64_t rank) {
  return staticOf(v, rank, [](Type t) { return t.isInteger(8); });
}

bool isGatherableConcat(ConcatOp cat, TensorFilter typed) {
  return typed(cat.getResult(), 4) && isChannelAxis(cat.getAxis()) &&
         cat.getInputs().size() <= 2u &&
         llvm::all_of(cat.getInputs(), [&](Value v) { return typed(v, 4); });
}

std::optional<ChannelShuffle> matchChannelShuffle(ConcatOp cat, TensorFilter typed) {
  if (!isGatherableConcat(cat, typed) || !cat.getResult().hasOneUse())
    return std::nullopt;
  auto ct = typed(cat.getResult(), 4);
  auto split = dyn_cast<ReshapeOp>(*cat.getResult().getUsers().begin());
  if (!split || split.getData() != cat.getResult() || !split.getReshaped().hasOneUse())
    return std::nullopt;
  auto st = typed(split.getReshaped(), 5);
  auto swap = dyn_cast<TransposeOp>(*split.getReshaped().getUsers().begin());
  if (!st || !swap || !swap.getPerm() || *swap.getPerm() != ArrayRef<int64_t>{0, 2, 1, 3, 4} ||
      !swap.getTransposed().hasOneUse())
    return std::nullopt;
  auto merge = dyn_cast<ReshapeOp>(*swap.getTransposed().getUsers().begin());
  if (!merge || merge.getData() != swap.getTransposed() || merge.getReshaped().getType() != ct)
    return std::nullopt;
  const int64_t c = ct.getDimSize(1), g = st.getDimSize(1);
  if (g < 1 || c % g ||
      st.getShape() !=
          ArrayRef<int64_t>{ct.getDimSize(0), g, c / g, ct.getDimSize(2), ct.getDimSize(3)})
    return std::nullopt;
  ChannelShuffle shuffle{split, swap, merge, SmallVector<int64_t>(c)};
  for (int64_t i = 0; i < c / g; ++i)
    for (int64_t k = 0; k < g; ++k)
      shuffle.from[i * g + k] = k * (c / g) + i;
  return shuffle;
}

std::optional<ChannelRun> channelRunOfSlice(SliceOp slice, TensorFilter typed) {
  auto xt = typed(slice.getData(), 4), yt = typed(slice.getOutput(), 4);
  auto starts = getConstantInts(slice.getStarts());
  std::optional<SmallVector<int64_t>> axes = SmallVector<int64_t>{0, 1, 2, 3};
  if (!isNone(slice.getAxes()))
    axes = getConstantInts(slice.getAxes());
  if (!xt || !yt || !starts || !axes || axes->size() != starts->size())
    return std::nullopt;
  if (!isNone(slice.getSteps())) {
    auto steps = getConstantInts(slice.getSteps());
    if (!steps || llvm::any_of(*steps, [](int64_t s) { return s != 1; }))
      return std::nullopt;
  }
  int64_t first = 0;
  for (auto [axis, start] : llvm::zip(*axes, *starts)) {
    const int64_t a = axis < 0 ? axis + 4 : axis;
    if (a < 0 || a > 3)
      return std::nullopt;
    const int64_t dim = xt.getDimSize(a);
    const int64_t from = std::clamp<int64_t>(start < 0 ? start + dim : start, 0, dim);
    if (a == 1)
      first = from;
    else if (from != 0) // with step 1 and an equal dim: the whole axis
      return std::nullopt;
  }
  if (!sameImages(xt, yt))
    return std::nullopt;
  const int64_t m = yt.getDimSize(1);
  if (m < 1 || first + m > xt.getDimSize(1))
    return std::nullopt;
  return ChannelRun{first, m};
}

std::optional<SmallVector<ChannelRun>> channelRunsOfSplit(SplitOp split, TensorFilter typed) {
  auto xt = typed(split.getInput(), 4);
  if (!xt || !isChannelAxis(split.getAxis()))
    return std::nullopt;
  SmallVector<ChannelRun> runs;
  int64_t first = 0;
  for (Value out : split.getOutputs()) {
    auto t = typed(out, 4);
    if (!t || t.getDimSize(1) < 1 || !sameImages(t, xt))
      return std::nullopt;
    runs.push_back({first, t.getDimSize(1)});
    first += t.getDimSize(1);
  }
  if (first != xt.getDimSize(1))
    return std::nullopt;
  return runs;
}

} // namespace onnxc::simd
