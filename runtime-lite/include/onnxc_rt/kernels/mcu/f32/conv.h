// Float kernels for microcontrollers (Cortex-M4F/M7/M55 FPU, plain C on
// M0+): convolution, fully connected and max pooling with every shape a
// template parameter. A convolution gathers P output pixels' windows into
// columns (im2col, P * K floats of scratch) and multiplies them by the
// weights packed four output channels at a time ([M/4][K][4], packed by the
// compiler), keeping 4 x P sums in registers; a fully connected layer is the
// same product with its rows as columns. Results match the reference kernels
// to rounding (the sums run in another order).
#ifndef ONNXC_RT_MCU_F32_CONV_H
#define ONNXC_RT_MCU_F32_CONV_H

#include <stdint.h>

#include "onnxc_rt/kernels/mcu/window.h"
#include "onnxc_rt/kernels/reference/elementwise.h"

namespace onnxc_rt {
namespace mcu {

/// Output channels per block of packed float weights.
constexpr int kFloatBlock = 4;

/// Floats of packed weights for m output channels of depth k.
constexpr int packed_float_weights(int m, int k) {
  return (m + kFloatBlock - 1) / kFloatBlock * kFloatBlock * k;
}

/// Packs w (m rows of k, row-major, or k x m column-major when
/// `transposed`) into [m/4][k][4], zero rows past m.
inline void pack_float_weights(const float *w, int m, int k, bool transposed, float *out) {
  const int blocks = (m + kFloatBlock - 1) / kFloatBlock;
  for (int b = 0; b < blocks; ++b)
    for (int i = 0; i < k; ++i)
      for (int r = 0; r < kFloatBlock; ++r) {
        const int row = b * kFloatBlock + r;
        *out++ = row < m ? (transposed ? w[i * m + row] : w[row * k + i]) : 0.0f;
      }
}

/// acc[r][p] += sum_k w[k][r] * col[k][p]: one block of 4 output channels
/// against P columns.
template <int K, int P>
inline void product_block(const float *w, const float *col, float (&acc)[kFloatBlock][P]) {
  // Fully unrolled over the block, so the 4 x P sums live in registers.
  for (int k = 0; k < K; ++k) {
    const float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
#pragma GCC unroll 8
    for (int p = 0; p < P; ++p) {
      const float v = col[p];
      acc[0][p] += w0 * v;
      acc[1][p] += w1 * v;
      acc[2][p] += w2 * v;
      acc[3][p] += w3 * v;
    }
    w += kFloatBlock;
    col += P;
  }
}

/// y[r * stride + p] = act(acc[r][p] + bias[m0 + r]) for the block's rows
/// below M and its first `cols` columns.
template <int M, int P, typename Act>
inline void store_block(const float (&acc)[kFloatBlock][P], const float *bias, int m0, int cols,
                        float *y, int stride, float alpha, float beta) {
  for (int r = 0; r < kFloatBlock && m0 + r < M; ++r) {
    const float b = bias ? bias[m0 + r] : 0.0f;
#pragma GCC unroll 8
    for (int p = 0; p < cols; ++p)
      y[(m0 + r) * stride + p] = Act::apply(acc[r][p] + b, alpha, beta);
  }
}

/// Columns per im2col pass of the float convolution.
constexpr int kFloatColumns = 4;

/// Scratch floats conv2d needs.
constexpr int conv2d_scratch_floats(int depth) { return depth * kFloatColumns; }

/// A 2-D convolution (group 1) of x (W::IC x IH x IW) into y (M x OH x OW)
/// with packed weights, optional bias and a fused activation.
template <typename W, int M, typename Act>
void conv2d(const float *x, const float *packed, const float *bias, float *y, float *scratch,
            float alpha, float beta) {
  constexpr int P = kFloatColumns, K = W::K;
  for (int pix = 0; pix < W::Pixels; pix += P) {
    const int cols = W::Pixels - pix < P ? W::Pixels - pix : P;
    for (int p = 0; p < P; ++p) {
      if (p < cols)
        gather_window<W, P>(x, pix + p, scratch + p, [](float v) { return v; }, 0.0f);
      else
        for (int k = 0; k < K; ++k)
          scratch[k * P + p] = 0.0f;
    }
    const float *w = packed;
    for (int m0 = 0; m0 < M; m0 += kFloatBlock, w += K * kFloatBlock) {
      float acc[kFloatBlock][P];
#pragma GCC unroll 4
      for (int r = 0; r < kFloatBlock; ++r)
#pragma GCC unroll 8
        for (int p = 0; p < P; ++p)
          acc[r][p] = 0.0f;
      product_block<K, P>(w, scratch, acc);
      store_block<M, P, Act>(acc, bias, m0, cols, y + pix, W::Pixels, alpha, beta);
    }
  }
}

/// y (rows x N) = act(x (rows x K) * W + bias), W packed by
/// pack_float_weights (N rows of K).
template <int Rows, int K, int N, typename Act>
void fully_connected(const float *x, const float *packed, const float *bias, float *y,
                     float alpha, float beta) {
  for (int r = 0; r < Rows; ++r) {
    const float *w = packed;
    for (int n0 = 0; n0 < N; n0 += kFloatBlock, w += K * kFloatBlock) {
      float acc[kFloatBlock][1] = {{0.0f}, {0.0f}, {0.0f}, {0.0f}};
      product_block<K, 1>(w, x + r * K, acc);
      store_block<N, 1, Act>(acc, bias, n0, 1, y + r * N, 1, alpha, beta);
    }
  }
}

/// 2-D max pooling of C planes (any element type); every window holds at
/// least one input element (pads below the kernel size). The first
/// maximum wins, as in the reference kernel.
template <typename T, int C, typename W>
void max_pool2d(const T *x, T *y) {
  // Windows that never leave the input need no bounds checks.
  constexpr bool inside = W::PH == 0 && W::PW == 0 &&
                          (W::OH - 1) * W::SH + (W::KH - 1) * W::DH < W::IH &&
                          (W::OW - 1) * W::SW + (W::KW - 1) * W::DW < W::IW;
  for (int c = 0; c < C; ++c, x += W::IH * W::IW)
    for (int oy = 0; oy < W::OH; ++oy)
      for (int ox = 0; ox < W::OW; ++ox) {
        const int y0 = oy * W::SH - W::PH, x0 = ox * W::SW - W::PW;
        if (inside) {
          const T *in = x + y0 * W::IW + x0;
          T best = in[0];
#pragma GCC unroll 16
          for (int ky = 0; ky < W::KH; ++ky)
#pragma GCC unroll 16
            for (int kx = 0; kx < W::KW; ++kx) {
              const T v = in[ky * W::DH * W::IW + kx * W::DW];
              best = v > best ? v : best;
            }
          *y++ = best;
          continue;
        }
        bool found = false;
        T best = T(0);
        for (int ky = 0; ky < W::KH; ++ky) {
          const int iy = y0 + ky * W::DH;
          if (iy < 0 || iy >= W::IH)
            continue;
          for (int kx = 0; kx < W::KW; ++kx) {
            const int ix = x0 + kx * W::DW;
            if (ix < 0 || ix >= W::IW)
              continue;
            const T v = x[iy * W::IW + ix];
            best = !found || v > best ? v : best;
            found = true;
          }
        }
        *y++ = best;
      }
}

} // namespace mcu
} // namespace onnxc_rt

#endif
