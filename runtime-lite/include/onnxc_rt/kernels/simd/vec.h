// The SIMD kernels' vector vocabulary. The kernels (simd/f32/gemm.h, conv.h,
// blocked.h, winograd.h, norm.h) are written once against VecF, a float
// vector of the widest width the compiler targets, whose definition comes
// from the instruction set's header under simd/isa/:
//   x86.h   AVX-512 (16 lanes) or AVX2+FMA (8 lanes)
//   neon.h  aarch64 NEON (4 lanes)
// A VecF provides: kLanes; zero, broadcast, load, store, load_first and
// store_first (the first n lanes), fma (one rounding), add, sub, mul, div,
// min, max, select_lt, round (to nearest even), exp2i, deinterleave (and,
// AVX-512 only, exp's clamp_magnitude, exp2_sixteenths and scale_exp2, and
// the lane permutation lane_index / permute_merge), and
// transpose (kLanes x kLanes), and fma_lane<L>(a, b, c) = c + a[L] * b,
// with kLaneFma telling whether that is one instruction (NEON's FMLA by
// element; the kernels then load 4 inputs at once and use each lane) or not
// (x86: the kernels broadcast from memory), and kArithmeticFromMemory
// (x86: an operand may come from memory; NEON: kernels reuse what they
// loaded). A new instruction set is a new header
// there; the kernels' tile sizes derive from kLanes and blocking.h. VecI
// (int32 lanes) and lookup_bytes serve the int8 kernels (simd/qs8/).
#ifndef ONNXC_RT_SIMD_VEC_H
#define ONNXC_RT_SIMD_VEC_H

#include <stdint.h>

#include <type_traits>
#include <utility>

/// For the small register-tile functions whose accumulators must stay in
/// registers across the call (GCC otherwise may pass them through memory).
#define ONNXC_RT_SIMD_INLINE inline __attribute__((always_inline))
/// The same for a lambda (after its parameters): for_each_index's bodies
/// in large kernels, which GCC otherwise leaves out of line.
#define ONNXC_RT_SIMD_LAMBDA __attribute__((always_inline))
/// Where GCC's first scheduling pass (before register allocation) spills
/// a register tile that fits: an ISA header may define it (after a
/// lambda's parameters) to turn that pass off there; nothing otherwise.
#define ONNXC_RT_SIMD_NO_PRESCHEDULE

#if defined(__x86_64__) || defined(__i386__)
#include "onnxc_rt/kernels/simd/isa/x86.h"
#elif defined(__aarch64__) && defined(__ARM_NEON)
#include "onnxc_rt/kernels/simd/isa/neon.h"
#else
#error "onnxc_rt/kernels/simd has no vector type for this instruction set (see simd/isa/)"
#endif

namespace onnxc_rt {
namespace simd {

/// f(i) for i = 0 .. N - 1, i a compile-time constant (an
/// std::integral_constant): arrays indexed only so stay in registers (GCC
/// keeps an array it indexes in a loop in memory and stores it back every
/// step), and by-lane instructions get their lane.
template <typename F, int... I>
ONNXC_RT_SIMD_INLINE void for_each_index_impl(F &&f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>()), ...);
}
template <int N, typename F> ONNXC_RT_SIMD_INLINE void for_each_index(F &&f) {
  for_each_index_impl(f, std::make_integer_sequence<int, N>());
}

/// The sum of v's lanes (in lane order).
inline float reduce_add(VecF v) {
  alignas(64) float lanes[VecF::kLanes];
  v.store(lanes);
  float s = 0;
  for (int l = 0; l < VecF::kLanes; ++l)
    s += lanes[l];
  return s;
}

/// The largest of v's lanes (lane 0 starts, only a greater one replaces it).
inline float reduce_max(VecF v) {
  alignas(64) float lanes[VecF::kLanes];
  v.store(lanes);
  float m = lanes[0];
  for (int l = 1; l < VecF::kLanes; ++l)
    m = lanes[l] > m ? lanes[l] : m;
  return m;
}

/// Whether VecF has AVX-512's exp steps (clamp_magnitude, exp2_sixteenths,
/// scale_exp2: x86.h).
template <typename V, typename = void>
struct HasScaleExp2 : std::false_type {};
template <typename V>
struct HasScaleExp2<V, std::void_t<decltype(V::scale_exp2(V::zero(), V::zero()))>>
    : std::true_type {};

/// e^x to about 2 ulp for x clamped to [-87.3, 88] (so 2^n stays a normal
/// float; e^88 = 1.7e38), as x = n ln2 + r with ln2 split in two so that
/// n ln2's first part is exact.
/// - AVX-512: n in sixteenths (|r| <= ln2 / 32), e^x = 2^floor(n) *
///   2^frac(n) * e^r, 2^frac(n) from a 16-entry table in a register and
///   e^r - 1 = r + r^2 / 2 + r^3 / 6 (the next term, r^4 / 24 < 1e-8 of
///   e^r, is below float precision): the clamp, the lookup and the 2^floor
///   are one instruction each (x86.h), 11 in all (15 before). The clamp is
///   to [-88, 88]: e^-88 is a subnormal, still within 1e-6 of e^x. SiLU and
///   Sigmoid spend most of their time here (EfficientNet-B0 takes 6 M).
/// - Otherwise Cephes' expf: n integral (|r| <= ln2 / 2), a degree-6
///   polynomial for e^r, times 2^n.
/// (A template so that only the instruction set's own branch compiles.)
template <typename V>
inline V exp_of(V x) {
  if constexpr (HasScaleExp2<V>::value) {
    x = V::clamp_magnitude(x, 88.0f);
    // n + 1.5 * 2^19 rounds n to sixteenths: its last 4 bits are j = 16 frac(n).
    const V bias = V::broadcast(0x1.8p19f);
    const V biased = V::fma(x, V::broadcast(1.44269504088896341f), bias);
    const V n = V::sub(biased, bias);
    V r = V::fma(n, V::broadcast(-0.693359375f), x); // 355/512: n * it is exact
    r = V::fma(n, V::broadcast(2.12194440e-4f), r);
    V p = V::fma(r, V::broadcast(1.0f / 6.0f), V::broadcast(0.5f));
    p = V::fma(V::mul(p, r), r, r);                  // e^r - 1
    const V t = V::exp2_sixteenths(biased);
    return V::scale_exp2(V::fma(p, t, t), n);
  } else {
    x = V::min(V::max(x, V::broadcast(-87.33654f)), V::broadcast(88.0f));
    const V n = V::round(V::mul(x, V::broadcast(1.44269504088896341f)));
    // r = x - n ln2, with ln2 split in two for precision.
    V r = V::fma(n, V::broadcast(-0.693359375f), x);
    r = V::fma(n, V::broadcast(2.12194440e-4f), r);
    V p = V::broadcast(1.9875691500e-4f);
    p = V::fma(p, r, V::broadcast(1.3981999507e-3f));
    p = V::fma(p, r, V::broadcast(8.3334519073e-3f));
    p = V::fma(p, r, V::broadcast(4.1665795894e-2f));
    p = V::fma(p, r, V::broadcast(1.6666665459e-1f));
    p = V::fma(p, r, V::broadcast(5.0000001201e-1f));
    p = V::fma(p, V::mul(r, r), V::add(r, V::broadcast(1.0f)));
    return V::mul(p, V::exp2i(n));
  }
}
inline VecF exp(VecF x) { return exp_of(x); }

} // namespace simd
} // namespace onnxc_rt

#endif
