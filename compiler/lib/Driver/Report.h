//===- Report.h - what `onnxc` prints of a compiled model ------*- C++ -*-===//
#ifndef ONNXC_DRIVER_REPORT_H
#define ONNXC_DRIVER_REPORT_H

#include "Generate.h"
#include "Toolchain.h"

#include "onnxc/Driver/Driver.h"

#include <cstdint>
#include <string>

namespace onnxc {

class Target;

/// "5.8 KB", "1.2 MB", "300 B".
std::string humanBytes(int64_t bytes);

/// The summary's "control" lines: the Ifs compiled as one branch (condition
/// known at compile time) and those with both branches (run-time condition).
void printControlFlowSummary(const CompileSummary &summary);

/// RAM a model needs on its target: arena, stack, the object's static data.
int64_t ramBytes(const CompileSummary &summary, const Footprint &footprint);

/// --report's flash, RAM and deepest stack lines.
void printFootprint(const CompileSummary &summary, const Footprint &footprint);

/// The error when the model is over --ram-budget or --flash-budget, naming
/// the largest tensors or weights; empty when within.
std::string budgetProblem(const CompileOptions &options, const Target &target,
                          const std::string &name, const CompileSummary &summary,
                          const Footprint &footprint);

} // namespace onnxc

#endif
