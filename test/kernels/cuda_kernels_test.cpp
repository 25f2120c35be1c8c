// runtime-lite's CUDA kernels against the reference kernels, run on the CPU
// through the emulation of CUDA's programming model (cuda_emulation.h: a
// block's threads are host threads, with its barriers and warp shuffles).
// Shapes sweep the tiled GEMM's edges (64 x 64 tiles of both shapes,
// depth in steps of 16 or 32), the convolution's paths (implicit GEMM from 16 output channels per
// group, direct below: depthwise, narrow groups), strides, dilations, pads,
// 1-D windows, broadcasts and the warp-per-row reductions. This checks the
// kernels' logic, not a GPU: docs/targets.md, "CUDA".
#include "cuda_emulation.h"

// The tiles the GEMM launcher uses: 0 its own choice (gemm.cuh's
// choose_tiles), else a forced detail::Tiles value, so that every tile shape
// of both arithmetics meets the reference.
namespace tile_choice {
int forced = 0;
} // namespace tile_choice
#define ONNXC_CUDA_GEMM_TILES (tile_choice::forced)

#include "onnxc_rt/kernels/cuda/conv.cuh"
#include "onnxc_rt/kernels/cuda/detection.cuh"
#include "onnxc_rt/kernels/cuda/elementwise.cuh"
#include "onnxc_rt/kernels/cuda/gemm.cuh"
#include "onnxc_rt/kernels/cuda/linalg.cuh"
#include "onnxc_rt/kernels/cuda/norm.cuh"
#include "onnxc_rt/kernels/cuda/qs8.cuh"
#include "onnxc_rt/kernels/cuda/quant.cuh"
#include "onnxc_rt/kernels/cuda/reduce.cuh"
#include "onnxc_rt/kernels/cuda/resize.cuh"
#include "onnxc_rt/kernels/cuda/rnn.cuh"
#include "onnxc_rt/kernels/cuda/sample.cuh"
#include "onnxc_rt/kernels/cuda/signal.cuh"
#include "onnxc_rt/kernels/cuda/text.cuh"
#include "onnxc_rt/kernels/cuda/tensor.cuh"

#include "support.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "onnxc_rt/kernels/reference/conv.h"
#include "onnxc_rt/kernels/reference/detection.h"
#include "onnxc_rt/kernels/reference/elementwise.h"
#include "onnxc_rt/kernels/reference/linalg.h"
#include "onnxc_rt/kernels/reference/norm.h"
#include "onnxc_rt/kernels/reference/reduce.h"
#include "onnxc_rt/kernels/reference/resize.h"
#include "onnxc_rt/kernels/reference/signal.h"
#include "onnxc_rt/kernels/reference/tensor.h"

namespace kernel_test {
ThreadPool *pool() { return nullptr; } // support.h's split runs are not used here
} // namespace kernel_test

using namespace onnxc_rt;
using namespace kernel_test;

namespace {

constexpr cuda::Stream *kStream = nullptr; // the emulation runs launches at once

/// Values rounded to a few levels, so many tie.
std::vector<float> coarseVec(int64_t n, float levels) {
  std::vector<float> v = randomVec(n);
  for (float &x : v)
    x = std::round(x * levels) / levels;
  return v;
}

struct ConvCase {
  int64_t n, c, h, w, m, kh, kw, stride, pad, dil, group;
  bool bias, residual, oneD;
};

std::string describe(const ConvCase &k) {
  std::ostringstream os;
  os << "n" << k.n << " c" << k.c << " " << k.h << "x" << k.w << " m" << k.m << " k" << k.kh
     << "x" << k.kw << " s" << k.stride << " p" << k.pad << " d" << k.dil << " g" << k.group
     << (k.bias ? " bias" : "") << (k.residual ? " residual" : "") << (k.oneD ? " 1-D" : "");
  return os.str();
}

/// The window arguments of a ConvCase (pads `pad` before and `pad + extra`
/// after each spatial dim) and its sizes.
struct ConvGeometry {
  std::vector<int64_t> in, out, kern, strides, pb, pe, dil;
  int64_t rank, xn, yn, depth; // depth: C / group x kernel taps
};

ConvGeometry convGeometry(const ConvCase &k, int64_t extra) {
  ConvGeometry g;
  g.rank = k.oneD ? 1 : 2;
  const int64_t h = k.oneD ? 1 : k.h, kh = k.oneD ? 1 : k.kh;
  auto outSize = [&](int64_t in, int64_t kk, int64_t pb, int64_t pe) {
    return (in + pb + pe - k.dil * (kk - 1) - 1) / k.stride + 1;
  };
  const int64_t oh = k.oneD ? 1 : outSize(h, kh, k.pad, k.pad + extra);
  const int64_t ow = outSize(k.w, k.kw, k.pad, k.pad + extra);
  g.in = {k.n, k.c};
  g.out = {k.n, k.m};
  auto dim = [&](int64_t in, int64_t out, int64_t kk) {
    g.in.push_back(in);
    g.out.push_back(out);
    g.kern.push_back(kk);
    g.strides.push_back(k.stride);
    g.pb.push_back(k.pad);
    g.pe.push_back(k.pad + extra);
    g.dil.push_back(k.dil);
  };
  if (!k.oneD)
    dim(h, oh, kh);
  dim(k.w, ow, k.kw);
  g.xn = k.n * k.c * h * k.w;
  g.yn = k.n * k.m * oh * ow;
  g.depth = (k.c / k.group) * kh * k.kw;
  return g;
}

/// The CUDA convolution (bias, residual and activation fused) against the
/// reference conv, then Add and the activation, as the reference lowering
/// runs a FusedConv.
template <typename Act> void checkConv(const ConvCase &k, float alpha, float beta) {
  INFO(describe(k));
  ConvGeometry g = convGeometry(k, /*extra=*/1); // asymmetric pads
  const int64_t rank = g.rank, xn = g.xn, yn = g.yn, wn = k.m * g.depth;
  std::vector<int64_t> &in = g.in, &out = g.out, &kern = g.kern, &strides = g.strides,
                       &pb = g.pb, &pe = g.pe, &dil = g.dil;
  std::vector<float> x = randomVec(xn), w = randomVec(wn), b = randomVec(k.m),
                     z = randomVec(yn);
  std::vector<float> want(yn), got(yn, -7.0f);
  ref::conv<float>(x.data(), w.data(), k.bias ? b.data() : nullptr, want.data(), rank,
                   in.data(), out.data(), kern.data(), strides.data(), pb.data(), pe.data(),
                   dil.data(), k.group);
  if (k.residual)
    for (int64_t i = 0; i < yn; ++i)
      want[i] += z[i];
  ref::unary<Act, float>(want.data(), want.data(), yn, alpha, beta);
  cuda::conv<Act, float>(kStream, x.data(), w.data(), k.bias ? b.data() : nullptr,
                         k.residual ? z.data() : nullptr, got.data(), rank, in.data(),
                         out.data(), kern.data(), strides.data(), pb.data(), pe.data(),
                         dil.data(), k.group, alpha, beta);
  CHECK(closeMismatch(got, want, yn, wn / k.m) == "");
}

} // namespace

TEST_CASE("convolution: implicit GEMM and direct paths against the reference", "[conv]") {
  tile_choice::forced = GENERATE(0, 1, 2);
  INFO("tiles " << tile_choice::forced);
  const ConvCase cases[] = {
      // implicit GEMM: >= 16 output channels per group, tiles cut at every edge
      {1, 3, 9, 11, 16, 3, 3, 1, 1, 1, 1, true, false, false},
      {1, 5, 13, 7, 70, 3, 3, 2, 1, 1, 1, true, true, false},
      {2, 17, 8, 9, 33, 1, 1, 1, 0, 1, 1, false, true, false},
      {1, 8, 12, 12, 64, 5, 3, 1, 2, 2, 1, true, false, false},
      {1, 32, 6, 6, 32, 3, 3, 1, 1, 1, 2, true, true, false},  // 2 groups of 16
      {1, 3, 20, 20, 65, 7, 7, 2, 3, 1, 1, true, false, false}, // a first layer
      {3, 20, 7, 7, 130, 3, 3, 1, 1, 1, 1, true, true, false},  // images side by side
      {2, 32, 5, 6, 48, 1, 1, 1, 0, 1, 2, true, true, false},   // and groups
      // direct: depthwise and narrow groups
      {1, 24, 10, 9, 24, 3, 3, 1, 1, 1, 24, true, false, false},
      {2, 16, 11, 11, 16, 3, 3, 2, 1, 1, 16, true, true, false},
      {1, 12, 7, 8, 8, 3, 3, 1, 1, 2, 4, false, false, false},
      {1, 3, 5, 5, 4, 2, 2, 1, 0, 1, 1, true, false, false},
      // 1-D windows (height 1)
      {1, 6, 1, 40, 20, 1, 5, 2, 2, 1, 1, true, false, true},
      {1, 8, 1, 17, 8, 1, 3, 1, 1, 3, 8, true, true, true},
  };
  for (const ConvCase &k : cases) {
    checkConv<ref::Relu>(k, 0, 0);
    checkConv<ref::Identity>(k, 0, 0);
    checkConv<ref::Clamp>(k, 0.0f, 6.0f);
  }
}

TEST_CASE("convolution: 3-D windows, direct, against the reference", "[conv]") {
  // (n, c, depth, height, width) -> m channels; strides, asymmetric pads,
  // dilations and 2 groups, each spatial dim different.
  const int64_t rank = 3, n = 2, c = 4, m = 6, group = 2;
  std::vector<int64_t> in = {n, c, 5, 6, 7}, kern = {3, 3, 2}, strides = {2, 1, 1},
                       pb = {1, 1, 0}, pe = {0, 1, 1}, dil = {1, 2, 1}, out = {n, m};
  for (int64_t d = 0; d < rank; ++d)
    out.push_back((in[2 + d] + pb[d] + pe[d] - dil[d] * (kern[d] - 1) - 1) / strides[d] + 1);
  const int64_t xn = n * c * 5 * 6 * 7, depth = c / group * 3 * 3 * 2,
                yn = n * m * out[2] * out[3] * out[4];
  std::vector<float> x = randomVec(xn), w = randomVec(m * depth), b = randomVec(m),
                     z = randomVec(yn);
  for (const bool fused : {false, true}) {
    INFO("bias, residual and Relu " << fused);
    std::vector<float> want(yn), got(yn, -7.0f);
    ref::conv<float>(x.data(), w.data(), fused ? b.data() : nullptr, want.data(), rank, in.data(),
                     out.data(), kern.data(), strides.data(), pb.data(), pe.data(), dil.data(),
                     group);
    if (fused) {
      for (int64_t i = 0; i < yn; ++i)
        want[i] += z[i];
      ref::unary<ref::Relu, float>(want.data(), want.data(), yn, 0, 0);
      cuda::conv<ref::Relu, float>(kStream, x.data(), w.data(), b.data(), z.data(), got.data(),
                                   rank, in.data(), out.data(), kern.data(), strides.data(),
                                   pb.data(), pe.data(), dil.data(), group, 0, 0);
    } else {
      cuda::conv<ref::Identity, float>(kStream, x.data(), w.data(), nullptr, nullptr, got.data(),
                                       rank, in.data(), out.data(), kern.data(), strides.data(),
                                       pb.data(), pe.data(), dil.data(), group, 0, 0);
    }
    CHECK(closeMismatch(got, want, yn, depth) == "");
  }
}

/// The relative error bound of one product on the tensor cores: each
/// input rounded to nearest with `bits` significant bits is off by at most
/// 2^-bits relative (TF32 and FP16 11, BF16 8), so a product by 2^(1-bits).
template <typename Math> double productError();
template <> double productError<cuda::Tf32>() { return std::ldexp(1.0, -10); }
template <> double productError<cuda::Fp16>() { return std::ldexp(1.0, -10); }
template <> double productError<cuda::Bf16>() { return std::ldexp(1.0, -7); }

/// "" when |got - want| <= (product error + k 2^-22) * bound + 1e-6 for
/// every element: rounded products summed in float, against the float
/// reference; `bound` holds sum |a_k b_k| per element (the reference run on
/// absolute values).
template <typename Math>
std::string mmaMismatch(const std::vector<float> &got, const std::vector<float> &want,
                        const std::vector<float> &bound, int64_t n, int64_t k) {
  const double rel = productError<Math>() + double(k) * std::ldexp(1.0, -22);
  for (int64_t i = 0; i < n; ++i)
    if (!(std::fabs(double(got[i]) - want[i]) <= rel * bound[i] + 1e-6)) {
      std::ostringstream os;
      os << "element " << i << " got " << got[i] << " want " << want[i] << " bound "
         << rel * bound[i];
      return os.str();
    }
  return "";
}

std::vector<float> absolute(std::vector<float> v) {
  for (float &x : v)
    x = std::fabs(x);
  return v;
}

float fromBits(uint32_t u) { return onnxc_rt::detail::float_from_bits(u); }

TEST_CASE("tensor-core operands: rounded to nearest as cvt does", "[mma]") {
  using Tf = cuda::detail::Mma<cuda::Tf32>;
  // TF32: 10 mantissa bits, ties away from zero.
  CHECK(fromBits(Tf::element(1.0f)) == 1.0f);
  CHECK(fromBits(Tf::element(1.0f + std::ldexp(1.0f, -11))) == 1.0f + std::ldexp(1.0f, -10));
  CHECK(fromBits(Tf::element(1.0f + std::ldexp(1.0f, -12))) == 1.0f);
  // -3 is 1.5 x 2^1: a step of 2^-9; half a step rounds away from zero.
  CHECK(fromBits(Tf::element(-3.0f - std::ldexp(1.0f, -10))) == -3.0f - std::ldexp(1.0f, -9));
  CHECK(fromBits(Tf::element(-3.0f - std::ldexp(1.0f, -11))) == -3.0f);
  // FP16 and BF16: ties to even.
  using H = cuda::detail::Mma<cuda::Fp16>;
  CHECK(H::element(1.0f) == 0x3c00);
  CHECK(H::element(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);                    // tie: even
  CHECK(H::element(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);                // tie: even
  CHECK(H::element(65520.0f) == 0x7c00);                                        // overflow
  CHECK(H::element(-std::ldexp(1.0f, -24)) == 0x8001);                          // subnormal
  using B = cuda::detail::Mma<cuda::Bf16>;
  CHECK(B::element(1.0f) == 0x3f80);
  CHECK(B::element(1.0f + std::ldexp(1.0f, -8)) == 0x3f80);                     // tie: even
  CHECK(B::element(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3f82);                 // tie: even
  CHECK(B::element(-2.0f - std::ldexp(1.0f, -7)) == 0xc000);
}

/// The matrix products on the tensor-core kernel, arithmetic Math, both
/// tile shapes, against the float reference within mmaMismatch's bound.
template <typename Math> void checkTensorCores() {
  tile_choice::forced = GENERATE(1, 2, 3); // (choose_tiles: Tall on the tensor cores)
  INFO("tiles " << tile_choice::forced);
  // The implicit-GEMM convolutions (16 or more output channels per group).
  const ConvCase convs[] = {{1, 5, 13, 7, 70, 3, 3, 2, 1, 1, 1, true, true, false},
                            {3, 20, 7, 7, 130, 3, 3, 1, 1, 1, 1, true, false, false},
                            {2, 17, 8, 9, 33, 1, 1, 1, 0, 1, 1, false, true, false},
                            {1, 32, 6, 6, 32, 3, 3, 1, 1, 1, 2, true, false, false},
                            {1, 6, 1, 40, 20, 1, 5, 2, 2, 1, 1, true, false, true}};
  for (const ConvCase &k : convs) {
    INFO(describe(k));
    const ConvGeometry g = convGeometry(k, /*extra=*/0);
    const int64_t rank = g.rank, xn = g.xn, yn = g.yn, depth = g.depth;
    const std::vector<int64_t> &in = g.in, &o = g.out, &kern = g.kern, &st = g.strides,
                               &pads = g.pb, &dil = g.dil;
    std::vector<float> x = randomVec(xn), w = randomVec(k.m * depth), b = randomVec(k.m);
    std::vector<float> want(yn), bound(yn), got(yn, -7.0f);
    ref::conv<float>(x.data(), w.data(), b.data(), want.data(), rank, in.data(), o.data(),
                     kern.data(), st.data(), pads.data(), pads.data(), dil.data(), k.group);
    ref::conv<float>(absolute(x).data(), absolute(w).data(), nullptr, bound.data(), rank,
                     in.data(), o.data(), kern.data(), st.data(), pads.data(), pads.data(),
                     dil.data(), k.group);
    cuda::conv<ref::Identity, float, Math>(kStream, x.data(), w.data(), b.data(), nullptr,
                                                got.data(), rank, in.data(), o.data(),
                                                kern.data(), st.data(), pads.data(),
                                                pads.data(), dil.data(), k.group, 0, 0);
    CHECK(mmaMismatch<Math>(got, want, bound, yn, depth) == "");
  }
  const int64_t dims[][3] = {{1, 1000, 512}, {17, 5, 33}, {65, 130, 47}, {128, 64, 200}};
  for (const auto &d : dims)
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb) {
        if (tile_choice::forced != 0 && ta != tb) // a forced tile: fewer transposes
          continue;
        const int64_t m = d[0], n = d[1], k = d[2];
        INFO("gemm m" << m << " n" << n << " k" << k << " ta" << ta << " tb" << tb);
        std::vector<float> a = randomVec(m * k), b = randomVec(k * n), c = randomVec(n);
        std::vector<float> want(m * n), bound(m * n), got(m * n, -7.0f);
        ref::gemm<float>(a.data(), b.data(), c.data(), want.data(), m, n, k, ta, tb, 1.0f, 1.0f,
                         0, 1);
        ref::gemm<float>(absolute(a).data(), absolute(b).data(), nullptr, bound.data(), m, n, k,
                         ta, tb, 1.0f, 0.0f, 0, 0);
        cuda::gemm<ref::Identity, float, Math>(kStream, a.data(), b.data(), c.data(),
                                                     got.data(), m, n, k, ta, tb, 1.0f, 1.0f, 0,
                                                     1, 0, 0);
        CHECK(mmaMismatch<Math>(got, want, bound, m * n, k) == "");
      }
  {
    const int64_t m = 33, k = 70, n = 20, batch[2] = {2, 3}, as[2] = {m * k, 0},
                  bs[2] = {0, k * n};
    std::vector<float> a = randomVec(2 * m * k), b = randomVec(3 * k * n);
    std::vector<float> want(6 * m * n), bound(6 * m * n), got(6 * m * n, -7.0f);
    ref::matmul<float>(a.data(), b.data(), want.data(), m, k, n, 2, batch, as, bs);
    ref::matmul<float>(absolute(a).data(), absolute(b).data(), bound.data(), m, k, n, 2, batch,
                       as, bs);
    cuda::matmul<float, Math>(kStream, a.data(), b.data(), got.data(), m, k, n, 2, batch,
                                    as, bs);
    CHECK(mmaMismatch<Math>(got, want, bound, 6 * m * n, k) == "");
  }
}

TEMPLATE_TEST_CASE("tensor cores: convolution, gemm and matmul", "[mma]", cuda::Tf32, cuda::Fp16,
                   cuda::Bf16) {
  checkTensorCores<TestType>();
}

// Split-K (small grids, deep sums): partial sums per depth chunk, added in
// split order by reduce_splits through the same epilogue.
TEST_CASE("split-K: convolution, gemm and matmul in depth chunks", "[splitk]") {
  tile_choice::forced = GENERATE(0, 1, 2, 3);
  INFO("tiles " << tile_choice::forced);
  for (int64_t splits : {2, 3, 16}) {
    INFO(splits << " splits");
    const ConvCase k{1, 64, 7, 7, 96, 3, 3, 1, 1, 1, 1, true, true, false};
    const ConvGeometry g = convGeometry(k, 0);
    std::vector<float> x = randomVec(g.xn), w = randomVec(k.m * g.depth), b = randomVec(k.m),
                       z = randomVec(g.yn), want(g.yn), got(g.yn, -7.0f),
                       partial(splits * g.yn);
    ref::conv<float>(x.data(), w.data(), b.data(), want.data(), g.rank, g.in.data(),
                     g.out.data(), g.kern.data(), g.strides.data(), g.pb.data(), g.pe.data(),
                     g.dil.data(), k.group);
    for (int64_t i = 0; i < g.yn; ++i)
      want[i] = std::max(0.0f, want[i] + z[i]);
    cuda::conv<ref::Relu, float>(kStream, x.data(), w.data(), b.data(), z.data(), got.data(),
                                 g.rank, g.in.data(), g.out.data(), g.kern.data(),
                                 g.strides.data(), g.pb.data(), g.pe.data(), g.dil.data(),
                                 k.group, 0, 0, splits, partial.data());
    CHECK(closeMismatch(got, want, g.yn, g.depth) == "");
    std::vector<float> bound(g.yn);
    ref::conv<float>(absolute(x).data(), absolute(w).data(), nullptr, bound.data(), g.rank,
                     g.in.data(), g.out.data(), g.kern.data(), g.strides.data(), g.pb.data(),
                     g.pe.data(), g.dil.data(), k.group);
    for (int64_t i = 0; i < g.yn; ++i)
      bound[i] += std::fabs(b[i / 49]) + std::fabs(z[i]);
    cuda::conv<ref::Relu, float, cuda::Tf32>(kStream, x.data(), w.data(), b.data(), z.data(),
                                             got.data(), g.rank, g.in.data(), g.out.data(),
                                             g.kern.data(), g.strides.data(), g.pb.data(),
                                             g.pe.data(), g.dil.data(), k.group, 0, 0, splits,
                                             partial.data());
    CHECK(mmaMismatch<cuda::Tf32>(got, want, bound, g.yn, g.depth) == "");

    const int64_t m = 3, n = 130, kk = 700;
    std::vector<float> a = randomVec(m * kk), bm = randomVec(kk * n), c = randomVec(n);
    std::vector<float> gw(m * n), gg(m * n, -7.0f), gp(splits * m * n);
    ref::gemm<float>(a.data(), bm.data(), c.data(), gw.data(), m, n, kk, 0, 1, 0.5f, 2.0f, 0, 1);
    cuda::gemm<ref::Identity, float>(kStream, a.data(), bm.data(), c.data(), gg.data(), m, n, kk,
                                     0, 1, 0.5f, 2.0f, 0, 1, 0, 0, splits, gp.data());
    CHECK(closeMismatch(gg, gw, m * n, kk) == "");

    const int64_t batch[1] = {2}, as[1] = {m * kk}, bs[1] = {0};
    std::vector<float> a2 = randomVec(2 * m * kk), mw(2 * m * n), mg(2 * m * n, -7.0f),
                       mp(splits * 2 * m * n);
    ref::matmul<float>(a2.data(), bm.data(), mw.data(), m, kk, n, 1, batch, as, bs);
    cuda::matmul<float>(kStream, a2.data(), bm.data(), mg.data(), m, kk, n, 1, batch, as, bs,
                        splits, mp.data());
    CHECK(closeMismatch(mg, mw, 2 * m * n, kk) == "");
  }
}

TEST_CASE("gemm: transposes, alpha and beta, broadcast C, fused activation", "[gemm]") {
  tile_choice::forced = GENERATE(0, 1, 2);
  INFO("tiles " << tile_choice::forced);
  const int64_t dims[][3] = {{1, 1, 1}, {1, 1000, 512}, {17, 5, 33}, {64, 64, 16},
                             {65, 130, 47}, {128, 3, 200}};
  for (const auto &d : dims)
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        for (int cMode = 0; cMode < 4; ++cMode) { // none, row vector, full, scalar
          if (tile_choice::forced != 0 && cMode != (ta + 2 * tb)) // a forced tile: one C each
            continue;
          const int64_t m = d[0], n = d[1], k = d[2];
          INFO("m" << m << " n" << n << " k" << k << " ta" << ta << " tb" << tb << " C"
                   << cMode);
          std::vector<float> a = randomVec(m * k), b = randomVec(k * n), c = randomVec(m * n);
          const int64_t csm = cMode == 2 ? n : 0, csn = cMode == 1 || cMode == 2 ? 1 : 0;
          const float* cp = cMode == 0 ? nullptr : c.data();
          std::vector<float> want(m * n), got(m * n, -7.0f);
          ref::gemm<float>(a.data(), b.data(), cp, want.data(), m, n, k, ta, tb, 0.75f, 1.5f,
                           csm, csn);
          ref::unary<ref::Relu, float>(want.data(), want.data(), m * n, 0, 0);
          cuda::gemm<ref::Relu, float>(kStream, a.data(), b.data(), cp, got.data(), m, n, k,
                                       ta, tb, 0.75f, 1.5f, csm, csn, 0, 0);
          CHECK(closeMismatch(got, want, m * n, k) == "");
        }
}

TEST_CASE("matmul: batches with broadcast operands", "[gemm]") {
  tile_choice::forced = GENERATE(0, 1, 2);
  INFO("tiles " << tile_choice::forced);
  // a (2, 1, m, k) x b (1, 3, k, n) -> (2, 3, m, n); and one plain 2-D.
  const int64_t dims[][3] = {{7, 9, 70}, {65, 17, 1}, {1, 33, 64}};
  for (const auto &d : dims) {
    const int64_t m = d[0], k = d[1], n = d[2];
    INFO("m" << m << " k" << k << " n" << n);
    const int64_t batch[2] = {2, 3};
    const int64_t as[2] = {m * k, 0}, bs[2] = {0, k * n};
    std::vector<float> a = randomVec(2 * m * k), b = randomVec(3 * k * n);
    std::vector<float> want(6 * m * n), got(6 * m * n, -7.0f);
    ref::matmul<float>(a.data(), b.data(), want.data(), m, k, n, 2, batch, as, bs);
    cuda::matmul<float>(kStream, a.data(), b.data(), got.data(), m, k, n, 2, batch, as, bs);
    CHECK(closeMismatch(got, want, 6 * m * n, k) == "");
    std::vector<float> want2(m * n), got2(m * n);
    ref::matmul<float>(a.data(), b.data(), want2.data(), m, k, n, 0, nullptr, nullptr, nullptr);
    cuda::matmul<float>(kStream, a.data(), b.data(), got2.data(), m, k, n, 0, nullptr, nullptr,
                        nullptr);
    CHECK(closeMismatch(got2, want2, m * n, k) == "");
  }
}

TEST_CASE("pooling: max and average windows, global mean and max, unpooling", "[pool]") {
  struct PoolCase {
    int64_t h, w, k, s, pad, dil;
  };
  const PoolCase cases[] = {{112, 112, 3, 2, 1, 1}, {7, 9, 2, 2, 0, 1}, {10, 10, 3, 1, 1, 2},
                            {5, 6, 3, 3, 1, 1}};
  for (const PoolCase &p : cases) {
    INFO("pool " << p.h << "x" << p.w << " k" << p.k << " s" << p.s << " p" << p.pad << " d"
                 << p.dil);
    // pads_end one more than pads_begin (ceil_mode-like), except with no padding.
    const int64_t pe = p.pad ? p.pad + 1 : 0;
    auto out = [&](int64_t in) { return (in + p.pad + pe - p.dil * (p.k - 1) - 1) / p.s + 1; };
    const int64_t in[4] = {2, 3, p.h, p.w}, o[4] = {2, 3, out(p.h), out(p.w)};
    const int64_t kern[2] = {p.k, p.k}, st[2] = {p.s, p.s}, pb[2] = {p.pad, p.pad},
                  pend[2] = {pe, pe}, dl[2] = {p.dil, p.dil};
    const int64_t xn = 6 * p.h * p.w, yn = 6 * o[2] * o[3];
    std::vector<float> x = randomVec(xn), want(yn), got(yn, -7.0f);
    ref::max_pool<float>(x.data(), want.data(), nullptr, 2, in, o, kern, st, pb, pend, dl, 0);
    cuda::max_pool<float>(kStream, x.data(), got.data(), nullptr, 2, in, o, kern, st, pb, pend,
                          dl, 0);
    CHECK(sameMismatch(got, want, yn) == "");
    if (p.dil == 1)
      for (int64_t include = 0; include < 2; ++include) {
        ref::avg_pool<float>(x.data(), want.data(), 2, in, o, kern, st, pb, pend, dl, include);
        cuda::avg_pool<float>(kStream, x.data(), got.data(), 2, in, o, kern, st, pb, pend, dl,
                              include);
        CHECK(closeMismatch(got, want, yn, p.k * p.k) == "");
      }
  }
  {
    // 3-D windows, and MaxPool's indices in both storage orders (2-D and
    // 3-D): one output a thread by the reference's rules, so equal.
    const int64_t in[5] = {2, 3, 5, 6, 7}, o[5] = {2, 3, 3, 3, 4}, kern[3] = {2, 3, 2},
                  st[3] = {2, 2, 2}, pb[3] = {0, 1, 1}, pend[3] = {1, 1, 1}, dl[3] = {1, 1, 1};
    const int64_t xn = 6 * 5 * 6 * 7, yn = 6 * 3 * 3 * 4;
    std::vector<float> x = coarseVec(xn, 4.0f), want(yn), got(yn, -7.0f); // ties pick the first
    for (int64_t rank = 2; rank <= 3; ++rank)
      for (int64_t order = 0; order < 2; ++order) {
        INFO("rank " << rank << " max pool, indices, storage order " << order);
        // 2-D: the last two dims of the 3-D case's.
        const int64_t in2[4] = {2, 3, 6, 7}, o2[4] = {2, 3, 3, 4}, f = 3 - rank;
        const int64_t *ri = rank == 3 ? in : in2, *ro = rank == 3 ? o : o2;
        std::vector<int64_t> wi(yn), gi(yn, -7);
        ref::max_pool<float>(x.data(), want.data(), wi.data(), rank, ri, ro, kern + f, st + f,
                             pb + f, pend + f, dl + f, order);
        cuda::max_pool<float>(kStream, x.data(), got.data(), gi.data(), rank, ri, ro, kern + f,
                              st + f, pb + f, pend + f, dl + f, order);
        const int64_t n = product(ro, rank + 2);
        CHECK(sameMismatch(got, want, n) == "");
        CHECK(std::equal(wi.begin(), wi.begin() + n, gi.begin()));
      }
    for (int64_t include = 0; include < 2; ++include) {
      INFO("3-D average pool, count_include_pad " << include);
      ref::avg_pool<float>(x.data(), want.data(), 3, in, o, kern, st, pb, pend, dl, include);
      cuda::avg_pool<float>(kStream, x.data(), got.data(), 3, in, o, kern, st, pb, pend, dl,
                            include);
      CHECK(sameMismatch(got, want, yn) == "");
    }
  }
  {
    // MaxUnpool: 400 inputs naming 290 positions from -10 on (repeats, where
    // the later input wins; negatives; past the 252 of the pooled shape),
    // into the pooled shape and into a larger output.
    const int64_t pool[4] = {2, 3, 6, 7}, big[4] = {2, 3, 7, 9}, n_in = 400;
    std::vector<float> x = randomVec(n_in);
    std::vector<int64_t> idx(n_in);
    for (int64_t i = 0; i < n_in; ++i)
      idx[i] = i * 7919 % 290 - 10;
    for (const int64_t *out : {pool, big}) {
      const int64_t n_out = product(out, 4);
      INFO("max unpool into " << n_out << " outputs");
      std::vector<float> want(n_out), got(n_out, -7.0f);
      std::vector<int> winner(n_out);
      ref::max_unpool<float, int64_t>(x.data(), idx.data(), want.data(), 4, pool, out, n_in);
      cuda::max_unpool<float, int64_t>(kStream, x.data(), idx.data(), got.data(), 4, pool, out,
                                       n_in, winner.data());
      CHECK(sameMismatch(got, want, n_out) == "");
    }
  }
  for (int64_t spatial : {1, 49, 1000})
    for (int64_t isMax = 0; isMax < 2; ++isMax) {
      INFO("global pool over " << spatial << (isMax ? " max" : " mean"));
      std::vector<float> x = randomVec(37 * spatial), want(37), got(37, -7.0f);
      ref::global_pool<float>(x.data(), want.data(), 37, spatial, isMax);
      cuda::global_pool<float>(kStream, x.data(), got.data(), 37, spatial, isMax);
      CHECK(closeMismatch(got, want, 37, spatial) == "");
    }
}

TEST_CASE("softmax, log-softmax and hardmax: rows and strided columns", "[norm]") {
  for (int64_t len : {1, 31, 32, 33, 1000})
    for (int64_t inner : {1, 3})
      for (int64_t mode = 0; mode < 3; ++mode) {
        INFO("len " << len << " inner " << inner << " mode " << mode);
        const int64_t outer = 5, total = outer * len * inner;
        std::vector<float> x = randomVec(total), want(total), got(total, -7.0f);
        for (float &v : x)
          v *= 8.0f;
        ref::softmax<float>(x.data(), want.data(), outer, len, inner, mode);
        cuda::softmax<float>(kStream, x.data(), got.data(), outer, len, inner, mode);
        CHECK(closeMismatch(got, want, total, len) == "");
      }
}

TEST_CASE("layer normalisation: a warp per row", "[norm]") {
  for (int64_t len : {1, 7, 64, 768})
    for (int withBias = 0; withBias < 2; ++withBias) {
      INFO("len " << len << (withBias ? " bias" : ""));
      const int64_t rows = 9;
      std::vector<float> x = randomVec(rows * len), s = randomVec(len), b = randomVec(len);
      for (float &v : x)
        v = 3.0f + 2.0f * v; // a mean far from 0
      std::vector<float> want(rows * len), got(rows * len, -7.0f);
      std::vector<float> wm(rows), wi(rows), gm(rows), gi(rows);
      ref::layer_norm<float>(x.data(), s.data(), withBias ? b.data() : nullptr, want.data(),
                             wm.data(), wi.data(), rows, len, 1e-5f);
      cuda::layer_norm<float>(kStream, x.data(), s.data(), withBias ? b.data() : nullptr,
                              got.data(), gm.data(), gi.data(), rows, len, 1e-5f);
      CHECK(closeMismatch(got, want, rows * len, len) == "");
      CHECK(closeMismatch(gm, wm, rows, len) == "");
      CHECK(closeMismatch(gi, wi, rows, len) == "");
    }
}

// Group normalization (2 of 6 channels a group) and instance
// normalization (a group per channel) with per-channel scale and bias, on
// planes whose mean is far from 0.
TEST_CASE("training-mode batch normalization and DFT against the reference", "[norm]") {
  {
    // The statistics are the reference's doubles in its order: equal.
    const int64_t n = 3, c = 5, spatial = 7 * 6;
    std::vector<float> x = randomVec(n * c * spatial), scale = randomVec(c), bias = randomVec(c),
                       mean = randomVec(c), var = randomVec(c);
    std::vector<float> want(x.size()), got(x.size(), -7.0f), wm(c), gm(c, -7.0f), wv(c),
        gv(c, -7.0f);
    ref::batch_norm_training<float>(x.data(), scale.data(), bias.data(), mean.data(), var.data(),
                                    want.data(), wm.data(), wv.data(), n, c, spatial, 1e-3f,
                                    0.9f);
    cuda::batch_norm_training<float>(kStream, x.data(), scale.data(), bias.data(), mean.data(),
                                     var.data(), got.data(), gm.data(), gv.data(), n, c, spatial,
                                     1e-3f, 0.9f);
    CHECK(sameMismatch(got, want, int64_t(want.size())) == "");
    CHECK(sameMismatch(gm, wm, c) == "");
    CHECK(sameMismatch(gv, wv, c) == "");
  }
  // DFT: real and complex input, zero-padded and truncated, onesided, inverse
  // (the emulation's cos and sin are the host's: equal).
  struct DftCase {
    int64_t complex_in, n_in, n_fft, onesided, inverse;
  };
  for (const DftCase &d : {DftCase{1, 12, 12, 0, 0}, DftCase{2, 10, 16, 0, 1},
                           DftCase{1, 20, 16, 1, 0}, DftCase{2, 9, 9, 0, 0}}) {
    INFO("complex " << d.complex_in << " n_in " << d.n_in << " n_fft " << d.n_fft << " onesided "
                    << d.onesided << " inverse " << d.inverse);
    const int64_t outer = 2, inner = 3, n_out = d.onesided ? d.n_fft / 2 + 1 : d.n_fft;
    std::vector<float> x = randomVec(outer * d.n_in * inner * d.complex_in);
    std::vector<float> want(outer * n_out * inner * 2), got(want.size(), -7.0f);
    ref::dft<float>(x.data(), want.data(), outer, d.n_in, inner, d.complex_in, d.n_fft, n_out,
                    d.inverse);
    cuda::dft<float>(kStream, x.data(), got.data(), outer, d.n_in, inner, d.complex_in, d.n_fft,
                     n_out, d.inverse);
    CHECK(sameMismatch(got, want, int64_t(want.size())) == "");
  }
}

// TfIdfVectorizer: rows of tokens from a small alphabet (so grams repeat),
// a pool of 1-, 2- and 3-grams with two grams sharing a column, skips up to
// 2, every mode, with and without weights: the reference's counts.
TEST_CASE("TfIdfVectorizer against the reference", "[text]") {
  const int64_t rows = 300, cols = 13; // more rows than a block of threads
  std::vector<int32_t> x(rows * cols);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = int32_t(i * 7 % 11 + i / 13 % 3) % 6;
  const int64_t pool[] = {1, 4, 0, 2, 3, 3, 5, 1, 1, 3, 2, 0, 4, 5, 1};
  const int64_t counts[] = {0, 3, 9}, indexes[] = {0, 1, 2, 3, 4, 2, 5};
  const double weights[] = {0.5, 2.0, 1.5, 0.25, 3.0, 1.0, 0.75};
  const int64_t out_dim = 6;
  for (int64_t mode = 0; mode < 3; ++mode)
    for (const double *w : {static_cast<const double *>(nullptr), weights})
      for (int64_t grams : {1, 2, 3}) {
        INFO("mode " << mode << (w ? " weighted" : "") << " grams 1.." << grams);
        std::vector<float> want(rows * out_dim), got(rows * out_dim, -7.0f);
        ref::tfidf<int32_t>(x.data(), want.data(), rows, cols, 1, grams, 2, pool, 15, counts, 3,
                            indexes, 7, w, out_dim, mode);
        cuda::tfidf<int32_t>(kStream, x.data(), got.data(), rows, cols, 1, grams, 2, pool, 15,
                             counts, 3, indexes, 7, w, out_dim, mode);
        CHECK(rows * out_dim - std::count(want.begin(), want.end(), 0.0f) > rows); // grams found
        CHECK(sameMismatch(got, want, rows * out_dim) == "");
      }
}

TEST_CASE("STFT, mel weights, windows and one-hot against the reference", "[signal]") {
  {
    const int64_t batch = 2, length = 50, step = 7, frame = 12, frames = 6, n_out = 7;
    for (int64_t complex_in = 1; complex_in <= 2; ++complex_in)
      for (bool windowed : {false, true}) {
        INFO("stft complex " << complex_in << " windowed " << windowed);
        std::vector<float> x = randomVec(batch * length * complex_in), w = randomVec(frame);
        std::vector<float> want(batch * frames * n_out * 2), got(want.size(), -7.0f);
        const float *wp = windowed ? w.data() : nullptr;
        ref::stft<float>(x.data(), wp, want.data(), batch, length, complex_in, step, frame,
                         frames, n_out);
        cuda::stft<float>(kStream, x.data(), wp, got.data(), batch, length, complex_in, step,
                          frame, frames, n_out);
        CHECK(sameMismatch(got, want, int64_t(want.size())) == "");
      }
  }
  {
    const int64_t bins = 9, dft = 64, rate = 8000;
    const float lower = 0.0f, upper = 4000.0f;
    std::vector<float> want(33 * bins), got(want.size(), -7.0f);
    std::vector<int64_t> scratch(bins + 2);
    ref::mel_weight_matrix<float, int64_t, float>(want.data(), bins, dft, &rate, &lower, &upper,
                                                  scratch.data());
    cuda::mel_weight_matrix<float, int64_t, float>(kStream, got.data(), bins, dft, &rate, &lower,
                                                   &upper, scratch.data());
    CHECK(sameMismatch(got, want, int64_t(want.size())) == "");
  }
  for (int64_t kind = 0; kind < 3; ++kind)
    for (int64_t periodic = 0; periodic < 2; ++periodic) {
      std::vector<float> want(10), got(10, -7.0f);
      ref::window<float>(want.data(), 10, kind, periodic);
      cuda::window<float>(kStream, got.data(), 10, kind, periodic);
      CHECK(sameMismatch(got, want, 10) == "");
    }
  {
    const int64_t outer = 3, depth = 5, inner = 4;
    const int64_t idx[outer * inner] = {0, 4, -1, -5, 2, 7, 3, 1, -2, 0, 4, 6};
    const float values[2] = {-1.5f, 2.5f};
    std::vector<float> want(outer * depth * inner), got(want.size(), -7.0f);
    ref::one_hot<int64_t, float>(idx, values, want.data(), outer, depth, inner);
    cuda::one_hot<int64_t, float>(kStream, idx, values, got.data(), outer, depth, inner);
    CHECK(sameMismatch(got, want, int64_t(want.size())) == "");
  }
}

TEST_CASE("group and instance normalization against the reference", "[norm]") {
  const int64_t n = 3, c = 6, spatial = 45;
  std::vector<float> x = randomVec(n * c * spatial), s = randomVec(c), b = randomVec(c);
  for (float &v : x)
    v = 3.0f + 2.0f * v;
  std::vector<float> want(x.size()), got(x.size(), -7.0f);
  ref::group_norm<float>(x.data(), s.data(), b.data(), want.data(), n, c, spatial, 3, 1e-5f);
  cuda::group_norm<float>(kStream, x.data(), s.data(), b.data(), got.data(), n, c, spatial, 3,
                          1e-5f);
  CHECK(closeMismatch(got, want, n * c * spatial, 2 * spatial) == "");
  ref::instance_norm<float>(x.data(), s.data(), b.data(), want.data(), n, c, spatial, 1e-5f);
  cuda::instance_norm<float>(kStream, x.data(), s.data(), b.data(), got.data(), n, c, spatial,
                             1e-5f);
  CHECK(closeMismatch(got, want, n * c * spatial, spatial) == "");
}

TEST_CASE("negative log-likelihood loss: each, sum and weighted mean", "[norm]") {
  // input (n, c, d), targets in [-1, c] (-1 and c out of range), one class
  // ignored; with and without class weights; int64 and int32 targets.
  const int64_t n = 5, c = 4, d = 37, count = n * d;
  std::vector<float> x = randomVec(n * c * d), w = randomVec(c);
  std::vector<int64_t> t64(count);
  std::vector<int32_t> t32(count);
  for (int64_t e = 0; e < count; ++e)
    t32[e] = int32_t(t64[e] = (e * 7 + 3) % (c + 2) - 1);
  for (int64_t reduction = 0; reduction < 3; ++reduction)
    for (int weighted = 0; weighted < 2; ++weighted)
      for (int has_ignore = 0; has_ignore < 2; ++has_ignore) {
        INFO("reduction " << reduction << (weighted ? " weighted" : "")
                          << (has_ignore ? " ignore 2" : ""));
        const float *wp = weighted ? w.data() : nullptr;
        const int64_t ny = reduction == 0 ? count : 1;
        std::vector<float> want(ny), got(ny, -7.0f), got32(ny, -7.0f);
        ref::nll_loss<float, int64_t>(x.data(), t64.data(), wp, want.data(), n, c, d,
                                      reduction, 2, has_ignore);
        cuda::nll_loss<float, int64_t>(kStream, x.data(), t64.data(), wp, got.data(), n, c, d,
                                       reduction, 2, has_ignore);
        cuda::nll_loss<float, int32_t>(kStream, x.data(), t32.data(), wp, got32.data(), n, c,
                                       d, reduction, 2, has_ignore);
        CHECK(closeMismatch(got, want, ny, count) == "");
        CHECK(closeMismatch(got32, want, ny, count) == "");
      }
}

TEST_CASE("reductions over any set of axes", "[reduce]") {
  const int64_t shape[4] = {2, 3, 4, 5};
  const int64_t masks[][4] = {{0, 0, 1, 1}, {0, 1, 0, 0}, {1, 1, 1, 1}, {0, 0, 0, 0}, {1, 0, 1, 0}};
  std::vector<float> x = randomVec(120);
  for (const auto &mask : masks) {
    INFO("mask " << mask[0] << mask[1] << mask[2] << mask[3]);
    std::vector<float> want(120), got(120, -7.0f);
    int64_t kept = 1;
    for (int d = 0; d < 4; ++d)
      kept *= mask[d] ? 1 : shape[d];
    ref::reduce<ref::ReduceMean, float>(x.data(), want.data(), 4, shape, mask);
    cuda::reduce<ref::ReduceMean, float>(kStream, x.data(), got.data(), 4, shape, mask);
    CHECK(closeMismatch(got, want, kept, 120) == "");
    ref::reduce<ref::ReduceMax, float>(x.data(), want.data(), 4, shape, mask);
    cuda::reduce<ref::ReduceMax, float>(kStream, x.data(), got.data(), 4, shape, mask);
    CHECK(sameMismatch(got, want, kept) == "");
    ref::reduce<ref::ReduceLogSumExp, float>(x.data(), want.data(), 4, shape, mask);
    cuda::reduce<ref::ReduceLogSumExp, float>(kStream, x.data(), got.data(), 4, shape, mask);
    CHECK(closeMismatch(got, want, kept, 120) == "");
  }
}

TEST_CASE("element-wise: the reference functors, broadcasts, where, clip, cast", "[elementwise]") {
  const int64_t n = 1000;
  std::vector<float> x = randomVec(n), want(n), got(n, -7.0f);
  for (float &v : x)
    v *= 4.0f;
  ref::unary<ref::Gelu, float>(x.data(), want.data(), n, 0, 0);
  cuda::unary<ref::Gelu, float>(kStream, x.data(), got.data(), n, 0, 0);
  CHECK(sameMismatch(got, want, n) == "");
  ref::unary<ref::Sigmoid, float>(x.data(), want.data(), n, 0, 0);
  cuda::unary<ref::Sigmoid, float>(kStream, x.data(), got.data(), n, 0, 0);
  CHECK(sameMismatch(got, want, n) == "");
  // (4, 5, 6) + (4, 1, 6) and (1, 5, 1) broadcasts; and same shape.
  const int64_t shape[3] = {4, 5, 6}, dense[3] = {30, 6, 1}, rowB[3] = {6, 0, 1},
                midB[3] = {0, 1, 0};
  std::vector<float> a = randomVec(120), b = randomVec(120), y1(120), y2(120, -7.0f);
  ref::binary<ref::Sub, float, float, float>(a.data(), b.data(), y1.data(), 3, shape, dense,
                                             rowB);
  cuda::binary<ref::Sub, float, float, float>(kStream, a.data(), b.data(), y2.data(), 3, shape,
                                              dense, rowB);
  CHECK(sameMismatch(y2, y1, 120) == "");
  ref::binary<ref::Mul, float, float, float>(a.data(), b.data(), y1.data(), 3, shape, midB,
                                             dense);
  cuda::binary<ref::Mul, float, float, float>(kStream, a.data(), b.data(), y2.data(), 3, shape,
                                              midB, dense);
  CHECK(sameMismatch(y2, y1, 120) == "");
  ref::binary<ref::Div, float, float, float>(a.data(), b.data(), y1.data(), 3, shape, dense,
                                             dense);
  cuda::binary<ref::Div, float, float, float>(kStream, a.data(), b.data(), y2.data(), 3, shape,
                                              dense, dense);
  CHECK(sameMismatch(y2, y1, 120) == "");
  bool cond[6] = {true, false, true, true, false, false};
  const int64_t condS[3] = {0, 0, 1};
  ref::where<float>(cond, a.data(), b.data(), y1.data(), 3, shape, condS, dense, rowB);
  cuda::where<float>(kStream, cond, a.data(), b.data(), y2.data(), 3, shape, condS, dense, rowB);
  CHECK(sameMismatch(y2, y1, 120) == "");
  const float lo = -0.25f, hi = 0.5f;
  ref::clip<float>(a.data(), y1.data(), 120, &lo, &hi);
  cuda::clip<float>(kStream, a.data(), y2.data(), 120, &lo, &hi);
  CHECK(sameMismatch(y2, y1, 120) == "");
  ref::broadcast_copy<float>(a.data(), y1.data(), 3, shape, rowB);
  cuda::broadcast_copy<float>(kStream, a.data(), y2.data(), 3, shape, rowB);
  CHECK(sameMismatch(y2, y1, 120) == "");
  std::vector<int32_t> iw(n), ig(n);
  ref::cast<float, int32_t>(x.data(), iw.data(), n);
  cuda::cast<float, int32_t>(kStream, x.data(), ig.data(), n);
  CHECK(iw == ig);
}

TEST_CASE("data movement: transpose, slice with steps, concat parts", "[tensor]") {
  const int64_t shape[4] = {2, 3, 5, 7}, perm[4] = {0, 2, 3, 1};
  std::vector<float> x = randomVec(210), want(210), got(210, -7.0f);
  ref::transpose<float>(x.data(), want.data(), 4, shape, perm);
  cuda::transpose<float>(kStream, x.data(), got.data(), 4, shape, perm);
  CHECK(sameMismatch(got, want, 210) == "");
  // x[:, 1:, ::2, ::-3]
  const int64_t out[4] = {2, 2, 3, 3}, starts[4] = {0, 1, 0, 6}, steps[4] = {1, 1, 2, -3};
  ref::slice<float>(x.data(), want.data(), 4, shape, out, starts, steps);
  cuda::slice<float>(kStream, x.data(), got.data(), 4, shape, out, starts, steps);
  CHECK(sameMismatch(got, want, 36) == "");
  std::vector<float> part = randomVec(6 * 4);
  std::fill(want.begin(), want.end(), 0.0f);
  std::fill(got.begin(), got.end(), 0.0f);
  ref::concat_part<float>(part.data(), want.data(), 6, 4, 11, 5);
  cuda::concat_part<float>(kStream, part.data(), got.data(), 6, 4, 11, 5);
  CHECK(sameMismatch(got, want, 66) == "");
  ref::split_part<float>(x.data(), want.data(), 6, 35, 9, 20);
  cuda::split_part<float>(kStream, x.data(), got.data(), 6, 35, 9, 20);
  CHECK(sameMismatch(got, want, 54) == "");
  // Gather along axis 1 of (2, 3, 35): negative and out-of-range indices.
  const int64_t idx[4] = {2, -1, 0, 7};
  std::vector<float> gw(280), gg(280, -7.0f);
  ref::gather<float, int64_t>(x.data(), idx, gw.data(), 2, 3, 35, 4);
  cuda::gather<float, int64_t>(kStream, x.data(), idx, gg.data(), 2, 3, 35, 4);
  CHECK(sameMismatch(gg, gw, 280) == "");
  // GatherElements along axis 2 of (2, 3, 5, 7) with indices (2, 3, 2, 7).
  std::vector<int32_t> eidx(84);
  for (size_t i = 0; i < eidx.size(); ++i)
    eidx[i] = int32_t(i * 7 % 10) - 5; // -5 .. 4
  const int64_t eshape[4] = {2, 3, 2, 7};
  ref::gather_elements<float, int32_t>(x.data(), eidx.data(), want.data(), 4, shape, eshape, 2);
  cuda::gather_elements<float, int32_t>(kStream, x.data(), eidx.data(), got.data(), 4, shape,
                                        eshape, 2);
  CHECK(sameMismatch(got, want, 84) == "");
}

// Tile, Pad (every mode, negative pads that crop, a constant and none),
// Trilu, CumSum (exclusive, reverse) and inference BatchNormalization:
// the reference's own per-element rules, so equal outputs.
TEST_CASE("tile, pad, trilu, cumsum and batch norm against the reference", "[tensor]") {
  const int64_t shape[4] = {2, 3, 5, 7};
  std::vector<float> x = randomVec(210);
  {
    const int64_t out[4] = {4, 3, 10, 14};
    std::vector<float> want(1680), got(1680, -7.0f);
    ref::tile<float>(x.data(), want.data(), 4, shape, out);
    cuda::tile<float>(kStream, x.data(), got.data(), 4, shape, out);
    CHECK(sameMismatch(got, want, 1680) == "");
  }
  const int64_t out[4] = {2, 5, 9, 6}, begin[4] = {0, 1, 3, -2};
  const float value = 2.5f;
  for (int64_t mode = 0; mode < 4; ++mode)
    for (const float *v : {&value, static_cast<const float *>(nullptr)}) {
      INFO("pad mode " << mode << (v ? " with a value" : ""));
      std::vector<float> want(540), got(540, -7.0f);
      ref::pad<float>(x.data(), want.data(), 4, shape, out, begin, mode, v);
      cuda::pad<float>(kStream, x.data(), got.data(), 4, shape, out, begin, mode, v);
      CHECK(sameMismatch(got, want, 540) == "");
    }
  for (int64_t k : {-2, 0, 3})
    for (int64_t upper = 0; upper < 2; ++upper) {
      std::vector<float> want(210), got(210, -7.0f);
      ref::trilu<float>(x.data(), want.data(), 6, 5, 7, k, upper);
      cuda::trilu<float>(kStream, x.data(), got.data(), 6, 5, 7, k, upper);
      CHECK(sameMismatch(got, want, 210) == "");
    }
  std::vector<int32_t> xi(210), wi(210), gi(210, -7);
  for (size_t i = 0; i < xi.size(); ++i)
    xi[i] = int32_t(i * 13 % 29) - 14;
  for (int64_t exclusive = 0; exclusive < 2; ++exclusive)
    for (int64_t reverse = 0; reverse < 2; ++reverse) {
      ref::cumsum<int32_t>(xi.data(), wi.data(), 6, 5, 7, exclusive, reverse);
      cuda::cumsum<int32_t>(kStream, xi.data(), gi.data(), 6, 5, 7, exclusive, reverse);
      CHECK(wi == gi);
    }
  std::vector<float> scale = randomVec(3), bias = randomVec(3), mean = randomVec(3),
                     var = absolute(randomVec(3)), want(210), got(210, -7.0f);
  ref::batch_norm<float>(x.data(), scale.data(), bias.data(), mean.data(), var.data(),
                         want.data(), 2, 3, 35, 1e-3f);
  cuda::batch_norm<float>(kStream, x.data(), scale.data(), bias.data(), mean.data(), var.data(),
                          got.data(), 2, 3, 35, 1e-3f);
  CHECK(sameMismatch(got, want, 210) == "");
}

// ConvTranspose (2-D with strides, dilation, uneven pads, output padding
// and two groups, with and without a bias; 1-D; 3-D) and LRN (odd and even
// sizes): the reference's sums in its order, so equal outputs.
TEST_CASE("conv transpose and LRN against the reference", "[conv]") {
  const int64_t in[4] = {2, 4, 5, 7}, out[4] = {2, 6, 13, 19}, kern[2] = {3, 2};
  const int64_t st[2] = {2, 3}, pb[2] = {1, 0}, pe[2] = {0, 1}, dil[2] = {2, 1};
  std::vector<float> x = randomVec(280), w = randomVec(72), b = randomVec(6);
  const float *const biases[2] = {b.data(), nullptr};
  for (const float *bias : biases) {
    INFO((bias ? "with" : "without") << " a bias");
    std::vector<float> want(2964), got(2964, -7.0f);
    ref::conv_transpose<float>(x.data(), w.data(), bias, want.data(), 2, in, out, kern, st, pb,
                               pe, dil, 2);
    cuda::conv_transpose<float>(kStream, x.data(), w.data(), bias, got.data(), 2, in, out, kern,
                                st, pb, pe, dil, 2);
    CHECK(sameMismatch(got, want, 2964) == "");
  }
  {
    const int64_t in1[3] = {2, 4, 35}, out1[3] = {2, 3, 72}, k1[1] = {4}, s1[1] = {2};
    const int64_t p1[1] = {0}, d1[1] = {1};
    std::vector<float> want(432), got(432, -7.0f);
    ref::conv_transpose<float>(x.data(), w.data(), b.data(), want.data(), 1, in1, out1, k1, s1,
                               p1, p1, d1, 1);
    cuda::conv_transpose<float>(kStream, x.data(), w.data(), b.data(), got.data(), 1, in1, out1,
                                k1, s1, p1, p1, d1, 1);
    CHECK(sameMismatch(got, want, 432) == "");
  }
  {
    INFO("3-D, two groups, output padding on the first dim");
    const int64_t in3[5] = {1, 4, 3, 4, 5}, out3[5] = {1, 6, 6, 7, 9}, k3[3] = {2, 3, 2};
    const int64_t s3[3] = {2, 1, 2}, pb3[3] = {1, 0, 0}, pe3[3] = {0, 1, 1}, d3[3] = {1, 2, 1};
    std::vector<float> w3 = randomVec(144), want(2268), got(2268, -7.0f);
    ref::conv_transpose<float>(x.data(), w3.data(), b.data(), want.data(), 3, in3, out3, k3, s3,
                               pb3, pe3, d3, 2);
    cuda::conv_transpose<float>(kStream, x.data(), w3.data(), b.data(), got.data(), 3, in3,
                                out3, k3, s3, pb3, pe3, d3, 2);
    CHECK(sameMismatch(got, want, 2268) == "");
  }
  for (int64_t size : {3, 4}) {
    INFO("LRN size " << size);
    std::vector<float> want(280), got(280, -7.0f);
    ref::lrn<float>(x.data(), want.data(), 2, 4, 35, 1e-3f, 0.75f, 2.0f, size);
    cuda::lrn<float>(kStream, x.data(), got.data(), 2, 4, 35, 1e-3f, 0.75f, 2.0f, size);
    CHECK(sameMismatch(got, want, 280) == "");
  }
}

// QuantizeLinear and DequantizeLinear per tensor and per axis, with and
// without zero points, on values that tie (x / scale = k + 0.5), saturate
// and go negative: the same integers and floats as the reference.
template <typename Q> void checkQuantize() {
  std::vector<float> x = randomVec(120), scale = {0.02f, 0.5f, 0.125f};
  for (size_t i = 0; i < x.size(); i += 5)
    x[i] = 0.125f * (float(i % 9) - 4.5f) * 8.0f; // ties and saturation
  const Q zps[3] = {Q(3), Q(0), Q(100)};
  for (int64_t count : {1, 3})
    for (const Q *zp : {zps, static_cast<const Q *>(nullptr)}) {
      INFO("count " << count << (zp ? " with" : " without") << " zero points");
      std::vector<Q> want(120), got(120, Q(7));
      ref::quantize_linear<float, Q>(x.data(), scale.data(), zp, want.data(), 4, 3, 10, count);
      cuda::quantize_linear<float, Q>(kStream, x.data(), scale.data(), zp, got.data(), 4, 3, 10,
                                      count);
      CHECK(want == got);
      std::vector<float> back(120), back_got(120, -7.0f);
      ref::dequantize_linear<Q, float>(want.data(), scale.data(), zp, back.data(), 4, 3, 10,
                                       count);
      cuda::dequantize_linear<Q, float>(kStream, want.data(), scale.data(), zp, back_got.data(),
                                        4, 3, 10, count);
      CHECK(sameMismatch(back_got, back, 120) == "");
    }
}

TEST_CASE("quantize and dequantize against the reference", "[quant]") {
  checkQuantize<int8_t>();
  checkQuantize<uint8_t>();
  checkQuantize<int16_t>();
  checkQuantize<uint16_t>();
  // DynamicQuantizeLinear: a range across zero, one above it (the range
  // still takes 0), and all zeros (scale 0).
  std::vector<float> x = randomVec(1000);
  for (int pass = 0; pass < 3; ++pass) {
    INFO("DynamicQuantizeLinear pass " << pass);
    if (pass > 0)
      for (float &v : x)
        v = pass == 1 ? std::fabs(v) + 0.5f : 0.0f;
    std::vector<uint8_t> want(1000), got(1000, 7);
    float want_scale = -1, got_scale = -2;
    uint8_t want_zp = 1, got_zp = 2;
    ref::dynamic_quantize_linear(x.data(), want.data(), &want_scale, &want_zp, 1000);
    cuda::dynamic_quantize_linear(kStream, x.data(), got.data(), &got_scale, &got_zp, 1000);
    CHECK(want == got);
    CHECK(want_scale == got_scale);
    CHECK(want_zp == got_zp);
  }
}

// The qs8 kernels against the reference's: convolution (strides,
// dilation, uneven pads, two groups, per-channel multipliers, a fused
// activation range), fully connected, broadcast add and mul, average pool
// with and without the padding counted, rescale and lookup; int8, uint8
// and int16 activations. Integer outputs: equal.
template <typename T> std::vector<T> qs8Values(size_t n, int seed) {
  std::vector<T> v(n);
  const int32_t lo = ref::qs8::Range<T>::lo, span = ref::qs8::Range<T>::hi - lo + 1;
  for (size_t i = 0; i < n; ++i)
    v[i] = T(lo + int32_t((i * 2654435761u + unsigned(seed) * 40503u) % unsigned(span)));
  return v;
}

template <typename T> void checkQs8() {
  using Acc = ref::qs8::Accumulator<T>;
  const int64_t in[4] = {2, 4, 9, 8}, out[4] = {2, 6, 5, 4}, kern[2] = {3, 2};
  const int64_t st[2] = {2, 2}, pb[2] = {1, 0}, pe[2] = {2, 1}, dil[2] = {1, 2};
  std::vector<T> x = qs8Values<T>(576, 1);
  std::vector<int8_t> w(6 * 2 * 6);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = int8_t(int(i * 37 % 255) - 127);
  std::vector<int32_t> bias = {100, -2000, 7, 0, 31000, -5}, mult(6), shift(6);
  for (int c = 0; c < 6; ++c) {
    const auto m = ref::qs8::quantize_multiplier(1e-3 * (c + 1));
    mult[c] = m.multiplier;
    shift[c] = m.shift;
  }
  const T x_zp = T(sizeof(T) > 1 ? 0 : 5);
  for (int64_t count : {1, 6}) {
    INFO("conv, " << count << " multipliers");
    std::vector<T> want(240), got(240);
    std::vector<Acc> scratch(20);
    const int32_t lo = ref::qs8::Range<T>::lo + 3, hi = ref::qs8::Range<T>::hi - 9;
    ref::qs8::conv<T>(x.data(), w.data(), &x_zp, bias.data(), want.data(), 2, in, out, kern, st,
                      pb, pe, dil, 2, scratch.data(), mult.data(), shift.data(), count, 3, lo,
                      hi);
    cuda::qs8::conv<T>(kStream, x.data(), w.data(), &x_zp, bias.data(), got.data(), 2, in, out,
                       kern, st, pb, pe, dil, 2, nullptr, mult.data(), shift.data(), count, 3,
                       lo, hi);
    CHECK(want == got);
  }
  {
    // (12, 48) x (48, 6).
    std::vector<T> want(72), got(72);
    std::vector<Acc> scratch(6);
    std::vector<int8_t> fw(288);
    for (size_t i = 0; i < fw.size(); ++i)
      fw[i] = int8_t(int(i * 53 % 255) - 127);
    ref::qs8::fully_connected<T>(x.data(), fw.data(), &x_zp, bias.data(), want.data(), 12, 48,
                                 6, scratch.data(), mult.data(), shift.data(), 6, -2,
                                 ref::qs8::Range<T>::lo, ref::qs8::Range<T>::hi);
    cuda::qs8::fully_connected<T>(kStream, x.data(), fw.data(), &x_zp, bias.data(), got.data(),
                                  12, 48, 6, nullptr, mult.data(), shift.data(), 6, -2,
                                  ref::qs8::Range<T>::lo, ref::qs8::Range<T>::hi);
    CHECK(want == got);
  }
  {
    // a (2, 4, 9, 8) + b (4, 1, 8) broadcast.
    const int64_t shape[4] = {2, 4, 9, 8}, as[4] = {288, 72, 8, 1}, bs[4] = {0, 8, 0, 1};
    std::vector<T> b = qs8Values<T>(32, 2), want(576), got(576);
    const int bits = sizeof(T) > 1 ? 16 : 8;
    const ref::qs8::AddParams p = ref::qs8::add_params(0.02, 3, 0.05, -7, 0.04, 1,
                                                       ref::qs8::Range<T>::lo,
                                                       ref::qs8::Range<T>::hi, bits);
    ref::qs8::add<T>(x.data(), b.data(), want.data(), 4, shape, as, bs, p.left_shift, p.a_zp,
                     p.a_multiplier, p.a_shift, p.b_zp, p.b_multiplier, p.b_shift, p.y_zp,
                     p.y_multiplier, p.y_shift, p.act_min, p.act_max);
    cuda::qs8::add<T>(kStream, x.data(), b.data(), got.data(), 4, shape, as, bs, p.left_shift,
                      p.a_zp, p.a_multiplier, p.a_shift, p.b_zp, p.b_multiplier, p.b_shift,
                      p.y_zp, p.y_multiplier, p.y_shift, p.act_min, p.act_max);
    CHECK(want == got);
    const auto m = ref::qs8::quantize_multiplier(sizeof(T) > 1 ? 3e-5 : 0.011);
    ref::qs8::mul<T>(x.data(), b.data(), want.data(), 4, shape, as, bs, 3, -7, 2, m.multiplier,
                     m.shift, ref::qs8::Range<T>::lo, ref::qs8::Range<T>::hi);
    cuda::qs8::mul<T>(kStream, x.data(), b.data(), got.data(), 4, shape, as, bs, 3, -7, 2,
                      m.multiplier, m.shift, ref::qs8::Range<T>::lo, ref::qs8::Range<T>::hi);
    CHECK(want == got);
  }
  for (int64_t include : {0, 1}) {
    INFO("average pool, count_include_pad " << include);
    const int64_t pout[4] = {2, 4, 5, 4}, pk[2] = {3, 3}, ps[2] = {2, 2}, ppb[2] = {1, 1};
    const int64_t ppe[2] = {1, 1}, pd[2] = {1, 1};
    const auto m = ref::qs8::quantize_multiplier(0.7);
    std::vector<T> want(160), got(160);
    ref::qs8::average_pool<T>(x.data(), want.data(), 2, in, pout, pk, ps, ppb, ppe, pd, include,
                              5, -3, m.multiplier, m.shift);
    cuda::qs8::average_pool<T>(kStream, x.data(), got.data(), 2, in, pout, pk, ps, ppb, ppe, pd,
                               include, 5, -3, m.multiplier, m.shift);
    CHECK(want == got);
  }
  {
    const auto m = ref::qs8::quantize_multiplier(1.7);
    std::vector<uint8_t> want(576), got(576);
    ref::qs8::rescale<T, uint8_t>(x.data(), 5, m.multiplier, m.shift, 128, want.data(), 576);
    cuda::qs8::rescale<T, uint8_t>(kStream, x.data(), 5, m.multiplier, m.shift, 128, got.data(),
                                   576);
    CHECK(want == got);
  }
}

TEST_CASE("qs8: integer kernels against the reference", "[qs8]") {
  checkQs8<int8_t>();
  checkQs8<uint8_t>();
  checkQs8<int16_t>();
  std::vector<int8_t> x = qs8Values<int8_t>(300, 3), table = qs8Values<int8_t>(256, 4);
  std::vector<int8_t> want(300), got(300);
  ref::qs8::lookup<int8_t>(x.data(), table.data(), want.data(), 300);
  cuda::qs8::lookup<int8_t>(kStream, x.data(), table.data(), got.data(), 300);
  CHECK(want == got);
}

// ONNX's integer ops: ConvInteger's sums (uint8 x with a zero point, int8
// w with one per output channel, an int32 bias, two groups), batched and
// broadcast MatMulInteger (zero points per row of A and per column of B),
// and the QLinear requantization per channel: equal to the reference.
TEST_CASE("integer convolution, matmul and requantization", "[quant]") {
  const int64_t in[4] = {2, 4, 7, 6}, out[4] = {2, 6, 4, 3}, kern[2] = {3, 2};
  const int64_t st[2] = {2, 2}, pb[2] = {1, 0}, pe[2] = {1, 1}, dil[2] = {1, 2};
  std::vector<uint8_t> x = qs8Values<uint8_t>(336, 5);
  std::vector<int8_t> w = qs8Values<int8_t>(6 * 2 * 6, 6), wz = {1, -2, 0, 3, -4, 5};
  const uint8_t xz = 9;
  std::vector<int32_t> bias = {7, -300, 0, 12, 99, -1}, want(144), got(144, -7);
  ref::conv_acc<uint8_t, int8_t, int32_t>(x.data(), w.data(), &xz, wz.data(), 6, bias.data(),
                                          want.data(), 2, in, out, kern, st, pb, pe, dil, 2);
  cuda::conv_acc<uint8_t, int8_t, int32_t>(kStream, x.data(), w.data(), &xz, wz.data(), 6,
                                           bias.data(), got.data(), 2, in, out, kern, st, pb, pe,
                                           dil, 2);
  CHECK(want == got);
  // a (2, 1, 5, 7) x b (3, 7, 4): batch (2, 3), A broadcast over the 3.
  const int64_t bshape[2] = {2, 3}, as[2] = {35, 0}, bs[2] = {0, 28};
  std::vector<uint8_t> az = {3, 0, 7, 1, 2};
  std::vector<int8_t> bz = {0, -1, 2, 5}, b = qs8Values<int8_t>(84, 8);
  std::vector<int32_t> mwant(120), mgot(120, -7);
  ref::matmul_acc<uint8_t, int8_t, int32_t>(x.data(), b.data(), az.data(), 5, bz.data(), 4,
                                            mwant.data(), 5, 7, 4, 2, bshape, as, bs);
  cuda::matmul_acc<uint8_t, int8_t, int32_t>(kStream, x.data(), b.data(), az.data(), 5,
                                             bz.data(), 4, mgot.data(), 5, 7, 4, 2, bshape, as,
                                             bs);
  CHECK(mwant == mgot);
  const float a_scale = 0.02f, y_scale = 0.7f;
  const std::vector<float> b_scale = {0.01f, 0.03f, 0.002f, 0.05f, 0.004f, 0.011f};
  const uint8_t yz = 128;
  std::vector<uint8_t> rwant(144), rgot(144, 7);
  ref::requantize<uint8_t>(want.data(), &a_scale, b_scale.data(), 6, &y_scale, &yz,
                           rwant.data(), 2, 6, 12);
  cuda::requantize<uint8_t>(kStream, want.data(), &a_scale, b_scale.data(), 6, &y_scale, &yz,
                            rgot.data(), 2, 6, 12);
  CHECK(rwant == rgot);
}

// IsNaN / IsInf (each sign), EyeLike (diagonals above, on and below, and
// past the matrix), GatherND with batch dims and negative indices.
// Einsum (a batched product, a diagonal of one operand, a sum of all) and
// Det (random matrices and a singular one): equal to the reference.
TEST_CASE("einsum and det against the reference", "[linalg]") {
  std::vector<float> a = randomVec(2 * 3 * 4), b = randomVec(2 * 4 * 5);
  {
    INFO("bij,bjk->bik");
    const int64_t sizes[4] = {2, 3, 4, 5}, as[4] = {12, 4, 1, 0}, bs[4] = {20, 0, 5, 1},
                  ys[4] = {15, 5, 0, 1};
    std::vector<float> want(30), got(30, -7.0f);
    ref::einsum<float>(a.data(), b.data(), want.data(), 4, sizes, as, bs, ys, 30);
    cuda::einsum<float>(kStream, a.data(), b.data(), got.data(), 4, sizes, as, bs, ys, 30);
    CHECK(sameMismatch(got, want, 30) == "");
  }
  {
    INFO("ii->i and ij->");
    const int64_t n4[1] = {4}, diag[1] = {5}, one[1] = {1}, zero[1] = {0};
    std::vector<float> sq = randomVec(16), want(4), got(4, -7.0f);
    ref::einsum<float>(sq.data(), nullptr, want.data(), 1, n4, diag, zero, one, 4);
    cuda::einsum<float>(kStream, sq.data(), nullptr, got.data(), 1, n4, diag, zero, one, 4);
    CHECK(sameMismatch(got, want, 4) == "");
    const int64_t sizes[2] = {3, 4}, as[2] = {4, 1}, none[2] = {0, 0};
    std::vector<float> swant(1), sgot(1, -7.0f);
    ref::einsum<float>(a.data(), nullptr, swant.data(), 2, sizes, as, none, none, 1);
    cuda::einsum<float>(kStream, a.data(), nullptr, sgot.data(), 2, sizes, as, none, none, 1);
    CHECK(sameMismatch(sgot, swant, 1) == "");
  }
  {
    INFO("det of 3 4x4 matrices, the last singular");
    std::vector<float> m = randomVec(3 * 16);
    for (int k = 0; k < 4; ++k)
      m[32 + 4 * k + 3] = 2.0f * m[32 + 4 * k + 1]; // column 3 = 2 x column 1
    std::vector<double> scratch(3 * 16);
    std::vector<float> want(3), got(3, -7.0f);
    ref::det<float>(m.data(), want.data(), 3, 4, scratch.data());
    cuda::det<float>(kStream, m.data(), got.data(), 3, 4, scratch.data());
    CHECK(sameMismatch(got, want, 3) == "");
    CHECK(std::fabs(want[2]) < 1e-5f);
  }
}

TEST_CASE("topk, nonzero and unique against the reference", "[tensor]") {
  // (outer 3, n 300, inner 2): lines longer than a block, ties, a K and an n
  // given at run time as the data-sized dims pass them.
  const int64_t outer = 3, n = 300, inner = 2, k = 40;
  std::vector<float> x = coarseVec(outer * n * inner, 8.0f);
  for (int64_t largest = 0; largest < 2; ++largest)
    for (int64_t sorted = 0; sorted < 2; ++sorted)
      for (int64_t k_run : {int64_t(-1), int64_t(0), int64_t(17), int64_t(40), int64_t(99)}) {
        const int64_t n_run = 250;
        INFO("largest " << largest << " sorted " << sorted << " k_run " << k_run);
        const int64_t *kp = k_run < 0 ? nullptr : &k_run;
        std::vector<float> want(outer * k * inner), got(want.size(), -7.0f);
        std::vector<int64_t> wi(want.size()), gi(want.size(), -7);
        int64_t we = -1, ge = -7;
        ref::topk<float>(x.data(), want.data(), wi.data(), outer, n, inner, k, largest, sorted,
                         &we, kp, &n_run);
        cuda::topk<float>(kStream, x.data(), got.data(), gi.data(), outer, n, inner, k, largest,
                          sorted, &ge, kp, &n_run);
        CHECK(ge == we);
        CHECK(sameMismatch(got, want, int64_t(want.size())) == "");
        CHECK(gi == wi);
      }
  {
    // No lines: the count is still written.
    int64_t we = -1, ge = -7, kr = 2;
    ref::topk<float>(x.data(), nullptr, nullptr, 0, n, inner, k, 1, 1, &we, &kr, nullptr);
    cuda::topk<float>(kStream, x.data(), nullptr, nullptr, 0, n, inner, k, 1, 1, &ge, &kr,
                      nullptr);
    CHECK(we == 2);
    CHECK(ge == we);
  }
  // NonZero over more elements than a block's tile, both layouts.
  const int64_t shape[3] = {5, 7, 11}, numel = 5 * 7 * 11;
  std::vector<float> z = coarseVec(numel, 2.0f); // about half are 0
  for (int64_t transposed = 0; transposed < 2; ++transposed) {
    std::vector<int64_t> want(3 * numel), got(3 * numel, -7);
    int64_t we = -1, ge = -7;
    ref::nonzero<float>(z.data(), want.data(), &we, 3, shape, numel, transposed);
    cuda::nonzero<float>(kStream, z.data(), got.data(), &ge, 3, shape, numel, transposed);
    CHECK(we > 256);
    CHECK(ge == we);
    CHECK(got == want);
  }
  // Unique of 300 slices (outer 2, inner 3) of few distinct values, NaNs
  // among them, sorted and in order of first occurrence; and of 400 scalars.
  for (int64_t inner : {int64_t(3), int64_t(1)})
    for (int64_t sorted = 0; sorted < 2; ++sorted) {
      const int64_t u_outer = inner == 3 ? 2 : 1, u_n = inner == 3 ? 300 : 400;
      INFO("unique inner " << inner << " sorted " << sorted);
      std::vector<float> u = coarseVec(u_outer * u_n * inner, 1.0f);
      u[7] = u[500 % u.size()] = std::nanf("");
      const int64_t size = u_outer * u_n * inner;
      std::vector<float> want(size), got(size, -7.0f);
      std::vector<int64_t> wi(u_n), gi(u_n, -7), wv(u_n), gv(u_n, -7), wc(u_n), gc(u_n, -7);
      std::vector<int64_t> scratch(ref::kUniqueScratchPerSlice * u_n);
      int64_t we = -1, ge = -7;
      ref::unique<float>(u.data(), want.data(), wi.data(), wv.data(), wc.data(), &we, u_outer,
                         u_n, inner, sorted, scratch.data());
      cuda::unique<float>(kStream, u.data(), got.data(), gi.data(), gv.data(), gc.data(), &ge,
                          u_outer, u_n, inner, sorted, scratch.data());
      CHECK(we > 3);
      CHECK(ge == we);
      CHECK(sameMismatch(got, want, size) == "");
      CHECK(gi == wi);
      CHECK(gv == wv);
      CHECK(gc == wc);
    }
}

TEST_CASE("non max suppression against the reference", "[detection]") {
  // 2 batches x 3 classes x 300 boxes: more candidates than a block's
  // threads, tied and NaN scores, both box formats, output rows cut short.
  const int64_t batches = 2, classes = 3, nboxes = 300;
  std::vector<float> boxes = randomVec(batches * nboxes * 4);
  for (float &b : boxes)
    b = b * 10.0f;
  std::vector<float> scores = coarseVec(batches * classes * nboxes, 16.0f);
  scores[5] = scores[700] = std::nanf("");
  const float iou = 0.3f, threshold = -0.5f;
  for (int64_t center = 0; center < 2; ++center)
    for (const float *st : {static_cast<const float *>(nullptr), &threshold})
      for (int64_t limit : {int64_t(0), int64_t(7), int64_t(1000)})
        for (int64_t bound : {int64_t(25), int64_t(batches * classes * nboxes)}) {
          INFO("center " << center << " threshold " << (st != nullptr) << " limit " << limit
                         << " bound " << bound);
          const int64_t n_run = 280;
          std::vector<int64_t> want(bound * 3), got(bound * 3, -7);
          std::vector<int64_t> rs(ref::kNmsScratchPerBox * nboxes);
          std::vector<int64_t> cs(batches * classes * ref::nms_class_scratch(nboxes));
          int64_t we = -1, ge = -7;
          ref::non_max_suppression(boxes.data(), scores.data(), &limit, &iou, st, want.data(),
                                   &we, batches, classes, nboxes, center, bound, rs.data(),
                                   &n_run);
          cuda::non_max_suppression(kStream, boxes.data(), scores.data(), &limit, &iou, st,
                                    got.data(), &ge, batches, classes, nboxes, center, bound,
                                    cs.data(), &n_run);
          CHECK(ge == we);
          CHECK(got == want);
          if (limit == 1000 && bound > 25)
            CHECK(we > 100);
        }
}

TEST_CASE("classify, eye like and gather nd against the reference", "[tensor]") {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {1.0f, -inf, inf, std::nanf(""), 0.0f, -2.5f};
  for (int64_t mode = 0; mode < 2; ++mode)
    for (int64_t neg = 0; neg < 2; ++neg)
      for (int64_t pos = 0; pos < 2; ++pos) {
        bool want[6], got[6];
        ref::classify<float>(x.data(), want, 6, mode, neg, pos);
        cuda::classify<float>(kStream, x.data(), got, 6, mode, neg, pos);
        CHECK(std::equal(want, want + 6, got));
      }
  for (int64_t k : {-2, 0, 3, 9}) {
    std::vector<int32_t> want(35), got(35, 7);
    ref::eye_like<int32_t>(want.data(), 5, 7, k);
    cuda::eye_like<int32_t>(kStream, got.data(), 5, 7, k);
    CHECK(want == got);
  }
  // data (2, 4, 3, 5), one batch dim, tuples of 2 indices -> slices of 5.
  std::vector<float> data = randomVec(120);
  const int64_t dims[2] = {4, 3};
  const std::vector<int64_t> idx = {0, 1, 3, -1, -4, 2, 1, 0, 2, 2, -1, -3};
  std::vector<float> want(30), got(30, -7.0f);
  ref::gather_nd<float, int64_t>(data.data(), idx.data(), want.data(), 2, 3, 2, dims, 60, 5);
  cuda::gather_nd<float, int64_t>(kStream, data.data(), idx.data(), got.data(), 2, 3, 2, dims, 60,
                                  5);
  CHECK(sameMismatch(got, want, 30) == "");
  // ReverseSequence, time-major (5, 3, 4) and batch-major (3, 5, 4), one
  // length the whole sequence, one zero.
  const std::vector<int64_t> lens = {5, 2, 0};
  for (int major = 0; major < 2; ++major) {
    INFO((major ? "batch" : "time") << "-major");
    const int64_t bs = major ? 20 : 4, ts = major ? 4 : 12;
    std::vector<float> rwant(60), rgot(60, -7.0f);
    ref::reverse_sequence<float, int64_t>(data.data(), lens.data(), rwant.data(), 3, 5, bs, ts, 4,
                                          60);
    cuda::reverse_sequence<float, int64_t>(kStream, data.data(), lens.data(), rgot.data(), 3, 5,
                                           bs, ts, 4, 60);
    CHECK(sameMismatch(rgot, rwant, 60) == "");
  }
}

// ScatterElements (axis 1 and the last, indices smaller than the data,
// duplicates and negative indices) and ScatterND (duplicate tuples), every
// reduction: duplicates resolve, and sums round, in the reference's order.
TEST_CASE("scatter elements and scatter nd against the reference", "[tensor]") {
  const int64_t data_shape[3] = {3, 5, 4}, idx_shape[3] = {2, 4, 3};
  std::vector<float> data = randomVec(60), updates = randomVec(24);
  std::vector<int64_t> idx(24);
  for (size_t i = 0; i < idx.size(); ++i)
    idx[i] = int64_t(i * 7 % 5) - (i % 3 == 0 ? 5 : 0); // repeats, negatives
  for (int64_t axis : {1, 2})
    for (int64_t reduction = 0; reduction < 5; ++reduction) {
      INFO("ScatterElements axis " << axis << " reduction " << reduction);
      std::vector<int64_t> ix = idx;
      if (axis == 2)
        for (int64_t &v : ix)
          v = v % 4;
      std::vector<float> want(60), got(60, -7.0f);
      ref::scatter_elements<float, int64_t>(data.data(), ix.data(), updates.data(), want.data(),
                                            3, data_shape, idx_shape, axis, reduction);
      cuda::scatter_elements<float, int64_t>(kStream, data.data(), ix.data(), updates.data(),
                                             got.data(), 3, data_shape, idx_shape, axis,
                                             reduction);
      CHECK(sameMismatch(got, want, 60) == "");
    }
  // data (3, 5, 4) as 15 slices of 4 along 2 index dims; 6 tuples, two
  // of them twice.
  const int64_t dims[2] = {3, 5};
  const std::vector<int64_t> tuples = {0, 1, 2, -1, 0, 1, 1, 3, 2, 4, 1, 3};
  for (int64_t reduction = 0; reduction < 5; ++reduction) {
    INFO("ScatterND reduction " << reduction);
    std::vector<float> want(60), got(60, -7.0f);
    ref::scatter_nd<float, int64_t>(data.data(), tuples.data(), updates.data(), want.data(), 60, 6,
                                    2, dims, 4, reduction);
    cuda::scatter_nd<float, int64_t>(kStream, data.data(), tuples.data(), updates.data(),
                                     got.data(), 60, 6, 2, dims, 4, reduction);
    CHECK(sameMismatch(got, want, 60) == "");
  }
}

// Resize: every mode, each coordinate transform, nearest rounding modes,
// cubic with and without exclude_outside, a crop with extrapolation, in
// floats and bytes; the same doubles as the reference, so equal outputs.
TEST_CASE("resize: modes, coordinate transforms, crop and extrapolation", "[resize]") {
  const int64_t in[4] = {2, 3, 5, 7}, out[4] = {2, 3, 8, 4};
  const double scales[4] = {1, 1, 8.0 / 5, 4.0 / 7};
  const double roi[8] = {0, 0, 0.2, -0.1, 1, 1, 0.9, 1.3};
  std::vector<float> x = randomVec(210), want(192), got(192, -7.0f);
  std::vector<uint8_t> xb(210), wb(192), gb(192, 7);
  for (size_t i = 0; i < xb.size(); ++i)
    xb[i] = uint8_t(i * 37 % 251);
  for (int64_t mode = 0; mode < 3; ++mode)
    for (int64_t coord = 0; coord < 7; ++coord)
      for (int64_t nearest = 0; nearest < (mode == 0 ? 4 : 1); ++nearest)
        for (int64_t exclude = 0; exclude < (mode == 2 ? 2 : 1); ++exclude) {
          INFO("mode " << mode << " coord " << coord << " nearest " << nearest << " exclude "
                       << exclude);
          ref::resize<float>(x.data(), want.data(), 4, in, out, scales, roi, mode, coord,
                             nearest, -0.75f, exclude, 0.5f);
          cuda::resize<float>(kStream, x.data(), got.data(), 4, in, out, scales, roi, mode,
                              coord, nearest, -0.75f, exclude, 0.5f);
          CHECK(sameMismatch(got, want, 192) == "");
          ref::resize<uint8_t>(xb.data(), wb.data(), 4, in, out, scales, roi, mode, coord,
                               nearest, -0.5f, exclude, 3.0f);
          cuda::resize<uint8_t>(kStream, xb.data(), gb.data(), 4, in, out, scales, roi, mode,
                                coord, nearest, -0.5f, exclude, 3.0f);
          CHECK(wb == gb);
        }
}

// GridSample: every mode, padding and alignment, a grid reaching past the
// image (padding and reflection at work): the reference's doubles.
TEST_CASE("grid sample: modes, padding, alignment", "[resize]") {
  std::vector<float> x = randomVec(2 * 3 * 5 * 6), grid = randomVec(2 * 4 * 7 * 2);
  for (float &g : grid)
    g *= 1.4f; // beyond [-1, 1]
  for (int64_t mode = 0; mode < 3; ++mode)
    for (int64_t padding = 0; padding < 3; ++padding)
      for (int64_t align = 0; align < 2; ++align) {
        INFO("mode " << mode << " padding " << padding << " align " << align);
        std::vector<float> want(168), got(168, -7.0f);
        ref::grid_sample<float>(x.data(), grid.data(), want.data(), 2, 3, 5, 6, 4, 7, mode,
                                padding, align);
        cuda::grid_sample<float>(kStream, x.data(), grid.data(), got.data(), 2, 3, 5, 6, 4, 7,
                                 mode, padding, align);
        CHECK(sameMismatch(got, want, 168) == "");
      }
}

// LSTM (peepholes, clip), GRU (both linear_before_reset forms) and RNN,
// bidirectional, batch-major, with sequence lengths shorter than the
// sequence: the reference's outputs, operation for operation.
TEST_CASE("recurrent layers against the reference", "[rnn]") {
  const int64_t seq = 5, batch = 3, input = 4, H = 6;
  const std::vector<int32_t> lens = {5, 2, 4};
  std::vector<float> x = randomVec(seq * batch * input), w = randomVec(2 * 4 * H * input);
  std::vector<float> r = randomVec(2 * 4 * H * H), b = randomVec(2 * 8 * H);
  std::vector<float> h0 = randomVec(2 * batch * H), c0 = randomVec(2 * batch * H);
  std::vector<float> p = randomVec(2 * 3 * H), scratch(6 * H);
  const size_t ny = seq * 2 * batch * H, ns = 2 * batch * H;
  std::vector<float> y(ny), yh(ns), yc(ns), gy(ny, -7.0f), gyh(ns, -7.0f), gyc(ns, -7.0f);
  ref::lstm<float, int32_t>(x.data(), w.data(), r.data(), b.data(), lens.data(), h0.data(),
                            c0.data(), p.data(), y.data(), yh.data(), yc.data(), seq, batch,
                            input, H, 2, 1, 3.0f, scratch.data());
  cuda::lstm<float, int32_t>(kStream, x.data(), w.data(), r.data(), b.data(), lens.data(),
                             h0.data(), c0.data(), p.data(), gy.data(), gyh.data(), gyc.data(),
                             seq, batch, input, H, 2, 1, 3.0f, scratch.data());
  CHECK(sameMismatch(gy, y, ny) == "");
  CHECK(sameMismatch(gyh, yh, ns) == "");
  CHECK(sameMismatch(gyc, yc, ns) == "");
  for (int64_t lbr = 0; lbr < 2; ++lbr) {
    INFO("GRU linear_before_reset " << lbr);
    ref::gru<float, int32_t>(x.data(), w.data(), r.data(), b.data(), lens.data(), h0.data(),
                             y.data(), yh.data(), seq, batch, input, H, 2, 1, 0.0f, lbr,
                             scratch.data());
    cuda::gru<float, int32_t>(kStream, x.data(), w.data(), r.data(), b.data(), lens.data(),
                              h0.data(), gy.data(), gyh.data(), seq, batch, input, H, 2, 1, 0.0f,
                              lbr, scratch.data());
    CHECK(sameMismatch(gy, y, ny) == "");
    CHECK(sameMismatch(gyh, yh, ns) == "");
  }
  ref::rnn<float, int32_t>(x.data(), w.data(), r.data(), b.data(), lens.data(), h0.data(),
                           y.data(), yh.data(), seq, batch, input, H, 2, 0, 0.0f, scratch.data());
  cuda::rnn<float, int32_t>(kStream, x.data(), w.data(), r.data(), b.data(), lens.data(),
                            h0.data(), gy.data(), gyh.data(), seq, batch, input, H, 2, 0, 0.0f,
                            scratch.data());
  CHECK(sameMismatch(gy, y, ny) == "");
  CHECK(sameMismatch(gyh, yh, ns) == "");
}

// RoiAlign: average and max, with and without the half-pixel shift, rois
// reaching past the image, adaptive and fixed sampling: equal outputs.
TEST_CASE("roi align: modes, half pixel, sampling", "[resize]") {
  std::vector<float> x = randomVec(2 * 3 * 9 * 8);
  const std::vector<float> rois = {0.5f, 1.0f, 6.0f, 7.5f, -2.0f, 3.0f, 9.5f, 10.0f,
                                   2.0f, 2.0f, 2.5f, 2.2f};
  const std::vector<int64_t> batch = {1, 0, 1};
  for (int64_t mode = 0; mode < 2; ++mode)
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t ratio : {0, 2}) {
        INFO("mode " << mode << " half_pixel " << half << " sampling " << ratio);
        std::vector<float> want(3 * 3 * 4 * 5), got(want.size(), -7.0f);
        ref::roi_align<float, int64_t>(x.data(), rois.data(), batch.data(), want.data(), 3, 9, 8,
                                       3, 4, 5, ratio, 0.8f, mode, half);
        cuda::roi_align<float, int64_t>(kStream, x.data(), rois.data(), batch.data(), got.data(),
                                        3, 9, 8, 3, 4, 5, ratio, 0.8f, mode, half);
        CHECK(sameMismatch(got, want, want.size()) == "");
      }
}

TEST_CASE("ArgMax and ArgMin: first or last index, strided rows", "[reduce]") {
  std::vector<float> x = randomVec(6 * 40 * 3);
  for (size_t i = 0; i < x.size(); i += 7)
    x[i] = 0.5f; // ties
  for (int64_t is_max = 0; is_max < 2; ++is_max)
    for (int64_t last = 0; last < 2; ++last)
      for (int64_t inner : {1, 3}) {
        const int64_t outer = 6 * 3 / inner;
        std::vector<int64_t> want(outer * inner), got(outer * inner, -1);
        ref::arg_reduce<float>(x.data(), want.data(), outer, 40, inner, is_max, last);
        cuda::arg_reduce<float>(kStream, x.data(), got.data(), outer, 40, inner, is_max, last);
        CHECK(got == want);
      }
}
