//===- Calibration.cpp - `--quantize int8 --calibration DIR` -------------------===//
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

#include "Calibration.h"
#include "Files.h"
#include "Generate.h"
#include "HostModel.h"
#include "Toolchain.h"
#include "onnxc/Import/TensorProtoIO.h"
#include "onnxc/Lowering/Target.h"
#include "onnxc/Quantize/Quantize.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <cstdlib>
#include <functional>

using namespace mlir;

namespace onnxc {
namespace {

std::string shapeText(llvm::ArrayRef<int64_t> dims) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? "x" : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
  return dims.empty() ? "a scalar" : s;
}

/// A .pb (TensorProto) or .npy file's tensor, or null with `error` set.
DenseElementsAttr readSampleFile(MLIRContext &ctx, const std::string &path, std::string &error) {
  std::string name;
  DenseElementsAttr t = llvm::StringRef(path).ends_with(".npy")
                            ? readNpyFile(ctx, path, error)
                            : readTensorFile(ctx, path, name, error);
  if (!t && error.find(path) == std::string::npos)
    error = "calibration file '" + path + "': " + error;
  return t;
}

/// Whether `t` (from `path`) fits `spec` with `extra` leading axes before
/// the input's own (1: samples stacked on a first axis).
bool fitsInput(DenseElementsAttr t, const InputSpec &spec, size_t extra, bool inFolderItself,
               const std::string &path, std::string &error) {
  auto shape = t.getType().getShape();
  if (!t.getElementType().isF32()) {
    std::string type = onnxTypeName(onnxFromElementType(t.getElementType())).str();
    error = "calibration file '" + path + "' holds " + type + " values but input '" + spec.name +
            "' takes float32 (--quantize calibrates float models)";
    return false;
  }
  bool fits = shape.size() == spec.dims.size() + extra;
  for (size_t i = 0; fits && i < spec.dims.size(); ++i)
    fits = spec.dims[i] < 0 || spec.dims[i] == shape[i + extra];
  if (!fits) {
    error = "calibration file '" + path + "' has shape " + shapeText(shape) + " but input '" +
            spec.name + "' is " + shapeText(spec.dims) +
            (inFolderItself ? " (a file in the calibration folder itself holds samples stacked on a first "
                     "axis: Nx" + shapeText(spec.dims) + ", or one sample)"
                   : "");
    return false;
  }
  return true;
}

/// The calibration samples in `dir` (see --calibration): one sub-folder per
/// sample, or one file per input holding the samples stacked.
bool readSamples(MLIRContext &ctx, const std::string &dir, const std::vector<InputSpec> &inputs,
                 std::vector<std::vector<DenseElementsAttr>> &samples, std::string &error) {
  std::error_code ec;
  std::vector<std::string> folders;
  if (!llvm::sys::fs::is_directory(dir)) {
    error = "the calibration folder '" + dir + "' does not exist or is not a folder";
    return false;
  }
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    if (llvm::sys::fs::is_directory(it->path()))
      folders.push_back(it->path());
  if (ec) {
    error = "cannot read the calibration folder '" + dir + "': " + ec.message();
    return false;
  }
  std::sort(folders.begin(), folders.end());
  // One sample in the folder itself, as `onnxc run --inputs` takes one set.
  if (folders.empty() && llvm::sys::fs::exists(joinPath(dir, "input_0.pb")))
    folders.push_back(dir);
  // The file for input `i` in `folder`: input_I.pb, NAME.pb or NAME.npy.
  auto fileFor = [&](const std::string &folder, size_t i, bool positional) -> std::string {
    std::vector<std::string> names = {inputFileName(inputs[i].name) + ".npy",
                                      inputFileName(inputs[i].name) + ".pb"};
    if (positional)
      names.insert(names.begin(), "input_" + std::to_string(i) + ".pb");
    for (const std::string &n : names)
      if (llvm::sys::fs::exists(joinPath(folder, n)))
        return joinPath(folder, n);
    return "";
  };
  auto expected = [&](size_t i, bool positional) {
    std::string n = inputFileName(inputs[i].name);
    return (positional ? "input_" + std::to_string(i) + ".pb, " : std::string()) + n + ".npy or " +
           n + ".pb";
  };
  if (folders.empty()) {
    // Layout (b): DIR/NAME.npy or DIR/NAME.pb per input.
    std::vector<DenseElementsAttr> stacks;
    std::vector<std::string> paths;
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::string path = fileFor(dir, i, false);
      if (path.empty()) {
        error = "the calibration folder '" + dir + "' holds no samples for input '" +
                inputs[i].name + "': expected one sub-folder per sample (input_0.pb, ... or "
                "files named after the inputs) or " + expected(i, false) + " in the folder";
        return false;
      }
      DenseElementsAttr t = readSampleFile(ctx, path, error);
      if (!t)
        return false;
      const bool stacked = t.getType().getRank() == int64_t(inputs[i].dims.size()) + 1;
      if (!fitsInput(t, inputs[i], stacked ? 1 : 0, true, path, error))
        return false;
      if (!stacked) // one sample: a stack of one
        t = elementsFromRawBytes(
            RankedTensorType::get(llvm::to_vector(llvm::concat<const int64_t>(
                                      llvm::ArrayRef<int64_t>{1}, t.getType().getShape())),
                                  t.getElementType()),
            rawBytesOf(t));
      stacks.push_back(t);
      paths.push_back(path);
    }
    const int64_t count = stacks.empty() ? 0 : stacks.front().getType().getDimSize(0);
    for (size_t i = 0; i < stacks.size(); ++i)
      if (stacks[i].getType().getDimSize(0) != count) {
        error = "calibration file '" + paths[i] + "' holds " +
                std::to_string(stacks[i].getType().getDimSize(0)) + " samples but '" +
                paths.front() + "' holds " + std::to_string(count) + " (one per sample each)";
        return false;
      }
    if (count == 0) {
      error = "the calibration files in '" + dir + "' hold no samples (a first axis of 0)";
      return false;
    }
    for (int64_t s = 0; s < count; ++s) {
      std::vector<DenseElementsAttr> sample;
      for (DenseElementsAttr t : stacks) {
        auto shape = t.getType().getShape().drop_front();
        std::vector<char> bytes = rawBytesOf(t);
        const size_t each = bytes.size() / size_t(count);
        sample.push_back(elementsFromRawBytes(
            RankedTensorType::get(shape, t.getElementType()),
            llvm::ArrayRef<char>(bytes.data() + size_t(s) * each, each)));
      }
      samples.push_back(std::move(sample));
    }
    return true;
  }
  for (const std::string &f : folders) {
    std::vector<DenseElementsAttr> sample;
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::string path = fileFor(f, i, true);
      if (path.empty()) {
        error = "calibration sample '" + f + "' has no file for input '" + inputs[i].name +
                "' (expected " + expected(i, true) + ")";
        return false;
      }
      DenseElementsAttr t = readSampleFile(ctx, path, error);
      if (!t || !fitsInput(t, inputs[i], 0, false, path, error))
        return false;
      if (!samples.empty() && t.getType() != samples.front()[i].getType()) {
        error = "calibration file '" + path + "' has shape " + shapeText(t.getType().getShape()) +
                " but the first sample's input '" + inputs[i].name + "' is " +
                shapeText(samples.front()[i].getType().getShape()) + " (all samples must agree)";
        return false;
      }
      sample.push_back(t);
    }
    samples.push_back(std::move(sample));
  }
  return true;
}

using Samples = std::vector<std::vector<DenseElementsAttr>>;
using Observer = std::function<void(const std::string &, const float *, int64_t)>;

/// A model file compiled for this machine and loaded in process: the
/// compiler's own kernels, as the model would run.
class HostRun {
public:
  /// Compiles `path` for the shapes of the first sample.
  bool compile(MLIRContext &ctx, const std::string &path, const ImportOptions &importOptions,
               const Samples &samples, std::string &error) {
    const Target *host = TargetRegistry::native();
    if (!host) {
      error = "no registered target runs on this machine to calibrate on";
      return false;
    }
    if (!dir_.create("onnxc-calibrate")) {
      error = "cannot create a temporary directory";
      return false;
    }
    ImportOptions import = importOptions;
    import.positionalShapes.clear();
    for (DenseElementsAttr t : samples.front()) {
      auto s = t.getType().getShape();
      import.positionalShapes.emplace_back(s.begin(), s.end());
    }
    // The host's defaults: one task, the target's default options.
    auto g = generateModel(ctx, path, "model", import, *host, ModelOptions(),
                           /*mlirOnly=*/false);
    if (failed(g))
      return false; // diagnostics printed
    g_ = std::move(*g);
    std::vector<std::string> files;
    if (!writeModelFiles(g_, dir_.path, "model", files, error) ||
        !model_.load(*host, g_, dir_.path, error))
      return false;
    for (const TensorInterface &t : g_.iface.outputs) {
      outs_.emplace_back(std::max<int64_t>(t.bytes, 1));
      outPtrs_.push_back(outs_.back().data());
    }
    arena_.resize(std::max<int64_t>(g_.iface.arenaBytes, 1) + 64);
    return true;
  }

  /// Runs sample `s` and hands every float32 output to `observe`; returns
  /// "" or what went wrong.
  std::string run(const std::vector<DenseElementsAttr> &sample, const Observer &observe) {
    std::vector<std::vector<char>> inBytes;
    std::vector<const void *> inPtrs;
    for (DenseElementsAttr t : sample)
      inBytes.push_back(rawBytesOf(t));
    for (const auto &b : inBytes)
      inPtrs.push_back(b.data());
    void *aligned = arena_.data() + (64 - reinterpret_cast<uintptr_t>(arena_.data()) % 64) % 64;
    if (int rc = model_.run(inPtrs.data(), outPtrs_.data(), aligned, nullptr))
      return "the calibration run returned " + std::to_string(rc);
    for (size_t i = 0; i < g_.iface.outputs.size(); ++i) {
      const TensorInterface &t = g_.iface.outputs[i];
      if (t.elementType.isF32() && t.bytes >= 4)
        observe(t.name, static_cast<const float *>(outPtrs_[i]), t.bytes / 4);
    }
    return "";
  }

private:
  ScopedTempDir dir_;
  GeneratedModel g_;
  HostModel model_;
  std::vector<std::vector<char>> outs_;
  std::vector<void *> outPtrs_;
  std::vector<char> arena_;
};

/// A progress line on a terminal; one line at the end in a log.
void progress(bool quiet, const char *what, size_t done, size_t total) {
  const bool last = done == total;
  if (!quiet && (last || llvm::sys::Process::StandardOutIsDisplayed())) {
    llvm::outs() << "\ronnxc: " << what << ": " << done << " of " << total << " samples"
                 << (last ? "\n" : "");
    llvm::outs().flush();
  }
}

/// How close the int8 model's tensor is to the float model's, over the
/// samples: SQNR = 10 log10(sum f^2 / sum (f - q)^2) and cosine similarity.
struct Agreement {
  double signal = 0, noise = 0, dot = 0, quantized = 0;
  void add(const float *f, const float *q, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      signal += double(f[i]) * f[i];
      noise += (double(f[i]) - q[i]) * (double(f[i]) - q[i]);
      dot += double(f[i]) * q[i];
      quantized += double(q[i]) * q[i];
    }
  }
  double sqnrDb() const {
    return noise > 0 ? 10.0 * std::log10(signal / noise) : std::numeric_limits<double>::infinity();
  }
  double cosine() const {
    return signal > 0 && quantized > 0 ? dot / std::sqrt(signal * quantized) : 1.0;
  }
};

std::string decibels(double db) {
  return std::isinf(db) ? "exact" : llvm::formatv("{0:f1}", db).str();
}

} // namespace

std::string CalibrationMethod::describe() const {
  switch (kind) {
  case MinMax:
    return "MinMax";
  case Entropy:
    return "Entropy";
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
  else if (name == "entropy")
    kind = Entropy;
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

namespace {

/// The ranges of the tensors `plan` lists, observed by running the float
/// calibration model on the samples.
std::string calibrate(HostRun &floatRun, const CalibrationPlan &plan, const Samples &samples,
                      const CalibrationMethod &method, bool quiet,
                      std::map<std::string, TensorRange> &ranges) {
  std::set<std::string> wanted(plan.tensors.begin(), plan.tensors.end());
  auto pass = [&](const char *what, const Observer &observe) -> std::string {
    for (size_t s = 0; s < samples.size(); ++s) {
      std::string error = floatRun.run(samples[s], [&](const std::string &name, const float *v,
                                                       int64_t n) {
        if (wanted.count(name))
          observe(name, v, n);
      });
      if (!error.empty())
        return error;
      progress(quiet, what, s + 1, samples.size());
    }
    return "";
  };
  std::string error = pass("calibrating", [&](const std::string &name, const float *v, int64_t n) {
    auto [lo, hi] = std::minmax_element(v, v + n);
    auto it = ranges.find(name);
    if (it == ranges.end())
      ranges[name] = {*lo, *hi};
    else
      it->second = {std::min(it->second.lo, *lo), std::max(it->second.hi, *hi)};
  });
  if (!error.empty() || method.kind == CalibrationMethod::MinMax)
    return error;
  // Percentile and Entropy: a second pass fills a histogram per tensor over
  // its MinMax range.
  const bool entropy = method.kind == CalibrationMethod::Entropy;
  std::map<std::string, Histogram> histograms;
  for (const auto &[name, r] : ranges)
    histograms.emplace(name, Histogram(r.lo, r.hi));
  error = pass("histograms", [&](const std::string &name, const float *v, int64_t n) {
    histograms.at(name).add(v, n, /*skipZeros=*/entropy);
  });
  for (auto &[name, h] : histograms)
    ranges[name] = entropy ? h.entropyRange() : h.percentileRange(method.percentile);
  return error;
}

/// Runs the float and the int8 model on every sample and compares each
/// quantized tensor of `summary` (its dequantized value in the int8 model).
std::string measure(HostRun &floatRun, HostRun &int8Run, const Samples &samples,
                    const QuantizeSummary &summary, bool quiet,
                    std::map<std::string, Agreement> &agreement) {
  std::map<std::string, std::string> floatName; // dequantized name -> float name
  for (const auto &t : summary.tensors)
    floatName[t.dequantized] = t.name;
  std::map<std::string, std::vector<float>> floats;
  for (size_t s = 0; s < samples.size(); ++s) {
    std::string error = floatRun.run(samples[s], [&](const std::string &name, const float *v,
                                                     int64_t n) { floats[name].assign(v, v + n); });
    if (error.empty())
      error = int8Run.run(samples[s], [&](const std::string &name, const float *v, int64_t n) {
        auto f = floatName.find(name);
        if (f == floatName.end())
          return;
        auto values = floats.find(f->second);
        if (values != floats.end() && int64_t(values->second.size()) == n)
          agreement[f->second].add(values->second.data(), v, n);
      });
    if (!error.empty())
      return error;
    progress(quiet, "measuring int8 against float", s + 1, samples.size());
  }
  return "";
}

/// --quantize-error-budget: the layers to keep in float next. A layer
/// whose output is below the budget while its input is not made the loss;
/// failing those, the first layer below the budget.
std::vector<std::string> budgetCulprits(const QuantizeSummary &summary,
                                        const std::map<std::string, Agreement> &agreement,
                                        double budgetDb) {
  auto sqnr = [&](const std::string &t) {
    auto a = agreement.find(t);
    return a == agreement.end() ? std::numeric_limits<double>::infinity() : a->second.sqnrDb();
  };
  std::vector<std::string> culprits, below;
  for (const auto &l : summary.layers) {
    if (!l.int8 || l.quantizedOutput.empty() || !(sqnr(l.quantizedOutput) < budgetDb))
      continue;
    below.push_back(l.output);
    if (sqnr(l.input) >= budgetDb)
      culprits.push_back(l.output);
  }
  if (culprits.empty() && !below.empty())
    culprits.push_back(below.front());
  return culprits;
}

/// The Markdown report (--quantize-report).
std::string reportText(const std::string &modelPath, const CalibrationMethod &method,
                       size_t samples, const QuantizeSummary &summary,
                       const std::map<std::string, Agreement> &agreement, double budgetDb) {
  std::string r;
  llvm::raw_string_ostream os(r);
  os << "# int8 quantization report: " << llvm::sys::path::filename(modelPath) << "\n\n"
     << "Calibration: " << samples << " samples, " << method.describe()
     << ". Scheme: int8 activations per tensor (asymmetric), int8 weights per output channel "
        "(symmetric), int32 biases.\n"
     << "SQNR and cosine similarity compare each tensor of the int8 model (dequantized) with "
        "the float model's over the calibration samples.\n\n"
     << "| | float | int8 |\n|---|---:|---:|\n"
     << "| weights, all initializers (bytes) | " << summary.weightBytesBefore << " | "
     << summary.weightBytesAfter << " |\n"
     << "| weights of the quantized layers (bytes) | " << summary.floatWeightBytes << " | "
     << summary.int8WeightBytes << " |\n\n";
  if (budgetDb == budgetDb)
    os << "Error budget: " << llvm::formatv("{0}", budgetDb) << " dB.\n\n";
  os << "## Layers in float\n\n";
  if (summary.floatOps.empty())
    os << "None: every layer has an int8 kernel.\n";
  else {
    os << "| node | why |\n|---|---|\n";
    for (const auto &[node, why] : summary.floatOps)
      os << "| " << node << " | " << why << " |\n";
  }
  os << "\n## Tensors\n\n| tensor | made by | scale | zero point | SQNR (dB) | cosine |\n"
     << "|---|---|---:|---:|---:|---:|\n";
  for (const auto &t : summary.tensors) {
    os << "| " << t.name << " | " << t.producer << " | " << llvm::formatv("{0:e4}", t.scale)
       << " | " << t.zeroPoint << " | ";
    if (auto a = agreement.find(t.name); a != agreement.end())
      os << decibels(a->second.sqnrDb()) << " | " << llvm::formatv("{0:f6}", a->second.cosine());
    else
      os << " | ";
    os << " |\n";
  }
  if (!summary.integerIo.empty()) {
    os << "\n## Integer inputs and outputs (--io int8, int16)\n\nreal = (q - zero point) x "
          "scale\n\n"
       << "| tensor | scale | zero point |\n|---|---:|---:|\n";
    for (const auto &t : summary.integerIo)
      os << "| " << t.name << " | " << llvm::formatv("{0:e8}", t.scale) << " | " << t.zeroPoint
         << " |\n";
  }
  return r;
}

} // namespace

std::string stagedReportPath(const std::string &qdqPath) { return qdqPath + ".report.md"; }

int publishQuantizeReport(const QuantizeOptions &options, const std::string &qdqPath,
                          bool quiet) {
  if (options.reportPath.empty())
    return kExitOk;
  if (std::error_code ec = llvm::sys::fs::copy_file(stagedReportPath(qdqPath), options.reportPath)) {
    llvm::errs() << "onnxc: error: cannot write '" << options.reportPath << "': " << ec.message()
                 << "\n";
    return kExitError;
  }
  if (!quiet)
    llvm::outs() << "onnxc: quantization report: " << options.reportPath << "\n";
  return kExitOk;
}

std::string inputFileName(const std::string &name) {
  std::string f = name;
  for (char &c : f)
    if (c == '/' || c == ':' || c == '\\')
      c = '_';
  return f;
}

int quantizeModel(const std::string &modelPath, const ImportOptions &importOptions,
                  const QuantizeOptions &options, const std::string &qdqPath, bool quiet) {
  auto fail = [](const std::string &msg) {
    llvm::errs() << "onnxc: error: " << msg << "\n";
    return kExitError;
  };
  if (options.calibrationDir.empty())
    return fail("--quantize int8 needs --calibration DIR (see --help)");
  // The same model, samples and options quantize the same: an earlier
  // run's QDQ model comes from onnxc's build cache (not with a report,
  // which needs the measurements).
  std::string cacheKey;
  if (options.useCache && options.reportPath.empty() &&
      llvm::sys::fs::is_directory(options.calibrationDir)) {
    llvm::SHA256 hash;
    // The executable's own digest too: a rebuilt onnxc of the same version
    // may quantize differently (the kernels' headers alone do not say so).
    static const std::string self = sha256OfFile(llvm::sys::fs::getMainExecutable(
        nullptr, reinterpret_cast<void *>(&onnxcVersion)));
    std::string text = std::string("onnxc ") + onnxcVersion() + " " + self + "\nmodel " +
                       sha256OfFile(modelPath) + "\ncalibration " +
                       sha256OfTree(options.calibrationDir) + "\nmethod " +
                       options.method.describe() + "\nbudget " +
                       llvm::formatv("{0}", options.errorBudgetDb).str() + "\nio " +
                       (options.ioInteger ? "int" + std::to_string(options.ioBits) : "float") +
                       "\nkind " + options.kind +
                       "\nint16 " + llvm::join(options.int16Layers, ",") +
                       (options.int16Fallback ? " fallback" : "") + "\nkernels " +
                       runtimeHeadersDigest() + "\n";
    for (const auto &[input, dims] : importOptions.inputShapes) {
      text += "shape " + input;
      for (int64_t d : dims)
        text += " " + std::to_string(d);
      text += "\n";
    }
    for (const auto &[param, value] : importOptions.dimParams)
      text += "dim " + param + " " + std::to_string(value) + "\n";
    hash.update(text);
    for (const auto &[input, value] : importOptions.boundInputs) {
      hash.update("bind " + input + "\n");
      std::vector<char> raw = rawBytesOf(value);
      hash.update(llvm::StringRef(raw.data(), raw.size()));
    }
    cacheKey = llvm::toHex(hash.final(), /*LowerCase=*/true) + ".onnx";
    std::string hit = cachedFile("quantized", cacheKey);
    if (!hit.empty() && !llvm::sys::fs::copy_file(hit, qdqPath)) {
      if (!quiet) {
        llvm::outs() << "onnxc: quantized to " << options.kind << " ("
                     << options.method.describe()
                     << "): the same model, samples and options as an earlier run, whose "
                        "int8 model is in onnxc's build cache\n";
        // --io int8: the scales the caller feeds and reads with, as the
        // first run printed them.
        if (std::string io = cachedFile("quantized", cacheKey + ".io.txt"); !io.empty())
          if (auto text = llvm::MemoryBuffer::getFile(io))
            llvm::outs() << (*text)->getBuffer();
      }
      return kExitOk;
    }
  }
  if (!quiet && llvm::sys::Process::StandardErrIsDisplayed())
    llvm::errs() << "onnxc: calibrating on the samples in '" << options.calibrationDir
                 << "' ...\n";
  CalibrationPlan plan;
  std::string error;
  if (!planCalibration(modelPath, plan, error))
    return fail(error);
  MLIRContext ctx;
  DiagnosticPrinter diagnostics(ctx);
  for (const GraphInputKind &k : graphInputKinds(modelPath))
    if (k.isOptional || k.isSequence)
      return fail("input '" + k.name + "' is a sequence or optional: --quantize takes tensors");
  Samples samples;
  if (!readSamples(ctx, options.calibrationDir, plan.inputs, samples, error))
    return fail(error);

  // The calibration model (the float model outputting every tensor to
  // quantize), compiled for this machine.
  ScopedTempDir work;
  if (!work.create("onnxc-quantize"))
    return fail("cannot create a temporary directory");
  const std::string calibPath = work.file("calibration.onnx");
  if (!writeFile(calibPath, plan.model, error))
    return fail(error);
  HostRun floatRun;
  if (!floatRun.compile(ctx, calibPath, importOptions, samples, error))
    return error.empty() ? diagnostics.failureCode() : fail(error);
  std::map<std::string, TensorRange> ranges;
  if (std::string e = calibrate(floatRun, plan, samples, options.method, quiet, ranges); !e.empty())
    return fail(e);

  // The QDQ model; with a report or an error budget, measured against the
  // float model (and, over budget, rewritten with layers in float).
  const bool measured = options.hasBudget() || !options.reportPath.empty();
  QdqOptions qdq;
  qdq.int16All = options.kind == "int16x8";
  qdq.int16Layers.insert(options.int16Layers.begin(), options.int16Layers.end());
  QuantizeSummary summary;
  std::map<std::string, Agreement> agreement;
  const std::string measuredPath = work.file("measured.onnx");
  for (int round = 0;; ++round) {
    summary = QuantizeSummary();
    agreement.clear();
    if (!writeQdqModel(modelPath, ranges, qdq, work.file("qdq.onnx"), summary, error))
      return fail(error);
    if (!measured)
      break;
    std::vector<std::string> dequantized;
    for (const auto &t : summary.tensors)
      dequantized.push_back(t.dequantized);
    HostRun int8Run;
    if (!addGraphOutputs(work.file("qdq.onnx"), dequantized, measuredPath, error))
      return fail(error);
    if (!int8Run.compile(ctx, measuredPath, importOptions, samples, error))
      return error.empty() ? diagnostics.failureCode() : fail(error);
    if (std::string e = measure(floatRun, int8Run, samples, summary, quiet, agreement); !e.empty())
      return fail(e);
    if (!options.hasBudget())
      break;
    std::vector<std::string> culprits = budgetCulprits(summary, agreement, options.errorBudgetDb);
    if (culprits.empty())
      break;
    if (round == 16) {
      llvm::errs() << "onnxc: warning: --quantize-error-budget: still layers below "
                   << options.errorBudgetDb << " dB after 16 rounds; stopping there\n";
      break;
    }
    // Each culprit: int16 first with --quantize-fallback int16, then float.
    for (const std::string &c : culprits)
      if (options.int16Fallback && !qdq.int16Layers.count(c))
        qdq.int16Layers.insert(c);
      else
        qdq.floatLayers.insert(c);
  }
  // The model as asked for (--io int8 changes its interface, not its
  // integers).
  if (options.ioInteger) {
    qdq.ioInteger = true;
    qdq.ioBits = options.ioBits;
    QuantizeSummary final;
    if (!writeQdqModel(modelPath, ranges, qdq, qdqPath, final, error))
      return fail(error);
    summary.integerIo = final.integerIo;
  } else if (!llvm::sys::fs::exists(work.file("qdq.onnx")) ||
             llvm::sys::fs::copy_file(work.file("qdq.onnx"), qdqPath)) {
    return fail("cannot write '" + qdqPath + "'");
  }

  // The --io int8 lines below, kept beside the cached model for a run that
  // finds it there.
  std::string ioLines;
  for (const auto &t : summary.integerIo)
    ioLines += "onnxc: int" + std::to_string(t.bits) + " " + t.name + ": scale " +
               llvm::formatv("{0:e8}", t.scale).str() +
               ", zero point " + std::to_string(t.zeroPoint) + "\n";
  if (!cacheKey.empty()) {
    storeInCache("quantized", cacheKey, qdqPath);
    if (!ioLines.empty() && writeFile(work.file("io.txt"), ioLines, error))
      storeInCache("quantized", cacheKey + ".io.txt", work.file("io.txt"));
  }
  // The report waits beside the QDQ model until the compile (or run) that
  // follows succeeds: publishQuantizeReport.
  if (!options.reportPath.empty() &&
      !writeFile(stagedReportPath(qdqPath),
                 reportText(modelPath, options.method, samples.size(), summary, agreement,
                            options.errorBudgetDb),
                 error))
    return fail(error);
  if (!quiet) {
    llvm::outs() << "onnxc: quantized to " << options.kind << " ("
                 << options.method.describe() << " over "
                 << samples.size() << " samples): " << summary.quantizedTensors
                 << " activations, " << summary.quantizedWeights
                 << " weight tensors per channel (" << summary.floatWeightBytes << " -> "
                 << summary.int8WeightBytes << " bytes)\n";
    for (const auto &[node, why] : summary.floatOps)
      llvm::outs() << "onnxc: in float: " << node << ": " << why << "\n";
    for (const std::string &layer : qdq.int16Layers)
      if (!qdq.floatLayers.count(layer))
        llvm::outs() << "onnxc: int16 activations: '" << layer << "'\n";
    llvm::outs() << ioLines;
    if (measured && !summary.tensors.empty()) {
      // The least faithful tensor and the graph outputs.
      const QuantizeSummary::Tensor *worst = nullptr;
      for (const auto &t : summary.tensors)
        if (agreement.count(t.name) &&
            (!worst || agreement[t.name].sqnrDb() < agreement[worst->name].sqnrDb()))
          worst = &t;
      if (worst)
        llvm::outs() << "onnxc: SQNR vs float: lowest " << decibels(agreement[worst->name].sqnrDb())
                     << " dB at '" << worst->name << "'";
      for (const auto &t : summary.tensors)
        if (t.dequantized == t.name && agreement.count(t.name)) // a graph output
          llvm::outs() << "; output '" << t.name << "' " << decibels(agreement[t.name].sqnrDb())
                       << " dB, cosine " << llvm::formatv("{0:f5}", agreement[t.name].cosine());
      llvm::outs() << "\n";
    }
  }
  return kExitOk;
}

} // namespace onnxc
