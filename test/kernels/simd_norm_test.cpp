// The SIMD vector exp, the fused Sigmoid/SiLU activations, softmax /
// log-softmax, row means and layer normalisation against double precision
// and the reference kernels, at lengths around the vector width; the rows
// split among tasks give the same bits.
#include "support.h"

#include "onnxc_rt/kernels/reference/conv.h"
#include "onnxc_rt/kernels/reference/norm.h"
#include "onnxc_rt/kernels/simd/f32/gemm.h"
#include "onnxc_rt/kernels/simd/f32/norm.h"

#include <algorithm>

using namespace onnxc_rt;
using namespace kernel_test;

TEST_CASE("vector exp: relative error over its range", "[activation]") {
  double worst = 0;
  for (float x = -87.0f; x <= 87.9f; x += 0.0137f) {
    alignas(64) float in[simd::kLanes], out[simd::kLanes];
    for (int l = 0; l < simd::kLanes; ++l)
      in[l] = x + l * 0.001f;
    simd::exp(simd::VecF::load(in)).store(out);
    for (int l = 0; l < simd::kLanes; ++l)
      worst = std::max(worst, std::fabs(out[l] / std::exp(double(in[l])) - 1.0));
  }
  CHECK(worst <= 1e-6);
}

// Sigmoid and SiLU (the vector exp, then a division) against double
// precision over [-100, 100]: relative error down to 1e-30; below,
// absolute (exp's input is clamped at -87.3, so further left the results
// stay near their 1e-38..1e-36 values there).
TEST_CASE("fused sigmoid and silu against double precision", "[activation]") {
  double worst[2] = {0, 0};
  for (float x = -100.0f; x <= 100.0f; x += 0.00731f) {
    alignas(64) float in[simd::kLanes], sig[simd::kLanes], silu[simd::kLanes];
    for (int l = 0; l < simd::kLanes; ++l)
      in[l] = x + l * 0.0003f;
    simd::vector_activation<ref::Sigmoid>(simd::VecF::load(in), 0, 0).store(sig);
    simd::vector_activation<ref::Silu>(simd::VecF::load(in), 0, 0).store(silu);
    for (int l = 0; l < simd::kLanes; ++l) {
      const double s = 1.0 / (1.0 + std::exp(-double(in[l])));
      const float got[2] = {sig[l], silu[l]};
      const double want[2] = {s, in[l] * s};
      for (int f = 0; f < 2; ++f) {
        const double err = std::fabs(want[f]) > 1e-30 ? std::fabs(got[f] / want[f] - 1.0)
                                                      : std::fabs(got[f] - want[f]) * 1e29;
        worst[f] = std::max(worst[f], err);
      }
    }
  }
  CHECK(worst[0] <= 1e-6);
  CHECK(worst[1] <= 1e-6);
}

// Lengths around the vector width and its multiples, rows offset so the
// tails land everywhere; inputs scaled so exp spans a wide range, and
// shifted so layer norm's mean is large.
TEST_CASE("row normalisations around the vector width", "[norm]") {
  const int64_t n = GENERATE(1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100, 256, 1000);
  const int64_t outer = 3;
  INFO("n=" << n);
  auto x = randomVec(outer * n);
  for (float &v : x)
    v = v * 20.0f + 5.0f;
  SECTION("softmax and log-softmax") {
    for (int64_t mode : {0, 1}) {
      std::vector<float> want(outer * n), got(outer * n);
      ref::softmax<float>(x.data(), want.data(), outer, n, 1, mode);
      simd::softmax(x.data(), got.data(), outer, n, mode);
      CHECK_CLOSE(mode ? "log_softmax" : "softmax", got, want, outer * n, 8);
      std::vector<float> split(outer * n);
      simd::softmax(x.data(), split.data(), outer, n, mode, pool(), kTasks);
      CHECK(split == got); // rows split among tasks: the same bits
    }
  }
  SECTION("row mean") {
    std::vector<float> want(outer), got(outer);
    ref::global_pool<float>(x.data(), want.data(), outer, n, 0);
    simd::row_mean(x.data(), got.data(), outer, n);
    CHECK_CLOSE("row_mean", got, want, outer, n);
  }
  SECTION("layer norm") {
    auto scale = randomVec(n), bias = randomVec(n);
    for (bool with_bias : {false, true}) {
      std::vector<float> want(outer * n), got(outer * n), wm(outer), gm(outer), wi(outer),
          gi(outer);
      const float *bp = with_bias ? bias.data() : nullptr;
      ref::layer_norm<float>(x.data(), scale.data(), bp, want.data(), wm.data(), wi.data(),
                             outer, n, 1e-5f);
      simd::layer_norm(x.data(), scale.data(), bp, got.data(), gm.data(), gi.data(), outer, n,
                       1e-5f);
      CHECK_CLOSE("layer_norm", got, want, outer * n, n);
      CHECK_CLOSE("layer_norm mean", gm, wm, outer, n);
      CHECK_CLOSE("layer_norm inv_std", gi, wi, outer, n);
      std::vector<float> split(outer * n), sm(outer), si(outer);
      simd::layer_norm(x.data(), scale.data(), bp, split.data(), sm.data(), si.data(), outer, n,
                       1e-5f, pool(), kTasks);
      CHECK(split == got);
      CHECK(sm == gm);
      CHECK(si == gi);
    }
  }
}
