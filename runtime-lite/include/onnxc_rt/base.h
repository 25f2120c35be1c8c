// onnxc runtime-lite: the few helpers generated code calls besides kernels.
// Rules for everything under onnxc_rt/: no heap, no exceptions, no RTTI, no
// iostream, no static initialisers, no mutable globals; C++17 that also builds
// freestanding for Cortex-M (only <stdint.h>, <stddef.h>, <math.h>-level deps).
#ifndef ONNXC_RT_BASE_H
#define ONNXC_RT_BASE_H

#include <stddef.h>
#include <stdint.h>

/// Marks a function that device code (the CUDA kernels) calls too, so an
/// op's element-wise semantics has one definition for the host and the GPU.
#if defined(__CUDACC__)
#define ONNXC_RT_HD __host__ __device__
#else
#define ONNXC_RT_HD
#endif

namespace onnxc_rt {

/// Alignment of the arena and of every buffer the planner places in it.
constexpr size_t kArenaAlignment = 64;

/// A typed pointer at a byte offset of a buffer (arena or weights blob).
template <typename T, typename Byte>
inline T *at(Byte *base, size_t offset) {
  return reinterpret_cast<T *>(base + offset);
}

/// Byte copy, for graph outputs that alias an input or a constant.
inline void copy_bytes(const void *src, void *dst, size_t n) {
  const unsigned char *s = static_cast<const unsigned char *>(src);
  unsigned char *d = static_cast<unsigned char *>(dst);
  if (s == d)
    return;
  for (size_t i = 0; i < n; ++i)
    d[i] = s[i];
}

/// Marks a parameter as used (models that need no arena ignore theirs).
inline void unused(const void *) {}
inline void unused(int64_t) {}

/// An int64 array made at run time: the shapes of a model with bounded
/// dims (--dim NAME=LO..HI), where they depend on the sizes of the call.
/// Passes as the `const int64_t*` the kernels take.
template <int N> struct DimArray {
  int64_t v[N];
  operator const int64_t *() const { return v; }
};
template <typename... T> constexpr DimArray<sizeof...(T)> dim_array(T... v) {
  return {{static_cast<int64_t>(v)...}};
}

/// Maximum tensor rank the kernels' index arithmetic supports.
constexpr int kMaxRank = 8;

/// Sorts the n indices in `a` so that less(a[i], a[j]) never holds for i > j,
/// keeping equal ones in their order (bottom-up merge sort; `tmp` holds n).
template <typename Less>
void stable_sort(int64_t *a, int64_t *tmp, int64_t n, Less less) {
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      const int64_t mid = lo + width < n ? lo + width : n;
      const int64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi)
        tmp[k++] = less(a[j], a[i]) ? a[j++] : a[i++];
      while (i < mid)
        tmp[k++] = a[i++];
      while (j < hi)
        tmp[k++] = a[j++];
    }
    for (int64_t i = 0; i < n; ++i)
      a[i] = tmp[i];
  }
}

/// Walks the multi-index of a row-major shape; `advance` returns the
/// innermost dimension that moved so callers can update strided offsets.
struct NdIndex {
  int64_t rank;
  const int64_t *shape;
  int64_t idx[kMaxRank];

  NdIndex(int64_t r, const int64_t *s) : rank(r), shape(s), idx{} {}

  /// Increments the index; adds the per-dimension strides of up to three
  /// operands to their offsets. Returns false after the last element.
  template <int N>
  bool next(int64_t (&off)[N], const int64_t *const (&strides)[N]) {
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) {
        for (int k = 0; k < N; ++k)
          off[k] += strides[k][d];
        return true;
      }
      for (int k = 0; k < N; ++k)
        off[k] -= strides[k][d] * (shape[d] - 1);
      idx[d] = 0;
    }
    return false;
  }
};

/// Walks a row-major, non-empty `shape` a row of its innermost dim at a
/// time: row(off, i) with off[k] operand k's offset of the row's first
/// element (strides[k], per dim) and i that element's row-major index. The
/// caller loops over the row itself, so a contiguous or broadcast row is a
/// plain loop the compiler vectorises.
template <int N, typename Row>
void for_each_row(int64_t rank, const int64_t *shape, const int64_t *const (&strides)[N],
                     int64_t (&off)[N], Row &&row) {
  const int64_t inner = rank > 0 ? shape[rank - 1] : 1;
  if (rank <= 1) {
    row(off, int64_t(0));
    return;
  }
  NdIndex it(rank - 1, shape); // the outer dims; strides index by dim
  int64_t i = 0;
  do {
    row(off, i);
    i += inner;
  } while (it.next(off, strides));
}

/// How many of a bound's n rows a run holds when the data decides it:
/// *n_run clamped to [0, n], or n when n_run is null. Host and CUDA.
ONNXC_RT_HD inline int64_t run_count(int64_t n, const int64_t *n_run) {
  return n_run ? (*n_run < 0 ? 0 : *n_run < n ? *n_run : n) : n;
}

ONNXC_RT_HD inline int64_t product(const int64_t *dims, int64_t n) {
  int64_t p = 1;
  for (int64_t i = 0; i < n; ++i)
    p *= dims[i];
  return p;
}

} // namespace onnxc_rt

#endif
