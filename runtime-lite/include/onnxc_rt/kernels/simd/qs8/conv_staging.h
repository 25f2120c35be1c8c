// How conv2d's forms stage data around their tiles (simd/qs8/conv2d.h): an
// input plane padded (pad_plane; in phase planes at a stride, pad_phase_planes),
// a group's planes padded by its tasks (pad_planes), four channels interleaved
// into channel quads (fill_quads; at stride 2 across, the four channels' rows
// interleaved and split into phases in one pass: fill_quad_phases2), im2col
// panels gathered from the planes or the input (gather_row, pack_panel), and a
// stage of virtual rows stored to the NCHW output (store_virtual_rows).
#ifndef ONNXC_RT_SIMD_QS8_CONV_STAGING_H
#define ONNXC_RT_SIMD_QS8_CONV_STAGING_H

#include "onnxc_rt/kernels/simd/qs8/tile.h"

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
    store_bytes(even + at / 2, even_of(a, b));
    store_bytes(odd + at / 2, odd_of(a, b));
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

/// Where an input row's columns go in the two column phases of its padded
/// row at stride 2 across, `unit` bytes a pixel (pad_row_phases2's bytes,
/// quad_row_phases2's channel quads): its first n columns (those the
/// phases' width reaches), the even ones to `evens` from pixel e0 to e1,
/// the odd ones to `odds` from o0 to o1. Input column x is padded column
/// x + pw: phase (x + pw) % 2, pixel (x + pw) / 2 of it, so the even
/// columns go to phase pw % 2.
struct RowPhases2 {
  int64_t n, e0, o0, e1, o1, unit;
  uint8_t *evens, *odds;
  /// The padding on either side of the columns, written after them (a
  /// short row's step in quad_row_phases2 runs past e1 and o1).
  void fill_edges(int64_t width, uint8_t pad) const {
    fill_bytes(evens, unit * e0, pad);
    fill_bytes(odds, unit * o0, pad);
    fill_bytes(evens + unit * e1, unit * (width - e1), pad);
    fill_bytes(odds + unit * o1, unit * (width - o1), pad);
  }
};
inline RowPhases2 row_phases2(const Conv2d &g, int64_t width, int64_t unit, uint8_t *phase0,
                              uint8_t *phase1) {
  const int64_t n = g.w < 2 * width - g.pw ? g.w : 2 * width - g.pw;
  const int64_t e0 = g.pw / 2, o0 = (g.pw + 1) / 2;
  return {n, e0, o0, e0 + (n + 1) / 2, o0 + n / 2, unit, g.pw % 2 ? phase1 : phase0,
          g.pw % 2 ? phase0 : phase1};
}

/// Input row `row` (null: a padding row) as both column phases of its
/// padded row at stride 2 across, `width` bytes each at phase0 and phase1,
/// the row read once (split_even_odd) rather than once a phase (the
/// padding is an eighth of a 64 -> 128 stride-2 layer at 56 x 56), its
/// columns placed as row_phases2 says.
inline void pad_row_phases2(const uint8_t *row, const Conv2d &g, int64_t width, uint8_t pad,
                            uint8_t *phase0, uint8_t *phase1) {
  const RowPhases2 rp = row_phases2(g, width, 1, phase0, phase1);
  if (!row || rp.n <= 0) {
    fill_bytes(phase0, width, pad);
    return fill_bytes(phase1, width, pad);
  }
  split_even_odd(row, rp.n, rp.evens + rp.e0, rp.odds + rp.o0);
  rp.fill_edges(width, pad);
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
    int64_t r = first;
    if (row_step == 1) {
      // Where VecI has byte masks (x86.h's padded_plane): each row one load
      // under a mask and one store, for the rows whose store (padded_plane_span
      // bytes from the row's start) ends within the share, or within the plane's
      // slack after the last row (ResNet-18's 3x3 64 -> 64 @56: rows of
      // 58 bytes, six stores and four loads a row before).
      const int64_t spill = VecI::padded_plane_span(pp.phase) - pp.phase;
      const int64_t end = rows.end < pp.rows ? rows.end - (spill + pp.phase - 1) / pp.phase
                          : spill <= pp.slack ? rows.end
                                              : r;
      if (end > r && VecI::padded_plane(src, g.h, g.w, g.ph - r, g.pw, end - r, pp.phase, pad, 0,
                                        out + r * pp.phase))
        r = end;
    }
    for (; r < rows.end; r += row_step) {
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
/// of it (the slack aside), read or not. At stride 1 (one phase:
/// padded_plane's plane, AMX's direct form's too) pad_plane's. (At stride
/// 2 across fill_quads stages four channels at once: fill_quad_phases2.)
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
    for (int64_t rx = 0; rx < g.sw; ++rx) {
      const PhaseColumns pc = phase_columns(g, rx, width);
      for (int64_t i = 0; i < rows; ++i)
        pad_row_phase(input_row(i), g, pc, width, pad, phase0 + (rx * rows + i) * width);
    }
  }
}

/// Four channels' input rows (row[j], w bytes each; null: a padding row)
/// as both column phases of their padded row at stride 2 across, in
/// channel quads (4 bytes a pixel, each byte XORed with `flip`), `width`
/// pixels each at phase0 and phase1, the columns placed as row_phases2
/// says. 16 columns a step interleaved, then split by parity in 4-byte
/// units in registers; the last step moved back over the one before, so
/// nothing past a row is read or written. Rows under 16 columns a step
/// too where `overrun` allows it: 16 bytes read from each row, 16 pixels
/// written to each phase (the rows after them rewritten later), else a
/// column at a time.
inline void quad_row_phases2(const uint8_t *const row[4], const Conv2d &g, int64_t width,
                             uint8_t pad, uint8_t flip, bool overrun, uint8_t *phase0,
                             uint8_t *phase1) {
  const uint8_t padded = pad ^ flip;
  const RowPhases2 rp = row_phases2(g, width, 4, phase0, phase1);
  const int64_t n = rp.n;
  if (!row[0] || n <= 0) {
    fill_bytes(phase0, 4 * width, padded);
    return fill_bytes(phase1, 4 * width, padded);
  }
  uint8_t *even_px = rp.evens + 4 * rp.e0, *odd_px = rp.odds + 4 * rp.o0;
  // Input column x (any parity) alone, as the steps below place it.
  auto column = [&](int64_t x) {
    const uint8_t quad[4] = {uint8_t(row[0][x] ^ flip), uint8_t(row[1][x] ^ flip),
                             uint8_t(row[2][x] ^ flip), uint8_t(row[3][x] ^ flip)};
    __builtin_memcpy((x % 2 ? odd_px : even_px) + 4 * (x / 2), quad, 4);
  };
  if (n < 16 && !overrun) {
    for (int64_t x = 0; x < n; ++x)
      column(x);
  } else {
    using Words = uint32_t __attribute__((vector_size(16)));
    const Bytes f = Bytes{} + flip;
    auto step = [&](int64_t at) { // at even: columns [at, at + 16)
      Bytes o[4]; // o[k]: columns at + 4k .. at + 4k + 3
      interleave4_tile(load_bytes(row[0] + at) ^ f, load_bytes(row[1] + at) ^ f,
                       load_bytes(row[2] + at) ^ f, load_bytes(row[3] + at) ^ f, o);
      Words w[4];
      for (int k = 0; k < 4; ++k)
        w[k] = reinterpret_cast<Words>(o[k]);
      uint8_t *e = even_px + 2 * at, *d = odd_px + 2 * at; // 4 bytes a pixel, at / 2
      store_bytes(e, reinterpret_cast<Bytes>(__builtin_shufflevector(w[0], w[1], 0, 2, 4, 6)));
      store_bytes(e + 16,
                  reinterpret_cast<Bytes>(__builtin_shufflevector(w[2], w[3], 0, 2, 4, 6)));
      store_bytes(d, reinterpret_cast<Bytes>(__builtin_shufflevector(w[0], w[1], 1, 3, 5, 7)));
      store_bytes(d + 16,
                  reinterpret_cast<Bytes>(__builtin_shufflevector(w[2], w[3], 1, 3, 5, 7)));
    };
    int64_t at = 0;
    for (; at + 16 <= n; at += 16)
      step(at);
    if (n < 16) // overrun
      step(0);
    else if (at < n)
      step((n - 16) & ~int64_t(1));
    if (n % 2 && n > 16)
      column(n - 1);
  }
  rp.fill_edges(width, padded); // after the steps: a short row's step runs past o1
}

/// Channels [4q, 4q + 4) of xg (h x w planes) as fill_quads' channel quad
/// q at `quad` ([quad plane][4]) for a direct_plane `pp` at stride 2
/// across: each phase row of both column phases from the four channels'
/// input row in one pass (quad_row_phases2; short rows a step each but
/// where that would read past the plane or write past the phase plane),
/// the slack `pad`. Padding each channel's phase planes and then
/// interleaving them (fill_quads' other way) wrote and read the quad's
/// bytes twice more: that staging was 16% of ResNet-18's 64 -> 128
/// stride-2 3x3 layer.
inline void fill_quad_phases2(const uint8_t *xg, const Conv2d &g, const PaddedPlane &pp,
                              uint8_t pad, uint8_t flip, int64_t q, uint8_t *quad) {
  const int64_t rows = pp.rows / pp.row_phases, width = pp.phase, plane = g.h * g.w;
  for (int64_t ry = 0; ry < g.sh; ++ry) {
    uint8_t *phase0 = quad + 4 * ry * g.sw * rows * width;
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t iy = i * g.sh + ry - g.ph;
      const uint8_t *row[4] = {nullptr, nullptr, nullptr, nullptr};
      if (iy >= 0 && iy < g.h)
        for (int64_t j = 0; j < 4; ++j)
          row[j] = xg + (4 * q + j) * plane + iy * g.w;
      const bool overrun =
          iy * g.w + 16 <= plane && i * width + (g.pw + 1) / 2 + 8 <= rows * width;
      quad_row_phases2(row, g, width, pad, flip, overrun, phase0 + 4 * i * width,
                       phase0 + 4 * (rows + i) * width);
    }
  }
  const int64_t filled = pp.bytes() - pp.slack;
  fill_bytes(quad + 4 * filled, 4 * (conv_quad_plane_bytes(pp) - filled), pad ^ flip);
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
/// sl.rows) interleaved, over `used` tasks on `runner`. Each channel's
/// plane as pad_phase_planes fills it (strided: the dot products' direct
/// form only; at stride 2 across a quad in one pass, fill_quad_phases2,
/// the scratch unused). Split by quad, or, where the convolution's tasks
/// then take runs of the virtual pixels (`pixel_unit` > 0: split_range(count_px,
/// pixel_unit, used, t)) at stride 1, by those runs of every quad's plane:
/// each task fills about the bytes its tiles read (all but the kernel's
/// reach into the next run), in its own core's cache, and reads the rows
/// of the input that the layer before wrote there where that layer split
/// its output by pixels too. Split by quad, every task's tiles read every
/// quad, half of them from the other core's cache at two tasks.
template <typename T>
void fill_quads(const T *xg, const Conv2d &g, const PaddedPlane &pp, uint8_t pad, uint8_t flip,
                int64_t cg, uint8_t *scratch, const ConvScratch &sl, uint8_t *quads,
                TaskRunner *runner, int64_t used, int64_t pixel_unit = 0,
                int64_t count_px = 0) {
  const int64_t quad_plane = conv_quad_plane_bytes(pp), filled = pp.bytes() - pp.slack;
  const bool by_pixels = pixel_unit > 0 && g.sh == 1 && g.sw == 1;
  if (g.sw == 2 && pp.row_phases > 0) { // direct_plane at stride 2 across: one pass a quad
    parallel_for(runner, used, [&](int64_t t) {
      const Range quad = split_range(cg / 4, 1, used, t);
      for (int64_t q = quad.begin; q < quad.end; ++q)
        fill_quad_phases2(reinterpret_cast<const uint8_t *>(xg), g, pp, pad, flip, q,
                          quads + q * 4 * quad_plane);
    });
    return;
  }
  parallel_for(runner, used, [&](int64_t t) {
    uint8_t *four = scratch + t * sl.task + sl.rows;
    // Bytes [b0, b1) of each quad in `quad`: whole 16-byte steps of
    // interleave_rows, from the rows of the padded planes that hold them.
    auto pixel_start = [&](int64_t task) {
      return task == used ? quad_plane
                          : split_range(count_px, pixel_unit, used, task).begin / 16 * 16;
    };
    const Range quad = by_pixels ? Range{0, cg / 4} : split_range(cg / 4, 1, used, t);
    const int64_t b0 = by_pixels ? pixel_start(t) : 0, b1 = by_pixels ? pixel_start(t + 1)
                                                                      : quad_plane;
    if (b0 >= b1)
      return;
    const int64_t row_end = (b1 + pp.phase - 1) / pp.phase, tail = b0 > filled ? b0 : filled;
    const Range rows{b0 / pp.phase, row_end < pp.rows ? row_end : pp.rows};
    for (int64_t q = quad.begin; q < quad.end; ++q) {
      const uint8_t *src[4];
      for (int64_t j = 0; j < 4; ++j) {
        uint8_t *plane = four + j * quad_plane;
        if (by_pixels)
          pad_plane(xg + (4 * q + j) * g.h * g.w, g, pp, pad, plane, rows);
        else
          pad_phase_planes(xg + (4 * q + j) * g.h * g.w, g, pp, pad, plane);
        if (b1 > tail)
          fill_bytes(plane + tail, b1 - tail, pad);
        src[j] = plane + b0;
      }
      interleave_rows<4>(src, b1 - b0, flip, quads + q * 4 * quad_plane + 4 * b0);
    }
  });
}

/// Each tap's offset in bytes into fill_quads' channel quads from an output
/// pixel's place (direct_tap_offset, 4 bytes a pixel): tap_off[t] for the
/// kernel's kh * kw taps, row-major.
inline void quad_tap_offsets(const Conv2d &g, const PaddedPlane &pp, int64_t *tap_off) {
  for (int64_t t = 0; t < g.kh * g.kw; ++t)
    tap_off[t] = direct_tap_offset(pp, t / g.kw, t % g.kw, g.sh, g.sw, g.dh, g.dw) * 4;
}

/// One im2col row from a padded plane: tap (ky, kx), output pixels
/// [p0, p0 + n) (p0 = oy0 * ow + ox0), copied in whole 16-byte vectors
/// (the slack of the plane and of `row` takes the overrun), or rows over
/// 64 bytes in 64-byte steps where VecI has them (copy_run_64).
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
  // Longer rows run by run, each run's overrun rewritten by the next's.
  int64_t len = ow - ox0 < n ? ow - ox0 : n;
  for (int64_t p = 0; p < n;) {
    if constexpr (VecI::kCopy64)
      VecI::copy_run_64(row + p, src, len);
    else
      for (int64_t i = 0; i < len; i += 16)
        store_bytes(row + p + i, load_bytes(src + i));
    p += len;
    src += row_step - ox0;
    ox0 = 0;
    len = ow < n - p ? ow : n - p;
  }
}

/// One im2col row of a convolution that reads its input as it is at a
/// stride (pack.h's conv_reads_input: 1x1, no padding): output pixels
/// [p0, p0 + n) (p0 = oy0 * ow + ox0) from the input plane `plane`, row by
/// row, reading no byte past the last pixel it takes.
inline void gather_strided_row(const uint8_t *plane, const Conv2d &g, int64_t oy0, int64_t ox0,
                               int64_t n, uint8_t *row) {
  const int64_t ow = g.ow, row_step = g.sh * g.w, sw = g.sw;
  const uint8_t *src = plane + oy0 * row_step + ox0 * sw;
  for (int64_t p = 0, ox = ox0; p < n; ox = 0) {
    const int64_t len = ow - ox < n - p ? ow - ox : n - p;
    copy_strided_bytes(row + p, src, len, sw);
    p += len;
    src += row_step - ox * sw;
  }
}

/// Packs output pixels [p0, p0 + n) of one group into `panel`
/// ([depth_pad/G][nv][G] unsigned bytes, nv = n rounded up to 16, the
/// depth past the group's zeros; AMX's order with tile_chunks), from the
/// group's input x (read as it is, in place at stride 1) or its padded
/// planes, gathering rows into `rows` (G * nv bytes and 64 of slack). Over
/// virtual rows (qs8/pack.h's ConvPixels: p0 and n count packed pixels)
/// each tap's row is read in place from its stride-1 padded plane: one run
/// of it.
template <int G, typename T>
void pack_panel(const T *x, const uint8_t *planes, const PaddedPlane &pp, const Conv2d &g,
                int64_t cg, int64_t p0, int64_t n, int64_t nv, int64_t depth_pad, uint8_t pad,
                bool virtual_rows, uint8_t *panel, uint8_t *rows, bool tile_chunks = false) {
  // tile_chunks (AMX): [nv/16][depth_pad/G][16][G], each 16 pixels' depth
  // together (a tile of TDPBSUD's second operand is 1 KiB in one piece).
  const int64_t group_step = tile_chunks ? 16 * G : nv * G,
                chunk = tile_chunks ? depth_pad * 16 : 16 * G;
  const int64_t taps = g.kh * g.kw, depth = cg * taps, plane = g.h * g.w;
  const bool strided = g.sh != 1 || g.sw != 1;
  const bool direct = planes == nullptr && !strided && p0 + nv <= plane;
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
        else if (strided) // 1x1 read as it is
          gather_strided_row(reinterpret_cast<const uint8_t *>(x + k * plane), g, oy0, ox0, n,
                             row);
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

} // namespace detail
} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_QS8_CONV_STAGING_H
