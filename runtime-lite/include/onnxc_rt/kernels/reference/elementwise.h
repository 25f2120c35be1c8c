// Reference elementwise kernels: unary maps, broadcasting binary ops, Where,
// Clip, Cast, fills. Every kernel tolerates y aliasing its first input (the
// memory planner runs them in place).
#ifndef ONNXC_RT_REF_ELEMENTWISE_H
#define ONNXC_RT_REF_ELEMENTWISE_H

#include <cmath>

#include "onnxc_rt/base.h"
#include "onnxc_rt/types.h"

namespace onnxc_rt {
namespace ref {

//===-- Unary functors: y = f(x; alpha, beta) ------------------------------===//
// One signature for all, so one kernel serves them; alpha/beta are the ONNX
// attributes where the op has them and 0 otherwise. Each is also numbered,
// UnaryFunctorAt<0 .. kUnaryFunctors - 1> (its type, its name, whether it is
// defined on floats), so that the compiler's host kernel registry
// (lowering/HostKernels.cpp) instantiates every one without a list of its
// own: a new function of one value is its op's definition, its functor
// here and its tests.
template <int I> struct UnaryFunctorAt;
constexpr int kUnaryFunctorBase = __COUNTER__;
#define ONNXC_UNARY_NUMBERED(NAME, ON_FLOATS)                                  \
  template <> struct UnaryFunctorAt<__COUNTER__ - kUnaryFunctorBase - 1> {    \
    using type = NAME;                                                         \
    static constexpr const char *name = #NAME;                                 \
    static constexpr bool on_floats = ON_FLOATS;                               \
  };
#define ONNXC_UNARY_FUNCTOR(NAME, EXPR)                                        \
  struct NAME {                                                                \
    template <typename T> ONNXC_RT_HD static T apply(T x, float alpha, float beta) { \
      (void)alpha;                                                             \
      (void)beta;                                                              \
      return EXPR;                                                             \
    }                                                                          \
  };
#define ONNXC_UNARY(NAME, EXPR)                                                \
  ONNXC_UNARY_FUNCTOR(NAME, EXPR) ONNXC_UNARY_NUMBERED(NAME, true)
// Defined on integers only.
#define ONNXC_UNARY_INTEGER(NAME, EXPR)                                        \
  ONNXC_UNARY_FUNCTOR(NAME, EXPR) ONNXC_UNARY_NUMBERED(NAME, false)
ONNXC_UNARY(Identity, x)
ONNXC_UNARY(Abs, x < T(0) ? T(-x) : x)
ONNXC_UNARY(Neg, T(-x))
ONNXC_UNARY(Reciprocal, T(T(1) / x))
ONNXC_UNARY(Sqrt, T(std::sqrt(x)))
ONNXC_UNARY(Exp, T(std::exp(x)))
ONNXC_UNARY(Log, T(std::log(x)))
ONNXC_UNARY(Erf, T(std::erf(x)))
ONNXC_UNARY(Tanh, T(std::tanh(x)))
ONNXC_UNARY(Sigmoid, T(x >= T(0) ? T(1) / (T(1) + std::exp(-x))
                                 : std::exp(x) / (T(1) + std::exp(x))))
ONNXC_UNARY(Relu, x > T(0) ? x : T(0))
ONNXC_UNARY(Ceil, T(std::ceil(x)))
ONNXC_UNARY(Floor, T(std::floor(x)))
ONNXC_UNARY(Sin, T(std::sin(x)))
ONNXC_UNARY(Cos, T(std::cos(x)))
ONNXC_UNARY(Softplus, T(x > T(0) ? x + std::log1p(std::exp(-x))
                                 : std::log1p(std::exp(x))))
ONNXC_UNARY(Softsign, T(x / (T(1) + (x < T(0) ? T(-x) : x))))
ONNXC_UNARY(HardSwish, T(x * (x + T(3) <= T(0) ? T(0)
                              : x + T(3) >= T(6) ? T(1) : (x + T(3)) / T(6))))
ONNXC_UNARY(Not, T(!x))
ONNXC_UNARY(Sign, T(x > T(0) ? T(1) : x < T(0) ? T(-1) : T(0)))
ONNXC_UNARY(Round, T(std::nearbyint(x))) // half to even in the default mode
ONNXC_UNARY(Scale, T(x * T(alpha)))
ONNXC_UNARY(Tan, T(std::tan(x)))
ONNXC_UNARY(Mish, T(x * std::tanh(x > T(0) ? x + std::log1p(std::exp(-x))
                                          : std::log1p(std::exp(x)))))
ONNXC_UNARY_INTEGER(BitwiseNot, T(~x))
// alpha selects the tanh approximation (1) or the exact erf form (0).
ONNXC_UNARY(Gelu, T(alpha != 0
                        ? 0.5 * double(x) *
                              (1 + std::tanh(0.7978845608028654 *
                                             (double(x) + 0.044715 * double(x) * double(x) * double(x))))
                        : 0.5 * double(x) * (1 + std::erf(double(x) * 0.7071067811865476))))
ONNXC_UNARY(Asin, T(std::asin(x)))
ONNXC_UNARY(Acos, T(std::acos(x)))
ONNXC_UNARY(Atan, T(std::atan(x)))
ONNXC_UNARY(Sinh, T(std::sinh(x)))
ONNXC_UNARY(Cosh, T(std::cosh(x)))
ONNXC_UNARY(Asinh, T(std::asinh(x)))
ONNXC_UNARY(Acosh, T(std::acosh(x)))
ONNXC_UNARY(Atanh, T(std::atanh(x)))
ONNXC_UNARY(Selu, T(x <= T(0) ? T(beta) * T(alpha) * (T(std::exp(x)) - T(1)) : T(beta) * x))
ONNXC_UNARY(ThresholdedRelu, x > T(alpha) ? x : T(0))
ONNXC_UNARY(Shrink, T(x < T(-alpha) ? x + T(beta) : x > T(alpha) ? x - T(beta) : T(0)))
ONNXC_UNARY(Celu, T(std::fmax(T(0), x) +
                    std::fmin(T(0), T(alpha) * (T(std::exp(x / T(alpha))) - T(1)))))
ONNXC_UNARY(LeakyRelu, x < T(0) ? T(T(alpha) * x) : x)
ONNXC_UNARY(Elu, x < T(0) ? T(T(alpha) * (std::exp(x) - T(1))) : x)
// Fused activations (FusedConv/FusedGemm): Clip with constant bounds
// [alpha, beta], and SiLU, x * Sigmoid(x).
ONNXC_UNARY(Clamp, T(x < T(alpha) ? T(alpha) : x > T(beta) ? T(beta) : x))
ONNXC_UNARY(Silu, T(x * Sigmoid::apply(x, alpha, beta)))
ONNXC_UNARY(HardSigmoid, T(std::fmax(T(0), std::fmin(T(1), T(alpha) * x + T(beta)))))
constexpr int kUnaryFunctors = __COUNTER__ - kUnaryFunctorBase - 1;
#undef ONNXC_UNARY
#undef ONNXC_UNARY_INTEGER
#undef ONNXC_UNARY_FUNCTOR
#undef ONNXC_UNARY_NUMBERED

template <typename Op, typename T>
void unary(const T *x, T *y, int64_t n, float alpha, float beta) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = Op::apply(x[i], alpha, beta);
}

/// IsNaN (mode 0) and IsInf (mode 1: detect_negative, detect_positive) of
/// one value (host and CUDA).
template <typename T>
ONNXC_RT_HD inline bool classify_one(T v, int64_t mode, int64_t detect_negative,
                                     int64_t detect_positive) {
  return mode == 0 ? v != v
                   : (std::isinf(v) && ((v > T(0) && detect_positive) ||
                                        (v < T(0) && detect_negative)));
}

template <typename T>
void classify(const T *x, bool *y, int64_t n, int64_t mode, int64_t detect_negative,
              int64_t detect_positive) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = classify_one(x[i], mode, detect_negative, detect_positive);
}

//===-- Binary functors ------------------------------------------------------===//
#define ONNXC_BINARY(NAME, EXPR)                                               \
  struct NAME {                                                                \
    template <typename T, typename U> ONNXC_RT_HD static auto apply(T a, U b) {   \
      return EXPR;                                                             \
    }                                                                          \
  };
ONNXC_BINARY(Add, T(a + b))
ONNXC_BINARY(Sub, T(a - b))
ONNXC_BINARY(Mul, T(a * b))
ONNXC_BINARY(Div, T(a / b))
ONNXC_BINARY(Pow, T(std::pow(a, b)))
ONNXC_BINARY(Max, T(a < b ? b : a))
ONNXC_BINARY(Min, T(b < a ? b : a))
ONNXC_BINARY(Equal, bool(a == b))
ONNXC_BINARY(Less, bool(a < b))
ONNXC_BINARY(Greater, bool(a > b))
ONNXC_BINARY(LessOrEqual, bool(a <= b))
ONNXC_BINARY(GreaterOrEqual, bool(a >= b))
ONNXC_BINARY(And, bool(a && b))
ONNXC_BINARY(Or, bool(a || b))
ONNXC_BINARY(Xor, bool(bool(a) != bool(b)))
ONNXC_BINARY(PRelu, T(a < T(0) ? T(b) * a : a))
ONNXC_BINARY(BitwiseAnd, T(a & b))
ONNXC_BINARY(BitwiseOr, T(a | b))
ONNXC_BINARY(BitwiseXor, T(a ^ b))
ONNXC_BINARY(ShiftLeft, T(a << b))
ONNXC_BINARY(ShiftRight, T(a >> b))
// fmod is exact in any precision, so double serves every type (and keeps
// integer operands off libstdc++'s host-only integral overload).
ONNXC_BINARY(FMod, T(std::fmod(double(a), double(b))))
#undef ONNXC_BINARY

/// Integer Mod (fmod = 0): the result takes the divisor's sign, as in Python.
struct Mod {
  template <typename T, typename U> ONNXC_RT_HD static T apply(T a, U b) {
    if (b == U(0))
      return T(0);
    T r = T(a % b);
    if constexpr (T(-1) < T(0)) // signed: the result takes the divisor's sign
      if (r != T(0) && ((r < T(0)) != (b < U(0))))
        r = T(r + b);
    return r;
  }
};


/// y[i] = Op(a[ia], b[ib]) over `shape`; strides are 0 on broadcast dims.
/// The compiler merges dims first, so rank is usually 1 or 2. A and B differ
/// in type only for Pow; arithmetic results have A's type. The innermost
/// dim runs as a plain loop, specialised for the contiguous and broadcast
/// cases (a per-channel scale is a vector times a scalar), so the compiler
/// vectorises it.
template <typename Op, typename T, typename U, typename TOut>
void binary(const T *a, const U *b, TOut *y, int64_t rank, const int64_t *shape,
            const int64_t *a_strides, const int64_t *b_strides) {
  if (product(shape, rank) == 0)
    return;
  const int64_t inner = rank > 0 ? shape[rank - 1] : 1;
  const int64_t sa = rank > 0 ? a_strides[rank - 1] : 0, sb = rank > 0 ? b_strides[rank - 1] : 0;
  int64_t off[2] = {0, 0};
  const int64_t *const strides[2] = {a_strides, b_strides};
  for_each_row(rank, shape, strides, off, [&](const int64_t (&o)[2], int64_t at) {
    const T *ar = a + o[0];
    const U *br = b + o[1];
    TOut *yr = y + at;
    if (sa == 1 && sb == 1) {
      for (int64_t i = 0; i < inner; ++i)
        yr[i] = static_cast<TOut>(Op::apply(ar[i], br[i]));
    } else if (sa == 1 && sb == 0) {
      const U bv = br[0];
      for (int64_t i = 0; i < inner; ++i)
        yr[i] = static_cast<TOut>(Op::apply(ar[i], bv));
    } else if (sa == 0 && sb == 1) {
      const T av = ar[0];
      for (int64_t i = 0; i < inner; ++i)
        yr[i] = static_cast<TOut>(Op::apply(av, br[i]));
    } else {
      for (int64_t i = 0; i < inner; ++i)
        yr[i] = static_cast<TOut>(Op::apply(ar[i * sa], br[i * sb]));
    }
  });
}

/// out = cond ? x : y, all broadcast to `shape`.
template <typename T>
void where(const bool *cond, const T *x, const T *y, T *out, int64_t rank,
           const int64_t *shape, const int64_t *c_strides,
           const int64_t *x_strides, const int64_t *y_strides) {
  if (product(shape, rank) == 0)
    return;
  NdIndex it(rank, shape);
  int64_t off[3] = {0, 0, 0};
  const int64_t *const strides[3] = {c_strides, x_strides, y_strides};
  int64_t i = 0;
  do {
    out[i++] = cond[off[0]] ? x[off[1]] : y[off[2]];
  } while (it.next(off, strides));
}

/// Broadcast copy (Expand): y over `shape` reads x with `x_strides`.
template <typename T>
void broadcast_copy(const T *x, T *y, int64_t rank, const int64_t *shape,
                    const int64_t *x_strides) {
  if (product(shape, rank) == 0)
    return;
  NdIndex it(rank, shape);
  int64_t off[1] = {0};
  const int64_t *const strides[1] = {x_strides};
  int64_t i = 0;
  do {
    y[i++] = x[off[0]];
  } while (it.next(off, strides));
}

/// One element of Clip: v held within the bounds present (nullptr: none).
template <typename T> ONNXC_RT_HD inline T clip_value(T v, const T *lo, const T *hi) {
  if (lo && v < *lo)
    v = *lo;
  if (hi && *hi < v)
    v = *hi;
  return v;
}

/// Clip with optional bounds (nullptr when absent).
template <typename T>
void clip(const T *x, T *y, int64_t n, const T *lo, const T *hi) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = clip_value(x[i], lo, hi);
}

template <typename TIn, typename TOut>
void cast(const TIn *x, TOut *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<TOut>(x[i]);
}

template <typename T> void fill(T *y, int64_t n, T value) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = value;
}

/// Element i of a window function of n (kind 0 Hann, 1 Hamming, 2
/// Blackman), periodic or symmetric. Host and CUDA.
ONNXC_RT_HD inline double window_value(int64_t i, int64_t n, int64_t kind, int64_t periodic) {
  const double pi = 3.14159265358979323846;
  const double a = 2 * pi * double(i) / double(periodic ? n : n - 1);
  if (kind == 0)
    return 0.5 - 0.5 * std::cos(a);
  if (kind == 1)
    return 25.0 / 46.0 - (1 - 25.0 / 46.0) * std::cos(a);
  return 0.42 - 0.5 * std::cos(a) + 0.08 * std::cos(2 * a);
}

/// Window functions (window_value), periodic or symmetric.
template <typename T> void window(T *y, int64_t n, int64_t kind, int64_t periodic) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = T(window_value(i, n, kind, periodic));
}

template <typename T>
void range(const T *start, const T *delta, T *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<T>(*start + static_cast<T>(i) * *delta);
}

} // namespace ref
} // namespace onnxc_rt

#endif
