// The layouts of the bf16 kernels (simd/bf16/: x86-64-amx with --precision
// bf16) and the packing the compiler does once, at compile time. Plain C++
// with no instruction set: the compiler includes it.
//
// AMX-BF16's TDPBF16PS adds to each fp32 sum of a 16 x 16 tile the products
// of 32 bf16 values (16 pairs): the first operand's row (32 depth values)
// times the second's 16 rows of pairs (for each of 16 columns, two depth
// values side by side). An NCHW convolution (conv2d) takes the weights
// first (a step: 16 channels x 32 input channels of one tap) and its input
// second, from "pair planes": the zero-padded input, split by stride phase
// as the float direct convolution does, with channels 2k and 2k+1 of each
// pixel side by side in 4 bytes. A channel-blocked one (conv2d_blocked)
// takes its input first, from "pixel planes" (the same planes with each
// pixel's 32 channels of a step together, 64 bytes), and the weights second
// (pack_pairs), so a tile of sums is 16 pixels by 16 channels, one blocked
// vector a pixel. Either way every tap is an offset into the planes: no
// im2col. The GEMM takes A's rows first and B second (pack_pairs).
#ifndef ONNXC_RT_SIMD_BF16_PACK_H
#define ONNXC_RT_SIMD_BF16_PACK_H

#include "onnxc_rt/kernels/simd/f32/blocking.h"
#include "onnxc_rt/types.h"

#include <stdint.h>

namespace onnxc_rt {
namespace simd {
namespace bf16 {

/// Input channels of one weight step (a tile row's 32 bf16 values).
constexpr int64_t kStepChannels = 32;
/// Output channels of one weight tile (its 16 rows).
constexpr int64_t kTileChannels = 16;
/// Pixels of one tile of sums (16 fp32 a row).
constexpr int64_t kTilePixels = 16;
/// Virtual output pixels of one block (two tiles of pixels).
constexpr int64_t kBlockPixels = 32;

/// f rounded to bf16 (to nearest, ties to even; a NaN stays a quiet NaN):
/// onnxc_rt::bfloat16's rounding, as the kernels round the activations.
inline uint16_t to_bf16(float f) { return onnxc_rt::detail::bfloat_from_float(f); }

/// The float a bf16 value stands for.
inline float from_bf16(uint16_t h) { return onnxc_rt::detail::float_from_bits(uint32_t(h) << 16); }

/// The most kernel taps conv2d takes (its tap offsets live on the stack).
constexpr int64_t kMaxTaps = 64;

/// Whether a product of depth `depth` (per tap) pays on tiles: padded to
/// whole steps of 32 (zeros) it does at most a third more work, and it is
/// deep enough (a model's first convolution, 3 channels, stays fp32).
constexpr bool depth_pays(int64_t depth) {
  return depth >= 24 && (depth + kStepChannels - 1) / kStepChannels * kStepChannels * 3 <= depth * 4;
}

/// Whether a dense or grouped convolution of `cg` input channels per group
/// and `taps` kernel taps runs in bf16.
constexpr bool conv_applies(int64_t cg, int64_t taps) {
  return taps <= kMaxTaps && depth_pays(cg);
}

/// Whether an m x k by k x n product (Gemm, MatMul by constant weights)
/// runs in bf16: a tile's 16 rows filled (fewer, as batch 1's one row of a
/// classifier, would waste most of each product) and its depth paying.
constexpr bool gemm_applies(int64_t m, int64_t k) { return m >= kTileChannels && depth_pays(k); }

/// The same for a product of two activations (MatMul, attention's), whose
/// B is rounded per call: also a tile's 16 columns filled.
constexpr bool matmul_applies(int64_t m, int64_t k, int64_t n) {
  return gemm_applies(m, k) && n >= kTilePixels;
}

/// The geometry of one group's pair planes (conv2d's operand): `phases`
/// stride phases (sh * sw), each a plane of `rows` x `wq` virtual pixels
/// (the output's columns plus the taps' reach) and slack to `plane`
/// pixels, so that whole blocks of 32 virtual pixels at every tap offset
/// stay inside; `cols` virtual output pixels (oh * wq, a pixel q is output
/// (q / wq, q % wq) where q % wq < ow).
struct PairPlanes {
  int64_t phases, rows, wq, plane, cols, pairs, steps;
  /// Bytes of one pair's planes (all phases): a tile row's stride.
  int64_t pair_bytes() const { return phases * plane * 4; }
  int64_t bytes() const { return pairs * pair_bytes(); }
};

inline PairPlanes pair_planes(int64_t cg, int64_t oh, int64_t ow, int64_t kh, int64_t kw,
                              int64_t sh, int64_t sw, int64_t dh, int64_t dw) {
  PairPlanes p;
  p.phases = sh * sw;
  p.wq = ow + (kw - 1) * dw / sw;
  p.rows = oh + (kh - 1) * dh / sh;
  p.cols = oh * p.wq;
  const int64_t reach = (kh - 1) * dh / sh * p.wq + (kw - 1) * dw / sw;
  const int64_t need = round_up(p.cols, kBlockPixels) + reach;
  const int64_t filled = p.rows * p.wq;
  p.plane = round_up(need > filled ? need : filled, kTilePixels);
  p.steps = round_up(cg, kStepChannels) / kStepChannels;
  p.pairs = p.steps * kStepChannels / 2;
  return p;
}

/// uint16 values of the packed weights of m output channels (all groups):
/// per group, [channel tiles][taps][steps][16 channels][32 bf16].
inline int64_t conv_packed_halves(int64_t m, int64_t cg, int64_t taps, int64_t group) {
  const int64_t mg = m / group;
  return group * round_up(mg, kTileChannels) * taps * round_up(cg, kStepChannels);
}

/// Packs W (m, cg, kh, kw; fp32) into conv_packed_halves(...) bf16 values,
/// channels past mg and inputs past cg zero.
inline void pack_conv_weights(const float *w, int64_t m, int64_t cg, int64_t taps,
                              int64_t group, uint16_t *out) {
  const int64_t mg = m / group, tiles = round_up(mg, kTileChannels) / kTileChannels;
  const int64_t steps = round_up(cg, kStepChannels) / kStepChannels;
  for (int64_t g = 0; g < group; ++g)
    for (int64_t tile = 0; tile < tiles; ++tile)
      for (int64_t t = 0; t < taps; ++t)
        for (int64_t s = 0; s < steps; ++s)
          for (int64_t r = 0; r < kTileChannels; ++r)
            for (int64_t e = 0; e < kStepChannels; ++e) {
              const int64_t oc = tile * kTileChannels + r, ic = s * kStepChannels + e;
              *out++ = oc < mg && ic < cg ? to_bf16(w[((g * mg + oc) * cg + ic) * taps + t]) : 0;
            }
}

/// uint16 values of a GEMM's packed B (k x n): [16-column tiles][steps of
/// 32 depth values][16 pairs][16 columns][2].
inline int64_t gemm_packed_b_halves(int64_t k, int64_t n) {
  return round_up(n, kTilePixels) * round_up(k, kStepChannels);
}

/// Packs a k x n matrix (get(p, j): its element) as TDPBF16PS's second
/// operand: [16-column tiles][steps of 32 rows][16 pairs of rows][16
/// columns][2] bf16, zeros past k and n.
template <typename Get> void pack_pairs(Get get, int64_t k, int64_t n, uint16_t *out) {
  const int64_t tiles = round_up(n, kTilePixels) / kTilePixels;
  const int64_t steps = round_up(k, kStepChannels) / kStepChannels;
  for (int64_t j = 0; j < tiles; ++j)
    for (int64_t s = 0; s < steps; ++s)
      for (int64_t r = 0; r < kStepChannels / 2; ++r)
        for (int64_t c = 0; c < kTilePixels; ++c)
          for (int64_t e = 0; e < 2; ++e) {
            const int64_t p = s * kStepChannels + 2 * r + e, col = j * kTilePixels + c;
            *out++ = p < k && col < n ? to_bf16(get(p, col)) : 0;
          }
}

/// Packs B (k x n, element (p, j) at b[p * rs + j * cs]) into
/// gemm_packed_b_halves(k, n) bf16 values (pack_pairs).
inline void pack_gemm_b(const float *b, int64_t rs, int64_t cs, int64_t k, int64_t n,
                        uint16_t *out) {
  pack_pairs([&](int64_t p, int64_t j) { return b[p * rs + j * cs]; }, k, n, out);
}

/// uint16 values of a channel-blocked convolution's packed weights (m
/// output channels, c inputs, group 1): pack_pairs of the (taps x c) x m
/// matrix, each tap's c rows padded to whole steps of 32.
inline int64_t blocked_conv_packed_halves(int64_t m, int64_t c, int64_t taps) {
  return gemm_packed_b_halves(taps * round_up(c, kStepChannels), m);
}

/// Packs W (m, c, kh, kw; fp32) for conv2d_blocked: [16-channel tiles]
/// [taps][steps of 32 inputs][16 pairs][16 channels][2].
inline void pack_blocked_conv_weights(const float *w, int64_t m, int64_t c, int64_t taps,
                                      uint16_t *out) {
  const int64_t cp = round_up(c, kStepChannels);
  pack_pairs(
      [&](int64_t p, int64_t oc) {
        const int64_t t = p / cp, ic = p % cp;
        return ic < c ? w[(oc * c + ic) * taps + t] : 0.0f;
      },
      taps * cp, m, out);
}

/// Bytes of the GEMM's scratch: A's rows in bf16.
inline int64_t gemm_scratch_bytes(int64_t m, int64_t k) {
  return round_up(m, kTileChannels) * round_up(k, kStepChannels) * 2;
}

/// Bytes of matmul's scratch: A's rows and B's pairs in bf16.
inline int64_t matmul_scratch_bytes(int64_t m, int64_t k, int64_t n) {
  return gemm_scratch_bytes(m, k) + gemm_packed_b_halves(k, n) * 2;
}

/// Bytes of conv2d's scratch: one group's pair planes (conv2d_blocked's
/// pixel planes take as many: 32 bf16 a pixel per step).
inline int64_t conv2d_scratch_bytes(const int64_t *in_shape, const int64_t *out_shape,
                                    const int64_t *kernel, const int64_t *strides,
                                    const int64_t *dilations, int64_t group) {
  return pair_planes(in_shape[1] / group, out_shape[2], out_shape[3], kernel[0], kernel[1],
                     strides[0], strides[1], dilations[0], dilations[1])
      .bytes();
}

} // namespace bf16
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_BF16_PACK_H
