// Number parsing for the readers, on the hot path (inline). A decimal is read one of two ways
// (FloatReading, the parameter parse_float); both accept the same tokens and stop at the same byte,
// only the float differs.
//
// Exact (the default): correctly rounded, as numpy, pandas, LightGBM and fast_float read text. The
// common short decimal ("-0.9892247": at most 24 bits of mantissa, at most 10 fraction digits, no
// exponent) is converted directly: float(m) / 10^k is exact in both operands, so the one IEEE
// division rounds correctly. Everything else goes to fast_float.
//
// XGBoost: the float XGBoost's own text readers give (dmlc-core's ParseFloat<float> in
// include/dmlc/strtonum.h, under the 1.7 CLI and DMatrix("file?format=...") of 1.7 and 3.x). It is
// not correctly rounded: the integer digits and the first 19 fraction digits are rounded to float
// apart and added in float ("1.659" reads as 1.65899992, not 1.65900004), and an exponent scales
// in float. A model XGBoost trained from a text file holds thresholds that are such values, so a
// row sitting on a threshold goes down the branch XGBoost sent it only when read the same way.
// Where dmlc's value comes from a wrapped integer (an integer part above 2^64 - 1, an exponent of
// 2^32 or more) or differs from the exact reading in being finite, the exact reading stands: the
// same tokens are errors (an infinite value) or missing (NaN) in both readings.
#pragma once

#include <fast_float/fast_float.h>

#include <cmath>
#include <cstdint>

#include "data/data.h"

namespace ringboost {

// Parses the longest float at the start of [p, end) (a leading '+' allowed, not "+-"), correctly
// rounded. Returns the first byte after it, or nullptr when no number starts at p.
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

namespace dmlc_float {

constexpr int kMaxDigits = 19;         // fraction digits kept; later ones are ignored
constexpr unsigned kMaxExponent = 38;  // a larger exponent is clipped to it
constexpr uint64_t kExponentWraps = uint64_t{1} << 32;  // dmlc's unsigned exponent wraps here
// At exponent 38 the value before scaling is clipped to these (dmlc's float constants).
constexpr float kMaxAt38 = static_cast<float>(3.402823466);
constexpr float kMinAtMinus38 = static_cast<float>(1.175494351);

// The scale of exponent n <= 38: a float product of 1e8f for each 8 in n, then of 10.0f for each
// 1 left, in that order (not 10^n rounded once).
constexpr float Scale(unsigned n) {
  float scale = 1.0f;
  for (; n >= 8; n -= 8) scale *= 1e8f;
  for (; n > 0; --n) scale *= 10.0f;
  return scale;
}
struct ScaleTable {
  float of[kMaxExponent + 1];
};
constexpr ScaleTable MakeScaleTable() {
  ScaleTable t{};
  for (unsigned n = 0; n <= kMaxExponent; ++n) t.of[n] = Scale(n);
  return t;
}
inline constexpr ScaleTable kScale = MakeScaleTable();

inline bool IsDigit(char c) { return static_cast<unsigned>(c - '0') < 10u; }

// The digits of an unsigned decimal as dmlc keeps them: the integer part, and the first 19 digits
// of the fraction over their power of ten.
struct Mantissa {
  uint64_t predec = 0;
  uint64_t val2 = 0;
  uint64_t pow10 = 1;
  std::ptrdiff_t int_digits = 0;
  std::ptrdiff_t frac_digits = 0;  // all of them, kept or not
  const char* end = nullptr;       // the first byte after the fraction
};
inline Mantissa ReadMantissa(const char* q, const char* end) {
  Mantissa m;
  const char* digits = q;
  while (q < end && IsDigit(*q)) m.predec = m.predec * 10 + static_cast<unsigned>(*q++ - '0');
  m.int_digits = q - digits;
  if (q < end && *q == '.') {
    const char* frac = ++q;
    for (; q < end && IsDigit(*q); ++q) {
      if (q - frac < kMaxDigits) {
        m.val2 = m.val2 * 10 + static_cast<unsigned>(*q - '0');
        m.pow10 *= 10;
      }
    }
    m.frac_digits = q - frac;
  }
  m.end = q;
  return m;
}

// Whether the integer digits [b, e) exceed 2^64 - 1, where dmlc's uint64 wraps.
inline bool Wraps(const char* b, const char* e) {
  uint64_t v = 0;
  for (; b < e; ++b) {
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *b - '0', &v)) return true;
  }
  return false;
}

// Reads an exponent `e[+-]digits` at q into *expon (saturating at kExponentWraps) and *minus;
// returns its end, or q when none starts there (an 'e' without digits is no part of the number,
// as fast_float reads it).
inline const char* ReadExponent(const char* q, const char* end, uint64_t* expon, bool* minus) {
  if (!(q < end && (*q == 'e' || *q == 'E'))) return q;
  const char* e = q + 1;
  *minus = e < end && *e == '-';
  if (e < end && (*e == '-' || *e == '+')) ++e;
  if (!(e < end && IsDigit(*e))) return q;
  *expon = 0;
  for (; e < end && IsDigit(*e); ++e) {
    if (*expon < kExponentWraps) *expon = *expon * 10 + static_cast<unsigned>(*e - '0');
  }
  return e;
}

// dmlc's value (unsigned) of a mantissa `value` scaled by 10^(minus ? -expon : expon).
inline float Scaled(float value, uint64_t expon, bool minus) {
  const unsigned n = expon > kMaxExponent ? kMaxExponent : static_cast<unsigned>(expon);
  if (n == kMaxExponent) {
    if (!minus && value > kMaxAt38) value = kMaxAt38;
    if (minus && value < kMinAtMinus38) value = kMinAtMinus38;
  }
  return minus ? value / kScale.of[n] : value * kScale.of[n];
}

// A token near the float range (or with an exponent that wraps dmlc's): dmlc's value where it and
// the exact reading are both finite (and the exponent does not wrap), else the exact reading.
// Returns the exact parse's end.
inline const char* ExactUnlessBothFinite(const char* start, const char* end, float value,
                                         uint64_t expon, bool minus, bool negative, float* out) {
  const char* stop = ParseFloatPrefix(start, end, out);
  const float dmlc = Scaled(value, expon, minus);
  if (expon < kExponentWraps && std::isfinite(*out) && std::isfinite(dmlc)) {
    *out = negative ? -dmlc : dmlc;
  }
  return stop;
}

}  // namespace dmlc_float

// As ParseFloatPrefix (the same tokens, the same end), with the value XGBoost's text readers give
// (the file comment). No digits (inf, nan, no number) or an integer part that wraps dmlc's: the
// exact reading.
inline const char* ParseFloatPrefixXGBoost(const char* p, const char* end, float* out) {
  const char* q = p;
  if (q < end && *q == '+' && q + 1 < end && q[1] != '-' && q[1] != '+') ++q;
  const bool negative = q < end && *q == '-';
  q += negative;
  const dmlc_float::Mantissa m = dmlc_float::ReadMantissa(q, end);
  if (m.int_digits + m.frac_digits == 0 ||
      (m.int_digits > dmlc_float::kMaxDigits && dmlc_float::Wraps(q, q + m.int_digits))) {
    return ParseFloatPrefix(p, end, out);
  }
  float value = static_cast<float>(m.predec);
  if (m.frac_digits > 0) {
    value += static_cast<float>(static_cast<double>(m.val2) / static_cast<double>(m.pow10));
  }
  uint64_t expon = 0;
  bool minus = false;
  const char* stop = dmlc_float::ReadExponent(m.end, end, &expon, &minus);
  if (stop != m.end) {
    // Only here may either reading be infinite (below this bound both are finite: the mantissa is
    // under 10^int_digits), and only here may dmlc's exponent wrap.
    if (expon >= dmlc_float::kExponentWraps ||
        (!minus && static_cast<uint64_t>(m.int_digits) + expon > dmlc_float::kMaxExponent)) {
      return dmlc_float::ExactUnlessBothFinite(p, end, value, expon, minus, negative, out);
    }
    value = dmlc_float::Scaled(value, expon, minus);
  }
  *out = negative ? -value : value;
  return stop;
}

// The reading `how` of the float at p (ParseFloatPrefix's contract).
inline const char* ParseFloatPrefix(FloatReading how, const char* p, const char* end, float* out) {
  return how == FloatReading::kXGBoost ? ParseFloatPrefixXGBoost(p, end, out)
                                       : ParseFloatPrefix(p, end, out);
}

}  // namespace ringboost
