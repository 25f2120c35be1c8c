// CUDA matrix products: one tiled kernel for Gemm, MatMul and the dense
// convolutions (implicit GEMM, conv.cuh). A "problem" says how to read
// element (m, k) of A and (k, n) of B of one batch entry and how to store a
// finished sum (its epilogue: bias, residual, activation), so the tiling,
// the shared-memory staging and the accumulation are written once. Index
// arithmetic is kept out of the staging loops, where it cost more than the
// multiply-adds (a convolution's im2col address is three divisions):
//   P::Block b = p.block(batch)  once per thread block: the batch entry's
//                                 base pointers;
//   b.column(n)                   once per thread: the fixed part of its
//                                 column of B (a thread stages one column);
//   p.k_step(k)                   once per depth k, by kTileK threads into a
//                                 shared table per tile: what every column
//                                 needs of row k of B;
//   b.a(m, k), b.b(column, step)  an element of A and of B;
//   p.store(batch, m, n, sum)     the epilogue.
//
// The arithmetic is a template argument (`--precision`): Fp32, a block of
// 256 threads computing a 64 x 64 tile of Y, 4 x 4 float sums per thread in
// registers, stepping through K 16 at a time through shared memory (fused
// multiply-adds in k order within a thread); or Tf32, the same tile on the
// tensor cores (sm_80 and later): 4 warps of 2 x 2 WMMA 16x16x8 products,
// inputs rounded to TF32 (10-bit mantissa) as they are staged, float sums,
// and the tile stored through shared memory for the problem's epilogue.
#ifndef ONNXC_RT_CUDA_GEMM_CUH
#define ONNXC_RT_CUDA_GEMM_CUH

#include "onnxc_rt/kernels/cuda/common.cuh"
#include "onnxc_rt/kernels/reference/elementwise.h"

#if !defined(ONNXC_CUDA_EMULATED)
#include <mma.h>
#endif

namespace onnxc_rt {
namespace cuda {
namespace detail {

constexpr int kTileM = 64, kTileN = 64, kTileK = 16;

/// Split-K: a grid of few tiles (a batch-1 layer with many input channels
/// and few pixels) splits the depth into `splits` chunks of `chunk` (a
/// multiple of kTileK); each writes its partial sums to `partial` (splits x
/// batches x m x n floats, the kernel's scratch in the arena) and
/// reduce_splits adds them in split order, so the result does not depend on
/// scheduling. splits == 1: the tile kernel stores through the epilogue.
struct SplitK {
  int splits = 1, chunk = 0;
  float *partial = nullptr;
  int64_t batches = 1;
};

/// The depth range [begin, end) of block z's split, and its batch entry.
struct KRange {
  int64_t batch;
  int split, begin, end;
};
__device__ inline KRange k_range(const SplitK &sk, int k) {
  KRange r;
  r.batch = blockIdx.z / sk.splits;
  r.split = int(blockIdx.z % sk.splits);
  r.begin = sk.splits == 1 ? 0 : r.split * sk.chunk;
  r.end = sk.splits == 1 || r.begin + sk.chunk > k ? k : r.begin + sk.chunk;
  return r;
}

/// A finished sum: through the problem's epilogue, or into the partials.
template <typename Problem>
__device__ inline void finish(const Problem &p, const SplitK &sk, const KRange &r, int m, int n,
                              float acc) {
  if (sk.splits == 1)
    p.store(r.batch, m, n, acc);
  else
    sk.partial[((int64_t(r.split) * sk.batches + r.batch) * p.m + m) * p.n + n] = acc;
}

template <typename Problem> __global__ void reduce_splits(Problem p, SplitK sk) {
  const int64_t per_split = sk.batches * p.m * int64_t(p.n);
  ONNXC_CUDA_FOR(i, per_split) {
    float sum = 0.0f;
    for (int s = 0; s < sk.splits; ++s)
      sum += sk.partial[s * per_split + i];
    const int n = int(i % p.n), m = int((i / p.n) % p.m);
    p.store(i / (int64_t(p.m) * p.n), m, n, sum);
  }
}

/// One thread's share of a tile pair, held in registers between its load
/// from global memory and its store to shared memory, so the next tile's
/// loads are in flight while the current one is multiplied.
template <int kBlockThreads> struct TileRegs {
  static_assert(kTileM * kTileK % kBlockThreads == 0, "whole elements of A per thread");
  static_assert(kBlockThreads % kTileN == 0, "a thread stages one column of B");
  float a[kTileM * kTileK / kBlockThreads];
  float b[kTileK * kTileN / kBlockThreads];
};

/// Loads the tile of A (m0.., k0..) and of B (k0.., this thread's column),
/// zero outside the problem, rounded by `round` to the kernel's input
/// precision. Consecutive threads take consecutive k of A's rows and
/// consecutive n of B's rows: coalesced for row-major A and B (and for the
/// im2col columns of a convolution, consecutive pixels). `steps` is the
/// tile's k_step table.
template <int kBlockThreads, typename Problem, typename Round>
__device__ inline void load_tiles(TileRegs<kBlockThreads> &regs, const Problem &p,
                                  const typename Problem::Block &blk,
                                  const typename Problem::Column &col, bool col_in,
                                  const typename Problem::KStep *steps, int m0, int k0,
                                  int k_end, Round round) {
  const int tid = threadIdx.x;
#pragma unroll
  for (int t = 0; t < int(sizeof regs.a / sizeof(float)); ++t) {
    const int e = tid + t * kBlockThreads;
    const int m = m0 + e / kTileK, k = k0 + e % kTileK;
    regs.a[t] = round(m < p.m && k < k_end ? blk.a(m, k) : 0.0f);
  }
#pragma unroll
  for (int t = 0; t < int(sizeof regs.b / sizeof(float)); ++t) {
    const int kk = tid / kTileN + t * (kBlockThreads / kTileN);
    regs.b[t] = round(col_in && k0 + kk < k_end ? blk.b(col, steps[kk]) : 0.0f);
  }
}

/// Stores the loaded tiles: A at as[mm * as_m + kk * as_k], B at
/// bs[kk * (kTileN + 4) + nn].
template <int kBlockThreads>
__device__ inline void store_tiles(const TileRegs<kBlockThreads> &regs, float *as, int as_m,
                                   int as_k, float *bs) {
  const int tid = threadIdx.x;
#pragma unroll
  for (int t = 0; t < int(sizeof regs.a / sizeof(float)); ++t) {
    const int e = tid + t * kBlockThreads;
    as[(e / kTileK) * as_m + (e % kTileK) * as_k] = regs.a[t];
  }
#pragma unroll
  for (int t = 0; t < int(sizeof regs.b / sizeof(float)); ++t) {
    const int kk = tid / kTileN + t * (kBlockThreads / kTileN);
    bs[kk * (kTileN + 4) + tid % kTileN] = regs.b[t];
  }
}

/// The k_step table of the tile at depth k0 (threads 0 .. kTileK-1).
template <typename Problem>
__device__ inline void fill_steps(const Problem &p, typename Problem::KStep *steps, int k0,
                                  int k_end) {
  const int kk = threadIdx.x;
  if (kk < kTileK && k0 + kk < k_end)
    steps[kk] = p.k_step(k0 + kk);
}

struct KeepFloat {
  __device__ float operator()(float v) const { return v; }
};

template <typename Problem>
__global__ void __launch_bounds__(256) tiled_gemm(Problem p, SplitK sk) {
  __shared__ __align__(16) float as[kTileK][kTileM + 4];
  __shared__ __align__(16) float bs[kTileK][kTileN + 4];
  __shared__ typename Problem::KStep steps[2][kTileK]; // this tile's and the next
  const KRange r = k_range(sk, p.k);
  const typename Problem::Block blk = p.block(r.batch);
  const int m0 = blockIdx.y * kTileM, n0 = blockIdx.x * kTileN;
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int own_n = n0 + tid % kTileN;
  const bool col_in = own_n < p.n;
  const typename Problem::Column col = blk.column(col_in ? own_n : n0);
  float acc[4][4] = {};
  // Per tile: store the loaded tile, fill the next one's k_step table,
  // barrier, start loading the next tile, multiply this one, barrier.
  TileRegs<256> regs;
  fill_steps(p, steps[0], r.begin, r.end);
  __syncthreads();
  load_tiles(regs, p, blk, col, col_in, steps[0], m0, r.begin, r.end, KeepFloat{});
  for (int k0 = r.begin, tile = 0; k0 < r.end; k0 += kTileK, ++tile) {
    store_tiles(regs, &as[0][0], 1, kTileM + 4, &bs[0][0]);
    fill_steps(p, steps[(tile + 1) & 1], k0 + kTileK, r.end);
    __syncthreads();
    if (k0 + kTileK < r.end)
      load_tiles(regs, p, blk, col, col_in, steps[(tile + 1) & 1], m0, k0 + kTileK, r.end,
                 KeepFloat{});
#pragma unroll
    for (int kk = 0; kk < kTileK; ++kk) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        a[i] = as[kk][ty * 4 + i];
        b[i] = bs[kk][tx * 4 + i];
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int m = m0 + ty * 4 + i, n = n0 + tx * 4 + j;
      if (m < p.m && n < p.n)
        finish(p, sk, r, m, n, acc[i][j]);
    }
}

/// (A template, so that code for GPUs older than sm_80, whose mma.h has no
/// TF32, compiles as long as no Tf32 kernel is instantiated.)
struct RoundTf32 {
  template <typename F> __device__ float operator()(F v) const {
    return nvcuda::wmma::__float_to_tf32(v);
  }
};

template <typename Problem>
__global__ void __launch_bounds__(128) tiled_gemm_tf32(Problem p, SplitK sk) {
  namespace wmma = nvcuda::wmma;
  constexpr int kLda = kTileK + 4, kLdb = kTileN + 4, kLdc = kTileN + 4; // WMMA: ldm % 4 == 0
  __shared__ __align__(32) float as[kTileM * kLda]; // (m, k), TF32 values
  __shared__ __align__(32) float bs[kTileK * kLdb]; // (k, n), TF32 values
  __shared__ __align__(32) float cs[kTileM * kLdc]; // the finished tile
  __shared__ typename Problem::KStep steps[2][kTileK];
  const KRange r = k_range(sk, p.k);
  const typename Problem::Block blk = p.block(r.batch);
  const int m0 = blockIdx.y * kTileM, n0 = blockIdx.x * kTileN;
  const int tid = threadIdx.x, warp = tid / 32, wm = warp / 2, wn = warp % 2;
  const int own_n = n0 + tid % kTileN;
  const bool col_in = own_n < p.n;
  const typename Problem::Column col = blk.column(col_in ? own_n : n0);
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[2][2];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      wmma::fill_fragment(acc[i][j], 0.0f);
  TileRegs<128> regs; // as in tiled_gemm
  fill_steps(p, steps[0], r.begin, r.end);
  __syncthreads();
  load_tiles(regs, p, blk, col, col_in, steps[0], m0, r.begin, r.end, RoundTf32{});
  for (int k0 = r.begin, tile = 0; k0 < r.end; k0 += kTileK, ++tile) {
    store_tiles(regs, as, kLda, 1, bs);
    fill_steps(p, steps[(tile + 1) & 1], k0 + kTileK, r.end);
    __syncthreads();
    if (k0 + kTileK < r.end)
      load_tiles(regs, p, blk, col, col_in, steps[(tile + 1) & 1], m0, k0 + kTileK, r.end,
                 RoundTf32{});
    for (int kk = 0; kk < kTileK; kk += 8) {
      wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b[2];
      for (int i = 0; i < 2; ++i)
        wmma::load_matrix_sync(a[i], as + (wm * 32 + i * 16) * kLda + kk, kLda);
      for (int j = 0; j < 2; ++j)
        wmma::load_matrix_sync(b[j], bs + kk * kLdb + wn * 32 + j * 16, kLdb);
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
          wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(cs + (wm * 32 + i * 16) * kLdc + wn * 32 + j * 16, acc[i][j],
                              kLdc, wmma::mem_row_major);
  __syncthreads();
  for (int e = tid; e < kTileM * kTileN; e += 128) {
    const int row = e / kTileN, col_e = e % kTileN;
    if (m0 + row < p.m && n0 + col_e < p.n)
      finish(p, sk, r, m0 + row, n0 + col_e, cs[row * kLdc + col_e]);
  }
}

} // namespace detail

/// The arithmetic of the matrix products (--precision).
struct Fp32 {}; // float fused multiply-adds on the CUDA cores
struct Tf32 {}; // tensor cores: TF32 products, float sums (sm_80 and later)

namespace detail {

template <typename Problem>
void launch_gemm_kernel(Fp32, Stream *stream, const Problem &p, const SplitK &sk, dim3 grid) {
  launch(tiled_gemm<Problem>, grid, 256, stream, p, sk);
}
template <typename Problem>
void launch_gemm_kernel(Tf32, Stream *stream, const Problem &p, const SplitK &sk, dim3 grid) {
  launch(tiled_gemm_tf32<Problem>, grid, 128, stream, p, sk);
}

/// The tiles, then (splits > 1, `partial` the call's scratch) the split
/// reduction through the epilogue.
template <typename Math, typename Problem>
void launch_tiled_gemm(Stream *stream, const Problem &p, int64_t batches, int64_t splits,
                       float *partial) {
  if (p.m <= 0 || p.n <= 0 || batches <= 0)
    return;
  SplitK sk;
  sk.batches = batches;
  if (splits > 1 && partial) {
    sk.splits = int(splits);
    sk.chunk = int((p.k + splits * kTileK - 1) / (splits * kTileK) * kTileK);
    sk.partial = partial;
  }
  const dim3 grid(unsigned((p.n + kTileN - 1) / kTileN), unsigned((p.m + kTileM - 1) / kTileM),
                  unsigned(batches * sk.splits));
  launch_gemm_kernel(Math{}, stream, p, sk, grid);
  if (sk.splits > 1)
    launch(reduce_splits<Problem>, blocks_for(batches * p.m * int64_t(p.n)), kThreads, stream, p,
           sk);
}

/// A plain depth index: Gemm's and MatMul's k_step and column.
struct DepthIndex {
  int k;
};
struct ColumnIndex {
  int n;
};

/// Gemm: Y = act(alpha * op(A) op(B) + beta * C), C broadcast by strides.
template <typename Act> struct GemmProblem {
  const float *A, *B, *C;
  float *Y;
  int m, n, k;
  bool trans_a, trans_b;
  float alpha, beta;
  int64_t c_stride_m, c_stride_n;
  float act_alpha, act_beta;
  using KStep = DepthIndex;
  using Column = ColumnIndex;
  struct Block {
    const float *A, *B;
    int m, n, k;
    bool trans_a, trans_b;
    __device__ Column column(int j) const { return Column{j}; }
    __device__ float a(int i, int p) const {
      return trans_a ? A[int64_t(p) * m + i] : A[int64_t(i) * k + p];
    }
    __device__ float b(const Column &c, const KStep &s) const {
      return trans_b ? B[int64_t(c.n) * k + s.k] : B[int64_t(s.k) * n + c.n];
    }
  };
  __device__ Block block(int64_t) const { return Block{A, B, m, n, k, trans_a, trans_b}; }
  __device__ KStep k_step(int p) const { return KStep{p}; }
  __device__ void store(int64_t, int i, int j, float acc) const {
    float v = alpha * acc;
    if (C)
      v += beta * C[i * c_stride_m + j * c_stride_n];
    Y[int64_t(i) * n + j] = Act::apply(v, act_alpha, act_beta);
  }
};

/// MatMul: Y[b] = A[b] B[b], batch entries placed by broadcast strides.
struct MatMulProblem {
  const float *A, *B;
  float *Y;
  int m, n, k;
  int batch_rank;
  Dims batch_shape, a_strides, b_strides;
  using KStep = DepthIndex;
  using Column = ColumnIndex;
  struct Block {
    const float *A, *B; // this batch entry's matrices
    int n, k;
    __device__ Column column(int j) const { return Column{j}; }
    __device__ float a(int i, int p) const { return A[int64_t(i) * k + p]; }
    __device__ float b(const Column &c, const KStep &s) const {
      return B[int64_t(s.k) * n + c.n];
    }
  };
  __device__ int64_t offset(int64_t batch, const Dims &strides) const {
    int64_t off = 0;
    for (int d = batch_rank - 1; d >= 0; --d) {
      off += (batch % batch_shape.v[d]) * strides.v[d];
      batch /= batch_shape.v[d];
    }
    return off;
  }
  __device__ Block block(int64_t batch) const {
    return Block{A + offset(batch, a_strides), B + offset(batch, b_strides), n, k};
  }
  __device__ KStep k_step(int p) const { return KStep{p}; }
  __device__ void store(int64_t batch, int i, int j, float acc) const {
    Y[(batch * m + i) * int64_t(n) + j] = acc;
  }
};

} // namespace detail

/// Gemm with the fused op's activation in the epilogue (Identity for Gemm).
/// splits, partial: split-K (1 and null: none), chosen at compile time.
template <typename Act, typename T, typename Math = Fp32>
void gemm(Stream *stream, const T *a, const T *b, const T *c, T *y, int64_t m, int64_t n,
          int64_t k, int64_t trans_a, int64_t trans_b, float alpha, float beta,
          int64_t c_stride_m, int64_t c_stride_n, float act_alpha, float act_beta,
          int64_t splits = 1, float *partial = nullptr) {
  static_assert(sizeof(T) == sizeof(float), "the CUDA Gemm computes in float");
  detail::GemmProblem<Act> p{a, b, c, y, int(m), int(n), int(k), trans_a != 0, trans_b != 0,
                             alpha, beta, c_stride_m, c_stride_n, act_alpha, act_beta};
  detail::launch_tiled_gemm<Math>(stream, p, 1, splits, partial);
}

template <typename T, typename Math = Fp32>
void matmul(Stream *stream, const T *a, const T *b, T *y, int64_t m, int64_t k, int64_t n,
            int64_t batch_rank, const int64_t *batch_shape, const int64_t *a_strides,
            const int64_t *b_strides, int64_t splits = 1, float *partial = nullptr) {
  static_assert(sizeof(T) == sizeof(float), "the CUDA MatMul computes in float");
  const int64_t batches = product(batch_shape, batch_rank);
  detail::MatMulProblem p{a, b, y, int(m), int(n), int(k), int(batch_rank),
                          dims_of(batch_shape, batch_rank), dims_of(a_strides, batch_rank),
                          dims_of(b_strides, batch_rank)};
  detail::launch_tiled_gemm<Math>(stream, p, batches, splits, partial);
}

} // namespace cuda
} // namespace onnxc_rt

#endif
