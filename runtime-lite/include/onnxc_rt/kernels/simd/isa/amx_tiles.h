// AMX's tiles configured and released around a kernel: the one definition
// read by the int8 kernels (simd/qs8/amx.h) and the bf16 ones
// (simd/bf16/conv2d.h). Built with -mamx-tile (x86-64-amx).
#ifndef ONNXC_RT_SIMD_ISA_AMX_TILES_H
#define ONNXC_RT_SIMD_ISA_AMX_TILES_H

#include "onnxc_rt/kernels/simd/isa/amx_state.h"

#include <cpuid.h>
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

} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_ISA_AMX_TILES_H
