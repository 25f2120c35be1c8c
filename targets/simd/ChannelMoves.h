//===- ChannelMoves.h - recognising channel shuffles, slices and splits ---===//
//
// The chains of ONNX ops that only move whole channels of a 4-D (N, C, H, W)
// tensor, as the SIMD targets' passes replace them by one gather: the
// float channel-blocked region's simd.BlockedChannelGather
// (LayoutSelection.cpp) and the int8 kernels' NCHW simd.ChannelGather
// (Qs8ChannelGather.cpp). One matcher each, parameterised by which tensors
// the caller's kernels take (`TensorFilter`).
//
//===----------------------------------------------------------------------===//
#ifndef ONNXC_TARGETS_SIMD_CHANNELMOVES_H
#define ONNXC_TARGETS_SIMD_CHANNELMOVES_H

#include "onnxc/Dialect/ONNX/ONNXDialect.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace onnxc::simd {

/// `v`'s type where it is a static tensor of `rank` dims with elements the
/// caller's kernels take, else null.
using TensorFilter = mlir::RankedTensorType (*)(mlir::Value v, int64_t rank);

/// Static float32 tensors (the blocked float kernels').
mlir::RankedTensorType staticF32(mlir::Value v, int64_t rank);
/// Static int8 or uint8 tensors (the int8 kernels').
mlir::RankedTensorType staticBytes(mlir::Value v, int64_t rank);

/// The channel axis of a 4-D tensor, counted from either end.
inline bool isChannelAxis(int64_t axis) { return axis == 1 || axis == -3; }

/// A channel Concat of one or two 4-D tensors that `typed` takes (what both
/// gathers read).
bool isGatherableConcat(onnx::ConcatOp cat, TensorFilter typed);

/// ShuffleNet's channel shuffle of a Concat of one or two values: Concat
/// (channels) -> Reshape (n, g, c / g, h, w) -> Transpose (0, 2, 1, 3, 4)
/// -> Reshape (n, c, h, w), each the only reader of the one before.
struct ChannelShuffle {
  onnx::ReshapeOp split;
  onnx::TransposeOp swap;
  onnx::ReshapeOp merge;           // its result: the shuffled tensor
  llvm::SmallVector<int64_t> from; // output channel j is channel from[j] of the Concat's
};
std::optional<ChannelShuffle> matchChannelShuffle(onnx::ConcatOp cat, TensorFilter typed);

/// A run of channels [first, first + count).
struct ChannelRun {
  int64_t first;
  int64_t count;
};
/// A Slice of channels alone (a run along axis 1, step 1, the other axes
/// whole) of a 4-D tensor `typed` takes.
std::optional<ChannelRun> channelRunOfSlice(onnx::SliceOp slice, TensorFilter typed);
/// A Split of a 4-D tensor `typed` takes along its channels: each result's
/// run, in order.
std::optional<llvm::SmallVector<ChannelRun>> channelRunsOfSplit(onnx::SplitOp split,
                                                                TensorFilter typed);

} // namespace onnxc::simd

#endif
