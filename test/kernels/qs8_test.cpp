// The qs8 reference kernels (kernels/reference/qs8.h): fixed-point
// multipliers and their single rounding against exact arithmetic, and
// each kernel against double-precision arithmetic on the dequantized
// values (within one quantization step, the scheme's promise).
#include <catch2/catch.hpp>

#include "onnxc_rt/kernels/reference/linalg.h"
#include "onnxc_rt/kernels/reference/qs8.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace onnxc_rt::ref;

namespace {

/// round-half-away(v) + zp clamped to T: what exact real arithmetic gives.
template <typename T> int32_t exact(double v, int32_t zp) {
  double r = std::round(v) + zp;
  double lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  return int32_t(r < lo ? lo : (r > hi ? hi : r));
}

} // namespace

TEST_CASE("quantize_multiplier: Q31 multiplier and shift", "[qs8]") {
  auto m = qs8::quantize_multiplier(0.5);
  CHECK(m.multiplier == (1 << 30));
  CHECK(m.shift == 0);
  m = qs8::quantize_multiplier(1.0);
  CHECK(m.multiplier == (1 << 30));
  CHECK(m.shift == 1);
  m = qs8::quantize_multiplier(0.25);
  CHECK(m.multiplier == (1 << 30));
  CHECK(m.shift == -1);
  m = qs8::quantize_multiplier(0.0);
  CHECK(m.multiplier == 0);
  // A fraction that rounds up to 2^31 moves to the next exponent.
  m = qs8::quantize_multiplier(std::nextafter(1.0, 0.0));
  CHECK(m.multiplier == (1 << 30));
  CHECK(m.shift == 1);

  std::mt19937 rng(7);
  std::uniform_real_distribution<double> exponent(-20, 6);
  for (int i = 0; i < 2000; ++i) {
    const double real = std::pow(2.0, exponent(rng));
    m = qs8::quantize_multiplier(real);
    REQUIRE(m.multiplier >= (1 << 30));
    const double back = double(m.multiplier) * std::ldexp(1.0, m.shift - 31);
    CHECK(std::abs(back - real) <= real * 1e-9);
  }
}

TEST_CASE("fixed-point requantization rounds once (TFLite's single rounding)", "[qs8]") {
  using qs8::multiply_by_quantized_multiplier;
  CHECK(qs8::split_shift(-3).left == 0);
  CHECK(qs8::split_shift(-3).right == 3);
  CHECK(qs8::split_shift(0).left == 1); // a factor of 0.5 or more scales up one more bit
  CHECK(qs8::split_shift(0).right == 1);
  CHECK(qs8::split_shift(2).left == 3);
  CHECK(multiply_by_quantized_multiplier(100, 1 << 30, 0) == 50);
  // Ties round up, for both signs.
  CHECK(multiply_by_quantized_multiplier(3, 1 << 30, 0) == 2);   // 1.5
  CHECK(multiply_by_quantized_multiplier(-3, 1 << 30, 0) == -1); // -1.5
  CHECK(multiply_by_quantized_multiplier(-6, 1 << 30, -1) == -1); // -1.5
  CHECK(multiply_by_quantized_multiplier(-3, 1 << 30, -1) == -1); // -0.75
  CHECK(multiply_by_quantized_multiplier(-5, 1 << 30, -1) == -1); // -1.25
  CHECK(multiply_by_quantized_multiplier(7, 1 << 30, 3) == 28);   // 7 * 0.5 * 8
  // A scaled-up value that saturates int32 stays far beyond any int8 output.
  CHECK(multiply_by_quantized_multiplier(INT32_MIN, INT32_MAX, 0) < -(1 << 29));
  CHECK(multiply_by_quantized_multiplier(INT32_MAX, INT32_MAX, 30) > (1 << 29));

  // Against real arithmetic with the same multiplier: within half a step,
  // and the nearest integer wherever the value is not a near tie. (The
  // gemmlowp form that rounded the high product and then the shift was up
  // to a step off near ties: it fails this.)
  std::mt19937 rng(11);
  std::uniform_int_distribution<int32_t> acc(-(1 << 24), 1 << 24);
  std::uniform_real_distribution<double> exponent(-24, 2);
  int near_ties = 0;
  for (int i = 0; i < 200000; ++i) {
    const double real = std::pow(2.0, exponent(rng));
    const auto m = qs8::quantize_multiplier(real);
    const int32_t a = acc(rng);
    const double want = double(a) * double(m.multiplier) * std::ldexp(1.0, m.shift - 31);
    const int32_t got = multiply_by_quantized_multiplier(a, m.multiplier, m.shift);
    REQUIRE(std::abs(double(got) - want) <= 0.5 + 1e-9);
    if (std::abs(want - std::floor(want) - 0.5) > 1e-6)
      REQUIRE(double(got) == std::floor(want + 0.5));
    else
      ++near_ties;
  }
  CHECK(near_ties < 100);
}

TEST_CASE("requantize: per-channel multipliers, zero point, fused clamp", "[qs8]") {
  // (outer 2, channels 3, inner 4), scales per channel.
  const double scales[3] = {0.0123, 0.00071, 0.25};
  int32_t mult[3], shift[3];
  for (int c = 0; c < 3; ++c) {
    auto m = qs8::quantize_multiplier(scales[c]);
    mult[c] = m.multiplier;
    shift[c] = m.shift;
  }
  std::vector<int32_t> acc(24);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int32_t> d(-20000, 20000);
  for (auto &a : acc)
    a = d(rng);
  SECTION("int8, full range") {
    std::vector<int8_t> y(24);
    qs8::requantize<int8_t>(acc.data(), nullptr, mult, shift, 3, -5, -128, 127, y.data(), 2, 3, 4);
    for (int o = 0; o < 2; ++o)
      for (int c = 0; c < 3; ++c)
        for (int i = 0; i < 4; ++i) {
          const int k = (o * 3 + c) * 4 + i;
          CHECK(std::abs(int32_t(y[k]) - exact<int8_t>(acc[k] * scales[c], -5)) <= 1);
        }
  }
  SECTION("a per-channel bias joins the accumulator before scaling") {
    const int32_t bias[3] = {1000, -700, 3};
    std::vector<int8_t> y(24);
    qs8::requantize<int8_t>(acc.data(), bias, mult, shift, 3, 0, -128, 127, y.data(), 2, 3, 4);
    for (int k = 0; k < 24; ++k) {
      const int c = (k / 4) % 3;
      CHECK(std::abs(int32_t(y[k]) - exact<int8_t>((acc[k] + bias[c]) * scales[c], 0)) <= 1);
    }
  }
  SECTION("uint8 with a fused Relu: nothing below the zero point") {
    std::vector<uint8_t> y(24);
    qs8::requantize<uint8_t>(acc.data(), nullptr, mult, shift, 3, 100, 100, 255, y.data(), 2, 3, 4);
    for (int k = 0; k < 24; ++k) {
      const int c = (k / 4) % 3;
      const int32_t want = std::max(100, exact<uint8_t>(acc[k] * scales[c], 100));
      CHECK(std::abs(int32_t(y[k]) - want) <= 1);
      CHECK(y[k] >= 100);
    }
  }
}

TEST_CASE("conv_acc + requantize: a quantized convolution within one step of real arithmetic",
          "[qs8]") {
  // x: 1x3x5x5 int8 (scale 0.05, zp 3), w: 4x3x3x3 int8 per-channel, pad 1.
  const int64_t in_shape[4] = {1, 3, 5, 5}, out_shape[4] = {1, 4, 5, 5};
  const int64_t kernel[2] = {3, 3}, strides[2] = {1, 1}, pads[2] = {1, 1}, dil[2] = {1, 1};
  std::mt19937 rng(5);
  std::uniform_int_distribution<int32_t> q(-128, 127);
  std::vector<int8_t> x(75), w(108);
  for (auto &v : x)
    v = int8_t(q(rng));
  for (auto &v : w)
    v = int8_t(q(rng));
  const double xs = 0.05, ys = 0.4, ws[4] = {0.01, 0.02, 0.003, 0.05};
  const int8_t xzp = 3;
  const int32_t yzp = -7;
  std::vector<int32_t> bias = {100, -250, 0, 4000}, acc(100);
  conv_acc<int8_t, int8_t, int32_t>(x.data(), w.data(), &xzp, nullptr, 0, bias.data(), acc.data(),
                                    2, in_shape, out_shape, kernel, strides, pads, pads, dil, 1);
  int32_t mult[4], shift[4];
  for (int c = 0; c < 4; ++c) {
    auto m = qs8::quantize_multiplier(xs * ws[c] / ys);
    mult[c] = m.multiplier;
    shift[c] = m.shift;
  }
  std::vector<int8_t> y(100);
  qs8::requantize<int8_t>(acc.data(), nullptr, mult, shift, 4, yzp, -128, 127, y.data(), 1, 4, 25);
  for (int c = 0; c < 4; ++c)
    for (int oy = 0; oy < 5; ++oy)
      for (int ox = 0; ox < 5; ++ox) {
        double real = bias[c] * xs * ws[c];
        for (int ic = 0; ic < 3; ++ic)
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              int iy = oy + ky - 1, ix = ox + kx - 1;
              if (iy < 0 || iy >= 5 || ix < 0 || ix >= 5)
                continue;
              real += xs * (x[(ic * 5 + iy) * 5 + ix] - xzp) * ws[c] *
                      w[((c * 3 + ic) * 3 + ky) * 3 + kx];
            }
        CHECK(std::abs(int32_t(y[(c * 5 + oy) * 5 + ox]) - exact<int8_t>(real / ys, yzp)) <= 1);
      }
}

TEST_CASE("rescale, lookup", "[qs8]") {
  std::vector<int8_t> x(256);
  for (int i = 0; i < 256; ++i)
    x[i] = int8_t(i - 128);
  SECTION("rescale to another scale and zero point, saturating") {
    const double xs = 0.1, ys = 0.037;
    auto m = qs8::quantize_multiplier(xs / ys);
    std::vector<uint8_t> y(256);
    qs8::rescale<int8_t, uint8_t>(x.data(), -2, m.multiplier, m.shift, 128, y.data(), 256);
    for (int i = 0; i < 256; ++i)
      CHECK(std::abs(int32_t(y[i]) - exact<uint8_t>((x[i] + 2) * xs / ys, 128)) <= 1);
  }
  SECTION("lookup indexes the table from T's lowest value") {
    std::vector<int8_t> table(256), y(256);
    for (int i = 0; i < 256; ++i)
      table[i] = int8_t(127 - i);
    qs8::lookup<int8_t>(x.data(), table.data(), y.data(), 256);
    for (int i = 0; i < 256; ++i)
      CHECK(int32_t(y[i]) == -int32_t(x[i]) - 1);
  }
}

TEST_CASE("add and mul with broadcasting", "[qs8]") {
  // a: 2x3, b: 1x3 broadcast over rows.
  const int64_t shape[2] = {2, 3}, as[2] = {3, 1}, bs[2] = {0, 1};
  const int8_t a[6] = {-128, -5, 0, 17, 90, 127}, b[3] = {-100, 3, 120};
  const double sa = 0.02, sb = 0.05, sy = 0.06;
  const int32_t za = -3, zb = 10, zy = 5;
  SECTION("add") {
    const qs8::AddParams p = qs8::add_params(sa, za, sb, zb, sy, zy, -128, 127);
    int8_t y[6];
    qs8::add<int8_t>(a, b, y, 2, shape, as, bs, p.left_shift, p.a_zp, p.a_multiplier, p.a_shift,
                     p.b_zp, p.b_multiplier, p.b_shift, p.y_zp, p.y_multiplier, p.y_shift,
                     p.act_min, p.act_max);
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 3; ++c) {
        double real = sa * (a[r * 3 + c] - za) + sb * (b[c] - zb);
        CHECK(std::abs(int32_t(y[r * 3 + c]) - exact<int8_t>(real / sy, zy)) <= 1);
      }
  }
  SECTION("mul") {
    auto m = qs8::quantize_multiplier(sa * sb / sy);
    int8_t y[6];
    qs8::mul<int8_t>(a, b, y, 2, shape, as, bs, za, zb, zy, m.multiplier, m.shift, -128, 127);
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 3; ++c) {
        double real = sa * (a[r * 3 + c] - za) * sb * (b[c] - zb);
        CHECK(std::abs(int32_t(y[r * 3 + c]) - exact<int8_t>(real / sy, zy)) <= 1);
      }
  }
}

TEST_CASE("average_pool: rounded window means, padding excluded or counted", "[qs8]") {
  // 1x1x3x3 input, 2x2 windows, stride 1, pad 1 at the end: 3x3 output.
  const int64_t in_shape[4] = {1, 1, 3, 3}, out_shape[4] = {1, 1, 3, 3};
  const int64_t kernel[2] = {2, 2}, strides[2] = {1, 1}, pb[2] = {0, 0}, pe[2] = {1, 1},
                dil[2] = {1, 1};
  const int8_t x[9] = {1, 2, 3, 4, 5, 6, 7, 8, -9};
  const int32_t zp = 1;
  auto same = qs8::quantize_multiplier(1.0);
  for (int include_pad = 0; include_pad < 2; ++include_pad) {
    int8_t y[9];
    qs8::average_pool<int8_t>(x, y, 2, in_shape, out_shape, kernel, strides, pb, pe, dil,
                              include_pad, zp, zp, same.multiplier, same.shift);
    for (int oy = 0; oy < 3; ++oy)
      for (int ox = 0; ox < 3; ++ox) {
        double sum = 0;
        int count = 0;
        for (int ky = 0; ky < 2; ++ky)
          for (int kx = 0; kx < 2; ++kx) {
            int iy = oy + ky, ix = ox + kx;
            if (iy < 3 && ix < 3) {
              sum += x[iy * 3 + ix] - zp;
              ++count;
            }
          }
        if (include_pad)
          count = 4;
        CHECK(int32_t(y[oy * 3 + ox]) == exact<int8_t>(sum / count, zp));
      }
  }
}

TEST_CASE("average_pool to another scale rounds once (GlobalAveragePool)", "[qs8]") {
  // 2 planes of 5x5, one window each; output scale 0.23 of the input's.
  const int64_t in_shape[4] = {1, 2, 5, 5}, out_shape[4] = {1, 2, 1, 1};
  const int64_t kernel[2] = {5, 5}, ones[2] = {1, 1}, zeros[2] = {0, 0};
  std::mt19937 rng(9);
  std::uniform_int_distribution<int32_t> q(-128, 127);
  const double xs = 0.05, ys = 0.05 * 0.23;
  const int32_t xzp = -4, yzp = 7;
  auto m = qs8::quantize_multiplier(xs / ys);
  for (int trial = 0; trial < 200; ++trial) {
    int8_t x[50], y[2];
    for (auto &v : x)
      v = int8_t(q(rng) / 4); // narrow inputs: averages stay in range
    qs8::average_pool<int8_t>(x, y, 2, in_shape, out_shape, kernel, ones, zeros, zeros, ones, 0,
                              xzp, yzp, m.multiplier, m.shift);
    for (int c = 0; c < 2; ++c) {
      double sum = 0;
      for (int i = 0; i < 25; ++i)
        sum += x[c * 25 + i] - xzp;
      const double real = sum / 25 * xs / ys;
      if (std::abs(real - std::floor(real) - 0.5) < 1e-6)
        continue; // a tie: the multiplier's last bit decides
      REQUIRE(int32_t(y[c]) == exact<int8_t>(real, yzp));
    }
  }
}

TEST_CASE("conv and fully_connected: plane by plane, the same integers as one whole "
          "accumulation", "[qs8]") {
  std::mt19937 rng(13);
  std::uniform_int_distribution<int32_t> q(-128, 127), big(-5000, 5000);
  int32_t mult[6], shift[6];
  for (int c = 0; c < 6; ++c) {
    auto m = qs8::quantize_multiplier(0.001 * (c + 1));
    mult[c] = m.multiplier;
    shift[c] = m.shift;
  }
  const int8_t xzp = -3;
  for (int64_t group : {1, 3, 6}) {
    DYNAMIC_SECTION("conv, group " << group) {
      // x: 2x6x5x4, w: 6 x (6/group) x 3x3, stride 2 with padding.
      const int64_t in_shape[4] = {2, 6, 5, 4}, out_shape[4] = {2, 6, 3, 2};
      const int64_t kernel[2] = {3, 3}, strides[2] = {2, 2}, pads[2] = {1, 1}, dil[2] = {1, 1};
      const int64_t cg = 6 / group;
      std::vector<int8_t> x(2 * 6 * 5 * 4), w(6 * cg * 9), got(2 * 6 * 3 * 2), want(got.size());
      std::vector<int32_t> bias(6), acc(got.size()), scratch(3 * 2);
      for (auto &v : x)
        v = int8_t(q(rng));
      for (auto &v : w)
        v = int8_t(q(rng));
      for (auto &v : bias)
        v = big(rng);
      qs8::conv<int8_t>(x.data(), w.data(), &xzp, bias.data(), got.data(), 2, in_shape, out_shape,
                        kernel, strides, pads, pads, dil, group, scratch.data(), mult, shift, 6,
                        5, -100, 127);
      conv_acc<int8_t, int8_t, int32_t>(x.data(), w.data(), &xzp, nullptr, 0, nullptr, acc.data(),
                                        2, in_shape, out_shape, kernel, strides, pads, pads, dil,
                                        group);
      qs8::requantize<int8_t>(acc.data(), bias.data(), mult, shift, 6, 5, -100, 127, want.data(),
                              2, 6, 6);
      CHECK(got == want);
    }
  }
  SECTION("fully_connected, per-column multipliers") {
    const int64_t rows = 3, k = 7, n = 6;
    std::vector<int8_t> a(rows * k), w(k * n), got(rows * n), want(rows * n);
    std::vector<int32_t> bias(n), acc(rows * n), scratch(n);
    for (auto &v : a)
      v = int8_t(q(rng));
    for (auto &v : w)
      v = int8_t(q(rng));
    for (auto &v : bias)
      v = big(rng);
    qs8::fully_connected<int8_t>(a.data(), w.data(), &xzp, bias.data(), got.data(), rows, k, n,
                                 scratch.data(), mult, shift, n, 0, -128, 127);
    matmul_acc<int8_t, int8_t, int32_t>(a.data(), w.data(), &xzp, 1, nullptr, 0, acc.data(), rows,
                                        k, n, 0, nullptr, nullptr, nullptr);
    qs8::requantize<int8_t>(acc.data(), bias.data(), mult, shift, n, 0, -128, 127, want.data(),
                            rows, n, 1);
    CHECK(got == want);
  }
}

TEST_CASE("16x8: the 64-bit accumulator's requantization rounds once, exactly", "[qs8]") {
  // Against the exact product in 128 bits, for accumulators past int32
  // (int16 activations: K terms of up to 2^22 each) and multipliers of
  // every size, with the 32-bit form's shifts: exact wherever the result
  // could be an output, saturated the right way where it is far past one.
  std::mt19937_64 rng(16);
  for (int i = 0; i < 200000; ++i) {
    const int bits = 31 + int(rng() % 16); // |x| up to 2^46
    int64_t x = int64_t(rng() % (uint64_t(1) << bits));
    if (rng() & 1)
      x = -x;
    const int32_t m = int32_t((uint64_t(1) << 30) + rng() % (uint64_t(1) << 30));
    const int32_t shift = -int32_t(rng() % 32) + int32_t(rng() % 3); // -31 .. 2
    const int32_t right = 31 - shift;
    const __int128 p = __int128(x) * m;
    __int128 want = (p + (__int128(1) << (right - 1))) >> right; // ties up
    if (want > INT32_MAX)
      want = INT32_MAX;
    if (want < INT32_MIN)
      want = INT32_MIN;
    INFO("x " << x << " m " << m << " shift " << shift);
    const int32_t got = qs8::multiply_by_quantized_multiplier(x, m, shift);
    if (want > -(1 << 24) && want < (1 << 24))
      REQUIRE(got == int32_t(want));
    else // far past any 16-bit output (the 32-bit form saturates x * 2^left)
      REQUIRE(((got > 32767 && want > 0) || (got < -32768 && want < 0)));
  }
  // Where x fits int32, the 32-bit form's integers.
  for (int32_t x : {0, 1, -1, 123456, -7654321, INT32_MAX, INT32_MIN})
    CHECK(qs8::multiply_by_quantized_multiplier(int64_t(x), 1518500250, -3) ==
          qs8::multiply_by_quantized_multiplier(x, 1518500250, -3));
}

TEST_CASE("16x8: an int16 convolution past int32's reach within one step of real arithmetic",
          "[qs8]") {
  // 64 input channels x 3 x 3 = 576 terms of up to 32767 x 127: an int32
  // sum would overflow (from K = 512 on); the int64 accumulator does not.
  const int64_t c = 64, in_shape[4] = {1, c, 3, 3}, out_shape[4] = {1, 2, 1, 1};
  const int64_t kernel[2] = {3, 3}, one[2] = {1, 1}, zero[2] = {0, 0};
  std::vector<int16_t> x(size_t(c * 9), 32767);
  std::vector<int8_t> w(size_t(2 * c * 9), 127);
  for (size_t i = 0; i < w.size() / 2; ++i) // channel 1: alternating signs, a small sum
    w[w.size() / 2 + i] = int8_t(i % 2 ? -127 : 127);
  const double xs = 1.0 / 32767, ws[2] = {0.5 / 127, 0.25 / 127};
  const double ys = 600.0 / 32767; // channel 0's real value, 576 * 0.5 = 288, fits
  int32_t mult[2], shift[2];
  for (int k = 0; k < 2; ++k) {
    auto m = qs8::quantize_multiplier(xs * ws[k] / ys);
    mult[k] = m.multiplier;
    shift[k] = m.shift;
  }
  const int32_t bias[2] = {1000000, -5};
  const int16_t xzp = 0;
  int16_t y[2];
  int64_t scratch[1];
  qs8::conv<int16_t>(x.data(), w.data(), &xzp, bias, y, 2, in_shape, out_shape, kernel, one,
                     zero, zero, one, 1, scratch, mult, shift, 2, 0, -32768, 32767);
  for (int k = 0; k < 2; ++k) {
    double acc = bias[k];
    for (size_t i = 0; i < size_t(c * 9); ++i)
      acc += double(x[i]) * w[size_t(k) * size_t(c * 9) + i];
    INFO("channel " << k << ": " << y[k] << " against " << acc * xs * ws[k] / ys);
    CHECK(std::abs(int32_t(y[k]) - exact<int16_t>(acc * xs * ws[k] / ys, 0)) <= 1);
  }
  CHECK(y[0] > 15000); // 288 / ys: an int32 sum (2.4e9) would have wrapped negative
}

TEST_CASE("16x8: add and mul of int16 values with zero points", "[qs8]") {
  // x - zp spans 17 bits: add's headroom is 14 bits, mul's product 64.
  const int16_t a[4] = {32767, -32768, 1000, -1}, b[4] = {-32768, 32767, -20000, 7};
  const double as = 0.001, bs = 0.0005, ys = 0.002;
  const int32_t azp = -100, bzp = 50, yzp = 0;
  auto p = qs8::add_params(as, azp, bs, bzp, ys, yzp, -32768, 32767, 16);
  CHECK(p.left_shift == 14);
  const int64_t shape[1] = {4}, unit[1] = {1};
  int16_t y[4];
  qs8::add<int16_t>(a, b, y, 1, shape, unit, unit, p.left_shift, p.a_zp, p.a_multiplier,
                    p.a_shift, p.b_zp, p.b_multiplier, p.b_shift, p.y_zp, p.y_multiplier,
                    p.y_shift, p.act_min, p.act_max);
  for (int i = 0; i < 4; ++i)
    CHECK(std::abs(y[i] - exact<int16_t>(((a[i] - azp) * as + (b[i] - bzp) * bs) / ys, yzp)) <=
          1);
  auto m = qs8::quantize_multiplier(as * bs / 0.5);
  qs8::mul<int16_t>(a, b, y, 1, shape, unit, unit, azp, bzp, yzp, m.multiplier, m.shift, -32768,
                    32767);
  for (int i = 0; i < 4; ++i)
    CHECK(std::abs(y[i] - exact<int16_t>(double(a[i] - azp) * (b[i] - bzp) * as * bs / 0.5,
                                         yzp)) <= 1);
}
