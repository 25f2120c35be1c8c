// Channel gathers on the channel-blocked layout (NCHW16c, see blocking.h):
// each output channel a copy of one channel of one or two blocked inputs,
// so that a chain of channel Concat, Reshape, Transpose and Slice ops
// (ShuffleNet's channel shuffle and split) stays in the blocked layout as
// one pass over its output, where it would otherwise leave it (FromBlocked,
// NCHW Transpose and Slices, ToBlocked: four passes, two of them by the
// generic reference kernels). onnxc-layout-selection forms them
// (simd.BlockedChannelGather).
#ifndef ONNXC_RT_SIMD_F32_CHANNEL_GATHER_H
#define ONNXC_RT_SIMD_F32_CHANNEL_GATHER_H

#include <type_traits>

#include "onnxc_rt/kernels/simd/f32/blocking.h"
#include "onnxc_rt/kernels/simd/vec.h"
#include "onnxc_rt/parallel.h"

namespace onnxc_rt {
namespace simd {

/// Whether VecF permutes lanes by a run-time index (AVX-512: x86.h).
template <typename V, typename = void>
struct HasPermuteMerge : std::false_type {};
template <typename V>
struct HasPermuteMerge<V, std::void_t<decltype(V::permute_merge(
                              V::zero(), 0u, V::lane_index(nullptr), V::zero()))>>
    : std::true_type {};

/// The lanes of one output block that come from one input block: that
/// block (`src`, its first pixel), which lanes (`mask`) and, for each, the
/// lane it copies (`index`; 0 for the lanes not in `mask`).
struct GatherGroup {
  const float *src;
  uint32_t mask;
  int32_t index[kChannelBlock];
};

/// One output block's hw pixels from its `G` groups: a merging permute a
/// group per pixel (the block a vector: AVX-512).
template <int G, typename V = VecF>
inline void gather_block_pixels(const GatherGroup *g, float *out, int64_t hw) {
  typename V::LaneIndex index[G];
  for_each_index<G>([&](auto k) ONNXC_RT_SIMD_LAMBDA { index[k] = V::lane_index(g[k].index); });
  for (int64_t p = 0; p < hw; ++p) {
    V acc = V::zero();
    for_each_index<G>([&](auto k) ONNXC_RT_SIMD_LAMBDA {
      acc = V::permute_merge(acc, g[k].mask, index[k], V::load(g[k].src + p * kChannelBlock));
    });
    acc.store(out + p * kChannelBlock);
  }
}

/// One output block from its `groups` (`count` of them): the vector path
/// where the instruction set has it, else lane by lane; lanes in no group
/// (past the output's channels) are zero. (A template so that only the
/// instruction set's own branch compiles.)
template <typename V = VecF>
inline void gather_block(const GatherGroup *groups, int count, float *out, int64_t hw) {
  if constexpr (HasPermuteMerge<V>::value && V::kLanes == kChannelBlock) {
    switch (count) {
    case 1: return gather_block_pixels<1>(groups, out, hw);
    case 2: return gather_block_pixels<2>(groups, out, hw);
    case 3: return gather_block_pixels<3>(groups, out, hw);
    case 4: return gather_block_pixels<4>(groups, out, hw);
    default:
      for (int64_t p = 0; p < hw; ++p) {
        V acc = V::zero();
        for (int k = 0; k < count; ++k)
          acc = V::permute_merge(acc, groups[k].mask, V::lane_index(groups[k].index),
                                 V::load(groups[k].src + p * kChannelBlock));
        acc.store(out + p * kChannelBlock);
      }
      return;
    }
  }
  const float *lane_src[kChannelBlock] = {};
  for (int k = 0; k < count; ++k)
    for (int l = 0; l < kChannelBlock; ++l)
      if (groups[k].mask >> l & 1u)
        lane_src[l] = groups[k].src + groups[k].index[l];
  for (int64_t p = 0; p < hw; ++p)
    for (int l = 0; l < kChannelBlock; ++l)
      out[p * kChannelBlock + l] = lane_src[l] ? lane_src[l][p * kChannelBlock] : 0.0f;
}

/// y (blocked, m channels) = the channels of x0 (blocked, c0 channels) and
/// x1 (blocked, c1 channels; null when c1 is 0) that `from` names: y's
/// channel j is channel from[j] of x0 ++ x1 (from[j] < c0 + c1). n images
/// of hw pixels; y's padding lanes zero. `tasks` split the output blocks.
inline void channel_gather_blocked(const float *x0, int64_t c0, const float *x1, int64_t c1,
                                   const int64_t *from, int64_t m, float *y, int64_t n,
                                   int64_t hw, TaskRunner *runner = nullptr,
                                   int64_t tasks = 1) {
  const int64_t plane = hw * kChannelBlock, mb = channel_blocks(m);
  const int64_t image0 = channel_blocks(c0) * plane, image1 = channel_blocks(c1) * plane;
  parallel_for(runner, tasks, [&](int64_t task) {
    const Range r = split_range(n * mb, 1, tasks, task);
    for (int64_t u = r.begin; u < r.end; ++u) {
      const int64_t b = u / mb, blk = u % mb;
      GatherGroup groups[kChannelBlock];
      int count = 0;
      for (int l = 0; l < kChannelBlock && blk * kChannelBlock + l < m; ++l) {
        const int64_t s = from[blk * kChannelBlock + l];
        const bool first = s < c0;
        const int64_t ch = first ? s : s - c0;
        const float *src = (first ? x0 + b * image0 : x1 + b * image1) +
                           ch / kChannelBlock * plane;
        int k = 0;
        while (k < count && groups[k].src != src)
          ++k;
        if (k == count) {
          groups[k].src = src;
          groups[k].mask = 0;
          for (int32_t &i : groups[k].index)
            i = 0;
          ++count;
        }
        groups[k].mask |= 1u << l;
        groups[k].index[l] = static_cast<int32_t>(ch % kChannelBlock);
      }
      gather_block(groups, count, y + u * plane, hw);
    }
  });
}

} // namespace simd
} // namespace onnxc_rt

#endif
