// CUDA matrix products: one tiled kernel for Gemm, MatMul and the dense
// convolutions (implicit GEMM, conv.cuh). A "problem" says how to read
// element (m, k) of A and (k, n) of B of one batch entry and how to store a
// finished sum (its epilogue: bias, residual, activation), so the tiling,
// the shared-memory staging and the accumulation are written once.
//
// A block computes a 64 x 64 tile of Y with 256 threads, 4 x 4 sums per
// thread in registers, stepping through K 16 at a time through shared
// memory. Sums are float, fused multiply-adds in k order within a thread.
#ifndef ONNXC_RT_CUDA_GEMM_CUH
#define ONNXC_RT_CUDA_GEMM_CUH

#include "onnxc_rt/kernels/cuda/common.cuh"
#include "onnxc_rt/kernels/reference/elementwise.h"

namespace onnxc_rt {
namespace cuda {
namespace detail {

constexpr int kTileM = 64, kTileN = 64, kTileK = 16;

template <typename Problem>
__global__ void __launch_bounds__(256) tiled_gemm(Problem p) {
  __shared__ float as[kTileK][kTileM + 4];
  __shared__ float bs[kTileK][kTileN + 4];
  const int64_t batch = blockIdx.z;
  const int m0 = blockIdx.y * kTileM, n0 = blockIdx.x * kTileN;
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < p.k; k0 += kTileK) {
    // Consecutive threads take consecutive k of A's rows and consecutive n
    // of B's rows: coalesced for row-major A and B (and for the im2col
    // columns of a convolution, consecutive pixels).
    for (int e = tid; e < kTileM * kTileK; e += 256) {
      const int mm = e / kTileK, kk = e % kTileK;
      const int m = m0 + mm, k = k0 + kk;
      as[kk][mm] = m < p.m && k < p.k ? p.a(batch, m, k) : 0.0f;
    }
    for (int e = tid; e < kTileK * kTileN; e += 256) {
      const int kk = e / kTileN, nn = e % kTileN;
      const int k = k0 + kk, n = n0 + nn;
      bs[kk][nn] = k < p.k && n < p.n ? p.b(batch, k, n) : 0.0f;
    }
    __syncthreads();
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
        p.store(batch, m, n, acc[i][j]);
    }
}

template <typename Problem>
void launch_tiled_gemm(Stream *stream, const Problem &p, int64_t batches) {
  if (p.m <= 0 || p.n <= 0 || batches <= 0)
    return;
  const dim3 grid(unsigned((p.n + kTileN - 1) / kTileN), unsigned((p.m + kTileM - 1) / kTileM),
                  unsigned(batches));
  launch(tiled_gemm<Problem>, grid, 256, stream, p);
}

/// Gemm: Y = act(alpha * op(A) op(B) + beta * C), C broadcast by strides.
template <typename Act> struct GemmProblem {
  const float *A, *B, *C;
  float *Y;
  int m, n, k;
  bool trans_a, trans_b;
  float alpha, beta;
  int64_t c_stride_m, c_stride_n;
  float act_alpha, act_beta;
  __device__ float a(int64_t, int i, int p) const {
    return trans_a ? A[int64_t(p) * m + i] : A[int64_t(i) * k + p];
  }
  __device__ float b(int64_t, int p, int j) const {
    return trans_b ? B[int64_t(j) * k + p] : B[int64_t(p) * n + j];
  }
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
  __device__ int64_t offset(int64_t batch, const Dims &strides) const {
    int64_t off = 0;
    for (int d = batch_rank - 1; d >= 0; --d) {
      off += (batch % batch_shape.v[d]) * strides.v[d];
      batch /= batch_shape.v[d];
    }
    return off;
  }
  __device__ float a(int64_t batch, int i, int p) const {
    return A[offset(batch, a_strides) + int64_t(i) * k + p];
  }
  __device__ float b(int64_t batch, int p, int j) const {
    return B[offset(batch, b_strides) + int64_t(p) * n + j];
  }
  __device__ void store(int64_t batch, int i, int j, float acc) const {
    Y[(batch * m + i) * int64_t(n) + j] = acc;
  }
};

} // namespace detail

/// Gemm with the fused op's activation in the epilogue (Identity for Gemm).
template <typename Act, typename T>
void gemm(Stream *stream, const T *a, const T *b, const T *c, T *y, int64_t m, int64_t n,
          int64_t k, int64_t trans_a, int64_t trans_b, float alpha, float beta,
          int64_t c_stride_m, int64_t c_stride_n, float act_alpha, float act_beta) {
  static_assert(sizeof(T) == sizeof(float), "the CUDA Gemm computes in float");
  detail::GemmProblem<Act> p{a, b, c, y, int(m), int(n), int(k), trans_a != 0, trans_b != 0,
                             alpha, beta, c_stride_m, c_stride_n, act_alpha, act_beta};
  detail::launch_tiled_gemm(stream, p, 1);
}

template <typename T>
void matmul(Stream *stream, const T *a, const T *b, T *y, int64_t m, int64_t k, int64_t n,
            int64_t batch_rank, const int64_t *batch_shape, const int64_t *a_strides,
            const int64_t *b_strides) {
  static_assert(sizeof(T) == sizeof(float), "the CUDA MatMul computes in float");
  const int64_t batches = product(batch_shape, batch_rank);
  detail::MatMulProblem p{a, b, y, int(m), int(n), int(k), int(batch_rank),
                          dims_of(batch_shape, batch_rank), dims_of(a_strides, batch_rank),
                          dims_of(b_strides, batch_rank)};
  detail::launch_tiled_gemm(stream, p, batches);
}

} // namespace cuda
} // namespace onnxc_rt

#endif
