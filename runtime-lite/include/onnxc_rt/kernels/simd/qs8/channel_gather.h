// Channel gathers of int8 / uint8 NCHW tensors (simd.ChannelGather, which
// onnxc-layout-selection forms from a quantized channel shuffle and the
// Slices of its halves): each output plane is one input plane, copied, or
// mapped through that input's 256-byte table where it has one (the QRescale
// a Concat input of another scale had). One pass over the output where the
// ops it replaces took five (two rescales, the Concat, the Transpose, a
// Slice), each over the whole tensor or half of it.
#ifndef ONNXC_RT_SIMD_QS8_CHANNEL_GATHER_H
#define ONNXC_RT_SIMD_QS8_CHANNEL_GATHER_H

#include <string.h>

#include "onnxc_rt/kernels/simd/qs8/elementwise.h"

namespace onnxc_rt {
namespace simd {
namespace qs8 {

/// Output planes a task boundary may fall after so that no 64-byte line of
/// the output is written by two tasks: planes of hw bytes, a multiple of
/// 64 / gcd(hw, 64) of them (the output starts on a line, as the arena
/// places tensors).
inline int64_t whole_line_planes(int64_t hw) {
  int64_t a = hw % 64, b = 64;
  while (a) {
    const int64_t t = b % a;
    b = a;
    a = t;
  }
  return 64 / b;
}

/// y (n, m, hw) where y's channel j is channel channels[j] of the channel
/// concatenation of x0 (n, c0, hw) and x1 (n, c1, hw; null, c1 0, for one
/// input), each plane through its input's table (null: copied as it is);
/// split among tasks by runs of output planes. (The arguments of
/// channel_gather_blocked, simd/f32/channel_gather.h, then the tables.)
template <typename T>
void channel_gather(const T *x0, int64_t c0, const T *x1, int64_t c1, const int64_t *channels,
                    int64_t m, T *y, int64_t n, int64_t hw, const T *table0, const T *table1,
                    TaskRunner *runner = nullptr, int64_t tasks = 1) {
  static_assert(sizeof(T) == 1, "a gather of bytes");
  // About a cycle per 8 bytes through a table (twenty instructions a
  // vector), less for a copy.
  const int64_t cycles = n * m * hw / 8;
  for_each_split(runner, tasks, n * m, whole_line_planes(hw), cycles, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const int64_t image = i / m, j = channels[i % m];
      const bool second = j >= c0;
      const T *src = second ? x1 + (image * c1 + j - c0) * hw : x0 + (image * c0 + j) * hw;
      const T *table = second ? table1 : table0;
      if (table)
        lookup(src, table, y + i * hw, hw);
      else
        memcpy(y + i * hw, src, size_t(hw));
    }
  });
}

} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif
