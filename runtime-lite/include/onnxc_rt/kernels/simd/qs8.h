// SIMD kernels of the qs8 scheme: the same integers as reference/qs8.h,
// bit for bit (the sweep tests in test/kernels/simd_qs8_test.cpp check it),
// written once over VecI (simd/isa/x86.h: vpdpbusd with VNNI, vpmaddwd
// without; simd/isa/neon.h: USDOT with i8mm, SDOT with dotprod, widening
// multiplies without).
//
//  conv2d           im2col of a block of output pixels into unsigned bytes,
//                   four depth values per pixel together ([depth/4][pixels][4];
//                   eight with NEON's i8mm, whose USMMLA multiplies two
//                   pixels' 8 by two channels' 8), times weights packed at
//                   compile time (qs8_pack.h) in register tiles of 4 output
//                   channels x up to 6 (AVX-512, NEON) or 2 (AVX2, armv8-a)
//                   vectors of pixels; requantized from registers into the
//                   NCHW output.
//  depthwise_conv2d blocks of 16 channels interleaved pixel by pixel and
//                   zero-point padded, one band of rows at a time: where
//                   NEON has a byte dot product (dotprod, i8mm) as quads
//                   of a kernel row's bytes, one dot product per four
//                   taps, else widened (int32 on x86, int16 on NEON), one
//                   multiply-add per tap; each output pixel's 16 channels
//                   from one load per unit; transposed back to NCHW.
//  fully_connected  rows of the input as unsigned bytes, times weights packed
//                   in blocks of 16 columns; 4 rows x 4 vectors per tile
//                   (8 x 2 with SDOT, 6 x 4 with USMMLA; on armv8-a 4 x 1,
//                   16 depth bytes of a row times 16 of a column per
//                   product).
//  add              same-shape inputs (the broadcast ones run the reference).
//  quantize_linear, dequantize_linear
//                   per tensor, a vector at a time (the edges of the int8
//                   regions: inputs, float layers' outputs and inputs).
//
// The requantization is reference/qs8.h's multiply_by_quantized_multiplier
// per lane: saturating left shift, truncated doubling high multiply,
// rounding right shift (the one rounding; the reference says why the
// three steps are its 64-bit form).
#ifndef ONNXC_RT_SIMD_QS8_H
#define ONNXC_RT_SIMD_QS8_H

#include <limits>
#include <type_traits>

#include "onnxc_rt/kernels/reference/qs8.h"
#include "onnxc_rt/kernels/simd/qs8_pack.h"
#include "onnxc_rt/kernels/simd/vec.h"

namespace onnxc_rt {
namespace simd {
namespace qs8 {

/// Whether conv2d and fully_connected multiply 16 depth bytes of one
/// operand by 16 of the other at once (VecI::dot16: armv8-a, whose
/// products otherwise need a broadcast of 4 bytes and pair sums of two
/// vectors).
constexpr bool kDepth16 = VecI::kDepth16Dots;
/// The depth values conv2d and fully_connected keep together (qs8_pack.h),
/// the G of their packed weights: 8 for the byte matrix multiply, 16 for
/// the 16-byte products, 4 for the dot products.
constexpr int kDepthGroup = VecI::kMatMul ? int(kMatMulDepthGroup)
                            : kDepth16    ? int(kWideDepthGroup)
                                          : int(kDotDepthGroup);
/// Whether their products take the activations' bytes u as u - 128
/// (VecI::kPackedFlip: NEON's SDOT and SMULL), the weights' share 128 *
/// sum(w) folded into the bias at compile time (packed_zero_point).
constexpr bool kShiftedBytes = VecI::kPackedFlip != 0;

namespace detail {

constexpr int kLanes = VecI::kLanes;

/// The per-lane constants of a requantization: multiplier, left and right
/// shift (reference/qs8.h's split_shift: left = max(shift + 1, 0), right =
/// max(-shift, 1)) and the value added to the accumulator first;
/// scales_up: whether any lane's left is above 0 (a factor of 0.5 or more,
/// rare: without it the saturating left shift is skipped).
struct Requant {
  VecI add, multiplier, left, right;
  bool scales_up = true;
};

inline Requant requant_broadcast(int32_t add, int32_t multiplier, int32_t shift) {
  const ref::qs8::Shifts s = ref::qs8::split_shift(shift);
  return {VecI::broadcast(add), VecI::broadcast(multiplier), VecI::broadcast(s.left),
          VecI::broadcast(s.right), s.left > 0};
}

/// Lanes [0, n) of p, the rest 0 (reads nothing past them).
inline VecI load_first(const int32_t *p, int64_t n) {
  if (n >= kLanes)
    return VecI::load(p);
  int32_t lanes[kLanes] = {};
  for (int64_t i = 0; i < n; ++i)
    lanes[i] = p[i];
  return VecI::load(lanes);
}

/// Whether any column of [col, col + n) scales up (Requant's scales_up):
/// per column when count > 1, else the one shift.
inline bool columns_scale_up(const int32_t *shift, int64_t count, int64_t col, int64_t n) {
  if (count <= 1)
    return shift[0] >= 0;
  bool up = false;
  for (int64_t i = col; i < col + n; ++i)
    up |= shift[i] >= 0;
  return up;
}

/// Per-column constants for columns [col, col + n) (n <= kLanes):
/// multiplier and shift per column when count > 1, else broadcast;
/// `scales_up` as columns_scale_up gives it for them (or for a wider
/// range: the full requantization is exact where no lane scales up too).
ONNXC_RT_SIMD_INLINE Requant requant_columns(const int32_t *add, const int32_t *multiplier,
                                             const int32_t *shift, int64_t count, int64_t col,
                                             int64_t n, bool scales_up) {
  const VecI s = count > 1 ? load_first(shift + col, n) : VecI::broadcast(shift[0]);
  return {load_first(add + col, n),
          count > 1 ? load_first(multiplier + col, n) : VecI::broadcast(multiplier[0]),
          VecI::max(VecI::add(s, VecI::broadcast(1)), VecI::zero()),
          VecI::max(VecI::sub(VecI::zero(), s), VecI::broadcast(1)), scales_up};
}

/// reference/qs8.h's multiply_by_quantized_multiplier, lane by lane (the
/// ISA header's VecI: generic vector code in int_ops.inc, or instructions
/// that do it, as NEON's SQSHL / SQDMULH / SRSHL).
ONNXC_RT_SIMD_INLINE VecI multiply_by_quantized_multiplier(VecI x, VecI multiplier, VecI left,
                                                           VecI right) {
  return VecI::multiply_by_quantized_multiplier(x, multiplier, left, right);
}

/// x (the accumulator with q.add already added) requantized, before the
/// output's zero point.
ONNXC_RT_SIMD_INLINE VecI requantize_scaled(VecI x, const Requant &q) {
  return q.scales_up ? VecI::multiply_by_quantized_multiplier(x, q.multiplier, q.left, q.right)
                     : VecI::multiply_by_quantized_multiplier_down(x, q.multiplier, q.right);
}

/// requantize_scaled with the choice made by the caller, once for a loop
/// (kUp: whether any of its Requants scales up; the full form is exact
/// for the lanes that do not): a test per vector in the loop otherwise,
/// where GCC does not unswitch it.
template <bool kUp> ONNXC_RT_SIMD_INLINE VecI requantize_as(VecI x, const Requant &q) {
  if constexpr (kUp)
    return VecI::multiply_by_quantized_multiplier(x, q.multiplier, q.left, q.right);
  else
    return VecI::multiply_by_quantized_multiplier_down(x, q.multiplier, q.right);
}

/// y_zp + r (requantize_scaled's), clamped to [act_min, act_max].
ONNXC_RT_SIMD_INLINE VecI to_output(VecI r, VecI y_zp, VecI act_min, VecI act_max) {
  return VecI::min(VecI::max(VecI::add(r, y_zp), act_min), act_max);
}

/// y_zp + requantized (acc + q.add), clamped to [act_min, act_max].
ONNXC_RT_SIMD_INLINE VecI requantize(VecI acc, const Requant &q, VecI y_zp, VecI act_min,
                                     VecI act_max) {
  return to_output(requantize_scaled(VecI::add(acc, q.add), q), y_zp, act_min, act_max);
}

/// NV vectors of sums requantized and stored narrowed to T at y, the
/// first `valid` lanes: all of them at once when all are
/// (VecI::store_narrow_clamped: NEON adds the zero point and clamps after
/// narrowing, on 8 or 16 lanes a vector), else only the vectors that hold
/// some. kAdded: the sums hold q.add already (tiles that start from it).
template <int NV, typename T, bool kAdded = false>
ONNXC_RT_SIMD_INLINE void requantize_store(const VecI (&acc)[NV], const Requant &q, VecI y_zp,
                                           VecI act_min, VecI act_max, T *y, int64_t valid) {
  // acc indexed by constants only (for_each_index): a variable index
  // would keep the caller's sums in memory.
  if (valid >= NV * kLanes) {
    VecI r[NV];
    for_each_index<NV>([&](auto v) ONNXC_RT_SIMD_LAMBDA {
      r[v] = requantize_scaled(kAdded ? acc[v] : VecI::add(acc[v], q.add), q);
    });
    return VecI::store_narrow_clamped(y, r, y_zp, act_min, act_max);
  }
  for_each_index<NV>([&](auto v) ONNXC_RT_SIMD_LAMBDA {
    const int64_t left = valid - int64_t(v) * kLanes;
    if (left > 0) {
      const VecI r = requantize_scaled(kAdded ? acc[v] : VecI::add(acc[v], q.add), q);
      to_output(r, y_zp, act_min, act_max)
          .store_narrow(y + v * kLanes, left < kLanes ? left : kLanes);
    }
  });
}

// 16 bytes as a GCC/Clang vector: the byte moves below are written once
// and compile to punpck/pack/pmax on x86 and zip/uzp/smax on NEON.
using Bytes = uint8_t __attribute__((vector_size(16)));
using SignedBytes = int8_t __attribute__((vector_size(16)));
using Halves = uint16_t __attribute__((vector_size(16)));

inline Bytes load_bytes(const void *p) {
  Bytes b;
  __builtin_memcpy(&b, p, sizeof b);
  return b;
}
inline void store_bytes(void *p, Bytes b) { __builtin_memcpy(p, &b, sizeof b); }

/// The even bytes of the 32 bytes a, b (a first).
inline Bytes even_bytes(Bytes a, Bytes b) {
  return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
}
/// The odd bytes of the 32 bytes a, b (a first).
inline Bytes odd_bytes(Bytes a, Bytes b) {
  return __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
}
/// Bytes 0-7 of a and b interleaved, a0 b0 a1 b1 ... (ZIP1 / punpcklbw).
inline Bytes zip_low(Bytes a, Bytes b) {
  return __builtin_shufflevector(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
}
/// Bytes 8-15 of a and b interleaved (ZIP2 / punpckhbw).
inline Bytes zip_high(Bytes a, Bytes b) {
  return __builtin_shufflevector(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15,
                                 31);
}

/// The 16 x 16 bytes r transposed (byte j of row i becomes byte i of row
/// j): four rounds of interleaving rows i and i + 8 (ZIP1/ZIP2 on NEON,
/// punpcklbw/punpckhbw on x86), each a rotation of the index bits.
inline void transpose16(Bytes (&r)[16]) {
  for (int round = 0; round < 4; ++round) {
    Bytes t[16];
    for (int i = 0; i < 8; ++i) {
      t[2 * i] = zip_low(r[i], r[i + 8]);
      t[2 * i + 1] = zip_high(r[i], r[i + 8]);
    }
    for (int i = 0; i < 16; ++i)
      r[i] = t[i];
  }
}

/// 16 bytes of each of four rows a, b, c, d interleaved into 64 bytes
/// ([16][4]: a0 b0 c0 d0 a1 ...): bytes in pairs, then the pairs in pairs.
inline void interleave4_tile(Bytes a, Bytes b, Bytes c, Bytes d, Bytes (&o)[4]) {
  const Halves ab_lo = reinterpret_cast<Halves>(zip_low(a, b));
  const Halves ab_hi = reinterpret_cast<Halves>(zip_high(a, b));
  const Halves cd_lo = reinterpret_cast<Halves>(zip_low(c, d));
  const Halves cd_hi = reinterpret_cast<Halves>(zip_high(c, d));
  o[0] = reinterpret_cast<Bytes>(__builtin_shufflevector(ab_lo, cd_lo, 0, 8, 1, 9, 2, 10, 3, 11));
  o[1] = reinterpret_cast<Bytes>(
      __builtin_shufflevector(ab_lo, cd_lo, 4, 12, 5, 13, 6, 14, 7, 15));
  o[2] = reinterpret_cast<Bytes>(__builtin_shufflevector(ab_hi, cd_hi, 0, 8, 1, 9, 2, 10, 3, 11));
  o[3] = reinterpret_cast<Bytes>(
      __builtin_shufflevector(ab_hi, cd_hi, 4, 12, 5, 13, 6, 14, 7, 15));
}

/// G rows of `n` bytes (G 4, 8 or 16, n a multiple of 16) interleaved into
/// [n][G], each byte XORed with `flip` (0x80 turns int8 into x + 128).
/// Sixteen rows are 16 x 16 byte blocks transposed.
/// With an interleaving store (NEON's ST4: V::kStore4) four rows are one
/// store, and eight are their byte pairs stored as four rows of halves;
/// else eight rows are two interleaves of four whose 4-byte groups are
/// then interleaved in turn.
template <int G, typename V = VecI>
inline void interleave_rows(const uint8_t *const src[G], int64_t n, uint8_t flip, uint8_t *out) {
  static_assert(G == 4 || G == 8 || G == 16, "depth groups of 4, 8 or 16");
  using Words = uint32_t __attribute__((vector_size(16)));
  const Bytes f = Bytes{} + flip;
  if constexpr (G == 16) {
    for (int64_t i = 0; i < n; i += 16) {
      Bytes r[16];
      for (int j = 0; j < 16; ++j)
        r[j] = load_bytes(src[j] + i) ^ f;
      transpose16(r);
      for (int j = 0; j < 16; ++j)
        store_bytes(out + (i + j) * 16, r[j]);
    }
    return;
  }
  if constexpr (V::kStore4) {
    auto row = [&](int j, int64_t i) {
      return V{reinterpret_cast<typename V::Int>(load_bytes(src[j] + i) ^ f)};
    };
    auto pairs = [](V a, V b, bool high) {
      const Bytes x = reinterpret_cast<Bytes>(a.v), y = reinterpret_cast<Bytes>(b.v);
      return V{reinterpret_cast<typename V::Int>(high ? zip_high(x, y) : zip_low(x, y))};
    };
    for (int64_t i = 0; i < n; i += 16) {
      if constexpr (G == 4) {
        V::store4_bytes(out + i * 4, row(0, i), row(1, i), row(2, i), row(3, i));
      } else {
        const V r[8] = {row(0, i), row(1, i), row(2, i), row(3, i),
                        row(4, i), row(5, i), row(6, i), row(7, i)};
        for (int h = 0; h < 2; ++h)
          V::store4_halves(out + i * 8 + 64 * h, pairs(r[0], r[1], h), pairs(r[2], r[3], h),
                           pairs(r[4], r[5], h), pairs(r[6], r[7], h));
      }
    }
    return;
  }
  for (int64_t i = 0; i < n; i += 16) {
    Bytes lo[4];
    interleave4_tile(load_bytes(src[0] + i) ^ f, load_bytes(src[1] + i) ^ f,
                     load_bytes(src[2] + i) ^ f, load_bytes(src[3] + i) ^ f, lo);
    uint8_t *o = out + i * G;
    if constexpr (G == 4) {
      for (int j = 0; j < 4; ++j)
        store_bytes(o + 16 * j, lo[j]);
    } else {
      Bytes hi[4];
      interleave4_tile(load_bytes(src[4] + i) ^ f, load_bytes(src[5] + i) ^ f,
                       load_bytes(src[6] + i) ^ f, load_bytes(src[7] + i) ^ f, hi);
      for (int j = 0; j < 4; ++j) {
        const Words l = reinterpret_cast<Words>(lo[j]), h = reinterpret_cast<Words>(hi[j]);
        store_bytes(o + 32 * j, reinterpret_cast<Bytes>(__builtin_shufflevector(l, h, 0, 4, 1, 5)));
        store_bytes(o + 32 * j + 16,
                    reinterpret_cast<Bytes>(__builtin_shufflevector(l, h, 2, 6, 3, 7)));
      }
    }
  }
}

/// The geometry of a 2-D convolution (NCHW).
struct Conv2d {
  int64_t c, h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw;
};

/// n bytes (n in [k, 2k]) moved as two k-byte pieces, the second ending at
/// n: short rows in two overlapping loads or stores instead of a byte loop.
template <int K> inline void copy_overlapping(uint8_t *dst, const uint8_t *src, int64_t n) {
  uint8_t head[K], tail[K];
  __builtin_memcpy(head, src, K);
  __builtin_memcpy(tail, src + n - K, K);
  __builtin_memcpy(dst, head, K);
  __builtin_memcpy(dst + n - K, tail, K);
}

/// dst[0, n) = v. (Rows are short: inline 16-byte stores beat a memset
/// call, which took a third of pad_plane's time in MobileNetV2; below 16,
/// two overlapping 8- or 4-byte stores.)
inline void fill_bytes(uint8_t *dst, int64_t n, uint8_t v) {
  const Bytes p = Bytes{} + v;
  if (n >= 16 && n <= 32) { // (GCC turns the loop below into a memset call)
    store_bytes(dst, p);
    store_bytes(dst + n - 16, p);
    return;
  }
  if (n >= 16) {
    for (int64_t i = 0; i + 16 <= n; i += 16)
      store_bytes(dst + i, p);
    if (n % 16)
      store_bytes(dst + n - 16, p);
    return;
  }
  if (n >= 8) {
    const uint64_t v8 = 0x0101010101010101ull * v;
    __builtin_memcpy(dst, &v8, 8);
    __builtin_memcpy(dst + n - 8, &v8, 8);
    return;
  }
  if (n >= 4) {
    const uint32_t v4 = 0x01010101u * v;
    __builtin_memcpy(dst, &v4, 4);
    __builtin_memcpy(dst + n - 4, &v4, 4);
    return;
  }
  if (n > 0) // 1 to 3 bytes (a loop would be a memset call too)
    dst[0] = dst[n / 2] = dst[n - 1] = v;
}

/// The first n bytes (0 < n <= 16) of v stored at dst, nothing past them.
inline void store_bytes_first(uint8_t *dst, Bytes v, int64_t n) {
  if (n >= 16)
    return store_bytes(dst, v);
  uint8_t b[16];
  store_bytes(b, v);
  if (n >= 8)
    return copy_overlapping<8>(dst, b, n);
  if (n >= 4)
    return copy_overlapping<4>(dst, b, n);
  for (int64_t i = 0; i < n; ++i)
    dst[i] = b[i];
}

/// n bytes (0 < n <= 16) from src, the rest `fill`; reads nothing past them.
inline Bytes load_bytes_first(const uint8_t *src, int64_t n, uint8_t fill) {
  if (n >= 16)
    return load_bytes(src);
  uint8_t b[16];
  store_bytes(b, Bytes{} + fill);
  if (n >= 8)
    copy_overlapping<8>(b, src, n);
  else if (n >= 4)
    copy_overlapping<4>(b, src, n);
  else
    for (int64_t i = 0; i < n; ++i)
      b[i] = src[i];
  return load_bytes(b);
}

/// dst[i] = src[i * step] for i in [0, n): 16 at a time for steps 1 and 2
/// (stride-2 windows; the last vector overlaps the one before), short rows
/// in two overlapping pieces, never reading past src[(n - 1) * step].
inline void copy_strided_bytes(uint8_t *dst, const uint8_t *src, int64_t n, int64_t step) {
  auto store = [&](int64_t i, Bytes v) { store_bytes(dst + i, v); };
  auto load = [&](int64_t at) { return load_bytes(src + at); };
  if (step == 1) {
    if (n >= 16) {
      for (int64_t i = 0; i + 16 < n; i += 16)
        store(i, load(i));
      store(n - 16, load(n - 16));
      return;
    }
    if (n >= 8)
      return copy_overlapping<8>(dst, src, n);
    if (n >= 4)
      return copy_overlapping<4>(dst, src, n);
  }
  if (step == 2 && n >= 17) {
    // The even bytes of 32 for outputs [i, i + 16): reads src[2i, 2i + 32),
    // within src[0, 2n - 1) while i <= n - 17; output n - 1 alone.
    auto even = [&](int64_t i) { store(i, even_bytes(load(2 * i), load(2 * i + 16))); };
    for (int64_t i = 0; i + 17 < n; i += 16)
      even(i);
    even(n - 17);
    dst[n - 1] = src[2 * (n - 1)];
    return;
  }
  if (step == 2 && n >= 9) {
    // Outputs [0, 8): the even bytes of src[0, 16); [n - 8, n): the odd
    // bytes of src[2n - 17, 2n - 1). Both within src[0, 2n - 1).
    uint8_t head[16], tail[16];
    const Bytes a = load(0), b = load(2 * n - 17);
    const Bytes e = even_bytes(a, a), o = odd_bytes(b, b);
    __builtin_memcpy(head, &e, 16);
    __builtin_memcpy(tail, &o, 16);
    __builtin_memcpy(dst, head, 8);
    __builtin_memcpy(dst + n - 8, tail, 8);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    dst[i] = src[i * step];
}

/// Input plane `xp` (h x w) into `out` as pp describes (qs8_pack.h's
/// PaddedPlane), the padding `pad`.
template <typename T>
void pad_plane(const T *xp, const Conv2d &g, const PaddedPlane &pp, uint8_t pad, uint8_t *out) {
  const uint8_t *src = reinterpret_cast<const uint8_t *>(xp);
  const int64_t right = pp.phase - g.pw - g.w;
  if (g.sw == 1 && g.pw <= 16 && right >= 0 && right <= 16) {
    // Stride 1, padding of at most 16 columns a side: each input row's
    // padding as one vector either side (the right one's overrun rewritten
    // by the next row, or in the plane's slack); a third of the general
    // loop's instructions (ResNet-18: 0.1 M rows per inference).
    const Bytes p = Bytes{} + pad;
    for (int64_t r = 0; r < pp.rows; ++r) {
      uint8_t *dst = out + r * pp.phase;
      const int64_t iy = r - g.ph;
      if (iy < 0 || iy >= g.h) {
        fill_bytes(dst, pp.phase, pad);
        continue;
      }
      store_bytes(dst, p);
      copy_strided_bytes(dst + g.pw, src + iy * g.w, g.w, 1);
      store_bytes(dst + g.pw + g.w, p);
    }
    return;
  }
  for (int64_t f = 0; f < g.sw; ++f) {
    // Column i of phase f is input column i * sw + base, inside [0, w) for
    // i in [lo, hi).
    const int64_t base = f - g.pw;
    int64_t lo = base >= 0 ? 0 : (-base + g.sw - 1) / g.sw;
    int64_t hi = g.w - base > 0 ? (g.w - base + g.sw - 1) / g.sw : 0;
    lo = lo > pp.phase ? pp.phase : lo;
    hi = hi > pp.phase ? pp.phase : (hi < lo ? lo : hi);
    for (int64_t r = 0; r < pp.rows; ++r) {
      const int64_t iy = r - g.ph;
      uint8_t *dst = out + (r * g.sw + f) * pp.phase;
      if (iy < 0 || iy >= g.h) {
        fill_bytes(dst, pp.phase, pad);
        continue;
      }
      fill_bytes(dst, lo, pad);
      copy_strided_bytes(dst + lo, src + iy * g.w + lo * g.sw + base, hi - lo, g.sw);
      fill_bytes(dst + hi, pp.phase - hi, pad);
    }
  }
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
/// ([depth/G][nv][G] unsigned bytes, nv = n rounded up to 16), from the
/// group's input x (read as it is) or its padded planes, gathering rows
/// into `rows` (G * nv bytes and 64 of slack). Over virtual rows
/// (qs8_pack.h's ConvPixels: p0 and n count packed pixels) each tap's row
/// is read in place from its stride-1 padded plane: one run of it.
template <int G, typename T>
void pack_panel(const T *x, const uint8_t *planes, const PaddedPlane &pp, const Conv2d &g,
                int64_t cg, int64_t p0, int64_t n, int64_t nv, uint8_t pad, bool virtual_rows,
                uint8_t *panel, uint8_t *rows) {
  const int64_t taps = g.kh * g.kw, depth = cg * taps, plane = g.h * g.w;
  const bool direct = planes == nullptr && p0 + nv <= plane;
  const int64_t oy0 = p0 / g.ow, ox0 = p0 % g.ow;
  // Depth k = (ci * kh + ky) * kw + kx, counted up (no divisions per row).
  int64_t ci = 0, ky = 0, kx = 0;
  for (int64_t kg = 0; kg < depth; kg += G) {
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
                       panel + kg * nv);
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
      if (ox < ow)
        __builtin_memcpy(dst + ox, src + i, size_t(ow - ox < run ? ow - ox : run) * sizeof(T));
      i += run;
    }
  }
}

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

/// Whether conv_tile's sums start from each row's added constant (q.add):
/// where the products are SDOT / USDOT by element or USMMLA (NEON), which
/// accumulate in place; else it is added with the requantization.
constexpr bool kConvSumsAdded = VecI::kLaneDot && kLanes == kConvRows;

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
  VecI acc[kConvRows][NV];
  for_each_index<kConvRows>([&](auto r) {
    for (int v = 0; v < NV; ++v)
      acc[r][v] = VecI::zero();
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
  } else if constexpr (kConvSumsAdded) {
    // The sums start from each row's added constant.
    for_each_index<kConvRows>([&](auto r) {
      for (int v = 0; v < NV; ++v)
        acc[r][v] = q[r].add;
    });
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
    for (int64_t kk = 0; kk < dgroups; ++kk) {
      const uint8_t *a = panel + kk * panel_stride;
      VecI x[NV];
      for (int v = 0; v < NV; ++v)
        x[v] = VecI::load(a + v * kLanes * 4);
      const int8_t *wk = w + kk * kConvRows * 4;
      for (int r = 0; r < kConvRows; ++r) {
        const VecI wb = broadcast4(wk + r * 4);
        for (int v = 0; v < NV; ++v)
          acc[r][v] = VecI::dot_part(acc[r][v], x[v], wb);
      }
    }
  }
  // The first `rows` rows requantized and stored (y is restrict: its
  // stores leave q as it was).
  for_each_index<kConvRows>([&](auto r) ONNXC_RT_SIMD_LAMBDA {
    if (r < rows)
      requantize_store<NV, T, kConvSumsAdded>(acc[r], q[r], y_zp, act_min, act_max,
                                              y + r * y_stride, valid);
  });
}

/// Widest tile: 24 accumulators of 32 AVX-512 registers, 8 of 16 on AVX2,
/// 24 of 32 on NEON with SDOT / USDOT by element (with the 6 vectors of
/// activations and the weights' one: 31; with i8mm's USMMLA 24 of 2 x 2
/// blocks, two weight vectors and the pixel pair loaded: 27); with
/// armv8-a's 16-byte products each vector of pixels is a 4 x 4 tile of
/// its own (16 accumulators), two a call.
constexpr int kConvVectors = kLanes == 16 ? 6 : kDepth16 ? 2 : kLanes == 4 ? 6 : 2;

/// ConvPixels' bound (qs8_pack.h) for computing stride-1 convolutions over
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

} // namespace detail

/// A quantized 2-D convolution (reference/qs8.h's conv): x (N, C, H, W) of
/// T with zero point x_zp; weights packed by pack_conv_weights in depth
/// groups of G; `bias` the folded per-channel constant of fold_zero_point
/// with u_zp = packed_zero_point(x_zp + flip_of<T>(), kShifted); G and
/// kShifted as this instruction set takes them (kDepthGroup,
/// kShiftedBytes: the compiler packs for its target, and a mismatch does
/// not compile); `count` multipliers (1 or M); `narrow_weights`: no
/// weight is -128 (weights_are_narrow of qs8_pack.h). Scratch:
/// conv_scratch_bytes(..., G) of qs8_pack.h.
template <typename T, int G, bool kShifted>
void conv2d(const T *x, const int8_t *w, const int32_t *bias, T *y, const int64_t *in_shape,
            const int64_t *out_shape, const int64_t *kernel, const int64_t *strides,
            const int64_t *pads_begin, const int64_t *dilations, int64_t group, int32_t x_zp,
            const int32_t *multiplier, const int32_t *shift, int64_t count, int32_t y_zp,
            int32_t act_min, int32_t act_max, bool narrow_weights, uint8_t *scratch) {
  using namespace detail;
  const Conv2d g{in_shape[1], in_shape[2], in_shape[3], out_shape[2], out_shape[3],
                 kernel[0],   kernel[1],   strides[0],  strides[1],   pads_begin[0],
                 pads_begin[1], dilations[0], dilations[1]};
  const int64_t n = in_shape[0], m = out_shape[1], cg = g.c / group, mg = m / group;
  static_assert(G == kDepthGroup && kShifted == kShiftedBytes,
                "weights packed and folded for another instruction set (qs8_pack.h)");
  const int64_t depth = cg * g.kh * g.kw, dgroups = round_up(depth, G) / G;
  const int64_t tile_bytes = dgroups * kConvRows * G,
                group_bytes = round_up(mg, kConvRows) * dgroups * G;
  const bool reads_input = conv_reads_input(g.kh, g.kw, g.sh, g.sw, g.ph, g.pw);
  const PaddedPlane pp = padded_plane(g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw);
  const ConvPixels cp = conv_pixels(depth, g.oh, g.ow, g.sh, mg, pp, reads_input,
                                    kVirtualRowsBound);
  const int64_t pixels = g.oh * g.ow, block = cp.block;
  const ConvScratch sl = conv_scratch(depth, g.oh, g.ow, g.sh, cg, pp, reads_input, G);
  uint8_t *panel = scratch, *rows = scratch + sl.rows;
  T *stage = reinterpret_cast<T *>(scratch + sl.stage);
  uint8_t *planes = reads_input ? nullptr : scratch + sl.planes;
  const uint8_t pad = static_cast<uint8_t>(static_cast<T>(x_zp));
  const VecI vzp = VecI::broadcast(y_zp), vmin = VecI::broadcast(act_min),
             vmax = VecI::broadcast(act_max);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t gi = 0; gi < group; ++gi) {
      const T *xg = x + (b * g.c + gi * cg) * g.h * g.w;
      if (planes)
        for (int64_t ci = 0; ci < cg; ++ci)
          pad_plane(xg + ci * g.h * g.w, g, pp, pad, planes + ci * pp.bytes());
      for (int64_t p0 = 0; p0 < cp.count; p0 += block) {
        const int64_t np = cp.count - p0 < block ? cp.count - p0 : block;
        const int64_t nv = round_up(np, 16);
        pack_panel<G>(xg, planes, pp, g, cg, p0, np, nv, pad, cp.virtual_rows, panel, rows);
        for (int64_t mt = 0; mt < mg; mt += kConvRows) {
          const int64_t live = mg - mt < kConvRows ? mg - mt : kConvRows;
          Requant q[kConvRows] = {}; // rows past `live`: zeros, never stored
          for (int64_t r = 0; r < live; ++r) {
            const int64_t oc = gi * mg + mt + r, k = count > 1 ? oc : 0;
            q[r] = requant_broadcast(bias[oc], multiplier[k], shift[k]);
          }
          const int8_t *wt = w + gi * group_bytes + (mt / kConvRows) * tile_bytes;
          T *yc = y + (b * m + gi * mg + mt) * pixels;
          // Virtual rows go through the stage (their padding pixels dropped).
          T *yt = cp.virtual_rows ? stage : yc + p0;
          const int64_t y_stride = cp.virtual_rows ? block : pixels;
          conv_tile_row(np, panel, nv * G, wt, dgroups, narrow_weights, q, live, vzp, vmin,
                        vmax, yt, y_stride);
          if (cp.virtual_rows)
            store_virtual_rows(stage, block, live, p0, np, pp.phase, g.ow, yc, pixels);
        }
      }
    }
}

/// Whether depthwise_conv2d sums four taps of a kernel row per instruction
/// (VecI::kDepthwiseQuads: NEON's SDOT and USDOT) on bytes packed as
/// conv2d packs them (qs8_pack.h's quad slots), else one tap per
/// multiply-add on values widened to 16 bits (VecI::mla_widened_lanes).
/// The compiler folds the bias for one or the other
/// (Qs8Packing::quadDepthwise).
constexpr bool kQuadDepthwise = VecI::kDepthwiseQuads;

namespace detail {

/// One pixel of a channel block, widened: 16 values of the ISA's band lane
/// (VecI::BandLane: int32 on x86, int16 on NEON), in slots of
/// kDepthwiseValueBytes.
using BandLane = VecI::BandLane;
static_assert(sizeof(BandLane) <= kDepthwiseValueBytes, "the band's slots hold a lane");
/// A band slot as the taps read it: a quad of packed bytes, or a lane.
using BandSlot = std::conditional_t<kQuadDepthwise, uint32_t, BandLane>;
/// Taps a slot serves (qs8_pack.h's depthwise_row_units).
constexpr int kSlotTaps = kQuadDepthwise ? int(kDepthwiseQuad) : 1;
using BlockPixel = BandLane __attribute__((vector_size(sizeof(BandLane) * kDepthwiseBlock)));
// By reference: a 64-byte vector passed by value on AVX2 draws GCC's
// note on its ABI (-Wpsabi) in every program that includes this header.
inline void store_pixel(BandLane *dst, const BlockPixel &v) {
  __builtin_memcpy(dst, &v, sizeof v);
}
inline void store_pixel(uint8_t *dst, const Bytes &v) { store_bytes(dst, v); }
template <typename Pixel, typename Slot>
inline void fill_pixels(Slot *dst, int64_t n, const Pixel &v) {
  for (int64_t i = 0; i < n; ++i)
    store_pixel(dst + i * kDepthwiseBlock, v);
}

/// One pixel's 16 bytes (values of T) widened into the band: to int16 by
/// vector conversion (SXTL / UXTL on NEON), to int32 by VecI::widen
/// (vpmovsxbd / vpmovzxbd: GCC 12 scalarizes the conversion to 64 bytes).
template <typename T> inline void store_widened(BandLane *dst, Bytes v) {
  if constexpr (sizeof(BandLane) == 4) {
    uint8_t b[16];
    store_bytes(b, v);
    for (int64_t j = 0; j < kDepthwiseBlock; j += kLanes)
      VecI::widen(reinterpret_cast<const T *>(b) + j).store(dst + j);
  } else if constexpr (T(-1) < T(0)) {
    store_pixel(dst, __builtin_convertvector(reinterpret_cast<SignedBytes>(v), BlockPixel));
  } else {
    store_pixel(dst, __builtin_convertvector(v, BlockPixel));
  }
}

/// Input rows [iy0, iy0 + in_rows) of `cb` channels (planes of x, h x w,
/// plane_stride apart) into `buf` channel-blocked: padded row r, column q
/// at (r * width + q) * kDepthwiseBlock, input column ix at q = ix + pw,
/// everything outside the input x_zp, and channels past cb x_zp. Slot:
/// BandLane (each value widened) or uint8_t (the bytes themselves).
template <typename T, typename Slot>
void pack_depthwise_band(const T *x, int64_t plane_stride, int64_t cb, const Conv2d &g,
                         int64_t in_rows, int64_t width, int64_t iy0, T x_zp, Slot *buf) {
  constexpr int64_t B = kDepthwiseBlock;
  constexpr bool kBytes = sizeof(Slot) == 1;
  const int64_t row = width * B, w = g.w, pw = g.pw;
  int64_t r_lo = iy0 < 0 ? -iy0 : 0, r_hi = g.h - iy0 < in_rows ? g.h - iy0 : in_rows;
  r_lo = r_lo > in_rows ? in_rows : r_lo;
  r_hi = r_hi < r_lo ? r_lo : r_hi;
  const uint8_t zp_byte = static_cast<uint8_t>(x_zp);
  auto fill = [&](Slot *dst, int64_t n) {
    if constexpr (kBytes)
      fill_pixels(dst, n, Bytes{} + zp_byte);
    else
      fill_pixels(dst, n, BlockPixel{} + BandLane(x_zp));
  };
  fill(buf, r_lo * width);
  fill(buf + r_hi * row, (in_rows - r_hi) * width);
  for (int64_t r = r_lo; r < r_hi; ++r) {
    fill(buf + r * row, pw);
    fill(buf + r * row + (pw + w) * B, width - pw - w);
  }
  // The rows' pixels are one contiguous run of each plane: 16 of them of
  // the 16 channels at a time, transposed into 16 pixels, each stored.
  const int64_t n = (r_hi - r_lo) * w, first = (iy0 + r_lo) * w;
  const uint8_t *src = reinterpret_cast<const uint8_t *>(x + first);
  Slot *dst = buf + (r_lo * width + pw) * B;
  int64_t col = 0;
  const Bytes fill_zp = Bytes{} + zp_byte;
  for (int64_t p = 0; p < n; p += 16) {
    const int64_t len = n - p < 16 ? n - p : 16;
    Bytes t[16];
    if (len == 16 && cb == B) { // the common case, unrolled
      for (int l = 0; l < 16; ++l)
        t[l] = load_bytes(src + l * plane_stride + p);
    } else {
      for (int64_t l = 0; l < B; ++l)
        t[l] = l >= cb ? fill_zp : load_bytes_first(src + l * plane_stride + p, len, zp_byte);
    }
    transpose16(t);
    for (int64_t i = 0; i < len; ++i) {
      if constexpr (kBytes)
        store_pixel(dst + col * B, t[i]);
      else
        store_widened<T>(dst + col * B, t[i]);
      if (++col == w) { // on to the next row's first input column
        col = 0;
        dst += row;
      }
    }
  }
}

/// The quad slots of a band from its bytes (pack_depthwise_band's uint8_t
/// form, rows of bytes_width pixels): slot (r, q) holds each channel's
/// bytes of columns q, q + dw, q + 2 dw, q + 3 dw XORed with `flip`, as
/// the dot products take them (four runs of the row interleaved). Where
/// every slot read is at a multiple of the stride sw (4 dw a multiple of
/// sw), only those are built.
inline void build_depthwise_quads(const uint8_t *bytes, const DepthwiseBand &band, int64_t dw,
                                  int64_t sw, uint8_t flip, uint8_t *quads) {
  constexpr int64_t B = kDepthwiseBlock, Q = kDepthwiseQuad;
  const int64_t step = Q * dw % sw == 0 ? sw : 1;
  for (int64_t r = 0; r < band.in_rows; ++r) {
    const uint8_t *row = bytes + r * band.bytes_width * B;
    uint8_t *out = quads + r * band.in_width * B * Q;
    if (step == 1) {
      const uint8_t *const src[4] = {row, row + dw * B, row + 2 * dw * B, row + 3 * dw * B};
      interleave_rows<4>(src, band.in_width * B, flip, out);
      continue;
    }
    for (int64_t q = 0; q < band.in_width; q += step) {
      const uint8_t *at = row + q * B;
      const uint8_t *const src[4] = {at, at + dw * B, at + 2 * dw * B, at + 3 * dw * B};
      interleave_rows<4>(src, B, flip, out + q * B * Q);
    }
  }
}

/// The band's `n` staged output pixels (kDepthwiseBlock bytes each, whole
/// 16-pixel tiles readable) transposed into the first cb channels' planes
/// at y (plane_stride apart).
inline void unpack_depthwise_band(const uint8_t *stage, int64_t n, int64_t cb, uint8_t *y,
                                  int64_t plane_stride) {
  for (int64_t p = 0; p < n; p += 16) {
    const int64_t len = n - p < 16 ? n - p : 16;
    Bytes t[16];
    for (int64_t i = 0; i < 16; ++i)
      t[i] = load_bytes(stage + (p + i) * kDepthwiseBlock);
    transpose16(t);
    for (int64_t l = 0; l < cb; ++l)
      store_bytes_first(y + l * plane_stride + p, t[l], len);
  }
}

/// The channel-blocked depthwise step: kBlockVectors vectors of channels
/// (a sub-block of the 16: 8 on NEON, whose weights for 9 taps then take 9
/// of its 32 registers; all 16 on x86) by kBlockPixels output pixels of a
/// row, so that each weight and requantization constant loaded serves
/// several pixels.
constexpr int kBlockVectors = kLanes == 4 ? 2 : int(kDepthwiseBlock / kLanes);
constexpr int kBlockPixels = kLanes == 4 ? 4 : 2;
constexpr int kBlockChannels = kBlockVectors * kLanes;
static_assert(kDepthwiseBlock % kBlockChannels == 0, "sub-blocks tile the block");

/// The multiply-adds of a channel-blocked depthwise step, one per slot of
/// a kernel row (kSlotTaps taps each): KH x KU (KU = ceil(KW / kSlotTaps))
/// with column dilation 1 and stride SW when known at compile time (then
/// every load of a step is one of KH row pointers plus a constant: GCC
/// keeps a pointer per unit and pixel otherwise, more than there are
/// registers), else `offset` (units of them) and `step`.
template <int KH, int KW, int SW> struct BlockTaps {
  static constexpr bool kFixed = KH > 0;
  static constexpr int KU = (KW + kSlotTaps - 1) / kSlotTaps;
  const int64_t *offset; // from the pixel to each unit (runtime form), or to each row
  int64_t units, step;
  /// Unit (ky, ku) of pixel p of a step (compile-time form).
  const BandSlot *at(const BandSlot *px, int ky, int ku, int p) const {
    return px + offset[ky] + (ku * kSlotTaps + p * SW) * kDepthwiseBlock;
  }
  /// Unit t of pixel p of a step (runtime form).
  const BandSlot *at(const BandSlot *px, int64_t t, int p) const {
    return px + offset[t] + p * step;
  }
};

/// acc[j] += the N vectors of slots at p times w[j]: one dot product of
/// four bytes per lane (quads), or widened values times their weights.
template <int N>
ONNXC_RT_SIMD_INLINE void mla_slots(VecI (&acc)[N], const BandSlot *p, const VecI (&w)[N]) {
  if constexpr (kQuadDepthwise) {
    for (int j = 0; j < N; ++j)
      acc[j] = VecI::dot_part(acc[j], VecI::load(p + j * kLanes), w[j]);
  } else {
    VecI::mla_widened_lanes(acc, p, w);
  }
}

/// P output pixels of one sub-block from pixel `px` of the band: the taps,
/// requantized and stored narrowed at out (kDepthwiseBlock bytes a pixel);
/// kUp: whether any of q scales up (requantize_as).
template <int KH, int KW, int SW, int P, bool kUp, typename T>
ONNXC_RT_SIMD_INLINE void depthwise_pixels(const BandSlot *px, const BlockTaps<KH, KW, SW> &tp,
                                           const VecI (*wv)[kBlockVectors],
                                           const Requant (&q)[kBlockVectors], VecI y_zp,
                                           VecI act_min, VecI act_max, T *out) {
  constexpr int V = kBlockVectors, KU = BlockTaps<KH, KW, SW>::KU;
  VecI acc[P][V]; // from each channel's added constant
  for (int p = 0; p < P; ++p)
    for (int j = 0; j < V; ++j)
      acc[p][j] = q[j].add;
  if constexpr (BlockTaps<KH, KW, SW>::kFixed) {
    for (int ky = 0; ky < KH; ++ky)
      for (int ku = 0; ku < KU; ++ku)
        for (int p = 0; p < P; ++p)
          mla_slots(acc[p], tp.at(px, ky, ku, p), wv[ky * KU + ku]);
  } else {
    for (int64_t t = 0; t < tp.units; ++t)
      for (int p = 0; p < P; ++p)
        mla_slots(acc[p], tp.at(px, t, p), wv[t]);
  }
  if constexpr (V * kLanes == kDepthwiseBlock) {
    // A sub-block is the whole block: the P pixels' outputs are contiguous,
    // narrowed together.
    VecI r[P * V];
    for (int p = 0; p < P; ++p)
      for (int j = 0; j < V; ++j)
        r[p * V + j] = requantize_as<kUp>(acc[p][j], q[j]);
    VecI::store_narrow_clamped(out, r, y_zp, act_min, act_max);
  } else {
    for (int p = 0; p < P; ++p) {
      VecI r[V];
      for (int j = 0; j < V; ++j)
        r[j] = requantize_as<kUp>(acc[p][j], q[j]);
      VecI::store_narrow_clamped(out + p * kDepthwiseBlock, r, y_zp, act_min, act_max);
    }
  }
}

/// Sub-block s's weights of unit (ky, ku) for the channels [0, cb) of the
/// block at c0 (0 past them), as mla_slots takes them: a quad's four
/// weights as the bytes of each lane (0 past the row), or each tap's as a
/// 16-bit lane (VecI::lane_weights).
inline void depthwise_unit_weights(const int8_t *w, int64_t c0, int64_t cb, int64_t s,
                                   int64_t kw, int64_t taps, int64_t ky, int64_t ku,
                                   VecI (&out)[kBlockVectors]) {
  if constexpr (kQuadDepthwise) {
    uint32_t lane[kBlockChannels];
    for (int64_t l = 0; l < kBlockChannels; ++l) {
      const int64_t ch = s * kBlockChannels + l;
      uint8_t b[4] = {};
      for (int64_t i = 0; i < 4 && ch < cb; ++i) {
        const int64_t kx = ku * kDepthwiseQuad + i;
        b[i] = kx < kw ? static_cast<uint8_t>(w[(c0 + ch) * taps + ky * kw + kx]) : 0;
      }
      __builtin_memcpy(&lane[l], b, 4);
    }
    for (int j = 0; j < kBlockVectors; ++j)
      out[j] = VecI::load(lane + j * kLanes);
  } else {
    int16_t lane[kBlockChannels];
    for (int64_t l = 0; l < kBlockChannels; ++l) {
      const int64_t ch = s * kBlockChannels + l;
      lane[l] = ch < cb ? w[(c0 + ch) * taps + ky * kw + ku] : 0;
    }
    VecI::lane_weights(lane, out);
  }
}

/// depthwise_conv2d channel-blocked (qs8_pack.h's depthwise_band): per
/// block of 16 channels and band of output rows, the input packed pixel by
/// pixel (widened values, or quads of packed bytes: kQuadDepthwise); per
/// sub-block of channels, each output pixel's channels from one load per
/// unit and vector (mla_slots), requantized per channel and staged, then
/// transposed back. Narrow planes waste no lanes, strided windows need no
/// column phases, and the padding is written once per band. KH, KW: the
/// kernel's extent when known at compile time (the units unroll), else 0.
template <int KH, int KW, int SW, typename T>
void depthwise_blocked(const T *x, const int8_t *w, const int32_t *bias, T *y, int64_t batch,
                       const Conv2d &g, int32_t x_zp, const int32_t *multiplier,
                       const int32_t *shift, int64_t count, VecI y_zp, VecI act_min,
                       VecI act_max, uint8_t *scratch) {
  constexpr int64_t B = kDepthwiseBlock, S = B / kBlockChannels;
  constexpr int V = kBlockVectors, P = kBlockPixels;
  constexpr int64_t kUnits =
      KH && KW ? KH * BlockTaps<KH, KW, SW>::KU : kMaxDepthwiseTaps;
  const int64_t ku = depthwise_row_units(g.kw, kQuadDepthwise), units = g.kh * ku;
  const int64_t taps = g.kh * g.kw, plane_in = g.h * g.w, plane_out = g.oh * g.ow;
  const DepthwiseBand band = depthwise_band(g.w, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.pw, g.dh,
                                            g.dw, kQuadDepthwise);
  // Locals, not g's fields: the stores through T (a byte type) could
  // alias g, and every pixel would load them again.
  const int64_t oh = g.oh, ow = g.ow, sh = g.sh, step = g.sw * B, width = band.in_width;
  int64_t offset[kUnits];
  for (int64_t t = 0; t < units; ++t)
    offset[t] = KH ? t * g.dh * width * B // per row
                   : ((t / ku) * g.dh * width + (t % ku) * kSlotTaps * g.dw) * B;
  const BlockTaps<KH, KW, SW> tp{offset, units, step};
  BandSlot *in = reinterpret_cast<BandSlot *>(scratch);
  uint8_t *bytes = scratch + kDepthwiseValueBytes * band.in_rows * width * B;
  uint8_t *stage = bytes + band.in_rows * band.bytes_width * B;
  const uint8_t flip = static_cast<uint8_t>(flip_of<T>() ^ VecI::kPackedFlip);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t c0 = 0; c0 < g.c; c0 += B) {
      const int64_t cb = g.c - c0 < B ? g.c - c0 : B;
      VecI wv[S][kUnits][V];
      Requant q[S][V];
      for (int64_t s = 0; s < S; ++s) {
        for (int64_t t = 0; t < units; ++t)
          depthwise_unit_weights(w, c0, cb, s, g.kw, taps, t / ku, t % ku, wv[s][t]);
        for (int j = 0; j < V; ++j) {
          const int64_t first = s * kBlockChannels + j * kLanes;
          const int64_t n = cb - first < 0 ? 0 : cb - first;
          q[s][j] = requant_columns(bias, multiplier, shift, count, c0 + first, n,
                                    columns_scale_up(shift, count, c0 + first, n));
        }
      }
      const T *xb = x + (b * g.c + c0) * plane_in;
      T *yb = y + (b * g.c + c0) * plane_out;
      for (int64_t oy0 = 0; oy0 < oh; oy0 += band.rows) {
        const int64_t rows = oh - oy0 < band.rows ? oh - oy0 : band.rows;
        const int64_t iy0 = oy0 * sh - g.ph;
        if constexpr (kQuadDepthwise) {
          pack_depthwise_band(xb, plane_in, cb, g, band.in_rows, band.bytes_width, iy0, T(x_zp),
                              bytes);
          build_depthwise_quads(bytes, band, g.dw, g.sw, flip, scratch);
        } else {
          pack_depthwise_band(xb, plane_in, cb, g, band.in_rows, width, iy0, T(x_zp), in);
        }
        for (int64_t s = 0; s < S && s * kBlockChannels < cb; ++s) {
          const Requant(&qs)[V] = q[s];
          auto sub_block = [&](auto up) ONNXC_RT_SIMD_LAMBDA {
            constexpr bool kUp = decltype(up)::value;
            for (int64_t oy = 0; oy < rows; ++oy) {
              const BandSlot *at = in + oy * sh * width * B + s * kBlockChannels;
              T *out = reinterpret_cast<T *>(stage) + oy * ow * B + s * kBlockChannels;
              int64_t ox = 0;
              for (; ox + P <= ow; ox += P)
                depthwise_pixels<KH, KW, SW, P, kUp>(at + ox * step, tp, wv[s], qs, y_zp,
                                                     act_min, act_max, out + ox * B);
              for (; ox < ow; ++ox)
                depthwise_pixels<KH, KW, SW, 1, kUp>(at + ox * step, tp, wv[s], qs, y_zp,
                                                     act_min, act_max, out + ox * B);
            }
          };
          bool up = false;
          for (int j = 0; j < V; ++j)
            up |= qs[j].scales_up;
          if (up)
            sub_block(std::true_type());
          else
            sub_block(std::false_type());
        }
        unpack_depthwise_band(stage, rows * ow, cb, reinterpret_cast<uint8_t *>(yb + oy0 * ow),
                              plane_out);
      }
    }
}

} // namespace detail

/// A quantized depthwise 2-D convolution (one input and one output channel
/// per group), channel-blocked (depthwise_blocked): w (M, 1, KH, KW) as
/// ONNX stores it (KH * KW <= kMaxDepthwiseTaps); `bias` the folded
/// per-channel constant of fold_zero_point, with u_zp = x_zp where the
/// taps read x itself, widened, and the padding is x_zp, or with
/// packed_zero_point(x_zp + flip_of<T>(), kShiftedBytes) where they read
/// quads of bytes packed as conv2d's (kQuad, which must be
/// kQuadDepthwise). Scratch: depthwise_scratch_bytes(..., kQuad).
template <typename T, bool kQuad>
void depthwise_conv2d(const T *x, const int8_t *w, const int32_t *bias, T *y,
                      const int64_t *in_shape, const int64_t *out_shape, const int64_t *kernel,
                      const int64_t *strides, const int64_t *pads_begin,
                      const int64_t *dilations, int32_t x_zp, const int32_t *multiplier,
                      const int32_t *shift, int64_t count, int32_t y_zp, int32_t act_min,
                      int32_t act_max, uint8_t *scratch) {
  using namespace detail;
  static_assert(kQuad == kQuadDepthwise,
                "bias folded for another instruction set (qs8_pack.h's depthwise_band)");
  const Conv2d g{in_shape[1], in_shape[2], in_shape[3], out_shape[2], out_shape[3],
                 kernel[0],   kernel[1],   strides[0],  strides[1],   pads_begin[0],
                 pads_begin[1], dilations[0], dilations[1]};
  const VecI vzp = VecI::broadcast(y_zp), vmin = VecI::broadcast(act_min),
             vmax = VecI::broadcast(act_max);
  // 3x3 and 5x5 with unit column dilation and stride 1 or 2 unroll their
  // taps with constant offsets.
  auto blocked = [&](auto kernel_h, auto kernel_w, auto stride_w) {
    depthwise_blocked<kernel_h(), kernel_w(), stride_w()>(x, w, bias, y, in_shape[0], g, x_zp,
                                                           multiplier, shift, count, vzp, vmin,
                                                           vmax, scratch);
  };
  using I0 = std::integral_constant<int, 0>;
  using I1 = std::integral_constant<int, 1>;
  using I2 = std::integral_constant<int, 2>;
  using I3 = std::integral_constant<int, 3>;
  using I5 = std::integral_constant<int, 5>;
  const bool fixed = g.dw == 1 && (g.sw == 1 || g.sw == 2);
  if (fixed && g.kh == 3 && g.kw == 3)
    return g.sw == 1 ? blocked(I3(), I3(), I1()) : blocked(I3(), I3(), I2());
  if (fixed && g.kh == 5 && g.kw == 5)
    return g.sw == 1 ? blocked(I5(), I5(), I1()) : blocked(I5(), I5(), I2());
  blocked(I0(), I0(), I0());
}

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

} // namespace detail

/// A quantized product a (rows, depth) x w (depth, n) (reference/qs8.h's
/// fully_connected): w packed by pack_fc_weights in depth groups of G;
/// `bias` the folded per-column constant of fold_zero_point with u_zp =
/// packed_zero_point(x_zp + flip_of<T>(), kShifted); G and kShifted as
/// conv2d checks them; `narrow_weights` as conv2d's. Scratch:
/// fc_scratch_bytes(rows, depth, G).
template <typename T, int G, bool kShifted>
void fully_connected(const T *a, const int8_t *w, const int32_t *bias, T *y, int64_t rows,
                     int64_t depth, int64_t n, const int32_t *multiplier, const int32_t *shift,
                     int64_t count, int32_t y_zp, int32_t act_min, int32_t act_max,
                     bool narrow_weights, uint8_t *scratch) {
  using namespace detail;
  static_assert(G == kDepthGroup && kShifted == kShiftedBytes,
                "weights packed and folded for another instruction set (qs8_pack.h)");
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
  constexpr bool kNeonLaneDot = VecI::kLaneDot && !VecI::kMatMul && kLanes == 4;
  constexpr int kFcRows = kNeonLaneDot ? 8 : VecI::kMatMul ? 6 : 4;
  constexpr int kFcVectors = kDepth16 ? 1 : kNeonLaneDot ? 2 : 4;
  static_assert(kFcRows <= kFcMaxRows, "fc_scratch_bytes' rows hold whole tiles");
  static_assert(!kDepth16 || kFcRows % kFcRowGroup == 0, "tiles start at fc_packed_at's groups");
  static_assert(!VecI::kMatMul || kFcVectors * kLanes == kFcCols,
                "fc_sums_mmla reads a tile's columns from one column block");
  const int64_t dgroups = round_up(depth, G) / G, stride = dgroups * G;
  // The rows the tiles read (a last tile of 1, 2 or 4 rows: row pairs
  // for the matrix multiply), within fc_scratch_bytes' kFcMaxRows.
  const int64_t all = round_up(rows, VecI::kMatMul ? 2 : kFcRows);
  // u = a + flip_of<T>() as the dot product packs it (VecI::kPackedFlip).
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
  const VecI vzp = VecI::broadcast(y_zp), vmin = VecI::broadcast(act_min),
             vmax = VecI::broadcast(act_max);
  const bool scales_up = columns_scale_up(shift, count, 0, count);
  constexpr int64_t kCols = kFcVectors * kLanes;
  // The columns of rows [r0, r0 + live) in tiles of R rows.
  auto row_block = [&](auto tile_rows, int64_t r0, int64_t live) ONNXC_RT_SIMD_NO_PRESCHEDULE {
    constexpr int R = decltype(tile_rows)::value;
    const uint8_t *ar = scratch + r0 * stride;
    T *yr = y + r0 * n;
    for (int64_t c = 0; c < n; c += kCols) {
      const int64_t vecs = (n - c + kLanes - 1) / kLanes;
      switch (vecs < kFcVectors ? vecs : kFcVectors) {
      case 1: fc_tile<R, 1>(ar, stride, w, dgroups, narrow_weights, c, bias, multiplier, shift, count, scales_up, n, live, vzp, vmin, vmax, yr); break;
      case 2: if constexpr (kFcVectors > 1) fc_tile<R, 2>(ar, stride, w, dgroups, narrow_weights, c, bias, multiplier, shift, count, scales_up, n, live, vzp, vmin, vmax, yr); break;
      case 3: if constexpr (kFcVectors > 2) fc_tile<R, 3>(ar, stride, w, dgroups, narrow_weights, c, bias, multiplier, shift, count, scales_up, n, live, vzp, vmin, vmax, yr); break;
      default: fc_tile<R, kFcVectors>(ar, stride, w, dgroups, narrow_weights, c, bias, multiplier, shift, count, scales_up, n, live, vzp, vmin, vmax, yr); break;
      }
    }
  };
  // A last row alone (batch 1's one row) takes a tile of one row (a row
  // pair for the matrix multiply), a last few a tile of 4.
  constexpr int kOneRow = VecI::kMatMul ? 2 : 1;
  for (int64_t r0 = 0; r0 < rows; r0 += kFcRows) {
    const int64_t live = rows - r0 < kFcRows ? rows - r0 : kFcRows;
    if (live <= kOneRow)
      row_block(std::integral_constant<int, kOneRow>(), r0, live);
    else if (kFcRows > 4 && live <= 4)
      row_block(std::integral_constant<int, 4>(), r0, live);
    else
      row_block(std::integral_constant<int, kFcRows>(), r0, live);
  }
}

/// y[i] = table[x[i] - lowest of T] (reference/qs8.h's lookup: QLookup,
/// e.g. sigmoid or SiLU): whole vectors by the instruction set's byte
/// shuffles (simd/isa: lookup_bytes), the tail byte by byte.
template <typename T> void lookup(const T *x, const T *table, T *y, int64_t n) {
  const uint8_t *in = reinterpret_cast<const uint8_t *>(x);
  uint8_t *out = reinterpret_cast<uint8_t *>(y);
  const uint8_t *t = reinterpret_cast<const uint8_t *>(table);
  // Index = the byte as stored, plus 128 for int8 (table[0] is -128's).
  const uint8_t flip = std::numeric_limits<T>::min() < 0 ? 0x80 : 0x00;
  int64_t i = lookup_bytes(t, in, out, n, flip);
  for (; i < n; ++i)
    out[i] = t[uint8_t(in[i] ^ flip)];
}

/// y = a + b, same shapes, in reference/qs8.h's add (parameters from its
/// add_params).
template <typename T>
void add(const T *a, const T *b, T *y, int64_t n, int32_t left_shift, int32_t a_zp,
         int32_t a_multiplier, int32_t a_shift, int32_t b_zp, int32_t b_multiplier,
         int32_t b_shift, int32_t y_zp, int32_t y_multiplier, int32_t y_shift, int32_t act_min,
         int32_t act_max) {
  using namespace detail;
  const Requant qa = requant_broadcast(0, a_multiplier, a_shift);
  const Requant qb = requant_broadcast(0, b_multiplier, b_shift);
  const Requant qy = requant_broadcast(0, y_multiplier, y_shift);
  const VecI azp = VecI::broadcast(a_zp), bzp = VecI::broadcast(b_zp);
  const VecI vzp = VecI::broadcast(y_zp), vmin = VecI::broadcast(act_min),
             vmax = VecI::broadcast(act_max);
  const VecI::Int ls = VecI::broadcast(left_shift).v;
  // The sum of a and b brought to y, before y's zero point.
  auto sum = [&](VecI va, VecI vb) ONNXC_RT_SIMD_LAMBDA {
    const VecI sa = multiply_by_quantized_multiplier({(va.v - azp.v) << ls}, qa.multiplier,
                                                     qa.left, qa.right);
    const VecI sb = multiply_by_quantized_multiplier({(vb.v - bzp.v) << ls}, qb.multiplier,
                                                     qb.left, qb.right);
    return requantize_scaled(VecI::add(sa, sb), qy);
  };
  // Four vectors a step: 16 bytes of each input widened from one load
  // (VecI::widen_all on NEON), the results narrowed into one store.
  int64_t i = 0;
  for (; i + 4 * kLanes <= n; i += 4 * kLanes) {
    VecI va[4], vb[4], r[4];
    VecI::widen_all(a + i, va);
    VecI::widen_all(b + i, vb);
    for_each_index<4>([&](auto j) ONNXC_RT_SIMD_LAMBDA { r[j] = sum(va[j], vb[j]); });
    VecI::store_narrow_clamped(y + i, r, vzp, vmin, vmax);
  }
  for (; i < n; i += kLanes) {
    const int64_t lanes = n - i < kLanes ? n - i : kLanes;
    T ta[kLanes] = {}, tb[kLanes] = {};
    const T *pa = a + i, *pb = b + i;
    if (lanes < kLanes) {
      for (int64_t l = 0; l < lanes; ++l) {
        ta[l] = a[i + l];
        tb[l] = b[i + l];
      }
      pa = ta;
      pb = tb;
    }
    to_output(sum(VecI::widen(pa), VecI::widen(pb)), vzp, vmin, vmax).store_narrow(y + i, lanes);
  }
}

namespace detail {
/// kLanes values of T from p, or the n < kLanes there and zeros.
template <typename T> inline VecI widen_first(const T *p, int64_t n) {
  if (n >= kLanes)
    return VecI::widen(p);
  T lanes[kLanes] = {};
  for (int64_t i = 0; i < n; ++i)
    lanes[i] = p[i];
  return VecI::widen(lanes);
}
} // namespace detail

/// Rows at least this long that multiply by one value (mul's b_per_row)
/// run as a table lookup: the row's function of one byte tabulated (256
/// products requantized), then `lookup` over the row, about half the
/// instructions of requantizing each product.
constexpr int64_t kMulTableRow = 512;

/// y = a * b in reference/qs8.h's mul over y viewed as (rows, inner): a
/// has every element, b too (b_per_row 0) or one value per row (b_per_row
/// 1: a per-channel scale, as a squeeze-and-excitation block multiplies;
/// long rows by table, kMulTableRow). Four vectors a step narrowed into
/// one store, then vector by vector; the requantization's form
/// (requantize_as) chosen once.
template <typename T>
void mul(const T *a, const T *b, T *y, int64_t rows, int64_t inner, int64_t b_per_row,
         int32_t a_zp, int32_t b_zp, int32_t y_zp, int32_t multiplier, int32_t shift,
         int32_t act_min, int32_t act_max) {
  using namespace detail;
  const Requant q = requant_broadcast(0, multiplier, shift);
  const VecI azp = VecI::broadcast(a_zp), bzp = VecI::broadcast(b_zp);
  const VecI vzp = VecI::broadcast(y_zp), vmin = VecI::broadcast(act_min),
             vmax = VecI::broadcast(act_max);
  auto run = [&](auto up) {
    constexpr bool kUp = decltype(up)::value;
    // n products of ar's values and br's (per_b: the value row_b, less b_zp).
    auto products = [&](const T *ar, const T *br, T *yr, int64_t n, auto per_row,
                        VecI row_b) ONNXC_RT_SIMD_LAMBDA {
      constexpr bool per_b = decltype(per_row)::value;
      int64_t i = 0;
      for (; i + 4 * kLanes <= n; i += 4 * kLanes) {
        VecI va[4], vb[4], p[4];
        VecI::widen_all(ar + i, va);
        if constexpr (!per_b)
          VecI::widen_all(br + i, vb);
        for (int j = 0; j < 4; ++j)
          p[j] = requantize_as<kUp>(
              VecI::mul(VecI::sub(va[j], azp), per_b ? row_b : VecI::sub(vb[j], bzp)), q);
        VecI::store_narrow_clamped(yr + i, p, vzp, vmin, vmax);
      }
      for (; i < n; i += kLanes) {
        const int64_t lanes = n - i < kLanes ? n - i : kLanes;
        const VecI vb = per_b ? row_b : VecI::sub(widen_first(br + i, lanes), bzp);
        const VecI prod = VecI::mul(VecI::sub(widen_first(ar + i, lanes), azp), vb);
        to_output(requantize_as<kUp>(prod, q), vzp, vmin, vmax).store_narrow(yr + i, lanes);
      }
    };
    if (!b_per_row) { // same shapes: one row of every element
      products(a, b, y, rows * inner, std::false_type(), VecI::zero());
      return;
    }
    T all[256], table[256]; // every value of T from the lowest, its products
    for (int v = 0; v < 256; ++v)
      all[v] = T(int(std::numeric_limits<T>::min()) + v);
    for (int64_t r = 0; r < rows; ++r) {
      const VecI row_b = VecI::broadcast(int32_t(b[r]) - b_zp);
      if (inner >= kMulTableRow) {
        products(all, nullptr, table, 256, std::true_type(), row_b);
        lookup(a + r * inner, table, y + r * inner, inner);
      } else {
        products(a + r * inner, nullptr, y + r * inner, inner, std::true_type(), row_b);
      }
    }
  };
  if (q.scales_up)
    run(std::true_type());
  else
    run(std::false_type());
}

/// GlobalAveragePool of int8 / uint8 planes (reference/qs8.h's
/// average_pool over the whole plane): the plane's sum of x - x_zp in
/// vector lanes, then the reference's average_of. Planes of 16 vectors'
/// bytes or more go 4 * kLanes bytes a vector through the byte dot product
/// with ones (each lane sums 4; four accumulators hide its latency), the
/// rest kLanes at a time widened.
template <typename T>
void global_average_pool(const T *x, T *y, int64_t planes, int64_t inner, int32_t x_zp,
                         int32_t y_zp, int32_t multiplier, int32_t shift) {
  using namespace detail;
  constexpr int64_t kBytes = 4 * kLanes;
  const VecI ones = VecI::broadcast(0x01010101);
  auto sum4 = [&](VecI acc, const T *p) ONNXC_RT_SIMD_LAMBDA {
    const VecI b = VecI::load(p);
    return std::numeric_limits<T>::min() < 0 ? VecI::dot_u8s8(acc, ones, b)
                                              : VecI::dot_u8s8(acc, b, ones);
  };
  // Plane p's sum from acc (its bytes before i summed in lanes) on.
  auto finish = [&](int64_t p, VecI acc, int64_t i) ONNXC_RT_SIMD_LAMBDA {
    const T *xp = x + p * inner;
    for (; i + kLanes <= inner; i += kLanes)
      acc = VecI::add(acc, VecI::widen(xp + i));
    int64_t sum = 0;
    for (int l = 0; l < kLanes; ++l) // (by lane, not through memory: a
      sum += acc.v[l];               // 64-byte store read back by halves stalls)
    for (; i < inner; ++i)
      sum += xp[i];
    sum -= int64_t(x_zp) * inner;
    y[p] = ::onnxc_rt::ref::qs8::average_of<T>(sum, inner, multiplier, shift, y_zp);
  };
  if (inner < 4 * kBytes) { // small planes: faster widened alone
    for (int64_t p = 0; p < planes; ++p)
      finish(p, VecI::zero(), 0);
    return;
  }
  for (int64_t p = 0; p < planes; ++p) {
    const T *xp = x + p * inner;
    VecI part[4] = {VecI::zero(), VecI::zero(), VecI::zero(), VecI::zero()};
    int64_t i = 0;
    for (; i + 4 * kBytes <= inner; i += 4 * kBytes)
      for (int j = 0; j < 4; ++j)
        part[j] = sum4(part[j], xp + i + j * kBytes);
    for (; i + kBytes <= inner; i += kBytes)
      part[0] = sum4(part[0], xp + i);
    finish(p, VecI::add(VecI::add(part[0], part[1]), VecI::add(part[2], part[3])), i);
  }
}

namespace detail {
/// The lane-wise max of 16 int8 or uint8 values.
template <typename T> inline Bytes max_bytes(Bytes a, Bytes b) {
  if (std::numeric_limits<T>::min() < 0) {
    const SignedBytes sa = reinterpret_cast<SignedBytes>(a), sb = reinterpret_cast<SignedBytes>(b);
    return reinterpret_cast<Bytes>(sa > sb ? sa : sb);
  }
  return a > b ? a : b;
}

} // namespace detail

/// 2-D max pooling of int8 / uint8 planes (reference conv.h's max_pool
/// without indices): per output row, the column-wise max of the window's
/// input rows into a padded row of `scratch` (maxpool_scratch_bytes(...):
/// kMaxPoolRows of them), then the max along each window, 16
/// outputs at a time where the stride is 1 or 2 (a stride-2 window step
/// takes the even bytes of 32). Padding enters as T's lowest value; a
/// window with no input element gives 0, as the reference does. Without
/// padding (every window inside the input) rows read the input in place.
template <typename T>
void max_pool2d(const T *x, T *y, const int64_t *in_shape, const int64_t *out_shape,
                const int64_t *kernel, const int64_t *strides, const int64_t *pads_begin,
                const int64_t *dilations, T *scratch) {
  using namespace detail;
  const int64_t h = in_shape[2], w = in_shape[3], oh = out_shape[2], ow = out_shape[3];
  const int64_t kh = kernel[0], kw = kernel[1], sh = strides[0], sw = strides[1];
  const int64_t ph = pads_begin[0], pw = pads_begin[1], dh = dilations[0], dw = dilations[1];
  const int64_t width = (ow - 1) * sw + (kw - 1) * dw + 1;
  constexpr T lowest = std::numeric_limits<T>::lowest();
  // Columns [lo, hi) of the padded row hold input columns.
  const int64_t lo = pw < width ? pw : width, hi = pw + w < width ? pw + w : width;
  // Without left padding, every window whose first column is inside holds
  // an input element; otherwise the edges are checked per row.
  const bool windows_hold_input = pw == 0 && (ow - 1) * sw < w;
  // Output columns whose windows lie wholly inside the input: [inside_lo,
  // inside_hi] (empty when inside_hi < inside_lo).
  const int64_t inside_lo = (pw + sw - 1) / sw,
                inside_hi = w - 1 + pw - (kw - 1) * dw >= 0
                                ? (w - 1 + pw - (kw - 1) * dw) / sw
                                : -1;
  const bool vector_steps = sw == 1 || sw == 2;
  // Output rows (of all planes, y's order) go kMaxPoolRows at a time: their
  // padded rows first, then their windows, so that a window's loads come
  // well after the stores they read (a load that straddles two recent
  // stores waits for them to commit).
  const int64_t stride = width + kMaxPoolRowSlack, rows = in_shape[0] * in_shape[1] * oh;
  const T *const x_end = x + in_shape[0] * in_shape[1] * h * w;
  // Where every window lies inside the input (no padding), output rows
  // read it in place: per 16 outputs, each kernel column's max over the
  // window's input rows (16 bytes of each, 32 at stride 2), no padded row
  // and no bookkeeping per row. The rows from the first whose last step
  // would read past x's end on take the padded rows below.
  int64_t direct = 0;
  if (vector_steps && ph == 0 && pw == 0 && (oh - 1) * sh + (kh - 1) * dh < h && width <= w) {
    const int64_t row_step = dh * w;
    const int64_t reach = (kh - 1) * row_step + (ow - 1) / 16 * 16 * sw + (kw - 1) * dw + 16 * sw;
    auto column = [&](const T *c) { // the max of the window rows' 16 bytes at c
      Bytes m = load_bytes(c);
      for (int64_t k = 1; k < kh; ++k)
        m = max_bytes<T>(m, load_bytes(c + k * row_step));
      return m;
    };
    auto windows16 = [&](const T *r) {
      Bytes m = sw == 1 ? column(r) : even_bytes(column(r), column(r + 16));
      for (int64_t kx = 1; kx < kw; ++kx) {
        const T *c = r + kx * dw;
        m = max_bytes<T>(m, sw == 1 ? column(c) : even_bytes(column(c), column(c + 16)));
      }
      return m;
    };
    const int64_t x_size = x_end - x;
    bool fits = true;
    for (int64_t p = 0; fits && p < in_shape[0] * in_shape[1]; ++p)
      for (int64_t oy = 0; oy < oh; ++oy, ++direct) {
        const int64_t first = (p * h + oy * sh) * w; // the window rows' first element
        if (first + reach > x_size) {
          fits = false;
          break;
        }
        const T *in0 = x + first;
        T *out = y + direct * ow;
        int64_t ox = 0;
        for (; ox + 16 <= ow; ox += 16)
          store_bytes(out + ox, windows16(in0 + ox * sw));
        if (ox < ow)
          store_bytes_first(reinterpret_cast<uint8_t *>(out + ox), windows16(in0 + ox * sw),
                            ow - ox);
      }
  }
  for (int64_t g0 = direct; g0 < rows; g0 += kMaxPoolRows) {
    const int64_t batch = rows - g0 < kMaxPoolRows ? rows - g0 : kMaxPoolRows;
    bool empty[kMaxPoolRows];
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t p = (g0 + b) / oh, oy = (g0 + b) % oh;
      // The window's input rows are ky in [k0, k1) (iy rises with ky).
      int64_t k0 = 0, k1 = kh;
      while (k0 < kh && oy * sh - ph + k0 * dh < 0)
        ++k0;
      while (k1 > k0 && oy * sh - ph + (k1 - 1) * dh >= h)
        --k1;
      empty[b] = k0 == k1;
      if (empty[b])
        continue;
      // The padded row: `lowest` in the padding columns and the slack, the
      // column-wise max of the input rows between, 16 columns at a time
      // over all rows (each stored once; the last step overlaps the one
      // before).
      T *row = scratch + b * stride;
      fill_bytes(reinterpret_cast<uint8_t *>(row), lo, uint8_t(lowest));
      const T *in0 = x + (p * h + oy * sh - ph + k0 * dh) * w - pw;
      const int64_t in_step = dh * w;
      auto column_max = [&](int64_t i) {
        Bytes m = load_bytes(in0 + i);
        for (int64_t k = 1; k < k1 - k0; ++k)
          m = max_bytes<T>(m, load_bytes(in0 + k * in_step + i));
        store_bytes(row + i, m);
      };
      if (hi - lo >= 16) {
        for (int64_t i = lo; i + 16 <= hi; i += 16)
          column_max(i);
        if ((hi - lo) % 16)
          column_max(hi - 16);
      } else if (in0 + (k1 - k0 - 1) * in_step + lo + 16 <= x_end) {
        column_max(lo); // a short row: one vector, its columns past hi refilled below
      } else {
        for (int64_t i = lo; i < hi; ++i) {
          T m = in0[i];
          for (int64_t k = 1; k < k1 - k0; ++k)
            m = in0[k * in_step + i] > m ? in0[k * in_step + i] : m;
          row[i] = m;
        }
      }
      fill_bytes(reinterpret_cast<uint8_t *>(row) + hi, stride - hi, uint8_t(lowest));
    }
    for (int64_t b = 0; b < batch; ++b) {
      T *out = y + (g0 + b) * ow;
      if (empty[b]) {
        for (int64_t ox = 0; ox < ow; ++ox)
          out[ox] = T(0);
        continue;
      }
      const T *row = scratch + b * stride;
      // The max of 16 windows starting at column `first`: each kernel
      // column is one load (stride 1) or the even bytes of two (stride 2).
      auto windows16 = [&](int64_t first) {
        const T *r = row + first;
        Bytes m = sw == 1 ? load_bytes(r) : even_bytes(load_bytes(r), load_bytes(r + 16));
        for (int64_t kx = 1; kx < kw; ++kx) {
          const T *c = r + kx * dw;
          m = max_bytes<T>(m, sw == 1 ? load_bytes(c) : even_bytes(load_bytes(c), load_bytes(c + 16)));
        }
        return m;
      };
      int64_t ox = 0;
      if (vector_steps) {
        for (; ox + 16 <= ow; ox += 16)
          store_bytes(out + ox, windows16(ox * sw));
        if (ox < ow) { // the last windows' reads stay in the row's slack
          store_bytes_first(reinterpret_cast<uint8_t *>(out + ox), windows16(ox * sw), ow - ox);
          ox = ow;
        }
      }
      for (; ox < ow; ++ox) {
        const T *win = row + ox * sw;
        T best = win[0];
        for (int64_t kx = 1; kx < kw; ++kx)
          best = win[kx * dw] > best ? win[kx * dw] : best;
        out[ox] = best;
      }
      if (windows_hold_input)
        continue;
      // Windows at the edges may hold no input column at all (those in
      // [inside_lo, inside_hi] lie wholly inside).
      for (int64_t ox = 0; ox < ow; ++ox) {
        if (ox >= inside_lo && ox <= inside_hi) {
          ox = inside_hi;
          continue;
        }
        const int64_t first = ox * sw - pw;
        bool inside = false;
        for (int64_t kx = 0; kx < kw; ++kx)
          inside = inside || (first + kx * dw >= 0 && first + kx * dw < w);
        if (!inside)
          out[ox] = T(0);
      }
    }
  }
}

/// step(in, out) over n elements K at a time, the last partial step on
/// zero-padded copies (so no step reads or writes past n).
template <int64_t K, typename In, typename Out, typename Step>
inline void in_whole_steps(const In *x, Out *y, int64_t n, Step &&step) {
  int64_t i = 0;
  for (; i + K <= n; i += K)
    step(x + i, y + i);
  if (i < n) {
    In in[K] = {};
    Out out[K];
    __builtin_memcpy(in, x + i, size_t(n - i) * sizeof(In));
    step(in, out);
    __builtin_memcpy(y + i, out, size_t(n - i) * sizeof(Out));
  }
}

namespace detail {
/// V::round_saturated (neon.h), for the ISAs that have it.
template <typename V> ONNXC_RT_SIMD_INLINE V round_saturated(VecF x) {
  return V::round_saturated(x);
}
} // namespace detail

/// QuantizeLinear per tensor (reference/quant.h's quantize_linear, the
/// same integers): y = saturate(round_half_even(x / scale) + zp) over n
/// floats, the quotient clamped first to just past Q's range less zp (the
/// saturation's result either way) so that the vector rounding, exact
/// below 2^22, applies. NaN becomes Q's lowest value (the reference casts
/// it, which C++ leaves undefined).
template <typename Q>
void quantize_linear(const float *x, const float *scale, const Q *zero_point, Q *y, int64_t n) {
  constexpr int32_t lo = std::numeric_limits<Q>::min(), hi = std::numeric_limits<Q>::max();
  constexpr int64_t L = VecF::kLanes, kStep = 4 * L;
  static_assert(VecF::kLanes == VecI::kLanes, "one int32 lane per float lane");
  const int32_t zp = zero_point ? int32_t(zero_point[0]) : 0;
  const VecF vs = VecF::broadcast(scale[0]), qlo = VecF::broadcast(float(lo - zp - 1)),
             qhi = VecF::broadcast(float(hi - zp + 1));
  const VecI vzp = VecI::broadcast(zp), vlo = VecI::broadcast(lo), vhi = VecI::broadcast(hi);
  auto step = [&](const float *in, Q *out) {
    VecI q[4];
    for (int j = 0; j < 4; ++j) {
      // max(q, qlo) first: a NaN quotient takes qlo.
      const VecF t = VecF::max(VecF::div(VecF::load(in + j * L), vs), qlo);
      if constexpr (VecI::kSaturatingRound) {
        // NEON: FCVTNS's saturation, then store_narrow_clamped's (to 16
        // bits, + zp, to Q), give saturate(round(t) + zp).
        q[j] = detail::round_saturated<VecI>(t);
      } else {
        const VecI r{__builtin_convertvector(VecF::round(VecF::min(t, qhi)).v, VecI::Int)};
        q[j] = VecI::min(VecI::max(VecI::add(r, vzp), vlo), vhi);
      }
    }
    if constexpr (VecI::kSaturatingRound)
      VecI::store_narrow_clamped(out, q, vzp, vlo, vhi);
    else
      VecI::store_narrow_all(out, q);
  };
  in_whole_steps<kStep>(x, y, n, step);
}

/// DequantizeLinear per tensor (reference/quant.h's dequantize_linear):
/// y = float(x - zp) * scale over n values, four vectors at a time (one
/// load of NEON's 16 bytes, widened).
template <typename Q>
void dequantize_linear(const Q *x, const float *scale, const Q *zero_point, float *y,
                       int64_t n) {
  constexpr int64_t L = VecF::kLanes, kStep = 4 * L;
  static_assert(VecF::kLanes == VecI::kLanes, "one int32 lane per float lane");
  const VecF vs = VecF::broadcast(scale[0]);
  const VecI vzp = VecI::broadcast(zero_point ? int32_t(zero_point[0]) : 0);
  auto step = [&](const Q *in, float *out) {
    VecI q[4];
    VecI::widen_all(in, q);
    for (int j = 0; j < 4; ++j) {
      const VecI d = VecI::sub(q[j], vzp);
      VecF::mul(VecF{__builtin_convertvector(d.v, decltype(VecF::v))}, vs).store(out + j * L);
    }
  };
  in_whole_steps<kStep>(x, y, n, step);
}

} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif
