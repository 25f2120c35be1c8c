// Packed single-precision GEMM over simd/vec.h (AVX2+FMA, AVX-512, NEON), in the BLIS
// layout: B is packed kc x nc into column slivers of kNR, A mc x kc into row
// slivers of kGemmMR, and a register-blocked micro-kernel (kGemmMR x kNR
// accumulators) sweeps them. Bias, residual add and an activation are applied
// while each finished tile is still in L1 (the fused-op epilogue, epilogue.h), so a
// Conv+Bias+Add+Relu writes its output once.
//
// Operands are read through sources (gemm_operands.h): a strided Matrix (transposes are
// strides) or, for convolution, an implicit im2col view of the input, packed
// straight from the image so no im2col buffer exists.
#ifndef ONNXC_RT_SIMD_F32_GEMM_H
#define ONNXC_RT_SIMD_F32_GEMM_H

#include <type_traits>
#include <utility>

#include "onnxc_rt/parallel.h"
#include "onnxc_rt/kernels/simd/f32/epilogue.h"
#include "onnxc_rt/kernels/simd/f32/gemm_operands.h"

namespace onnxc_rt {
namespace simd {

/// C[0:mr, 0:nr] (+)= packed A sliver (MR rows: kGemmMR, or kMatrixMR for
/// Gemm and MatMul) x B sliver over kc. Stores (first K block) or
/// accumulates; the last K block applies the epilogue (if any). (V is
/// VecF: a template, so that only NEON compiles its 8 x 8 tile.) a_ld > 0:
/// A read in place instead, row r at ap + r * a_ld (rows past mr read row
/// mr - 1; a_block says where).
template <typename Act, int64_t MR = kGemmMR, typename Sliver, typename V = VecF>
inline void micro_tile(int64_t kc, const float *ap, const Sliver &b, float *c, int64_t ldc,
                       int64_t mr, int64_t nr, bool accumulate, const Epilogue *ep,
                       int64_t i0, int64_t j0, int64_t a_ld = 0) {
  VecF acc[MR][2];
  for (int r = 0; r < MR; ++r) {
    acc[r][0] = acc[r][1] = VecF::zero();
    // The C tile is read or written once the sum is done: fetch it meanwhile.
    __builtin_prefetch(c + r * ldc);
    __builtin_prefetch(c + r * ldc + kNR - 1);
  }
  int64_t p = 0;
  if constexpr (MR == 8 && V::kMatrixRows == 8 && std::is_same_v<Sliver, PackedSliver>) {
    VecF s0[8], s1[8];
    const float *bp = b.row(0);
    V::fma_tile_8x8(ap, bp, kc / 4, s0, s1);
    p = kc / 4 * 4;
    for (int r = 0; r < 8; ++r)
      acc[r][0] = s0[r], acc[r][1] = s1[r];
  } else if constexpr (VecF::kLaneFma && kLanes == 4) {
    // Four k steps of the A panel (4 x MR floats) in MR loads, each value
    // used by FMLA by element where it lies. (The sums in a local array:
    // GCC otherwise stores acc back every step.)
    VecF s0[MR], s1[MR];
    for_each_index<MR>([&](auto r) { s0[r] = s1[r] = VecF::zero(); });
    // A packed sliver's rows are kNR apart: one pointer stepped by 4 rows,
    // immediate offsets (not the row's index times kNR each step).
    const float *bp = b.row(0);
    for (; p + 4 <= kc; p += 4, bp += 4 * kNR) {
      VecF a[MR];
      for_each_index<MR>([&](auto q) { a[q] = VecF::load(ap + q * kLanes); });
      const float *b0 = std::is_same_v<Sliver, PackedSliver> ? bp : b.row(p);
      const float *b1 = std::is_same_v<Sliver, PackedSliver> ? b0 + kNR : b.row(p + 1);
      const float *b2 = std::is_same_v<Sliver, PackedSliver> ? b0 + 2 * kNR : b.row(p + 2);
      const float *b3 = std::is_same_v<Sliver, PackedSliver> ? b0 + 3 * kNR : b.row(p + 3);
      micro_lane_rows<MR, 0>(a, b0, s0, s1);
      micro_lane_rows<MR, 1>(a, b1, s0, s1);
      micro_lane_rows<MR, 2>(a, b2, s0, s1);
      micro_lane_rows<MR, 3>(a, b3, s0, s1);
      ap += 4 * MR;
    }
    for_each_index<MR>([&](auto r) { acc[r][0] = s0[r], acc[r][1] = s1[r]; });
  }
  // The k steps left: A's value for row r at row[r][i], i stepping by 1 in
  // place or by MR in the packed panel (from the step p the loops above
  // reached).
  const float *row[MR];
  for (int r = 0; r < MR; ++r)
    row[r] = a_ld > 0 ? ap + (r < mr ? r : mr - 1) * a_ld + p : ap + r;
  const int64_t a_step = a_ld > 0 ? 1 : MR;
#pragma GCC unroll 4
  for (int64_t i = 0; p < kc; ++p, i += a_step) {
    const float *bp = b.row(p);
    const VecF b0 = VecF::load(bp), b1 = VecF::load(bp + kLanes);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const VecF a = VecF::broadcast(row[r][i]);
      acc[r][0] = VecF::fma(a, b0, acc[r][0]);
      acc[r][1] = VecF::fma(a, b1, acc[r][1]);
    }
  }
  if (mr == MR && nr == kNR) {
    // The tile as it is (a product without epilogue, in one K block): its
    // stores alone, not the loop below that tests each row for the rest.
    if (!accumulate && stores_as_computed<Act>(ep)) {
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) {
        acc[r][0].store(c + r * ldc);
        acc[r][1].store(c + r * ldc + kLanes);
      }
      return;
    }
    const bool in_registers = ep && epilogue_in_registers<Act>(*ep);
    for (int r = 0; r < MR; ++r) {
      float *cr = c + r * ldc;
      if (accumulate) {
        acc[r][0] = VecF::add(acc[r][0], VecF::load(cr));
        acc[r][1] = VecF::add(acc[r][1], VecF::load(cr + kLanes));
      }
      if constexpr (kVectorActivation<Act>) {
        if (in_registers) {
          const float *b =
              ep->bias ? ep->bias + (i0 + r) * ep->bias_rs + j0 * ep->bias_cs : nullptr;
          const float *z = ep->residual ? ep->residual + (i0 + r) * ep->residual_ld + j0 : nullptr;
          for (int h = 0; h < 2; ++h)
            acc[r][h] = epilogue_vector<Act>(acc[r][h], *ep,
                                             b ? b + h * kLanes * ep->bias_cs : nullptr,
                                             z ? z + h * kLanes : nullptr);
        }
      }
      acc[r][0].store(cr);
      acc[r][1].store(cr + kLanes);
    }
    if (ep && !in_registers)
      apply_epilogue<Act>(c, ldc, mr, nr, *ep, i0, j0);
    return;
  }
  // A tile at the product's edge: through a buffer, the epilogue on what is stored.
  alignas(64) float tile[MR * kNR];
  for (int r = 0; r < MR; ++r) {
    acc[r][0].store(tile + r * kNR);
    acc[r][1].store(tile + r * kNR + kLanes);
  }
  for (int64_t r = 0; r < mr; ++r)
    for (int64_t j = 0; j < nr; ++j)
      c[r * ldc + j] = accumulate ? c[r * ldc + j] + tile[r * kNR + j] : tile[r * kNR + j];
  if (ep)
    apply_epilogue<Act>(c, ldc, mr, nr, *ep, i0, j0);
}

//===-- Drivers -----------------------------------------------------------------===//

/// One row of A times B (m == 1 products: fully connected layers at batch 1),
/// where packing B would cost as much as the product.
inline void gemv_row(int64_t n, int64_t k, const float *arow, int64_t a_cs, const Matrix &b,
                     float *y) {
  if (b.cs == 1) { // y += a[p] * B[p, :], rows of B contiguous
    for (int64_t j = 0; j < n; ++j)
      y[j] = 0;
    for (int64_t p = 0; p < k; ++p) {
      const float av = arow[p * a_cs];
      const float *brow = b.data + p * b.rs;
      for (int64_t j = 0; j < n; ++j)
        y[j] += av * brow[j];
    }
    return;
  }
  if (b.rs == 1 && a_cs == 1) {
    // y[j] = dot(a, B[:, j]), kGemvColumns columns at a time: their rows of
    // B stream side by side (a 1280 x 1000 classifier's 5 MB, not cached:
    // 550 -> 410 us on the Intel Xeon host) and each loaded vector of `a`
    // serves them all; each column's sums in the same order as alone.
    constexpr int kGemvColumns = 4;
    const int64_t kvec = k - k % (2 * kLanes);
    for (int64_t j = 0; j < n; j += kGemvColumns) {
      const int cols = n - j < kGemvColumns ? int(n - j) : kGemvColumns;
      const float *bcol[kGemvColumns];
      VecF s0[kGemvColumns], s1[kGemvColumns];
      for (int q = 0; q < kGemvColumns; ++q) {
        bcol[q] = b.data + (j + (q < cols ? q : 0)) * b.cs;
        s0[q] = s1[q] = VecF::zero();
      }
      for (int64_t p = 0; p < kvec; p += 2 * kLanes) {
        const VecF a0 = VecF::load(arow + p), a1 = VecF::load(arow + p + kLanes);
        for (int q = 0; q < kGemvColumns; ++q) {
          s0[q] = VecF::fma(a0, VecF::load(bcol[q] + p), s0[q]);
          s1[q] = VecF::fma(a1, VecF::load(bcol[q] + p + kLanes), s1[q]);
        }
      }
      for (int q = 0; q < cols; ++q) {
        float s = reduce_add(VecF::add(s0[q], s1[q]));
        for (int64_t p = kvec; p < k; ++p)
          s += arow[p] * bcol[q][p];
        y[j + q] = s;
      }
    }
    return;
  }
  for (int64_t j = 0; j < n; ++j) { // y[j] = dot(a, B[:, j]), strided
    const float *bcol = b.data + j * b.cs;
    float s = 0;
    for (int64_t p = 0; p < k; ++p)
      s += arow[p * a_cs] * bcol[p * b.rs];
    y[j] = s;
  }
}

/// Rows [ic, ic + mc) x columns [pc, pc + kc) of an m x k A as the
/// micro-kernel reads them: MR-row panels, panel_stride apart.
template <int64_t MR> struct ABlock {
  const float *data;
  int64_t panel_stride;
  int64_t in_place_ld = 0; // > 0: A read in place, rows this far apart (micro_tile's a_ld)
  const float *panel(int64_t ir) const { return data + ir / MR * panel_stride; }
};

/// pack_a_panels<MR> of a row-major A (cs 1): with 4-lane vectors (NEON),
/// each whole panel's rows four k steps at a time, each 4 rows transposed
/// in registers (of 6 rows, rows 4-5 interleaved: 6 loads and 8 stores
/// per 24 floats; one load and store per float took about 6 instructions
/// a float, 1.4 M per inference in the transformer encoder's attention);
/// else, and for a last partial panel and the last k steps, pack_a_panels.
/// (V is VecF: a template, so that the other widths do not compile the
/// 4-lane path.)
template <int64_t MR, typename V = VecF>
inline void pack_a_rows(const float *a, int64_t rs, int64_t m, int64_t p0, int64_t kc,
                        float *dst) {
  if constexpr (V::kLanes == 4 && (MR == 6 || MR == 8)) {
    for (int64_t i0 = 0; i0 < m; i0 += MR, dst += MR * kc) {
      const float *r = a + i0 * rs;
      if (i0 + MR > m) {
        pack_a_panels<MR>(r, rs, 1, m - i0, p0, kc, dst);
        continue;
      }
      const int64_t whole = kc / 4 * 4;
      for (int64_t s = 0; s < whole; s += 4) {
        const int64_t p = p0 + s;
        float *d = dst + s * MR;
        if constexpr (MR == 8) {
          for (int h = 0; h < 2; ++h) {
            V t[4];
            for (int q = 0; q < 4; ++q)
              t[q] = V::load(r + (4 * h + q) * rs + p);
            V::transpose(t); // t[j]: rows 4h to 4h + 3 at step p + j
            for (int j = 0; j < 4; ++j)
              t[j].store(d + j * MR + 4 * h);
          }
          continue;
        }
        V t[4];
        for (int q = 0; q < 4; ++q)
          t[q] = V::load(r + q * rs + p);
        V::transpose(t); // t[j]: rows 0-3 at step p + j
        const V r4 = V::load(r + 4 * rs + p), r5 = V::load(r + 5 * rs + p);
        // Rows 4 and 5 of steps p, p + 1, then of p + 2, p + 3.
        const V pairs[2] = {{__builtin_shufflevector(r4.v, r5.v, 0, 4, 1, 5)},
                            {__builtin_shufflevector(r4.v, r5.v, 2, 6, 3, 7)}};
        for (int j = 0; j < 4; ++j) {
          t[j].store(d + j * MR);
          __builtin_memcpy(d + j * MR + 4,
                           reinterpret_cast<const float *>(&pairs[j / 2]) + 2 * (j % 2), 8);
        }
      }
      if (whole < kc)
        pack_a_panels<MR>(r, rs, 1, MR, p0 + whole, kc - whole, dst + whole * MR);
    }
  } else {
    pack_a_panels<MR>(a, rs, 1, m, p0, kc, dst);
  }
}

/// The block in `packed_a` (the whole operand packed ahead, pack_a_panels'
/// layout) if there is one, else packed from `a` into `pa` now.
template <int64_t MR>
inline ABlock<MR> a_block(const Matrix &a, const float *packed_a, int64_t k, int64_t ic,
                          int64_t mc, int64_t pc, int64_t kc, float *pa, bool in_place = false) {
  if (packed_a)
    return {packed_a + ic * k + pc * MR, k * MR};
  // A row-major A is read where it lies by a caller that says it can
  // (in_place: it passes micro_tile the tile's rows) on x86, whose
  // broadcasts load from memory either way: packing it (a scalar gather,
  // 6% of the transformer encoder's time) bought nothing there. NEON's
  // tiles load A four k steps at a time and keep the packed panel.
  if (in_place && a.cs == 1 && !VecF::kLaneFma)
    return {a.data + ic * a.rs + pc, MR * a.rs, a.rs};
  if (a.cs == 1)
    pack_a_rows<MR>(a.data + ic * a.rs, a.rs, mc, pc, kc, pa);
  else
    pack_a_panels<MR>(a.data + ic * a.rs, a.rs, a.cs, mc, pc, kc, pa);
  return {pa, kc * MR};
}

/// C (m x n, row stride ldc) = epilogue(A (m x k) * B (k x n)) by MR-row
/// tiles. A comes packed (`packed_a`: the whole operand in pack_a_panels<MR>'
/// layout, e.g. weights packed at compile time) or is packed here from `a`.
/// `scratch` holds gemm_scratch_floats_for(b, m, n, k) floats.
template <typename Act, int64_t MR, typename BSource>
void gemm_packed(int64_t m, int64_t n, int64_t k, const Matrix &a, const float *packed_a,
                 const BSource &b, float *c, int64_t ldc, const Epilogue &ep, float *scratch) {
  if (m <= 0 || n <= 0)
    return;
  if (k <= 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        c[i * ldc + j] = 0;
    apply_epilogue<Act>(c, ldc, m, n, ep, 0, 0);
    return;
  }
  float *pa = scratch;
  float *pb = scratch + prepacked_gemm_scratch_floats(m, k); // B's block after A's
  for (int64_t jc = 0; jc < n; jc += kGemmNC) {
    const int64_t nc = min64(kGemmNC, n - jc);
    for (int64_t pc = 0; pc < k; pc += kGemmKC) {
      const int64_t kc = min64(kGemmKC, k - pc);
      const bool first = pc == 0, last = pc + kc >= k;
      pack_b(b, pc, kc, jc, nc, pb);
      for (int64_t ic = 0; ic < m; ic += kGemmMC) {
        const int64_t mc = min64(kGemmMC, m - ic);
        const ABlock<MR> ab = a_block<MR>(a, packed_a, k, ic, mc, pc, kc, pa, true);
        for (int64_t ir = 0; ir < mc; ir += MR)
          for (int64_t jr = 0; jr < nc; jr += kNR)
            micro_tile<Act, MR>(kc, ab.panel(ir),
                                PackedSliver{b_sliver(b, pb, jr, jc + jr, pc, kc)},
                                c + (ic + ir) * ldc + jc + jr, ldc, min64(MR, mc - ir),
                                min64(kNR, nc - jr), !first, last ? &ep : nullptr, ic + ir,
                                jc + jr, ab.in_place_ld);
      }
    }
  }
}

//===-- Tasks -------------------------------------------------------------------===//

/// The block of C [i0, i1) x [j0, j1) task t of `tasks` computes: a share
/// of the columns in whole slivers when C is at least as wide as tall (and
/// B can be entered at any column), else a share of the rows in whole A
/// panels. May be empty.
struct TaskBlock {
  int64_t i0, i1, j0, j1;
};
inline TaskBlock task_block(int64_t m, int64_t n, int64_t tasks, int64_t t, bool by_columns,
                            int64_t mr) {
  if (by_columns && n >= m) {
    const Range r = split_range(n, kNR, tasks, t);
    return {0, m, r.begin, r.end};
  }
  const Range r = split_range(m, mr, tasks, t);
  return {r.begin, r.end, 0, n};
}

/// The epilogue of the block of C from (i0, j0).
inline Epilogue epilogue_at(const Epilogue &ep, int64_t i0, int64_t j0) {
  Epilogue e = ep;
  if (e.bias)
    e.bias += i0 * e.bias_rs + j0 * e.bias_cs;
  if (e.residual)
    e.residual += i0 * e.residual_ld + j0;
  return e;
}

/// Columns [j0, n) of B (j0 a multiple of kNR).
inline Matrix columns_from(const Matrix &b, int64_t j0) {
  return {b.data + j0 * b.cs, b.rs, b.cs};
}
inline PackedB columns_from(const PackedB &b, int64_t j0) {
  return {b.data + j0 / kNR * b.k * kNR, b.k};
}

/// gemm_packed<Act, MR> split into `tasks` blocks of C (task_block), run on
/// `runner` (parallel.h), each with its own gemm_scratch_floats_for(b, m, n,
/// k) of scratch. B sources
/// other than a Matrix or PackedB are split by rows only.
template <typename Act, int64_t MR, typename BSource>
void gemm_tasks(int64_t m, int64_t n, int64_t k, const Matrix &a, const float *packed_a,
                const BSource &b, float *c, int64_t ldc, const Epilogue &ep, float *scratch,
                TaskRunner *runner, int64_t tasks) {
  if (tasks <= 1) {
    gemm_packed<Act, MR>(m, n, k, a, packed_a, b, c, ldc, ep, scratch);
    return;
  }
  const int64_t per_task = gemm_scratch_floats_for(b, m, n, k);
  constexpr bool kColumns = std::is_same_v<BSource, Matrix> || std::is_same_v<BSource, PackedB>;
  parallel_for(runner, tasks, [&](int64_t t) {
    const TaskBlock blk = task_block(m, n, tasks, t, kColumns, MR);
    if (blk.i0 >= blk.i1 || blk.j0 >= blk.j1)
      return;
    const Matrix a_rows{packed_a ? nullptr : a.data + blk.i0 * a.rs, a.rs, a.cs};
    const float *packed_rows = packed_a ? packed_a + blk.i0 * k : nullptr;
    float *c_block = c + blk.i0 * ldc + blk.j0;
    const Epilogue e = epilogue_at(ep, blk.i0, blk.j0);
    if constexpr (kColumns)
      gemm_packed<Act, MR>(blk.i1 - blk.i0, blk.j1 - blk.j0, k, a_rows, packed_rows,
                           columns_from(b, blk.j0), c_block, ldc, e, scratch + t * per_task);
    else
      gemm_packed<Act, MR>(blk.i1 - blk.i0, n, k, a_rows, packed_rows, b, c_block, ldc, e,
                           scratch + t * per_task);
  });
}

/// The strided-Matrix product, with the m == 1 shortcut: memory-bound (a
/// classifier's weights streamed once), so the tasks split the columns
/// where there are enough of them to pay the hand-off (tasks_for, a cycle
/// a few multiply-adds): each core then streams its own share, and each
/// column's sum is the same alone.
template <typename Act>
void gemm_matrix(int64_t m, int64_t n, int64_t k, const Matrix &a, const Matrix &b, float *c,
                 int64_t ldc, const Epilogue &ep, float *scratch, TaskRunner *runner = nullptr,
                 int64_t tasks = 1) {
  if (m == 1 && n > 0) {
    const int64_t parts = tasks_for(n * k / 4, tasks);
    parallel_for(runner, parts, [&](int64_t t) {
      const Range r = split_range(n, kNR, parts, t);
      if (r.begin >= r.end)
        return;
      gemv_row(r.end - r.begin, k, a.data, a.cs, columns_from(b, r.begin), c + r.begin);
      apply_epilogue<Act>(c + r.begin, ldc, 1, r.end - r.begin, ep, 0, r.begin);
    });
    return;
  }
  gemm_tasks<Act, kMatrixMR>(m, n, k, a, nullptr, b, c, ldc, ep, scratch, runner, tasks);
}

//===-- ONNX ops ----------------------------------------------------------------===//

/// The epilogue of ONNX Gemm (+ a fused activation): alpha, beta * C (read
/// as C[i * c_stride_m + j * c_stride_n]), the activation's parameters.
inline Epilogue gemm_epilogue(const float *c, float alpha, float beta, int64_t c_stride_m,
                              int64_t c_stride_n, float act_alpha, float act_beta) {
  Epilogue ep;
  ep.alpha = alpha;
  ep.bias = c;
  ep.bias_rs = c_stride_m;
  ep.bias_cs = c_stride_n;
  ep.beta = beta;
  ep.act_alpha = act_alpha;
  ep.act_beta = act_beta;
  return ep;
}

/// ONNX Gemm (+ a fused activation): Y = Act(alpha * op(A) op(B) + beta * C),
/// C read as C[i * c_stride_m + j * c_stride_n] (any broadcast to m x n).
template <typename Act>
void gemm(const float *a, const float *b, const float *c, float *y, int64_t m, int64_t n,
          int64_t k, int64_t trans_a, int64_t trans_b, float alpha, float beta,
          int64_t c_stride_m, int64_t c_stride_n, float act_alpha, float act_beta,
          float *scratch, TaskRunner *runner = nullptr, int64_t tasks = 1) {
  const Matrix am = trans_a ? Matrix{a, 1, m} : Matrix{a, k, 1};
  const Matrix bm = trans_b ? Matrix{b, 1, k} : Matrix{b, n, 1};
  gemm_matrix<Act>(m, n, k, am, bm, y, n,
                   gemm_epilogue(c, alpha, beta, c_stride_m, c_stride_n, act_alpha, act_beta),
                   scratch, runner, tasks);
}

/// gemm with a constant B packed ahead by the compiler (pack_b_ahead of
/// op(B), so no trans_b; NR = kNR, the width it was packed for). The
/// compiler uses it where m >= 2 (at m == 1 gemm reads B in place, as a
/// row times a matrix); MatMul by a constant 2-D B is this with alpha =
/// beta = 1 and no C. Scratch: tasks * prepacked_gemm_scratch_floats(m, k).
template <typename Act, int64_t NR>
void gemm_prepacked(const float *a, const float *packed_b, const float *c, float *y, int64_t m,
                    int64_t n, int64_t k, int64_t trans_a, float alpha, float beta,
                    int64_t c_stride_m, int64_t c_stride_n, float act_alpha, float act_beta,
                    float *scratch, TaskRunner *runner = nullptr, int64_t tasks = 1) {
  static_assert(NR == kNR, "B was packed for another vector width");
  const Matrix am = trans_a ? Matrix{a, 1, m} : Matrix{a, k, 1};
  gemm_tasks<Act, kMatrixMR>(
      m, n, k, am, nullptr, PackedB{packed_b, k}, y, n,
      gemm_epilogue(c, alpha, beta, c_stride_m, c_stride_n, act_alpha, act_beta), scratch,
      runner, tasks);
}

/// The offsets into A and B of batch bi of a matmul over a broadcast batch
/// space (bi's multi-index, innermost last, times each operand's strides).
inline void batch_offsets(int64_t bi, int64_t batch_rank, const int64_t *batch_shape,
                          const int64_t *a_strides, const int64_t *b_strides, int64_t &a_off,
                          int64_t &b_off) {
  a_off = b_off = 0;
  for (int64_t d = batch_rank - 1, rest = bi; d >= 0; --d) {
    const int64_t i = rest % batch_shape[d];
    rest /= batch_shape[d];
    a_off += i * a_strides[d];
    b_off += i * b_strides[d];
  }
}

/// numpy matmul over a broadcast batch space (as ref::matmul); float only.
/// `tasks` take a share of the batches each when there are enough, else
/// split every product. Scratch: tasks * gemm_scratch_floats(m, n, k).
template <typename T>
void matmul(const T *a, const T *b, T *y, int64_t m, int64_t k, int64_t n,
            int64_t batch_rank, const int64_t *batch_shape, const int64_t *a_strides,
            const int64_t *b_strides, float *scratch, TaskRunner *runner = nullptr,
            int64_t tasks = 1) {
  const int64_t batches = product(batch_shape, batch_rank);
  if (batches == 0)
    return;
  const Epilogue ep;
  auto product_at = [&](int64_t bi, TaskRunner *r, int64_t ts, float *s) {
    int64_t a_off, b_off;
    batch_offsets(bi, batch_rank, batch_shape, a_strides, b_strides, a_off, b_off);
    gemm_matrix<ref::Identity>(m, n, k, Matrix{a + a_off, k, 1}, Matrix{b + b_off, n, 1},
                               y + bi * m * n, n, ep, s, r, ts);
  };
  if (tasks > 1 && batches >= tasks) {
    const int64_t per_task = gemm_scratch_floats(m, n, k);
    parallel_for(runner, tasks, [&](int64_t t) {
      const Range r = split_range(batches, 1, tasks, t);
      for (int64_t bi = r.begin; bi < r.end; ++bi)
        product_at(bi, nullptr, 1, scratch + t * per_task);
    });
    return;
  }
  for (int64_t bi = 0; bi < batches; ++bi)
    product_at(bi, runner, tasks, scratch);
}

} // namespace simd
} // namespace onnxc_rt

#endif
