//===- Target.cpp - the target registry and the module's target -----------===//
#include "onnxc/Lowering/Target.h"

#include "onnxc/Dialect/ONNX/ONNXDialect.h"

#include "mlir/IR/BuiltinOps.h"

#include <algorithm>

using namespace mlir;

namespace onnxc {

std::vector<std::string> Toolchain::cxxFlags() const {
  // Freestanding C++17 with no exceptions or RTTI; the code is warning-clean.
  std::vector<std::string> all = sharedFlags;
  if (all.empty())
    all = {"-std=c++17", "-fno-exceptions", "-fno-rtti", "-Wall", "-Wextra"};
  all.insert(all.end(), optFlags.begin(), optFlags.end());
  all.insert(all.end(), requiredFlags.begin(), requiredFlags.end());
  return all;
}

Target::Target(std::string name, std::string description, Toolchain toolchain)
    : name_(std::move(name)), description_(std::move(description)),
      toolchain_(std::move(toolchain)) {}

Target::~Target() = default;

LayoutPolicy::~LayoutPolicy() = default;

std::unique_ptr<Target> Target::variantFor(llvm::StringRef option, llvm::StringRef,
                                           std::string &, std::string &error) const {
  // The one such option today is the GPU targets' (cuda) --cuda-arch.
  error = option == "arch" ? "--cuda-arch applies to GPU targets (cuda), not to '" + name_ + "'"
                           : "target '" + name_ + "' has no option '" + option.str() + "'";
  return nullptr;
}

std::string Target::optionValue(onnx::TargetAttr attr, llvm::StringRef name) const {
  for (const TargetOption &o : options()) {
    if (o.name != name)
      continue;
    if (attr && attr.getOptions())
      if (Attribute v = attr.getOptions().get(name)) {
        if (auto b = dyn_cast<BoolAttr>(v))
          return b.getValue() ? "true" : "false";
        if (auto str = dyn_cast<StringAttr>(v))
          return str.str();
      }
    return o.values.empty() ? "" : o.values.front();
  }
  return "";
}

std::string Target::runnerDescription() const {
  if (hostCode)
    return "in process (onnxc run)";
  if (!emulated)
    return "not by onnxc run";
  if (emulated->emulator.empty())
    return "a program on this machine's device (onnxc run)";
  std::string text = emulated->emulator;
  for (const std::string &a : emulated->args)
    text += " " + a;
  return text + " (onnxc run)";
}

void Target::addProvider(std::unique_ptr<KernelProvider> provider) {
  providerView_.push_back(provider.get());
  providers_.push_back(std::move(provider));
}

namespace {
std::vector<std::unique_ptr<Target>> &registry() {
  static std::vector<std::unique_ptr<Target>> targets;
  return targets;
}
} // namespace

void TargetRegistry::add(std::unique_ptr<Target> target) {
  registry().push_back(std::move(target));
}

const Target *TargetRegistry::find(llvm::StringRef name) {
  if (name == "native")
    return native();
  for (const auto &t : registry())
    if (t->name() == name)
      return t.get();
  return nullptr;
}

const Target *TargetRegistry::native() {
  const Target *best = nullptr;
  for (const auto &t : registry())
    if (t->hostCode && t->runsHere() && (!best || t->nativeRank > best->nativeRank))
      best = t.get();
  return best;
}

std::vector<const Target *> TargetRegistry::all() {
  std::vector<const Target *> out;
  for (const auto &t : registry())
    out.push_back(t.get());
  return out;
}

onnx::TargetAttr targetAttrOf(Operation *op) {
  auto module = isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  return module ? module->getAttrOfType<onnx::TargetAttr>(kTargetAttr) : onnx::TargetAttr();
}

const Target *targetOf(Operation *op) {
  onnx::TargetAttr attr = targetAttrOf(op);
  return attr ? TargetRegistry::find(attr.getName()) : nullptr;
}

LoweringContext loweringContextOf(Operation *op) {
  LoweringContext ctx;
  if (onnx::TargetAttr attr = targetAttrOf(op)) {
    ctx.tasks = std::max<int64_t>(1, attr.getThreads());
    if (const Target *target = TargetRegistry::find(attr.getName()))
      for (const TargetOption &o : target->options())
        if (!o.buildsVariant)
          ctx.options[o.name] = target->optionValue(attr, o.name);
  }
  return ctx;
}

} // namespace onnxc
