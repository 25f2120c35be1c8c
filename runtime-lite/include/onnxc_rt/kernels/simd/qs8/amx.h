// The tile products of the SIMD qs8 conv2d and fully_connected on CPUs with
// AMX (x86-64-amx, built with -mamx-tile -mamx-int8; simd/qs8/conv2d.h,
// fully_connected.h). A convolution's block of 32 output channels by 32
// pixels is four tiles of int32 sums, each TDPBSUD adding 16 channels' 64
// weight bytes (signed) times 16 pixels' 64 activation bytes (unsigned, in
// groups of 4 depth values per pixel, TDPBSUD's second operand as it is):
// a step of 64 depth values is four tile loads and four products of 16,384
// multiply-adds, against 64 VPDPBUSD for the same block. The activations
// come from an im2col panel whose 16 pixels' depth is together (a tile is
// 1 KiB in one piece), or, for stride-1 layers of whole 64-channel steps,
// straight from the input's padded planes interleaved by 4 channels, each
// tap an offset (TileOperand says which). A fully connected block is 32
// rows by 32 columns (TDPBUSD: unsigned rows, signed weights). The sums go
// through a 32 x 32 stage in memory to the requantization of the other
// paths, so the outputs are theirs bit for bit. The same sums without tiles
// (dot_sums, fc_amx's other way) serve a process the OS does not grant
// AMX's state, so an x86-64-amx build runs, slower, on any AVX512-VNNI CPU
// with VBMI.
#ifndef ONNXC_RT_SIMD_QS8_AMX_H
#define ONNXC_RT_SIMD_QS8_AMX_H

#include "onnxc_rt/kernels/simd/qs8/tile.h"

#if ONNXC_RT_SIMD_AMX
#include "onnxc_rt/kernels/simd/isa/amx_tiles.h"

namespace onnxc_rt {
namespace simd {
namespace qs8 {
namespace detail {

/// Bytes of one AMX weight step: 16 channels' 64 depth bytes.
constexpr int64_t kAmxStepBytes = kAmxConvRows * kAmxDepthGroup;
/// Pixels of one tile (16 of 4 bytes: 64 bytes a row, the most a tile holds).
constexpr int64_t kAmxPixels = 16;

/// Whether this process may use AMX's tile state (isa/amx_state.h).
inline bool amx_permitted() { return amx_state_granted(); }

/// Where TDPBSUD's second operand comes from, step by step: `taps` offsets
/// (bytes, tap_off), each followed by `csteps` steps `cstep` bytes apart,
/// a tile's 16 rows (groups of 4 depth values) `row` bytes apart and the
/// next 16 pixels `tile` bytes on. The packed panel (pack_panel's
/// tile_chunks): one tap at 0, steps of 1 KiB, rows of 64 bytes, tiles a
/// whole depth apart. The input's channel quads in place (conv2d's direct
/// form): a tap's offset in the padded plane, steps of 16 quad planes,
/// rows a quad plane apart, tiles 64 bytes apart. The weights' steps are
/// tap-major in the same order (pack_conv_weights' `taps`).
struct TileOperand {
  const int64_t *tap_off;
  int64_t taps, csteps, cstep, row, tile;
};

/// TDPBSUD (signed weight bytes by unsigned input bytes, int32 sums) into
/// sum tile S of block_step's block.
struct Int8Products {
  template <int S> static void add() {
    if constexpr (S == 0)
      _tile_dpbsud(0, 4, 6);
    else if constexpr (S == 1)
      _tile_dpbsud(1, 4, 7);
    else if constexpr (S == 2)
      _tile_dpbsud(2, 5, 6);
    else
      _tile_dpbsud(3, 5, 7);
  }
};

/// Sums of MB tiles of 16 channels (weights w, [steps][16][64], tiles
/// w_tile bytes apart) by NB tiles of 16 pixels (from b, as `op` says),
/// stored to c (int32, rows of 32, channel-major).
template <int MB, int NB>
inline void tile_sums(const int8_t *w, int64_t w_tile, const uint8_t *b, const TileOperand &op,
                      int32_t *c) {
  zero_sum_tiles<MB, NB>();
  for (int64_t t = 0; t < op.taps; ++t) {
    const uint8_t *bt = b + op.tap_off[t];
    for (int64_t cs = 0; cs < op.csteps; ++cs, w += kAmxStepBytes, bt += op.cstep)
      block_step<MB, NB, Int8Products>(w, kAmxDepthGroup, w_tile, bt, op.row, op.tile);
  }
  store_sum_tiles<MB, NB>(c, 32 * 4, kAmxPixels, kAmxConvRows * 32);
}

/// tile_sums by VPDPBUSD, for a process without AMX's state: the same
/// operands, the same sums.
template <int MB, int NB>
inline void dot_sums(const int8_t *w, int64_t w_tile, const uint8_t *b, const TileOperand &op,
                     int32_t *c) {
  static_assert(kLanes == kAmxPixels, "a vector of 16 pixels");
  for (int64_t r = 0; r < MB * kAmxConvRows; ++r) {
    const int8_t *wr = w + (r / kAmxConvRows) * w_tile + (r % kAmxConvRows) * kAmxDepthGroup;
    VecI acc[NB];
    for (int v = 0; v < NB; ++v)
      acc[v] = VecI::zero();
    for (int64_t t = 0; t < op.taps; ++t)
      for (int64_t cs = 0; cs < op.csteps; ++cs, wr += kAmxStepBytes)
        for (int64_t j = 0; j < kAmxConvRows; ++j) {
          const VecI wb = broadcast4(wr + j * 4);
          const uint8_t *bj = b + op.tap_off[t] + cs * op.cstep + j * op.row;
          for (int v = 0; v < NB; ++v)
            acc[v] = VecI::dot_part(acc[v], VecI::load(bj + v * op.tile), wb);
        }
    for (int v = 0; v < NB; ++v)
      acc[v].store(c + r * 32 + v * kAmxPixels);
  }
}

/// tile_sums or dot_sums (`tiles`) for the block's MB, NB (1 or 2).
inline void block_sums(bool tiles, int mb, int nb, const int8_t *w, int64_t w_tile,
                       const uint8_t *b, const TileOperand &op, int32_t *c) {
  auto run = [&](auto m, auto n) {
    if (tiles)
      tile_sums<decltype(m)::value, decltype(n)::value>(w, w_tile, b, op, c);
    else
      dot_sums<decltype(m)::value, decltype(n)::value>(w, w_tile, b, op, c);
  };
  using One = std::integral_constant<int, 1>;
  using Two = std::integral_constant<int, 2>;
  if (mb == 2)
    return nb == 2 ? run(Two{}, Two{}) : run(Two{}, One{});
  return nb == 2 ? run(One{}, Two{}) : run(One{}, One{});
}

/// np pixels of one group (the second operand from b, as `op` says) times
/// its mg channels' weights wg (`steps` of 64 depth values a tile of 16
/// channels), for conv2d (simd/qs8/conv2d.h): q_at(oc) gives the group's
/// channel oc's Requant; each block of up to 32 channels from mt is
/// requantized to dest(mt) (its channel rows y_stride apart, from the first
/// pixel), then store(mt, live) is called (virtual rows: the stage to y).
template <typename TOut, typename QAt, typename Dest, typename Store>
void conv_tiles_amx(bool tiles, int64_t np, const uint8_t *b, const TileOperand &op,
                    const int8_t *wg, int64_t steps, int64_t mg, QAt q_at, VecI y_zp,
                    VecI act_min, VecI act_max, Dest dest, int64_t y_stride, Store store) {
  const int64_t w_tile = steps * kAmxStepBytes;
  // Two stages: the sums of the next block are issued before this one's
  // requantization, so that the tiles may multiply while the vector units
  // requantize.
  alignas(64) int32_t c[2][32 * 32];
  for (int64_t mt = 0; mt < mg; mt += 2 * kAmxConvRows) {
    const int64_t live = mg - mt < 2 * kAmxConvRows ? mg - mt : 2 * kAmxConvRows;
    Requant q[2 * kAmxConvRows];
    for (int64_t r = 0; r < live; ++r)
      q[r] = q_at(mt + r);
    const int8_t *wt = wg + (mt / kAmxConvRows) * w_tile;
    const int mb = live > kAmxConvRows ? 2 : 1;
    auto sums = [&](int64_t px) {
      block_sums(tiles, mb, np - px > kAmxPixels ? 2 : 1, wt, w_tile,
                 b + px / kAmxPixels * op.tile, op, c[px / 32 % 2]);
    };
    sums(0);
    for (int64_t px = 0; px < np; px += 2 * kAmxPixels) {
      if (px + 2 * kAmxPixels < np)
        sums(px + 2 * kAmxPixels);
      const int32_t *cb = c[px / 32 % 2];
      const int64_t valid = np - px;
      for (int64_t r = 0; r < live; ++r) {
        TOut *y = dest(mt) + r * y_stride + px;
        if (valid > kAmxPixels) {
          const VecI acc[2] = {VecI::load(cb + r * 32), VecI::load(cb + r * 32 + kAmxPixels)};
          requantize_store<2, TOut>(acc, q[r], y_zp, act_min, act_max, y, valid);
        } else {
          const VecI acc[1] = {VecI::load(cb + r * 32)};
          requantize_store<1, TOut>(acc, q[r], y_zp, act_min, act_max, y, valid);
        }
      }
    }
    store(mt, live);
  }
}

/// fully_connected on AMX tiles (fc_amx_applies): the packed rows (u8,
/// `stride` bytes a row, a multiple of 64, rows padded to 16) times the
/// weights (pack_fc_weights' with the depth rounded up to 64: each 16
/// columns' step of 64 depth values a tile, 1 KiB), 32 rows by 32 columns
/// a block (TDPBUSD: unsigned rows, signed weights), the sums requantized
/// per column into y (rows x n): columns [c_begin, c_end) (a task's share,
/// c_begin a multiple of 32). `tiles`: false, the same sums by VPDPBUSD.
template <typename T>
void fc_amx(bool tiles, const uint8_t *a, int64_t stride, const int8_t *w, const int32_t *bias,
            T *y, int64_t rows, int64_t n, int64_t c_begin, int64_t c_end,
            const int32_t *multiplier, const int32_t *shift, int64_t count, bool scales_up,
            VecI y_zp, VecI act_min, VecI act_max) {
  const int64_t steps = stride / kAmxDepthGroup, w_block = steps * kAmxStepBytes;
  alignas(64) int32_t c[32 * 32];
  for (int64_t c0 = c_begin; c0 < c_end; c0 += 32) {
    const int nb = c_end - c0 > 16 ? 2 : 1;
    Requant q[2];
    for (int v = 0; v < nb; ++v) {
      const int64_t col = c0 + 16 * v, live = c_end - col < 16 ? c_end - col : 16;
      q[v] = requant_columns(bias, multiplier, shift, count, col, live, scales_up);
    }
    const int8_t *wb = w + (c0 / 16) * w_block;
    for (int64_t r0 = 0; r0 < rows; r0 += 32) {
      const int mb = rows - r0 > 16 ? 2 : 1;
      const uint8_t *ar = a + r0 * stride;
      if (tiles) {
        _tile_zero(0);
        _tile_zero(1);
        _tile_zero(2);
        _tile_zero(3);
        for (int64_t s = 0; s < steps; ++s) {
          _tile_loadd(4, ar + s * kAmxDepthGroup, stride);
          _tile_loadd(6, wb + s * kAmxStepBytes, 64);
          _tile_dpbusd(0, 4, 6);
          if (nb == 2) {
            _tile_loadd(7, wb + w_block + s * kAmxStepBytes, 64);
            _tile_dpbusd(1, 4, 7);
          }
          if (mb == 2) {
            _tile_loadd(5, ar + 16 * stride + s * kAmxDepthGroup, stride);
            _tile_dpbusd(2, 5, 6);
            if (nb == 2)
              _tile_dpbusd(3, 5, 7);
          }
        }
        _tile_stored(0, c, 128);
        _tile_stored(1, c + 16, 128);
        _tile_stored(2, c + 16 * 32, 128);
        _tile_stored(3, c + 16 * 32 + 16, 128);
      } else {
        for (int64_t r = 0; r < 16 * mb; ++r)
          for (int v = 0; v < nb; ++v) {
            VecI acc = VecI::zero();
            for (int64_t s = 0; s < steps; ++s)
              for (int64_t j = 0; j < 16; ++j)
                acc = VecI::dot_part(
                    acc, broadcast4(ar + r * stride + s * kAmxDepthGroup + 4 * j),
                    VecI::load(wb + v * w_block + s * kAmxStepBytes + 64 * j));
            acc.store(c + r * 32 + 16 * v);
          }
      }
      const int64_t live_rows = rows - r0 < 32 ? rows - r0 : 32;
      for (int64_t r = 0; r < live_rows; ++r)
        for (int v = 0; v < nb; ++v) {
          const int64_t col = c0 + 16 * v, live = c_end - col < 16 ? c_end - col : 16;
          const VecI acc[1] = {VecI::load(c + r * 32 + 16 * v)};
          requantize_store<1, T>(acc, q[v], y_zp, act_min, act_max, y + (r0 + r) * n + col, live);
        }
    }
  }
}

} // namespace detail
} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif
#endif // ONNXC_RT_SIMD_QS8_AMX_H
