// The x86 kernels against the reference kernels (the oracle), swept around
// every tile and cache-block edge: m around kGemmMR and kGemmMC, n around
// kNR and kGemmNC, k around kGemmKC; transposes and every Gemm C broadcast;
// convolutions with strides, padding, dilation, groups, depthwise with
// multipliers; the fused epilogue (bias, residual, activation); max pooling;
// the channel-blocked (NCHW16c) conversions, convolutions and pools;
// Winograd F(4x4, 3x3) on every 3x3 stride-1 case (whatever its tile count);
// softmax / log-softmax and layer normalisation around the vector width.
#include "onnxc_rt/kernels/reference/conv.h"
#include "onnxc_rt/kernels/reference/elementwise.h"
#include "onnxc_rt/kernels/reference/linalg.h"
#include "onnxc_rt/kernels/reference/norm.h"
#include "onnxc_rt/kernels/reference/tensor.h"
#include "onnxc_rt/kernels/x86/blocked.h"
#include "onnxc_rt/kernels/x86/conv.h"
#include "onnxc_rt/kernels/x86/norm.h"
#include "onnxc_rt/kernels/x86/winograd.h"
#include "onnxc_rt/threads.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace onnxc_rt;

static int failures = 0, checks = 0;
// Kernels split into kTasks tasks run on two threads: the split must not
// change a single bit of the result.
static constexpr int64_t kTasks = 3;
static ThreadPool *pool = nullptr;

static void expectSame(const char *what, const std::vector<float> &got,
                       const std::vector<float> &want, int64_t n, const char *ctx) {
  ++checks;
  for (int64_t i = 0; i < n; ++i)
    if (!(got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i])))) {
      if (++failures < 20)
        std::printf("FAIL %s %s (%lld tasks): element %lld got %g, one task %g\n", what, ctx,
                    (long long)kTasks, (long long)i, got[i], want[i]);
      return;
    }
}
static std::mt19937 rng(1234);

static std::vector<float> randomVec(int64_t n) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n > 0 ? n : 1);
  for (float &x : v)
    x = d(rng);
  return v;
}

// |got - want| <= tol * (1 + |want|) elementwise, tol scaled by the
// reduction length (the kernels sum in a different order).
static void expectClose(const char *what, const std::vector<float> &got,
                        const std::vector<float> &want, int64_t n, int64_t k, const char *ctx) {
  ++checks;
  const float tol = 2e-6f * float(k + 8);
  for (int64_t i = 0; i < n; ++i)
    if (!(std::fabs(got[i] - want[i]) <= tol * (1 + std::fabs(want[i])))) {
      if (++failures < 20)
        std::printf("FAIL %s %s: element %lld got %g want %g\n", what, ctx, (long long)i,
                    got[i], want[i]);
      return;
    }
}

static void checkGemm(int64_t m, int64_t n, int64_t k, int ta, int tb, int cmode) {
  auto a = randomVec(m * k), b = randomVec(k * n), c = randomVec(m * n);
  // C broadcast: 0 none, 1 scalar, 2 per column (n), 3 per row (m x 1), 4 full.
  const int64_t csm[] = {0, 0, 0, 1, n}, csn[] = {0, 0, 1, 0, 1};
  const float *cp = cmode ? c.data() : nullptr;
  std::vector<float> want(m * n), got(m * n, 123.f);
  ref::gemm<float>(a.data(), b.data(), cp, want.data(), m, n, k, ta, tb, 0.75f, 1.5f,
                   csm[cmode], csn[cmode]);
  for (float &v : want)
    v = ref::Relu::apply(v, 0, 0);
  std::vector<float> scratch(x86::gemm_scratch_floats(m, n, k));
  x86::gemm<ref::Relu>(a.data(), b.data(), cp, got.data(), m, n, k, ta, tb, 0.75f, 1.5f,
                       csm[cmode], csn[cmode], 0, 0, scratch.data());
  char ctx[128];
  std::snprintf(ctx, sizeof ctx, "m=%lld n=%lld k=%lld ta=%d tb=%d c=%d", (long long)m,
                (long long)n, (long long)k, ta, tb, cmode);
  expectClose("gemm", got, want, m * n, k, ctx);
  std::vector<float> split(m * n, 123.f), split_scratch(kTasks * scratch.size());
  x86::gemm<ref::Relu>(a.data(), b.data(), cp, split.data(), m, n, k, ta, tb, 0.75f, 1.5f,
                       csm[cmode], csn[cmode], 0, 0, split_scratch.data(), pool, kTasks);
  expectSame("gemm", split, got, m * n, ctx);
}

static void checkMatMul(int64_t batch, int64_t m, int64_t k, int64_t n, bool broadcastB) {
  auto a = randomVec(batch * m * k), b = randomVec((broadcastB ? 1 : batch) * k * n);
  std::vector<float> want(batch * m * n), got(batch * m * n);
  int64_t shape[1] = {batch}, as[1] = {m * k}, bs[1] = {broadcastB ? 0 : k * n};
  ref::matmul<float>(a.data(), b.data(), want.data(), m, k, n, 1, shape, as, bs);
  std::vector<float> scratch(x86::gemm_scratch_floats(m, n, k));
  x86::matmul<float>(a.data(), b.data(), got.data(), m, k, n, 1, shape, as, bs, scratch.data());
  char ctx[96];
  std::snprintf(ctx, sizeof ctx, "batch=%lld m=%lld k=%lld n=%lld", (long long)batch,
                (long long)m, (long long)k, (long long)n);
  expectClose("matmul", got, want, batch * m * n, k, ctx);
  std::vector<float> split(batch * m * n), split_scratch(kTasks * scratch.size());
  x86::matmul<float>(a.data(), b.data(), split.data(), m, k, n, 1, shape, as, bs,
                     split_scratch.data(), pool, kTasks);
  expectSame("matmul", split, got, batch * m * n, ctx);
}

struct ConvCase {
  int64_t n, c, h, w, m, kh, kw, sh, sw, ph, pw, pe_h, pe_w, dh, dw, group;
};

/// NCHW <-> blocked through the reference conversions (the oracle's).
static std::vector<float> blocked(const std::vector<float> &x, const int64_t *shape) {
  std::vector<float> y(shape[0] * x86::channel_blocks(shape[1]) * x86::kChannelBlock * shape[2] *
                       shape[3]);
  ref::to_blocked(x.data(), y.data(), shape[0], shape[1], shape[2] * shape[3], x86::kChannelBlock);
  return y;
}
static std::vector<float> unblocked(const std::vector<float> &x, const int64_t *shape) {
  std::vector<float> y(shape[0] * shape[1] * shape[2] * shape[3]);
  ref::from_blocked(x.data(), y.data(), shape[0], shape[1], shape[2] * shape[3],
                    x86::kChannelBlock);
  return y;
}

/// The same convolution on the blocked layout (conv2d_blocked from a blocked
/// input and from the NCHW one; depthwise_conv2d_blocked), one task and
/// kTasks; `want` is the reference's NCHW result.
template <typename Act>
static void checkBlockedConv(const ConvCase &q, const std::vector<float> &x,
                             const std::vector<float> &w, const float *bp, const float *zp,
                             const std::vector<float> &want, const int64_t *in,
                             const int64_t *out, const int64_t *kernel, const int64_t *strides,
                             const int64_t *pb, const int64_t *dil, float aa, float ab,
                             const char *ctx) {
  const bool depthwise = q.group != 1;
  const int64_t taps = q.kh * q.kw, ny = (int64_t)want.size();
  const std::vector<float> xb = blocked(x, in);
  std::vector<float> zb;
  if (zp)
    zb = blocked(std::vector<float>(zp, zp + ny), out);
  const int64_t yb_floats = out[0] * x86::channel_blocks(q.m) * x86::kChannelBlock * out[2] * out[3];
  for (int in_blocked = depthwise ? 1 : 0; in_blocked < 2; ++in_blocked) {
    std::vector<float> packed(
        x86::blocked_conv_weights_floats(q.m, q.c, taps, in_blocked, depthwise));
    x86::pack_blocked_conv_weights(w.data(), q.m, q.c, taps, in_blocked, depthwise,
                                   packed.data());
    std::vector<float> scratch(
        x86::blocked_conv_scratch_floats(in, out, kernel, strides, pb, dil, in_blocked) + 1);
    std::vector<float> yb(yb_floats, 7.f), split(yb_floats, 7.f);
    const float *xin = in_blocked ? xb.data() : x.data();
    const float *z = zp ? zb.data() : nullptr;
    for (int tasks : {1, (int)kTasks}) {
      float *y = tasks == 1 ? yb.data() : split.data();
      if (depthwise)
        x86::depthwise_conv2d_blocked<Act>(xin, packed.data(), bp, z, y, in, out, kernel,
                                           strides, pb, dil, aa, ab, pool, tasks);
      else
        x86::conv2d_blocked<Act>(xin, packed.data(), bp, z, y, in, out, kernel, strides, pb, dil,
                                 in_blocked, aa, ab, scratch.data(), pool, tasks);
    }
    const char *what = depthwise    ? "depthwise_conv2d_blocked"
                       : in_blocked ? "conv2d_blocked"
                                    : "conv2d_blocked (NCHW input)";
    expectClose(what, unblocked(yb, out), want, ny, q.c / q.group * taps, ctx);
    expectSame(what, split, yb, yb_floats, ctx);
  }
  // Winograd F(4x4, 3x3): every 3x3 stride-1 dense case, below
  // kWinogradMinTiles too (that threshold is a cost decision).
  if (depthwise || q.kh != 3 || q.kw != 3 || q.sh != 1 || q.sw != 1 || q.dh != 1 || q.dw != 1)
    return;
  std::vector<float> u(x86::winograd_weights_floats(q.m, q.c)), work(q.m * q.c);
  x86::pack_winograd_weights(w.data(), q.m, q.c, work.data(), u.data());
  std::vector<float> scratch(x86::winograd_scratch_floats(in, out));
  std::vector<float> yb(yb_floats, 7.f), split(yb_floats, 7.f);
  for (int tasks : {1, (int)kTasks})
    x86::winograd_conv2d_blocked<Act>(xb.data(), u.data(), bp, zp ? zb.data() : nullptr,
                                      tasks == 1 ? yb.data() : split.data(), in, out, pb, aa, ab,
                                      scratch.data(), pool, tasks);
  expectClose("winograd_conv2d_blocked", unblocked(yb, out), want, ny, q.c * taps, ctx);
  expectSame("winograd_conv2d_blocked", split, yb, yb_floats, ctx);
}

template <typename Act>
static void checkConv(const ConvCase &q, bool withBias, bool withResidual, float aa, float ab) {
  const int64_t oh = (q.h + q.ph + q.pe_h - q.dh * (q.kh - 1) - 1) / q.sh + 1;
  const int64_t ow = (q.w + q.pw + q.pe_w - q.dw * (q.kw - 1) - 1) / q.sw + 1;
  int64_t in[4] = {q.n, q.c, q.h, q.w}, out[4] = {q.n, q.m, oh, ow};
  int64_t kernel[2] = {q.kh, q.kw}, strides[2] = {q.sh, q.sw}, pb[2] = {q.ph, q.pw},
          pe[2] = {q.pe_h, q.pe_w}, dil[2] = {q.dh, q.dw};
  const int64_t cg = q.c / q.group, ny = q.n * q.m * oh * ow;
  auto x = randomVec(q.n * q.c * q.h * q.w), w = randomVec(q.m * cg * q.kh * q.kw);
  auto bias = randomVec(q.m), z = randomVec(ny);
  std::vector<float> want(ny), got(ny, 7.f);
  ref::conv<float>(x.data(), w.data(), withBias ? bias.data() : nullptr, want.data(), 2, in,
                   out, kernel, strides, pb, pe, dil, q.group);
  for (int64_t i = 0; i < ny; ++i)
    want[i] = Act::apply(want[i] + (withResidual ? z[i] : 0.f), aa, ab);
  const float *bp = withBias ? bias.data() : nullptr, *zp = withResidual ? z.data() : nullptr;
  const bool depthwise = cg == 1;
  std::vector<float> scratch(
      depthwise ? x86::depthwise_scratch_floats(q.c, q.m, oh, ow, q.kh, q.kw, q.sh, q.sw, q.dh, q.dw)
                : x86::conv2d_scratch_floats(in, out, kernel, strides, pb, dil, q.group));
  // Once packing W on the fly, once with W packed ahead (as the compiler
  // does; then a small plane runs pixel-major: conv_is_pixel_major).
  std::vector<float> packed(
      depthwise ? 0 : x86::conv_packed_weights_floats(in, out, kernel, strides, pb, dil, q.group));
  if (!depthwise)
    x86::pack_conv_weights(w.data(), in, out, kernel, strides, pb, dil, q.group, packed.data());
  if (depthwise)
    x86::depthwise_conv2d<Act>(x.data(), w.data(), bp, zp, got.data(), in, out, kernel, strides,
                               pb, dil, aa, ab, scratch.data());
  else {
    x86::conv2d<Act>(x.data(), w.data(), nullptr, bp, zp, got.data(), in, out, kernel, strides,
                     pb, dil, q.group, aa, ab, scratch.data());
    expectClose("conv2d (W packed at run time)", got, want, ny, cg * q.kh * q.kw, "");
    x86::conv2d<Act>(x.data(), w.data(), packed.data(), bp, zp, got.data(), in, out, kernel,
                     strides, pb, dil, q.group, aa, ab, scratch.data());
  }
  char ctx[200];
  std::snprintf(ctx, sizeof ctx,
                "n=%lld c=%lld %lldx%lld m=%lld k=%lldx%lld s=%lld,%lld p=%lld,%lld d=%lld g=%lld",
                (long long)q.n, (long long)q.c, (long long)q.h, (long long)q.w, (long long)q.m,
                (long long)q.kh, (long long)q.kw, (long long)q.sh, (long long)q.sw,
                (long long)q.ph, (long long)q.pw, (long long)q.dh, (long long)q.group);
  expectClose(depthwise ? "depthwise_conv2d" : "conv2d", got, want, ny, cg * q.kh * q.kw, ctx);
  std::vector<float> split(ny, 7.f);
  std::vector<float> split_scratch(
      depthwise ? kTasks * scratch.size()
                : x86::conv2d_scratch_floats(in, out, kernel, strides, pb, dil, q.group, kTasks));
  if (depthwise)
    x86::depthwise_conv2d<Act>(x.data(), w.data(), bp, zp, split.data(), in, out, kernel,
                               strides, pb, dil, aa, ab, split_scratch.data(), pool, kTasks);
  else
    x86::conv2d<Act>(x.data(), w.data(), packed.data(), bp, zp, split.data(), in, out, kernel,
                     strides, pb, dil, q.group, aa, ab, split_scratch.data(), pool, kTasks);
  expectSame(depthwise ? "depthwise_conv2d" : "conv2d", split, got, ny, ctx);
  if (q.group == 1 || (depthwise && q.m == q.c))
    checkBlockedConv<Act>(q, x, w, bp, zp, want, in, out, kernel, strides, pb, dil, aa, ab, ctx);
}

/// One convolution with each epilogue: no bias, bias, residual, vector
/// and scalar activations.
static void checkConvEpilogues(const ConvCase &q) {
  checkConv<ref::Identity>(q, false, false, 0, 0);
  checkConv<ref::Relu>(q, true, false, 0, 0);
  checkConv<ref::Relu>(q, true, true, 0, 0);
  checkConv<ref::LeakyRelu>(q, true, false, 0.1f, 0);
  checkConv<ref::HardSigmoid>(q, true, true, 0.2f, 0.5f);
  checkConv<ref::Sigmoid>(q, false, true, 0, 0);
  checkConv<ref::Silu>(q, true, false, 0, 0);
  checkConv<ref::Clamp>(q, true, false, 0.0f, 6.0f);
}

int main() {
  // Built for AVX2 (and once more for AVX-512): skip on a CPU without them.
#if defined(__AVX512F__)
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
      !__builtin_cpu_supports("avx512dq") || !__builtin_cpu_supports("avx512vl")) {
#else
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
#endif
    std::printf("this CPU lacks the instruction set the kernels were built for: skipped\n");
    return 77;
  }
  ThreadPool two_threads(2);
  pool = &two_threads;
  // The vector exp behind fused Sigmoid/SiLU: relative error over its range.
  {
    ++checks;
    double worst = 0;
    for (float x = -87.0f; x <= 87.9f; x += 0.0137f) {
      alignas(64) float in[x86::kLanes], out[x86::kLanes];
      for (int l = 0; l < x86::kLanes; ++l)
        in[l] = x + l * 0.001f;
      x86::exp(x86::VecF::load(in)).store(out);
      for (int l = 0; l < x86::kLanes; ++l)
        worst = std::max(worst, std::fabs(out[l] / std::exp(double(in[l])) - 1.0));
    }
    if (worst > 1e-6) {
      ++failures;
      std::printf("FAIL exp: relative error %g\n", worst);
    }
  }
  // Sigmoid and SiLU (the vector exp, then a division) against
  // double precision over [-100, 100]: relative error down to 1e-30;
  // below, absolute (exp's input is clamped at -87.3, so further left the
  // results stay near their 1e-38..1e-36 values there).
  {
    ++checks;
    double worst[2] = {0, 0};
    for (float x = -100.0f; x <= 100.0f; x += 0.00731f) {
      alignas(64) float in[x86::kLanes], sig[x86::kLanes], silu[x86::kLanes];
      for (int l = 0; l < x86::kLanes; ++l)
        in[l] = x + l * 0.0003f;
      x86::vector_activation<ref::Sigmoid>(x86::VecF::load(in), 0, 0).store(sig);
      x86::vector_activation<ref::Silu>(x86::VecF::load(in), 0, 0).store(silu);
      for (int l = 0; l < x86::kLanes; ++l) {
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
    if (worst[0] > 1e-6 || worst[1] > 1e-6) {
      ++failures;
      std::printf("FAIL sigmoid / silu: relative error %g / %g\n", worst[0], worst[1]);
    }
  }
  const int64_t ms[] = {1, 2, 5, 6, 7, 13, 95, 96, 97, 150};
  const int64_t ns[] = {1, 3, 15, 16, 17, 31, 32, 33, 100};
  const int64_t ks[] = {1, 7, 255, 256, 257, 600};
  for (int64_t m : ms)
    for (int64_t n : ns)
      for (int64_t k : ks)
        checkGemm(m, n, k, int((m + n) % 2), int((n + k) % 2), int((m + n + k) % 5));
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (int cm = 0; cm < 5; ++cm)
        checkGemm(37, 45, 70, ta, tb, cm);
  checkGemm(20, 2047 + 40, 40, 0, 0, 2); // crosses the kGemmNC column block
  checkGemm(1, 1000, 512, 0, 1, 2);      // a batch-1 fully connected layer
  checkMatMul(3, 17, 33, 40, false);
  checkMatMul(4, 128, 64, 128, true);
  checkMatMul(2, 1, 300, 50, false);

  const ConvCase convs[] = {
      {1, 3, 9, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},      // 3x3 same
      {2, 5, 11, 7, 19, 3, 3, 2, 2, 1, 1, 0, 1, 1, 1, 1},    // stride 2, asymmetric pad
      {1, 16, 8, 8, 32, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},    // pointwise
      {1, 16, 8, 8, 12, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1},    // strided 1x1
      {1, 8, 10, 10, 8, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1},    // dilation 2
      {1, 8, 7, 9, 12, 3, 2, 1, 2, 1, 0, 1, 1, 1, 1, 4},     // groups
      {1, 3, 32, 32, 7, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1},    // ResNet stem shape
      {1, 300, 6, 6, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // k = 2700 > kGemmKC
      {1, 4, 20, 50, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // wide rows: one-row slivers
      {1, 4, 9, 70, 8, 5, 3, 1, 2, 2, 1, 2, 1, 1, 2, 1},     // wide, strided, dilated
      {1, 8, 40, 40, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // direct: column blocks, m % 6
      {1, 16, 14, 14, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},  // stride-2 phase planes, 7x7 out
      {1, 8, 9, 9, 8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},      // 1x1 with padding: direct
      {1, 6, 12, 1, 8, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 1},     // 1-wide plane: im2col
      {1, 16, 9, 9, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16},   // depthwise
      {1, 16, 9, 10, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 16},  // depthwise stride 2
      {2, 8, 12, 12, 8, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 8},    // depthwise 5x5
      {1, 6, 8, 8, 12, 3, 3, 1, 2, 0, 1, 2, 1, 2, 1, 6},     // depthwise multiplier 2
      {1, 5, 30, 41, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 5},    // depthwise, wide, stride 2
      {1, 5, 30, 45, 5, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 5},    // depthwise, wide, 5x5
      {1, 3, 20, 40, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1, 2, 3},    // depthwise stride 3, dilated
      {1, 4, 7, 7, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4},      // depthwise 7x7 plane
      {1, 4, 14, 14, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 4},    // depthwise 14 -> 7, stride 2
      {1, 3, 14, 14, 3, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 3},    // depthwise 5x5 stride 2
      {1, 2, 112, 112, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},  // depthwise 112 wide
      {1, 2, 23, 1500, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2},  // wider than a pooling chunk
      // Channel-blocked depthwise (rows of at most 16): partial blocks of
      // channels, pixel tails of 4/2/1, bands, asymmetric pads, dilation.
      {1, 21, 7, 7, 21, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 21},   // 7x7, 16 + 5 channels
      {2, 17, 15, 13, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 17}, // 15 x 13 planes, batch 2
      {1, 33, 14, 14, 33, 5, 5, 2, 2, 2, 2, 1, 2, 1, 1, 33}, // 5x5 stride 2, asymmetric pad
      {1, 16, 30, 16, 16, 3, 3, 2, 2, 0, 1, 1, 0, 1, 1, 16}, // stride 2 into 8-wide rows
      {1, 8, 200, 11, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8},   // tall: several bands
      {1, 9, 12, 12, 9, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 9},    // dilated
      {1, 4, 20, 20, 4, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 4},    // stride 3
      {1, 3, 11, 40, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},    // plane path: 3x3 row tails
      {1, 3, 13, 70, 3, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 3},    // plane path: 5x5 stride 2
      {1, 4, 5, 1, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 4},      // 1 wide, stride 2: no whole window
      // Winograd F(4x4, 3x3): outputs not whole tiles, channels past
      // whole blocks and panels, unpadded / asymmetric / wide pads, batch
      // 2, several bands (winograd_band_tiles).
      {2, 20, 13, 10, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // 13 x 10: partial tiles
      {1, 33, 16, 16, 48, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1},  // unpadded 14 x 14 out
      {1, 16, 11, 9, 17, 3, 3, 1, 1, 2, 0, 1, 2, 1, 1, 1},   // asymmetric pads
      {1, 160, 22, 21, 144, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, // several bands
  };
  // Pixel-major convolutions (conv_is_pixel_major, with W packed ahead):
  // pixel counts around the register tile (6) and the transposes (8, 16),
  // channels past whole tiles, windows read in place (unpadded, strided) or
  // from a padded copy, taps other than 1 and 9, groups, batch 2, and more
  // pixels than a chunk.
  const ConvCase pixel_major[] = {
      {1, 64, 7, 7, 62, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // 49 pixels, 62 channels
      {1, 256, 1, 1, 32, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},   // one pixel
      {1, 96, 14, 14, 64, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1},  // 1x1 stride 2, in place
      {1, 48, 9, 9, 32, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1},    // 3x3 unpadded, in place
      {1, 32, 10, 9, 32, 3, 3, 1, 1, 2, 1, 1, 2, 2, 1, 1},   // asymmetric pads, dilation
      {1, 24, 8, 8, 32, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 1},    // 5x5
      {2, 64, 9, 8, 64, 3, 2, 2, 1, 1, 0, 1, 1, 1, 1, 2},    // 3x2, strides 2x1, groups
      {1, 128, 20, 20, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, // 400 pixels: two chunks
  };
  for (const ConvCase &q : pixel_major) {
    const int64_t oh = (q.h + q.ph + q.pe_h - q.dh * (q.kh - 1) - 1) / q.sh + 1;
    const int64_t ow = (q.w + q.pw + q.pe_w - q.dw * (q.kw - 1) - 1) / q.sw + 1;
    int64_t in[4] = {q.n, q.c, q.h, q.w}, out[4] = {q.n, q.m, oh, ow};
    int64_t kernel[2] = {q.kh, q.kw}, strides[2] = {q.sh, q.sw}, pb[2] = {q.ph, q.pw},
            dil[2] = {q.dh, q.dw};
    ++checks;
    if (!x86::conv_is_pixel_major(in, out, kernel, strides, pb, dil, q.group)) {
      ++failures;
      std::printf("FAIL conv_is_pixel_major: c=%lld m=%lld %lldx%lld no longer pixel-major\n",
                  (long long)q.c, (long long)q.m, (long long)q.h, (long long)q.w);
    }
  }
  for (const ConvCase &q : convs)
    checkConvEpilogues(q);
  for (const ConvCase &q : pixel_major)
    checkConvEpilogues(q);
  // Max pooling, including ceil-mode windows that overhang the far edge.
  for (const ConvCase &q : convs) {
    const int64_t oh = (q.h + q.ph + q.pe_h - q.dh * (q.kh - 1) - 1 + q.sh - 1) / q.sh + 1;
    const int64_t ow = (q.w + q.pw + q.pe_w - q.dw * (q.kw - 1) - 1 + q.sw - 1) / q.sw + 1;
    if (q.ph >= q.kh || q.pw >= q.kw)
      continue;
    int64_t in[4] = {q.n, q.c, q.h, q.w}, out[4] = {q.n, q.c, oh, ow};
    int64_t kernel[2] = {q.kh, q.kw}, strides[2] = {q.sh, q.sw}, pb[2] = {q.ph, q.pw},
            pe[2] = {q.pe_h + q.sh - 1, q.pe_w + q.sw - 1}, dil[2] = {q.dh, q.dw};
    auto x = randomVec(q.n * q.c * q.h * q.w);
    std::vector<float> want(q.n * q.c * oh * ow), got(want.size());
    ref::max_pool<float>(x.data(), want.data(), nullptr, 2, in, out, kernel, strides, pb, pe,
                         dil, 0);
    x86::max_pool2d<float>(x.data(), got.data(), in, out, kernel, strides, pb, dil);
    expectClose("max_pool2d", got, want, (int64_t)want.size(), 0, "");
    // Blocked max pooling and average pooling over in-bounds taps.
    const std::vector<float> xb = blocked(x, in);
    std::vector<float> yb(q.n * x86::channel_blocks(q.c) * x86::kChannelBlock * oh * ow);
    x86::pool2d_blocked(xb.data(), yb.data(), in, out, kernel, strides, pb, dil, 1, pool, kTasks);
    expectClose("pool2d_blocked max", unblocked(yb, out), want, (int64_t)want.size(), 0, "");
    ref::avg_pool<float>(x.data(), want.data(), 2, in, out, kernel, strides, pb, pe, dil, 0);
    x86::pool2d_blocked(xb.data(), yb.data(), in, out, kernel, strides, pb, dil, 0, pool, kTasks);
    expectClose("pool2d_blocked average", unblocked(yb, out), want, (int64_t)want.size(),
                q.kh * q.kw, "");
  }
  // The conversions (channels around the block and the vector width, planes
  // around the transposes) and global average pooling on the blocked layout.
  for (int64_t c : {1, 3, 8, 15, 16, 17, 40})
    for (int64_t hw : {1, 7, 8, 9, 16, 49, 100}) {
      const int64_t shape[4] = {2, c, hw, 1};
      char ctx[64];
      std::snprintf(ctx, sizeof ctx, "c=%lld hw=%lld", (long long)c, (long long)hw);
      auto x = randomVec(2 * c * hw);
      const std::vector<float> want = blocked(x, shape);
      std::vector<float> got(want.size(), 7.f), back(x.size(), 7.f);
      x86::to_blocked(x.data(), got.data(), 2, c, hw, pool, kTasks);
      expectSame("to_blocked", got, want, (int64_t)want.size(), ctx);
      x86::from_blocked(got.data(), back.data(), 2, c, hw, pool, kTasks);
      expectSame("from_blocked", back, x, (int64_t)x.size(), ctx);
      std::vector<float> mean(2 * c), gb(2 * x86::channel_blocks(c) * x86::kChannelBlock);
      ref::global_pool<float>(x.data(), mean.data(), 2 * c, hw, 0);
      x86::global_average_pool_blocked(want.data(), gb.data(), 2, c, hw, pool, kTasks);
      const int64_t pooled[4] = {2, c, 1, 1};
      expectClose("global_average_pool_blocked", unblocked(gb, pooled), mean, 2 * c, hw, ctx);
    }
  // Row normalisations: lengths around the vector width and its multiples,
  // rows offset so the tails land everywhere; inputs scaled so exp spans a
  // wide range, and shifted so layer norm's mean is large.
  for (int64_t n : {1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100, 256, 1000}) {
    const int64_t outer = 3;
    char ctx[64];
    std::snprintf(ctx, sizeof ctx, "n=%lld", (long long)n);
    auto x = randomVec(outer * n);
    for (float &v : x)
      v = v * 20.0f + 5.0f;
    for (int64_t mode : {0, 1}) {
      std::vector<float> want(outer * n), got(outer * n);
      ref::softmax<float>(x.data(), want.data(), outer, n, 1, mode);
      x86::softmax(x.data(), got.data(), outer, n, mode);
      expectClose(mode ? "log_softmax" : "softmax", got, want, outer * n, 8, ctx);
    }
    {
      std::vector<float> want(outer), got(outer);
      ref::global_pool<float>(x.data(), want.data(), outer, n, 0);
      x86::row_mean(x.data(), got.data(), outer, n);
      expectClose("row_mean", got, want, outer, n, ctx);
    }
    auto scale = randomVec(n), bias = randomVec(n);
    for (bool with_bias : {false, true}) {
      std::vector<float> want(outer * n), got(outer * n), wm(outer), gm(outer), wi(outer),
          gi(outer);
      const float *bp = with_bias ? bias.data() : nullptr;
      ref::layer_norm<float>(x.data(), scale.data(), bp, want.data(), wm.data(), wi.data(),
                             outer, n, 1e-5f);
      x86::layer_norm(x.data(), scale.data(), bp, got.data(), gm.data(), gi.data(), outer, n,
                      1e-5f);
      expectClose("layer_norm", got, want, outer * n, n, ctx);
      expectClose("layer_norm mean", gm, wm, outer, n, ctx);
      expectClose("layer_norm inv_std", gi, wi, outer, n, ctx);
    }
  }
  std::printf("%d of %d kernel checks passed\n", checks - failures, checks);
  return failures ? 1 : 0;
}
