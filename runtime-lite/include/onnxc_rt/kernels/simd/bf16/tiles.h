// The tile products of the bf16 kernels (simd/bf16/conv2d.h, gemm.h) on
// x86-64-amx: rounding fp32 to bf16 in AVX-512 integer lanes, and a block's
// sums of up to 32 x 32 fp32 by TDPBF16PS (AMX-BF16) or, for a process
// without AMX's tile state (or a CPU without AMX-BF16), by AVX-512 FMAs on
// the same operands. Each operand is described by where its tiles' rows
// and steps lie (TileOperand), so the convolutions (NCHW: packed weights
// by pair planes; channel-blocked: pixels by packed weights) and the GEMM
// (rows of A by packed B) share them.
#ifndef ONNXC_RT_SIMD_BF16_TILES_H
#define ONNXC_RT_SIMD_BF16_TILES_H

#include "onnxc_rt/kernels/simd/bf16/pack.h"

#if defined(__x86_64__) && defined(__AMX_BF16__) && defined(__AMX_TILE__)
#define ONNXC_RT_SIMD_AMX_BF16 1
#include "onnxc_rt/kernels/simd/isa/amx_tiles.h"

#include <type_traits>

namespace onnxc_rt {
namespace simd {
namespace bf16 {
namespace detail {

/// Each lane of v rounded to bf16 (to nearest, ties to even; NaN quiet),
/// left in the lane's high 16 bits (the low ones are not cleared). (The
/// shifts here in their masked forms: GCC 12 warns falsely,
/// -Wmaybe-uninitialized, inside the unmasked ones.)
inline __m512i bf16_high(__m512 v) {
  const __m512i bits = _mm512_castps_si512(v);
  const __m512i lsb =
      _mm512_and_si512(_mm512_maskz_srli_epi32(0xffff, bits, 16), _mm512_set1_epi32(1));
  const __m512i r = _mm512_add_epi32(bits, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff)));
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  return _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(bits, _mm512_set1_epi32(0x00400000)));
}

/// 16 lanes of two tensors as pairs: even's bf16 low, odd's high.
inline __m512i bf16_pairs(__m512 even, __m512 odd) {
  return _mm512_or_si512(_mm512_maskz_srli_epi32(0xffff, bf16_high(even), 16),
                         _mm512_and_si512(bf16_high(odd), _mm512_set1_epi32(int(0xffff0000u))));
}

/// 16 values as 16 bf16 (32 bytes).
inline __m256i bf16_values(__m512 v) {
  return _mm512_maskz_cvtepi32_epi16(0xffff, _mm512_maskz_srli_epi32(0xffff, bf16_high(v), 16));
}

/// Up to 16 floats of row `in` (width w) from column ix0, `sw` apart,
/// zero where a column falls outside [0, w).
inline __m512 load_row(const float *in, int64_t w, int64_t ix0, int64_t sw) {
  const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i col = _mm512_add_epi32(_mm512_set1_epi32(int(ix0)),
                                       _mm512_mullo_epi32(lane, _mm512_set1_epi32(int(sw))));
  const __mmask16 ok = _mm512_cmpge_epi32_mask(col, _mm512_setzero_si512()) &
                       _mm512_cmplt_epi32_mask(col, _mm512_set1_epi32(int(w)));
  if (sw == 1) // masked lanes do not fault
    return _mm512_maskz_loadu_ps(ok, in + ix0);
  return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), ok, col, in, 4);
}

/// Where one operand of TDPBF16PS lies, tap by tap and step by step (a
/// step: 32 depth values): for tap t and step s its tile's rows start at
/// tap_off[t] + s * step bytes, `row` bytes apart, and the block's second
/// tile (the next 16 rows or columns) `tile` bytes on. The first operand
/// has 16 rows of 32 bf16 a tile (the convolution's packed weights, a
/// pixel-major input's 16 pixels, the GEMM's rows of A); the second 16 rows
/// of 16 pairs (an NCHW input's pair planes: rows a pair plane apart; the
/// packed weights of the pixel-major convolution and the GEMM: 1 KiB a
/// step). Packed operands take the offsets of their taps' steps laid one
/// after another.
struct TileOperand {
  const int64_t *tap_off;
  int64_t step, row, tile;
};

/// TDPBF16PS (bf16 pairs, fp32 sums) into sum tile S of block_step's block.
struct Bf16Products {
  template <int S> static void add() {
    if constexpr (S == 0)
      _tile_dpbf16ps(0, 4, 6);
    else if constexpr (S == 1)
      _tile_dpbf16ps(1, 4, 7);
    else if constexpr (S == 2)
      _tile_dpbf16ps(2, 5, 6);
    else
      _tile_dpbf16ps(3, 5, 7);
  }
};

/// Sums of MB tiles of 16 rows (from a) by NB tiles of 16 columns (from b),
/// over `taps` taps of `steps` steps, stored to c (rows of 32 floats).
template <int MB, int NB>
inline void tile_sums(const uint8_t *a, const TileOperand &ao, const uint8_t *b,
                      const TileOperand &bo, int64_t taps, int64_t steps, float *c) {
  zero_sum_tiles<MB, NB>();
  for (int64_t t = 0; t < taps; ++t) {
    const uint8_t *at = a + ao.tap_off[t], *bt = b + bo.tap_off[t];
    for (int64_t s = 0; s < steps; ++s, at += ao.step, bt += bo.step)
      block_step<MB, NB, Bf16Products>(at, ao.row, ao.tile, bt, bo.row, bo.tile);
  }
  store_sum_tiles<MB, NB>(c, kBlockPixels * 4, kTilePixels, kTileChannels * kBlockPixels);
}

/// tile_sums by AVX-512 FMAs, for a process without the tiles: the same
/// operands; a bf16 product is exact in fp32, so each step's sums are the
/// tiles' but for the order of the additions within a pair.
template <int MB, int NB>
inline void fma_sums(const uint8_t *a, const TileOperand &ao, const uint8_t *b,
                     const TileOperand &bo, int64_t taps, int64_t steps, float *c) {
  const __m512i high = _mm512_set1_epi32(int(0xffff0000u));
  for (int64_t r = 0; r < MB * kTileChannels; ++r) {
    const uint8_t *ar = a + r / kTileChannels * ao.tile + r % kTileChannels * ao.row;
    __m512 acc[NB];
    for (int v = 0; v < NB; ++v)
      acc[v] = _mm512_setzero_ps();
    for (int64_t t = 0; t < taps; ++t)
      for (int64_t s = 0; s < steps; ++s) {
        const uint16_t *as = reinterpret_cast<const uint16_t *>(ar + ao.tap_off[t] + s * ao.step);
        for (int64_t j = 0; j < kStepChannels / 2; ++j) {
          const __m512 even = _mm512_set1_ps(from_bf16(as[2 * j]));
          const __m512 odd = _mm512_set1_ps(from_bf16(as[2 * j + 1]));
          const uint8_t *bj = b + bo.tap_off[t] + s * bo.step + j * bo.row;
          for (int v = 0; v < NB; ++v) {
            const __m512i pairs = _mm512_loadu_si512(bj + v * bo.tile);
            acc[v] = _mm512_fmadd_ps(
                even, _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xffff, pairs, 16)), acc[v]);
            acc[v] = _mm512_fmadd_ps(odd, _mm512_castsi512_ps(_mm512_and_si512(pairs, high)),
                                     acc[v]);
          }
        }
      }
    for (int v = 0; v < NB; ++v)
      _mm512_storeu_ps(c + r * kBlockPixels + v * kTilePixels, acc[v]);
  }
}

/// tile_sums or fma_sums (`tiles`) for a block of mb, nb (1 or 2) tiles.
inline void block_sums(bool tiles, int mb, int nb, const uint8_t *a, const TileOperand &ao,
                       const uint8_t *b, const TileOperand &bo, int64_t taps, int64_t steps,
                       float *c) {
  auto run = [&](auto m, auto n) {
    constexpr int M = decltype(m)::value, N = decltype(n)::value;
    if (tiles)
      tile_sums<M, N>(a, ao, b, bo, taps, steps, c);
    else
      fma_sums<M, N>(a, ao, b, bo, taps, steps, c);
  };
  using One = std::integral_constant<int, 1>;
  using Two = std::integral_constant<int, 2>;
  if (mb == 2)
    return nb == 2 ? run(Two{}, Two{}) : run(Two{}, One{});
  return nb == 2 ? run(One{}, Two{}) : run(One{}, One{});
}

/// Runs the blocks [begin, end) of a task inside with_amx_tiles: sums(u,
/// tiles, stage) computes block u into a 32 x 32 stage, store(u, stage)
/// takes it to the output. The sums of the next block are issued before
/// this one's store, so that the tiles may multiply while the vector units
/// store.
template <typename Sums, typename Store>
void run_blocks(int64_t begin, int64_t end, Sums sums, Store store) {
  if (begin >= end)
    return;
  with_amx_tiles(
      [&](bool tiles) {
        alignas(64) float stage[2][2 * kTileChannels * kBlockPixels];
        sums(begin, tiles, stage[begin % 2]);
        for (int64_t u = begin; u < end; ++u) {
          if (u + 1 < end)
            sums(u + 1, tiles, stage[(u + 1) % 2]);
          store(u, stage[u % 2]);
        }
      },
      cpu_has_amx_bf16());
}

} // namespace detail
} // namespace bf16
} // namespace simd
} // namespace onnxc_rt

#else
#define ONNXC_RT_SIMD_AMX_BF16 0
#endif
#endif // ONNXC_RT_SIMD_BF16_TILES_H
