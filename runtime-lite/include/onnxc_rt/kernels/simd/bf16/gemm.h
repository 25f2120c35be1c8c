// The bf16 GEMM of x86-64-amx's --precision bf16 (Gemm, and MatMul by a
// constant B): fp32 A, C and Y, B packed at compile time in bf16
// (simd/bf16/pack.h's pack_gemm_b), the products on AMX-BF16 tiles with
// fp32 sums (simd/bf16/tiles.h). Each call rounds A to bf16 once, rows of
// whole 32-value steps; a block is 32 rows by 32 columns, each step of 32
// depth values four tile loads and four TDPBF16PS. The sums go through a
// 32 x 32 stage to the float GEMM's epilogue (alpha, beta * C, activation:
// simd/f32/epilogue.h). `matmul`, the product of two activations
// (attention's), rounds and packs its B per call too.
#ifndef ONNXC_RT_SIMD_BF16_GEMM_H
#define ONNXC_RT_SIMD_BF16_GEMM_H

#include "onnxc_rt/kernels/simd/bf16/tiles.h"
#include "onnxc_rt/kernels/simd/f32/gemm.h"
#include "onnxc_rt/parallel.h"

#if ONNXC_RT_SIMD_AMX_BF16

namespace onnxc_rt {
namespace simd {
namespace bf16 {
namespace detail {

/// Rows [i0, i1) of op(A) (m x k; A as stored is k x m where trans_a)
/// rounded to bf16 into pa (rows of kp values, zeros past k; rows past m
/// zero).
inline void pack_a_rows(const float *a, int64_t trans_a, int64_t m, int64_t k, int64_t kp,
                        int64_t i0, int64_t i1, uint16_t *pa) {
  for (int64_t i = i0; i < i1; ++i) {
    uint16_t *row = pa + i * kp;
    for (int64_t p = 0; p < kp; p += 16) {
      const __m512 v = i >= m    ? _mm512_setzero_ps()
                       : trans_a ? load_row(a + i, k * m, p * m, m)
                                 : load_row(a + i * k, k, p, 1);
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(row + p), bf16_values(v));
    }
  }
}

/// Pair rows [r0, r1) of B (k x n, row-major, rows ldb apart) rounded to
/// bf16 into pb as pack_gemm_b lays it out (16-column tiles of `steps`
/// steps, 1 KiB each; zeros past k and n): the run-time B of a product of
/// two activations.
inline void pack_b_pairs(const float *b, int64_t ldb, int64_t k, int64_t n, int64_t steps,
                         int64_t r0, int64_t r1, uint8_t *pb) {
  const int64_t tile = steps * kTileChannels * kStepChannels * 2;
  for (int64_t r = r0; r < r1; ++r) { // pair row r: rows 2r, 2r + 1 of B
    const int64_t s = r / (kStepChannels / 2), j = r % (kStepChannels / 2);
    for (int64_t c0 = 0; c0 < n; c0 += kTilePixels) {
      const __m512 even = 2 * r < k ? load_row(b + 2 * r * ldb, n, c0, 1) : _mm512_setzero_ps();
      const __m512 odd =
          2 * r + 1 < k ? load_row(b + (2 * r + 1) * ldb, n, c0, 1) : _mm512_setzero_ps();
      _mm512_storeu_si512(pb + c0 / kTilePixels * tile + s * kTileChannels * kStepChannels * 2 +
                              j * kTilePixels * 4,
                          bf16_pairs(even, odd));
    }
  }
}

/// Y (m x n, rows ldy apart) = epilogue(A B) from A's rows in bf16 (pa,
/// rows of kp values) and B packed in pairs (pb, pack_gemm_b's layout):
/// 32 x 32 blocks, each task a share, a column block's rows one after
/// another (its B stays in cache).
template <typename Act>
void gemm_blocks(const uint16_t *pa, int64_t kp, const uint8_t *pb, int64_t m, int64_t n,
                 const Epilogue &ep, float *y, int64_t ldy, TaskRunner *runner, int64_t tasks) {
  const int64_t steps = kp / kStepChannels;
  const int64_t b_tile = steps * kTileChannels * kStepChannels * 2;
  // A: a step 64 bytes on along its rows, rows kp values apart; B: steps
  // of 1 KiB, rows of 64 bytes, a column tile all its steps.
  const int64_t no_offset[1] = {0};
  const TileOperand ao{no_offset, kStepChannels * 2, kp * 2, kTileChannels * kp * 2};
  const TileOperand bo{no_offset, kTileChannels * kStepChannels * 2, kTilePixels * 4, b_tile};
  const int64_t rblocks = (m + kBlockPixels - 1) / kBlockPixels;
  const int64_t cblocks = (n + kBlockPixels - 1) / kBlockPixels;
  const uint8_t *ab = reinterpret_cast<const uint8_t *>(pa);
  auto sums = [&](int64_t u, bool tiles, float *stage) {
    const int64_t r0 = u % rblocks * kBlockPixels, c0 = u / rblocks * kBlockPixels;
    block_sums(tiles, m - r0 > kTileChannels ? 2 : 1, n - c0 > kTilePixels ? 2 : 1,
               ab + r0 * kp * 2, ao, pb + c0 / kTilePixels * b_tile, bo, 1, steps, stage);
  };
  auto store = [&](int64_t u, const float *stage) {
    const int64_t r0 = u % rblocks * kBlockPixels, c0 = u / rblocks * kBlockPixels;
    const int64_t rows = min64(kBlockPixels, m - r0), cols = min64(kBlockPixels, n - c0);
    for (int64_t i = 0; i < rows; ++i)
      store_with_epilogue<Act>(stage + i * kBlockPixels, y + (r0 + i) * ldy + c0, cols, ep,
                               r0 + i, c0);
  };
  parallel_for(runner, tasks, [&](int64_t t) {
    const Range r = split_range(rblocks * cblocks, 1, tasks, t);
    run_blocks(r.begin, r.end, sums, store);
  });
}

} // namespace detail

/// Y (m x n) = Act(alpha * op(A) B + beta * C) with B packed by
/// pack_gemm_b (k x n, bf16), C read as C[i * c_stride_m + j * c_stride_n]
/// (null: none), as simd/f32/gemm.h's gemm_prepacked. `tasks` split the
/// blocks (run on `runner`). Scratch: gemm_scratch_bytes(m, k) bytes.
template <typename Act>
void gemm(const float *a, const uint16_t *packed_b, const float *c, float *y, int64_t m,
          int64_t n, int64_t k, int64_t trans_a, float alpha, float beta, int64_t c_stride_m,
          int64_t c_stride_n, float act_alpha, float act_beta, uint8_t *scratch,
          TaskRunner *runner = nullptr, int64_t tasks = 1) {
  const int64_t kp = round_up(k, kStepChannels), mp = round_up(m, kTileChannels);
  uint16_t *pa = reinterpret_cast<uint16_t *>(scratch);
  parallel_for(runner, tasks, [&](int64_t t) {
    const Range r = split_range(mp, 1, tasks, t);
    detail::pack_a_rows(a, trans_a, m, k, kp, r.begin, r.end, pa);
  });
  const Epilogue ep = gemm_epilogue(c, alpha, beta, c_stride_m, c_stride_n, act_alpha, act_beta);
  detail::gemm_blocks<Act>(pa, kp, reinterpret_cast<const uint8_t *>(packed_b), m, n, ep, y, n,
                           runner, tasks);
}

/// numpy matmul of two activations (as simd/f32/gemm.h's matmul: batch
/// dims broadcast by strides) with the products in bf16: each batch's A
/// rows and B (k x n) rounded to bf16 per call, then gemm's blocks.
/// Scratch: matmul_scratch_bytes(m, k, n) bytes.
inline void matmul(const float *a, const float *b, float *y, int64_t m, int64_t k, int64_t n,
                   int64_t batch_rank, const int64_t *batch_shape, const int64_t *a_strides,
                   const int64_t *b_strides, uint8_t *scratch, TaskRunner *runner = nullptr,
                   int64_t tasks = 1) {
  const int64_t kp = round_up(k, kStepChannels), mp = round_up(m, kTileChannels);
  uint16_t *pa = reinterpret_cast<uint16_t *>(scratch);
  uint8_t *pb = scratch + gemm_scratch_bytes(m, k);
  const int64_t batches = product(batch_shape, batch_rank);
  const Epilogue ep;
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t a_off, b_off;
    batch_offsets(bi, batch_rank, batch_shape, a_strides, b_strides, a_off, b_off);
    parallel_for(runner, tasks, [&](int64_t t) {
      const Range ra = split_range(mp, 1, tasks, t);
      detail::pack_a_rows(a + a_off, 0, m, k, kp, ra.begin, ra.end, pa);
      const Range rb = split_range(kp / 2, 1, tasks, t);
      detail::pack_b_pairs(b + b_off, n, k, n, kp / kStepChannels, rb.begin, rb.end, pb);
    });
    detail::gemm_blocks<ref::Identity>(pa, kp, pb, m, n, ep, y + bi * m * n, n, runner, tasks);
  }
}

} // namespace bf16
} // namespace simd
} // namespace onnxc_rt

#endif
#endif // ONNXC_RT_SIMD_BF16_GEMM_H
