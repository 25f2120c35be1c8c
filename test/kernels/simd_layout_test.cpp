// The SIMD NCHW <-> channel-blocked conversions (bit-exact against the
// reference conversions) and global average pooling on the blocked layout,
// channels around the block and the vector width, planes around the
// transposes; the reference Transpose split among tasks.
#include "support.h"

#include "onnxc_rt/kernels/reference/conv.h"
#include "onnxc_rt/kernels/simd/f32/blocked.h"
#include "onnxc_rt/kernels/simd/f32/blocked_window.h"
#include "onnxc_rt/kernels/simd/f32/channel_gather.h"
#include "onnxc_rt/kernels/reference/tensor.h"

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

// Channel gathers (simd/f32/channel_gather.h) against the ONNX ops they
// replace, run by the reference kernels on NCHW: ShuffleNet's channel
// shuffle (Concat of two, Reshape to (n, 2, c / 2, h, w), Transpose (0, 2,
// 1, 3, 4), Reshape back) and its split into two halves (Slices), with
// channel counts around the block; then random picks from one or two
// inputs (up to 16 groups a block: the vector path's every case).
TEST_CASE("blocked channel gather: shuffle, split and random picks", "[layout]") {
  const int64_t half = GENERATE(3, 8, 16, 24, 29, 58, 116);
  const int64_t hw = GENERATE(1, 7, 49);
  INFO("half=" << half << " hw=" << hw);
  const int64_t n = 2, c = 2 * half;
  const int64_t s0[4] = {n, half, hw, 1}, sc[4] = {n, c, hw, 1};
  auto a = randomVec(n * half * hw), b = randomVec(n * half * hw);
  // The reference: Concat (channel axis), then the shuffle's Transpose.
  std::vector<float> cat(n * c * hw), shuffled(cat.size());
  for (int64_t i = 0; i < n; ++i) {
    std::copy(a.begin() + i * half * hw, a.begin() + (i + 1) * half * hw,
              cat.begin() + i * c * hw);
    std::copy(b.begin() + i * half * hw, b.begin() + (i + 1) * half * hw,
              cat.begin() + i * c * hw + half * hw);
  }
  const int64_t five[5] = {n, 2, half, hw, 1}, perm[5] = {0, 2, 1, 3, 4};
  ref::transpose<float>(cat.data(), shuffled.data(), 5, five, perm);
  const auto ab = blocked(a, s0), bb = blocked(b, s0);
  // The shuffle's table: output channel 2i + g is input g * half + i.
  std::vector<int64_t> from(c);
  for (int64_t j = 0; j < c; ++j)
    from[j] = j % 2 * half + j / 2;
  std::vector<float> got(n * simd::channel_blocks(c) * simd::kChannelBlock * hw, 7.f);
  simd::channel_gather_blocked(ab.data(), half, bb.data(), half, from.data(), c, got.data(), n,
                               hw, pool(), kTasks);
  CHECK_SAME("shuffle", unblocked(got, sc), shuffled, (int64_t)shuffled.size());
  CHECK_SAME("shuffle, padding lanes", got, blocked(shuffled, sc), (int64_t)got.size());
  // Its two halves, as the next unit's Slices take them.
  for (int64_t part = 0; part < 2; ++part) {
    const int64_t starts[4] = {0, part * half, 0, 0}, steps[4] = {1, 1, 1, 1};
    std::vector<float> want(n * half * hw);
    ref::slice<float>(shuffled.data(), want.data(), 4, sc, s0, starts, steps);
    std::vector<float> sliced(n * simd::channel_blocks(half) * simd::kChannelBlock * hw, 7.f);
    simd::channel_gather_blocked(ab.data(), half, bb.data(), half, from.data() + part * half,
                                 half, sliced.data(), n, hw, pool(), kTasks);
    CHECK_SAME("split", unblocked(sliced, s0), want, (int64_t)want.size());
  }
  // Random picks (repeats allowed) from a alone and from a and b.
  for (const bool two : {false, true}) {
    const int64_t m = half + 5, inputs = two ? c : half;
    std::uniform_int_distribution<int64_t> any(0, inputs - 1);
    std::vector<int64_t> pick(m);
    for (int64_t &p : pick)
      p = any(rng());
    std::vector<float> want(n * m * hw);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j)
        std::copy_n(cat.begin() + (i * c + pick[j]) * hw, hw, want.begin() + (i * m + j) * hw);
    const int64_t sm[4] = {n, m, hw, 1};
    std::vector<float> out(n * simd::channel_blocks(m) * simd::kChannelBlock * hw, 7.f);
    simd::channel_gather_blocked(ab.data(), half, two ? bb.data() : nullptr, two ? half : 0,
                                 pick.data(), m, out.data(), n, hw, pool(), kTasks);
    CHECK_SAME(two ? "random picks of two" : "random picks of one", out, blocked(want, sm),
               (int64_t)out.size());
  }
}

// Transpose split among tasks (the SIMD targets' form) against an index
// loop: attention's head split, a channel shuffle, outer dims of 1.
TEST_CASE("transpose split among tasks", "[layout]") {
  struct Case {
    int64_t rank, shape[5], perm[5];
  };
  const Case cases[] = {{3, {7, 4, 5}, {1, 0, 2}},           {4, {1, 9, 4, 6}, {0, 2, 1, 3}},
                        {5, {1, 2, 5, 3, 3}, {0, 2, 1, 3, 4}}, {2, {13, 3}, {1, 0}},
                        {4, {1, 1, 3, 2}, {0, 1, 3, 2}},       {3, {2, 1, 1}, {2, 1, 0}},
                        // In tiles (reference/tensor.h's rows_keep_lines says no): attention's
                        // K^T, a 2-D transpose with a partial tile, a dim between the tiled
                        // two, and NHWC -> NCHW.
                        {3, {128, 4, 64}, {1, 2, 0}},          {2, {40, 256}, {1, 0}},
                        {3, {20, 3, 1024}, {2, 1, 0}},          {4, {1, 7, 9, 256}, {0, 3, 1, 2}}};
  for (const Case &k : cases) {
    int64_t count = 1, in_strides[5];
    for (int64_t d = k.rank - 1; d >= 0; --d) {
      in_strides[d] = count;
      count *= k.shape[d];
    }
    std::vector<float> x = randomVec(count), want(count), got(count, 7.f);
    int64_t idx[5] = {0, 0, 0, 0, 0};
    for (int64_t i = 0; i < count; ++i) { // y's index idx, row-major
      int64_t src = 0;
      for (int64_t d = 0; d < k.rank; ++d)
        src += idx[d] * in_strides[k.perm[d]];
      want[i] = x[src];
      for (int64_t d = k.rank - 1; d >= 0 && ++idx[d] == k.shape[k.perm[d]]; --d)
        idx[d] = 0;
    }
    ref::transpose_split(x.data(), got.data(), k.rank, k.shape, k.perm, pool(), kTasks);
    INFO("rank " << k.rank << " first dim " << k.shape[0]);
    REQUIRE(got == want);
  }
}
