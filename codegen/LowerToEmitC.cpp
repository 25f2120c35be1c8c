//===- LowerToEmitC.cpp - onnxc-lower-to-emitc -----------------------------===//
#include "onnxc/Codegen/BoundedDims.h"
#include "onnxc/Lowering/KernelProvider.h"
#include "onnxc/Lowering/CppText.h"
#include "onnxc/Dialect/ONNX/NodeNames.h"
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"
#include "onnxc/Passes/Passes.h"
#include "onnxc_rt/host_steps.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <optional>
#include <set>

using namespace mlir;

namespace onnxc {
#define GEN_PASS_DEF_LOWERTOEMITCPASS
#include "onnxc/Passes/Passes.h.inc"

namespace {

constexpr int64_t kWeightAlign = 64;

std::string nodeName(Location loc) { return nodeNameOf(loc); }

/// Keeps a comment on one line and free of comment terminators.
std::string commentSafe(StringRef s) {
  std::string out;
  for (char c : s)
    out.push_back(c == '\n' || c == '\r' ? ' ' : c);
  return out;
}

class EmitCLowering {
public:
  EmitCLowering(ModuleOp module, SmallVector<func::FuncOp> funcs, std::string deviceRuntime)
      : module(module), funcs(std::move(funcs)), b(module.getContext()),
        deviceRuntime(std::move(deviceRuntime)) {}
  LogicalResult run();

private:
  Type ptrTo(Type elt, bool isConst) {
    std::string name = (isConst ? "const " : "") + cppTypeName(elt);
    return emitc::PointerType::get(emitc::OpaqueType::get(b.getContext(), name));
  }
  Value literal(StringRef text, Type type) {
    return b.create<emitc::LiteralOp>(func.getLoc(), type, text);
  }
  /// `onnxc_rt::at<T>(base, offset)` as a pointer value.
  Value at(Value base, int64_t offset, Type elt, bool isConst) {
    std::string t = (isConst ? "const " : "") + cppTypeName(elt);
    auto call = b.create<emitc::CallOpaqueOp>(
        func.getLoc(), TypeRange{ptrTo(elt, isConst)}, "onnxc_rt::at",
        ValueRange{base},
        b.getArrayAttr({b.getIndexAttr(0), b.getI64IntegerAttr(offset)}),
        b.getArrayAttr({emitc::OpaqueAttr::get(b.getContext(), t)}));
    return call.getResult(0);
  }
  Value weightPointer(ElementsAttr value);
  /// Function parameter `fromEnd` places from the last, cast to `type*` by
  /// a static_cast at the function's start, made on first use into `cache`.
  Value castParameter(Value &cache, unsigned fromEnd, StringRef type) {
    if (!cache) {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&cfunc.getBody().front());
      auto args = cfunc.getBody().front().getArguments();
      cache = b.create<emitc::CallOpaqueOp>(
                   func.getLoc(),
                   TypeRange{emitc::PointerType::get(
                       emitc::OpaqueType::get(b.getContext(), type))},
                   ("static_cast<" + type + "*>").str(),
                   ValueRange{args[args.size() - 1 - fromEnd]})
                  .getResult(0);
    }
    return cache;
  }
  /// The arena parameter as `uint8_t*`.
  Value arena() { return castParameter(arenaBytes, 1, "uint8_t"); }
  /// The last parameter: `threads` as `onnxc_rt::TaskRunner*`, or on a
  /// device the stream, `NS::Stream*`.
  Value runner() {
    return castParameter(taskRunner, 0,
                         onDevice() ? deviceRuntime + "::Stream" : "onnxc_rt::TaskRunner");
  }
  bool onDevice() const { return !deviceRuntime.empty(); }
  /// On a device: the session's host memory (`uint8_t*`), where host steps
  /// run (the parameter before the weights).
  Value hostMemory() { return castParameter(hostBase, 3, "uint8_t"); }
  /// Bytes of host memory for the host steps: `bytes` at an offset of it.
  int64_t hostAllocate(int64_t bytes) {
    if (hostBytes == 0)
      hostBytes = onnxc_rt::kHostStatusBytes;
    const int64_t offset = hostBytes;
    hostBytes += (std::max<int64_t>(bytes, 1) + 63) / 64 * 64;
    return offset;
  }
  /// A reference kernel's call inside a device schedule, run on the host
  /// (an op on strings): its tensors copied to host memory and its outputs
  /// back around the call (kernels/cuda/host.cuh).
  /// `scratch`: the op's scratch in host memory, placed on first use
  /// (`scratchBytes`, shared by its calls).
  LogicalResult lowerHostStep(Operation *op, const KernelCall &c, int64_t scratchBytes,
                              std::optional<int64_t> &scratch);
  /// `NS::fn(stream, from, to, bytes)`: a copy on the device's stream
  /// (copy_bytes, to_host, to_device).
  void streamCopy(Location loc, StringRef fn, Value from, Value to, int64_t bytes) {
    b.create<emitc::CallOpaqueOp>(loc, TypeRange{}, deviceRuntime + "::" + fn.str(),
                                  ValueRange{runner(), from, to},
                                  b.getArrayAttr({b.getIndexAttr(0), b.getIndexAttr(1),
                                                  b.getIndexAttr(2), b.getI64IntegerAttr(bytes)}),
                                  ArrayAttr());
  }
  /// A host step's copies of its tensors in host memory, and its op's
  /// scratch there (placed on first use, shared by the op's calls).
  struct HostStaging {
    struct Tensor {
      Value device, host;
      int64_t bytes;
      bool written;
    };
    SmallVector<Tensor> tensors;
    int64_t scratchBytes;
    std::optional<int64_t> scratch;
  };
  /// The C arguments of call `c` of `op` into operands / args; `host`: as
  /// a host step's (tensors, scratch and status in host memory).
  LogicalResult lowerArgs(Operation *op, const KernelCall &c, HostStaging *host,
                          SmallVector<Value> &operands, SmallVector<Attribute> &args);
  /// `&status`, the run's status variable (made on first use; the function
  /// returns it).
  Value statusPointer();
  /// A `static const onnxc_string` array global holding `strings`.
  Value stringArray(ArrayRef<std::string> strings);
  template <typename T>
  Value constArray(ArrayRef<T> values, Type elt, std::map<std::vector<T>, std::string> &cache,
                   char prefix);
  Value valueOf(Value v);
  LogicalResult lowerOp(Operation *op);
  /// A bounded-dims model: the value of `poly` at this call's dims (made
  /// once, at the function's start).
  Value dimValue(const DimPoly &poly);
  /// An int array with entries that depend on the dims, made at run time.
  Value dimArray(const KernelArg &a);

  /// The schedule of `func` (funcs[funcIndex]) as a C function.
  LogicalResult lowerFunction(size_t funcIndex);
  std::string coreNameOf(size_t funcIndex, unsigned nDims) const;

  ModuleOp module;
  SmallVector<func::FuncOp> funcs; // one, or one per bounded-dims regime
  func::FuncOp func;               // the one being lowered
  OpBuilder b;
  std::string deviceRuntime; // empty: host code
  std::string name;
  emitc::FuncOp cfunc;
  Value arenaBytes, weightsBase, taskRunner, status, statusAddress, hostBase;
  /// Host steps (device form): bytes of host memory they use (laid out as
  /// onnxc_rt/host_steps.h says).
  int64_t hostBytes = 0;
  /// C values that are host data in a device schedule (string constants).
  llvm::DenseSet<Value> hostData;
  std::map<std::vector<std::string>, std::string> stringArrays;
  llvm::DenseMap<Value, Value> cvalues; // onnx values -> C pointers
  std::map<std::vector<int64_t>, std::string> arrays; // int64 arrays by content
  std::map<std::pair<int64_t, std::string>, Value> arenaPointers;
  std::map<std::vector<double>, std::string> floatArrays;
  std::set<std::string> headers;
  SmallVector<Attribute> weights;
  SmallVector<int64_t> weightOffsets;
  // Where each distinct constant lies in the weights (attributes are
  // uniqued by content: a constant two ops share, or two equal packings of
  // one, e.g. a weight that two layers share, is stored once).
  llvm::DenseMap<Attribute, int64_t> weightOffsetOf;
  int64_t weightBytes = 0;
  Block *globalsAt = nullptr;
  SmallVector<Value> dimParams; // the bounded dims' parameters
  std::map<std::vector<int64_t>, Value> dimValues;
  Operation *lastDimOp = nullptr;
  /// --profile: each node's label ("Conv 'conv1'"), in the order of its marks.
  bool profile = false;
  std::vector<std::string> profileLabels;
  void profileMark(Location loc, size_t node) {
    b.create<emitc::VerbatimOp>(
        loc, b.getStringAttr(name + "_profile_mark(" + std::to_string(node) + ");"));
  }
};

Value EmitCLowering::weightPointer(ElementsAttr value) {
  auto [it, added] = weightOffsetOf.try_emplace(value, 0);
  if (added) {
    int64_t bytes = value.getNumElements() * elementByteSize(value.getElementType());
    it->second = (weightBytes + kWeightAlign - 1) / kWeightAlign * kWeightAlign;
    weights.push_back(value);
    weightOffsets.push_back(it->second);
    weightBytes = it->second + bytes;
  }
  const int64_t offset = it->second;
  if (onDevice()) {
    castParameter(weightsBase, 2, "const uint8_t"); // the device copy, a parameter
  } else if (!weightsBase) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&cfunc.getBody().front());
    weightsBase = literal(name + "_weights",
                          emitc::PointerType::get(emitc::OpaqueType::get(
                              b.getContext(), "const uint8_t")));
  }
  return at(weightsBase, offset, value.getElementType(), /*isConst=*/true);
}

/// A `static const` C array global for `values` (one per distinct content,
/// named prefix + n), or nullptr for an empty list.
template <typename T>
Value EmitCLowering::constArray(ArrayRef<T> values, Type elt,
                                std::map<std::vector<T>, std::string> &cache, char prefix) {
  if (values.empty())
    return literal("nullptr", emitc::PointerType::get(elt));
  std::vector<T> key(values.begin(), values.end());
  auto arrayType = emitc::ArrayType::get({(int64_t)values.size()}, elt);
  auto it = cache.find(key);
  if (it == cache.end()) {
    it = cache.emplace(key, prefix + std::to_string(cache.size())).first;
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(cfunc);
    auto init = DenseElementsAttr::get(RankedTensorType::get({(int64_t)values.size()}, elt),
                                       values);
    b.create<emitc::GlobalOp>(func.getLoc(), it->second, arrayType, init,
                              /*extern=*/false, /*static=*/true, /*const=*/true);
  }
  return b.create<emitc::GetGlobalOp>(func.getLoc(), arrayType, it->second);
}

Value EmitCLowering::dimValue(const DimPoly &poly) {
  std::vector<int64_t> key(poly.begin(), poly.end());
  if (Value v = dimValues[key])
    return v;
  OpBuilder::InsertionGuard g(b);
  // After the dims' earlier values: each is made once, before any use.
  if (lastDimOp)
    b.setInsertionPointAfter(lastDimOp);
  else
    b.setInsertionPointToStart(&cfunc.getBody().front());
  Type i64 = b.getI64Type();
  Location loc = func.getLoc();
  auto constant = [&](int64_t c) {
    return b.create<emitc::ConstantOp>(loc, i64, b.getI64IntegerAttr(c)).getResult();
  };
  // A monomial (coefficient 1) is the product of its dims; any other
  // polynomial sums its terms over the monomials' values, each made once.
  size_t nonzero = llvm::count_if(poly, [](int64_t c) { return c != 0; });
  Value sum;
  for (size_t m = 0; m < poly.size(); ++m) {
    if (!poly[m])
      continue;
    Value term;
    if (nonzero == 1 && poly[m] == 1) {
      for (size_t i = 0, digits = m; i < dimParams.size(); ++i, digits /= 3)
        for (size_t e = 0; e < digits % 3; ++e)
          term = term ? b.create<emitc::MulOp>(loc, i64, term, dimParams[i]).getResult()
                      : dimParams[i];
    } else if (m != 0) {
      DimPoly unit(poly.size(), 0);
      unit[m] = 1;
      term = dimValue(unit); // (made where this one is: the point moves past it)
      if (poly[m] != 1)
        term = b.create<emitc::MulOp>(loc, i64, constant(poly[m]), term);
    }
    if (!term)
      term = constant(poly[m]);
    sum = sum ? b.create<emitc::AddOp>(loc, i64, sum, term).getResult() : term;
  }
  if (!sum)
    sum = constant(0);
  lastDimOp = sum.getDefiningOp() ? sum.getDefiningOp() : lastDimOp;
  return dimValues[key] = sum;
}

Value EmitCLowering::dimArray(const KernelArg &a) {
  SmallVector<Value> operands;
  SmallVector<Attribute> args;
  for (size_t e = 0; e < a.ints.size(); ++e) {
    if (e < a.polys.size() && !a.polys[e].empty()) {
      args.push_back(b.getIndexAttr(operands.size()));
      operands.push_back(dimValue(a.polys[e]));
    } else {
      args.push_back(b.getI64IntegerAttr(a.ints[e]));
    }
  }
  Type t = emitc::OpaqueType::get(b.getContext(), "onnxc_rt::DimArray<" +
                                                      std::to_string(a.ints.size()) + ">");
  return b.create<emitc::CallOpaqueOp>(func.getLoc(), TypeRange{t}, "onnxc_rt::dim_array",
                                       operands, b.getArrayAttr(args), ArrayAttr())
      .getResult(0);
}

Value EmitCLowering::statusPointer() {
  if (!statusAddress) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&cfunc.getBody().front());
    Type intType = emitc::OpaqueType::get(b.getContext(), "int");
    status = b.create<emitc::VariableOp>(func.getLoc(), intType,
                                         emitc::OpaqueAttr::get(b.getContext(), "0"));
    statusAddress = b.create<emitc::ApplyOp>(func.getLoc(), emitc::PointerType::get(intType),
                                             "&", status);
  }
  return statusAddress;
}

Value EmitCLowering::stringArray(ArrayRef<std::string> strings) {
  Type ptr = emitc::PointerType::get(emitc::OpaqueType::get(b.getContext(), "const onnxc_string"));
  if (strings.empty())
    return literal("nullptr", ptr);
  std::vector<std::string> key(strings.begin(), strings.end());
  auto it = stringArrays.find(key);
  if (it == stringArrays.end()) {
    it = stringArrays.emplace(key, "s" + std::to_string(stringArrays.size())).first;
    std::string def = "static const onnxc_string " + it->second + "[] = {";
    for (size_t i = 0; i < strings.size(); ++i)
      def += (i ? ", {" : "{") + cStringLiteral(strings[i]) + ", " +
             std::to_string(strings[i].size()) + "}";
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(cfunc);
    b.create<emitc::VerbatimOp>(func.getLoc(), b.getStringAttr(def + "};"));
  }
  return literal(it->second, ptr);
}

Value EmitCLowering::valueOf(Value v) {
  if (Value c = cvalues.lookup(v))
    return c;
  if (auto c = v.getDefiningOp<onnx::ConstantOp>()) {
    if (isa<onnx::StringType>(c.getValue().getElementType())) {
      std::vector<std::string> strings;
      for (StringRef str : cast<DenseStringElementsAttr>(c.getValue()).getValues<StringRef>())
        strings.push_back(str.str());
      Value array = stringArray(strings);
      hostData.insert(array);
      return cvalues[v] = array;
    }
    Value p = weightPointer(c.getValue());
    cvalues[v] = p;
    return p;
  }
  return nullptr;
}

LogicalResult EmitCLowering::lowerOp(Operation *op) {
  auto lowering = lowerToKernelCalls(op);
  if (failed(lowering))
    return failure();
  if (lowering->kind == OpLowering::Kind::None)
    return success();
  if (lowering->kind == OpLowering::Kind::Alias) {
    cvalues[op->getResult(0)] = valueOf(op->getOperand(0));
    if (lowering->calls.empty())
      return success();
  }
  // "// Conv 'conv1'", or "// Conv (node #3)" for unnamed nodes.
  std::string node = nodeName(op->getLoc());
  std::string label = op->getName().stripDialect().str();
  if (!node.empty() && node[0] == '#')
    label += " (node " + node.substr(0, node.find(' ')) + ")";
  else if (!node.empty())
    label += " '" + commentSafe(node) + "'";
  b.create<emitc::VerbatimOp>(op->getLoc(), b.getStringAttr("// " + label));
  if (profile) {
    profileMark(op->getLoc(), profileLabels.size());
    profileLabels.push_back(label);
  }
  // Results placed in the arena get their pointers now.
  auto offsets = op->getAttrOfType<DenseI64ArrayAttr>(kOffsetAttr);
  for (auto [i, r] : llvm::enumerate(op->getResults())) {
    if (onnx::isNone(r) || cvalues.count(r))
      continue;
    if (!offsets || offsets[i] == kNotInArena)
      return op->emitError("internal: result is neither planned nor an output");
    // One pointer variable per (offset, type): buffers that reuse bytes reuse it.
    Type elt = cast<ShapedType>(r.getType()).getElementType();
    auto key = std::make_pair(offsets[i], cppTypeName(elt));
    auto it = arenaPointers.find(key);
    if (it == arenaPointers.end()) {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointAfterValue(arena());
      it = arenaPointers.emplace(key, at(arena(), offsets[i], elt, false)).first;
    }
    cvalues[r] = it->second;
  }
  // A Concat the memory plan put in place: its operands are already there.
  if (op->hasAttr(kInPlaceAttr)) {
    b.create<emitc::VerbatimOp>(op->getLoc(),
                                b.getStringAttr("// (in place: its inputs were written there)"));
    return success();
  }
  std::optional<int64_t> hostScratch; // the op's scratch, for its host steps
  int64_t scratchBytes = 0;
  for (const KernelCall &c : lowering->calls)
    scratchBytes = std::max(scratchBytes, c.scratchBytes());
  for (const KernelCall &c : lowering->calls) {
    headers.insert(c.header);
    const bool hostStep = onDevice() && !StringRef(c.callee).starts_with(deviceRuntime + "::");
    if (hostStep) {
      if (failed(lowerHostStep(op, c, scratchBytes, hostScratch)))
        return failure();
      continue;
    }
    SmallVector<Value> operands;
    SmallVector<Attribute> args;
    if (failed(lowerArgs(op, c, nullptr, operands, args)))
      return failure();
    SmallVector<Attribute> targs;
    for (const std::string &t : c.templateArgs)
      targs.push_back(emitc::OpaqueAttr::get(b.getContext(), t));
    b.create<emitc::CallOpaqueOp>(op->getLoc(), TypeRange{}, c.callee, operands,
                                  b.getArrayAttr(args),
                                  targs.empty() ? ArrayAttr() : b.getArrayAttr(targs));
  }
  return success();
}

LogicalResult EmitCLowering::lowerArgs(Operation *op, const KernelCall &c, HostStaging *host,
                                       SmallVector<Value> &operands,
                                       SmallVector<Attribute> &args) {
  MLIRContext *ctx = b.getContext();
  auto operand = [&](Value v) {
    args.push_back(b.getIndexAttr(operands.size()));
    operands.push_back(v);
  };
  // A host step's tensor: its copy in host memory (one per tensor).
  auto stage = [&](Value device, Type type, bool written) -> Value {
    for (HostStaging::Tensor &s : host->tensors)
      if (s.device == device) {
        s.written |= written;
        return s.host;
      }
    auto t = cast<ShapedType>(type);
    const int64_t bytes = t.getNumElements() * elementByteSize(t.getElementType());
    Value copy = at(hostMemory(), hostAllocate(bytes), t.getElementType(), false);
    host->tensors.push_back({device, copy, bytes, written});
    return copy;
  };
  for (const KernelArg &a : c.args) {
    switch (a.kind) {
    case KernelArg::Kind::Tensor: {
      Value v = valueOf(a.tensor);
      if (!v)
        return op->emitError("internal: operand has no C value");
      operand(host && !hostData.contains(v) ? stage(v, a.tensor.getType(), a.isOutput) : v);
      break;
    }
    case KernelArg::Kind::Int:
      if (!a.poly.empty())
        operand(dimValue(a.poly));
      else
        args.push_back(b.getI64IntegerAttr(a.intValue));
      break;
    case KernelArg::Kind::Float:
      args.push_back(b.getF64FloatAttr(a.floatValue));
      break;
    case KernelArg::Kind::IntArray:
      if (!a.polys.empty())
        operand(dimArray(a));
      else
        operand(constArray<int64_t>(a.ints, b.getI64Type(), arrays, 'k'));
      break;
    case KernelArg::Kind::FloatArray:
      operand(constArray<double>(a.floats, b.getF64Type(), floatArrays, 'f'));
      break;
    case KernelArg::Kind::Constant:
      operand(host ? stage(weightPointer(a.constant), a.constant.getType(), false)
                   : weightPointer(a.constant));
      break;
    case KernelArg::Kind::Null:
      args.push_back(emitc::OpaqueAttr::get(ctx, "nullptr"));
      break;
    case KernelArg::Kind::Runner: // a host step runs on one host thread
      if (host)
        args.push_back(emitc::OpaqueAttr::get(ctx, "nullptr"));
      else
        operand(runner());
      break;
    case KernelArg::Kind::StringArray:
      operand(stringArray(a.strings));
      break;
    case KernelArg::Kind::Status: // a host step's: where session_run reads it
      operand(host ? at(hostMemory(), 0, b.getI32Type(), false) : statusPointer());
      break;
    case KernelArg::Kind::Scratch: {
      Value base;
      int64_t offset;
      if (host) {
        if (!host->scratch) // every call of the op shares its scratch
          host->scratch = hostAllocate(host->scratchBytes);
        base = hostMemory();
        offset = *host->scratch + a.scratchOffset;
      } else {
        auto off = op->getAttrOfType<IntegerAttr>(kScratchOffsetAttr);
        if (!off)
          return op->emitError("internal: scratch space was not planned");
        base = arena();
        offset = off.getInt() + a.scratchOffset;
      }
      auto p = b.create<emitc::CallOpaqueOp>(
          op->getLoc(),
          TypeRange{emitc::PointerType::get(emitc::OpaqueType::get(ctx, a.scratchType))},
          "onnxc_rt::at", ValueRange{base},
          b.getArrayAttr({b.getIndexAttr(0), b.getI64IntegerAttr(offset)}),
          b.getArrayAttr({emitc::OpaqueAttr::get(ctx, a.scratchType)}));
      operand(p.getResult(0));
      break;
    }
    }
  }
  return success();
}

LogicalResult EmitCLowering::lowerHostStep(Operation *op, const KernelCall &c,
                                          int64_t scratchBytes,
                                          std::optional<int64_t> &scratchOffset) {
  MLIRContext *ctx = b.getContext();
  headers.insert("onnxc_rt/kernels/cuda/host.cuh"); // the only device runtime
  // host_call(stream, slot, &kernel<targs>, the kernel's arguments...).
  SmallVector<Value> operands{runner()};
  const int64_t slot = hostAllocate(onnxc_rt::kHostCallBytes);
  operands.push_back(at(hostMemory(), slot, b.getI8Type(), false));
  SmallVector<Attribute> args{b.getIndexAttr(0), b.getIndexAttr(1)};
  std::string fn = "&" + c.callee;
  if (!c.templateArgs.empty())
    fn += "<" + llvm::join(c.templateArgs, ", ") + ">";
  args.push_back(emitc::OpaqueAttr::get(ctx, fn));
  HostStaging host{{}, scratchBytes, scratchOffset};
  if (failed(lowerArgs(op, c, &host, operands, args)))
    return failure();
  scratchOffset = host.scratch;
  // In: every staged tensor (an output too: a call may write part of it).
  // The call. Out: what it wrote.
  for (const HostStaging::Tensor &s : host.tensors)
    streamCopy(op->getLoc(), "to_host", s.device, s.host, s.bytes);
  b.create<emitc::CallOpaqueOp>(op->getLoc(), TypeRange{}, deviceRuntime + "::host_call",
                                operands, b.getArrayAttr(args), ArrayAttr());
  for (const HostStaging::Tensor &s : host.tensors)
    if (s.written)
      streamCopy(op->getLoc(), "to_device", s.host, s.device, s.bytes);
  return success();
}

std::string EmitCLowering::coreNameOf(size_t funcIndex, unsigned nDims) const {
  if (onDevice())
    return name + "_schedule" + (funcIndex ? std::to_string(funcIndex) : "");
  if (!nDims)
    return name + "_run_on";
  return name + "_run_sized" + (funcIndex ? std::to_string(funcIndex) : "");
}

LogicalResult EmitCLowering::lowerFunction(size_t funcIndex) {
  MLIRContext *ctx = b.getContext();
  auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
  cvalues.clear();
  arenaPointers.clear();
  dimParams.clear();
  dimValues.clear();
  lastDimOp = nullptr;
  arenaBytes = weightsBase = taskRunner = status = statusAddress = hostBase = Value();

  // Signature: const T* inputs..., T* outputs..., void* arena, void* threads;
  // on a device: ..., void* host, const void* weights, void* arena, void*
  // stream (host: the session's host memory, for host steps). A
  // model with bounded dims takes their sizes first (int64_t each), in a
  // static function that the entry points call once they checked them.
  auto boundedDims = func->getAttrOfType<ArrayAttr>(kBoundedDimsAttr);
  const unsigned nDims = boundedDims ? boundedDims.size() : 0;
  SmallVector<Type> argTypes(nDims, b.getI64Type());
  for (Type t : func.getArgumentTypes())
    argTypes.push_back(ptrTo(cast<ShapedType>(t).getElementType(), true));
  for (Type t : func.getResultTypes())
    argTypes.push_back(ptrTo(cast<ShapedType>(t).getElementType(), false));
  if (onDevice()) { // void* host, const void* weights
    argTypes.push_back(emitc::PointerType::get(emitc::OpaqueType::get(ctx, "void")));
    argTypes.push_back(emitc::PointerType::get(emitc::OpaqueType::get(ctx, "const void")));
  }
  argTypes.push_back(emitc::PointerType::get(emitc::OpaqueType::get(ctx, "void")));
  argTypes.push_back(emitc::PointerType::get(emitc::OpaqueType::get(ctx, "void")));
  b.setInsertionPoint(func);
  const std::string coreName = coreNameOf(funcIndex, nDims);
  cfunc = b.create<emitc::FuncOp>(func.getLoc(), coreName,
                                  FunctionType::get(ctx, argTypes,
                                                    {emitc::OpaqueType::get(ctx, "int")}));
  cfunc.setSpecifiersAttr(
      b.getStrArrayAttr({onDevice() || nDims ? "static" : "extern \"C\""}));
  Block *entry = cfunc.addEntryBlock();
  b.setInsertionPointToStart(entry);
  unsigned nIn = func.getNumArguments();
  for (unsigned i = 0; i < nDims; ++i)
    dimParams.push_back(entry->getArgument(i));
  for (unsigned i = 0; i < nIn; ++i)
    cvalues[func.getArgument(i)] = entry->getArgument(nDims + i);

  // Outputs: the op producing an output's bytes writes into the caller's
  // buffer (the memory planner left it out of the arena); see the planner
  // for the rule, which this mirrors.
  llvm::DenseSet<Value> claimed;
  for (auto [k, v] : llvm::enumerate(ret.getOperands())) {
    Value root = v;
    while (Operation *d = root.getDefiningOp()) {
      if (!onnx::isAliasOp(d) || root != d->getResult(0))
        break;
      root = d->getOperand(0);
    }
    Operation *d = root.getDefiningOp();
    if (!d || isa<onnx::ConstantOp>(d) || claimed.count(root))
      continue;
    claimed.insert(root);
    cvalues[root] = entry->getArgument(nDims + nIn + k);
  }

  for (Operation &op : func.getBody().front().without_terminator())
    if (failed(lowerOp(&op)))
      return failure();

  // Outputs that are views of inputs or weights, or repeat another output.
  for (auto [k, v] : llvm::enumerate(ret.getOperands())) {
    Value src = valueOf(v);
    Value dst = entry->getArgument(nDims + nIn + k);
    if (src == dst)
      continue;
    auto t = cast<ShapedType>(v.getType());
    int64_t bytes = t.getNumElements() * elementByteSize(t.getElementType());
    if (auto poly = func.getResultAttrOfType<DenseI64ArrayAttr>(k, kBytesPolyAttr);
        poly && nDims) { // the size of this call's output
      Value size = dimValue(DimPoly(poly.asArrayRef().begin(), poly.asArrayRef().end()));
      if (onDevice()) // on the stream, between device buffers
        b.create<emitc::CallOpaqueOp>(func.getLoc(), TypeRange{}, deviceRuntime + "::copy_bytes",
                                      ValueRange{runner(), src, dst, size}, ArrayAttr(),
                                      ArrayAttr());
      else
        b.create<emitc::CallOpaqueOp>(func.getLoc(), TypeRange{}, "onnxc_rt::copy_bytes",
                                      ValueRange{src, dst, size}, ArrayAttr(), ArrayAttr());
      continue;
    }
    if (onDevice() && hostData.contains(src)) {
      // A string constant (host data): copied by a host step into host
      // memory, from there to the output.
      MLIRContext *ctx = b.getContext();
      const int64_t slotAt = hostAllocate(onnxc_rt::kHostCallBytes);
      Value slot = at(hostMemory(), slotAt, b.getI8Type(), false);
      Value copy = at(hostMemory(), hostAllocate(bytes), t.getElementType(), false);
      headers.insert("onnxc_rt/kernels/cuda/host.cuh");
      b.create<emitc::CallOpaqueOp>(
          func.getLoc(), TypeRange{}, deviceRuntime + "::host_call",
          ValueRange{runner(), slot, src, copy},
          b.getArrayAttr({b.getIndexAttr(0), b.getIndexAttr(1),
                          emitc::OpaqueAttr::get(ctx, "&onnxc_rt::copy_bytes"),
                          b.getIndexAttr(2), b.getIndexAttr(3), b.getI64IntegerAttr(bytes)}),
          ArrayAttr());
      streamCopy(func.getLoc(), "to_device", copy, dst, bytes);
    } else if (onDevice()) {
      streamCopy(func.getLoc(), "copy_bytes", src, dst, bytes);
    } else {
      b.create<emitc::CallOpaqueOp>(func.getLoc(), TypeRange{}, "onnxc_rt::copy_bytes",
                                    ValueRange{src, dst},
                                    b.getArrayAttr({b.getIndexAttr(0), b.getIndexAttr(1),
                                                    b.getI64IntegerAttr(bytes)}),
                                    ArrayAttr());
    }
  }
  // Parameters the model never reads (an input only its shape matters for,
  // an arena it does not need) are marked used: the code stays -Wextra clean.
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(entry);
    for (BlockArgument arg : entry->getArguments())
      if (arg.use_empty())
        b.create<emitc::CallOpaqueOp>(func.getLoc(), TypeRange{}, "onnxc_rt::unused",
                                      ValueRange{arg});
  }
  if (profile) // the last node's end
    profileMark(func.getLoc(), profileLabels.size());
  Value result = status;
  if (!result)
    result = b.create<emitc::ConstantOp>(func.getLoc(), emitc::OpaqueType::get(ctx, "int"),
                                         emitc::OpaqueAttr::get(ctx, "0"));
  b.create<emitc::ReturnOp>(func.getLoc(), result);
  return success();


}

LogicalResult EmitCLowering::run() {
  name = funcs[0].getSymName().str();
  profile = module->hasAttr(kProfileAttr);
  if (profile && (onDevice() || funcs[0]->hasAttr(kBoundedDimsAttr)))
    return funcs[0].emitError("--profile is not supported ") <<
           (onDevice() ? "on this target" : "with bounded dims (--dim NAME=LO..HI)");
  // A model with bounded dims may have several functions, one per regime
  // (codegen/BoundedDims.h): each its own static schedule, sharing the
  // weights; the entry points pick one by the sizes.
  int64_t arenaSize = 0;
  bool anyWeights = false;
  for (auto [k, f] : llvm::enumerate(funcs)) {
    func = f;
    if (failed(lowerFunction(k)))
      return failure();
    anyWeights |= bool(weightsBase);
    if (auto a = f->getAttrOfType<IntegerAttr>(kArenaSizeAttr))
      arenaSize = std::max(arenaSize, a.getInt());
  }
  func = funcs[0];
  auto boundedDims = func->getAttrOfType<ArrayAttr>(kBoundedDimsAttr);
  const unsigned nDims = boundedDims ? boundedDims.size() : 0;
  unsigned nIn = func.getNumArguments(), nOut = func.getNumResults();

  // Preamble: includes and the weights symbol.
  b.setInsertionPointToStart(module.getBody());
  b.create<emitc::IncludeOp>(func.getLoc(), name + ".h", /*is_standard_include=*/false);
  b.create<emitc::IncludeOp>(func.getLoc(), "onnxc_rt/base.h", false);
  for (const std::string &h : headers)
    b.create<emitc::IncludeOp>(func.getLoc(), h, false);
  module->setAttr("onnxc.weight_bytes", b.getI64IntegerAttr(weightBytes));
  if (onDevice())
    module->setAttr("onnxc.host_bytes", b.getI64IntegerAttr(hostBytes));
  if (func->getAttr(kArenaSizeAttr))
    module->setAttr(kArenaSizeAttr, b.getI64IntegerAttr(arenaSize));
  module->setAttr("onnxc.weights", b.getArrayAttr(weights));
  module->setAttr("onnxc.weight_offsets", b.getDenseI64ArrayAttr(weightOffsets));
  if (!onDevice() && anyWeights)
    b.create<emitc::VerbatimOp>(func.getLoc(),
                                b.getStringAttr("extern \"C\" const uint8_t " + name +
                                                "_weights[];"));
  if (!onDevice() && profile) { // the nodes' labels, for the program that times them
    std::string table = "extern \"C\" const char* const " + name + "_profile_nodes[" +
                        std::to_string(std::max<size_t>(profileLabels.size(), 1)) + "] = {";
    for (size_t i = 0; i < profileLabels.size(); ++i)
      table += (i ? ", " : "") + cStringLiteral(profileLabels[i]);
    b.create<emitc::VerbatimOp>(func.getLoc(),
                                b.getStringAttr(table + (profileLabels.empty() ? "\"\"};" : "};")));
    module->setAttr(kProfileNodesAttr, b.getI64IntegerAttr(int64_t(profileLabels.size())));
  }

  // The other entry points: NAME_run (no threads), and the array-of-pointers
  // ones `onnxc run` and generic hosts use. With bounded dims each takes the
  // sizes first (the _v ones as an array) and returns ONNXC_STATUS_DIM_RANGE
  // when one is outside its bounds.
  std::string dimParamsText, dimPass, dimFromArray;
  // The sizes a function (a regime) runs: "d0 >= 2 && d0 <= 32 && ...".
  auto rangeOf = [&](func::FuncOp f, unsigned i) {
    auto d = cast<DictionaryAttr>(f->getAttrOfType<ArrayAttr>(kBoundedDimsAttr)[i]);
    return std::make_pair(d.getAs<IntegerAttr>("min").getInt(),
                          d.getAs<IntegerAttr>("max").getInt());
  };
  std::vector<std::pair<int64_t, int64_t>> bounds;
  for (unsigned i = 0; i < nDims; ++i) {
    std::string p = "d" + std::to_string(i);
    dimParamsText += "int64_t " + p + ", ";
    dimPass += p + ", ";
    dimFromArray += "dims[" + std::to_string(i) + "], ";
    bounds.push_back(rangeOf(funcs[0], i));
    for (func::FuncOp f : funcs) {
      bounds[i].first = std::min(bounds[i].first, rangeOf(f, i).first);
      bounds[i].second = std::max(bounds[i].second, rangeOf(f, i).second);
    }
  }
  auto condition = [&](auto range, bool inside) {
    std::string c;
    for (unsigned i = 0; i < nDims; ++i) {
      auto [lo, hi] = range(i);
      std::string p = "d" + std::to_string(i);
      c += (c.empty() ? "" : inside ? " && " : " || ") +
           (inside ? p + " >= " + std::to_string(lo) + " && " + p + " <= " + std::to_string(hi)
                   : p + " < " + std::to_string(lo) + " || " + p + " > " + std::to_string(hi));
    }
    return c;
  };
  if (onDevice()) { // the target's emitter writes the entry points
    if (nDims) { // and calls NAME_scheduleK, K = NAME_regime(dims)
      std::string r = "static int " + name + "_regime(const int64_t* dims) {\n";
      for (unsigned i = 0; i < nDims && funcs.size() > 1; ++i)
        r += "  const int64_t d" + std::to_string(i) + " = dims[" + std::to_string(i) + "];\n";
      if (funcs.size() == 1)
        r += "  (void)dims;\n";
      for (size_t k = 1; k < funcs.size(); ++k)
        r += "  if (" + condition([&](unsigned i) { return rangeOf(funcs[k], i); }, true) +
             ")\n    return " + std::to_string(k) + ";\n";
      r += "  return 0;\n}";
      b.setInsertionPointToEnd(module.getBody());
      b.create<emitc::VerbatimOp>(func.getLoc(), b.getStringAttr(r));
      module->setAttr("onnxc.regimes", b.getI64IntegerAttr(int64_t(funcs.size())));
    }
    for (func::FuncOp f : funcs)
      f.erase();
    return success();
  }
  std::string params, pass;
  for (unsigned i = 0; i < nIn; ++i) {
    params += "const " + cppTypeName(cast<ShapedType>(func.getArgumentTypes()[i]).getElementType()) +
              "* in" + std::to_string(i) + ", ";
    pass += "in" + std::to_string(i) + ", ";
  }
  for (unsigned i = 0; i < nOut; ++i) {
    params += cppTypeName(cast<ShapedType>(func.getResultTypes()[i]).getElementType()) +
              "* out" + std::to_string(i) + ", ";
    pass += "out" + std::to_string(i) + ", ";
  }
  std::string v;
  if (nDims) {
    v += "extern \"C\" int " + name + "_run_on(" + dimParamsText + params +
         "void* arena, void* threads) {\n  if (" +
         condition([&](unsigned i) { return bounds[i]; }, false) +
         ")\n    return ONNXC_STATUS_DIM_RANGE;\n";
    for (size_t k = 1; k < funcs.size(); ++k)
      v += "  if (" + condition([&](unsigned i) { return rangeOf(funcs[k], i); }, true) +
           ")\n    return " + coreNameOf(k, nDims) + "(" + dimPass + pass + "arena, threads);\n";
    v += "  return " + coreNameOf(0, nDims) + "(" + dimPass + pass + "arena, threads);\n}\n";
  }
  v += "extern \"C\" int " + name + "_run(" + dimParamsText + params +
       "void* arena) {\n  return " + name + "_run_on(" + dimPass + pass + "arena, nullptr);\n}\n";
  std::string fromArrays;
  for (unsigned i = 0; i < nIn; ++i)
    fromArrays += "static_cast<const " +
                  cppTypeName(cast<ShapedType>(func.getArgumentTypes()[i]).getElementType()) +
                  "*>(inputs[" + std::to_string(i) + "]), ";
  for (unsigned i = 0; i < nOut; ++i)
    fromArrays += "static_cast<" +
                  cppTypeName(cast<ShapedType>(func.getResultTypes()[i]).getElementType()) +
                  "*>(outputs[" + std::to_string(i) + "]), ";
  const std::string dimsParam = nDims ? "const int64_t* dims, " : "";
  v += "extern \"C\" int " + name + "_run_v_on(" + dimsParam +
       "const void* const* inputs, void* const* outputs, void* arena, "
       "void* threads) {\n" +
       (nIn == 0 ? "  (void)inputs;\n" : "") + "  return " + name + "_run_on(" + dimFromArray +
       fromArrays + "arena, threads);\n}\n";
  v += "extern \"C\" int " + name + "_run_v(" + dimsParam +
       "const void* const* inputs, void* const* outputs, void* arena) {\n  return " + name +
       "_run_v_on(" + (nDims ? "dims, " : "") + "inputs, outputs, arena, nullptr);\n}";
  b.setInsertionPointToEnd(module.getBody());
  b.create<emitc::VerbatimOp>(func.getLoc(), b.getStringAttr(v));
  for (func::FuncOp f : funcs)
    f.erase();
  return success();
}

struct LowerToEmitC : impl::LowerToEmitCPassBase<LowerToEmitC> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    if (funcs.empty() || (funcs.size() > 1 && !funcs[0]->hasAttr(kBoundedDimsAttr))) {
      module.emitError("expected exactly one model function");
      return signalPassFailure();
    }
    if (failed(EmitCLowering(module, funcs, deviceRuntime).run()))
      signalPassFailure();
  }
};
} // namespace
} // namespace onnxc
