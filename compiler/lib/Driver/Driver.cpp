//===- Driver.cpp - `onnxc MODEL -o DIR` -----------------------------------===//
#include "onnxc/Driver/Driver.h"

#include "Boards.h"
#include "Calibration.h"
#include "Ecosystem.h"
#include "Firmware.h"
#include "Files.h"
#include "Generate.h"
#include "Report.h"
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
  if (!o.blockFusion)
    s += " --no-block-fusion";
  if (o.precision != "fp32")
    s += " --precision " + o.precision;
  if (!o.convWeights.empty())
    s += " --conv-weights " + o.convWeights;
  if (!o.convLayout.empty())
    s += " --conv-layout " + o.convLayout;
  if (o.profile)
    s += " --profile";
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
    if (q.ioInteger)
      s += " --io int" + std::to_string(q.ioBits);
    if (q.int16Fallback)
      s += " --quantize-fallback int16";
    for (size_t i = 0; i < q.int16Layers.size(); ++i)
      s += (i ? "," : " --quantize-int16 ") + q.int16Layers[i];
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

int compileModel(const CompileOptions &o) {
  std::string name = o.name.empty() ? defaultName(o.modelPath) : o.name;
  if (!isIdentifier(name)) {
    llvm::errs() << "onnxc: error: --name '" << name
                 << "' is not a C identifier of the model's own (letters, digits and '_', "
                 << "not a keyword, std or onnxc_rt, not starting with a digit or '_')\n";
    return kExitUsage;
  }
  // --board: the board's core is the target.
  std::vector<Board> boards;
  const Board *board = nullptr;
  std::string targetName = o.target;
  if (!o.board.empty()) {
    std::string error;
    if (!loadBoards(boards, error) || !(board = findBoard(boards, o.board, error))) {
      llvm::errs() << "onnxc: error: --board: " << error << "\n";
      return kExitUsage;
    }
    if (o.targetGiven && o.target != board->core) {
      llvm::errs() << "onnxc: error: --board " << o.board << " is a " << board->core
                   << " board; --target " << o.target << " names another core (leave --target "
                   << "out: --board implies it)\n";
      return kExitUsage;
    }
    targetName = board->core;
  }
  std::unique_ptr<Target> variant; // --cuda-arch
  std::string targetError;
  const Target *target = selectTarget(targetName, o.cudaArch, variant, targetError);
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
  if (o.emit != "cpp" && o.emit != "lib" && o.emit != "mlir" && o.emit != "qdq-onnx" &&
      o.emit != "firmware" && o.emit != "zephyr" && o.emit != "arduino") {
    llvm::errs() << "onnxc: error: --emit must be cpp, lib, mlir, qdq-onnx, firmware, zephyr or "
                    "arduino\n";
    return 2;
  }
  const bool firmware = o.emit == "firmware";
  // A project or package around the model: its files go where the layout says.
  const bool ecosystem = o.emit == "zephyr" || o.emit == "arduino";
  const bool packaged = firmware || ecosystem;
  if (firmware && !board) {
    llvm::errs() << "onnxc: error: --emit firmware needs --board (see --list-boards)\n";
    return kExitUsage;
  }
  if (firmware && !board->noFirmware.empty()) {
    llvm::errs() << "onnxc: error: --emit firmware does not serve " << board->name << ": "
                 << board->noFirmware << "\n";
    return kExitUsage;
  }
  if ((o.report || o.ramBudget >= 0 || o.flashBudget >= 0 || board) && o.emit != "cpp" &&
      o.emit != "lib" && !packaged) {
    llvm::errs() << "onnxc: error: --report, --ram-budget, --flash-budget and --board need "
                    "--emit cpp, lib, firmware, zephyr or arduino\n";
    return kExitUsage;
  }
  if (o.quantize.enabled() && !o.quantize.knownKind()) {
    llvm::errs() << "onnxc: error: --quantize takes int8 or int16x8\n";
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
    if (board)
      provenance.options += " --board " + board->name;
    g = generateModel(ctx, modelPath, name, import, *target, o, o.emit == "mlir", provenance);
    if (failed(g))
      return diagnostics.failureCode();
  }
  if (packaged) {
    if (std::string problem =
            firmware ? firmwareProblem(*board, *g) : ecosystemProblem(o.emit, *target, *g);
        !problem.empty()) {
      llvm::errs() << "onnxc: error: " << problem << "\n";
      return kExitUsage;
    }
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
  // Whether --ram-budget made the Cortex-M convolutions NCHW throughout.
  bool convLayoutByRule = false;
  bool ok;
  // The footprint is measured for --report, the budgets and a board's fit.
  const bool measure = o.report || o.ramBudget >= 0 || o.flashBudget >= 0 || board;
  // --emit firmware: the model's files go to model/ in the project.
  // --emit zephyr / arduino: measured in a folder of their own, then laid out.
  std::string modelStage(stage);
  if (packaged) {
    modelStage = joinPath(std::string(stage), firmware ? "model" : ".model");
    llvm::sys::fs::create_directories(modelStage);
  }
  Placement placement;
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
    ok = writeModelFiles(*g, modelStage, name, files, error);
    if (ok && measure) {
      ok = measureFootprint(*target, modelStage, name, g->files.sourceExtension,
                            footprint, error);
      if (ok)
        error = budgetProblem(o, *target, name, g->summary, footprint);
      // A target rule's second try: the model generated again with
      // `changed` options, written and measured again.
      CompileOptions effective = o;
      auto regenerate = [&](const CompileOptions &changed) -> LogicalResult {
        Provenance provenance;
        provenance.modelSha256 = sha256OfFile(o.modelPath);
        provenance.options = canonicalOptions(changed, *target, name);
        if (board)
          provenance.options += " --board " + board->name;
        FailureOr<GeneratedModel> retry =
            generateModel(ctx, modelPath, name, import, *target, changed, false, provenance);
        if (failed(retry))
          return failure();
        g = std::move(retry);
        effective = changed;
        files.clear();
        error.clear();
        footprint = Footprint();
        ok = writeModelFiles(*g, modelStage, name, files, error) &&
             measureFootprint(*target, modelStage, name, g->files.sourceExtension,
                              footprint, error);
        if (ok)
          error = budgetProblem(changed, *target, name, g->summary, footprint);
        return success();
      };
      auto giveUp = [&] {
        llvm::sys::fs::remove_directories(stage);
        if (createdOut)
          llvm::sys::fs::remove_directories(o.outDir);
        return diagnostics.failureCode();
      };
      // The flash/speed rule of the SMLAD cores' convolutions: int16 pairs
      // unless --flash-budget is not met so, then int8 weights (half their
      // flash, a third more instructions in the inner loop).
      if (ok && !error.empty() && o.flashBudget >= 0 &&
          g->summary.weightBytes + footprint.codeBytes > o.flashBudget &&
          o.convWeights.empty() && !convWeights.empty() && convWeights != "int8") {
        CompileOptions int8 = effective;
        int8.convWeights = "int8";
        if (failed(regenerate(int8)))
          return giveUp();
        convWeights = "int8";
        convWeightsByRule = true;
      }
      // The RAM rule of the Cortex-M convolutions' NHWC regions: where
      // --ram-budget is not met with them, NCHW throughout (no transposed
      // copies at the regions' edges in the arena; more instructions).
      const std::string defaultLayout = target->optionValue(onnx::TargetAttr(), "conv-layout");
      if (ok && !error.empty() && o.ramBudget >= 0 &&
          ramBytes(g->summary, footprint) > o.ramBudget && o.convLayout.empty() &&
          !defaultLayout.empty() && defaultLayout != "nchw") {
        CompileOptions nchw = effective;
        nchw.convLayout = "nchw";
        if (failed(regenerate(nchw)))
          return giveUp();
        convLayoutByRule = true;
      }
      ok = ok && error.empty();
    }
    llvm::sys::fs::remove_directories(joinPath(modelStage, ".footprint"));
    if (ok && board) {
      placement = placeOnBoard(*board, name, g->summary, footprint, g->iface, firmware);
      error = placement.problem;
      ok = error.empty();
    }
    if (ok && ecosystem) {
      llvm::sys::fs::remove_directories(modelStage);
      files.clear();
      ok = o.emit == "zephyr"
               ? writeZephyrModule(*target, *g, name, std::string(stage), files, error)
               : writeArduinoLibrary(*target, *g, name, std::string(stage), files, error);
    }
    if (ok && firmware) {
      for (std::string &f : files)
        f = "model/" + f;
      ok = writeFirmwareProject(*board, *target, *g, name, placement, std::string(stage), files,
                                error);
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
      llvm::sys::fs::create_directories(llvm::sys::path::parent_path(to));
      if (std::error_code ec = llvm::sys::fs::rename(from, to)) {
        error = "cannot move '" + f + "' into '" + o.outDir + "': " + ec.message();
        ok = false;
        break;
      }
    }
  }
  llvm::sys::fs::remove_directories(stage);
  if (ok && !o.depfile.empty()) {
    // The rule's target: the header (in a project or package, where it lies).
    llvm::SmallString<256> header(o.outDir);
    auto isHeader = [&](const std::string &f) {
      return llvm::sys::path::filename(f) == name + ".h";
    };
    auto it = std::find_if(files.begin(), files.end(), isHeader);
    llvm::sys::path::append(header, it != files.end() ? *it : files.front());
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
    llvm::outs() << "onnxc: wrote the " << o.quantize.kind << " QDQ model " << p << "\n";
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
                   << " convolutions and matrix products on integer kernels";
      if (s.int16Ops)
        llvm::outs() << " (" << s.int16Ops << " integer ops on int16 activations)";
      llvm::outs() << (floats ? "; quantized but in float:\n" : "\n");
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
    if (measure) {
      printFootprint(s, footprint);
      if (board)
        printPlacement(*board, placement);
      if (!convWeights.empty())
        llvm::outs() << "  int8     convolution weights "
                     << (convWeights == "int8"
                             ? (convWeightsByRule || o.convWeights == "int8"
                                    ? std::string("int8, widened by SXTB16 in the inner loop (") +
                                          (convWeightsByRule
                                               ? "the int16 pairs missed --flash-budget"
                                               : "--conv-weights int8") +
                                          ")"
                                    : "int8 (the default on " + target->name() +
                                          ": without the DSP extension each weight byte is "
                                          "multiplied as it is, faster than int16 pairs)")
                             : std::string("int16 pairs for SMLAD (--conv-weights int8: "
                                           "half their flash, slower)"))
                     << "\n";
      if (convLayoutByRule)
        llvm::outs() << "  int8     convolutions NCHW throughout (with the NHWC regions' "
                        "transposed copies the arena missed --ram-budget)\n";
    }
    llvm::outs() << "  compute  " << s.flops << " FLOPs per run\n  files   ";
    if (firmware) // the project, not its hundred runtime headers
      llvm::outs() << " " << o.outDir << ": CMakeLists.txt, README.md, board.ld, main.c, model/"
                   << name << ".h, ... (" << files.size() << " files)\n";
    else if (o.emit == "zephyr")
      llvm::outs() << " " << o.outDir << ": zephyr/module.yml, zephyr/Kconfig, "
                   << "zephyr/CMakeLists.txt, src/" << name << ".h, ... (" << files.size()
                   << " files)\n";
    else if (o.emit == "arduino")
      llvm::outs() << " " << o.outDir << "/" << name << ": library.properties, src/" << name
                   << ".h, examples/" << name << "_demo/" << name << "_demo.ino, ... ("
                   << files.size() << " files)\n";
    for (const std::string &f : packaged ? std::vector<std::string>() : files) {
      llvm::SmallString<256> p(o.outDir);
      llvm::sys::path::append(p, f);
      llvm::outs() << " " << p;
    }
    if (!packaged)
      llvm::outs() << "\n";
  }
  return 0;
}

int listBoards() {
  std::vector<Board> boards;
  std::string error;
  if (!loadBoards(boards, error)) {
    llvm::errs() << "onnxc: error: " << error << "\n";
    return kExitError;
  }
  printBoards(boards);
  return 0;
}

} // namespace onnxc
