// What the SIMD kernels of the qs8 scheme share (simd/qs8/*.h, one kernel
// family a file): the same integers as reference/qs8.h, bit for bit (the
// sweep tests in test/kernels/simd_qs8_test.cpp check it), written once over
// VecI (simd/isa/x86.h: vpdpbusd with VNNI, vpmaddwd without;
// simd/isa/neon.h: USDOT with i8mm, SDOT with dotprod, widening multiplies
// without). Here: the depth grouping the instruction set implies, the
// requantization in vector lanes, 16-byte helpers and a convolution's
// geometry.
//
// The requantization is reference/qs8.h's multiply_by_quantized_multiplier
// per lane: saturating left shift, truncated doubling high multiply,
// rounding right shift (the one rounding; the reference says why the
// three steps are its 64-bit form).
#ifndef ONNXC_RT_SIMD_QS8_COMMON_H
#define ONNXC_RT_SIMD_QS8_COMMON_H

#include <limits>
#include <type_traits>
#include <utility>

#include "onnxc_rt/kernels/reference/qs8.h"
#include "onnxc_rt/parallel.h"
#include "onnxc_rt/kernels/simd/qs8/pack.h"
#include "onnxc_rt/kernels/simd/vec.h"

namespace onnxc_rt {
namespace simd {
namespace qs8 {

/// Whether conv2d and fully_connected multiply 16 depth bytes of one
/// operand by 16 of the other at once (VecI::dot16: armv8-a, whose
/// products otherwise need a broadcast of 4 bytes and pair sums of two
/// vectors).
constexpr bool kDepth16 = VecI::kDepth16Dots;
/// The depth values conv2d and fully_connected keep together (qs8/pack.h),
/// the G of their packed weights: 8 for the byte matrix multiply, 16 for
/// the 16-byte products, 4 for the dot products.
constexpr int kDepthGroup = VecI::kMatMul ? int(kMatMulDepthGroup)
                            : kDepth16    ? int(kWideDepthGroup)
                                          : int(kDotDepthGroup);
/// Whether conv2d multiplies by AMX tiles (x86-64-amx: built with
/// -mamx-int8; simd/qs8/amx.h) where a convolution is deep enough
/// (conv_amx_applies), and the depth group of its packed weights:
/// kAmxDepthGroup there, else kDepthGroup (conv_depth_group).
#if defined(__x86_64__) && defined(__AMX_INT8__) && defined(__AMX_TILE__)
#define ONNXC_RT_SIMD_AMX 1
constexpr bool kAmx = true;
#else
#define ONNXC_RT_SIMD_AMX 0
constexpr bool kAmx = false;
#endif
constexpr int64_t conv_depth_group(int64_t depth) {
  return kAmx && conv_amx_applies(depth) ? kAmxDepthGroup : kDepthGroup;
}

/// The depth group of fully_connected's packed weights for rows x depth:
/// AMX's where it applies (fc_amx_applies), else kDepthGroup.
constexpr int64_t fc_depth_group(int64_t rows, int64_t depth) {
  return kAmx && fc_amx_applies(rows, depth) ? kAmxDepthGroup : kDepthGroup;
}

/// f(std::integral_constant<int, G>) with G = conv_depth_group(depth), for
/// code that packs a convolution's weights at run time (the kernel tests,
/// bench/qs8_conv_bench.cpp); the compiler names G in the generated call.
/// (with_depth_group: the same for a depth group given, conv_depth_group's
/// or fc_depth_group's).
template <typename F> void with_depth_group(int64_t dg, F &&f) {
  if constexpr (kAmx)
    if (dg == kAmxDepthGroup)
      return f(std::integral_constant<int, int(kAmxDepthGroup)>{});
  f(std::integral_constant<int, kDepthGroup>{});
}
template <typename F> void with_conv_depth_group(int64_t depth, F &&f) {
  with_depth_group(conv_depth_group(depth), f);
}
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

/// multiply_by_quantized_multiplier(x * 2^e, multiplier, shift) for the
/// small x of an 8-bit activation less its zero point (|x| <= 255) in
/// 32-bit lanes, where the general form takes 64-bit products (x86's
/// vpmuldq twice, a 64-bit shift each): with k = 31 + right - e - left it
/// is floor((x * multiplier + 2^(k-1)) / 2^k), and with the multiplier
/// split as high * 2^s + low (s = min(12, k - 1)) that is
///   (x * high + 2^(k-1-s) + ((x * low) >> s)) >> (k - s),
/// every term within int32 (|x * high| < 2^31, |x * low| < 2^20): two
/// 32-bit multiplies, three adds and shifts, the same integers. qs8::add's
/// inputs (e = add_params' left shift of 20) take it on x86.
struct NarrowScale {
  VecI high, low, round, low_shift, shift;
};

/// Whether narrow_scale gives x * 2^e's multiply_by_quantized_multiplier
/// exactly for |x| <= 255: the scaled x fits int32 (no saturation, e +
/// left <= 23), 2^(k-1-s) does (k <= 42), and the shift is one
/// quantize_multiplier gives (right <= 31).
inline bool narrow_scale_exact(int32_t e, int32_t shift) {
  const ref::qs8::Shifts s = ref::qs8::split_shift(shift);
  return e >= 0 && e + s.left <= 23 && s.right <= 31 && 31 + s.right - e - s.left <= 42;
}

/// (All zeros where it is not exact: never used.)
inline NarrowScale narrow_scale(int32_t e, int32_t multiplier, int32_t shift) {
  if (!narrow_scale_exact(e, shift))
    return {VecI::zero(), VecI::zero(), VecI::zero(), VecI::zero(), VecI::zero()};
  const ref::qs8::Shifts s = ref::qs8::split_shift(shift);
  const int32_t k = 31 + s.right - e - s.left, split = k - 1 < 12 ? k - 1 : 12;
  return {VecI::broadcast(multiplier >> split), VecI::broadcast(multiplier & ((1 << split) - 1)),
          VecI::broadcast(int32_t(1) << (k - 1 - split)), VecI::broadcast(split),
          VecI::broadcast(k - split)};
}

ONNXC_RT_SIMD_INLINE VecI scale_narrow(VecI x, const NarrowScale &c) {
  return {(x.v * c.high.v + c.round.v + ((x.v * c.low.v) >> c.low_shift.v)) >> c.shift.v};
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
/// T int32_t: the sums plus q.add themselves, not requantized (conv2d_sums).
template <int NV, typename T, bool kAdded = false>
ONNXC_RT_SIMD_INLINE void requantize_store(const VecI (&acc)[NV], const Requant &q, VecI y_zp,
                                           VecI act_min, VecI act_max, T *y, int64_t valid) {
  // acc indexed by constants only (for_each_index): a variable index
  // would keep the caller's sums in memory.
  if constexpr (std::is_same_v<T, int32_t>) { // the sums themselves (conv2d_sums)
    for_each_index<NV>([&](auto v) ONNXC_RT_SIMD_LAMBDA {
      const int64_t left = valid - int64_t(v) * kLanes;
      const VecI r = kAdded ? acc[v] : VecI::add(acc[v], q.add);
      if (left >= kLanes) {
        r.store(y + v * kLanes);
      } else if (left > 0) {
        int32_t lanes[kLanes];
        r.store(lanes);
        for (int64_t i = 0; i < left; ++i)
          y[v * kLanes + i] = lanes[i];
      }
    });
  } else {
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

template <typename V, int... I>
inline V shuffle_even(V a, V b, std::integer_sequence<int, I...>) {
  return __builtin_shufflevector(a, b, (2 * I)...);
}
template <typename V, int... I> inline V shuffle_odd(V a, V b, std::integer_sequence<int, I...>) {
  return __builtin_shufflevector(a, b, (2 * I + 1)...);
}
template <typename V, int... I>
inline V shuffle_next(V a, V b, std::integer_sequence<int, I...>) {
  return __builtin_shufflevector(a, b, (I + 1)...);
}
/// Of the bytes of a then b (any byte vector type V: Bytes, or pool.h's
/// 64-byte WideBytes): the even ones (a stride-2 step's windows' first
/// columns), the odd ones, and a's from the second on, then b's first.
template <typename V> inline V even_of(V a, V b) {
  return shuffle_even(a, b, std::make_integer_sequence<int, sizeof(V)>());
}
template <typename V> inline V odd_of(V a, V b) {
  return shuffle_odd(a, b, std::make_integer_sequence<int, sizeof(V)>());
}
template <typename V> inline V next_of(V a, V b) {
  return shuffle_next(a, b, std::make_integer_sequence<int, sizeof(V)>());
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

/// kRounds rounds of interleaving rows i and i + N / 2 of the N rows r
/// (ZIP1/ZIP2 on NEON, punpcklbw/punpckhbw on x86), each a rotation by one
/// of the bits of a byte's index (its row's, then its column's).
template <int kRounds, int N> inline void zip_rows(Bytes (&r)[N]) {
  for (int round = 0; round < kRounds; ++round) {
    Bytes t[N];
    for (int i = 0; i < N / 2; ++i) {
      t[2 * i] = zip_low(r[i], r[i + N / 2]);
      t[2 * i + 1] = zip_high(r[i], r[i + N / 2]);
    }
    for (int i = 0; i < N; ++i)
      r[i] = t[i];
  }
}

/// The 16 x 16 bytes r transposed (byte j of row i becomes byte i of row
/// j): four rounds.
inline void transpose16(Bytes (&r)[16]) { zip_rows<4>(r); }

/// 8 rows of 16 bytes transposed in pairs of columns: row k becomes
/// column 2k's 8 bytes (row 0's first), then column 2k + 1's. Three rounds.
inline void transpose8x16(Bytes (&r)[8]) { zip_rows<3>(r); }

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
/// [n][G], each byte XORed with `flip` (0x80 turns int8 into x + 128); each
/// 16 columns' 16 * G bytes `chunk` bytes after the previous 16's (by
/// default right after them; AMX's panel keeps a pixel tile's depth
/// together, simd/qs8/amx.h).
/// Sixteen rows are 16 x 16 byte blocks transposed.
/// With an interleaving store (NEON's ST4: V::kStore4) four rows are one
/// store, and eight are their byte pairs stored as four rows of halves;
/// else eight rows are two interleaves of four whose 4-byte groups are
/// then interleaved in turn; four rows 64 bytes at a time where the ISA
/// has it (V::interleave4_64: AVX-512).
template <int G, typename V = VecI>
inline void interleave_rows(const uint8_t *const src[G], int64_t n, uint8_t flip, uint8_t *out,
                            int64_t chunk = 16 * G) {
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
        store_bytes(out + i / 16 * chunk + j * 16, r[j]);
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
        V::store4_bytes(out + i / 16 * chunk, row(0, i), row(1, i), row(2, i), row(3, i));
      } else {
        const V r[8] = {row(0, i), row(1, i), row(2, i), row(3, i),
                        row(4, i), row(5, i), row(6, i), row(7, i)};
        for (int h = 0; h < 2; ++h)
          V::store4_halves(out + i / 16 * chunk + 64 * h, pairs(r[0], r[1], h),
                           pairs(r[2], r[3], h), pairs(r[4], r[5], h), pairs(r[6], r[7], h));
      }
    }
    return;
  }
  int64_t i = 0;
  if constexpr (G == 4 && V::kInterleave64)
    for (; i + 64 <= n; i += 64)
      V::interleave4_64(src, i, flip, out, chunk);
  for (; i < n; i += 16) {
    Bytes lo[4];
    interleave4_tile(load_bytes(src[0] + i) ^ f, load_bytes(src[1] + i) ^ f,
                     load_bytes(src[2] + i) ^ f, load_bytes(src[3] + i) ^ f, lo);
    uint8_t *o = out + i / 16 * chunk;
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
/// n: short rows in two overlapping loads or stores instead of a byte loop;
/// each byte XORed with `flip` on the way (0: copied as it is).
template <int K> inline void copy_overlapping(uint8_t *dst, const uint8_t *src, int64_t n,
                                              uint8_t flip = 0) {
  static_assert(K == 4 || K == 8, "pieces of a 32- or 64-bit word");
  using W = std::conditional_t<K == 8, uint64_t, uint32_t>;
  const W f = W(W(~W(0)) / 255 * flip); // flip in every byte
  W head, tail;
  __builtin_memcpy(&head, src, K);
  __builtin_memcpy(&tail, src + n - K, K);
  head ^= f;
  tail ^= f;
  __builtin_memcpy(dst, &head, K);
  __builtin_memcpy(dst + n - K, &tail, K);
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

/// n bytes from src to dst, each XORed with flip: 16 at a time, a row's
/// tail as an overlapping piece, straight from src to dst (a tail staged
/// through a buffer and loaded back whole waits for the stores it spans).
inline void copy_flipped(uint8_t *dst, const uint8_t *src, int64_t n, uint8_t flip) {
  if (n >= 16) {
    for (int64_t i = 0; i + 16 < n; i += 16)
      store_bytes(dst + i, load_bytes(src + i) ^ flip);
    store_bytes(dst + n - 16, load_bytes(src + n - 16) ^ flip);
    return;
  }
  if (n >= 8)
    return copy_overlapping<8>(dst, src, n, flip);
  if (n >= 4)
    return copy_overlapping<4>(dst, src, n, flip);
  for (int64_t i = 0; i < n; ++i)
    dst[i] = src[i] ^ flip;
}

/// One channel's padded plane (h x w bytes at x): `rows` rows of `pitch`
/// bytes, input row r - ph at column pw (pw + w <= pitch), everything else
/// `pad`, each byte XORed with `flip` (int8 made unsigned for the dot
/// products): depthwise_rows' planes and the Winograd form's.
inline void pad_flipped_plane(const uint8_t *x, int64_t h, int64_t w, int64_t ph, int64_t pw,
                              int64_t rows, int64_t pitch, uint8_t pad, uint8_t flip,
                              uint8_t *plane) {
  // The padding over the whole plane in one run (short rows would spend
  // more in calls to memset than in the rest), then the input's rows.
  fill_bytes(plane, rows * pitch, pad);
  const int64_t r0 = ph, r1 = ph + h < rows ? ph + h : rows;
  for (int64_t r = r0; r < r1; ++r) {
    uint8_t *row = plane + r * pitch + pw;
    const uint8_t *src = x + (r - ph) * w;
    copy_flipped(row, src, w, flip);
  }
}

/// The first n bytes (n > 0; all 16 where n >= 16) of v stored at dst,
/// nothing past them: one masked store with AVX-512, else in pieces (whose
/// loads of the vector just stored wait on it: a sixth of the samples of
/// SqueezeNet's last int8 pool, 13 outputs a row, before the mask).
inline void store_bytes_first(uint8_t *dst, Bytes v, int64_t n) {
  if (n >= 16)
    return store_bytes(dst, v);
#if defined(__AVX512BW__) && defined(__AVX512VL__)
  _mm_mask_storeu_epi8(dst, __mmask16((1u << n) - 1), reinterpret_cast<__m128i>(v));
#else
  uint8_t b[16];
  store_bytes(b, v);
  if (n >= 8)
    return copy_overlapping<8>(dst, b, n);
  if (n >= 4)
    return copy_overlapping<4>(dst, b, n);
  for (int64_t i = 0; i < n; ++i)
    dst[i] = b[i];
#endif
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
    auto even = [&](int64_t i) { store(i, even_of(load(2 * i), load(2 * i + 16))); };
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
    const Bytes e = even_of(a, a), o = odd_of(b, b);
    __builtin_memcpy(head, &e, 16);
    __builtin_memcpy(tail, &o, 16);
    __builtin_memcpy(dst, head, 8);
    __builtin_memcpy(dst + n - 8, tail, 8);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    dst[i] = src[i * step];
}

} // namespace detail

/// f(begin, count) over [0, n) in runs of whole 64-value pieces, as many
/// tasks (run on `runner`) as tasks_for allows at about a cycle a value:
/// the element-wise kernels' split.
template <typename F>
void for_each_run(int64_t n, TaskRunner *runner, int64_t tasks, const F &f) {
  for_each_split(runner, tasks, n, 64, n, [&](int64_t b, int64_t e) { f(b, e - b); });
}

} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_QS8_COMMON_H
