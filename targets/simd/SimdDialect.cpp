//===- SimdDialect.cpp - the simd dialect's ops: shapes and verifiers ------===//
#include "SimdDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace onnxc::onnx;

#include "targets/simd/SimdDialect.cpp.inc"
#include "targets/simd/SimdEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "targets/simd/SimdAttrDefs.cpp.inc"

namespace onnxc::simd {

/// The element type of a shaped value (the result keeps it when its shape
/// is not known yet).
static Type elementTypeOf(Value v) { return cast<ShapedType>(v.getType()).getElementType(); }

void SimdDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "targets/simd/SimdAttrDefs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "targets/simd/SimdOps.cpp.inc"
      >();
}


/// A blocked tensor's type for logical NCHW dims (n, c, h, w).
static void setBlockedResult(Operation *op, int64_t n, int64_t c, int64_t h, int64_t w,
                             Type elt) {
  setResultType(op, 0, {n, (c + kBlockLanes - 1) / kBlockLanes, h, w, kBlockLanes}, elt);
}

/// A static rank-5 (N, C/16, H, W, 16) type, or null.
static RankedTensorType staticBlocked(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() && t.getRank() == 5 && t.getDimSize(4) == kBlockLanes ? t : nullptr;
}

LogicalResult ToBlockedOp::inferShapes() {
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  if (!x || !x.hasStaticShape() || x.getRank() != 4) {
    getY().setType(UnrankedTensorType::get(elementTypeOf(getX())));
    return success();
  }
  setBlockedResult(getOperation(), x.getDimSize(0), x.getDimSize(1), x.getDimSize(2),
                   x.getDimSize(3), x.getElementType());
  return success();
}

LogicalResult FromBlockedOp::inferShapes() {
  auto x = staticBlocked(getX());
  if (!x) {
    getY().setType(UnrankedTensorType::get(elementTypeOf(getX())));
    return success();
  }
  const int64_t channels = static_cast<int64_t>(getChannels());
  if (channels <= (x.getDimSize(1) - 1) * kBlockLanes || channels > x.getDimSize(1) * kBlockLanes)
    return emitOpError() << channels << " channels do not fill " << x.getDimSize(1)
                         << " blocks";
  setResultType(getOperation(), 0,
                {x.getDimSize(0), channels, x.getDimSize(2), x.getDimSize(3)},
                x.getElementType());
  return success();
}

/// A blocked convolution's result (BlockedConv, BlockedExpandDepthwise,
/// BlockedScaledConv, BlockedInvertedResidual): the window of weights `w`
/// (M, C/group, kH, kW) over X, M channels blocked, or the channels of
/// `channels_of` (weights (P, ...): a projection after the window) where
/// given; unranked until X's and the weights' shapes are known.
static LogicalResult inferBlockedConvShape(Operation *op, Value x, Value w,
                                           Value channels_of = Value()) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  auto wt = dyn_cast<RankedTensorType>(w.getType());
  auto ct = dyn_cast<RankedTensorType>((channels_of ? channels_of : w).getType());
  if (!xt || !xt.hasStaticShape() || !wt || !wt.hasStaticShape() || wt.getRank() != 4 || !ct ||
      !ct.hasStaticShape()) {
    op->getResult(0).setType(UnrankedTensorType::get(elementTypeOf(x)));
    return success();
  }
  SmallVector<int64_t> kernel(wt.getShape().drop_front(2));
  auto g = resolveWindow(op, xt.getShape().slice(2, 2), kernel, false);
  if (failed(g))
    return failure();
  setBlockedResult(op, xt.getDimSize(0), ct.getDimSize(0), g->outSpatial[0], g->outSpatial[1],
                   xt.getElementType());
  return success();
}

/// A blocked convolution's residual Z (none, or the result's type once
/// that is known).
static LogicalResult verifyResidual(Operation *op, Value z, Value y) {
  if (isNone(z) || z.getType() == y.getType() || !isa<RankedTensorType>(y.getType()))
    return success();
  return op->emitOpError() << "Z " << z.getType() << " must have the result's type "
                           << y.getType();
}

LogicalResult BlockedConvOp::inferShapes() {
  return inferBlockedConvShape(getOperation(), getX(), getW());
}

LogicalResult BlockedConvOp::verify() {
  if (!isFusedActivation(getContext(), getActivation()))
    return emitOpError() << "unknown activation '" << getActivation() << "'";
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  auto w = dyn_cast<RankedTensorType>(getW().getType());
  if (!x || !w || !w.hasStaticShape())
    return success();
  if (x.getRank() != 4 && !staticBlocked(getX()))
    return emitOpError() << "X " << x << " is neither NCHW nor channel-blocked";
  const int64_t group = static_cast<int64_t>(getGroup());
  const int64_t c = w.getDimSize(1) * group;
  if (group != 1 && (w.getDimSize(1) != 1 || w.getDimSize(0) != group))
    return emitOpError("group must be 1 or the channel count (depthwise)");
  const int64_t xc = x.getRank() == 4 ? x.getDimSize(1) : x.getDimSize(1) * kBlockLanes;
  if (x.hasStaticShape() && (x.getRank() == 4 ? xc != c : (c + kBlockLanes - 1) / kBlockLanes * kBlockLanes != xc))
    return emitOpError() << "X " << x << " does not hold the weights' " << c << " channels";
  if (failed(verifyResidual(getOperation(), getZ(), getY())))
    return failure();
  if (getAlgorithm() != ConvAlgorithm::direct) {
    if (x.getRank() != 5 || getGroup() != 1 || w.getDimSize(2) != 3 || w.getDimSize(3) != 3 ||
        !allOrAbsent(getStrides(), 1) || !allOrAbsent(getDilations(), 1))
      return emitOpError("winograd needs a blocked input and a 3x3, stride-1, undilated, "
                         "group-1 convolution");
  }
  return success();
}

LogicalResult BlockedExpandDepthwiseOp::inferShapes() {
  return inferBlockedConvShape(getOperation(), getX(), getWD());
}

/// The expand and depthwise halves of a fused block (BlockedExpandDepthwise,
/// BlockedInvertedResidual): a blocked X, pointwise WE (M, C, 1, 1) over
/// X's channels, depthwise WD (M, 1, kH, kW); the count of expanded
/// channels M, or 0 while a shape is unknown.
static FailureOr<int64_t> verifyExpandDepthwise(Operation *op, Value xv, Value wev, Value wdv) {
  auto x = dyn_cast<RankedTensorType>(xv.getType());
  auto we = dyn_cast<RankedTensorType>(wev.getType());
  auto wd = dyn_cast<RankedTensorType>(wdv.getType());
  if (!x || !we || !wd || !we.hasStaticShape() || !wd.hasStaticShape())
    return 0;
  if (!staticBlocked(xv))
    return op->emitOpError() << "X " << x << " is not channel-blocked";
  if (we.getRank() != 4 || we.getDimSize(2) != 1 || we.getDimSize(3) != 1)
    return op->emitOpError() << "WE " << we << " is not a pointwise convolution's";
  const int64_t m = we.getDimSize(0);
  if (wd.getRank() != 4 || wd.getDimSize(0) != m || wd.getDimSize(1) != 1)
    return op->emitOpError() << "WD " << wd << " is not the depthwise weights of " << m
                             << " expanded channels";
  const int64_t c = we.getDimSize(1);
  if ((c + kBlockLanes - 1) / kBlockLanes != x.getDimSize(1))
    return op->emitOpError() << "X " << x << " does not hold the weights' " << c
                             << " channels";
  return m;
}

LogicalResult BlockedExpandDepthwiseOp::verify() {
  for (StringRef act : {getExpandActivation(), getActivation()})
    if (!isFusedActivation(getContext(), act))
      return emitOpError() << "unknown activation '" << act << "'";
  if (failed(verifyExpandDepthwise(getOperation(), getX(), getWE(), getWD())))
    return failure();
  return verifyResidual(getOperation(), getZ(), getY());
}

LogicalResult BlockedInvertedResidualOp::inferShapes() {
  return inferBlockedConvShape(getOperation(), getX(), getWD(), getWP());
}

LogicalResult BlockedInvertedResidualOp::verify() {
  for (StringRef act : {getExpandActivation(), getDepthwiseActivation(), getActivation()})
    if (!isFusedActivation(getContext(), act))
      return emitOpError() << "unknown activation '" << act << "'";
  FailureOr<int64_t> m = 0;
  if (!isNone(getWE())) {
    m = verifyExpandDepthwise(getOperation(), getX(), getWE(), getWD());
  } else if (auto wd = dyn_cast<RankedTensorType>(getWD().getType());
             wd && wd.hasStaticShape() && staticBlocked(getX())) {
    // No expand: the depthwise convolution's channels are X's.
    m = wd.getDimSize(0);
    auto x = cast<RankedTensorType>(getX().getType());
    if (wd.getRank() != 4 || wd.getDimSize(1) != 1 ||
        (*m + kBlockLanes - 1) / kBlockLanes != x.getDimSize(1))
      return emitOpError() << "WD " << wd << " is not the depthwise weights of X " << x;
  }
  if (failed(m))
    return failure();
  auto wp = dyn_cast<RankedTensorType>(getWP().getType());
  if (*m && wp && wp.hasStaticShape() &&
      (wp.getRank() != 4 || wp.getDimSize(1) != *m || wp.getDimSize(2) != 1 ||
       wp.getDimSize(3) != 1))
    return emitOpError() << "WP " << wp << " is not a pointwise convolution's of " << *m
                         << " expanded channels";
  return verifyResidual(getOperation(), getZ(), getY());
}

LogicalResult BlockedScaledConvOp::inferShapes() {
  return inferBlockedConvShape(getOperation(), getX(), getW());
}

LogicalResult BlockedScaledConvOp::verify() {
  if (!isFusedActivation(getContext(), getActivation()))
    return emitOpError() << "unknown activation '" << getActivation() << "'";
  auto x = staticBlocked(getX()), s = staticBlocked(getS());
  auto w = dyn_cast<RankedTensorType>(getW().getType());
  if (!x || !s || !w || !w.hasStaticShape())
    return success();
  if (w.getRank() != 4 || w.getDimSize(2) != 1 || w.getDimSize(3) != 1)
    return emitOpError() << "W " << w << " is not a pointwise convolution's";
  if ((w.getDimSize(1) + kBlockLanes - 1) / kBlockLanes != x.getDimSize(1))
    return emitOpError() << "X " << x << " does not hold the weights' " << w.getDimSize(1)
                         << " channels";
  if (s.getDimSize(0) != x.getDimSize(0) || s.getDimSize(1) != x.getDimSize(1) ||
      s.getDimSize(2) != 1 || s.getDimSize(3) != 1)
    return emitOpError() << "S " << s << " is not one scale per image and channel of X " << x;
  if (failed(verifyResidual(getOperation(), getZ(), getY())))
    return failure();
  return success();
}

LogicalResult BlockedPoolOp::inferShapes() {
  auto x = staticBlocked(getX());
  if (!x) {
    getY().setType(UnrankedTensorType::get(elementTypeOf(getX())));
    return success();
  }
  SmallVector<int64_t> out(x.getShape());
  if (getMode() == PoolMode::global_average) {
    out[2] = out[3] = 1;
  } else {
    auto kernel = getKernelShape();
    if (!kernel || kernel->size() != 2)
      return emitOpError("needs a 2-D kernel_shape");
    auto g = resolveWindow(getOperation(), x.getShape().slice(2, 2), *kernel, getCeilMode());
    if (failed(g))
      return failure();
    out[2] = g->outSpatial[0];
    out[3] = g->outSpatial[1];
  }
  setResultType(getOperation(), 0, out, x.getElementType());
  return success();
}

/// A channel gather's first input as `type` takes it (static, its layout),
/// or null after giving the result an unranked type of its elements (not
/// known yet).
static RankedTensorType gatherInput(Operation *op, ValueRange inputs,
                                    RankedTensorType (*type)(Value)) {
  auto x = inputs.empty() ? nullptr : type(inputs.front());
  if (!x)
    op->getResult(0).setType(UnrankedTensorType::get(
        inputs.empty() ? Float32Type::get(op->getContext()) : elementTypeOf(inputs.front())));
  return x;
}

LogicalResult BlockedChannelGatherOp::inferShapes() {
  auto x = gatherInput(getOperation(), getX(), staticBlocked);
  if (!x)
    return success();
  setBlockedResult(getOperation(), x.getDimSize(0), static_cast<int64_t>(getChannels().size()),
                   x.getDimSize(2), x.getDimSize(3), x.getElementType());
  return success();
}

/// The checks both channel gathers share: one or two inputs (their kernels
/// read no more), `in_channels` one per input, each input of static `type`
/// (null: not known yet) holding its channels with the same N, H and W
/// (dims 0, 2, 3 of either layout), and `channels` picks among them.
static LogicalResult verifyChannelGather(Operation *op, ValueRange inputs,
                                         ArrayRef<int64_t> inChannels, ArrayRef<int64_t> channels,
                                         function_ref<RankedTensorType(Value)> type,
                                         function_ref<bool(RankedTensorType, int64_t)> holds) {
  if (inputs.empty() || inputs.size() > 2)
    return op->emitOpError() << "takes one or two inputs, not " << inputs.size();
  if (inChannels.size() != inputs.size())
    return op->emitOpError() << inChannels.size() << " in_channels for " << inputs.size()
                             << " inputs";
  if (channels.empty())
    return op->emitOpError("picks no channels");
  int64_t total = 0;
  RankedTensorType first;
  for (auto [v, c] : llvm::zip(inputs, inChannels)) {
    auto x = type(v);
    if (!x)
      return success();
    if (c <= 0 || !holds(x, c))
      return op->emitOpError() << "input " << x << " does not hold " << c << " channels";
    if (first && (x.getDimSize(0) != first.getDimSize(0) ||
                  x.getDimSize(2) != first.getDimSize(2) || x.getDimSize(3) != first.getDimSize(3)))
      return op->emitOpError() << "inputs " << first << " and " << x << " differ in N, H or W";
    first = first ? first : x;
    total += c;
  }
  for (int64_t j : channels)
    if (j < 0 || j >= total)
      return op->emitOpError() << "channel " << j << " is not one of the inputs' " << total;
  return success();
}

LogicalResult BlockedChannelGatherOp::verify() {
  // The kernel: simd/f32/channel_gather.h.
  return verifyChannelGather(
      getOperation(), getX(), getInChannels(), getChannels(), staticBlocked,
      [](RankedTensorType x, int64_t c) {
        return (c + kBlockLanes - 1) / kBlockLanes == x.getDimSize(1);
      });
}

/// A static 4-D (NCHW) type, or null.
static RankedTensorType staticNchw(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() && t.getRank() == 4 ? t : nullptr;
}

LogicalResult ChannelGatherOp::inferShapes() {
  auto x = gatherInput(getOperation(), getX(), staticNchw);
  if (!x)
    return success();
  setResultType(getOperation(), 0,
                {x.getDimSize(0), static_cast<int64_t>(getChannels().size()), x.getDimSize(2),
                 x.getDimSize(3)},
                x.getElementType());
  return success();
}

LogicalResult ChannelGatherOp::verify() {
  // The kernel: simd/qs8/channel_gather.h (bytes, tables of 256 of them).
  for (Value v : getX())
    if (auto t = staticNchw(v); t && t.getElementType().getIntOrFloatBitWidth() != 8)
      return emitOpError() << "gathers bytes, not " << t.getElementType();
  if (auto tables = getTables()) {
    if (tables->size() != getX().size())
      return emitOpError() << tables->size() << " tables for " << getX().size() << " inputs";
    for (auto [a, x] : llvm::zip(*tables, getX())) {
      auto table = dyn_cast<DenseElementsAttr>(a);
      if (!isa<UnitAttr>(a) && (!table || table.getNumElements() != 256 ||
                                table.getElementType() != elementTypeOf(x)))
        return emitOpError() << "table " << a << " is not 256 of its input's values, or unit";
    }
  }
  return verifyChannelGather(getOperation(), getX(), getInChannels(), getChannels(), staticNchw,
                             [](RankedTensorType x, int64_t c) { return c == x.getDimSize(1); });
}

int64_t BlockedConvOp::flops() {
  // The logical output: N x M x OH x OW (the blocked one has padding lanes).
  auto y = dyn_cast<ShapedType>(getY().getType());
  auto w = dyn_cast<ShapedType>(getW().getType());
  if (!y || !y.hasStaticShape() || !w || !w.hasStaticShape())
    return 0;
  const int64_t outputs = y.getDimSize(0) * w.getDimSize(0) * y.getDimSize(2) * y.getDimSize(3);
  return fusedConvFlops(outputs, getW(), getB(), getZ(), getActivation());
}

int64_t BlockedScaledConvOp::flops() {
  // The convolution's logical output, plus the scaling of the weights (N x M x C).
  auto y = dyn_cast<ShapedType>(getY().getType());
  auto w = dyn_cast<ShapedType>(getW().getType());
  if (!y || !y.hasStaticShape() || !w || !w.hasStaticShape())
    return 0;
  const int64_t n = y.getDimSize(0), m = w.getDimSize(0);
  return fusedConvFlops(n * m * y.getDimSize(2) * y.getDimSize(3), getW(), getB(), getZ(),
                        getActivation()) +
         n * m * w.getDimSize(1);
}

int64_t BlockedExpandDepthwiseOp::flops() {
  // Both convolutions' logical outputs (M x H x W expanded, M x OH x OW).
  auto x = dyn_cast<ShapedType>(getX().getType());
  auto y = dyn_cast<ShapedType>(getY().getType());
  auto we = dyn_cast<ShapedType>(getWE().getType());
  if (!x || !x.hasStaticShape() || !y || !y.hasStaticShape() || !we || !we.hasStaticShape())
    return 0;
  const int64_t m = we.getDimSize(0), n = x.getDimSize(0);
  return fusedConvFlops(n * m * x.getDimSize(2) * x.getDimSize(3), getWE(), getBE(), Value(),
                        getExpandActivation()) +
         fusedConvFlops(n * m * y.getDimSize(2) * y.getDimSize(3), getWD(), getBD(), getZ(),
                        getActivation());
}

int64_t BlockedInvertedResidualOp::flops() {
  // The three convolutions' logical outputs (M x H x W expanded, M x OH x
  // OW depthwise, P x OH x OW projected).
  auto x = dyn_cast<ShapedType>(getX().getType());
  auto y = dyn_cast<ShapedType>(getY().getType());
  auto wd = dyn_cast<ShapedType>(getWD().getType());
  auto wp = dyn_cast<ShapedType>(getWP().getType());
  if (!x || !x.hasStaticShape() || !y || !y.hasStaticShape() || !wd || !wd.hasStaticShape() ||
      !wp || !wp.hasStaticShape())
    return 0;
  const int64_t m = wd.getDimSize(0), p = wp.getDimSize(0), n = x.getDimSize(0);
  const int64_t pixels = y.getDimSize(2) * y.getDimSize(3);
  const int64_t expand = isNone(getWE()) ? 0
                                         : fusedConvFlops(n * m * x.getDimSize(2) *
                                                              x.getDimSize(3),
                                                          getWE(), getBE(), Value(),
                                                          getExpandActivation());
  return expand +
         fusedConvFlops(n * m * pixels, getWD(), getBD(), Value(), getDepthwiseActivation()) +
         fusedConvFlops(n * p * pixels, getWP(), getBP(), getZ(), getActivation());
}

} // namespace onnxc::simd

#define GET_OP_CLASSES
#include "targets/simd/SimdOps.cpp.inc"
