// A CPU emulation of the parts of CUDA's programming model that
// runtime-lite's CUDA kernels use, so the kernel tests can run them on a
// machine without a GPU (included before any kernels/cuda header; defines
// ONNXC_CUDA_EMULATED, which makes common.cuh's launch() call
// emulated_launch instead of <<<...>>>).
//
// A launch runs the blocks one after another; a block's blockDim.x threads
// are fibers on the launching host thread, each running the
// kernel until it waits at a barrier, then the next, in thread order:
// __syncthreads() is a barrier of the block, __shared__ arrays are the
// kernel's function-local statics (one block uses them at a time: every
// thread passes a barrier before the next block starts), and a warp's
// __shfl_xor_sync exchanges through a slot per lane between two barriers of
// its 32 threads, as mma.sync's operands do (below; kernels/cuda/mma.cuh
// copies cp.async's bytes at once when emulated). Fibers, not host threads:
// a barrier of 32-256 host threads on a 2-core machine cost the scheduler's
// time many times over the kernels' (77 s of system time against 12 s of
// user time for the transformer at --precision tf32); the interleaving is
// the same at every run, and a barrier some threads never reach stops the
// run with a message instead of hanging.
//
// The runtime API calls of session.cuh are emulated too (device memory is
// host memory; a captured stream records its work, a graph replays it), so
// a generated NAME.cu runs whole on the CPU (test/e2e/check_cuda_emulated.py).
//
// What this checks: each kernel's indexing, tiling, bounds, epilogues and
// reductions, the barriers inside a block (a thread reading, before a
// barrier, what a later thread writes sees the old value), and the
// schedule's arguments, arena offsets and weights. What it cannot: timing, the GPU's
// memory model, launch limits, the real runtime's behaviour. It is a test
// tool, not part of runtime-lite (it switches stacks and uses the heap).
#ifndef ONNXC_TEST_CUDA_EMULATION_H
#define ONNXC_TEST_CUDA_EMULATION_H

#define ONNXC_CUDA_EMULATED 1

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

#include <math.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "onnxc_rt/types.h"

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
inline cudaError_t cudaMallocHost(void **p, size_t n) { return cudaMalloc(p, n); }
inline cudaError_t cudaFreeHost(void *p) { return cudaFree(p); }
using cudaHostFn_t = void (*)(void *);
inline cudaError_t cudaLaunchHostFunc(CUstream_st *stream, cudaHostFn_t fn, void *data) {
  cuda_emulation::enqueue(stream, [=] { fn(data); });
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

/// A fiber's saved registers. On x86-64 a stack pointer, switched by
/// switch_context below: glibc's swapcontext also saves and restores the
/// signal mask, two system calls a switch (22 of the CUDA kernel test's 57
/// seconds); elsewhere ucontext.
#if defined(__x86_64__)
struct Context {
  void *sp = nullptr;
};
/// Saves the callee-saved registers on the running stack and its pointer
/// in *from, then resumes the stack `to` saved (the System V ABI: rbx, rbp,
/// r12-r15; the kernels leave MXCSR and the x87 control word alone).
__attribute__((naked, noinline)) inline void switch_stack(void ** /*from*/, void * /*to*/) {
  __asm__("pushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\t"
          "pushq %r15\n\tmovq %rsp, (%rdi)\n\tmovq %rsi, %rsp\n\tpopq %r15\n\t"
          "popq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n\tret");
}
inline void switch_context(Context &from, Context &to) { switch_stack(&from.sp, to.sp); }
/// A context whose first resumption enters `entry` (which never returns)
/// on `stack`: six zero registers, then entry as the return address, above
/// it a null one, so that entry starts as if called (rsp = 8 mod 16).
inline void make_context(Context &c, char *stack, size_t bytes, void (*entry)()) {
  uintptr_t top = (uintptr_t(stack) + bytes) & ~uintptr_t(15);
  void **sp = reinterpret_cast<void **>(top);
  *--sp = nullptr;
  *--sp = reinterpret_cast<void *>(entry);
  for (int r = 0; r < 6; ++r)
    *--sp = nullptr;
  c.sp = sp;
}
#else
struct Context {
  ucontext_t uc;
};
inline void switch_context(Context &from, Context &to) { swapcontext(&from.uc, &to.uc); }
/// (Its own function: getcontext returns twice, and no caller's variable
/// must live across it.)
__attribute__((noinline)) inline void make_context(Context &c, char *stack, size_t bytes,
                                                   void (*entry)()) {
  getcontext(&c.uc);
  c.uc.uc_stack.ss_sp = stack;
  c.uc.uc_stack.ss_size = bytes;
  c.uc.uc_link = nullptr;
  makecontext(&c.uc, entry, 0);
}
#endif

struct ThreadState;

/// The fibers of the block running on this host thread.
struct Scheduler {
  Context main;
  ThreadState *current = nullptr;
  std::function<void()> kernel;  // the launch's kernel and arguments
  unsigned long progress = 0;    // barrier arrivals and finished threads
};
inline thread_local Scheduler *active = nullptr;

struct ThreadState {
  dim3 thread_idx, block_idx, block_dim, grid_dim;
  struct Block *block = nullptr;
  Context context;
  bool done = false;
};

inline ThreadState &self() { return *active->current; }

/// Back to the scheduler, which resumes the next thread.
inline void yield() {
  Scheduler *s = active;
  switch_context(s->current->context, s->main);
}

struct Barrier {
  explicit Barrier(unsigned count) : n(count) {}
  unsigned n, arrived = 0;
  unsigned long generation = 0;
  void wait() {
    ++active->progress;
    const unsigned long g = generation;
    if (++arrived == n) {
      arrived = 0;
      ++generation;
      return;
    }
    while (generation == g)
      yield();
  }
};

struct Warp {
  Barrier barrier{32};
  unsigned char slot[32][8];
  uint32_t fragments[32][6]; // mma_m16n8's A and B operands, per lane
};

struct Block {
  explicit Block(unsigned threads) : barrier(threads), warps(threads / 32) {}
  Barrier barrier;
  std::vector<Warp> warps;
};

/// The fibers' stacks, kept for the next launch on this host thread.
inline char *fiber_stack(unsigned t, size_t bytes) {
  static thread_local std::vector<std::unique_ptr<char[]>> stacks;
  while (stacks.size() <= t)
    stacks.emplace_back(new char[bytes]);
  return stacks[t].get();
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

// Atomics: a launch's threads are fibers of one host thread that switch
// only at barriers, so a read-modify-write is never interleaved.
inline int atomicMax(int *address, int value) {
  const int old = *address;
  if (value > old)
    *address = value;
  return old;
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

//===-- mma.sync (tensor cores) ---------------------------------------------===//
// The operand conversions and the warp-collective m16n8 product of
// kernels/cuda/mma.cuh. Every lane posts its A and B registers; each lane
// then rebuilds the whole 16 x K and K x 8 operands from the PTX ISA's
// fragment layouts, written here per element (mma.cuh writes them per
// 32-bit word), and computes its own four sums: products exact in float
// (the inputs have at most 11 significant bits), added in depth order.
namespace cuda_emulation {
/// cvt.rna.tf32.f32: to 10 mantissa bits, to nearest, ties away from zero.
inline uint32_t tf32_bits(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  if ((u & 0x7f800000u) != 0x7f800000u) // not inf or NaN
    u = (u + 0x1000u) & 0xffffe000u;
  return u;
}
/// cvt.rn.f16.f32: IEEE half, to nearest even.
inline uint16_t fp16_bits(float v) { return onnxc_rt::detail::half_from_double(double(v)); }

enum class MmaInput { tf32, fp16, bf16 };

/// The value of one operand element: a TF32 word, or the low (half 0) or
/// high (half 1) 16 bits of a word.
inline float mma_value(MmaInput in, uint32_t word, int half) {
  if (in == MmaInput::tf32) {
    float f;
    std::memcpy(&f, &word, 4);
    return f;
  }
  const uint16_t bits = uint16_t(half ? word >> 16 : word & 0xffffu);
  if (in == MmaInput::fp16)
    return onnxc_rt::detail::half_to_float(bits);
  return onnxc_rt::detail::float_from_bits(uint32_t(bits) << 16);
}

/// d += A B, mma.sync.aligned.m16n8k8 (tf32) or m16n8k16 (fp16, bf16),
/// .row.col, float sums.
inline void mma_m16n8(MmaInput in, float d[4], const uint32_t a[4], const uint32_t b[2]) {
  ThreadState &s = self();
  Warp &w = s.block->warps[s.thread_idx.x / 32];
  const int lane = int(s.thread_idx.x % 32);
  std::memcpy(w.fragments[lane], a, 16);
  std::memcpy(w.fragments[lane] + 4, b, 8);
  w.barrier.wait();
  const int depth = in == MmaInput::tf32 ? 8 : 16;
  float A[16][16], B[16][8];
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    const uint32_t *f = w.fragments[l];
    if (in == MmaInput::tf32) {
      A[g][t] = mma_value(in, f[0], 0);
      A[g + 8][t] = mma_value(in, f[1], 0);
      A[g][t + 4] = mma_value(in, f[2], 0);
      A[g + 8][t + 4] = mma_value(in, f[3], 0);
      B[t][g] = mma_value(in, f[4], 0);
      B[t + 4][g] = mma_value(in, f[5], 0);
      continue;
    }
    for (int h = 0; h < 2; ++h) { // a0..a7, b0..b3 of the PTX ISA's figures
      A[g][2 * t + h] = mma_value(in, f[0], h);
      A[g + 8][2 * t + h] = mma_value(in, f[1], h);
      A[g][2 * t + 8 + h] = mma_value(in, f[2], h);
      A[g + 8][2 * t + 8 + h] = mma_value(in, f[3], h);
      B[2 * t + h][g] = mma_value(in, f[4], h);
      B[2 * t + 8 + h][g] = mma_value(in, f[5], h);
    }
  }
  w.barrier.wait(); // nobody posts the next product before every lane has read
  const int g = lane / 4, t = lane % 4;
  for (int v = 0; v < 4; ++v) {
    const int row = g + (v / 2) * 8, col = 2 * t + v % 2;
    float sum = d[v];
    for (int k = 0; k < depth; ++k)
      sum += A[row][k] * B[k][col];
    d[v] = sum;
  }
}
} // namespace cuda_emulation

namespace cuda_emulation {
/// A fiber's life: the kernel for every block of the grid, in order.
inline void run_blocks() {
  ThreadState &s = self();
  for (unsigned z = 0; z < s.grid_dim.z; ++z)
    for (unsigned y = 0; y < s.grid_dim.y; ++y)
      for (unsigned x = 0; x < s.grid_dim.x; ++x) {
        s.block_idx = dim3(x, y, z);
        active->kernel();
        s.block->barrier.wait(); // the block's statics are free again
      }
  s.done = true;
  ++active->progress;
  yield(); // for good: the scheduler resumes no finished thread
}

/// Runs `kernel` (the launch's kernel and arguments) over the grid: blocks
/// in order, each block's threads as fibers, resumed in thread order until
/// all have finished.
inline void run_grid(std::function<void()> kernel, dim3 grid, unsigned n) {
  constexpr size_t kStackBytes = 256 * 1024;
  Block block(n);
  std::vector<ThreadState> threads(n);
  Scheduler scheduler;
  scheduler.kernel = std::move(kernel);
  Scheduler *const outer = active;
  active = &scheduler;
  for (unsigned t = 0; t < n; ++t) {
    ThreadState &s = threads[t];
    s.thread_idx = dim3(t);
    s.block_dim = dim3(n);
    s.grid_dim = grid;
    s.block = &block;
    make_context(s.context, fiber_stack(t, kStackBytes), kStackBytes, &run_blocks);
  }
  for (unsigned live = n; live;) {
    const unsigned long before = scheduler.progress;
    for (ThreadState &s : threads) {
      if (s.done)
        continue;
      scheduler.current = &s;
      switch_context(scheduler.main, s.context);
      live -= s.done;
    }
    if (live && scheduler.progress == before) {
      std::fprintf(stderr, "cuda emulation: a barrier that some of the block's %u threads never "
                           "reach (they returned, or wait at another)\n", n);
      std::abort();
    }
  }
  active = outer;
}
} // namespace cuda_emulation

/// Runs `kernel` over the grid (1-D blocks, a multiple of 32 threads, as
/// the kernels launch).
template <typename... Params>
void emulated_run(void (*kernel)(Params...), dim3 grid, dim3 threads_per_block,
                  Params... args) {
  cuda_emulation::run_grid([&] { kernel(args...); }, grid, threads_per_block.x);
}

/// A launch on `stream`: now, or recorded while the stream is captured.
template <typename... Params>
void emulated_launch(CUstream_st *stream, void (*kernel)(Params...), dim3 grid,
                     dim3 threads_per_block, Params... args) {
  cuda_emulation::enqueue(stream, [=] { emulated_run(kernel, grid, threads_per_block, args...); });
}

#endif
