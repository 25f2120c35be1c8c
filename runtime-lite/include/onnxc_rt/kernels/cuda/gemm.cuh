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
// The arithmetic is a template argument (`--precision`): Fp32, float
// fused multiply-adds in k order within a thread, each thread holding a
// 4 x 4 or 8 x 4 block of a 64 x 64 tile's sums in registers; or Tf32, the
// tile on the tensor cores (sm_80 and later): 4 warps of 2 x 2 WMMA
// 16x16x8 products, inputs rounded to TF32 (10-bit mantissa) as they are
// staged, float sums, each finished product through shared memory to the
// problem's epilogue. Tiles (choose_tiles) says which shape a problem gets.
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

/// A block's tile: kM x kN outputs, kThreads threads, stepping kK deep
/// through shared memory. Each thread stages kM * kK / kThreads elements of
/// A and one column of B (kK * kN / kThreads of its rows) per step.
template <int M, int N, int K, int Threads> struct Tile {
  static constexpr int kM = M, kN = N, kK = K, kThreads = Threads;
  static_assert(M * K % Threads == 0, "whole elements of A per thread");
  static_assert(Threads % N == 0, "a thread stages one column of B");
  static_assert(K <= Threads, "a thread per depth fills the k_step table");
};

/// The two tile shapes of each arithmetic (TileKernel): Small, 256 threads
/// of 4 x 4 sums (float) or 64 x 64 x 16 tensor-core steps; Tall, 128
/// threads of 8 x 4 sums (float) or 64 x 64 x 32 steps, more work per
/// thread between barriers. choose_tiles picks one per problem kind.
enum class Tiles { Small = 1, Tall = 2 };

/// Split-K: a grid of few tiles (a batch-1 layer with many input channels
/// and few pixels) splits the depth into `splits` chunks of `chunk` (a
/// multiple of the tile's depth); each writes its partial sums to `partial`
/// (splits x batches x m x n floats, the kernel's scratch in the arena) and
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
template <typename T> struct TileRegs {
  float a[T::kM * T::kK / T::kThreads];
  float b[T::kK * T::kN / T::kThreads];
};

/// Loads the tile of A (m0.., k0..) and of B (k0.., this thread's column),
/// zero outside the problem, rounded by `round` to the kernel's input
/// precision. Consecutive threads take consecutive k of A's rows and
/// consecutive n of B's rows: coalesced for row-major A and B (and for the
/// im2col columns of a convolution, consecutive pixels). `steps` is the
/// tile's k_step table.
template <typename T, typename Problem, typename Round>
__device__ inline void load_tiles(TileRegs<T> &regs, const Problem &p,
                                  const typename Problem::Block &blk,
                                  const typename Problem::Column &col, bool col_in,
                                  const typename Problem::KStep *steps, int m0, int k0,
                                  int k_end, Round round) {
  const int tid = threadIdx.x;
#pragma unroll
  for (int t = 0; t < int(sizeof regs.a / sizeof(float)); ++t) {
    const int e = tid + t * T::kThreads;
    const int m = m0 + e / T::kK, k = k0 + e % T::kK;
    regs.a[t] = round(m < p.m && k < k_end ? blk.a(m, k) : 0.0f);
  }
#pragma unroll
  for (int t = 0; t < int(sizeof regs.b / sizeof(float)); ++t) {
    const int kk = tid / T::kN + t * (T::kThreads / T::kN);
    regs.b[t] = round(col_in && k0 + kk < k_end ? blk.b(col, steps[kk]) : 0.0f);
  }
}

/// Stores the loaded tiles: A at as[mm * as_m + kk * as_k], B at
/// bs[kk * (kN + 4) + nn].
template <typename T>
__device__ inline void store_tiles(const TileRegs<T> &regs, float *as, int as_m, int as_k,
                                   float *bs) {
  const int tid = threadIdx.x;
#pragma unroll
  for (int t = 0; t < int(sizeof regs.a / sizeof(float)); ++t) {
    const int e = tid + t * T::kThreads;
    as[(e / T::kK) * as_m + (e % T::kK) * as_k] = regs.a[t];
  }
#pragma unroll
  for (int t = 0; t < int(sizeof regs.b / sizeof(float)); ++t) {
    const int kk = tid / T::kN + t * (T::kThreads / T::kN);
    bs[kk * (T::kN + 4) + tid % T::kN] = regs.b[t];
  }
}

/// The k_step table of the tile at depth k0 (threads 0 .. kK-1).
template <typename T, typename Problem>
__device__ inline void fill_steps(const Problem &p, typename Problem::KStep *steps, int k0,
                                  int k_end) {
  const int kk = threadIdx.x;
  if (kk < T::kK && k0 + kk < k_end)
    steps[kk] = p.k_step(k0 + kk);
}

/// This thread's column of B in the block's tile, and whether it lies in
/// the problem.
template <typename T, typename Problem> struct OwnColumn {
  typename Problem::Column col;
  bool in;
  __device__ OwnColumn(const typename Problem::Block &blk, const Problem &p, int n0) {
    const int own_n = n0 + int(threadIdx.x) % T::kN;
    in = own_n < p.n;
    col = blk.column(in ? own_n : n0);
  }
};

struct KeepFloat {
  __device__ float operator()(float v) const { return v; }
};

/// Fp32: each thread holds a TM x TN block of sums in registers, as
/// (TM/4) x (TN/4) groups of 4 x 4 spread kM/(TM/4) rows and kN/(TN/4)
/// columns apart (so a warp's shared-memory reads of a group are 16-byte
/// vectors on distinct banks); fused multiply-adds in k order.
template <typename Problem, typename T, int TM, int TN>
__global__ void __launch_bounds__(T::kThreads) tiled_gemm(Problem p, SplitK sk) {
  constexpr int kGroupsM = TM / 4, kGroupsN = TN / 4;
  constexpr int kThreadsN = T::kN / TN; // threads across a row of the tile
  static_assert((T::kM / TM) * kThreadsN == T::kThreads, "the threads cover the tile");
  __shared__ __align__(16) float as[T::kK][T::kM + 4];
  __shared__ __align__(16) float bs[T::kK][T::kN + 4];
  __shared__ typename Problem::KStep steps[2][T::kK]; // this tile's and the next
  const KRange r = k_range(sk, p.k);
  const typename Problem::Block blk = p.block(r.batch);
  const int m0 = blockIdx.y * T::kM, n0 = blockIdx.x * T::kN;
  const int tid = threadIdx.x, tx = tid % kThreadsN, ty = tid / kThreadsN;
  const OwnColumn<T, Problem> own(blk, p, n0);
  float acc[TM][TN] = {};
  // Per tile: store the loaded tile, fill the next one's k_step table,
  // barrier, start loading the next tile, multiply this one, barrier.
  TileRegs<T> regs;
  fill_steps<T>(p, steps[0], r.begin, r.end);
  __syncthreads();
  load_tiles(regs, p, blk, own.col, own.in, steps[0], m0, r.begin, r.end, KeepFloat{});
  for (int k0 = r.begin, tile = 0; k0 < r.end; k0 += T::kK, ++tile) {
    store_tiles(regs, &as[0][0], 1, T::kM + 4, &bs[0][0]);
    fill_steps<T>(p, steps[(tile + 1) & 1], k0 + T::kK, r.end);
    __syncthreads();
    if (k0 + T::kK < r.end)
      load_tiles(regs, p, blk, own.col, own.in, steps[(tile + 1) & 1], m0, k0 + T::kK, r.end,
                 KeepFloat{});
#pragma unroll
    for (int kk = 0; kk < T::kK; ++kk) {
      float a[TM], b[TN];
#pragma unroll
      for (int g = 0; g < kGroupsM; ++g)
#pragma unroll
        for (int i = 0; i < 4; ++i)
          a[g * 4 + i] = as[kk][g * (T::kM / kGroupsM) + ty * 4 + i];
#pragma unroll
      for (int g = 0; g < kGroupsN; ++g)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          b[g * 4 + j] = bs[kk][g * (T::kN / kGroupsN) + tx * 4 + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int m = m0 + (i / 4) * (T::kM / kGroupsM) + ty * 4 + i % 4;
      const int n = n0 + (j / 4) * (T::kN / kGroupsN) + tx * 4 + j % 4;
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

/// Tf32: WM x WN warps, each a (kM/WM) x (kN/WN) tile of 16x16x8 WMMA
/// products; inputs rounded to TF32 as they are staged, float sums. The
/// finished tile goes through shared memory (the staging buffers', free by
/// then) to the problem's epilogue, consecutive threads on consecutive
/// columns: stored in whole rows. (Each warp storing its own 16 x 16
/// patches instead measured 13 to 30 % slower on the transformer encoder.)
template <typename Problem, typename T, int WM, int WN>
__global__ void __launch_bounds__(T::kThreads) tiled_gemm_tf32(Problem p, SplitK sk) {
  namespace wmma = nvcuda::wmma;
  constexpr int kFragsM = T::kM / WM / 16, kFragsN = T::kN / WN / 16;
  static_assert(WM * WN * 32 == T::kThreads, "a warp per warp tile");
  static_assert(kFragsM * 16 * WM == T::kM && kFragsN * 16 * WN == T::kN, "whole fragments");
  constexpr int kLda = T::kK + 4, kLdb = T::kN + 4, kLdc = T::kN + 4; // WMMA: ldm % 4 == 0
  constexpr int kStaged = T::kM * kLda + T::kK * kLdb, kTile = T::kM * kLdc;
  __shared__ __align__(32) float smem[kStaged > kTile ? kStaged : kTile];
  float *const as = smem;                 // (m, k), TF32 values
  float *const bs = smem + T::kM * kLda;  // (k, n), TF32 values
  float *const cs = smem;                 // the finished tile, after the last step
  __shared__ typename Problem::KStep steps[2][T::kK];
  const KRange r = k_range(sk, p.k);
  const typename Problem::Block blk = p.block(r.batch);
  const int m0 = blockIdx.y * T::kM, n0 = blockIdx.x * T::kN;
  const int tid = threadIdx.x, warp = tid / 32;
  const int wm = warp / WN, wn = warp % WN;
  const OwnColumn<T, Problem> own(blk, p, n0);
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[kFragsM][kFragsN];
#pragma unroll
  for (int i = 0; i < kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < kFragsN; ++j)
      wmma::fill_fragment(acc[i][j], 0.0f);
  TileRegs<T> regs; // as in tiled_gemm
  fill_steps<T>(p, steps[0], r.begin, r.end);
  __syncthreads();
  load_tiles(regs, p, blk, own.col, own.in, steps[0], m0, r.begin, r.end, RoundTf32{});
  for (int k0 = r.begin, tile = 0; k0 < r.end; k0 += T::kK, ++tile) {
    store_tiles(regs, as, kLda, 1, bs);
    fill_steps<T>(p, steps[(tile + 1) & 1], k0 + T::kK, r.end);
    __syncthreads();
    if (k0 + T::kK < r.end)
      load_tiles(regs, p, blk, own.col, own.in, steps[(tile + 1) & 1], m0, k0 + T::kK, r.end,
                 RoundTf32{});
#pragma unroll
    for (int kk = 0; kk < T::kK; kk += 8) {
      wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major>
          a[kFragsM];
      wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major>
          b[kFragsN];
#pragma unroll
      for (int i = 0; i < kFragsM; ++i)
        wmma::load_matrix_sync(a[i], as + (wm * kFragsM * 16 + i * 16) * kLda + kk, kLda);
#pragma unroll
      for (int j = 0; j < kFragsN; ++j)
        wmma::load_matrix_sync(b[j], bs + kk * kLdb + wn * kFragsN * 16 + j * 16, kLdb);
#pragma unroll
      for (int i = 0; i < kFragsM; ++i)
#pragma unroll
        for (int j = 0; j < kFragsN; ++j)
          wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    __syncthreads(); // (also: the staging buffers are free for cs)
  }
#pragma unroll
  for (int i = 0; i < kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < kFragsN; ++j)
      wmma::store_matrix_sync(cs + (wm * kFragsM * 16 + i * 16) * kLdc + wn * kFragsN * 16 +
                                  j * 16,
                              acc[i][j], kLdc, wmma::mem_row_major);
  __syncthreads();
  for (int e = tid; e < T::kM * T::kN; e += T::kThreads) {
    const int row = e / T::kN, col = e % T::kN;
    if (m0 + row < p.m && n0 + col < p.n)
      finish(p, sk, r, m0 + row, n0 + col, cs[row * kLdc + col]);
  }
}

} // namespace detail

/// The arithmetic of the matrix products (--precision).
struct Fp32 {}; // float fused multiply-adds on the CUDA cores
struct Tf32 {}; // tensor cores: TF32 products, float sums (sm_80 and later)

namespace detail {

/// Each arithmetic's kernels, per Tiles value: the tile, and the launch.
template <typename Math, Tiles> struct TileKernel;
template <> struct TileKernel<Fp32, Tiles::Small> {
  using T = Tile<64, 64, 16, 256>;
  template <typename P> static constexpr auto kernel() { return tiled_gemm<P, T, 4, 4>; }
};
template <> struct TileKernel<Fp32, Tiles::Tall> {
  using T = Tile<64, 64, 16, 128>;
  template <typename P> static constexpr auto kernel() { return tiled_gemm<P, T, 8, 4>; }
};
template <> struct TileKernel<Tf32, Tiles::Small> {
  using T = Tile<64, 64, 16, 128>;
  template <typename P> static constexpr auto kernel() { return tiled_gemm_tf32<P, T, 2, 2>; }
};
template <> struct TileKernel<Tf32, Tiles::Tall> {
  using T = Tile<64, 64, 32, 128>;
  template <typename P> static constexpr auto kernel() { return tiled_gemm_tf32<P, T, 2, 2>; }
};

/// The tiles of a problem (measured on an H200: bench/results/cuda-h200.md,
/// "Tile shapes"). In float, Tall for Gemm and MatMul (4 to 7 % faster on
/// the transformer encoder), Small for convolutions, whose gathered im2col
/// columns want more threads staging (Tall 1 to 6 % slower on ResNet-18).
/// On the tensor cores Small: the deeper step of Tall measured 5 to 11 %
/// faster at batch 1 but up to 6 % slower at batch 32 (MobileNetV2), with
/// an epilogue since replaced. 128 x 64 and 128 x 128 tiles of 8 x 8 sums
/// measured slower still (ResNet-18 at batch 32: 7944 and 8956 us against
/// 5734): 139 registers a thread leave one block per multiprocessor.
/// ONNXC_CUDA_GEMM_TILES, when defined and not 0 (a Tiles value), forces
/// one: the benchmark's and the tests' comparisons.
template <typename Problem> constexpr Tiles default_tiles(Fp32) { return Problem::kFloatTiles; }
template <typename Problem> constexpr Tiles default_tiles(Tf32) { return Tiles::Small; }
template <typename Math, typename Problem> inline Tiles choose_tiles() {
#if defined(ONNXC_CUDA_GEMM_TILES)
  if (int(ONNXC_CUDA_GEMM_TILES) != 0)
    return Tiles(ONNXC_CUDA_GEMM_TILES);
#endif
  return default_tiles<Problem>(Math{});
}

template <typename Math, Tiles kTiles, typename Problem>
void launch_tiles(Stream *stream, const Problem &p, SplitK sk, int64_t splits) {
  using K = TileKernel<Math, kTiles>;
  if (sk.splits > 1) // whole tiles of depth per split
    sk.chunk = int((p.k + splits * K::T::kK - 1) / (splits * K::T::kK) * K::T::kK);
  const dim3 grid(unsigned((p.n + K::T::kN - 1) / K::T::kN),
                  unsigned((p.m + K::T::kM - 1) / K::T::kM), unsigned(sk.batches * sk.splits));
  launch(K::template kernel<Problem>(), grid, K::T::kThreads, stream, p, sk);
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
    sk.partial = partial;
  }
  if (choose_tiles<Math, Problem>() == Tiles::Tall)
    launch_tiles<Math, Tiles::Tall>(stream, p, sk, splits);
  else
    launch_tiles<Math, Tiles::Small>(stream, p, sk, splits);
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
  static constexpr Tiles kFloatTiles = Tiles::Tall; // (choose_tiles)
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
  static constexpr Tiles kFloatTiles = Tiles::Tall; // (choose_tiles)
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
