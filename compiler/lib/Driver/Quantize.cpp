//===- Quantize.cpp - `--quantize int8 --calibration DIR` -------------------===//
//
// Calibrates a float model by compiling a copy that outputs every tensor to
// quantize (onnxc/Quantize/Quantize.h) for this machine and running it in
// process on the calibration samples: the same kernels the compiled model
// runs, no second interpreter. The min/max of each tensor over the samples
// gives its int8 parameters; the QDQ model is written for the normal
// pipeline (or for --emit qdq-onnx).
//
//===----------------------------------------------------------------------===//
#include "onnxc/Driver/Driver.h"

#include "Generate.h"
#include "Toolchain.h"
#include "onnxc/Import/TensorProtoIO.h"
#include "onnxc/Lowering/Target.h"
#include "onnxc/Quantize/Quantize.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

using namespace mlir;

namespace onnxc {
namespace {

/// The calibration samples: each sub-folder of `dir` (in name order) holds
/// input_0.pb, input_1.pb, ... for the model's inputs, as ONNX test data.
bool readSamples(MLIRContext &ctx, const std::string &dir, size_t inputs,
                 std::vector<std::vector<DenseElementsAttr>> &samples, std::string &error) {
  std::error_code ec;
  std::vector<std::string> folders;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    if (llvm::sys::fs::is_directory(it->path()))
      folders.push_back(it->path());
  if (ec) {
    error = "cannot read the calibration folder '" + dir + "': " + ec.message();
    return false;
  }
  std::sort(folders.begin(), folders.end());
  if (folders.empty()) {
    error = "the calibration folder '" + dir + "' holds no samples: expected one sub-folder "
            "per sample with input_0.pb, ... (ONNX TensorProto files, as ONNX test data)";
    return false;
  }
  for (const std::string &f : folders) {
    std::vector<DenseElementsAttr> sample;
    for (size_t i = 0; i < inputs; ++i) {
      std::string path = joinPath(f, "input_" + std::to_string(i) + ".pb"), name;
      if (!llvm::sys::fs::exists(path)) {
        error = "calibration sample '" + f + "' has no input_" + std::to_string(i) +
                ".pb (the model has " + std::to_string(inputs) + " input(s))";
        return false;
      }
      DenseElementsAttr t = readTensorFile(ctx, path, name, error);
      if (!t) {
        error = "calibration file '" + path + "': " + error;
        return false;
      }
      if (!samples.empty()) {
        DenseElementsAttr first = samples.front()[i];
        if (t.getType() != first.getType()) {
          std::string a, b;
          llvm::raw_string_ostream(a) << t.getType();
          llvm::raw_string_ostream(b) << first.getType();
          error = "calibration file '" + path + "' is " + a + " but the first sample's input " +
                  std::to_string(i) + " is " + b + " (all samples must agree)";
          return false;
        }
      }
      if (!t.getElementType().isF32()) {
        error = "calibration file '" + path + "' is not float32: --quantize takes float models";
        return false;
      }
      sample.push_back(t);
    }
    samples.push_back(std::move(sample));
  }
  return true;
}

} // namespace

std::string CalibrationMethod::describe() const {
  switch (kind) {
  case MinMax:
    return "MinMax";
  case Percentile: {
    std::string p = std::to_string(percentile);
    p.erase(p.find_last_not_of('0') + 1);
    if (!p.empty() && p.back() == '.')
      p.pop_back();
    return "Percentile " + p;
  }
  }
  return "";
}

bool CalibrationMethod::parse(const std::string &name) {
  if (name == "minmax")
    kind = MinMax;
  else if (name == "percentile")
    kind = Percentile;
  else
    return false;
  return true;
}

ScopedTempDir::~ScopedTempDir() {
  if (!path.empty())
    llvm::sys::fs::remove_directories(path);
}

bool ScopedTempDir::create(const std::string &prefix) {
  llvm::SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory(prefix, dir))
    return false;
  path = std::string(dir);
  return true;
}

std::string ScopedTempDir::file(const std::string &name) const { return joinPath(path, name); }

int quantizeModel(const std::string &modelPath, const ImportOptions &importOptions,
                  const std::string &calibrationDir, const CalibrationMethod &method,
                  const std::string &qdqPath, bool quiet) {
  auto fail = [](const std::string &msg) {
    llvm::errs() << "onnxc: error: " << msg << "\n";
    return kExitError;
  };
  if (calibrationDir.empty())
    return fail("--quantize int8 needs --calibration DIR (sample folders of input_N.pb)");
  CalibrationPlan plan;
  std::string error;
  if (!planCalibration(modelPath, plan, error))
    return fail(error);
  MLIRContext ctx;
  DiagnosticPrinter diagnostics(ctx);
  size_t inputs = 0;
  for (const GraphInputKind &k : graphInputKinds(modelPath)) {
    if (k.isOptional || k.isSequence)
      return fail("input '" + k.name + "' is a sequence or optional: --quantize takes tensors");
    ++inputs;
  }
  std::vector<std::vector<DenseElementsAttr>> samples;
  if (!readSamples(ctx, calibrationDir, inputs, samples, error))
    return fail(error);

  // The calibration model, compiled for this machine and loaded.
  ScopedTempDir work;
  if (!work.create("onnxc-calibrate"))
    return fail("cannot create a temporary directory");
  std::string calibPath = work.file("calibration.onnx");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(calibPath, ec);
    os << plan.model;
    if (ec)
      return fail("cannot write '" + calibPath + "'");
  }
  const Target *host = TargetRegistry::native();
  if (!host)
    return fail("no registered target runs on this machine to calibrate on");
  ImportOptions import = importOptions;
  import.positionalShapes.clear();
  for (DenseElementsAttr t : samples.front()) {
    auto s = t.getType().getShape();
    import.positionalShapes.emplace_back(s.begin(), s.end());
  }
  auto g = generateModel(ctx, calibPath, "model", import, *host, /*threads=*/1,
                         /*winograd=*/true, /*mlirOnly=*/false);
  if (failed(g))
    return diagnostics.failureCode();
  std::vector<std::string> files;
  HostModel model;
  if (!writeModelFiles(*g, work.path, "model", files, error) ||
      !model.load(*host, *g, work.path, error))
    return fail(error);

  std::map<std::string, TensorRange> ranges;
  std::vector<std::vector<char>> outs;
  std::vector<void *> outPtrs;
  for (const TensorInterface &t : g->iface.outputs) {
    outs.emplace_back(std::max<int64_t>(t.bytes, 1));
    outPtrs.push_back(outs.back().data());
  }
  std::vector<char> arena(std::max<int64_t>(g->iface.arenaBytes, 1) + 64);
  void *aligned = arena.data() + (64 - reinterpret_cast<uintptr_t>(arena.data()) % 64) % 64;
  std::set<std::string> wanted(plan.tensors.begin(), plan.tensors.end());
  // Runs every sample and hands each observed tensor's values to `observe`.
  auto pass = [&](const char *what,
                  const std::function<void(const std::string &, const float *, int64_t)> &observe)
      -> std::string {
    for (size_t s = 0; s < samples.size(); ++s) {
      std::vector<std::vector<char>> inBytes;
      std::vector<const void *> inPtrs;
      for (DenseElementsAttr t : samples[s])
        inBytes.push_back(rawBytesOf(t));
      for (const auto &b : inBytes)
        inPtrs.push_back(b.data());
      if (int rc = model.run(inPtrs.data(), outPtrs.data(), aligned, nullptr))
        return "the calibration run returned " + std::to_string(rc);
      for (size_t i = 0; i < g->iface.outputs.size(); ++i) {
        const TensorInterface &t = g->iface.outputs[i];
        if (wanted.count(t.name) && t.elementType.isF32() && t.bytes >= 4)
          observe(t.name, static_cast<const float *>(outPtrs[i]), t.bytes / 4);
      }
      // A progress line on a terminal; one line at the end in a log.
      const bool last = s + 1 == samples.size();
      if (!quiet && (last || llvm::sys::Process::StandardOutIsDisplayed())) {
        llvm::outs() << "\ronnxc: " << what << ": " << s + 1 << " of " << samples.size()
                     << " samples" << (last ? "\n" : "");
        llvm::outs().flush();
      }
    }
    return "";
  };
  std::string runError = pass("calibrating", [&](const std::string &name, const float *v,
                                                  int64_t n) {
    auto [lo, hi] = std::minmax_element(v, v + n);
    auto it = ranges.find(name);
    if (it == ranges.end())
      ranges[name] = {*lo, *hi};
    else
      it->second = {std::min(it->second.lo, *lo), std::max(it->second.hi, *hi)};
  });
  if (!runError.empty())
    return fail(runError);
  // Percentile: a second pass fills a histogram per tensor over its MinMax
  // range.
  if (method.kind != CalibrationMethod::MinMax) {
    std::map<std::string, Histogram> histograms;
    for (const auto &[name, r] : ranges)
      histograms.emplace(name, Histogram(r.lo, r.hi));
    runError = pass("histograms", [&](const std::string &name, const float *v, int64_t n) {
      histograms.at(name).add(v, n);
    });
    if (!runError.empty())
      return fail(runError);
    for (auto &[name, h] : histograms)
      ranges[name] = h.percentileRange(method.percentile);
  }
  QuantizeSummary summary;
  if (!writeQdqModel(modelPath, ranges, qdqPath, summary, error))
    return fail(error);
  if (!quiet) {
    llvm::outs() << "onnxc: quantized to int8 (" << method.describe() << " over "
                 << samples.size() << " samples): "
                 << summary.quantizedTensors << " activations, " << summary.quantizedWeights
                 << " weight tensors per channel (" << summary.floatWeightBytes << " -> "
                 << summary.int8WeightBytes << " bytes)\n";
    if (!summary.floatOps.empty()) {
      llvm::outs() << "onnxc: left in float between Q and DQ (no int8 kernel):";
      for (const std::string &op : summary.floatOps)
        llvm::outs() << " " << op;
      llvm::outs() << "\n";
    }
  }
  return kExitOk;
}

} // namespace onnxc
