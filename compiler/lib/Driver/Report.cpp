//===- Report.cpp - what `onnxc` prints of a compiled model ----------------===//
//
// The compile summary's parts that need formatting (sizes, the control flow
// note) and --report / --ram-budget / --flash-budget: the footprint printed
// and the budget errors naming the largest tensors or weights.
//
//===----------------------------------------------------------------------===//
#include "Report.h"

#include "onnxc/Lowering/Target.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

namespace onnxc {

std::string humanBytes(int64_t b) {
  char buf[32];
  if (b >= 1 << 20)
    std::snprintf(buf, sizeof buf, "%.1f MB", b / 1048576.0);
  else if (b >= 1 << 10)
    std::snprintf(buf, sizeof buf, "%.1f KB", b / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%lld B", (long long)b);
  return buf;
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

int64_t ramBytes(const CompileSummary &s, const Footprint &f) {
  return s.arenaBytes + f.stackBytes + f.staticBytes;
}

void printFootprint(const CompileSummary &s, const Footprint &f) {
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

std::string budgetProblem(const CompileOptions &o, const Target &target,
                          const std::string &name, const CompileSummary &s, const Footprint &f) {
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

} // namespace onnxc
