// Reference N-d convolution and pooling (NCHW-style layouts, any spatial rank).
#ifndef ONNXC_RT_REF_CONV_H
#define ONNXC_RT_REF_CONV_H

#include <cmath>

#include "onnxc_rt/base.h"

namespace onnxc_rt {
namespace ref {

/// One window op over `rank` spatial dims. `in`/`out` are full (N, C,
/// spatial...) shapes; the other arrays have one value per spatial dim.
/// Kernels take these as flat arguments (plain C ABI) and bundle them here.
struct WindowShape {
  int64_t rank;
  const int64_t *in;
  const int64_t *out;
  const int64_t *kernel;
  const int64_t *strides;
  const int64_t *pads_begin;
  const int64_t *pads_end;
  const int64_t *dilations;
};

namespace detail {
/// Batch, channel and size figures a convolution-like kernel derives from
/// its window (group splits the channels).
struct ConvDims {
  int64_t n, c, m, cg, mg, in_sp, out_sp, ksize;
};
} // namespace detail

#define ONNXC_WINDOW_PARAMS                                                    \
  int64_t rank, const int64_t *in_shape, const int64_t *out_shape,             \
      const int64_t *kernel, const int64_t *strides,                           \
      const int64_t *pads_begin, const int64_t *pads_end,                      \
      const int64_t *dilations
#define ONNXC_WINDOW_SHAPE                                                     \
  WindowShape s { rank, in_shape, out_shape, kernel, strides, pads_begin,      \
                  pads_end, dilations }

namespace detail {
/// Visits the in-bounds input positions of the window for one output
/// position `opos`; `f(input_offset, kernel_offset)` gets flat spatial
/// offsets (host and CUDA). Returns the number of in-bounds positions; `total` receives the
/// window size counting padding (for count_include_pad) clipped to the
/// padded input.
template <typename F>
ONNXC_RT_HD int64_t for_window(const WindowShape &s, const int64_t *opos, F &&f,
                               int64_t *total) {
  int64_t kidx[kMaxRank] = {};
  int64_t ksize = product(s.kernel, s.rank);
  int64_t count = 0, all = 0;
  for (int64_t kf = 0; kf < ksize; ++kf) {
    int64_t ioff = 0, inside = 1, inpad = 1;
    for (int64_t d = 0; d < s.rank; ++d) {
      int64_t pos = opos[d] * s.strides[d] - s.pads_begin[d] + kidx[d] * s.dilations[d];
      int64_t dim = s.in[2 + d];
      if (pos < 0 || pos >= dim)
        inside = 0;
      // count_include_pad counts positions in [-pads_begin, dim + pads_end).
      if (pos >= dim + s.pads_end[d])
        inpad = 0;
      ioff = ioff * dim + pos;
    }
    if (inside) {
      f(ioff, kf);
      ++count;
    }
    all += inpad;
    for (int64_t d = s.rank - 1; d >= 0; --d) {
      if (++kidx[d] < s.kernel[d])
        break;
      kidx[d] = 0;
    }
  }
  if (total)
    *total = all;
  return count;
}

inline ConvDims conv_dims(const WindowShape &s, int64_t group) {
  const int64_t c = s.in[1], m = s.out[1];
  return {s.in[0], c, m, c / group, m / group, product(s.in + 2, s.rank),
          product(s.out + 2, s.rank), product(s.kernel, s.rank)};
}

/// Iterates over output spatial positions.
inline bool next_position(int64_t rank, const int64_t *out_spatial, int64_t *pos) {
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (++pos[d] < out_spatial[d])
      return true;
    pos[d] = 0;
  }
  return false;
}
} // namespace detail

/// Y = conv(X - x_zp, W - w_zp) + B with groups, accumulated in TAcc. W is
/// (M, C/group, kernel...). B may be null. Zero points (may be null) are a
/// scalar for X and a scalar or one per output channel (w_zp_count) for W:
/// the integer convolutions (ConvInteger, QLinearConv) and the float one
/// (no zero points) are this one loop.
template <typename TX, typename TW, typename TAcc>
void conv_acc(const TX *x, const TW *w, const TX *x_zp, const TW *w_zp,
              int64_t w_zp_count, const TAcc *bias, TAcc *y, ONNXC_WINDOW_PARAMS,
              int64_t group) {
  const ONNXC_WINDOW_SHAPE;
  const detail::ConvDims dims = detail::conv_dims(s, group);
  const int64_t n = dims.n, c = dims.c, m = dims.m, cg = dims.cg, mg = dims.mg;
  const int64_t in_sp = dims.in_sp, out_sp = dims.out_sp, ksize = dims.ksize;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t oc = 0; oc < m; ++oc) {
      const int64_t g = oc / mg;
      const TAcc xz = x_zp ? TAcc(*x_zp) : TAcc(0);
      const TAcc wz = w_zp ? TAcc(w_zp[w_zp_count > 1 ? oc : 0]) : TAcc(0);
      TAcc *yp = y + (b * m + oc) * out_sp;
      int64_t pos[kMaxRank] = {};
      int64_t o = 0;
      do {
        TAcc acc = bias ? bias[oc] : TAcc(0);
        for (int64_t ic = 0; ic < cg; ++ic) {
          const TX *xp = x + (b * c + g * cg + ic) * in_sp;
          const TW *wp = w + (oc * cg + ic) * ksize;
          detail::for_window(s, pos, [&](int64_t ioff, int64_t koff) {
            acc += (TAcc(xp[ioff]) - xz) * (TAcc(wp[koff]) - wz);
          }, nullptr);
        }
        yp[o++] = acc;
      } while (detail::next_position(s.rank, s.out + 2, pos));
    }
  }
}

/// Float convolution: conv_acc without zero points.
template <typename T>
void conv(const T *x, const T *w, const T *bias, T *y, ONNXC_WINDOW_PARAMS,
          int64_t group) {
  conv_acc<T, T, T>(x, w, nullptr, nullptr, 0, bias, y, rank, in_shape, out_shape,
                    kernel, strides, pads_begin, pads_end, dilations, group);
}

/// Transposed convolution: every input element scatters through the
/// kernel. W is (C, M/group, kernel...); B (may be null) has M entries.
template <typename T>
void conv_transpose(const T *x, const T *w, const T *bias, T *y, ONNXC_WINDOW_PARAMS,
                    int64_t group) {
  const ONNXC_WINDOW_SHAPE;
  const detail::ConvDims dims = detail::conv_dims(s, group);
  const int64_t n = dims.n, c = dims.c, m = dims.m, cg = dims.cg, mg = dims.mg;
  const int64_t in_sp = dims.in_sp, out_sp = dims.out_sp, ksize = dims.ksize;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t oc = 0; oc < m; ++oc)
      for (int64_t i = 0; i < out_sp; ++i)
        y[(b * m + oc) * out_sp + i] = bias ? bias[oc] : T(0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ic = 0; ic < c; ++ic) {
      const int64_t g = ic / cg;
      const T *xp = x + (b * c + ic) * in_sp;
      int64_t pos[kMaxRank] = {};
      for (int64_t ip = 0; ip < in_sp; ++ip) {
        const T xv = xp[ip];
        int64_t kidx[kMaxRank] = {};
        for (int64_t kf = 0; kf < ksize; ++kf) {
          int64_t ooff = 0;
          bool inside = true;
          for (int64_t d = 0; d < s.rank; ++d) {
            int64_t o = pos[d] * s.strides[d] - s.pads_begin[d] + kidx[d] * s.dilations[d];
            if (o < 0 || o >= s.out[2 + d])
              inside = false;
            ooff = ooff * s.out[2 + d] + o;
          }
          if (inside)
            for (int64_t oc = 0; oc < mg; ++oc)
              y[(b * m + g * mg + oc) * out_sp + ooff] +=
                  xv * w[(ic * mg + oc) * ksize + kf];
          for (int64_t d = s.rank - 1; d >= 0; --d) {
            if (++kidx[d] < s.kernel[d])
              break;
            kidx[d] = 0;
          }
        }
        detail::next_position(s.rank, s.in + 2, pos);
      }
    }
}

namespace detail {
/// MaxUnpool's rule for one index k: its offset in y (k names a position of
/// the unpooled shape `pool_shape`, placed at the same coordinates of y's
/// shape, which may be larger), or -1 where it falls outside. Host and CUDA.
ONNXC_RT_HD inline int64_t max_unpool_target(int64_t k, int64_t rank, const int64_t *pool_shape,
                                             const int64_t *out_shape) {
  if (k < 0 || k >= product(pool_shape, rank))
    return -1;
  int64_t coord[kMaxRank];
  for (int64_t d = rank - 1; d >= 0; --d) {
    coord[d] = k % pool_shape[d];
    k /= pool_shape[d];
  }
  int64_t off = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (coord[d] >= out_shape[d])
      return -1;
    off = off * out_shape[d] + coord[d];
  }
  return off;
}
} // namespace detail

/// MaxUnpool: y = 0, then x[i] goes to the position indices[i] names
/// (detail::max_unpool_target); where two name the same, the later wins.
template <typename T, typename I>
void max_unpool(const T *x, const I *indices, T *y, int64_t rank, const int64_t *pool_shape,
                const int64_t *out_shape, int64_t n_in) {
  const int64_t n_out = product(out_shape, rank);
  for (int64_t i = 0; i < n_out; ++i)
    y[i] = T(0);
  for (int64_t i = 0; i < n_in; ++i) {
    const int64_t off =
        detail::max_unpool_target(static_cast<int64_t>(indices[i]), rank, pool_shape, out_shape);
    if (off >= 0)
      y[off] = x[i];
  }
}

namespace detail {
/// Max pooling's output at window position `pos` of plane xp (row-major
/// spatial offsets); returns the chosen element's spatial index, row-major
/// (storage_order 0) or with the first spatial dim fastest (1). Host and
/// CUDA.
template <typename T>
ONNXC_RT_HD int64_t max_pool_one(const T *xp, const WindowShape &s, const int64_t *pos,
                                 int64_t storage_order, T &best) {
  bool found = false;
  best = T(0);
  int64_t best_idx = 0;
  // Selects, not a branch on the data: the time a window takes does
  // not depend on where its maximum is (docs/design.md, timing).
  for_window(s, pos, [&](int64_t ioff, int64_t) {
    const T v = xp[ioff];
    const bool take = !found || v > best;
    best = take ? v : best;
    best_idx = take ? ioff : best_idx;
    found = true;
  }, nullptr);
  if (!storage_order)
    return best_idx;
  int64_t rest = best_idx, cm = 0, stride = 1, at[kMaxRank];
  for (int64_t d = s.rank - 1; d >= 0; --d) {
    at[d] = rest % s.in[2 + d];
    rest /= s.in[2 + d];
  }
  for (int64_t d = 0; d < s.rank; ++d) {
    cm += at[d] * stride;
    stride *= s.in[2 + d];
  }
  return cm;
}

/// Average pooling's output at window position `pos` of plane xp. Host and
/// CUDA.
template <typename T>
ONNXC_RT_HD T avg_pool_one(const T *xp, const WindowShape &s, const int64_t *pos,
                           int64_t count_include_pad) {
  T sum = T(0);
  int64_t total = 0;
  const int64_t count = for_window(s, pos, [&](int64_t ioff, int64_t) { sum += xp[ioff]; },
                                   &total);
  const int64_t div = count_include_pad ? total : count;
  return div > 0 ? T(sum / T(div)) : T(0);
}
} // namespace detail

/// Max pooling; `indices` (may be null) receives the flat index of the
/// chosen element: row-major spatial (storage_order 0) or column-major (1).
template <typename T>
void max_pool(const T *x, T *y, int64_t *indices, ONNXC_WINDOW_PARAMS,
              int64_t storage_order) {
  const ONNXC_WINDOW_SHAPE;
  const int64_t nc = s.in[0] * s.in[1];
  const int64_t in_sp = product(s.in + 2, s.rank);
  const int64_t out_sp = product(s.out + 2, s.rank);
  for (int64_t p = 0; p < nc; ++p) {
    int64_t pos[kMaxRank] = {};
    int64_t o = 0;
    do {
      const int64_t spatial =
          detail::max_pool_one(x + p * in_sp, s, pos, storage_order, y[p * out_sp + o]);
      if (indices)
        indices[p * out_sp + o] = p * in_sp + spatial;
      ++o;
    } while (detail::next_position(s.rank, s.out + 2, pos));
  }
}

template <typename T>
void avg_pool(const T *x, T *y, ONNXC_WINDOW_PARAMS, int64_t count_include_pad) {
  const ONNXC_WINDOW_SHAPE;
  const int64_t nc = s.in[0] * s.in[1];
  const int64_t in_sp = product(s.in + 2, s.rank);
  const int64_t out_sp = product(s.out + 2, s.rank);
  for (int64_t p = 0; p < nc; ++p) {
    int64_t pos[kMaxRank] = {};
    int64_t o = 0;
    do
      y[p * out_sp + o++] = detail::avg_pool_one(x + p * in_sp, s, pos, count_include_pad);
    while (detail::next_position(s.rank, s.out + 2, pos));
  }
}

/// Mean (is_max = 0) or maximum (is_max = 1) over the spatial dims.
template <typename T>
void global_pool(const T *x, T *y, int64_t nc, int64_t spatial, int64_t is_max) {
  for (int64_t p = 0; p < nc; ++p) {
    const T *xp = x + p * spatial;
    if (is_max) {
      T acc = xp[0];
      for (int64_t i = 0; i < spatial; ++i)
        acc = xp[i] > acc ? xp[i] : acc;
      y[p] = acc;
      continue;
    }
    // Eight interleaved partial sums: independent adds the compiler turns
    // into one vector add, instead of one serial chain.
    constexpr int64_t kParts = 8;
    T part[kParts];
    for (int64_t k = 0; k < kParts; ++k)
      part[k] = T(0);
    const int64_t whole = spatial / kParts * kParts;
    for (int64_t i = 0; i < whole; i += kParts)
      for (int64_t k = 0; k < kParts; ++k)
        part[k] = T(part[k] + xp[i + k]);
    T acc = T(0);
    for (int64_t k = 0; k < kParts; ++k)
      acc = T(acc + part[k]);
    for (int64_t i = whole; i < spatial; ++i)
      acc = T(acc + xp[i]);
    y[p] = T(acc / T(spatial));
  }
}

} // namespace ref
} // namespace onnxc_rt

#undef ONNXC_WINDOW_PARAMS
#undef ONNXC_WINDOW_SHAPE

#endif
