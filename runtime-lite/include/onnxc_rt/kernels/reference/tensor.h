// Reference data-movement kernels: Transpose, Concat, Split, Slice, Gather,
// Tile, Pad. Pure index arithmetic; no kernel here computes values.
#ifndef ONNXC_RT_REF_TENSOR_H
#define ONNXC_RT_REF_TENSOR_H

#include "onnxc_rt/base.h"
#include "onnxc_rt/parallel.h"

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

/// Whether a row of `count` elements read `stride` bytes apart keeps its
/// cache lines in L1 until the next row reads the element beside each:
/// whether they fit a 32 KB, 8-way L1 (64 sets of 64-byte lines: the
/// smallest of the targets' x86 and Arm cores; Zen 5's and recent Intel
/// cores' have 12 ways), counting only the sets a stride that is a
/// multiple of 64 bytes reaches (a stride of 1 KB reaches 4 of them). At
/// the bound rows still win for bytes: the int8 transformer's K^T, [128,
/// 4, 64] -> [4, 64, 128] bytes, 128 lines in 16 sets, 9.9 us by rows
/// against 11.1 in tiles (Zen 5 host).
constexpr bool rows_keep_lines(int64_t count, int64_t stride) {
  constexpr int64_t kLine = 64, kSets = 64, kWays = 8;
  int64_t sets = kSets;
  if (stride % kLine == 0) {
    int64_t a = stride / kLine, b = kSets; // sets = kSets / gcd(stride / kLine, kSets)
    while (b != 0) {
      const int64_t r = a % b;
      a = b;
      b = r;
    }
    sets = kSets / a;
  }
  const int64_t lines = stride >= kLine ? count : (count * stride + kLine - 1) / kLine;
  return lines <= sets * kWays;
}

/// strided_gather a row of the innermost dim at a time (merged dims).
template <typename T>
void gather_rows(const T *x, T *y, int64_t rank, const int64_t *shape, const int64_t *read,
                 int64_t base) {
  const int64_t inner = rank > 0 ? shape[rank - 1] : 1;
  const int64_t step = rank > 0 ? read[rank - 1] : 0;
  int64_t off[1] = {base};
  const int64_t *const strides[1] = {read};
  for_each_row(rank, shape, strides, off, [&](const int64_t (&o)[1], int64_t at) {
    const T *src = x + o[0];
    T *dst = y + at;
    // Locals: byte stores may alias the lambda's captures, which reloaded
    // them for every element of an int8 row (and kept it from vectorising).
    const int64_t n = inner, s = step;
    if (s == 1)
      for (int64_t i = 0; i < n; ++i)
        dst[i] = src[i];
    else
      for (int64_t i = 0; i < n; ++i)
        dst[i] = src[i * s];
  });
}

/// The square tiles of strided_gather: dim `unit` (read stride 1) and the
/// innermost (rank >= 2, merged dims) copied kGatherTile x kGatherTile at a
/// time, for each index of the other dims.
constexpr int64_t kGatherTile = 16;
template <typename T>
void gather_tiles(const T *x, T *y, int64_t rank, const int64_t *shape, const int64_t *read,
                  int64_t base, int64_t unit) {
  int64_t write[kMaxRank]; // y's row-major strides
  row_major_strides(rank, shape, write);
  // The other dims, a row each (a last dim of 1), then the tiles.
  int64_t outer_shape[kMaxRank], outer_read[kMaxRank], outer_write[kMaxRank], outer = 0;
  for (int64_t d = 0; d + 1 < rank; ++d)
    if (d != unit) {
      outer_shape[outer] = shape[d];
      outer_read[outer] = read[d];
      outer_write[outer++] = write[d];
    }
  outer_shape[outer] = 1;
  outer_read[outer] = outer_write[outer] = 0;
  int64_t offs[2] = {base, 0};
  const int64_t *const outer_strides[2] = {outer_read, outer_write};
  for_each_row(outer + 1, outer_shape, outer_strides, offs, [&](const int64_t (&o)[2], int64_t) {
    // Locals, as strided_gather's rows: byte stores may alias the captures.
    const int64_t n_unit = shape[unit], n_inner = shape[rank - 1];
    const int64_t unit_write = write[unit], step = read[rank - 1];
    const T *const from = x + o[0];
    T *const to = y + o[1];
    for (int64_t a0 = 0; a0 < n_unit; a0 += kGatherTile)
      for (int64_t b0 = 0; b0 < n_inner; b0 += kGatherTile) {
        const int64_t a1 = a0 + kGatherTile < n_unit ? a0 + kGatherTile : n_unit;
        const int64_t b1 = b0 + kGatherTile < n_inner ? b0 + kGatherTile : n_inner;
        for (int64_t a = a0; a < a1; ++a) {
          const T *src = from + a;
          T *dst = to + a * unit_write;
          for (int64_t b = b0; b < b1; ++b)
            dst[b] = src[b * step];
        }
      }
  });
}

/// y (row-major over `shape`, non-empty) = x[base + sum(index[d] * read[d])]:
/// the copy Transpose and Slice share, a row of the innermost dim at a time
/// (contiguous when its read stride is 1, which the compiler vectorises),
/// or in tiles where rows would thrash L1 (below).
template <typename T>
void strided_gather(const T *x, T *y, int64_t rank_in, const int64_t *shape_in,
                    const int64_t *read_in, int64_t base) {
  // Dims of size 1 are dropped, and a dim whose read stride steps over the
  // whole next-inner dim merges into it: a channel shuffle's Transpose
  // becomes rows of H*W elements, a channel Slice one row.
  int64_t shape[kMaxRank] = {}, read[kMaxRank] = {}, rank = 0;
  for (int64_t d = 0; d < rank_in; ++d) {
    if (shape_in[d] == 1)
      continue;
    if (rank > 0 && read[rank - 1] == shape_in[d] * read_in[d]) {
      shape[rank - 1] *= shape_in[d];
      read[rank - 1] = read_in[d];
      continue;
    }
    shape[rank] = shape_in[d];
    read[rank] = read_in[d];
    ++rank;
  }
  const int64_t inner = rank > 0 ? shape[rank - 1] : 1;
  const int64_t step = rank > 0 ? read[rank - 1] : 0;
  // A dim that reads contiguously other than the innermost (a transpose
  // that moves the input's innermost dim outward, as attention's K^T):
  // row by row, each element of a row comes from its own cache line, and
  // the next row reads the next element of the same lines. Where those
  // lines would not stay in L1 until then (rows_keep_lines), gather_tiles
  // copies that dim and the innermost in square tiles instead (the
  // transformer's [128, 4, 64] -> [4, 64, 128], whose lines of a row fell
  // into 4 of L1's sets: 23 -> 10.5 us a copy on the Zen 5 host; NHWC ->
  // NCHW of 64 x 56 x 56 floats 100 -> 57 us).
  int64_t unit = -1;
  for (int64_t d = 0; d + 1 < rank; ++d)
    if (read[d] == 1)
      unit = d;
  if (step > 1 && unit >= 0 && shape[unit] >= kGatherTile && inner >= kGatherTile &&
      !rows_keep_lines(inner, step * int64_t(sizeof(T)))) {
    gather_tiles(x, y, rank, shape, read, base, unit);
    return;
  }
  gather_rows(x, y, rank, shape, read, base);
}
} // namespace detail

/// transpose split among `tasks` on `runner` (the SIMD targets' form):
/// runs of y's outermost dim longer than 1, as many tasks as about 3
/// cycles per 8 bytes pays for (1.5 a float: the reads are strided).
template <typename T>
void transpose_split(const T *x, T *y, int64_t rank, const int64_t *in_shape,
                     const int64_t *perm, TaskRunner *runner, int64_t tasks) {
  int64_t in_strides[kMaxRank], out_shape[kMaxRank], read[kMaxRank];
  detail::row_major_strides(rank, in_shape, in_strides);
  for (int64_t i = 0; i < rank; ++i) {
    out_shape[i] = in_shape[perm[i]];
    read[i] = in_strides[perm[i]];
  }
  const int64_t count = product(out_shape, rank);
  if (count == 0)
    return;
  int64_t d = 0;
  while (d + 1 < rank && out_shape[d] == 1)
    ++d;
  const int64_t outer = rank > 0 ? out_shape[d] : 1, run = outer > 0 ? count / outer : 0;
  const int64_t cycles = count * int64_t(sizeof(T)) * 3 / 8;
  for_each_split(runner, tasks, outer, 1, cycles, [&](int64_t b, int64_t e) {
    int64_t shape[kMaxRank];
    for (int64_t i = 0; i < rank; ++i)
      shape[i] = i == d ? e - b : out_shape[i];
    detail::strided_gather(x, y + b * run, rank, shape, read, rank > 0 ? b * read[d] : 0);
  });
}

/// y = transpose(x, perm): y's dim i is x's dim perm[i].
template <typename T>
void transpose(const T *x, T *y, int64_t rank, const int64_t *in_shape,
               const int64_t *perm) {
  transpose_split(x, y, rank, in_shape, perm, nullptr, 1);
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

/// The channel-blocked layout (x86 kernels, onnxc-layout-selection): x
/// (n, c, hw) -> y (n, ceil(c / block), hw, block), channel ch of pixel p at
/// ((b * blocks + ch / block) * hw + p) * block + ch % block; the padding
/// lanes past c are zero.
template <typename T>
void to_blocked(const T *x, T *y, int64_t n, int64_t c, int64_t hw, int64_t block) {
  const int64_t blocks = (c + block - 1) / block;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t cb = 0; cb < blocks; ++cb)
      for (int64_t p = 0; p < hw; ++p)
        for (int64_t l = 0; l < block; ++l) {
          const int64_t ch = cb * block + l;
          y[((b * blocks + cb) * hw + p) * block + l] = ch < c ? x[(b * c + ch) * hw + p] : T(0);
        }
}

/// The inverse of to_blocked: the padding lanes are dropped.
template <typename T>
void from_blocked(const T *x, T *y, int64_t n, int64_t c, int64_t hw, int64_t block) {
  const int64_t blocks = (c + block - 1) / block;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < hw; ++p)
        y[(b * c + ch) * hw + p] = x[((b * blocks + ch / block) * hw + p) * block + ch % block];
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
  detail::strided_gather(x, y, rank, out_shape, read, base);
}

/// Gather along the middle dim of data viewed as (outer, axis_dim, inner);
/// negative indices count from the end.
/// Gather's index: negative counts from the end; out of range (undefined in
/// ONNX) reads element 0, staying in bounds.
template <typename I> ONNXC_RT_HD inline int64_t gather_index(I index, int64_t axis_dim) {
  int64_t k = static_cast<int64_t>(index);
  if (k < 0)
    k += axis_dim;
  return k < 0 || k >= axis_dim ? 0 : k;
}

template <typename T, typename I>
void gather(const T *data, const I *indices, T *y, int64_t outer,
            int64_t axis_dim, int64_t inner, int64_t n_indices) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n_indices; ++j) {
      const int64_t k = gather_index(indices[j], axis_dim);
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

namespace detail {
/// Pad's source index along one dim for padded position p (p = output
/// index - pads_begin) of an input dim of `dim` elements; `outside` set
/// where the constant fills (mode 0, or an empty dim). Host and CUDA.
ONNXC_RT_HD inline int64_t pad_source(int64_t p, int64_t dim, int64_t mode, bool &outside) {
  if (p >= 0 && p < dim)
    return p;
  if (mode == 0 || dim == 0) {
    outside = true;
    return 0;
  }
  if (mode == 1) { // reflect, without repeating the edge
    const int64_t period = dim > 1 ? 2 * (dim - 1) : 1;
    p = p % period;
    if (p < 0)
      p += period;
    return p >= dim ? period - p : p;
  }
  if (mode == 2) // edge
    return p < 0 ? 0 : dim - 1;
  p = p % dim; // wrap
  return p < 0 ? p + dim : p;
}
} // namespace detail

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
    for (int64_t d = 0; d < rank && !outside; ++d)
      off += detail::pad_source(idx[d] - pads_begin[d], in_shape[d], mode, outside) *
             in_strides[d];
    y[i] = outside ? fill : x[off];
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < out_shape[d])
        break;
      idx[d] = 0;
    }
  }
}

namespace detail {
/// Combines a reduction ("none" = 0, add 1, mul 2, max 3, min 4) into dst.
template <typename T> ONNXC_RT_HD inline void reduce_into(T &dst, T v, int64_t reduction) {
  switch (reduction) {
  case 1: dst = T(dst + v); break;
  case 2: dst = T(dst * v); break;
  case 3: dst = v > dst ? v : dst; break;
  case 4: dst = v < dst ? v : dst; break;
  default: dst = v;
  }
}
ONNXC_RT_HD inline int64_t wrap_index(int64_t k, int64_t dim) { return k < 0 ? k + dim : k; }
} // namespace detail

/// out[i] = data[i with coordinate `axis` replaced by indices[i]]; out has
/// the indices' shape.
template <typename T, typename I>
void gather_elements(const T *data, const I *indices, T *y, int64_t rank,
                     const int64_t *data_shape, const int64_t *idx_shape, int64_t axis) {
  int64_t ds[kMaxRank];
  detail::row_major_strides(rank, data_shape, ds);
  int64_t n = product(idx_shape, rank), idx[kMaxRank] = {};
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int64_t d = 0; d < rank; ++d)
      off += (d == axis ? detail::wrap_index(int64_t(indices[i]), data_shape[axis]) : idx[d]) * ds[d];
    y[i] = data[off];
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < idx_shape[d])
        break;
      idx[d] = 0;
    }
  }
}

/// y = data, then updates written (or reduced) at indices along axis.
template <typename T, typename I>
void scatter_elements(const T *data, const I *indices, const T *updates, T *y,
                      int64_t rank, const int64_t *data_shape, const int64_t *idx_shape,
                      int64_t axis, int64_t reduction) {
  int64_t ds[kMaxRank];
  detail::row_major_strides(rank, data_shape, ds);
  int64_t total = product(data_shape, rank);
  if (y != data)
    for (int64_t i = 0; i < total; ++i)
      y[i] = data[i];
  int64_t n = product(idx_shape, rank), idx[kMaxRank] = {};
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int64_t d = 0; d < rank; ++d)
      off += (d == axis ? detail::wrap_index(int64_t(indices[i]), data_shape[axis]) : idx[d]) * ds[d];
    detail::reduce_into(y[off], updates[i], reduction);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < idx_shape[d])
        break;
      idx[d] = 0;
    }
  }
}

/// GatherND: indices viewed as (batch, n, k); each k-tuple addresses a slice
/// of `slice` elements in the batch's data block of `batch_stride` elements.
/// Each index as Gather's (gather_index: out of range reads element 0), so
/// rows past a data-dependent size, which hold no real indices, stay in bounds.
template <typename T, typename I>
void gather_nd(const T *data, const I *indices, T *y, int64_t batch, int64_t n,
               int64_t k, const int64_t *data_dims, int64_t batch_stride, int64_t slice) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t j = 0; j < n; ++j) {
      const I *tuple = indices + (b * n + j) * k;
      int64_t off = 0;
      for (int64_t d = 0; d < k; ++d)
        off = off * data_dims[d] + gather_index(tuple[d], data_dims[d]);
      const T *src = data + b * batch_stride + off * slice;
      T *dst = y + (b * n + j) * slice;
      for (int64_t i = 0; i < slice; ++i)
        dst[i] = src[i];
    }
}

/// ScatterND: y = data, then n update slices written (or reduced) at the
/// k-tuples of indices.
template <typename T, typename I>
void scatter_nd(const T *data, const I *indices, const T *updates, T *y, int64_t total,
                int64_t n, int64_t k, const int64_t *data_dims, int64_t slice,
                int64_t reduction) {
  if (y != data)
    for (int64_t i = 0; i < total; ++i)
      y[i] = data[i];
  for (int64_t j = 0; j < n; ++j) {
    int64_t off = 0;
    for (int64_t d = 0; d < k; ++d)
      off = off * data_dims[d] + detail::wrap_index(int64_t(indices[j * k + d]), data_dims[d]);
    for (int64_t i = 0; i < slice; ++i)
      detail::reduce_into(y[off * slice + i], updates[j * slice + i], reduction);
  }
}

namespace detail {
/// Whether Trilu keeps element (i, j) of a matrix (upper: j - i >= k,
/// lower: j - i <= k). Host and CUDA.
ONNXC_RT_HD inline bool trilu_keeps(int64_t i, int64_t j, int64_t k, int64_t upper) {
  return upper ? j - i >= k : j - i <= k;
}

/// One line of CumSum: the n elements base, base + inner, ... Host and CUDA.
template <typename T>
ONNXC_RT_HD inline void cumsum_line(const T *x, T *y, int64_t n, int64_t inner, int64_t base,
                                    int64_t exclusive, int64_t reverse) {
  T acc = T(0);
  for (int64_t s = 0; s < n; ++s) {
    const int64_t off = base + (reverse ? n - 1 - s : s) * inner;
    const T v = x[off];
    if (exclusive) {
      y[off] = acc;
      acc = T(acc + v);
    } else {
      acc = T(acc + v);
      y[off] = acc;
    }
  }
}
} // namespace detail

/// Keeps the upper (j - i >= k) or lower (j - i <= k) triangle of each
/// rows x cols matrix, zeroing the rest.
template <typename T>
void trilu(const T *x, T *y, int64_t batch, int64_t rows, int64_t cols, int64_t k,
           int64_t upper) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        int64_t o = (b * rows + i) * cols + j;
        y[o] = detail::trilu_keeps(i, j, k, upper) ? x[o] : T(0);
      }
}

/// Cumulative sum along the middle dim of (outer, n, inner).
template <typename T>
void cumsum(const T *x, T *y, int64_t outer, int64_t n, int64_t inner, int64_t exclusive,
            int64_t reverse) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in)
      detail::cumsum_line(x, y, n, inner, o * n * inner + in, exclusive, reverse);
}

namespace detail {
/// The depth an index of OneHot marks (negative ones count from the end).
/// Host and CUDA.
template <typename I> ONNXC_RT_HD inline int64_t one_hot_index(I index, int64_t depth) {
  const int64_t k = static_cast<int64_t>(index);
  return k < 0 ? k + depth : k;
}
} // namespace detail

/// values[1] at (o, indices[o, i], i), values[0] elsewhere; out is
/// (outer, depth, inner) with the indices viewed as (outer, inner).
template <typename I, typename T>
void one_hot(const I *indices, const T *values, T *y, int64_t outer, int64_t depth,
             int64_t inner) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t k = detail::one_hot_index(indices[o * inner + i], depth);
      for (int64_t d = 0; d < depth; ++d)
        y[(o * depth + d) * inner + i] = d == k ? values[1] : values[0];
    }
}

template <typename T> void eye_like(T *y, int64_t rows, int64_t cols, int64_t k) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      y[i * cols + j] = T(j - i == k ? 1 : 0);
}

namespace detail {
/// How many TopK picks a run makes: min(k_run, n_run), at most k (the
/// pointers may be null: the compile-time k and n). Host and CUDA.
ONNXC_RT_HD inline int64_t topk_picks(int64_t n, int64_t k, const int64_t *k_run,
                                      const int64_t *n_run) {
  const int64_t real_n = run_count(n, n_run);
  int64_t picks = k_run ? *k_run : k;
  picks = picks < 0 ? 0 : picks;
  picks = picks < k ? picks : k;
  return picks < real_n ? picks : real_n;
}

/// One line of TopK: the `picks` best of xp[0], xp[inner], ... (the first
/// real_n of them), values to vp and indices to ip at the same stride, the
/// k - picks rows after them zeroed. Host and CUDA.
template <typename T>
ONNXC_RT_HD inline void topk_line(const T *xp, T *vp, int64_t *ip, int64_t real_n,
                                  int64_t inner, int64_t k, int64_t picks, int64_t largest,
                                  int64_t sorted) {
  // Selection in the order (value, then lower index first): the j-th
  // pick is the best element after the (j-1)-th in that order, one pass
  // over the n each (k x n, not k x k x n: a detection model's K of 50
  // over thousands of anchors).
  auto before = [&](int64_t a, int64_t b) { // a comes before b
    const T va = xp[a * inner], vb = xp[b * inner];
    return largest ? (va > vb || (!(vb > va) && a < b)) : (va < vb || (!(vb < va) && a < b));
  };
  for (int64_t j = 0; j < picks; ++j) {
    const int64_t prev = j ? ip[(j - 1) * inner] : -1;
    int64_t best = -1;
    for (int64_t i = 0; i < real_n; ++i)
      if ((prev < 0 || before(prev, i)) && (best < 0 || before(i, best)))
        best = i;
    ip[j * inner] = best;
  }
  if (!sorted) // ascending index order
    for (int64_t a = 1; a < picks; ++a)
      for (int64_t b = a; b > 0 && ip[(b - 1) * inner] > ip[b * inner]; --b) {
        int64_t t = ip[b * inner];
        ip[b * inner] = ip[(b - 1) * inner];
        ip[(b - 1) * inner] = t;
      }
  for (int64_t j = 0; j < picks; ++j)
    vp[j * inner] = xp[ip[j * inner] * inner];
  for (int64_t j = picks; j < k; ++j) {
    vp[j * inner] = T();
    ip[j * inner] = 0;
  }
}
} // namespace detail

/// The k largest (or smallest) along the middle dim of (outer, n, inner),
/// ties to the lower index, in order (sorted) or in index order (unsorted);
/// values and indices are (outer, k, inner). Sizes the data decides: when
/// `n_run` is not null only the first *n_run of the n are real (the rest a
/// bound's rows), when `k_run` is not null the run asks for *k_run; it picks
/// min(k_run, n_run), at most k, zeroes the rows past it and writes the
/// count to *extent.
template <typename T>
void topk(const T *x, T *values, int64_t *indices, int64_t outer, int64_t n,
          int64_t inner, int64_t k, int64_t largest, int64_t sorted, int64_t *extent,
          const int64_t *k_run, const int64_t *n_run) {
  const int64_t picks = detail::topk_picks(n, k, k_run, n_run), real_n = run_count(n, n_run);
  *extent = picks;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in)
      detail::topk_line(x + o * n * inner + in, values + o * k * inner + in,
                        indices + o * k * inner + in, real_n, inner, k, picks, largest, sorted);
}

/// ReverseSequence's source of output element i: the element at time
/// lens[b] - 1 - t for the first lens[b] steps of batch entry b (at most
/// `time`), else i itself (host and CUDA).
template <typename L>
ONNXC_RT_HD inline int64_t reverse_sequence_source(int64_t i, const L *lens, int64_t batch,
                                                   int64_t time, int64_t batch_stride,
                                                   int64_t time_stride) {
  const int64_t b = i / batch_stride % batch, t = i / time_stride % time;
  const int64_t len = static_cast<int64_t>(lens[b]);
  return t < len && len <= time ? i + (len - 1 - 2 * t) * time_stride : i;
}

/// Reverses the first lens[b] steps along time for each batch entry; dims
/// other than batch and time are `inner`. Offsets use the given strides.
template <typename T, typename L>
void reverse_sequence(const T *x, const L *lens, T *y, int64_t batch, int64_t time,
                      int64_t batch_stride, int64_t time_stride, int64_t inner,
                      int64_t total) {
  (void)inner; // contiguous after batch and time, in either order
  for (int64_t i = 0; i < total; ++i)
    y[i] = x[reverse_sequence_source(i, lens, batch, time, batch_stride, time_stride)];
}

namespace detail {
/// NonZero's k-th index tuple (of `count`), that of element i, into y.
/// Host and CUDA.
ONNXC_RT_HD inline void nonzero_index(int64_t i, int64_t k, int64_t count, int64_t *y,
                                      int64_t rank, const int64_t *shape, int64_t transposed) {
  for (int64_t d = rank - 1, rest = i; d >= 0; --d) {
    y[transposed ? k * rank + d : d * count + k] = rest % shape[d];
    rest /= shape[d];
  }
}
} // namespace detail

/// NonZero: the indices of x's non-zero elements (rank x numel, row-major
/// order) as the [rank, count] matrix packed at the start of y (or, when
/// `transposed`, as [count, rank]: one index tuple per row), whose
/// remaining `rank * numel - rank * count` elements are zeroed; *extent = count.
template <typename T>
void nonzero(const T *x, int64_t *y, int64_t *extent, int64_t rank, const int64_t *shape,
             int64_t numel, int64_t transposed) {
  int64_t count = 0;
  for (int64_t i = 0; i < numel; ++i)
    count += x[i] != T(0);
  int64_t k = 0;
  for (int64_t i = 0; i < numel; ++i)
    if (x[i] != T(0))
      detail::nonzero_index(i, k++, count, y, rank, shape, transposed);
  for (int64_t i = rank * count; i < rank * numel; ++i)
    y[i] = 0;
  *extent = count;
}

namespace detail {
/// -1, 0, 1 as Unique's slice a sorts before, equals or sorts after slice b
/// (elements in (o, i) order; a NaN after every number and equal to a NaN,
/// so the order is total). Host and CUDA.
template <typename T>
ONNXC_RT_HD inline int unique_compare(const T *x, int64_t a, int64_t b, int64_t outer,
                                      int64_t n, int64_t inner) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const T va = x[(o * n + a) * inner + i], vb = x[(o * n + b) * inner + i];
      const bool a_nan = !(va == va), b_nan = !(vb == vb);
      if (a_nan != b_nan)
        return a_nan ? 1 : -1;
      if (va < vb)
        return -1;
      if (vb < va)
        return 1;
    }
  return 0;
}
} // namespace detail

/// int64 scratch entries unique needs per slice.
constexpr int64_t kUniqueScratchPerSlice = 7;

/// Unique over the n slices x[o, s, i] (o < outer, i < inner) of a
/// (outer, n, inner) tensor, compared as sequences in (o, i) order. Writes
/// the count distinct slices to y (outer, count, inner, packed; the rest of
/// the n-slice buffer zeroed), their first indices, counts and every slice's
/// position in y (inverse); outputs may be null. sorted: ascending order of
/// the slices, else order of first occurrence. scratch: kUniqueScratchPerSlice * n.
template <typename T>
void unique(const T *x, T *y, int64_t *indices, int64_t *inverse, int64_t *counts,
            int64_t *extent, int64_t outer, int64_t n, int64_t inner, int64_t sorted,
            int64_t *scratch) {
  int64_t *order = scratch, *tmp = scratch + n, *group_of = scratch + 2 * n,
          *first = scratch + 3 * n, *size = scratch + 4 * n, *out = scratch + 5 * n,
          *position = scratch + 6 * n;
  auto compare = [&](int64_t a, int64_t b) {
    return detail::unique_compare(x, a, b, outer, n, inner);
  };
  for (int64_t s = 0; s < n; ++s)
    order[s] = s;
  stable_sort(order, tmp, n, [&](int64_t a, int64_t b) { return compare(a, b) < 0; });
  int64_t groups = 0;
  for (int64_t k = 0; k < n; ++k) {
    if (k == 0 || compare(order[k - 1], order[k]) != 0) {
      first[groups] = order[k]; // the stable sort keeps the first occurrence first
      size[groups++] = 0;
    }
    group_of[order[k]] = groups - 1;
    ++size[groups - 1];
  }
  for (int64_t g = 0; g < groups; ++g)
    out[g] = g;
  if (!sorted)
    stable_sort(out, tmp, groups, [&](int64_t a, int64_t b) { return first[a] < first[b]; });
  for (int64_t p = 0; p < groups; ++p)
    position[out[p]] = p;
  // y as (outer, groups, inner), packed; the rest of the buffer zeroed.
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t p = 0; p < groups; ++p)
      for (int64_t i = 0; i < inner; ++i)
        y[(o * groups + p) * inner + i] = x[(o * n + first[out[p]]) * inner + i];
  for (int64_t e = outer * groups * inner; e < outer * n * inner; ++e)
    y[e] = T(0);
  for (int64_t p = 0; p < n; ++p) {
    if (indices)
      indices[p] = p < groups ? first[out[p]] : 0;
    if (counts)
      counts[p] = p < groups ? size[out[p]] : 0;
  }
  if (inverse)
    for (int64_t s = 0; s < n; ++s)
      inverse[s] = position[group_of[s]];
  *extent = groups;
}

} // namespace ref
} // namespace onnxc_rt

#endif
