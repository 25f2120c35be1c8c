//===- Passes.h - onnxc graph passes ---------------------------------------===//
#ifndef ONNXC_PASSES_PASSES_H
#define ONNXC_PASSES_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace onnxc {

#define GEN_PASS_DECL
#include "onnxc/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "onnxc/Passes/Passes.h.inc"

/// Attribute names the memory planner writes and the emitter reads.
inline constexpr const char *kOffsetAttr = "onnxc.offset";
inline constexpr const char *kScratchOffsetAttr = "onnxc.scratch_offset";
inline constexpr const char *kArenaSizeAttr = "onnxc.arena_size";
inline constexpr const char *kNaiveSizeAttr = "onnxc.naive_size";
/// On a Concat whose operands the plan put in its result's bytes: it
/// copies nothing.
inline constexpr const char *kInPlaceAttr = "onnxc.in_place";
/// On the module (--profile): onnxc-lower-to-emitc calls NAME_profile_mark(K)
/// as node K begins and records the number of nodes in kProfileNodesAttr.
inline constexpr const char *kProfileAttr = "onnxc.profile";
inline constexpr const char *kProfileNodesAttr = "onnxc.profile_nodes";
/// The Ifs expand-control-flow compiled one branch of, because their
/// condition was known at compile time: an array of "NODE:then"/"NODE:else"
/// on the function, which the driver's summary reports.
inline constexpr const char *kSpecialisedIfsAttr = "onnxc.specialised_ifs";
/// The Ifs whose condition is known only at run time (both branches
/// compiled, outputs selected with Where): an array of node names.
inline constexpr const char *kRunTimeIfsAttr = "onnxc.run_time_ifs";
/// A quantized graph's account from fold-qdq: {integer = N (convolutions
/// and matrix products on integer kernels), float = ["Gemm 'node': why",
/// ...] (those that read quantized values but stay float), float_other =
/// [...] (the other ops that do)}.
inline constexpr const char *kQuantizationAttr = "onnxc.quantization";
/// Offset marking a buffer that lives outside the arena (graph input or
/// output, weights, views of them).
inline constexpr int64_t kNotInArena = -1;

} // namespace onnxc

#endif
