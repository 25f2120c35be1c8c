//===- SimdKernelProvider.cpp - ops the SIMD kernels run -------------------===//
//
// Lowers the ops runtime-lite's SIMD kernels cover (onnxc_rt::simd, built
// for AVX2+FMA, AVX-512 or NEON by the target's flags; float here, the qs8
// integer ops in SimdQs8.cpp) and answers "not mine" for the rest, which
// then run on the reference kernels: Gemm/FusedGemm and MatMul (packed GEMM), 2-D
// Conv/FusedConv (direct, pixel-major, depthwise), the channel-blocked
// convolutions, pools and layout conversions that onnxc-layout-selection
// introduces, 2-D MaxPool, GlobalAveragePool, last-axis Softmax/LogSoftmax
// and LayerNormalization. Constant weights are packed here, at compile time,
// into the layouts the kernels read (Winograd: transformed). With
// --precision bf16 (x86-64-amx) the convolutions and matrix products that
// simd/bf16/ takes run there instead, their constant weights rounded to
// bfloat16 here.
//
//===----------------------------------------------------------------------===//
#include "SimdTarget.h"

#include "SimdDialect.h"

#include "onnxc/Lowering/CallBuilders.h"
#include "onnxc_rt/kernels/simd/bf16/pack.h"
#include "onnxc_rt/kernels/simd/f32/blocking.h"
#include "onnxc_rt/kernels/simd/f32/winograd_plan.h"
#include "onnxc_rt/kernels/simd/qs8/pack.h"
#include "onnxc_rt/kernels/simd/qs8/window_plan.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <optional>

using namespace mlir;
using namespace onnxc::onnx;
using namespace onnxc::lowering;

namespace onnxc::simd {
namespace {

constexpr const char *kSimdGemm = "onnxc_rt/kernels/simd/f32/gemm.h";
constexpr const char *kSimdConv = "onnxc_rt/kernels/simd/f32/conv.h";
constexpr const char *kSimdDepthwise = "onnxc_rt/kernels/simd/f32/depthwise.h";
constexpr const char *kSimdPool = "onnxc_rt/kernels/simd/f32/pool.h";
constexpr const char *kSimdNorm = "onnxc_rt/kernels/simd/f32/norm.h";
constexpr const char *kSimdBlocked = "onnxc_rt/kernels/simd/f32/blocked.h";
constexpr const char *kSimdBlockedWindow = "onnxc_rt/kernels/simd/f32/blocked_window.h";
constexpr const char *kSimdWinograd = "onnxc_rt/kernels/simd/f32/winograd.h";
constexpr const char *kSimdExpandDepthwise = "onnxc_rt/kernels/simd/f32/expand_depthwise.h";
constexpr const char *kSimdChannelGather = "onnxc_rt/kernels/simd/f32/channel_gather.h";
constexpr const char *kSimdBf16Conv = "onnxc_rt/kernels/simd/bf16/conv2d.h";
constexpr const char *kSimdBf16Gemm = "onnxc_rt/kernels/simd/bf16/gemm.h";

/// A call into the SIMD kernels (onnxc_rt::simd).
KernelCall simdCall(StringRef callee, ArrayRef<std::string> targs, const char *header,
                   std::vector<KernelArg> args) {
  return call(callee, targs, header, std::move(args), "onnxc_rt::simd");
}

/// A constant B (k x n, element (p, j) at [p * rs + j * cs]) of an m-row
/// product packed ahead for gemm_prepacked (pack_b_ahead, `columns` the
/// target's kNR), or none where B is not constant or m < 2 (gemm then
/// takes B as it is: at m == 1 a row times B reads it in place).
std::optional<KernelArg> prepackedB(Value b, int64_t m, int64_t k, int64_t n, int64_t rs,
                                    int64_t cs, int64_t columns) {
  std::vector<float> src = m >= 2 ? constantFloats(b) : std::vector<float>{};
  if (src.empty())
    return std::nullopt;
  std::vector<float> packed(onnxc_rt::simd::packed_b_floats(k, n, columns));
  onnxc_rt::simd::pack_b_ahead(src.data(), rs, cs, k, n, columns, packed.data());
  return packedFloats(b.getContext(), packed);
}

/// gemm's arguments with B replaced by its packing (trans_b goes: B was
/// packed as op(B)).
std::vector<KernelArg> withPackedB(std::vector<KernelArg> gemmArgs, KernelArg packedB) {
  constexpr size_t kB = 1, kTransB = 8;
  gemmArgs[kB] = std::move(packedB);
  gemmArgs.erase(gemmArgs.begin() + kTransB);
  return gemmArgs;
}

/// gemm_prepacked<Act, columns>(A, packed B, ...) of an m x k x n
/// product. `gemmArgs` are gemm's up to its activation parameters (A, B, C,
/// Y, m, n, k, trans_a, trans_b, alpha, beta, C's strides, act_alpha,
/// act_beta): B becomes its packing, trans_b goes (B was packed as op(B)),
/// and the scratch is A's block alone (prepacked_gemm_scratch_floats).
KernelCall prepackedGemmCall(std::vector<KernelArg> gemmArgs, KernelArg packedB,
                             const std::string &act, int64_t columns, int64_t m, int64_t k,
                             int64_t tasks) {
  gemmArgs = withPackedB(std::move(gemmArgs), std::move(packedB));
  gemmArgs.push_back(
      KernelArg::scratch(tasks * onnxc_rt::simd::prepacked_gemm_scratch_floats(m, k) * 4, "float"));
  appendTasks(gemmArgs, tasks);
  return simdCall("gemm_prepacked", {act, std::to_string(columns)}, kSimdGemm,
                  std::move(gemmArgs));
}

/// --precision bf16 (x86-64-amx): simd/bf16/gemm.h's gemm<act> of gemm's
/// arguments (as prepackedGemmCall takes them), its constant B (k x n,
/// element (p, j) at [p * rs + j * cs]) rounded and packed here, where
/// bf16::gemm_applies; none otherwise.
std::optional<KernelCall> bf16GemmCall(std::vector<KernelArg> gemmArgs, Value b, int64_t m,
                                       int64_t k, int64_t n, int64_t rs, int64_t cs,
                                       const std::string &act, int64_t tasks) {
  namespace b16 = onnxc_rt::simd::bf16;
  if (!b16::gemm_applies(m, k))
    return std::nullopt;
  std::vector<float> src = constantFloats(b);
  if (src.empty())
    return std::nullopt;
  std::vector<uint16_t> packed(b16::gemm_packed_b_halves(k, n));
  b16::pack_gemm_b(src.data(), rs, cs, k, n, packed.data());
  gemmArgs = withPackedB(std::move(gemmArgs), packedUint16s(b.getContext(), packed));
  gemmArgs.push_back(KernelArg::scratch(b16::gemm_scratch_bytes(m, k), "uint8_t"));
  appendTasks(gemmArgs, tasks);
  return call("gemm", {act}, kSimdBf16Gemm, std::move(gemmArgs), "onnxc_rt::simd::bf16");
}

ProviderResult lowerMatMul(MatMulOp op, int64_t tasks, int64_t columns, bool bf16) {
  std::vector<KernelArg> args{KernelArg::input(op.getA()), KernelArg::input(op.getB()),
                              KernelArg::output(op.getY())};
  MatMulGeometry g = matmulGeometry(op.getA(), op.getB());
  // B without batch dims: A's batch rows are one taller product.
  if (shapeOf(op.getB()).size() == 2 && shapeOf(op.getA()).size() >= 2) {
    g.m = numel(op.getA()) / std::max<int64_t>(g.k, 1);
    g.batch.clear();
    g.strides = {{}, {}};
    // A constant B (weights): the product as a Gemm (no C, alpha 1, no
    // activation) with B packed ahead.
    std::vector<KernelArg> gemmArgs{
        KernelArg::input(op.getA()), KernelArg::input(op.getB()), KernelArg::null(),
        KernelArg::output(op.getY()), KernelArg::i(g.m), KernelArg::i(g.n), KernelArg::i(g.k),
        KernelArg::i(0), KernelArg::i(0), KernelArg::f(1.0f), KernelArg::f(1.0f),
        KernelArg::i(0), KernelArg::i(0), KernelArg::f(0.0f), KernelArg::f(0.0f)};
    if (bf16)
      if (std::optional<KernelCall> c = bf16GemmCall(gemmArgs, op.getB(), g.m, g.k, g.n, g.n, 1,
                                                     "onnxc_rt::ref::Identity", tasks))
        return calls({std::move(*c)});
    std::optional<KernelArg> packed = prepackedB(op.getB(), g.m, g.k, g.n, g.n, 1, columns);
    if (packed) {
      return calls({prepackedGemmCall(std::move(gemmArgs), std::move(*packed),
                                      "onnxc_rt::ref::Identity", columns, g.m, g.k, tasks)});
    }
  }
  for (KernelArg &a : g.args())
    args.push_back(a);
  // --precision bf16: two activations' product on AMX-BF16 tiles, both
  // rounded per call (simd/bf16/gemm.h's matmul).
  if (bf16 && onnxc_rt::simd::bf16::matmul_applies(g.m, g.k, g.n)) {
    args.push_back(KernelArg::scratch(
        onnxc_rt::simd::bf16::matmul_scratch_bytes(g.m, g.k, g.n), "uint8_t"));
    appendTasks(args, tasks);
    return calls({call("matmul", {}, kSimdBf16Gemm, std::move(args), "onnxc_rt::simd::bf16")});
  }
  args.push_back(KernelArg::scratch(
      tasks * onnxc_rt::simd::gemm_scratch_floats(g.m, g.n, g.k) * 4, "float"));
  appendTasks(args, tasks);
  return calls({simdCall("matmul", {"float"}, kSimdGemm, std::move(args))});
}

/// Gemm and FusedGemm: the activation is applied to each tile in the epilogue.
template <typename GemmLike>
ProviderResult lowerGemm(GemmLike op, int64_t tasks, int64_t columns, bool bf16) {
  GemmGeometry g = gemmGeometry(op);
  const FusedActivation act = activationOf(op);
  g.args.push_back(KernelArg::f(act.alpha));
  g.args.push_back(KernelArg::f(act.beta));
  // op(B) (k x n) of B as stored: (k, n), or (n, k) transposed.
  const bool tb = op.getTransB();
  if (bf16)
    if (std::optional<KernelCall> c = bf16GemmCall(g.args, op.getB(), g.m, g.k, g.n,
                                                   tb ? 1 : g.n, tb ? g.k : 1, act.functor, tasks))
      return calls({std::move(*c)});
  std::optional<KernelArg> packed =
      prepackedB(op.getB(), g.m, g.k, g.n, tb ? 1 : g.n, tb ? g.k : 1, columns);
  if (packed)
    return calls({prepackedGemmCall(std::move(g.args), std::move(*packed), act.functor, columns,
                                    g.m, g.k, tasks)});
  g.args.push_back(
      KernelArg::scratch(tasks * onnxc_rt::simd::gemm_scratch_floats(g.m, g.n, g.k) * 4, "float"));
  appendTasks(g.args, tasks);
  return calls({simdCall("gemm", {act.functor}, kSimdGemm, std::move(g.args))});
}

/// The window arguments of the 2-D SIMD kernels: in and out shapes, kernel,
/// strides, leading pads, dilations (the output shape implies the rest).
std::vector<KernelArg> simdWindowArgs(Value x, Value y, const WindowGeometry &g) {
  return {KernelArg::array(shapeOf(x)), KernelArg::array(shapeOf(y)),
          KernelArg::array(g.kernel),   KernelArg::array(g.strides),
          KernelArg::array(g.padsBegin), KernelArg::array(g.dilations)};
}

/// Constant conv weights packed per group into the layout the SIMD kernel's
/// path reads (pack_conv_weights), so it reads them as they are; null
/// (packed at run time, channel-major) otherwise.
KernelArg packedConvWeights(Value w, Value x, Value y, const WindowGeometry &g,
                            int64_t group) {
  std::vector<float> src = constantFloats(w);
  if (src.empty())
    return KernelArg::null();
  auto xs = shapeOf(x), ys = shapeOf(y), ws = shapeOf(w);
  SmallVector<int64_t> kernel(ws.drop_front(2));
  std::vector<float> packed(onnxc_rt::simd::conv_packed_weights_floats(
      xs.data(), ys.data(), kernel.data(), g.strides.data(), g.padsBegin.data(),
      g.dilations.data(), group));
  onnxc_rt::simd::pack_conv_weights(src.data(), xs.data(), ys.data(), kernel.data(),
                                   g.strides.data(), g.padsBegin.data(), g.dilations.data(),
                                   group, packed.data());
  return packedFloats(w.getContext(), packed);
}

/// --precision bf16 (x86-64-amx): a dense or grouped convolution with
/// constant weights whose channels bf16::conv_applies takes, its products on
/// AMX-BF16 tiles (simd/bf16/conv2d.h), the weights rounded and packed
/// here; none for the rest, which stay fp32.
std::optional<KernelCall> bf16Conv(Value x, Value w, Value b, Value z, Value y,
                                   const WindowGeometry &g, int64_t group,
                                   const FusedActivation &act, int64_t tasks) {
  namespace b16 = onnxc_rt::simd::bf16;
  auto xs = shapeOf(x), ys = shapeOf(y), ws = shapeOf(w);
  const int64_t cg = xs[1] / group, taps = ws[2] * ws[3];
  if (!b16::conv_applies(cg, taps))
    return std::nullopt;
  std::vector<float> src = constantFloats(w);
  if (src.empty())
    return std::nullopt;
  std::vector<uint16_t> packed(b16::conv_packed_halves(ys[1], cg, taps, group));
  b16::pack_conv_weights(src.data(), ys[1], cg, taps, group, packed.data());
  std::vector<KernelArg> args{KernelArg::input(x), packedUint16s(w.getContext(), packed),
                              inputOrNull(b), inputOrNull(z), KernelArg::output(y)};
  for (KernelArg &a : simdWindowArgs(x, y, g))
    args.push_back(std::move(a));
  args.insert(args.end(), {KernelArg::i(group), KernelArg::f(act.alpha), KernelArg::f(act.beta)});
  SmallVector<int64_t> kernel(ws.drop_front(2));
  args.push_back(KernelArg::scratch(b16::conv2d_scratch_bytes(xs.data(), ys.data(), kernel.data(),
                                                              g.strides.data(),
                                                              g.dilations.data(), group),
                                    "uint8_t"));
  appendTasks(args, tasks);
  return call("conv2d", {act.functor}, kSimdBf16Conv, std::move(args), "onnxc_rt::simd::bf16");
}

/// 2-D Conv and FusedConv (Z: the residual added before the activation, or
/// none), bias, residual and activation applied in the epilogue; `bf16`:
/// --precision bf16's convolutions where bf16Conv takes them.
ProviderResult lowerConv(Operation *op, Value x, Value w, Value b, Value z, Value y,
                         int64_t group, int64_t tasks, bool bf16) {
  auto ws = shapeOf(w);
  SmallVector<int64_t> kernel(ws.drop_front(2));
  if (kernel.size() != 2)
    return std::nullopt;
  const FusedActivation act = activationOf(op);
  auto g = resolveWindow(op, shapeOf(x).drop_front(2), kernel, false);
  if (failed(g))
    return {failure()};
  auto xs = shapeOf(x), ys = shapeOf(y);
  const int64_t cg = xs[1] / group;
  const bool depthwise = cg == 1;
  if (bf16)
    if (std::optional<KernelCall> c = bf16Conv(x, w, b, z, y, *g, group, act, tasks))
      return calls({std::move(*c)});
  std::vector<KernelArg> args{KernelArg::input(x), KernelArg::input(w)};
  if (!depthwise)
    args.push_back(packedConvWeights(w, x, y, *g, group));
  args.insert(args.end(), {inputOrNull(b), inputOrNull(z), KernelArg::output(y)});
  for (KernelArg &a : simdWindowArgs(x, y, *g))
    args.push_back(std::move(a));
  if (!depthwise)
    args.push_back(KernelArg::i(group));
  args.push_back(KernelArg::f(act.alpha));
  args.push_back(KernelArg::f(act.beta));
  const int64_t floats =
      depthwise ? tasks * onnxc_rt::simd::depthwise_scratch_floats(
                              xs[1], ys[1], ys[2], ys[3], kernel[0], kernel[1], g->strides[0],
                              g->strides[1], g->dilations[0], g->dilations[1])
                : onnxc_rt::simd::conv2d_scratch_floats(xs.data(), ys.data(), kernel.data(),
                                                       g->strides.data(), g->padsBegin.data(),
                                                       g->dilations.data(), group, tasks);
  args.push_back(KernelArg::scratch(floats * 4, "float"));
  appendTasks(args, tasks);
  // The kernel's path, named so that the model's code holds only that one;
  // a bounded-dims build's shapes vary, so its kernels decide at run time.
  namespace rt = onnxc_rt::simd;
  const bool bounded = inBoundedProbe(op);
  const std::string method =
      depthwise ? std::string("onnxc_rt::simd::DepthwiseMethod::") +
                      rt::depthwise_method_name(
                          bounded ? rt::DepthwiseMethod::Any
                                  : rt::depthwise_method(xs[1], ys[1], ys[3], kernel[0],
                                                         kernel[1], g->strides[0], g->strides[1],
                                                         g->dilations[0], g->dilations[1]))
                : std::string("onnxc_rt::simd::ConvMethod::") +
                      rt::conv_method_name(
                          bounded ? rt::ConvMethod::Any
                                  : rt::conv2d_method(xs.data(), ys.data(), kernel.data(),
                                                      g->strides.data(), g->padsBegin.data(),
                                                      g->dilations.data(), group,
                                                      args[2].kind != KernelArg::Kind::Null));
  return calls({simdCall(depthwise ? "depthwise_conv2d" : "conv2d", {act.functor, method},
                         depthwise ? kSimdDepthwise : kSimdConv,
                        std::move(args))});
}

/// ToBlocked / FromBlocked: NCHW <-> blocked, split into tasks.
ProviderResult lowerLayoutConversion(Operation *op, int64_t tasks) {
  const bool to = isa<ToBlockedOp>(op);
  auto nchw = logicalShape(to ? op->getOperand(0) : op->getResult(0));
  std::vector<KernelArg> args{KernelArg::input(op->getOperand(0)),
                              KernelArg::output(op->getResult(0)), KernelArg::i(nchw[0]),
                              KernelArg::i(nchw[1]), KernelArg::i(nchw[2] * nchw[3])};
  appendTasks(args, tasks);
  return calls({simdCall(to ? "to_blocked" : "from_blocked", {}, kSimdBlocked, std::move(args))});
}

/// --precision bf16 (x86-64-amx): a dense BlockedConv of a blocked input
/// whose channels bf16::conv_applies takes, on AMX-BF16 tiles
/// (simd/bf16/conv2d.h's conv2d_blocked, in place of direct or Winograd),
/// the weights rounded and packed here; none for the rest.
std::optional<KernelCall> bf16BlockedConv(BlockedConvOp op, ArrayRef<int64_t> in,
                                          ArrayRef<int64_t> out, const WindowGeometry &g,
                                          const FusedActivation &act, int64_t tasks) {
  namespace b16 = onnxc_rt::simd::bf16;
  auto ws = shapeOf(op.getW());
  const int64_t m = ws[0], c = ws[1], taps = ws[2] * ws[3];
  if (op.getGroup() != 1 || shapeOf(op.getX()).size() != 5 || !b16::conv_applies(c, taps))
    return std::nullopt;
  std::vector<float> w = constantFloats(op.getW());
  if (w.empty())
    return std::nullopt;
  std::vector<uint16_t> packed(b16::blocked_conv_packed_halves(m, c, taps));
  b16::pack_blocked_conv_weights(w.data(), m, c, taps, packed.data());
  std::vector<KernelArg> args{KernelArg::input(op.getX()),
                              packedUint16s(op.getContext(), packed),
                              inputOrNull(op.getB()),
                              inputOrNull(op.getZ()),
                              KernelArg::output(op.getY()),
                              KernelArg::array(in),
                              KernelArg::array(out),
                              KernelArg::array(g.kernel),
                              KernelArg::array(g.strides),
                              KernelArg::array(g.padsBegin),
                              KernelArg::array(g.dilations),
                              KernelArg::f(act.alpha),
                              KernelArg::f(act.beta)};
  args.push_back(KernelArg::scratch(b16::conv2d_scratch_bytes(in.data(), out.data(),
                                                              g.kernel.data(), g.strides.data(),
                                                              g.dilations.data(), 1),
                                    "uint8_t"));
  appendTasks(args, tasks);
  return call("conv2d_blocked", {act.functor}, kSimdBf16Conv, std::move(args),
              "onnxc_rt::simd::bf16");
}

/// A blocked convolution's constant weights W (m, c/group, kh, kw) packed as
/// its kernel reads them (pack_blocked_conv_weights); none where W is not a
/// constant.
std::optional<KernelArg> blockedWeights(Value w, int64_t m, int64_t c, int64_t taps,
                                        bool inBlocked, bool depthwise) {
  namespace s = onnxc_rt::simd;
  std::vector<float> values = constantFloats(w);
  if (values.empty())
    return std::nullopt;
  std::vector<float> packed(s::blocked_conv_weights_floats(m, c, taps, inBlocked, depthwise));
  s::pack_blocked_conv_weights(values.data(), m, c, taps, inBlocked, depthwise, packed.data());
  return packedFloats(w.getContext(), packed);
}

/// BlockedConv: the weights packed (Winograd: transformed) at compile time
/// into the layout the kernel reads; `bf16`: --precision bf16's where
/// bf16BlockedConv takes it.
ProviderResult lowerBlockedConv(BlockedConvOp op, int64_t tasks, bool bf16) {
  auto ws = shapeOf(op.getW());
  const int64_t m = ws[0], c = ws[1] * op.getGroup(), taps = ws[2] * ws[3];
  const bool depthwise = op.getGroup() != 1, inBlocked = shapeOf(op.getX()).size() == 5;
  auto in = logicalShape(op.getX(), c), out = logicalShape(op.getY(), m);
  SmallVector<int64_t> kernel(ws.drop_front(2));
  auto g = resolveWindow(op, ArrayRef<int64_t>(in).drop_front(2), kernel, false);
  if (failed(g))
    return {failure()};
  const FusedActivation act = activationOf(op);
  if (bf16)
    if (std::optional<KernelCall> c = bf16BlockedConv(op, in, out, *g, act, tasks))
      return calls({std::move(*c)});
  // Winograd's output tile: F(4x4, 3x3) or F(2x2, 3x3); 0: direct.
  const int64_t tile = op.getAlgorithm() == ConvAlgorithm::winograd      ? 4
                       : op.getAlgorithm() == ConvAlgorithm::winograd_f2 ? 2
                                                                         : 0;
  const bool winograd = tile != 0;
  std::optional<KernelArg> weights;
  if (!winograd) {
    weights = blockedWeights(op.getW(), m, c, taps, inBlocked, depthwise);
  } else if (std::vector<float> w = constantFloats(op.getW()); !w.empty()) {
    std::vector<float> packed(onnxc_rt::simd::winograd_weights_floats(m, c, tile)), work(m * c);
    onnxc_rt::simd::pack_winograd_weights(w.data(), m, c, work.data(), packed.data(), tile);
    weights = packedFloats(op.getContext(), packed);
  }
  if (!weights)
    return {unsupported(op, "needs constant float weights")};
  std::vector<KernelArg> args{KernelArg::input(op.getX()),
                              std::move(*weights),
                              inputOrNull(op.getB()),
                              inputOrNull(op.getZ()),
                              KernelArg::output(op.getY()),
                              KernelArg::array(in),
                              KernelArg::array(out)};
  if (!winograd)
    args.insert(args.end(), {KernelArg::array(g->kernel), KernelArg::array(g->strides)});
  args.push_back(KernelArg::array(g->padsBegin));
  if (!winograd)
    args.push_back(KernelArg::array(g->dilations));
  if (!depthwise && !winograd)
    args.push_back(KernelArg::i(inBlocked));
  args.push_back(KernelArg::f(act.alpha));
  args.push_back(KernelArg::f(act.beta));
  if (!depthwise) {
    const int64_t floats =
        winograd ? onnxc_rt::simd::winograd_scratch_floats(in.data(), out.data(), tile)
                 : onnxc_rt::simd::blocked_conv_scratch_floats(
                       in.data(), out.data(), g->kernel.data(), g->strides.data(),
                       g->padsBegin.data(), g->dilations.data(), inBlocked);
    args.push_back(floats ? KernelArg::scratch(floats * 4, "float") : KernelArg::null());
  }
  appendTasks(args, tasks);
  const char *kernelName = winograd    ? "winograd_conv2d_blocked"
                           : depthwise ? "depthwise_conv2d_blocked"
                                       : "conv2d_blocked";
  // A dense blocked convolution names its input layout and tap count, so
  // that the model's code holds only that tile (conv2d_blocked).
  std::vector<std::string> targs{act.functor};
  if (winograd)
    targs.push_back(std::to_string(tile));
  if (!depthwise && !winograd)
    targs.insert(targs.end(), {inBlocked ? "1" : "0",
                               std::to_string(onnxc_rt::simd::blocked_tap_class(taps))});
  const char *header = winograd    ? kSimdWinograd
                       : depthwise ? kSimdBlockedWindow
                                   : kSimdBlocked;
  return calls({simdCall(kernelName, targs, header, std::move(args))});
}

/// BlockedExpandDepthwise and BlockedInvertedResidual (`project`: with the
/// project convolution WP, BP; its expand WE may be none): the
/// convolutions' weights packed as their own BlockedConvs' (pointwise of a
/// blocked input, depthwise), one call of simd/f32/expand_depthwise.h's
/// kernel with a band of rows a task.
template <typename BlockOp>
ProviderResult lowerFusedBlock(BlockOp op, Value wp, Value bp, int64_t tasks) {
  namespace s = onnxc_rt::simd;
  const bool project = static_cast<bool>(wp), expand = !isNone(op.getWE());
  auto wd = shapeOf(op.getWD());
  const int64_t m = wd[0], c = expand ? shapeOf(op.getWE())[1] : m, taps = wd[2] * wd[3];
  const int64_t channels = project ? shapeOf(wp)[0] : m;
  auto in = logicalShape(op.getX(), c), out = logicalShape(op.getY(), channels);
  SmallVector<int64_t> kernel(wd.drop_front(2));
  auto g = resolveWindow(op, ArrayRef<int64_t>(in).drop_front(2), kernel, false);
  if (failed(g))
    return {failure()};
  std::optional<KernelArg> expandWeights =
      expand ? blockedWeights(op.getWE(), m, c, 1, true, false) : KernelArg::null();
  std::optional<KernelArg> depthwiseWeights = blockedWeights(op.getWD(), m, m, taps, true, true);
  std::optional<KernelArg> projectWeights;
  if (project)
    projectWeights = blockedWeights(wp, channels, m, 1, true, false);
  if (!expandWeights || !depthwiseWeights || (project && !projectWeights))
    return {unsupported(op, "needs constant float weights")};
  const FusedActivation expandAct = activationOf(op, "expand_"), act = activationOf(op);
  const FusedActivation depthwiseAct = project ? activationOf(op, "depthwise_") : act;
  std::vector<KernelArg> args{KernelArg::input(op.getX()), std::move(*expandWeights),
                              inputOrNull(op.getBE()), std::move(*depthwiseWeights),
                              inputOrNull(op.getBD())};
  if (project)
    args.insert(args.end(), {std::move(*projectWeights), inputOrNull(bp)});
  args.insert(args.end(), {inputOrNull(op.getZ()), KernelArg::output(op.getY()),
                           KernelArg::array(in), KernelArg::i(m), KernelArg::array(out),
                           KernelArg::array(g->kernel), KernelArg::array(g->strides),
                           KernelArg::array(g->padsBegin), KernelArg::array(g->dilations),
                           KernelArg::f(expandAct.alpha), KernelArg::f(expandAct.beta),
                           KernelArg::f(depthwiseAct.alpha), KernelArg::f(depthwiseAct.beta)});
  if (project)
    args.insert(args.end(), {KernelArg::f(act.alpha), KernelArg::f(act.beta)});
  const int64_t floats =
      project ? s::expand_depthwise_project_scratch_floats(in.data(), m, out.data(),
                                                           g->kernel.data(), g->strides.data(),
                                                           g->dilations.data(), expand,
                                                           tasks)
              : s::expand_depthwise_scratch_floats(in.data(), out.data(), g->kernel.data(),
                                                   g->strides.data(), g->dilations.data(),
                                                   tasks);
  args.push_back(KernelArg::scratch(floats * 4, "float"));
  appendTasks(args, tasks);
  std::vector<std::string> targs{expandAct.functor, depthwiseAct.functor};
  if (project)
    targs.push_back(act.functor);
  return calls({simdCall(project ? "expand_depthwise_project_blocked" : "expand_depthwise_blocked",
                         targs, kSimdExpandDepthwise, std::move(args))});
}

/// BlockedScaledConv: the weights packed as a pointwise BlockedConv's of a
/// blocked input; the kernel scales a copy of them per image in scratch.
ProviderResult lowerBlockedScaledConv(BlockedScaledConvOp op, int64_t tasks) {
  auto ws = shapeOf(op.getW());
  const int64_t m = ws[0], c = ws[1];
  std::optional<KernelArg> weights = blockedWeights(op.getW(), m, c, 1, true, false);
  if (!weights)
    return {unsupported(op, "needs constant float weights")};
  const FusedActivation act = activationOf(op);
  std::vector<KernelArg> args{KernelArg::input(op.getX()),
                              std::move(*weights),
                              KernelArg::input(op.getS()),
                              inputOrNull(op.getB()),
                              inputOrNull(op.getZ()),
                              KernelArg::output(op.getY()),
                              KernelArg::array(logicalShape(op.getX(), c)),
                              KernelArg::array(logicalShape(op.getY(), m)),
                              KernelArg::f(act.alpha),
                              KernelArg::f(act.beta),
                              KernelArg::scratch(
                                  onnxc_rt::simd::blocked_scaled_conv_scratch_floats(m, c) * 4,
                                  "float")};
  appendTasks(args, tasks);
  return calls({simdCall("conv2d_blocked_scaled", {act.functor}, kSimdBlocked, std::move(args))});
}

/// BlockedChannelGather: one copy from its one or two inputs, split into tasks.
ProviderResult lowerBlockedChannelGather(BlockedChannelGatherOp op, int64_t tasks) {
  auto y = shapeOf(op.getY()); // (N, C/16, H, W, 16)
  std::vector<KernelArg> args = channelGatherArgs(op.getX(), op.getInChannels(),
                                                  op.getChannels(), op.getY(), y[0], y[2] * y[3]);
  appendTasks(args, tasks);
  return calls({simdCall("channel_gather_blocked", {}, kSimdChannelGather, std::move(args))});
}

ProviderResult lowerBlockedPool(BlockedPoolOp op, int64_t tasks) {
  auto in = logicalShape(op.getX()), out = logicalShape(op.getY());
  std::vector<KernelArg> args{KernelArg::input(op.getX()), KernelArg::output(op.getY())};
  if (op.getMode() == PoolMode::global_average) {
    args.insert(args.end(), {KernelArg::i(in[0]), KernelArg::i(in[1]), KernelArg::i(in[2] * in[3])});
    appendTasks(args, tasks);
    return calls(
        {simdCall("global_average_pool_blocked", {}, kSimdBlockedWindow, std::move(args))});
  }
  auto g = resolveWindow(op, ArrayRef<int64_t>(in).drop_front(2), *op.getKernelShape(),
                         op.getCeilMode());
  if (failed(g))
    return {failure()};
  args.insert(args.end(), {KernelArg::array(in), KernelArg::array(out), KernelArg::array(g->kernel),
                           KernelArg::array(g->strides), KernelArg::array(g->padsBegin),
                           KernelArg::array(g->dilations), KernelArg::i(op.getMode() == PoolMode::max)});
  appendTasks(args, tasks);
  return calls({simdCall("pool2d_blocked", {}, kSimdBlockedWindow, std::move(args))});
}

/// 2-D MaxPool without the Indices output: float (simd/f32/pool.h), or int8 /
/// uint8 (simd/qs8/pool.h, with a padded row of scratch).
ProviderResult lowerMaxPool(MaxPoolOp op, const LoweringContext &ctx) {
  Value x = op.getX(), y = op.getY();
  if (op.getKernelShape().size() != 2 || !isNone(op.getIndices()))
    return std::nullopt;
  auto g = resolveWindow(op, shapeOf(x).drop_front(2), op.getKernelShape(), op.getCeilMode());
  if (failed(g))
    return {failure()};
  std::vector<KernelArg> args{KernelArg::input(x), KernelArg::output(y)};
  for (KernelArg &a : simdWindowArgs(x, y, *g))
    args.push_back(std::move(a));
  if (ctx.isFloat())
    return calls({simdCall("max_pool2d", {"float"}, kSimdPool, std::move(args))});
  const std::string &t = ctx.elementType;
  args.push_back(KernelArg::scratch(ctx.tasks * onnxc_rt::simd::qs8::maxpool_scratch_bytes(
                                                    shapeOf(y)[3], g->kernel[1], g->strides[1],
                                                    g->dilations[1]),
                                    t));
  appendTasks(args, ctx.tasks);
  return calls({call("max_pool2d", {t}, kSimdQs8Pool, std::move(args), kSimdQs8Namespace)});
}

ProviderResult lowerGlobalAveragePool(Operation *op) {
  auto xs = shapeOf(op->getOperand(0));
  return calls({simdCall("row_mean", {}, kSimdNorm,
                        {KernelArg::input(op->getOperand(0)),
                         KernelArg::output(op->getResult(0)), KernelArg::i(xs[0] * xs[1]),
                         KernelArg::i(prod(xs.drop_front(2)))})});
}

/// LayerNormalization with per-element Scale and B over the normalized dims
/// and float statistics outputs (others: the reference kernel).
ProviderResult lowerLayerNorm(LayerNormalizationOp op, int64_t tasks) {
  auto xs = shapeOf(op.getX());
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += xs.size();
  int64_t outer = prod(xs.take_front(axis)), inner = prod(xs.drop_front(axis));
  auto statType = [](Value v) {
    return isNone(v) || cast<ShapedType>(v.getType()).getElementType().isF32();
  };
  if (numel(op.getScale()) != inner || (!isNone(op.getB()) && numel(op.getB()) != inner) ||
      !statType(op.getMean()) || !statType(op.getInvStdDev()))
    return std::nullopt;
  std::vector<KernelArg> args = {KernelArg::input(op.getX()), KernelArg::input(op.getScale()),
                                 inputOrNull(op.getB()), KernelArg::output(op.getY()),
                                 outputOrNull(op.getMean()), outputOrNull(op.getInvStdDev()),
                                 KernelArg::i(outer), KernelArg::i(inner),
                                 KernelArg::f(op.getEpsilon().convertToFloat())};
  appendTasks(args, tasks);
  return calls({simdCall("layer_norm", {}, kSimdNorm, std::move(args))});
}

/// Softmax (mode 0) and LogSoftmax (1) over the last axis.
ProviderResult lowerSoftmax(Operation *op, int64_t mode, int64_t tasks) {
  auto xs = shapeOf(op->getOperand(0));
  auto axisAttr = op->getAttrOfType<IntegerAttr>("axis");
  auto axis = normalizeAxis(op, axisAttr ? axisAttr.getInt() : -1, xs.size(), "axis");
  if (failed(axis))
    return {failure()};
  if (prod(xs.drop_front(*axis + 1)) != 1)
    return std::nullopt;
  std::vector<KernelArg> args = {KernelArg::input(op->getOperand(0)),
                                 KernelArg::output(op->getResult(0)),
                                 KernelArg::i(prod(xs.take_front(*axis))),
                                 KernelArg::i(xs[*axis]), KernelArg::i(mode)};
  appendTasks(args, tasks);
  return calls({simdCall("softmax", {}, kSimdNorm, std::move(args))});
}

/// Transpose of floats or int8 / uint8: the reference copy, split among
/// tasks (an attention block's heads, a channel shuffle).
ProviderResult lowerTranspose(TransposeOp op, int64_t tasks) {
  return calls({transposeCall(op, cppTypeName(eltOf(op.getData())), tasks)});
}

} // namespace

std::vector<KernelArg> channelGatherArgs(ValueRange x, ArrayRef<int64_t> inChannels,
                                         ArrayRef<int64_t> channels, Value y, int64_t n,
                                         int64_t hw) {
  const bool two = x.size() == 2;
  return {KernelArg::input(x[0]),
          KernelArg::i(inChannels[0]),
          two ? KernelArg::input(x[1]) : KernelArg::null(),
          KernelArg::i(two ? inChannels[1] : 0),
          KernelArg::array(channels),
          KernelArg::i(static_cast<int64_t>(channels.size())),
          KernelArg::output(y),
          KernelArg::i(n),
          KernelArg::i(hw)};
}

ProviderResult SimdKernelProvider::lower(Operation *op, const LoweringContext &ctx) const {
  if (auto pool = dyn_cast<MaxPoolOp>(op))
    return ctx.isFloat() || ctx.isQuantized() ? lowerMaxPool(pool, ctx) : std::nullopt;
  if (auto transpose = dyn_cast<TransposeOp>(op))
    return ctx.isFloat() || ctx.isQuantized() ? lowerTranspose(transpose, ctx.tasks)
                                              : std::nullopt;
  // Quantization's kernels are qs8's, whatever their first operand is.
  if (ctx.isQuantized() || isa<QuantizeLinearOp>(op))
    return lowerQs8(op, packing, ctx.tasks);
  if (!ctx.isFloat())
    return std::nullopt;
  const int64_t tasks = ctx.tasks;
  const auto precision = ctx.options.find("precision");
  const bool bf16 = precision != ctx.options.end() && precision->second == "bf16";
  return TypeSwitch<Operation *, ProviderResult>(op)
      .Case<MatMulOp>([&](MatMulOp o) { return lowerMatMul(o, tasks, matrixColumns, bf16); })
      .Case<GemmOp>([&](GemmOp o) { return lowerGemm(o, tasks, matrixColumns, bf16); })
      .Case<FusedGemmOp>([&](FusedGemmOp o) { return lowerGemm(o, tasks, matrixColumns, bf16); })
      .Case<ConvOp>([&](ConvOp o) {
        return lowerConv(o, o.getX(), o.getW(), o.getB(), Value(), o.getY(), o.getGroup(),
                         tasks, bf16);
      })
      .Case<FusedConvOp>([&](FusedConvOp o) {
        return lowerConv(o, o.getX(), o.getW(), o.getB(), o.getZ(), o.getY(), o.getGroup(),
                         tasks, bf16);
      })
      .Case<ToBlockedOp, FromBlockedOp>(
          [&](Operation *o) { return lowerLayoutConversion(o, tasks); })
      .Case<BlockedConvOp>([&](BlockedConvOp o) { return lowerBlockedConv(o, tasks, bf16); })
      .Case<BlockedExpandDepthwiseOp>([&](BlockedExpandDepthwiseOp o) {
        return lowerFusedBlock(o, Value(), Value(), tasks);
      })
      .Case<BlockedInvertedResidualOp>([&](BlockedInvertedResidualOp o) {
        return lowerFusedBlock(o, o.getWP(), o.getBP(), tasks);
      })
      .Case<BlockedScaledConvOp>(
          [&](BlockedScaledConvOp o) { return lowerBlockedScaledConv(o, tasks); })
      .Case<BlockedPoolOp>([&](BlockedPoolOp o) { return lowerBlockedPool(o, tasks); })
      .Case<BlockedChannelGatherOp>(
          [&](BlockedChannelGatherOp o) { return lowerBlockedChannelGather(o, tasks); })
      .Case<GlobalAveragePoolOp>([&](Operation *o) { return lowerGlobalAveragePool(o); })
      .Case<LayerNormalizationOp>(
          [&](LayerNormalizationOp o) { return lowerLayerNorm(o, tasks); })
      .Case<SoftmaxOp>([&](Operation *o) { return lowerSoftmax(o, 0, tasks); })
      .Case<LogSoftmaxOp>([&](Operation *o) { return lowerSoftmax(o, 1, tasks); })
      .Default([](Operation *) -> ProviderResult { return std::nullopt; });
}

} // namespace onnxc::simd
