//===- onnxc.cpp - the onnxc command line ----------------------------------===//
//
//   onnxc MODEL.onnx -o DIR [--target T] [--name N] [--emit cpp|lib|mlir]
//         [--threads N] [--no-winograd] [--no-block-fusion] [--shape input=1x3x224x224] [--dim batch=1]
//         [MLIR options]
//   onnxc run MODEL.onnx --inputs DIR --outputs DIR [--threads N] [--no-winograd]
//             [--repeat N]
//   onnxc MODEL.onnx --board B --emit firmware -o DIR
//   onnxc validate MODEL.onnx --board B (--port DEV | --qemu FIRMWARE.elf) --inputs DIR
//
//===----------------------------------------------------------------------===//
#include "onnxc/Driver/Driver.h"
#include "onnxc/Import/Importer.h"
#include "onnxc/Pipelines/Pipeline.h"
#include "onnxc/Lowering/Target.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::OptionCategory category("onnxc options");
static cl::SubCommand runCommand(
    "run", "Compile MODEL for this machine, run it on ONNX TensorProto inputs "
           "(input_0.pb, ...) and write output_0.pb, ...");

static cl::SubCommand validateCommand(
    "validate", "Run MODEL on a board's firmware (onnxc --board B --emit firmware, flashed and "
                "running on --port DEV, or run under QEMU with --qemu FIRMWARE.elf) on the input "
                "sets of --inputs DIR, and compare its outputs with this machine's build of the "
                "same model");
static cl::opt<std::string> modelPath(cl::Positional, cl::desc("<model.onnx>"),
                                      cl::sub(cl::SubCommand::getTopLevel()),
                                      cl::sub(runCommand), cl::sub(validateCommand),
                                      cl::cat(category));
static cl::opt<std::string> outDir("o", cl::desc("Directory for the generated files"),
                                   cl::value_desc("dir"), cl::cat(category));
static cl::opt<std::string> targetName(
    "target",
    cl::desc("Target to compile for (see --list-targets; native: the widest one this "
             "machine runs). Default: generic (portable C++); for `run`: native"),
    cl::sub(cl::SubCommand::getTopLevel()), cl::sub(runCommand), cl::cat(category));
static cl::opt<std::string> modelName(
    "name", cl::desc("Model name: NAME.h, NAME_run(), libNAME.a (default: file stem)"),
    cl::cat(category));
static cl::opt<std::string> emitKind(
    "emit", cl::desc("cpp: header, source, weights; lib: also libNAME.a; mlir: the "
                     "planned onnx IR; qdq-onnx (with --quantize): the int8 model as a "
                     "standard QDQ ONNX file, NAME.qdq.onnx; firmware (with --board): a "
                     "standalone CMake project (startup, linker script, UART console, the "
                     "model) serving runs over the UART, README.md in it; zephyr: a Zephyr "
                     "module (zephyr/module.yml, Kconfig, CMakeLists.txt, src/); arduino: an "
                     "Arduino library NAME/ (library.properties, src/, an example sketch)"),
    cl::init("cpp"), cl::cat(category));
static cl::opt<std::string> quantizeKind(
    "quantize",
    cl::desc("int8: static post-training quantization (TFLite/CMSIS-NN scheme: int8 "
             "activations per tensor from calibration, int8 weights per output channel, "
             "int32 biases); int16x8: the same with int16 activations (symmetric, TFLite's "
             "16x8 scheme: for models, such as audio ones, whose accuracy needs them); needs "
             "--calibration"),
    cl::sub(cl::SubCommand::getTopLevel()), cl::sub(runCommand),
    cl::sub(validateCommand), cl::cat(category));
static cl::opt<std::string> quantizeFallback(
    "quantize-fallback",
    cl::desc("What --quantize-error-budget does with a layer below the budget: float (default: "
             "float weights and arithmetic) or int16 (int16 activations, int8 weights; float "
             "if it stays below)"),
    cl::init("float"), cl::sub(cl::SubCommand::getTopLevel()), cl::sub(runCommand),
    cl::sub(validateCommand), cl::cat(category));
static cl::list<std::string> quantizeInt16(
    "quantize-int16",
    cl::desc("With --quantize int8: these nodes (by name or first output, comma-separated) "
             "get int16 activations, the rest int8; where the widths meet the activation is "
             "requantized"),
    cl::value_desc("NODE,..."), cl::CommaSeparated, cl::sub(cl::SubCommand::getTopLevel()),
    cl::sub(runCommand), cl::sub(validateCommand), cl::cat(category));
static cl::opt<std::string> calibrateMethod(
    "calibrate-method",
    cl::desc("How --quantize picks each activation's range: minmax (the observed extremes, "
             "default), percentile (clip (100 - P)% of the values on each side, "
             "--calibrate-percentile, 99.99) or entropy (the clipping threshold whose int8 "
             "histogram is closest to the float one in KL divergence, as TensorRT)"),
    cl::init("minmax"), cl::sub(cl::SubCommand::getTopLevel()), cl::sub(runCommand),
    cl::sub(validateCommand), cl::cat(category));
static cl::opt<double> calibratePercentile(
    "calibrate-percentile", cl::desc("Percentile for --calibrate-method percentile"),
    cl::init(99.99), cl::sub(cl::SubCommand::getTopLevel()), cl::sub(runCommand),
    cl::sub(validateCommand), cl::cat(category));
static cl::opt<std::string> calibrationDir(
    "calibration",
    cl::desc("Calibration samples for --quantize, float32, in one of two layouts: (a) one "
             "sub-folder per sample holding input_0.pb, input_1.pb, ... (ONNX TensorProto "
             "files, as ONNX test data) or NAME.pb / NAME.npy named after the model's inputs; "
             "(b) NAME.npy or NAME.pb files in DIR itself, one per input, each holding the "
             "samples stacked on a new first axis (or one sample of the input's own shape). "
             "In names, '/' and ':' are written '_'"),
    cl::value_desc("DIR"), cl::sub(cl::SubCommand::getTopLevel()), cl::sub(runCommand),
    cl::sub(validateCommand), cl::cat(category));
static cl::opt<double> quantizeErrorBudget(
    "quantize-error-budget",
    cl::desc("With --quantize: run in float every Conv, Gemm or MatMul whose output SQNR "
             "against the float model (over the calibration samples) falls below DB decibels "
             "where its inputs do not (Q/DQ stay at its edges); repeated until none does"),
    cl::value_desc("DB"), cl::init(std::numeric_limits<double>::quiet_NaN()),
    cl::sub(cl::SubCommand::getTopLevel()), cl::sub(runCommand),
    cl::sub(validateCommand), cl::cat(category));
static cl::opt<std::string> quantizeReport(
    "quantize-report",
    cl::desc("With --quantize: write a Markdown report (each quantized tensor's scale, zero "
             "point, SQNR and cosine similarity against float over the calibration samples; "
             "the layers left in float and why; weight bytes before and after) and print its "
             "summary"),
    cl::value_desc("FILE.md"), cl::sub(cl::SubCommand::getTopLevel()), cl::sub(runCommand),
    cl::cat(category));
static cl::opt<std::string> ioKind(
    "io",
    cl::desc("With --quantize: float (default: the model's inputs and outputs keep their float "
             "type, quantized at the edges), int8 (quantized inputs and outputs are int8; "
             "their scale and zero point are in NAME.h) or int16 (the same for int16 ones: "
             "--quantize int16x8, audio pipelines that hold int16 samples)"),
    cl::init("float"), cl::sub(cl::SubCommand::getTopLevel()), cl::sub(runCommand),
    cl::sub(validateCommand), cl::cat(category));
static cl::list<std::string> shapeOpts(
    "shape", cl::desc("Fix an input's shape, e.g. --shape input=1x3x224x224"),
    cl::sub(cl::SubCommand::getTopLevel()), cl::sub(runCommand),
    cl::sub(validateCommand), cl::cat(category));
static cl::opt<int64_t> batchOpt(
    "batch",
    cl::desc("Re-batch a model exported at batch 1: every input whose dim 0 the model fixes "
             "to 1 gets N (a node that is not batch-polymorphic is named); --shape with "
             "another leading size does the same for one input"),
    cl::init(0), cl::sub(cl::SubCommand::getTopLevel()), cl::sub(runCommand),
    cl::sub(validateCommand), cl::cat(category));
static cl::list<std::string> dimOpts(
    "dim", cl::desc("Fix a symbolic dimension, e.g. --dim batch=1; or bound it, --dim "
                     "seq=1..512: one library that runs any size in the range (the arena "
                     "planned for the largest; NAME_run takes the sizes first)"),
    cl::sub(cl::SubCommand::getTopLevel()), cl::sub(runCommand),
    cl::sub(validateCommand), cl::cat(category));
static cl::list<std::string> elementsOpts(
    "elements",
    cl::desc("Give a sequence or optional input's element shapes, one parameter each: "
             "--elements seq=2x3,4x3 (an empty sequence: seq=; an absent optional: "
             "opt=none; a 0-d element: scalar)"),
    cl::cat(category));
static cl::list<std::string> bindOpts(
    "bind", cl::desc("Compile an input's value in, e.g. --bind shape=shape.pb "
                     "(an ONNX TensorProto file)"),
    cl::sub(cl::SubCommand::getTopLevel()), cl::cat(category));
static cl::opt<std::string> verifyHeaderPath(
    "verify-header",
    cl::desc("Check that a generated header (NAME.h) was compiled from MODEL.onnx: compares "
             "the model sha256 it records and prints the onnxc version and options it "
             "records; exit 0 if it matches"),
    cl::value_desc("NAME.h"), cl::cat(category));
static cl::opt<bool> listOps("list-ops", cl::desc("List the supported ONNX operators"),
                             cl::cat(category));
static cl::opt<bool> listShapeInputs(
    "list-shape-inputs",
    cl::desc("Print the graph inputs of MODEL whose values decide shapes or control flow (a "
             "Reshape's shape, Slice bounds, TopK's K, an If's condition, ...), one a line, "
             "and exit: the inputs `onnxc run` compiles in from the values given, and "
             "--bind NAME=FILE.pb compiles in for a build"),
    cl::cat(category));
static cl::opt<bool> listTargets("list-targets", cl::desc("List the targets"),
                                 cl::cat(category));
static cl::opt<bool> listBoards(
    "list-boards", cl::desc("List the microcontroller boards --board knows: chip, core, memory "
                            "regions, console UART, QEMU machine"),
    cl::cat(category));
static cl::opt<std::string> boardName(
    "board",
    cl::desc("Compile for a board or chip of --list-boards (e.g. stm32f405, netduinoplus2, "
             "nrf52840, rp2040): its core is the target, and the model must fit its memory "
             "(code and weights in flash, the arena in the fastest RAM that holds it), checked "
             "before anything is written; --report shows where each part goes. With --emit "
             "firmware: a standalone CMake project for the board"),
    cl::value_desc("NAME"), cl::sub(cl::SubCommand::getTopLevel()),
    cl::sub(validateCommand), cl::cat(category));
static cl::opt<bool> printTargetFlags(
    "print-target-flags",
    cl::desc("Print the flags code for --target must be compiled with (instruction set, "
             "floating-point semantics: what add_onnx_model adds to the model's library) "
             "and exit"),
    cl::cat(category));
static cl::opt<std::string> precision(
    "precision",
    cl::desc("Arithmetic of float matrix products (Conv, Gemm, MatMul): fp32 (default); "
             "tf32, fp16 or bf16 on tensor cores (--target cuda: operands rounded to TF32, "
             "IEEE half or bfloat16 as they are staged, float sums; tensors stay float); or "
             "bf16 on AMX tiles (--target x86-64-amx: the convolutions' operands rounded to "
             "bfloat16, float sums)"),
    cl::init("fp32"), cl::value_desc("fp32|tf32|fp16|bf16"), cl::sub(cl::SubCommand::getTopLevel()),
    cl::sub(runCommand), cl::cat(category));
static cl::opt<std::string> convLayout(
    "conv-layout",
    cl::desc("How the int8 convolutions of Cortex-M cores without Helium (M0+, M3, M4, M7, "
             "M33) lay out their tensors: auto (the default: NHWC regions where the im2col "
             "gathers from NHWC pixels save more than transposing the regions' edges costs, "
             "by the core's measured costs), nchw, or nhwc (every region of convolutions the "
             "kernel runs)"),
    cl::value_desc("auto|nchw|nhwc"), cl::sub(cl::SubCommand::getTopLevel()), cl::sub(runCommand),
    cl::cat(category));
static cl::opt<std::string> convWeights(
    "conv-weights",
    cl::desc("How the int8 convolutions of Cortex-M cores without Helium (M0+, M4, M7, M33) "
             "store their weights: int16 pairs for SMLAD (the default: fastest) or int8, "
             "widened by SXTB16 in the inner loop (half the flash, about a third more "
             "instructions there). Without it, a --flash-budget the int16 pairs miss "
             "picks int8; --report says which"),
    cl::value_desc("int16|int8"), cl::sub(cl::SubCommand::getTopLevel()), cl::sub(runCommand),
    cl::cat(category));
static cl::opt<std::string> cudaArch(
    "cuda-arch",
    cl::desc("GPU architectures --target cuda builds for, comma-separated (default "
             "sm_80,sm_90; sm_70 and newer; PTX for the newest is kept for newer GPUs)"),
    cl::value_desc("sm_NN,..."), cl::sub(cl::SubCommand::getTopLevel()), cl::sub(runCommand),
    cl::cat(category));
static cl::opt<bool> printTargetLanguage(
    "print-target-language",
    cl::desc("Print the language of --target's generated source as CMake names it (CXX: "
             "NAME.cpp; CUDA: NAME.cu) and exit"),
    cl::cat(category));
static cl::opt<bool> printTargetInfo(
    "print-target-info",
    cl::desc("Print what a build system needs to compile --target's code, one KEY=VALUE a "
             "line (language, flags: required, optimize: the target's optimisation flags, "
             "processor: CMake's CMAKE_SYSTEM_PROCESSOR family, empty for any) and exit"),
    cl::cat(category));
static cl::opt<std::string> depfilePath(
    "depfile",
    cl::desc("Also write a Make-style dependency file: the generated header depends on every "
             "file onnxc read (the model, its external data, --bind values, calibration "
             "samples), for build systems that regenerate when one changes"),
    cl::value_desc("FILE"), cl::cat(category));
static cl::opt<bool> noWinograd(
    "no-winograd",
    cl::desc("Compute every convolution directly (the SIMD targets otherwise run 3x3 "
             "stride-1 ones with a 5x5 or larger output by Winograd F(4x4,3x3): 2-3x faster, "
             "within about 1e-5 relative, 4x their weights; on AVX-512 F(2x2,3x3) where those "
             "weights would be streamed for few tiles)"),
    cl::sub(cl::SubCommand::getTopLevel()), cl::sub(runCommand), cl::cat(category));
static cl::opt<bool> noBlockFusion(
    "no-block-fusion",
    cl::desc("Run each inverted-residual block's pointwise expand and depthwise convolutions "
             "as two kernels (the x86-64 and aarch64 targets otherwise fuse them, so that "
             "the expanded tensor never reaches memory; outputs are the same either way), "
             "and a squeeze-and-excite block's channel scale as its own Mul (otherwise folded "
             "into the project convolution's weights: a rounding apart)"),
    cl::sub(cl::SubCommand::getTopLevel()), cl::sub(runCommand), cl::cat(category));
static cl::opt<bool> profileNodes(
    "profile",
    cl::desc("Time each node: the generated code calls NAME_profile_mark(K) as node K begins "
             "(NAME.h: NAME_PROFILE_NODES, NAME_profile_nodes[] names them; the program "
             "defines the function). --emit firmware's firmware then reports each node's "
             "cycles, and onnxc validate prints them as a table (under QEMU: instructions)"),
    cl::cat(category));
static cl::opt<bool> quiet("quiet", cl::desc("Do not print the summary"),
                           cl::sub(cl::SubCommand::getTopLevel()), cl::sub(runCommand),
                           cl::sub(validateCommand), cl::cat(category));
static cl::opt<bool> report(
    "report",
    cl::desc("Print the model's flash (weights + code) and RAM (arena + stack of the deepest "
             "call chain) on the target, from its code compiled with the target's toolchain "
             "(GCC: -fstack-usage, -fcallgraph-info)"),
    cl::cat(category));
static cl::opt<std::string> ramBudget(
    "ram-budget",
    cl::desc("Fail the compile, writing nothing, when the model needs more RAM (arena + stack) "
             "on the target than SIZE (bytes, or with K/KB/KiB = 1024 or M/MB/MiB = 1048576); the error "
             "names the largest tensors"),
    cl::value_desc("SIZE"), cl::cat(category));
static cl::opt<std::string> flashBudget(
    "flash-budget",
    cl::desc("Fail the compile, writing nothing, when the model needs more flash (weights + "
             "code) than SIZE (as --ram-budget); the error names the nodes with the most "
             "weights"),
    cl::value_desc("SIZE"), cl::cat(category));
static cl::opt<std::string> inputsDir(
    "inputs",
    cl::desc("The inputs: a folder holding input_0.pb, input_1.pb, ... (ONNX TensorProto "
             "files, in graph-input order) or files named after the model's inputs (NAME.pb, "
             "NAME.npy), or a folder of such folders, one per input set (test_data_set_0, "
             "...: each runs, its outputs in a folder of the same name). The layouts of "
             "--calibration"),
    cl::value_desc("DIR"), cl::sub(runCommand), cl::sub(validateCommand), cl::cat(category));
static cl::opt<std::string> outputsDir(
    "outputs", cl::desc("Folder for output_0.pb, ... (per input set: OUT/<set>/output_0.pb)"),
    cl::value_desc("DIR"), cl::sub(runCommand), cl::cat(category));
static cl::opt<bool> noCache(
    "no-cache",
    cl::desc("Build the model's code even when onnxc's build cache holds the same build, and "
             "calibrate again (the cache: $ONNXC_CACHE_DIR, else $XDG_CACHE_HOME/onnxc or "
             "~/.cache/onnxc; ONNXC_CACHE_DIR=off disables it)"),
    cl::sub(runCommand), cl::cat(category));
static cl::opt<bool> sanitize(
    "sanitize",
    cl::desc("Build the model with AddressSanitizer and UndefinedBehaviorSanitizer into a "
             "program of its own and run that (host targets; no string inputs or outputs): "
             "an out-of-bounds access or undefined behaviour in the generated code or "
             "runtime-lite fails the run with the sanitizer's report"),
    cl::sub(runCommand), cl::cat(category));
static cl::opt<int> repeat("repeat",
                           cl::desc("Time N more runs; print median and p99 (with "
                                    "--count-instructions: the runs counted, default 4)"),
                           cl::init(0), cl::sub(runCommand), cl::cat(category));
static cl::opt<std::string> portPath(
    "port", cl::desc("validate: the serial device the board's console UART is on (e.g. "
                     "/dev/ttyACM0; 115200 baud)"),
    cl::value_desc("DEV"), cl::sub(validateCommand), cl::cat(category));
static cl::opt<std::string> qemuFirmware(
    "qemu", cl::desc("validate: run FIRMWARE.elf (built from --emit firmware's project) under "
                     "QEMU's model of the board, its UART on pipes"),
    cl::value_desc("FIRMWARE.elf"), cl::sub(validateCommand), cl::cat(category));
static cl::opt<double> tolerance(
    "tolerance", cl::desc("validate: an output element agrees when |board - host| <= T x "
                          "max(1, |host|) (integers: equal). Default 1e-4"),
    cl::value_desc("T"), cl::init(1e-4), cl::sub(validateCommand), cl::cat(category));
static cl::opt<bool> countInstructions(
    "count-instructions",
    cl::desc("Targets run under QEMU (cortex-m*, aarch64): report the instructions one "
             "inference executes, counted by a QEMU plugin onnxc builds from its source, as "
             "((1 + N) runs - 1 run) / N, N = --repeat (default 4)"),
    cl::sub(runCommand), cl::cat(category));

/// "20000", "20K", "20KB", "20KiB", "1M", "1MB", "1MiB" -> bytes; K, KB and
/// KiB all mean 1024 (as linker scripts and datasheets use them), M 1024^2.
/// -1 when empty, -2 when invalid.
static int64_t parseSize(StringRef text) {
  if (text.empty())
    return -1;
  int64_t scale = 1;
  const std::pair<const char *, int64_t> units[] = {
      {"KiB", 1024}, {"KB", 1024}, {"K", 1024}, {"MiB", 1 << 20}, {"MB", 1 << 20},
      {"M", 1 << 20}, {"GiB", 1 << 30}, {"GB", 1 << 30}, {"G", 1 << 30}, {"B", 1}};
  for (auto [unit, bytes] : units)
    if (text.size() > StringRef(unit).size() && text.ends_with_insensitive(unit)) {
      text = text.drop_back(StringRef(unit).size());
      scale = bytes;
      break;
    }
  int64_t v;
  if (text.getAsInteger(10, v) || v < 0 || v > (int64_t(1) << 40))
    return -2;
  return v * scale;
}

/// "1x3x224x224": every size positive (a tensor of zero elements is no
/// shape to compile a model for).
static bool parseDims(StringRef text, std::vector<int64_t> &dims) {
  SmallVector<StringRef> parts;
  text.split(parts, 'x');
  for (StringRef p : parts) {
    int64_t d;
    if (p.getAsInteger(10, d) || d <= 0)
      return false;
    dims.push_back(d);
  }
  return true;
}

static bool parseImportOptions(onnxc::ImportOptions &import,
                               std::map<std::string, std::pair<int64_t, int64_t>> &ranges) {
  for (const std::string &s : shapeOpts) {
    auto [name, dims] = StringRef(s).rsplit('=');
    std::vector<int64_t> v;
    if (name.empty() || dims.empty() || !parseDims(dims, v)) {
      errs() << "onnxc: error: --shape '" << s
             << "' is not NAME=D0xD1x... with every size a positive number\n";
      return false;
    }
    import.inputShapes[name.str()] = v;
  }
  for (const std::string &s : elementsOpts) {
    auto [name, spec] = StringRef(s).split('=');
    onnxc::CompositeInput c;
    if (import.namedCompositeInputs.count(name.str())) {
      errs() << "onnxc: error: --elements gives input '" << name << "' twice\n";
      return false;
    }
    bool good = !name.empty() && StringRef(s).contains('=');
    if (spec == "none") {
      c.present = false;
    } else if (good && !spec.empty()) {
      SmallVector<StringRef> parts;
      spec.split(parts, ',');
      for (StringRef p : parts) {
        std::vector<int64_t> dims;
        good = good && (p == "scalar" || parseDims(p, dims));
        c.elementShapes.push_back(dims);
      }
    }
    if (!good) {
      errs() << "onnxc: error: --elements '" << s
             << "' is not NAME=SHAPE,SHAPE,... (each D0xD1x... with positive sizes, or "
                "scalar), NAME= or NAME=none\n";
      return false;
    }
    import.namedCompositeInputs[name.str()] = c;
  }
  for (const std::string &s : dimOpts) {
    auto [name, value] = StringRef(s).rsplit('=');
    int64_t v, lo, hi;
    if (auto [a, b] = value.split(".."); !name.empty() && value.contains("..")) {
      // A bounded dim: one library for every size from LO to HI.
      if (a.getAsInteger(10, lo) || b.getAsInteger(10, hi) || lo <= 0 || hi <= 0) {
        errs() << "onnxc: error: --dim '" << s
               << "' is not NAME=LO..HI with LO and HI positive numbers\n";
        return false;
      }
      if (lo > hi) {
        errs() << "onnxc: error: --dim '" << s << "' is an empty range: " << lo
               << " is above " << hi << " (write NAME=LO..HI with LO <= HI)\n";
        return false;
      }
      if (lo == hi)
        import.dimParams[name.str()] = lo;
      else
        ranges[name.str()] = {lo, hi};
      continue;
    }
    if (name.empty() || value.getAsInteger(10, v) || v <= 0) {
      errs() << "onnxc: error: --dim '" << s
             << "' is not NAME=N (N a positive number) or NAME=LO..HI\n";
      return false;
    }
    import.dimParams[name.str()] = v;
  }
  return true;
}

/// Takes `--threads N` / `--threads=N` out of argv: LLVM's libraries
/// already register a hidden option of that name, so onnxc reads its own
/// before LLVM's parser runs. 0 if absent; -1 if malformed.
static int takeThreadsOption(int &argc, char **argv) {
  int value = 0, out = 1;
  for (int i = 1; i < argc; ++i) {
    StringRef a(argv[i]);
    StringRef text;
    if (a == "--threads" || a == "-threads") {
      text = i + 1 < argc ? StringRef(argv[++i]) : StringRef();
    } else if (a.consume_front("--threads=") || a.consume_front("-threads=")) {
      text = a;
    } else {
      argv[out++] = argv[i];
      continue;
    }
    if (text.getAsInteger(10, value) || value < 1)
      value = -1;
  }
  argc = out;
  argv[argc] = nullptr;
  return value;
}

int main(int argc, char **argv) {
  onnxc::registerAllTargets();
  InitLLVM init(argc, argv);
  const int threads = takeThreadsOption(argc, argv);
  if (threads < 0) {
    errs() << "onnxc: error: --threads takes a positive number of threads\n";
    return 2;
  }
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  mlir::registerAsmPrinterCLOptions();
  // Show onnxc's options and the MLIR debugging ones users ask for.
  cl::HideUnrelatedOptions(category);
  for (const char *name : {"mlir-print-ir-after-all", "mlir-print-ir-before-all",
                           "mlir-timing", "mlir-print-ir-after-failure"}) {
    auto &opts = cl::getRegisteredOptions();
    if (opts.count(name)) {
      opts[name]->setHiddenFlag(cl::NotHidden);
      opts[name]->addCategory(category);
    }
  }
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "onnxc " << onnxc::onnxcVersion() << " (MLIR 19, ONNX opsets 1-22 import)\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "onnxc: compile an ONNX model to standalone C++ and a static library\n\n"
      "  onnxc MODEL.onnx -o DIR [--target T] [--emit cpp|lib|mlir] [--threads N]\n"
      "  onnxc run MODEL.onnx --inputs DIR --outputs DIR [--target T] [--threads N] [--repeat N]\n"
      "  onnxc MODEL.onnx --board B --emit firmware -o DIR   (boards: --list-boards)\n"
      "  onnxc validate MODEL.onnx --board B (--port DEV | --qemu FIRMWARE.elf) --inputs DIR\n\n"
      "  onnxc run: host targets run in this process (default: native); targets this\n"
      "  machine cannot execute (cortex-m*, aarch64) run under their emulator (QEMU),\n"
      "  as --list-targets shows.\n\n"
      "  --threads N: targets with parallel kernels (x86-64*) split their work into N\n"
      "  tasks, run on the caller's thread pool (NAME_run_on; `onnxc run` starts N\n"
      "  threads). Default 1.\n");

  if (listTargets) {
    const onnxc::Target *native = onnxc::TargetRegistry::native();
    for (const onnxc::Target *t : onnxc::TargetRegistry::all()) {
      std::string kernels;
      for (const onnxc::KernelProvider *p : t->kernelProviders())
        kernels += p->name().str() + ", ";
      outs() << format("  %-15s %s%s\n", t->name().c_str(), t->description().c_str(),
                       t == native ? " [native]" : "")
             << format("  %-15s kernels: %sreference; runs: %s%s\n", (const char *)"", kernels.c_str(),
                       t->runnerDescription().c_str(),
                       t->hostCode && !t->runsHere() ? " (not on this CPU)" : "");
    }
    return 0;
  }
  if (listBoards)
    return onnxc::listBoards();
  const bool targetGiven = !targetName.empty();
  if (targetName.empty())
    targetName = runCommand ? "native" : "generic";
  if (printTargetFlags || printTargetLanguage || printTargetInfo) {
    std::unique_ptr<onnxc::Target> variant; // --cuda-arch
    std::string error;
    const onnxc::Target *t = onnxc::selectTarget(targetName, cudaArch, variant, error);
    if (!t) {
      errs() << "onnxc: error: " << error << "\n";
      return 2;
    }
    if (printTargetLanguage) {
      outs() << t->toolchain().sourceLanguage << "\n";
      return 0;
    }
    auto joined = [](const std::vector<std::string> &list) {
      std::string out;
      for (const std::string &f : list)
        out += (out.empty() ? "" : " ") + f;
      return out;
    };
    if (printTargetInfo) {
      outs() << "target=" << t->name() << "\nlanguage=" << t->toolchain().sourceLanguage
             << "\nflags=" << joined(t->toolchain().requiredFlags)
             << "\noptimize=" << joined(t->toolchain().optFlags)
             << "\nprocessor=" << t->processor << "\n";
      return 0;
    }
    outs() << joined(t->toolchain().requiredFlags) << "\n";
    return 0;
  }
  if (listOps) {
    mlir::MLIRContext ctx;
    for (const std::string &op : onnxc::supportedOnnxOps(ctx))
      outs() << op << "\n";
    return 0;
  }
  if (modelPath.empty()) {
    errs() << "onnxc: error: no model given (see --help)\n";
    return 2;
  }
  if (listShapeInputs) {
    std::vector<onnxc::GraphInputKind> inputs = onnxc::graphInputKinds(modelPath);
    if (inputs.empty() && !llvm::sys::fs::exists(modelPath)) {
      errs() << "onnxc: error: cannot read '" << modelPath << "'\n";
      return 2;
    }
    for (size_t pos : onnxc::shapeDecidingInputs(modelPath))
      if (pos < inputs.size())
        outs() << inputs[pos].name << "\n";
    return 0;
  }
  onnxc::ImportOptions import;
  std::map<std::string, std::pair<int64_t, int64_t>> dimRanges;
  if (!parseImportOptions(import, dimRanges))
    return 2;
  if (batchOpt < 0) {
    errs() << "onnxc: error: --batch takes a positive number\n";
    return 2;
  }
  import.batch = batchOpt;
  if (!dimRanges.empty() && !quantizeKind.empty()) {
    errs() << "onnxc: error: --quantize with bounded dims (--dim NAME=LO..HI) is not supported "
              "yet; quantize a fixed-size build\n";
    return 2;
  }
  onnxc::QuantizeOptions quantize;
  quantize.kind = quantizeKind;
  quantize.int16Layers.assign(quantizeInt16.begin(), quantizeInt16.end());
  quantize.calibrationDir = calibrationDir;
  quantize.errorBudgetDb = quantizeErrorBudget;
  quantize.reportPath = quantizeReport;
  if (quantizeFallback != "float" && quantizeFallback != "int16") {
    errs() << "onnxc: error: --quantize-fallback must be float or int16\n";
    return 2;
  }
  quantize.int16Fallback = quantizeFallback == "int16";
  if (quantize.int16Fallback && !quantize.hasBudget()) {
    errs() << "onnxc: error: --quantize-fallback goes with --quantize-error-budget\n";
    return 2;
  }
  if (!quantize.method.parse(calibrateMethod)) {
    errs() << "onnxc: error: --calibrate-method must be minmax, percentile or entropy\n";
    return 2;
  }
  if (ioKind != "float" && ioKind != "int8" && ioKind != "int16") {
    errs() << "onnxc: error: --io must be float, int8 or int16\n";
    return 2;
  }
  quantize.ioInteger = ioKind != "float";
  quantize.ioBits = ioKind == "int16" ? 16 : 8;
  if (!quantize.enabled() && (quantize.ioInteger || quantize.hasBudget() ||
                              !quantize.reportPath.empty() || !calibrationDir.empty() ||
                              !quantize.int16Layers.empty())) {
    errs() << "onnxc: error: --calibration, --io int8, --quantize-error-budget, "
              "--quantize-int16 and --quantize-report go with --quantize int8 (or int16x8)\n";
    return 2;
  }
  if (!(calibratePercentile > 50.0 && calibratePercentile <= 100.0)) {
    errs() << "onnxc: error: --calibrate-percentile must be above 50 and at most 100\n";
    return 2;
  }
  quantize.method.percentile = calibratePercentile;
  // What both commands take.
  auto fillModelOptions = [&](onnxc::ModelOptions &o) {
    o.modelPath = modelPath;
    o.target = targetName;
    o.import = import;
    o.quantize = quantize;
    o.threads = threads ? threads : 1;
    o.winograd = !noWinograd;
    o.blockFusion = !noBlockFusion;
    o.precision = precision;
    o.convWeights = convWeights;
    o.convLayout = convLayout;
    o.cudaArch = cudaArch;
    o.quiet = quiet;
    o.profile = profileNodes;
    o.dimRanges = dimRanges;
  };

  if (validateCommand) {
    if (boardName.empty() || inputsDir.empty()) {
      errs() << "onnxc: error: validate needs --board B, --inputs DIR and --port DEV or --qemu "
                "FIRMWARE.elf\n";
      return 2;
    }
    onnxc::ValidateOptions o;
    fillModelOptions(o);
    o.board = boardName;
    o.port = portPath;
    o.qemuFirmware = qemuFirmware;
    o.inputsDir = inputsDir;
    o.tolerance = tolerance;
    return onnxc::validateOnBoard(o);
  }
  if (runCommand) {
    if (inputsDir.empty() || outputsDir.empty()) {
      errs() << "onnxc: error: run needs --inputs DIR and --outputs DIR\n";
      return 2;
    }
    onnxc::RunOptions o;
    fillModelOptions(o);
    o.inputsDir = inputsDir;
    o.outputsDir = outputsDir;
    o.repeat = repeat;
    o.countInstructions = countInstructions;
    o.sanitize = sanitize;
    o.useCache = !noCache;
    o.quantize.useCache = !noCache;
    return onnxc::runModel(o);
  }
  if (!verifyHeaderPath.empty())
    return onnxc::verifyHeader(verifyHeaderPath, modelPath);
  if (outDir.empty()) {
    errs() << "onnxc: error: no output directory given (-o DIR)\n";
    return 2;
  }
  onnxc::CompileOptions o;
  fillModelOptions(o);
  o.bindings.assign(bindOpts.begin(), bindOpts.end());
  o.outDir = outDir;
  o.name = modelName;
  o.emit = emitKind;
  o.report = report;
  o.depfile = depfilePath;
  o.board = boardName;
  o.targetGiven = targetGiven;
  o.ramBudget = parseSize(ramBudget);
  o.flashBudget = parseSize(flashBudget);
  if (o.ramBudget == -2 || o.flashBudget == -2) {
    errs() << "onnxc: error: --ram-budget and --flash-budget take a size in bytes, e.g. "
              "20000, 20K, 20KB, 20KiB or 1M (K = 1024)\n";
    return 2;
  }
  return onnxc::compileModel(o);
}
