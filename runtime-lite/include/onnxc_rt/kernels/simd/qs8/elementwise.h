// SIMD qs8 element-wise kernels: lookup (a 256-entry table: QLookup),
// add of same-shape inputs (the broadcast ones run the reference) and mul
// over rows (a per-channel scale as squeeze-and-excitation multiplies).
#ifndef ONNXC_RT_SIMD_QS8_ELEMENTWISE_H
#define ONNXC_RT_SIMD_QS8_ELEMENTWISE_H

#include "onnxc_rt/kernels/simd/qs8/common.h"

namespace onnxc_rt {
namespace simd {
namespace qs8 {

/// y[i] = table[x[i] - lowest of T] (reference/qs8.h's lookup: QLookup,
/// e.g. sigmoid or SiLU): whole vectors by the instruction set's byte
/// shuffles (simd/isa: lookup_bytes), the tail byte by byte.
template <typename T>
void lookup(const T *x, const T *table, T *y, int64_t n, TaskRunner *runner = nullptr,
            int64_t tasks = 1) {
  if (tasks > 1)
    return for_each_run(n, runner, tasks, [&](int64_t i, int64_t m) {
      lookup(x + i, table, y + i, m);
    });
  const uint8_t *in = reinterpret_cast<const uint8_t *>(x);
  uint8_t *out = reinterpret_cast<uint8_t *>(y);
  const uint8_t *t = reinterpret_cast<const uint8_t *>(table);
  // Index = the byte as stored, plus 128 for int8 (table[0] is -128's).
  const uint8_t flip = std::numeric_limits<T>::min() < 0 ? 0x80 : 0x00;
  int64_t i = lookup_bytes(t, in, out, n, flip);
  for (; i < n; ++i)
    out[i] = t[uint8_t(in[i] ^ flip)];
}

namespace detail {
/// Whether VecI is NEON's (whose quantized multiply is SQDMULH and SRSHL:
/// qs8::add keeps it).
#if defined(__ARM_NEON)
constexpr bool kNeon = true;
#else
constexpr bool kNeon = false;
#endif

template <typename T> constexpr bool in_range(int32_t v) {
  return v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max();
}

/// y[i] = clamp(y_zp + sum(a[i], b[i])) over n values: four vectors a step
/// (16 bytes of each input widened from one load, VecI::widen_all on
/// NEON; the results narrowed into one store), then vector by vector.
template <typename T, typename Sum>
ONNXC_RT_SIMD_INLINE void add_values(const T *a, const T *b, T *y, int64_t n, VecI vzp,
                                     VecI vmin, VecI vmax, Sum sum) {
  int64_t i = 0;
  for (; i + 4 * kLanes <= n; i += 4 * kLanes) {
    VecI va[4], vb[4], r[4];
    VecI::widen_all(a + i, va);
    VecI::widen_all(b + i, vb);
    for_each_index<4>([&](auto j) ONNXC_RT_SIMD_LAMBDA { r[j] = sum(va[j], vb[j]); });
    VecI::store_narrow_clamped(y + i, r, vzp, vmin, vmax);
  }
  for (; i < n; i += kLanes) {
    const int64_t lanes = n - i < kLanes ? n - i : kLanes;
    T ta[kLanes] = {}, tb[kLanes] = {};
    const T *pa = a + i, *pb = b + i;
    if (lanes < kLanes) {
      for (int64_t l = 0; l < lanes; ++l) {
        ta[l] = a[i + l];
        tb[l] = b[i + l];
      }
      pa = ta;
      pb = tb;
    }
    to_output(sum(VecI::widen(pa), VecI::widen(pb)), vzp, vmin, vmax).store_narrow(y + i, lanes);
  }
}

} // namespace detail

/// y = a + b, same shapes, in reference/qs8.h's add (parameters from its
/// add_params); `tasks` take runs of the values (for_each_run).
template <typename T>
void add(const T *a, const T *b, T *y, int64_t n, int32_t left_shift, int32_t a_zp,
         int32_t a_multiplier, int32_t a_shift, int32_t b_zp, int32_t b_multiplier,
         int32_t b_shift, int32_t y_zp, int32_t y_multiplier, int32_t y_shift, int32_t act_min,
         int32_t act_max, TaskRunner *runner = nullptr, int64_t tasks = 1) {
  using namespace detail;
  if (tasks > 1)
    return for_each_run(n, runner, tasks, [&](int64_t i, int64_t m) {
      add(a + i, b + i, y + i, m, left_shift, a_zp, a_multiplier, a_shift, b_zp, b_multiplier,
          b_shift, y_zp, y_multiplier, y_shift, act_min, act_max);
    });
  const Requant qa = requant_broadcast(0, a_multiplier, a_shift);
  const Requant qb = requant_broadcast(0, b_multiplier, b_shift);
  const Requant qy = requant_broadcast(0, y_multiplier, y_shift);
  const VecI azp = VecI::broadcast(a_zp), bzp = VecI::broadcast(b_zp);
  const VecI vzp = VecI::broadcast(y_zp), vmin = VecI::broadcast(act_min),
             vmax = VecI::broadcast(act_max);
  const VecI::Int ls = VecI::broadcast(left_shift).v;
  // The sum of a and b brought to y, before y's zero point. narrow: a
  // and b scaled in 32-bit lanes (common.h's narrow_scale) on x86, whose
  // 64-bit products take twice the instructions of NEON's SQDMULH.
  const bool narrow = !kNeon && narrow_scale_exact(left_shift, a_shift) &&
                      narrow_scale_exact(left_shift, b_shift) && in_range<T>(a_zp) &&
                      in_range<T>(b_zp);
  const NarrowScale na = narrow_scale(left_shift, a_multiplier, a_shift),
                    nb = narrow_scale(left_shift, b_multiplier, b_shift);
  if (narrow)
    return add_values(a, b, y, n, vzp, vmin, vmax, [&](VecI va, VecI vb) ONNXC_RT_SIMD_LAMBDA {
      return requantize_scaled(VecI::add(scale_narrow(VecI::sub(va, azp), na),
                                         scale_narrow(VecI::sub(vb, bzp), nb)),
                               qy);
    });
  add_values(a, b, y, n, vzp, vmin, vmax, [&](VecI va, VecI vb) ONNXC_RT_SIMD_LAMBDA {
    const VecI sa = multiply_by_quantized_multiplier({(va.v - azp.v) << ls}, qa.multiplier,
                                                     qa.left, qa.right);
    const VecI sb = multiply_by_quantized_multiplier({(vb.v - bzp.v) << ls}, qb.multiplier,
                                                     qb.left, qb.right);
    return requantize_scaled(VecI::add(sa, sb), qy);
  });
}

namespace detail {
/// kLanes values of T from p, or the n < kLanes there and zeros.
template <typename T> inline VecI widen_first(const T *p, int64_t n) {
  if (n >= kLanes)
    return VecI::widen(p);
  T lanes[kLanes] = {};
  for (int64_t i = 0; i < n; ++i)
    lanes[i] = p[i];
  return VecI::widen(lanes);
}
} // namespace detail

/// Rows at least this long that multiply by one value (mul's b_per_row)
/// run as a table lookup: the row's function of one byte tabulated (256
/// products requantized), then `lookup` over the row, about half the
/// instructions of requantizing each product.
constexpr int64_t kMulTableRow = 512;

/// y = a * b in reference/qs8.h's mul over y viewed as (rows, inner): a
/// has every element, b too (b_per_row 0) or one value per row (b_per_row
/// 1: a per-channel scale, as a squeeze-and-excitation block multiplies;
/// long rows by table, kMulTableRow). Four vectors a step narrowed into
/// one store, then vector by vector; the requantization's form
/// (requantize_as) chosen once. `tasks` take runs of the values, or of the
/// rows with b_per_row.
template <typename T>
void mul(const T *a, const T *b, T *y, int64_t rows, int64_t inner, int64_t b_per_row,
         int32_t a_zp, int32_t b_zp, int32_t y_zp, int32_t multiplier, int32_t shift,
         int32_t act_min, int32_t act_max, TaskRunner *runner = nullptr, int64_t tasks = 1) {
  using namespace detail;
  if (tasks > 1 && !b_per_row)
    return for_each_run(rows * inner, runner, tasks, [&](int64_t i, int64_t m) {
      mul(a + i, b + i, y + i, 1, m, 0, a_zp, b_zp, y_zp, multiplier, shift, act_min, act_max);
    });
  if (tasks > 1) {
    const int64_t used = tasks_for(rows * inner, tasks);
    return parallel_for(runner, used, [&](int64_t t) {
      const Range r = split_range(rows, 1, used, t);
      if (r.begin < r.end)
        mul(a + r.begin * inner, b + r.begin, y + r.begin * inner, r.end - r.begin, inner, 1,
            a_zp, b_zp, y_zp, multiplier, shift, act_min, act_max);
    });
  }
  const Requant q = requant_broadcast(0, multiplier, shift);
  const VecI azp = VecI::broadcast(a_zp), bzp = VecI::broadcast(b_zp);
  const VecI vzp = VecI::broadcast(y_zp), vmin = VecI::broadcast(act_min),
             vmax = VecI::broadcast(act_max);
  auto run = [&](auto up) {
    constexpr bool kUp = decltype(up)::value;
    // n products of ar's values and br's (per_b: the value row_b, less b_zp).
    auto products = [&](const T *ar, const T *br, T *yr, int64_t n, auto per_row,
                        VecI row_b) ONNXC_RT_SIMD_LAMBDA {
      constexpr bool per_b = decltype(per_row)::value;
      int64_t i = 0;
      for (; i + 4 * kLanes <= n; i += 4 * kLanes) {
        VecI va[4], vb[4], p[4];
        VecI::widen_all(ar + i, va);
        if constexpr (!per_b)
          VecI::widen_all(br + i, vb);
        for (int j = 0; j < 4; ++j)
          p[j] = requantize_as<kUp>(
              VecI::mul(VecI::sub(va[j], azp), per_b ? row_b : VecI::sub(vb[j], bzp)), q);
        VecI::store_narrow_clamped(yr + i, p, vzp, vmin, vmax);
      }
      for (; i < n; i += kLanes) {
        const int64_t lanes = n - i < kLanes ? n - i : kLanes;
        const VecI vb = per_b ? row_b : VecI::sub(widen_first(br + i, lanes), bzp);
        const VecI prod = VecI::mul(VecI::sub(widen_first(ar + i, lanes), azp), vb);
        to_output(requantize_as<kUp>(prod, q), vzp, vmin, vmax).store_narrow(yr + i, lanes);
      }
    };
    if (!b_per_row) { // same shapes: one row of every element
      products(a, b, y, rows * inner, std::false_type(), VecI::zero());
      return;
    }
    T all[256], table[256]; // every value of T from the lowest, its products
    for (int v = 0; v < 256; ++v)
      all[v] = T(int(std::numeric_limits<T>::min()) + v);
    for (int64_t r = 0; r < rows; ++r) {
      const VecI row_b = VecI::broadcast(int32_t(b[r]) - b_zp);
      if (inner >= kMulTableRow) {
        products(all, nullptr, table, 256, std::true_type(), row_b);
        lookup(a + r * inner, table, y + r * inner, inner);
      } else {
        products(a + r * inner, nullptr, y + r * inner, inner, std::true_type(), row_b);
      }
    }
  };
  if (q.scales_up)
    run(std::true_type());
  else
    run(std::false_type());
}

} // namespace qs8
} // namespace simd
} // namespace onnxc_rt

#endif // ONNXC_RT_SIMD_QS8_ELEMENTWISE_H
