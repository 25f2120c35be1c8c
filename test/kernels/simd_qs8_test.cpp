// The SIMD qs8 kernels (kernels/simd/qs8/) against the reference qs8
// kernels, bit for bit: convolutions (weights packed and zero point folded
// as the compiler does, qs8/pack.h) around every tile edge (4 output
// channels, 16-pixel vectors, 96-pixel tiles, the pixel block), strided,
// padded, dilated and grouped; depthwise; fully connected around its
// 4-row and 16-column edges, and the int32 forms of both for ConvInteger
// and MatMulInteger (a run-time zero point); add, mul (same shape and per
// row), lookup, channel gathers (a quantized channel shuffle), global
// average and max pooling, per-tensor quantize/dequantize (ties,
// saturation, infinities); the staging of strided convolutions' channel
// quads, byte by byte from the plane's definition; int8 and uint8, one
// multiplier and one per channel, fused activation clamps, factors above 1
// (positive shifts); and the requantization step itself, lane by lane over
// its whole range. The kernels that split into tasks (all but global
// average pooling) run in one and in kTasks, every case split however small
// (ONNXC_RT_MIN_TASK_CYCLES=0 in this build).
#include "support.h"

#include "onnxc_rt/kernels/reference/conv.h"
#include "onnxc_rt/kernels/reference/linalg.h"
#include "onnxc_rt/kernels/reference/qs8.h"
#include "onnxc_rt/kernels/reference/quant.h"
#include "onnxc_rt/kernels/reference/tensor.h"
#include "onnxc_rt/kernels/simd/qs8/channel_gather.h"
#include "onnxc_rt/kernels/simd/qs8/conv2d.h"
#include "onnxc_rt/kernels/simd/qs8/depthwise.h"
#include "onnxc_rt/kernels/simd/qs8/elementwise.h"
#include "onnxc_rt/kernels/simd/qs8/fully_connected.h"
#include "onnxc_rt/kernels/simd/qs8/pool.h"
#include "onnxc_rt/kernels/simd/qs8/quantize.h"

#include <cstring>

using namespace onnxc_rt;
using namespace kernel_test;

namespace {

/// n values of T uniform in [lo, hi] (T's whole range by default).
template <typename T>
std::vector<T> randomQ(int64_t n, int lo = std::numeric_limits<T>::min(),
                       int hi = std::numeric_limits<T>::max()) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<T> v(n > 0 ? n : 1);
  for (T &x : v)
    x = T(d(rng()));
  return v;
}

/// Symmetric int8 weights, as the quantizer makes them.
std::vector<int8_t> randomWeights(int64_t n) { return randomQ<int8_t>(n, -127, 127); }

std::vector<int32_t> randomBias(int64_t n) {
  std::uniform_int_distribution<int32_t> d(-20000, 20000);
  std::vector<int32_t> v(n);
  for (int32_t &x : v)
    x = d(rng());
  return v;
}

/// Multipliers of `count` real factors around `scale` (0.5x to 2x of it).
void randomMultipliers(int64_t count, double scale, std::vector<int32_t> &mult,
                       std::vector<int32_t> &shift) {
  std::uniform_real_distribution<double> d(0.5, 2.0);
  mult.clear();
  shift.clear();
  for (int64_t i = 0; i < count; ++i) {
    auto m = ref::qs8::quantize_multiplier(scale * d(rng()));
    mult.push_back(m.multiplier);
    shift.push_back(m.shift);
  }
}

template <typename T> int32_t randomZeroPoint() {
  std::uniform_int_distribution<int> d(std::numeric_limits<T>::min(),
                                       std::numeric_limits<T>::max());
  return d(rng());
}

/// The activation clamp: T's range, or a fused Relu-like floor.
template <typename T> std::pair<int32_t, int32_t> randomClamp(int32_t y_zp, int variant) {
  const int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  if (variant % 2 == 0)
    return {lo, hi};
  return {y_zp, hi - 5 > y_zp ? hi - 5 : hi};
}

struct ConvCase {
  int64_t c, h, w, m, kh, kw, sh, sw, ph, pw, pe_h, pe_w, dh, dw, group;
};

/// A case's shapes as the kernels take them (batch 1 or 2 by variant).
struct ConvGeometry {
  int64_t n, oh, ow, cg, depth;
  int64_t in[4], out[4], kernel[2], strides[2], pb[2], pe[2], dil[2];
  ConvGeometry(const ConvCase &q, int variant)
      : n(1 + variant % 2), oh((q.h + q.ph + q.pe_h - q.dh * (q.kh - 1) - 1) / q.sh + 1),
        ow((q.w + q.pw + q.pe_w - q.dw * (q.kw - 1) - 1) / q.sw + 1), cg(q.c / q.group),
        depth(cg * q.kh * q.kw), in{n, q.c, q.h, q.w}, out{n, q.m, oh, ow}, kernel{q.kh, q.kw},
        strides{q.sh, q.sw}, pb{q.ph, q.pw}, pe{q.pe_h, q.pe_w}, dil{q.dh, q.dw} {}
};

template <typename T> void checkConv(const ConvCase &q, int variant) {
  const ConvGeometry cv(q, variant);
  const int64_t n = cv.n, oh = cv.oh, ow = cv.ow, cg = cv.cg, depth = cv.depth;
  const int64_t *in = cv.in, *out = cv.out, *kernel = cv.kernel, *strides = cv.strides;
  const int64_t *pb = cv.pb, *pe = cv.pe, *dil = cv.dil;
  auto x = randomQ<T>(n * q.c * q.h * q.w);
  auto w = randomWeights(q.m * depth);
  if (variant % 5 == 4) // some weights at -128: no two-step sums (weights_are_narrow)
    for (size_t i = 0; i < w.size(); i += 3)
      w[i] = -128;
  auto bias = randomBias(q.m);
  const int32_t x_zp = randomZeroPoint<T>(), y_zp = randomZeroPoint<T>();
  const int64_t count = variant % 3 == 0 ? 1 : q.m;
  std::vector<int32_t> mult, shift;
  // Around 1 / (typical accumulator spread): outputs spread over T's range;
  // one case in four above 1 (positive shifts, saturation).
  randomMultipliers(count, variant % 4 == 3 ? 1.5 : 1.0 / (40.0 * std::sqrt(double(depth))), mult,
                    shift);
  const auto [lo, hi] = randomClamp<T>(y_zp, variant);
  const T zp_value = T(x_zp);
  const int64_t ny = n * q.m * oh * ow;
  std::vector<T> want(ny), got(ny);
  std::vector<int32_t> plane(oh * ow);
  ref::qs8::conv<T>(x.data(), w.data(), &zp_value, bias.data(), want.data(), 2, in, out, kernel,
                    strides, pb, pe, dil, q.group, plane.data(), mult.data(), shift.data(), count,
                    y_zp, lo, hi);
  namespace pk = simd::qs8;
  std::vector<int32_t> folded(q.m);
  // Odd variants split into kTasks on the pool: the same bytes.
  const int64_t tasks = variant % 2 ? kTasks : 1;
  if (cg == 1 && q.m == q.group) {
    // Quads of taps read the bytes packed as conv2d's, widened taps x itself.
    constexpr bool Q = simd::qs8::kQuadDepthwise, W = simd::VecI::kByteWindows;
    const int32_t u_zp =
        Q ? pk::packed_zero_point(x_zp + pk::flip_of<T>(), simd::qs8::kShiftedBytes) : x_zp;
    pk::fold_zero_point(w.data(), bias.data(), q.m, q.kh * q.kw, q.kh * q.kw, 1, u_zp,
                        folded.data());
    std::vector<uint8_t> scratch(
        pk::depthwise_scratch_bytes(in, out, kernel, strides, pb, dil, Q, W, tasks));
    simd::qs8::depthwise_conv2d<T, Q, W>(x.data(), w.data(), folded.data(), got.data(), in, out,
                                      kernel, strides, pb, dil, x_zp, mult.data(), shift.data(),
                                      count, y_zp, lo, hi, scratch.data(), pool(), tasks);
  } else pk::with_conv_depth_group(depth, [&](auto depth_group) {
    constexpr int G = decltype(depth_group)::value;
    const pk::ConvForm form = pk::conv2d_form(G, cg, q.m / q.group, q.kh, q.kw, q.sh, q.sw, oh,
                                              ow, q.ph, q.pw, q.dh, q.dw);
    std::vector<int8_t> packed(pk::conv_packed_bytes(q.m, q.group, depth, G, form));
    pk::pack_conv_weights(w.data(), q.m, q.group, depth, G, packed.data(),
                          pk::conv_weight_taps(G, cg, q.kh, q.kw, q.sh, q.sw, form), form);
    constexpr bool S = simd::qs8::kShiftedBytes;
    pk::fold_zero_point(w.data(), bias.data(), q.m, depth, depth, 1,
                        pk::packed_zero_point(x_zp + pk::flip_of<T>(), S), folded.data());
    const bool reads_input =
        pk::conv_reads_input(q.kh, q.kw, q.sh, q.sw, q.ph, q.pw, q.h, q.w, oh, ow);
    const pk::PaddedPlane pp =
        pk::conv_plane(form, oh, ow, q.kh, q.kw, q.sh, q.sw, q.dh, q.dw);
    std::vector<uint8_t> scratch(
        pk::conv_scratch_bytes(depth, oh, ow, q.sh, cg, pp, reads_input, G, tasks, form));
    simd::qs8::conv2d<T, G, S>(x.data(), packed.data(), folded.data(), got.data(), in, out,
                               kernel, strides, pb, dil, q.group, x_zp, mult.data(), shift.data(),
                               count, y_zp, lo, hi,
                               pk::weights_are_narrow(w.data(), int64_t(w.size())),
                               scratch.data(), pool(), tasks);
  });
  INFO("c " << q.c << " " << q.h << "x" << q.w << " m " << q.m << " k " << q.kh << "x" << q.kw
            << " s " << q.sh << "," << q.sw << " p " << q.ph << "," << q.pw << " d " << q.dh
            << " g " << q.group << " variant " << variant << " tasks " << tasks);
  int64_t bad = 0;
  for (int64_t i = 0; i < ny; ++i)
    bad += want[i] != got[i];
  REQUIRE(bad == 0);
}

const ConvCase kConvCases[] = {
    // c, h, w, m, kh, kw, sh, sw, ph, pw, pe_h, pe_w, dh, dw, group
    {1, 5, 5, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},       // smallest
    {3, 8, 9, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},       // channel tile edge, 72 pixels
    {4, 10, 10, 4, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},     // 1x1 read as it is, 100 pixels
    {5, 13, 11, 7, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1},     // 1x1 strided
    // Padded planes hold only the rows and phases a tap reads (pad_plane).
    {5, 13, 11, 7, 1, 1, 3, 2, 1, 1, 1, 1, 1, 1, 1},     // 1x1 padded, strides 3 and 2
    {6, 11, 12, 5, 1, 3, 2, 2, 0, 1, 0, 1, 1, 1, 1},     // 1x3 strided: every second row
    {6, 11, 12, 5, 3, 1, 2, 3, 1, 0, 1, 0, 1, 1, 1},     // 3x1 strided: phase 0 of 3
    {64, 14, 14, 96, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1},   // 1x1 strided to 7x7: channel lanes
    {128, 12, 13, 40, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1},  // 1x1 strided, depth 128 (AMX's panel)
    {8, 11, 40, 9, 1, 1, 2, 3, 0, 0, 0, 0, 1, 1, 1},     // 1x1 strides 2, 3 from the input
    {8, 11, 70, 9, 1, 1, 1, 2, 0, 0, 0, 0, 1, 1, 1},     // 1x1 strided across only: rows of 35
    {5, 12, 10, 7, 1, 1, 2, 2, 0, 0, 1, 1, 1, 1, 1},     // 1x1 strided, a pixel of padding after
    {6, 9, 8, 5, 1, 1, 1, 1, 0, 0, 1, 2, 1, 1, 1},       // 1x1, padding after only
    {8, 12, 12, 9, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 1},     // strided 3x3
    {6, 17, 19, 8, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1},     // dilated
    {3, 23, 23, 16, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1},    // a stem
    {8, 9, 9, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},       // grouped
    {16, 7, 7, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},     // 49 pixels, 33 channels
    {2, 10, 20, 4, 1, 3, 1, 3, 0, 1, 0, 2, 1, 1, 1},     // asymmetric
    {256, 14, 14, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // several pixel blocks (virtual rows)
    {8, 6, 6, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},      // stride 1 gathered, not virtual rows
    {128, 9, 40, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // rows of 40 gathered, a block from mid-row
    {64, 14, 14, 80, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // AMX: 32 + 32 + 16 channels, 9 depth steps
    {17, 7, 9, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},     // AMX: depth 153 of 3 steps, 16 + 1 channels
    {128, 6, 7, 20, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},    // AMX direct: 1x1 read in place, 42 pixels
    {96, 6, 7, 20, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},     // AMX's depth rule: 96, the dot products
    {64, 10, 11, 18, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1},   // AMX direct: dilated taps
    {128, 6, 6, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},    // AMX direct: two groups of 64
    {64, 9, 9, 8, 1, 7, 1, 1, 0, 3, 0, 3, 1, 1, 1},      // AMX direct: a 1x7 row of taps
    {64, 30, 60, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},    // strided rows of 30, a block from mid-row
    // Rows over 64 bytes gathered (x86's copy_run_64: whole steps, a masked tail).
    {3, 9, 150, 8, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1},     // a stem, rows of 75: 64 + 11
    {3, 6, 256, 5, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1},     // a stem, rows of 128: two whole steps
    // The direct form at strides above 1 (pack.h's direct_plane: phase planes).
    {32, 15, 17, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},   // odd sizes: phases of unequal reach
    {64, 56, 56, 20, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 1},   // ResNet's downsampling, 3 pixel blocks
    {12, 14, 15, 8, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1},    // stride 2 down, 1 across
    {8, 11, 16, 12, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, 1},    // stride 1 down, 2 across
    {8, 16, 17, 12, 3, 3, 3, 3, 0, 0, 0, 0, 1, 1, 1},    // stride 3, a phase never read
    {16, 13, 14, 20, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 1},   // 5x5 at stride 2
    {16, 17, 17, 12, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 1},   // dilated 2, stride 2: phase 0 alone
    {32, 24, 22, 24, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2},   // grouped, strided
    {8, 9, 41, 12, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1},     // rows of 41 split: a step moved back
    {8, 7, 45, 12, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},     // rows of 45, padded: evens to phase 1
    // AVX-512's channel-lanes form (pack.h's conv_form): channels in
    // the lanes, pixels in tiles of 6 and 5, stored across the channel planes.
    {64, 7, 7, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},     // 7x7 plane: 4 tiles of 6, 5 of 5
    {40, 14, 14, 200, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},  // strided to 7x7, 4 channel units
    {24, 1, 1, 20, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},     // one pixel (squeeze-and-excitation)
    {36, 5, 5, 72, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},     // 25 pixels, a partial vector
    {16, 13, 13, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // 13x13: 169 lanes against 193 virtual
    {16, 11, 11, 80, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // 11x11, a tile and a vector of channels
    {320, 10, 10, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // 100 pixels in blocks of 96 and 4
    {32, 7, 7, 96, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},     // grouped, 48 channels a group
    // ... reading the taps in place (kLanesDirect) where the direct form's
    // virtual rows would compute 5% more lanes.
    {32, 27, 27, 200, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},  // strided 27 -> 14: phase planes
    {16, 12, 12, 192, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1},  // dilated taps
    {12, 20, 20, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 12},  // depthwise
    {7, 15, 13, 7, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 7},     // depthwise strided
    {5, 19, 37, 5, 5, 5, 1, 2, 2, 2, 2, 2, 1, 1, 5},     // depthwise 5x5, mixed strides
    {4, 16, 16, 4, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 4},     // depthwise dilated
    {4, 12, 21, 4, 7, 7, 1, 1, 3, 3, 3, 3, 1, 1, 4},     // depthwise 7x7 (taps not unrolled)
    {3, 9, 18, 3, 1, 3, 1, 2, 0, 1, 0, 1, 1, 1, 3},      // depthwise 1x3, strided
    {6, 9, 9, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 6},      // grouped, one input channel each
    {3, 5, 69, 5, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 1},      // wide strided rows (16-byte phase copies)
    {4, 6, 70, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 4},      // depthwise, wide strided rows
    {3, 4, 50, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},      // depthwise, wide unit-stride rows
    // Padded planes of rows over 64 bytes (AVX-512's padded_plane, 64 at a time, up to 512).
    {3, 9, 130, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},     // depthwise, rows of three steps
    {2, 6, 63, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},      // depthwise, rows of 65: a step all padding
    {2, 12, 100, 2, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 2},    // depthwise 7x7 strided, padding across a step
    {2, 4, 510, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},     // depthwise, rows of 512 bytes: 8 steps
    {2, 4, 511, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},     // depthwise, rows of 513: filled and copied
    // Channel blocks of 16: whole and partial blocks, several bands of rows,
    // inputs wider than the windows reach, tiles of 16 pixels across rows.
    {40, 9, 11, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 40},   // depthwise, 2 blocks and 8 channels
    {32, 8, 8, 32, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 32},    // depthwise strided, 4x4 out
    {16, 70, 70, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16},  // depthwise, 6 bands
    {24, 61, 45, 24, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 24},  // depthwise 5x5 strided, bands
    {16, 10, 10, 16, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 16},  // depthwise, last column unread
    {16, 11, 13, 16, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 16},  // depthwise 5x5
    {16, 9, 12, 16, 3, 3, 1, 2, 1, 1, 1, 1, 1, 2, 16},   // depthwise, dilated columns
    {17, 7, 7, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 17},    // depthwise 7x7 planes, 1 channel over
    {20, 12, 9, 20, 3, 3, 1, 2, 3, 0, 3, 0, 3, 1, 20},   // depthwise dilated rows, large padding
    // In place from the planes' rows (AVX512-VNNI's byte windows, output
    // rows of 12 or more): vector edges, padding on one side only, two
    // quads a kernel row, dilated rows, rows wholly padding.
    {8, 28, 28, 8, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 8},     // depthwise, TF's SAME: padded at the end
    {3, 7, 16, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},      // depthwise, rows of one whole vector
    {3, 7, 33, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},      // depthwise, two vectors and a lane
    {3, 9, 40, 3, 1, 3, 1, 1, 0, 1, 0, 1, 1, 1, 3},      // depthwise 1x3 rows
    {2, 5, 30, 2, 1, 8, 1, 1, 0, 3, 0, 4, 1, 1, 2},      // depthwise 1x8: two whole quads
    {6, 20, 33, 6, 3, 3, 1, 1, 2, 1, 2, 1, 2, 1, 6},     // depthwise, dilated rows, unit columns
    {4, 10, 20, 4, 3, 3, 1, 1, 3, 3, 3, 3, 1, 1, 4},     // depthwise, rows wholly padding
    {5, 31, 31, 5, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 5},     // depthwise 5x5 strided, 16 out
    // Small planes from windows of the planes themselves (AVX512-VBMI's
    // two-table byte permutes, window_plan.h's depthwise_small_windows): up to 64
    // output pixels in runs of 16 across rows, kernel rows of up to 4 taps.
    {24, 5, 5, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 24},    // depthwise 5x5 plane: 25 pixels
    {20, 8, 8, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 20},    // depthwise, 64 pixels: 4 whole runs
    {6, 7, 7, 6, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 6},       // depthwise 7x7 dilated
    {8, 9, 9, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 8},       // depthwise strided 9 -> 5
    {5, 6, 8, 5, 1, 3, 1, 1, 0, 1, 0, 1, 1, 1, 5},       // depthwise 1x3, 48 pixels
    {4, 4, 4, 4, 3, 3, 1, 1, 3, 3, 3, 3, 1, 1, 4},       // depthwise, rows wholly padding
    {16, 1, 1, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16},    // depthwise, one pixel
    {7, 7, 7, 7, 4, 4, 1, 1, 2, 2, 1, 1, 1, 1, 7},       // depthwise 4x4: a whole quad a row
    {5, 14, 14, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 5},     // depthwise 14 -> 7, stride 2
    {4, 21, 21, 4, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 4},     // 21 -> 7 stride 3: windows past 64 B
    // Narrow rows several to a vector (AVX512-VBMI's byte gathers; planes
    // of up to 64 pixels with kernel rows of up to 4 taps take the form above).
    {9, 7, 7, 9, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 9},       // depthwise 5x5 on 7x7: 2 rows a vector
    {6, 8, 8, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 6},       // depthwise, 4x4 out (small-plane form)
    {4, 20, 16, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 4},     // depthwise, rows of 8, 17 bytes apart
    {3, 9, 1, 3, 3, 1, 1, 1, 1, 0, 1, 0, 1, 1, 3},       // depthwise 3x1, 9 rows (small-plane form)
    {3, 70, 1, 3, 3, 1, 1, 1, 1, 0, 1, 0, 1, 1, 3},      // depthwise 3x1 on one column: 70 rows
    // AVX-512's padded planes (x86.h's padded_plane): rows of 16, 32 and
    // 64 bytes exactly, and of 65 (filled and copied instead).
    {6, 14, 14, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 6},     // depthwise 14x14: rows of 16 bytes
    {3, 6, 30, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},      // depthwise, rows of 32 bytes
    {3, 5, 62, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},      // depthwise, rows of 64 bytes
    {3, 5, 63, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},      // depthwise, rows of 65 bytes
    // AVX2's Winograd form (pack.h's conv_winograd: 3x3, stride 1, 16 or
    // more channels in and out): tiles of 2x2 in blocks of 24 and more,
    // 8 tiles a vector across tile rows, odd output sides, odd channels,
    // one-sided and wide padding, grouped, the most channels.
    {16, 16, 16, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // 8x8 tiles: one row a vector
    {17, 13, 11, 19, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // 13x11 out: partial tiles, 6 a row
    {33, 7, 7, 21, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},     // 7x7 out: 16 tiles of 4 a row
    {20, 30, 58, 16, 3, 3, 1, 1, 0, 1, 2, 0, 1, 1, 1},   // padded at the end only, 29 a row
    {24, 9, 10, 18, 3, 3, 1, 1, 2, 2, 2, 2, 1, 1, 1},    // padding 2: rows wholly padding
    {32, 12, 12, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},   // two groups of 16
    {16, 3, 3, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},     // one partial block of 4 tiles
    {16, 3, 40, 16, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1},    // 1 x 38 out: half tiles
    {1024, 4, 5, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // the most channels (int32 bound)
};

/// conv2d_sums (ConvInteger with a run-time zero point) against the
/// reference ConvInteger loop, bit for bit; `variant` odd: no zero point.
template <typename T> void checkConvSums(const ConvCase &q, int variant) {
  const ConvGeometry cv(q, variant);
  const int64_t n = cv.n, oh = cv.oh, ow = cv.ow, cg = cv.cg, depth = cv.depth;
  const int64_t *in = cv.in, *out = cv.out, *kernel = cv.kernel, *strides = cv.strides;
  const int64_t *pb = cv.pb, *pe = cv.pe, *dil = cv.dil;
  auto x = randomQ<T>(n * q.c * q.h * q.w);
  auto w = randomWeights(q.m * depth);
  if (variant % 5 == 4)
    for (size_t i = 0; i < w.size(); i += 3)
      w[i] = -128;
  const T zp = T(randomZeroPoint<T>());
  const T *x_zp = variant % 2 ? nullptr : &zp;
  const int64_t ny = n * q.m * oh * ow;
  std::vector<int32_t> want(ny), got(ny);
  ref::conv_acc<T, int8_t, int32_t>(x.data(), w.data(), x_zp, nullptr, 0, nullptr, want.data(), 2,
                                    in, out, kernel, strides, pb, pe, dil, q.group);
  namespace pk = simd::qs8;
  pk::with_conv_depth_group(depth, [&](auto depth_group) {
  constexpr int G = decltype(depth_group)::value;
  constexpr bool S = simd::qs8::kShiftedBytes;
  std::vector<int8_t> packed(pk::conv_packed_bytes(q.m, q.group, depth, G));
  pk::pack_conv_weights(w.data(), q.m, q.group, depth, G, packed.data(),
                        pk::conv_weight_taps(G, cg, q.kh, q.kw, q.sh, q.sw));
  std::vector<int32_t> sums(q.m);
  pk::weight_sums(w.data(), q.m, depth, depth, 1, sums.data());
  const pk::PaddedPlane pp = pk::padded_plane(oh, ow, q.kh, q.kw, q.sh, q.sw, q.dh, q.dw);
  const bool reads_input =
      pk::conv_reads_input(q.kh, q.kw, q.sh, q.sw, q.ph, q.pw, q.h, q.w, oh, ow);
  const int64_t tasks = variant % 4 < 2 ? 1 : kTasks;
  std::vector<uint8_t> scratch(
      pk::conv_sums_scratch_bytes(q.m, depth, oh, ow, q.sh, cg, pp, reads_input, G, tasks));
  simd::qs8::conv2d_sums<T, G, S>(x.data(), x_zp, packed.data(), sums.data(), got.data(), in,
                                  out, kernel, strides, pb, dil, q.group,
                                  pk::weights_are_narrow(w.data(), int64_t(w.size())),
                                  scratch.data(), pool(), tasks);
  });
  INFO("c " << q.c << " " << q.h << "x" << q.w << " m " << q.m << " k " << q.kh << "x" << q.kw
            << " s " << q.sh << "," << q.sw << " g " << q.group << " variant " << variant);
  REQUIRE(want == got);
}

} // namespace

// (A case's variants are the same whichever cases the sweep takes.)
TEST_CASE("qs8 conv2d_sums matches ConvInteger", "[simd][qs8]") {
  int variant = 0;
  for (size_t i = 0; i < std::size(kConvCases); ++i) {
    const ConvCase &q = kConvCases[i];
    if (q.c / q.group == 1 && q.m == q.group)
      continue; // depthwise: the reference kernel
    for (int v = 0; v < 2; ++v, ++variant)
      if (caseTaken(i)) {
        checkConvSums<int8_t>(q, variant);
        checkConvSums<uint8_t>(q, variant + 1);
      }
  }
}

TEST_CASE("qs8 conv2d and depthwise_conv2d match the reference", "[simd][qs8]") {
  int variant = 0;
  for (size_t i = 0; i < std::size(kConvCases); ++i)
    for (int v = 0; v < 4; ++v, ++variant)
      if (caseTaken(i)) {
        checkConv<int8_t>(kConvCases[i], variant);
        checkConv<uint8_t>(kConvCases[i], variant + 1);
      }
}

#if ONNXC_RT_SIMD_AMX
TEST_CASE("qs8 AMX tile sums equal the same sums by VPDPBUSD", "[simd][qs8][amx]") {
  // conv2d's two ways on x86-64-amx (simd/qs8/amx.h): tiles where the OS
  // grants their state, dot products where it does not; the conv2d cases
  // above run the first here, this checks the second against it on every
  // block shape (1 or 2 tiles of channels and of pixels) and 1-3 steps.
  namespace d = simd::qs8::detail;
  if (!d::amx_permitted()) {
    WARN("the OS refuses AMX's tile state: the tile sums are not checked here");
    return;
  }
  // Both operand forms: a panel (one tap, steps of 1 KiB, rows of 64
  // bytes, pixel tiles apart by more than their depth, from an odd 64
  // bytes) and channel quads read in place (taps at offsets, rows a quad
  // plane apart, pixel tiles 64 bytes apart).
  const int64_t offsets[3] = {0, 4 * 7, 4 * 40};
  for (int64_t steps = 1; steps <= 3; ++steps) {
    const int64_t w_tile = steps * d::kAmxStepBytes, chunk = w_tile + 128, quad = 4 * 96;
    const d::TileOperand forms[2] = {{offsets, 1, steps, d::kAmxStepBytes, 64, chunk},
                                     {offsets, steps, 1, 16 * quad, quad, 64}};
    auto w = randomQ<int8_t>(2 * w_tile);
    auto panel = randomQ<uint8_t>(2 * chunk + 64 + 16 * quad);
    for (const d::TileOperand &op : forms)
      for (int mb = 1; mb <= 2; ++mb)
        for (int nb = 1; nb <= 2; ++nb) {
          alignas(64) int32_t tiles[32 * 32] = {}, dots[32 * 32] = {};
          onnxc_rt::simd::amx_configure();
          d::block_sums(true, mb, nb, w.data(), w_tile, panel.data() + 64, op, tiles);
          _tile_release();
          d::block_sums(false, mb, nb, w.data(), w_tile, panel.data() + 64, op, dots);
          INFO("steps " << steps << " taps " << op.taps << " channel tiles " << mb
                        << " pixel tiles " << nb);
          REQUIRE(std::memcmp(tiles, dots, sizeof(tiles)) == 0);
          int64_t nonzero = 0;
          for (int32_t v : tiles)
            nonzero += v != 0;
          REQUIRE(nonzero == mb * nb * 256);
        }
  }
  // The fully connected layer's two ways (fc_amx): 40 rows by 40 columns,
  // 3 steps, per-column multipliers.
  const int64_t rows = 40, n = 40, stride = 192;
  auto a = randomQ<uint8_t>(48 * stride);
  auto w = randomQ<int8_t>(3 * stride * 16);
  auto bias = randomBias(n);
  std::vector<int32_t> mult, shift;
  randomMultipliers(n, 1.0 / (40.0 * std::sqrt(double(stride))), mult, shift);
  std::vector<int8_t> by_tiles(rows * n), by_dots(rows * n);
  using simd::VecI;
  const VecI zp = VecI::broadcast(3), lo = VecI::broadcast(-128), hi = VecI::broadcast(127);
  onnxc_rt::simd::amx_configure();
  d::fc_amx<int8_t>(true, a.data(), stride, w.data(), bias.data(), by_tiles.data(), rows, n, 0, n,
                    mult.data(), shift.data(), n, true, zp, lo, hi);
  _tile_release();
  d::fc_amx<int8_t>(false, a.data(), stride, w.data(), bias.data(), by_dots.data(), rows, n, 0, n,
                    mult.data(), shift.data(), n, true, zp, lo, hi);
  REQUIRE(by_tiles == by_dots);
}
#endif

TEST_CASE("qs8 conv2d's sums at their bound", "[simd][qs8]") {
  // The largest sums a 3x3 convolution of 1024 channels takes (AVX2's
  // Winograd form holds 4 times them in int32, qs8/pack.h's
  // kWinogradMaxChannels): every x - x_zp at 255 and every weight at -128
  // or 127, the multiplier scaling them into the output's range, so a sum
  // that wrapped would come out at the other end.
  namespace pk = simd::qs8;
  constexpr int64_t c = 1024, h = 6, w = 7, m = 16;
  const int64_t in[4] = {1, c, h, w}, out[4] = {1, m, h, w}, kernel[2] = {3, 3},
                strides[2] = {1, 1}, pads[2] = {1, 1}, dil[2] = {1, 1};
  const int64_t depth = c * 9;
  std::vector<int8_t> x(c * h * w, 127);
  const int8_t x_zp = -128;
  for (int8_t weight : {int8_t(-128), int8_t(127)}) {
    std::vector<int8_t> wt(m * depth, weight);
    // 255 * 128 * 9 * 1024 (3.0e8) to 100.
    const auto q = ref::qs8::quantize_multiplier(100.0 / (255.0 * 128 * 9 * 1024));
    std::vector<int32_t> bias(m, 0), mult(m, q.multiplier), shift(m, q.shift);
    std::vector<int8_t> want(m * h * w), got(m * h * w);
    std::vector<int32_t> plane(h * w);
    ref::qs8::conv<int8_t>(x.data(), wt.data(), &x_zp, bias.data(), want.data(), 2, in, out,
                           kernel, strides, pads, pads, dil, 1, plane.data(), mult.data(),
                           shift.data(), m, 0, -128, 127);
    pk::with_conv_depth_group(depth, [&](auto depth_group) {
      constexpr int G = decltype(depth_group)::value;
      constexpr bool S = pk::kShiftedBytes;
      const pk::ConvForm form = pk::conv2d_form(G, c, m, 3, 3, 1, 1, h, w, 1, 1, 1, 1);
      std::vector<int8_t> packed(pk::conv_packed_bytes(m, 1, depth, G, form));
      pk::pack_conv_weights(wt.data(), m, 1, depth, G, packed.data(),
                            pk::conv_weight_taps(G, c, 3, 3, 1, 1, form), form);
      std::vector<int32_t> folded(m);
      pk::fold_zero_point(wt.data(), bias.data(), m, depth, depth, 1,
                          pk::packed_zero_point(x_zp + pk::flip_of<int8_t>(), S), folded.data());
      const pk::PaddedPlane pp = pk::conv_plane(form, h, w, 3, 3, 1, 1, 1, 1);
      std::vector<uint8_t> scratch(
          pk::conv_scratch_bytes(depth, h, w, 1, c, pp, false, G, kTasks, form));
      pk::conv2d<int8_t, G, S>(x.data(), packed.data(), folded.data(), got.data(), in, out,
                               kernel, strides, pads, dil, 1, x_zp, mult.data(), shift.data(),
                               m, 0, -128, 127, weight != -128, scratch.data(), pool(), kTasks);
    });
    INFO("weights " << int(weight));
    REQUIRE(want == got);
    // An interior output: -100 (or 127 / 128 of 100), not at a clamp.
    REQUIRE(std::abs(int(want[w + 1])) >= 99);
    REQUIRE(std::abs(int(want[w + 1])) <= 100);
  }
}

TEST_CASE("qs8 convolutions over rows of every short width", "[simd][qs8]") {
  // The padded planes copy and fill rows in 16-, 8- and 4-byte pieces and
  // stride-2 rows by even/odd bytes: every row width around those sizes.
  int variant = 0;
  for (int64_t w = 1; w <= 36; ++w)
    for (int64_t s = 1; s <= 2; ++s, ++variant) {
      checkConv<int8_t>({2, 3, w, 2, 3, 3, 1, s, 1, 1, 1, 1, 1, 1, 2}, variant);  // depthwise
      checkConv<uint8_t>({2, 3, w, 3, 3, 3, 1, s, 1, 1, 1, 1, 1, 1, 1}, variant); // dense
    }
}

TEST_CASE("qs8 padded planes in shares of rows write their rows alone", "[simd][qs8]") {
  // pad_planes splits a plane's rows among tasks: each share (done here
  // last first, so that a store reaching past a share's end would be
  // seen) must write exactly the padded rows PaddedPlane describes, rows
  // narrower than a vector included.
  namespace pk = simd::qs8;
  const uint8_t pad = 0x5a, untouched = 0xa5;
  for (int64_t w : {1, 2, 5, 6, 9, 13, 15, 17, 31, 33, 56})
    for (int64_t k : {1, 3, 5})
      for (int64_t s : {1, 2, 3})
        for (int64_t tasks : {1, 2, 3, 7}) {
          const int64_t h = 7, p = k / 2, oh = (h + 2 * p - k) / s + 1;
          const int64_t ow = (w + 2 * p - k) / s + 1;
          const pk::detail::Conv2d g{1, h, w, oh, ow, k, k, s, s, p, p, 1, 1};
          const pk::PaddedPlane pp = pk::padded_plane(oh, ow, k, k, s, s, 1, 1);
          std::vector<int8_t> x(h * w);
          for (size_t i = 0; i < x.size(); ++i)
            x[i] = int8_t(i * 7 + 1);
          std::vector<uint8_t> got(pp.bytes(), untouched), want(pp.bytes(), untouched);
          for (int64_t t = tasks - 1; t >= 0; --t)
            pk::detail::pad_plane(x.data(), g, pp, pad, got.data(),
                                  split_range(pp.rows, 1, tasks, t));
          // Padded row r (every s-th where the kernel has one row), column
          // phase f (one where it has one column), byte j: padded column
          // j s + f.
          const int64_t row_step = k == 1 ? s : 1, phases = k == 1 ? 1 : s;
          for (int64_t r = 0; r < pp.rows; r += row_step)
            for (int64_t f = 0; f < phases; ++f)
              for (int64_t j = 0; j < pp.phase; ++j) {
                const int64_t iy = r - p, ix = j * s + f - p;
                want[(r * s + f) * pp.phase + j] =
                    iy < 0 || iy >= h || ix < 0 || ix >= w ? pad : uint8_t(x[iy * w + ix]);
              }
          INFO("w " << w << " k " << k << " s " << s << " tasks " << tasks);
          const int64_t filled = pp.bytes() - pp.slack; // the slack: whatever a vector left
          REQUIRE(std::equal(want.begin(), want.begin() + filled, got.begin()));
        }
}

TEST_CASE("qs8 channel quads at stride 2 across hold their phase planes' pixels",
          "[simd][qs8]") {
  // fill_quad_phases2 (the direct forms' staging at stride 2 across):
  // quad q's bytes, pixel by pixel from PaddedPlane's definition of the
  // direct plane, its slack the padding, nothing written past the quad;
  // rows narrower than a step, odd widths, padding that moves the even
  // columns to phase 1, dilations, strides down of 1 to 3.
  namespace pk = simd::qs8;
  const uint8_t pad = 0x5a, untouched = 0xa5;
  for (int64_t w : {1, 2, 5, 13, 14, 15, 16, 17, 31, 33, 41, 45, 56})
    for (int64_t k : {1, 3, 5})
      for (int64_t sh : {1, 2, 3})
        for (int64_t p : {0, 1, 2})
          for (int64_t d : {1, 2})
            for (uint8_t flip : {uint8_t(0), uint8_t(0x80)}) {
              const int64_t h = 9, c = 8, oh = (h + 2 * p - d * (k - 1) - 1) / sh + 1;
              const int64_t ow = (w + 2 * p - d * (k - 1) - 1) / 2 + 1;
              if (oh < 1 || ow < 1)
                continue;
              const pk::detail::Conv2d g{c, h, w, oh, ow, k, k, sh, 2, p, p, d, d};
              const pk::PaddedPlane pp = pk::direct_plane(oh, ow, k, k, sh, 2, d, d);
              const int64_t quad_plane = pk::conv_quad_plane_bytes(pp);
              const int64_t rows = pp.rows / pp.row_phases, filled = pp.bytes() - pp.slack;
              std::vector<uint8_t> x(c * h * w); // exactly the input: no reads past it
              for (size_t i = 0; i < x.size(); ++i)
                x[i] = uint8_t(i * 37 + 11);
              INFO("w " << w << " k " << k << " sh " << sh << " p " << p << " d " << d
                        << " flip " << int(flip));
              for (int64_t q = 0; q < c / 4; ++q) {
                std::vector<uint8_t> got(4 * quad_plane + 64, untouched);
                pk::detail::fill_quad_phases2(x.data(), g, pp, pad, flip, q, got.data());
                std::vector<uint8_t> want(got.size(), untouched);
                for (int64_t b = 0; b < quad_plane; ++b)
                  for (int64_t j = 0; j < 4; ++j) {
                    uint8_t v = pad;
                    if (b < filled) { // phase plane (ry, rx), its row i, column col
                      const int64_t phase = b / (rows * pp.phase), at = b % (rows * pp.phase);
                      const int64_t ry = phase / 2, rx = phase % 2;
                      const int64_t iy = at / pp.phase * sh + ry - p;
                      const int64_t ix = at % pp.phase * 2 + rx - p;
                      if (iy >= 0 && iy < h && ix >= 0 && ix < w)
                        v = x[((4 * q + j) * h + iy) * w + ix];
                    }
                    want[4 * b + j] = v ^ flip;
                  }
                REQUIRE(want == got);
              }
            }
}

namespace {
template <typename T> void checkFullyConnected(int64_t rows, int64_t depth, int64_t n, int variant) {
  auto a = randomQ<T>(rows * depth);
  auto w = randomWeights(depth * n);
  if (variant % 5 == 4) // some weights at -128: no two-step sums (weights_are_narrow)
    for (size_t i = 0; i < w.size(); i += 3)
      w[i] = -128;
  auto bias = randomBias(n);
  const int32_t a_zp = randomZeroPoint<T>(), y_zp = randomZeroPoint<T>();
  const int64_t count = variant % 2 ? n : 1;
  std::vector<int32_t> mult, shift;
  randomMultipliers(count, variant % 4 == 3 ? 1.5 : 1.0 / (40.0 * std::sqrt(double(depth))), mult,
                    shift);
  const auto [lo, hi] = randomClamp<T>(y_zp, variant / 2);
  const T zp_value = T(a_zp);
  const int64_t tasks = variant % 3 == 1 ? kTasks : 1;
  std::vector<T> want(rows * n), got(rows * n);
  std::vector<int32_t> acc(n);
  ref::qs8::fully_connected<T>(a.data(), w.data(), &zp_value, bias.data(), want.data(), rows,
                               depth, n, acc.data(), mult.data(), shift.data(), count, y_zp, lo,
                               hi);
  namespace pk = simd::qs8;
  pk::with_depth_group(pk::fc_depth_group(rows, depth), [&](auto depth_group) {
  constexpr int G = decltype(depth_group)::value;
  std::vector<int8_t> packed(pk::fc_packed_bytes(depth, n, G));
  pk::pack_fc_weights(w.data(), depth, n, G, packed.data());
  std::vector<int32_t> folded(n);
  constexpr bool S = simd::qs8::kShiftedBytes;
  pk::fold_zero_point(w.data(), bias.data(), n, depth, 1, n,
                      pk::packed_zero_point(a_zp + pk::flip_of<T>(), S), folded.data());
  std::vector<uint8_t> scratch(pk::fc_scratch_bytes(rows, depth, G));
  simd::qs8::fully_connected<T, G, S>(a.data(), packed.data(), folded.data(), got.data(),
                                      rows, depth, n, mult.data(), shift.data(), count, y_zp, lo,
                                      hi, pk::weights_are_narrow(w.data(), int64_t(w.size())),
                                      scratch.data(), pool(), tasks);
  });
  INFO("rows " << rows << " depth " << depth << " n " << n << " variant " << variant << " tasks "
               << tasks);
  REQUIRE(want == got);
}
} // namespace

TEST_CASE("qs8 fully_connected matches the reference", "[simd][qs8]") {
  int variant = 0;
  // Rows around the 4-, 6- and 8-row tiles (NEON's USMMLA takes 6, its
  // SDOT 8).
  for (int64_t rows : {1, 3, 4, 5, 6, 7, 9, 13, 16})
    for (int64_t depth : {1, 4, 7, 8, 12, 64, 150})
      for (int64_t n : {1, 15, 16, 17, 40, 64, 70}) {
        checkFullyConnected<int8_t>(rows, depth, n, variant++);
        checkFullyConnected<uint8_t>(rows, depth, n, variant++);
      }
  // AMX's tiles (fc_amx_applies: 16+ rows, depth 128+): 16- and 32-row
  // blocks and a part, 16- and 32-column blocks and a part, depth steps.
  for (int64_t rows : {16, 33, 50})
    for (int64_t depth : {128, 200})
      for (int64_t n : {16, 40, 70}) {
        checkFullyConnected<int8_t>(rows, depth, n, variant++);
        checkFullyConnected<uint8_t>(rows, depth, n, variant++);
      }
}

namespace {
/// fully_connected_sums (MatMulInteger with a run-time zero point) against
/// the reference MatMulInteger loop, bit for bit; `variant` odd: no zero
/// point (null).
template <typename T> void checkFullyConnectedSums(int64_t rows, int64_t depth, int64_t n,
                                                   int variant) {
  auto a = randomQ<T>(rows * depth);
  auto w = randomWeights(depth * n);
  if (variant % 5 == 4)
    for (size_t i = 0; i < w.size(); i += 3)
      w[i] = -128;
  const T zp = T(randomZeroPoint<T>());
  const T *a_zp = variant % 2 ? nullptr : &zp;
  const int64_t tasks = variant % 4 < 2 ? 1 : kTasks;
  std::vector<int32_t> want(rows * n), got(rows * n);
  ref::matmul_acc<T, int8_t, int32_t>(a.data(), w.data(), a_zp, a_zp ? 1 : 0, nullptr, 0,
                                      want.data(), rows, depth, n, 0, nullptr, nullptr, nullptr);
  namespace pk = simd::qs8;
  pk::with_depth_group(pk::fc_depth_group(rows, depth), [&](auto depth_group) {
  constexpr int G = decltype(depth_group)::value;
  constexpr bool S = simd::qs8::kShiftedBytes;
  std::vector<int8_t> packed(pk::fc_packed_bytes(depth, n, G));
  pk::pack_fc_weights(w.data(), depth, n, G, packed.data());
  std::vector<int32_t> sums(n);
  pk::weight_sums(w.data(), n, depth, 1, n, sums.data());
  std::vector<uint8_t> scratch(pk::fc_sums_scratch_bytes(rows, depth, n, G));
  simd::qs8::fully_connected_sums<T, G, S>(a.data(), a_zp, packed.data(), sums.data(),
                                           got.data(), rows, depth, n,
                                           pk::weights_are_narrow(w.data(), int64_t(w.size())),
                                           scratch.data(), pool(), tasks);
  });
  INFO("rows " << rows << " depth " << depth << " n " << n << " variant " << variant);
  REQUIRE(want == got);
}
} // namespace

TEST_CASE("qs8 fully_connected_sums matches MatMulInteger", "[simd][qs8]") {
  int variant = 0;
  for (int64_t rows : {1, 2, 4, 5, 7, 9, 16})
    for (int64_t depth : {1, 7, 8, 64, 150})
      for (int64_t n : {1, 15, 17, 64, 70}) {
        checkFullyConnectedSums<int8_t>(rows, depth, n, variant++);
        checkFullyConnectedSums<uint8_t>(rows, depth, n, variant++);
      }
  // AMX's sizes (fc_amx_applies), as in the requantized sweep.
  for (int64_t rows : {33, 50})
    for (int64_t n : {16, 40, 70}) {
      checkFullyConnectedSums<int8_t>(rows, 200, n, variant++);
      checkFullyConnectedSums<uint8_t>(rows, 200, n, variant++);
    }
}

TEST_CASE("qs8 requantization matches the reference lane by lane", "[simd][qs8]") {
  // The one step every kernel ends in, over its whole range: accumulators
  // of every magnitude, multipliers of [2^30, 2^31), every shift; lanes
  // built on exact ties in one round in four (multiplier 2^30 and x an odd
  // multiple of 2^right: x * 2^-(right + 1) is an odd multiple of a half);
  // every shift negative (the form without the left shift) in every other
  // round.
  constexpr int L = simd::VecI::kLanes;
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX), mults(1 << 30, INT32_MAX);
  std::uniform_int_distribution<int> bits(0, 31), down(-31, -1), every(-31, 30);
  for (int round = 0; round < 20000; ++round) {
    int32_t x[L], m[L], s[L], zero[L] = {}, got[L];
    for (int l = 0; l < L; ++l) {
      x[l] = any(rng()) >> bits(rng());
      m[l] = mults(rng());
      s[l] = round % 2 ? every(rng()) : down(rng());
      if (round % 4 == 0) { // a tie; right <= 30, so that the odd multiple fits
        const int right = -s[l] < 30 ? -s[l] : 30;
        s[l] = -right;
        m[l] = 1 << 30;
        x[l] = int32_t((int64_t(x[l] >> (right + 1)) * 2 + 1) * (int64_t(1) << right));
      }
    }
    const bool up = simd::qs8::detail::columns_scale_up(s, L, 0, L);
    const auto q = simd::qs8::detail::requant_columns(zero, m, s, L, 0, L, up);
    simd::qs8::detail::requantize_scaled(simd::VecI::load(x), q).store(got);
    for (int l = 0; l < L; ++l) {
      INFO("round " << round << " x " << x[l] << " multiplier " << m[l] << " shift " << s[l]);
      REQUIRE(got[l] == ref::qs8::multiply_by_quantized_multiplier(x[l], m[l], s[l]));
    }
  }
}

TEST_CASE("qs8 narrow_scale matches the quantized multiply on every 8-bit difference",
          "[simd][qs8]") {
  // add's inputs less their zero points (|x| <= 255) scaled by 2^e and a
  // multiplier: every x against the reference, for every shift where the
  // form is exact and multipliers at both ends of [2^30, 2^31) and between.
  constexpr int L = simd::VecI::kLanes;
  std::uniform_int_distribution<int32_t> mults(1 << 30, INT32_MAX);
  int checked = 0;
  for (int32_t e : {0, 8, 14, 20, 22})
    for (int32_t shift = -31; shift <= 8; ++shift) {
      if (!simd::qs8::detail::narrow_scale_exact(e, shift))
        continue;
      for (int32_t m : {int32_t(1) << 30, INT32_MAX, mults(rng()), mults(rng())}) {
        const auto c = simd::qs8::detail::narrow_scale(e, m, shift);
        for (int32_t x0 = -255; x0 <= 255; x0 += L) {
          int32_t x[L], got[L];
          for (int l = 0; l < L; ++l)
            x[l] = x0 + l > 255 ? 255 : x0 + l;
          simd::qs8::detail::scale_narrow(simd::VecI::load(x), c).store(got);
          for (int l = 0; l < L; ++l) {
            INFO("x " << x[l] << " e " << e << " multiplier " << m << " shift " << shift);
            REQUIRE(got[l] ==
                    ref::qs8::multiply_by_quantized_multiplier(x[l] * (1 << e), m, shift));
          }
        }
        ++checked;
      }
    }
  // add_params' own (e 20): ratios up to 1/2 (equal scales), shifts down to -31.
  REQUIRE(simd::qs8::detail::narrow_scale_exact(20, 0));
  REQUIRE(simd::qs8::detail::narrow_scale_exact(20, -31));
  REQUIRE(checked > 100);
}

namespace {
template <typename T> void checkElementwise(int64_t rows, int64_t inner, int variant) {
  const int64_t n = rows * inner;
  auto a = randomQ<T>(n), b = randomQ<T>(n), br = randomQ<T>(rows);
  const int32_t a_zp = randomZeroPoint<T>(), b_zp = randomZeroPoint<T>(),
                y_zp = randomZeroPoint<T>();
  const auto [lo, hi] = randomClamp<T>(y_zp, variant);
  std::uniform_real_distribution<double> scale(0.002, 0.1);
  // Every third variant adds equal scales (add_params' ratio of 1/2: a left shift).
  const double sa = scale(rng()), sb = variant % 3 == 0 ? sa : scale(rng()), sy = scale(rng());
  const int64_t shape[1] = {n}, unit[1] = {1};
  const int64_t tasks = variant % 4 < 2 ? 1 : kTasks; // int8 and uint8 both ways
  std::vector<T> want(n), got(n);
  // add, same shape
  auto p = ref::qs8::add_params(sa, a_zp, sb, b_zp, sy, y_zp, lo, hi);
  ref::qs8::add<T>(a.data(), b.data(), want.data(), 1, shape, unit, unit, p.left_shift, p.a_zp,
                   p.a_multiplier, p.a_shift, p.b_zp, p.b_multiplier, p.b_shift, p.y_zp,
                   p.y_multiplier, p.y_shift, p.act_min, p.act_max);
  simd::qs8::add<T>(a.data(), b.data(), got.data(), n, p.left_shift, p.a_zp, p.a_multiplier,
                    p.a_shift, p.b_zp, p.b_multiplier, p.b_shift, p.y_zp, p.y_multiplier,
                    p.y_shift, p.act_min, p.act_max, pool(), tasks);
  INFO("rows " << rows << " inner " << inner << " variant " << variant << " tasks " << tasks);
  REQUIRE(want == got);
  // mul, same shape and one b per row
  auto m = ref::qs8::quantize_multiplier(sa * sb / sy);
  ref::qs8::mul<T>(a.data(), b.data(), want.data(), 1, shape, unit, unit, a_zp, b_zp, y_zp,
                   m.multiplier, m.shift, lo, hi);
  simd::qs8::mul<T>(a.data(), b.data(), got.data(), 1, n, 0, a_zp, b_zp, y_zp, m.multiplier,
                    m.shift, lo, hi, pool(), tasks);
  REQUIRE(want == got);
  const int64_t shape2[2] = {rows, inner}, a2[2] = {inner, 1}, b2[2] = {1, 0};
  ref::qs8::mul<T>(a.data(), br.data(), want.data(), 2, shape2, a2, b2, a_zp, b_zp, y_zp,
                   m.multiplier, m.shift, lo, hi);
  simd::qs8::mul<T>(a.data(), br.data(), got.data(), rows, inner, 1, a_zp, b_zp, y_zp,
                    m.multiplier, m.shift, lo, hi, pool(), tasks);
  REQUIRE(want == got);
  // global average pooling of `rows` planes of `inner`
  std::vector<T> wantp(rows), gotp(rows);
  auto g = ref::qs8::quantize_multiplier(sa / sy);
  const int64_t in[4] = {1, rows, 1, inner}, out[4] = {1, rows, 1, 1}, k[2] = {1, inner},
                one[2] = {1, 1}, zero[2] = {0, 0};
  ref::qs8::average_pool<T>(a.data(), wantp.data(), 2, in, out, k, one, zero, zero, one, 0, a_zp,
                            y_zp, g.multiplier, g.shift);
  simd::qs8::global_average_pool<T>(a.data(), gotp.data(), rows, inner, a_zp, y_zp,
                                    g.multiplier, g.shift, pool(), tasks);
  REQUIRE(wantp == gotp);
}
} // namespace

TEST_CASE("qs8 add, mul and global average pooling match the reference", "[simd][qs8]") {
  int variant = 0;
  for (int64_t rows : {1, 3, 8})
    for (int64_t inner : {1, 7, 16, 17, 49, 200, 1100}) {
      checkElementwise<int8_t>(rows, inner, variant++);
      checkElementwise<uint8_t>(rows, inner, variant++);
    }
}

namespace {
template <typename T> void checkMaxPool(const ConvCase &q) {
  const int64_t oh = (q.h + q.ph + q.pe_h - q.dh * (q.kh - 1) - 1 + q.sh - 1) / q.sh + 1;
  const int64_t ow = (q.w + q.pw + q.pe_w - q.dw * (q.kw - 1) - 1 + q.sw - 1) / q.sw + 1; // ceil
  const int64_t in[4] = {1, q.c, q.h, q.w}, out[4] = {1, q.c, oh, ow};
  const int64_t kernel[2] = {q.kh, q.kw}, strides[2] = {q.sh, q.sw};
  const int64_t pb[2] = {q.ph, q.pw}, pe[2] = {q.pe_h, q.pe_w}, dil[2] = {q.dh, q.dw};
  auto x = randomQ<T>(q.c * q.h * q.w);
  std::vector<T> want(q.c * oh * ow), got(q.c * oh * ow);
  ref::max_pool<T>(x.data(), want.data(), nullptr, 2, in, out, kernel, strides, pb, pe, dil, 0);
  std::vector<T> scratch(kTasks * simd::qs8::maxpool_scratch_bytes(ow, q.kw, q.sw, q.dw));
  INFO(q.h << "x" << q.w << " k " << q.kh << "x" << q.kw << " s " << q.sh << " p " << q.ph);
  for (int64_t tasks : {int64_t(1), kTasks}) {
    std::fill(got.begin(), got.end(), T(1));
    simd::qs8::max_pool2d<T>(x.data(), got.data(), in, out, kernel, strides, pb, dil,
                             scratch.data(), pool(), tasks);
    INFO("tasks " << tasks);
    REQUIRE(want == got);
  }
}
} // namespace

TEST_CASE("qs8 max_pool2d matches the reference", "[simd][qs8]") {
  for (const ConvCase &q : kConvCases) {
    checkMaxPool<int8_t>(q);
    checkMaxPool<uint8_t>(q);
  }
  // 2x2 windows, stride 2 (their 16-output vector path), around 16 outputs.
  const ConvCase pools[] = {
      // c, h, w, m, kh, kw, sh, sw, ph, pw, pe_h, pe_w, dh, dw, group
      {3, 4, 32, 3, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 3},
      {2, 5, 33, 2, 2, 2, 2, 2, 0, 0, 1, 1, 1, 1, 2},
      {2, 6, 70, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 2},
      {1, 2, 30, 1, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 1},
      // 3x3 windows, stride 2 and 1, around 16 and 32 outputs (the row's
      // slack takes the last step's reads); ceil mode; dilation.
      {2, 5, 32, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2},
      {2, 5, 34, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2},
      {1, 4, 66, 1, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
      {2, 7, 56, 2, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 2},
      {2, 4, 15, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},
      {2, 4, 17, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},
      {1, 3, 33, 1, 1, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1},
      {2, 6, 40, 2, 2, 2, 2, 2, 0, 0, 0, 0, 2, 2, 2},
      {2, 6, 41, 2, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 2},
      // Tiny planes (many rows of a few outputs) and a window on padding alone.
      {4, 8, 8, 4, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 4},
      {1, 3, 5, 1, 2, 2, 2, 2, 1, 2, 1, 2, 1, 1, 1},
      // Windows wholly inside (read in place), the last rows of the tensor
      // through padded rows: SqueezeNet's pools, 2x2 pools, stride 1, dilated.
      {3, 7, 111, 3, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 3},
      {4, 9, 55, 4, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 4},
      {6, 13, 27, 6, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 6},
      {8, 16, 16, 8, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 8},
      {2, 8, 64, 2, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 2},
      {2, 5, 20, 2, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 2},
      {2, 7, 9, 2, 3, 3, 1, 1, 0, 0, 0, 0, 2, 2, 2},
      // Stride-2 windows of 2 and 3 columns read in place (stride2_windows)
      // with 16, 17, 32 and 33 outputs a row: the third column of a step
      // from the next step's bytes, and the last step's from its own.
      {2, 5, 33, 2, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 2},
      {2, 5, 35, 2, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 2},
      {2, 5, 65, 2, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 2},
      {2, 5, 67, 2, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 2},
      {2, 4, 34, 2, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 2},
      {2, 4, 66, 2, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 2},
      // Padded pools over several tasks: ResNet's (3x3, stride 2, pad 1),
      // ceil mode, dilated, a window taller than the plane.
      {2, 16, 16, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2},
      {3, 8, 24, 3, 3, 3, 2, 2, 1, 1, 2, 2, 1, 1, 3},
      {2, 16, 8, 2, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 2},
      {1, 4, 16, 1, 7, 7, 1, 1, 3, 3, 3, 3, 1, 1, 1},
      // Rows of more than 32 outputs (64-byte steps with AVX-512 VBMI):
      // one step and a tail, exactly one, two and three steps (the third
      // column across a step), in place and padded (ResNet's, 56 a row),
      // stride 1 and dilated, 5-column windows at stride 2, ceil mode.
      {2, 4, 129, 2, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 2},
      {2, 4, 131, 2, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 2},
      {1, 3, 261, 1, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1},
      {1, 3, 258, 1, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 1},
      {2, 6, 112, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2},
      {2, 5, 130, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2},
      {2, 4, 100, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},
      {1, 7, 80, 1, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1},
      {2, 6, 140, 2, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 2},
      {2, 5, 76, 2, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 2},
  };
  for (const ConvCase &q : pools) {
    checkMaxPool<int8_t>(q);
    checkMaxPool<uint8_t>(q);
  }
}

namespace {
template <typename T> void checkLookup(int64_t n) {
  auto x = randomQ<T>(n), table = randomQ<T>(256);
  for (int64_t i = 0; i < n && i < 256; ++i) // every index, where n allows
    x[i] = T(int(std::numeric_limits<T>::min()) + int(i));
  std::vector<T> want(x.size()), got(x.size());
  ref::qs8::lookup<T>(x.data(), table.data(), want.data(), n);
  simd::qs8::lookup<T>(x.data(), table.data(), got.data(), n);
  REQUIRE(want == got);
  std::fill(got.begin(), got.end(), T(0));
  simd::qs8::lookup<T>(x.data(), table.data(), got.data(), n, pool(), kTasks);
  INFO("n " << n);
  REQUIRE(want == got);
}
} // namespace

TEST_CASE("qs8 lookup matches the reference", "[simd][qs8]") {
  for (int64_t n : {1, 31, 32, 33, 63, 64, 65, 256, 300, 1000}) {
    checkLookup<int8_t>(n);
    checkLookup<uint8_t>(n);
  }
}

namespace {
/// channel_gather against the ops it replaces on the reference kernels:
/// each input rescaled (QRescale: as its table, or none), Concat,
/// ShuffleNet's shuffle (Reshape (n, 2, half, hw), Transpose (0, 2, 1, 3),
/// Reshape back), and the Slices of its two halves; then random picks from
/// one input.
template <typename T> void checkChannelGather(int64_t half, int64_t hw, int tables) {
  const int64_t n = 2, c = 2 * half;
  auto a = randomQ<T>(n * half * hw), b = randomQ<T>(n * half * hw);
  // The rescales (x_zp, multiplier, shift, y_zp) and their tables.
  const int32_t shifts[2] = {0, -1};
  std::vector<T> ta(256), tb(256), all(256);
  for (int i = 0; i < 256; ++i)
    all[size_t(i)] = T(int(std::numeric_limits<T>::min()) + i);
  ref::qs8::rescale<T, T>(all.data(), 3, 1518500250, shifts[0], -5, ta.data(), 256);
  ref::qs8::rescale<T, T>(all.data(), -7, 1859775393, shifts[1], 9, tb.data(), 256);
  const bool rescaleA = tables & 1, rescaleB = tables & 2;
  std::vector<T> ra(a), rb(b);
  if (rescaleA)
    ref::qs8::rescale<T, T>(a.data(), 3, 1518500250, shifts[0], -5, ra.data(), int64_t(a.size()));
  if (rescaleB)
    ref::qs8::rescale<T, T>(b.data(), -7, 1859775393, shifts[1], 9, rb.data(), int64_t(b.size()));
  std::vector<T> cat(size_t(n * c * hw)), shuffled(cat.size());
  for (int64_t i = 0; i < n; ++i) {
    std::copy_n(ra.begin() + i * half * hw, half * hw, cat.begin() + i * c * hw);
    std::copy_n(rb.begin() + i * half * hw, half * hw, cat.begin() + i * c * hw + half * hw);
  }
  const int64_t four[4] = {n, 2, half, hw}, perm[4] = {0, 2, 1, 3};
  ref::transpose<T>(cat.data(), shuffled.data(), 4, four, perm);
  std::vector<int64_t> from(static_cast<size_t>(c)); // output channel 2i + g is input g * half + i
  for (int64_t j = 0; j < c; ++j)
    from[size_t(j)] = j % 2 * half + j / 2;
  const T *tableA = rescaleA ? ta.data() : nullptr, *tableB = rescaleB ? tb.data() : nullptr;
  INFO("half " << half << " hw " << hw << " tables " << tables);
  for (int64_t tasks : {int64_t(1), kTasks}) {
    std::vector<T> got(shuffled.size(), T(7));
    simd::qs8::channel_gather<T>(a.data(), half, b.data(), half, from.data(), c, got.data(), n,
                                 hw, tableA, tableB, pool(), tasks);
    REQUIRE(got == shuffled);
    for (int64_t part = 0; part < 2; ++part) {
      const int64_t sc[4] = {n, c, hw, 1}, s0[4] = {n, half, hw, 1};
      const int64_t starts[4] = {0, part * half, 0, 0}, steps[4] = {1, 1, 1, 1};
      std::vector<T> want(size_t(n * half * hw)), sliced(want.size(), T(7));
      ref::slice<T>(shuffled.data(), want.data(), 4, sc, s0, starts, steps);
      simd::qs8::channel_gather<T>(a.data(), half, b.data(), half, from.data() + part * half,
                                   half, sliced.data(), n, hw, tableA, tableB, pool(), tasks);
      REQUIRE(sliced == want);
    }
  }
  // Random picks (repeats allowed) from a alone.
  const int64_t m = half + 5;
  std::uniform_int_distribution<int64_t> any(0, half - 1);
  std::vector<int64_t> pick(static_cast<size_t>(m));
  for (int64_t &p : pick)
    p = any(rng());
  std::vector<T> want(size_t(n * m * hw)), got(want.size(), T(7));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j)
      std::copy_n(ra.begin() + (i * half + pick[size_t(j)]) * hw, hw,
                  want.begin() + (i * m + j) * hw);
  simd::qs8::channel_gather<T>(a.data(), half, nullptr, 0, pick.data(), m, got.data(), n, hw,
                               tableA, nullptr, pool(), kTasks);
  REQUIRE(got == want);
}
} // namespace

TEST_CASE("qs8 channel_gather matches the quantized channel shuffle's ops", "[simd][qs8]") {
  for (int64_t half : {3, 29, 58, 116})
    for (int64_t hw : {1, 7, 49, 64, 196, 784})
      for (int tables = 0; tables < 4; ++tables) {
        checkChannelGather<int8_t>(half, hw, tables);
        checkChannelGather<uint8_t>(half, hw, tables);
      }
}

namespace {
/// quantize_linear and dequantize_linear against the reference on n values:
/// random floats over and past Q's range at this scale, exact ties (k + 0.5
/// steps: rounded to even), zeros, huge values and infinities.
template <typename Q> void checkQuantize(int64_t n, int variant) {
  std::uniform_real_distribution<float> scale_d(1e-3f, 0.5f);
  const float scale = variant % 5 == 0 ? 1.0f : scale_d(rng());
  const Q zp = Q(randomZeroPoint<Q>());
  std::uniform_real_distribution<float> d(-300.0f * scale, 300.0f * scale);
  std::uniform_int_distribution<int> k(-200, 200), pick(0, 9);
  std::vector<float> x(n);
  for (float &v : x) {
    const int p = pick(rng());
    v = p < 6 ? d(rng())
        : p < 8 ? (float(k(rng())) + 0.5f) * scale
        : p < 9 ? 0.0f
                : (k(rng()) % 2 ? 3e38f : -1e30f);
  }
  if (n > 2) {
    x[0] = std::numeric_limits<float>::infinity();
    x[1] = -std::numeric_limits<float>::infinity();
  }
  std::vector<Q> want(n), got(n);
  ref::quantize_linear<float, Q>(x.data(), &scale, &zp, want.data(), 1, 1, n, 1);
  simd::qs8::quantize_linear<Q>(x.data(), &scale, &zp, got.data(), n, pool(),
                                variant % 2 ? kTasks : 1);
  INFO("n " << n << " scale " << scale << " zp " << int(zp));
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i)
    bad += want[i] != got[i];
  REQUIRE(bad == 0);
  std::vector<float> dwant(n), dgot(n);
  ref::dequantize_linear<Q, float>(want.data(), &scale, &zp, dwant.data(), 1, 1, n, 1);
  simd::qs8::dequantize_linear<Q>(want.data(), &scale, &zp, dgot.data(), n, pool(),
                                  variant % 2 ? 1 : kTasks);
  REQUIRE(std::memcmp(dwant.data(), dgot.data(), size_t(n) * sizeof(float)) == 0);
}
} // namespace

TEST_CASE("qs8 quantize_linear and dequantize_linear match the reference", "[simd][qs8]") {
  int variant = 0;
  for (int64_t n : {1, 3, 15, 16, 17, 63, 64, 65, 200, 1000, 4099})
    for (int v = 0; v < 3; ++v, ++variant) {
      checkQuantize<int8_t>(n, variant);
      checkQuantize<uint8_t>(n, variant + 1);
    }
}
