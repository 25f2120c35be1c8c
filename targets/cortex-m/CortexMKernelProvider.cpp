//===- CortexMKernelProvider.cpp - the microcontroller kernels ------------===//
//
// Lowers what runtime-lite's microcontroller kernels (onnxc_rt::mcu) cover
// and answers "not mine" for the rest, which then run on the reference
// kernels: 2-D Conv/FusedConv (group 1, no residual) and Gemm/FusedGemm in
// float, QConv (2-D, group 1 or depthwise), QMatMul and same-shape QAdd in
// int8, and 2-D MaxPool, all at
// batch 1. Every shape becomes a template argument, so each layer's loops
// are compiled for its own sizes in 32-bit arithmetic; constant weights are
// packed here into the layouts the kernels read (int16 pairs for the int8
// convolution's SMLAD, or int8 widened by SXTB16 with --conv-weights int8;
// int8 quads for the fully connected layer's SXTB16).
//
//===----------------------------------------------------------------------===//
#include "CortexMTarget.h"

#include "CortexMDialect.h"

#include "onnxc/Lowering/CallBuilders.h"
#include "onnxc/Lowering/Qs8Params.h"
#include "onnxc_rt/kernels/mcu/f32/conv.h"
#include "onnxc_rt/kernels/mcu/qs8/dot.h"
#include "onnxc_rt/kernels/mcu/qs8/conv.h"
#include "onnxc_rt/kernels/mcu/qs8/fully_connected.h"
#include "onnxc_rt/kernels/reference/qs8.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstdlib>

using namespace mlir;
using namespace onnxc::onnx;
using namespace onnxc::lowering;

namespace onnxc::cortexm {
namespace {

// runtime-lite's Cortex-M kernels, a header a data type and kernel family.
constexpr const char *kMcuConv = "onnxc_rt/kernels/mcu/f32/conv.h";
constexpr const char *kMcuQs8Conv = "onnxc_rt/kernels/mcu/qs8/conv.h";
constexpr const char *kMcuQs8FullyConnected = "onnxc_rt/kernels/mcu/qs8/fully_connected.h";
constexpr const char *kMcuQs8Elementwise = "onnxc_rt/kernels/mcu/qs8/elementwise.h";
constexpr const char *kMcuQs8Quantize = "onnxc_rt/kernels/mcu/qs8/quantize.h";
constexpr const char *kMcuQs8Pool = "onnxc_rt/kernels/mcu/qs8/pool.h";
constexpr const char *kMcu = "onnxc_rt::mcu";
constexpr const char *kMcuQs8Namespace = "onnxc_rt::mcu::qs8";

/// Sizes the kernels index with int (32 bits on the core): larger ones run
/// the reference kernels.
constexpr int64_t kMaxIndex = int64_t(1) << 30;

std::string str(int64_t v) { return std::to_string(v); }

/// The onnxc_rt::mcu::Window<...> type of a 2-D window on x (N, C, H, W)
/// producing y; empty when a size does not fit the kernels' int.
std::string windowType(ArrayRef<int64_t> xs, ArrayRef<int64_t> ys, const WindowGeometry &g) {
  if (xs[1] * xs[2] * xs[3] >= kMaxIndex || ys[1] * ys[2] * ys[3] >= kMaxIndex)
    return "";
  std::string s = "onnxc_rt::mcu::Window<";
  for (int64_t v : {xs[1], xs[2], xs[3], ys[2], ys[3], g.kernel[0], g.kernel[1], g.strides[0],
                    g.strides[1], g.padsBegin[0], g.padsBegin[1], g.dilations[0],
                    g.dilations[1]})
    s += str(v) + ", ";
  s.resize(s.size() - 2);
  return s + ">";
}

/// 2-D float Conv and FusedConv without a residual, group 1, batch 1,
/// constant weights.
ProviderResult lowerConv(Operation *op, Value x, Value w, Value b, Value y, int64_t group) {
  auto xs = shapeOf(x), ys = shapeOf(y), ws = shapeOf(w);
  if (xs.size() != 4 || group != 1 || xs[0] != 1)
    return std::nullopt;
  SmallVector<int64_t> kernel(ws.drop_front(2));
  auto g = resolveWindow(op, xs.drop_front(2), kernel, false);
  if (failed(g))
    return {failure()};
  std::vector<float> weights = constantFloats(w);
  std::string window = windowType(xs, ys, *g);
  const int64_t m = ys[1], depth = xs[1] * kernel[0] * kernel[1];
  if (weights.empty() || window.empty())
    return std::nullopt;
  std::vector<float> packed(onnxc_rt::mcu::packed_float_weights(int(m), int(depth)));
  onnxc_rt::mcu::pack_float_weights(weights.data(), int(m), int(depth), false, packed.data());
  const FusedActivation act = activationOf(op);
  return calls({call("conv2d", {window, str(m), act.functor}, kMcuConv,
                     {KernelArg::input(x), packedFloats(op->getContext(), packed),
                      inputOrNull(b), KernelArg::output(y),
                      KernelArg::scratch(onnxc_rt::mcu::conv2d_scratch_floats(int(depth)) * 4,
                                         "float"),
                      KernelArg::f(act.alpha), KernelArg::f(act.beta)},
                     kMcu)});
}

/// Gemm and FusedGemm with A not transposed, a constant B, C a vector of N
/// (or none) and alpha = beta = 1: a fully connected layer.
template <typename GemmLike> ProviderResult lowerGemm(GemmLike op) {
  auto ys = shapeOf(op.getY());
  const int64_t rows = ys[0], n = ys[1];
  const int64_t k = shapeOf(op.getA())[1];
  std::vector<float> weights = constantFloats(op.getB());
  if (op.getTransA() || weights.empty() || op.getAlpha().convertToFloat() != 1.0f ||
      rows * k >= kMaxIndex || rows * n >= kMaxIndex)
    return std::nullopt;
  if (!isNone(op.getC()) && (op.getBeta().convertToFloat() != 1.0f || numel(op.getC()) != n ||
                             shapeOf(op.getC()).back() != n))
    return std::nullopt;
  std::vector<float> packed(onnxc_rt::mcu::packed_float_weights(int(n), int(k)));
  // B is (k, n), or (n, k) where transB: rows of packed are B's columns.
  onnxc_rt::mcu::pack_float_weights(weights.data(), int(n), int(k), !op.getTransB(),
                                    packed.data());
  const FusedActivation act = activationOf(op);
  return calls({call("fully_connected", {str(rows), str(k), str(n), act.functor}, kMcuConv,
                     {KernelArg::input(op.getA()), packedFloats(op.getContext(), packed),
                      inputOrNull(op.getC()), KernelArg::output(op.getY()),
                      KernelArg::f(act.alpha), KernelArg::f(act.beta)},
                     kMcu)});
}

/// 2-D MaxPool without the Indices output, any element type, whose every
/// window holds an input element.
ProviderResult lowerMaxPool(MaxPoolOp op, const std::string &t) {
  Value x = op.getX(), y = op.getY();
  auto xs = shapeOf(x), ys = shapeOf(y);
  if (op.getKernelShape().size() != 2 || !isNone(op.getIndices()) || xs[0] != 1)
    return std::nullopt;
  auto g = resolveWindow(op, xs.drop_front(2), op.getKernelShape(), op.getCeilMode());
  if (failed(g))
    return {failure()};
  for (int d = 0; d < 2; ++d) {
    // The last window must start inside the input (ceil_mode can push it out).
    if (g->padsBegin[d] >= g->kernel[d] ||
        (ys[2 + d] - 1) * g->strides[d] - g->padsBegin[d] >= xs[2 + d])
      return std::nullopt;
  }
  std::string window = windowType(xs, ys, *g);
  if (window.empty())
    return std::nullopt;
  return calls({call("max_pool2d", {t, str(xs[1]), window}, kMcuConv,
                     {KernelArg::input(x), KernelArg::output(y)}, kMcu)});
}

/// The transposes at an NHWC region's edges (onnxc-mcu-nhwc-regions): a
/// batch-1 NCHW tensor into NHWC and back, 8- or 16-bit.
ProviderResult lowerLayoutTranspose(TransposeOp op, const std::string &t) {
  auto xs = shapeOf(op.getData());
  std::optional<ArrayRef<int64_t>> perm = op.getPerm();
  if (xs.size() != 4 || xs[0] != 1 || !perm || numel(op.getData()) >= kMaxIndex)
    return std::nullopt;
  const int64_t toNhwc[4] = {0, 2, 3, 1}, toNchw[4] = {0, 3, 1, 2};
  const bool in = *perm == ArrayRef<int64_t>(toNhwc);
  if (!in && *perm != ArrayRef<int64_t>(toNchw))
    return std::nullopt;
  // Channels and plane of the NCHW side.
  const int64_t channels = in ? xs[1] : xs[3], plane = in ? xs[2] * xs[3] : xs[1] * xs[2];
  return calls({call(in ? "nchw_to_nhwc" : "nhwc_to_nchw", {t, str(channels), str(plane)},
                     kMcuQs8Conv,
                     {KernelArg::input(op.getData()), KernelArg::output(op.getTransposed())},
                     kMcu)});
}

/// The per-channel requantization constants of a qs8 op with `n` output
/// channels (onnxc_rt::mcu::qs8::channel_params, one int32 constant), and
/// whether its accumulators need the wide rounding: `bound[c]` bounds
/// |acc[c] + bias[c]|.
struct Requantization {
  KernelArg params;
  bool wide = false;
};
Requantization requantization(MLIRContext *ctx, float xScale, ArrayRef<float> wScales,
                              float yScale, ArrayRef<int32_t> bias, ArrayRef<int64_t> bound) {
  const int64_t n = bound.size();
  std::vector<int32_t> words(n * onnxc_rt::mcu::qs8::kChannelWords);
  bool wide = false;
  const SmallVector<Qs8Multiplier> m = channelMultipliers(xScale, wScales, yScale);
  for (int64_t c = 0; c < n; ++c) {
    const Qs8Multiplier &q = m[m.size() > 1 ? c : 0];
    auto ch = onnxc_rt::mcu::qs8::channel_params(bias.empty() ? 0 : bias[c], q.multiplier,
                                                 q.shift);
    onnxc_rt::mcu::qs8::store_channel(ch, words.data(), int(c));
    wide |= onnxc_rt::mcu::qs8::needs_wide(bound[c], ch);
  }
  return {packedInt32s(ctx, words), wide};
}

/// The template arguments of a qs8 kernel after its shapes: input and
/// output zero points, the output range, the rounding.
template <typename QOp>
std::vector<std::string> qs8Tail(QOp op, bool wide) {
  return {str(op.getXZeroPoint()), str(op.getYZeroPoint()), str(op.getActMin()),
          str(op.getActMax()), wide ? "true" : "false"};
}

/// The most |x - x_zp| (and |x|) can be for x's type: 255 for int8 or
/// uint8, 65535 for int16 (the 16x8 scheme).
int64_t activationSpan(Value x) {
  return eltOf(x).getIntOrFloatBitWidth() > 8 ? 65535 : 255;
}

/// Bounds of |sum_k w[c][k] * (x - x_zp) + bias[c]|, x within `span` of
/// its zero point (activationSpan).
std::vector<int64_t> accumulatorBounds(ArrayRef<int8_t> w, int64_t n, int64_t k,
                                       bool transposed, ArrayRef<int32_t> bias,
                                       int64_t span = 255) {
  std::vector<int64_t> bound(n, 0);
  for (int64_t c = 0; c < n; ++c) {
    for (int64_t i = 0; i < k; ++i)
      bound[c] += std::abs(int64_t(transposed ? w[i * n + c] : w[c * k + i])) * span;
    bound[c] += bias.empty() ? 0 : std::abs(int64_t(bias[c]));
  }
  return bound;
}

/// A QConv's constant weights (m rows of k int8) and its requantization
/// with the input zero point folded into the bias: the kernels multiply x
/// as stored. The narrow rounding's bound (255 * sum |w| + |bias| < 2^30)
/// covers the raw accumulator and the folded bias as well as their sum.
/// None when the weights or the bias are not constants of those sizes, or,
/// for int16 activations (whose kernels are the int8 ones: 32-bit sums),
/// when the bound does not prove that the sums fit 32 bits.
struct ConvConstants {
  std::vector<int8_t> w;
  Requantization rq;
};
template <typename QConvLike>
std::optional<ConvConstants> convConstants(QConvLike op, int64_t m, int64_t k) {
  std::vector<int8_t> w = constantInt8s(op.getW());
  std::vector<int32_t> bias = isNone(op.getB()) ? std::vector<int32_t>()
                                                : constantInt32s(op.getB());
  if (int64_t(w.size()) != m * k || (!isNone(op.getB()) && int64_t(bias.size()) != m))
    return std::nullopt;
  std::vector<int64_t> bounds =
      accumulatorBounds(w, m, k, false, bias, activationSpan(op.getX()));
  if (llvm::any_of(bounds, [](int64_t b) { return b >= (int64_t(1) << 31); }))
    return std::nullopt;
  std::vector<int32_t> folded(m);
  onnxc_rt::mcu::qs8::fold_zero_point(w.data(), int(m), int(k), int32_t(op.getXZeroPoint()),
                                      bias.empty() ? nullptr : bias.data(), folded.data());
  Requantization rq = requantization(op.getContext(), op.getXScale().convertToFloat(),
                                     op.getWScale(), op.getYScale().convertToFloat(), folded,
                                     bounds);
  return ConvConstants{std::move(w), std::move(rq)};
}

/// A depthwise QConv (group = input channels = output channels), 2-D,
/// batch 1, constant weights, no fused pool: the weights as they are. On
/// Helium with int8 activations, four output pixels a vector over a padded
/// copy of each plane (depthwise_conv2d_mve); elsewhere, with padding, over
/// such a copy too (depthwise_conv2d_padded).
ProviderResult lowerQDepthwise(QConvOp op, const std::string &t, bool helium) {
  auto xs = shapeOf(op.getX()), ys = shapeOf(op.getY()), ws = shapeOf(op.getW());
  SmallVector<int64_t> kernel(ws.drop_front(2));
  auto g = resolveWindow(op, xs.drop_front(2), kernel, false);
  if (failed(g))
    return {failure()};
  std::string window = windowType(xs, ys, *g);
  std::optional<ConvConstants> k = convConstants(op, xs[1], kernel[0] * kernel[1]);
  if (!k || window.empty())
    return std::nullopt;
  std::vector<KernelArg> args{KernelArg::input(op.getX()), KernelArg::input(op.getW()),
                              k->rq.params, KernelArg::output(op.getY())};
  std::vector<std::string> targs{window};
  for (std::string &a : qs8Tail(op, k->rq.wide))
    targs.push_back(std::move(a));
  if (helium && elementKindOf(eltOf(op.getX())) == ElementKind::Int8) {
    // The padded plane (mcu/qs8/conv.h's PaddedPlane).
    namespace q = onnxc_rt::mcu::qs8;
    const int64_t bytes = q::depthwise_mve_scratch(
        q::padded_extent(int(ys[2]), int(g->strides[0]), int(kernel[0]), int(g->dilations[0]),
                         int(xs[2]), int(g->padsBegin[0])),
        q::padded_extent(int(ys[3]), int(g->strides[1]), int(kernel[1]), int(g->dilations[1]),
                         int(xs[3]), int(g->padsBegin[1])),
        int(g->strides[1]));
    args.push_back(KernelArg::scratch(bytes, "int8_t"));
    return calls({call("depthwise_conv2d_mve", targs, kMcuQs8Conv, std::move(args),
                       kMcuQs8Namespace)});
  }
  targs.insert(targs.begin(), t);
  if (llvm::any_of(g->padsBegin, [](int64_t p) { return p > 0; }) ||
      llvm::any_of(g->padsEnd, [](int64_t p) { return p > 0; })) {
    // Padded: each plane copied inside its border once (PaddedPlane).
    namespace q = onnxc_rt::mcu::qs8;
    const int64_t elements =
        int64_t(q::padded_extent(int(ys[2]), int(g->strides[0]), int(kernel[0]),
                                 int(g->dilations[0]), int(xs[2]), int(g->padsBegin[0]))) *
        q::padded_extent(int(ys[3]), int(g->strides[1]), int(kernel[1]), int(g->dilations[1]),
                         int(xs[3]), int(g->padsBegin[1]));
    args.push_back(KernelArg::scratch(elements * (eltOf(op.getX()).getIntOrFloatBitWidth() / 8),
                                      t));
    return calls({call("depthwise_conv2d_padded", targs, kMcuQs8Conv, std::move(args),
                       kMcuQs8Namespace)});
  }
  return calls({call("depthwise_conv2d", targs, kMcuQs8Conv, std::move(args),
                     kMcuQs8Namespace)});
}

/// Weights packed for Dot (qs8::Smlad, Sxtb16, Vmladava, Mla), its name for the
/// kernel's template, its scratch bytes and their C++ type.
struct PackedConv {
  std::vector<int32_t> words;
  std::string dot, scratchType;
  int64_t scratchBytes;
};
template <typename Dot>
PackedConv packConv(ArrayRef<int8_t> w, int m, int k, int ph, int pw, const char *dot,
                    const char *scratchType) {
  namespace q = onnxc_rt::mcu::qs8;
  PackedConv p{std::vector<int32_t>(q::packed_words<Dot>(m, k)), dot, scratchType,
               q::conv_scratch_bytes<Dot>(k, ph, pw)};
  Dot::pack(w.data(), m, k, p.words.data());
  return p;
}

/// The max pool folded into a convolution (cortexm.QConvMaxPool,
/// QConvNhwc), if any.
std::optional<ArrayRef<int64_t>> maxPoolOf(QConvOp) { return std::nullopt; }
std::optional<ArrayRef<int64_t>> maxPoolOf(QConvMaxPoolOp op) { return op.getMaxPool(); }
std::optional<ArrayRef<int64_t>> maxPoolOf(QConvNhwcOp op) { return op.getMaxPool(); }

/// A convolution's input shape as NCHW (cortexm.QConvNhwc's X is NHWC).
template <typename QConvLike> SmallVector<int64_t, 4> nchwInputShape(QConvLike op) {
  return SmallVector<int64_t, 4>(shapeOf(op.getX()));
}
SmallVector<int64_t, 4> nchwInputShape(QConvNhwcOp op) {
  ArrayRef<int64_t> s = shapeOf(op.getX());
  if (s.size() != 4)
    return SmallVector<int64_t, 4>(s);
  return {s[0], s[3], s[1], s[2]};
}

/// What the dense conv2d kernel needs of a QConv (2-D, group 1, batch 1,
/// constant weights, a window the kernel indexes): its window type, the
/// convolution's own output channels and depth, and its constants.
struct DenseConv {
  std::string window;
  int64_t m, depth;
  ConvConstants constants;
};
template <typename QConvLike> FailureOr<std::optional<DenseConv>> denseConv(QConvLike op) {
  SmallVector<int64_t, 4> xs = nchwInputShape(op);
  ArrayRef<int64_t> ws = shapeOf(op.getW());
  if (xs.size() != 4 || op.getGroup() != 1 || xs[0] != 1)
    return std::optional<DenseConv>();
  SmallVector<int64_t> kernel(ws.drop_front(2));
  auto g = resolveWindow(op, ArrayRef<int64_t>(xs).drop_front(2), kernel, false);
  if (failed(g))
    return failure();
  // The convolution's own output (Y's shape before a fused pool).
  SmallVector<int64_t> ys{1, ws[0], g->outSpatial[0], g->outSpatial[1]};
  std::string window = windowType(xs, ys, *g);
  const int64_t m = ys[1], depth = xs[1] * kernel[0] * kernel[1];
  std::optional<ConvConstants> k = convConstants(op, m, depth);
  if (!k || window.empty())
    return std::optional<DenseConv>();
  return std::optional<DenseConv>(DenseConv{window, m, depth, std::move(*k)});
}

/// QConv, 2-D, group 1, batch 1, constant weights; QConvMaxPool, the
/// fused conv2d_max_pool; QConvNhwc, either on NHWC tensors (the weights
/// packed in the columns' kernel row, kernel column, channel order);
/// depthwise ones above. `int8Weights`: the SMLAD
/// convolutions' weights as int8 (qs8::Sxtb16; --conv-weights int8); with
/// `mla` (the M3) and int8 inputs, their products by MLA on byte columns
/// (qs8::Mla).
template <typename QConvLike>
ProviderResult lowerQConv(QConvLike op, const std::string &t, bool helium, bool int8Weights,
                          bool mla) {
  auto xs = shapeOf(op.getX()), ws = shapeOf(op.getW());
  const std::optional<ArrayRef<int64_t>> pool = maxPoolOf(op);
  constexpr bool nhwc = std::is_same_v<QConvLike, QConvNhwcOp>;
  if constexpr (std::is_same_v<QConvLike, QConvOp>)
    if (xs.size() == 4 && xs[0] == 1 && op.getGroup() > 1 && int64_t(op.getGroup()) == xs[1] &&
        ws[0] == xs[1])
      return lowerQDepthwise(op, t, helium);
  FailureOr<std::optional<DenseConv>> dense = denseConv(op);
  if (failed(dense))
    return {failure()};
  if (!*dense) {
    if constexpr (nhwc) // onnxc-mcu-nhwc-regions asked runsDenseConvKernel first
      return {op.emitOpError() << "is not one the NHWC convolution kernel runs"};
    return std::nullopt;
  }
  const std::string &window = (*dense)->window;
  const int64_t m = (*dense)->m, depth = (*dense)->depth;
  ConvConstants *k = &(*dense)->constants;
  std::vector<std::string> targs{t, window, str(m)};
  for (std::string &a : qs8Tail(op, k->rq.wide))
    targs.push_back(std::move(a));
  std::string callee = "conv2d";
  int ph = 1, pw = 1;
  if (pool) {
    callee = "conv2d_max_pool";
    ph = int((*pool)[0]);
    pw = int((*pool)[1]);
    targs.push_back(str(ph));
    targs.push_back(str(pw));
  }
  // Helium's int8 product takes int8 inputs; uint8 ones stay on SMLAD's int16.
  namespace q = onnxc_rt::mcu::qs8;
  const bool int8In = elementKindOf(eltOf(op.getX())) == ElementKind::Int8;
  const bool helium8 = helium && int8In;
  if (nhwc) {
    std::vector<int8_t> onnxOrder = std::move(k->w);
    k->w.resize(onnxOrder.size());
    onnxc_rt::mcu::weights_to_nhwc(onnxOrder.data(), int(m), int(ws[1]), int(ws[2]),
                                   int(ws[3]), k->w.data());
  }
  if (helium8 && !pool && !nhwc) {
    // Four output channels and two pixels a block (conv2d_mve).
    std::vector<int32_t> quads(q::mve_quad_words(int(m), int(depth)));
    q::pack_mve_quads(k->w.data(), int(m), int(depth), quads.data());
    std::vector<std::string> mveArgs{window, str(m)};
    for (std::string &a : qs8Tail(op, k->rq.wide))
      mveArgs.push_back(std::move(a));
    return calls({call("conv2d_mve", mveArgs, kMcuQs8Conv,
                       {KernelArg::input(op.getX()), packedInt32s(op.getContext(), quads),
                        k->rq.params, KernelArg::output(op.getY()),
                        KernelArg::scratch(2 * q::Vmladava::depth(int(depth)), "int8_t")},
                       kMcuQs8Namespace)});
  }
  const bool helium16 = helium && eltOf(op.getX()).getIntOrFloatBitWidth() == 16;
  PackedConv p =
      helium8 ? packConv<q::Vmladava>(k->w, int(m), int(depth), ph, pw,
                                  "onnxc_rt::mcu::qs8::Vmladava", "int8_t")
      : helium16 ? packConv<q::Vmladava16>(k->w, int(m), int(depth), ph, pw,
                                           "onnxc_rt::mcu::qs8::Vmladava16", "int16_t")
      : int8Weights && mla && int8In
          ? packConv<q::Mla>(k->w, int(m), int(depth), ph, pw, "onnxc_rt::mcu::qs8::Mla",
                             "int8_t")
      : int8Weights ? packConv<q::Sxtb16>(k->w, int(m), int(depth), ph, pw,
                                          "onnxc_rt::mcu::qs8::Sxtb16", "int16_t")
                    : packConv<q::Smlad>(k->w, int(m), int(depth), ph, pw,
                                         "onnxc_rt::mcu::qs8::Smlad", "int16_t");
  targs.push_back(p.dot);
  if (nhwc)
    targs.push_back("onnxc_rt::mcu::Layout::Nhwc");
  return calls({call(callee, targs, kMcuQs8Conv,
                     {KernelArg::input(op.getX()), packedInt32s(op.getContext(), p.words),
                      k->rq.params, KernelArg::output(op.getY()),
                      KernelArg::scratch(p.scratchBytes, p.scratchType)},
                     kMcuQs8Namespace)});
}

/// QMatMul with constant int8 weights (k x n): four output rows at a time
/// on int8 weights widened by SXTB16 for SMLAD, or, on Helium with int8 activations, on
/// VMLADAVA with the input multiplied as stored (its zero point folded into
/// the biases, as the convolutions do); on ARMv6-M the weight bytes plus
/// 128, one LDRB each.
ProviderResult lowerQMatMul(QMatMulOp op, const std::string &t, bool helium, bool armv6m) {
  auto ws = shapeOf(op.getW());
  const int64_t k = ws[0], n = ws[1], rows = numel(op.getA()) / std::max<int64_t>(k, 1);
  std::vector<int8_t> w = constantInt8s(op.getW());
  std::vector<int32_t> bias = isNone(op.getB()) ? std::vector<int32_t>()
                                                : constantInt32s(op.getB());
  if (w.empty() || (!isNone(op.getB()) && int64_t(bias.size()) != n) ||
      rows * k >= kMaxIndex || rows * n >= kMaxIndex)
    return std::nullopt;
  // 16-bit inputs: x - x_zp is packed in 16 bits (zero point 0 only) and
  // the 32-bit sums must provably fit.
  const std::vector<int64_t> bounds =
      accumulatorBounds(w, n, k, true, bias, activationSpan(op.getA()));
  if (activationSpan(op.getA()) > 255 &&
      (op.getXZeroPoint() != 0 ||
       llvm::any_of(bounds, [](int64_t b) { return b >= (int64_t(1) << 31); })))
    return std::nullopt;
  namespace q = onnxc_rt::mcu::qs8;
  const bool mve = helium && elementKindOf(eltOf(op.getA())) == ElementKind::Int8 &&
                   elementKindOf(eltOf(op.getY())) == ElementKind::Int8;
  std::vector<int32_t> folded = bias;
  std::vector<int32_t> packed;
  if (mve) {
    std::vector<int8_t> rowsOfW(n * k); // output j's weights as row j
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j)
        rowsOfW[j * k + i] = w[i * n + j];
    folded.assign(n, 0);
    q::fold_zero_point(rowsOfW.data(), int(n), int(k), int32_t(op.getXZeroPoint()),
                       bias.empty() ? nullptr : bias.data(), folded.data());
    packed.resize(q::packed_words<q::Vmladava>(int(n), int(k)));
    q::Vmladava::pack(rowsOfW.data(), int(n), int(k), packed.data());
  } else {
    packed.resize(q::fc_packed_words(int(k), int(n)));
    q::pack_fc_weights(w.data(), int(k), int(n), packed.data(),
                       armv6m ? q::FcBytes::Biased : q::FcBytes::Signed);
  }
  Requantization rq = requantization(op.getContext(), op.getXScale().convertToFloat(),
                                     op.getWScale(), op.getYScale().convertToFloat(), folded,
                                     bounds);
  if (mve)
    return calls({call("fully_connected_mve",
                       {str(rows), str(k), str(n), str(op.getYZeroPoint()),
                        str(op.getActMin()), str(op.getActMax()), rq.wide ? "true" : "false"},
                       kMcuQs8FullyConnected,
                       {KernelArg::input(op.getA()), packedInt32s(op.getContext(), packed),
                        rq.params, KernelArg::output(op.getY())},
                       kMcuQs8Namespace)});
  std::vector<std::string> targs{t, str(rows), str(k), str(n)};
  for (std::string &a : qs8Tail(op, rq.wide))
    targs.push_back(std::move(a));
  if (armv6m)
    targs.push_back("onnxc_rt::mcu::qs8::FcBytes::Biased");
  return calls({call("fully_connected", targs, kMcuQs8FullyConnected,
                     {KernelArg::input(op.getA()), packedInt32s(op.getContext(), packed),
                      rq.params, KernelArg::output(op.getY()),
                      KernelArg::scratch(q::fc_scratch_bytes(int(k)), "int32_t")},
                     kMcuQs8Namespace)});
}

/// QAdd of same-shape tensors (broadcasts run the reference kernel).
ProviderResult lowerQAdd(QAddOp op, const std::string &t) {
  const int64_t n = numel(op.getY());
  if (numel(op.getA()) != n || numel(op.getB()) != n || n >= kMaxIndex)
    return std::nullopt;
  namespace q = onnxc_rt::mcu::qs8;
  const onnxc_rt::ref::qs8::AddParams p = addParams(op);
  std::vector<int32_t> words(3 * q::kChannelWords);
  bool wide = false;
  const int32_t rescale[3][2] = {{p.a_multiplier, p.a_shift},
                                 {p.b_multiplier, p.b_shift},
                                 {p.y_multiplier, p.y_shift}};
  for (int c = 0; c < 3; ++c) {
    q::Channel ch = q::channel_params(0, rescale[c][0], rescale[c][1]);
    q::store_channel(ch, words.data(), c);
    // The inputs' values after the left shift, and the sum of both.
    const int64_t bound = int64_t(255) << p.left_shift;
    wide |= q::needs_wide(c < 2 ? bound : 2 * bound, ch);
  }
  return calls({call("add",
                     {t, str(n), str(p.left_shift), str(p.a_zp), str(p.b_zp), str(p.y_zp),
                      str(p.act_min), str(p.act_max), wide ? "true" : "false"},
                     kMcuQs8Elementwise,
                     {KernelArg::input(op.getA()), KernelArg::input(op.getB()),
                      packedInt32s(op.getContext(), words), KernelArg::output(op.getY())},
                     kMcuQs8Namespace)});
}

/// QAveragePool whose window is the whole plane without padding (a
/// GlobalAveragePool); other windows run the reference kernel.
ProviderResult lowerQGlobalAveragePool(QAveragePoolOp op, const std::string &t) {
  auto xs = shapeOf(op.getX());
  if (xs.size() < 3 || ArrayRef<int64_t>(op.getKernelShape()) != xs.drop_front(2) ||
      numel(op.getY()) != xs[0] * xs[1])
    return std::nullopt;
  if (auto pads = op.getPads())
    for (int64_t p : *pads)
      if (p != 0)
        return std::nullopt;
  int64_t inner = 1;
  for (int64_t d : xs.drop_front(2))
    inner *= d;
  if (numel(op.getX()) >= kMaxIndex || (activationSpan(op.getX()) > 255 && inner >= (1 << 15)))
    return std::nullopt;
  const Qs8Multiplier m = rescaleMultiplier(op);
  return calls({call("global_average_pool",
                     {t, str(xs[0] * xs[1]), str(inner), str(op.getXZeroPoint()),
                      str(op.getYZeroPoint()), str(m.multiplier), str(m.shift)},
                     kMcuQs8Pool, {KernelArg::input(op.getX()), KernelArg::output(op.getY())},
                     kMcuQs8Namespace)});
}

/// QuantizeLinear of float to int8/uint8 per tensor, constant scale and
/// zero point.
ProviderResult lowerQuantize(QuantizeLinearOp op) {
  Value x = op->getOperand(0), scale = op->getOperand(1), y = op->getResult(0);
  if (!eltOf(x).isF32() || numel(scale) != 1 || numel(y) >= kMaxIndex ||
      !(eltOf(y).isInteger(8)))
    return std::nullopt;
  std::vector<float> s = constantFloats(scale);
  int64_t zp = 0;
  if (op->getNumOperands() > 2 && !isNone(op->getOperand(2))) {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(getConstantElements(op->getOperand(2)));
    if (!dense || dense.getNumElements() != 1)
      return std::nullopt;
    zp = dense.getValues<APInt>()[0].getSExtValue();
    if (eltOf(y).isUnsignedInteger(8))
      zp = dense.getValues<APInt>()[0].getZExtValue();
  }
  if (s.size() != 1 || !(s[0] > 0))
    return std::nullopt;
  return calls({call("quantize", {cppTypeName(eltOf(y)), str(numel(y)), str(zp)}, kMcuQs8Quantize,
                     {KernelArg::input(x), KernelArg::f(s[0]), KernelArg::output(y)},
                     kMcuQs8Namespace)});
}

} // namespace

bool runsDenseConvKernel(Operation *op) {
  if (op->getNumOperands() == 0 || op->getNumResults() != 1 || inBoundedProbe(op))
    return false;
  Type x = eltOf(op->getOperand(0)), y = eltOf(op->getResult(0));
  const ElementKind kind = elementKindOf(x);
  const bool int16 = x == y && x.isInteger(16);
  if (kind != ElementKind::Int8 && kind != ElementKind::UInt8 && !int16)
    return false;
  auto dense = [](auto conv) {
    FailureOr<std::optional<DenseConv>> d = denseConv(conv);
    return succeeded(d) && d->has_value();
  };
  if (auto conv = dyn_cast<QConvOp>(op))
    return dense(conv);
  if (auto conv = dyn_cast<QConvMaxPoolOp>(op))
    return dense(conv);
  return false;
}

llvm::StringRef CortexMKernelProvider::name() const { return "mcu"; }

ProviderResult CortexMKernelProvider::lower(Operation *op, const LoweringContext &ctx) const {
  // These kernels take their sizes as template arguments: a model with
  // bounded dims runs the reference kernels, which take them at run time.
  if (inBoundedProbe(op))
    return std::nullopt;
  const std::string &t = ctx.elementType;
  auto convWeights = ctx.options.find("conv-weights");
  const bool int8Weights = convWeights != ctx.options.end() && convWeights->second == "int8";
  if (auto pool = dyn_cast<MaxPoolOp>(op))
    return ctx.isFloat() || ctx.isQuantized() ? lowerMaxPool(pool, t) : std::nullopt;
  // int16 activations (the 16x8 scheme) take the same kernels on their
  // int16 columns where 32-bit sums provably suffice (convConstants,
  // lowerQMatMul, lowerQGlobalAveragePool; the Helium and MLA forms only
  // take int8), but not the add, whose headroom is int8's: the reference
  // kernels run the rest.
  const bool int16 = t == "int16_t" && eltOf(op->getResult(0)) == eltOf(op->getOperand(0));
  if (ctx.isQuantized() || int16)
    return TypeSwitch<Operation *, ProviderResult>(op)
        .Case<QConvOp>([&](QConvOp o) { return lowerQConv(o, t, helium_, int8Weights, mla_); })
        .Case<QConvMaxPoolOp>([&](QConvMaxPoolOp o) -> ProviderResult {
          // Where the kernel does not run it (batch above 1, say), the
          // reference kernel: the convolution, then the pool.
          if (ProviderResult r = lowerQConv(o, t, helium_, int8Weights, mla_))
            return r;
          return {referenceQConv(o, o.getMaxPool())};
        })
        .Case<QConvNhwcOp>([&](QConvNhwcOp o) -> ProviderResult {
          return lowerQConv(o, t, helium_, int8Weights, mla_);
        })
        .Case<TransposeOp>([&](TransposeOp o) { return lowerLayoutTranspose(o, t); })
        .Case<QMatMulOp>([&](QMatMulOp o) { return lowerQMatMul(o, t, helium_, armv6m_); })
        .Case<QAddOp>([&](QAddOp o) -> ProviderResult {
          return int16 ? std::nullopt : lowerQAdd(o, t);
        })
        .Case<QAveragePoolOp>([&](QAveragePoolOp o) { return lowerQGlobalAveragePool(o, t); })
        .Default([](Operation *) -> ProviderResult { return std::nullopt; });
  if (!ctx.isFloat())
    return std::nullopt;
  if (auto q = dyn_cast<QuantizeLinearOp>(op))
    return lowerQuantize(q);
  return TypeSwitch<Operation *, ProviderResult>(op)
      .Case<GemmOp>([&](GemmOp o) { return lowerGemm(o); })
      .Case<FusedGemmOp>([&](FusedGemmOp o) { return lowerGemm(o); })
      .Case<ConvOp>([&](ConvOp o) {
        return lowerConv(o, o.getX(), o.getW(), o.getB(), o.getY(), o.getGroup());
      })
      .Case<FusedConvOp>([&](FusedConvOp o) -> ProviderResult {
        if (!isNone(o.getZ()))
          return std::nullopt;
        return lowerConv(o, o.getX(), o.getW(), o.getB(), o.getY(), o.getGroup());
      })
      .Default([](Operation *) -> ProviderResult { return std::nullopt; });
}

} // namespace onnxc::cortexm
