//===- SimdDialect.h - the simd dialect: channel-blocked layout ops -------===//
//
// SimdOps.td says what the ops are; SimdDialect.cpp holds their shape
// inference and verifiers. Only targets/simd/ and the SIMD targets use them.
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_TARGETS_SIMD_SIMDDIALECT_H
#define ONNXC_TARGETS_SIMD_SIMDDIALECT_H

#include "onnxc/Dialect/ONNX/ONNXDialect.h"

#include "targets/simd/SimdDialect.h.inc"
#include "targets/simd/SimdEnums.h.inc"
#define GET_ATTRDEF_CLASSES
#include "targets/simd/SimdAttrDefs.h.inc"
#define GET_OP_CLASSES
#include "targets/simd/SimdOps.h.inc"

namespace onnxc::simd {

/// Lanes per channel block of the blocked layout (runtime-lite's
/// kChannelBlock).
constexpr int64_t kBlockLanes = 16;

/// Whether a window attribute (strides, dilations, pads) is absent or every
/// value is `v`: the defaults Winograd and the block fusion need.
inline bool allOrAbsent(std::optional<llvm::ArrayRef<int64_t>> attr, int64_t v) {
  return !attr || llvm::all_of(*attr, [&](int64_t a) { return a == v; });
}

} // namespace onnxc::simd

#endif
