// int8 convolutions for microcontrollers (mcu/qs8/dot.h): dense 2-D,
// the same with a fused max pool, and depthwise.
//
// Convolution: the windows of two output pixels are gathered into columns
// (from NCHW planes or, in an NHWC region the compiler chose, from NHWC
// pixels, a window row one run of KW x C values) holding x as it is
// (padding reads x_zp; the compiler folds the zero point into the bias),
// and multiplied with two output channels' weights as the
// policy `Dot` says (dot.h: int16 pairs and SMLAD, int8 widened by
// SXTB16, or int8 and Helium's VMLADAVA): 2 x 2 accumulators, requantized
// together (output_2x2: four lanes at once on Helium); a fused max pool
// keeps each window's largest accumulator and requantizes that one.
#ifndef ONNXC_RT_MCU_QS8_CONV_H
#define ONNXC_RT_MCU_QS8_CONV_H

#include "onnxc_rt/kernels/mcu/qs8/dot.h"

namespace onnxc_rt {
namespace mcu {
namespace qs8 {

/// conv2d's column of output pixel `pixel` in layout L: NCHW by Dot's own
/// gather, NHWC by gather_window_nhwc (depth order kernel row, kernel
/// column, channel: the compiler packs the weights in that order); zeros
/// past W::K.
template <typename Dot, Layout L, typename T, typename W, int XZp>
inline void gather_column(const T *x, int pixel, typename Dot::Col *col) {
  if constexpr (L == Layout::Nchw) {
    Dot::template gather<T, W, XZp>(x, pixel, col);
  } else {
    typedef typename Dot::Col Col;
    gather_window_nhwc<W, ColumnCopy>(x, pixel, col, Col(XZp));
    for (int i = W::K; i < Dot::depth(W::K); ++i)
      col[i] = 0;
  }
}

/// The columns of pixels `pixel` and, if `second`, pixel + 1 (else `pixel`
/// again): NCHW by Dot's gather2 (with its shortcuts), NHWC one by one.
template <typename Dot, Layout L, typename T, typename W, int XZp>
inline void gather_columns(const T *x, int pixel, bool second, typename Dot::Col *c0,
                           typename Dot::Col *c1) {
  if constexpr (L == Layout::Nchw) {
    Dot::template gather2<T, W, XZp>(x, pixel, second, c0, c1);
  } else {
    gather_column<Dot, L, T, W, XZp>(x, pixel, c0);
    gather_column<Dot, L, T, W, XZp>(x, second ? pixel + 1 : pixel, c1);
  }
}

/// A 2-D convolution (group 1) of int8 x (W::IC x IH x IW, zero point
/// XZp; NHWC: IH x IW x IC) into y (M x OH x OW; NHWC: OH x OW x M),
/// weights packed for Dot, the channels' requantization from
/// channel_params (M x kChannelWords) with the biases of fold_zero_point,
/// the output clamped to [Lo, Hi]. Two output pixels and two output
/// channels at a time.
template <typename T, typename W, int M, int XZp, int YZp, int Lo, int Hi, bool Wide,
          typename Dot = Smlad, Layout L = Layout::Nchw>
void conv2d(const T *x, const int32_t *packed, const int32_t *params, T *y,
            typename Dot::Col *scratch) {
  constexpr int D = Dot::depth(W::K);
  constexpr bool nhwc = L == Layout::Nhwc;
  constexpr int ChannelStride = nhwc ? 1 : W::Pixels, PixelStride = nhwc ? M : 1;
  typename Dot::Col *const col0 = scratch, *const col1 = scratch + D;
  for (int pix = 0; pix < W::Pixels; pix += 2) {
    const bool second = pix + 1 < W::Pixels;
    gather_columns<Dot, L, T, W, XZp>(x, pix, second, col0, col1);
    const int32_t *w = packed;
    for (int m = 0; m < M; m += 2, w += Dot::pair_words(W::K)) {
      int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
      Dot::template product<D>(w, col0, col1, a00, a01, a10, a11);
      output_2x2<T, Wide, YZp, Lo, Hi, ChannelStride, PixelStride>(
          a00, a01, a10, a11, params, m, y + m * ChannelStride + pix * PixelStride, second,
          M % 2 == 0 || m + 1 < M);
    }
  }
}

/// conv2d followed by a max pool of PH x PW windows at stride (PH, PW), no
/// padding (QConv with max_pool): y is M x (OH / PH) x (OW / PW) (NHWC:
/// (OH / PH) x (OW / PW) x M). The requantization is monotonic in the
/// accumulator, so each window's largest accumulator is requantized, once.
template <typename T, typename W, int M, int XZp, int YZp, int Lo, int Hi, bool Wide, int PH,
          int PW, typename Dot = Smlad, Layout L = Layout::Nchw>
void conv2d_max_pool(const T *x, const int32_t *packed, const int32_t *params, T *y,
                     typename Dot::Col *scratch) {
  constexpr int D = Dot::depth(W::K);
  constexpr int POW = W::OW / PW, Pooled = W::OH / PH * POW, Columns = pool_columns(PH, PW);
  constexpr bool nhwc = L == Layout::Nhwc;
  constexpr int ChannelStride = nhwc ? 1 : Pooled, PixelStride = nhwc ? M : 1;
  for (int q = 0; q < Pooled; ++q) {
    const int py = q / POW, px = q - py * POW;
    for (int i = 0; i < Columns; ++i) {
      const int j = i < PH * PW ? i : PH * PW - 1, dy = j / PW;
      gather_column<Dot, L, T, W, XZp>(x, (py * PH + dy) * W::OW + px * PW + (j - dy * PW),
                                       scratch + i * D);
    }
    const int32_t *w = packed;
    T *out = y + q * PixelStride;
    for (int m = 0; m < M; m += 2, w += Dot::pair_words(W::K)) {
      int32_t best0 = INT32_MIN, best1 = INT32_MIN;
      for (int i = 0; i < Columns; i += 2) {
        int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
        Dot::template product<D>(w, scratch + i * D, scratch + (i + 1) * D, a00, a01, a10, a11);
        a00 = a00 > a01 ? a00 : a01;
        a10 = a10 > a11 ? a10 : a11;
        best0 = best0 > a00 ? best0 : a00;
        best1 = best1 > a10 ? best1 : a10;
      }
      out[m * ChannelStride] = output_value<T, Wide, YZp, Lo, Hi>(best0, load_channel(params, m));
      if (M % 2 == 0 || m + 1 < M)
        out[(m + 1) * ChannelStride] =
            output_value<T, Wide, YZp, Lo, Hi>(best1, load_channel(params, m + 1));
    }
  }
}

/// Output channels per block of conv2d_mve.
constexpr int kMveChannels = 4;
/// Words of conv2d_mve's packed weights: per block of four output channels
/// (zero rows past m) and per 16 depth values (zero past k), the four rows'
/// 16 bytes, so that one pointer walks them in load order.
constexpr int mve_quad_words(int m, int k) {
  return (m + kMveChannels - 1) / kMveChannels * Vmladava::depth(k);
}
inline void pack_mve_quads(const int8_t *w, int m, int k, int32_t *out) {
  uint8_t *bytes = reinterpret_cast<uint8_t *>(out);
  for (int q = 0; q < (m + kMveChannels - 1) / kMveChannels; ++q)
    for (int d0 = 0; d0 < Vmladava::depth(k); d0 += kHeliumStep)
      for (int r = 0; r < kMveChannels; ++r)
        for (int i = 0; i < kHeliumStep; ++i) {
          const int row = q * kMveChannels + r, d = d0 + i;
          *bytes++ = row < m && d < k ? static_cast<uint8_t>(w[row * k + d]) : 0;
        }
}

/// conv2d for int8 on Helium, four output channels and two pixels a block:
/// per 16 depth values the two columns' vectors and the four channels'
/// weight vectors (one pointer in load order, pack_mve_quads) feed eight
/// VMLADAVA (six loads for 128 products, where conv2d's 2 x 2 block takes
/// four for 64), and each pixel's four outputs are requantized as one
/// vector with the four channels' constants gathered once for both (as
/// output_2x2) and scattered to the four output planes. Columns as
/// Vmladava's gather2.
template <typename W, int M, int XZp, int YZp, int Lo, int Hi, bool Wide>
void conv2d_mve(const int8_t *x, const int32_t *packed, const int32_t *params, int8_t *y,
                int8_t *scratch) {
  constexpr int D = Vmladava::depth(W::K);
  int8_t *const col0 = scratch, *const col1 = scratch + D;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
  static_assert(kChannelWords == 6, "the gathers' word offsets below");
  const uint32x4_t lane = vidupq_n_u32(0, 1);
  const uint32x4_t out_at = vmulq_n_u32(lane, W::Pixels),
                   channel_at = vmulq_n_u32(lane, 4 * kChannelWords);
  for (int pix = 0; pix < W::Pixels; pix += 2) {
    const bool second = pix + 1 < W::Pixels;
    Vmladava::gather2<int8_t, W, XZp>(x, pix, second, col0, col1);
    const int8_t *w = reinterpret_cast<const int8_t *>(packed);
    for (int m = 0; m < M; m += kMveChannels) {
      // Eight accumulators: VMLADAVA's must be even registers, which are
      // eight with LR, so the loop counts in an odd one (SUBS, BNE) and
      // the block is assembly (GCC 12 shuffled the accumulators through
      // moves and spills: 25 instructions a step against these 16). The
      // first step writes the sums (VMLADAV), so they start from nothing
      // (no eight moves of zero a block), and the loop runs the rest.
      register int32_t a0 asm("r0"), a1 asm("r2"), a2 asm("r4"), a3 asm("r6"), b0 asm("r8"),
          b1 asm("r10"), b2 asm("r12"), b3 asm("r14");
      register const int8_t *p0 asm("r1") = col0, *p1 asm("r3") = col1, *wp asm("r5") = w;
      register int32_t steps asm("r11") = D / kHeliumStep - 1;
      int32x4_t va, vb;
#define ONNXC_MCU_MVE_STEP(op)                                                 \
  "vldrb.8 q0, [%[p0]], #16\n\t"                                               \
  "vldrb.8 q1, [%[p1]], #16\n\t"                                               \
  "vldrb.8 q2, [%[w]], #16\n\t"                                                \
  op " %[a0], q2, q0\n\t" op " %[b0], q2, q1\n\t"                                \
  "vldrb.8 q2, [%[w]], #16\n\t"                                                \
  op " %[a1], q2, q0\n\t" op " %[b1], q2, q1\n\t"                                \
  "vldrb.8 q2, [%[w]], #16\n\t"                                                \
  op " %[a2], q2, q0\n\t" op " %[b2], q2, q1\n\t"                                \
  "vldrb.8 q2, [%[w]], #16\n\t"                                                \
  op " %[a3], q2, q0\n\t" op " %[b3], q2, q1\n\t"
      __asm__ volatile(ONNXC_MCU_MVE_STEP("vmladav.s8")
                       ".if %c[more]\n\t"
                       "1:\n\t" ONNXC_MCU_MVE_STEP("vmladava.s8")
                       "subs %[n], %[n], #1\n\t"
                       "bne 1b\n\t"
                       ".endif\n\t"
                       // Each pixel's four sums as one vector, two lanes a VMOV (lane
                       // i - 2 from the first register, lane i from the second).
                       "vmov %q[va][2], %q[va][0], %[a0], %[a2]\n\t"
                       "vmov %q[va][3], %q[va][1], %[a1], %[a3]"
                       : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3),
                         [b0] "=&r"(b0), [b1] "=&r"(b1), [b2] "=&r"(b2), [b3] "=&r"(b3),
                         [va] "=&w"(va), [p0] "+r"(p0), [p1] "+r"(p1),
                         [w] "+r"(wp), [n] "+r"(steps)
                       : [more] "i"(D / kHeliumStep - 1)
                       : "d0", "d1", "d2", "d3", "d4", "d5", "cc", "memory");
#undef ONNXC_MCU_MVE_STEP
      w = wp;
      int8_t *out = y + m * W::Pixels + pix;
      if (Wide) {
        const int32_t acc[2][kMveChannels] = {{a0, a1, a2, a3}, {b0, b1, b2, b3}};
        for (int r = 0; r < kMveChannels && m + r < M; ++r) {
          const Channel ch = load_channel(params, m + r);
          out[r * W::Pixels] = output_value<int8_t, Wide, YZp, Lo, Hi>(acc[0][r], ch);
          if (second)
            out[r * W::Pixels + 1] = output_value<int8_t, Wide, YZp, Lo, Hi>(acc[1][r], ch);
        }
        continue;
      }
      // The four channels' constants, lane r channel m + r (none past M).
      const mve_pred16_t p = vctp32q(uint32_t(M - m));
      const uint32x4_t at = vaddq_u32(
          vdupq_n_u32(uint32_t(reinterpret_cast<uintptr_t>(params + m * kChannelWords))),
          channel_at);
      const int32x4_t bias = vldrwq_gather_base_z_s32(at, 0, p),
                      up = vldrwq_gather_base_z_s32(at, 20, p),
                      mult = vldrwq_gather_base_z_s32(at, 4, p),
                      down = vnegq_s32(vldrwq_gather_base_z_s32(at, 12, p));
      auto store = [&](int32x4_t acc, int8_t *to) {
        int32x4_t v = vshlq_s32(vaddq_s32(acc, bias), up);
        v = vaddq_n_s32(vrshlq_s32(vmulhq_s32(v, mult), down), YZp);
        v = vminq_s32(vmaxq_s32(v, vdupq_n_s32(Lo)), vdupq_n_s32(Hi));
        vstrbq_scatter_offset_p_s32(to, out_at, v, p);
      };
      store(va, out);
      if (second) {
        __asm__("vmov %q[vb][2], %q[vb][0], %[b0], %[b2]\n\t"
                "vmov %q[vb][3], %q[vb][1], %[b1], %[b3]"
                : [vb] "=w"(vb)
                : [b0] "r"(b0), [b1] "r"(b1), [b2] "r"(b2), [b3] "r"(b3));
        store(vb, out + 1);
      }
    }
  }
#else
  // Off Helium (the host's sweep): the same blocks in plain C.
  for (int pix = 0; pix < W::Pixels; pix += 2) {
    const bool second = pix + 1 < W::Pixels;
    Vmladava::gather2<int8_t, W, XZp>(x, pix, second, col0, col1);
    const int8_t *w = reinterpret_cast<const int8_t *>(packed);
    for (int m = 0; m < M; m += kMveChannels, w += kMveChannels * D) {
      for (int r = 0; r < kMveChannels && m + r < M; ++r) {
        int32_t a = 0, b = 0;
        for (int d = 0; d < D; ++d) {
          const int32_t v = w[d / kHeliumStep * kMveChannels * kHeliumStep + r * kHeliumStep +
                              d % kHeliumStep];
          a += v * col0[d];
          b += v * col1[d];
        }
        const Channel ch = load_channel(params, m + r);
        y[(m + r) * W::Pixels + pix] = output_value<int8_t, Wide, YZp, Lo, Hi>(a, ch);
        if (second)
          y[(m + r) * W::Pixels + pix + 1] = output_value<int8_t, Wide, YZp, Lo, Hi>(b, ch);
      }
    }
  }
#endif
}

/// A depthwise 2-D convolution (group = channels, one output channel per
/// input channel) of x (W::IC x IH x IW) into y (W::IC x OH x OW); w is the
/// ONNX weight tensor as it is (W::IC x KH x KW int8), the channels'
/// requantization from channel_params with the biases of fold_zero_point
/// (x is multiplied as stored, padding reads XZp). Each output is KH x KW
/// multiply-accumulates (MLA) of the channel's weights, held in registers
/// for the channel; a window inside the plane reads without checks.
template <typename T, typename W, int XZp, int YZp, int Lo, int Hi, bool Wide>
void depthwise_conv2d(const T *x, const int8_t *w, const int32_t *params, T *y) {
  constexpr int KN = W::KH * W::KW;
  for (int c = 0; c < W::IC; ++c, x += W::IH * W::IW, w += KN, y += W::Pixels) {
    int32_t wk[KN];
    for (int k = 0; k < KN; ++k)
      wk[k] = w[k];
    const Channel ch = load_channel(params, c);
    for (int oy = 0; oy < W::OH; ++oy) {
      const int y0 = oy * W::SH - W::PH;
      const bool rows_in = y0 >= 0 && y0 + (W::KH - 1) * W::DH < W::IH;
      for (int ox = 0; ox < W::OW; ++ox) {
        const int x0 = ox * W::SW - W::PW;
        int32_t acc = 0;
        if (rows_in && x0 >= 0 && x0 + (W::KW - 1) * W::DW < W::IW) {
          const T *p = x + y0 * W::IW + x0;
#pragma GCC unroll 16
          for (int ky = 0; ky < W::KH; ++ky)
#pragma GCC unroll 16
            for (int kx = 0; kx < W::KW; ++kx)
              acc += wk[ky * W::KW + kx] * int32_t(p[ky * W::DH * W::IW + kx * W::DW]);
        } else {
          for (int ky = 0; ky < W::KH; ++ky) {
            const int iy = y0 + ky * W::DH;
            for (int kx = 0; kx < W::KW; ++kx) {
              const int ix = x0 + kx * W::DW;
              const bool in = iy >= 0 && iy < W::IH && ix >= 0 && ix < W::IW;
              acc += wk[ky * W::KW + kx] * (in ? int32_t(x[iy * W::IW + ix]) : XZp);
            }
          }
        }
        y[oy * W::OW + ox] = output_value<T, Wide, YZp, Lo, Hi>(acc, ch);
      }
    }
  }
}

/// depthwise_conv2d_mve's padded plane: every window of the output lies
/// inside it (PH rows and PW columns of XZp before, as many after as the
/// last window needs).
constexpr int padded_extent(int out, int stride, int k, int dilation, int in, int before) {
  return before + in +
         ((out - 1) * stride + (k - 1) * dilation + 1 - in - before > 0
              ? (out - 1) * stride + (k - 1) * dilation + 1 - in - before
              : 0);
}
/// Scratch bytes of depthwise_conv2d_mve: one padded plane of h x w, and
/// the 8 * sw bytes the last row's last vectors may read past it (their
/// lanes past the row are not stored).
constexpr int depthwise_mve_scratch(int h, int w, int sw) { return h * w + 8 * sw; }

template <typename W> struct PaddedPlane {
  static constexpr int H = padded_extent(W::OH, W::SH, W::KH, W::DH, W::IH, W::PH);
  static constexpr int Width = padded_extent(W::OW, W::SW, W::KW, W::DW, W::IW, W::PW);
  static constexpr int bytes = depthwise_mve_scratch(H, Width, W::SW);
};

template <typename W> constexpr int depthwise_mve_scratch_bytes() {
  return PaddedPlane<W>::bytes;
}

/// depthwise_conv2d with the padding done once per channel: the plane is
/// copied into scratch (PaddedPlane<W>'s H x Width, bordered with XZp), so
/// that every window lies inside it and each output is KH x KW loads at
/// constant offsets and MLAs without bounds checks. (depthwise_conv2d's
/// checked path for windows that touch the padding costs several times
/// the interior one, and a narrow plane is mostly border: DS-CNN's 25 x 5.)
template <typename T, typename W, int XZp, int YZp, int Lo, int Hi, bool Wide>
void depthwise_conv2d_padded(const T *x, const int8_t *w, const int32_t *params, T *y,
                             T *scratch) {
  using P = PaddedPlane<W>;
  constexpr int KN = W::KH * W::KW;
  for (int i = 0; i < P::H * P::Width; ++i) // the border; rows of x overwrite the rest
    scratch[i] = T(XZp);
  for (int c = 0; c < W::IC; ++c, x += W::IH * W::IW, w += KN, y += W::Pixels) {
    for (int iy = 0; iy < W::IH; ++iy)
      memcpy(scratch + (W::PH + iy) * P::Width + W::PW, x + iy * W::IW, W::IW * sizeof(T));
    int32_t wk[KN];
    for (int k = 0; k < KN; ++k)
      wk[k] = w[k];
    const Channel ch = load_channel(params, c);
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    if constexpr (sizeof(T) == 2 && W::SW == 1 && !Wide) {
      // 16-bit activations on Helium: four output pixels a vector, each tap
      // one widening load (VLDRH.S32) and one VMLA by the weight, the last
      // vector of a row under a tail predicate; narrowing stores.
      for (int oy = 0; oy < W::OH; ++oy)
        for (int ox = 0; ox < W::OW; ox += 4) {
          const mve_pred16_t live = vctp32q(uint32_t(W::OW - ox));
          const int16_t *p =
              reinterpret_cast<const int16_t *>(scratch) + oy * W::SH * P::Width + ox;
          int32x4_t acc = vdupq_n_s32(0);
#pragma GCC unroll 16
          for (int ky = 0; ky < W::KH; ++ky)
#pragma GCC unroll 16
            for (int kx = 0; kx < W::KW; ++kx)
              acc = vmlaq_n_s32(acc, vldrhq_z_s32(p + ky * W::DH * P::Width + kx * W::DW, live),
                                wk[ky * W::KW + kx]);
          const int32x4_t out = output_vector<YZp, Lo, Hi>(acc, ch);
          vstrhq_p_s32(reinterpret_cast<int16_t *>(y) + oy * W::OW + ox, out, live);
        }
      continue;
    }
#endif
    for (int oy = 0; oy < W::OH; ++oy)
      for (int ox = 0; ox < W::OW; ++ox) {
        const T *p = scratch + oy * W::SH * P::Width + ox * W::SW;
        int32_t acc = 0;
#pragma GCC unroll 16
        for (int ky = 0; ky < W::KH; ++ky)
#pragma GCC unroll 16
          for (int kx = 0; kx < W::KW; ++kx)
            acc += wk[ky * W::KW + kx] * int32_t(p[ky * W::DH * P::Width + kx * W::DW]);
        y[oy * W::OW + ox] = output_value<T, Wide, YZp, Lo, Hi>(acc, ch);
      }
  }
}
/// Scratch elements of depthwise_conv2d_padded: one padded plane.
template <typename W> constexpr int depthwise_padded_scratch() {
  return PaddedPlane<W>::H * PaddedPlane<W>::Width;
}

/// depthwise_conv2d for int8 on Helium: each channel's plane is copied into
/// scratch with its padding (XZp), then every output row runs eight pixels
/// a pass in two vectors (the row's last ones under tail predicates): per
/// kernel tap its weight read once, one widening load of each vector's four
/// inputs (a gather at stride SW > 1) and one VMLA; the requantization four
/// lanes at once (output_vector; lane by lane where it needs the Wide
/// path). The same integers as depthwise_conv2d.
template <typename W, int XZp, int YZp, int Lo, int Hi, bool Wide>
void depthwise_conv2d_mve(const int8_t *x, const int8_t *w, const int32_t *params, int8_t *y,
                          int8_t *scratch) {
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
  using P = PaddedPlane<W>;
  constexpr int KN = W::KH * W::KW;
  // 3 x 3 windows at stride 1 whose taps' offsets fit VLDRB's immediate
  // (a row's, or two rows').
  constexpr bool kTaps3x3 = W::KH == 3 && W::KW == 3 && W::SH == 1 && W::SW == 1 &&
                            W::DH == 1 && W::DW == 1 && 2 * P::Width + 6 <= 127;
  constexpr bool kTwoRows = kTaps3x3 && 3 * P::Width + 6 <= 127;
  const uint32x4_t lanes = vmulq_n_u32(vidupq_n_u32(0, 1), W::SW);
  for (int i = 0; i < P::bytes; ++i) // the padding; rows of x overwrite the rest
    scratch[i] = int8_t(XZp);
  for (int c = 0; c < W::IC; ++c, x += W::IH * W::IW, w += KN, y += W::Pixels) {
    for (int iy = 0; iy < W::IH; ++iy)
      for (int ix = 0; ix < W::IW; ix += kHeliumStep) {
        const mve_pred16_t p = vctp8q(uint32_t(W::IW - ix));
        vstrbq_p_s8(scratch + (W::PH + iy) * P::Width + W::PW + ix,
                    vldrbq_z_s8(x + iy * W::IW + ix, p), p);
      }
    const Channel ch = load_channel(params, c);
    // Whole vectors: lanes past the row read the plane's next bytes or the
    // scratch's tail, and are not stored.
    auto load = [&](const int8_t *at) {
      return W::SW == 1 ? vldrbq_s32(at) : vldrbq_gather_offset_s32(at, lanes);
    };
    auto store = [&](int8_t *at, int32x4_t acc, mve_pred16_t p, int count) {
      if (!Wide) {
        const int32x4_t v = output_vector<YZp, Lo, Hi>(acc, ch); // (the intrinsic is a macro)
        vstrbq_p_s32(at, v, p);
      } else {
        int32_t a[4];
        vst1q_s32(a, acc);
        for (int l = 0; l < 4 && l < count; ++l)
          at[l] = output_value<int8_t, Wide, YZp, Lo, Hi>(a[l], ch);
      }
    };
    // One pass of eight pixels (two vectors, the second or both partial at
    // the row's end) in plain intrinsics: each tap's weight read once for
    // both vectors.
    auto pass = [&](const int8_t *base, int8_t *out, int left) {
      const mve_pred16_t p0 = vctp32q(uint32_t(left)), p1 = vctp32q(uint32_t(left - 4));
      int32x4_t acc0 = vdupq_n_s32(0), acc1 = vdupq_n_s32(0);
      if (left > 4) {
#pragma GCC unroll 16
        for (int ky = 0; ky < W::KH; ++ky)
#pragma GCC unroll 16
          for (int kx = 0; kx < W::KW; ++kx) {
            const int8_t *tap = base + ky * W::DH * P::Width + kx * W::DW;
            const int32_t wt = w[ky * W::KW + kx];
            acc0 = vmlaq_n_s32(acc0, load(tap), wt);
            acc1 = vmlaq_n_s32(acc1, load(tap + 4 * W::SW), wt);
          }
        store(out, acc0, p0, left);
        store(out + 4, acc1, p1, left - 4);
      } else {
#pragma GCC unroll 16
        for (int ky = 0; ky < W::KH; ++ky)
#pragma GCC unroll 16
          for (int kx = 0; kx < W::KW; ++kx)
            acc0 = vmlaq_n_s32(acc0, load(base + ky * W::DH * P::Width + kx * W::DW),
                               w[ky * W::KW + kx]);
        store(out, acc0, p0, left);
      }
    };
    // 3 x 3 taps at stride 1 in assembly: each tap's loads at an offset
    // from the pass's first byte (VLDRB.S32's immediate; GCC 12's intrinsic
    // takes none, and kept 18 addresses, in stack slots) and its weight
    // byte loaded once (nine in registers are more than GCC can hold), the
    // first tap a VMUL; two output rows a pass where the offsets reach
    // (each tap's weight loaded once for both rows).
#define ONNXC_MCU_DW_ROW(off, acc0, acc1, op)                                    \
  "vldrb.s32 q0, [%[b], #(" off ")]\n\t"                                         \
  "vldrb.s32 q1, [%[b], #(" off " + 4)]\n\t"                                     \
  op " %q[" acc0 "], q0, %[t]\n\t" op " %q[" acc1 "], q1, %[t]\n\t"
#define ONNXC_MCU_DW_TAP(off, k, op)                                            \
  "ldrsb %[t], [%[w], #" k "]\n\t" ONNXC_MCU_DW_ROW(off, "a0", "a1", op)
#define ONNXC_MCU_DW_TAP2(off, k, op)                                           \
  ONNXC_MCU_DW_TAP(off, k, op) ONNXC_MCU_DW_ROW(off " + %c[pw]", "c0", "c1", op)
#define ONNXC_MCU_DW_TAPS(TAP)                                                  \
  TAP("0", "0", "vmul.i32") TAP("1", "1", "vmla.s32") TAP("2", "2", "vmla.s32")  \
  TAP("%c[pw]", "3", "vmla.s32") TAP("%c[pw] + 1", "4", "vmla.s32")             \
  TAP("%c[pw] + 2", "5", "vmla.s32") TAP("2 * %c[pw]", "6", "vmla.s32")         \
  TAP("2 * %c[pw] + 1", "7", "vmla.s32") TAP("2 * %c[pw] + 2", "8", "vmla.s32")
    for (int oy = 0; oy < W::OH;) {
      const int rows = kTwoRows && oy + 1 < W::OH ? 2 : 1;
      const int8_t *row = scratch + oy * W::SH * P::Width;
      int8_t *out = y + oy * W::OW;
      for (int ox = 0; ox < W::OW; ox += 8) {
        const int left = W::OW - ox;
        const int8_t *base = row + ox * W::SW;
        if (kTaps3x3 && left > 4) {
          const mve_pred16_t p0 = vctp32q(uint32_t(left)), p1 = vctp32q(uint32_t(left - 4));
          int32x4_t a0, a1, c0, c1;
          int32_t t;
          if (rows == 2) {
            __asm__(ONNXC_MCU_DW_TAPS(ONNXC_MCU_DW_TAP2)
                    : [a0] "=&w"(a0), [a1] "=&w"(a1), [c0] "=&w"(c0), [c1] "=&w"(c1),
                      [t] "=&r"(t)
                    : [b] "l"(base), [w] "r"(w), [pw] "i"(P::Width)
                    : "d0", "d1", "d2", "d3", "memory");
            store(out + W::OW + ox, c0, p0, left);
            store(out + W::OW + ox + 4, c1, p1, left - 4);
          } else {
            __asm__(ONNXC_MCU_DW_TAPS(ONNXC_MCU_DW_TAP)
                    : [a0] "=&w"(a0), [a1] "=&w"(a1), [t] "=&r"(t)
                    : [b] "l"(base), [w] "r"(w), [pw] "i"(P::Width)
                    : "d0", "d1", "d2", "d3", "memory");
          }
          store(out + ox, a0, p0, left);
          store(out + ox + 4, a1, p1, left - 4);
        } else {
          for (int r = 0; r < rows; ++r)
            pass(base + r * W::SH * P::Width, out + r * W::OW + ox, left);
        }
      }
      oy += rows;
    }
#undef ONNXC_MCU_DW_TAPS
#undef ONNXC_MCU_DW_TAP2
#undef ONNXC_MCU_DW_TAP
#undef ONNXC_MCU_DW_ROW
  }
#else
  (void)scratch;
  depthwise_conv2d<int8_t, W, XZp, YZp, Lo, Hi, Wide>(x, w, params, y);
#endif
}

} // namespace qs8
} // namespace mcu
} // namespace onnxc_rt

#endif // ONNXC_RT_MCU_QS8_CONV_H
