//===- CudaKernelProvider.cpp - ops onto runtime-lite's CUDA kernels -------===//
//
// Every op of a CUDA model runs on the GPU but for ops on strings (host data,
// which run on the host as steps of the schedule: runsOnHost): this provider
// answers for every op, so nothing falls through to the host's reference
// kernels unnoticed. Conv
// and Gemm (plain or fused) get kernels with the bias, residual and
// activation in their epilogue. The other ops are lowered by the reference
// provider and each of its calls is moved onto the CUDA launcher of the
// same name and arguments (kernels/cuda/*.cuh), the stream first; an op
// whose reference calls have no such launcher, or whose types or shapes the
// launcher does not cover, is an error naming the node (onnxc-select-kernels
// reports all of them at once, before anything is written).
//
//===----------------------------------------------------------------------===//
#include "CudaTarget.h"

#include "onnxc/Dialect/ONNX/OpFacts.h"
#include "onnxc/Lowering/CallBuilders.h"
#include "onnxc_rt/base.h"
#include "onnxc_rt/kernels/reference/detection.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <limits>

using namespace mlir;
using namespace onnxc::onnx;
using namespace onnxc::lowering;

namespace onnxc::cuda {
namespace {

constexpr const char *kCudaNs = "onnxc_rt::cuda";
constexpr const char *kCudaElementwise = "onnxc_rt/kernels/cuda/elementwise.cuh";
constexpr const char *kCudaGemm = "onnxc_rt/kernels/cuda/gemm.cuh";
constexpr const char *kCudaConv = "onnxc_rt/kernels/cuda/conv.cuh";
constexpr const char *kCudaNorm = "onnxc_rt/kernels/cuda/norm.cuh";
constexpr const char *kCudaTensor = "onnxc_rt/kernels/cuda/tensor.cuh";
constexpr const char *kCudaReduce = "onnxc_rt/kernels/cuda/reduce.cuh";
constexpr const char *kCudaResize = "onnxc_rt/kernels/cuda/resize.cuh";
constexpr const char *kCudaQuant = "onnxc_rt/kernels/cuda/quant.cuh";
constexpr const char *kCudaQs8 = "onnxc_rt/kernels/cuda/qs8.cuh";
constexpr const char *kCudaSample = "onnxc_rt/kernels/cuda/sample.cuh";
constexpr const char *kCudaLinalg = "onnxc_rt/kernels/cuda/linalg.cuh";
constexpr const char *kCudaRnn = "onnxc_rt/kernels/cuda/rnn.cuh";
constexpr const char *kCudaDetection = "onnxc_rt/kernels/cuda/detection.cuh";
constexpr const char *kCudaSignal = "onnxc_rt/kernels/cuda/signal.cuh";
constexpr const char *kCudaText = "onnxc_rt/kernels/cuda/text.cuh";

/// Refuses `op` with `why`; "not supported" makes onnxc exit 3 (a feature
/// onnxc lacks, not a broken model).
FailureOr<OpLowering> refuse(Operation *op, const llvm::Twine &why) {
  return unsupported(op, why + ": not supported on target cuda");
}

/// Element types a CUDA launcher is instantiated for.
enum class Elements {
  Real,    // float or double, each computed in its own precision
  Numbers, // float, double, bool and the integers
  Any,     // those and float16 / bfloat16 (copies and per-element maps,
           // which convert through float as the host's types.h does)
};

bool isHalf(StringRef t) { return t == "onnxc_rt::float16" || t == "onnxc_rt::bfloat16"; }

bool deviceType(StringRef t, Elements e) {
  static const llvm::StringSet<> numbers = {"float",   "double",   "bool",    "int8_t",
                                            "uint8_t", "int16_t",  "uint16_t", "int32_t",
                                            "uint32_t", "int64_t", "uint64_t"};
  if (e == Elements::Real)
    return t == "float" || t == "double";
  return numbers.contains(t) ||
         (e == Elements::Any && isHalf(t));
}

/// The kernels' index arithmetic is 32-bit within a tensor.
bool fitsInt32(Operation *op) {
  auto small = [](Value v) {
    return isNone(v) || numel(v) <= std::numeric_limits<int32_t>::max();
  };
  return llvm::all_of(op->getOperands(), small) && llvm::all_of(op->getResults(), small);
}

/// What a reference call needs to run as its CUDA launcher: the header,
/// and whether it covers this call (types, ranks, optional outputs).
struct Launcher {
  const char *header;
  Elements elements;
  bool (*covers)(const KernelCall &); // null: every call
  /// What `covers` takes, for the refusal ("up to 8 labels").
  const char *covered = "";
};
static_assert(onnxc_rt::kMaxRank == 8, "the einsum launcher's refusal says 8 labels");

const llvm::StringMap<Launcher> &launchers() {
  static const llvm::StringMap<Launcher> table = {
      {"unary", {kCudaElementwise, Elements::Any, nullptr}},
      {"binary", {kCudaElementwise, Elements::Any, nullptr}},
      {"where", {kCudaElementwise, Elements::Any, nullptr}},
      {"broadcast_copy", {kCudaElementwise, Elements::Any, nullptr}},
      {"clip", {kCudaElementwise, Elements::Any, nullptr}},
      {"cast", {kCudaElementwise, Elements::Any, nullptr}},
      {"fill", {kCudaElementwise, Elements::Any, nullptr}},
      {"matmul", {kCudaGemm, Elements::Real, nullptr}},
      // einsum(a, b, y, nlabels, ...): the labels' strides pass by value.
      {"einsum",
       {kCudaLinalg, Elements::Numbers,
        [](const KernelCall &c) {
          return c.args.size() > 3 && c.args[3].intValue >= 1 &&
                 c.args[3].intValue <= onnxc_rt::kMaxRank;
        },
        "up to 8 labels"}},
      {"det", {kCudaLinalg, Elements::Numbers, nullptr}},
      // Pools of any rank (3-D and more, and MaxPool's indices, one output a
      // thread by the reference's rules).
      {"max_pool", {kCudaConv, Elements::Numbers, nullptr}},
      {"avg_pool", {kCudaConv, Elements::Numbers, nullptr}},
      {"max_unpool", {kCudaConv, Elements::Any, nullptr}},
      {"global_pool", {kCudaConv, Elements::Numbers, nullptr}},
      {"softmax", {kCudaNorm, Elements::Real, nullptr}},
      {"layer_norm", {kCudaNorm, Elements::Real, nullptr}},
      {"nll_loss", {kCudaNorm, Elements::Numbers, nullptr}},
      {"transpose", {kCudaTensor, Elements::Any, nullptr}},
      {"slice", {kCudaTensor, Elements::Any, nullptr}},
      {"concat_part", {kCudaTensor, Elements::Any, nullptr}},
      {"split_part", {kCudaTensor, Elements::Any, nullptr}},
      {"gather", {kCudaTensor, Elements::Any, nullptr}},
      {"gather_elements", {kCudaTensor, Elements::Any, nullptr}},
      {"arg_reduce", {kCudaReduce, Elements::Numbers, nullptr}},
      {"reduce", {kCudaReduce, Elements::Numbers, nullptr}},
      {"resize", {kCudaResize, Elements::Numbers, nullptr}},
      {"grid_sample", {kCudaSample, Elements::Numbers, nullptr}},
      {"roi_align", {kCudaSample, Elements::Numbers, nullptr}},
      {"non_max_suppression", {kCudaDetection, Elements::Numbers, nullptr}},
      {"lstm", {kCudaRnn, Elements::Numbers, nullptr}},
      {"gru", {kCudaRnn, Elements::Numbers, nullptr}},
      {"rnn", {kCudaRnn, Elements::Numbers, nullptr}},
      {"tile", {kCudaTensor, Elements::Any, nullptr}},
      {"pad", {kCudaTensor, Elements::Any, nullptr}},
      {"trilu", {kCudaTensor, Elements::Any, nullptr}},
      {"cumsum", {kCudaTensor, Elements::Numbers, nullptr}},
      {"topk", {kCudaTensor, Elements::Numbers, nullptr}},
      {"nonzero", {kCudaTensor, Elements::Any, nullptr}},
      {"unique", {kCudaTensor, Elements::Numbers, nullptr}},
      {"batch_norm", {kCudaNorm, Elements::Real, nullptr}},
      {"batch_norm_training", {kCudaNorm, Elements::Numbers, nullptr}},
      {"dft", {kCudaSignal, Elements::Numbers, nullptr}},
      {"stft", {kCudaSignal, Elements::Numbers, nullptr}},
      {"mel_weight_matrix", {kCudaSignal, Elements::Numbers, nullptr}},
      {"window", {kCudaElementwise, Elements::Numbers, nullptr}},
      {"one_hot", {kCudaTensor, Elements::Numbers, nullptr}},
      {"tfidf", {kCudaText, Elements::Numbers, nullptr}},
      {"lrn", {kCudaNorm, Elements::Numbers, nullptr}},
      {"classify", {kCudaElementwise, Elements::Numbers, nullptr}},
      {"eye_like", {kCudaTensor, Elements::Any, nullptr}},
      {"gather_nd", {kCudaTensor, Elements::Any, nullptr}},
      {"reverse_sequence", {kCudaTensor, Elements::Any, nullptr}},
      {"scatter_elements", {kCudaTensor, Elements::Numbers, nullptr}},
      {"scatter_nd", {kCudaTensor, Elements::Numbers, nullptr}},
      {"group_norm", {kCudaNorm, Elements::Real, nullptr}},
      {"instance_norm", {kCudaNorm, Elements::Real, nullptr}},
      {"quantize_linear", {kCudaQuant, Elements::Any, nullptr}},
      {"dequantize_linear", {kCudaQuant, Elements::Any, nullptr}},
      {"dynamic_quantize_linear", {kCudaQuant, Elements::Numbers, nullptr}},
      {"requantize", {kCudaQuant, Elements::Numbers, nullptr}},
      {"matmul_acc", {kCudaQuant, Elements::Numbers, nullptr}},
      {"conv_acc", {kCudaQuant, Elements::Numbers, nullptr}}, // windows of any rank
      // The qs8 scheme's integer kernels (onnxc's int8 and int16x8 models,
      // imported QDQ models).
      {"qs8::conv", {kCudaQs8, Elements::Numbers, nullptr}}, // windows of any rank
      {"qs8::fully_connected", {kCudaQs8, Elements::Numbers, nullptr}},
      {"qs8::add", {kCudaQs8, Elements::Numbers, nullptr}},
      {"qs8::mul", {kCudaQs8, Elements::Numbers, nullptr}},
      {"qs8::average_pool", {kCudaQs8, Elements::Numbers, nullptr}},
      {"qs8::rescale", {kCudaQs8, Elements::Numbers, nullptr}},
      {"qs8::lookup", {kCudaQs8, Elements::Numbers, nullptr}},
      {"conv_transpose", {kCudaConv, Elements::Numbers, nullptr}},
  };
  return table;
}

/// Why `c` (a reference call) cannot run on the GPU, or "" when it can;
/// on success `c` becomes the CUDA launcher's call.
std::string moveToDevice(KernelCall &c) {
  StringRef callee = c.callee;
  if (!callee.consume_front("onnxc_rt::ref::"))
    return "its kernel '" + c.callee + "' is not a reference kernel";
  auto it = launchers().find(callee);
  if (it == launchers().end())
    return "no CUDA kernel for its reference kernel '" + c.callee + "'";
  const Launcher &l = it->second;
  for (const std::string &t : c.templateArgs) {
    if (StringRef(t).starts_with("onnxc_rt::ref::"))
      continue; // a functor: the reference's own, callable on the device
    if (!deviceType(t, l.elements))
      return "the CUDA kernel '" + callee.str() + "' does not take element type " + t;
  }
  // A scratch tensor is arena memory, on the device like the rest (the
  // log-probabilities between SoftmaxCrossEntropyLoss's two calls).
  for (const KernelArg &a : c.args)
    if (a.kind == KernelArg::Kind::Status || a.kind == KernelArg::Kind::Runner ||
        a.kind == KernelArg::Kind::StringArray)
      return "the CUDA kernel '" + callee.str() + "' takes no status or strings";
  if (l.covers && !l.covers(c))
    return "the CUDA kernel '" + callee.str() + "' covers " + l.covered + " only";
  const std::string name = callee.str(); // `callee` points into c.callee
  c.callee = std::string(kCudaNs) + "::" + name;
  c.header = l.header;
  c.args.insert(c.args.begin(), KernelArg::runner());
  // Scratch the GPU kernel sizes differently from the reference (or needs
  // where the reference does not), for an op's calls and a view's alike.
  if (name == "non_max_suppression") {
    // (stream, boxes, scores, ..., batches 8, classes 9, nboxes 10, ...,
    // scratch 13, n_run): a candidate list and a kept list per class.
    const int64_t classes = c.args[8].intValue * c.args[9].intValue;
    c.args[13] = KernelArg::scratch(
        classes * onnxc_rt::ref::nms_class_scratch(c.args[10].intValue) * 8, "int64_t");
  } else if (name == "max_unpool") { // + each output's winner, ints
    c.args.push_back(KernelArg::scratch(prod(c.args[6].ints) * 4, "int"));
  }
  return "";
}

/// The template arguments of a matrix-product launcher: the element type
/// and, for --precision tf32, fp16 or bf16, the tensor-core arithmetic
/// (kernels/cuda/mma.cuh). Double stays double (`--precision` is for float
/// models).
llvm::SmallVector<std::string> mathArgs(llvm::SmallVector<std::string> targs,
                                        const LoweringContext &ctx) {
  auto it = ctx.options.find("precision");
  if (it == ctx.options.end() || llvm::is_contained(targs, "double"))
    return targs;
  if (it->second == "tf32")
    targs.push_back("onnxc_rt::cuda::Tf32");
  else if (it->second == "fp16")
    targs.push_back("onnxc_rt::cuda::Fp16");
  else if (it->second == "bf16")
    targs.push_back("onnxc_rt::cuda::Bf16");
  return targs;
}

/// Split-K for the tiled kernel (kernels/cuda/gemm.cuh, its 64 x 64 tiles;
/// a split call keeps them): the
/// GPUs this target builds for have 108 (A100) to 132 (H100)
/// multiprocessors, so a grid of fewer than 128 tiles with a sum at least
/// 512 deep (a batch-1 layer of many channels and few pixels: ResNet-18's
/// last convolutions make 8 tiles) splits the depth until about 128 blocks
/// run, each chunk at least 256 deep, at most 16 chunks. Appends the
/// launcher's (splits, partial) arguments: partial sums as the op's scratch.
/// No split in a bounded-dims build (one of its probes: `op`'s), whose split
/// would change with the sizes while one plan serves them all, nor for
/// `element` double, which runs on its own kernel.
void appendSplitK(std::vector<KernelArg> &args, int64_t m, int64_t n, int64_t k,
                  int64_t batches, Operation *op, StringRef element) {
  const bool noSplit = onnx::inBoundedProbe(op) || element == "double";
  int64_t scratchEnd = 0; // after what the call's other scratch takes
  for (const KernelArg &a : args)
    if (a.kind == KernelArg::Kind::Scratch)
      scratchEnd = std::max(scratchEnd, (a.scratchOffset + a.intValue + 63) / 64 * 64);
  const int64_t tiles = (m + 63) / 64 * ((n + 63) / 64) * batches;
  int64_t splits = 1;
  if (tiles < 128 && k >= 512 && !noSplit)
    splits = std::max<int64_t>(1, std::min<int64_t>({128 / tiles, k / 256, 16,
                                                     65535 / std::max<int64_t>(batches, 1)}));
  args.push_back(KernelArg::i(splits));
  args.push_back(splits > 1
                     ? KernelArg::scratchAt(scratchEnd, splits * batches * m * n * 4, "float")
                     : KernelArg::null());
}

/// Conv / FusedConv: one call with bias, residual and activation fused.
FailureOr<OpLowering> lowerConv(Operation *op, Value x, Value w, Value b, Value z, Value y,
                                int64_t group, const LoweringContext &ctx) {
  auto ws = shapeOf(w);
  if (ws.size() < 3 || ws.size() > size_t(2 + onnxc_rt::kMaxRank))
    return refuse(op, "the CUDA convolution covers 1 to 8 spatial dims");
  SmallVector<int64_t> kernel(ws.drop_front(2));
  auto g = resolveWindow(op, shapeOf(x).drop_front(2), kernel, false);
  if (failed(g))
    return failure();
  if (group > 65535 && shapeOf(y)[1] / group >= 16)
    return refuse(op, "more than 65535 groups for the CUDA convolution");
  const FusedActivation act = activationOf(op);
  const std::string elem = ctx.elementType == "double" ? "double" : "float";
  std::vector<KernelArg> args{KernelArg::runner(), KernelArg::input(x), KernelArg::input(w),
                              inputOrNull(b), z ? inputOrNull(z) : KernelArg::null(),
                              KernelArg::output(y)};
  for (KernelArg &a : windowArgs(x, y, *g))
    args.push_back(std::move(a));
  args.push_back(KernelArg::i(group));
  args.push_back(KernelArg::f(act.alpha));
  args.push_back(KernelArg::f(act.beta));
  auto xs = shapeOf(x), ys = shapeOf(y);
  const int64_t mg = ys[1] / group;
  if (mg >= 16 && ws.size() <= 4) // the implicit GEMM (conv.cuh); the rest runs direct
    appendSplitK(args, mg, xs[0] * prod(ys.drop_front(2)), xs[1] / group * prod(kernel), group,
                 op, elem);
  return calls({call("conv", mathArgs({act.functor, elem}, ctx), kCudaConv, std::move(args),
                     kCudaNs)});
}

template <typename GemmLike>
FailureOr<OpLowering> lowerGemm(GemmLike op, const LoweringContext &ctx) {
  const FusedActivation act = activationOf(op);
  GemmGeometry g = gemmGeometry(op);
  std::vector<KernelArg> args = std::move(g.args);
  args.insert(args.begin(), KernelArg::runner());
  args.push_back(KernelArg::f(act.alpha));
  args.push_back(KernelArg::f(act.beta));
  const std::string elem = ctx.elementType == "double" ? "double" : "float";
  appendSplitK(args, g.m, g.n, g.k, 1, op, elem);
  return calls({call("gemm", mathArgs({act.functor, elem}, ctx), kCudaGemm, std::move(args),
                     kCudaNs)});
}

bool halfTensor(const KernelArg &a) {
  if (a.kind != KernelArg::Kind::Tensor)
    return false;
  Type t = cast<ShapedType>(a.tensor.getType()).getElementType();
  return t.isF16() || t.isBF16();
}

/// Whether call `c` (a reference call, or a Conv's or Gemm's own) has
/// 16-bit float tensors and a launcher that does not take them.
bool needsFloatCopies(const KernelCall &c) {
  StringRef name = c.callee;
  if (name.consume_front("onnxc_rt::ref::")) {
    auto it = launchers().find(name);
    if (it == launchers().end() || it->second.elements == Elements::Any)
      return false;
  }
  return llvm::any_of(c.args, halfTensor);
}

/// Float16 and bfloat16 tensors for the launchers that compute in float
/// (Conv, Gemm, MatMul, Softmax, the normalizations, pools, reductions):
/// each such tensor of a call gets a float copy in the op's scratch, made
/// by a cast before the call (an input) or cast back after it (an output),
/// and the call takes the copies and float template arguments; a constant
/// (a layer's weights) is converted once, at compile time, instead. So a
/// float16 model computes each op in float and rounds its result to 16
/// bits, as PyTorch's float16 kernels on a GPU do.
void computeInFloat(OpLowering &lowering) {
  int64_t end = 0;
  for (KernelCall &c : lowering.calls) {
    if (needsFloatCopies(c))
      for (KernelArg &a : c.args)
        if (a.kind == KernelArg::Kind::Scratch && isHalf(a.scratchType)) {
          a.scratchType = "float";
          a.intValue *= 2;
        }
    end = std::max(end, c.scratchBytes());
  }
  std::vector<KernelCall> calls;
  for (KernelCall &c : lowering.calls) {
    if (!needsFloatCopies(c)) {
      calls.push_back(std::move(c));
      continue;
    }
    std::vector<KernelCall> after;
    for (KernelArg &a : c.args) {
      if (!halfTensor(a))
        continue;
      if (auto weights = dyn_cast_or_null<DenseElementsAttr>(getConstantElements(a.tensor));
          weights && !a.isOutput) { // exact: every 16-bit float is a float
        std::vector<float> values;
        for (APFloat v : weights.getValues<APFloat>()) {
          bool lost = false;
          v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
          values.push_back(v.convertToFloat());
        }
        a = packedFloats(a.tensor.getContext(), values);
        continue;
      }
      const std::string half = cppTypeName(cast<ShapedType>(a.tensor.getType()).getElementType());
      const int64_t n = numel(a.tensor);
      end = (end + 63) / 64 * 64;
      KernelArg copy = KernelArg::scratchAt(end, n * 4, "float");
      end += n * 4;
      if (a.isOutput)
        after.push_back(call("cast", {"float", half}, kElementwise,
                             {copy, KernelArg::output(a.tensor), KernelArg::i(n)}));
      else
        calls.push_back(call("cast", {half, "float"}, kElementwise,
                             {KernelArg::input(a.tensor), copy, KernelArg::i(n)}));
      a = copy;
    }
    for (std::string &t : c.templateArgs)
      if (isHalf(t))
        t = "float";
    calls.push_back(std::move(c));
    for (KernelCall &a : after)
      calls.push_back(std::move(a));
  }
  lowering.calls = std::move(calls);
}

class CudaKernelProvider final : public KernelProvider {
public:
  StringRef name() const override { return "cuda"; }

  ProviderResult lower(Operation *op, const LoweringContext &ctx) const override {
    if (!fitsInt32(op))
      return refuse(op, "a tensor of 2^31 or more elements (the CUDA kernels index with 32 "
                        "bits)");
    // Float32, and float16 / bfloat16 through float copies (computeInFloat).
    // Double: Conv and Gemm on their double kernels, the rest as the
    // reference calls moved over.
    const bool isFloat =
        ctx.isFloat() || isHalf(ctx.elementType) || ctx.elementType == "double";
    ProviderResult r;
    if (auto c = dyn_cast<ConvOp>(op); c && isFloat)
      r = lowerConv(op, c.getX(), c.getW(), c.getB(), Value(), c.getY(), c.getGroup(), ctx);
    else if (auto c = dyn_cast<FusedConvOp>(op); c && isFloat)
      r = lowerConv(op, c.getX(), c.getW(), c.getB(), c.getZ(), c.getY(), c.getGroup(), ctx);
    else if (auto g = dyn_cast<GemmOp>(op); g && isFloat)
      r = lowerGemm(g, ctx);
    else if (auto g = dyn_cast<FusedGemmOp>(op); g && isFloat)
      r = lowerGemm(g, ctx);
    else // the reference lowering, moved call by call onto the GPU below
      r = referenceProvider().lower(op, ctx);
    if (!r)
      return refuse(op, "no CUDA kernel");
    if (failed(*r) || runsOnHost(op)) // ops on strings keep it, as host steps
      return *r;
    OpLowering lowering = **r;
    computeInFloat(lowering);
    for (KernelCall &c : lowering.calls) {
      if (!StringRef(c.callee).starts_with("onnxc_rt::ref::"))
        continue; // a Conv's or Gemm's own launcher
      if (std::string why = moveToDevice(c); !why.empty())
        return refuse(op, why);
      if (c.callee == "onnxc_rt::cuda::matmul") {
        // (stream, a, b, y, m, k, n, batch_rank, batch_shape, ...)
        c.templateArgs = mathArgs(c.templateArgs, ctx);
        appendSplitK(c.args, c.args[4].intValue, c.args[6].intValue, c.args[5].intValue,
                     prod(c.args[8].ints), op, c.templateArgs[0]);
      }
    }
    return lowering;
  }

  std::string adoptCall(KernelCall &c) const override {
    std::string why = moveToDevice(c);
    return why.empty() ? why : why + ": not supported on target cuda";
  }
};

} // namespace

bool runsOnHost(Operation *op) {
  auto isString = [](Value v) {
    auto t = dyn_cast<ShapedType>(v.getType());
    return t && isa<StringType>(t.getElementType());
  };
  return llvm::any_of(op->getOperands(), isString) || llvm::any_of(op->getResults(), isString);
}

std::unique_ptr<KernelProvider> createCudaKernelProvider() {
  return std::make_unique<CudaKernelProvider>();
}

} // namespace onnxc::cuda
