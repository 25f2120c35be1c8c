//===- BoundedDims.h - one plan for every size of the bounded dims ---------===//
//
// `--dim seq=1..512` builds one library that runs any size in the range
// (docs/design.md, "Bounded dimensions"). The driver compiles the model at
// a few sizes of its bounded dims (probes: the bounds, the middle and
// checkpoints between), each to a planned module with static shapes, and
// mergeBoundedPlans folds them into the plan at the upper bounds: the op
// sequence and each op's kernels must be the same at every probe, and every
// integer that differs (an extent, an element count, a stride) must be one
// integer polynomial in the dims (each to degree 2) at all of them; it is
// recorded as that polynomial (KernelArg::poly), which the generated code
// evaluates at run time. The arena is planned at the upper bounds, so every
// smaller size fits in the same places.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_CODEGEN_BOUNDEDDIMS_H
#define ONNXC_CODEGEN_BOUNDEDDIMS_H

#include "onnxc/Lowering/KernelCall.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace onnxc {

struct BoundedDim {
  std::string name; // the ONNX dim_param
  int64_t lo = 1, hi = 1;
};

/// The attribute on the model function listing its bounded dims
/// ([{name, min, max}, ...]); a function argument's or result's
/// `onnxc.dim_polys` gives each of its dims as a polynomial (an empty array
/// for a fixed dim), and `onnxc.bytes_poly` a result's size in bytes.
constexpr const char *kBoundedDimsAttr = "onnxc.bounded_dims";
constexpr const char *kDimPolysAttr = "onnxc.dim_polys";
constexpr const char *kBytesPolyAttr = "onnxc.bytes_poly";

/// A size of 1 gets structure of its own (a Transpose that moves a size-1
/// dim is a view, a broadcast over it loses a rank), so it is compiled
/// apart: a dim whose range holds 1 and more splits into 1 and 2..HI, and
/// each choice of one part per dim is a regime with a schedule of its own
/// (the weights are shared). The regime with every dim at its widest comes
/// first.
std::vector<std::vector<BoundedDim>> boundedRegimes(const std::vector<BoundedDim> &dims);

/// The sizes to compile at: each dim's bounds and middle (a grid, which
/// fixes every polynomial), then checkpoints between them (1 above the
/// lower bound, 1 below the upper, the powers of two in the range) that
/// confirm it. The first probe is every dim at its upper bound.
std::vector<std::vector<int64_t>> boundedProbes(const std::vector<BoundedDim> &dims);

/// The integer polynomial (each dim to degree 2 at most, less where the
/// points have fewer distinct values of it) through every (point, value),
/// or failure when none is.
mlir::FailureOr<DimPoly> fitDimPoly(llvm::ArrayRef<std::vector<int64_t>> points,
                                    llvm::ArrayRef<int64_t> values);
int64_t evalDimPoly(const DimPoly &poly, llvm::ArrayRef<int64_t> dims);
/// The dim `poly` is exactly (the input dim that gives its size), or -1.
int exactDim(const DimPoly &poly);
/// The polynomial as C text over the dims' names ("4*seq*seq + 256").
std::string dimPolyText(const DimPoly &poly, const std::vector<BoundedDim> &dims);

/// Merges `plans` (planned modules of one model, plans[i] compiled at
/// probes[i]; plans[0] at the upper bounds) into plans[0]. Errors name the
/// node whose kernels or sizes a bounded build cannot hold and the sizes
/// where they differ.
mlir::LogicalResult mergeBoundedPlans(const std::vector<BoundedDim> &dims,
                                      const std::vector<std::vector<int64_t>> &probes,
                                      llvm::ArrayRef<mlir::ModuleOp> plans);

} // namespace onnxc

#endif
