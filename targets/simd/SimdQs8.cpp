//===- SimdQs8.cpp - the qs8 ops the SIMD integer kernels run ---------------===//
//
// QConv (2-D: dense and grouped through the packed im2col kernel, depthwise
// through its own), QMatMul, same-shape QAdd, QMul (same shape or per
// channel), global QAveragePool, QLookup, QRescale, and per-tensor
// QuantizeLinear / DequantizeLinear on runtime-lite's simd/qs8/ kernels.
// Constant weights are packed here, at compile time, and the
// input zero point is folded with the bias into one int32 per output
// channel (simd/qs8/pack.h says why). The rest of the qs8 ops, and these
// with weights that are not constants, run on the reference kernels.
//
//===----------------------------------------------------------------------===//
#include "SimdTarget.h"

#include "onnxc/Lowering/CallBuilders.h"
#include "onnxc/Lowering/Qs8Params.h"
#include "onnxc_rt/kernels/reference/qs8.h"
#include "onnxc_rt/kernels/simd/qs8/pack.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstring>

using namespace mlir;
using namespace onnxc::onnx;
using namespace onnxc::lowering;
namespace pack = onnxc_rt::simd::qs8;

namespace onnxc::simd {
namespace {

/// The activations' byte value of zero (x_zp) as the convolution's and
/// fully connected layer's products see it: int8 values enter with 128
/// added, less 128 where the products take signed bytes
/// (pack::packed_zero_point).
int32_t packedZeroPoint(Value x, int64_t zeroPoint, const Qs8Packing &packing) {
  return pack::packed_zero_point(
      int32_t(zeroPoint) + (eltOf(x).isUnsignedInteger(8) ? 0 : 128), packing.shiftedBytes);
}

/// The template arguments of the packed kernels: the element type, and the
/// packing (depth group `dg`: the convolution's or the fully connected
/// layer's), which they check against the instruction set they are
/// compiled for.
std::vector<std::string> packedKernelArgs(Value x, int64_t dg, const Qs8Packing &packing) {
  return {cppTypeName(eltOf(x)), std::to_string(dg), packing.shiftedBytes ? "true" : "false"};
}

/// The bias as int32 values (zeros without one), or nothing when it is
/// not a constant.
std::optional<std::vector<int32_t>> biasValues(Value b, int64_t count) {
  if (isNone(b))
    return std::vector<int32_t>(count, 0);
  std::vector<int32_t> v = constantInt32s(b);
  if (int64_t(v.size()) != count)
    return std::nullopt;
  return v;
}

ProviderResult lowerQConv(QConvOp op, const Qs8Packing &packing) {
  auto xs = shapeOf(op.getX()), ys = shapeOf(op.getY()), ws = shapeOf(op.getW());
  if (xs.size() != 4)
    return std::nullopt;
  SmallVector<int64_t> kernel(ws.drop_front(2));
  auto g = resolveWindow(op, xs.drop_front(2), kernel, false);
  if (failed(g))
    return {failure()};
  const int64_t group = op.getGroup(), m = ys[1], cg = xs[1] / group;
  auto [mult, shift] = qs8Multipliers(op.getContext(), op.getXScale().convertToFloat(),
                                      op.getWScale(), op.getYScale().convertToFloat());
  const std::string t = cppTypeName(eltOf(op.getX()));
  std::vector<KernelArg> window{KernelArg::array(xs),        KernelArg::array(ys),
                                KernelArg::array(kernel),    KernelArg::array(g->strides),
                                KernelArg::array(g->padsBegin), KernelArg::array(g->dilations)};
  auto tail = [&](std::vector<KernelArg> &args) {
    for (KernelArg a : {KernelArg::i(op.getXZeroPoint()), mult, shift,
                        KernelArg::i(op.getWScale().size()), KernelArg::i(op.getYZeroPoint()),
                        KernelArg::i(op.getActMin()), KernelArg::i(op.getActMax())})
      args.push_back(a);
  };
  std::vector<int8_t> w = constantInt8s(op.getW());
  auto bias = biasValues(op.getB(), m);
  if (w.empty() || !bias)
    return std::nullopt;
  const pack::PaddedPlane plane =
      pack::padded_plane(ys[2], ys[3], kernel[0], kernel[1], g->strides[0], g->strides[1],
                         g->dilations[0], g->dilations[1]);
  if (cg == 1 && m == group) {
    if (kernel[0] * kernel[1] > pack::kMaxDepthwiseTaps)
      return std::nullopt;
    // Widened taps read x itself: the zero point folds as it is; quads
    // read the bytes as conv2d packs them.
    const bool quad = packing.quadDepthwise;
    std::vector<int32_t> folded(m);
    pack::fold_zero_point(w.data(), bias->data(), m, kernel[0] * kernel[1],
                          kernel[0] * kernel[1], 1,
                          quad ? packedZeroPoint(op.getX(), op.getXZeroPoint(), packing)
                               : int32_t(op.getXZeroPoint()),
                          folded.data());
    std::vector<KernelArg> args{KernelArg::input(op.getX()), KernelArg::input(op.getW()),
                                packedInt32s(op.getContext(), folded),
                                KernelArg::output(op.getY())};
    args.insert(args.end(), window.begin(), window.end());
    tail(args);
    args.push_back(KernelArg::scratch(
        pack::depthwise_scratch_bytes(xs.data(), ys.data(), kernel.data(), g->strides.data(),
                                      g->padsBegin.data(), g->dilations.data(), quad),
        "uint8_t"));
    return calls({call("depthwise_conv2d", {t, quad ? "true" : "false"}, kSimdQs8Depthwise,
                       std::move(args), kSimdQs8Namespace)});
  }
  const int64_t depth = cg * kernel[0] * kernel[1], dg = packing.depthGroup;
  std::vector<int8_t> packed(pack::conv_packed_bytes(m, group, depth, dg));
  pack::pack_conv_weights(w.data(), m, group, depth, dg, packed.data());
  std::vector<int32_t> folded(m);
  pack::fold_zero_point(w.data(), bias->data(), m, depth, depth, 1,
                        packedZeroPoint(op.getX(), op.getXZeroPoint(), packing), folded.data());
  std::vector<KernelArg> args{KernelArg::input(op.getX()), packedInt8s(op.getContext(), packed),
                              packedInt32s(op.getContext(), folded),
                              KernelArg::output(op.getY())};
  args.insert(args.end(), window.begin(), window.end());
  args.push_back(KernelArg::i(group));
  tail(args);
  args.push_back(KernelArg::i(pack::weights_are_narrow(w.data(), int64_t(w.size()))));
  const bool readsInput = pack::conv_reads_input(kernel[0], kernel[1], g->strides[0],
                                                 g->strides[1], g->padsBegin[0],
                                                 g->padsBegin[1]);
  args.push_back(KernelArg::scratch(pack::conv_scratch_bytes(depth, ys[2], ys[3], g->strides[0],
                                                             cg, plane, readsInput, dg),
                                    "uint8_t"));
  return calls({call("conv2d", packedKernelArgs(op.getX(), packing.depthGroup, packing),
                     kSimdQs8Conv, std::move(args), kSimdQs8Namespace)});
}

ProviderResult lowerQMatMul(QMatMulOp op, const Qs8Packing &packing) {
  auto ws = shapeOf(op.getW());
  const int64_t k = ws[0], n = ws[1], rows = numel(op.getA()) / std::max<int64_t>(k, 1);
  std::vector<int8_t> w = constantInt8s(op.getW());
  auto bias = biasValues(op.getB(), n);
  if (w.empty() || !bias)
    return std::nullopt;
  const int64_t dg = packing.depthGroup;
  std::vector<int8_t> packed(pack::fc_packed_bytes(k, n, dg));
  pack::pack_fc_weights(w.data(), k, n, dg, packed.data());
  std::vector<int32_t> folded(n);
  pack::fold_zero_point(w.data(), bias->data(), n, k, 1, n,
                        packedZeroPoint(op.getA(), op.getXZeroPoint(), packing), folded.data());
  auto [mult, shift] = qs8Multipliers(op.getContext(), op.getXScale().convertToFloat(),
                                      op.getWScale(), op.getYScale().convertToFloat());
  return calls({call("fully_connected", packedKernelArgs(op.getA(), dg, packing), kSimdQs8FullyConnected,
                     {KernelArg::input(op.getA()), packedInt8s(op.getContext(), packed),
                      packedInt32s(op.getContext(), folded), KernelArg::output(op.getY()),
                      KernelArg::i(rows), KernelArg::i(k), KernelArg::i(n), mult, shift,
                      KernelArg::i(op.getWScale().size()), KernelArg::i(op.getYZeroPoint()),
                      KernelArg::i(op.getActMin()), KernelArg::i(op.getActMax()),
                      KernelArg::i(pack::weights_are_narrow(w.data(), int64_t(w.size()))),
                      KernelArg::scratch(
                          pack::fc_scratch_bytes(rows, k, dg), "uint8_t")},
                     kSimdQs8Namespace)});
}

ProviderResult lowerQAdd(QAddOp op) {
  const int64_t n = numel(op.getY());
  if (numel(op.getA()) != n || numel(op.getB()) != n)
    return std::nullopt; // broadcasting: the reference kernel
  std::vector<KernelArg> args{KernelArg::input(op.getA()), KernelArg::input(op.getB()),
                              KernelArg::output(op.getY()), KernelArg::i(n)};
  for (int32_t v : addParamList(addParams(op)))
    args.push_back(KernelArg::i(v));
  return calls({call("add", {cppTypeName(eltOf(op.getY()))}, kSimdQs8Elementwise, std::move(args),
                     kSimdQs8Namespace)});
}

/// QMul of same-shape inputs, or of a full input and one that has one value
/// per leading index (its trailing dims 1: a per-channel scale); the other
/// broadcasts run the reference kernel.
ProviderResult lowerQMul(QMulOp op) {
  auto ys = shapeOf(op.getY());
  const int64_t n = numel(op.getY());
  Value a = op.getA(), b = op.getB();
  int64_t aZp = op.getAZeroPoint(), bZp = op.getBZeroPoint();
  if (numel(a) != n)
    std::swap(a, b), std::swap(aZp, bZp); // the product commutes
  if (numel(a) != n)
    return std::nullopt;
  int64_t rows = 1, inner = n, perRow = 0;
  if (numel(b) != n) {
    // b right-aligned against y: y's leading dims, then only 1s.
    auto bs = shapeOf(b);
    if (bs.size() > ys.size())
      return std::nullopt;
    SmallVector<int64_t> full(ys.size() - bs.size(), 1);
    full.append(bs.begin(), bs.end());
    size_t k = 0;
    while (k < full.size() && full[k] == ys[k])
      ++k;
    for (size_t d = k; d < full.size(); ++d)
      if (full[d] != 1)
        return std::nullopt;
    rows = prod(ys.take_front(k));
    inner = prod(ys.drop_front(k));
    perRow = 1;
    if (numel(b) != rows)
      return std::nullopt;
  }
  const Qs8Multiplier m = mulMultiplier(op);
  return calls({call("mul", {cppTypeName(eltOf(op.getY()))}, kSimdQs8Elementwise,
                     {KernelArg::input(a), KernelArg::input(b), KernelArg::output(op.getY()),
                      KernelArg::i(rows), KernelArg::i(inner), KernelArg::i(perRow),
                      KernelArg::i(aZp), KernelArg::i(bZp), KernelArg::i(op.getYZeroPoint()),
                      KernelArg::i(m.multiplier), KernelArg::i(m.shift),
                      KernelArg::i(op.getActMin()), KernelArg::i(op.getActMax())},
                     kSimdQs8Namespace)});
}

/// QAveragePool whose window is the whole plane without padding (a
/// GlobalAveragePool); other windows run the reference kernel.
ProviderResult lowerQAveragePool(QAveragePoolOp op) {
  auto xs = shapeOf(op.getX()), ys = shapeOf(op.getY());
  if (xs.size() < 3 || ArrayRef<int64_t>(op.getKernelShape()) != xs.drop_front(2) ||
      prod(ys.drop_front(2)) != 1)
    return std::nullopt;
  if (auto pads = op.getPads())
    for (int64_t p : *pads)
      if (p != 0)
        return std::nullopt;
  const Qs8Multiplier m = rescaleMultiplier(op);
  return calls({call("global_average_pool", {cppTypeName(eltOf(op.getX()))}, kSimdQs8Pool,
                     {KernelArg::input(op.getX()), KernelArg::output(op.getY()),
                      KernelArg::i(xs[0] * xs[1]), KernelArg::i(prod(xs.drop_front(2))),
                      KernelArg::i(op.getXZeroPoint()), KernelArg::i(op.getYZeroPoint()),
                      KernelArg::i(m.multiplier), KernelArg::i(m.shift)},
                     kSimdQs8Namespace)});
}

/// QRescale of int8 or uint8 to the same type (a Concat input of another
/// scale, a DequantizeLinear -> QuantizeLinear pair): a function of one
/// byte, so the vector table lookup QLookup runs (about half the
/// instructions of requantizing) on a table of the reference's rescale
/// of every value, made here.
ProviderResult lowerQRescale(QRescaleOp op) {
  Type elt = eltOf(op.getX());
  const ElementKind kind = elementKindOf(elt);
  if (elt != eltOf(op.getY()) || (kind != ElementKind::Int8 && kind != ElementKind::UInt8))
    return std::nullopt;
  const std::string t = cppTypeName(elt);
  const Qs8Multiplier m = rescaleMultiplier(op);
  const int32_t xZp = op.getXZeroPoint(), yZp = op.getYZeroPoint();
  char table[256];
  if (kind == ElementKind::Int8) {
    int8_t in[256], out[256];
    for (int i = 0; i < 256; ++i)
      in[i] = int8_t(i - 128);
    onnxc_rt::ref::qs8::rescale<int8_t, int8_t>(in, xZp, m.multiplier, m.shift, yZp, out, 256);
    std::memcpy(table, out, 256);
  } else {
    uint8_t in[256], out[256];
    for (int i = 0; i < 256; ++i)
      in[i] = uint8_t(i);
    onnxc_rt::ref::qs8::rescale<uint8_t, uint8_t>(in, xZp, m.multiplier, m.shift, yZp, out, 256);
    std::memcpy(table, out, 256);
  }
  auto tableType = RankedTensorType::get({256}, elt);
  return calls({call("lookup", {t}, kSimdQs8Elementwise,
                     {KernelArg::input(op.getX()),
                      KernelArg::constantData(DenseElementsAttr::getFromRawBuffer(
                          tableType, ArrayRef<char>(table, 256))),
                      KernelArg::output(op.getY()), KernelArg::i(numel(op.getX()))},
                     kSimdQs8Namespace)});
}

/// QLookup with its table a constant (as onnxc-fold-qdq leaves it).
ProviderResult lowerQLookup(QLookupOp op) {
  if (!getConstantElements(op.getTable()))
    return std::nullopt;
  return calls({call("lookup", {cppTypeName(eltOf(op.getX()))}, kSimdQs8Elementwise,
                     {KernelArg::input(op.getX()), KernelArg::input(op.getTable()),
                      KernelArg::output(op.getY()), KernelArg::i(numel(op.getX()))},
                     kSimdQs8Namespace)});
}

} // namespace

/// QuantizeLinear (float to int8/uint8) and DequantizeLinear (back) with
/// one scale; per-axis ones run the reference kernel.
ProviderResult lowerQuantizeLike(Operation *op, bool quantize) {
  Value x = op->getOperand(0), scale = op->getOperand(1), zp = op->getOperand(2);
  Value y = op->getResult(0);
  Value q = quantize ? y : x, f = quantize ? x : y;
  const ElementKind kind = elementKindOf(eltOf(q));
  if (numel(scale) != 1 || !eltOf(f).isF32() || !eltOf(scale).isF32() ||
      (kind != ElementKind::Int8 && kind != ElementKind::UInt8))
    return std::nullopt;
  const std::string t = cppTypeName(eltOf(q));
  return calls({call(quantize ? "quantize_linear" : "dequantize_linear", {t}, kSimdQs8Quantize,
                     {KernelArg::input(x), KernelArg::input(scale), inputOrNull(zp),
                      KernelArg::output(y), KernelArg::i(numel(x))},
                     kSimdQs8Namespace)});
}

ProviderResult lowerQs8(Operation *op, const Qs8Packing &packing) {
  return TypeSwitch<Operation *, ProviderResult>(op)
      .Case<QConvOp>([&](QConvOp o) { return lowerQConv(o, packing); })
      .Case<QMatMulOp>([&](QMatMulOp o) { return lowerQMatMul(o, packing); })
      .Case<QAddOp>([](QAddOp o) { return lowerQAdd(o); })
      .Case<QMulOp>([](QMulOp o) { return lowerQMul(o); })
      .Case<QAveragePoolOp>([](QAveragePoolOp o) { return lowerQAveragePool(o); })
      .Case<QLookupOp>([](QLookupOp o) { return lowerQLookup(o); })
      .Case<QRescaleOp>([](QRescaleOp o) { return lowerQRescale(o); })
      .Case<QuantizeLinearOp>([](QuantizeLinearOp o) { return lowerQuantizeLike(o, true); })
      .Case<DequantizeLinearOp>(
          [](DequantizeLinearOp o) { return lowerQuantizeLike(o, false); })
      .Default([](Operation *) -> ProviderResult { return std::nullopt; });
}

} // namespace onnxc::simd
