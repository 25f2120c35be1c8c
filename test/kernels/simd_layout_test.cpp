// The SIMD NCHW <-> channel-blocked conversions (bit-exact against the
// reference conversions) and global average pooling on the blocked layout,
// channels around the block and the vector width, planes around the
// transposes.
#include "support.h"

#include "onnxc_rt/kernels/reference/conv.h"
#include "onnxc_rt/kernels/simd/f32/blocked.h"

using namespace onnxc_rt;
using namespace kernel_test;

TEST_CASE("blocked layout conversions and global average pooling", "[layout]") {
  const int64_t c = GENERATE(1, 3, 8, 15, 16, 17, 40);
  const int64_t hw = GENERATE(1, 7, 8, 9, 16, 49, 100);
  INFO("c=" << c << " hw=" << hw);
  const int64_t shape[4] = {2, c, hw, 1};
  auto x = randomVec(2 * c * hw);
  const std::vector<float> want = blocked(x, shape);
  std::vector<float> got(want.size(), 7.f), back(x.size(), 7.f);
  simd::to_blocked(x.data(), got.data(), 2, c, hw, pool(), kTasks);
  CHECK_SAME("to_blocked", got, want, (int64_t)want.size());
  simd::from_blocked(got.data(), back.data(), 2, c, hw, pool(), kTasks);
  CHECK_SAME("from_blocked", back, x, (int64_t)x.size());
  std::vector<float> mean(2 * c), gb(2 * simd::channel_blocks(c) * simd::kChannelBlock);
  ref::global_pool<float>(x.data(), mean.data(), 2 * c, hw, 0);
  simd::global_average_pool_blocked(want.data(), gb.data(), 2, c, hw, pool(), kTasks);
  const int64_t pooled[4] = {2, c, 1, 1};
  CHECK_CLOSE("global_average_pool_blocked", unblocked(gb, pooled), mean, 2 * c, hw);
}
