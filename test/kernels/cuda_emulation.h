// A CPU emulation of the parts of CUDA's programming model that
// runtime-lite's CUDA kernels use, so the kernel tests can run them on a
// machine without a GPU (included before any kernels/cuda header; defines
// ONNXC_CUDA_EMULATED, which makes common.cuh's launch() call
// emulated_launch instead of <<<...>>>).
//
// A launch runs the blocks one after another; a block's blockDim.x threads
// are host threads running the kernel at once, so __syncthreads() is a
// barrier of the block, __shared__ arrays are the kernel's function-local
// statics (one block uses them at a time: every thread passes a barrier
// before the next block starts), and a warp's __shfl_xor_sync exchanges
// through a slot per lane between two barriers of its 32 threads.
//
// The runtime API calls of session.cuh are emulated too (device memory is
// host memory; a captured stream records its work, a graph replays it), so
// a generated NAME.cu runs whole on the CPU (test/e2e/check_cuda_emulated.py).
//
// What this checks: each kernel's indexing, tiling, bounds, epilogues and
// reductions, with real concurrency inside a block, and the schedule's
// arguments, arena offsets and weights. What it cannot: timing, the GPU's
// memory model, launch limits, the real runtime's behaviour. It is a test
// tool, not part of runtime-lite (it uses threads and the heap).
#ifndef ONNXC_TEST_CUDA_EMULATION_H
#define ONNXC_TEST_CUDA_EMULATION_H

#define ONNXC_CUDA_EMULATED 1

#include <pthread.h>

#include <math.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __launch_bounds__(n)
#define __align__(n) __attribute__((aligned(n)))

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

//===-- The runtime API session.cuh calls ---------------------------------===//
// One device (this CPU; device memory is host memory). A stream runs work
// at once, or, while captured, records it; a graph replays the record. The
// null stream runs at once.
struct CUstream_st {
  std::vector<std::function<void()>> *capture = nullptr;
};
struct CUgraph_st {
  std::vector<std::function<void()>> work;
};
using cudaStream_t = CUstream_st *;
using cudaGraph_t = CUgraph_st *;
using cudaGraphExec_t = CUgraph_st *;
enum cudaError_t { cudaSuccess = 0 };
enum cudaMemcpyKind {
  cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault
};
enum cudaStreamCaptureMode { cudaStreamCaptureModeThreadLocal };
constexpr unsigned cudaStreamNonBlocking = 1;

namespace cuda_emulation {
/// Runs `work` on `stream` now, or records it while the stream is captured.
inline void enqueue(CUstream_st *stream, std::function<void()> work) {
  if (stream && stream->capture)
    stream->capture->push_back(std::move(work));
  else
    work();
}
} // namespace cuda_emulation

inline cudaError_t cudaGetDeviceCount(int *n) {
  *n = 1;
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline const char *cudaGetErrorString(cudaError_t) { return "no error (emulated)"; }
inline const char *cudaGetErrorName(cudaError_t) { return "cudaSuccess"; }
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned) {
  *s = new CUstream_st;
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
  delete s;
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaMalloc(void **p, size_t n) {
  *p = std::aligned_alloc(256, (n + 255) / 256 * 256);
  return cudaSuccess;
}
template <typename T> cudaError_t cudaMalloc(T **p, size_t n) {
  return cudaMalloc(reinterpret_cast<void **>(p), n);
}
inline cudaError_t cudaFree(void *p) {
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind) {
  std::memmove(dst, src, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind,
                                   CUstream_st *stream) {
  cuda_emulation::enqueue(stream, [=] { std::memmove(dst, src, n); });
  return cudaSuccess;
}
inline cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode) {
  s->capture = new std::vector<std::function<void()>>;
  return cudaSuccess;
}
inline cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g) {
  *g = new CUgraph_st{std::move(*s->capture)};
  delete s->capture;
  s->capture = nullptr;
  return cudaSuccess;
}
inline cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *e, cudaGraph_t g,
                                                 unsigned long long) {
  *e = new CUgraph_st{g->work};
  return cudaSuccess;
}
inline cudaError_t cudaGraphDestroy(cudaGraph_t g) {
  delete g;
  return cudaSuccess;
}
inline cudaError_t cudaGraphExecDestroy(cudaGraphExec_t e) {
  delete e;
  return cudaSuccess;
}
inline cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t) {
  for (const auto &work : e->work)
    work();
  return cudaSuccess;
}

inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }

namespace cuda_emulation {

struct Barrier {
  pthread_barrier_t b;
  explicit Barrier(unsigned n) { pthread_barrier_init(&b, nullptr, n); }
  ~Barrier() { pthread_barrier_destroy(&b); }
  void wait() { pthread_barrier_wait(&b); }
};

struct Warp {
  Barrier barrier{32};
  unsigned char slot[32][8];
};

struct Block {
  explicit Block(unsigned threads) : barrier(threads), warps(threads / 32) {}
  Barrier barrier;
  std::vector<Warp> warps;
};

struct ThreadState {
  dim3 thread_idx, block_idx, block_dim, grid_dim;
  Block *block = nullptr;
};

inline ThreadState &self() {
  static thread_local ThreadState s;
  return s;
}

} // namespace cuda_emulation

#define threadIdx (cuda_emulation::self().thread_idx)
#define blockIdx (cuda_emulation::self().block_idx)
#define blockDim (cuda_emulation::self().block_dim)
#define gridDim (cuda_emulation::self().grid_dim)

inline void __syncthreads() { cuda_emulation::self().block->barrier.wait(); }

inline void __syncwarp(unsigned = 0xffffffffu) {
  cuda_emulation::ThreadState &s = cuda_emulation::self();
  s.block->warps[s.thread_idx.x / 32].barrier.wait();
}

template <typename T> T __shfl_xor_sync(unsigned, T v, int lane_mask) {
  static_assert(sizeof(T) <= 8, "a shuffled value fits a slot");
  cuda_emulation::ThreadState &s = cuda_emulation::self();
  cuda_emulation::Warp &w = s.block->warps[s.thread_idx.x / 32];
  const unsigned lane = s.thread_idx.x % 32;
  std::memcpy(w.slot[lane], &v, sizeof(T));
  w.barrier.wait();
  T got;
  std::memcpy(&got, w.slot[lane ^ unsigned(lane_mask)], sizeof(T));
  w.barrier.wait(); // nobody overwrites a slot before every lane has read
  return got;
}

//===-- WMMA (tensor cores), TF32 ------------------------------------------===//
// A fragment holds its whole tile in every lane (a real one spreads it over
// the warp's registers); the operations are warp-collective, so each lane
// computing the whole tile gives the same results. Code that only touches
// fragments through these calls (as gemm.cuh's does) cannot tell.
namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
namespace precision {
struct tf32 {};
} // namespace precision
enum layout_t { mem_row_major, mem_col_major };

template <typename Use, int M, int N, int K, typename T, typename Layout = void> struct fragment;
template <int M, int N, int K> struct fragment<matrix_a, M, N, K, precision::tf32, row_major> {
  static constexpr int rows = M, cols = K, num_elements = M * K;
  float x[M * K];
};
template <int M, int N, int K> struct fragment<matrix_b, M, N, K, precision::tf32, row_major> {
  static constexpr int rows = K, cols = N, num_elements = K * N;
  float x[K * N];
};
template <int M, int N, int K> struct fragment<accumulator, M, N, K, float, void> {
  static constexpr int rows = M, cols = N, num_elements = M * N;
  float x[M * N];
};

template <typename F> void fill_fragment(F &f, float v) {
  for (float &e : f.x)
    e = v;
}
/// Row-major operands (the only layout gemm.cuh loads).
template <typename F> void load_matrix_sync(F &f, const float *p, unsigned ldm) {
  for (int r = 0; r < F::rows; ++r)
    for (int c = 0; c < F::cols; ++c)
      f.x[r * F::cols + c] = p[r * ldm + c];
}
template <int M, int N, int K>
void mma_sync(fragment<accumulator, M, N, K, float> &d,
              const fragment<matrix_a, M, N, K, precision::tf32, row_major> &a,
              const fragment<matrix_b, M, N, K, precision::tf32, row_major> &b,
              const fragment<accumulator, M, N, K, float> &c) {
  float out[M * N];
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = c.x[i * N + j];
      for (int k = 0; k < K; ++k)
        s = fmaf(a.x[i * K + k], b.x[k * N + j], s);
      out[i * N + j] = s;
    }
  std::memcpy(d.x, out, sizeof out);
}
/// Lane 0 stores (every lane holds the same tile), between two barriers of
/// the warp.
template <int M, int N, int K>
void store_matrix_sync(float *p, const fragment<accumulator, M, N, K, float> &f, unsigned ldm,
                       layout_t) {
  cuda_emulation::ThreadState &s = cuda_emulation::self();
  cuda_emulation::Warp &w = s.block->warps[s.thread_idx.x / 32];
  w.barrier.wait();
  if (s.thread_idx.x % 32 == 0)
    for (int r = 0; r < M; ++r)
      for (int c = 0; c < N; ++c)
        p[r * ldm + c] = f.x[r * N + c];
  w.barrier.wait();
}
/// cvt.rna.tf32.f32: to 10 mantissa bits, to nearest, ties away from zero.
inline float __float_to_tf32(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  if ((u & 0x7f800000u) != 0x7f800000u) // not inf or NaN
    u = (u + 0x1000u) & 0xffffe000u;
  std::memcpy(&v, &u, 4);
  return v;
}
} // namespace wmma
} // namespace nvcuda

/// Runs `kernel` over the grid: blocks in order, each block's threads at
/// once (1-D blocks, a multiple of 32 threads, as the kernels launch).
template <typename... Params>
void emulated_run(void (*kernel)(Params...), dim3 grid, dim3 threads_per_block,
                  Params... args) {
  cuda_emulation::Block block(threads_per_block.x);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < threads_per_block.x; ++t)
    threads.emplace_back([&, t] {
      cuda_emulation::ThreadState &s = cuda_emulation::self();
      s.thread_idx = dim3(t);
      s.block_dim = threads_per_block;
      s.grid_dim = grid;
      s.block = &block;
      for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
          for (unsigned x = 0; x < grid.x; ++x) {
            s.block_idx = dim3(x, y, z);
            kernel(args...);
            block.barrier.wait(); // the block's statics are free again
          }
    });
  for (std::thread &t : threads)
    t.join();
}

/// A launch on `stream`: now, or recorded while the stream is captured.
template <typename... Params>
void emulated_launch(CUstream_st *stream, void (*kernel)(Params...), dim3 grid,
                     dim3 threads_per_block, Params... args) {
  cuda_emulation::enqueue(stream, [=] { emulated_run(kernel, grid, threads_per_block, args...); });
}

#endif
