// The bf16 convolutions, GEMM and MatMul of x86-64-amx's --precision bf16
// (kernels/simd/bf16/) against the reference: on the operands rounded to
// bf16 (the kernel's products are then exact, so it must agree to fp32's
// summation error), and on the fp32 operands within bf16's rounding (each
// product within 2^-7 of its magnitude); every tile edge (16 and 32
// channels, 16 and 32 virtual pixels, a plane's slack), channels padded to
// whole steps of 32, strides by phase, dilation, asymmetric pads, groups,
// a batch, every epilogue, NCHW and channel-blocked (conv2d_blocked: group
// 1, channels not a multiple of 16 leaving padding lanes); split into tasks
// bit-identical to one task; and
// the tiles' sums against the AVX-512 way a process without AMX's state
// takes.
#include "support.h"

#include "onnxc_rt/kernels/reference/conv.h"
#include "onnxc_rt/kernels/reference/elementwise.h"
#include "onnxc_rt/kernels/simd/bf16/conv2d.h"
#include "onnxc_rt/kernels/simd/bf16/gemm.h"

#include <cstring>

using namespace onnxc_rt;
using namespace kernel_test;

#if ONNXC_RT_SIMD_AMX_BF16
namespace {

namespace b16 = simd::bf16;

struct ConvCase {
  int64_t n, c, h, w, m, kh, kw, sh, sw, ph, pw, pe_h, pe_w, dh, dw, group;
};

std::vector<float> roundedToBf16(const std::vector<float> &v) {
  std::vector<float> r(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    r[i] = b16::from_bf16(b16::to_bf16(v[i]));
  return r;
}

template <typename Act>
void checkConv(const ConvCase &q, bool withBias, bool withResidual, float aa, float ab) {
  const int64_t oh = (q.h + q.ph + q.pe_h - q.dh * (q.kh - 1) - 1) / q.sh + 1;
  const int64_t ow = (q.w + q.pw + q.pe_w - q.dw * (q.kw - 1) - 1) / q.sw + 1;
  int64_t in[4] = {q.n, q.c, q.h, q.w}, out[4] = {q.n, q.m, oh, ow};
  int64_t kernel[2] = {q.kh, q.kw}, strides[2] = {q.sh, q.sw}, pb[2] = {q.ph, q.pw},
          pe[2] = {q.pe_h, q.pe_w}, dil[2] = {q.dh, q.dw};
  const int64_t cg = q.c / q.group, ny = q.n * q.m * oh * ow, taps = q.kh * q.kw;
  auto x = randomVec(q.n * q.c * q.h * q.w), w = randomVec(q.m * cg * taps);
  auto bias = randomVec(q.m), z = randomVec(ny);
  const float *bp = withBias ? bias.data() : nullptr, *zp = withResidual ? z.data() : nullptr;
  // want: the reference on the bf16-rounded operands; loose: on the fp32
  // ones; bound: sum |x| |w| per output, the scale of bf16's error.
  auto xr = roundedToBf16(x), wr = roundedToBf16(w);
  std::vector<float> want(ny), loose(ny), bound(ny);
  ref::conv<float>(xr.data(), wr.data(), bp, want.data(), 2, in, out, kernel, strides, pb, pe,
                   dil, q.group);
  ref::conv<float>(x.data(), w.data(), bp, loose.data(), 2, in, out, kernel, strides, pb, pe, dil,
                   q.group);
  std::vector<float> xa(x.size()), wa(w.size());
  for (size_t i = 0; i < x.size(); ++i)
    xa[i] = std::fabs(x[i]);
  for (size_t i = 0; i < w.size(); ++i)
    wa[i] = std::fabs(w[i]);
  ref::conv<float>(xa.data(), wa.data(), nullptr, bound.data(), 2, in, out, kernel, strides, pb,
                   pe, dil, q.group);
  for (int64_t i = 0; i < ny; ++i) {
    want[i] = Act::apply(want[i] + (withResidual ? z[i] : 0.f), aa, ab);
    loose[i] = Act::apply(loose[i] + (withResidual ? z[i] : 0.f), aa, ab);
  }
  std::vector<uint16_t> packed(b16::conv_packed_halves(q.m, cg, taps, q.group));
  b16::pack_conv_weights(w.data(), q.m, cg, taps, q.group, packed.data());
  const int64_t bytes = b16::conv2d_scratch_bytes(in, out, kernel, strides, dil, q.group);
  std::vector<uint8_t> scratch(bytes + 64);
  uint8_t *sp = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
  std::vector<float> got(ny, 7.f), split(ny, 7.f);
  b16::conv2d<Act>(x.data(), packed.data(), bp, zp, got.data(), in, out, kernel, strides, pb, dil,
                   q.group, aa, ab, sp);
  CHECK_CLOSE("bf16 conv2d (on bf16 operands)", got, want, ny, cg * taps);
  for (int64_t i = 0; i < ny; ++i)
    if (!(std::fabs(got[i] - loose[i]) <= 0x1p-7f * bound[i] + 1e-5f)) {
      INFO("bf16 conv2d against fp32: element " << i << " got " << got[i] << " fp32 " << loose[i]
                                                << " sum |x w| " << bound[i]);
      CHECK(false);
      break;
    }
  b16::conv2d<Act>(x.data(), packed.data(), bp, zp, split.data(), in, out, kernel, strides, pb,
                   dil, q.group, aa, ab, sp, pool(), kTasks);
  CHECK_SAME("bf16 conv2d", split, got, ny);
  if (q.group != 1)
    return;
  // The channel-blocked form: the same sums, so the same outputs as the
  // NCHW one to fp32's summation order.
  std::vector<uint16_t> bpacked(b16::blocked_conv_packed_halves(q.m, q.c, taps));
  b16::pack_blocked_conv_weights(w.data(), q.m, q.c, taps, bpacked.data());
  const auto xb = blocked(x, in), zb = blocked(z, out);
  const size_t yb_floats = blocked(got, out).size();
  std::vector<float> yb(yb_floats, 7.f), yb_split(yb_floats, 7.f);
  for (int tasks : {1, (int)kTasks})
    b16::conv2d_blocked<Act>(xb.data(), bpacked.data(), bp, zp ? zb.data() : nullptr,
                             tasks == 1 ? yb.data() : yb_split.data(), in, out, kernel, strides,
                             pb, dil, aa, ab, sp, pool(), tasks);
  CHECK_CLOSE("bf16 conv2d_blocked (on bf16 operands)", unblocked(yb, out), want, ny, cg * taps);
  CHECK_SAME("bf16 conv2d_blocked", yb_split, yb, (int64_t)yb_floats);
  for (size_t i = 0; i < yb_floats; ++i)
    if (!std::isfinite(yb[i])) {
      INFO("bf16 conv2d_blocked: element " << i << " (a padding lane?) is " << yb[i]);
      CHECK(false);
      break;
    }
}

void checkEpilogues(const ConvCase &q) {
  checkConv<ref::Identity>(q, false, false, 0, 0);
  checkConv<ref::Relu>(q, true, false, 0, 0);
  checkConv<ref::Clamp>(q, true, true, -0.5f, 0.5f);
  checkConv<ref::HardSigmoid>(q, false, true, 0.2f, 0.5f);
}

} // namespace

TEST_CASE("bf16 conv2d against the reference", "[simd][bf16]") {
  if (!simd::amx_state_granted() || !simd::cpu_has_amx_bf16())
    WARN("no AMX-BF16 tiles here: the kernel's AVX-512 way is what runs");
  const ConvCase cases[] = {
      {1, 64, 7, 9, 40, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},     // 1x1, 63 pixels, 40 channels
      {1, 32, 10, 13, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // 3x3, one step
      {1, 64, 15, 14, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},   // stride 2: four phases
      {1, 48, 9, 9, 20, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1},     // 48 channels (+16 zeros), dilated
      {1, 64, 8, 8, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},     // two groups of 32
      {1, 32, 16, 16, 16, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1},   // 7x7 stride 2: 49 taps
      {2, 96, 9, 11, 70, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1},    // batch 2, 1x1 stride 2, 3 steps
      {1, 128, 14, 14, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, // many blocks each way
      {1, 40, 6, 17, 33, 3, 2, 1, 2, 0, 1, 2, 0, 1, 1, 1},    // asymmetric kernel, pads, strides
      {1, 24, 1, 1, 17, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},     // one pixel, 24 channels
  };
  for (const ConvCase &q : cases) {
    INFO("n" << q.n << " c" << q.c << " " << q.h << "x" << q.w << " m" << q.m << " k" << q.kh
             << "x" << q.kw << " s" << q.sh << "x" << q.sw << " d" << q.dh << " g" << q.group);
    checkEpilogues(q);
  }
}

TEST_CASE("bf16 gemm against the reference", "[simd][bf16]") {
  // Rows and columns around the tiles' 16 and the blocks' 32, depths around
  // the steps' 32 (padded with zeros), A transposed or not, C as a row, a
  // column, a scalar and a whole matrix, activations.
  struct GemmCase {
    int64_t m, n, k, trans_a, c_kind; // c_kind: 0 none, 1 row (n), 2 column (m), 3 scalar, 4 m x n
  };
  const GemmCase cases[] = {{16, 16, 32, 0, 0},  {17, 33, 40, 0, 1},  {32, 32, 64, 1, 2},
                            {50, 70, 100, 0, 3}, {128, 96, 256, 0, 4}, {33, 15, 24, 1, 1}};
  for (const GemmCase &g : cases) {
    INFO("m " << g.m << " n " << g.n << " k " << g.k << " trans_a " << g.trans_a << " C "
              << g.c_kind);
    auto a = randomVec(g.m * g.k), b = randomVec(g.k * g.n), c = randomVec(g.m * g.n);
    const int64_t csm = g.c_kind == 2 || g.c_kind == 4 ? (g.c_kind == 2 ? 1 : g.n) : 0;
    const int64_t csn = g.c_kind == 1 || g.c_kind == 4 ? 1 : 0;
    const float *cp = g.c_kind ? c.data() : nullptr;
    const float alpha = 0.75f, beta = 0.5f;
    // want: the product of the bf16-rounded operands; bound: sum |a| |b|.
    auto ar = roundedToBf16(a), br = roundedToBf16(b);
    std::vector<float> want(g.m * g.n), bound(g.m * g.n), loose(g.m * g.n);
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        double s = 0, sl = 0, sb = 0;
        for (int64_t p = 0; p < g.k; ++p) {
          const int64_t ai = g.trans_a ? p * g.m + i : i * g.k + p;
          s += double(ar[ai]) * br[p * g.n + j];
          sl += double(a[ai]) * b[p * g.n + j];
          sb += std::fabs(double(a[ai]) * b[p * g.n + j]);
        }
        const float cv = cp ? beta * cp[i * csm + j * csn] : 0.f;
        want[i * g.n + j] = ref::Relu::apply(float(alpha * s) + cv, 0, 0);
        loose[i * g.n + j] = ref::Relu::apply(float(alpha * sl) + cv, 0, 0);
        bound[i * g.n + j] = float(alpha * sb);
      }
    std::vector<uint16_t> packed(b16::gemm_packed_b_halves(g.k, g.n));
    b16::pack_gemm_b(b.data(), g.n, 1, g.k, g.n, packed.data());
    std::vector<uint8_t> scratch(b16::gemm_scratch_bytes(g.m, g.k) + 64);
    uint8_t *sp = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
    std::vector<float> got(g.m * g.n, 7.f), split(g.m * g.n, 7.f);
    b16::gemm<ref::Relu>(a.data(), packed.data(), cp, got.data(), g.m, g.n, g.k, g.trans_a, alpha,
                         beta, csm, csn, 0, 0, sp);
    CHECK_CLOSE("bf16 gemm (on bf16 operands)", got, want, g.m * g.n, g.k);
    for (int64_t i = 0; i < g.m * g.n; ++i)
      if (!(std::fabs(got[i] - loose[i]) <= 0x1p-7f * bound[i] + 1e-5f)) {
        INFO("bf16 gemm against fp32: element " << i << " got " << got[i] << " fp32 " << loose[i]);
        CHECK(false);
        break;
      }
    b16::gemm<ref::Relu>(a.data(), packed.data(), cp, split.data(), g.m, g.n, g.k, g.trans_a,
                         alpha, beta, csm, csn, 0, 0, sp, pool(), kTasks);
    CHECK_SAME("bf16 gemm", split, got, g.m * g.n);
  }
}

TEST_CASE("bf16 matmul of two activations against the reference", "[simd][bf16]") {
  // Batches with B broadcast (stride 0) or not, rows, columns and depths
  // around the tiles and steps; both operands rounded per call.
  struct MatMulCase {
    int64_t batches, m, k, n;
    bool b_broadcast;
  };
  const MatMulCase cases[] = {{2, 20, 40, 33, true}, {4, 128, 64, 128, false},
                              {3, 16, 24, 16, false}, {1, 50, 100, 70, false}};
  for (const MatMulCase &q : cases) {
    INFO("batches " << q.batches << " m " << q.m << " k " << q.k << " n " << q.n);
    auto a = randomVec(q.batches * q.m * q.k);
    auto b = randomVec((q.b_broadcast ? 1 : q.batches) * q.k * q.n);
    auto ar = roundedToBf16(a), br = roundedToBf16(b);
    const int64_t ny = q.batches * q.m * q.n;
    std::vector<float> want(ny), loose(ny), bound(ny);
    for (int64_t bi = 0; bi < q.batches; ++bi)
      for (int64_t i = 0; i < q.m; ++i)
        for (int64_t j = 0; j < q.n; ++j) {
          double s = 0, sl = 0, sb = 0;
          for (int64_t p = 0; p < q.k; ++p) {
            const int64_t ai = (bi * q.m + i) * q.k + p;
            const int64_t bj = ((q.b_broadcast ? 0 : bi) * q.k + p) * q.n + j;
            s += double(ar[ai]) * br[bj];
            sl += double(a[ai]) * b[bj];
            sb += std::fabs(double(a[ai]) * b[bj]);
          }
          const int64_t yi = (bi * q.m + i) * q.n + j;
          want[yi] = float(s);
          loose[yi] = float(sl);
          bound[yi] = float(sb);
        }
    const int64_t batch[1] = {q.batches}, as[1] = {q.m * q.k},
                  bs[1] = {q.b_broadcast ? 0 : q.k * q.n};
    std::vector<uint8_t> scratch(b16::matmul_scratch_bytes(q.m, q.k, q.n));
    std::vector<float> got(ny, 7.f), split(ny, 7.f);
    b16::matmul(a.data(), b.data(), got.data(), q.m, q.k, q.n, 1, batch, as, bs, scratch.data());
    CHECK_CLOSE("bf16 matmul (on bf16 operands)", got, want, ny, q.k);
    for (int64_t i = 0; i < ny; ++i)
      if (!(std::fabs(got[i] - loose[i]) <= 0x1p-7f * bound[i] + 1e-5f)) {
        INFO("bf16 matmul against fp32: element " << i << " got " << got[i] << " fp32 "
                                                  << loose[i]);
        CHECK(false);
        break;
      }
    b16::matmul(a.data(), b.data(), split.data(), q.m, q.k, q.n, 1, batch, as, bs,
                scratch.data(), pool(), kTasks);
    CHECK_SAME("bf16 matmul", split, got, ny);
  }
}

TEST_CASE("bf16 tile sums equal the same sums by AVX-512 FMAs", "[simd][bf16][amx]") {
  namespace d = b16::detail;
  if (!simd::amx_state_granted() || !simd::cpu_has_amx_bf16()) {
    WARN("no AMX-BF16 tiles here: the tile sums are not checked");
    return;
  }
  // Both operand forms: the convolution's (weights packed: 1 KiB steps,
  // rows of 64 bytes; the input at 3 tap offsets, 2 steps, rows a pair
  // plane apart, the second pixel tile 64 bytes on) and the GEMM's (rows
  // of A 160 bytes apart, steps of 64 bytes; B packed: one tap, 1 KiB
  // steps, the second column tile after all its steps).
  const int64_t tap_off[3] = {0, 4 * 5, 4 * 37}, row = 4 * 96, no_offset[1] = {0};
  const int64_t w_off[3] = {0, 2048, 4096};
  struct Form {
    d::TileOperand ao, bo;
    int64_t taps;
  };
  const Form forms[2] = {{{w_off, 1024, 64, 6 * 1024}, {tap_off, 16 * row, row, 64}, 3},
                         {{no_offset, 64, 160, 16 * 160}, {no_offset, 1024, 64, 2048}, 1}};
  auto randomBf16 = [](int64_t n) {
    std::vector<uint16_t> v(n);
    for (auto &x : v)
      x = b16::to_bf16(randomVec(1)[0]);
    return v;
  };
  const auto a = randomBf16(2 * 6 * 512), b = randomBf16(2 * (2 * 16 * row / 4 + 64) + 4096);
  for (const Form &f : forms)
    for (int mb = 1; mb <= 2; ++mb)
      for (int nb = 1; nb <= 2; ++nb) {
        alignas(64) float tiles[32 * 32] = {}, fmas[32 * 32] = {};
        const uint8_t *ap = reinterpret_cast<const uint8_t *>(a.data());
        const uint8_t *bp = reinterpret_cast<const uint8_t *>(b.data());
        simd::amx_configure();
        d::block_sums(true, mb, nb, ap, f.ao, bp, f.bo, f.taps, 2, tiles);
        _tile_release();
        d::block_sums(false, mb, nb, ap, f.ao, bp, f.bo, f.taps, 2, fmas);
        INFO("taps " << f.taps << " channel tiles " << mb << " pixel tiles " << nb);
        std::vector<float> tv(tiles, tiles + 1024), fv(fmas, fmas + 1024);
        CHECK_CLOSE("tiles against FMAs", tv, fv, 1024, 3 * 2 * 32);
        int64_t nonzero = 0;
        for (float v : tiles)
          nonzero += v != 0;
        REQUIRE(nonzero == mb * nb * 256);
      }
}
#else
TEST_CASE("bf16 kernels need an AMX-BF16 build", "[simd][bf16]") {
  WARN("built without -mamx-bf16: nothing to check");
}
#endif
