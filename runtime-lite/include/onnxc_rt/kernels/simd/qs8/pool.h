// SIMD qs8 pooling: GlobalAveragePool (the plane's sums through the byte
// dot product with ones) and 2-D max pooling over padded rows.
#ifndef ONNXC_RT_SIMD_QS8_POOL_H
#define ONNXC_RT_SIMD_QS8_POOL_H

#include "onnxc_rt/kernels/simd/qs8/common.h"
#include "onnxc_rt/kernels/simd/qs8/window_plan.h"

namespace onnxc_rt {
namespace simd {
namespace qs8 {

/// GlobalAveragePool of int8 / uint8 planes (reference/qs8.h's
/// average_pool over the whole plane): the plane's sum of x - x_zp in
/// vector lanes, then the reference's average_of. Planes of 16 vectors'
/// bytes or more go 4 * kLanes bytes a vector through the byte dot product
/// with ones (each lane sums 4; four accumulators hide its latency), the
/// rest kLanes at a time widened. `tasks` take runs of the planes (at
/// about 4 bytes a cycle: the planes come from memory or the other core).
template <typename T>
void global_average_pool(const T *x, T *y, int64_t planes, int64_t inner, int32_t x_zp,
                         int32_t y_zp, int32_t multiplier, int32_t shift,
                         TaskRunner *runner = nullptr, int64_t tasks = 1) {
  if (tasks > 1)
    return for_each_split(runner, tasks, planes, 1, planes * inner / 4,
                          [&](int64_t p0, int64_t p1) {
                            global_average_pool(x + p0 * inner, y + p0, p1 - p0, inner, x_zp,
                                                y_zp, multiplier, shift);
                          });
  using namespace detail;
  constexpr int64_t kBytes = 4 * kLanes;
  const VecI ones = VecI::broadcast(0x01010101);
  auto sum4 = [&](VecI acc, const T *p) ONNXC_RT_SIMD_LAMBDA {
    const VecI b = VecI::load(p);
    return std::numeric_limits<T>::min() < 0 ? VecI::dot_u8s8(acc, ones, b)
                                              : VecI::dot_u8s8(acc, b, ones);
  };
  // Plane p's sum from acc (its bytes before i summed in lanes) on.
  auto finish = [&](int64_t p, VecI acc, int64_t i) ONNXC_RT_SIMD_LAMBDA {
    const T *xp = x + p * inner;
    for (; i + kLanes <= inner; i += kLanes)
      acc = VecI::add(acc, VecI::widen(xp + i));
    int64_t sum = 0;
    for (int l = 0; l < kLanes; ++l) // (by lane, not through memory: a
      sum += acc.v[l];               // 64-byte store read back by halves stalls)
    for (; i < inner; ++i)
      sum += xp[i];
    sum -= int64_t(x_zp) * inner;
    y[p] = ::onnxc_rt::ref::qs8::average_of<T>(sum, inner, multiplier, shift, y_zp);
  };
  if (inner < 4 * kBytes) { // small planes: faster widened alone
    for (int64_t p = 0; p < planes; ++p)
      finish(p, VecI::zero(), 0);
    return;
  }
  for (int64_t p = 0; p < planes; ++p) {
    const T *xp = x + p * inner;
    VecI part[4] = {VecI::zero(), VecI::zero(), VecI::zero(), VecI::zero()};
    int64_t i = 0;
    for (; i + 4 * kBytes <= inner; i += 4 * kBytes)
      for (int j = 0; j < 4; ++j)
        part[j] = sum4(part[j], xp + i + j * kBytes);
    for (; i + kBytes <= inner; i += kBytes)
      part[0] = sum4(part[0], xp + i);
    finish(p, VecI::add(VecI::add(part[0], part[1]), VecI::add(part[2], part[3])), i);
  }
}

namespace detail {
/// The widest bytes a max pooling step takes (kPoolBytes): 64 where AVX-512
/// VBMI permutes bytes across a whole register in one instruction
/// (vpermi2b: a stride-2 step's even bytes of 128), else 16 (Bytes).
/// Rows of more than 32 outputs take them (WideBytes; max_pool2d), the
/// others 16: qs8_pool_bench on Zen 5, ResNet-18's pool (56 outputs a row,
/// padded) 67 -> 45 us, SqueezeNet's first (55, in place) 35 -> 25, but
/// its second (27) 21 -> 23 and third (13) 14 -> 22 in 64-byte steps.
#if defined(__AVX512VBMI__)
constexpr int64_t kPoolBytes = 64;
#else
constexpr int64_t kPoolBytes = 16;
#endif
static_assert(2 * kPoolBytes <= kMaxPoolRowSlack, "a stride-2 step reads two vectors");
using WideBytes = uint8_t __attribute__((vector_size(kPoolBytes)));

/// The signed bytes of a byte vector type (max_bytes of int8).
template <typename V> struct SignedBytesOf;
template <> struct SignedBytesOf<Bytes> {
  using type = SignedBytes;
};
#if defined(__AVX512VBMI__)
template <> struct SignedBytesOf<WideBytes> {
  using type = int8_t __attribute__((vector_size(64)));
};
#endif

template <typename V> inline V load_vec(const void *p) {
  V b;
  __builtin_memcpy(&b, p, sizeof b);
  return b;
}
template <typename V> inline void store_vec(void *p, V b) { __builtin_memcpy(p, &b, sizeof b); }

#if defined(__AVX512VBMI__)
/// common.h's store_bytes_first for 64 bytes: the first n (n > 0) at p,
/// one masked store.
inline void store_bytes_first(uint8_t *p, WideBytes b, int64_t n) {
  const __mmask64 first = n >= 64 ? ~__mmask64(0) : (__mmask64(1) << n) - 1;
  _mm512_mask_storeu_epi8(p, first, reinterpret_cast<__m512i>(b));
}
#endif

/// The lane-wise max of int8 or uint8 values.
template <typename T, typename V> inline V max_bytes(V a, V b) {
  if (std::numeric_limits<T>::min() < 0) {
    using S = typename SignedBytesOf<V>::type;
    const S sa = reinterpret_cast<S>(a), sb = reinterpret_cast<S>(b);
    return reinterpret_cast<V>(sa > sb ? sa : sb);
  }
  return a > b ? a : b;
}

/// The maxima of stride-2 windows of kw = 2 or 3 adjacent columns, W =
/// sizeof(V) outputs a step (ox = 0, W, ... below ow), each step's stored
/// by store(ox, m); column(i): the maxima over the window's rows of the W
/// columns from i on. A step's 2W columns give the windows' first columns
/// (even bytes) and second (odd bytes); a third column is the next step's
/// even bytes shifted in by one, so that each column vector is computed
/// once (the last step's from two more). Reads columns [0, 2 * ox_last + 2
/// * W + 2 * kw - 4) as windows_step's steps do.
template <typename T, typename V, typename Column, typename Store>
ONNXC_RT_SIMD_INLINE void stride2_windows(int64_t ow, int64_t kw, Column column, Store store) {
  constexpr int64_t W = sizeof(V);
  V a = column(0), b = column(W);
  V even = even_of(a, b), odd = odd_of(a, b);
  for (int64_t ox = 0; ox < ow; ox += W) {
    V m = max_bytes<T>(even, odd);
    if (ox + W < ow) {
      a = column(2 * ox + 2 * W);
      b = column(2 * ox + 3 * W);
      const V next = even_of(a, b);
      if (kw == 3)
        m = max_bytes<T>(m, next_of(even, next));
      even = next;
      odd = odd_of(a, b);
    } else if (kw == 3) {
      m = max_bytes<T>(m, even_of(column(2 * ox + 2), column(2 * ox + 2 + W)));
    }
    store(ox, m);
  }
}

} // namespace detail

namespace detail {
/// max_pool2d's planes on one thread, in steps of the byte vectors V.
template <typename T, typename V>
__attribute__((noinline)) void
max_pool_planes(const T *x, T *y, const int64_t *in_shape, const int64_t *out_shape,
                const int64_t *kernel, const int64_t *strides, const int64_t *pads_begin,
                const int64_t *dilations, T *scratch) {
  const int64_t h = in_shape[2], w = in_shape[3], oh = out_shape[2], ow = out_shape[3];
  const int64_t kh = kernel[0], kw = kernel[1], sh = strides[0], sw = strides[1];
  const int64_t ph = pads_begin[0], pw = pads_begin[1], dh = dilations[0], dw = dilations[1];
  const int64_t width = (ow - 1) * sw + (kw - 1) * dw + 1;
  constexpr T lowest = std::numeric_limits<T>::lowest();
  // Columns [lo, hi) of the padded row hold input columns.
  const int64_t lo = pw < width ? pw : width, hi = pw + w < width ? pw + w : width;
  // Without left padding, every window whose first column is inside holds
  // an input element; otherwise the edges are checked per row.
  const bool windows_hold_input = pw == 0 && (ow - 1) * sw < w;
  // Output columns whose windows lie wholly inside the input: [inside_lo,
  // inside_hi] (empty when inside_hi < inside_lo).
  const int64_t inside_lo = (pw + sw - 1) / sw,
                inside_hi = w - 1 + pw - (kw - 1) * dw >= 0
                                ? (w - 1 + pw - (kw - 1) * dw) / sw
                                : -1;
  const bool vector_steps = sw == 1 || sw == 2;
  // Stride-2 windows of 2 or 3 adjacent columns (the common max pools)
  // take stride2_windows: half windows_step's loads and maxima.
  const bool pairs = sw == 2 && dw == 1 && (kw == 2 || kw == 3);
  constexpr int64_t W = sizeof(V);
  auto store_first = [&](T *out, int64_t ox, V m) { // whole vectors, then the row's tail
    store_bytes_first(reinterpret_cast<uint8_t *>(out + ox), m, ow - ox);
  };
  // Output rows (of all planes, y's order) go kMaxPoolRows at a time: their
  // padded rows first, then their windows, so that a window's loads come
  // well after the stores they read (a load that straddles two recent
  // stores waits for them to commit).
  const int64_t stride = width + kMaxPoolRowSlack, rows = in_shape[0] * in_shape[1] * oh;
  const T *const x_end = x + in_shape[0] * in_shape[1] * h * w;
  // Where every window lies inside the input (no padding), output rows
  // read it in place: per W outputs, each kernel column's max over the
  // window's input rows (W bytes of each, 2W at stride 2), no padded row
  // and no bookkeeping per row. The rows from the first whose last step
  // would read past x's end on take the padded rows below.
  int64_t direct = 0;
  if (vector_steps && ph == 0 && pw == 0 && (oh - 1) * sh + (kh - 1) * dh < h && width <= w) {
    const int64_t row_step = dh * w;
    const int64_t reach = (kh - 1) * row_step + (ow - 1) / W * W * sw + (kw - 1) * dw + W * sw;
    auto column = [&](const T *c) { // the max of the window rows' W bytes at c
      V m = load_vec<V>(c);
      for (int64_t k = 1; k < kh; ++k)
        m = max_bytes<T>(m, load_vec<V>(c + k * row_step));
      return m;
    };
    auto windows_step = [&](const T *r) {
      V m = sw == 1 ? column(r) : even_of(column(r), column(r + W));
      for (int64_t kx = 1; kx < kw; ++kx) {
        const T *c = r + kx * dw;
        m = max_bytes<T>(m, sw == 1 ? column(c) : even_of(column(c), column(c + W)));
      }
      return m;
    };
    const int64_t x_size = x_end - x;
    bool fits = true;
    for (int64_t p = 0; fits && p < in_shape[0] * in_shape[1]; ++p)
      for (int64_t oy = 0; oy < oh; ++oy, ++direct) {
        const int64_t first = (p * h + oy * sh) * w; // the window rows' first element
        if (first + reach > x_size) {
          fits = false;
          break;
        }
        const T *in0 = x + first;
        T *out = y + direct * ow;
        if (pairs) {
          stride2_windows<T, V>(ow, kw, [&](int64_t i) { return column(in0 + i); },
                             [&](int64_t ox, V m) { store_first(out, ox, m); });
          continue;
        }
        int64_t ox = 0;
        for (; ox + W <= ow; ox += W)
          store_vec(out + ox, windows_step(in0 + ox * sw));
        if (ox < ow)
          store_first(out, ox, windows_step(in0 + ox * sw));
      }
  }
  for (int64_t g0 = direct; g0 < rows; g0 += kMaxPoolRows) {
    const int64_t batch = rows - g0 < kMaxPoolRows ? rows - g0 : kMaxPoolRows;
    bool empty[kMaxPoolRows];
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t p = (g0 + b) / oh, oy = (g0 + b) % oh;
      // The window's input rows are ky in [k0, k1) (iy rises with ky).
      int64_t k0 = 0, k1 = kh;
      while (k0 < kh && oy * sh - ph + k0 * dh < 0)
        ++k0;
      while (k1 > k0 && oy * sh - ph + (k1 - 1) * dh >= h)
        --k1;
      empty[b] = k0 == k1;
      if (empty[b])
        continue;
      // The padded row: `lowest` in the padding columns, the
      // column-wise max of the input rows between, W columns at a time
      // over all rows (each stored once; the last step overlaps the one
      // before).
      T *row = scratch + b * stride;
      fill_bytes(reinterpret_cast<uint8_t *>(row), lo, uint8_t(lowest));
      const T *in0 = x + (p * h + oy * sh - ph + k0 * dh) * w - pw;
      const int64_t in_step = dh * w;
      auto column_max = [&](int64_t i) {
        V m = load_vec<V>(in0 + i);
        for (int64_t k = 1; k < k1 - k0; ++k)
          m = max_bytes<T>(m, load_vec<V>(in0 + k * in_step + i));
        store_vec(row + i, m);
      };
      if (hi - lo >= W) {
        for (int64_t i = lo; i + W <= hi; i += W)
          column_max(i);
        if ((hi - lo) % W)
          column_max(hi - W);
      } else if (in0 + (k1 - k0 - 1) * in_step + lo + W <= x_end) {
        column_max(lo); // a short row: one vector, its columns past hi refilled below
      } else {
        for (int64_t i = lo; i < hi; ++i) {
          T m = in0[i];
          for (int64_t k = 1; k < k1 - k0; ++k)
            m = in0[k * in_step + i] > m ? in0[k * in_step + i] : m;
          row[i] = m;
        }
      }
      // (Past `width` only lanes that no output keeps read the row.)
      fill_bytes(reinterpret_cast<uint8_t *>(row) + hi, width - hi, uint8_t(lowest));
    }
    for (int64_t b = 0; b < batch; ++b) {
      T *out = y + (g0 + b) * ow;
      if (empty[b]) {
        for (int64_t ox = 0; ox < ow; ++ox)
          out[ox] = T(0);
        continue;
      }
      const T *row = scratch + b * stride;
      // The max of W windows starting at column `first`: each kernel
      // column is one load (stride 1) or the even bytes of two (stride 2).
      auto windows_step = [&](int64_t first) {
        const T *r = row + first;
        V m = sw == 1 ? load_vec<V>(r) : even_of(load_vec<V>(r), load_vec<V>(r + W));
        for (int64_t kx = 1; kx < kw; ++kx) {
          const T *c = r + kx * dw;
          m = max_bytes<T>(m, sw == 1 ? load_vec<V>(c) : even_of(load_vec<V>(c), load_vec<V>(c + W)));
        }
        return m;
      };
      int64_t ox = 0;
      if (pairs) {
        stride2_windows<T, V>(ow, kw, [&](int64_t i) { return load_vec<V>(row + i); },
                           [&](int64_t o, V m) { store_first(out, o, m); });
        ox = ow;
      } else if (vector_steps) {
        for (; ox + W <= ow; ox += W)
          store_vec(out + ox, windows_step(ox * sw));
        if (ox < ow) { // the last windows' reads stay in the row's slack
          store_first(out, ox, windows_step(ox * sw));
          ox = ow;
        }
      }
      for (; ox < ow; ++ox) {
        const T *win = row + ox * sw;
        T best = win[0];
        for (int64_t kx = 1; kx < kw; ++kx)
          best = win[kx * dw] > best ? win[kx * dw] : best;
        out[ox] = best;
      }
      if (windows_hold_input)
        continue;
      // Windows at the edges may hold no input column at all (those in
      // [inside_lo, inside_hi] lie wholly inside).
      for (int64_t ox = 0; ox < ow; ++ox) {
        if (ox >= inside_lo && ox <= inside_hi) {
          ox = inside_hi;
          continue;
        }
        const int64_t first = ox * sw - pw;
        bool inside = false;
        for (int64_t kx = 0; kx < kw; ++kx)
          inside = inside || (first + kx * dw >= 0 && first + kx * dw < w);
        if (!inside)
          out[ox] = T(0);
      }
    }
  }
}
} // namespace detail

/// 2-D max pooling of int8 / uint8 planes (reference conv.h's max_pool
/// without indices): per output row, the column-wise max of the window's
/// input rows into a padded row of `scratch` (maxpool_scratch_bytes(...):
/// kMaxPoolRows of them), then the max along each window, many outputs at
/// a time where the stride is 1 or 2 (kPoolBytes a step; a stride-2 step
/// takes the even bytes of twice that; windows of 2 or 3 columns
/// stride2_windows). Padding
/// enters as T's lowest value; a window with no input element gives 0, as
/// the reference does. Without
/// padding (every window inside the input) rows read the input in place.
/// `tasks` take runs of the planes, each with its own kMaxPoolRows rows
/// (scratch: maxpool_scratch_bytes(...) * tasks).
template <typename T>
void max_pool2d(const T *x, T *y, const int64_t *in_shape, const int64_t *out_shape,
                const int64_t *kernel, const int64_t *strides, const int64_t *pads_begin,
                const int64_t *dilations, T *scratch, TaskRunner *runner = nullptr,
                int64_t tasks = 1) {
  using namespace detail;
  if (tasks > 1) {
    // About a byte a cycle per window element (parallel.h's tasks_for).
    const int64_t planes = in_shape[0] * in_shape[1], plane_out = out_shape[2] * out_shape[3];
    const int64_t used = tasks_for(planes * plane_out * kernel[0] * kernel[1] / 16, tasks);
    const int64_t per_task = maxpool_scratch_bytes(out_shape[3], kernel[1], strides[1],
                                                   dilations[1]) / int64_t(sizeof(T));
    return parallel_for(runner, used, [&](int64_t t) {
      const Range r = split_range(planes, 1, used, t);
      const int64_t in[4] = {1, r.end - r.begin, in_shape[2], in_shape[3]},
                    out[4] = {1, r.end - r.begin, out_shape[2], out_shape[3]};
      if (r.begin < r.end)
        max_pool2d(x + r.begin * in_shape[2] * in_shape[3], y + r.begin * plane_out, in, out,
                   kernel, strides, pads_begin, dilations, scratch + t * per_task);
    });
  }
  if (kPoolBytes > 16 && out_shape[3] > 32)
    return max_pool_planes<T, WideBytes>(x, y, in_shape, out_shape, kernel, strides, pads_begin,
                                         dilations, scratch);
  max_pool_planes<T, Bytes>(x, y, in_shape, out_shape, kernel, strides, pads_begin, dilations,
                            scratch);
}

} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_QS8_POOL_H
