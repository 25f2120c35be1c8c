// Reference data-movement kernels: Transpose, Concat, Split, Slice, Gather,
// Tile, Pad. Pure index arithmetic; no kernel here computes values.
#ifndef ONNXC_RT_REF_TENSOR_H
#define ONNXC_RT_REF_TENSOR_H

#include "onnxc_rt/base.h"

namespace onnxc_rt {
namespace ref {

namespace detail {
inline void row_major_strides(int64_t rank, const int64_t *shape, int64_t *strides) {
  int64_t s = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    strides[d] = s;
    s *= shape[d];
  }
}
} // namespace detail

/// y = transpose(x, perm): y's dim i is x's dim perm[i].
template <typename T>
void transpose(const T *x, T *y, int64_t rank, const int64_t *in_shape,
               const int64_t *perm) {
  int64_t in_strides[kMaxRank], out_shape[kMaxRank], read[kMaxRank];
  detail::row_major_strides(rank, in_shape, in_strides);
  for (int64_t i = 0; i < rank; ++i) {
    out_shape[i] = in_shape[perm[i]];
    read[i] = in_strides[perm[i]];
  }
  if (product(out_shape, rank) == 0)
    return;
  NdIndex it(rank, out_shape);
  int64_t off[1] = {0};
  const int64_t *const strides[1] = {read};
  int64_t i = 0;
  do {
    y[i++] = x[off[0]];
  } while (it.next(off, strides));
}

/// Copies x, viewed as (outer, inner_in), into columns [offset, offset +
/// inner_in) of y viewed as (outer, inner_out): one input of a Concat.
template <typename T>
void concat_part(const T *x, T *y, int64_t outer, int64_t inner_in,
                 int64_t inner_out, int64_t offset) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner_in; ++i)
      y[o * inner_out + offset + i] = x[o * inner_in + i];
}

/// Copies columns [offset, offset + inner_out) of x viewed as (outer,
/// inner_in) into y: one output of a Split.
template <typename T>
void split_part(const T *x, T *y, int64_t outer, int64_t inner_in,
                int64_t inner_out, int64_t offset) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner_out; ++i)
      y[o * inner_out + i] = x[o * inner_in + offset + i];
}

/// y[i...] = x[starts + i * steps ...] over out_shape.
template <typename T>
void slice(const T *x, T *y, int64_t rank, const int64_t *in_shape,
           const int64_t *out_shape, const int64_t *starts, const int64_t *steps) {
  int64_t in_strides[kMaxRank], read[kMaxRank];
  detail::row_major_strides(rank, in_shape, in_strides);
  int64_t base = 0;
  for (int64_t d = 0; d < rank; ++d) {
    base += starts[d] * in_strides[d];
    read[d] = steps[d] * in_strides[d];
  }
  if (product(out_shape, rank) == 0)
    return;
  NdIndex it(rank, out_shape);
  int64_t off[1] = {base};
  const int64_t *const strides[1] = {read};
  int64_t i = 0;
  do {
    y[i++] = x[off[0]];
  } while (it.next(off, strides));
}

/// Gather along the middle dim of data viewed as (outer, axis_dim, inner);
/// negative indices count from the end.
template <typename T, typename I>
void gather(const T *data, const I *indices, T *y, int64_t outer,
            int64_t axis_dim, int64_t inner, int64_t n_indices) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n_indices; ++j) {
      int64_t k = static_cast<int64_t>(indices[j]);
      if (k < 0)
        k += axis_dim;
      if (k < 0 || k >= axis_dim)
        k = 0; // out of range is undefined in ONNX; stay in bounds
      const T *src = data + (o * axis_dim + k) * inner;
      T *dst = y + (o * n_indices + j) * inner;
      for (int64_t i = 0; i < inner; ++i)
        dst[i] = src[i];
    }
}

/// y[i...] = x[i % in_shape ...].
template <typename T>
void tile(const T *x, T *y, int64_t rank, const int64_t *in_shape,
          const int64_t *out_shape) {
  int64_t in_strides[kMaxRank];
  detail::row_major_strides(rank, in_shape, in_strides);
  int64_t n = product(out_shape, rank);
  int64_t idx[kMaxRank] = {};
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int64_t d = 0; d < rank; ++d)
      off += (idx[d] % in_shape[d]) * in_strides[d];
    y[i] = x[off];
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < out_shape[d])
        break;
      idx[d] = 0;
    }
  }
}

/// mode: 0 constant (value, may be null for 0), 1 reflect, 2 edge, 3 wrap.
/// pads_begin may be negative (cropping).
template <typename T>
void pad(const T *x, T *y, int64_t rank, const int64_t *in_shape,
         const int64_t *out_shape, const int64_t *pads_begin, int64_t mode,
         const T *value) {
  int64_t in_strides[kMaxRank];
  detail::row_major_strides(rank, in_shape, in_strides);
  const T fill = value ? *value : T(0);
  int64_t n = product(out_shape, rank);
  int64_t idx[kMaxRank] = {};
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    bool outside = false;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t p = idx[d] - pads_begin[d], dim = in_shape[d];
      if (p < 0 || p >= dim) {
        if (mode == 0 || dim == 0) {
          outside = true;
          break;
        }
        if (mode == 1) { // reflect, without repeating the edge
          int64_t period = dim > 1 ? 2 * (dim - 1) : 1;
          p = p % period;
          if (p < 0)
            p += period;
          if (p >= dim)
            p = period - p;
        } else if (mode == 2) { // edge
          p = p < 0 ? 0 : dim - 1;
        } else { // wrap
          p = p % dim;
          if (p < 0)
            p += dim;
        }
      }
      off += p * in_strides[d];
    }
    y[i] = outside ? fill : x[off];
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < out_shape[d])
        break;
      idx[d] = 0;
    }
  }
}

} // namespace ref
} // namespace onnxc_rt

#endif
