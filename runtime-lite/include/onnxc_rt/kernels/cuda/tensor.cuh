// CUDA data movement: Transpose, Slice, the parts of a Concat or Split,
// Gather and GatherElements, Tile, Pad, Trilu, one output element per
// thread, CumSum and TopK, one line per thread, and NonZero and Unique, one
// block; the index rules are the reference's (ref::gather_index,
// detail::wrap_index, pad_source, trilu_keeps, cumsum_line, topk_line,
// nonzero_index, unique_compare).
#ifndef ONNXC_RT_CUDA_TENSOR_CUH
#define ONNXC_RT_CUDA_TENSOR_CUH

#include "onnxc_rt/kernels/cuda/common.cuh"
#include "onnxc_rt/kernels/reference/tensor.h"

namespace onnxc_rt {
namespace cuda {
namespace detail {

/// y[i] = x[base + sum_d index_d(i) * read[d]] over the row-major `shape`.
template <typename T>
__global__ void strided_gather(const T *x, T *y, int64_t n, int rank, Dims shape, Dims read,
                               int64_t base) {
  const Dims strides[1] = {read};
  ONNXC_CUDA_FOR(i, n) {
    int64_t off[1];
    strided_offsets<1>(i, n, rank, shape, strides, off);
    y[i] = x[base + off[0]];
  }
}

template <typename T>
__global__ void concat_part_kernel(const T *x, T *y, int64_t outer, int64_t inner_in,
                                   int64_t inner_out, int64_t offset) {
  ONNXC_CUDA_FOR(i, outer * inner_in) {
    y[(i / inner_in) * inner_out + offset + i % inner_in] = x[i];
  }
}

template <typename T>
__global__ void split_part_kernel(const T *x, T *y, int64_t outer, int64_t inner_in,
                                  int64_t inner_out, int64_t offset) {
  ONNXC_CUDA_FOR(i, outer * inner_out) {
    y[i] = x[(i / inner_out) * inner_in + offset + i % inner_out];
  }
}

template <typename T, typename I>
__global__ void gather_kernel(const T *data, const I *indices, T *y, int64_t outer,
                              int64_t axis_dim, int64_t inner, int64_t n_indices) {
  ONNXC_CUDA_FOR(i, outer * n_indices * inner) {
    const int64_t in = i % inner, j = (i / inner) % n_indices, o = i / (inner * n_indices);
    y[i] = data[(o * axis_dim + ref::gather_index(indices[j], axis_dim)) * inner + in];
  }
}

template <typename T, typename I>
__global__ void gather_elements_kernel(const T *data, const I *indices, T *y, int64_t n,
                                       int rank, Dims data_strides, Dims idx_shape, int axis,
                                       int64_t axis_dim) {
  ONNXC_CUDA_FOR(i, n) {
    int64_t rest = i, off = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t c = rest % idx_shape.v[d];
      rest /= idx_shape.v[d];
      off += (d == axis ? ref::detail::wrap_index(int64_t(indices[i]), axis_dim) : c) *
             data_strides.v[d];
    }
    y[i] = data[off];
  }
}

} // namespace detail

template <typename T>
void split_part(Stream *stream, const T *x, T *y, int64_t outer, int64_t inner_in,
                int64_t inner_out, int64_t offset) {
  launch_over(outer * inner_out, detail::split_part_kernel<T>, stream, x, y, outer, inner_in,
              inner_out, offset);
}

template <typename T, typename I>
void gather(Stream *stream, const T *data, const I *indices, T *y, int64_t outer,
            int64_t axis_dim, int64_t inner, int64_t n_indices) {
  const int64_t n = outer * n_indices * inner;
  launch_over(n, detail::gather_kernel<T, I>, stream, data, indices, y, outer, axis_dim, inner,
              n_indices);
}

template <typename T, typename I>
void gather_elements(Stream *stream, const T *data, const I *indices, T *y, int64_t rank,
                     const int64_t *data_shape, const int64_t *idx_shape, int64_t axis) {
  const int64_t n = product(idx_shape, rank);
  launch_over(n, detail::gather_elements_kernel<T, I>, stream, data, indices, y, n, int(rank),
              row_major(data_shape, rank), dims_of(idx_shape, rank), int(axis), data_shape[axis]);
}

template <typename T>
void transpose(Stream *stream, const T *x, T *y, int64_t rank, const int64_t *in_shape,
               const int64_t *perm) {
  const Dims in_strides = row_major(in_shape, rank);
  Dims out_shape{}, read{};
  for (int64_t i = 0; i < rank; ++i) {
    out_shape.v[i] = in_shape[perm[i]];
    read.v[i] = in_strides.v[perm[i]];
  }
  const int64_t n = product(out_shape.v, rank);
  launch_over(n, detail::strided_gather<T>, stream, x, y, n, int(rank), out_shape, read, 0);
}

template <typename T>
void slice(Stream *stream, const T *x, T *y, int64_t rank, const int64_t *in_shape,
           const int64_t *out_shape, const int64_t *starts, const int64_t *steps) {
  const Dims in_strides = row_major(in_shape, rank);
  Dims read{};
  int64_t base = 0;
  for (int64_t d = 0; d < rank; ++d) {
    base += starts[d] * in_strides.v[d];
    read.v[d] = steps[d] * in_strides.v[d];
  }
  const int64_t n = product(out_shape, rank);
  launch_over(n, detail::strided_gather<T>, stream, x, y, n, int(rank), dims_of(out_shape, rank),
              read, base);
}

template <typename T>
void concat_part(Stream *stream, const T *x, T *y, int64_t outer, int64_t inner_in,
                 int64_t inner_out, int64_t offset) {
  launch_over(outer * inner_in, detail::concat_part_kernel<T>, stream, x, y, outer, inner_in,
              inner_out, offset);
}

namespace detail {

/// Tile (pads null) or Pad: output element i of the row-major out_shape
/// from x, each coordinate mapped by ref::detail::pad_source (Tile: wrap
/// with no offset).
template <typename T>
__global__ void tile_pad_kernel(const T *x, T *y, int64_t n, int rank, Dims in_shape,
                                Dims in_strides, Dims out_shape, Dims pads_begin, int mode,
                                const T *value) {
  ONNXC_CUDA_FOR(i, n) {
    int64_t rest = i, off = 0;
    bool outside = false;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t c = rest % out_shape.v[d];
      rest /= out_shape.v[d];
      off += ref::detail::pad_source(c - pads_begin.v[d], in_shape.v[d], mode, outside) *
             in_strides.v[d];
    }
    y[i] = outside ? (value ? *value : T(0)) : x[off];
  }
}

template <typename T>
__global__ void trilu_kernel(const T *x, T *y, int64_t n, int64_t rows, int64_t cols, int64_t k,
                             int upper) {
  ONNXC_CUDA_FOR(o, n) {
    const int64_t j = o % cols, i = (o / cols) % rows;
    y[o] = ref::detail::trilu_keeps(i, j, k, upper) ? x[o] : T(0);
  }
}

template <typename T>
__global__ void cumsum_kernel(const T *x, T *y, int64_t outer, int64_t n, int64_t inner,
                              int exclusive, int reverse) {
  ONNXC_CUDA_FOR(line, outer * inner) {
    const int64_t o = line / inner, in = line % inner;
    ref::detail::cumsum_line(x, y, n, inner, o * n * inner + in, exclusive, reverse);
  }
}

/// One TopK line a thread (ref::detail::topk_line); the grid's first
/// thread writes the run's count (also when there are no lines).
template <typename T>
__global__ void topk_kernel(const T *x, T *values, int64_t *indices, int64_t outer, int64_t n,
                            int64_t inner, int64_t k, int64_t largest, int64_t sorted,
                            int64_t *extent, const int64_t *k_run, const int64_t *n_run) {
  const int64_t picks = ref::detail::topk_picks(n, k, k_run, n_run);
  const int64_t real_n = run_count(n, n_run);
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *extent = picks;
  ONNXC_CUDA_FOR(line, outer * inner) {
    const int64_t o = line / inner, in = line % inner;
    ref::detail::topk_line(x + o * n * inner + in, values + o * k * inner + in,
                           indices + o * k * inner + in, real_n, inner, k, picks, largest,
                           sorted);
  }
}

/// NonZero in one block: the non-zero elements counted, then the tiles of
/// blockDim.x elements in order, each element's place the count before it
/// (block_exclusive_scan), so the tuples come in the reference's order.
template <typename T>
__global__ void nonzero_kernel(const T *x, int64_t *y, int64_t *extent, int64_t rank,
                               Dims shape, int64_t numel, int64_t transposed) {
  __shared__ int64_t part[kThreads];
  const int64_t t = threadIdx.x;
  int64_t mine = 0, count = 0, base = 0;
  for (int64_t i = t; i < numel; i += blockDim.x)
    mine += x[i] != T(0);
  block_exclusive_scan(mine, part, count);
  for (int64_t tile = 0; tile < numel; tile += blockDim.x) {
    const int64_t i = tile + t;
    const bool kept = i < numel && x[i] != T(0);
    int64_t in_tile = 0;
    const int64_t before = block_exclusive_scan(kept, part, in_tile);
    if (kept)
      ref::detail::nonzero_index(i, base + before, count, y, rank, shape.v, transposed);
    base += in_tile;
  }
  for (int64_t i = rank * count + t; i < rank * numel; i += blockDim.x)
    y[i] = 0;
  if (t == 0)
    *extent = count;
}

/// Unique in one block, each slice's figures by comparing it with the
/// others (ref::detail::unique_compare): the first slice equal to it, then
/// for each first slice its group's place (the distinct slices before it
/// in value, or the first slices before it in index, unsorted) and size;
/// the same groups, order and outputs as the reference's sorts.
template <typename T>
__global__ void unique_kernel(const T *x, T *y, int64_t *indices, int64_t *inverse,
                              int64_t *counts, int64_t *extent, int64_t outer, int64_t n,
                              int64_t inner, int64_t sorted, int64_t *scratch) {
  __shared__ int64_t part[kThreads];
  int64_t *first_of = scratch, *place = scratch + n, *size = scratch + 2 * n;
  const int64_t t = threadIdx.x;
  int64_t mine = 0, groups = 0;
  for (int64_t s = t; s < n; s += blockDim.x) {
    int64_t f = s;
    for (int64_t u = 0; u < s && f == s; ++u)
      if (ref::detail::unique_compare(x, u, s, outer, n, inner) == 0)
        f = u;
    first_of[s] = f;
    mine += f == s;
  }
  block_exclusive_scan(mine, part, groups); // (its barriers publish first_of)
  for (int64_t s = t; s < n; s += blockDim.x) {
    if (first_of[s] != s)
      continue;
    int64_t before = 0, count = 0;
    for (int64_t u = 0; u < n; ++u) {
      const int c = ref::detail::unique_compare(x, u, s, outer, n, inner);
      count += c == 0;
      before += first_of[u] == u && (sorted ? c < 0 : u < s);
    }
    place[s] = before;
    size[s] = count;
  }
  __syncthreads();
  for (int64_t s = t; s < n; s += blockDim.x) {
    if (inverse)
      inverse[s] = place[first_of[s]];
    if (first_of[s] != s)
      continue;
    const int64_t p = place[s];
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        y[(o * groups + p) * inner + i] = x[(o * n + s) * inner + i];
    if (indices)
      indices[p] = s;
    if (counts)
      counts[p] = size[s];
  }
  for (int64_t e = outer * groups * inner + t; e < outer * n * inner; e += blockDim.x)
    y[e] = T(0);
  for (int64_t p = groups + t; p < n; p += blockDim.x) {
    if (indices)
      indices[p] = 0;
    if (counts)
      counts[p] = 0;
  }
  if (t == 0)
    *extent = groups;
}

} // namespace detail

template <typename T>
void tile(Stream *stream, const T *x, T *y, int64_t rank, const int64_t *in_shape,
          const int64_t *out_shape) {
  const int64_t n = product(out_shape, rank);
  // Pad's kernel in wrap mode (3): an output coordinate c reads c mod the input's dim.
  launch_over(n, detail::tile_pad_kernel<T>, stream, x, y, n, int(rank), dims_of(in_shape, rank),
              row_major(in_shape, rank), dims_of(out_shape, rank), Dims{}, 3,
              static_cast<const T *>(nullptr));
}

template <typename T>
void pad(Stream *stream, const T *x, T *y, int64_t rank, const int64_t *in_shape,
         const int64_t *out_shape, const int64_t *pads_begin, int64_t mode, const T *value) {
  const int64_t n = product(out_shape, rank);
  launch_over(n, detail::tile_pad_kernel<T>, stream, x, y, n, int(rank), dims_of(in_shape, rank),
              row_major(in_shape, rank), dims_of(out_shape, rank), dims_of(pads_begin, rank),
              int(mode), value);
}

template <typename T>
void trilu(Stream *stream, const T *x, T *y, int64_t batch, int64_t rows, int64_t cols,
           int64_t k, int64_t upper) {
  const int64_t n = batch * rows * cols;
  launch_over(n, detail::trilu_kernel<T>, stream, x, y, n, rows, cols, k, int(upper));
}

template <typename T>
void cumsum(Stream *stream, const T *x, T *y, int64_t outer, int64_t n, int64_t inner,
            int64_t exclusive, int64_t reverse) {
  if (outer * n * inner > 0)
    launch(detail::cumsum_kernel<T>, blocks_for(outer * inner), kThreads, stream, x, y, outer,
           n, inner, int(exclusive), int(reverse));
}

/// TopK along the middle dim of (outer, n, inner): one line a thread, as
/// the reference picks (its count to *extent, a device word like the
/// outputs).
template <typename T>
void topk(Stream *stream, const T *x, T *values, int64_t *indices, int64_t outer, int64_t n,
          int64_t inner, int64_t k, int64_t largest, int64_t sorted, int64_t *extent,
          const int64_t *k_run, const int64_t *n_run) {
  launch(detail::topk_kernel<T>, blocks_for(outer * inner), kThreads, stream, x, values,
         indices, outer, n, inner, k, largest, sorted, extent, k_run, n_run);
}

/// NonZero as the reference packs it (its count to *extent), one block.
template <typename T>
void nonzero(Stream *stream, const T *x, int64_t *y, int64_t *extent, int64_t rank,
             const int64_t *shape, int64_t numel, int64_t transposed) {
  launch(detail::nonzero_kernel<T>, 1, kThreads, stream, x, y, extent, rank,
         dims_of(shape, rank), numel, transposed);
}

/// Unique as the reference gives it (its count to *extent), one block;
/// scratch: the reference's (kUniqueScratchPerSlice >= 3 int64 a slice).
template <typename T>
void unique(Stream *stream, const T *x, T *y, int64_t *indices, int64_t *inverse,
            int64_t *counts, int64_t *extent, int64_t outer, int64_t n, int64_t inner,
            int64_t sorted, int64_t *scratch) {
  static_assert(ref::kUniqueScratchPerSlice >= 3, "unique_kernel keeps 3 figures a slice");
  launch(detail::unique_kernel<T>, 1, kThreads, stream, x, y, indices, inverse, counts, extent,
         outer, n, inner, sorted, scratch);
}

namespace detail {
template <typename I, typename T>
__global__ void one_hot_kernel(const I *indices, const T *values, T *y, int64_t outer,
                               int64_t depth, int64_t inner) {
  ONNXC_CUDA_FOR(e, outer * depth * inner) {
    const int64_t i = e % inner, d = e / inner % depth, o = e / (inner * depth);
    y[e] = d == ref::detail::one_hot_index(indices[o * inner + i], depth) ? values[1]
                                                                          : values[0];
  }
}
} // namespace detail

/// OneHot, one output a thread (ref::detail::one_hot_index).
template <typename I, typename T>
void one_hot(Stream *stream, const I *indices, const T *values, T *y, int64_t outer,
             int64_t depth, int64_t inner) {
  launch_over(outer * depth * inner, detail::one_hot_kernel<I, T>, stream, indices, values, y,
              outer, depth, inner);
}

namespace detail {
template <typename T> __global__ void eye_like_kernel(T *y, int64_t rows, int64_t cols, int64_t k) {
  ONNXC_CUDA_FOR(i, rows * cols) { y[i] = T(i % cols - i / cols == k ? 1 : 0); }
}

/// One output element a thread: its slice's index tuple read by the
/// reference's gather_index (negative from the end, out of range 0).
template <typename T, typename I>
__global__ void gather_nd_kernel(const T *data, const I *indices, T *y, int64_t total, int64_t n,
                                 int k, Dims data_dims, int64_t batch_stride, int64_t slice) {
  ONNXC_CUDA_FOR(i, total) {
    const int64_t row = i / slice, b = row / n;
    const I *tuple = indices + row * k;
    int64_t off = 0;
    for (int d = 0; d < k; ++d)
      off = off * data_dims.v[d] + ref::gather_index(tuple[d], data_dims.v[d]);
    y[i] = data[b * batch_stride + off * slice + i % slice];
  }
}
} // namespace detail

/// EyeLike: ones on diagonal k of a rows x cols matrix.
template <typename T> void eye_like(Stream *stream, T *y, int64_t rows, int64_t cols, int64_t k) {
  launch_over(rows * cols, detail::eye_like_kernel<T>, stream, y, rows, cols, k);
}

/// GatherND: ref::gather_nd's arguments (batch, n tuples of k indices,
/// slices of `slice` elements).
template <typename T, typename I>
void gather_nd(Stream *stream, const T *data, const I *indices, T *y, int64_t batch, int64_t n,
               int64_t k, const int64_t *data_dims, int64_t batch_stride, int64_t slice) {
  const int64_t total = batch * n * slice;
  launch_over(total, detail::gather_nd_kernel<T, I>, stream, data, indices, y, total, n, int(k),
              dims_of(data_dims, k), batch_stride, slice);
}

namespace detail {
/// ScatterElements, a thread per line along the axis (the indices' other
/// coordinates fixed): updates of different lines never meet, and a
/// line's run in the reference's order, so duplicates resolve (and
/// reductions round) as on the host.
template <typename T, typename I>
__global__ void scatter_elements_lines(const I *indices, const T *updates, T *y, int64_t lines,
                                       int rank, Dims idx_shape, Dims idx_strides,
                                       Dims data_strides, int axis, int64_t axis_dim,
                                       int reduction) {
  ONNXC_CUDA_FOR(line, lines) {
    int64_t rest = line, first = 0, off = 0;
    for (int d = rank - 1; d >= 0; --d) {
      if (d == axis)
        continue;
      const int64_t c = rest % idx_shape.v[d];
      rest /= idx_shape.v[d];
      first += c * idx_strides.v[d];
      off += c * data_strides.v[d];
    }
    for (int64_t a = 0; a < idx_shape.v[axis]; ++a) {
      const int64_t i = first + a * idx_strides.v[axis];
      const int64_t at = ref::detail::wrap_index(int64_t(indices[i]), axis_dim);
      ref::detail::reduce_into(y[off + at * data_strides.v[axis]], updates[i], reduction);
    }
  }
}

/// ScatterND, a thread per element of a slice, over the n index tuples in
/// order (as the reference: duplicates resolve the same way).
template <typename T, typename I>
__global__ void scatter_nd_columns(const I *indices, const T *updates, T *y, int64_t n, int k,
                                   Dims data_dims, int64_t slice, int reduction) {
  ONNXC_CUDA_FOR(e, slice) {
    for (int64_t j = 0; j < n; ++j) {
      int64_t off = 0;
      for (int d = 0; d < k; ++d)
        off = off * data_dims.v[d] +
              ref::detail::wrap_index(int64_t(indices[j * k + d]), data_dims.v[d]);
      ref::detail::reduce_into(y[off * slice + e], updates[j * slice + e], reduction);
    }
  }
}
} // namespace detail

template <typename T, typename I>
void scatter_elements(Stream *stream, const T *data, const I *indices, const T *updates, T *y,
                      int64_t rank, const int64_t *data_shape, const int64_t *idx_shape,
                      int64_t axis, int64_t reduction) {
  copy_bytes(stream, data, y, size_t(product(data_shape, rank)) * sizeof(T));
  const int64_t n = product(idx_shape, rank);
  if (n == 0)
    return;
  const int64_t lines = n / idx_shape[axis];
  launch(detail::scatter_elements_lines<T, I>, blocks_for(lines), kThreads, stream, indices,
         updates, y, lines, int(rank), dims_of(idx_shape, rank), row_major(idx_shape, rank),
         row_major(data_shape, rank), int(axis), data_shape[axis], int(reduction));
}

template <typename T, typename I>
void scatter_nd(Stream *stream, const T *data, const I *indices, const T *updates, T *y,
                int64_t total, int64_t n, int64_t k, const int64_t *data_dims, int64_t slice,
                int64_t reduction) {
  copy_bytes(stream, data, y, size_t(total) * sizeof(T));
  if (n > 0 && slice > 0)
    launch(detail::scatter_nd_columns<T, I>, blocks_for(slice), kThreads, stream, indices,
           updates, y, n, int(k), dims_of(data_dims, k), slice, int(reduction));
}

namespace detail {
template <typename T, typename L>
__global__ void reverse_sequence_kernel(const T *x, const L *lens, T *y, int64_t batch,
                                        int64_t time, int64_t batch_stride, int64_t time_stride,
                                        int64_t total) {
  ONNXC_CUDA_FOR(i, total) {
    y[i] = x[ref::reverse_sequence_source(i, lens, batch, time, batch_stride, time_stride)];
  }
}
} // namespace detail

/// ReverseSequence, one element a thread by ref::reverse_sequence_source.
template <typename T, typename L>
void reverse_sequence(Stream *stream, const T *x, const L *lens, T *y, int64_t batch,
                      int64_t time, int64_t batch_stride, int64_t time_stride, int64_t inner,
                      int64_t total) {
  (void)inner;
  launch_over(total, detail::reverse_sequence_kernel<T, L>, stream, x, lens, y, batch, time,
              batch_stride, time_stride, total);
}

} // namespace cuda
} // namespace onnxc_rt

#endif
