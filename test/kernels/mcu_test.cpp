// The microcontroller kernels (onnxc_rt/kernels/mcu) against the reference
// kernels, swept over shapes around their blocks (odd pixel counts, odd
// channel counts, odd depths, padding, strides, dilations) and over the
// requantization's whole range. Plain C++ with no test framework, so the
// same program runs on the host (the DSP instructions' C definitions) and
// as Cortex-M4 firmware under QEMU (SMLAD, SXTB16 and the hand-scheduled
// loop; ctest cortex-m4.mcu_kernels): both must match the reference
// integers exactly and its floats to rounding.
#include "onnxc_rt/kernels/mcu/f32/conv.h"
#include "onnxc_rt/kernels/mcu/qs8/conv.h"
#include "onnxc_rt/kernels/mcu/qs8/elementwise.h"
#include "onnxc_rt/kernels/mcu/qs8/fully_connected.h"
#include "onnxc_rt/kernels/mcu/qs8/pool.h"
#include "onnxc_rt/kernels/mcu/qs8/quantize.h"
#include "onnxc_rt/kernels/reference/conv.h"
#include "onnxc_rt/kernels/reference/elementwise.h"
#include "onnxc_rt/kernels/reference/linalg.h"
#include "onnxc_rt/kernels/reference/qs8.h"
#include "onnxc_rt/kernels/reference/quant.h"

#include <stdint.h>
#include <type_traits>
#include <stdio.h>

namespace {

int failures = 0;

void check(bool ok, const char *what, int detail) {
  if (!ok && failures++ < 20)
    printf("FAILED: %s (%d)\n", what, detail);
}

/// A deterministic generator (no <random> on bare metal).
struct Rng {
  uint32_t s;
  uint32_t next() {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
  }
  int32_t range(int32_t lo, int32_t hi) { return lo + int32_t(next() % uint32_t(hi - lo + 1)); }
  float unit() { return float(next() % 20001u) / 10000.0f - 1.0f; }
};

/// Random values in [-1, 1] / int16 activations / int8 activations / int8 weights.
template <int N> void fill_unit(Rng &rng, float (&a)[N]) {
  for (float &v : a)
    v = rng.unit();
}
template <int N> void fill_int16(Rng &rng, int16_t (&a)[N]) {
  for (int16_t &v : a)
    v = int16_t(rng.range(-32768, 32767));
}
template <int N> void fill_int8(Rng &rng, int8_t (&a)[N], int lo = -128) {
  for (int8_t &v : a)
    v = int8_t(rng.range(lo, 127));
}

void test_requantize(Rng &rng) {
  namespace r = onnxc_rt::ref::qs8;
  namespace m = onnxc_rt::mcu::qs8;
  // The ARMv6-M high-word product against the 64-bit one, on the edges
  // and on random words.
  const int32_t edges[] = {INT32_MIN, INT32_MIN + 1, -65537, -65536, -65535, -32769, -32768,
                           -1,        0,             1,      32767,  32768,  65535,  65536,
                           65537,     INT32_MAX - 1, INT32_MAX};
  for (int32_t a : edges)
    for (int32_t b : edges)
      check(m::mul_high_by_halves(a, b) == int32_t((int64_t(a) * b) >> 32), "mul_high edges",
            0);
  for (int i = 0; i < 100000; ++i) {
    const int32_t a = int32_t(rng.next()), b = int32_t(rng.next());
    check(m::mul_high_by_halves(a, b) == int32_t((int64_t(a) * b) >> 32), "mul_high", i);
  }
  for (int i = 0; i < 20000; ++i) {
    const int32_t shift = rng.range(-20, 2);
    const int32_t mult = int32_t((1u << 30) + (rng.next() & 0x3fffffffu));
    const int32_t bias = rng.range(-100000, 100000);
    const m::Channel ch = m::channel_params(bias, mult, shift);
    // Narrow path: |acc + bias| * 2^left below 2^30.
    const int32_t acc = rng.range(-(1 << 29), 1 << 29) >> rng.range(0, 20);
    const int32_t want = r::multiply_by_quantized_multiplier(acc + bias, mult, shift);
    if (!m::needs_wide(acc + bias < 0 ? -int64_t(acc + bias) : acc + bias, ch))
      check(m::requantize<false>(acc, ch) == want, "requantize<false>", i);
    check(m::requantize<true>(acc, ch) == want, "requantize<true>", i);
    // Wide path: any accumulator.
    const int32_t big = int32_t(rng.next()) / 2;
    check(m::requantize<true>(big, ch) ==
              r::multiply_by_quantized_multiplier(big + bias, mult, shift),
          "requantize<true> wide", i);
  }
}

/// A Window's geometry as the reference kernels take it (conv.h's window
/// arguments) for M output channels; the end pads are those the output
/// size implies.
template <typename W, int M> struct ReferenceWindow {
  const int64_t in[4] = {1, W::IC, W::IH, W::IW}, out[4] = {1, M, W::OH, W::OW};
  const int64_t kernel[2] = {W::KH, W::KW}, strides[2] = {W::SH, W::SW};
  const int64_t pads[2] = {W::PH, W::PW}, dil[2] = {W::DH, W::DW};
  const int64_t ends[2] = {(W::OH - 1) * W::SH + (W::KH - 1) * W::DH + 1 - W::IH - W::PH,
                           (W::OW - 1) * W::SW + (W::KW - 1) * W::DW + 1 - W::IW - W::PW};
};

/// Random per-channel biases in [-bias_range, bias_range] and multipliers
/// of real factors in [lo, lo + span), and their kernel table.
void fill_channels(Rng &rng, int n, int32_t bias_range, double lo, double span, int32_t *bias,
                   int32_t *mult, int32_t *shift, int32_t *params) {
  namespace m = onnxc_rt::mcu::qs8;
  for (int c = 0; c < n; ++c) {
    bias[c] = rng.range(-bias_range, bias_range);
    auto q = onnxc_rt::ref::qs8::quantize_multiplier(lo + span * double(rng.next() % 1000) /
                                                     1000.0);
    mult[c] = q.multiplier;
    shift[c] = q.shift;
    m::store_channel(m::channel_params(bias[c], mult[c], shift[c]), params, c);
  }
}

/// The kernel table of the convolutions: the biases with the zero point
/// folded in (as the compiler writes them).
template <int M, int K>
void fold_zero_point(const int8_t *w, int32_t x_zp, const int32_t *bias, const int32_t *mult,
                     const int32_t *shift, int32_t *params) {
  namespace m = onnxc_rt::mcu::qs8;
  int32_t folded[M];
  m::fold_zero_point(w, M, K, x_zp, bias, folded);
  for (int c = 0; c < M; ++c)
    m::store_channel(m::channel_params(folded[c], mult[c], shift[c]), params, c);
}

/// Elements where the microcontroller convolution multiplying with Dot
/// (qs8::Smlad, qs8::Sxtb16, qs8::Vmladava, qs8::Mla) differs from `want`:
/// conv2d, or with a PH x PW max pool fused, conv2d_max_pool; NCHW, then
/// NHWC.
template <typename Dot, typename W, int M, int XZp, int YZp, int Lo, int Hi, int PH, int PW>
int qconv_mismatches(const int8_t *x, const int8_t *w, const int32_t *params,
                     const int8_t *want) {
  namespace m = onnxc_rt::mcu::qs8;
  typedef typename Dot::Col Col;
  constexpr int Out = M * (W::OH / PH) * (W::OW / PW);
  static int32_t packed[m::packed_words<Dot>(M, W::K)];
  static Col scratch[m::conv_scratch_bytes<Dot>(W::K, PH, PW) / int(sizeof(Col))];
  static int8_t y[Out];
  Dot::pack(w, M, W::K, packed);
  if constexpr (PH * PW > 1)
    m::conv2d_max_pool<int8_t, W, M, XZp, YZp, Lo, Hi, false, PH, PW, Dot>(x, packed, params, y,
                                                                           scratch);
  else
    m::conv2d<int8_t, W, M, XZp, YZp, Lo, Hi, false, Dot>(x, packed, params, y, scratch);
  int bad = 0;
  for (int i = 0; i < Out; ++i)
    bad += y[i] != want[i];

  // The NHWC form: x and the output transposed at the edges, the weights
  // in the columns' (kernel row, kernel column, channel) order.
  namespace mc = onnxc_rt::mcu;
  constexpr int OutPlane = (W::OH / PH) * (W::OW / PW);
  static int8_t x_nhwc[W::IC * W::IH * W::IW], w_nhwc[M * W::K], y_nhwc[Out];
  mc::nchw_to_nhwc<int8_t, W::IC, W::IH * W::IW>(x, x_nhwc);
  mc::weights_to_nhwc(w, M, W::IC, W::KH, W::KW, w_nhwc);
  Dot::pack(w_nhwc, M, W::K, packed);
  if constexpr (PH * PW > 1)
    m::conv2d_max_pool<int8_t, W, M, XZp, YZp, Lo, Hi, false, PH, PW, Dot, mc::Layout::Nhwc>(
        x_nhwc, packed, params, y_nhwc, scratch);
  else
    m::conv2d<int8_t, W, M, XZp, YZp, Lo, Hi, false, Dot, mc::Layout::Nhwc>(x_nhwc, packed,
                                                                             params, y_nhwc,
                                                                             scratch);
  mc::nhwc_to_nchw<int8_t, M, OutPlane>(y_nhwc, y);
  for (int i = 0; i < Out; ++i)
    bad += y[i] != want[i];
  return bad;
}

/// One int8 convolution geometry against ref::qs8::conv, or with a PH x
/// PW max pool fused against ref::qs8::conv_max_pool, through each way of
/// multiplying (SMLAD's and SXTB16's are plain C off the DSP cores,
/// Helium's VMLADAVA off the M55, the M3's MLA off the M3).
template <typename W, int M, int XZp, int YZp, int Lo, int Hi, int PH = 1, int PW = 1>
void test_qconv(Rng &rng) {
  namespace r = onnxc_rt::ref::qs8;
  namespace m = onnxc_rt::mcu::qs8;
  constexpr bool pooled = PH * PW > 1;
  constexpr int Out = M * (W::OH / PH) * (W::OW / PW);
  static int8_t x[W::IC * W::IH * W::IW], w[M * W::K], want[Out];
  static int32_t bias[M], mult[M], shift[M], params[M * m::kChannelWords],
      ref_scratch[r::conv_max_pool_scratch_bytes(W::Pixels, 1) / 4];
  fill_int8(rng, x);
  fill_int8(rng, w, -127);
  fill_channels(rng, M, 2000, 0.0005, 0.002, bias, mult, shift, params);
  fold_zero_point<M, W::K>(w, XZp, bias, mult, shift, params);
  const ReferenceWindow<W, M> g;
  const int8_t zp = int8_t(XZp);
  if constexpr (pooled) {
    const int64_t pool[2] = {PH, PW};
    r::conv_max_pool<int8_t>(x, w, &zp, bias, want, g.in, g.out, g.kernel, g.strides, g.pads,
                             g.ends, g.dil, 1, pool, ref_scratch, mult, shift, M, YZp, Lo, Hi);
  } else {
    r::conv<int8_t>(x, w, &zp, bias, want, 2, g.in, g.out, g.kernel, g.strides, g.pads,
                    g.ends, g.dil, 1, ref_scratch, mult, shift, M, YZp, Lo, Hi);
  }
  const int detail = W::IC * 1000 + M * 10 + PH;
  check(qconv_mismatches<m::Smlad, W, M, XZp, YZp, Lo, Hi, PH, PW>(x, w, params, want) == 0,
        pooled ? "qs8 conv2d_max_pool (SMLAD)" : "qs8 conv2d (SMLAD)", detail);
  check(qconv_mismatches<m::Sxtb16, W, M, XZp, YZp, Lo, Hi, PH, PW>(x, w, params, want) == 0,
        pooled ? "qs8 conv2d_max_pool (SXTB16)" : "qs8 conv2d (SXTB16)", detail);
  check(qconv_mismatches<m::Vmladava, W, M, XZp, YZp, Lo, Hi, PH, PW>(x, w, params, want) == 0,
        pooled ? "qs8 conv2d_max_pool (VMLADAVA)" : "qs8 conv2d (VMLADAVA)", detail);
  check(qconv_mismatches<m::Mla, W, M, XZp, YZp, Lo, Hi, PH, PW>(x, w, params, want) == 0,
        pooled ? "qs8 conv2d_max_pool (MLA)" : "qs8 conv2d (MLA)", detail);
  if constexpr (!pooled) {
    // Helium's four-channel blocks (plain C off the M55).
    static int32_t quads[m::mve_quad_words(M, W::K)];
    static int8_t scratch[2 * m::Vmladava::depth(W::K)], y[Out];
    m::pack_mve_quads(w, M, W::K, quads);
    for (int wide = 0; wide < 2; ++wide) {
      for (int8_t &v : y)
        v = 0;
      if (wide)
        m::conv2d_mve<W, M, XZp, YZp, Lo, Hi, true>(x, quads, params, y, scratch);
      else
        m::conv2d_mve<W, M, XZp, YZp, Lo, Hi, false>(x, quads, params, y, scratch);
      int bad = 0;
      for (int i = 0; i < Out; ++i)
        bad += y[i] != want[i];
      check(bad == 0, wide ? "qs8 conv2d_mve (wide)" : "qs8 conv2d_mve", detail);
    }
  }
}

/// One int8 depthwise convolution (W::IC channels) against ref::qs8::conv
/// with group = channels.
template <typename W, int XZp, int YZp, int Lo, int Hi>
void test_qdepthwise(Rng &rng) {
  namespace r = onnxc_rt::ref::qs8;
  namespace m = onnxc_rt::mcu::qs8;
  constexpr int C = W::IC, KN = W::KH * W::KW;
  static int8_t x[C * W::IH * W::IW], w[C * KN], y[C * W::Pixels], want[C * W::Pixels];
  static int32_t bias[C], mult[C], shift[C], params[C * m::kChannelWords],
      ref_scratch[W::Pixels];
  fill_int8(rng, x);
  fill_int8(rng, w, -127);
  fill_channels(rng, C, 2000, 0.002, 0.01, bias, mult, shift, params);
  fold_zero_point<C, KN>(w, XZp, bias, mult, shift, params);
  m::depthwise_conv2d<int8_t, W, XZp, YZp, Lo, Hi, false>(x, w, params, y);
  const ReferenceWindow<W, C> g;
  const int8_t zp = int8_t(XZp);
  r::conv<int8_t>(x, w, &zp, bias, want, 2, g.in, g.out, g.kernel, g.strides, g.pads, g.ends,
                  g.dil, C, ref_scratch, mult, shift, C, YZp, Lo, Hi);
  int bad = 0;
  for (int i = 0; i < C * W::Pixels; ++i)
    bad += y[i] != want[i];
  check(bad == 0, "qs8 depthwise_conv2d", C * 100 + W::KH * 10 + W::SH);

  // The padded-copy form (the compiler's choice off Helium where there is
  // padding).
  static int8_t padded[m::depthwise_padded_scratch<W>()];
  for (int8_t &v : y)
    v = 0;
  m::depthwise_conv2d_padded<int8_t, W, XZp, YZp, Lo, Hi, false>(x, w, params, y, padded);
  bad = 0;
  for (int i = 0; i < C * W::Pixels; ++i)
    bad += y[i] != want[i];
  check(bad == 0, "qs8 depthwise_conv2d_padded", C * 100 + W::KH * 10 + W::SH);

  // The Helium form (the plain one off Helium), narrow and wide rounding.
  static int8_t scratch[m::depthwise_mve_scratch_bytes<W>()];
  for (int wide = 0; wide < 2; ++wide) {
    for (int8_t &v : y)
      v = 0;
    if (wide)
      m::depthwise_conv2d_mve<W, XZp, YZp, Lo, Hi, true>(x, w, params, y, scratch);
    else
      m::depthwise_conv2d_mve<W, XZp, YZp, Lo, Hi, false>(x, w, params, y, scratch);
    bad = 0;
    for (int i = 0; i < C * W::Pixels; ++i)
      bad += y[i] != want[i];
    check(bad == 0, wide ? "qs8 depthwise_conv2d_mve (wide)" : "qs8 depthwise_conv2d_mve",
          C * 100 + W::KH * 10 + W::SH);
  }
}

/// The same-shape int8 add against ref::qs8::add, over random scales.
template <int N, int AZp, int BZp, int YZp, int Lo, int Hi>
void test_qadd(Rng &rng) {
  namespace r = onnxc_rt::ref::qs8;
  namespace m = onnxc_rt::mcu::qs8;
  static int8_t a[N], b[N], y[N], want[N];
  for (int i = 0; i < N; ++i) {
    a[i] = int8_t(rng.range(-128, 127));
    b[i] = int8_t(rng.range(-128, 127));
  }
  for (int trial = 0; trial < 8; ++trial) {
    const double sa = 0.001 + double(rng.next() % 1000) / 10000.0;
    const double sb = 0.001 + double(rng.next() % 1000) / 10000.0;
    const double sy = 0.002 + double(rng.next() % 1000) / 5000.0;
    const r::AddParams p = r::add_params(sa, AZp, sb, BZp, sy, YZp, Lo, Hi);
    int32_t params[3 * m::kChannelWords];
    const int32_t rescale[3][2] = {
        {p.a_multiplier, p.a_shift}, {p.b_multiplier, p.b_shift}, {p.y_multiplier, p.y_shift}};
    bool wide = false;
    for (int c = 0; c < 3; ++c) {
      const m::Channel ch = m::channel_params(0, rescale[c][0], rescale[c][1]);
      m::store_channel(ch, params, c);
      wide |= m::needs_wide(c < 2 ? (255 << 20) : (510 << 20), ch);
    }
    if (wide)
      m::add<int8_t, N, 20, AZp, BZp, YZp, Lo, Hi, true>(a, b, params, y);
    else
      m::add<int8_t, N, 20, AZp, BZp, YZp, Lo, Hi, false>(a, b, params, y);
    const int64_t shape[1] = {N}, strides[1] = {1};
    r::add<int8_t>(a, b, want, 1, shape, strides, strides, p.left_shift, p.a_zp, p.a_multiplier,
                   p.a_shift, p.b_zp, p.b_multiplier, p.b_shift, p.y_zp, p.y_multiplier,
                   p.y_shift, p.act_min, p.act_max);
    int bad = 0;
    for (int i = 0; i < N; ++i)
      bad += y[i] != want[i];
    check(bad == 0, "qs8 add", trial);
  }
}

template <int Rows, int K, int N, int XZp, int YZp>
void test_qfc(Rng &rng) {
  namespace r = onnxc_rt::ref::qs8;
  namespace m = onnxc_rt::mcu::qs8;
  static int8_t a[Rows * K], w[K * N], y[Rows * N], want[Rows * N];
  static int32_t bias[N], mult[N], shift[N], params[N * m::kChannelWords],
      packed[m::fc_packed_words(K, N)], scratch[m::fc_scratch_bytes(K) / 4], acc[N];
  fill_int8(rng, a);
  fill_int8(rng, w, -127);
  fill_channels(rng, N, 5000, 0.0002, 0.001, bias, mult, shift, params);
  m::pack_fc_weights(w, K, N, packed);
  m::fully_connected<int8_t, Rows, K, N, XZp, YZp, -128, 127, false>(a, packed, params, y,
                                                                     scratch);
  const int8_t zp = int8_t(XZp);
  r::fully_connected<int8_t>(a, w, &zp, bias, want, Rows, K, N, acc, mult, shift, N, YZp, -128,
                             127);
  int bad = 0;
  for (int i = 0; i < Rows * N; ++i)
    bad += y[i] != want[i];
  check(bad == 0, "qs8 fully_connected", K * 100 + N);

  // ARMv6-M's form: each weight byte stored plus 128.
  m::pack_fc_weights(w, K, N, packed, m::FcBytes::Biased);
  m::fully_connected<int8_t, Rows, K, N, XZp, YZp, -128, 127, false, m::FcBytes::Biased>(
      a, packed, params, y, scratch);
  bad = 0;
  for (int i = 0; i < Rows * N; ++i)
    bad += y[i] != want[i];
  check(bad == 0, "qs8 fully_connected, biased bytes", K * 100 + N);

  // The Helium form: x multiplied as stored, its zero point in the biases.
  static int32_t mve_packed[m::packed_words<m::Vmladava>(N, K)], folded[N],
      mve_params[N * m::kChannelWords];
  static int8_t w_rows[N * K];
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n)
      w_rows[n * K + k] = w[k * N + n];
  m::fold_zero_point(w_rows, N, K, XZp, bias, folded);
  for (int n = 0; n < N; ++n)
    m::store_channel(m::channel_params(folded[n], mult[n], shift[n]), mve_params, n);
  m::Vmladava::pack(w_rows, N, K, mve_packed);
  m::fully_connected_mve<Rows, K, N, YZp, -128, 127, false>(a, mve_packed, mve_params, y);
  bad = 0;
  for (int i = 0; i < Rows * N; ++i)
    bad += y[i] != want[i];
  check(bad == 0, "qs8 fully_connected_mve", K * 100 + N);
}

/// GlobalAveragePool of int8 and uint8 planes against the reference's
/// average_pool over the whole plane.
template <typename T, int Planes, int Inner, int XZp, int YZp>
void test_qglobal_average_pool(Rng &rng) {
  namespace r = onnxc_rt::ref::qs8;
  namespace m = onnxc_rt::mcu::qs8;
  static T x[Planes * Inner], y[Planes], want[Planes];
  for (T &v : x)
    v = T(sizeof(T) > 1 ? rng.range(-32768, 32767)
                        : rng.range(static_cast<T>(-1) < 0 ? -128 : 0,
                                    static_cast<T>(-1) < 0 ? 127 : 255));
  constexpr int32_t kMultiplier = 1518500250; // 0.7071 * 2^31: x_scale / y_scale = 1.41
  constexpr int kShift = 1;
  m::global_average_pool<T, Planes, Inner, XZp, YZp, kMultiplier, kShift>(x, y);
  const int64_t in[3] = {1, Planes, Inner}, out[3] = {1, Planes, 1}, k[1] = {Inner},
                one[1] = {1}, zero[1] = {0};
  r::average_pool<T>(x, want, 1, in, out, k, one, zero, zero, one, 0, XZp, YZp, kMultiplier,
                     kShift);
  int bad = 0;
  for (int i = 0; i < Planes; ++i)
    bad += y[i] != want[i];
  check(bad == 0, "qs8 global_average_pool", Planes * 1000 + Inner);
}

/// int16 activations (the 16x8 scheme) on the int8 kernels' int16
/// columns: a dense convolution through SMLAD's, SXTB16's and Helium's
/// VMLADAVA.S16 products (the
/// weights at full scale: sums up to 2^30, which the compiler proves fit),
/// a depthwise one plain and padded, and a fully connected layer (zero
/// point 0, as the compiler requires), against the reference's int64 sums.
template <typename W, int M, int YZp, int Lo, int Hi> void test_qconv16(Rng &rng) {
  namespace r = onnxc_rt::ref::qs8;
  namespace m = onnxc_rt::mcu::qs8;
  constexpr int Out = M * W::Pixels;
  static int16_t x[W::IC * W::IH * W::IW], want[Out], y[Out];
  static int8_t w[M * W::K];
  static int32_t bias[M], mult[M], shift[M], params[M * m::kChannelWords];
  static int64_t ref_scratch[W::Pixels];
  fill_int16(rng, x);
  fill_int8(rng, w, -127);
  fill_channels(rng, M, 200000, 0.00001, 0.0001, bias, mult, shift, params);
  const ReferenceWindow<W, M> g;
  const int16_t zp = 0;
  r::conv<int16_t>(x, w, &zp, bias, want, 2, g.in, g.out, g.kernel, g.strides, g.pads, g.ends,
                   g.dil, 1, ref_scratch, mult, shift, M, YZp, Lo, Hi);
  // (Narrow and wide rounding: |sum + bias| stays below 2^30 here, and
  // the multipliers' shifts are negative, so both are exact.)
  auto run = [&](auto dot, auto wide) {
    using Dot = decltype(dot);
    constexpr bool Wide = decltype(wide)::value;
    static int32_t packed[m::packed_words<Dot>(M, W::K)];
    static typename Dot::Col scratch[m::conv_scratch_bytes<Dot>(W::K, 1, 1) /
                                     int(sizeof(typename Dot::Col))];
    Dot::pack(w, M, W::K, packed);
    for (int16_t &v : y)
      v = 0;
    m::conv2d<int16_t, W, M, 0, YZp, Lo, Hi, Wide, Dot>(x, packed, params, y, scratch);
    int bad = 0;
    for (int i = 0; i < Out; ++i)
      bad += y[i] != want[i];
    // NHWC: x and y transposed at the edges, the weights in the columns' order.
    namespace mc = onnxc_rt::mcu;
    static int16_t x_nhwc[W::IC * W::IH * W::IW], y_nhwc[Out];
    static int8_t w_nhwc[M * W::K];
    mc::nchw_to_nhwc<int16_t, W::IC, W::IH * W::IW>(x, x_nhwc);
    mc::weights_to_nhwc(w, M, W::IC, W::KH, W::KW, w_nhwc);
    Dot::pack(w_nhwc, M, W::K, packed);
    m::conv2d<int16_t, W, M, 0, YZp, Lo, Hi, Wide, Dot, mc::Layout::Nhwc>(x_nhwc, packed, params,
                                                                         y_nhwc, scratch);
    mc::nhwc_to_nchw<int16_t, M, W::Pixels>(y_nhwc, y);
    for (int i = 0; i < Out; ++i)
      bad += y[i] != want[i];
    return bad;
  };
  using Narrow = std::false_type;
  using Wide = std::true_type;
  check(run(m::Smlad(), Narrow()) == 0, "qs8 conv2d int16 (SMLAD)", W::IC * 1000 + M);
  check(run(m::Smlad(), Wide()) == 0, "qs8 conv2d int16 (SMLAD, wide)", W::IC * 1000 + M);
  check(run(m::Sxtb16(), Narrow()) == 0, "qs8 conv2d int16 (SXTB16)", W::IC * 1000 + M);
  check(run(m::Vmladava16(), Narrow()) == 0, "qs8 conv2d int16 (VMLADAVA.S16)",
        W::IC * 1000 + M);
}

template <typename W, int YZp, int Lo, int Hi> void test_qdepthwise16(Rng &rng) {
  namespace r = onnxc_rt::ref::qs8;
  namespace m = onnxc_rt::mcu::qs8;
  constexpr int C = W::IC, KN = W::KH * W::KW;
  static int16_t x[C * W::IH * W::IW], y[C * W::Pixels], want[C * W::Pixels],
      padded[m::depthwise_padded_scratch<W>()];
  static int8_t w[C * KN];
  static int32_t bias[C], mult[C], shift[C], params[C * m::kChannelWords];
  static int64_t ref_scratch[W::Pixels];
  fill_int16(rng, x);
  fill_int8(rng, w, -127);
  fill_channels(rng, C, 200000, 0.0005, 0.002, bias, mult, shift, params);
  const ReferenceWindow<W, C> g;
  const int16_t zp = 0;
  r::conv<int16_t>(x, w, &zp, bias, want, 2, g.in, g.out, g.kernel, g.strides, g.pads, g.ends,
                   g.dil, C, ref_scratch, mult, shift, C, YZp, Lo, Hi);
  m::depthwise_conv2d<int16_t, W, 0, YZp, Lo, Hi, true>(x, w, params, y);
  int bad = 0;
  for (int i = 0; i < C * W::Pixels; ++i)
    bad += y[i] != want[i];
  check(bad == 0, "qs8 depthwise_conv2d int16", C * 100 + W::KH * 10 + W::SH);
  // Padded, narrow and wide rounding (the narrow one vector by vector on
  // Helium where the stride is 1; |sum + bias| < 2^30 here).
  for (int wide = 0; wide < 2; ++wide) {
    for (int16_t &v : y)
      v = 0;
    if (wide)
      m::depthwise_conv2d_padded<int16_t, W, 0, YZp, Lo, Hi, true>(x, w, params, y, padded);
    else
      m::depthwise_conv2d_padded<int16_t, W, 0, YZp, Lo, Hi, false>(x, w, params, y, padded);
    bad = 0;
    for (int i = 0; i < C * W::Pixels; ++i)
      bad += y[i] != want[i];
    check(bad == 0, wide ? "qs8 depthwise_conv2d_padded int16 (wide)"
                         : "qs8 depthwise_conv2d_padded int16",
          C * 100 + W::KH * 10 + W::SH);
  }
}

template <int Rows, int K, int N, int YZp> void test_qfc16(Rng &rng) {
  namespace r = onnxc_rt::ref::qs8;
  namespace m = onnxc_rt::mcu::qs8;
  static int16_t a[Rows * K], y[Rows * N], want[Rows * N];
  static int8_t w[K * N];
  static int32_t bias[N], mult[N], shift[N], params[N * m::kChannelWords],
      packed[m::fc_packed_words(K, N)], scratch[m::fc_scratch_bytes(K) / 4];
  static int64_t acc[N];
  fill_int16(rng, a);
  fill_int8(rng, w, -127);
  fill_channels(rng, N, 500000, 0.000002, 0.00001, bias, mult, shift, params);
  m::pack_fc_weights(w, K, N, packed);
  m::fully_connected<int16_t, Rows, K, N, 0, YZp, -32768, 32767, true>(a, packed, params, y,
                                                                        scratch);
  const int16_t zp = 0;
  r::fully_connected<int16_t>(a, w, &zp, bias, want, Rows, K, N, acc, mult, shift, N, YZp,
                              -32768, 32767);
  int bad = 0;
  for (int i = 0; i < Rows * N; ++i)
    bad += y[i] != want[i];
  check(bad == 0, "qs8 fully_connected int16", K * 100 + N);

  m::pack_fc_weights(w, K, N, packed, m::FcBytes::Biased);
  m::fully_connected<int16_t, Rows, K, N, 0, YZp, -32768, 32767, true, m::FcBytes::Biased>(
      a, packed, params, y, scratch);
  bad = 0;
  for (int i = 0; i < Rows * N; ++i)
    bad += y[i] != want[i];
  check(bad == 0, "qs8 fully_connected int16, biased bytes", K * 100 + N);
}

bool close(float a, float b) {
  const float d = a > b ? a - b : b - a, m = (a > 0 ? a : -a) + (b > 0 ? b : -b);
  return d <= 1e-5f * (1.0f + m);
}

template <typename W, int M> void test_conv(Rng &rng) {
  namespace mc = onnxc_rt::mcu;
  static float x[W::IC * W::IH * W::IW], w[M * W::K], b[M], y[M * W::Pixels],
      want[M * W::Pixels], packed[mc::packed_float_weights(M, W::K)],
      scratch[mc::conv2d_scratch_floats(W::K)];
  fill_unit(rng, x);
  fill_unit(rng, w);
  fill_unit(rng, b);
  mc::pack_float_weights(w, M, W::K, false, packed);
  mc::conv2d<W, M, onnxc_rt::ref::Relu>(x, packed, b, y, scratch, 0.0f, 0.0f);
  const ReferenceWindow<W, M> g;
  onnxc_rt::ref::conv<float>(x, w, b, want, 2, g.in, g.out, g.kernel, g.strides, g.pads, g.ends,
                             g.dil, 1);
  int bad = 0;
  for (int i = 0; i < M * W::Pixels; ++i)
    bad += !close(y[i], want[i] > 0 ? want[i] : 0.0f);
  check(bad == 0, "float conv2d", W::IC * 1000 + M);

  // Max pooling of the same input, 2x2 stride 2 (inside) and 3x3 pad 1.
  using P2 = mc::Window<1, W::IH, W::IW, W::IH / 2, W::IW / 2, 2, 2, 2, 2, 0, 0, 1, 1>;
  using P3 = mc::Window<1, W::IH, W::IW, (W::IH - 1) / 2 + 1, (W::IW - 1) / 2 + 1, 3, 3, 2, 2,
                        1, 1, 1, 1>;
  static float p[W::IC * W::IH * W::IW], pw[W::IC * W::IH * W::IW];
  mc::max_pool2d<float, W::IC, P2>(x, p);
  const int64_t k2[2] = {2, 2}, s2[2] = {2, 2}, z2[2] = {0, 0}, one[2] = {1, 1};
  const int64_t pin[4] = {1, W::IC, W::IH, W::IW}, p2out[4] = {1, W::IC, P2::OH, P2::OW};
  onnxc_rt::ref::max_pool<float>(x, pw, nullptr, 2, pin, p2out, k2, s2, z2, z2, one, 0);
  bad = 0;
  for (int i = 0; i < W::IC * P2::OH * P2::OW; ++i)
    bad += p[i] != pw[i];
  check(bad == 0, "max_pool2d 2x2", W::IH);
  mc::max_pool2d<float, W::IC, P3>(x, p);
  const int64_t k3[2] = {3, 3}, p3out[4] = {1, W::IC, P3::OH, P3::OW};
  const int64_t e3[2] = {(P3::OH - 1) * 2 + 3 - W::IH - 1, (P3::OW - 1) * 2 + 3 - W::IW - 1};
  onnxc_rt::ref::max_pool<float>(x, pw, nullptr, 2, pin, p3out, k3, s2, one, e3, one, 0);
  bad = 0;
  for (int i = 0; i < W::IC * P3::OH * P3::OW; ++i)
    bad += p[i] != pw[i];
  check(bad == 0, "max_pool2d 3x3 padded", W::IH);
}

template <int Rows, int K, int N> void test_fc(Rng &rng) {
  namespace mc = onnxc_rt::mcu;
  static float x[Rows * K], w[N * K], b[N], y[Rows * N], want[Rows * N],
      packed[mc::packed_float_weights(N, K)];
  fill_unit(rng, x);
  fill_unit(rng, w);
  fill_unit(rng, b);
  // w as Gemm's B with transB = 1 (N x K).
  mc::pack_float_weights(w, N, K, false, packed);
  mc::fully_connected<Rows, K, N, onnxc_rt::ref::Identity>(x, packed, b, y, 0.0f, 0.0f);
  onnxc_rt::ref::gemm<float>(x, w, b, want, Rows, N, K, 0, 1, 1.0f, 1.0f, 0, 1);
  int bad = 0;
  for (int i = 0; i < Rows * N; ++i)
    bad += !close(y[i], want[i]);
  check(bad == 0, "float fully_connected", K * 100 + N);
}

template <int N, int Zp> void test_quantize(Rng &rng) {
  static float x[N];
  static int8_t y[N], want[N];
  for (int i = 0; i < N; ++i)
    x[i] = rng.unit() * 4.0f;
  x[0] = 0.5f * 0.03f; // ties, which round to even
  x[1] = 1.5f * 0.03f;
  x[2] = -2.5f * 0.03f;
  const float scale = 0.03f;
  const int8_t zp = int8_t(Zp);
  onnxc_rt::mcu::qs8::quantize<int8_t, N, Zp>(x, scale, y);
  onnxc_rt::ref::quantize_linear<float, int8_t>(x, &scale, &zp, want, 1, 1, N, 1);
  int bad = 0;
  for (int i = 0; i < N; ++i)
    bad += y[i] != want[i];
  check(bad == 0, "quantize", Zp);
}

template <int IC, int IH, int IW, int KH, int KW, int S, int P, int D>
using Same = onnxc_rt::mcu::Window<IC, IH, IW, (IH + 2 * P - D * (KH - 1) - 1) / S + 1,
                                   (IW + 2 * P - D * (KW - 1) - 1) / S + 1, KH, KW, S, S, P, P,
                                   D, D>;

} // namespace

int main() {
  Rng rng{12345};
  test_requantize(rng);
  // Odd and even pixel counts, channel counts and depths; padding, stride,
  // dilation; 1x1 kernels.
  test_qconv<Same<1, 28, 28, 3, 3, 1, 1, 1>, 16, -55, -128, -128, 127>(rng);
  test_qconv<Same<3, 7, 5, 3, 3, 1, 1, 1>, 5, 3, 7, -128, 127>(rng);
  test_qconv<Same<4, 9, 9, 3, 3, 2, 1, 1>, 6, -128, -128, -128, 127>(rng);
  test_qconv<Same<2, 8, 7, 3, 3, 1, 2, 2>, 3, 10, 0, 0, 127>(rng);
  test_qconv<Same<7, 5, 5, 1, 1, 1, 0, 1>, 9, 0, -3, -128, 127>(rng);
  test_qconv<Same<5, 6, 6, 5, 3, 1, 0, 1>, 2, -1, 1, -100, 100>(rng);
  test_qconv<Same<16, 14, 14, 3, 3, 1, 1, 1>, 32, -128, -128, -128, 127>(rng);
  // Fused max pools: 2 x 2 (the rows and columns past the last whole
  // window dropped), 3 x 2 (an odd window), 1 x 3.
  test_qconv<Same<1, 28, 28, 3, 3, 1, 1, 1>, 16, -55, -128, -128, 127, 2, 2>(rng);
  test_qconv<Same<16, 14, 14, 3, 3, 1, 1, 1>, 32, -128, -128, -128, 127, 2, 2>(rng);
  test_qconv<Same<3, 7, 5, 3, 3, 1, 1, 1>, 5, 3, 7, -128, 127, 2, 2>(rng);
  test_qconv<Same<4, 9, 9, 3, 3, 1, 1, 1>, 3, 0, -5, -20, 127, 3, 2>(rng);
  test_qconv<Same<2, 8, 7, 3, 3, 1, 0, 1>, 6, -3, 2, -128, 127, 1, 3>(rng);
  // Depthwise: 3x3 stride 1 and 2 with padding, 5x3, dilation 2, no padding.
  test_qdepthwise<Same<64, 25, 5, 3, 3, 1, 1, 1>, -128, -128, -128, 127>(rng);
  test_qdepthwise<Same<8, 48, 48, 3, 3, 2, 1, 1>, 5, -3, -128, 127>(rng);
  test_qdepthwise<Same<3, 9, 7, 5, 3, 1, 0, 1>, -1, 2, -50, 127>(rng);
  test_qdepthwise<Same<5, 11, 10, 3, 3, 1, 2, 2>, 0, 0, 0, 127>(rng);
  test_qdepthwise<Same<16, 12, 12, 3, 3, 2, 1, 1>, -128, -128, -128, 127>(rng); // even, stride 2
  test_qdepthwise<Same<4, 3, 3, 3, 3, 1, 1, 1>, 7, -9, -128, 127>(rng);
  // Helium's 3 x 3 stride-1 passes of eight pixels (assembly): rows of 12
  // (a pass, then four pixels in C) and of 21 (three passes, the last of 5).
  test_qdepthwise<Same<6, 7, 12, 3, 3, 1, 1, 1>, 3, -4, -128, 127>(rng);
  test_qdepthwise<Same<5, 6, 21, 3, 3, 1, 1, 1>, -128, 9, -128, 127>(rng);
  test_qadd<1000, -128, 5, -20, -128, 127>(rng);
  test_qadd<37, 3, -7, 0, 0, 127>(rng);
  test_qadd<3, -128, -128, -128, -128, 127>(rng);
  test_qfc<1, 1568, 64, -128, -128>(rng);
  test_qfc<1, 7, 5, 3, -2>(rng);
  test_qfc<3, 33, 10, 0, 5>(rng);
  test_qfc<1, 640, 128, -128, 3>(rng);
  test_qfc<2, 8, 7, 5, -9>(rng);
  test_qfc<1, 16, 4, -1, 0>(rng);
  test_conv<Same<1, 28, 28, 3, 3, 1, 1, 1>, 16>(rng);
  test_conv<Same<3, 7, 5, 3, 3, 1, 1, 1>, 5>(rng);
  test_conv<Same<4, 9, 9, 3, 3, 2, 1, 1>, 6>(rng);
  test_conv<Same<2, 8, 7, 3, 3, 1, 2, 2>, 3>(rng);
  test_conv<Same<7, 5, 5, 1, 1, 1, 0, 1>, 9>(rng);
  test_fc<1, 1568, 64>(rng);
  test_fc<2, 7, 5>(rng);
  test_fc<3, 33, 10>(rng);
  // Plane sizes around the 4- and 16-byte steps, int8 and uint8.
  test_qglobal_average_pool<int8_t, 64, 125, -128, -128>(rng);
  test_qglobal_average_pool<int8_t, 5, 7, 3, -4>(rng);
  test_qglobal_average_pool<int8_t, 3, 64, 10, 0>(rng);
  test_qglobal_average_pool<uint8_t, 6, 49, 128, 100>(rng);
  test_qglobal_average_pool<uint8_t, 2, 3, 0, 7>(rng);
  // int16 activations: odd pixels and channels, padding, stride, DS-CNN's
  // 64-channel pointwise layer (576 terms) and depthwise plane.
  test_qconv16<Same<3, 7, 5, 3, 3, 1, 1, 1>, 5, 0, -32768, 32767>(rng);
  test_qconv16<Same<64, 5, 5, 1, 1, 1, 0, 1>, 6, 0, 0, 32767>(rng);
  test_qconv16<Same<4, 9, 9, 3, 3, 2, 1, 1>, 3, -7, -32768, 32767>(rng);
  test_qdepthwise16<Same<64, 25, 5, 3, 3, 1, 1, 1>, 0, -32768, 32767>(rng);
  test_qdepthwise16<Same<5, 11, 10, 3, 3, 2, 1, 1>, 3, 0, 32767>(rng);
  test_qdepthwise16<Same<3, 9, 7, 5, 3, 1, 0, 1>, -2, -100, 32767>(rng);
  test_qdepthwise16<Same<4, 6, 9, 3, 3, 1, 2, 2>, 0, -32768, 32767>(rng);
  test_qfc16<1, 64, 12, 0>(rng);
  test_qfc16<2, 33, 7, -5>(rng);
  test_qglobal_average_pool<int16_t, 64, 125, 0, 0>(rng);
  test_qglobal_average_pool<int16_t, 3, 17, 0, 5>(rng);
  test_quantize<101, -55>(rng);
  test_quantize<64, 0>(rng);
  printf("mcu kernels: %s\n", failures ? "FAILED" : "all match the reference");
  return failures ? 1 : 0;
}
