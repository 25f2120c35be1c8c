// The SIMD GEMM and MatMul against the reference kernels, swept around every
// tile and cache-block edge: m around kGemmMR, kMatrixMR and kGemmMC, n around the
// register tile's columns and kGemmNC, k around kGemmKC; transposes and
// every Gemm C broadcast; B packed ahead (gemm_prepacked); one task and
// kTasks (bit-identical).
#include "support.h"

#include "onnxc_rt/kernels/reference/linalg.h"
#include "onnxc_rt/kernels/simd/f32/gemm.h"

#include <cstdio>

using namespace onnxc_rt;
using namespace kernel_test;

static void checkGemm(int64_t m, int64_t n, int64_t k, int ta, int tb, int cmode) {
  INFO("m=" << m << " n=" << n << " k=" << k << " ta=" << ta << " tb=" << tb << " c=" << cmode);
  auto a = randomVec(m * k), b = randomVec(k * n), c = randomVec(m * n);
  // C broadcast: 0 none, 1 scalar, 2 per column (n), 3 per row (m x 1), 4 full.
  const int64_t csm[] = {0, 0, 0, 1, n}, csn[] = {0, 0, 1, 0, 1};
  const float *cp = cmode ? c.data() : nullptr;
  std::vector<float> want(m * n), got(m * n, 123.f);
  ref::gemm<float>(a.data(), b.data(), cp, want.data(), m, n, k, ta, tb, 0.75f, 1.5f,
                   csm[cmode], csn[cmode]);
  for (float &v : want)
    v = ref::Relu::apply(v, 0, 0);
  std::vector<float> scratch(simd::gemm_scratch_floats(m, n, k));
  simd::gemm<ref::Relu>(a.data(), b.data(), cp, got.data(), m, n, k, ta, tb, 0.75f, 1.5f,
                        csm[cmode], csn[cmode], 0, 0, scratch.data());
  CHECK_CLOSE("gemm", got, want, m * n, k);
  std::vector<float> split(m * n, 123.f), split_scratch(kTasks * scratch.size());
  simd::gemm<ref::Relu>(a.data(), b.data(), cp, split.data(), m, n, k, ta, tb, 0.75f, 1.5f,
                        csm[cmode], csn[cmode], 0, 0, split_scratch.data(), pool(), kTasks);
  CHECK_SAME("gemm", split, got, m * n);
  // B packed ahead as the compiler packs a constant one: the same tiles
  // (at m == 1 gemm takes a row times B instead, summed in another order).
  std::vector<float> packed(simd::packed_b_floats(k, n, simd::kNR));
  simd::pack_b_ahead(b.data(), tb ? 1 : n, tb ? k : 1, k, n, simd::kNR, packed.data());
  std::vector<float> pre(m * n, 123.f), pre_split(m * n, 123.f);
  std::vector<float> pre_scratch(simd::prepacked_gemm_scratch_floats(m, k));
  std::vector<float> pre_split_scratch(kTasks * pre_scratch.size());
  simd::gemm_prepacked<ref::Relu, simd::kNR>(a.data(), packed.data(), cp, pre.data(), m, n, k, ta,
                                             0.75f, 1.5f, csm[cmode], csn[cmode], 0, 0,
                                             pre_scratch.data());
  CHECK_CLOSE("gemm_prepacked", pre, want, m * n, k);
  if (m > 1)
    CHECK_SAME("gemm_prepacked", pre, got, m * n);
  simd::gemm_prepacked<ref::Relu, simd::kNR>(a.data(), packed.data(), cp, pre_split.data(), m, n,
                                             k, ta, 0.75f, 1.5f, csm[cmode], csn[cmode], 0, 0,
                                             pre_split_scratch.data(), pool(), kTasks);
  CHECK_SAME("gemm_prepacked", pre_split, pre, m * n);
}

/// The fused epilogue with activation Act (bias per column, alpha and beta):
/// the in-register forms (Relu, Clamp, Sigmoid, SiLU) and the stored-tile
/// ones (LeakyRelu, HardSigmoid), on the tiles and on B packed ahead. The
/// convolution sweep runs fewer functors on its many paths (they share
/// this epilogue code).
template <typename Act>
static void checkGemmActivation(float act_alpha, float act_beta) {
  const int64_t m = 13, n = 33, k = 70;
  auto a = randomVec(m * k), b = randomVec(k * n), c = randomVec(n);
  std::vector<float> want(m * n), got(m * n, 123.f), pre(m * n, 123.f);
  ref::gemm<float>(a.data(), b.data(), c.data(), want.data(), m, n, k, 0, 1, 0.75f, 1.5f, 0, 1);
  for (float &v : want)
    v = Act::apply(v, act_alpha, act_beta);
  std::vector<float> scratch(simd::gemm_scratch_floats(m, n, k));
  simd::gemm<Act>(a.data(), b.data(), c.data(), got.data(), m, n, k, 0, 1, 0.75f, 1.5f, 0, 1,
                  act_alpha, act_beta, scratch.data());
  CHECK_CLOSE("gemm", got, want, m * n, k);
  std::vector<float> packed(simd::packed_b_floats(k, n, simd::kNR));
  simd::pack_b_ahead(b.data(), 1, k, k, n, simd::kNR, packed.data());
  std::vector<float> pre_scratch(simd::prepacked_gemm_scratch_floats(m, k));
  simd::gemm_prepacked<Act, simd::kNR>(a.data(), packed.data(), c.data(), pre.data(), m, n, k, 0,
                                       0.75f, 1.5f, 0, 1, act_alpha, act_beta,
                                       pre_scratch.data());
  CHECK_CLOSE("gemm_prepacked", pre, want, m * n, k);
}

static void checkMatMul(int64_t batch, int64_t m, int64_t k, int64_t n, bool broadcastB) {
  INFO("batch=" << batch << " m=" << m << " k=" << k << " n=" << n);
  auto a = randomVec(batch * m * k), b = randomVec((broadcastB ? 1 : batch) * k * n);
  std::vector<float> want(batch * m * n), got(batch * m * n);
  int64_t shape[1] = {batch}, as[1] = {m * k}, bs[1] = {broadcastB ? 0 : k * n};
  ref::matmul<float>(a.data(), b.data(), want.data(), m, k, n, 1, shape, as, bs);
  std::vector<float> scratch(simd::gemm_scratch_floats(m, n, k));
  simd::matmul<float>(a.data(), b.data(), got.data(), m, k, n, 1, shape, as, bs, scratch.data());
  CHECK_CLOSE("matmul", got, want, batch * m * n, k);
  std::vector<float> split(batch * m * n), split_scratch(kTasks * scratch.size());
  simd::matmul<float>(a.data(), b.data(), split.data(), m, k, n, 1, shape, as, bs,
                      split_scratch.data(), pool(), kTasks);
  CHECK_SAME("matmul", split, got, batch * m * n);
}

TEST_CASE("gemm around the tile and cache-block edges", "[gemm]") {
  const int64_t m = GENERATE(1, 2, 5, 6, 7, 8, 9, 13, 16, 95, 96, 97, 150);
  const int64_t n = GENERATE(1, 3, 15, 16, 17, 31, 32, 33, 100);
  const int64_t k = GENERATE(1, 7, 255, 256, 257, 600);
  checkGemm(m, n, k, int((m + n) % 2), int((n + k) % 2), int((m + n + k) % 5));
}

TEST_CASE("gemm transposes and C broadcasts", "[gemm]") {
  const int ta = GENERATE(0, 1), tb = GENERATE(0, 1), cmode = GENERATE(0, 1, 2, 3, 4);
  checkGemm(37, 45, 70, ta, tb, cmode);
}

TEST_CASE("gemm shapes from models", "[gemm]") {
  SECTION("crosses the kGemmNC column block") { checkGemm(20, 2047 + 40, 40, 0, 0, 2); }
  SECTION("a batch-1 fully connected layer") { checkGemm(1, 1000, 512, 0, 1, 2); }
  SECTION("one row, split by columns: each B layout and C broadcast") {
    for (int tb : {0, 1})
      for (int cmode : {0, 1, 2, 3, 4})
        checkGemm(1, 77, 40, 0, tb, cmode);
  }
}

TEST_CASE("gemm with every activation", "[gemm]") {
  checkGemmActivation<ref::Identity>(0, 0);
  checkGemmActivation<ref::Relu>(0, 0);
  checkGemmActivation<ref::Clamp>(-0.5f, 0.5f);
  checkGemmActivation<ref::Sigmoid>(0, 0);
  checkGemmActivation<ref::Silu>(0, 0);
  checkGemmActivation<ref::LeakyRelu>(0.1f, 0);
  checkGemmActivation<ref::HardSigmoid>(0.2f, 0.5f);
}

TEST_CASE("batched matmul", "[matmul]") {
  SECTION("batched B") { checkMatMul(3, 17, 33, 40, false); }
  SECTION("B broadcast over the batch") { checkMatMul(4, 128, 64, 128, true); }
  SECTION("one row") { checkMatMul(2, 1, 300, 50, false); }
}
