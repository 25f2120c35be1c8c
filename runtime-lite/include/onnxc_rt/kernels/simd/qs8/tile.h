// The register tile of the SIMD qs8 conv2d and fully_connected
// (simd/qs8/conv2d.h, simd/qs8/fully_connected.h): kConvRows output
// channels times NV vectors of pixels (or rows) over the whole depth, the
// products by the instruction set's byte dot product, 16-byte products or
// byte matrix multiply, requantized from registers.
#ifndef ONNXC_RT_SIMD_QS8_TILE_H
#define ONNXC_RT_SIMD_QS8_TILE_H

#include "onnxc_rt/kernels/simd/qs8/common.h"

namespace onnxc_rt {
namespace simd {
namespace qs8 {

namespace detail {

/// The 4 bytes at p in every 32-bit lane (a depth step's weights of one
/// channel, or activations of one row, for a product without by-element
/// form).
inline VecI broadcast4(const void *p) {
  int32_t four;
  __builtin_memcpy(&four, p, 4);
  return VecI::broadcast(four);
}

/// conv_tile's sums by the byte matrix multiply (V::mmla, NEON's i8mm):
/// each 16 bytes of the panel ([depth/8][nv][8]) are two pixels' 8 depth
/// values, each 16 bytes of a depth step's weights two channels' 8, and
/// one instruction adds their 2 x 2 products (lanes: pixel 2p with channel
/// 2j, 2p with 2j + 1, 2p + 1 with 2j, 2p + 1 with 2j + 1). Even lanes of
/// two pixel pairs are then channel 2j's four pixels, odd lanes channel
/// 2j + 1's: acc[channel][vector of pixels] as the other paths leave it.
/// The sums start from each channel's q.add (kConvSumsAdded).
template <int NV, typename V>
ONNXC_RT_SIMD_INLINE void conv_sums_mmla(const uint8_t *panel, int64_t panel_stride,
                                         const int8_t *w, int64_t dgroups, const Requant *q,
                                         V (&acc)[kConvRows][NV]) {
  static_assert(kConvRows == 4 && V::kLanes == 4, "two channel pairs, pixel pairs in halves");
  constexpr int64_t kStep = kConvRows * kMatMulDepthGroup;
  // Indexed by constants only (for_each_index), or GCC keeps them in memory.
  V mm[2 * NV][2];
  const V start01{__builtin_shufflevector(q[0].add.v, q[1].add.v, 0, 4, 1, 5)};
  const V start23{__builtin_shufflevector(q[2].add.v, q[3].add.v, 0, 4, 1, 5)};
  for_each_index<2 * NV>([&](auto p) {
    mm[p][0] = start01;
    mm[p][1] = start23;
  });
  for (int64_t kk = 0; kk < dgroups; ++kk) {
    const uint8_t *a = panel + kk * panel_stride;
    const V w01 = V::load(w + kk * kStep), w23 = V::load(w + kk * kStep + 16);
    for_each_index<2 * NV>([&](auto p) {
      const V x = V::load(a + 16 * p);
      mm[p][0] = V::mmla(mm[p][0], x, w01);
      mm[p][1] = V::mmla(mm[p][1], x, w23);
    });
  }
  for_each_index<NV>([&](auto v) {
    for_each_index<2>([&](auto j) {
      acc[2 * j][v].v = __builtin_shufflevector(mm[2 * v][j].v, mm[2 * v + 1][j].v, 0, 2, 4, 6);
      acc[2 * j + 1][v].v =
          __builtin_shufflevector(mm[2 * v][j].v, mm[2 * v + 1][j].v, 1, 3, 5, 7);
    });
  });
}

/// conv_tile's sums of a whole tile by SDOT, in assembly (V::dot_tile_4x24,
/// NEON's dotprod), from each channel's added constant (kConvSumsAdded).
/// (V is VecI: a template, so that only NEON compiles it.)
template <typename V>
ONNXC_RT_SIMD_INLINE void conv_sums_sdot(const uint8_t *panel, int64_t panel_stride,
                                         const int8_t *w, int64_t dgroups, const Requant *q,
                                         V (&acc)[kConvRows][6]) {
  static_assert(V::kSdotTiles && kConvRows == 4, "NEON's SDOT tile");
  V::template dot_tile_4x24<sizeof(Requant)>(panel, panel_stride, w, dgroups, &q[0].add, acc);
}

/// Sums by 16-byte products (kDepth16, V::dot16: armv8-a's SMULL,
/// SMLAL2, SADALP): R operands by C, each the 16 depth bytes of a step,
/// the R of step kk at rows(kk) and the C at cols(kk), one after another
/// (each a run of 16 * R or 16 * C bytes, one load instruction:
/// V::load_all), multiplied whole into one accumulator of pair sums per
/// pair (no broadcast), the pairs added (ADDP) after the depth loop into
/// acc[r][c / 4], lane c % 4: a fully connected tile's rows by columns, a
/// convolution's channels by pixels. `narrow`: no weight is -128
/// (dot16_narrow).
template <int R, int C, typename V, typename RowsAt, typename ColsAt>
ONNXC_RT_SIMD_INLINE void depth16_sums(RowsAt rows, ColsAt cols, int64_t dgroups, bool narrow,
                                       V (&acc)[R][C / 4]) {
  static_assert(V::kLanes == 4 && C % 4 == 0, "four pair sums per accumulator");
  V s[R][C];
  for_each_index<R>([&](auto r) {
    for_each_index<C>([&](auto c) { s[r][c] = V::zero(); });
  });
  auto sweep = [&](auto narrow_weights) __attribute__((always_inline)) {
    for (int64_t kk = 0; kk < dgroups; ++kk) {
      V x[R], y[C];
      V::load_all(rows(kk), x);
      V::load_all(cols(kk), y);
      for_each_index<C>([&](auto c) {
        for_each_index<R>([&](auto r) {
          s[r][c] = decltype(narrow_weights)::value ? V::dot16_narrow(s[r][c], x[r], y[c])
                                                    : V::dot16(s[r][c], x[r], y[c]);
        });
      });
    }
  };
  if (narrow)
    sweep(std::true_type());
  else
    sweep(std::false_type());
  for_each_index<C / 4>([&](auto v) {
    for_each_index<R>([&](auto r) {
      acc[r][v] = V::pair_add(V::pair_add(s[r][4 * v], s[r][4 * v + 1]),
                              V::pair_add(s[r][4 * v + 2], s[r][4 * v + 3]));
    });
  });
}

/// One depth step of the broadcast tile (x86's vpdpbusd): NV vectors of
/// pixels' 4 bytes at a, each of the kConvRows rows' 4 weights at w + 4 r
/// broadcast; conv_tile's and conv2d's direct form's.
template <int NV, typename V = VecI>
ONNXC_RT_SIMD_INLINE void broadcast_step(V (&acc)[kConvRows][NV], const uint8_t *a,
                                         const int8_t *w) {
  V x[NV];
  for (int v = 0; v < NV; ++v)
    x[v] = V::load(a + v * kLanes * 4);
  if constexpr (V::kWidenedDots) {
    // Without vpdpbusd (AVX2) the products take 16-bit lanes: the step's
    // 16 weight bytes (4 rows' 4) widened once, each row's even bytes and
    // its odd ones as two 16-bit values, and each row's pair broadcast
    // from memory, rather than each broadcast widened (3 shifts a row, and
    // registers: GCC spilled accumulators); each pixel vector widened once
    // for the 4 rows. qs8_conv_bench on an AMD EPYC (Zen): dense layers
    // 5-8% faster.
    using Short = int16_t __attribute__((vector_size(16)));
    Short w16;
    __builtin_memcpy(&w16, w, sizeof w16);
    alignas(16) int32_t even[kConvRows], odd[kConvRows];
    Short we, wo;
    V::split_s8(w16, we, wo);
    __builtin_memcpy(even, &we, sizeof even);
    __builtin_memcpy(odd, &wo, sizeof odd);
    typename V::Widened xw[NV];
    for (int v = 0; v < NV; ++v)
      xw[v] = V::widen_u8(x[v]);
    for (int r = 0; r < kConvRows; ++r) {
      const typename V::Widened wb{V::broadcast_load(even + r).v, V::broadcast_load(odd + r).v};
      for (int v = 0; v < NV; ++v)
        acc[r][v] = V::dot_widened(acc[r][v], xw[v], wb);
    }
    return;
  }
  for (int r = 0; r < kConvRows; ++r) {
    const V wb = broadcast4(w + r * 4);
    for (int v = 0; v < NV; ++v)
      acc[r][v] = V::dot_part(acc[r][v], x[v], wb);
  }
}

/// The Requants of output channels [oc, oc + live) of a tile of kConvRows
/// (multiplier and shift per channel when count > 1), the rest zeros
/// (never stored).
inline void channel_requants(Requant (&q)[kConvRows], int64_t oc, int64_t live,
                             const int32_t *bias, const int32_t *multiplier,
                             const int32_t *shift, int64_t count) {
  for (int64_t r = 0; r < kConvRows; ++r)
    q[r] = Requant{};
  for (int64_t r = 0; r < live; ++r) {
    const int64_t c = oc + r, k = count > 1 ? c : 0;
    q[r] = requant_broadcast(bias[c], multiplier[k], shift[k]);
  }
}

/// Whether conv_tile's sums start from each row's added constant (q.add):
/// where the products accumulate in place, SDOT / USDOT by element or
/// USMMLA (NEON) and the broadcast tile's vpdpbusd or vpmaddwd (x86: one
/// vpaddd a vector fewer of the requantization's ten or so);
/// else (armv8-a's 16-byte products, summed in pairs after the depth loop)
/// it is added with the requantization.
constexpr bool kConvSumsAdded = VecI::kLaneDot ? kLanes == kConvRows
                                               : !kDepth16 && !VecI::kMatMul;

/// One register tile of a convolution: kConvRows channels x NV vectors of
/// pixels over the whole depth (`dgroups` groups of kDepthGroup),
/// requantized into `rows` output planes at y (plane stride `y_stride`),
/// `valid` pixels from y on; `narrow`: every weight in [-127, 127]
/// (VecI::dot16_narrow may then sum two products in 16 bits).
template <int NV, typename T>
ONNXC_RT_SIMD_INLINE void conv_tile(const uint8_t *panel, int64_t panel_stride, const int8_t *w,
                                    int64_t dgroups, bool narrow, const Requant *q, int64_t rows,
                                    VecI y_zp, VecI act_min, VecI act_max, T *__restrict y,
                                    int64_t y_stride, int64_t valid) {
  // The products' sums (VecI::dot_part's: the weights' share that a
  // shifted product leaves out is in the folded bias, q's added constant).
  // acc is indexed by constants only, in every tile: a variable index
  // (the last tile of fewer rows had one) keeps it in memory.
  // Where they accumulate in place they start from each row's added
  // constant (kConvSumsAdded); the other paths write acc whole.
  VecI acc[kConvRows][NV];
  for_each_index<kConvRows>([&](auto r) {
    for (int v = 0; v < NV; ++v)
      acc[r][v] = kConvSumsAdded ? q[r].add : VecI::zero();
  });
  if constexpr (VecI::kMatMul) {
    conv_sums_mmla<NV>(panel, panel_stride, w, dgroups, q, acc);
  } else if constexpr (kDepth16) {
    // Each vector of pixels apart: 4 channels x 4 pixels, 16 accumulators
    // (a panel pixel's 16 depth bytes are contiguous, a step's channels'
    // 16 weight bytes too).
    for_each_index<NV>([&](auto v) ONNXC_RT_SIMD_LAMBDA {
      VecI part[kConvRows][1];
      depth16_sums<kConvRows, kLanes>(
          [&](int64_t kk) { return w + kk * kConvRows * 16; },
          [&](int64_t kk) { return panel + kk * panel_stride + v * kLanes * 16; }, dgroups,
          narrow, part);
      for_each_index<kConvRows>([&](auto r) { acc[r][v] = part[r][0]; });
    });
  } else if constexpr (VecI::kSdotTiles && NV == 6) {
    conv_sums_sdot(panel, panel_stride, w, dgroups, q, acc);
  } else if constexpr (VecI::kLaneDot) {
    // The kConvRows rows' 4 weights of a depth step are one vector, each
    // lane used by the dot product by element.
    for (int64_t kk = 0; kk < dgroups; ++kk) {
      const uint8_t *a = panel + kk * panel_stride;
      VecI x[NV];
      for (int v = 0; v < NV; ++v)
        x[v] = VecI::load(a + v * kLanes * 4);
      const VecI w4 = VecI::load(w + kk * kConvRows * 4);
      for_each_index<kConvRows>([&](auto r) {
        for (int v = 0; v < NV; ++v)
          acc[r][v] = VecI::template dot_part_lane<r>(acc[r][v], x[v], w4);
      });
    }
  } else {
    // Each row's 4 weights of a depth step broadcast (x86's vpdpbusd).
    for (int64_t kk = 0; kk < dgroups; ++kk)
      broadcast_step(acc, panel + kk * panel_stride, w + kk * kConvRows * 4);
  }
  // The first `rows` rows requantized and stored (y is restrict: its
  // stores leave q as it was).
  for_each_index<kConvRows>([&](auto r) ONNXC_RT_SIMD_LAMBDA {
    if (r < rows)
      requantize_store<NV, T, kConvSumsAdded>(acc[r], q[r], y_zp, act_min, act_max,
                                              y + r * y_stride, valid);
  });
}

} // namespace detail

} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_QS8_TILE_H
