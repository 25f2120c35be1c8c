// SIMD qs8 depthwise_conv2d: blocks of 16 channels interleaved pixel by
// pixel and zero-point padded, one band of rows at a time: where NEON has a
// byte dot product (dotprod, i8mm) as quads of a kernel row's bytes, one
// dot product per four taps, else widened (int32 on x86, int16 on NEON),
// one multiply-add per tap; each output pixel's 16 channels from one load
// per unit; transposed back to NCHW. On x86 with AVX512-VNNI the planes are
// read in place instead (depthwise_rows), and with VBMI the small ones
// without a padded copy (depthwise_small).
#ifndef ONNXC_RT_SIMD_QS8_DEPTHWISE_H
#define ONNXC_RT_SIMD_QS8_DEPTHWISE_H

#include "onnxc_rt/kernels/simd/qs8/common.h"
#include "onnxc_rt/kernels/simd/qs8/window_plan.h"

namespace onnxc_rt {
namespace simd {
namespace qs8 {

/// Whether depthwise_conv2d sums four taps of a kernel row per instruction
/// (VecI::kDepthwiseQuads: NEON's SDOT and USDOT) on bytes packed as
/// conv2d packs them (qs8/pack.h's quad slots), else one tap per
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
/// Taps a slot serves (qs8/window_plan.h's depthwise_row_units).
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

/// depthwise_conv2d channel-blocked (qs8/window_plan.h's depthwise_band): per
/// block of 16 channels and band of output rows, the input packed pixel by
/// pixel (widened values, or quads of packed bytes: kQuadDepthwise); per
/// sub-block of channels, each output pixel's channels from one load per
/// unit and vector (mla_slots), requantized per channel and staged, then
/// transposed back. Narrow planes waste no lanes, strided windows need no
/// column phases, and the padding is written once per band. KH, KW: the
/// kernel's extent when known at compile time (the units unroll), else 0.
/// Channels [c_begin, c_end) of each image (a task's share), in blocks
/// from c_begin.
template <int KH, int KW, int SW, typename T>
void depthwise_blocked(const T *x, const int8_t *w, const int32_t *bias, T *y, int64_t batch,
                       const Conv2d &g, int64_t c_begin, int64_t c_end, int32_t x_zp,
                       const int32_t *multiplier, const int32_t *shift, int64_t count,
                       VecI y_zp, VecI act_min, VecI act_max, uint8_t *scratch) {
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
    for (int64_t c0 = c_begin; c0 < c_end; c0 += B) {
      const int64_t cb = c_end - c0 < B ? c_end - c0 : B;
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

/// The byte permute that makes a channel's quads of weights from its
/// kh x kw bytes (kw <= 4, kh <= 16): byte 4 ky + j of the quads is byte
/// ky kw + j of the weights, 0 past the row (quad_weights).
struct QuadPick {
  VecI index;
  uint64_t keep;
};
inline QuadPick quad_pick(int64_t kh, int64_t kw) {
  constexpr int64_t Q = kDepthwiseQuad;
  uint8_t index[64] = {};
  uint64_t keep = 0;
  for (int64_t ky = 0; ky < kh; ++ky)
    for (int64_t j = 0; j < kw; ++j) {
      index[ky * Q + j] = static_cast<uint8_t>(ky * kw + j);
      keep |= uint64_t(1) << (ky * Q + j);
    }
  return {VecI::load(index), keep};
}

/// Channel c's kernel rows' quads of weights (w as ONNX stores it; kw <=
/// 4), each broadcast as one int32, for the dot products of bytes made
/// unsigned by XOR with `flip`: one byte permute, and one dot product for
/// their sum; returns the channel's requantization, the folded bias less
/// that sum times the flip. (depthwise_rows builds its quads byte by byte
/// in its own loop: through this function its 5 x 5 layers ran 35% slower,
/// their weights no longer in registers.)
template <typename V>
ONNXC_RT_SIMD_INLINE Requant quad_weights(const int8_t *w, const int32_t *bias,
                                          const int32_t *multiplier, const int32_t *shift,
                                          int64_t count, int64_t c, int64_t kh, int64_t kw,
                                          uint8_t flip, const QuadPick &pick, V *wq) {
  const V words = V::pick_bytes(w + c * kh * kw, kh * kw, pick.index, pick.keep);
  for (int64_t ky = 0; ky < kh; ++ky)
    wq[ky] = V::lane(words, ky);
  // Bytes past the quads are 0.
  const int32_t wsum = V::sum_lanes(V::dot_u8s8(V::zero(), V::broadcast(0x01010101), words));
  const int64_t k = count > 1 ? c : 0;
  return requant_broadcast(bias[c] - int32_t(flip) * wsum, multiplier[k], shift[k]);
}

/// depthwise_conv2d on small planes (window_plan.h's depthwise_small_windows: up
/// to 64 output pixels, kernel rows of up to 4 taps) where the ISA permutes
/// bytes of two tables (VecI::kBytePermute2, AVX512-VBMI): per channel,
/// each run of kLanes output pixels (across rows: one contiguous store)
/// from one byte permute of a 64-byte window of the input plane and the
/// zero point per kernel row (`index` and `entry`, built once a call) and
/// one dot product by the row's quad of weights. depthwise_rows writes each
/// plane padded and reads it back at once; on 7 x 7 planes that and the
/// weights taken byte by byte cost more than the products
/// (bench/results/qs8-conv.md). KH: the kernel's rows when known at compile
/// time, else 0.
template <int KH, typename T, typename V>
void depthwise_small(const T *x, const int8_t *w, const int32_t *bias, T *y, int64_t batch,
                     const Conv2d &g, int64_t c_begin, int64_t c_end, const uint8_t *index,
                     const DepthwiseSmallEntry *entry, int32_t x_zp, const int32_t *multiplier,
                     const int32_t *shift, int64_t count, V y_zp, V act_min, V act_max) {
  constexpr int64_t L = V::kLanes;
  static_assert(L == 16, "window_plan.h's depthwise_small_windows: runs of 16 pixels");
  const int64_t kh = KH ? KH : g.kh, kw = g.kw;
  const int64_t channels = g.c, plane_in = g.h * g.w, pixels = g.oh * g.ow;
  const QuadPick pick = quad_pick(kh, kw);
  const uint8_t flip = static_cast<uint8_t>(flip_of<T>());
  const V vflip = V::broadcast(int32_t(uint32_t(flip) * 0x01010101u));
  const uint32_t pad_byte = static_cast<uint8_t>(x_zp) ^ flip;
  const V pad = V::broadcast(int32_t(pad_byte * 0x01010101u));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t c = c_begin; c < c_end; ++c) {
      const uint8_t *xc = reinterpret_cast<const uint8_t *>(x + (b * channels + c) * plane_in);
      V wq[16];
      const Requant q =
          quad_weights(w, bias, multiplier, shift, count, c, kh, kw, flip, pick, wq);
      T *yc = y + (b * channels + c) * pixels;
      auto runs = [&](auto up) ONNXC_RT_SIMD_LAMBDA {
        constexpr bool kUp = decltype(up)::value;
        const uint8_t *at = index;
        const DepthwiseSmallEntry *e = entry;
        for (int64_t p0 = 0; p0 < pixels; p0 += L) {
          V acc = q.add;
          for (int64_t ky = 0; ky < kh; ++ky, at += 64, ++e)
            acc = V::dot_u8s8(
                acc, V::byte_permute2(xc + e->base, e->mask, V::load(at), vflip, pad), wq[ky]);
          const V r = to_output(requantize_as<kUp>(acc, q), y_zp, act_min, act_max);
          r.store_narrow(yc + p0, pixels - p0 < L ? pixels - p0 : L);
        }
      };
      if (q.scales_up)
        runs(std::true_type());
      else
        runs(std::false_type());
    }
}

/// depthwise_conv2d in place on NCHW planes where the ISA forms windows of
/// bytes (VecI::kByteWindows, x86): per channel, its plane copied once
/// into scratch with the padding (x_zp) around it and the bytes made
/// unsigned (int8 XOR 0x80); then per output row, kLanes output pixels a
/// vector: per kernel row and quad of its taps, one window load
/// (byte_windows: lane i the four bytes output pixel i reads) and one dot
/// product by the quad's four weights, broadcast; requantized with the
/// channel's constants and stored in the output plane. No transposes in
/// or out, and a stride of 2 costs what a stride of 1 does: what the
/// channel-blocked form spends around its products. Rows narrower than
/// kDepthwiseRowsMinWidth go `rows_per_vector` to a vector
/// (depthwise_rows_per_vector, VecI::kByteGather): lane r ow + c is pixel
/// c of row r, its window gathered from the same 64-byte load by an index
/// built once, and the rows' outputs are contiguous in the plane. KH, KU:
/// the kernel's rows and quads a row when known at compile time
/// (unrolled), else 0; kGather: rows_per_vector > 1. V: the vector type
/// (VecI; a parameter so that ISAs without windows never instantiate this).
/// Channels [c_begin, c_end) of each image (a task's share).
template <int KH, int KU, int SW, bool kGather, typename T, typename V>
void depthwise_rows(const T *x, const int8_t *w, const int32_t *bias, T *y, int64_t batch,
                    const Conv2d &g, int64_t c_begin, int64_t c_end, const DepthwiseRows &rows,
                    int64_t rows_per_vector, int32_t x_zp, const int32_t *multiplier,
                    const int32_t *shift, int64_t count, V y_zp, V act_min, V act_max,
                    uint8_t *plane) {
  constexpr int64_t L = V::kLanes, Q = kDepthwiseQuad;
  // Locals, not g's fields: the byte stores could alias g.
  const int64_t kh = KH ? KH : g.kh, quads = KU ? KU : rows.quads, kw = g.kw;
  const int64_t oh = g.oh, ow = g.ow, sh = g.sh * rows.pitch, dh = g.dh * rows.pitch;
  const int64_t channels = g.c, h = g.h, width = g.w, ph = g.ph, pw = g.pw;
  const int64_t R = rows_per_vector;
  const uint8_t flip = static_cast<uint8_t>(flip_of<T>());
  const uint8_t pad = static_cast<uint8_t>(static_cast<uint8_t>(x_zp) ^ flip);
  // Several rows a vector: byte 4 i + j of lane i = r ow + c reads
  // r sh + c SW + j of the load (lanes past the rows read byte 0).
  V gather_index = V::zero();
  if constexpr (kGather) {
    uint8_t index[4 * L] = {};
    for (int64_t i = 0; i < R * ow && i < L; ++i)
      for (int64_t j = 0; j < Q; ++j)
        index[4 * i + j] = static_cast<uint8_t>((i / ow) * sh + (i % ow) * SW + j);
    gather_index = V::load(index);
  }
  auto window = [&](const uint8_t *p) ONNXC_RT_SIMD_LAMBDA {
    if constexpr (kGather)
      return V::byte_gather(p, gather_index);
    else
      return V::template byte_windows<SW>(p);
  };
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t c = c_begin; c < c_end; ++c) {
      const uint8_t *xc = reinterpret_cast<const uint8_t *>(x + (b * channels + c) * h * width);
      if (!V::padded_plane(xc, h, width, ph, pw, rows.rows, rows.pitch, pad, flip, plane))
        pad_flipped_plane(xc, h, width, ph, pw, rows.rows, rows.pitch, pad, flip, plane);
      // The kernel rows' quads of weights, each broadcast as one int32;
      // their sum times the flip leaves the folded bias.
      const int8_t *wc = w + c * kh * kw;
      V wq[kMaxDepthwiseTaps];
      int32_t wsum = 0;
      for (int64_t ky = 0; ky < kh; ++ky)
        for (int64_t u = 0; u < quads; ++u) {
          uint8_t b4[4] = {};
          for (int64_t i = 0; i < Q && u * Q + i < kw; ++i) {
            b4[i] = static_cast<uint8_t>(wc[ky * kw + u * Q + i]);
            wsum += wc[ky * kw + u * Q + i];
          }
          int32_t word;
          __builtin_memcpy(&word, b4, 4);
          wq[ky * quads + u] = V::broadcast(word);
        }
      const int64_t k = count > 1 ? c : 0;
      const Requant q = requant_broadcast(bias[c] - int32_t(flip) * wsum, multiplier[k], shift[k]);
      T *yc = y + (b * channels + c) * oh * ow;
      auto plane_rows = [&](auto up) ONNXC_RT_SIMD_LAMBDA {
        constexpr bool kUp = decltype(up)::value;
        for (int64_t oy = 0; oy < oh; oy += kGather ? R : 1) {
          const uint8_t *in = plane + oy * sh;
          T *out = yc + oy * ow;
          // One row: its pixels kLanes at a time; several: all of them.
          const int64_t n = kGather ? (oh - oy < R ? oh - oy : R) * ow : ow;
          for (int64_t ox = 0; ox < n; ox += L) {
            V acc = q.add;
            const uint8_t *at = in + ox * SW;
            if constexpr (KH > 0) {
              // Two chains of dot products, the even kernel rows' and the
              // odd ones', so that each waits half as long.
              V odd = V::zero();
              for (int ky = 0; ky < KH; ++ky)
                for (int u = 0; u < KU; ++u) {
                  V &sum = ky % 2 ? odd : acc;
                  sum = V::dot_u8s8(sum, window(at + ky * dh + u * Q), wq[ky * KU + u]);
                }
              acc = V::add(acc, odd);
            } else {
              for (int64_t ky = 0; ky < kh; ++ky)
                for (int64_t u = 0; u < quads; ++u)
                  acc = V::dot_u8s8(acc, window(at + ky * dh + u * Q), wq[ky * quads + u]);
            }
            const V r = to_output(requantize_as<kUp>(acc, q), y_zp, act_min, act_max);
            r.store_narrow(out + ox, n - ox < L ? n - ox : L);
          }
        }
      };
      if (q.scales_up)
        plane_rows(std::true_type());
      else
        plane_rows(std::false_type());
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
/// kQuadDepthwise). kWindows: VecI::kByteWindows, which the scratch was
/// sized for: depthwise_scratch_bytes(..., kQuad, kWindows, tasks). `tasks`
/// take shares of the channels (run on `runner`, see parallel.h).
/// kKernel and kStrideW: qs8/window_plan.h's depthwise_unrolled_kernel and
/// depthwise_window_stride of this convolution, which the compiler names so
/// that a model's code holds only its layers' forms (an int8 model compiled
/// all seventeen for each depthwise type); -1 (the default): chosen at run
/// time, as the sweeps call it.
template <typename T, bool kQuad, bool kWindows, int kKernel = -1, int kStrideW = -1>
void depthwise_conv2d(const T *x, const int8_t *w, const int32_t *bias, T *y,
                      const int64_t *in_shape, const int64_t *out_shape, const int64_t *kernel,
                      const int64_t *strides, const int64_t *pads_begin,
                      const int64_t *dilations, int32_t x_zp, const int32_t *multiplier,
                      const int32_t *shift, int64_t count, int32_t y_zp, int32_t act_min,
                      int32_t act_max, uint8_t *scratch, TaskRunner *runner = nullptr,
                      int64_t tasks = 1) {
  using namespace detail;
  static_assert(kQuad == kQuadDepthwise,
                "bias folded for another instruction set (qs8/window_plan.h's depthwise_band)");
  static_assert(kWindows == VecI::kByteWindows,
                "scratch sized for another instruction set "
                "(qs8/window_plan.h's depthwise_reads_rows)");
  if constexpr (kKernel < 0 || kStrideW < 0) {
    const auto run = [&](auto unrolled, auto stride) {
      depthwise_conv2d<T, kQuad, kWindows, decltype(unrolled)::value, decltype(stride)::value>(
          x, w, bias, y, in_shape, out_shape, kernel, strides, pads_begin, dilations, x_zp,
          multiplier, shift, count, y_zp, act_min, act_max, scratch, runner, tasks);
    };
    using I0 = std::integral_constant<int, 0>;
    using I1 = std::integral_constant<int, 1>;
    using I2 = std::integral_constant<int, 2>;
    using I3 = std::integral_constant<int, 3>;
    using I5 = std::integral_constant<int, 5>;
    const int64_t stride = depthwise_window_stride(strides[1], dilations[1]);
    switch (depthwise_unrolled_kernel(kernel[0], kernel[1], strides[1], dilations[1])) {
    case 3: return stride == 1 ? run(I3(), I1()) : run(I3(), I2());
    case 5: return stride == 1 ? run(I5(), I1()) : run(I5(), I2());
    default:
      return stride == 0 ? run(I0(), I0()) : stride == 1 ? run(I0(), I1()) : run(I0(), I2());
    }
  } else {
    static_assert((kKernel == 0 || kKernel == 3 || kKernel == 5) && kStrideW <= 2 &&
                      (kKernel == 0 || kStrideW > 0),
                  "qs8/window_plan.h's depthwise_unrolled_kernel and depthwise_window_stride");
    const Conv2d g{in_shape[1], in_shape[2], in_shape[3], out_shape[2], out_shape[3],
                   kernel[0],   kernel[1],   strides[0],  strides[1],   pads_begin[0],
                   pads_begin[1], dilations[0], dilations[1]};
    const VecI vzp = VecI::broadcast(y_zp), vmin = VecI::broadcast(act_min),
               vmax = VecI::broadcast(act_max);
    const int64_t task_bytes = depthwise_task_bytes(in_shape, out_shape, kernel, strides,
                                                    pads_begin, dilations, kQuad, kWindows);
    // Each task a run of the channels (of whole blocks where they are
    // blocked) with its own band or plane.
    // ~4 multiply-adds a cycle (parallel.h's tasks_for).
    const int64_t used = tasks_for(in_shape[0] * g.c * g.oh * g.ow * g.kh * g.kw / 4, tasks);
    auto split = [&](int64_t quantum, const auto &run) {
      parallel_for(runner, used, [&](int64_t t) {
        const Range r = split_range(g.c, quantum, used, t);
        if (r.begin < r.end)
          run(r, scratch + t * task_bytes);
      });
    };
    if constexpr (VecI::kBytePermute2) {
      // Small planes: windows of the planes themselves, not padded copies;
      // the windows' entries at the start of the scratch, for every task
      // (built in one pass: room for depthwise_small_entries of them).
      const int64_t entries = depthwise_small_entries(g.oh, g.ow, g.kh, g.kw);
      DepthwiseSmallEntry *entry = reinterpret_cast<DepthwiseSmallEntry *>(scratch);
      uint8_t *index = scratch + entries * int64_t(sizeof(DepthwiseSmallEntry));
      if (entries > 0 && depthwise_small_windows(g.h, g.w, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw,
                                                 g.ph, g.pw, g.dh, g.dw, index, entry) > 0) {
        constexpr int kRows = kKernel == 3 ? 3 : 0; // 5 x 5: two quads a row, not this form
        return split(1, [&](Range r, uint8_t *) {
          depthwise_small<kRows, T, VecI>(x, w, bias, y, in_shape[0], g, r.begin, r.end, index,
                                          entry, x_zp, multiplier, shift, count, vzp, vmin, vmax);
        });
      }
    }
    if constexpr (kWindows && kStrideW > 0) {
      // In place from the planes' rows where their width allows (pack.h's
      // depthwise_rows_per_vector): 3x3 and 5x5 unrolled (a quad a row of
      // 3, two of 5).
      const DepthwiseRows rows =
          depthwise_rows_geometry(g.w, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.pw, g.dh);
      const int64_t per_vector = depthwise_rows_per_vector(
          g.ow, g.kw, g.sh, g.sw, rows.pitch, VecI::kLanes, VecI::kByteGather);
      constexpr int kQuads = kKernel == 3 ? 1 : kKernel == 5 ? 2 : 0;
      auto in_rows = [&](auto gather) {
        split(1, [&](Range r, uint8_t *s) {
          depthwise_rows<kKernel, kQuads, kStrideW, decltype(gather)::value, T, VecI>(
              x, w, bias, y, in_shape[0], g, r.begin, r.end, rows, per_vector, x_zp,
              multiplier, shift, count, vzp, vmin, vmax, s);
        });
      };
      if (depthwise_reads_rows(g.kw, g.sw, g.dw) && per_vector > 0) {
        if constexpr (VecI::kByteGather) {
          if (per_vector > 1)
            return in_rows(std::true_type());
        }
        return in_rows(std::false_type());
      }
    }
    // Channel-blocked: 3x3 and 5x5 at stride 1 or 2 unroll their taps with
    // constant offsets.
    constexpr int kBlockedStride = kKernel == 0 ? 0 : kStrideW;
    split(kDepthwiseBlock, [&](Range r, uint8_t *s) {
      depthwise_blocked<kKernel, kKernel, kBlockedStride>(x, w, bias, y, in_shape[0], g, r.begin,
                                                          r.end, x_zp, multiplier, shift, count,
                                                          vzp, vmin, vmax, s);
    });
  }
}

} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_QS8_DEPTHWISE_H
