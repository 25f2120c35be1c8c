//===- KernelLowering.cpp - onnx ops -> runtime-lite kernel calls ----------===//
#include "onnxc/Codegen/KernelCall.h"

#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc_rt/kernels/x86/blocking.h"
#include "onnxc_rt/kernels/reference/detection.h"
#include "onnxc_rt/kernels/reference/strings.h"
#include "onnxc_rt/kernels/reference/tensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace onnxc::onnx;

namespace onnxc {

//===-- KernelArg / KernelCall -------------------------------------------------===//

/// An argument of `kind` with nothing else set; each factory fills its field.
static KernelArg ofKind(KernelArg::Kind kind) {
  KernelArg a;
  a.kind = kind;
  return a;
}
KernelArg KernelArg::input(Value v) {
  KernelArg a = ofKind(Kind::Tensor);
  a.tensor = v;
  return a;
}
KernelArg KernelArg::output(Value v) {
  KernelArg a = input(v);
  a.isOutput = true;
  return a;
}
KernelArg KernelArg::i(int64_t v) {
  KernelArg a = ofKind(Kind::Int);
  a.intValue = v;
  return a;
}
KernelArg KernelArg::f(double v) {
  KernelArg a = ofKind(Kind::Float);
  a.floatValue = v;
  return a;
}
KernelArg KernelArg::array(ArrayRef<int64_t> v) {
  KernelArg a = ofKind(Kind::IntArray);
  a.ints.assign(v.begin(), v.end());
  return a;
}
KernelArg KernelArg::floatArray(ArrayRef<double> v) {
  KernelArg a = ofKind(Kind::FloatArray);
  a.floats.assign(v.begin(), v.end());
  return a;
}
KernelArg KernelArg::stringArray(std::vector<std::string> v) {
  KernelArg a = ofKind(Kind::StringArray);
  a.strings = std::move(v);
  return a;
}
KernelArg KernelArg::null() { return ofKind(Kind::Null); }
KernelArg KernelArg::constantData(ElementsAttr data) {
  KernelArg a = ofKind(Kind::Constant);
  a.constant = data;
  return a;
}
KernelArg KernelArg::runner() { return ofKind(Kind::Runner); }
KernelArg KernelArg::status() { return ofKind(Kind::Status); }
KernelArg KernelArg::scratch(int64_t bytes, std::string cppType) {
  KernelArg a = ofKind(Kind::Scratch);
  a.intValue = bytes;
  a.scratchType = std::move(cppType);
  return a;
}
KernelArg KernelArg::text(int64_t bytes) {
  KernelArg a = scratch(bytes, "char");
  a.persistent = true;
  return a;
}

std::string KernelCall::key() const {
  std::string k = callee;
  if (!templateArgs.empty()) {
    k += "<";
    for (size_t i = 0; i < templateArgs.size(); ++i)
      k += (i ? "," : "") + templateArgs[i];
    k += ">";
  }
  return k;
}

int64_t KernelCall::scratchBytes() const {
  int64_t bytes = 0;
  for (const KernelArg &a : args)
    if (a.kind == KernelArg::Kind::Scratch)
      bytes = std::max(bytes, a.intValue);
  return bytes;
}

/// `s` as a C string literal: printable ASCII as is, other bytes as three-
/// digit octal escapes (which, unlike \x, never run into the next char).
std::string cStringLiteral(llvm::StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || c == '?') {
      out += '\\';
      out += c;
    } else if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", u);
      out += buf;
    }
  }
  return out + "\"";
}

bool KernelCall::persistentScratch() const {
  for (const KernelArg &a : args)
    if (a.kind == KernelArg::Kind::Scratch && a.persistent)
      return true;
  return false;
}

std::string cppTypeName(Type t) {
  if (isa<onnx::StringType>(t)) return "onnxc_string";
  if (t.isF32()) return "float";
  if (t.isF64()) return "double";
  if (t.isF16()) return "onnxc_rt::float16";
  if (t.isBF16()) return "onnxc_rt::bfloat16";
  if (t.isInteger(1)) return "bool";
  if (auto i = dyn_cast<IntegerType>(t)) {
    std::string w = std::to_string(i.getWidth());
    return (i.isUnsigned() ? "uint" : "int") + w + "_t";
  }
  return "";
}

bool isAliasOp(Operation *op) {
  return isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, IdentityOp, DropoutOp>(op);
}

bool canRunInPlace(Operation *op, unsigned operand) {
  if (isa<AbsOp, NegOp, ReciprocalOp, SqrtOp, ExpOp, LogOp, ErfOp, TanhOp,
          SigmoidOp, ReluOp, CeilOp, FloorOp, SinOp, CosOp, SoftplusOp,
          SoftsignOp, HardSwishOp, NotOp, SignOp, RoundOp, LeakyReluOp, EluOp,
          HardSigmoidOp, TanOp, AsinOp, AcosOp, AtanOp, SinhOp, CoshOp, AsinhOp,
          AcoshOp, AtanhOp, SeluOp, ThresholdedReluOp, CeluOp, ShrinkOp,
          ClipOp, CastOp, BatchNormalizationOp, SoftmaxOp,
          LogSoftmaxOp, HardmaxOp>(op))
    return operand == 0;
  return isa<AddOp, SubOp, MulOp, DivOp, PowOp, ModOp, BitShiftOp, PReluOp, EqualOp, LessOp, GreaterOp,
             LessOrEqualOp, GreaterOrEqualOp, AndOp, OrOp, XorOp, WhereOp>(op);
}

//===-- Helpers ------------------------------------------------------------------===//

namespace {
constexpr const char *kElementwise = "onnxc_rt/kernels/reference/elementwise.h";
constexpr const char *kLinalg = "onnxc_rt/kernels/reference/linalg.h";
constexpr const char *kConv = "onnxc_rt/kernels/reference/conv.h";
constexpr const char *kNorm = "onnxc_rt/kernels/reference/norm.h";
constexpr const char *kReduce = "onnxc_rt/kernels/reference/reduce.h";
constexpr const char *kTensor = "onnxc_rt/kernels/reference/tensor.h";
constexpr const char *kRnn = "onnxc_rt/kernels/reference/rnn.h";
constexpr const char *kResize = "onnxc_rt/kernels/reference/resize.h";
constexpr const char *kQuant = "onnxc_rt/kernels/reference/quant.h";
constexpr const char *kSample = "onnxc_rt/kernels/reference/sample.h";
constexpr const char *kSignal = "onnxc_rt/kernels/reference/signal.h";
constexpr const char *kText = "onnxc_rt/kernels/reference/text.h";
constexpr const char *kDetection = "onnxc_rt/kernels/reference/detection.h";
constexpr const char *kStrings = "onnxc_rt/kernels/reference/strings.h";

/// Arena bytes for the text an op makes from its input strings, per input
/// string (StringNormalizer's case change): the run returns
/// ONNXC_STATUS_STRING_SPACE when the strings need more.
constexpr int64_t kTextBytesPerString = 64;
constexpr const char *kX86Gemm = "onnxc_rt/kernels/x86/gemm.h";
constexpr const char *kX86Conv = "onnxc_rt/kernels/x86/conv.h";
constexpr const char *kX86Norm = "onnxc_rt/kernels/x86/norm.h";
constexpr const char *kX86Blocked = "onnxc_rt/kernels/x86/blocked.h";
constexpr const char *kX86Winograd = "onnxc_rt/kernels/x86/winograd.h";

ArrayRef<int64_t> shapeOf(Value v) { return cast<ShapedType>(v.getType()).getShape(); }
int64_t numel(Value v) { return cast<ShapedType>(v.getType()).getNumElements(); }
Type eltOf(Value v) { return cast<ShapedType>(v.getType()).getElementType(); }
int64_t prod(ArrayRef<int64_t> s) {
  int64_t p = 1;
  for (int64_t d : s)
    p *= d;
  return p;
}

KernelCall call(StringRef callee, ArrayRef<std::string> targs, const char *header,
                std::vector<KernelArg> args) {
  KernelCall c;
  c.callee = ("onnxc_rt::ref::" + callee).str();
  c.templateArgs.assign(targs.begin(), targs.end());
  c.header = header;
  c.args = std::move(args);
  return c;
}

/// The trailing arguments of a kernel that splits its work into tasks: the
/// model's runner and the module's task count.
void appendTasks(std::vector<KernelArg> &args, int64_t tasks) {
  args.push_back(KernelArg::runner());
  args.push_back(KernelArg::i(tasks));
}

/// A call into the x86 kernels (onnxc_rt::x86), float only.
KernelCall x86Call(StringRef callee, ArrayRef<std::string> targs, const char *header,
                   std::vector<KernelArg> args) {
  KernelCall c = call(callee, targs, header, std::move(args));
  c.callee = ("onnxc_rt::x86::" + callee).str();
  return c;
}

/// Strides of `operandShape` broadcast into `outShape` (0 on broadcast dims).
SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> operandShape,
                                      ArrayRef<int64_t> outShape) {
  size_t r = outShape.size(), offset = r - operandShape.size();
  SmallVector<int64_t> strides(r, 0);
  int64_t s = 1;
  for (int64_t d = operandShape.size() - 1; d >= 0; --d) {
    strides[d + offset] = operandShape[d] == 1 ? 0 : s;
    s *= operandShape[d];
  }
  return strides;
}

/// Merges adjacent dims where every operand is contiguous across them, so a
/// broadcast kernel usually sees rank 1 or 2. Size-1 dims are dropped.
void collapseBroadcast(SmallVector<int64_t> &shape,
                       SmallVector<SmallVector<int64_t>> &strides) {
  SmallVector<int64_t> outShape;
  SmallVector<SmallVector<int64_t>> outStrides(strides.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1)
      continue;
    bool merge = !outShape.empty();
    for (auto &s : strides)
      if (merge && outStrides[&s - &strides[0]].back() != s[d] * shape[d])
        merge = false;
    if (merge) {
      outShape.back() *= shape[d];
      for (size_t k = 0; k < strides.size(); ++k)
        outStrides[k].back() = strides[k][d];
    } else {
      outShape.push_back(shape[d]);
      for (size_t k = 0; k < strides.size(); ++k)
        outStrides[k].push_back(strides[k][d]);
    }
  }
  if (outShape.empty()) {
    outShape.push_back(1);
    for (auto &s : outStrides)
      s.push_back(0);
  }
  shape = outShape;
  strides = outStrides;
}

/// A binary/ternary broadcast call: callee(in..., out, rank, shape, strides...).
KernelCall broadcastCall(StringRef callee, ArrayRef<std::string> targs,
                         ValueRange inputs, Value out) {
  SmallVector<int64_t> shape(shapeOf(out));
  SmallVector<SmallVector<int64_t>> strides;
  for (Value in : inputs)
    strides.push_back(broadcastStrides(shapeOf(in), shape));
  collapseBroadcast(shape, strides);
  std::vector<KernelArg> args;
  for (Value in : inputs)
    args.push_back(KernelArg::input(in));
  args.push_back(KernelArg::output(out));
  args.push_back(KernelArg::i(shape.size()));
  args.push_back(KernelArg::array(shape));
  for (auto &s : strides)
    args.push_back(KernelArg::array(s));
  return call(callee, targs, kElementwise, std::move(args));
}

KernelArg inputOrNull(Value v) {
  return isNone(v) ? KernelArg::null() : KernelArg::input(v);
}
KernelArg outputOrNull(Value v) {
  return isNone(v) ? KernelArg::null() : KernelArg::output(v);
}

float floatAttr(Operation *op, StringRef name, float dflt) {
  if (auto a = op->getAttrOfType<FloatAttr>(name))
    return a.getValueAsDouble();
  return dflt;
}

FailureOr<OpLowering> calls(std::vector<KernelCall> cs) {
  OpLowering l;
  l.kind = OpLowering::Kind::Calls;
  l.calls = std::move(cs);
  return l;
}

FailureOr<OpLowering> unsupported(Operation *op, const Twine &why) {
  return op->emitError() << op->getName().stripDialect() << ": " << why;
}

//===-- Per-op lowerings ---------------------------------------------------------===//

} // namespace

std::pair<float, float> unaryKernelParams(Operation *op) {
  StringRef name = op->getName().stripDialect();
  float alpha = 0, beta = 0;
  if (name == "LeakyRelu")
    alpha = floatAttr(op, "alpha", 0.01f);
  else if (name == "Elu")
    alpha = floatAttr(op, "alpha", 1.0f);
  else if (name == "HardSigmoid") {
    alpha = floatAttr(op, "alpha", 0.2f);
    beta = floatAttr(op, "beta", 0.5f);
  } else if (name == "Selu") {
    alpha = floatAttr(op, "alpha", 1.67326319217681884765625f);
    beta = floatAttr(op, "gamma", 1.05070102214813232421875f);
  } else if (name == "ThresholdedRelu" || name == "Celu") {
    alpha = floatAttr(op, "alpha", 1.0f);
  } else if (name == "Gelu") {
    auto a = op->getAttrOfType<StringAttr>("approximate");
    alpha = a && a.getValue() == "tanh" ? 1.0f : 0.0f;
  } else if (name == "Shrink") {
    alpha = floatAttr(op, "lambd", 0.5f);
    beta = floatAttr(op, "bias", 0.0f);
  }
  return {alpha, beta};
}

namespace {

FailureOr<OpLowering> lowerUnary(Operation *op, std::string t) {
  StringRef name = op->getName().stripDialect();
  auto [alpha, beta] = unaryKernelParams(op);
  Value x = op->getOperand(0), y = op->getResult(0);
  return calls({call("unary", {("onnxc_rt::ref::" + name).str(), t}, kElementwise,
                     {KernelArg::input(x), KernelArg::output(y),
                      KernelArg::i(numel(y)), KernelArg::f(alpha),
                      KernelArg::f(beta)})});
}

FailureOr<OpLowering> lowerVariadic(Operation *op, std::string t) {
  StringRef name = op->getName().stripDialect();
  std::string fn = "onnxc_rt::ref::" +
                   std::string(name == "Sum" || name == "Mean" ? "Add" : name);
  Value y = op->getResult(0);
  std::vector<KernelCall> cs;
  if (op->getNumOperands() == 1) {
    cs.push_back(broadcastCall("broadcast_copy", {t}, op->getOperand(0), y));
  } else {
    cs.push_back(broadcastCall("binary", {fn, t, t, t},
                               {op->getOperand(0), op->getOperand(1)}, y));
    for (unsigned i = 2; i < op->getNumOperands(); ++i) {
      // Accumulate into y: y = y op x_i (y is read in place).
      KernelCall c = broadcastCall("binary", {fn, t, t, t}, {y, op->getOperand(i)}, y);
      c.args[0].isOutput = true;
      cs.push_back(c);
    }
  }
  if (name == "Mean")
    cs.push_back(call("unary", {"onnxc_rt::ref::Scale", t}, kElementwise,
                      {KernelArg::output(y), KernelArg::output(y),
                       KernelArg::i(numel(y)),
                       KernelArg::f(1.0 / op->getNumOperands()), KernelArg::f(0)}));
  return calls(cs);
}

FailureOr<std::vector<KernelArg>> windowArgs(Operation *op, Value x, Value y,
                                             ArrayRef<int64_t> kernel, bool ceil);

/// numpy.matmul operands as the linalg.h kernels take them: (m, k, n) and
/// the broadcast batch space with each operand's batch strides.
struct MatMulGeometry {
  int64_t m, k, n;
  SmallVector<int64_t> batch;
  SmallVector<SmallVector<int64_t>> strides;
  std::vector<KernelArg> args() const {
    return {KernelArg::i(m),         KernelArg::i(k),
            KernelArg::i(n),         KernelArg::i(batch.size()),
            KernelArg::array(batch), KernelArg::array(strides[0]),
            KernelArg::array(strides[1])};
  }
};

MatMulGeometry matmulGeometry(Value a, Value b) {
  SmallVector<int64_t> as(shapeOf(a)), bs(shapeOf(b));
  if (as.size() == 1)
    as.insert(as.begin(), 1);
  if (bs.size() == 1)
    bs.push_back(1);
  int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  SmallVector<int64_t> aBatch(ArrayRef<int64_t>(as).drop_back(2));
  SmallVector<int64_t> bBatch(ArrayRef<int64_t>(bs).drop_back(2));
  auto batch = *broadcastShapes(aBatch, bBatch);
  SmallVector<SmallVector<int64_t>> strides = {broadcastStrides(aBatch, batch),
                                               broadcastStrides(bBatch, batch)};
  for (int64_t &s : strides[0])
    s *= m * k;
  for (int64_t &s : strides[1])
    s *= k * n;
  if (!batch.empty())
    collapseBroadcast(batch, strides);
  return MatMulGeometry{m, k, n, batch, strides};
}

FailureOr<OpLowering> lowerMatMul(MatMulOp op, std::string t, KernelSet ks) {
  std::vector<KernelArg> args{KernelArg::input(op.getA()), KernelArg::input(op.getB()),
                              KernelArg::output(op.getY())};
  MatMulGeometry g = matmulGeometry(op.getA(), op.getB());
  if (ks == KernelSet::X86 && t == "float") {
    // B without batch dims: A's batch rows are one taller product.
    if (shapeOf(op.getB()).size() == 2 && shapeOf(op.getA()).size() >= 2) {
      g.m = numel(op.getA()) / std::max<int64_t>(g.k, 1);
      g.batch.clear();
      g.strides = {{}, {}};
    }
    for (KernelArg &a : g.args())
      args.push_back(a);
    const int64_t tasks = taskCountFor(op);
    args.push_back(KernelArg::scratch(
        tasks * onnxc_rt::x86::gemm_scratch_floats(g.m, g.n, g.k) * 4, "float"));
    appendTasks(args, tasks);
    return calls({x86Call("matmul", {t}, kX86Gemm, std::move(args))});
  }
  for (KernelArg &a : g.args())
    args.push_back(a);
  return calls({call("matmul", {t}, kLinalg, std::move(args))});
}

/// Zero-point arguments: the pointer (or null) and how many values it has.
std::pair<KernelArg, KernelArg> zeroPoint(Value zp) {
  if (isNone(zp))
    return {KernelArg::null(), KernelArg::i(0)};
  return {KernelArg::input(zp), KernelArg::i(numel(zp))};
}

/// MatMulInteger, and QLinearMatMul's first half: int32 accumulation into
/// `acc` (a result or the op's scratch).
KernelCall matmulInteger(Value a, Value b, Value azp, Value bzp, KernelArg acc) {
  auto [az, azn] = zeroPoint(azp);
  auto [bz, bzn] = zeroPoint(bzp);
  std::vector<KernelArg> args{KernelArg::input(a), KernelArg::input(b), az, azn, bz, bzn, acc};
  for (KernelArg &g : matmulGeometry(a, b).args())
    args.push_back(g);
  return call("matmul_acc", {cppTypeName(eltOf(a)), cppTypeName(eltOf(b)), "int32_t"},
              kLinalg, std::move(args));
}

FailureOr<OpLowering> lowerQLinearMatMul(QLinearMatMulOp op) {
  int64_t bytes = numel(op.getY()) * 4;
  int64_t n = shapeOf(op.getY()).back();
  KernelCall mm = matmulInteger(op.getA(), op.getB(), op.getAZeroPoint(), op.getBZeroPoint(),
                                KernelArg::scratch(bytes, "int32_t"));
  KernelCall rq = call("requantize", {cppTypeName(eltOf(op.getY()))}, kQuant,
                       {KernelArg::scratch(bytes, "int32_t"), KernelArg::input(op.getAScale()),
                        KernelArg::input(op.getBScale()), KernelArg::i(numel(op.getBScale())),
                        KernelArg::input(op.getYScale()), KernelArg::input(op.getYZeroPoint()),
                        KernelArg::output(op.getY()), KernelArg::i(numel(op.getY()) / n),
                        KernelArg::i(n), KernelArg::i(1)});
  return calls({mm, rq});
}

/// ConvInteger and QLinearConv's first half: conv_acc into `acc`.
FailureOr<KernelCall> convInteger(Operation *op, Value x, Value w, Value xzp, Value wzp,
                                  Value bias, Value y, KernelArg acc) {
  auto win = windowArgs(op, x, y, SmallVector<int64_t>(shapeOf(w).drop_front(2)), false);
  if (failed(win))
    return failure();
  auto [wz, wzn] = zeroPoint(wzp);
  std::vector<KernelArg> args{KernelArg::input(x), KernelArg::input(w), inputOrNull(xzp),
                              wz, wzn, bias ? inputOrNull(bias) : KernelArg::null(), acc};
  args.insert(args.end(), win->begin(), win->end());
  auto group = op->getAttrOfType<IntegerAttr>("group");
  args.push_back(KernelArg::i(group ? group.getInt() : 1));
  return call("conv_acc", {cppTypeName(eltOf(x)), cppTypeName(eltOf(w)), "int32_t"}, kConv,
              std::move(args));
}

FailureOr<OpLowering> lowerQLinearConv(QLinearConvOp op) {
  int64_t bytes = numel(op.getY()) * 4;
  auto conv = convInteger(op, op.getX(), op.getW(), op.getXZeroPoint(), op.getWZeroPoint(),
                          op.getB(), op.getY(), KernelArg::scratch(bytes, "int32_t"));
  if (failed(conv))
    return failure();
  auto ys = shapeOf(op.getY());
  KernelCall rq = call("requantize", {cppTypeName(eltOf(op.getY()))}, kQuant,
                       {KernelArg::scratch(bytes, "int32_t"), KernelArg::input(op.getXScale()),
                        KernelArg::input(op.getWScale()), KernelArg::i(numel(op.getWScale())),
                        KernelArg::input(op.getYScale()), KernelArg::input(op.getYZeroPoint()),
                        KernelArg::output(op.getY()), KernelArg::i(ys[0]), KernelArg::i(ys[1]),
                        KernelArg::i(prod(ys.drop_front(2)))});
  return calls({*conv, rq});
}

/// QuantizeLinear / DequantizeLinear: per tensor, or per `axis` when the
/// scale is 1-D with more than one value.
FailureOr<OpLowering> lowerQuantizeLike(Operation *op, bool quantize) {
  Value x = op->getOperand(0), scale = op->getOperand(1), zp = op->getOperand(2);
  auto xs = shapeOf(x);
  int64_t count = numel(scale), outer = 1, axisDim = 1, inner = numel(x);
  if (count > 1) {
    auto axis = normalizeAxis(op, op->getAttrOfType<IntegerAttr>("axis").getInt(),
                              xs.size(), "axis");
    if (failed(axis))
      return failure();
    if (xs[*axis] != count)
      return op->emitError() << "scale has " << count << " values for an axis of "
                             << xs[*axis];
    outer = prod(xs.take_front(*axis));
    axisDim = xs[*axis];
    inner = prod(xs.drop_front(*axis + 1));
  }
  std::string tx = cppTypeName(eltOf(x)), ty = cppTypeName(eltOf(op->getResult(0)));
  if (quantize && ty != "uint8_t" && ty != "int8_t")
    return unsupported(op, "quantizing to " + ty + " is not supported");
  return calls({call(quantize ? "quantize_linear" : "dequantize_linear", {tx, ty}, kQuant,
                     {KernelArg::input(x), KernelArg::input(scale), inputOrNull(zp),
                      KernelArg::output(op->getResult(0)), KernelArg::i(outer),
                      KernelArg::i(axisDim), KernelArg::i(inner), KernelArg::i(count)})});
}

/// A fused op's activation: the reference functor and its parameters
/// (Identity for the plain ops).
struct Activation {
  std::string functor = "onnxc_rt::ref::Identity";
  float alpha = 0, beta = 0;
  bool isIdentity() const { return functor == "onnxc_rt::ref::Identity"; }
};

Activation activationOf(Operation *op) {
  Activation a;
  if (auto name = op->getAttrOfType<StringAttr>("activation")) {
    a.functor = ("onnxc_rt::ref::" + name.getValue()).str();
    a.alpha = floatAttr(op, "activation_alpha", 0);
    a.beta = floatAttr(op, "activation_beta", 0);
  }
  return a;
}

/// The reference path of a fused op's activation: y = act(y) in place.
KernelCall activationInPlace(Value y, const Activation &act, const std::string &t) {
  return call("unary", {act.functor, t}, kElementwise,
              {KernelArg::output(y), KernelArg::output(y), KernelArg::i(numel(y)),
               KernelArg::f(act.alpha), KernelArg::f(act.beta)});
}

/// Gemm and FusedGemm.
template <typename GemmLike>
FailureOr<OpLowering> lowerGemm(GemmLike op, std::string t, KernelSet ks) {
  auto ys = shapeOf(op.getY());
  int64_t m = ys[0], n = ys[1];
  auto as = shapeOf(op.getA());
  int64_t k = op.getTransA() ? as[0] : as[1];
  int64_t csm = 0, csn = 0;
  if (!isNone(op.getC())) {
    auto st = broadcastStrides(shapeOf(op.getC()), ys);
    csm = st[0];
    csn = st[1];
  }
  const Activation act = activationOf(op);
  std::vector<KernelArg> args{KernelArg::input(op.getA()), KernelArg::input(op.getB()),
                              inputOrNull(op.getC()), KernelArg::output(op.getY()),
                              KernelArg::i(m), KernelArg::i(n), KernelArg::i(k),
                              KernelArg::i(op.getTransA()), KernelArg::i(op.getTransB()),
                              KernelArg::f(op.getAlpha().convertToFloat()),
                              KernelArg::f(op.getBeta().convertToFloat()),
                              KernelArg::i(csm), KernelArg::i(csn)};
  if (ks == KernelSet::X86 && t == "float") {
    args.push_back(KernelArg::f(act.alpha));
    args.push_back(KernelArg::f(act.beta));
    const int64_t tasks = taskCountFor(op);
    args.push_back(
        KernelArg::scratch(tasks * onnxc_rt::x86::gemm_scratch_floats(m, n, k) * 4, "float"));
    appendTasks(args, tasks);
    return calls({x86Call("gemm", {act.functor}, kX86Gemm, std::move(args))});
  }
  std::vector<KernelCall> cs{call("gemm", {t}, kLinalg, std::move(args))};
  if (!act.isIdentity())
    cs.push_back(activationInPlace(op.getY(), act, t));
  return calls(std::move(cs));
}

/// The window arguments of the reference conv.h kernels (any rank).
std::vector<KernelArg> windowArgs(Value x, Value y, const WindowGeometry &g) {
  return {KernelArg::i(g.kernel.size()), KernelArg::array(shapeOf(x)),
          KernelArg::array(shapeOf(y)),  KernelArg::array(g.kernel),
          KernelArg::array(g.strides),   KernelArg::array(g.padsBegin),
          KernelArg::array(g.padsEnd),   KernelArg::array(g.dilations)};
}

/// Shared by Conv and the pools: resolves the window, then windowArgs.
FailureOr<std::vector<KernelArg>> windowArgs(Operation *op, Value x, Value y,
                                             ArrayRef<int64_t> kernel, bool ceil) {
  auto g = resolveWindow(op, shapeOf(x).drop_front(2), kernel, ceil);
  if (failed(g))
    return failure();
  return windowArgs(x, y, *g);
}

/// The window arguments of the 2-D x86 kernels: in and out shapes, kernel,
/// strides, leading pads, dilations (the output shape implies the rest).
std::vector<KernelArg> x86WindowArgs(Value x, Value y, const WindowGeometry &g) {
  return {KernelArg::array(shapeOf(x)), KernelArg::array(shapeOf(y)),
          KernelArg::array(g.kernel),   KernelArg::array(g.strides),
          KernelArg::array(g.padsBegin), KernelArg::array(g.dilations)};
}

/// Constant conv weights packed per group into the layout the x86 kernel's
/// path reads (pack_conv_weights), so it reads them as they are; null
/// (packed at run time, channel-major) otherwise.
KernelArg packedConvWeights(Value w, Value x, Value y, const WindowGeometry &g,
                            int64_t group) {
  auto value = getConstantElements(w);
  auto dense = dyn_cast_or_null<DenseElementsAttr>(value);
  if (!dense || !dense.getElementType().isF32())
    return KernelArg::null();
  auto xs = shapeOf(x), ys = shapeOf(y), ws = shapeOf(w);
  SmallVector<int64_t> kernel(ws.drop_front(2));
  std::vector<float> src(dense.getValues<float>().begin(), dense.getValues<float>().end());
  std::vector<float> packed(onnxc_rt::x86::conv_packed_weights_floats(
      xs.data(), ys.data(), kernel.data(), g.strides.data(), g.padsBegin.data(),
      g.dilations.data(), group));
  onnxc_rt::x86::pack_conv_weights(src.data(), xs.data(), ys.data(), kernel.data(),
                                   g.strides.data(), g.padsBegin.data(), g.dilations.data(),
                                   group, packed.data());
  auto type = RankedTensorType::get({(int64_t)packed.size()}, dense.getElementType());
  return KernelArg::constantData(DenseElementsAttr::get(type, ArrayRef<float>(packed)));
}

/// Conv and FusedConv (Z: the residual added before the activation, or none).
FailureOr<OpLowering> lowerConv(Operation *op, Value x, Value w, Value b, Value z, Value y,
                                int64_t group, std::string t, KernelSet ks) {
  auto ws = shapeOf(w);
  SmallVector<int64_t> kernel(ws.drop_front(2));
  const Activation act = activationOf(op);
  auto g = resolveWindow(op, shapeOf(x).drop_front(2), kernel, false);
  if (failed(g))
    return failure();
  if (ks == KernelSet::X86 && t == "float" && kernel.size() == 2) {
    auto xs = shapeOf(x), ys = shapeOf(y);
    const int64_t cg = xs[1] / group;
    const bool depthwise = cg == 1;
    std::vector<KernelArg> args{KernelArg::input(x), KernelArg::input(w)};
    if (!depthwise)
      args.push_back(packedConvWeights(w, x, y, *g, group));
    args.insert(args.end(), {inputOrNull(b), inputOrNull(z), KernelArg::output(y)});
    for (KernelArg &a : x86WindowArgs(x, y, *g))
      args.push_back(std::move(a));
    if (!depthwise)
      args.push_back(KernelArg::i(group));
    args.push_back(KernelArg::f(act.alpha));
    args.push_back(KernelArg::f(act.beta));
    const int64_t tasks = taskCountFor(op);
    const int64_t floats =
        depthwise ? tasks * onnxc_rt::x86::depthwise_scratch_floats(
                                xs[1], ys[1], ys[2], ys[3], kernel[0], kernel[1], g->strides[0],
                                g->strides[1], g->dilations[0], g->dilations[1])
                  : onnxc_rt::x86::conv2d_scratch_floats(xs.data(), ys.data(), kernel.data(),
                                                         g->strides.data(), g->padsBegin.data(),
                                                         g->dilations.data(), group, tasks);
    args.push_back(KernelArg::scratch(floats * 4, "float"));
    appendTasks(args, tasks);
    return calls({x86Call(depthwise ? "depthwise_conv2d" : "conv2d", {act.functor}, kX86Conv,
                          std::move(args))});
  }
  std::vector<KernelArg> args{KernelArg::input(x), KernelArg::input(w), inputOrNull(b),
                              KernelArg::output(y)};
  for (KernelArg &a : windowArgs(x, y, *g))
    args.push_back(std::move(a));
  args.push_back(KernelArg::i(group));
  std::vector<KernelCall> cs{call("conv", {t}, kConv, std::move(args))};
  if (!isNone(z))
    cs.push_back(call("binary", {"onnxc_rt::ref::Add", t, t, t}, kElementwise,
                      {KernelArg::output(y), KernelArg::input(z), KernelArg::output(y),
                       KernelArg::i(1), KernelArg::array({numel(y)}), KernelArg::array({1}),
                       KernelArg::array({1})}));
  if (!act.isIdentity())
    cs.push_back(activationInPlace(y, act, t));
  return calls(std::move(cs));
}

//===-- The channel-blocked layout (onnxc-layout-selection) --------------------===//

constexpr int64_t kBlock = onnxc_rt::x86::kChannelBlock;

/// The logical NCHW dims of a blocked (rank 5) or NCHW value; a blocked
/// value's channels are `channels` (0: all its lanes).
SmallVector<int64_t> logicalShape(Value v, int64_t channels = 0) {
  auto s = shapeOf(v);
  if (s.size() == 4)
    return SmallVector<int64_t>(s);
  return {s[0], channels ? channels : s[1] * kBlock, s[2], s[3]};
}

FailureOr<OpLowering> blockedNeedsX86(Operation *op) {
  return unsupported(op, "the channel-blocked layout runs on the x86 kernels only");
}

/// ToBlocked / FromBlocked: NCHW <-> blocked.
FailureOr<OpLowering> lowerLayoutConversion(Operation *op, std::string t, KernelSet ks) {
  const bool to = isa<ToBlockedOp>(op);
  auto nchw = logicalShape(to ? op->getOperand(0) : op->getResult(0));
  std::vector<KernelArg> args{KernelArg::input(op->getOperand(0)),
                              KernelArg::output(op->getResult(0)), KernelArg::i(nchw[0]),
                              KernelArg::i(nchw[1]), KernelArg::i(nchw[2] * nchw[3])};
  if (ks == KernelSet::X86 && t == "float") {
    appendTasks(args, taskCountFor(op));
    return calls({x86Call(to ? "to_blocked" : "from_blocked", {}, kX86Blocked, std::move(args))});
  }
  args.push_back(KernelArg::i(kBlock));
  return calls({call(to ? "to_blocked" : "from_blocked", {t}, kTensor, std::move(args))});
}

FailureOr<OpLowering> lowerBlockedConv(BlockedConvOp op, std::string t, KernelSet ks) {
  if (ks != KernelSet::X86 || t != "float")
    return blockedNeedsX86(op);
  auto ws = shapeOf(op.getW());
  const int64_t m = ws[0], c = ws[1] * op.getGroup(), taps = ws[2] * ws[3];
  const bool depthwise = op.getGroup() != 1, inBlocked = shapeOf(op.getX()).size() == 5;
  auto in = logicalShape(op.getX(), c), out = logicalShape(op.getY(), m);
  SmallVector<int64_t> kernel(ws.drop_front(2));
  auto g = resolveWindow(op, ArrayRef<int64_t>(in).drop_front(2), kernel, false);
  if (failed(g))
    return failure();
  auto dense = dyn_cast_or_null<DenseElementsAttr>(getConstantElements(op.getW()));
  if (!dense || !dense.getElementType().isF32())
    return unsupported(op, "needs constant float weights");
  std::vector<float> w(dense.getValues<float>().begin(), dense.getValues<float>().end());
  const Activation act = activationOf(op);
  // Weights packed (Winograd: transformed) at compile time into the layout
  // the kernel reads.
  const bool winograd = op.getAlgorithm() == "winograd";
  std::vector<float> packed(
      winograd ? onnxc_rt::x86::winograd_weights_floats(m, c)
               : onnxc_rt::x86::blocked_conv_weights_floats(m, c, taps, inBlocked, depthwise));
  if (winograd) {
    std::vector<float> work(m * c);
    onnxc_rt::x86::pack_winograd_weights(w.data(), m, c, work.data(), packed.data());
  } else {
    onnxc_rt::x86::pack_blocked_conv_weights(w.data(), m, c, taps, inBlocked, depthwise,
                                             packed.data());
  }
  auto packedType = RankedTensorType::get({(int64_t)packed.size()}, dense.getElementType());
  std::vector<KernelArg> args{
      KernelArg::input(op.getX()),
      KernelArg::constantData(DenseElementsAttr::get(packedType, ArrayRef<float>(packed))),
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
        winograd ? onnxc_rt::x86::winograd_scratch_floats(in.data(), out.data())
                 : onnxc_rt::x86::blocked_conv_scratch_floats(
                       in.data(), out.data(), g->kernel.data(), g->strides.data(),
                       g->padsBegin.data(), g->dilations.data(), inBlocked);
    args.push_back(floats ? KernelArg::scratch(floats * 4, "float") : KernelArg::null());
  }
  appendTasks(args, taskCountFor(op));
  const char *kernelName = winograd    ? "winograd_conv2d_blocked"
                           : depthwise ? "depthwise_conv2d_blocked"
                                       : "conv2d_blocked";
  return calls({x86Call(kernelName, {act.functor}, winograd ? kX86Winograd : kX86Blocked,
                        std::move(args))});
}

FailureOr<OpLowering> lowerBlockedPool(BlockedPoolOp op, std::string t, KernelSet ks) {
  if (ks != KernelSet::X86 || t != "float")
    return blockedNeedsX86(op);
  auto in = logicalShape(op.getX()), out = logicalShape(op.getY());
  std::vector<KernelArg> args{KernelArg::input(op.getX()), KernelArg::output(op.getY())};
  if (op.getMode() == "global_average") {
    args.insert(args.end(), {KernelArg::i(in[0]), KernelArg::i(in[1]), KernelArg::i(in[2] * in[3])});
    appendTasks(args, taskCountFor(op));
    return calls({x86Call("global_average_pool_blocked", {}, kX86Blocked, std::move(args))});
  }
  auto g = resolveWindow(op, ArrayRef<int64_t>(in).drop_front(2), *op.getKernelShape(),
                         op.getCeilMode());
  if (failed(g))
    return failure();
  args.insert(args.end(), {KernelArg::array(in), KernelArg::array(out), KernelArg::array(g->kernel),
                           KernelArg::array(g->strides), KernelArg::array(g->padsBegin),
                           KernelArg::array(g->dilations), KernelArg::i(op.getMode() == "max")});
  appendTasks(args, taskCountFor(op));
  return calls({x86Call("pool2d_blocked", {}, kX86Blocked, std::move(args))});
}

FailureOr<OpLowering> lowerMaxPool(MaxPoolOp op, std::string t, KernelSet ks) {
  Value x = op.getX(), y = op.getY();
  auto g = resolveWindow(op, shapeOf(x).drop_front(2), op.getKernelShape(), op.getCeilMode());
  if (failed(g))
    return failure();
  if (ks == KernelSet::X86 && t == "float" && g->kernel.size() == 2 &&
      isNone(op.getIndices())) {
    std::vector<KernelArg> args{KernelArg::input(x), KernelArg::output(y)};
    for (KernelArg &a : x86WindowArgs(x, y, *g))
      args.push_back(std::move(a));
    return calls({x86Call("max_pool2d", {t}, kX86Conv, std::move(args))});
  }
  std::vector<KernelArg> args{KernelArg::input(x), KernelArg::output(y),
                              outputOrNull(op.getIndices())};
  for (KernelArg &a : windowArgs(x, y, *g))
    args.push_back(std::move(a));
  args.push_back(KernelArg::i(op.getStorageOrder()));
  return calls({call("max_pool", {t}, kConv, std::move(args))});
}

FailureOr<OpLowering> lowerAvgPool(AveragePoolOp op, std::string t) {
  auto win = windowArgs(op, op.getX(), op.getY(), op.getKernelShape(), op.getCeilMode());
  if (failed(win))
    return failure();
  std::vector<KernelArg> args{KernelArg::input(op.getX()), KernelArg::output(op.getY())};
  args.insert(args.end(), win->begin(), win->end());
  args.push_back(KernelArg::i(op.getCountIncludePad()));
  return calls({call("avg_pool", {t}, kConv, std::move(args))});
}

FailureOr<OpLowering> lowerGlobalPool(Operation *op, std::string t, bool isMax, KernelSet ks) {
  auto xs = shapeOf(op->getOperand(0));
  if (ks == KernelSet::X86 && t == "float" && !isMax)
    return calls({x86Call("row_mean", {}, kX86Norm,
                          {KernelArg::input(op->getOperand(0)),
                           KernelArg::output(op->getResult(0)), KernelArg::i(xs[0] * xs[1]),
                           KernelArg::i(prod(xs.drop_front(2)))})});
  return calls({call("global_pool", {t}, kConv,
                     {KernelArg::input(op->getOperand(0)),
                      KernelArg::output(op->getResult(0)),
                      KernelArg::i(xs[0] * xs[1]), KernelArg::i(prod(xs.drop_front(2))),
                      KernelArg::i(isMax)})});
}

FailureOr<OpLowering> lowerBatchNorm(BatchNormalizationOp op, std::string t) {
  auto xs = shapeOf(op.getX());
  if (op.getTrainingMode())
    return calls({call("batch_norm_training", {t}, kNorm,
                       {KernelArg::input(op.getX()), KernelArg::input(op.getScale()),
                        KernelArg::input(op.getB()), KernelArg::input(op.getInputMean()),
                        KernelArg::input(op.getInputVar()), KernelArg::output(op.getY()),
                        outputOrNull(op.getRunningMean()), outputOrNull(op.getRunningVar()),
                        KernelArg::i(xs[0]), KernelArg::i(xs[1]),
                        KernelArg::i(prod(xs.drop_front(2))),
                        KernelArg::f(op.getEpsilon().convertToFloat()),
                        KernelArg::f(op.getMomentum().convertToFloat())})});
  return calls({call("batch_norm", {t}, kNorm,
                     {KernelArg::input(op.getX()), KernelArg::input(op.getScale()),
                      KernelArg::input(op.getB()), KernelArg::input(op.getInputMean()),
                      KernelArg::input(op.getInputVar()), KernelArg::output(op.getY()),
                      KernelArg::i(xs[0]), KernelArg::i(xs[1]),
                      KernelArg::i(prod(xs.drop_front(2))),
                      KernelArg::f(op.getEpsilon().convertToFloat())})});
}

FailureOr<OpLowering> lowerLayerNorm(LayerNormalizationOp op, std::string t, KernelSet ks) {
  auto xs = shapeOf(op.getX());
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += xs.size();
  int64_t outer = prod(xs.take_front(axis)), inner = prod(xs.drop_front(axis));
  if (numel(op.getScale()) != inner ||
      (!isNone(op.getB()) && numel(op.getB()) != inner))
    return unsupported(op, "Scale and B that broadcast over the normalized dims are not supported");
  std::vector<KernelArg> args{KernelArg::input(op.getX()), KernelArg::input(op.getScale()),
                              inputOrNull(op.getB()), KernelArg::output(op.getY()),
                              outputOrNull(op.getMean()), outputOrNull(op.getInvStdDev()),
                              KernelArg::i(outer), KernelArg::i(inner),
                              KernelArg::f(op.getEpsilon().convertToFloat())};
  auto statType = [](Value v) {
    return isNone(v) || cast<ShapedType>(v.getType()).getElementType().isF32();
  };
  if (ks == KernelSet::X86 && t == "float" && statType(op.getMean()) &&
      statType(op.getInvStdDev()))
    return calls({x86Call("layer_norm", {}, kX86Norm, std::move(args))});
  return calls({call("layer_norm", {t}, kNorm, std::move(args))});
}

FailureOr<OpLowering> lowerSoftmax(Operation *op, std::string t, int64_t mode, KernelSet ks) {
  auto xs = shapeOf(op->getOperand(0));
  auto axis = normalizeAxis(op, op->getAttrOfType<IntegerAttr>("axis")
                                    ? op->getAttrOfType<IntegerAttr>("axis").getInt()
                                    : -1,
                            xs.size(), "axis");
  if (failed(axis))
    return failure();
  const int64_t inner = prod(xs.drop_front(*axis + 1));
  if (ks == KernelSet::X86 && t == "float" && inner == 1 && mode != 2)
    return calls({x86Call("softmax", {}, kX86Norm,
                          {KernelArg::input(op->getOperand(0)),
                           KernelArg::output(op->getResult(0)),
                           KernelArg::i(prod(xs.take_front(*axis))), KernelArg::i(xs[*axis]),
                           KernelArg::i(mode)})});
  return calls({call("softmax", {t}, kNorm,
                     {KernelArg::input(op->getOperand(0)),
                      KernelArg::output(op->getResult(0)),
                      KernelArg::i(prod(xs.take_front(*axis))), KernelArg::i(xs[*axis]),
                      KernelArg::i(prod(xs.drop_front(*axis + 1))), KernelArg::i(mode)})});
}

FailureOr<OpLowering> lowerReduce(Operation *op, std::string t) {
  auto xs = shapeOf(op->getOperand(0));
  auto axes = resolveReduceAxes(op, xs.size());
  if (failed(axes))
    return failure();
  if (axes->empty()) // noop_with_empty_axes
    return calls({call("unary", {"onnxc_rt::ref::Identity", t}, kElementwise,
                       {KernelArg::input(op->getOperand(0)),
                        KernelArg::output(op->getResult(0)),
                        KernelArg::i(numel(op->getResult(0))), KernelArg::f(0),
                        KernelArg::f(0)})});
  SmallVector<int64_t> mask(xs.size(), 0);
  for (int64_t a : *axes)
    mask[a] = 1;
  std::string reducer = ("onnxc_rt::ref::" + op->getName().stripDialect()).str();
  return calls({call("reduce", {reducer, t}, kReduce,
                     {KernelArg::input(op->getOperand(0)),
                      KernelArg::output(op->getResult(0)), KernelArg::i(xs.size()),
                      KernelArg::array(xs), KernelArg::array(mask)})});
}

FailureOr<OpLowering> lowerArgReduce(Operation *op, std::string t, bool isMax) {
  auto xs = shapeOf(op->getOperand(0));
  auto axis = normalizeAxis(op, op->getAttrOfType<IntegerAttr>("axis").getInt(),
                            xs.size(), "axis");
  if (failed(axis))
    return failure();
  auto last = op->getAttrOfType<IntegerAttr>("select_last_index");
  return calls({call("arg_reduce", {t}, kReduce,
                     {KernelArg::input(op->getOperand(0)),
                      KernelArg::output(op->getResult(0)),
                      KernelArg::i(prod(xs.take_front(*axis))), KernelArg::i(xs[*axis]),
                      KernelArg::i(prod(xs.drop_front(*axis + 1))), KernelArg::i(isMax),
                      KernelArg::i(last ? last.getInt() : 0)})});
}

FailureOr<OpLowering> lowerEinsum(EinsumOp op, std::string t) {
  auto g = resolveEinsum(op);
  if (failed(g))
    return failure();
  if (op.getInputs().size() > 2)
    return unsupported(op, "Einsum with more than two operands is not supported");
  int64_t nl = g->labelSizes.size();
  auto labelStrides = [&](ArrayRef<int64_t> labels, ArrayRef<int64_t> shape) {
    SmallVector<int64_t> st(nl, 0);
    int64_t s = 1;
    for (int64_t d = labels.size() - 1; d >= 0; --d) {
      st[labels[d]] += s;
      s *= shape[d];
    }
    return st;
  };
  SmallVector<int64_t> ys;
  for (int64_t l : g->outputLabels)
    ys.push_back(g->labelSizes[l]);
  Value a = op.getInputs()[0];
  Value b = op.getInputs().size() > 1 ? op.getInputs()[1] : Value();
  SmallVector<int64_t> as = labelStrides(g->operandLabels[0], shapeOf(a));
  SmallVector<int64_t> bs = b ? labelStrides(g->operandLabels[1], shapeOf(b))
                              : SmallVector<int64_t>(nl, 0);
  return calls({call("einsum", {t}, kLinalg,
                     {KernelArg::input(a), b ? KernelArg::input(b) : KernelArg::null(),
                      KernelArg::output(op.getOutput()), KernelArg::i(nl),
                      KernelArg::array(g->labelSizes), KernelArg::array(as),
                      KernelArg::array(bs), KernelArg::array(labelStrides(g->outputLabels, ys)),
                      KernelArg::i(prod(ys))})});
}

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

FailureOr<OpLowering> lowerConcat(ConcatOp op, std::string t) {
  auto ys = shapeOf(op.getResult());
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += ys.size();
  int64_t outer = prod(ys.take_front(axis)), innerOut = prod(ys.drop_front(axis));
  std::vector<KernelCall> cs;
  int64_t offset = 0;
  for (Value in : op.getInputs()) {
    int64_t inner = prod(shapeOf(in).drop_front(axis));
    if (inner > 0)
      cs.push_back(call("concat_part", {t}, kTensor,
                        {KernelArg::input(in), KernelArg::output(op.getResult()),
                         KernelArg::i(outer), KernelArg::i(inner),
                         KernelArg::i(innerOut), KernelArg::i(offset)}));
    offset += inner;
  }
  return calls(cs);
}

FailureOr<OpLowering> lowerSplit(SplitOp op, std::string t) {
  int64_t axis;
  auto sizes = resolveSplit(op, axis);
  if (failed(sizes))
    return failure();
  auto xs = shapeOf(op.getInput());
  int64_t outer = prod(xs.take_front(axis)), innerIn = prod(xs.drop_front(axis));
  int64_t offset = 0;
  std::vector<KernelCall> cs;
  for (Value r : op.getOutputs()) {
    int64_t inner = prod(shapeOf(r).drop_front(axis));
    cs.push_back(call("split_part", {t}, kTensor,
                      {KernelArg::input(op.getInput()), KernelArg::output(r),
                       KernelArg::i(outer), KernelArg::i(innerIn), KernelArg::i(inner),
                       KernelArg::i(offset)}));
    offset += inner;
  }
  return calls(cs);
}

FailureOr<OpLowering> lowerSlice(SliceOp op, std::string t) {
  auto g = resolveSlice(op);
  if (failed(g))
    return failure();
  if (!*g)
    return unsupported(op, "starts, ends, axes and steps computed at run time are not supported");
  auto xs = shapeOf(op.getData());
  return calls({call("slice", {t}, kTensor,
                     {KernelArg::input(op.getData()), KernelArg::output(op.getResult()),
                      KernelArg::i(xs.size()), KernelArg::array(xs),
                      KernelArg::array((*g)->outShape), KernelArg::array((*g)->starts),
                      KernelArg::array((*g)->steps)})});
}

FailureOr<OpLowering> lowerGather(GatherOp op, std::string t) {
  auto xs = shapeOf(op.getData());
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += xs.size();
  return calls({call("gather", {t, cppTypeName(eltOf(op.getIndices()))}, kTensor,
                     {KernelArg::input(op.getData()), KernelArg::input(op.getIndices()),
                      KernelArg::output(op.getResult()),
                      KernelArg::i(prod(xs.take_front(axis))), KernelArg::i(xs[axis]),
                      KernelArg::i(prod(xs.drop_front(axis + 1))),
                      KernelArg::i(numel(op.getIndices()))})});
}

FailureOr<OpLowering> lowerPad(PadOp op, std::string t) {
  auto xs = shapeOf(op.getData());
  auto pads = getConstantInts(op.getPads());
  if (!pads)
    return unsupported(op, "pads computed at run time are not supported");
  SmallVector<int64_t> axes;
  if (!isNone(op.getAxes())) {
    auto a = getConstantInts(op.getAxes());
    if (!a)
      return unsupported(op, "axes computed at run time are not supported");
    for (int64_t v : *a)
      axes.push_back(v < 0 ? v + xs.size() : v);
  } else {
    for (size_t i = 0; i < xs.size(); ++i)
      axes.push_back(i);
  }
  SmallVector<int64_t> begin(xs.size(), 0);
  for (size_t i = 0; i < axes.size(); ++i)
    begin[axes[i]] = (*pads)[i];
  StringRef mode = op.getMode();
  int64_t m = mode == "constant" ? 0 : mode == "reflect" ? 1 : mode == "edge" ? 2 : 3;
  return calls({call("pad", {t}, kTensor,
                     {KernelArg::input(op.getData()), KernelArg::output(op.getResult()),
                      KernelArg::i(xs.size()), KernelArg::array(xs),
                      KernelArg::array(shapeOf(op.getResult())), KernelArg::array(begin),
                      KernelArg::i(m), inputOrNull(op.getConstantValue())})});
}

FailureOr<OpLowering> lowerConstantOfShape(ConstantOfShapeOp op, std::string t) {
  KernelArg value = KernelArg::i(0);
  if (auto v = op.getValue()) {
    if (isa<FloatType>(v->getElementType()))
      value = KernelArg::f((*v->getValues<APFloat>().begin()).convertToDouble());
    else if (v->getElementType().isInteger(1))
      value = KernelArg::i((*v->getValues<bool>().begin()) ? 1 : 0);
    else
      value = KernelArg::i((*v->getValues<APInt>().begin()).getSExtValue());
  } else {
    value = KernelArg::f(0);
  }
  return calls({call("fill", {t}, kElementwise,
                     {KernelArg::output(op.getResult()),
                      KernelArg::i(numel(op.getResult())), value})});
}

int64_t reductionCode(StringRef r) {
  return r == "add" ? 1 : r == "mul" ? 2 : r == "max" ? 3 : r == "min" ? 4 : 0;
}

FailureOr<OpLowering> lowerGatherScatterElements(Operation *op, std::string t) {
  Value data = op->getOperand(0), idx = op->getOperand(1);
  auto ds = shapeOf(data), is = shapeOf(idx);
  int64_t axis = op->getAttrOfType<IntegerAttr>("axis")
                     ? op->getAttrOfType<IntegerAttr>("axis").getInt()
                     : 0;
  if (axis < 0)
    axis += ds.size();
  std::string ti = cppTypeName(eltOf(idx));
  if (auto s = dyn_cast<ScatterElementsOp>(op))
    return calls({call("scatter_elements", {t, ti}, kTensor,
                       {KernelArg::input(data), KernelArg::input(idx),
                        KernelArg::input(s.getUpdates()), KernelArg::output(s.getResult()),
                        KernelArg::i(ds.size()), KernelArg::array(ds), KernelArg::array(is),
                        KernelArg::i(axis), KernelArg::i(reductionCode(s.getReduction()))})});
  return calls({call("gather_elements", {t, ti}, kTensor,
                     {KernelArg::input(data), KernelArg::input(idx),
                      KernelArg::output(op->getResult(0)), KernelArg::i(ds.size()),
                      KernelArg::array(ds), KernelArg::array(is), KernelArg::i(axis)})});
}

FailureOr<OpLowering> lowerGatherND(GatherNDOp op, std::string t) {
  auto ds = shapeOf(op.getData()), is = shapeOf(op.getIndices());
  int64_t b = op.getBatchDims(), k = is.back();
  return calls({call("gather_nd", {t, cppTypeName(eltOf(op.getIndices()))}, kTensor,
                     {KernelArg::input(op.getData()), KernelArg::input(op.getIndices()),
                      KernelArg::output(op.getResult()), KernelArg::i(prod(is.take_front(b))),
                      KernelArg::i(prod(is.drop_front(b).drop_back())), KernelArg::i(k),
                      KernelArg::array(ds.slice(b, k)), KernelArg::i(prod(ds.drop_front(b))),
                      KernelArg::i(prod(ds.drop_front(b + k)))})});
}

FailureOr<OpLowering> lowerScatterND(ScatterNDOp op, std::string t) {
  auto ds = shapeOf(op.getData()), is = shapeOf(op.getIndices());
  int64_t k = is.back();
  return calls({call("scatter_nd", {t, cppTypeName(eltOf(op.getIndices()))}, kTensor,
                     {KernelArg::input(op.getData()), KernelArg::input(op.getIndices()),
                      KernelArg::input(op.getUpdates()), KernelArg::output(op.getResult()),
                      KernelArg::i(numel(op.getData())), KernelArg::i(prod(is.drop_back())),
                      KernelArg::i(k), KernelArg::array(ds.take_front(k)),
                      KernelArg::i(prod(ds.drop_front(k))),
                      KernelArg::i(reductionCode(op.getReduction()))})});
}

FailureOr<OpLowering> lowerConvTranspose(ConvTransposeOp op, std::string t) {
  auto g = resolveConvTranspose(op);
  if (failed(g))
    return failure();
  return calls({call("conv_transpose", {t}, kConv,
                     {KernelArg::input(op.getX()), KernelArg::input(op.getW()),
                      inputOrNull(op.getB()), KernelArg::output(op.getY()),
                      KernelArg::i(g->kernel.size()), KernelArg::array(shapeOf(op.getX())),
                      KernelArg::array(shapeOf(op.getY())), KernelArg::array(g->kernel),
                      KernelArg::array(g->strides), KernelArg::array(g->padsBegin),
                      KernelArg::array(g->padsEnd), KernelArg::array(g->dilations),
                      KernelArg::i(op.getGroup())})});
}

FailureOr<OpLowering> lowerResize(ResizeOp op, std::string t) {
  auto g = resolveResize(op);
  if (failed(g))
    return failure();
  if (!*g)
    return unsupported(op, "scales, sizes or roi computed at run time are not supported");
  StringRef m = op.getMode(), c = op.getCoordinateTransformationMode(),
            nm = op.getNearestMode();
  int64_t mode = m == "nearest" ? 0 : m == "linear" ? 1 : 2;
  int64_t coord = c == "half_pixel"           ? 0
                  : c == "asymmetric"         ? 1
                  : c == "pytorch_half_pixel" ? 2
                  : c == "align_corners"      ? 3
                  : c == "tf_crop_and_resize" ? 4
                  : c == "half_pixel_symmetric" ? 5
                                              : 6;
  int64_t nearest = nm == "round_prefer_floor" ? 0
                    : nm == "round_prefer_ceil" ? 1
                    : nm == "floor"             ? 2
                                                : 3;
  auto xs = shapeOf(op.getX());
  return calls({call("resize", {t}, kResize,
                     {KernelArg::input(op.getX()), KernelArg::output(op.getY()),
                      KernelArg::i(xs.size()), KernelArg::array(xs),
                      KernelArg::array((*g)->outShape), KernelArg::floatArray((*g)->scales),
                      KernelArg::floatArray((*g)->roi), KernelArg::i(mode), KernelArg::i(coord),
                      KernelArg::i(nearest), KernelArg::f(op.getCubicCoeffA().convertToFloat()),
                      KernelArg::i(op.getExcludeOutside()),
                      KernelArg::f(op.getExtrapolationValue().convertToFloat())})});
}

/// NLL loss on `logProb` (an op value, or the op's scratch when null).
KernelCall nllCall(Operation *op, Value input, KernelArg inputArg, Value target, Value weight,
                   Value result, std::string t) {
  auto is = shapeOf(input);
  auto red = op->getAttrOfType<StringAttr>("reduction");
  StringRef r = red ? red.getValue() : "mean";
  auto ignore = op->getAttrOfType<IntegerAttr>("ignore_index");
  return call("nll_loss", {t, cppTypeName(eltOf(target))}, kNorm,
              {inputArg, KernelArg::input(target), inputOrNull(weight),
               KernelArg::output(result), KernelArg::i(is[0]), KernelArg::i(is[1]),
               KernelArg::i(prod(is.drop_front(2))),
               KernelArg::i(r == "none" ? 0 : r == "sum" ? 1 : 2),
               KernelArg::i(ignore ? ignore.getInt() : 0), KernelArg::i(ignore ? 1 : 0)});
}

FailureOr<OpLowering> lowerSoftmaxCrossEntropy(SoftmaxCrossEntropyLossOp op, std::string t) {
  auto ss = shapeOf(op.getScores());
  Value logProb = op.getLogProb();
  int64_t bytes = numel(op.getScores()) * (t == "double" ? 8 : 4);
  KernelArg out = isNone(logProb) ? KernelArg::scratch(bytes, t) : KernelArg::output(logProb);
  KernelArg in = isNone(logProb) ? KernelArg::scratch(bytes, t) : KernelArg::input(logProb);
  KernelCall lsm = call("softmax", {t}, kNorm,
                        {KernelArg::input(op.getScores()), out, KernelArg::i(ss[0]),
                         KernelArg::i(ss[1]), KernelArg::i(prod(ss.drop_front(2))),
                         KernelArg::i(1)});
  return calls({lsm, nllCall(op, op.getScores(), in, op.getLabels(), op.getWeights(),
                             op.getOutput(), t)});
}

FailureOr<OpLowering> lowerCompress(CompressOp op, std::string t) {
  ElementsAttr cond = getConstantElements(op.getCondition());
  if (!cond)
    return unsupported(op, "a condition computed at run time is not supported");
  auto xs = shapeOf(op.getInput());
  int64_t outer = 1, extent = numel(op.getInput()), inner = 1;
  if (auto a = op.getAxis()) {
    int64_t axis = static_cast<int64_t>(*a);
    if (axis < 0)
      axis += xs.size();
    outer = prod(xs.take_front(axis));
    extent = xs[axis];
    inner = prod(xs.drop_front(axis + 1));
  }
  SmallVector<int64_t> picked;
  int64_t i = 0;
  for (bool c : cond.getValues<bool>())
    if (i < extent && c)
      picked.push_back(i++);
    else
      ++i;
  if (picked.empty())
    return calls({});
  return calls({call("gather", {t, "int64_t"}, kTensor,
                     {KernelArg::input(op.getInput()), KernelArg::array(picked),
                      KernelArg::output(op.getResult()), KernelArg::i(outer),
                      KernelArg::i(extent), KernelArg::i(inner),
                      KernelArg::i(picked.size())})});
}

} // namespace

KernelSet kernelSetFor(Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  auto set = module ? module->getAttrOfType<StringAttr>(kKernelSetAttr) : StringAttr();
  return set && set.getValue() == "x86" ? KernelSet::X86 : KernelSet::Reference;
}

int64_t taskCountFor(Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  auto n = module ? module->getAttrOfType<IntegerAttr>(kThreadsAttr) : IntegerAttr();
  return n ? std::max<int64_t>(1, n.getInt()) : 1;
}

FailureOr<OpLowering> lowerToKernelCalls(Operation *op) {
  return lowerToKernelCalls(op, kernelSetFor(op));
}

FailureOr<OpLowering> lowerToKernelCalls(Operation *op, KernelSet ks) {
  if (isa<ConstantOp, NoValueOp>(op))
    return OpLowering{};
  SmallVector<Value> all(op->getOperands());
  all.append(op->getResults().begin(), op->getResults().end());
  for (Value v : all) {
    if (isa<NoneType>(v.getType()))
      continue;
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape())
      return op->emitError() << "shape " << v.getType()
                             << " depends on values known only at run time: dynamic "
                                "shapes are not supported";
    if (cppTypeName(t.getElementType()).empty())
      return op->emitError() << "element type " << t.getElementType()
                             << " is not supported yet";
    // Strings go through the string kernels and the ones that only move
    // elements (their kernels copy T, which onnxc_string allows).
    if (isa<StringType>(t.getElementType()) &&
        !isa<CastOp, StringNormalizerOp, ConcatOp, GatherOp, GatherElementsOp, GatherNDOp,
             SliceOp, SplitOp, TransposeOp, TileOp, ExpandOp>(op) &&
        !isAliasOp(op))
      return op->emitError() << op->getName().stripDialect()
                             << " on strings is not supported";
  }
  if (isAliasOp(op)) {
    if (auto d = dyn_cast<DropoutOp>(op)) {
      if (!isNone(d.getTrainingMode())) {
        auto tm = getConstantInts(d.getTrainingMode());
        auto te = getConstantElements(d.getTrainingMode());
        bool training = te && te.getElementType().isInteger(1)
                            ? *te.getValues<bool>().begin()
                            : (tm && !tm->empty() && (*tm)[0] != 0);
        if (!te || training)
          return unsupported(op, "training mode is not supported");
      }
    }
    OpLowering l;
    l.kind = OpLowering::Kind::Alias;
    // Dropout's mask at inference is all true.
    if (auto d = dyn_cast<DropoutOp>(op); d && !isNone(d.getMask()))
      l.calls.push_back(call("fill", {"bool"}, kElementwise,
                             {KernelArg::output(d.getMask()), KernelArg::i(numel(d.getMask())),
                              KernelArg::i(1)}));
    return l;
  }
  if (op->getNumOperands() == 0)
    return unsupported(op, "has no operands");
  std::string t = cppTypeName(eltOf(op->getOperand(0)));
  auto floatOnly = [&]() -> LogicalResult {
    if (!isa<FloatType>(eltOf(op->getOperand(0))))
      return op->emitError() << op->getName().stripDialect() << " on "
                             << eltOf(op->getOperand(0)) << " is not supported";
    return success();
  };
  return TypeSwitch<Operation *, FailureOr<OpLowering>>(op)
      .Case<AbsOp, NegOp, ReluOp, CeilOp, FloorOp, SignOp, NotOp>(
          [&](Operation *o) { return lowerUnary(o, t); })
      .Case<ReciprocalOp, SqrtOp, ExpOp, LogOp, ErfOp, TanhOp, SigmoidOp, SinOp,
            CosOp, SoftplusOp, SoftsignOp, HardSwishOp, RoundOp, LeakyReluOp, EluOp,
            HardSigmoidOp, TanOp, AsinOp, AcosOp, AtanOp, SinhOp, CoshOp, AsinhOp,
            AcoshOp, AtanhOp, SeluOp, ThresholdedReluOp, CeluOp, MishOp, GeluOp>(
          [&](Operation *o) -> FailureOr<OpLowering> {
        if (failed(floatOnly()))
          return failure();
        return lowerUnary(o, t);
      })
      .Case<ShrinkOp, BitwiseNotOp>([&](Operation *o) { return lowerUnary(o, t); })
      .Case<BitwiseAndOp, BitwiseOrOp, BitwiseXorOp>([&](Operation *o) {
        std::string fn = ("onnxc_rt::ref::" + o->getName().stripDialect()).str();
        return calls({broadcastCall("binary", {fn, t, t, t}, o->getOperands(), o->getResult(0))});
      })
      .Case<GroupNormalizationOp>([&](GroupNormalizationOp o) -> FailureOr<OpLowering> {
        auto xs = shapeOf(o.getX());
        int64_t groups = o.getNumGroups();
        if (groups < 1 || xs[1] % groups)
          return o.emitError() << "num_groups " << groups << " does not divide " << xs[1]
                               << " channels";
        if (numel(o.getScale()) != xs[1])
          return unsupported(o, "per-group scale and bias (opset 18) are not supported; "
                                "opset 21 takes one per channel");
        return calls({call("group_norm", {t}, kNorm,
                           {KernelArg::input(o.getX()), KernelArg::input(o.getScale()),
                            KernelArg::input(o.getBias()), KernelArg::output(o.getY()),
                            KernelArg::i(xs[0]), KernelArg::i(xs[1]),
                            KernelArg::i(prod(xs.drop_front(2))), KernelArg::i(groups),
                            KernelArg::f(o.getEpsilon().convertToFloat())})});
      })
      .Case<IsNaNOp, IsInfOp>([&](Operation *o) -> FailureOr<OpLowering> {
        if (failed(floatOnly()))
          return failure();
        auto flag = [&](StringRef n) {
          auto a = o->getAttrOfType<IntegerAttr>(n);
          return a ? a.getInt() : 1;
        };
        return calls({call("classify", {t}, kElementwise,
                           {KernelArg::input(o->getOperand(0)), KernelArg::output(o->getResult(0)),
                            KernelArg::i(numel(o->getResult(0))), KernelArg::i(isa<IsInfOp>(o)),
                            KernelArg::i(flag("detect_negative")),
                            KernelArg::i(flag("detect_positive"))})});
      })
      .Case<ModOp>([&](ModOp o) -> FailureOr<OpLowering> {
        bool isFloat = isa<FloatType>(eltOf(o.getA()));
        if (isFloat && !o.getFmod())
          return unsupported(o, "Mod with fmod = 0 on floats is not supported (the spec requires fmod = 1)");
        std::string fn = o.getFmod() ? "onnxc_rt::ref::FMod" : "onnxc_rt::ref::Mod";
        return calls({broadcastCall("binary", {fn, t, t, t}, o->getOperands(), o.getResult())});
      })
      .Case<BitShiftOp>([&](BitShiftOp o) -> FailureOr<OpLowering> {
        StringRef dir = o.getDirection();
        if (dir != "LEFT" && dir != "RIGHT")
          return unsupported(o, "BitShift direction '" + dir + "' is not supported");
        std::string fn = dir == "LEFT" ? "onnxc_rt::ref::ShiftLeft" : "onnxc_rt::ref::ShiftRight";
        return calls({broadcastCall("binary", {fn, t, t, t}, o->getOperands(), o.getResult())});
      })
      .Case<PReluOp>([&](Operation *o) {
        return calls({broadcastCall("binary", {"onnxc_rt::ref::PRelu", t, t, t},
                                    o->getOperands(), o->getResult(0))});
      })
      .Case<AddOp, SubOp, MulOp, DivOp, PowOp>([&](Operation *o) {
        std::string fn = ("onnxc_rt::ref::" + o->getName().stripDialect()).str();
        std::string tb = cppTypeName(eltOf(o->getOperand(1)));
        return calls({broadcastCall("binary", {fn, t, tb, t}, o->getOperands(),
                                    o->getResult(0))});
      })
      .Case<EqualOp, LessOp, GreaterOp, LessOrEqualOp, GreaterOrEqualOp, AndOp, OrOp,
            XorOp>([&](Operation *o) {
        std::string fn = ("onnxc_rt::ref::" + o->getName().stripDialect()).str();
        return calls({broadcastCall("binary", {fn, t, t, "bool"}, o->getOperands(),
                                    o->getResult(0))});
      })
      .Case<MaxOp, MinOp, SumOp, MeanOp>([&](Operation *o) { return lowerVariadic(o, t); })
      .Case<WhereOp>([&](WhereOp o) {
        std::string tx = cppTypeName(eltOf(o.getX()));
        return calls({broadcastCall("where", {tx}, o->getOperands(), o.getResult())});
      })
      .Case<ClipOp>([&](ClipOp o) {
        return calls({call("clip", {t}, kElementwise,
                           {KernelArg::input(o.getInput()), KernelArg::output(o.getResult()),
                            KernelArg::i(numel(o.getResult())), inputOrNull(o.getMin()),
                            inputOrNull(o.getMax())})});
      })
      .Case<CastOp>([&](CastOp o) -> FailureOr<OpLowering> {
        Type from = eltOf(o.getInput()), to = eltOf(o.getResult());
        if (isa<StringType>(from) != isa<StringType>(to)) {
          Type number = isa<StringType>(from) ? to : from;
          if (!(number.isF32() || number.isF64() || isa<IntegerType>(number)) ||
              (isa<StringType>(from) && number.isInteger(1)))
            return unsupported(o, "Cast between string and " + cppTypeName(number) +
                                      " is not supported");
          if (isa<StringType>(from))
            return calls({call("cast_from_string", {cppTypeName(to)}, kStrings,
                               {KernelArg::input(o.getInput()), KernelArg::output(o.getResult()),
                                KernelArg::i(numel(o.getResult()))})});
          return calls({call("cast_to_string", {t}, kStrings,
                             {KernelArg::input(o.getInput()), KernelArg::output(o.getResult()),
                              KernelArg::i(numel(o.getResult())),
                              KernelArg::text(numel(o.getResult()) * onnxc_rt::ref::kNumberStringBytes)})});
        }
        return calls({call("cast", {t, cppTypeName(eltOf(o.getResult()))}, kElementwise,
                           {KernelArg::input(o.getInput()), KernelArg::output(o.getResult()),
                            KernelArg::i(numel(o.getResult()))})});
      })
      .Case<ExpandOp>([&](ExpandOp o) {
        return calls({broadcastCall("broadcast_copy", {t}, o.getInput(), o.getResult())});
      })
      .Case<MatMulOp>([&](MatMulOp o) { return lowerMatMul(o, t, ks); })
      .Case<GemmOp>([&](GemmOp o) { return lowerGemm(o, t, ks); })
      .Case<FusedGemmOp>([&](FusedGemmOp o) { return lowerGemm(o, t, ks); })
      .Case<ConvOp>([&](ConvOp o) -> FailureOr<OpLowering> {
        if (failed(floatOnly()))
          return failure();
        return lowerConv(o, o.getX(), o.getW(), o.getB(), Value(), o.getY(), o.getGroup(), t,
                         ks);
      })
      .Case<FusedConvOp>([&](FusedConvOp o) -> FailureOr<OpLowering> {
        if (failed(floatOnly()))
          return failure();
        return lowerConv(o, o.getX(), o.getW(), o.getB(), o.getZ(), o.getY(), o.getGroup(), t,
                         ks);
      })
      .Case<ToBlockedOp, FromBlockedOp>(
          [&](Operation *o) { return lowerLayoutConversion(o, t, ks); })
      .Case<BlockedConvOp>([&](BlockedConvOp o) { return lowerBlockedConv(o, t, ks); })
      .Case<BlockedPoolOp>([&](BlockedPoolOp o) { return lowerBlockedPool(o, t, ks); })
      .Case<MaxPoolOp>([&](MaxPoolOp o) { return lowerMaxPool(o, t, ks); })
      .Case<AveragePoolOp>([&](AveragePoolOp o) { return lowerAvgPool(o, t); })
      .Case<GlobalAveragePoolOp>([&](Operation *o) { return lowerGlobalPool(o, t, false, ks); })
      .Case<GlobalMaxPoolOp>([&](Operation *o) { return lowerGlobalPool(o, t, true, ks); })
      .Case<BatchNormalizationOp>([&](BatchNormalizationOp o) { return lowerBatchNorm(o, t); })
      .Case<LayerNormalizationOp>(
          [&](LayerNormalizationOp o) { return lowerLayerNorm(o, t, ks); })
      .Case<SoftmaxOp>([&](Operation *o) { return lowerSoftmax(o, t, 0, ks); })
      .Case<LogSoftmaxOp>([&](Operation *o) { return lowerSoftmax(o, t, 1, ks); })
      .Case<HardmaxOp>([&](Operation *o) { return lowerSoftmax(o, t, 2, ks); })
      .Case<ReduceMeanOp, ReduceSumOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp,
            ReduceSumSquareOp, ReduceL1Op, ReduceL2Op, ReduceLogSumOp,
            ReduceLogSumExpOp>([&](Operation *o) { return lowerReduce(o, t); })
      .Case<ArgMaxOp>([&](Operation *o) { return lowerArgReduce(o, t, true); })
      .Case<ArgMinOp>([&](Operation *o) { return lowerArgReduce(o, t, false); })
      .Case<LSTMOp>([&](Operation *o) { return lowerRecurrent(o, t, true); })
      .Case<GRUOp, RNNOp>([&](Operation *o) { return lowerRecurrent(o, t, false); })
      .Case<EinsumOp>([&](EinsumOp o) { return lowerEinsum(o, t); })
      .Case<DetOp>([&](DetOp o) {
        auto xs = shapeOf(o.getX());
        int64_t n = xs.back();
        return calls({call("det", {t}, kLinalg,
                           {KernelArg::input(o.getX()), KernelArg::output(o.getY()),
                            KernelArg::i(prod(xs.drop_back(2))), KernelArg::i(n),
                            KernelArg::scratch(n * n * 8, "double")})});
      })
      .Case<InstanceNormalizationOp>([&](InstanceNormalizationOp o) {
        auto xs = shapeOf(o.getInput());
        return calls({call("instance_norm", {t}, kNorm,
                           {KernelArg::input(o.getInput()), KernelArg::input(o.getScale()),
                            KernelArg::input(o.getB()), KernelArg::output(o.getOutput()),
                            KernelArg::i(xs[0]), KernelArg::i(xs[1]),
                            KernelArg::i(prod(xs.drop_front(2))),
                            KernelArg::f(o.getEpsilon().convertToFloat())})});
      })
      .Case<LRNOp>([&](LRNOp o) {
        auto xs = shapeOf(o.getX());
        return calls({call("lrn", {t}, kNorm,
                           {KernelArg::input(o.getX()), KernelArg::output(o.getY()),
                            KernelArg::i(xs[0]), KernelArg::i(xs[1]),
                            KernelArg::i(prod(xs.drop_front(2))),
                            KernelArg::f(o.getAlpha().convertToFloat()),
                            KernelArg::f(o.getBeta().convertToFloat()),
                            KernelArg::f(o.getBias().convertToFloat()), KernelArg::i(o.getSize())})});
      })
      .Case<MaxUnpoolOp>([&](MaxUnpoolOp o) {
        auto xs = shapeOf(o.getX());
        size_t n = xs.size() - 2;
        ArrayRef<int64_t> k = o.getKernelShape();
        SmallVector<int64_t> pads(2 * n, 0), strides(n, 1);
        if (auto p = o.getPads())
          pads.assign(p->begin(), p->end());
        if (auto s = o.getStrides())
          strides.assign(s->begin(), s->end());
        SmallVector<int64_t> pool{xs[0], xs[1]};
        for (size_t i = 0; i < n; ++i)
          pool.push_back((xs[i + 2] - 1) * strides[i] + k[i] - pads[i] - pads[i + n]);
        return calls({call("max_unpool", {t, cppTypeName(eltOf(o.getI()))}, kConv,
                           {KernelArg::input(o.getX()), KernelArg::input(o.getI()),
                            KernelArg::output(o.getOutput()), KernelArg::i(xs.size()),
                            KernelArg::array(pool), KernelArg::array(shapeOf(o.getOutput())),
                            KernelArg::i(numel(o.getX()))})});
      })
      .Case<HannWindowOp, HammingWindowOp, BlackmanWindowOp>([&](Operation *o) {
        auto p = o->getAttrOfType<IntegerAttr>("periodic");
        int64_t kind = isa<HannWindowOp>(o) ? 0 : isa<HammingWindowOp>(o) ? 1 : 2;
        return calls({call("window", {cppTypeName(eltOf(o->getResult(0)))}, kElementwise,
                           {KernelArg::output(o->getResult(0)), KernelArg::i(numel(o->getResult(0))),
                            KernelArg::i(kind), KernelArg::i(p ? p.getInt() : 1)})});
      })
      .Case<TransposeOp>([&](TransposeOp o) {
        auto xs = shapeOf(o.getData());
        return calls({call("transpose", {t}, kTensor,
                           {KernelArg::input(o.getData()), KernelArg::output(o.getResult()),
                            KernelArg::i(xs.size()), KernelArg::array(xs),
                            KernelArg::array(transposePerm(o, xs.size()))})});
      })
      .Case<ConcatOp>([&](ConcatOp o) { return lowerConcat(o, t); })
      .Case<SplitOp>([&](SplitOp o) { return lowerSplit(o, t); })
      .Case<SliceOp>([&](SliceOp o) { return lowerSlice(o, t); })
      .Case<GatherOp>([&](GatherOp o) { return lowerGather(o, t); })
      .Case<TileOp>([&](TileOp o) {
        auto xs = shapeOf(o.getInput());
        return calls({call("tile", {t}, kTensor,
                           {KernelArg::input(o.getInput()), KernelArg::output(o.getResult()),
                            KernelArg::i(xs.size()), KernelArg::array(xs),
                            KernelArg::array(shapeOf(o.getResult()))})});
      })
      .Case<PadOp>([&](PadOp o) { return lowerPad(o, t); })
      .Case<GatherElementsOp, ScatterElementsOp>(
          [&](Operation *o) { return lowerGatherScatterElements(o, t); })
      .Case<GatherNDOp>([&](GatherNDOp o) { return lowerGatherND(o, t); })
      .Case<ScatterNDOp>([&](ScatterNDOp o) { return lowerScatterND(o, t); })
      .Case<TriluOp>([&](TriluOp o) -> FailureOr<OpLowering> {
        int64_t k = 0;
        if (!isNone(o.getK())) {
          auto kv = getConstantInts(o.getK());
          if (!kv || kv->size() != 1)
            return unsupported(o, "a k computed at run time is not supported");
          k = (*kv)[0];
        }
        auto xs = shapeOf(o.getInput());
        return calls({call("trilu", {t}, kTensor,
                           {KernelArg::input(o.getInput()), KernelArg::output(o.getResult()),
                            KernelArg::i(prod(xs.drop_back(2))), KernelArg::i(xs[xs.size() - 2]),
                            KernelArg::i(xs.back()), KernelArg::i(k),
                            KernelArg::i(o.getUpper())})});
      })
      .Case<CumSumOp>([&](CumSumOp o) -> FailureOr<OpLowering> {
        auto a = getConstantInts(o.getAxis());
        auto xs = shapeOf(o.getX());
        if (!a || a->size() != 1)
          return unsupported(o, "an axis computed at run time is not supported");
        auto axis = normalizeAxis(o, (*a)[0], xs.size(), "axis");
        if (failed(axis))
          return failure();
        return calls({call("cumsum", {t}, kTensor,
                           {KernelArg::input(o.getX()), KernelArg::output(o.getY()),
                            KernelArg::i(prod(xs.take_front(*axis))), KernelArg::i(xs[*axis]),
                            KernelArg::i(prod(xs.drop_front(*axis + 1))),
                            KernelArg::i(o.getExclusive()), KernelArg::i(o.getReverse())})});
      })
      .Case<OneHotOp>([&](OneHotOp o) -> FailureOr<OpLowering> {
        auto is = shapeOf(o.getIndices());
        auto os = shapeOf(o.getResult());
        int64_t axis = static_cast<int64_t>(o.getAxis());
        if (axis < 0)
          axis += os.size();
        return calls({call("one_hot", {t, cppTypeName(eltOf(o.getValues()))}, kTensor,
                           {KernelArg::input(o.getIndices()), KernelArg::input(o.getValues()),
                            KernelArg::output(o.getResult()), KernelArg::i(prod(is.take_front(axis))),
                            KernelArg::i(os[axis]), KernelArg::i(prod(is.drop_front(axis)))})});
      })
      .Case<EyeLikeOp>([&](EyeLikeOp o) {
        auto os = shapeOf(o.getResult());
        return calls({call("eye_like", {cppTypeName(eltOf(o.getResult()))}, kTensor,
                           {KernelArg::output(o.getResult()), KernelArg::i(os[0]),
                            KernelArg::i(os[1]), KernelArg::i(o.getK())})});
      })
      .Case<TopKOp>([&](TopKOp o) {
        auto xs = shapeOf(o.getX());
        int64_t axis = static_cast<int64_t>(o.getAxis());
        if (axis < 0)
          axis += xs.size();
        return calls({call("topk", {t}, kTensor,
                           {KernelArg::input(o.getX()), KernelArg::output(o.getValues()),
                            KernelArg::output(o.getIndices()), KernelArg::i(prod(xs.take_front(axis))),
                            KernelArg::i(xs[axis]), KernelArg::i(prod(xs.drop_front(axis + 1))),
                            KernelArg::i(shapeOf(o.getValues())[axis]),
                            KernelArg::i(o.getLargest()), KernelArg::i(o.getSorted())})});
      })
      .Case<CompressOp>([&](CompressOp o) { return lowerCompress(o, t); })
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
      .Case<NonZeroOp>([&](NonZeroOp o) {
        auto xs = shapeOf(o.getX());
        return calls({call("nonzero", {t}, kTensor,
                           {KernelArg::input(o.getX()), KernelArg::output(o.getY()),
                            KernelArg::output(o.getExtent()), KernelArg::i(xs.size()),
                            KernelArg::array(xs), KernelArg::i(numel(o.getX()))})});
      })
      .Case<UniqueOp>([&](UniqueOp o) {
        auto xs = shapeOf(o.getX());
        int64_t outer = 1, n = numel(o.getX()), inner = 1;
        if (o.getAxis()) {
          int64_t axis = o.dataDependentDim(0); // the axis, normalised
          outer = prod(xs.take_front(axis));
          n = xs[axis];
          inner = prod(xs.drop_front(axis + 1));
        }
        return calls({call("unique", {t}, kTensor,
                           {KernelArg::input(o.getX()), KernelArg::output(o.getY()),
                            outputOrNull(o.getIndices()), outputOrNull(o.getInverseIndices()),
                            outputOrNull(o.getCounts()), KernelArg::output(o.getExtent()),
                            KernelArg::i(outer), KernelArg::i(n), KernelArg::i(inner),
                            KernelArg::i(o.getSorted()),
                            KernelArg::scratch(onnxc_rt::ref::kUniqueScratchPerSlice * std::max<int64_t>(n, 1) * 8,
                                              "int64_t")})});
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
                                              "int64_t")})});
      })
      .Case<ReverseSequenceOp>([&](ReverseSequenceOp o) -> FailureOr<OpLowering> {
        auto xs = shapeOf(o.getInput());
        int64_t ba = o.getBatchAxis(), ta = o.getTimeAxis();
        if (!((ba == 0 && ta == 1) || (ba == 1 && ta == 0)))
          return unsupported(o, "batch_axis/time_axis other than 0 and 1 are not supported");
        int64_t inner = prod(xs.drop_front(2));
        int64_t s0 = xs[1] * inner, s1 = inner;
        return calls({call("reverse_sequence", {t, cppTypeName(eltOf(o.getSequenceLens()))},
                           kTensor,
                           {KernelArg::input(o.getInput()), KernelArg::input(o.getSequenceLens()),
                            KernelArg::output(o.getY()), KernelArg::i(xs[ba]), KernelArg::i(xs[ta]),
                            KernelArg::i(ba == 0 ? s0 : s1), KernelArg::i(ta == 0 ? s0 : s1),
                            KernelArg::i(inner), KernelArg::i(numel(o.getInput()))})});
      })
      .Case<ConvTransposeOp>([&](ConvTransposeOp o) -> FailureOr<OpLowering> {
        if (failed(floatOnly()))
          return failure();
        return lowerConvTranspose(o, t);
      })
      .Case<ResizeOp>([&](ResizeOp o) { return lowerResize(o, t); })
      .Case<GridSampleOp>([&](GridSampleOp o) {
        auto xs = shapeOf(o.getX()), ys = shapeOf(o.getY());
        int64_t mode = o.getMode() == "bilinear" ? 0 : o.getMode() == "nearest" ? 1 : 2;
        int64_t pad = o.getPaddingMode() == "zeros" ? 0 : o.getPaddingMode() == "border" ? 1 : 2;
        return calls({call("grid_sample", {t}, kSample,
                           {KernelArg::input(o.getX()), KernelArg::input(o.getGrid()),
                            KernelArg::output(o.getY()), KernelArg::i(xs[0]), KernelArg::i(xs[1]),
                            KernelArg::i(xs[2]), KernelArg::i(xs[3]), KernelArg::i(ys[2]),
                            KernelArg::i(ys[3]), KernelArg::i(mode), KernelArg::i(pad),
                            KernelArg::i(o.getAlignCorners())})});
      })
      .Case<RoiAlignOp>([&](RoiAlignOp o) -> FailureOr<OpLowering> {
        auto xs = shapeOf(o.getX());
        StringRef ctm = o.getCoordinateTransformationMode();
        if (ctm != "half_pixel" && ctm != "output_half_pixel")
          return unsupported(o, "coordinate_transformation_mode '" + ctm + "' is not supported");
        return calls({call("roi_align", {t, cppTypeName(eltOf(o.getBatchIndices()))}, kSample,
                           {KernelArg::input(o.getX()), KernelArg::input(o.getRois()),
                            KernelArg::input(o.getBatchIndices()), KernelArg::output(o.getY()),
                            KernelArg::i(xs[1]), KernelArg::i(xs[2]), KernelArg::i(xs[3]),
                            KernelArg::i(shapeOf(o.getRois())[0]), KernelArg::i(o.getOutputHeight()),
                            KernelArg::i(o.getOutputWidth()), KernelArg::i(o.getSamplingRatio()),
                            KernelArg::f(o.getSpatialScale().convertToFloat()),
                            KernelArg::i(o.getMode() == "max"), KernelArg::i(ctm == "half_pixel")})});
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
        return calls({call("tfidf", {t}, kText,
                           {KernelArg::input(o.getX()), KernelArg::output(o.getY()),
                            KernelArg::i(rows), KernelArg::i(cols),
                            KernelArg::i(o.getMinGramLength()), KernelArg::i(o.getMaxGramLength()),
                            KernelArg::i(o.getMaxSkipCount()), KernelArg::array(pool),
                            KernelArg::i(pool.size()), KernelArg::array(o.getNgramCounts()),
                            KernelArg::i(o.getNgramCounts().size()),
                            KernelArg::array(o.getNgramIndexes()),
                            KernelArg::i(o.getNgramIndexes().size()),
                            weights.empty() ? KernelArg::null() : KernelArg::floatArray(weights),
                            KernelArg::i(shapeOf(o.getY()).back()),
                            KernelArg::i(mode == "TF" ? 0 : mode == "IDF" ? 1 : 2)})});
      })
      .Case<QuantizeLinearOp>([&](Operation *o) { return lowerQuantizeLike(o, true); })
      .Case<DequantizeLinearOp>([&](Operation *o) { return lowerQuantizeLike(o, false); })
      .Case<DynamicQuantizeLinearOp>([&](DynamicQuantizeLinearOp o) -> FailureOr<OpLowering> {
        if (t != "float")
          return unsupported(o, "DynamicQuantizeLinear on " + t + " is not supported");
        KernelCall c = call("dynamic_quantize_linear", {}, kQuant,
                            {KernelArg::input(o.getX()), KernelArg::output(o.getY()),
                             KernelArg::output(o.getYScale()),
                             KernelArg::output(o.getYZeroPoint()), KernelArg::i(numel(o.getX()))});
        return calls({c});
      })
      .Case<MatMulIntegerOp>([&](MatMulIntegerOp o) {
        return calls({matmulInteger(o.getA(), o.getB(), o.getAZeroPoint(), o.getBZeroPoint(),
                                    KernelArg::output(o.getY()))});
      })
      .Case<QLinearMatMulOp>([&](QLinearMatMulOp o) { return lowerQLinearMatMul(o); })
      .Case<ConvIntegerOp>([&](ConvIntegerOp o) -> FailureOr<OpLowering> {
        auto c = convInteger(o, o.getX(), o.getW(), o.getXZeroPoint(), o.getWZeroPoint(),
                             nullptr, o.getY(), KernelArg::output(o.getY()));
        if (failed(c))
          return failure();
        return calls({*c});
      })
      .Case<QLinearConvOp>([&](QLinearConvOp o) { return lowerQLinearConv(o); })
      .Case<NegativeLogLikelihoodLossOp>([&](NegativeLogLikelihoodLossOp o) {
        return calls({nllCall(o, o.getInput(), KernelArg::input(o.getInput()), o.getTarget(),
                              o.getWeight(), o.getLoss(), t)});
      })
      .Case<SoftmaxCrossEntropyLossOp>(
          [&](SoftmaxCrossEntropyLossOp o) { return lowerSoftmaxCrossEntropy(o, t); })
      .Case<ConstantOfShapeOp>([&](ConstantOfShapeOp o) {
        return lowerConstantOfShape(o, cppTypeName(eltOf(o.getResult())));
      })
      .Case<RangeOp>([&](RangeOp o) {
        return calls({call("range", {t}, kElementwise,
                           {KernelArg::input(o.getStart()), KernelArg::input(o.getDelta()),
                            KernelArg::output(o.getResult()),
                            KernelArg::i(numel(o.getResult()))})});
      })
      .Default([&](Operation *o) -> FailureOr<OpLowering> {
        // Shape and Size always fold to constants once shapes are static.
        return unsupported(o, "internal error: no kernel (the op should have been folded)");
      });
}

} // namespace onnxc
