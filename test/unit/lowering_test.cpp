// Unit tests of the lowering layer: the target registry, the kernel
// providers (a target's provider first, the reference provider last, data
// type as an axis of the choice) and the kernel-choice record that
// onnxc-select-kernels writes and memory planning / emission read back.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "onnxc/Dialect/ONNX/ONNXDialect.h"
#include "onnxc/Lowering/KernelProvider.h"
#include "onnxc/Lowering/Target.h"
#include "onnxc/Lowering/HostKernels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include <set>

using namespace mlir;
using namespace onnxc;

namespace {

struct Fixture {
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  Fixture(const std::string &target, const std::string &elementType = "f32") {
    registerAllTargets();
    ctx.loadDialect<onnx::ONNXDialect, func::FuncDialect>();
    const std::string t = elementType;
    std::string src =
        "module attributes {onnxc.target = #onnx.target<name = \"" + target + "\">} {\n"
        "func.func @f(%x: tensor<1x3x8x8x" + t + ">, %a: tensor<2x8x" + t + ">) -> "
        "(tensor<1x4x8x8x" + t + ">, tensor<2x8x" + t + ">, tensor<2x8x" + t + ">) {\n"
        "  %w = \"onnx.Constant\"() {value = dense<0.5> : tensor<4x3x3x3x" + t + ">} : () -> "
        "tensor<4x3x3x3x" + t + ">\n"
        "  %n = \"onnx.NoValue\"() : () -> none\n"
        "  %c = \"onnx.Conv\"(%x, %w, %n) {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8x" +
        t + ">, tensor<4x3x3x3x" + t + ">, none) -> tensor<1x4x8x8x" + t + ">\n"
        "  %s = \"onnx.Softmax\"(%a) {axis = -1 : i64} : (tensor<2x8x" + t + ">) -> tensor<2x8x" +
        t + ">\n"
        "  %r = \"onnx.Relu\"(%a) : (tensor<2x8x" + t + ">) -> tensor<2x8x" + t + ">\n"
        "  return %c, %s, %r : tensor<1x4x8x8x" + t + ">, tensor<2x8x" + t + ">, tensor<2x8x" +
        t + ">\n}\n}\n";
    module = parseSourceString<ModuleOp>(src, &ctx);
    REQUIRE(module);
  }
  Operation *op(StringRef name) {
    Operation *found = nullptr;
    module->walk([&](Operation *o) {
      if (o->getName().getStringRef() == name)
        found = o;
    });
    REQUIRE(found);
    return found;
  }
  std::string callee(StringRef name) {
    FailureOr<OpLowering> l = lowerToKernelCalls(op(name));
    REQUIRE(succeeded(l));
    REQUIRE(!l->calls.empty());
    return l->calls.front().callee;
  }
};

} // namespace

TEST_CASE("the registry knows every target folder's targets", "[registry]") {
  registerAllTargets();
  registerAllTargets(); // registration happens once
  std::set<std::string> names;
  for (const Target *t : TargetRegistry::all())
    CHECK(names.insert(t->name()).second);
  for (const char *name : {"generic", "x86-64", "x86-64-avx512", "cortex-m4", "cortex-m7",
                           "aarch64", "aarch64-dotprod", "aarch64-i8mm"})
    CHECK(names.count(name));
  CHECK(TargetRegistry::find("riscv-vector") == nullptr);

  SECTION("native is the widest target that runs here") {
    const Target *native = TargetRegistry::find("native");
    REQUIRE(native);
    CHECK(native == TargetRegistry::native());
    CHECK(native->hostCode);
    CHECK(native->runsHere());
    for (const Target *t : TargetRegistry::all())
      if (t->hostCode && t->runsHere())
        CHECK(t->nativeRank <= native->nativeRank);
  }
  SECTION("toolchains give the flags their code requires") {
    CHECK(TargetRegistry::find("x86-64")->toolchain().requiredFlags ==
          std::vector<std::string>{"-march=x86-64-v3", "-ffp-contract=off"});
    CHECK(TargetRegistry::find("generic")->toolchain().requiredFlags.empty());
    // Each x86 target's code needs the one below's flags and its own, and
    // ranks above it for `native`.
    const char *const ladder[] = {"x86-64-avx512", "x86-64-vnni", "x86-64-vbmi", "x86-64-amx"};
    const char *const adds[] = {"-march=x86-64-v4", "-mavx512vnni", "-mavx512vbmi", "-mamx-int8"};
    for (size_t i = 0; i < std::size(ladder); ++i) {
      const Target *t = TargetRegistry::find(ladder[i]);
      REQUIRE(t);
      const auto &flags = t->toolchain().requiredFlags;
      for (size_t j = 0; j <= i; ++j)
        CHECK(std::find(flags.begin(), flags.end(), adds[j]) != flags.end());
      if (i > 0)
        CHECK(TargetRegistry::find(ladder[i - 1])->nativeRank < t->nativeRank);
    }
    auto m4 = TargetRegistry::find("cortex-m4")->toolchain().requiredFlags;
    CHECK(std::find(m4.begin(), m4.end(), "-mcpu=cortex-m4") != m4.end());
    CHECK(std::find(m4.begin(), m4.end(), "-mfloat-abi=hard") != m4.end());
  }
  SECTION("how onnxc run runs each target's code") {
    const Target *generic = TargetRegistry::find("generic");
    CHECK(generic->hostCode);
    CHECK_FALSE(generic->emulated);
    CHECK(generic->runnerDescription() == "in process (onnxc run)");
    const Target *m4 = TargetRegistry::find("cortex-m4");
    REQUIRE(m4->emulated);
    CHECK(m4->emulated->emulator == "qemu-system-arm");
    CHECK(std::find(m4->emulated->args.begin(), m4->emulated->args.end(), "mps2-an386") !=
          m4->emulated->args.end());
    CHECK(m4->supportFolder == "cortex-m");
    CHECK(m4->emulated->supportSources == std::vector<std::string>{"startup.c"});
    CHECK(TargetRegistry::find("aarch64-dotprod")->toolchain().requiredFlags ==
          std::vector<std::string>{"-march=armv8.2-a+dotprod", "-ffp-contract=off"});
    CHECK(TargetRegistry::find("cortex-m7")->runnerDescription().find("mps2-an500") !=
          std::string::npos);
    const Target *a64 = TargetRegistry::find("aarch64");
    REQUIRE(a64->emulated);
    CHECK(a64->emulated->emulator == "qemu-aarch64");
    CHECK(a64->emulated->package == "qemu-user");
  }
  SECTION("every target emits C++ but cuda, which has its own emitter and runs on its GPU") {
    for (const Target *t : TargetRegistry::all())
      if (t->name() != "cuda")
        CHECK(t->emitter() == nullptr);
    const Target *cuda = TargetRegistry::find("cuda");
    REQUIRE(cuda);
    REQUIRE(cuda->emitter());
    CHECK_FALSE(cuda->hostCode);
    REQUIRE(cuda->emulated);
    CHECK(cuda->emulated->emulator.empty()); // a program run directly
    CHECK(cuda->toolchain().assembler == "c++");
  }
  SECTION("each target declares its own options") {
    const Target *x86 = TargetRegistry::find("x86-64");
    const Target *cuda = TargetRegistry::find("cuda");
    CHECK(x86->optionValue(onnx::TargetAttr(), "winograd") == "true");
    CHECK(x86->optionValue(onnx::TargetAttr(), "precision") == "");
    CHECK(cuda->optionValue(onnx::TargetAttr(), "precision") == "fp32");
    CHECK(cuda->optionValue(onnx::TargetAttr(), "arch") == "sm_80,sm_90");
    CHECK(TargetRegistry::find("generic")->options().empty());
    std::string canonical, error;
    std::unique_ptr<Target> old = cuda->variantFor("arch", "sm_75,sm_70,sm_75", canonical, error);
    REQUIRE(old);
    CHECK(canonical == "sm_70,sm_75");
    CHECK(old->options().front().values == std::vector<std::string>{"fp32"});
    CHECK(x86->variantFor("arch", "sm_80", canonical, error) == nullptr);
    CHECK(error.find("--cuda-arch applies to GPU targets") != std::string::npos);
  }
  SECTION("only targets with their own kernels have providers") {
    CHECK(TargetRegistry::find("generic")->kernelProviders().empty());
    CHECK(TargetRegistry::find("x86-64")->kernelProviders().size() == 1);
    CHECK(TargetRegistry::find("x86-64")->parallelKernels);
    CHECK(TargetRegistry::find("aarch64")->kernelProviders().size() == 1);
    REQUIRE(TargetRegistry::find("aarch64")->layout());
    CHECK(TargetRegistry::find("aarch64")->layout()->channelBlock() ==
          TargetRegistry::find("x86-64")->layout()->channelBlock());
    CHECK(TargetRegistry::find("generic")->layout() == nullptr);
    CHECK(TargetRegistry::find("cortex-m4")->layout() == nullptr);
    CHECK_FALSE(TargetRegistry::find("cortex-m4")->parallelKernels);
  }
}

TEST_CASE("a target's provider goes first, the reference provider last", "[providers]") {
  SECTION("aarch64: the same SIMD kernels (NEON), reference Relu") {
    Fixture f("aarch64-i8mm");
    CHECK(f.callee("onnx.Conv") == "onnxc_rt::simd::conv2d");
    CHECK(f.callee("onnx.Softmax") == "onnxc_rt::simd::softmax");
    CHECK(f.callee("onnx.Relu") == "onnxc_rt::ref::unary");
  }
  SECTION("x86-64: SIMD convolution and softmax, reference Relu") {
    Fixture f("x86-64");
    CHECK(f.callee("onnx.Conv") == "onnxc_rt::simd::conv2d");
    CHECK(f.callee("onnx.Softmax") == "onnxc_rt::simd::softmax");
    CHECK(f.callee("onnx.Relu") == "onnxc_rt::ref::unary");
  }
  SECTION("cuda: every op on a CUDA launcher, the stream first") {
    Fixture f("cuda");
    CHECK(f.callee("onnx.Conv") == "onnxc_rt::cuda::conv");
    CHECK(f.callee("onnx.Softmax") == "onnxc_rt::cuda::softmax");
    CHECK(f.callee("onnx.Relu") == "onnxc_rt::cuda::unary");
    FailureOr<OpLowering> relu = lowerToKernelCalls(f.op("onnx.Relu"));
    REQUIRE(succeeded(relu));
    CHECK(relu->calls.front().args.front().kind == KernelArg::Kind::Runner);
    CHECK(relu->calls.front().templateArgs.front() == "onnxc_rt::ref::Relu");
  }
  SECTION("cuda: float16 computes in float on float copies in the op's scratch") {
    Fixture f("cuda", "f16");
    // Softmax computes in float: a cast in, the float kernel, a cast out,
    // each copy its own part of the scratch. Relu takes float16 tensors.
    FailureOr<OpLowering> softmax = lowerToKernelCalls(f.op("onnx.Softmax"));
    REQUIRE(succeeded(softmax));
    REQUIRE(softmax->calls.size() == 3);
    const KernelCall &in = softmax->calls[0], &run = softmax->calls[1], &out = softmax->calls[2];
    CHECK(in.callee == "onnxc_rt::cuda::cast");
    CHECK(in.templateArgs == llvm::SmallVector<std::string>{"onnxc_rt::float16", "float"});
    CHECK(run.callee == "onnxc_rt::cuda::softmax");
    CHECK(run.templateArgs == llvm::SmallVector<std::string>{"float"});
    CHECK(out.templateArgs == llvm::SmallVector<std::string>{"float", "onnxc_rt::float16"});
    CHECK(in.args[2].kind == KernelArg::Kind::Scratch);  // (stream, x, copy, n)
    CHECK(out.args[1].kind == KernelArg::Kind::Scratch); // (stream, copy, y, n)
    CHECK(in.args[2].scratchOffset != out.args[1].scratchOffset);
    CHECK(f.callee("onnx.Relu") == "onnxc_rt::cuda::unary");
  }
  SECTION("cuda: double runs on the GPU in double, never on the host's kernel") {
    Fixture f("cuda", "f64");
    FailureOr<OpLowering> softmax = lowerToKernelCalls(f.op("onnx.Softmax"));
    REQUIRE(succeeded(softmax));
    REQUIRE(softmax->calls.size() == 1); // no casts: the kernel sums in double
    CHECK(softmax->calls[0].callee == "onnxc_rt::cuda::softmax");
    CHECK(softmax->calls[0].templateArgs == llvm::SmallVector<std::string>{"double"});
    FailureOr<OpLowering> conv = lowerToKernelCalls(f.op("onnx.Conv"));
    REQUIRE(succeeded(conv));
    REQUIRE(conv->calls.size() == 1);
    CHECK(conv->calls[0].callee == "onnxc_rt::cuda::conv");
    CHECK(conv->calls[0].templateArgs.back() == "double");
  }
  SECTION("generic: reference kernels throughout") {
    Fixture f("generic");
    CHECK(f.callee("onnx.Conv") == "onnxc_rt::ref::conv");
    CHECK(f.callee("onnx.Softmax") == "onnxc_rt::ref::softmax");
  }
  SECTION("cortex-m4: microcontroller convolution, reference softmax") {
    Fixture f("cortex-m4");
    CHECK(f.callee("onnx.Conv") == "onnxc_rt::mcu::conv2d");
    CHECK(f.callee("onnx.Softmax") == "onnxc_rt::ref::softmax");
  }
  SECTION("data type is an axis: double runs on the reference kernels on x86-64") {
    Fixture f("x86-64", "f64");
    CHECK(f.callee("onnx.Conv") == "onnxc_rt::ref::conv");
    const KernelProvider *x86 = TargetRegistry::find("x86-64")->kernelProviders().front();
    LoweringContext ctx;
    ctx.elementType = "double";
    CHECK_FALSE(x86->lower(f.op("onnx.Conv"), ctx).has_value()); // "not mine"
  }
  SECTION("the constant folder's lowering ignores the target") {
    Fixture f("x86-64");
    FailureOr<OpLowering> l = lowerWithReference(f.op("onnx.Softmax"));
    REQUIRE(succeeded(l));
    CHECK(l->calls.front().callee == "onnxc_rt::ref::softmax");
  }
}

TEST_CASE("the kernel record round-trips", "[record]") {
  Fixture f("x86-64");
  Operation *conv = f.op("onnx.Conv");
  FailureOr<OpLowering> chosen = lowerToKernelCalls(conv);
  REQUIRE(succeeded(chosen));
  conv->setAttr(kKernelRecordAttr, encodeLowering(conv, *chosen));
  FailureOr<OpLowering> back = lowerToKernelCalls(conv); // reads the record now
  REQUIRE(succeeded(back));
  REQUIRE(back->kind == chosen->kind);
  REQUIRE(back->calls.size() == chosen->calls.size());
  for (size_t c = 0; c < back->calls.size(); ++c) {
    const KernelCall &a = chosen->calls[c], &b = back->calls[c];
    CHECK(a.key() == b.key());
    CHECK(a.header == b.header);
    REQUIRE(a.args.size() == b.args.size());
    bool sawPackedWeights = false;
    for (size_t i = 0; i < a.args.size(); ++i) {
      INFO("argument " << i);
      CHECK(a.args[i].kind == b.args[i].kind);
      CHECK(a.args[i].tensor == b.args[i].tensor);
      CHECK(a.args[i].isOutput == b.args[i].isOutput);
      CHECK(a.args[i].intValue == b.args[i].intValue);
      CHECK(a.args[i].floatValue == b.args[i].floatValue);
      CHECK(a.args[i].ints == b.args[i].ints);
      CHECK(a.args[i].constant == b.args[i].constant);
      sawPackedWeights |= a.args[i].kind == KernelArg::Kind::Constant;
    }
    CHECK(sawPackedWeights);
    CHECK(a.scratchBytes() == b.scratchBytes());
  }

  SECTION("a malformed record is an error at the op, not a crash") {
    std::string message;
    ScopedDiagnosticHandler capture(&f.ctx, [&](Diagnostic &d) {
      message = d.str();
      return success();
    });
    Builder b(&f.ctx);
    conv->setAttr(kKernelRecordAttr, b.getDictionaryAttr({b.getNamedAttr(
                                         "kind", b.getStringAttr("calls"))}));
    CHECK(failed(lowerToKernelCalls(conv)));
    CHECK(message.find("malformed") != std::string::npos);
  }
}

TEST_CASE("the constant folder runs every float unary functor", "[host]") {
  // reference/elementwise.h numbers its functors; the host registry
  // instantiates each one on floats (no list to keep in step).
  for (const char *f : {"Sin", "Mish", "Gelu", "HardSwish", "Shrink", "Celu", "Silu", "Clamp"}) {
    KernelCall c;
    c.callee = "onnxc_rt::ref::unary";
    c.templateArgs = {std::string("onnxc_rt::ref::") + f, "float"};
    CHECK(hostKernelAvailable(c));
  }
  KernelCall integerOnly;
  integerOnly.callee = "onnxc_rt::ref::unary";
  integerOnly.templateArgs = {"onnxc_rt::ref::BitwiseNot", "float"};
  CHECK_FALSE(hostKernelAvailable(integerOnly));
}
