// The SIMD GEMM's operands (simd/f32/gemm.h): its register tile's vector
// constants, strided matrices, and the B operand's sources with their
// packing into kNR-column slivers: a strided matrix packed per block, B
// packed ahead (constant weights) or an implicit im2col view of a
// convolution's input, packed straight from the image.
#ifndef ONNXC_RT_SIMD_F32_GEMM_OPERANDS_H
#define ONNXC_RT_SIMD_F32_GEMM_OPERANDS_H

#include "onnxc_rt/base.h"
#include "onnxc_rt/kernels/simd/f32/blocking.h"
#include "onnxc_rt/kernels/simd/vec.h"

namespace onnxc_rt {
namespace simd {

constexpr int64_t kLanes = VecF::kLanes;
constexpr int64_t kNR = 2 * kLanes;
static_assert(kNR <= kGemmMaxNR, "scratch sizes assume at most kGemmMaxNR columns");
/// Rows of the Gemm/MatMul register tile (the convolutions' have kGemmMR):
/// 8 on NEON, whose 32 registers hold an 8 x 8 tile, 6 on x86.
constexpr int64_t kMatrixMR = VecF::kMatrixRows;
static_assert(kMatrixMR == kGemmMR || kMatrixMR == kMatrixMaxMR,
              "gemm_scratch_floats sizes A blocks for these row counts");

/// A strided matrix: element (i, j) is data[i * rs + j * cs].
struct Matrix {
  const float *data;
  int64_t rs, cs;
  float operator()(int64_t i, int64_t j) const { return data[i * rs + j * cs]; }
};

//===-- Packing -----------------------------------------------------------------===//

/// Rows [p0, p0 + kc) x columns [j0, j0 + nc) of a strided B, as kNR-column
/// slivers; columns past nc are zero.
inline void pack_b(const Matrix &b, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                   float *dst) {
  for (int64_t jr = 0; jr < nc; jr += kNR) {
    const int64_t nr = min64(kNR, nc - jr);
    const float *base = b.data + p0 * b.rs + (j0 + jr) * b.cs;
    if (b.cs == 1 && nr == kNR) {
      for (int64_t p = 0; p < kc; ++p, dst += kNR) {
        const float *src = base + p * b.rs;
        VecF::load(src).store(dst);
        VecF::load(src + kLanes).store(dst + kLanes);
      }
      continue;
    }
    for (int64_t p = 0; p < kc; ++p, dst += kNR) {
      int64_t j = 0;
      for (; j < nr; ++j)
        dst[j] = base[p * b.rs + j * b.cs];
      for (; j < kNR; ++j)
        dst[j] = 0;
    }
  }
}

/// B packed ahead (pack_b_ahead with nr = kNR: constant weights, packed by
/// the compiler): read in place, nothing packed at run time.
struct PackedB {
  const float *data;
  int64_t k;
};
inline void pack_b(const PackedB &, int64_t, int64_t, int64_t, int64_t, float *) {}

/// Where the micro-kernel reads B's sliver of columns [j, j + kNR) (jr
/// into the current block), rows [pc, pc + kc): in the block that pack_b
/// wrote at pb ...
template <typename BSource>
inline const float *b_sliver(const BSource &, const float *pb, int64_t jr, int64_t, int64_t,
                             int64_t kc) {
  return pb + jr * kc;
}
/// ... or where it lies in a B packed ahead.
inline const float *b_sliver(const PackedB &b, const float *, int64_t, int64_t j, int64_t pc,
                             int64_t) {
  return b.data + (j / kNR * b.k + pc) * kNR;
}

/// The scratch one gemm_packed of an m x k x n product takes: A's block and
/// B's ...
template <typename BSource>
constexpr int64_t gemm_scratch_floats_for(const BSource &, int64_t m, int64_t n, int64_t k) {
  return gemm_scratch_floats(m, n, k);
}
/// ... or A's alone, where B was packed ahead.
constexpr int64_t gemm_scratch_floats_for(const PackedB &, int64_t m, int64_t, int64_t k) {
  return prepacked_gemm_scratch_floats(m, k);
}

/// The im2col matrix of one 2-D convolution group, never materialised: row
/// p = (channel, kh, kw), column j = (oh, ow); element = the input pixel
/// under that kernel tap, or 0 in the padding.
struct Im2col {
  const float *x; // first channel of the group
  int64_t h, w, kh, kw, sh, sw, ph, pw, dh, dw, ow;
};

inline void pack_b(const Im2col &s, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                   float *dst) {
  const int64_t taps = s.kh * s.kw;
  for (int64_t jr = 0; jr < nc; jr += kNR) {
    const int64_t nr = min64(kNR, nc - jr);
    const int64_t oh0 = (j0 + jr) / s.ow, ow0 = (j0 + jr) % s.ow;
    // Row p = (ch, ky, kx), stepped rather than divided per row.
    int64_t ch = p0 / taps, ky = p0 % taps / s.kw, kx = p0 % s.kw;
    for (int64_t p = p0; p < p0 + kc; ++p, dst += kNR) {
      const float *plane = s.x + ch * s.h * s.w;
      // The sliver's columns, split where they wrap to the next output row:
      // within a segment each kernel tap reads one input row, a contiguous
      // run at stride 1 (copied, zeros where it overhangs the padding).
      int64_t j = 0, oh = oh0, ow = ow0;
      while (j < nr) {
        const int64_t len = min64(nr - j, s.ow - ow);
        const int64_t ih = oh * s.sh - s.ph + ky * s.dh;
        float *seg = dst + j;
        if (ih < 0 || ih >= s.h) {
          for (int64_t t = 0; t < len; ++t)
            seg[t] = 0.0f;
        } else {
          const float *row = plane + ih * s.w;
          const int64_t iw0 = ow * s.sw - s.pw + kx * s.dw;
          if (s.sw == 1) {
            const int64_t t0 = min64(len, iw0 < 0 ? -iw0 : 0);
            const int64_t t1 = s.w - iw0 < t0 ? t0 : min64(len, s.w - iw0);
            for (int64_t t = 0; t < t0; ++t)
              seg[t] = 0.0f;
            for (int64_t t = t0; t < t1; ++t)
              seg[t] = row[iw0 + t];
            for (int64_t t = t1; t < len; ++t)
              seg[t] = 0.0f;
          } else {
            for (int64_t t = 0; t < len; ++t) {
              const int64_t iw = iw0 + t * s.sw;
              seg[t] = iw >= 0 && iw < s.w ? row[iw] : 0.0f;
            }
          }
        }
        j += len;
        ow = 0;
        ++oh;
      }
      for (; j < kNR; ++j)
        dst[j] = 0.0f;
      if (++kx == s.kw) {
        kx = 0;
        if (++ky == s.kh) {
          ky = 0;
          ++ch;
        }
      }
    }
  }
}

//===-- Micro-kernel ------------------------------------------------------------===//

/// The kNR-column B sliver the micro-kernel reads, row p at row(p): packed
/// (rows one after another) ...
struct PackedSliver {
  const float *data;
  const float *row(int64_t p) const { return data + p * kNR; }
};

/// ... or rows read in place at given offsets from a base (a direct
/// convolution's input planes: see DirectConvShape).
struct OffsetSliver {
  const float *base;
  const int64_t *offsets;
  const float *row(int64_t p) const { return base + offsets[p]; }
};

/// acc[r] += A(PL, r) x the B row at bp for rows r >= R of an MR-row
/// tile, where a holds four k steps of a packed A panel (A(PL, r) is float
/// PL * MR + r of it).
template <int64_t MR, int PL, int R = 0>
ONNXC_RT_SIMD_INLINE void micro_lane_rows(const VecF (&a)[MR], const float *bp,
                                          VecF (&s0)[MR], VecF (&s1)[MR]) {
  if constexpr (R < MR) {
    constexpr int at = PL * MR + R;
    const VecF b0 = VecF::load(bp), b1 = VecF::load(bp + kLanes);
    s0[R] = VecF::template fma_lane<at % 4>(a[at / 4], b0, s0[R]);
    s1[R] = VecF::template fma_lane<at % 4>(a[at / 4], b1, s1[R]);
    micro_lane_rows<MR, PL, R + 1>(a, bp, s0, s1);
  }
}

} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_F32_GEMM_OPERANDS_H
