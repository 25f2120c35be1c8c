// SIMD qs8 fully_connected: rows of the input as unsigned bytes, times
// weights packed in blocks of 16 columns; 4 rows x 4 vectors per tile (8 x 2
// with SDOT, 6 x 4 with USMMLA; on armv8-a 4 x 1, 16 depth bytes of a row
// times 16 of a column per product), the register tile of simd/qs8/tile.h.
#ifndef ONNXC_RT_SIMD_QS8_FULLY_CONNECTED_H
#define ONNXC_RT_SIMD_QS8_FULLY_CONNECTED_H

#include "onnxc_rt/kernels/simd/qs8/amx.h"
#include "onnxc_rt/kernels/simd/qs8/tile.h"

namespace onnxc_rt {
namespace simd {
namespace qs8 {

namespace detail {

/// Where column c's depth groups start in pack_fc_weights' layout
/// (kFcCols columns a block, `dgroups` groups of kDepthGroup bytes per
/// column).
inline const int8_t *fc_column(const int8_t *w, int64_t dgroups, int64_t c) {
  return w + (c / kFcCols) * dgroups * kFcCols * kDepthGroup + (c % kFcCols) * kDepthGroup;
}

/// Where row r's depth value k sits in fully_connected's packed rows
/// (`stride` bytes a row): row-major for the dot products; for the matrix
/// multiply, rows in pairs, each 16 bytes two rows' 8 depth values (one
/// USMMLA operand); for the 16-byte products, rows in fours, each 64
/// bytes the four rows' 16 depth values of a step (a tile's rows of a
/// step in one load, its steps 64 bytes apart).
constexpr int64_t kFcRowGroup = 4;
inline int64_t fc_packed_at(int64_t r, int64_t k, int64_t stride) {
  if constexpr (kDepthGroup == kMatMulDepthGroup)
    return (r / 2) * 2 * stride + (k / 8) * 16 + (r % 2) * 8 + k % 8;
  if constexpr (kDepth16)
    return (r / kFcRowGroup) * kFcRowGroup * stride + (k / 16) * kFcRowGroup * 16 +
           (r % kFcRowGroup) * 16 + k % 16;
  return r * stride + k;
}

/// fc_tile's sums by the byte matrix multiply (V::mmla, NEON's i8mm): the
/// tile's R / 2 row pairs (fc_packed_at) times NV vectors of columns, each
/// weight vector two columns' 8 depth values; lanes (row 2p, column 2c),
/// (2p, 2c + 1), (2p + 1, 2c), (2p + 1, 2c + 1), whose halves are then
/// acc[row][vector of columns] as the other paths leave it. The tile lies
/// in one column block (fully_connected's tiles are kFcCols wide here).
template <int R, int NV, typename V>
ONNXC_RT_SIMD_INLINE void fc_sums_mmla(const uint8_t *a, int64_t a_stride, const int8_t *w,
                                       int64_t dgroups, int64_t col, V (&acc)[R][NV]) {
  static_assert(V::kLanes == 4 && R % 2 == 0, "column pairs in halves of 4 lanes, row pairs");
  constexpr int64_t kStep = kFcCols * kMatMulDepthGroup;
  const int8_t *wb = fc_column(w, dgroups, col);
  V mm[R / 2][2 * NV];
  for_each_index<R / 2>([&](auto p) {
    for_each_index<2 * NV>([&](auto c) { mm[p][c] = V::zero(); });
  });
  for (int64_t kk = 0; kk < dgroups; ++kk) {
    V x[R / 2];
    for_each_index<R / 2>([&](auto p) { x[p] = V::load(a + 2 * p * a_stride + kk * 16); });
    for_each_index<2 * NV>([&](auto c) {
      const V wc = V::load(wb + kk * kStep + 16 * c);
      for_each_index<R / 2>([&](auto p) { mm[p][c] = V::mmla(mm[p][c], x[p], wc); });
    });
  }
  for_each_index<NV>([&](auto v) {
    for_each_index<R / 2>([&](auto p) {
      acc[2 * p][v].v = __builtin_shufflevector(mm[p][2 * v].v, mm[p][2 * v + 1].v, 0, 1, 4, 5);
      acc[2 * p + 1][v].v =
          __builtin_shufflevector(mm[p][2 * v].v, mm[p][2 * v + 1].v, 2, 3, 6, 7);
    });
  });
}

/// fc_tile's sums of a whole 8 x 8 tile over `quads` fours of depth groups
/// by SDOT, in assembly (V::dot_tile_8x8, NEON's dotprod): the two vectors
/// of columns are the 32 bytes at w of each group (a tile's 8 columns start
/// at a multiple of 8, within one block of kFcCols), groups kFcCols * 4
/// bytes apart. (V is VecI: a template, so that only NEON compiles it.)
template <typename V>
ONNXC_RT_SIMD_INLINE void fc_sums_sdot(const uint8_t *a, int64_t a_stride, const int8_t *w,
                                       int64_t quads, V (&acc)[8][2]) {
  static_assert(V::kSdotTiles && kFcCols % 8 == 0, "NEON's SDOT tile, within a column block");
  V::dot_tile_8x8(a, a_stride, w, kFcCols * 4, quads, acc);
}

/// The sums of one fully connected tile: R rows x NV vectors of columns
/// from col; `narrow` as conv_tile's.
template <int R, int NV>
ONNXC_RT_SIMD_INLINE void fc_sums(const uint8_t *a, int64_t a_stride, const int8_t *w,
                                  int64_t dgroups, bool narrow, int64_t col, VecI (&acc)[R][NV]) {
  for (int v = 0; v < NV; ++v)
    for (int r = 0; r < R; ++r)
      acc[r][v] = VecI::zero();
  const int8_t *wv[NV];
  for (int v = 0; v < NV; ++v)
    wv[v] = fc_column(w, dgroups, col + v * kLanes);
  int64_t kk = 0;
  // The dot products' depth steps (none left after the matrix multiply
  // or the 16-byte products).
  constexpr bool kWholeDepth = VecI::kMatMul || kDepth16;
  const int64_t depth4 = kWholeDepth ? 0 : dgroups;
  if constexpr (VecI::kMatMul) {
    fc_sums_mmla<R, NV>(a, a_stride, w, dgroups, col, acc);
  } else if constexpr (kDepth16) {
    // Rows by the tile's columns (fc_column: kDepthGroup bytes of each,
    // kFcCols columns a step).
    const int8_t *wb = fc_column(w, dgroups, col);
    depth16_sums<R, NV * kLanes>([&](int64_t kk) { return a + kk * kFcRowGroup * 16; },
                                 [&](int64_t kk) { return wb + kk * kFcCols * 16; }, dgroups,
                                 narrow, acc);
  } else if constexpr (VecI::kLaneDot && kLanes == 4) {
    // Four depth steps of each row in one load, each step's 4 bytes used
    // by the dot product by element (not broadcast from memory per step);
    // a whole tile with SDOT in assembly.
    if constexpr (VecI::kSdotTiles && R == 8 && NV == 2) {
      fc_sums_sdot(a, a_stride, wv[0], depth4 / 4, acc);
      kk = depth4 / 4 * 4;
    }
    for (; kk + 4 <= depth4; kk += 4) {
      VecI ar[R];
      for (int r = 0; r < R; ++r)
        ar[r] = VecI::load(a + r * a_stride + kk * 4);
      for_each_index<4>([&](auto l) {
        VecI wk[NV];
        for (int v = 0; v < NV; ++v)
          wk[v] = VecI::load(wv[v] + (kk + l) * kFcCols * 4);
        for (int r = 0; r < R; ++r)
          for (int v = 0; v < NV; ++v)
            acc[r][v] = VecI::template dot_part_u_lane<l>(acc[r][v], ar[r], wk[v]);
      });
    }
  }
  // The rest (all of it without dot products by element) from one 4-byte
  // broadcast per row and step.
  for (; kk < depth4; ++kk) {
    VecI wk[NV];
    for (int v = 0; v < NV; ++v)
      wk[v] = VecI::load(wv[v] + kk * kFcCols * 4);
    for (int r = 0; r < R; ++r) {
      const VecI ab = broadcast4(a + r * a_stride + kk * 4);
      for (int v = 0; v < NV; ++v)
        acc[r][v] = VecI::dot_part(acc[r][v], ab, wk[v]);
    }
  }
}

/// One fully connected tile: R rows x NV vectors of columns from col, the
/// first `rows` of them stored; `add` holds each column's constant (the
/// folded bias); `narrow` as conv_tile's.
template <int R, int NV, typename T>
ONNXC_RT_SIMD_INLINE void fc_tile(const uint8_t *a, int64_t a_stride, const int8_t *w,
                                  int64_t dgroups, bool narrow, int64_t col, const int32_t *add,
                                  const int32_t *multiplier, const int32_t *shift, int64_t count,
                                  bool scales_up, int64_t n, int64_t rows, VecI y_zp,
                                  VecI act_min, VecI act_max, T *y) {
  VecI acc[R][NV];
  fc_sums<R, NV>(a, a_stride, w, dgroups, narrow, col, acc);
  // The epilogue: each vector of columns requantized in place with its
  // constants (loaded once a tile, one vector's at a time: the sums keep
  // their registers), then each row stored as one narrowed run.
  for_each_index<NV>([&](auto v) __attribute__((always_inline)) {
    const int64_t left = n - (col + v * kLanes);
    const Requant q = requant_columns(add, multiplier, shift, count, col + v * kLanes,
                                      left <= 0 ? 0 : left < kLanes ? left : kLanes, scales_up);
    for_each_index<R>([&](auto r) __attribute__((always_inline)) {
      acc[r][v] = requantize_scaled(VecI::add(acc[r][v], q.add), q);
    });
  });
  const int64_t valid = n - col;
  for_each_index<R>([&](auto r) __attribute__((always_inline)) {
    if (r >= rows)
      return;
    T *yr = y + r * n + col;
    if (valid >= NV * kLanes)
      return VecI::store_narrow_clamped(yr, acc[r], y_zp, act_min, act_max);
    for_each_index<NV>([&](auto v) __attribute__((always_inline)) {
      const int64_t left = valid - int64_t(v) * kLanes;
      if (left > 0)
        to_output(acc[r][v], y_zp, act_min, act_max)
            .store_narrow(yr + v * kLanes, left < kLanes ? left : kLanes);
    });
  });
}

/// One tile of fully_connected_sums: the int32 sums plus each column's
/// `add`, the first `rows` rows stored (y: n int32 a row).
template <int R, int NV>
ONNXC_RT_SIMD_INLINE void fc_tile_sums(const uint8_t *a, int64_t a_stride, const int8_t *w,
                                       int64_t dgroups, bool narrow, int64_t col,
                                       const int32_t *add, int64_t n, int64_t rows, int32_t *y) {
  VecI acc[R][NV];
  fc_sums<R, NV>(a, a_stride, w, dgroups, narrow, col, acc);
  for_each_index<NV>([&](auto v) __attribute__((always_inline)) {
    const int64_t left = n - (col + v * kLanes);
    const VecI q = load_first(add + col + v * kLanes,
                              left <= 0 ? 0 : left < kLanes ? left : kLanes);
    for_each_index<R>([&](auto r) __attribute__((always_inline)) {
      if (r >= rows || left <= 0)
        return;
      const VecI sum = VecI::add(acc[r][v], q);
      int32_t *yr = y + r * n + col + v * kLanes;
      if (left >= kLanes)
        return sum.store(yr);
      int32_t lanes[kLanes];
      sum.store(lanes);
      for (int64_t i = 0; i < left; ++i)
        yr[i] = lanes[i];
    });
  });
}

// Register tiles of kFcRows rows x kFcVectors vectors of columns:
// - NEON's SDOT by element: 8 x 2, 16 accumulators and the 8 rows' four
//   depth steps, 64 SDOT per 16 loads (4 x 4 spilled; 4 x 3 took 71
//   instructions per 48 SDOT, 3 weight pointers stepped each time);
// - NEON's USMMLA: 6 x 4, 24 accumulators of row and column pairs, 24
//   USMMLA per 11 loads, 36 instructions (4 x 4: 16 per 10 loads, 26
//   instructions, and its epilogue's per-column constants for 4 rows,
//   not 6; 8 x 3, 24 per 10 loads, spilled two and stepped three weight
//   pointers: 41 instructions per 24);
// - armv8-a's 16-byte products: 4 x 1, an accumulator per row and
//   column, 48 instructions per 8 loads and 256 products (the pair
//   sums of broadcast 4-byte groups, 4 x 2, took 147 per 512, with
//   spills);
// - x86: 4 x 4.
constexpr bool kFcNeonLaneDot = VecI::kLaneDot && !VecI::kMatMul && kLanes == 4;
constexpr int kFcRows = kFcNeonLaneDot ? 8 : VecI::kMatMul ? 6 : 4;
constexpr int kFcVectors = kDepth16 ? 1 : kFcNeonLaneDot ? 2 : 4;
static_assert(kFcRows <= kFcMaxRows, "fc_scratch_bytes' rows hold whole tiles");
static_assert(!kDepth16 || kFcRows % kFcRowGroup == 0, "tiles start at fc_packed_at's groups");
static_assert(!VecI::kMatMul || kFcVectors * kLanes == kFcCols,
              "fc_sums_mmla reads a tile's columns from one column block");

/// The rows of a (rows, depth) as the tiles read them, into scratch
/// (fc_scratch_bytes): u = a + flip_of<T>() as the dot product packs it
/// (VecI::kPackedFlip), at fc_packed_at. Returns a packed row's stride.
template <typename T, int G>
inline int64_t fc_pack_rows(const T *a, int64_t rows, int64_t depth, uint8_t *scratch) {
  const int64_t stride = round_up(depth, G);
  // The rows the tiles read (a last tile of 1, 2 or 4 rows: row pairs
  // for the matrix multiply), within fc_scratch_bytes' kFcMaxRows.
  const int64_t all = round_up(rows, G == kAmxDepthGroup ? kAmxConvRows
                                     : VecI::kMatMul     ? 2
                                                         : kFcRows);
  const uint8_t flip = static_cast<uint8_t>(flip_of<T>() ^ VecI::kPackedFlip);
  // 16 bytes of a row at a time; depth's padding and the rows past `rows`
  // are zero (times zero weights, or never stored).
  const Bytes f = Bytes{} + flip;
  for (int64_t r = 0; r < all; ++r) {
    const uint8_t *src = reinterpret_cast<const uint8_t *>(a + r * depth);
    for (int64_t k0 = 0; k0 < stride; k0 += 16) {
      const int64_t n = r < rows ? depth - k0 : 0;
      Bytes v{};
      if (n >= 16) {
        v = load_bytes(src + k0) ^ f;
      } else if (n > 0) { // the row's last bytes (a byte loop: GCC's bounds
                          // warnings see through the overlapping copies)
        uint8_t b[16] = {};
        for (int64_t i = 0; i < n; ++i)
          b[i] = uint8_t(src[k0 + i] ^ flip);
        v = load_bytes(b);
      }
      if constexpr (G == kMatMulDepthGroup) { // two depth groups, 16 bytes apart
        __builtin_memcpy(scratch + fc_packed_at(r, k0, stride), &v, 8);
        if (k0 + 8 < stride)
          __builtin_memcpy(scratch + fc_packed_at(r, k0 + 8, stride),
                           reinterpret_cast<const uint8_t *>(&v) + 8, 8);
      } else if constexpr (kDepth16) { // a (row, step) slot of its own
        store_bytes(scratch + fc_packed_at(r, k0, stride), v);
      } else { // whole vectors: past a row's end go zeros that the next row
               // overwrites, or into the scratch's slack after the last
        store_bytes(scratch + r * stride + k0, v);
      }
    }
  }
  return stride;
}

/// Columns a whole tile of fully_connected spans.
constexpr int64_t kFcTileCols = kFcVectors * kLanes;

/// tile(rows R, vectors NV, first row, first column, live rows) over
/// every tile of rows [r.begin, r.end) x columns [c.begin, c.end) of a
/// product (r.begin a multiple of kFcRows, c.begin of kFcTileCols).
template <typename Tile> ONNXC_RT_SIMD_INLINE void fc_tiles(Range r, Range cols, Tile &&tile) {
  constexpr int64_t kCols = kFcTileCols;
  const int64_t n = cols.end;
  // The columns of rows [r0, r0 + live) in tiles of R rows.
  auto row_block = [&](auto tile_rows, int64_t r0, int64_t live) ONNXC_RT_SIMD_NO_PRESCHEDULE {
    for (int64_t c = cols.begin; c < n; c += kCols) {
      const int64_t vecs = (n - c + kLanes - 1) / kLanes;
      switch (vecs < kFcVectors ? vecs : kFcVectors) {
      case 1: tile(tile_rows, std::integral_constant<int, 1>(), r0, c, live); break;
      case 2: if constexpr (kFcVectors > 1) tile(tile_rows, std::integral_constant<int, 2>(), r0, c, live); break;
      case 3: if constexpr (kFcVectors > 2) tile(tile_rows, std::integral_constant<int, 3>(), r0, c, live); break;
      default: tile(tile_rows, std::integral_constant<int, kFcVectors>(), r0, c, live); break;
      }
    }
  };
  // A last row alone (batch 1's one row) takes a tile of one row (a row
  // pair for the matrix multiply), a last few a tile of 4.
  constexpr int kOneRow = VecI::kMatMul ? 2 : 1;
  for (int64_t r0 = r.begin; r0 < r.end; r0 += kFcRows) {
    const int64_t live = r.end - r0 < kFcRows ? r.end - r0 : kFcRows;
    if (live <= kOneRow)
      row_block(std::integral_constant<int, kOneRow>(), r0, live);
    else if (kFcRows > 4 && live <= 4)
      row_block(std::integral_constant<int, 4>(), r0, live);
    else
      row_block(std::integral_constant<int, kFcRows>(), r0, live);
  }
}

/// fc_amx over the whole product, its blocks of 32 columns split into
/// `tasks` (run on `runner`), each task in with_amx_tiles of its own (the
/// tile configuration is the thread's).
#if ONNXC_RT_SIMD_AMX
template <typename Amx>
void fc_amx_tasks(int64_t rows, int64_t depth, int64_t n, TaskRunner *runner, int64_t tasks,
                  const Amx &amx) {
  const int64_t used = tasks_for(rows * depth * n / 64, tasks);
  parallel_for(runner, used, [&](int64_t t) {
    const Range c = split_range(n, 32, used, t);
    if (c.begin < c.end)
      with_amx_tiles([&](bool tiles) { amx(tiles, c); });
  });
}
#endif

/// fc_tiles over the whole product split into `tasks` (run on `runner`):
/// by whole tiles of rows where they outnumber the tiles of columns, else
/// by whole tiles of columns; fewer tasks where the product is too small
/// to pay for the hand-over (parallel.h's tasks_for).
template <typename Tile>
void fc_tasks(int64_t rows, int64_t depth, int64_t n, TaskRunner *runner, int64_t tasks,
              const Tile &tile) {
  const int64_t row_tiles = (rows + kFcRows - 1) / kFcRows;
  const int64_t col_tiles = (n + kFcTileCols - 1) / kFcTileCols;
  const bool by_rows = row_tiles > col_tiles;
  const int64_t used = tasks_for(rows * depth * n / 32, tasks); // ~32 multiply-adds a cycle
  parallel_for(runner, used, [&](int64_t t) {
    const Range r = by_rows ? split_range(rows, kFcRows, used, t) : Range{0, rows};
    const Range c = by_rows ? Range{0, n} : split_range(n, kFcTileCols, used, t);
    if (r.begin < r.end && c.begin < c.end)
      fc_tiles(r, c, tile);
  });
}

} // namespace detail

/// A quantized product a (rows, depth) x w (depth, n) (reference/qs8.h's
/// fully_connected): w packed by pack_fc_weights in depth groups of G;
/// `bias` the folded per-column constant of fold_zero_point with u_zp =
/// packed_zero_point(x_zp + flip_of<T>(), kShifted); G and kShifted as
/// conv2d checks them; `narrow_weights` as conv2d's; `tasks` take shares of
/// the tiles (fc_tasks, fc_amx_tasks). Scratch:
/// fc_scratch_bytes(rows, depth, G), the packed rows all tasks read.
template <typename T, int G, bool kShifted>
void fully_connected(const T *a, const int8_t *w, const int32_t *bias, T *y, int64_t rows,
                     int64_t depth, int64_t n, const int32_t *multiplier, const int32_t *shift,
                     int64_t count, int32_t y_zp, int32_t act_min, int32_t act_max,
                     bool narrow_weights, uint8_t *scratch, TaskRunner *runner = nullptr,
                     int64_t tasks = 1) {
  using namespace detail;
  static_assert((G == kDepthGroup || (kAmx && G == kAmxDepthGroup)) &&
                    kShifted == kShiftedBytes,
                "weights packed and folded for another instruction set (qs8/pack.h)");
  const int64_t stride = fc_pack_rows<T, G>(a, rows, depth, scratch), dgroups = stride / G;
  const VecI vzp = VecI::broadcast(y_zp), vmin = VecI::broadcast(act_min),
             vmax = VecI::broadcast(act_max);
  const bool scales_up = columns_scale_up(shift, count, 0, count);
#if ONNXC_RT_SIMD_AMX
  if constexpr (G == kAmxDepthGroup) {
    (void)narrow_weights;
    (void)dgroups;
    fc_amx_tasks(rows, depth, n, runner, tasks, [&](bool tiles, Range c) {
      fc_amx<T>(tiles, scratch, stride, w, bias, y, rows, n, c.begin, c.end, multiplier, shift,
                count, scales_up, vzp, vmin, vmax);
    });
    return;
  } else
#endif
  fc_tasks(rows, depth, n, runner, tasks,
           [&](auto tile_rows, auto vectors, int64_t r0, int64_t c, int64_t live)
               __attribute__((always_inline)) {
    fc_tile<decltype(tile_rows)::value, decltype(vectors)::value>(
        scratch + r0 * stride, stride, w, dgroups, narrow_weights, c, bias, multiplier, shift,
        count, scales_up, n, live, vzp, vmin, vmax, y + r0 * n);
  });
}

/// MatMulInteger's product with a zero point known only at run time (ONNX
/// Runtime's dynamic quantization: DynamicQuantizeLinear computes it):
/// y (rows, n) int32 = sum_k (a[r, k] - *a_zp) * w[k, c], w packed as for
/// fully_connected and `column_sums` each column's sum of w. The zero
/// point's share folds per column at run time, into the scratch after the
/// packed rows; `tasks` as fully_connected's. Scratch:
/// fc_sums_scratch_bytes(rows, depth, n, G).
template <typename T, int G, bool kShifted>
void fully_connected_sums(const T *a, const T *a_zp, const int8_t *w,
                          const int32_t *column_sums, int32_t *y, int64_t rows, int64_t depth,
                          int64_t n, bool narrow_weights, uint8_t *scratch,
                          TaskRunner *runner = nullptr, int64_t tasks = 1) {
  using namespace detail;
  static_assert((G == kDepthGroup || (kAmx && G == kAmxDepthGroup)) &&
                    kShifted == kShiftedBytes,
                "weights packed for another instruction set (qs8/pack.h)");
  int32_t *add = reinterpret_cast<int32_t *>(scratch + fc_scratch_bytes(rows, depth, G));
  const int32_t u_zp = packed_zero_point(int32_t(a_zp ? *a_zp : T(0)) + flip_of<T>(),
                                         kShifted);
  for (int64_t c = 0; c < n; ++c)
    add[c] = -u_zp * column_sums[c];
  const int64_t stride = fc_pack_rows<T, G>(a, rows, depth, scratch), dgroups = stride / G;
#if ONNXC_RT_SIMD_AMX
  if constexpr (G == kAmxDepthGroup) {
    // The sums plus each column's constant, stored as int32 (fc_amx with
    // int32 outputs reads only the constants of its Requant).
    (void)narrow_weights;
    (void)dgroups;
    const int32_t unused = 0;
    const VecI zero = VecI::zero();
    fc_amx_tasks(rows, depth, n, runner, tasks, [&](bool tiles, Range c) {
      fc_amx<int32_t>(tiles, scratch, stride, w, add, y, rows, n, c.begin, c.end, &unused,
                      &unused, 1, false, zero, zero, zero);
    });
    return;
  } else
#endif
  fc_tasks(rows, depth, n, runner, tasks,
           [&](auto tile_rows, auto vectors, int64_t r0, int64_t c, int64_t live)
               __attribute__((always_inline)) {
    fc_tile_sums<decltype(tile_rows)::value, decltype(vectors)::value>(
        scratch + r0 * stride, stride, w, dgroups, narrow_weights, c, add, n, live, y + r0 * n);
  });
}

} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_QS8_FULLY_CONNECTED_H
