//===- Runner.cpp - `onnxc run`: compile for the host, run on .pb tensors ===//
#include "onnxc/Driver/Driver.h"

#include "Generate.h"
#include "Toolchain.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"
#include "onnxc/Import/TensorProtoIO.h"
#include "onnxc/Lowering/Target.h"
#include "onnxc_rt/threads.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <dlfcn.h>

using namespace mlir;

namespace onnxc {

bool writeModelFiles(const GeneratedModel &g, const std::string &dir,
                     const std::string &name, std::vector<std::string> &files,
                     std::string &error);

namespace {

std::string join(const std::string &dir, const std::string &file) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, file);
  return std::string(p);
}

struct AlignedBuffer {
  void *p = nullptr;
  explicit AlignedBuffer(size_t n) {
    size_t size = std::max<size_t>(64, (n + 63) / 64 * 64);
    p = std::aligned_alloc(64, size);
  }
  ~AlignedBuffer() { std::free(p); }
  AlignedBuffer(const AlignedBuffer &) = delete;
  AlignedBuffer &operator=(const AlignedBuffer &) = delete;
};

int fail(const std::string &msg) {
  llvm::errs() << "onnxc: error: " << msg << "\n";
  return 1;
}

} // namespace

int runModel(const RunOptions &o) {
  const Target *target = TargetRegistry::find(o.target);
  if (!target)
    return fail(o.target == "native" ? "no registered target runs on this machine"
                                     : "unknown target '" + o.target + "' (see --list-targets)");
  if (!target->hostCode || !target->runsHere())
    return fail("target '" + target->name() + "' cannot run on this machine (its code runs " +
                target->runner + ")");
  if (std::string problem = threadsProblem(*target, o.threads); !problem.empty())
    return fail(problem);

  // Inputs in graph order: input_0.pb, input_1.pb, ... A sequence or an
  // optional input becomes its tensors, one parameter each.
  MLIRContext ctx;
  DiagnosticPrinter diagnostics(ctx);
  std::vector<DenseElementsAttr> inputs; // one per function parameter
  std::vector<DenseElementsAttr> plainInputs; // tensor graph inputs, by position
  ImportOptions import = o.import;
  std::vector<GraphInputKind> kinds = graphInputKinds(o.modelPath);
  for (int i = 0;; ++i) {
    std::string path = join(o.inputsDir, "input_" + std::to_string(i) + ".pb");
    if (!llvm::sys::fs::exists(path))
      break;
    bool isOpt = i < (int)kinds.size() && kinds[i].isOptional;
    bool isSeq = i < (int)kinds.size() && kinds[i].isSequence;
    std::string error;
    ValueFile v;
    if (failed(readValueFile(ctx, path, isOpt, isSeq, v, error))) {
      fail(error);
      return error.find("not supported") != std::string::npos ? kExitUnsupported
                                                              : kExitError;
    }
    inputs.insert(inputs.end(), v.tensors.begin(), v.tensors.end());
    if (isOpt || isSeq) {
      CompositeInput c;
      c.isOptional = isOpt;
      c.isSequence = isSeq;
      c.present = v.present;
      for (DenseElementsAttr t : v.tensors) {
        auto s = t.getType().getShape();
        c.elementShapes.emplace_back(s.begin(), s.end());
      }
      import.compositeInputs[i] = c;
      import.positionalShapes.emplace_back();
      plainInputs.push_back(nullptr);
      continue;
    }
    plainInputs.push_back(v.tensors.front());
    auto shape = v.tensors.front().getType().getShape();
    import.positionalShapes.emplace_back(shape.begin(), shape.end());
  }

  // Inputs whose values decide shapes are compiled in, as their shapes are.
  for (size_t pos : shapeDecidingInputs(o.modelPath))
    if (pos < plainInputs.size() && plainInputs[pos]) {
      import.positionalBound.resize(plainInputs.size());
      import.positionalBound[pos] = plainInputs[pos];
    }
  auto g = generateModel(ctx, o.modelPath, "model", import, *target, o.threads,
                         o.winograd, /*mlirOnly=*/false);
  if (failed(g))
    return diagnostics.failureCode();
  if (inputs.size() != g->iface.inputs.size())  // (parameters, sequences counted per element)
    return fail("the model has " + std::to_string(g->iface.inputs.size()) +
                " inputs but " + o.inputsDir + " holds " + std::to_string(inputs.size()) +
                " (input_0.pb ...)");
  for (size_t i = 0; i < inputs.size(); ++i) {
    // ONNX's own test data (numpy has no bfloat16) stores bfloat16 tensors
    // as their uint16 bits: take them as such.
    Type want = g->iface.inputs[i].elementType, have = inputs[i].getElementType();
    if (want.isBF16() && have.isUnsignedInteger(16))
      inputs[i] = elementsFromRawBytes(inputs[i].getType().clone(want), rawBytesOf(inputs[i]));
    if (inputs[i].getElementType() != g->iface.inputs[i].elementType)
      return fail("input_" + std::to_string(i) + ".pb has element type " +
                  onnxTypeName(onnxFromElementType(inputs[i].getElementType())).str() +
                  " but input '" + g->iface.inputs[i].name + "' is " +
                  onnxTypeName(onnxFromElementType(g->iface.inputs[i].elementType)).str());
  }

  llvm::SmallString<128> work;
  if (llvm::sys::fs::createUniqueDirectory("onnxc-run", work))
    return fail("cannot create a temporary directory");
  std::string dir(work);
  std::string error;
  std::vector<std::string> files;
  bool built = writeModelFiles(*g, dir, "model", files, error) &&
               buildSharedLibrary(*target, dir, "model", error);
  void *lib = built ? dlopen(join(dir, "model.so").c_str(), RTLD_NOW | RTLD_LOCAL) : nullptr;
  if (built && !lib)
    error = std::string("cannot load the compiled model: ") + dlerror();
  if (!lib) {
    llvm::sys::fs::remove_directories(dir);
    return fail(error);
  }
  using RunOnFn = int (*)(const void *const *, void *const *, void *, void *);
  auto runOn = reinterpret_cast<RunOnFn>(dlsym(lib, "model_run_v_on"));
  if (!runOn) {
    llvm::sys::fs::remove_directories(dir);
    return fail("the compiled model has no model_run_v_on");
  }
  onnxc_rt::ThreadPool pool(o.threads); // the caller's thread plus threads - 1 workers
  onnxc_rt::TaskRunner *runner = o.threads > 1 ? &pool : nullptr; // what the model expects
  auto run = [&](const void *const *in, void *const *out, void *arena) {
    return runOn(in, out, arena, runner);
  };

  std::vector<std::vector<char>> inBytes;
  std::vector<const void *> inPtrs;
  for (DenseElementsAttr t : inputs)
    inBytes.push_back(rawBytesOf(t));
  for (auto &b : inBytes)
    inPtrs.push_back(b.data());
  std::vector<std::unique_ptr<AlignedBuffer>> outs;
  std::vector<void *> outPtrs;
  for (const TensorInterface &t : g->iface.outputs) {
    outs.push_back(std::make_unique<AlignedBuffer>(t.bytes));
    outPtrs.push_back(outs.back()->p);
  }
  AlignedBuffer arena(g->iface.arenaBytes);

  int rc = run(inPtrs.data(), outPtrs.data(), arena.p);
  if (rc != 0) {
    dlclose(lib);
    llvm::sys::fs::remove_directories(dir);
    return fail("the model returned " + std::to_string(rc));
  }
  if (o.repeat > 0) {
    std::vector<double> us;
    for (int i = 0; i < o.repeat; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      run(inPtrs.data(), outPtrs.data(), arena.p);
      auto t1 = std::chrono::steady_clock::now();
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    std::sort(us.begin(), us.end());
    double median = us[us.size() / 2];
    double p99 = us[std::min(us.size() - 1, (size_t)std::ceil(us.size() * 0.99) - 1)];
    llvm::outs() << llvm::format("onnxc: latency over %d runs: median %.1f us, p99 %.1f us\n",
                                 o.repeat, median, p99);
  }
  dlclose(lib);
  llvm::sys::fs::remove_directories(dir);

  if (std::error_code ec = llvm::sys::fs::create_directories(o.outputsDir))
    return fail("cannot create '" + o.outputsDir + "': " + ec.message());
  // One file per graph output; sequences and optionals are packed from
  // their results.
  for (size_t k = 0; k < g->iface.graphOutputs.size(); ++k) {
    const GraphOutput &go = g->iface.graphOutputs[k];
    std::vector<ShapedType> types;
    std::vector<llvm::ArrayRef<char>> raws;
    for (int64_t r = go.firstResult; r < go.firstResult + go.count; ++r) {
      const TensorInterface &t = g->iface.outputs[r];
      std::vector<int64_t> shape = t.shape;
      int64_t bytes = t.bytes;
      if (t.dynamicDim >= 0) { // the size this run produced, packed at the start
        int64_t extent = *static_cast<const int64_t *>(outPtrs[t.extentOutput]);
        if (extent < 0 || extent > shape[t.dynamicDim])
          return fail("output '" + t.name + "' reports size " + std::to_string(extent) +
                      " beyond its bound " + std::to_string(shape[t.dynamicDim]));
        bytes = shape[t.dynamicDim] ? bytes / shape[t.dynamicDim] * extent : 0;
        shape[t.dynamicDim] = extent;
      }
      types.push_back(RankedTensorType::get(shape, t.elementType));
      raws.emplace_back(static_cast<const char *>(outPtrs[r]), bytes);
    }
    bool isOpt = go.kind.rfind("optional", 0) == 0;
    bool isSeq = go.kind == "sequence" || go.kind == "optional_sequence";
    if (failed(writeValueFile(join(o.outputsDir, "output_" + std::to_string(k) + ".pb"), go.name,
                              isOpt, isSeq, go.present, types, raws, error)))
      return fail(error);
  }
  if (!o.quiet)
    llvm::outs() << "onnxc: wrote " << g->iface.graphOutputs.size() << " output(s) to "
                 << o.outputsDir << "\n";
  return 0;
}

} // namespace onnxc
