// Number parsing for the readers, on the hot path (inline). Floats are correctly rounded, as
// fast_float gives them; the common short decimal ("-0.9892247": at most 24 bits of mantissa, at
// most 10 fraction digits, no exponent) is converted directly: float(m) / 10^k is exact in both
// operands, so the one IEEE division rounds correctly. Everything else goes to fast_float.
#pragma once

#include <fast_float/fast_float.h>

#include <cstdint>

namespace ringboost {

// Parses the longest float at the start of [p, end) (a leading '+' allowed, not "+-"). Returns the
// first byte after it, or nullptr when no number starts at p.
inline const char* ParseFloatPrefix(const char* p, const char* end, float* out) {
  static constexpr float kPow10[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                     1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
  const char* q = p;
  if (q < end && *q == '+' && q + 1 < end && q[1] != '-' && q[1] != '+') p = ++q;
  bool negative = q < end && *q == '-';
  q += negative;
  const char* digits = q;
  uint64_t m = 0;
  while (q < end && static_cast<unsigned>(*q - '0') < 10u)
    m = m * 10 + static_cast<unsigned>(*q++ - '0');
  std::ptrdiff_t int_digits = q - digits;
  std::ptrdiff_t frac_digits = 0;
  if (q < end && *q == '.') {
    const char* frac = ++q;
    while (q < end && static_cast<unsigned>(*q - '0') < 10u)
      m = m * 10 + static_cast<unsigned>(*q++ - '0');
    frac_digits = q - frac;
  }
  bool simple = int_digits + frac_digits > 0 && int_digits + frac_digits <= 18 &&
                frac_digits <= 10 && m <= (uint64_t{1} << 24) &&
                !(q < end && (*q == 'e' || *q == 'E'));
  if (simple) {
    float v = static_cast<float>(m);
    if (frac_digits > 0) v /= kPow10[frac_digits];
    *out = negative ? -v : v;
    return q;
  }
  auto res = fast_float::from_chars(p, end, *out);
  return res.ec == std::errc() ? res.ptr : nullptr;
}

}  // namespace ringboost
