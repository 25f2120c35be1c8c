// AMX's tiles configured and released around a kernel: the one definition
// read by the int8 kernels (simd/qs8/amx.h) and the bf16 ones
// (simd/bf16/): the tile configuration, the state's grant and release, and a
// block of sum tiles zeroed, stepped and stored. Built with -mamx-tile
// (x86-64-amx).
#ifndef ONNXC_RT_SIMD_ISA_AMX_TILES_H
#define ONNXC_RT_SIMD_ISA_AMX_TILES_H

#include "onnxc_rt/kernels/simd/isa/amx_state.h"

#include <cpuid.h>
#include <stdint.h>
#include <immintrin.h>

namespace onnxc_rt {
namespace simd {

/// Palette 1 with tiles 0-7 all 16 rows of 64 bytes: the kernels keep
/// their sums in tiles 0-3 (channel tile i, pixel tile j in tile 2 i + j),
/// the first operands in 4-5 and the second in 6-7.
inline void amx_configure() {
  struct alignas(64) {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
  } config{};
  config.palette = 1;
  for (int t = 0; t < 8; ++t) {
    config.colsb[t] = 64;
    config.rows[t] = 16;
  }
  _tile_loadconfig(&config);
}

/// Whether the CPU has AMX-BF16 (CPUID leaf 7, EDX bit 22); every CPU with
/// AMX so far has it beside AMX-INT8, but the bf16 kernels ask.
inline bool cpu_has_amx_bf16() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (d >> 22 & 1u);
}

/// f(tiles) between asking for the tile state and releasing it: `tiles`
/// whether it was granted (and the tiles configured) and `usable` (the
/// CPU's side: its AMX-BF16 for the bf16 kernels) holds, else f takes its
/// way without tiles. Every kernel that may use the tiles runs inside one.
template <typename F> void with_amx_tiles(F &&f, bool usable = true) {
  const bool tiles = usable && amx_state_granted();
  if (tiles)
    amx_configure();
  f(tiles);
  if (tiles)
    _tile_release();
}

/// A block of MB x NB sum tiles (tile 2 i + j: first-operand tile i by
/// second-operand tile j), the int8 and bf16 kernels' register tile.
/// Zeroes its sum tiles.
template <int MB, int NB> inline void zero_sum_tiles() {
  _tile_zero(0);
  if constexpr (NB == 2)
    _tile_zero(1);
  if constexpr (MB == 2) {
    _tile_zero(2);
    if constexpr (NB == 2)
      _tile_zero(3);
  }
}

/// One depth step of the block: the second operand's NB tiles (rows
/// `b_row` bytes apart, the second `b_tile` bytes on) into tiles 6-7, the
/// first's MB tiles into 4-5, each pair's product added to its sums by
/// Product::add<S>() (S the sum tile: TDPBSUD, TDPBF16PS, whose tile
/// numbers must be literals).
template <int MB, int NB, typename Product>
inline void block_step(const void *a, int64_t a_row, int64_t a_tile, const void *b,
                       int64_t b_row, int64_t b_tile) {
  _tile_loadd(6, b, b_row);
  if constexpr (NB == 2)
    _tile_loadd(7, static_cast<const uint8_t *>(b) + b_tile, b_row);
  _tile_loadd(4, a, a_row);
  Product::template add<0>();
  if constexpr (NB == 2)
    Product::template add<1>();
  if constexpr (MB == 2) {
    _tile_loadd(5, static_cast<const uint8_t *>(a) + a_tile, a_row);
    Product::template add<2>();
    if constexpr (NB == 2)
      Product::template add<3>();
  }
}

/// Stores the block's sum tiles to c (4-byte sums): rows `stride` bytes
/// apart, the second pixel tile `next_col` sums on, the second channel tile
/// `next_row` sums on.
template <int MB, int NB, typename T>
inline void store_sum_tiles(T *c, int64_t stride, int64_t next_col, int64_t next_row) {
  static_assert(sizeof(T) == 4, "tiles of 4-byte sums");
  _tile_stored(0, c, stride);
  if constexpr (NB == 2)
    _tile_stored(1, c + next_col, stride);
  if constexpr (MB == 2) {
    _tile_stored(2, c + next_row, stride);
    if constexpr (NB == 2)
      _tile_stored(3, c + next_row + next_col, stride);
  }
}

} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_ISA_AMX_TILES_H
