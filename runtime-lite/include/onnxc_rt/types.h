// 16-bit float storage types. Arithmetic happens in float: a value converts
// to float implicitly, and assigning any arithmetic value rounds to nearest
// even (from double, so double -> half rounds once). Kernels templated on T
// work for these unchanged, on the host and in CUDA kernels alike (every
// function is ONNXC_RT_HD: a float16 tensor on the GPU rounds as the
// host's does).
#ifndef ONNXC_RT_TYPES_H
#define ONNXC_RT_TYPES_H

#include <stdint.h>
#include <string.h>
#include <type_traits>

#include "onnxc_rt/base.h"

namespace onnxc_rt {

namespace detail {
ONNXC_RT_HD inline uint64_t double_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}
ONNXC_RT_HD inline float float_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
ONNXC_RT_HD inline uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/// IEEE binary16 from a double, round to nearest even.
ONNXC_RT_HD inline uint16_t half_from_double(double d) {
  const uint64_t u = double_bits(d);
  const uint16_t sign = uint16_t((u >> 48) & 0x8000u);
  const int64_t exp = int64_t((u >> 52) & 0x7ff);
  uint64_t mant = u & 0xfffffffffffffull;
  if (exp == 0x7ff) // inf or NaN (keep NaN quiet)
    return uint16_t(sign | 0x7c00u | (mant ? 0x200u : 0));
  const int64_t e = exp - 1023 + 15; // biased half exponent
  if (e >= 31)
    return uint16_t(sign | 0x7c00u);
  if (exp == 0)
    return sign; // double subnormals are far below half's range
  mant |= 1ull << 52; // the implicit bit
  // Bits to drop: 42 for normals, more for half subnormals.
  const int64_t shift = e >= 1 ? 42 : 42 + (1 - e);
  if (shift > 53)
    return sign;
  uint64_t kept = mant >> shift;
  const uint64_t rest = mant & ((1ull << shift) - 1), halfway = 1ull << (shift - 1);
  if (rest > halfway || (rest == halfway && (kept & 1)))
    ++kept;
  // For normals `kept` includes the implicit bit at 2^10; adding the biased
  // exponent above it carries correctly into the exponent on overflow.
  if (e >= 1)
    return uint16_t(sign | ((uint64_t(e - 1) << 10) + kept));
  return uint16_t(sign | kept);
}

ONNXC_RT_HD inline float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
  if (exp == 0) { // zero or subnormal: mant * 2^-24
    float f = float(mant) * (1.0f / 16777216.0f);
    return sign ? -f : f;
  }
  if (exp == 31)
    return float_from_bits(sign | 0x7f800000u | (mant << 13));
  return float_from_bits(sign | ((exp + 112) << 23) | (mant << 13));
}

/// bfloat16 from a float, round to nearest even (NaN stays NaN).
ONNXC_RT_HD inline uint16_t bfloat_from_float(float f) {
  const uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return uint16_t((u >> 16) | 0x40u);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
} // namespace detail

struct float16 {
  uint16_t bits;
  float16() = default;
  template <typename U, std::enable_if_t<std::is_arithmetic<U>::value, int> = 0>
  ONNXC_RT_HD float16(U v) : bits(detail::half_from_double(double(v))) {}
  ONNXC_RT_HD operator float() const { return detail::half_to_float(bits); }
  ONNXC_RT_HD float16 &operator+=(float v) { return *this = float(*this) + v; }
  ONNXC_RT_HD float16 &operator-=(float v) { return *this = float(*this) - v; }
  ONNXC_RT_HD float16 &operator*=(float v) { return *this = float(*this) * v; }
  ONNXC_RT_HD float16 &operator/=(float v) { return *this = float(*this) / v; }
};

struct bfloat16 {
  uint16_t bits;
  bfloat16() = default;
  template <typename U, std::enable_if_t<std::is_arithmetic<U>::value, int> = 0>
  ONNXC_RT_HD bfloat16(U v) : bits(detail::bfloat_from_float(float(v))) {}
  ONNXC_RT_HD operator float() const { return detail::float_from_bits(uint32_t(bits) << 16); }
  ONNXC_RT_HD bfloat16 &operator+=(float v) { return *this = float(*this) + v; }
  ONNXC_RT_HD bfloat16 &operator-=(float v) { return *this = float(*this) - v; }
  ONNXC_RT_HD bfloat16 &operator*=(float v) { return *this = float(*this) * v; }
  ONNXC_RT_HD bfloat16 &operator/=(float v) { return *this = float(*this) / v; }
};

static_assert(sizeof(float16) == 2 && sizeof(bfloat16) == 2, "16-bit storage");

} // namespace onnxc_rt

#endif
