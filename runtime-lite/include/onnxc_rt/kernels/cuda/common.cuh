// CUDA kernels: what every launcher shares. The launchers in this folder
// take the reference kernels' arguments (kernels/reference/), with the
// stream first: tensors are device pointers (into the device arena, the
// device copy of the weights or the session's input and output buffers);
// shape and stride arrays are the generated code's host constants, which a
// launcher packs into the kernel's parameters by value. A launcher only
// enqueues work: launch errors surface at the end of the schedule
// (cudaGetLastError in session.cuh), never as an abort.
#ifndef ONNXC_RT_CUDA_COMMON_CUH
#define ONNXC_RT_CUDA_COMMON_CUH

// ONNXC_CUDA_EMULATED: compiled by a host compiler against the CPU
// emulation of CUDA's programming model that the kernel tests include
// first (test/kernels/cuda_emulation.h), which runs every launch's threads
// as host threads; everywhere else a CUDA compiler builds this code.
#if !defined(ONNXC_CUDA_EMULATED)
#include <cuda_runtime.h>
#endif

#include "onnxc_rt/base.h"

namespace onnxc_rt {
namespace cuda {

/// What the generated schedule's context parameter points to: a stream.
using Stream = CUstream_st;

/// Up to kMaxRank sizes or strides, passed to a kernel by value.
struct Dims {
  int64_t v[kMaxRank];
};

inline Dims dims_of(const int64_t *p, int64_t n) {
  Dims d{};
  for (int64_t i = 0; i < n && i < kMaxRank; ++i)
    d.v[i] = p[i];
  return d;
}

/// Row-major strides of `shape`.
inline Dims row_major(const int64_t *shape, int64_t rank) {
  Dims s{};
  int64_t step = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    s.v[d] = step;
    step *= shape[d];
  }
  return s;
}

constexpr int kThreads = 256;

/// Blocks of kThreads covering n threads' work (at least one block).
inline unsigned blocks_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return unsigned(b < 1 ? 1 : b > 65535 * 32 ? 65535 * 32 : b);
}

/// Launches `kernel` on `stream` (the one place a launch is spelled, so the
/// emulation can take it over).
template <typename... Params, typename... Args>
inline void launch(void (*kernel)(Params...), dim3 grid, dim3 block, Stream *stream,
                   const Args &...args) {
#if defined(ONNXC_CUDA_EMULATED)
  emulated_launch(stream, kernel, grid, block, Params(args)...);
#else
  kernel<<<grid, block, 0, stream>>>(Params(args)...);
#endif
}

/// Launches `kernel` over n threads' work in blocks of kThreads (blocks_for),
/// nothing where n is 0: the launch of the one-thread-an-element kernels.
template <typename... Params, typename... Args>
inline void launch_over(int64_t n, void (*kernel)(Params...), Stream *stream,
                        const Args &...args) {
  if (n > 0)
    launch(kernel, blocks_for(n), kThreads, stream, args...);
}

/// Grid-stride loop over [0, n): every kernel's outer loop, so any n works
/// with the capped grid of blocks_for.
#define ONNXC_CUDA_FOR(i, n)                                                   \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n);   \
       i += int64_t(gridDim.x) * blockDim.x)

/// Offsets of element i (of n) of a row-major `shape` under up to three
/// operands' strides. Below 2^31 elements the coordinates come from 32-bit
/// divisions, a fraction of the cost of 64-bit ones, which would otherwise
/// dominate a copy or an element-wise op.
template <int N>
__device__ inline void strided_offsets(int64_t i, int64_t n, int rank, const Dims &shape,
                                       const Dims (&strides)[N], int64_t (&off)[N]) {
  for (int k = 0; k < N; ++k)
    off[k] = 0;
  if (n <= 0x7fffffff) {
    unsigned rest = unsigned(i);
    for (int d = rank - 1; d >= 0; --d) {
      const unsigned dim = unsigned(shape.v[d]), c = rest % dim;
      rest /= dim;
      for (int k = 0; k < N; ++k)
        off[k] += int64_t(c) * strides[k].v[d];
    }
    return;
  }
  for (int d = rank - 1; d >= 0; --d) {
    const int64_t c = i % shape.v[d];
    i /= shape.v[d];
    for (int k = 0; k < N; ++k)
      off[k] += c * strides[k].v[d];
  }
}

/// A launch over (plane, pixel) for the window kernels: blocks of whole
/// warps across the pixels (up to kThreads: a 7 x 7 plane takes 64 threads
/// rather than 256 of which most would idle), up to 65535 planes down.
/// Plane and pixel are separate loops (ONNXC_CUDA_FOR_PLANES), so a thread
/// finds its output row and column with two 32-bit divisions rather than
/// four 64-bit ones per output.
struct PlaneLaunch {
  dim3 grid;
  unsigned threads;
};
inline PlaneLaunch plane_launch(int64_t planes, int64_t pixels) {
  const int64_t warps = (pixels + 31) / 32;
  const int64_t threads = warps < 1 ? 32 : warps > kThreads / 32 ? kThreads : warps * 32;
  const int64_t across = (pixels + threads - 1) / threads;
  return {dim3(unsigned(across < 1 ? 1 : across > 65535 * 32 ? 65535 * 32 : across),
               unsigned(planes < 1 ? 1 : planes > 65535 ? 65535 : planes)),
          unsigned(threads)};
}
#define ONNXC_CUDA_FOR_PLANES(plane, planes, pix, pixels)                            \
  for (int64_t plane = blockIdx.y; plane < (planes); plane += gridDim.y)            \
    for (int pix = int(blockIdx.x * blockDim.x + threadIdx.x); pix < (pixels);       \
         pix += int(gridDim.x * blockDim.x))

/// The sum of `v` over the block's threads before this one (an exclusive
/// scan, in thread order); `total` gets the whole block's. `part` is shared
/// memory of blockDim.x entries; every thread of the block must call it
/// (it holds barriers). For the one-block kernels that count or place what
/// the data selects (NonZero's tiles in order, Unique's groups,
/// NonMaxSuppression's candidates).
__device__ inline int64_t block_exclusive_scan(int64_t v, int64_t *part, int64_t &total) {
  const int t = int(threadIdx.x), n = int(blockDim.x);
  part[t] = v;
  __syncthreads();
  for (int step = 1; step < n; step *= 2) {
    const int64_t add = t >= step ? part[t - step] : 0;
    __syncthreads();
    part[t] += add;
    __syncthreads();
  }
  total = part[n - 1];
  const int64_t inclusive = part[t];
  __syncthreads(); // `part` may be reused at once
  return inclusive - v;
}

/// Byte copy on the stream, for graph outputs that alias an input or a
/// constant.
inline void copy_bytes(Stream *stream, const void *src, void *dst, size_t n) {
  if (src != dst && n > 0)
    cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, stream);
}

/// What a kernel that sums or normalises computes in: double for double
/// tensors, float for the others; and the math it calls, by that type.
template <typename T> struct AccOf {
  using type = float;
};
template <> struct AccOf<double> {
  using type = double;
};
template <typename T> using Acc = typename AccOf<T>::type;

__device__ inline float max_of(float a, float b) { return fmaxf(a, b); }
__device__ inline double max_of(double a, double b) { return fmax(a, b); }
__device__ inline float exp_of(float v) { return expf(v); }
__device__ inline double exp_of(double v) { return exp(v); }
__device__ inline float log_of(float v) { return logf(v); }
__device__ inline double log_of(double v) { return log(v); }
__device__ inline float rsqrt_of(float v) { return rsqrtf(v); }
__device__ inline double rsqrt_of(double v) { return 1.0 / sqrt(v); }
__device__ inline float fma_of(float a, float b, float c) { return fmaf(a, b, c); }
__device__ inline double fma_of(double a, double b, double c) { return fma(a, b, c); }

namespace detail {
template <typename T> __global__ void fill_kernel(T *y, int64_t n, T value) {
  ONNXC_CUDA_FOR(i, n) { y[i] = value; }
}
} // namespace detail

/// y[0, n) = value on the stream.
template <typename T> void fill(Stream *stream, T *y, int64_t n, T value) {
  launch_over(n, detail::fill_kernel<T>, stream, y, n, value);
}

} // namespace cuda
} // namespace onnxc_rt

#endif
