//===- Driver.cpp - `onnxc MODEL -o DIR` -----------------------------------===//
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

const char *onnxcVersion() { return ONNXC_VERSION; }

//===-- Diagnostics ------------------------------------------------------------===//

static std::string nodeOf(Location loc) { return nodeNameOf(loc); }

DiagnosticPrinter::DiagnosticPrinter(MLIRContext &ctx) {
  ctx.getDiagEngine().registerHandler([this](Diagnostic &d) {
    const char *sev = d.getSeverity() == DiagnosticSeverity::Error     ? "error"
                      : d.getSeverity() == DiagnosticSeverity::Warning ? "warning"
                      : d.getSeverity() == DiagnosticSeverity::Note    ? "note"
                                                                       : "remark";
    auto print = [](const char *sev, Location loc, const std::string &msg) {
      llvm::errs() << "onnxc: " << sev << ": ";
      if (std::string node = nodeOf(loc); !node.empty())
        llvm::errs() << "node '" << node << "': ";
      llvm::errs() << msg << "\n";
    };
    std::string msg = d.str();
    if (d.getSeverity() == DiagnosticSeverity::Error &&
        (msg.find("not supported") != std::string::npos))
      sawUnsupported = true;
    print(sev, d.getLocation(), msg);
    for (Diagnostic &n : d.getNotes())
      print("note", n.getLocation(), n.str());
    return success();
  });
}

//===-- Generation -------------------------------------------------------------===//

static int64_t countOps(func::FuncOp f, StringRef only = "") {
  int64_t n = 0;
  f.walk([&](Operation *op) {
    if (!isa<onnx::ONNXDialect>(op->getDialect()) ||
        isa<onnx::ConstantOp, onnx::NoValueOp>(op))
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
                                  nodeOf(op->getLoc()) + "'");
  });
}

/// onnxc-fold-qdq's account of a quantized model.
static void recordQuantization(func::FuncOp f, CompileSummary &s) {
  auto q = f->getAttrOfType<DictionaryAttr>(kQuantizationAttr);
  if (!q)
    return;
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
    if (!isa<onnx::ONNXDialect>(op->getDialect()) || isa<onnx::ConstantOp, onnx::NoValueOp>(op))
      return;
    const std::string node = nodeOf(op->getLoc());
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
    if (!isa<onnx::ONNXDialect>(op->getDialect()) || op->getNumResults() == 0 ||
        isa<onnx::ConstantOp, onnx::NoValueOp>(op) || onnx::isAliasOp(op))
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
  if (declared)
    return problem + " (it has: " + llvm::join(declared->values, ", ") + ")" +
           (declared->note.empty() ? "" : ": " + declared->note);
  std::string with;
  for (const Target *t : TargetRegistry::all())
    for (const TargetOption &o : t->options())
      if (o.name == name)
        with += (with.empty() ? "" : ", ") + t->name();
  return problem + " (targets with it: " + with + ")";
}

std::string targetOptionsProblem(const Target &target, const ModelOptions &o) {
  // Every target multiplies in fp32; those with other arithmetic declare it.
  if (std::string p = optionProblem(target, "precision", "--precision", o.precision,
                                    TargetOption{"precision", "", {"fp32"}, "", false});
      !p.empty())
    return p;
  if (!o.convWeights.empty())
    return optionProblem(target, "conv-weights", "--conv-weights", o.convWeights, std::nullopt);
  return "";
}

onnx::TargetAttr targetAttrFor(MLIRContext &ctx, const Target &target, const ModelOptions &o) {
  // The flags that set target options: --no-winograd, --precision,
  // --conv-weights (checked against the target by targetOptionsProblem
  // first).
  SmallVector<NamedAttribute> set;
  Builder b(&ctx);
  for (const TargetOption &opt : target.options()) {
    if (opt.name == "winograd" && !o.winograd)
      set.push_back(b.getNamedAttr(opt.name, b.getBoolAttr(false)));
    if (opt.name == "precision" && o.precision != opt.values.front())
      set.push_back(b.getNamedAttr(opt.name, b.getStringAttr(o.precision)));
    if (opt.name == "conv-weights" && !o.convWeights.empty() &&
        o.convWeights != opt.values.front())
      set.push_back(b.getNamedAttr(opt.name, b.getStringAttr(o.convWeights)));
  }
  return onnx::TargetAttr::get(&ctx, target.name(), o.threads,
                               set.empty() ? DictionaryAttr() : b.getDictionaryAttr(set));
}

void printControlFlowSummary(const CompileSummary &s) {
  if (!s.specialisedIfs.empty()) {
    // "If_0:else" -> "If_0 (else)"; the first few, then a count.
    llvm::outs() << "  control  " << s.specialisedIfs.size()
                 << " If with a condition known at compile time, one branch compiled:";
    for (size_t i = 0; i < s.specialisedIfs.size() && i < 4; ++i) {
      auto [node, branch] = llvm::StringRef(s.specialisedIfs[i]).rsplit(':');
      llvm::outs() << (i ? ", " : " ") << (node.empty() ? "(unnamed)" : node) << " (" << branch
                   << ")";
    }
    if (s.specialisedIfs.size() > 4)
      llvm::outs() << " and " << s.specialisedIfs.size() - 4 << " more";
    llvm::outs() << "\n";
  }
  if (!s.runTimeIfs.empty())
    llvm::outs() << "  control  " << s.runTimeIfs.size()
                 << " If with a run-time condition, both branches compiled: "
                 << llvm::join(s.runTimeIfs, ", ") << "\n";
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
    if (target.emitter()) {
      llvm::errs() << "onnxc: error: bounded dims (--dim NAME=LO..HI) are not supported for "
                   << "--target " << target.name()
                   << ": its kernels launch with sizes fixed at compile time; build one "
                      "model per size (--dim NAME=N)\n";
      return failure();
    }
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
  const ModelEmitter &emitter = target.emitter() ? *target.emitter() : cppModelEmitter();
  FailureOr<EmittedModel> files = emitter.emit(*module, g.iface, name, banner, onnxcVersion());
  if (failed(files))
    return failure();
  g.files = std::move(*files);
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

//===-- Files ------------------------------------------------------------------===//

std::string sha256OfFile(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf)
    return "";
  std::array<uint8_t, 32> digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef((*buf)->getBuffer()));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

bool writeFile(const std::string &path, llvm::StringRef data, std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write '" + path + "': " + ec.message();
    return false;
  }
  os << data;
  os.close();
  if (os.has_error()) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

static std::string humanBytes(int64_t b) {
  char buf[32];
  if (b >= 1 << 20)
    std::snprintf(buf, sizeof buf, "%.1f MB", b / 1048576.0);
  else if (b >= 1 << 10)
    std::snprintf(buf, sizeof buf, "%.1f KB", b / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%lld B", (long long)b);
  return buf;
}

/// Writes the model's files into `dir` (which must exist).
bool writeModelFiles(const GeneratedModel &g, const std::string &dir,
                     const std::string &name, std::vector<std::string> &files,
                     std::string &error) {
  auto path = [&](const std::string &f) {
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, f);
    files.push_back(f);
    return std::string(p);
  };
  const EmittedModel &m = g.files;
  return writeFile(path(name + ".h"), m.header, error) &&
         writeFile(path(name + m.sourceExtension), m.source, error) &&
         writeFile(path(name + ".weights.bin"),
                   llvm::StringRef(m.weights.data(), m.weights.size()), error) &&
         writeFile(path(name + "_weights.S"), m.weightsAsm, error);
}

/// Names the header's `namespace NAME` would break or collide with: C++
/// keywords, the standard library's and runtime-lite's namespaces.
static bool isModelNameTaken(const std::string &s) {
  return isCppReservedWord(s) || s == "std" || s == "onnxc_rt";
}

static std::string defaultName(const std::string &modelPath) {
  std::string stem = llvm::sys::path::stem(modelPath).str();
  std::string id;
  for (char c : stem)
    id.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0])) || id.rfind("_", 0) == 0)
    id = "model_" + id;
  if (isModelNameTaken(id))
    id += "_model";
  return id;
}

static bool isIdentifier(const std::string &s) {
  // A leading underscore is the implementation's (_Foo, __foo) in C and C++.
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '_' ||
      isModelNameTaken(s))
    return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

/// The regular files under `dir`, in path order.
static std::vector<std::string> filesOfTree(const std::string &dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::fs::is_regular_file(it->path()))
      files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

/// --depfile: a Make rule, `HEADER: every file the compile read`, for
/// build systems (add_onnx_model) that regenerate when one changes. Paths are
/// absolute, spaces and '$' escaped as Make and Ninja read them.
static bool writeDepfile(const CompileOptions &o, const std::string &header,
                         std::string &error) {
  auto escaped = [](const std::string &path) {
    llvm::SmallString<256> abs(path);
    llvm::sys::fs::make_absolute(abs);
    llvm::sys::path::remove_dots(abs, /*remove_dot_dot=*/true);
    std::string out;
    for (char c : abs) {
      if (c == ' ' || c == '#' || c == '\\')
        out += '\\';
      if (c == '$')
        out += '$';
      out += c;
    }
    return out;
  };
  std::vector<std::string> deps = {o.modelPath};
  for (const std::string &f : externalDataFiles(o.modelPath))
    deps.push_back(f);
  for (const std::string &b : o.bindings)
    deps.push_back(llvm::StringRef(b).split('=').second.str());
  if (o.quantize.enabled())
    for (const std::string &f : filesOfTree(o.quantize.calibrationDir))
      deps.push_back(f);
  std::string text = escaped(header) + ":";
  for (const std::string &d : deps)
    text += " \\\n  " + escaped(d);
  return writeFile(o.depfile, text + "\n", error);
}

/// A hex sha256 over a folder's files (relative paths and contents, in path
/// order): the calibration data in the header's provenance.
std::string sha256OfTree(const std::string &dir) {
  std::vector<std::string> files = filesOfTree(dir);
  llvm::SHA256 hash;
  for (const std::string &f : files) {
    llvm::StringRef rel = llvm::StringRef(f).drop_front(dir.size());
    hash.update(rel);
    hash.update(sha256OfFile(f));
  }
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

/// The options that decide the generated files, in one canonical order, with
/// files named by their sha256 (never by their path): the header records them.
static std::string canonicalOptions(const CompileOptions &o, const Target &target,
                                    const std::string &name) {
  std::string s = "--target " + target.name() + " --name " + name;
  if (o.threads != 1)
    s += " --threads " + std::to_string(o.threads);
  if (!o.winograd)
    s += " --no-winograd";
  if (o.precision != "fp32")
    s += " --precision " + o.precision;
  if (!o.convWeights.empty())
    s += " --conv-weights " + o.convWeights;
  if (!o.cudaArch.empty())
    s += " --cuda-arch " + target.optionValue(onnx::TargetAttr(), "arch");
  for (const auto &[input, dims] : o.import.inputShapes) {
    s += " --shape " + input + "=";
    for (size_t i = 0; i < dims.size(); ++i)
      s += (i ? "x" : "") + std::to_string(dims[i]);
  }
  for (const auto &[param, value] : o.import.dimParams)
    s += " --dim " + param + "=" + std::to_string(value);
  if (o.import.batch > 0)
    s += " --batch " + std::to_string(o.import.batch);
  for (const auto &[param, range] : o.dimRanges)
    s += " --dim " + param + "=" + std::to_string(range.first) + ".." +
         std::to_string(range.second);
  std::vector<std::string> bindings = o.bindings;
  std::sort(bindings.begin(), bindings.end());
  for (const std::string &b : bindings) {
    auto [input, file] = llvm::StringRef(b).split('=');
    s += " --bind " + input.str() + "=sha256:" + sha256OfFile(file.str());
  }
  if (const QuantizeOptions &q = o.quantize; q.enabled()) {
    s += " --quantize " + q.kind + " --calibrate-method " + q.method.describe() +
         " --calibration sha256:" + sha256OfTree(q.calibrationDir);
    if (q.hasBudget())
      s += " --quantize-error-budget " + llvm::formatv("{0}", q.errorBudgetDb).str();
    if (q.ioInt8)
      s += " --io int8";
  }
  return s;
}

int verifyHeader(const std::string &headerPath, const std::string &modelPath) {
  auto buf = llvm::MemoryBuffer::getFile(headerPath, /*IsText=*/true);
  if (!buf) {
    llvm::errs() << "onnxc: error: cannot read '" << headerPath << "'\n";
    return kExitError;
  }
  // The #defines emitHeader writes: NAME_MODEL_SHA256 "hex", ... (the
  // literals hold no escaped quote: hex digits, a version, options).
  std::map<std::string, std::string> recorded;
  llvm::SmallVector<llvm::StringRef> lines;
  (*buf)->getBuffer().split(lines, '\n');
  for (llvm::StringRef line : lines) {
    if (!line.consume_front("#define "))
      continue;
    auto [macro, value] = line.split(' ');
    for (const char *key : {"_MODEL_SHA256", "_ONNXC_VERSION", "_ONNXC_OPTIONS"})
      if (macro.ends_with(key) && value.size() >= 2 && value.front() == '"')
        recorded[key] = value.drop_front().drop_back().str();
  }
  if (!recorded.count("_MODEL_SHA256")) {
    llvm::errs() << "onnxc: error: '" << headerPath
                 << "' records no model sha256 (not a header onnxc generated, or one "
                    "from before provenance was recorded)\n";
    return kExitError;
  }
  std::string actual = sha256OfFile(modelPath);
  if (actual.empty()) {
    llvm::errs() << "onnxc: error: cannot read '" << modelPath << "'\n";
    return kExitError;
  }
  if (actual != recorded["_MODEL_SHA256"]) {
    llvm::errs() << "onnxc: error: '" << headerPath << "' was generated from a model with sha256 "
                 << recorded["_MODEL_SHA256"] << "; '" << modelPath << "' has sha256 " << actual
                 << "\n";
    return kExitError;
  }
  llvm::outs() << "onnxc: '" << headerPath << "' was generated from '" << modelPath
               << "' (sha256 " << actual << ") by onnxc " << recorded["_ONNXC_VERSION"]
               << " with " << recorded["_ONNXC_OPTIONS"] << "\n";
  if (recorded["_ONNXC_VERSION"] != onnxcVersion())
    llvm::outs() << "onnxc: note: this is onnxc " << onnxcVersion()
                 << "; regenerating may give other files\n";
  return 0;
}

/// RAM a model needs on its target: arena, stack, the object's static data.
static int64_t ramBytes(const CompileSummary &s, const Footprint &f) {
  return s.arenaBytes + f.stackBytes + f.staticBytes;
}

static void printFootprint(const CompileSummary &s, const Footprint &f) {
  llvm::outs() << "  flash    " << s.weightBytes + f.codeBytes << " bytes ("
               << humanBytes(s.weightBytes + f.codeBytes) << "): weights " << s.weightBytes
               << " + code " << f.codeBytes << "\n"
               << "  RAM      " << ramBytes(s, f) << " bytes (" << humanBytes(ramBytes(s, f))
               << "): arena " << s.arenaBytes << " + stack " << f.stackBytes
               << (f.stackUnbounded ? " and run-time sized frames" : "")
               << (f.staticBytes ? " + static " + std::to_string(f.staticBytes) : "") << "\n"
               << "  stack    " << f.stackChain << "\n";
}

/// "'a' 3136 bytes, 'b' 1568 bytes" for a budget error.
static std::string listNodes(const std::vector<CompileSummary::NodeBytes> &nodes) {
  std::string out;
  for (const auto &n : nodes)
    out += (out.empty() ? "" : ", ") + ("node '" + n.node + "' " + std::to_string(n.bytes) +
                                         (n.scratch ? " bytes (its scratch)" : " bytes"));
  return out;
}

/// The error when the model is over a budget, empty when within.
static std::string budgetProblem(const CompileOptions &o, const Target &target,
                                 const std::string &name, const CompileSummary &s,
                                 const Footprint &f) {
  std::string problem;
  const int64_t ram = ramBytes(s, f), flash = s.weightBytes + f.codeBytes;
  if (o.ramBudget >= 0 && ram > o.ramBudget)
    problem += "'" + name + "' needs " + std::to_string(ram) + " bytes of RAM on " +
               target.name() + " (arena " + std::to_string(s.arenaBytes) + " + stack " +
               std::to_string(f.stackBytes) + " + static " + std::to_string(f.staticBytes) +
               "), over --ram-budget " + std::to_string(o.ramBudget) + " by " +
               std::to_string(ram - o.ramBudget) + "; the largest tensors in the arena: " +
               listNodes(s.largestArenaTensors);
  if (o.flashBudget >= 0 && flash > o.flashBudget)
    problem += (problem.empty() ? "" : "\nonnxc: error: ") + ("'" + name + "' needs ") +
               std::to_string(flash) + " bytes of flash on " + target.name() + " (weights " +
               std::to_string(s.weightBytes) + " + code " + std::to_string(f.codeBytes) +
               "), over --flash-budget " + std::to_string(o.flashBudget) + " by " +
               std::to_string(flash - o.flashBudget) + "; the largest weights: " +
               listNodes(s.largestWeights);
  return problem;
}

int compileModel(const CompileOptions &o) {
  std::string name = o.name.empty() ? defaultName(o.modelPath) : o.name;
  if (!isIdentifier(name)) {
    llvm::errs() << "onnxc: error: --name '" << name
                 << "' is not a C identifier of the model's own (letters, digits and '_', "
                 << "not a keyword, std or onnxc_rt, not starting with a digit or '_')\n";
    return kExitUsage;
  }
  std::unique_ptr<Target> variant; // --cuda-arch
  std::string targetError;
  const Target *target = selectTarget(o.target, o.cudaArch, variant, targetError);
  if (!target) {
    llvm::errs() << "onnxc: error: " << targetError << "\n";
    return 2;
  }
  if (std::string problem = threadsProblem(*target, o.threads); !problem.empty()) {
    llvm::errs() << "onnxc: error: " << problem << "\n";
    return kExitUsage;
  }
  if (std::string problem = targetOptionsProblem(*target, o); !problem.empty()) {
    llvm::errs() << "onnxc: error: " << problem << "\n";
    return kExitUsage;
  }
  if (o.emit != "cpp" && o.emit != "lib" && o.emit != "mlir" && o.emit != "qdq-onnx") {
    llvm::errs() << "onnxc: error: --emit must be cpp, lib, mlir or qdq-onnx\n";
    return 2;
  }
  if (o.quantize.enabled() && o.quantize.kind != "int8") {
    llvm::errs() << "onnxc: error: --quantize takes int8\n";
    return kExitUsage;
  }
  if (o.emit == "qdq-onnx" && !o.quantize.enabled()) {
    llvm::errs() << "onnxc: error: --emit qdq-onnx needs --quantize int8\n";
    return kExitUsage;
  }
  // --quantize: the model compiled from here on is its int8 QDQ form.
  std::string modelPath = o.modelPath;
  ScopedTempDir qdqDir;
  if (o.quantize.enabled()) {
    if (!qdqDir.create("onnxc-quantize")) {
      llvm::errs() << "onnxc: error: cannot create a temporary directory\n";
      return kExitError;
    }
    modelPath = qdqDir.file(name + ".qdq.onnx");
    if (int rc = quantizeModel(o.modelPath, o.import, o.quantize, modelPath,
                                 o.quiet))
      return rc;
  }
  MLIRContext ctx;
  DiagnosticPrinter diagnostics(ctx);
  ImportOptions import = o.import;
  for (const std::string &b : o.bindings) {
    auto [input, file] = llvm::StringRef(b).split('=');
    std::string tensorName, error;
    auto value = input.empty() || file.empty()
                     ? DenseElementsAttr()
                     : readTensorFile(ctx, file, tensorName, error);
    if (!value) {
      llvm::errs() << "onnxc: error: --bind '" << b << "': "
                   << (error.empty() ? "expected NAME=FILE.pb" : error) << "\n";
      return kExitUsage;
    }
    import.boundInputs[input.str()] = value;
  }
  FailureOr<GeneratedModel> g = GeneratedModel();
  if (o.emit != "qdq-onnx") {
    Provenance provenance;
    provenance.modelSha256 = sha256OfFile(o.modelPath);
    provenance.options = canonicalOptions(o, *target, name);
    g = generateModel(ctx, modelPath, name, import, *target, o, o.emit == "mlir", provenance);
    if (failed(g))
      return diagnostics.failureCode();
  }

  // Stage everything next to the destination, then move it in: a failure
  // leaves no partial output behind.
  bool createdOut = !llvm::sys::fs::exists(o.outDir);
  if (std::error_code ec = llvm::sys::fs::create_directories(o.outDir)) {
    llvm::errs() << "onnxc: error: cannot create '" << o.outDir << "': " << ec.message() << "\n";
    return 1;
  }
  llvm::SmallString<256> stage(o.outDir);
  llvm::sys::path::append(stage, ".onnxc-stage-" + std::to_string(llvm::sys::Process::getProcessId()));
  llvm::sys::fs::remove_directories(stage);
  llvm::sys::fs::create_directories(stage);
  std::string error;
  std::vector<std::string> files;
  Footprint footprint;
  // How the int8 convolutions store their weights where the target chooses
  // (--conv-weights, or the flash/speed rule below), for the report; empty
  // without a choice (other targets, float models).
  std::string convWeights;
  if (g->summary.integerMatrixOps > 0)
    convWeights = o.convWeights.empty()
                      ? target->optionValue(onnx::TargetAttr(), "conv-weights")
                      : o.convWeights;
  bool convWeightsByRule = false;
  bool ok;
  if ((o.report || o.ramBudget >= 0 || o.flashBudget >= 0) && o.emit != "cpp" &&
      o.emit != "lib") {
    llvm::errs() << "onnxc: error: --report, --ram-budget and --flash-budget need --emit cpp "
                    "or lib\n";
    return kExitUsage;
  }
  if (o.emit == "mlir") {
    llvm::SmallString<256> p(stage);
    llvm::sys::path::append(p, name + ".mlir");
    files.push_back(name + ".mlir");
    ok = writeFile(std::string(p), g->mlir, error);
  } else if (o.emit == "qdq-onnx") {
    llvm::SmallString<256> p(stage);
    llvm::sys::path::append(p, name + ".qdq.onnx");
    files.push_back(name + ".qdq.onnx");
    if (std::error_code ec = llvm::sys::fs::copy_file(modelPath, p)) {
      error = "cannot write '" + std::string(p) + "': " + ec.message();
      ok = false;
    } else {
      ok = true;
    }
  } else {
    ok = writeModelFiles(*g, std::string(stage), name, files, error);
    if (ok && (o.report || o.ramBudget >= 0 || o.flashBudget >= 0)) {
      ok = measureFootprint(*target, std::string(stage), name, g->files.sourceExtension,
                            footprint, error);
      if (ok)
        error = budgetProblem(o, *target, name, g->summary, footprint);
      // The flash/speed rule of the SMLAD cores' convolutions: int16 pairs
      // unless --flash-budget is not met so, then int8 weights (half their
      // flash, a third more instructions in the inner loop).
      if (ok && !error.empty() && o.flashBudget >= 0 &&
          g->summary.weightBytes + footprint.codeBytes > o.flashBudget &&
          o.convWeights.empty() && !convWeights.empty()) {
        CompileOptions int8 = o;
        int8.convWeights = "int8";
        Provenance provenance;
        provenance.modelSha256 = sha256OfFile(o.modelPath);
        provenance.options = canonicalOptions(int8, *target, name);
        FailureOr<GeneratedModel> retry =
            generateModel(ctx, modelPath, name, import, *target, int8, false, provenance);
        if (failed(retry)) {
          llvm::sys::fs::remove_directories(stage);
          if (createdOut)
            llvm::sys::fs::remove_directories(o.outDir);
          return diagnostics.failureCode();
        }
        g = std::move(retry);
        files.clear();
        error.clear();
        footprint = Footprint();
        ok = writeModelFiles(*g, std::string(stage), name, files, error) &&
             measureFootprint(*target, std::string(stage), name, g->files.sourceExtension,
                              footprint, error);
        if (ok)
          error = budgetProblem(int8, *target, name, g->summary, footprint);
        convWeights = "int8";
        convWeightsByRule = true;
      }
      ok = ok && error.empty();
    }
    if (ok && o.emit == "lib") {
      ok = buildStaticLibrary(*target, std::string(stage), name, g->files.sourceExtension, error);
      files.push_back("lib" + name + ".a");
    }
  }
  if (ok) {
    for (const std::string &f : files) {
      llvm::SmallString<256> from(stage), to(o.outDir);
      llvm::sys::path::append(from, f);
      llvm::sys::path::append(to, f);
      if (std::error_code ec = llvm::sys::fs::rename(from, to)) {
        error = "cannot move '" + f + "' into '" + o.outDir + "': " + ec.message();
        ok = false;
        break;
      }
    }
  }
  llvm::sys::fs::remove_directories(stage);
  if (ok && !o.depfile.empty()) {
    llvm::SmallString<256> header(o.outDir);
    llvm::sys::path::append(header, files.front());
    ok = writeDepfile(o, std::string(header), error);
  }
  if (!ok) {
    if (createdOut)
      llvm::sys::fs::remove_directories(o.outDir);
    llvm::errs() << "onnxc: error: " << error << "\n";
    return 1;
  }
  if (o.quantize.enabled())
    if (int rc = publishQuantizeReport(o.quantize, modelPath, o.quiet))
      return rc;
  if (!o.quiet && o.emit == "qdq-onnx") {
    llvm::SmallString<256> p(o.outDir);
    llvm::sys::path::append(p, files.front());
    llvm::outs() << "onnxc: wrote the int8 QDQ model " << p << "\n";
  } else if (!o.quiet) {
    const CompileSummary &s = g->summary;
    llvm::outs() << "onnxc: compiled '" << name << "' for " << target->name()
                 << (o.target == "native" ? " (native)" : "") << "\n"
                 << "  ops      " << s.opsImported << " imported, " << s.opsAfter
                 << " after passes";
    if (s.batchNormsFolded)
      llvm::outs() << " (" << s.batchNormsFolded << " BatchNormalization folded into Conv)";
    llvm::outs() << "\n";
    printControlFlowSummary(s);
    if (s.integerMatrixOps >= 0) {
      const size_t all = size_t(s.integerMatrixOps) + s.floatMatrixOps.size();
      const bool floats = !s.floatMatrixOps.empty() || !s.floatOtherOps.empty();
      llvm::outs() << "  int8     " << s.integerMatrixOps << " of " << all
                   << " convolutions and matrix products on integer kernels"
                   << (floats ? "; quantized but in float:\n" : "\n");
      for (const auto *list : {&s.floatMatrixOps, &s.floatOtherOps})
        for (const std::string &op : *list)
          llvm::outs() << "             " << op << "\n";
    }
    if (!s.int8OnReference.empty()) {
      llvm::outs() << "  int8     " << s.int8OnReference.size()
                   << (s.int8OnReference.size() == 1 ? " op" : " ops")
                   << " on the reference kernels, which " << target->name()
                   << "'s do not cover:";
      for (size_t i = 0; i < s.int8OnReference.size() && i < 4; ++i)
        llvm::outs() << (i ? ", " : " ") << s.int8OnReference[i];
      if (s.int8OnReference.size() > 4)
        llvm::outs() << " and " << s.int8OnReference.size() - 4 << " more";
      llvm::outs() << "\n";
    }
    llvm::outs()
                 << "  arena    " << s.arenaBytes << " bytes (" << humanBytes(s.arenaBytes)
                 << "); naive sum of intermediates " << s.naiveBytes << " bytes ("
                 << humanBytes(s.naiveBytes) << ")\n";
    if (o.emit != "mlir")
      llvm::outs() << "  weights  " << s.weightBytes << " bytes (" << humanBytes(s.weightBytes)
                   << ")\n";
    if (o.report || o.ramBudget >= 0 || o.flashBudget >= 0) {
      printFootprint(s, footprint);
      if (!convWeights.empty())
        llvm::outs() << "  int8     convolution weights "
                     << (convWeights == "int8"
                             ? std::string("int8, widened by SXTB16 in the inner loop (") +
                                   (convWeightsByRule ? "the int16 pairs missed --flash-budget"
                                                      : "--conv-weights int8") +
                                   ")"
                             : std::string("int16 pairs for SMLAD (--conv-weights int8: "
                                           "half their flash, slower)"))
                     << "\n";
    }
    llvm::outs() << "  compute  " << s.flops << " FLOPs per run\n  files   ";
    for (const std::string &f : files) {
      llvm::SmallString<256> p(o.outDir);
      llvm::sys::path::append(p, f);
      llvm::outs() << " " << p;
    }
    llvm::outs() << "\n";
  }
  return 0;
}

} // namespace onnxc
