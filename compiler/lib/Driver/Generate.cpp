//===- Generate.cpp - a model to generated code in memory -------------------===//
//
// The pipeline from an ONNX file to the emitted files and the compile
// summary (Generate.h): import, passes for the target with its options,
// the re-batching check, kernel selection and emission; `onnxc` and `onnxc
// run` both call it.
//
//===----------------------------------------------------------------------===//
#include "Generate.h"

#include "onnxc/Driver/Driver.h"
#include "Calibration.h"
#include "Files.h"
#include "Generate.h"
#include "onnxc/Codegen/BoundedDims.h"
#include "Toolchain.h"
#include "onnxc/Lowering/KernelCall.h"
#include "onnxc/Lowering/Target.h"
#include "onnxc/Lowering/CppText.h"
#include "onnxc/Import/TensorProtoIO.h"
#include "onnxc/Dialect/ONNX/NodeNames.h"
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Passes/Passes.h"
#include "onnxc/Pipelines/Pipeline.h"
#include "onnxc_rt/threads.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <optional>

using namespace mlir;

namespace onnxc {

//===-- Generation -------------------------------------------------------------===//

/// Whether `op` is one of the model's ops after the passes: the onnx
/// dialect's and a target's own (the SIMD targets' simd.BlockedConv, ...),
/// not the function and its return.
static bool isModelOp(Operation *op) {
  return !isa<func::FuncDialect>(op->getDialect()) &&
         !isa<onnx::ConstantOp, onnx::NoValueOp>(op);
}

static int64_t countOps(func::FuncOp f, StringRef only = "") {
  int64_t n = 0;
  f.walk([&](Operation *op) {
    if (!isModelOp(op))
      return;
    if (only.empty() || op->getName().stripDialect() == only)
      ++n;
  });
  return n;
}

/// The ops' own cost (onnx::ComputeCost: convolutions and products, with
/// what was fused into them); other ops one operation per output element.
/// Bytes of a tensor type's elements as stored (bool: a byte each).
static int64_t storedBytes(Type type) {
  auto t = dyn_cast<ShapedType>(type);
  if (!t || !t.hasStaticShape() || !t.getElementType().isIntOrFloat())
    return 0;
  return t.getNumElements() * ((t.getElementType().getIntOrFloatBitWidth() + 7) / 8);
}

/// The `count` largest of `all`, largest first.
static std::vector<CompileSummary::NodeBytes>
largest(std::vector<CompileSummary::NodeBytes> all, size_t count) {
  std::stable_sort(all.begin(), all.end(),
                   [](const auto &a, const auto &b) { return a.bytes > b.bytes; });
  all.resize(std::min(all.size(), count));
  return all;
}

/// The int8 ops whose kernels are the reference ones on a target that has
/// kernels of its own (its providers do not cover them): the summary names
/// them, as the note that they fall back.
static void recordInt8OnReference(func::FuncOp f, const Target &target, CompileSummary &s) {
  if (target.kernelProviders().empty())
    return;
  f.walk([&](Operation *op) {
    if (!isa<onnx::QConvOp, onnx::QMatMulOp, onnx::QAddOp, onnx::QMulOp, onnx::QAveragePoolOp,
             onnx::QRescaleOp, onnx::QLookupOp, onnx::ConvIntegerOp, onnx::MatMulIntegerOp,
             onnx::QLinearConvOp, onnx::QLinearMatMulOp>(op))
      return;
    FailureOr<OpLowering> l = lowerToKernelCalls(op);
    if (succeeded(l) && !l->calls.empty() &&
        llvm::StringRef(l->calls.front().callee).starts_with("onnxc_rt::ref::"))
      s.int8OnReference.push_back(op->getName().stripDialect().str() + " '" +
                                  nodeNameOf(op->getLoc()) + "'");
  });
}

/// onnxc-fold-qdq's account of a quantized model.
static void recordQuantization(func::FuncOp f, CompileSummary &s) {
  auto q = f->getAttrOfType<DictionaryAttr>(kQuantizationAttr);
  if (!q)
    return;
  f.walk([&](Operation *op) {
    // (A target's own convolutions, cortexm.QConvMaxPool and QConvNhwc, are
    // QConvs too.)
    const bool qconv = op->getName().stripDialect().starts_with("QConv");
    if ((qconv || isa<onnx::QMatMulOp, onnx::QAddOp, onnx::QMulOp, onnx::QAveragePoolOp>(op)) &&
        cast<ShapedType>(op->getOperand(0).getType()).getElementTypeBitWidth() == 16)
      ++s.int16Ops;
  });
  if (auto n = q.getAs<IntegerAttr>("integer"))
    s.integerMatrixOps = n.getInt();
  if (auto floats = q.getAs<ArrayAttr>("float"))
    for (auto a : floats.getAsRange<StringAttr>())
      s.floatMatrixOps.push_back(a.str());
  if (auto floats = q.getAs<ArrayAttr>("float_other"))
    for (auto a : floats.getAsRange<StringAttr>())
      s.floatOtherOps.push_back(a.str());
}

/// The tensors the memory plan put in the arena, and the weight bytes each
/// node's kernels read.
static void recordLargest(func::FuncOp f, CompileSummary &s) {
  std::vector<CompileSummary::NodeBytes> arena, weights;
  llvm::DenseSet<Value> counted;
  f.walk([&](Operation *op) {
    // The model's ops, a target's own included (cortexm.QConvMaxPool, ...).
    if (op->getNumResults() == 0 || isa<func::FuncOp, onnx::ConstantOp, onnx::NoValueOp>(op))
      return;
    const std::string node = nodeNameOf(op->getLoc());
    if (auto offsets = op->getAttrOfType<DenseI64ArrayAttr>(kOffsetAttr))
      for (auto [r, offset] : llvm::zip(op->getResults(), offsets.asArrayRef()))
        if (offset >= 0)
          arena.push_back({node, storedBytes(r.getType()), false});
    FailureOr<OpLowering> l = lowerToKernelCalls(op);
    if (failed(l))
      return;
    int64_t scratch = 0;
    for (const KernelCall &c : l->calls)
      scratch = std::max(scratch, c.scratchBytes());
    if (scratch && op->hasAttr(kScratchOffsetAttr))
      arena.push_back({node, scratch, true});
    // What its kernels read from the weights blob: constant operands (once
    // over the model) and data packed at compile time.
    int64_t bytes = 0;
    for (const KernelCall &c : l->calls)
      for (const KernelArg &a : c.args) {
        if (a.kind == KernelArg::Kind::Constant)
          bytes += storedBytes(a.constant.getType());
        else if (a.kind == KernelArg::Kind::Tensor && a.tensor &&
                 a.tensor.getDefiningOp<onnx::ConstantOp>() && counted.insert(a.tensor).second)
          bytes += storedBytes(a.tensor.getType());
      }
    if (bytes)
      weights.push_back({node, bytes, false});
  });
  s.largestArenaTensors = largest(std::move(arena), 3);
  s.largestWeights = largest(std::move(weights), 3);
}

static int64_t estimateFlops(func::FuncOp f) {
  int64_t total = 0;
  f.walk([&](Operation *op) {
    if (!isModelOp(op) || op->getNumResults() == 0 || onnx::isAliasOp(op))
      return;
    if (auto cost = dyn_cast<onnx::ComputeCost>(op)) {
      total += cost.flops();
      return;
    }
    auto t = dyn_cast<ShapedType>(op->getResult(0).getType());
    if (t && t.hasStaticShape())
      total += t.getNumElements();
  });
  return total;
}

std::string threadsProblem(const Target &target, int threads) {
  if (threads >= 1 && threads <= onnxc_rt::ThreadPool::kMaxThreads &&
      (threads == 1 || target.parallelKernels))
    return "";
  std::string parallel;
  for (const Target *t : TargetRegistry::all())
    if (t->parallelKernels)
      parallel += (parallel.empty() ? "" : ", ") + t->name();
  return "--threads must be 1 to " + std::to_string(onnxc_rt::ThreadPool::kMaxThreads) +
         ", and above 1 only for targets with parallel kernels (" + parallel + ")";
}

/// Why `flag` `value` cannot set `target`'s option `name` (declared:
/// `fallback` where the target declares none), or "".
static std::string optionProblem(const Target &target, llvm::StringRef name,
                                 llvm::StringRef flag, const std::string &value,
                                 std::optional<TargetOption> fallback) {
  std::optional<TargetOption> declared = fallback;
  for (const TargetOption &o : target.options())
    if (o.name == name)
      declared = o;
  if (declared && llvm::is_contained(declared->values, value))
    return "";
  std::string problem = (flag + " " + value + " is not available on target '" + target.name() +
                         "'")
                            .str();
  // The targets that take it: with this value where the target has the
  // option, else with the option at all.
  std::string with;
  for (const Target *t : TargetRegistry::all())
    for (const TargetOption &o : t->options())
      if (o.name == name && (!declared || llvm::is_contained(o.values, value)))
        with += (with.empty() ? "" : ", ") + t->name();
  if (declared)
    return problem + " (it has: " + llvm::join(declared->values, ", ") + ")" +
           (declared->note.empty() ? "" : ": " + declared->note) +
           (with.empty() ? "" : "; targets with " + value + ": " + with);
  return problem + " (targets with it: " + with + ")";
}

std::string targetOptionsProblem(const Target &target, const ModelOptions &o) {
  // Every target multiplies in fp32; those with other arithmetic declare it.
  if (std::string p = optionProblem(target, "precision", "--precision", o.precision,
                                    TargetOption{"precision", "", {"fp32"}, "", false});
      !p.empty())
    return p;
  if (!o.convWeights.empty())
    if (std::string p =
            optionProblem(target, "conv-weights", "--conv-weights", o.convWeights, std::nullopt);
        !p.empty())
      return p;
  if (!o.convLayout.empty())
    return optionProblem(target, "conv-layout", "--conv-layout", o.convLayout, std::nullopt);
  return "";
}

onnx::TargetAttr targetAttrFor(MLIRContext &ctx, const Target &target, const ModelOptions &o) {
  // The flags that set target options: --no-winograd, --no-block-fusion, --precision,
  // --conv-weights, --conv-layout (checked against the target by
  // targetOptionsProblem first).
  SmallVector<NamedAttribute> set;
  Builder b(&ctx);
  for (const TargetOption &opt : target.options()) {
    if (opt.name == "winograd" && !o.winograd)
      set.push_back(b.getNamedAttr(opt.name, b.getBoolAttr(false)));
    if (opt.name == "block-fusion" && !o.blockFusion)
      set.push_back(b.getNamedAttr(opt.name, b.getBoolAttr(false)));
    if (opt.name == "precision" && o.precision != opt.values.front())
      set.push_back(b.getNamedAttr(opt.name, b.getStringAttr(o.precision)));
    if (opt.name == "conv-weights" && !o.convWeights.empty() &&
        o.convWeights != opt.values.front())
      set.push_back(b.getNamedAttr(opt.name, b.getStringAttr(o.convWeights)));
    if (opt.name == "conv-layout" && !o.convLayout.empty() && o.convLayout != opt.values.front())
      set.push_back(b.getNamedAttr(opt.name, b.getStringAttr(o.convLayout)));
  }
  return onnx::TargetAttr::get(&ctx, target.name(), o.threads,
                               set.empty() ? DictionaryAttr() : b.getDictionaryAttr(set));
}

/// A model exported at batch 1 and re-batched to `n` (ImportOptions::batch):
/// every node's output must be the same at both batches but for one dim
/// that is 1 at batch 1 and `n` here (the batch, wherever the graph moves
/// it). A node that merges the batch into another dim or drops it (a
/// Reshape to a shape fixed for batch 1) is named.
static LogicalResult checkBatchPolymorphic(ModuleOp batched, ModuleOp exported, int64_t n) {
  auto body = [](ModuleOp m) {
    SmallVector<Operation *> ops;
    for (Operation &op : (*m.getOps<func::FuncOp>().begin()).getBody().front())
      ops.push_back(&op);
    return ops;
  };
  SmallVector<Operation *> a = body(batched), b = body(exported);
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i]->getName() != b[i]->getName())
      return a[i]->emitError() << "with --batch " << n << ": the graph imports differently at "
                               << "batch " << n << " than at batch 1 from this node on (a "
                               << "test on the batch size?), so it cannot be re-batched";
    for (auto [ra, rb] : llvm::zip(a[i]->getResults(), b[i]->getResults())) {
      auto ta = dyn_cast<RankedTensorType>(ra.getType());
      auto tb = dyn_cast<RankedTensorType>(rb.getType());
      if (!ta || !tb || ta == tb)
        continue;
      int differing = 0;
      bool batchDim = ta.getRank() == tb.getRank();
      for (int64_t d = 0; batchDim && d < ta.getRank(); ++d)
        if (ta.getDimSize(d) != tb.getDimSize(d)) {
          ++differing;
          batchDim &= tb.getDimSize(d) == 1 && ta.getDimSize(d) == n;
        }
      if (!batchDim || differing != 1)
        return a[i]->emitError()
               << "with --batch " << n << ": this node's output is " << ta << " at batch " << n
               << " but " << tb << " at batch 1: the batch does not stay a dim of its own "
               << "here (a shape fixed for batch 1 in the model), so the graph cannot be "
               << "re-batched; export it with a dynamic batch (dynamic_axes) or compile it at "
               << "batch 1";
    }
  }
  return success();
}

FailureOr<GeneratedModel> generateModel(MLIRContext &ctx, const std::string &modelPath,
                                        const std::string &name,
                                        const ImportOptions &importOptions,
                                        const Target &target, const ModelOptions &options,
                                        bool mlirOnly, const Provenance &provenance) {
  DialectRegistry registry;
  registerOnnxcDialects(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
  ImportOptions opts = importOptions;
  opts.functionName = name;
  GeneratedModel g;
  int64_t bnBefore = 0;
  // Import, optimise and plan the model at the dims `opts` fixes.
  auto plan = [&](const ImportOptions &o, bool boundedProbe) -> OwningOpRef<ModuleOp> {
    OwningOpRef<ModuleOp> m = importOnnxFile(ctx, modelPath, o);
    if (!m)
      return nullptr;
    if (auto n = (*m)->getAttrOfType<IntegerAttr>(kRebatchedAttr)) {
      ImportOptions exported = o;
      exported.asExported = true;
      OwningOpRef<ModuleOp> reference = importOnnxFile(ctx, modelPath, exported);
      if (!reference || failed(checkBatchPolymorphic(*m, *reference, n.getInt())))
        return nullptr;
    }
    (*m)->setAttr(kTargetAttr, targetAttrFor(ctx, target, options));
    if (boundedProbe)
      (*m)->setAttr(onnx::kBoundedProbeAttr, UnitAttr::get(&ctx));
    auto f = *m->getOps<func::FuncOp>().begin();
    g.summary.opsImported = countOps(f);
    bnBefore = countOps(f, "BatchNormalization");
    PassManager pm(&ctx, ModuleOp::getOperationName());
    if (failed(applyPassManagerCLOptions(pm)))
      return nullptr;
    applyDefaultTimingPassManagerCLOptions(pm);
    buildOptimizationPipeline(pm, &target);
    buildCodegenPipeline(pm, /*lowerToEmitC=*/false, &target);
    if (failed(pm.run(*m))) {
      if (auto n = (*m)->getAttrOfType<IntegerAttr>(kRebatchedAttr))
        llvm::errs() << "onnxc: error: " << rebatchProblem(n.getInt()) << "\n";
      return nullptr;
    }
    return m;
  };
  OwningOpRef<ModuleOp> module;
  if (options.dimRanges.empty()) {
    module = plan(opts, /*boundedProbe=*/false);
  } else {
    // Bounded dims: the plans at a few sizes, merged into the one at the
    // upper bounds (codegen/BoundedDims.h).
    std::vector<BoundedDim> dims;
    for (const auto &[dimName, range] : options.dimRanges)
      dims.push_back({dimName, range.first, range.second});
    // One merged plan per regime; the first regime's module takes the
    // others' functions (one schedule each, the weights shared).
    std::vector<OwningOpRef<ModuleOp>> regimes;
    int64_t arena = 0;
    for (const std::vector<BoundedDim> &regime : boundedRegimes(dims)) {
      std::vector<std::vector<int64_t>> probes = boundedProbes(regime);
      std::vector<OwningOpRef<ModuleOp>> plans;
      SmallVector<ModuleOp> planOps;
      for (const auto &probe : probes) {
        ImportOptions o = opts;
        for (size_t i = 0; i < regime.size(); ++i)
          o.dimParams[regime[i].name] = probe[i];
        plans.push_back(plan(o, /*boundedProbe=*/true));
        if (!plans.back()) {
          std::string at;
          for (size_t i = 0; i < regime.size(); ++i)
            at += (i ? ", " : "") + regime[i].name + "=" + std::to_string(probe[i]);
          llvm::errs() << "onnxc: note: (compiling the model at " << at
                       << ", one of the sizes a bounded build checks)\n";
          return failure();
        }
        planOps.push_back(*plans.back());
      }
      if (failed(mergeBoundedPlans(regime, probes, planOps)))
        return failure();
      auto f = *plans.front()->getOps<func::FuncOp>().begin();
      arena = std::max(arena, f->getAttrOfType<IntegerAttr>(kArenaSizeAttr).getInt());
      regimes.push_back(std::move(plans.front()));
    }
    module = std::move(regimes.front());
    for (size_t r = 1; r < regimes.size(); ++r) {
      auto f = *regimes[r]->getOps<func::FuncOp>().begin();
      f->remove();
      f.setSymName((name + "_regime" + std::to_string(r)));
      module->push_back(f);
    }
    // The arena serves every regime.
    (*module->getOps<func::FuncOp>().begin())
        ->setAttr(kArenaSizeAttr, IntegerAttr::get(IntegerType::get(&ctx, 64), arena));
  }
  if (!module)
    return failure();
  auto func = *module->getOps<func::FuncOp>().begin();
  g.summary.opsAfter = countOps(func);
  g.summary.batchNormsFolded = bnBefore - countOps(func, "BatchNormalization");
  if (auto ifs = func->getAttrOfType<ArrayAttr>(kSpecialisedIfsAttr))
    for (Attribute a : ifs)
      g.summary.specialisedIfs.push_back(cast<StringAttr>(a).str());
  if (auto ifs = func->getAttrOfType<ArrayAttr>(kRunTimeIfsAttr))
    for (Attribute a : ifs)
      g.summary.runTimeIfs.push_back(cast<StringAttr>(a).str());
  g.summary.flops = estimateFlops(func);
  g.summary.arenaBytes = func->getAttrOfType<IntegerAttr>(kArenaSizeAttr).getInt();
  g.summary.naiveBytes = func->getAttrOfType<IntegerAttr>(kNaiveSizeAttr).getInt();
  recordLargest(func, g.summary);
  recordInt8OnReference(func, target, g.summary);
  recordQuantization(func, g.summary);
  g.iface = describeModel(func);
  g.iface.threads = options.threads;
  g.iface.provenance = provenance;
  Provenance &p = g.iface.provenance;
  if (p.producer.empty())
    if (auto a = (*module)->getAttrOfType<StringAttr>("onnx.producer"))
      p.producer = a.str();
  if (p.opsetImports.empty())
    if (auto a = (*module)->getAttrOfType<StringAttr>("onnx.opset_imports"))
      p.opsetImports = a.str();
  if (mlirOnly) {
    llvm::raw_string_ostream os(g.mlir);
    OpPrintingFlags flags;
    flags.elideLargeElementsAttrs(16);
    module->print(os, flags);
    return g;
  }
  std::string banner = "// Generated by onnxc " + std::string(onnxcVersion()) +
                       " from " + cCommentLiteral(llvm::sys::path::filename(modelPath)) +
                       ". Do not edit.\n";
  if (options.profile)
    (*module)->setAttr(kProfileAttr, UnitAttr::get(&ctx));
  const ModelEmitter &emitter = target.emitter() ? *target.emitter() : cppModelEmitter();
  FailureOr<EmittedModel> files = emitter.emit(*module, g.iface, name, banner, onnxcVersion());
  if (failed(files))
    return failure();
  g.files = std::move(*files);
  if (auto n = (*module)->getAttrOfType<IntegerAttr>(kProfileNodesAttr))
    g.iface.profileNodes = n.getInt();
  g.summary.weightBytes = g.files.weights.size();
  // 64-bit targets: the importer bounds every tensor (kMaxTensorBytes).
  if (target.addressBits < 64) {
    int64_t limit = int64_t(1) << target.addressBits, need = 0;
    if (__builtin_add_overflow(g.summary.arenaBytes, g.summary.weightBytes, &need) ||
        need >= limit) {
      llvm::errs() << "onnxc: error: the model needs " << g.summary.arenaBytes
                   << " bytes of arena and " << g.summary.weightBytes << " bytes of weights; "
                   << target.name() << " addresses " << (limit >> 30) << " GiB\n";
      return failure();
    }
  }
  return g;
}

} // namespace onnxc
