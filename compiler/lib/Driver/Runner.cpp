//===- Runner.cpp - `onnxc run`: compile for the host, run on .pb tensors ===//
#include "onnxc/Driver/Driver.h"

#include "Calibration.h"
#include "Files.h"
#include "Generate.h"
#include "Report.h"
#include "HostModel.h"
#include "RunInputs.h"
#include "onnxc/Codegen/BoundedDims.h"
#include "Toolchain.h"
#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Dialect/ONNX/ONNXTypes.h"
#include "onnxc/Import/TensorProtoIO.h"
#include "onnxc/Lowering/Target.h"
#include "onnxc_rt/threads.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <optional>

using namespace mlir;

namespace onnxc {


HostModel::~HostModel() {
  if (handle_)
    dlclose(handle_);
}

bool HostModel::load(const Target &target, const GeneratedModel &g, const std::string &dir,
                     std::string &error, bool useCache) {
  if (!buildSharedLibrary(target, dir, "model", g.files.sourceExtension, error,
                          useCache ? &fromCache_ : nullptr))
    return false;
  handle_ = dlopen(joinPath(dir, "model.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    error = std::string("cannot load the compiled model: ") + dlerror();
    return false;
  }
  void *entry = dlsym(handle_, "model_run_v_on");
  if (!entry) {
    error = "the compiled model has no model_run_v_on";
    return false;
  }
  if (g.iface.boundedDims.empty())
    runOn_ = reinterpret_cast<RunOnFn>(entry);
  else
    runOnDims_ = reinterpret_cast<RunOnDimsFn>(entry);
  return true;
}

int HostModel::run(const void *const *inputs, void *const *outputs, void *arena,
                   onnxc_rt::TaskRunner *threads, const int64_t *dims) const {
  return runOnDims_ ? runOnDims_(dims, inputs, outputs, arena, threads)
                    : runOn_(inputs, outputs, arena, threads);
}

namespace {


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

/// Runs the model loaded in this process (host targets) on `arena`: once,
/// then `o.repeat` timed runs. `model` stays loaded: output strings may
/// point into its read-only data.
bool runInProcess(const GeneratedModel &g, const std::vector<std::vector<char>> &inBytes,
                  const std::vector<void *> &outPtrs, void *arena, const HostModel &model,
                  const RunOptions &o, const std::vector<int64_t> &dims, std::string &error) {
  onnxc_rt::ThreadPool pool(o.threads); // the caller's thread plus threads - 1 workers
  onnxc_rt::TaskRunner *runner = o.threads > 1 ? &pool : nullptr; // what the model expects
  std::vector<const void *> inPtrs;
  for (const auto &b : inBytes)
    inPtrs.push_back(b.data());
  auto run = [&] { return model.run(inPtrs.data(), outPtrs.data(), arena, runner, dims.data()); };

  int rc = run();
  if (rc == 0 && o.repeat > 0) {
    std::vector<double> us;
    for (int i = 0; i < o.repeat; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      run();
      auto t1 = std::chrono::steady_clock::now();
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    std::sort(us.begin(), us.end());
    double median = us[us.size() / 2];
    double p99 = us[std::min(us.size() - 1, (size_t)std::ceil(us.size() * 0.99) - 1)];
    llvm::outs() << llvm::format("onnxc: latency over %d runs: median %.1f us, p99 %.1f us\n",
                                 o.repeat, median, p99);
  }
  if (rc != 0)
    error = "the model returned " + std::to_string(rc);
  return rc == 0;
}

/// A C string literal holding `s` (paths of the program's files).
std::string cString(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

/// The `main` of a program that runs the model once on inputs read from
/// `inFiles` and writes its outputs to `outFiles` (raw bytes), through the C
/// library: the host's system calls under a user-mode emulator, semihosting
/// on bare metal. Buffers and the arena are static: no heap.
/// With `runsFile`, the number of runs is read from that file (a decimal
/// number; --count-instructions runs the same program 1 and 1 + N times).
std::string emulatedMain(const ModelInterface &m, const RunProgramCalls &calls,
                         const std::vector<std::string> &inFiles,
                         const std::vector<std::string> &outFiles, const std::string &runsFile,
                         const std::vector<int64_t> &dims) {
  std::string s = "// Generated by onnxc run: runs the model on files.\n"
                  "#include \"model.h\"\n#include <cstdio>\n\n";
  if (!m.boundedDims.empty()) { // the sizes of this run's bounded dims
    s += "static const int64_t dims[] = {";
    for (size_t i = 0; i < dims.size(); ++i)
      s += (i ? ", " : "") + std::to_string(dims[i]);
    s += "};\n";
  }
  auto buffer = [&](const std::string &name, int64_t bytes) {
    s += "alignas(64) static unsigned char " + name + "[" +
         std::to_string(std::max<int64_t>(bytes, 1)) + "];\n";
  };
  if (calls.hostArena)
    buffer("arena", m.arenaBytes);
  for (size_t i = 0; i < m.inputs.size(); ++i)
    buffer("in" + std::to_string(i), m.inputs[i].bytes);
  for (size_t i = 0; i < m.outputs.size(); ++i)
    buffer("out" + std::to_string(i), m.outputs[i].bytes);
  s += R"(
static bool transfer(const char *path, unsigned char *data, unsigned long bytes, bool write) {
  std::FILE *f = std::fopen(path, write ? "wb" : "rb");
  if (!f) {
    std::printf("onnxc-run: cannot open %s\n", path);
    return false;
  }
  unsigned long done = bytes ? (write ? std::fwrite(data, 1, bytes, f) : std::fread(data, 1, bytes, f)) : 0;
  bool ok = std::fclose(f) == 0 && done == bytes;
  if (!ok)
    std::printf("onnxc-run: cannot %s %lu bytes of %s\n", write ? "write" : "read", bytes, path);
  return ok;
}

int main() {
)";
  std::string ins, outsList;
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    s += "  if (!transfer(" + cString(inFiles[i]) + ", in" + std::to_string(i) + ", " +
         std::to_string(m.inputs[i].bytes) + ", false))\n    return 2;\n";
    ins += "in" + std::to_string(i) + ", ";
  }
  for (size_t i = 0; i < m.outputs.size(); ++i)
    outsList += "out" + std::to_string(i) + ", ";
  s += "  const void *const inputs[] = {" + ins + "nullptr};\n"
       "  void *const outputs[] = {" + outsList + "nullptr};\n"
       "  int runs = 1;\n";
  if (!runsFile.empty())
    s += "  if (std::FILE *f = std::fopen(" + cString(runsFile) + ", \"r\")) {\n"
         "    if (std::fscanf(f, \"%d\", &runs) != 1)\n      runs = 1;\n"
         "    std::fclose(f);\n  }\n";
  s += calls.setup;
  s += "  for (int i = 0; i < runs; ++i) {\n"
       "    int rc = " + calls.run + ";\n"
       "    if (rc != 0) {\n";
  if (calls.error.empty())
    s += "      std::printf(\"onnxc-run: the model returned %d\\n\", rc);\n";
  else
    s += "      std::printf(\"onnxc-run: the model returned %d: %s\\n\", rc, " + calls.error +
         ");\n";
  s += "      return 3;\n    }\n  }\n";
  s += calls.teardown;
  for (size_t i = 0; i < m.outputs.size(); ++i)
    s += "  if (!transfer(" + cString(outFiles[i]) + ", out" + std::to_string(i) + ", " +
         std::to_string(m.outputs[i].bytes) + ", true))\n    return 2;\n";
  s += "  std::printf(\"onnxc-run: done\\n\");\n  return 0;\n}\n";
  return s;
}

/// The flags of `onnxc run --sanitize`: any finding stops the program.
static const std::vector<std::string> kSanitizerFlags = {
    "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g",
    "-O1"}; // -O3 with both sanitizers takes minutes per model

/// Builds a program around the model and runs it, under the target's
/// emulator (Target::emulated) or, for a host target with --sanitize,
/// directly with AddressSanitizer and UBSan; inputs and outputs travel as
/// files.
/// Why the model cannot fit the board `target`'s programs run on, or ""
/// when it can (or the board's memory is not known): checked before
/// anything is built, with the figures, rather than left to the linker.
std::string boardFitProblem(const Target &target, const GeneratedModel &g) {
  if (!target.emulated || target.emulated->memory.ram <= 0)
    return "";
  const EmulatedRunner::Memory &m = target.emulated->memory;
  auto list = [](const std::vector<CompileSummary::NodeBytes> &nodes) {
    std::string out;
    for (const auto &n : nodes)
      out += (out.empty() ? "" : ", ") + ("node '" + n.node + "' " + std::to_string(n.bytes) +
                                           " bytes" + (n.scratch ? " (its scratch)" : ""));
    return out;
  };
  int64_t io = 0; // the program's static input and output buffers
  for (const auto *tensors : {&g.iface.inputs, &g.iface.outputs})
    for (const TensorInterface &t : *tensors)
      io += t.bytes;
  const int64_t ram = g.iface.arenaBytes + io + m.reservedRam;
  std::string problem;
  if (g.summary.weightBytes > m.weightsRegion)
    problem += "its weights need " + std::to_string(g.summary.weightBytes) + " bytes, over the " +
               std::to_string(m.weightsRegion) + " the board has for them by " +
               std::to_string(g.summary.weightBytes - m.weightsRegion) +
               " (the largest: " + list(g.summary.largestWeights) + ")";
  if (ram > m.ram)
    problem += (problem.empty() ? "" : "; ") + ("it needs " + std::to_string(ram) +
               " bytes of RAM (arena " + std::to_string(g.iface.arenaBytes) +
               " + inputs and outputs " + std::to_string(io) + " + the board's stack and heap " +
               std::to_string(m.reservedRam) + "), over the board's " + std::to_string(m.ram) +
               " by " + std::to_string(ram - m.ram) + " (the largest tensors in the arena: " +
               list(g.summary.largestArenaTensors) + ")");
  if (problem.empty())
    return "";
  return "the model does not fit " + m.board + ", the board `onnxc run --target " +
         target.name() + "` runs it on: " + problem + "; nothing was built";
}

bool runAsProgram(const Target &target, const GeneratedModel &g, const std::string &dir,
                  const std::vector<std::vector<char>> &inBytes,
                  const std::vector<void *> &outPtrs, const RunOptions &o,
                  const std::vector<int64_t> &dims, std::string &error) {
  if (error = boardFitProblem(target, g); !error.empty())
    return false;
  // The program's buffers hold this run's sizes (bounded dims: at most the bounds).
  ModelInterface sized = g.iface;
  for (size_t i = 0; i < sized.inputs.size(); ++i)
    sized.inputs[i].bytes = inBytes[i].size();
  for (TensorInterface &t : sized.outputs)
    if (t.sized()) {
      int64_t n = elementByteSize(t.elementType);
      for (int64_t d : t.shapeAt(dims))
        n *= d;
      t.bytes = n;
    }
  std::vector<std::string> inFiles, outFiles;
  for (size_t i = 0; i < inBytes.size(); ++i) {
    inFiles.push_back(joinPath(dir, "input_" + std::to_string(i) + ".bin"));
    std::error_code ec;
    llvm::raw_fd_ostream os(inFiles.back(), ec);
    os.write(inBytes[i].data(), inBytes[i].size());
    if (ec || (os.close(), os.has_error())) {
      error = "cannot write '" + inFiles.back() + "'";
      return false;
    }
  }
  for (size_t i = 0; i < outPtrs.size(); ++i)
    outFiles.push_back(joinPath(dir, "output_" + std::to_string(i) + ".bin"));
  {
    const ModelEmitter &emitter = target.emitter() ? *target.emitter() : cppModelEmitter();
    std::error_code ec;
    llvm::raw_fd_ostream os(joinPath(dir, "run_main.cpp"), ec);
    os << emulatedMain(sized, emitter.runProgramCalls(g.iface), inFiles, outFiles,
                       o.countInstructions ? joinPath(dir, "runs.txt") : std::string(), dims);
  }
  bool sanitized = o.sanitize && !target.emulated;
  if (!buildModelProgram(target, dir, "model", g.files.sourceExtension, "run_main.cpp",
                         "model.elf", sanitized ? kSanitizerFlags : std::vector<std::string>{},
                         o.useCache, error)) {
    // The code itself pushed it over (the weights and arena fit, above).
    if (size_t at = error.find("overflowed by"); at != std::string::npos && target.emulated &&
                                                 !target.emulated->memory.board.empty()) {
      size_t line = error.rfind('\n', at);
      error = "the model's code and data do not fit " + target.emulated->memory.board +
              ", the board `onnxc run --target " + target.name() + "` runs it on (the linker: " +
              error.substr(line == std::string::npos ? 0 : line + 1,
                           error.find('\n', at) - (line == std::string::npos ? 0 : line + 1)) +
              ")";
    }
    return false;
  }
  // An empty emulator: the program runs here, on the device it drives.
  const bool direct = sanitized || target.emulated->emulator.empty();
  std::string runner = sanitized ? "AddressSanitizer and UBSan"
                       : direct  ? "the " + target.name() + " device"
                                 : target.emulated->emulator;
  std::string program = joinPath(dir, "model.elf");
  std::vector<std::string> args;
  if (!direct) {
    args = target.emulated->args;
    args.push_back(program);
    program = target.emulated->emulator;
  }
  // One run of the program with `runs` model runs; with a plugin, the
  // instructions it executed in all.
  auto runOnce = [&](int runs, const std::string &plugin, uint64_t *executed) {
    std::vector<std::string> runArgs = args;
    std::string counted = joinPath(dir, "instructions.txt");
    if (!plugin.empty()) {
      llvm::sys::fs::remove(counted);
      std::error_code ec;
      llvm::raw_fd_ostream os(joinPath(dir, "runs.txt"), ec);
      os << runs << "\n";
      runArgs.insert(runArgs.begin(), {"-plugin", plugin + ",outfile=" + counted});
    }
    std::string output;
    if (!runProgram(program, runArgs, error, &output, kEmulatorTimeoutSeconds))
      return false;
    if (output.find("onnxc-run: done") == std::string::npos ||
        output.find("runtime error:") != std::string::npos) {
      error = "the program did not finish cleanly under " + runner + ":\n" + output;
      return false;
    }
    if (plugin.empty())
      return true;
    auto text = llvm::MemoryBuffer::getFile(counted);
    llvm::StringRef line = text ? (*text)->getBuffer().trim() : "";
    if (!line.consume_front("onnxc-instructions: ") || line.getAsInteger(10, *executed)) {
      error = "the instruction-counting plugin wrote no count under " + runner;
      return false;
    }
    return true;
  };
  if (!o.countInstructions) {
    if (!runOnce(1, "", nullptr))
      return false;
  } else {
    std::string plugin = buildInstructionCounter(dir, error);
    if (plugin.empty())
      return false;
    // Start-up, file I/O and exit cancel out: ((1 + N) runs - 1 run) / N.
    const int n = o.repeat > 0 ? o.repeat : 4;
    uint64_t one = 0, many = 0;
    if (!runOnce(1, plugin, &one) || !runOnce(1 + n, plugin, &many))
      return false;
    if (many < one) {
      error = "the instruction counts make no sense (" + std::to_string(one) + " for 1 run, " +
              std::to_string(many) + " for " + std::to_string(1 + n) + ")";
      return false;
    }
    llvm::outs() << llvm::format(
        "onnxc: instructions per inference: %llu (under %s, ((1 + %d) runs - 1 run) / %d)\n",
        (unsigned long long)((many - one + n / 2) / n), runner.c_str(), n, n);
  }
  for (size_t i = 0; i < outPtrs.size(); ++i) {
    auto buf = llvm::MemoryBuffer::getFile(outFiles[i]);
    if (!buf || (int64_t)(*buf)->getBufferSize() != sized.outputs[i].bytes) {
      error = "the program under " + runner + " wrote no complete '" + outFiles[i] + "'";
      return false;
    }
    std::memcpy(outPtrs[i], (*buf)->getBufferStart(), (*buf)->getBufferSize());
  }
  if (o.repeat > 0 && !o.countInstructions)
    llvm::outs() << "onnxc: --repeat: not timed under " << runner
                 << " (an emulator's time says nothing of the target's)\n";
  return true;
}

} // namespace

std::vector<std::string> inputSets(const std::string &dir, std::string &error) {
  if (!llvm::sys::fs::is_directory(dir)) {
    error = "the inputs folder '" + dir + "' does not exist or is not a folder";
    return {};
  }
  std::vector<std::string> folders;
  bool files = false;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    if (llvm::sys::fs::is_directory(it->path()))
      folders.push_back(it->path());
    else if (llvm::StringRef(it->path()).ends_with(".pb") ||
             llvm::StringRef(it->path()).ends_with(".npy"))
      files = true;
  }
  if (ec) {
    error = "cannot read the inputs folder '" + dir + "': " + ec.message();
    return {};
  }
  if (files)
    return {dir};
  if (folders.empty()) {
    error = "the inputs folder '" + dir + "' holds no inputs: input_0.pb, ... (ONNX "
            "TensorProto files), NAME.pb or NAME.npy named after the model's inputs, or "
            "one sub-folder of those per input set (test_data_set_0, ...)";
    return {};
  }
  std::sort(folders.begin(), folders.end());
  return folders;
}

namespace {
/// What a compiled model was compiled for: runs of sets with the same shapes
/// and shape-deciding values share one compile.
bool sameCompile(const ImportOptions &a, const ImportOptions &b) {
  if (a.positionalShapes != b.positionalShapes ||
      a.positionalBound.size() != b.positionalBound.size() ||
      a.compositeInputs.size() != b.compositeInputs.size())
    return false;
  for (size_t i = 0; i < a.positionalBound.size(); ++i)
    if (a.positionalBound[i] != b.positionalBound[i])
      return false;
  for (const auto &[pos, c] : a.compositeInputs) {
    auto it = b.compositeInputs.find(pos);
    if (it == b.compositeInputs.end() || it->second.present != c.present ||
        it->second.elementShapes != c.elementShapes)
      return false;
  }
  return true;
}
} // namespace

int readInputSet(MLIRContext &ctx, const std::string &dir, const std::string &modelPath,
                 const std::vector<GraphInputKind> &kinds, const ImportOptions &base, bool bounded,
                 InputSet &set) {
  set.import = base;
  for (size_t i = 0; i < kinds.size(); ++i) {
    const bool isOpt = kinds[i].isOptional, isSeq = kinds[i].isSequence;
    std::string path = joinPath(dir, "input_" + std::to_string(i) + ".pb");
    if (!llvm::sys::fs::exists(path) && !isOpt && !isSeq)
      for (const char *ext : {".pb", ".npy"})
        if (std::string named = joinPath(dir, inputFileName(kinds[i].name) + ext);
            llvm::sys::fs::exists(named)) {
          path = named;
          break;
        }
    if (!llvm::sys::fs::exists(path)) {
      fail("the input set '" + dir + "' has no file for input '" + kinds[i].name +
           "' (expected input_" + std::to_string(i) + ".pb" +
           (isOpt || isSeq ? std::string()
                           : ", " + inputFileName(kinds[i].name) + ".pb or " +
                                 inputFileName(kinds[i].name) + ".npy") +
           ")");
      return kExitError;
    }
    std::string error;
    ValueFile v;
    if (llvm::StringRef(path).ends_with(".npy")) {
      DenseElementsAttr t = readNpyFile(ctx, path, error);
      if (!t) {
        fail(error.find(path) == std::string::npos ? "'" + path + "': " + error : error);
        return kExitError;
      }
      v.tensors.push_back(t);
    } else if (failed(readValueFile(ctx, path, isOpt, isSeq, v, error))) {
      fail(error.find(path) == std::string::npos ? "'" + path + "': " + error : error);
      return error.find("not supported") != std::string::npos ? kExitUnsupported : kExitError;
    }
    set.inputs.insert(set.inputs.end(), v.tensors.begin(), v.tensors.end());
    if (isOpt || isSeq) {
      CompositeInput c;
      c.isOptional = isOpt;
      c.isSequence = isSeq;
      c.present = v.present;
      for (DenseElementsAttr t : v.tensors) {
        auto s = t.getType().getShape();
        c.elementShapes.emplace_back(s.begin(), s.end());
      }
      set.import.compositeInputs[i] = c;
      set.import.positionalShapes.emplace_back();
      set.plainInputs.push_back(nullptr);
      continue;
    }
    set.plainInputs.push_back(v.tensors.front());
    auto shape = v.tensors.front().getType().getShape();
    set.import.positionalShapes.emplace_back(shape.begin(), shape.end());
  }
  // Bounded dims: one build serves every size in the bounds (--dim fixes
  // the other dims), so the files' shapes are not compiled in.
  if (bounded)
    set.import.positionalShapes.clear();
  // Inputs whose values decide shapes are compiled in, as their shapes are.
  for (size_t pos : shapeDecidingInputs(modelPath))
    if (pos < set.plainInputs.size() && set.plainInputs[pos]) {
      set.import.positionalBound.resize(set.plainInputs.size());
      set.import.positionalBound[pos] = set.plainInputs[pos];
    }
  return kExitOk;
}

/// Writes one output_K.pb per graph output into `dir`: sequences and
/// optionals packed from their results, data-dependent sizes cut to what
/// the run produced. Returns the exit code.
static int writeOutputs(const GeneratedModel &g, const std::vector<void *> &outPtrs,
                        const std::vector<int64_t> &dims, const std::string &dir) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return fail("cannot create '" + dir + "': " + ec.message());
  std::string error;
  for (size_t k = 0; k < g.iface.graphOutputs.size(); ++k) {
    const GraphOutput &go = g.iface.graphOutputs[k];
    std::vector<ShapedType> types;
    std::vector<llvm::ArrayRef<char>> raws;
    for (int64_t r = go.firstResult; r < go.firstResult + go.count; ++r) {
      const TensorInterface &t = g.iface.outputs[r];
      std::vector<int64_t> shape = t.shape;
      int64_t bytes = t.bytes;
      if (t.sized()) { // bounded dims: this run's sizes
        shape = t.shapeAt(dims);
        bytes = elementByteSize(t.elementType);
        for (int64_t d : shape)
          bytes *= d;
      }
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
    if (failed(writeValueFile(joinPath(dir, "output_" + std::to_string(k) + ".pb"), go.name,
                              isOpt, isSeq, go.present, types, raws, error)))
      return fail(error);
  }
  return kExitOk;
}

int runModel(const RunOptions &o) {
  std::unique_ptr<Target> variant; // --cuda-arch
  std::string targetError;
  const Target *target = selectTarget(o.target, o.cudaArch, variant, targetError);
  if (!target)
    return fail(targetError);
  if (o.sanitize && !(target->hostCode && target->runsHere()))
    return fail("--sanitize runs host targets this CPU executes (generic, x86-64*), not '" +
                target->name() + "'");
  // --sanitize: a program of its own, built with the sanitizers.
  bool inProcess = target->hostCode && target->runsHere() && !o.sanitize;
  if (!inProcess && !o.sanitize && !target->emulated)
    return fail("target '" + target->name() + "' cannot run on this machine (" +
                (target->hostCode ? "this CPU lacks its instruction set"
                                  : "onnxc run has no emulator for it") +
                ")");
  if (!inProcess && !o.sanitize) {
    const EmulatedRunner &e = *target->emulated;
    if (!e.emulator.empty() && !llvm::sys::findProgramByName(e.emulator))
      return fail("target '" + target->name() + "' runs under " + e.emulator +
                  ", which is not installed (Debian: apt-get install " + e.package + ")");
    if (!llvm::sys::findProgramByName(targetCompiler(*target)))
      return fail("target '" + target->name() + "' is built with " + targetCompiler(*target) +
                  ", which is not installed" +
                  (e.emulator.empty() ? " (Debian: apt-get install " + e.package + ")"
                                      : std::string()));
  }
  if (o.countInstructions && (inProcess || o.sanitize || !target->emulated->qemuPlugins))
    return fail("--count-instructions counts under QEMU: targets run in an emulator "
                "(cortex-m*, aarch64), not '" + target->name() + "'" +
                (o.sanitize ? " with --sanitize" : ""));
  if (std::string problem = threadsProblem(*target, o.threads); !problem.empty())
    return fail(problem);
  if (std::string problem = targetOptionsProblem(*target, o); !problem.empty())
    return fail(problem);
  std::string setsError;
  const std::vector<std::string> sets = inputSets(o.inputsDir, setsError);
  if (sets.empty())
    return fail(setsError);

  // --quantize: what runs is the model's QDQ form.
  std::string modelPath = o.modelPath;
  ScopedTempDir qdqDir;
  if (o.quantize.enabled()) {
    if (!o.quantize.knownKind())
      return fail("--quantize takes int8 or int16x8");
    if (!qdqDir.create("onnxc-quantize"))
      return fail("cannot create a temporary directory");
    modelPath = qdqDir.file("model.qdq.onnx");
    if (int rc = quantizeModel(o.modelPath, o.import, o.quantize, modelPath,
                                 o.quiet))
      return rc;
  }

  MLIRContext ctx;
  DiagnosticPrinter diagnostics(ctx);
  const std::vector<GraphInputKind> kinds = graphInputKinds(modelPath);
  // One compile serves every set of the same shapes (and shape-deciding
  // values); a set of other shapes compiles again.
  std::optional<ImportOptions> compiledFor;
  FailureOr<GeneratedModel> g = failure();
  llvm::SmallString<128> work;
  std::unique_ptr<HostModel> lib;
  bool built = false;
  auto cleanup = llvm::make_scope_exit([&] {
    if (!work.empty())
      llvm::sys::fs::remove_directories(work);
  });
  for (const std::string &setDir : sets) {
    // One set in the folder itself writes OUT/output_K.pb; several write
    // OUT/<set folder>/output_K.pb.
    const bool single = sets.size() == 1 && setDir == o.inputsDir;
    const std::string setName = single ? std::string()
                                       : llvm::sys::path::filename(setDir).str();
    const std::string outDir = single ? o.outputsDir : joinPath(o.outputsDir, setName);
    InputSet set;
    if (int rc = readInputSet(ctx, setDir, modelPath, kinds, o.import, !o.dimRanges.empty(),
                              set))
      return rc;
    if (!compiledFor || !sameCompile(*compiledFor, set.import)) {
      lib.reset(); // (unloads the previous shapes' library)
      g = generateModel(ctx, modelPath, "model", set.import, *target, o, /*mlirOnly=*/false);
      if (failed(g))
        return diagnostics.failureCode();
      compiledFor = set.import;
      built = false;
    }
    std::vector<DenseElementsAttr> &inputs = set.inputs;
    if (inputs.size() != g->iface.inputs.size()) // (parameters, sequences counted per element)
      return fail("the model has " + std::to_string(g->iface.inputs.size()) + " inputs but " +
                  setDir + " holds " + std::to_string(inputs.size()) + " (input_0.pb ...)");
    for (size_t i = 0; i < inputs.size(); ++i) {
      // ONNX's own test data (numpy has no bfloat16) stores bfloat16 tensors
      // as their uint16 bits: take them as such.
      Type want = g->iface.inputs[i].elementType, have = inputs[i].getElementType();
      if (want.isBF16() && have.isUnsignedInteger(16))
        inputs[i] = elementsFromRawBytes(inputs[i].getType().clone(want), rawBytesOf(inputs[i]));
      if (inputs[i].getElementType() != g->iface.inputs[i].elementType)
        return fail("input " + std::to_string(i) + " of '" + setDir + "' has element type " +
                    onnxTypeName(onnxFromElementType(inputs[i].getElementType())).str() +
                    " but input '" + g->iface.inputs[i].name + "' is " +
                    onnxTypeName(onnxFromElementType(g->iface.inputs[i].elementType)).str());
    }
    // Bounded dims: their sizes read off the inputs (a dim that is exactly
    // one of them), then every input checked against the shapes they give.
    std::vector<int64_t> dims(g->iface.boundedDims.size(), -1);
    for (size_t i = 0; i < g->iface.inputs.size(); ++i) {
      const TensorInterface &t = g->iface.inputs[i];
      for (size_t d = 0; d < t.dimPolys.size(); ++d)
        if (int j = exactDim(DimPoly(t.dimPolys[d].begin(), t.dimPolys[d].end())); j >= 0)
          dims[j] = inputs[i].getType().getShape()[d];
    }
    for (size_t j = 0; j < dims.size(); ++j) {
      const DimBound &b = g->iface.boundedDims[j];
      if (dims[j] < 0)
        return fail("no input of the model has dim '" + b.name +
                    "' as one of its dims, so onnxc run cannot read its size off the inputs");
      if (dims[j] < b.lo || dims[j] > b.hi)
        return fail("the inputs of '" + setDir + "' give " + b.name + " = " +
                    std::to_string(dims[j]) + ", outside the bounds " + std::to_string(b.lo) +
                    ".." + std::to_string(b.hi) + " the model was built for (--dim " + b.name +
                    "=" + std::to_string(b.lo) + ".." + std::to_string(b.hi) + ")");
    }
    if (!dims.empty())
      for (size_t i = 0; i < inputs.size(); ++i) {
        std::vector<int64_t> want = g->iface.inputs[i].shapeAt(dims);
        auto have = inputs[i].getType().getShape();
        if (std::vector<int64_t>(have.begin(), have.end()) != want) {
          std::string w;
          for (int64_t d : want)
            w += (w.empty() ? "" : "x") + std::to_string(d);
          return fail("input '" + g->iface.inputs[i].name + "' of '" + setDir +
                      "' does not have the shape the other inputs' sizes give it (" + w + ")");
        }
      }
    std::string elsewhere = o.sanitize ? "a sanitized program" : "a program under " +
                            (target->emulated ? target->emulated->emulator : std::string());
    if (!inProcess) // pointers cannot cross into another process
      for (const auto *list : {&g->iface.inputs, &g->iface.outputs})
        for (const TensorInterface &t : *list)
          if (isa<onnx::StringType>(t.elementType))
            return fail("string tensors ('" + t.name +
                        "') cannot be passed to or read back from " + elsewhere);
    std::vector<std::vector<char>> inBytes;
    for (DenseElementsAttr t : inputs)
      inBytes.push_back(rawBytesOf(t));
    std::vector<std::unique_ptr<AlignedBuffer>> outs;
    std::vector<void *> outPtrs;
    for (const TensorInterface &t : g->iface.outputs) {
      outs.push_back(std::make_unique<AlignedBuffer>(t.bytes));
      outPtrs.push_back(outs.back()->p);
    }
    std::string error;
    AlignedBuffer arena(g->iface.arenaBytes);
    bool ok = true;
    if (!built) {
      if (!work.empty())
        llvm::sys::fs::remove_directories(work);
      work.clear();
      if (llvm::sys::fs::createUniqueDirectory("onnxc-run", work))
        return fail("cannot create a temporary directory");
      std::vector<std::string> files;
      ok = writeModelFiles(*g, std::string(work), "model", files, error);
      if (ok && inProcess) {
        if (!o.quiet && llvm::sys::Process::StandardErrIsDisplayed())
          llvm::errs() << "onnxc: building the model's code with " << targetCompiler(*target)
                       << " ...\n";
        auto t0 = std::chrono::steady_clock::now();
        lib = std::make_unique<HostModel>();
        ok = lib->load(*target, *g, std::string(work), error, o.useCache);
        double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (ok && !o.quiet)
          llvm::outs() << (lib->fromCache()
                               ? std::string("onnxc: the model's library came from the build "
                                             "cache (") + buildCacheDir() + ")\n"
                               : llvm::formatv("onnxc: built the model's library in {0:f1} s{1}\n",
                                               seconds,
                                               o.useCache && !buildCacheDir().empty()
                                                   ? " (kept in the build cache)"
                                                   : "")
                                     .str());
      }
      built = ok;
    }
    ok = ok && (inProcess ? runInProcess(*g, inBytes, outPtrs, arena.p, *lib, o, dims, error)
                          : runAsProgram(*target, *g, std::string(work), inBytes, outPtrs, o,
                                         dims, error));
    // A device program that found no device says so ("onnxc-run: no device:",
    // the device emitter's runProgramCalls): exit 77, read as "skipped" by tests.
    if (size_t at = error.find("onnxc-run: no device: "); !ok && at != std::string::npos) {
      std::string why = error.substr(at + 22);
      fail("no device to run target '" + target->name() + "' on: " +
           why.substr(0, why.find('\n')));
      return kExitNoDevice;
    }
    if (!ok)
      return fail(single ? error : "input set '" + setName + "': " + error);
    if (int rc = writeOutputs(*g, outPtrs, dims, outDir))
      return rc;
    if (!o.quiet)
      llvm::outs() << "onnxc: wrote " << g->iface.graphOutputs.size() << " output(s) to "
                   << outDir << "\n";
  }
  if (!o.quiet)
    printControlFlowSummary(g->summary);
  if (o.quantize.enabled())
    return publishQuantizeReport(o.quantize, modelPath, o.quiet);
  return 0;
}

} // namespace onnxc
