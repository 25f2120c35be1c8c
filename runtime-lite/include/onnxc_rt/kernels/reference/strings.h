// Reference kernels on strings: Cast to and from string, StringNormalizer.
// Host C library only (snprintf, strtod): strings are a host-target feature.
#ifndef ONNXC_RT_REF_STRINGS_H
#define ONNXC_RT_REF_STRINGS_H

#include "onnxc_rt/base.h"
#include "onnxc_rt/string.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <type_traits>

namespace onnxc_rt {
namespace ref {

/// The most characters number_to_string writes ("-1.1754944e-38" and the
/// longest double, "-2.2250738585072014e-308", fit).
constexpr int64_t kNumberStringBytes = 32;

/// v as numpy's str() writes it: integers in decimal, bool as True/False,
/// floats as the fewest digits that read back as the same value, positional
/// for exponents -4..15 (with ".0" when integral), else d.ddde+XX; nan, inf,
/// -inf. Writes at most kNumberStringBytes; returns the length.
template <typename T> int64_t number_to_string(T v, char *out) {
  if constexpr (std::is_same_v<T, bool>) {
    return snprintf(out, kNumberStringBytes, "%s", v ? "True" : "False");
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return snprintf(out, kNumberStringBytes, "%lld", static_cast<long long>(v));
  } else if constexpr (std::is_integral_v<T>) {
    return snprintf(out, kNumberStringBytes, "%llu", static_cast<unsigned long long>(v));
  } else {
    const double d = static_cast<double>(v);
    if (isnan(d))
      return snprintf(out, kNumberStringBytes, "nan");
    if (isinf(d))
      return snprintf(out, kNumberStringBytes, d < 0 ? "-inf" : "inf");
    // The shortest "%.*e" that reads back as v.
    char sci[kNumberStringBytes];
    constexpr int kMaxDigits = sizeof(T) == 4 ? 9 : 17;
    for (int digits = 1; digits <= kMaxDigits; ++digits) {
      snprintf(sci, sizeof sci, "%.*e", digits - 1, d);
      if (static_cast<T>(sizeof(T) == 4 ? strtof(sci, nullptr) : strtod(sci, nullptr)) == v)
        break;
    }
    // sci is [-]d[.ddd]e(+|-)XX: split into sign, digit string and exponent.
    const char *p = sci;
    char digits[24] = {};
    int n = 0;
    const bool negative = *p == '-';
    if (negative)
      ++p;
    for (; *p && *p != 'e'; ++p)
      if (*p != '.')
        digits[n++] = *p;
    const int exp10 = atoi(p + 1);
    int len = 0;
    if (negative)
      out[len++] = '-';
    if (exp10 >= -4 && exp10 < 16) {
      if (exp10 >= 0) {
        for (int i = 0; i <= exp10; ++i)
          out[len++] = i < n ? digits[i] : '0';
        out[len++] = '.';
        if (n > exp10 + 1)
          for (int i = exp10 + 1; i < n; ++i)
            out[len++] = digits[i];
        else
          out[len++] = '0';
      } else {
        out[len++] = '0';
        out[len++] = '.';
        for (int i = 0; i < -exp10 - 1; ++i)
          out[len++] = '0';
        for (int i = 0; i < n; ++i)
          out[len++] = digits[i];
      }
    } else {
      out[len++] = digits[0];
      if (n > 1) {
        out[len++] = '.';
        for (int i = 1; i < n; ++i)
          out[len++] = digits[i];
      }
      len += snprintf(out + len, kNumberStringBytes - len, "e%c%02d", exp10 < 0 ? '-' : '+',
                      exp10 < 0 ? -exp10 : exp10);
    }
    return len;
  }
}

/// Cast to string: y[i] points at x[i]'s text in `text` (n * kNumberStringBytes).
template <typename T> void cast_to_string(const T *x, onnxc_string *y, int64_t n, char *text) {
  for (int64_t i = 0; i < n; ++i) {
    char *s = text + i * kNumberStringBytes;
    y[i].data = s;
    y[i].size = number_to_string(x[i], s);
  }
}

/// Cast from string: each string read as a number the way strtod/strtoll do
/// (so "NaN", "INF", "+INF", "-inf" and leading blanks are fine); text that
/// is not a number, or longer than 63 bytes, gives NaN for floats and 0 for
/// integers.
template <typename T> void cast_from_string(const onnxc_string *x, T *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    char buf[64];
    const int64_t size = x[i].size;
    bool ok = size > 0 && size < int64_t(sizeof buf);
    if (ok) {
      for (int64_t k = 0; k < size; ++k)
        buf[k] = x[i].data[k];
      buf[size] = 0;
    }
    char *end = buf;
    if constexpr (std::is_floating_point_v<T>) {
      const double v = ok ? strtod(buf, &end) : 0;
      y[i] = ok && end != buf ? static_cast<T>(v) : static_cast<T>(NAN);
    } else if constexpr (std::is_signed_v<T>) {
      const long long v = ok ? strtoll(buf, &end, 10) : 0;
      y[i] = ok && end != buf ? static_cast<T>(v) : T(0);
    } else {
      const unsigned long long v = ok ? strtoull(buf, &end, 10) : 0;
      y[i] = ok && end != buf ? static_cast<T>(v) : T(0);
    }
  }
}

inline char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }
inline char ascii_upper(char c) { return c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c; }

inline bool same_string(const onnxc_string &a, const onnxc_string &b, bool case_sensitive) {
  if (a.size != b.size)
    return false;
  for (int64_t k = 0; k < a.size; ++k)
    if (case_sensitive ? a.data[k] != b.data[k]
                       : ascii_lower(a.data[k]) != ascii_lower(b.data[k]))
      return false;
  return true;
}

/// StringNormalizer over the n strings of x ([n] or [1, n]): drops the
/// stopwords (compared with ASCII case folding unless case_sensitive), then
/// changes the case of ASCII letters (case_change 0 none, 1 lower, 2 upper;
/// other bytes, so UTF-8 sequences, are kept). The kept strings are packed
/// at the start of y (n entries, at least one: a single "" when none is
/// kept) and *extent is their count. Case-changed text goes to `text`
/// (text_bytes); when it does not fit, *status = ONNXC_STATUS_STRING_SPACE
/// and *extent = 0.
inline void string_normalizer(const onnxc_string *x, onnxc_string *y, int64_t *extent,
                              int64_t n, const onnxc_string *stopwords, int64_t nstop,
                              int64_t case_sensitive, int64_t case_change, char *text,
                              int64_t text_bytes, int *status) {
  int64_t kept = 0, used = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool stop = false;
    for (int64_t s = 0; s < nstop && !stop; ++s)
      stop = same_string(x[i], stopwords[s], case_sensitive != 0);
    if (stop)
      continue;
    if (case_change == 0) {
      y[kept++] = x[i];
      continue;
    }
    if (used + x[i].size > text_bytes) {
      *status = ONNXC_STATUS_STRING_SPACE;
      *extent = 0;
      return;
    }
    char *s = text + used;
    for (int64_t k = 0; k < x[i].size; ++k)
      s[k] = case_change == 1 ? ascii_lower(x[i].data[k]) : ascii_upper(x[i].data[k]);
    used += x[i].size;
    y[kept].data = s;
    y[kept++].size = x[i].size;
  }
  for (int64_t i = kept; i < (n > 1 ? n : 1); ++i) {
    y[i].data = "";
    y[i].size = 0;
  }
  *extent = kept > 0 ? kept : 1;
}

} // namespace ref
} // namespace onnxc_rt

#endif
