// Reference matrix products: MatMul (batched, broadcasting) and Gemm.
// Accumulation is in the element type, in k order: the oracle, not the fast path.
#ifndef ONNXC_RT_REF_LINALG_H
#define ONNXC_RT_REF_LINALG_H

#include "onnxc_rt/base.h"

namespace onnxc_rt {
namespace ref {

/// Y[b] = A[b] (MxK) * B[b] (KxN). The batch index space has `batch_rank`
/// dims `batch_shape`; a_strides/b_strides give each operand's offset per
/// batch dim in elements (0 where it is broadcast).
template <typename T>
void matmul(const T *a, const T *b, T *y, int64_t m, int64_t k, int64_t n,
            int64_t batch_rank, const int64_t *batch_shape,
            const int64_t *a_strides, const int64_t *b_strides) {
  int64_t batches = product(batch_shape, batch_rank);
  if (batches == 0 || m == 0 || n == 0)
    return;
  NdIndex it(batch_rank, batch_shape);
  int64_t off[2] = {0, 0};
  const int64_t *const strides[2] = {a_strides, b_strides};
  for (int64_t bi = 0; bi < batches; ++bi) {
    const T *ab = a + off[0];
    const T *bb = b + off[1];
    T *yb = y + bi * m * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j)
        yb[i * n + j] = T(0);
      for (int64_t p = 0; p < k; ++p) {
        const T av = ab[i * k + p];
        for (int64_t j = 0; j < n; ++j)
          yb[i * n + j] += av * bb[p * n + j];
      }
    }
    if (batch_rank > 0)
      it.next(off, strides);
  }
}

/// Y = alpha * op(A) * op(B) + beta * C. C (may be nullptr) is read as
/// C[i * c_stride_m + j * c_stride_n] so that any unidirectional broadcast
/// to MxN works.
template <typename T>
void gemm(const T *a, const T *b, const T *c, T *y, int64_t m, int64_t n,
          int64_t k, int64_t trans_a, int64_t trans_b, float alpha, float beta,
          int64_t c_stride_m, int64_t c_stride_n) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T acc = T(0);
      for (int64_t p = 0; p < k; ++p) {
        T av = trans_a ? a[p * m + i] : a[i * k + p];
        T bv = trans_b ? b[j * k + p] : b[p * n + j];
        acc += av * bv;
      }
      T v = T(alpha) * acc;
      if (c)
        v += T(beta) * c[i * c_stride_m + j * c_stride_n];
      y[i * n + j] = v;
    }
  }
}

} // namespace ref
} // namespace onnxc_rt

#endif
