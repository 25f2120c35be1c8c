//===- SimdQs8.cpp - the qs8 ops the SIMD integer kernels run ---------------===//
//
// QConv (2-D: dense and grouped through the packed im2col kernel, depthwise
// through its own), QMatMul, ConvInteger (not depthwise) and MatMulInteger
// with constant weights (their int32 sums: dynamic quantization), same-shape
// QAdd, QMul (same shape or per
// channel), global QAveragePool, QLookup, QRescale, and per-tensor
// QuantizeLinear / DequantizeLinear on runtime-lite's simd/qs8/ kernels.
// Constant weights are packed here, at compile time, and the
// input zero point is folded with the bias into one int32 per output
// channel (simd/qs8/pack.h says why). The rest of the qs8 ops, and these
// with weights that are not constants, run on the reference kernels.
//
//===----------------------------------------------------------------------===//
#include "SimdDialect.h"
#include "SimdTarget.h"

#include "onnxc/Lowering/CallBuilders.h"
#include "onnxc/Lowering/Qs8Params.h"
#include "onnxc_rt/kernels/reference/qs8.h"
#include "onnxc_rt/kernels/simd/qs8/pack.h"
#include "onnxc_rt/kernels/simd/qs8/window_plan.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstring>

using namespace mlir;
using namespace onnxc::onnx;
using namespace onnxc::lowering;
namespace pack = onnxc_rt::simd::qs8;

namespace onnxc::simd {

int64_t Qs8Packing::convDepthGroup(int64_t depth) const {
  return amxConvolutions && pack::conv_amx_applies(depth) ? pack::kAmxDepthGroup : depthGroup;
}

int64_t Qs8Packing::fcDepthGroup(int64_t rows, int64_t depth) const {
  return amxConvolutions && pack::fc_amx_applies(rows, depth) ? pack::kAmxDepthGroup
                                                               : depthGroup;
}

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

/// The C++ name of conv2d's form `form` (simd/qs8/conv2d.h's
/// conv2d_in_form template argument).
std::string convFormName(pack::ConvForm form) {
  const char *name = "kPanel";
  switch (form) {
  case pack::ConvForm::kPanel: break;
  case pack::ConvForm::kChannelLanes: name = "kChannelLanes"; break;
  case pack::ConvForm::kLanesDirect: name = "kLanesDirect"; break;
  case pack::ConvForm::kDotDirect: name = "kDotDirect"; break;
  case pack::ConvForm::kWinograd: name = "kWinograd"; break;
  }
  return std::string(kSimdQs8Namespace) + "::ConvForm::" + name;
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

/// A 2-D convolution as the packed kernels take it (QConv, ConvInteger):
/// shapes, its window resolved, and the packing's numbers.
struct ConvShape {
  SmallVector<int64_t> xs, ys, kernel;
  WindowGeometry g;
  int64_t group = 1, m = 0, cg = 0, depth = 0;
  bool depthwise() const { return cg == 1 && m == group; }
  /// x's shape, y's, the kernel's, strides, pads, dilations.
  std::vector<KernelArg> windowArgs() const {
    return {KernelArg::array(xs),          KernelArg::array(ys),
            KernelArg::array(kernel),      KernelArg::array(g.strides),
            KernelArg::array(g.padsBegin), KernelArg::array(g.dilations)};
  }
  pack::PaddedPlane plane(pack::ConvForm form = pack::ConvForm::kPanel) const {
    return pack::conv_plane(form, ys[2], ys[3], kernel[0], kernel[1], g.strides[0],
                            g.strides[1], g.dilations[0], g.dilations[1]);
  }
  bool readsInput() const {
    return pack::conv_reads_input(kernel[0], kernel[1], g.strides[0], g.strides[1],
                                  g.padsBegin[0], g.padsBegin[1], xs[2], xs[3], ys[2], ys[3]);
  }
};

/// The convolution `op` of x (N, C, H, W) by w (M, C / group, KH, KW), or
/// nothing when it is not 2-D; failure when its window is wrong (an error
/// emitted).
FailureOr<std::optional<ConvShape>> convShape(Operation *op, Value x, Value w, Value y,
                                              int64_t group) {
  ConvShape c;
  c.xs = SmallVector<int64_t>(shapeOf(x));
  c.ys = SmallVector<int64_t>(shapeOf(y));
  auto ws = shapeOf(w);
  if (c.xs.size() != 4 || ws.size() != 4)
    return std::optional<ConvShape>();
  c.kernel.assign(ws.begin() + 2, ws.end());
  auto g = resolveWindow(op, ArrayRef<int64_t>(c.xs).drop_front(2), c.kernel, false);
  if (failed(g))
    return failure();
  c.g = *g;
  c.group = group;
  c.m = c.ys[1];
  c.cg = c.xs[1] / group;
  c.depth = c.cg * c.kernel[0] * c.kernel[1];
  return std::optional<ConvShape>(std::move(c));
}

ProviderResult lowerQConv(QConvOp op, const Qs8Packing &packing, int64_t tasks) {
  auto shape = convShape(op, op.getX(), op.getW(), op.getY(), op.getGroup());
  if (failed(shape))
    return {failure()};
  if (!*shape)
    return std::nullopt;
  const ConvShape &c = **shape;
  const auto &xs = c.xs, &ys = c.ys, &kernel = c.kernel;
  const WindowGeometry *g = &c.g;
  const int64_t group = c.group, m = c.m, cg = c.cg;
  auto [mult, shift] = qs8Multipliers(op.getContext(), op.getXScale().convertToFloat(),
                                      op.getWScale(), op.getYScale().convertToFloat());
  const std::string t = cppTypeName(eltOf(op.getX()));
  const std::vector<KernelArg> window = c.windowArgs();
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
  if (c.depthwise()) {
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
                                      g->padsBegin.data(), g->dilations.data(), quad,
                                      packing.windowDepthwise, tasks),
        "uint8_t"));
    appendTasks(args, tasks);
    // The unrolled window and stride as template arguments: the model's
    // code instantiates only its layers' forms (depthwise_conv2d).
    const int64_t unrolled = pack::depthwise_unrolled_kernel(kernel[0], kernel[1],
                                                             g->strides[1], g->dilations[1]);
    const int64_t stride = pack::depthwise_window_stride(g->strides[1], g->dilations[1]);
    return calls({call("depthwise_conv2d",
                       {t, quad ? "true" : "false", packing.windowDepthwise ? "true" : "false",
                        std::to_string(unrolled), std::to_string(stride)},
                       kSimdQs8Depthwise, std::move(args), kSimdQs8Namespace)});
  }
  const int64_t depth = c.depth, dg = packing.convDepthGroup(depth);
  const pack::ConvForm form =
      pack::conv_form(packing.convForms, dg, cg, m / group, kernel[0], kernel[1], g->strides[0],
                      g->strides[1], ys[2], ys[3], g->padsBegin[0], g->padsBegin[1],
                      g->dilations[0], g->dilations[1]);
  std::vector<int8_t> packed(pack::conv_packed_bytes(m, group, depth, dg, form));
  pack::pack_conv_weights(w.data(), m, group, depth, dg, packed.data(),
                          pack::conv_weight_taps(dg, cg, kernel[0], kernel[1], g->strides[0],
                                                 g->strides[1], form),
                          form);
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
  args.push_back(KernelArg::scratch(pack::conv_scratch_bytes(depth, ys[2], ys[3], g->strides[0],
                                                             cg, c.plane(form), c.readsInput(), dg,
                                                             tasks, form),
                                    "uint8_t"));
  appendTasks(args, tasks);
  // The form as a template argument: the model's code instantiates only
  // the forms its layers take (conv2d_in_form).
  std::vector<std::string> templateArgs = packedKernelArgs(op.getX(), dg, packing);
  templateArgs.insert(templateArgs.begin(), convFormName(form));
  return calls({call("conv2d_in_form", std::move(templateArgs), kSimdQs8Conv, std::move(args),
                     kSimdQs8Namespace)});
}

ProviderResult lowerQMatMul(QMatMulOp op, const Qs8Packing &packing, int64_t tasks) {
  auto ws = shapeOf(op.getW());
  const int64_t k = ws[0], n = ws[1], rows = numel(op.getA()) / std::max<int64_t>(k, 1);
  std::vector<int8_t> w = constantInt8s(op.getW());
  auto bias = biasValues(op.getB(), n);
  if (w.empty() || !bias)
    return std::nullopt;
  const int64_t dg = packing.fcDepthGroup(rows, k);
  std::vector<int8_t> packed(pack::fc_packed_bytes(k, n, dg));
  pack::pack_fc_weights(w.data(), k, n, dg, packed.data());
  std::vector<int32_t> folded(n);
  pack::fold_zero_point(w.data(), bias->data(), n, k, 1, n,
                        packedZeroPoint(op.getA(), op.getXZeroPoint(), packing), folded.data());
  auto [mult, shift] = qs8Multipliers(op.getContext(), op.getXScale().convertToFloat(),
                                      op.getWScale(), op.getYScale().convertToFloat());
  std::vector<KernelArg> args{
      KernelArg::input(op.getA()), packedInt8s(op.getContext(), packed),
      packedInt32s(op.getContext(), folded), KernelArg::output(op.getY()),
      KernelArg::i(rows), KernelArg::i(k), KernelArg::i(n), mult, shift,
      KernelArg::i(op.getWScale().size()), KernelArg::i(op.getYZeroPoint()),
      KernelArg::i(op.getActMin()), KernelArg::i(op.getActMax()),
      KernelArg::i(pack::weights_are_narrow(w.data(), int64_t(w.size()))),
      KernelArg::scratch(pack::fc_scratch_bytes(rows, k, dg), "uint8_t")};
  appendTasks(args, tasks);
  return calls({call("fully_connected", packedKernelArgs(op.getA(), dg, packing),
                     kSimdQs8FullyConnected, std::move(args), kSimdQs8Namespace)});
}

/// A zero-point operand the int32 kernels take: none, or one value.
bool oneZeroPoint(Value zp) { return isNone(zp) || numel(zp) == 1; }

/// Constant int8 weights at zero point 0 (none or all zeros), or nothing.
std::vector<int8_t> weightsAtZero(Value w, Value zp) {
  if (!eltOf(w).isSignlessInteger(8))
    return {};
  if (!isNone(zp)) {
    std::vector<int8_t> z = constantInt8s(zp);
    if (z.empty() || llvm::any_of(z, [](int8_t v) { return v != 0; }))
      return {};
  }
  return constantInt8s(w);
}

/// ConvInteger (2-D, dense or grouped; not depthwise) of int8/uint8 x with
/// one zero point, constant or computed at run time (DynamicQuantizeLinear's),
/// and constant int8 weights at zero point 0: the int32 convolution on the
/// packed im2col kernel, the zero point folded with the weights' sums at
/// run time.
ProviderResult lowerConvInteger(ConvIntegerOp op, const Qs8Packing &packing, int64_t tasks) {
  const ElementKind x = elementKindOf(eltOf(op.getX()));
  if (!eltOf(op.getY()).isSignlessInteger(32) ||
      (x != ElementKind::Int8 && x != ElementKind::UInt8) || !oneZeroPoint(op.getXZeroPoint()))
    return std::nullopt;
  auto shape = convShape(op, op.getX(), op.getW(), op.getY(), op.getGroup());
  if (failed(shape))
    return {failure()};
  if (!*shape || (*shape)->depthwise()) // depthwise: the reference kernel
    return std::nullopt;
  const ConvShape &c = **shape;
  std::vector<int8_t> w = weightsAtZero(op.getW(), op.getWZeroPoint());
  if (w.empty())
    return std::nullopt;
  const int64_t dg = packing.convDepthGroup(c.depth);
  std::vector<int8_t> packed(pack::conv_packed_bytes(c.m, c.group, c.depth, dg));
  pack::pack_conv_weights(w.data(), c.m, c.group, c.depth, dg, packed.data(),
                          pack::conv_weight_taps(dg, c.cg, c.kernel[0], c.kernel[1],
                                                 c.g.strides[0], c.g.strides[1]));
  std::vector<int32_t> sums(c.m);
  pack::weight_sums(w.data(), c.m, c.depth, c.depth, 1, sums.data());
  std::vector<KernelArg> args{KernelArg::input(op.getX()), inputOrNull(op.getXZeroPoint()),
                              packedInt8s(op.getContext(), packed),
                              packedInt32s(op.getContext(), sums), KernelArg::output(op.getY())};
  for (const KernelArg &a : c.windowArgs())
    args.push_back(a);
  args.push_back(KernelArg::i(c.group));
  args.push_back(KernelArg::i(pack::weights_are_narrow(w.data(), int64_t(w.size()))));
  args.push_back(KernelArg::scratch(
      pack::conv_sums_scratch_bytes(c.m, c.depth, c.ys[2], c.ys[3], c.g.strides[0], c.cg,
                                    c.plane(), c.readsInput(), dg, tasks),
      "uint8_t"));
  appendTasks(args, tasks);
  return calls({call("conv2d_sums", packedKernelArgs(op.getX(), dg, packing), kSimdQs8Conv,
                     std::move(args), kSimdQs8Namespace)});
}

/// MatMulInteger of int8/uint8 A (..., K) with one zero point, a constant
/// or computed at run time (ONNX Runtime's dynamic quantization:
/// DynamicQuantizeLinear's), and constant int8 B (K, N) at zero point 0:
/// the int32 product on the packed fully connected kernel, A's zero point
/// folded with B's column sums at run time.
ProviderResult lowerMatMulInteger(MatMulIntegerOp op, const Qs8Packing &packing,
                                  int64_t tasks) {
  auto at = dyn_cast<RankedTensorType>(op.getA().getType());
  auto bt = dyn_cast<RankedTensorType>(op.getB().getType());
  const ElementKind a = at ? elementKindOf(at.getElementType()) : ElementKind::Other;
  if (!at || !bt || !at.hasStaticShape() || at.getRank() < 1 || bt.getRank() != 2 ||
      !eltOf(op.getY()).isSignlessInteger(32) ||
      (a != ElementKind::Int8 && a != ElementKind::UInt8) ||
      !oneZeroPoint(op.getAZeroPoint())) // per row: the reference kernel
    return std::nullopt;
  const int64_t k = bt.getDimSize(0), n = bt.getDimSize(1);
  if (at.getShape().back() != k || numel(op.getY()) != numel(op.getA()) / k * n)
    return std::nullopt;
  std::vector<int8_t> w = weightsAtZero(op.getB(), op.getBZeroPoint());
  if (w.empty())
    return std::nullopt;
  const int64_t rows = numel(op.getA()) / k, dg = packing.fcDepthGroup(rows, k);
  std::vector<int8_t> packed(pack::fc_packed_bytes(k, n, dg));
  pack::pack_fc_weights(w.data(), k, n, dg, packed.data());
  std::vector<int32_t> sums(n);
  pack::weight_sums(w.data(), n, k, 1, n, sums.data());
  std::vector<KernelArg> args{
      KernelArg::input(op.getA()), inputOrNull(op.getAZeroPoint()),
      packedInt8s(op.getContext(), packed), packedInt32s(op.getContext(), sums),
      KernelArg::output(op.getY()), KernelArg::i(rows), KernelArg::i(k), KernelArg::i(n),
      KernelArg::i(pack::weights_are_narrow(w.data(), int64_t(w.size()))),
      KernelArg::scratch(pack::fc_sums_scratch_bytes(rows, k, n, dg), "uint8_t")};
  appendTasks(args, tasks);
  return calls({call("fully_connected_sums", packedKernelArgs(op.getA(), dg, packing),
                     kSimdQs8FullyConnected, std::move(args), kSimdQs8Namespace)});
}

ProviderResult lowerQAdd(QAddOp op, int64_t tasks) {
  const int64_t n = numel(op.getY());
  if (numel(op.getA()) != n || numel(op.getB()) != n)
    return std::nullopt; // broadcasting: the reference kernel
  std::vector<KernelArg> args{KernelArg::input(op.getA()), KernelArg::input(op.getB()),
                              KernelArg::output(op.getY()), KernelArg::i(n)};
  for (int32_t v : addParamList(addParams(op)))
    args.push_back(KernelArg::i(v));
  appendTasks(args, tasks);
  return calls({call("add", {cppTypeName(eltOf(op.getY()))}, kSimdQs8Elementwise, std::move(args),
                     kSimdQs8Namespace)});
}

/// QMul of same-shape inputs, or of a full input and one that has one value
/// per leading index (its trailing dims 1: a per-channel scale); the other
/// broadcasts run the reference kernel.
ProviderResult lowerQMul(QMulOp op, int64_t tasks) {
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
  std::vector<KernelArg> args{KernelArg::input(a), KernelArg::input(b),
                              KernelArg::output(op.getY()), KernelArg::i(rows),
                              KernelArg::i(inner), KernelArg::i(perRow), KernelArg::i(aZp),
                              KernelArg::i(bZp), KernelArg::i(op.getYZeroPoint()),
                              KernelArg::i(m.multiplier), KernelArg::i(m.shift),
                              KernelArg::i(op.getActMin()), KernelArg::i(op.getActMax())};
  appendTasks(args, tasks);
  return calls({call("mul", {cppTypeName(eltOf(op.getY()))}, kSimdQs8Elementwise,
                     std::move(args), kSimdQs8Namespace)});
}

/// QAveragePool whose window is the whole plane without padding (a
/// GlobalAveragePool); other windows run the reference kernel.
ProviderResult lowerQAveragePool(QAveragePoolOp op, int64_t tasks) {
  auto xs = shapeOf(op.getX()), ys = shapeOf(op.getY());
  if (xs.size() < 3 || ArrayRef<int64_t>(op.getKernelShape()) != xs.drop_front(2) ||
      prod(ys.drop_front(2)) != 1)
    return std::nullopt;
  if (auto pads = op.getPads())
    for (int64_t p : *pads)
      if (p != 0)
        return std::nullopt;
  const Qs8Multiplier m = rescaleMultiplier(op);
  std::vector<KernelArg> args = {KernelArg::input(op.getX()), KernelArg::output(op.getY()),
                                 KernelArg::i(xs[0] * xs[1]), KernelArg::i(prod(xs.drop_front(2))),
                                 KernelArg::i(op.getXZeroPoint()), KernelArg::i(op.getYZeroPoint()),
                                 KernelArg::i(m.multiplier), KernelArg::i(m.shift)};
  appendTasks(args, tasks);
  return calls({call("global_average_pool", {cppTypeName(eltOf(op.getX()))}, kSimdQs8Pool,
                     std::move(args), kSimdQs8Namespace)});
}

/// QRescale of int8 or uint8 to the same type (a Concat input of another
/// scale, a DequantizeLinear -> QuantizeLinear pair): a function of one
/// byte, so the vector table lookup QLookup runs (about half the
/// instructions of requantizing) on rescaleTable's table.
ProviderResult lowerQRescale(QRescaleOp op, int64_t tasks) {
  DenseElementsAttr table = rescaleTable(op);
  if (!table)
    return std::nullopt;
  std::vector<KernelArg> args{KernelArg::input(op.getX()), KernelArg::constantData(table),
                              KernelArg::output(op.getY()), KernelArg::i(numel(op.getX()))};
  appendTasks(args, tasks);
  return calls({call("lookup", {cppTypeName(eltOf(op.getX()))}, kSimdQs8Elementwise,
                     std::move(args), kSimdQs8Namespace)});
}

/// ChannelGather (int8 / uint8 NCHW): one copy of the picked planes, each
/// through its input's table where it has one.
ProviderResult lowerChannelGather(ChannelGatherOp op, int64_t tasks) {
  auto y = shapeOf(op.getY());
  std::vector<KernelArg> args = channelGatherArgs(op.getX(), op.getInChannels(),
                                                  op.getChannels(), op.getY(), y[0], y[2] * y[3]);
  auto tables = op.getTables();
  for (size_t k = 0; k < 2; ++k) {
    auto t = tables && k < tables->size() ? dyn_cast<DenseElementsAttr>((*tables)[k]) : nullptr;
    args.push_back(t ? KernelArg::constantData(t) : KernelArg::null());
  }
  appendTasks(args, tasks);
  return calls({call("channel_gather", {cppTypeName(eltOf(op.getY()))}, kSimdQs8ChannelGather,
                     std::move(args), kSimdQs8Namespace)});
}

/// QLookup with its table a constant (as onnxc-fold-qdq leaves it).
ProviderResult lowerQLookup(QLookupOp op, int64_t tasks) {
  if (!getConstantElements(op.getTable()))
    return std::nullopt;
  std::vector<KernelArg> args{KernelArg::input(op.getX()), KernelArg::input(op.getTable()),
                              KernelArg::output(op.getY()), KernelArg::i(numel(op.getX()))};
  appendTasks(args, tasks);
  return calls({call("lookup", {cppTypeName(eltOf(op.getX()))}, kSimdQs8Elementwise,
                     std::move(args), kSimdQs8Namespace)});
}

} // namespace

/// QuantizeLinear (float to int8/uint8) and DequantizeLinear (back) with
/// one scale; per-axis ones run the reference kernel.
ProviderResult lowerQuantizeLike(Operation *op, bool quantize, int64_t tasks) {
  Value x = op->getOperand(0), scale = op->getOperand(1), zp = op->getOperand(2);
  Value y = op->getResult(0);
  Value q = quantize ? y : x, f = quantize ? x : y;
  const ElementKind kind = elementKindOf(eltOf(q));
  if (numel(scale) != 1 || !eltOf(f).isF32() || !eltOf(scale).isF32() ||
      (kind != ElementKind::Int8 && kind != ElementKind::UInt8))
    return std::nullopt;
  const std::string t = cppTypeName(eltOf(q));
  std::vector<KernelArg> args{KernelArg::input(x), KernelArg::input(scale), inputOrNull(zp),
                              KernelArg::output(y), KernelArg::i(numel(x))};
  appendTasks(args, tasks);
  return calls({call(quantize ? "quantize_linear" : "dequantize_linear", {t}, kSimdQs8Quantize,
                     std::move(args), kSimdQs8Namespace)});
}

DenseElementsAttr rescaleTable(QRescaleOp op) {
  Type elt = eltOf(op.getX());
  const ElementKind kind = elementKindOf(elt);
  if (elt != eltOf(op.getY()) || (kind != ElementKind::Int8 && kind != ElementKind::UInt8))
    return {};
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
  return DenseElementsAttr::getFromRawBuffer(RankedTensorType::get({256}, elt),
                                             ArrayRef<char>(table, 256));
}

ProviderResult lowerQs8(Operation *op, const Qs8Packing &packing, int64_t tasks) {
  // (Outside the TypeSwitch: inlined into it, GCC 12 warns of its result
  // as maybe uninitialised.)
  if (auto rescale = dyn_cast<QRescaleOp>(op))
    return lowerQRescale(rescale, tasks);
  if (auto gather = dyn_cast<ChannelGatherOp>(op))
    return lowerChannelGather(gather, tasks);
  return TypeSwitch<Operation *, ProviderResult>(op)
      .Case<QConvOp>([&](QConvOp o) { return lowerQConv(o, packing, tasks); })
      .Case<QMatMulOp>([&](QMatMulOp o) { return lowerQMatMul(o, packing, tasks); })
      .Case<MatMulIntegerOp>(
          [&](MatMulIntegerOp o) { return lowerMatMulInteger(o, packing, tasks); })
      .Case<ConvIntegerOp>([&](ConvIntegerOp o) { return lowerConvInteger(o, packing, tasks); })
      .Case<QAddOp>([&](QAddOp o) { return lowerQAdd(o, tasks); })
      .Case<QMulOp>([&](QMulOp o) { return lowerQMul(o, tasks); })
      .Case<QAveragePoolOp>([&](QAveragePoolOp o) { return lowerQAveragePool(o, tasks); })
      .Case<QLookupOp>([&](QLookupOp o) { return lowerQLookup(o, tasks); })
      .Case<QuantizeLinearOp>(
          [&](QuantizeLinearOp o) { return lowerQuantizeLike(o, true, tasks); })
      .Case<DequantizeLinearOp>(
          [&](DequantizeLinearOp o) { return lowerQuantizeLike(o, false, tasks); })
      .Default([](Operation *) -> ProviderResult { return std::nullopt; });
}

} // namespace onnxc::simd
