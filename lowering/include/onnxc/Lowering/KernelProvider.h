//===- KernelProvider.h - who lowers an op to kernel calls ----------------===//
//
// A kernel provider lowers the ops it has kernels for and answers "not mine"
// for the rest (TFLite Micro's per-op override with reference fallback). A
// target lists its providers (Target.h); the portable reference provider
// always comes last and is the only place that defines an op's semantics:
// an optimised provider returns the same results through other kernels,
// which its sweep tests check against the reference ones.
//
// Kernels are chosen once: onnxc-select-kernels runs the providers and
// records the chosen calls, their arguments and any packed weights on the
// op (`onnxc.kernel`); memory planning and emission read that record through
// lowerToKernelCalls. The constant folder evaluates with the reference
// provider on the host (lowerWithReference).
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_LOWERING_KERNELPROVIDER_H
#define ONNXC_LOWERING_KERNELPROVIDER_H

#include "onnxc/Lowering/KernelCall.h"

#include "llvm/ADT/ArrayRef.h"

#include <map>
#include <optional>
#include <string>

namespace onnxc {

/// The data-type axis of a kernel: the element type of the op's first
/// operand, as kernel choice keys on it (the int8 kernels take int8 and
/// uint8 alike).
enum class ElementKind { Float32, Int8, UInt8, Other };
/// The kind of `type` (an element type).
ElementKind elementKindOf(mlir::Type type);

/// What a provider needs to know besides the op.
struct LoweringContext {
  /// Tasks the parallel kernels split their work into (--threads).
  int64_t tasks = 1;
  /// The target's options (Target::options), each with its value for this
  /// module: set in #onnx.target, else the default.
  std::map<std::string, std::string> options;
  /// The element type of the op's first operand: the data-type axis of a
  /// kernel (`element`, what kernel choice compares) and its C++ spelling
  /// for the kernel's template arguments ("float", "int8_t", ...).
  ElementKind element = ElementKind::Other;
  std::string elementType;
  bool isFloat() const { return element == ElementKind::Float32; }
  bool isQuantized() const { return element == ElementKind::Int8 || element == ElementKind::UInt8; }
};

/// A provider's answer: std::nullopt is "not mine" (the next provider is
/// asked); failure means the op cannot run and an error naming the node was
/// emitted; otherwise the calls.
using ProviderResult = std::optional<mlir::FailureOr<OpLowering>>;

class KernelProvider {
public:
  virtual ~KernelProvider() = default;
  /// Short name, shown by `onnxc --list-targets` ("reference", ...).
  virtual llvm::StringRef name() const = 0;
  virtual ProviderResult lower(mlir::Operation *op, const LoweringContext &ctx) const = 0;
  /// For the reference calls an op makes outside `lower` (a view's own
  /// calls: Dropout's mask): "" when the call may run as it is or was
  /// rewritten in place to the provider's own kernel, else why it cannot
  /// run on this provider's target (the op is then refused with it).
  virtual std::string adoptCall(KernelCall &) const { return ""; }
};

/// The portable reference lowering: every op onnxc supports, every target.
const KernelProvider &referenceProvider();

/// Runs `providers` in order, then the reference provider. Checks first what
/// no kernel can run (dynamic shapes, unsupported element types, strings
/// outside the string kernels), handles constants and views.
mlir::FailureOr<OpLowering> selectLowering(mlir::Operation *op,
                                           llvm::ArrayRef<const KernelProvider *> providers,
                                           const LoweringContext &ctx);

/// The reference kernels alone (the constant folder's way of running an op).
mlir::FailureOr<OpLowering> lowerWithReference(mlir::Operation *op);

/// The reference kernel of a quantized convolution (qs8::conv: each output
/// plane accumulated in int32 scratch and requantized; with `maxPool`,
/// qs8::conv_max_pool, each plane max-pooled by whole windows on its way
/// out) for onnx.QConv and the ops that take its operands (X, W, B) and
/// attributes (a target's pooled convolution, where its own kernel does not
/// run it).
mlir::FailureOr<OpLowering> referenceQConv(mlir::Operation *op,
                                          std::optional<llvm::ArrayRef<int64_t>> maxPool);

/// How `op` runs: the calls recorded on it by onnxc-select-kernels, or, when
/// none are recorded (a pass run on its own in a lit test), the providers of
/// the enclosing module's target.
mlir::FailureOr<OpLowering> lowerToKernelCalls(mlir::Operation *op);

/// The attribute onnxc-select-kernels records the lowering in.
constexpr const char *kKernelRecordAttr = "onnxc.kernel";

/// `lowering` as an attribute (operands and results by index, so the record
/// stays valid while the op's values are renamed), and back.
mlir::Attribute encodeLowering(mlir::Operation *op, const OpLowering &lowering);
mlir::FailureOr<OpLowering> decodeLowering(mlir::Operation *op, mlir::Attribute record);

} // namespace onnxc

#endif
