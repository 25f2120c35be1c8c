// SIMD qs8 conv2d: im2col of a block of output pixels into unsigned bytes,
// four depth values per pixel together ([depth/4][pixels][4]; eight with
// NEON's i8mm, whose USMMLA multiplies two pixels' 8 by two channels' 8),
// times weights packed at compile time (simd/qs8/pack.h) in register tiles
// (simd/qs8/tile.h) of 4 output channels x up to 6 (AVX-512, NEON) or 2
// (AVX2, armv8-a) vectors of pixels; requantized from registers into the
// NCHW output.
#ifndef ONNXC_RT_SIMD_QS8_CONV2D_H
#define ONNXC_RT_SIMD_QS8_CONV2D_H

#include "onnxc_rt/kernels/simd/qs8/amx.h"
#include "onnxc_rt/kernels/simd/qs8/tile.h"
#include "onnxc_rt/kernels/simd/qs8/winograd.h"

namespace onnxc_rt {
namespace simd {
namespace qs8 {

namespace detail {

/// src[0, n) split: its even bytes to even[0, (n + 1) / 2), its odd ones to
/// odd[0, n / 2); reads and writes nothing past them. 32 bytes a step,
/// the last step moved back over the one before (a partial load through
/// the stack stalls on its store: slower than copying each phase alone).
inline void split_even_odd(const uint8_t *src, int64_t n, uint8_t *even, uint8_t *odd) {
  if (n < 32) {
    copy_strided_bytes(even, src, (n + 1) / 2, 2);
    copy_strided_bytes(odd, src + 1, n / 2, 2);
    return;
  }
  auto step = [&](int64_t at) { // at even
    const Bytes a = load_bytes(src + at), b = load_bytes(src + at + 16);
    store_bytes(even + at / 2, even_bytes(a, b));
    store_bytes(odd + at / 2, odd_bytes(a, b));
  };
  int64_t at = 0;
  for (; at + 32 <= n; at += 32)
    step(at);
  if (at < n)
    step((n - 32) & ~int64_t(1));
  if (n % 2)
    even[n / 2] = src[n - 1];
}

/// Column phase f of padded rows `width` wide at stride sw: its column i
/// is input column i * sw + base, inside [0, w) for i in [lo, hi).
struct PhaseColumns {
  int64_t base, lo, hi;
};
inline PhaseColumns phase_columns(const Conv2d &g, int64_t f, int64_t width) {
  const int64_t base = f - g.pw;
  int64_t lo = base >= 0 ? 0 : (-base + g.sw - 1) / g.sw;
  int64_t hi = g.w - base > 0 ? (g.w - base + g.sw - 1) / g.sw : 0;
  lo = lo > width ? width : lo;
  hi = hi > width ? width : (hi < lo ? lo : hi);
  return {base, lo, hi};
}

/// Input row `row` (w bytes; null: a padding row) as column phase `pc`
/// of its padded row, `width` bytes at dst.
inline void pad_row_phase(const uint8_t *row, const Conv2d &g, const PhaseColumns &pc,
                          int64_t width, uint8_t pad, uint8_t *dst) {
  if (!row)
    return fill_bytes(dst, width, pad);
  fill_bytes(dst, pc.lo, pad);
  copy_strided_bytes(dst + pc.lo, row + pc.lo * g.sw + pc.base, pc.hi - pc.lo, g.sw);
  fill_bytes(dst + pc.hi, width - pc.hi, pad);
}

/// Input row `row` (null: a padding row) as both column phases of its
/// padded row at stride 2 across, `width` bytes each at phase0 and phase1,
/// the row read once (split_even_odd) rather than once a phase (the
/// padding is an eighth of a 64 -> 128 stride-2 layer at 56 x 56).
/// Input column x is padded column x + pw: phase (x + pw) % 2, column
/// (x + pw) / 2 of it; the even ones go to phase pw % 2 from column
/// pw / 2, the odd ones to the other from (pw + 1) / 2.
inline void pad_row_phases2(const uint8_t *row, const Conv2d &g, int64_t width, uint8_t pad,
                            uint8_t *phase0, uint8_t *phase1) {
  const int64_t n = g.w < 2 * width - g.pw ? g.w : 2 * width - g.pw;
  if (!row || n <= 0) {
    fill_bytes(phase0, width, pad);
    return fill_bytes(phase1, width, pad);
  }
  uint8_t *evens = g.pw % 2 ? phase1 : phase0, *odds = g.pw % 2 ? phase0 : phase1;
  const int64_t e0 = g.pw / 2, o0 = (g.pw + 1) / 2, e1 = e0 + (n + 1) / 2, o1 = o0 + n / 2;
  fill_bytes(evens, e0, pad);
  fill_bytes(odds, o0, pad);
  split_even_odd(row, n, evens + e0, odds + o0);
  fill_bytes(evens + e1, width - e1, pad);
  fill_bytes(odds + o1, width - o1, pad);
}

/// Input plane `xp` (h x w) into `out` as pp describes (qs8/pack.h's
/// PaddedPlane), the padding `pad`. Only the rows and column phases some
/// tap reads: with one row of taps (kh 1) every sh-th row, with one
/// column (kw 1) phase 0 alone, so a strided 1x1 convolution (ResNet's
/// downsampling) pads a quarter of its input at stride 2; the rest stays
/// as it was, never read. Padded rows [rows.begin, rows.end) alone (a
/// task's share: pad_planes), writing nothing outside them.
template <typename T>
void pad_plane(const T *xp, const Conv2d &g, const PaddedPlane &pp, uint8_t pad, uint8_t *out,
               Range rows) {
  const uint8_t *src = reinterpret_cast<const uint8_t *>(xp);
  const int64_t right = pp.phase - g.pw - g.w;
  const int64_t row_step = g.kh == 1 ? g.sh : 1, phases = g.kw == 1 ? 1 : g.sw;
  const int64_t first = round_up(rows.begin, row_step);
  if (g.sw == 1 && g.pw <= 16 && right >= 0 && right <= 16) {
    // Stride 1, padding of at most 16 columns a side: each input row's
    // padding as one vector either side (their overruns rewritten by the
    // next row, or in the plane's slack); a third of the general loop's
    // instructions (ResNet-18: 0.1 M rows per inference). Where a share
    // ends inside the plane, the rows whose vectors would reach past it
    // (rows narrower than a vector: more than the last) are padded
    // exactly: the rows after it are another task's.
    const Bytes p = Bytes{} + pad;
    const PhaseColumns columns = phase_columns(g, 0, pp.phase);
    for (int64_t r = first; r < rows.end; r += row_step) {
      uint8_t *dst = out + r * pp.phase;
      const int64_t iy = r - g.ph;
      if (iy < 0 || iy >= g.h) {
        fill_bytes(dst, pp.phase, pad);
        continue;
      }
      if (rows.end < pp.rows && r * pp.phase + g.pw + g.w + 16 > rows.end * pp.phase) {
        pad_row_phase(src + iy * g.w, g, columns, pp.phase, pad, dst);
        continue;
      }
      store_bytes(dst, p);
      copy_strided_bytes(dst + g.pw, src + iy * g.w, g.w, 1);
      store_bytes(dst + g.pw + g.w, p);
    }
    return;
  }
  auto input_row = [&](int64_t r) {
    const int64_t iy = r - g.ph;
    return iy < 0 || iy >= g.h ? nullptr : src + iy * g.w;
  };
  if (phases == 2 && g.sw == 2) {
    for (int64_t r = first; r < rows.end; r += row_step)
      pad_row_phases2(input_row(r), g, pp.phase, pad, out + 2 * r * pp.phase,
                      out + (2 * r + 1) * pp.phase);
    return;
  }
  for (int64_t f = 0; f < phases; ++f) {
    const PhaseColumns pc = phase_columns(g, f, pp.phase);
    for (int64_t r = first; r < rows.end; r += row_step)
      pad_row_phase(input_row(r), g, pc, pp.phase, pad, out + (r * g.sw + f) * pp.phase);
  }
}

/// Input plane `xp` (h x w) into `out` as a direct_plane `pp` (qs8/pack.h):
/// each phase plane's rows, the padding `pad`. Every phase, row and column
/// of it (the slack aside), read or not; at stride 2 across, each input
/// row read once for both column phases (pad_row_phases2). At stride 1
/// (one phase: padded_plane's plane, AMX's direct form's too) pad_plane's.
template <typename T>
void pad_phase_planes(const T *xp, const Conv2d &g, const PaddedPlane &pp, uint8_t pad,
                      uint8_t *out) {
  if (g.sh == 1 && g.sw == 1)
    return pad_plane(xp, g, pp, pad, out, Range{0, pp.rows});
  const uint8_t *src = reinterpret_cast<const uint8_t *>(xp);
  const int64_t rows = pp.rows / pp.row_phases, width = pp.phase;
  for (int64_t ry = 0; ry < g.sh; ++ry) {
    auto input_row = [&](int64_t i) {
      const int64_t iy = i * g.sh + ry - g.ph;
      return iy < 0 || iy >= g.h ? nullptr : src + iy * g.w;
    };
    uint8_t *phase0 = out + ry * g.sw * rows * width;
    if (g.sw == 2) {
      for (int64_t i = 0; i < rows; ++i)
        pad_row_phases2(input_row(i), g, width, pad, phase0 + i * width,
                        phase0 + (rows + i) * width);
      continue;
    }
    for (int64_t rx = 0; rx < g.sw; ++rx) {
      const PhaseColumns pc = phase_columns(g, rx, width);
      for (int64_t i = 0; i < rows; ++i)
        pad_row_phase(input_row(i), g, pc, width, pad, phase0 + (rx * rows + i) * width);
    }
  }
}

/// A group's cg input planes (from xg) padded into `planes`, pp.bytes()
/// apart, over `used` tasks on `runner`: split by rows of every plane
/// where the convolution's tasks take shares of the pixels (`by_rows`), so
/// that each task pads about the rows it then reads, written in its own
/// core's cache, or where there are too few channels to go round evenly
/// (the stems' three), else by channel.
template <typename T>
void pad_planes(const T *xg, const Conv2d &g, const PaddedPlane &pp, uint8_t pad, int64_t cg,
                uint8_t *planes, TaskRunner *runner, int64_t used, bool by_rows) {
  by_rows = by_rows || cg < 2 * used;
  parallel_for(runner, used, [&](int64_t t) {
    const Range ch = by_rows ? Range{0, cg} : split_range(cg, 1, used, t);
    const Range rows = by_rows ? split_range(pp.rows, 1, used, t) : Range{0, pp.rows};
    for (int64_t ci = ch.begin; ci < ch.end; ++ci)
      pad_plane(xg + ci * g.h * g.w, g, pp, pad, planes + ci * pp.bytes(), rows);
  });
}

/// A group's cg input channels as the direct forms read them: channel
/// quads at `quads` ([cg/4][quad plane][4], each byte XORed with `flip`),
/// four channels' padded planes at a time (in each task's scratch, from
/// sl.rows) interleaved, split by quad over `used` tasks on `runner`.
/// Each channel's plane as pad_phase_planes fills it (strided: the dot
/// products' direct form only).
template <typename T>
void fill_quads(const T *xg, const Conv2d &g, const PaddedPlane &pp, uint8_t pad, uint8_t flip,
                int64_t cg, uint8_t *scratch, const ConvScratch &sl, uint8_t *quads,
                TaskRunner *runner, int64_t used) {
  const int64_t quad_plane = conv_quad_plane_bytes(pp), filled = pp.bytes() - pp.slack;
  parallel_for(runner, used, [&](int64_t t) {
    uint8_t *four = scratch + t * sl.task + sl.rows;
    const Range r = split_range(cg / 4, 1, used, t);
    for (int64_t q = r.begin; q < r.end; ++q) {
      const uint8_t *src[4];
      for (int64_t j = 0; j < 4; ++j) {
        uint8_t *plane = four + j * quad_plane;
        pad_phase_planes(xg + (4 * q + j) * g.h * g.w, g, pp, pad, plane);
        fill_bytes(plane + filled, quad_plane - filled, pad);
        src[j] = plane;
      }
      interleave_rows<4>(src, quad_plane, flip, quads + q * 4 * quad_plane);
    }
  });
}

/// One im2col row from a padded plane: tap (ky, kx), output pixels
/// [p0, p0 + n) (p0 = oy0 * ow + ox0), copied in whole 16-byte vectors
/// (the slack of the plane and of `row` takes the overrun).
inline void gather_row(const uint8_t *plane, const PaddedPlane &pp, const Conv2d &g, int64_t ky,
                       int64_t kx, int64_t oy0, int64_t ox0, int64_t n, uint8_t *row) {
  // Locals: as far as the compiler knows, row's stores may change g and pp.
  const int64_t ow = g.ow, sw = g.sw, off = kx * g.dw;
  const uint8_t *tap = plane + (ky * g.dh * sw + off % sw) * pp.phase + off / sw;
  const int64_t row_step = g.sh * sw * pp.phase;
  // Output row by output row: the first from column ox0, then whole rows.
  const uint8_t *src = tap + oy0 * row_step + ox0;
  // Rows of at most 64 bytes: each later row a fixed count of vectors (as
  // the loop below copies a whole row), the last one's overrun (under 64
  // bytes) in the slack after `row`, the others' rewritten by the next
  // row's. A third of the loop's instructions a row: ResNet-18 gathers
  // 0.5 M rows of 56 bytes or fewer.
  auto short_rows = [&](auto vectors) {
    const int64_t first = ow - ox0;
    for (int64_t i = 0; i < first && i < n; i += 16)
      store_bytes(row + i, load_bytes(src + i));
    src += row_step - ox0;
    for (int64_t p = first; p < n; p += ow, src += row_step)
      for (int v = 0; v < decltype(vectors)::value; ++v)
        store_bytes(row + p + 16 * v, load_bytes(src + 16 * v));
  };
  switch ((ow + 15) / 16) {
  case 1:
    return short_rows(std::integral_constant<int, 1>{});
  case 2:
    return short_rows(std::integral_constant<int, 2>{});
  case 3:
    return short_rows(std::integral_constant<int, 3>{});
  case 4:
    return short_rows(std::integral_constant<int, 4>{});
  default:
    break;
  }
  int64_t len = ow - ox0 < n ? ow - ox0 : n;
  for (int64_t p = 0; p < n;) {
    for (int64_t i = 0; i < len; i += 16)
      store_bytes(row + p + i, load_bytes(src + i));
    p += len;
    src += row_step - ox0;
    ox0 = 0;
    len = ow < n - p ? ow : n - p;
  }
}

/// Packs output pixels [p0, p0 + n) of one group into `panel`
/// ([depth_pad/G][nv][G] unsigned bytes, nv = n rounded up to 16, the
/// depth past the group's zeros; AMX's order with tile_chunks), from the
/// group's input x (read as it is) or its padded planes, gathering rows
/// into `rows` (G * nv bytes and 64 of slack). Over virtual rows
/// (qs8/pack.h's ConvPixels: p0 and n count packed pixels) each tap's row
/// is read in place from its stride-1 padded plane: one run of it.
template <int G, typename T>
void pack_panel(const T *x, const uint8_t *planes, const PaddedPlane &pp, const Conv2d &g,
                int64_t cg, int64_t p0, int64_t n, int64_t nv, int64_t depth_pad, uint8_t pad,
                bool virtual_rows, uint8_t *panel, uint8_t *rows, bool tile_chunks = false) {
  // tile_chunks (AMX): [nv/16][depth_pad/G][16][G], each 16 pixels' depth
  // together (a tile of TDPBSUD's second operand is 1 KiB in one piece).
  const int64_t group_step = tile_chunks ? 16 * G : nv * G,
                chunk = tile_chunks ? depth_pad * 16 : 16 * G;
  const int64_t taps = g.kh * g.kw, depth = cg * taps, plane = g.h * g.w;
  const bool direct = planes == nullptr && p0 + nv <= plane;
  const int64_t oy0 = p0 / g.ow, ox0 = p0 % g.ow;
  // Depth k = (ci * kh + ky) * kw + kx, counted up (no divisions per row).
  int64_t ci = 0, ky = 0, kx = 0;
  for (int64_t kg = 0; kg < depth_pad; kg += G) {
    const uint8_t *src[G];
    for (int64_t j = 0; j < G; ++j) {
      const int64_t k = kg + j;
      uint8_t *row = rows + j * nv;
      if (k >= depth) {
        fill_bytes(row, nv, 0); // times zero weights
        src[j] = row;
        continue;
      }
      if (virtual_rows) {
        src[j] = planes + ci * pp.bytes() + ky * g.dh * pp.phase + kx * g.dw + p0;
      } else if (direct) {
        src[j] = reinterpret_cast<const uint8_t *>(x + k * plane + p0);
      } else {
        if (planes)
          gather_row(planes + ci * pp.bytes(), pp, g, ky, kx, oy0, ox0, n, row);
        else // 1x1 read as it is, the last block's tail
          __builtin_memcpy(row, x + k * plane + p0, size_t(n));
        fill_bytes(row + n, nv - n, pad);
        src[j] = row;
      }
      if (++kx == g.kw) {
        kx = 0;
        if (++ky == g.kh) {
          ky = 0;
          ++ci;
        }
      }
    }
    interleave_rows<G>(src, nv, static_cast<uint8_t>(flip_of<T>() ^ VecI::kPackedFlip),
                       panel + kg / G * group_step, chunk);
  }
}

/// `rows` channel rows of a stage (stage_stride apart) holding packed
/// pixels [q0, q0 + n) over virtual rows `width` wide, stored to y
/// (channel rows y_stride apart, output rows ow wide): each output row's
/// first ow pixels; the rest are the padding's and dropped.
template <typename T>
void store_virtual_rows(const T *stage, int64_t stage_stride, int64_t rows, int64_t q0,
                        int64_t n, int64_t width, int64_t ow, T *y, int64_t y_stride) {
  const int64_t oy0 = q0 / width, ox0 = q0 % width;
  for (int64_t r = 0; r < rows; ++r) {
    const T *src = stage + r * stage_stride;
    T *dst = y + r * y_stride + oy0 * ow;
    for (int64_t i = 0, ox = ox0; i < n; ox = 0, dst += ow) {
      const int64_t run = width - ox < n - i ? width - ox : n - i;
      if (ox < ow) {
        const int64_t len = ow - ox < run ? ow - ox : run;
        if constexpr (sizeof(T) == 1) // inline: a memcpy call a row cost 2-3% of a 3x3 layer
          copy_strided_bytes(reinterpret_cast<uint8_t *>(dst + ox),
                             reinterpret_cast<const uint8_t *>(src + i), len, 1);
        else
          __builtin_memcpy(dst + ox, src + i, size_t(len) * sizeof(T));
      }
      i += run;
    }
  }
}

/// Widest tile: 24 accumulators of 32 AVX-512 registers, 8 of 16 on AVX2,
/// 24 of 32 on NEON with SDOT / USDOT by element (with the 6 vectors of
/// activations and the weights' one: 31; with i8mm's USMMLA 24 of 2 x 2
/// blocks, two weight vectors and the pixel pair loaded: 27); with
/// armv8-a's 16-byte products each vector of pixels is a 4 x 4 tile of
/// its own (16 accumulators), two a call.
constexpr int kConvVectors = kLanes == 16 ? 6 : kDepth16 ? 2 : kLanes == 4 ? 6 : 2;

/// ConvPixels' bound (qs8/pack.h) for computing stride-1 convolutions over
/// virtual rows: on x86 the gather of each tap's rows costs more than the
/// dropped pixels' products while extra / ow * channels < 64 (ResNet-18
/// int8 -6%, CIFAR -7%); on NEON its copies are fewer instructions than
/// those products (the CIFAR CNN under qemu-aarch64: +9% on armv8-a, +3%
/// with SDOT), so never.
#if defined(__ARM_NEON)
constexpr int64_t kVirtualRowsBound = 0;
#else
constexpr int64_t kVirtualRowsBound = 64;
#endif

/// How conv2d and conv2d_amx split a group's output into tasks: by pixels
/// (each task a run of whole units of pixels, packing its own panels)
/// where those units make four a task or outnumber the units of output
/// channels, else by channels (every task packs every panel, and computes
/// a share of the output channels: 7 x 7 and 14 x 14 planes have one to
/// three blocks).
inline bool conv_splits_pixels(int64_t pixel_units, int64_t channel_units, int64_t tasks) {
  return pixel_units >= 4 * tasks || pixel_units >= channel_units;
}

/// conv_splits_pixels for conv2d's VPDPBUSD forms, which also weigh where
/// the cut falls: where each output channel's plane (`pixels` values of
/// `value_bytes`) is not whole 64-byte cache lines, a split by pixels cuts
/// every plane inside a line that two cores then write, so those go by
/// channels instead where `channels_pay` (the form's channel split costs
/// little) and the channels go round the tasks.
inline bool conv_splits_pixels_at_lines(int64_t pixel_units, int64_t channel_units,
                                        int64_t tasks, int64_t pixels, int64_t value_bytes,
                                        bool channels_pay) {
  const bool whole_lines = pixels * value_bytes % 64 == 0;
  return conv_splits_pixels(pixel_units, channel_units, tasks) &&
         (whole_lines || !channels_pay || channel_units < tasks);
}

/// conv_tile<nv> for nv in [1, kConvVectors].
template <typename T, int NV = kConvVectors>
void conv_tiles(int64_t nv, const uint8_t *panel, int64_t panel_stride, const int8_t *w,
                int64_t dgroups, bool narrow, const Requant *q, int64_t rows, VecI y_zp,
                VecI act_min, VecI act_max, T *__restrict y, int64_t y_stride, int64_t valid) {
  if (nv == NV)
    return conv_tile<NV>(panel, panel_stride, w, dgroups, narrow, q, rows, y_zp, act_min,
                         act_max, y, y_stride, valid);
  if constexpr (NV > 1)
    conv_tiles<T, NV - 1>(nv, panel, panel_stride, w, dgroups, narrow, q, rows, y_zp, act_min,
                          act_max, y, y_stride, valid);
}

/// The tiles of one tile of channels across packed pixels [0, np): whole
/// kConvVectors-wide tiles in one loop, their kernel inline, then the last
/// narrower one (conv_tiles), as many vectors as its pixels need (not as
/// the panel's rounding to 16 pixels: on NEON that gave 7 x 7 planes' last
/// pixel a tile of 4 vectors). One call per tile of channels: a call per
/// tile cost about 23 instructions, 2.8 M per inference of MobileNetV2 on
/// armv8-a, whose tiles are 8 pixels wide. Not inlined into conv2d: there
/// GCC stepped the depth loop by a counter and loaded the pixels one vector
/// at a time (35 instructions per 24 SDOT against 31). GCC's first
/// scheduling pass is off here where the ISA header says so (armv8-a: it
/// spilled 4 of the 16 sums of a 4 x 4 tile of 16-byte products).
template <typename T>
__attribute__((noinline)) ONNXC_RT_SIMD_NO_PRESCHEDULE void
conv_tile_row(int64_t np, const uint8_t *panel, int64_t panel_stride, const int8_t *w,
              int64_t dgroups, bool narrow, const Requant *q, int64_t rows, VecI y_zp,
              VecI act_min, VecI act_max, T *__restrict y, int64_t y_stride) {
  static_assert(kConvVectors > 1, "the last tile is narrower than a whole one");
  constexpr int64_t kTile = kConvVectors * kLanes;
  // Whole tiles: those whose pixels need all kConvVectors vectors.
  const int64_t whole = np > kTile - kLanes ? (np - (kTile - kLanes) + kTile - 1) / kTile : 0;
  int64_t px = 0;
  for (int64_t t = 0; t < whole; ++t, px += kTile)
    conv_tile<kConvVectors>(panel + px * kDepthGroup, panel_stride, w, dgroups, narrow, q, rows,
                            y_zp, act_min, act_max, y + px, y_stride, np - px);
  if (px < np)
    conv_tiles<T, kConvVectors - 1>((np - px + kLanes - 1) / kLanes, panel + px * kDepthGroup,
                                    panel_stride, w, dgroups, narrow, q, rows, y_zp, act_min,
                                    act_max, y + px, y_stride, np - px);
}

/// Whether this instruction set's conv2d has the channel-lanes form
/// (pack.h's conv_channel_lanes): AVX-512, whose 16 pixels a vector waste
/// the most on small planes and whose 32 registers hold the 6 x 4 tile
/// (AVX2's 8 lanes fill 49 pixels to 56). Never with AMX's depth group.
constexpr bool kConvLanes = kLanes == 16 && !kDepth16 && !VecI::kMatMul && !VecI::kLaneDot;

/// Vectors of channels a channel-lanes tile spans, and its most pixels:
/// 6 x 4 accumulators, the 4 weight vectors and a broadcast pixel (29 of
/// 32 registers).
constexpr int kLaneTileVectors = 4, kLaneTileRows = 6;
static_assert(!kConvLanes || kLaneTileVectors * kLanes == kConvLaneTileChannels,
              "pack.h's conv_channel_lanes counts a tile's channels");

/// One channel-lanes tile: R pixels of the panel (a pixel's depth group kk
/// at a + kk * a_step + r * 4) x NV vectors of channels (their packed
/// weights `block_bytes` apart, kConvLaneRows channels' depth group per
/// step), requantized with output channel `oc`'s constants on, and stored
/// transposed: channel c's R pixels at y + c * pixels, the first `cols`
/// channels.
template <int R, int NV, typename T>
ONNXC_RT_SIMD_INLINE void conv_lane_tile(const uint8_t *a, int64_t a_step, const int8_t *w,
                                         int64_t block_bytes, int64_t dgroups, int64_t cols,
                                         const int32_t *add, const int32_t *multiplier,
                                         const int32_t *shift, int64_t count, int64_t oc,
                                         bool scales_up, VecI y_zp, VecI act_min, VecI act_max,
                                         T *y, int64_t pixels) {
  constexpr int64_t kStep = kConvLaneRows * kDotDepthGroup;
  VecI acc[R][NV];
  for_each_index<R>([&](auto r) {
    for_each_index<NV>([&](auto v) { acc[r][v] = VecI::zero(); });
  });
  for (int64_t kk = 0; kk < dgroups; ++kk) {
    VecI wk[NV];
    for_each_index<NV>([&](auto v) { wk[v] = VecI::load(w + v * block_bytes + kk * kStep); });
    const uint8_t *ak = a + kk * a_step;
    for_each_index<R>([&](auto r) {
      const VecI ab = broadcast4(ak + r * kDotDepthGroup);
      for_each_index<NV>([&](auto v) { acc[r][v] = VecI::dot_part(acc[r][v], ab, wk[v]); });
    });
  }
  // Each vector of channels requantized with its constants, narrowed into
  // a pixel-major block, then each channel's R pixels stored.
  alignas(64) T block[R][NV * kLanes];
  for_each_index<NV>([&](auto v) ONNXC_RT_SIMD_LAMBDA {
    const int64_t left = cols - int64_t(v) * kLanes;
    const Requant q = requant_columns(add, multiplier, shift, count, oc + v * kLanes,
                                      left <= 0 ? 0 : left < kLanes ? left : kLanes, scales_up);
    for_each_index<R>([&](auto r) ONNXC_RT_SIMD_LAMBDA {
      to_output(requantize_scaled(VecI::add(acc[r][v], q.add), q), y_zp, act_min, act_max)
          .store_narrow(&block[r][v * kLanes], kLanes);
    });
  });
  for (int64_t c = 0; c < cols; ++c)
    for (int r = 0; r < R; ++r)
      y[c * pixels + r] = block[r][c];
}

/// conv_lane_tile<r, NV> for r in [1, R].
template <int NV, typename T, int R = kLaneTileRows, typename... Args>
ONNXC_RT_SIMD_INLINE void conv_lane_tiles(int64_t r, Args... args) {
  if (r == R)
    return conv_lane_tile<R, NV, T>(args...);
  if constexpr (R > 1)
    conv_lane_tiles<NV, T, R - 1>(r, args...);
}

/// The channel-lanes tiles of one panel (np pixels, depth group kk of
/// pixel p at panel + kk * panel_stride + p * 4) and channels [c0, c1) of
/// the group (packed weights wg): kLaneTileVectors vectors of channels at
/// a time, the pixels spread evenly over tiles of at most kLaneTileRows
/// (49 pixels as 4 tiles of 6 and 5 of 5: a tile of one pixel runs its
/// four chains at the dot product's latency). Not inlined into conv2d,
/// like conv_tile_row.
template <typename T>
__attribute__((noinline)) void
conv_lane_row(int64_t np, const uint8_t *panel, int64_t panel_stride, const int8_t *wg,
              int64_t depth_pad, int64_t c0, int64_t c1, int64_t oc0, const int32_t *add,
              const int32_t *multiplier, const int32_t *shift, int64_t count, bool scales_up,
              VecI y_zp, VecI act_min, VecI act_max, T *y, int64_t pixels) {
  const int64_t dgroups = depth_pad / kDotDepthGroup, block_bytes = kConvLaneRows * depth_pad;
  const int64_t tiles = (np + kLaneTileRows - 1) / kLaneTileRows;
  for (int64_t c = c0; c < c1; c += kLaneTileVectors * kLanes) {
    const int64_t cols = c1 - c < kLaneTileVectors * kLanes ? c1 - c : kLaneTileVectors * kLanes;
    const int8_t *w = wg + (c / kConvLaneRows) * block_bytes;
    for (int64_t t = 0, p = 0; t < tiles; ++t) {
      const int64_t r = np / tiles + (t < np % tiles ? 1 : 0);
      auto run = [&](auto nv) ONNXC_RT_SIMD_LAMBDA {
        conv_lane_tiles<decltype(nv)::value, T>(
            r, panel + p * kDotDepthGroup, panel_stride, w, block_bytes, dgroups, cols, add,
            multiplier, shift, count, oc0 + c, scales_up, y_zp, act_min, act_max,
            y + c * pixels + p, pixels);
      };
      switch ((cols + kLanes - 1) / kLanes) {
      case 1: run(std::integral_constant<int, 1>()); break;
      case 2: run(std::integral_constant<int, 2>()); break;
      case 3: run(std::integral_constant<int, 3>()); break;
      default: run(std::integral_constant<int, kLaneTileVectors>()); break;
      }
      p += r;
    }
  }
}

/// conv2d in the channel-lanes form (pack.h's conv_channel_lanes; weights
/// in tiles of kConvLaneRows channels): the im2col panel packed as the
/// other form packs it (without virtual rows), read a few pixels at a
/// time. `tasks`: runs of 64 channels where there are enough, else of
/// the pixels (each task packing its own panels).
template <typename T, typename TOut>
void conv2d_lanes(const T *x, const int8_t *w, const int32_t *bias, TOut *y, const Conv2d &g,
                  int64_t n, int64_t m, int64_t group, int32_t x_zp, const int32_t *multiplier,
                  const int32_t *shift, int64_t count, VecI vzp, VecI vmin, VecI vmax,
                  uint8_t *scratch, TaskRunner *runner, int64_t tasks) {
  constexpr int G = kDotDepthGroup;
  const int64_t cg = g.c / group, mg = m / group;
  const int64_t depth = cg * g.kh * g.kw, depth_pad = round_up(depth, G);
  const int64_t group_bytes = round_up(mg, kConvLaneRows) * depth_pad, pixels = g.oh * g.ow;
  const bool reads_input = conv_reads_input(g.kh, g.kw, g.sh, g.sw, g.ph, g.pw);
  const PaddedPlane pp = padded_plane(g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw);
  const int64_t block = conv_pixel_block(depth, pixels);
  const ConvScratch sl =
      conv_scratch(depth, g.oh, g.ow, g.sh, cg, pp, reads_input, G, sizeof(TOut), tasks);
  uint8_t *planes = reads_input ? nullptr : scratch + sl.planes;
  const uint8_t pad = static_cast<uint8_t>(static_cast<T>(x_zp));
  const bool scales_up = columns_scale_up(shift, count, 0, count);
  constexpr int64_t kUnit = kLaneTileVectors * kLanes; // channels a tile
  const int64_t used = tasks_for(pixels * mg * depth / 32, tasks);
  const bool by_channels = (mg + kUnit - 1) / kUnit >= used;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t gi = 0; gi < group; ++gi) {
      const T *xg = x + (b * g.c + gi * cg) * g.h * g.w;
      if (planes)
        pad_planes(xg, g, pp, pad, cg, planes, runner, used, !by_channels);
      parallel_for(runner, used, [&](int64_t t) {
        uint8_t *panel = scratch + t * sl.task, *rows = panel + sl.rows;
        const Range px = by_channels ? Range{0, pixels} : split_range(pixels, 16, used, t);
        const Range ch = by_channels ? split_range(mg, kUnit, used, t) : Range{0, mg};
        if (ch.begin >= ch.end || px.begin >= px.end)
          return;
        for (int64_t p0 = px.begin; p0 < px.end; p0 += block) {
          const int64_t np = px.end - p0 < block ? px.end - p0 : block;
          const int64_t nv = round_up(np, 16);
          pack_panel<G>(xg, planes, pp, g, cg, p0, np, nv, depth_pad, pad, false, panel, rows);
          conv_lane_row(np, panel, nv * G, w + gi * group_bytes, depth_pad, ch.begin, ch.end,
                        gi * mg, bias, multiplier, shift, count, scales_up, vzp, vmin, vmax,
                        y + (b * m + gi * mg) * pixels + p0, pixels);
        }
      });
    }
}

/// Whether this instruction set's conv2d has the dot products' direct form
/// (pack.h's conv_dot_direct): AVX-512's broadcast tile (not NEON's
/// assembly tiles, which read a panel). Its choice and the panel's read
/// the same bound on virtual rows, so that the products are the same.
constexpr bool kConvDotDirect = kConvLanes;
static_assert(!kConvDotDirect || kVirtualRowsBound == kDotDirectRowsBound,
              "the direct form's bound is the panel's (pack.h's conv_dot_direct)");

/// Whether this instruction set's conv2d has Winograd's form (pack.h's
/// conv_winograd; simd/qs8/winograd.h): AVX2.
constexpr bool kConvWinograd = ONNXC_RT_SIMD_QS8_WINOGRAD;

/// This instruction set's forms (pack.h's conv_form).
constexpr ConvForms kConvForms{kConvLanes, kConvDotDirect, kConvWinograd};

/// One tile of conv2d's direct form: kConvRows channels x NV vectors of
/// virtual pixels from `a` (the tile's first pixel in the group's first
/// channel quad), the taps at tap_off, each over `quads` channel quads
/// `quad_stride` apart; the weights tap-major, one depth group of the
/// kConvRows channels after another. Requantized and stored as conv_tile.
template <int NV, typename T>
ONNXC_RT_SIMD_INLINE void conv_direct_tile(const uint8_t *a, int64_t quad_stride,
                                           const int64_t *tap_off, int64_t taps, int64_t quads,
                                           const int8_t *w, const Requant *q, int64_t rows,
                                           VecI y_zp, VecI act_min, VecI act_max,
                                           T *__restrict y, int64_t y_stride, int64_t valid) {
  VecI acc[kConvRows][NV];
  for_each_index<kConvRows>([&](auto r) {
    for (int v = 0; v < NV; ++v)
      acc[r][v] = VecI::zero();
  });
  const int8_t *wk = w;
  for (int64_t t = 0; t < taps; ++t) {
    const uint8_t *at = a + tap_off[t];
    for (int64_t cq = 0; cq < quads; ++cq, at += quad_stride, wk += kConvRows * 4)
      broadcast_step(acc, at, wk);
  }
  for_each_index<kConvRows>([&](auto r) ONNXC_RT_SIMD_LAMBDA {
    if (r < rows)
      requantize_store<NV, T>(acc[r], q[r], y_zp, act_min, act_max, y + r * y_stride, valid);
  });
}

/// conv_direct_tile<nv> for nv in [1, NV].
template <typename T, int NV = kConvVectors, typename... Args>
void conv_direct_tiles(int64_t nv, Args... args) {
  if (nv == NV)
    return conv_direct_tile<NV, T>(args...);
  if constexpr (NV > 1)
    conv_direct_tiles<T, NV - 1>(nv, args...);
}

/// The direct form's tiles of one tile of channels across virtual pixels
/// [0, np) from `a`: whole kConvVectors-wide tiles inline, then a narrower
/// one (as conv_tile_row).
template <typename T>
__attribute__((noinline)) void
conv_direct_row(int64_t np, const uint8_t *a, int64_t quad_stride, const int64_t *tap_off,
                int64_t taps, int64_t quads, const int8_t *w, const Requant *q, int64_t rows,
                VecI y_zp, VecI act_min, VecI act_max, T *__restrict y, int64_t y_stride) {
  constexpr int64_t kTile = kConvVectors * kLanes;
  int64_t px = 0;
  for (; np - px > kTile - kLanes; px += kTile)
    conv_direct_tile<kConvVectors>(a + px * 4, quad_stride, tap_off, taps, quads, w, q, rows,
                                   y_zp, act_min, act_max, y + px, y_stride, np - px);
  if (px < np)
    conv_direct_tiles<T, kConvVectors - 1>((np - px + kLanes - 1) / kLanes, a + px * 4,
                                           quad_stride, tap_off, taps, quads, w, q, rows, y_zp,
                                           act_min, act_max, y + px, y_stride, np - px);
}

/// conv2d's direct form (pack.h's conv_dot_direct; weights packed
/// tap-major): the group's input as channel quads of its phase planes
/// (fill_quads, pack.h's direct_plane), each tap of a tile read in place
/// at its offset over virtual rows (at any stride), which go
/// through the stage (their padding pixels dropped). `tasks` as conv2d's:
/// blocks of pixels or tiles of channels.
template <typename T, typename TOut>
void conv2d_dot_direct(const T *x, const int8_t *w, const int32_t *bias, TOut *y, const Conv2d &g,
                       int64_t n, int64_t m, int64_t group, int32_t x_zp,
                       const int32_t *multiplier, const int32_t *shift, int64_t count, VecI vzp,
                       VecI vmin, VecI vmax, uint8_t *scratch, TaskRunner *runner,
                       int64_t tasks) {
  const int64_t cg = g.c / group, mg = m / group, taps = g.kh * g.kw, depth = cg * taps;
  const int64_t tile_bytes = depth * kConvRows, group_bytes = round_up(mg, kConvRows) * depth;
  const PaddedPlane pp = direct_plane(g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw);
  const int64_t count_px = conv_pixel_count(g.oh, g.ow, pp, true);
  const int64_t block = conv_pixel_block(depth, count_px), pixels = g.oh * g.ow;
  const ConvScratch sl = conv_scratch(depth, g.oh, g.ow, g.sh, cg, pp, false, kDotDepthGroup,
                                      sizeof(TOut), tasks, ConvForm::kDotDirect);
  const uint8_t pad = static_cast<uint8_t>(static_cast<T>(x_zp));
  const uint8_t flip = static_cast<uint8_t>(flip_of<T>() ^ VecI::kPackedFlip);
  const int64_t quad_stride = 4 * conv_quad_plane_bytes(pp);
  int64_t tap_off[kAmxDirectTaps] = {0};
  for (int64_t t = 0; t < taps; ++t)
    tap_off[t] = direct_tap_offset(pp, t / g.kw, t % g.kw, g.sh, g.sw, g.dh, g.dw) *
                 kDotDepthGroup;
  uint8_t *quads = scratch + sl.quads;
  const int64_t used = tasks_for(count_px * mg * depth / 32, tasks);
  constexpr int64_t kTile = kConvVectors * kLanes;
  // Pixels to the tasks only where each channel's output plane is whole
  // cache lines (or the channels are too few to go round): elsewhere the
  // split leaves a line of every channel's plane written by two cores. At
  // two threads on a 2-core EPYC (Zen 5), ResNet-18's 128-channel 28 x 28
  // layer ran 209 us split by pixels against 174 us by channels, and
  // SqueezeNet's 3x3 layers at 55 x 55 and 27 x 27 1.3x as long
  // (bench/qs8_conv_bench.cpp --threads 2); at 56 x 56 (49 lines a plane)
  // the pixel split measured as fast as the channel split or faster.
  const bool by_pixels =
      conv_splits_pixels_at_lines((count_px + kTile - 1) / kTile, (mg + kConvRows - 1) / kConvRows,
                                  used, pixels, sizeof(TOut), true);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t gi = 0; gi < group; ++gi) {
      fill_quads(x + (b * g.c + gi * cg) * g.h * g.w, g, pp, pad, flip, cg, scratch, sl, quads,
                 runner, used);
      parallel_for(runner, used, [&](int64_t t) {
        TOut *stage = reinterpret_cast<TOut *>(scratch + t * sl.task + sl.stage);
        const Range px = by_pixels ? split_range(count_px, kTile, used, t) : Range{0, count_px};
        const Range ch = by_pixels ? Range{0, mg} : split_range(mg, kConvRows, used, t);
        if (ch.begin >= ch.end)
          return;
        for (int64_t p0 = px.begin; p0 < px.end; p0 += block) {
          const int64_t np = px.end - p0 < block ? px.end - p0 : block;
          for (int64_t mt = ch.begin; mt < ch.end; mt += kConvRows) {
            const int64_t live = ch.end - mt < kConvRows ? ch.end - mt : kConvRows;
            Requant q[kConvRows];
            channel_requants(q, gi * mg + mt, live, bias, multiplier, shift, count);
            conv_direct_row(np, quads + p0 * kDotDepthGroup, quad_stride, tap_off, taps, cg / 4,
                            w + gi * group_bytes + (mt / kConvRows) * tile_bytes, q, live, vzp,
                            vmin, vmax, stage, block);
            store_virtual_rows(stage, block, live, p0, np, pp.phase, g.ow,
                               y + (b * m + gi * mg + mt) * pixels, pixels);
          }
        }
      });
    }
}

#if ONNXC_RT_SIMD_AMX
/// conv2d on AMX tiles (amx.h): the weights packed in kAmxDepthGroup, tap
/// by tap in the direct form (conv_amx_direct: each tap's second operand
/// read in place from the group's channel quads over virtual rows), else
/// as an im2col panel of whole pixel tiles (pack_panel's tile_chunks).
/// `tasks` as conv2d's: the quads (or padded planes) by channel, then
/// pixel blocks or pairs of channel tiles, each task in with_amx_tiles of
/// its own (the tile configuration is the thread's).
template <typename T, typename TOut>
void conv2d_amx(const T *x, const int8_t *w, const int32_t *bias, TOut *y, const Conv2d &g,
                int64_t n, int64_t m, int64_t group, int32_t x_zp, const int32_t *multiplier,
                const int32_t *shift, int64_t count, VecI vzp, VecI vmin, VecI vmax,
                uint8_t *scratch, TaskRunner *runner, int64_t tasks) {
  const int64_t cg = g.c / group, mg = m / group, taps = g.kh * g.kw, depth = cg * taps;
  const int64_t depth_pad = round_up(depth, kAmxDepthGroup), steps = depth_pad / kAmxDepthGroup;
  const int64_t group_bytes = round_up(mg, kAmxConvRows) * depth_pad, pixels = g.oh * g.ow;
  const bool reads_input = conv_reads_input(g.kh, g.kw, g.sh, g.sw, g.ph, g.pw);
  const bool direct = conv_amx_direct(cg, taps, g.sh, g.sw);
  const PaddedPlane pp = padded_plane(g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw);
  // The direct form always runs over virtual rows (a tap is then an
  // offset); with no padding columns (1x1) they are the output rows.
  ConvPixels cp{};
  if (direct) {
    cp.count = conv_pixel_count(g.oh, g.ow, pp, true);
    cp.virtual_rows = pp.phase != g.ow;
    cp.block = conv_pixel_block(depth, cp.count);
  } else {
    cp = conv_pixels(depth, g.oh, g.ow, g.sh, mg, pp, reads_input, kVirtualRowsBound);
  }
  const ConvScratch sl = conv_scratch(depth, g.oh, g.ow, g.sh, cg, pp, reads_input,
                                      kAmxDepthGroup, sizeof(TOut), tasks);
  const uint8_t pad = static_cast<uint8_t>(static_cast<T>(x_zp));
  const uint8_t flip = static_cast<uint8_t>(flip_of<T>() ^ VecI::kPackedFlip);
  // The second operand: channel quads ([cg/4][quad_plane][4]: a tap an
  // offset, a step 16 quads, rows one quad apart, 16 pixels 64 bytes) or
  // the panel ([nv/16][depth_pad/4][16][4]).
  const int64_t quad_plane = conv_quad_plane_bytes(pp);
  int64_t tap_off[kAmxDirectTaps] = {0};
  TileOperand base{tap_off, 1, steps, kAmxStepBytes, 64, 0};
  if (direct) {
    for (int64_t t = 0; t < taps; ++t)
      tap_off[t] = ((t / g.kw) * g.dh * pp.phase + (t % g.kw) * g.dw) * kDotDepthGroup;
    base = {tap_off, taps, cg / kAmxDepthGroup, kAmxConvRows * 4 * quad_plane, 4 * quad_plane,
            kAmxPixels * kDotDepthGroup};
  }
  // ~64 multiply-adds a cycle (parallel.h's tasks_for); the pixels to the
  // tasks where their blocks are many enough, in equal runs of pairs of
  // pixel tiles (blocks of uneven runs: whole blocks split 3 as 2 + 1), else
  // pairs of channel tiles (32 output channels: conv_tiles_amx's step).
  constexpr int64_t kPair = 2 * kAmxConvRows;
  const int64_t used = tasks_for(cp.count * mg * depth / 64, tasks);
  const int64_t blocks = (cp.count + cp.block - 1) / cp.block, pairs = (mg + kPair - 1) / kPair;
  const bool by_pixels = conv_splits_pixels(blocks, pairs, used);
  uint8_t *planes = scratch + sl.planes, *quads = scratch + sl.quads;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t gi = 0; gi < group; ++gi) {
      const T *xg = x + (b * g.c + gi * cg) * g.h * g.w;
      if (direct) {
        fill_quads(xg, g, pp, pad, flip, cg, scratch, sl, quads, runner, used);
      } else if (!reads_input) {
        pad_planes(xg, g, pp, pad, cg, planes, runner, used, by_pixels);
      }
      TOut *yg = y + (b * m + gi * mg) * pixels;
      parallel_for(runner, used, [&](int64_t t) {
        uint8_t *own = scratch + t * sl.task;
        TOut *stage = reinterpret_cast<TOut *>(own + sl.stage);
        const Range px = by_pixels ? split_range(cp.count, 2 * kAmxPixels, used, t)
                                   : Range{0, cp.count};
        const Range ch = by_pixels ? Range{0, mg} : split_range(mg, kPair, used, t);
        if (px.begin >= px.end || ch.begin >= ch.end)
          return;
        TileOperand op = base;
        auto q_at = [&](int64_t c) {
          const int64_t oc = gi * mg + ch.begin + c;
          return requant_broadcast(bias[oc], multiplier[count > 1 ? oc : 0],
                                   shift[count > 1 ? oc : 0]);
        };
        with_amx_tiles([&](bool tiles) {
          for (int64_t p0 = px.begin; p0 < px.end; p0 += cp.block) {
            const int64_t np = px.end - p0 < cp.block ? px.end - p0 : cp.block;
            const uint8_t *b0 = quads + p0 * kDotDepthGroup;
            if (!direct) {
              const int64_t nv = round_up(np, 16);
              pack_panel<kDotDepthGroup>(xg, reads_input ? nullptr : planes, pp, g, cg, p0, np,
                                         nv, depth_pad, pad, cp.virtual_rows, own,
                                         own + sl.rows, true);
              op.tile = depth_pad * kAmxPixels;
              b0 = own;
            }
            // Virtual rows go through the stage (their padding pixels
            // dropped); mt counts from the task's first channel.
            auto dest = [&](int64_t mt) {
              return cp.virtual_rows ? stage : yg + (ch.begin + mt) * pixels + p0;
            };
            auto store = [&](int64_t mt, int64_t live) {
              if (cp.virtual_rows)
                store_virtual_rows(stage, cp.block, live, p0, np, pp.phase, g.ow,
                                   yg + (ch.begin + mt) * pixels, pixels);
            };
            conv_tiles_amx<TOut>(tiles, np, b0, op,
                                 w + gi * group_bytes + ch.begin / kAmxConvRows * steps *
                                                            kAmxStepBytes,
                                 steps, ch.end - ch.begin, q_at, vzp, vmin, vmax, dest,
                                 cp.virtual_rows ? cp.block : pixels, store);
          }
        });
      });
    }
}
#endif

} // namespace detail

/// The form conv2d takes a convolution in on this instruction set
/// (pack.h's conv_form, which the packed weights, their taps and the
/// scratch follow), for weights in depth groups of `dg`, cg input and mg
/// output channels a group, the kernel, strides, output size, leading pads
/// and dilations as conv2d takes them. conv2d_sums (int32 outputs) always
/// takes the panel.
inline ConvForm conv2d_form(int64_t dg, int64_t cg, int64_t mg, int64_t kh, int64_t kw,
                            int64_t sh, int64_t sw, int64_t oh, int64_t ow, int64_t ph,
                            int64_t pw, int64_t dh, int64_t dw) {
  return conv_form(detail::kConvForms, dg, cg, mg, kh, kw, sh, sw, oh, ow, ph, pw, dh, dw);
}

/// A quantized 2-D convolution (reference/qs8.h's conv): x (N, C, H, W) of
/// T with zero point x_zp; weights packed by pack_conv_weights in depth
/// groups of G; `bias` the folded per-channel constant of fold_zero_point
/// with u_zp = packed_zero_point(x_zp + flip_of<T>(), kShifted); G and
/// kShifted as this instruction set takes them (conv_depth_group(depth),
/// kShiftedBytes: the compiler packs for its target, and a mismatch does
/// not compile); `count` multipliers (1 or M); `narrow_weights`: no
/// weight is -128 (weights_are_narrow of qs8/pack.h). `tasks` split each
/// group (conv_splits_pixels, conv2d_amx; run on `runner`, see
/// parallel.h). Scratch:
/// conv_scratch_bytes(..., G, tasks) of qs8/pack.h. TOut int32_t: the sums
/// themselves, not requantized (conv2d_sums).
template <typename T, int G, bool kShifted, typename TOut = T>
void conv2d(const T *x, const int8_t *w, const int32_t *bias, TOut *y, const int64_t *in_shape,
            const int64_t *out_shape, const int64_t *kernel, const int64_t *strides,
            const int64_t *pads_begin, const int64_t *dilations, int64_t group, int32_t x_zp,
            const int32_t *multiplier, const int32_t *shift, int64_t count, int32_t y_zp,
            int32_t act_min, int32_t act_max, bool narrow_weights, uint8_t *scratch,
            TaskRunner *runner = nullptr, int64_t tasks = 1) {
  using namespace detail;
  const Conv2d g{in_shape[1], in_shape[2], in_shape[3], out_shape[2], out_shape[3],
                 kernel[0],   kernel[1],   strides[0],  strides[1],   pads_begin[0],
                 pads_begin[1], dilations[0], dilations[1]};
  const int64_t n = in_shape[0], m = out_shape[1];
  static_assert((G == kDepthGroup || (kAmx && G == kAmxDepthGroup)) &&
                    kShifted == kShiftedBytes,
                "weights packed and folded for another instruction set (qs8/pack.h)");
  const VecI vzp = VecI::broadcast(y_zp), vmin = VecI::broadcast(act_min),
             vmax = VecI::broadcast(act_max);
#if ONNXC_RT_SIMD_AMX
  if constexpr (G == kAmxDepthGroup) {
    conv2d_amx<T>(x, w, bias, y, g, n, m, group, x_zp, multiplier, shift, count, vzp, vmin, vmax,
                  scratch, runner, tasks);
    return;
  } else
#endif
  {
#if ONNXC_RT_SIMD_QS8_WINOGRAD
    if constexpr (!std::is_same_v<TOut, int32_t>) {
      if (conv2d_form(G, g.c / group, m / group, g.kh, g.kw, g.sh, g.sw, g.oh, g.ow, g.ph, g.pw,
                      g.dh, g.dw) == ConvForm::kWinograd)
        return conv2d_winograd<T>(x, w, bias, y, g, n, m, group, x_zp, multiplier, shift, count,
                                  vzp, vmin, vmax, scratch, runner, tasks);
    }
#endif
    if constexpr (kConvLanes && !std::is_same_v<TOut, int32_t>) {
      const ConvForm form = conv2d_form(G, g.c / group, m / group, g.kh, g.kw, g.sh, g.sw, g.oh,
                                        g.ow, g.ph, g.pw, g.dh, g.dw);
      if (form == ConvForm::kChannelLanes)
        return conv2d_lanes<T>(x, w, bias, y, g, n, m, group, x_zp, multiplier, shift, count,
                               vzp, vmin, vmax, scratch, runner, tasks);
      if (form == ConvForm::kDotDirect)
        return conv2d_dot_direct<T>(x, w, bias, y, g, n, m, group, x_zp, multiplier, shift,
                                    count, vzp, vmin, vmax, scratch, runner, tasks);
    }
    const int64_t cg = g.c / group, mg = m / group;
    const int64_t depth = cg * g.kh * g.kw, depth_pad = round_up(depth, G), dgroups = depth_pad / G;
    const int64_t tile_bytes = depth_pad * kConvRows,
                  group_bytes = round_up(mg, kConvRows) * depth_pad;
    const bool reads_input = conv_reads_input(g.kh, g.kw, g.sh, g.sw, g.ph, g.pw);
    const PaddedPlane pp = padded_plane(g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw);
    const ConvPixels cp = conv_pixels(depth, g.oh, g.ow, g.sh, mg, pp, reads_input,
                                      kVirtualRowsBound);
    const int64_t pixels = g.oh * g.ow, block = cp.block;
    const ConvScratch sl =
        conv_scratch(depth, g.oh, g.ow, g.sh, cg, pp, reads_input, G, sizeof(TOut), tasks);
    uint8_t *planes = reads_input ? nullptr : scratch + sl.planes;
    const uint8_t pad = static_cast<uint8_t>(static_cast<T>(x_zp));
    // Estimated at ~32 multiply-adds a cycle (parallel.h's tasks_for).
    const int64_t used = tasks_for(cp.count * mg * depth / 32, tasks);
    constexpr int64_t kTile = kConvVectors * kLanes; // pixels a whole tile
    // As the direct form's split (conv2d_dot_direct): pixels where the
    // output planes are whole cache lines; elsewhere channels, where there
    // are 128 or more (every task then packs the whole panel: MobileNetV2's
    // 32 -> 192 layer at 28 x 28 ran 14.5 -> 11.9 us at two threads on the
    // Zen 5 host, its 144 -> 32 one slower).
    const bool by_pixels = conv_splits_pixels_at_lines((cp.count + kTile - 1) / kTile,
                                                       (mg + kConvRows - 1) / kConvRows, used,
                                                       pixels, sizeof(TOut), mg >= 128);
    for (int64_t b = 0; b < n; ++b)
      for (int64_t gi = 0; gi < group; ++gi) {
        const T *xg = x + (b * g.c + gi * cg) * g.h * g.w;
        if (planes)
          pad_planes(xg, g, pp, pad, cg, planes, runner, used, by_pixels);
        parallel_for(runner, used, [&](int64_t t) {
          uint8_t *panel = scratch + t * sl.task, *rows = panel + sl.rows;
          TOut *stage = reinterpret_cast<TOut *>(panel + sl.stage);
          const Range px = by_pixels ? split_range(cp.count, kTile, used, t)
                                     : Range{0, cp.count};
          const Range ch = by_pixels ? Range{0, mg} : split_range(mg, kConvRows, used, t);
          if (ch.begin >= ch.end)
            return;
          for (int64_t p0 = px.begin; p0 < px.end; p0 += block) {
            const int64_t np = px.end - p0 < block ? px.end - p0 : block;
            const int64_t nv = round_up(np, 16);
            pack_panel<G>(xg, planes, pp, g, cg, p0, np, nv, depth_pad, pad, cp.virtual_rows,
                          panel, rows);
            for (int64_t mt = ch.begin; mt < ch.end; mt += kConvRows) {
              const int64_t live = ch.end - mt < kConvRows ? ch.end - mt : kConvRows;
              Requant q[kConvRows];
              channel_requants(q, gi * mg + mt, live, bias, multiplier, shift, count);
              const int8_t *wt = w + gi * group_bytes + (mt / kConvRows) * tile_bytes;
              TOut *yc = y + (b * m + gi * mg + mt) * pixels;
              // Virtual rows go through the stage (their padding pixels dropped).
              TOut *yt = cp.virtual_rows ? stage : yc + p0;
              const int64_t y_stride = cp.virtual_rows ? block : pixels;
              conv_tile_row(np, panel, nv * G, wt, dgroups, narrow_weights, q, live, vzp, vmin,
                            vmax, yt, y_stride);
              if (cp.virtual_rows)
                store_virtual_rows(stage, block, live, p0, np, pp.phase, g.ow, yc, pixels);
            }
          }
        });
      }
  }
}

/// ConvInteger's int32 convolution with x's zero point known only at run
/// time (ONNX Runtime's dynamic quantization: DynamicQuantizeLinear
/// computes it; null: 0): y = sum (x - *x_zp) * w, w packed as for conv2d
/// and `weight_sums` each output channel's sum of w (qs8/pack.h). The zero
/// point's share folds per channel at run time into the front of scratch;
/// the padding is the zero point's byte, as conv2d's; `tasks` as conv2d's.
/// Scratch: conv_sums_scratch_bytes(..., G, tasks).
template <typename T, int G, bool kShifted>
void conv2d_sums(const T *x, const T *x_zp, const int8_t *w, const int32_t *weight_sums,
                 int32_t *y, const int64_t *in_shape, const int64_t *out_shape,
                 const int64_t *kernel, const int64_t *strides, const int64_t *pads_begin,
                 const int64_t *dilations, int64_t group, bool narrow_weights,
                 uint8_t *scratch, TaskRunner *runner = nullptr, int64_t tasks = 1) {
  const int64_t m = out_shape[1];
  const int32_t zp = x_zp ? int32_t(*x_zp) : 0;
  const int32_t u_zp = packed_zero_point(zp + flip_of<T>(), kShifted);
  int32_t *folded = reinterpret_cast<int32_t *>(scratch);
  for (int64_t oc = 0; oc < m; ++oc)
    folded[oc] = -u_zp * weight_sums[oc];
  const int32_t unused = 0; // no requantization: multipliers and clamps unread
  conv2d<T, G, kShifted, int32_t>(x, w, folded, y, in_shape, out_shape, kernel, strides,
                                  pads_begin, dilations, group, zp, &unused, &unused, 1, 0, 0, 0,
                                  narrow_weights, scratch + round_up(m * 4, 64), runner,
                                  tasks);
}

} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_QS8_CONV2D_H
