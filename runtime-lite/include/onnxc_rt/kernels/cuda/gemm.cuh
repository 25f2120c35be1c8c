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
//   b.a(m, k), b.b(column, step)  an element of A and of B (b: 0 in a
//                                 convolution's padding);
//   b.a_at(m, k), b.b_at(column, step, inside)
//                                 their addresses (b_at: `inside` false in
//                                 the padding), for copies into shared
//                                 memory (tiled_gemm_async);
//   p.store(batch, m, n, sum)     the epilogue.
//
// The arithmetic is a template argument (`--precision`, mma.cuh): Fp32,
// float fused multiply-adds in k order within a thread, each thread
// holding a 4 x 4 or 8 x 4 block of a 64 x 64 tile's sums in registers; or
// Tf32, Fp16, Bf16, the tile on the tensor cores (sm_80 and later): warps
// of 32 x 32 outputs, each 2 x 4 mma.sync m16n8 products a step, inputs
// rounded to the arithmetic's operands (as they are staged, or as their
// fragments are loaded from float stages copied by cp.async), float sums,
// the finished tile through shared memory to the problem's epilogue.
// Tiles (choose_tiles) says which kernel and shape a problem gets.
#ifndef ONNXC_RT_CUDA_GEMM_CUH
#define ONNXC_RT_CUDA_GEMM_CUH

#include <type_traits>

#include "onnxc_rt/kernels/cuda/common.cuh"
#include "onnxc_rt/kernels/cuda/mma.cuh"
#include "onnxc_rt/kernels/reference/elementwise.h"

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

/// The tile shapes of each arithmetic (TileKernel): Small, 256 threads of
/// 4 x 4 sums (float) or 64 x 64 on 4 warps (tensor cores); Tall, 128
/// threads of 8 x 4 sums (float: more work per thread between barriers) or
/// 128 x 64 on 8 warps (tensor cores: more reuse of each staged column);
/// Pipelined (tensor cores only; float falls back to Small): 64 x 64 on 4
/// warps copied by cp.async, a stage in flight. choose_tiles picks one per
/// problem kind.
enum class Tiles { Small = 1, Tall = 2, Pipelined = 3 };

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

/// The depth within the tile of this thread's t-th staged element of B:
/// with Runs, each thread stages kK * kN / kThreads consecutive depths of
/// its column (stored as whole vectors, tiled_gemm_mma); without, the
/// threads of a column take turns. Either way a warp's lanes read one
/// depth of consecutive columns at a time.
template <typename T, bool Runs> __device__ inline int b_depth(int tid, int t) {
  constexpr int kRun = T::kK * T::kN / T::kThreads;
  return Runs ? tid / T::kN * kRun + t : tid / T::kN + t * (T::kThreads / T::kN);
}

/// Loads the tile of A (m0.., k0..) and of B (k0.., this thread's column),
/// zero outside the problem. Consecutive threads take consecutive k of A's
/// rows and consecutive n of B's rows: coalesced for row-major A and B (and
/// for the im2col columns of a convolution, consecutive pixels). `steps` is
/// the tile's k_step table.
template <typename T, bool Runs = false, typename Problem>
__device__ inline void load_tiles(TileRegs<T> &regs, const Problem &p,
                                  const typename Problem::Block &blk,
                                  const typename Problem::Column &col, bool col_in,
                                  const typename Problem::KStep *steps, int m0, int k0,
                                  int k_end) {
  const int tid = threadIdx.x;
#pragma unroll
  for (int t = 0; t < int(sizeof regs.a / sizeof(float)); ++t) {
    const int e = tid + t * T::kThreads;
    const int m = m0 + e / T::kK, k = k0 + e % T::kK;
    regs.a[t] = m < p.m && k < k_end ? blk.a(m, k) : 0.0f;
  }
#pragma unroll
  for (int t = 0; t < int(sizeof regs.b / sizeof(float)); ++t) {
    const int kk = b_depth<T, Runs>(tid, t);
    regs.b[t] = col_in && k0 + kk < k_end ? blk.b(col, steps[kk]) : 0.0f;
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
    const int kk = b_depth<T, false>(tid, t);
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
  load_tiles<T>(regs, p, blk, own.col, own.in, steps[0], m0, r.begin, r.end);
  for (int k0 = r.begin, tile = 0; k0 < r.end; k0 += T::kK, ++tile) {
    store_tiles(regs, &as[0][0], 1, T::kM + 4, &bs[0][0]);
    fill_steps<T>(p, steps[(tile + 1) & 1], k0 + T::kK, r.end);
    __syncthreads();
    if (k0 + T::kK < r.end)
      load_tiles<T>(regs, p, blk, own.col, own.in, steps[(tile + 1) & 1], m0, k0 + T::kK,
                    r.end);
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

/// Where a tensor-core kernel's block and thread stand: its depth range and
/// batch entry, the tile's corner, this thread's lane group g and lane t4
/// within it (mma.cuh's layouts), its warp's place (wm, wn) among WN
/// across, and its own column of B.
template <typename T, typename Problem, int WN> struct MmaBlock {
  KRange r;
  typename Problem::Block blk;
  int m0, n0, g, t4, wm, wn;
  OwnColumn<T, Problem> own;
  __device__ MmaBlock(const Problem &p, const SplitK &sk)
      : r(k_range(sk, p.k)), blk(p.block(r.batch)), m0(int(blockIdx.y) * T::kM),
        n0(int(blockIdx.x) * T::kN), g(int(threadIdx.x) % 32 / 4), t4(int(threadIdx.x) % 4),
        wm(int(threadIdx.x) / 32 / WN), wn(int(threadIdx.x) / 32 % WN), own(blk, p, n0) {}
};

/// The tensor-core kernels' last step, after a barrier that frees `cs`
/// (kM x (kN + 4) floats of shared memory): each warp's 32 x 32 sums, in
/// the m16n8 accumulator layout (mma.cuh), into the tile there, then the
/// tile through the problem's epilogue, consecutive threads on consecutive
/// columns: stored in whole rows.
template <typename T, typename Problem>
__device__ inline void finish_mma_tile(const Problem &p, const SplitK &sk, const KRange &r,
                                       float *cs, const float (&acc)[2][4][4], int m0, int n0,
                                       int wm, int wn) {
  constexpr int kLdc = T::kN + 4;
  const int tid = threadIdx.x, g = tid % 32 / 4, t4 = tid % 4;
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v)
        cs[(wm * 32 + i * 16 + g + v / 2 * 8) * kLdc + wn * 32 + j * 8 + 2 * t4 + v % 2] =
            acc[i][j][v];
  __syncthreads();
  for (int e = tid; e < T::kM * T::kN; e += T::kThreads) {
    const int row = e / T::kN, col = e % T::kN;
    if (m0 + row < p.m && n0 + col < p.n)
      finish(p, sk, r, m0 + row, n0 + col, cs[row * kLdc + col]);
  }
}

// The tensor cores' depth a step (16 or 32) and the blocks a multiprocessor
// the kernel's registers are budgeted for (0: no bound): bench/cuda's sweep
// builds them otherwise to measure them.
#if !defined(ONNXC_CUDA_MMA_DEPTH)
#define ONNXC_CUDA_MMA_DEPTH 32
#endif
#if !defined(ONNXC_CUDA_MMA_MIN_BLOCKS)
#define ONNXC_CUDA_MMA_MIN_BLOCKS 0
#endif
#if ONNXC_CUDA_MMA_MIN_BLOCKS
#define ONNXC_CUDA_MMA_BOUNDS(threads)                                                          \
  __launch_bounds__(threads, ONNXC_CUDA_MMA_MIN_BLOCKS * 128 / (threads))
#else
#define ONNXC_CUDA_MMA_BOUNDS(threads) __launch_bounds__(threads)
#endif

/// Tensor cores (Tf32, Fp16, Bf16; mma.cuh): WM x WN warps, each a 32 x 32
/// block of the tile as 2 x 4 m16n8 products per step of the instruction's
/// depth. Staged as the arithmetic's operands in 32-bit words of depth: A
/// by rows (m), B by columns (n), kRow words a row, kRow = 4 (mod 8) so
/// that a warp's fragment loads (row g, word t) hit 32 distinct banks, and
/// B's runs of depth (b_depth) are stored as 16-byte vectors, 8 lanes a
/// phase on distinct banks. The finished tile goes through shared memory
/// (the staging buffers', free by then) to the problem's epilogue,
/// consecutive threads on consecutive columns: stored in whole rows.
template <typename Problem, typename T, typename Math, int WM, int WN>
__global__ void ONNXC_CUDA_MMA_BOUNDS(T::kThreads) tiled_gemm_mma(Problem p, SplitK sk) {
  using Op = Mma<Math>;
  using E = typename Op::Element;
  constexpr int kPerWord = int(4 / sizeof(E));
  constexpr int kWords = T::kK / kPerWord, kRow = kWords + 4;
  constexpr int kRun = T::kK * T::kN / T::kThreads; // B's depths a thread stages
  static_assert(WM * WN * 32 == T::kThreads && WM * 32 == T::kM && WN * 32 == T::kN,
                "a warp per 32 x 32 block");
  static_assert(kWords % 8 == 0 && kRun % kPerWord == 0, "whole steps and words");
  constexpr int kLdc = T::kN + 4;
  constexpr int kStaged = (T::kM + T::kN) * kRow, kTile = T::kM * kLdc;
  __shared__ __align__(16) uint32_t smem[kStaged > kTile ? kStaged : kTile];
  uint32_t *const as = smem;               // (m, word of depth)
  uint32_t *const bs = smem + T::kM * kRow; // (n, word of depth)
  float *const cs = reinterpret_cast<float *>(smem); // the finished tile
  __shared__ typename Problem::KStep steps[2][T::kK];
  const MmaBlock<T, Problem, WN> mb(p, sk);
  const KRange &r = mb.r;
  const typename Problem::Block &blk = mb.blk;
  const int m0 = mb.m0, n0 = mb.n0, tid = threadIdx.x, g = mb.g, t4 = mb.t4, wm = mb.wm,
            wn = mb.wn;
  const OwnColumn<T, Problem> &own = mb.own;
  float acc[2][4][4] = {};
  TileRegs<T> regs; // as in tiled_gemm
  fill_steps<T>(p, steps[0], r.begin, r.end);
  __syncthreads();
  load_tiles<T, true>(regs, p, blk, own.col, own.in, steps[0], m0, r.begin, r.end);
  for (int k0 = r.begin, tile = 0; k0 < r.end; k0 += T::kK, ++tile) {
    E *const ae = reinterpret_cast<E *>(as);
#pragma unroll
    for (int t = 0; t < int(sizeof regs.a / sizeof(float)); ++t) {
      const int e = tid + t * T::kThreads;
      ae[(e / T::kK) * kRow * kPerWord + e % T::kK] = Op::element(regs.a[t]);
    }
    {
      constexpr int kRunWords = kRun / kPerWord;
      __align__(16) uint32_t run[kRunWords];
#pragma unroll
      for (int w = 0; w < kRunWords; ++w)
        run[w] = Op::word(&regs.b[w * kPerWord]);
      uint32_t *const to = bs + (tid % T::kN) * kRow + b_depth<T, true>(tid, 0) / kPerWord;
      if (kRunWords % 4 == 0) {
#pragma unroll
        for (int v = 0; v < kRunWords / 4; ++v)
          reinterpret_cast<Words4 *>(to)[v] = reinterpret_cast<const Words4 *>(run)[v];
      } else {
#pragma unroll
        for (int w = 0; w < kRunWords; ++w)
          to[w] = run[w];
      }
    }
    fill_steps<T>(p, steps[(tile + 1) & 1], k0 + T::kK, r.end);
    __syncthreads();
    if (k0 + T::kK < r.end)
      load_tiles<T, true>(regs, p, blk, own.col, own.in, steps[(tile + 1) & 1], m0, k0 + T::kK,
                          r.end);
#pragma unroll
    for (int w0 = 0; w0 < kWords; w0 += 8) {
      uint32_t a[2][4], b[4][2];
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const uint32_t *row = as + (wm * 32 + i * 16 + g) * kRow + w0 + t4;
        a[i][0] = row[0];
        a[i][1] = row[8 * kRow];
        a[i][2] = row[4];
        a[i][3] = row[8 * kRow + 4];
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const uint32_t *col = bs + (wn * 32 + j * 8 + g) * kRow + w0 + t4;
        b[j][0] = col[0];
        b[j][1] = col[4];
      }
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          Op::mma(acc[i][j], a[i], b[j]);
    }
    __syncthreads(); // (also: the staging buffers are free for cs)
  }
  finish_mma_tile<T>(p, sk, r, cs, acc, m0, n0, wm, wn);
}

/// Floats a row of a staged float tile whose fragment loads hit distinct
/// banks: `columns` padded to `want` (mod 32).
constexpr int padded_row(int columns, int want) {
  return columns + ((want - columns) % 32 + 32) % 32;
}

/// tiled_gemm_async's shared memory: rows of A (kLda floats) and depth
/// rows of B (kLdb), kStage floats a stage, as many stages (up to 4) as
/// fit 46 KiB of static shared memory beside the k_step tables.
template <typename T, typename Math> struct AsyncLayout {
  static constexpr int kPerWord = int(4 / sizeof(typename Mma<Math>::Element));
  static constexpr int kLda = padded_row(T::kK, kPerWord == 1 ? 4 : 8);
  static constexpr int kLdb = padded_row(T::kN, kPerWord == 1 ? 8 : 4);
  static constexpr int kStage = T::kM * kLda + T::kK * kLdb;
  static constexpr int kStages = 46 * 1024 / (4 * kStage) < 4 ? 46 * 1024 / (4 * kStage) : 4;
};

/// Tensor cores, pipelined (Tiles::Pipelined): the tiles copied from
/// global to shared memory by cp.async, kStages - 1 of them in flight while
/// one is multiplied, with no registers holding them: the register-staged
/// kernel above waits out each tile's loads (Nsight Compute: one
/// instruction issued every 1.9 cycles per scheduler, ResNet-18 at batch
/// 32). The tiles stay float in shared memory, A by rows (m), B by depth
/// rows (k), as the copies write them; each fragment word is converted as
/// it is loaded (TF32 one float, FP16/BF16 two of adjacent depth). Rows
/// are padded so that those loads hit distinct banks: A's to 4 (mod 32)
/// for TF32's single floats, 8 for 16-bit's float pairs; B's to 8 for
/// TF32, 4 for 16-bit (two depth rows a word). WM x WN warps of 32 x 32
/// outputs as in tiled_gemm_mma, the same epilogue through shared memory.
template <typename Problem, typename T, typename Math, int WM, int WN>
__global__ void ONNXC_CUDA_MMA_BOUNDS(T::kThreads) tiled_gemm_async(Problem p, SplitK sk) {
  using Op = Mma<Math>;
  using L = AsyncLayout<T, Math>;
  constexpr int kPerWord = L::kPerWord, kLda = L::kLda, kLdb = L::kLdb, kStage = L::kStage;
  constexpr int kStages = L::kStages, kWords = T::kK / kPerWord;
  static_assert(WM * WN * 32 == T::kThreads && WM * 32 == T::kM && WN * 32 == T::kN,
                "a warp per 32 x 32 block");
  static_assert(kWords % 8 == 0 && kStages >= 2, "whole steps, a tile in flight");
  constexpr int kLdc = T::kN + 4, kTile = T::kM * kLdc;
  __shared__ __align__(16) float smem[kStages * kStage > kTile ? kStages * kStage : kTile];
  __shared__ typename Problem::KStep steps[kStages][T::kK];
  const MmaBlock<T, Problem, WN> mb(p, sk);
  const KRange &r = mb.r;
  const typename Problem::Block &blk = mb.blk;
  const int m0 = mb.m0, n0 = mb.n0, tid = threadIdx.x, g = mb.g, t4 = mb.t4, wm = mb.wm,
            wn = mb.wn;
  const OwnColumn<T, Problem> &own = mb.own;
  const float *const a_safe = blk.a_at(0, 0); // (where a zero-filled copy points)
  const int tiles = (r.end - r.begin + T::kK - 1) / T::kK;
  // Tile j into stage j % kStages; its k_step table is filled before the
  // barrier preceding this call.
  auto issue = [&](int j) {
    const int k0 = r.begin + j * T::kK;
    float *const as = smem + (j % kStages) * kStage, *const bs = as + T::kM * kLda;
    const typename Problem::KStep *const st = steps[j % kStages];
#pragma unroll
    for (int t = 0; t < T::kM * T::kK / T::kThreads; ++t) {
      const int e = tid + t * T::kThreads, mm = e / T::kK, kk = e % T::kK;
      const bool in = m0 + mm < p.m && k0 + kk < r.end;
      copy_async(as + mm * kLda + kk, in ? blk.a_at(m0 + mm, k0 + kk) : a_safe, in);
    }
#pragma unroll
    for (int t = 0; t < T::kK * T::kN / T::kThreads; ++t) {
      const int kk = b_depth<T, false>(tid, t);
      bool inside = false;
      const bool in = own.in && k0 + kk < r.end;
      const float *src = in ? blk.b_at(own.col, st[kk], inside) : a_safe;
      copy_async(bs + kk * kLdb + tid % T::kN, inside ? src : a_safe, in && inside);
    }
  };
  float acc[2][4][4] = {};
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s)
    fill_steps<T>(p, steps[s], r.begin + s * T::kK, r.end);
  __syncthreads();
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < tiles)
      issue(s);
    copy_commit(); // (every step commits a group, empty or not: uniform counts)
  }
  for (int tile = 0; tile < tiles; ++tile) {
    copy_wait<kStages - 2>(); // this thread's copies of `tile` have landed
    const int next = tile + kStages - 1;
    fill_steps<T>(p, steps[next % kStages], r.begin + next * T::kK, r.end);
    // Everyone's copies of `tile` are visible, the next table is filled and
    // every warp is done with the stage `next` reuses.
    __syncthreads();
    if (next < tiles)
      issue(next);
    copy_commit();
    const float *const as = smem + (tile % kStages) * kStage, *const bs = as + T::kM * kLda;
#pragma unroll
    for (int w0 = 0; w0 < kWords; w0 += 8) {
      uint32_t a[2][4], b[4][2];
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const float *row = as + (wm * 32 + i * 16 + g) * kLda + (w0 + t4) * kPerWord;
        a[i][0] = Op::word(row);
        a[i][1] = Op::word(row + 8 * kLda);
        a[i][2] = Op::word(row + 4 * kPerWord);
        a[i][3] = Op::word(row + 8 * kLda + 4 * kPerWord);
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float *col = bs + (w0 + t4) * kPerWord * kLdb + wn * 32 + j * 8 + g;
#pragma unroll
        for (int h = 0; h < 2; ++h) { // words t and t + 4
          const float *at = col + h * 4 * kPerWord * kLdb;
          const float pair[2] = {at[0], at[kPerWord == 2 ? kLdb : 0]};
          b[j][h] = Op::word(pair);
        }
      }
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          Op::mma(acc[i][j], a[i], b[j]);
    }
  }
  copy_wait<0>();
  __syncthreads(); // (the stages are free for cs)
  float *const cs = smem;
  finish_mma_tile<T>(p, sk, r, cs, acc, m0, n0, wm, wn);
}

/// Each arithmetic's kernels, per Tiles value: the tile, and the launch.
/// Float: TileKernel<Fp32, ...>; the tensor cores 32 deep (a Tf32 row is
/// 32 words, a 16-bit one 16).
template <typename Math, Tiles> struct TileKernel;
template <> struct TileKernel<Fp32, Tiles::Small> {
  using T = Tile<64, 64, 16, 256>;
  template <typename P> static constexpr auto kernel() { return tiled_gemm<P, T, 4, 4>; }
};
template <> struct TileKernel<Fp32, Tiles::Tall> {
  using T = Tile<64, 64, 16, 128>;
  template <typename P> static constexpr auto kernel() { return tiled_gemm<P, T, 8, 4>; }
};
template <typename Math, Tiles kTiles> struct TileKernel {
  static constexpr bool kTall = kTiles == Tiles::Tall;
  using T = Tile<kTall ? 128 : 64, 64, ONNXC_CUDA_MMA_DEPTH, kTall ? 256 : 128>;
  template <typename P> static constexpr auto kernel() {
    return tiled_gemm_mma<P, T, Math, kTall ? 4 : 2, 2>;
  }
};
#if !defined(ONNXC_CUDA_ASYNC_DEPTH) // (32: 2 stages; 16: 3)
#define ONNXC_CUDA_ASYNC_DEPTH 32
#endif
template <typename Math> struct TileKernel<Math, Tiles::Pipelined> {
  using T = Tile<64, 64, ONNXC_CUDA_ASYNC_DEPTH, 128>;
  template <typename P> static constexpr auto kernel() {
    return tiled_gemm_async<P, T, Math, 2, 2>;
  }
};

/// The tiles of a problem (measured on an H200: bench/results/cuda-h200.md,
/// "Tile shapes"). In float, Tall for Gemm and MatMul (4 to 7 % faster on
/// the transformer encoder), Small for convolutions, whose gathered im2col
/// columns want more threads staging (Tall 1 to 6 % slower on ResNet-18).
/// 128 x 64 and 128 x 128 tiles of 8 x 8 float sums measured slower still
/// (ResNet-18 at batch 32: 7944 and 8956 us against 5734): 139 registers a
/// thread leave one block per multiprocessor. On the tensor cores
/// (kMmaTiles), Gemm and MatMul take Tall: 128 x 64 on 8 warps measured 4
/// to 5 % faster than 64 x 64 on 4 (the transformer encoder at batch 32,
/// fp16 1046 against 1093 us) and than the pipelined kernel (1133);
/// convolutions take Pipelined, 32 deep in 2 stages: ResNet-18 at batch 32
/// 3566 us in fp16 and 3810 in tf32 against Tall's 3672 and 4285 (16 deep
/// in 3 stages 3818 and 4093).
/// ONNXC_CUDA_GEMM_TILES, when defined and not 0 (a Tiles value), forces
/// one: the benchmark's and the tests' comparisons.
template <typename Math, typename Problem> inline Tiles choose_tiles() {
#if defined(ONNXC_CUDA_GEMM_TILES)
  if (int(ONNXC_CUDA_GEMM_TILES) != 0)
    return Tiles(ONNXC_CUDA_GEMM_TILES);
#endif
  return std::is_same<Math, Fp32>::value ? Problem::kFloatTiles : Problem::kMmaTiles;
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

/// Pipelined for the tensor cores; float has no pipelined kernel (its
/// launch falls back to Small).
template <typename Math> struct PipelinedIfMma {
  static constexpr Tiles kTiles = Tiles::Pipelined;
};
template <> struct PipelinedIfMma<Fp32> {
  static constexpr Tiles kTiles = Tiles::Small;
};

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
  const Tiles tiles = choose_tiles<Math, Problem>();
  if (tiles == Tiles::Tall)
    launch_tiles<Math, Tiles::Tall>(stream, p, sk, splits);
  else if (tiles == Tiles::Pipelined && !std::is_same<Math, Fp32>::value)
    launch_tiles<Math, PipelinedIfMma<Math>::kTiles>(stream, p, sk, splits);
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
  // (choose_tiles)
  static constexpr Tiles kFloatTiles = Tiles::Tall, kMmaTiles = Tiles::Tall;
  struct Block {
    const float *A, *B;
    int m, n, k;
    bool trans_a, trans_b;
    __device__ Column column(int j) const { return Column{j}; }
    __device__ const float *a_at(int i, int p) const {
      return trans_a ? A + int64_t(p) * m + i : A + int64_t(i) * k + p;
    }
    __device__ const float *b_at(const Column &c, const KStep &s, bool &inside) const {
      inside = true;
      return trans_b ? B + int64_t(c.n) * k + s.k : B + int64_t(s.k) * n + c.n;
    }
    __device__ float a(int i, int p) const { return *a_at(i, p); }
    __device__ float b(const Column &c, const KStep &s) const {
      bool inside;
      return *b_at(c, s, inside);
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

/// Where batch entry `batch` of a broadcast MatMul starts in an operand
/// with `strides` (0 along a broadcast dim).
__device__ inline int64_t broadcast_offset(int64_t batch, int batch_rank, const Dims &shape,
                                           const Dims &strides) {
  int64_t off = 0;
  for (int d = batch_rank - 1; d >= 0; --d) {
    off += (batch % shape.v[d]) * strides.v[d];
    batch /= shape.v[d];
  }
  return off;
}

/// MatMul: Y[b] = A[b] B[b], batch entries placed by broadcast strides.
struct MatMulProblem {
  const float *A, *B;
  float *Y;
  int m, n, k;
  int batch_rank;
  Dims batch_shape, a_strides, b_strides;
  using KStep = DepthIndex;
  using Column = ColumnIndex;
  // (choose_tiles)
  static constexpr Tiles kFloatTiles = Tiles::Tall, kMmaTiles = Tiles::Tall;
  struct Block {
    const float *A, *B; // this batch entry's matrices
    int n, k;
    __device__ Column column(int j) const { return Column{j}; }
    __device__ const float *a_at(int i, int p) const { return A + int64_t(i) * k + p; }
    __device__ const float *b_at(const Column &c, const KStep &s, bool &inside) const {
      inside = true;
      return B + int64_t(s.k) * n + c.n;
    }
    __device__ float a(int i, int p) const { return *a_at(i, p); }
    __device__ float b(const Column &c, const KStep &s) const {
      bool inside;
      return *b_at(c, s, inside);
    }
  };
  __device__ Block block(int64_t batch) const {
    return Block{A + broadcast_offset(batch, batch_rank, batch_shape, a_strides),
                 B + broadcast_offset(batch, batch_rank, batch_shape, b_strides), n, k};
  }
  __device__ KStep k_step(int p) const { return KStep{p}; }
  __device__ void store(int64_t batch, int i, int j, float acc) const {
    Y[(batch * m + i) * int64_t(n) + j] = acc;
  }
};

/// Gemm and MatMul in double: one output a thread, its sum over the depth
/// in order, in double (the tiles above compute in float).
template <typename Act>
__global__ void gemm_f64(const double *a, const double *b, const double *c, double *y,
                         int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b,
                         double alpha, double beta, int64_t c_stride_m, int64_t c_stride_n,
                         float act_alpha, float act_beta) {
  ONNXC_CUDA_FOR(idx, m * n) {
    const int64_t i = idx / n, j = idx % n;
    double acc = 0;
    for (int64_t p = 0; p < k; ++p)
      acc = fma_of(trans_a ? a[p * m + i] : a[i * k + p], trans_b ? b[j * k + p] : b[p * n + j],
                   acc);
    double v = alpha * acc;
    if (c)
      v += beta * c[i * c_stride_m + j * c_stride_n];
    y[idx] = Act::apply(v, act_alpha, act_beta);
  }
}

template <typename T> // double
__global__ void matmul_f64(const T *a, const T *b, T *y, int64_t m, int64_t k, int64_t n,
                           int batch_rank, Dims batch_shape, Dims a_strides, Dims b_strides,
                           int64_t total) {
  ONNXC_CUDA_FOR(idx, total) {
    const int64_t j = idx % n, i = idx / n % m, batch = idx / n / m;
    const T *ap = a + broadcast_offset(batch, batch_rank, batch_shape, a_strides) + i * k;
    const T *bp = b + broadcast_offset(batch, batch_rank, batch_shape, b_strides) + j;
    T acc = 0;
    for (int64_t p = 0; p < k; ++p)
      acc = fma_of(ap[p], bp[p * n], acc);
    y[idx] = acc;
  }
}

} // namespace detail

/// Gemm with the fused op's activation in the epilogue (Identity for Gemm).
/// splits, partial: split-K (1 and null: none), chosen at compile time.
template <typename Act, typename T, typename Math = Fp32>
void gemm(Stream *stream, const T *a, const T *b, const T *c, T *y, int64_t m, int64_t n,
          int64_t k, int64_t trans_a, int64_t trans_b, float alpha, float beta,
          int64_t c_stride_m, int64_t c_stride_n, float act_alpha, float act_beta,
          int64_t splits = 1, float *partial = nullptr) {
  if constexpr (sizeof(T) == sizeof(double)) {
    (void)splits; // (the tiles' split-K)
    (void)partial;
    launch_over(m * n, detail::gemm_f64<Act>, stream, a, b, c, y, m, n, k, trans_a != 0,
                trans_b != 0, double(alpha), double(beta), c_stride_m, c_stride_n, act_alpha,
                act_beta);
  } else {
    static_assert(sizeof(T) == sizeof(float), "the CUDA Gemm computes in float or double");
    detail::GemmProblem<Act> p{a, b, c, y, int(m), int(n), int(k), trans_a != 0, trans_b != 0,
                               alpha, beta, c_stride_m, c_stride_n, act_alpha, act_beta};
    detail::launch_tiled_gemm<Math>(stream, p, 1, splits, partial);
  }
}

template <typename T, typename Math = Fp32>
void matmul(Stream *stream, const T *a, const T *b, T *y, int64_t m, int64_t k, int64_t n,
            int64_t batch_rank, const int64_t *batch_shape, const int64_t *a_strides,
            const int64_t *b_strides, int64_t splits = 1, float *partial = nullptr) {
  const int64_t batches = product(batch_shape, batch_rank);
  if constexpr (sizeof(T) == sizeof(double)) {
    (void)splits; // (the tiles' split-K)
    (void)partial;
    const int64_t total = batches * m * n;
    launch_over(total, detail::matmul_f64<T>, stream, a, b, y, m, k, n, int(batch_rank),
                dims_of(batch_shape, batch_rank), dims_of(a_strides, batch_rank),
                dims_of(b_strides, batch_rank), total);
  } else {
    static_assert(sizeof(T) == sizeof(float), "the CUDA MatMul computes in float or double");
    detail::MatMulProblem p{a, b, y, int(m), int(n), int(k), int(batch_rank),
                            dims_of(batch_shape, batch_rank), dims_of(a_strides, batch_rank),
                            dims_of(b_strides, batch_rank)};
    detail::launch_tiled_gemm<Math>(stream, p, batches, splits, partial);
  }
}

} // namespace cuda
} // namespace onnxc_rt

#endif
