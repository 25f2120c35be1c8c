// Reference matrix products: MatMul (batched, broadcasting) and Gemm;
// Einsum and Det.
// Accumulation is in the element type, in k order: the oracle, not the fast path.
#ifndef ONNXC_RT_REF_LINALG_H
#define ONNXC_RT_REF_LINALG_H

#include "onnxc_rt/base.h"

namespace onnxc_rt {
namespace ref {

/// Y[b] = (A[b] - a_zp) (MxK) * (B[b] - b_zp) (KxN), accumulated in TAcc.
/// The batch index space has `batch_rank` dims `batch_shape`;
/// a_strides/b_strides give each operand's offset per batch dim in elements
/// (0 where it is broadcast). Zero points (may be null) are a scalar, or one
/// per row of A (a_zp_count = M) / per column of B (b_zp_count = N). Float
/// MatMul and MatMulInteger are this one loop.
template <typename TA, typename TB, typename TAcc>
void matmul_acc(const TA *a, const TB *b, const TA *a_zp, int64_t a_zp_count,
                const TB *b_zp, int64_t b_zp_count, TAcc *y, int64_t m, int64_t k,
                int64_t n, int64_t batch_rank, const int64_t *batch_shape,
                const int64_t *a_strides, const int64_t *b_strides) {
  int64_t batches = product(batch_shape, batch_rank);
  if (batches == 0 || m == 0 || n == 0)
    return;
  NdIndex it(batch_rank, batch_shape);
  int64_t off[2] = {0, 0};
  const int64_t *const strides[2] = {a_strides, b_strides};
  for (int64_t bi = 0; bi < batches; ++bi) {
    const TA *ab = a + off[0];
    const TB *bb = b + off[1];
    TAcc *yb = y + bi * m * n;
    for (int64_t i = 0; i < m; ++i) {
      const TAcc az = a_zp ? TAcc(a_zp[a_zp_count > 1 ? i : 0]) : TAcc(0);
      for (int64_t j = 0; j < n; ++j)
        yb[i * n + j] = TAcc(0);
      for (int64_t p = 0; p < k; ++p) {
        const TAcc av = TAcc(ab[i * k + p]) - az;
        for (int64_t j = 0; j < n; ++j) {
          const TAcc bz = b_zp ? TAcc(b_zp[b_zp_count > 1 ? j : 0]) : TAcc(0);
          yb[i * n + j] += av * (TAcc(bb[p * n + j]) - bz);
        }
      }
    }
    if (batch_rank > 0)
      it.next(off, strides);
  }
}

template <typename T>
void matmul(const T *a, const T *b, T *y, int64_t m, int64_t k, int64_t n,
            int64_t batch_rank, const int64_t *batch_shape,
            const int64_t *a_strides, const int64_t *b_strides) {
  matmul_acc<T, T, T>(a, b, nullptr, 0, nullptr, 0, y, m, k, n, batch_rank, batch_shape,
                      a_strides, b_strides);
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

/// Output element i of Einsum over one (b == null) or two operands: the
/// `nlabels` labels (sizes) each have a stride in a, b (0 for labels an
/// operand does not have, summed for repeated labels: diagonals) and y (0
/// for the labels summed over); i fixes the output labels, and the summed
/// labels' combinations, the last fastest, add a[.] * b[.] in that order.
/// (ONNXC_RT_HD: einsum's loop and the CUDA kernel's thread.)
template <typename T>
ONNXC_RT_HD T einsum_one(int64_t i, const T *a, const T *b, int64_t nlabels,
                         const int64_t *sizes, const int64_t *a_strides,
                         const int64_t *b_strides, const int64_t *y_strides) {
  int64_t a_at = 0, b_at = 0, terms = 1;
  for (int64_t l = 0; l < nlabels; ++l) {
    if (y_strides[l] != 0) {
      const int64_t v = i / y_strides[l] % sizes[l];
      a_at += v * a_strides[l];
      b_at += v * b_strides[l];
    } else {
      terms *= sizes[l];
    }
  }
  T acc = T(0);
  for (int64_t c = 0; c < terms; ++c) {
    int64_t rest = c, ai = a_at, bi = b_at;
    for (int64_t l = nlabels - 1; l >= 0; --l)
      if (y_strides[l] == 0) {
        const int64_t v = rest % sizes[l];
        rest /= sizes[l];
        ai += v * a_strides[l];
        bi += v * b_strides[l];
      }
    acc += b ? T(a[ai] * b[bi]) : a[ai];
  }
  return acc;
}

/// Einsum over one (b == null) or two operands, y_size outputs
/// (einsum_one each).
template <typename T>
void einsum(const T *a, const T *b, T *y, int64_t nlabels, const int64_t *sizes,
            const int64_t *a_strides, const int64_t *b_strides, const int64_t *y_strides,
            int64_t y_size) {
  for (int64_t i = 0; i < y_size; ++i)
    y[i] = einsum_one(i, a, b, nlabels, sizes, a_strides, b ? b_strides : a_strides, y_strides);
}

/// The determinant of one n x n matrix x by LU with partial pivoting in
/// double, m: n * n doubles of scratch. (ONNXC_RT_HD: det's loop and the
/// CUDA kernel's thread.)
template <typename T> ONNXC_RT_HD T det_one(const T *x, int64_t n, double *m) {
  for (int64_t i = 0; i < n * n; ++i)
    m[i] = double(x[i]);
  double d = 1;
  for (int64_t col = 0; col < n && d != 0; ++col) {
    int64_t piv = col;
    for (int64_t r = col + 1; r < n; ++r)
      if ((m[r * n + col] < 0 ? -m[r * n + col] : m[r * n + col]) >
          (m[piv * n + col] < 0 ? -m[piv * n + col] : m[piv * n + col]))
        piv = r;
    if (m[piv * n + col] == 0) {
      d = 0;
      break;
    }
    if (piv != col) {
      for (int64_t k = 0; k < n; ++k) {
        double t = m[col * n + k];
        m[col * n + k] = m[piv * n + k];
        m[piv * n + k] = t;
      }
      d = -d;
    }
    d *= m[col * n + col];
    for (int64_t r = col + 1; r < n; ++r) {
      const double f = m[r * n + col] / m[col * n + col];
      for (int64_t k = col; k < n; ++k)
        m[r * n + k] -= f * m[col * n + k];
    }
  }
  return T(d);
}

/// Determinants of `batch` n x n matrices (det_one each); scratch holds
/// batch * n * n doubles (a matrix's own, so that the CUDA kernel's threads
/// each have one).
template <typename T>
void det(const T *x, T *y, int64_t batch, int64_t n, double *scratch) {
  for (int64_t bi = 0; bi < batch; ++bi)
    y[bi] = det_one(x + bi * n * n, n, scratch + bi * n * n);
}

} // namespace ref
} // namespace onnxc_rt

#endif
