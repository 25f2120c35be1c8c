// The measurements behind the x86 targets' choice of convolution algorithm
// for a 3x3 stride-1 dense convolution on the channel-blocked layout
// (winograd_plan.h's winograd_tile): for each shape on the command line, C,M,HW
// (C input and M output channels, an HW x HW plane, padding 1), the median
// time of the direct convolution (conv2d_blocked), of Winograd F(4x4, 3x3),
// F(2x2, 3x3) and F(6x6, 3x3) (winograd_conv2d_blocked), with calls
// rotating over copies of the packed weights that fill ~100 MB, as a
// model's layers find their weights (not in cache), or, after --cached, on
// one copy (as a small model's weights stay cached between inferences);
// and each algorithm's largest error against a double-precision
// convolution, over 512 sampled outputs, relative to the largest of them.
// One line a shape:
//   C M HW direct_ms f4_ms f2_ms f6_ms direct_err f4_err f2_err f6_err
// bench/conv_algo_fit.py builds it with a target's flags, runs a grid of
// shapes and fits winograd_tile's thresholds to the times.
#include "onnxc_rt/kernels/simd/f32/blocked.h"
#include "onnxc_rt/kernels/simd/f32/winograd.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace onnxc_rt;

namespace {

// The median time of run(copy) over calls rotating through `copies`.
template <typename F>
double median_ms(int64_t copies, int64_t flop, F &&run) {
  const int calls = static_cast<int>(std::clamp<int64_t>(int64_t(4e9) / flop, 9, 201));
  std::vector<double> t;
  run(0); // warm the code
  for (int r = 0; r < calls; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    run(r % copies);
    auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

void measure(int64_t c, int64_t m, int64_t hw, bool cached) {
  const int64_t in[4] = {1, c, hw, hw}, out[4] = {1, m, hw, hw}, kernel[2] = {3, 3};
  const int64_t strides[2] = {1, 1}, pads[2] = {1, 1}, dil[2] = {1, 1};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> x(c * hw * hw), w(m * c * 9), bias(m);
  for (float &v : x)
    v = u(rng);
  for (float &v : w)
    v = u(rng) / std::sqrt(float(c * 9));
  for (float &v : bias)
    v = u(rng) * 0.1f;
  const int64_t cb = simd::channel_blocks(c), mb = simd::channel_blocks(m);
  std::vector<float> xb(cb * simd::kChannelBlock * hw * hw, 0.f);
  simd::to_blocked(x.data(), xb.data(), 1, c, hw * hw);
  const int64_t flop = 2 * m * c * 9 * hw * hw;
  constexpr int kAlgos = 4; // direct, F(4x4), F(2x2), F(6x6)
  constexpr int64_t kTiles[kAlgos] = {0, 4, 2, 6};
  std::vector<float> ys[kAlgos];
  double ms[kAlgos];
  for (int algo = 0; algo < kAlgos; ++algo) {
    const int64_t tile = kTiles[algo];
    const int64_t floats = algo == 0
                               ? simd::blocked_conv_weights_floats(m, c, 9, true, false)
                               : simd::winograd_weights_floats(m, c, tile);
    std::vector<float> packed(floats), work(m * c);
    if (algo == 0)
      simd::pack_blocked_conv_weights(w.data(), m, c, 9, true, false, packed.data());
    else
      simd::pack_winograd_weights(w.data(), m, c, work.data(), packed.data(), tile);
    const int64_t copies = cached ? 1 : std::max<int64_t>(2, 25000000 / floats);
    std::vector<std::vector<float>> wc(copies, packed);
    std::vector<float> scratch(
        (algo == 0 ? simd::blocked_conv_scratch_floats(in, out, kernel, strides, pads, dil, true)
                   : simd::winograd_scratch_floats(in, out, tile)) +
        1);
    std::vector<float> y(mb * simd::kChannelBlock * hw * hw);
    ms[algo] = median_ms(copies, flop, [&](int64_t k) {
      if (algo == 0)
        simd::conv2d_blocked<ref::Identity>(xb.data(), wc[k].data(), bias.data(), nullptr,
                                           y.data(), in, out, kernel, strides, pads, dil, 1, 0,
                                           0, scratch.data());
      else
        simd::winograd_conv2d_blocked_tile<ref::Identity>(tile, xb.data(), wc[k].data(),
                                                          bias.data(), nullptr, y.data(), in, out,
                                                          pads, 0.f, 0.f, scratch.data());
    });
    ys[algo].resize(m * hw * hw);
    simd::from_blocked(y.data(), ys[algo].data(), 1, m, hw * hw);
  }
  // Errors at sampled outputs against a double-precision convolution.
  double err[kAlgos] = {}, largest = 0;
  std::uniform_int_distribution<int64_t> any(0, m * hw * hw - 1);
  for (int s = 0; s < 512; ++s) {
    const int64_t o = any(rng), j = o / (hw * hw), oy = o / hw % hw, ox = o % hw;
    double want = bias[j];
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t ky = 0; ky < 3; ++ky)
        for (int64_t kx = 0; kx < 3; ++kx) {
          const int64_t iy = oy + ky - 1, ix = ox + kx - 1;
          if (iy >= 0 && iy < hw && ix >= 0 && ix < hw)
            want += double(x[(ch * hw + iy) * hw + ix]) * w[((j * c + ch) * 3 + ky) * 3 + kx];
        }
    largest = std::max(largest, std::fabs(want));
    for (int a = 0; a < kAlgos; ++a)
      err[a] = std::max(err[a], std::fabs(ys[a][o] - want));
  }
  std::printf("%lld %lld %lld", (long long)c, (long long)m, (long long)hw);
  for (int a = 0; a < kAlgos; ++a)
    std::printf(" %.4f", ms[a]);
  for (int a = 0; a < kAlgos; ++a)
    std::printf(" %.3g", err[a] / largest);
  std::printf("\n");
  std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
  bool cached = false; // wherever it stands, for every shape
  for (int i = 1; i < argc; ++i)
    cached = cached || std::string(argv[i]) == "--cached";
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--cached")
      continue;
    long long c, m, hw;
    if (std::sscanf(argv[i], "%lld,%lld,%lld", &c, &m, &hw) != 3 || c < 1 || m < 1 || hw < 1) {
      std::fprintf(stderr, "conv_algo_bench: '%s' is not C,M,HW\n", argv[i]);
      return 1;
    }
    measure(c, m, hw, cached);
  }
  return 0;
}
