#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "data/number.h"

namespace ringboost {
namespace {

uint32_t Bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

// `s` read `how` from its start: the length of the number (-1: no number) and its value.
struct Reading {
  std::ptrdiff_t length;
  float value;
};
Reading Read(FloatReading how, const std::string& s) {
  float v = 0;
  const char* stop = ParseFloatPrefix(how, s.data(), s.data() + s.size(), &v);
  return {stop == nullptr ? -1 : stop - s.data(), v};
}

// The fast path must give the same float, bit for bit, as fast_float's correctly rounded parse.
TEST(Number, FastPathMatchesFastFloat) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 200000; ++i) {
    char buf[64];
    int digits = 1 + static_cast<int>(rng() % 12);
    int point = static_cast<int>(rng() % (digits + 1));
    std::string s = (rng() % 2) ? "-" : "";
    for (int d = 0; d < digits; ++d) {
      if (d == point && d > 0) s += '.';
      s += static_cast<char>('0' + rng() % 10);
    }
    std::snprintf(buf, sizeof(buf), "%s", s.c_str());
    float fast = 0, reference = 0;
    const char* end = buf + std::strlen(buf);
    const char* stop = ParseFloatPrefix(buf, end, &fast);
    auto res = fast_float::from_chars(buf, end, reference);
    ASSERT_EQ(stop, res.ptr) << buf;
    uint32_t a, b;
    std::memcpy(&a, &fast, 4);
    std::memcpy(&b, &reference, 4);
    ASSERT_EQ(a, b) << buf;
  }
}

TEST(Number, SignsAndSpecialForms) {
  float v = 0;
  const char* s = "+1.5 ";
  EXPECT_EQ(ParseFloatPrefix(s, s + 5, &v), s + 4);
  EXPECT_EQ(v, 1.5f);
  s = "+-1";
  EXPECT_EQ(ParseFloatPrefix(s, s + 3, &v), nullptr);
  s = "2.5e3x";
  EXPECT_EQ(ParseFloatPrefix(s, s + 6, &v), s + 5);
  EXPECT_EQ(v, 2500.0f);
  s = "-";
  EXPECT_EQ(ParseFloatPrefix(s, s + 1, &v), nullptr);
  s = "16777217";  // 2^24 + 1: not exact in float, rounds to even
  EXPECT_EQ(ParseFloatPrefix(s, s + 8, &v), s + 8);
  EXPECT_EQ(v, 16777216.0f);
}

// Correctly rounded, as numpy and LightGBM read it; dmlc-core's reading is a float below.
TEST(Number, ExactRoundsCorrectly) {
  EXPECT_EQ(Bits(Read(FloatReading::kExact, "1.659").value), 0x3fd45a1du);  // 1.65900004
  EXPECT_EQ(Bits(Read(FloatReading::kExact, "-1.603").value), 0xbfcd2f1bu);
  EXPECT_EQ(Read(FloatReading::kExact, "1.659").value, 1.659f);
  EXPECT_EQ(Read(FloatReading::kExact, "3.402823466e38").value, 3.402823466e38f);
}

// Floats XGBoost 1.7.4's and 3.2.0's DMatrix("file?format=libsvm") gave for these tokens (one
// value a row, `0 0:<token>`; both versions gave the same bits). Tokens marked "= exact" read the
// same either way.
TEST(Number, XGBoostReadingMatchesXGBoost) {
  struct Case {
    const char* token;
    uint32_t bits;
  };
  const Case cases[] = {
      {"1.659", 0x3fd45a1c},
      {"-1.603", 0xbfcd2f1a},
      {"0.1", 0x3dcccccd},                   // = exact
      {"1.0000001", 0x3f800001},             // = exact
      {"16777217", 0x4b800000},              // = exact
      {"9999999999999999999", 0x5f0ac723},   // = exact
      {"12345678901234567890", 0x5f2b54aa},  // = exact
      {"18446744073709551615", 0x5f800000},  // = exact
      {"-0.0", 0x80000000},                  // = exact
      {"5.", 0x40a00000},                    // = exact
      {".5", 0x3f000000},                    // = exact
      {"+.5", 0x3f000000},                   // = exact
      {"-.5", 0xbf000000},                   // = exact
      {"+1.5", 0x3fc00000},                  // = exact
      {"1e38", 0x7e96769a},
      {"1E38", 0x7e96769a},
      {"0.5e38", 0x7e16769a},
      {"2e38", 0x7f16769a},
      {"3.3e38", 0x7f7843b1},
      {"9.99e37", 0x7e965015},  // = exact
      {"1.175494351e-38", 0x007fffff},
      {"1.1e-38", 0x007fffff},
      {"9e-39", 0x01f500d7},
      {"1e-45", 0x007fffff},
      {"7e-46", 0x01be8ee0},
      {"2.5e-42", 0x01081ce9},
      {"1e-0", 0x3f800000},                      // = exact
      {"1e+00", 0x3f800000},                     // = exact
      {"123456789012345678.5e-10", 0x4b3c614f},  // = exact
      {"0.00000000000000000000001", 0x00000000},
      {"0.1234567890123456789012345", 0x3dfcd6ea},  // = exact
      {"1.9999999999999999999999", 0x40000000},     // = exact
      {"+2.89", 0x4038f5c2},
      {"1.9938", 0x3fff34d6},
      {"41447938.4844", 0x4c1e1c80},
      {"208743464.1587", 0x4d4712c2},
      {"2.2787", 0x4011d638},
      {"6.63031604", 0x40d42b8c},
      {"1.58", 0x3fca3d70},
      {"2.983637", 0x403ef3e8},
      {"-3.6992351081031993502763", 0xc06cc044},
      {"6.3513133391928946796519562", 0x40cb3df6},
      {"6.774122488562297648767805", 0x40d8c59c},
      {"-0.005859676209E+38", 0xfae1b4e0},
      {"-.30e+38", 0xfdb48e53},
      {"0.002E38", 0x7a1a130d},
      {"62.0915973E-42", 0x03534968},
      {"9.3724E-40", 0x01ff2418},
      {"87e-44", 0x039405d7},
      {"-0.77595e+033", 0xf6190778},
      {".33950817074153086717e+30", 0x70892053},
      {".99003299E037", 0x7cee577f},
  };
  for (const Case& c : cases) {
    const std::string token = c.token;
    const Reading r = Read(FloatReading::kXGBoost, token);
    EXPECT_EQ(r.length, static_cast<std::ptrdiff_t>(token.size())) << token;
    EXPECT_EQ(Bits(r.value), c.bits) << token;
  }
}

// dmlc's exponent scale is a float product of 1e8f then 10.0f steps, as the table holds.
TEST(Number, DmlcScaleTableIsTheRuntimeProduct) {
  for (unsigned n = 0; n <= dmlc_float::kMaxExponent; ++n) {
    volatile float scale = 1.0f;
    unsigned e = n;
    for (; e >= 8; e -= 8) scale = scale * 1e8f;
    for (; e > 0; --e) scale = scale * 10.0f;
    EXPECT_EQ(Bits(dmlc_float::kScale.of[n]), Bits(scale)) << n;
  }
}

// Where dmlc's integers wrap (an integer part above 2^64 - 1, an exponent of 2^32 or more) and
// where its value is infinite but the exact one is not, the exact reading stands.
TEST(Number, XGBoostReadingKeepsTheExactValueWhereDmlcWraps) {
  for (const char* token :
       {"99999999999999999999.5e-5", "123456789012345678901234567890", "-184467440737095516160.25",
        "1e4294967297", "1e-4294967296", "3.4028235e38", "-3.402823466e38"}) {
    const Reading exact = Read(FloatReading::kExact, token);
    const Reading xgboost = Read(FloatReading::kXGBoost, token);
    EXPECT_EQ(xgboost.length, exact.length) << token;
    EXPECT_EQ(Bits(xgboost.value), Bits(exact.value)) << token;
  }
  // 20 digits below 2^64 do not wrap: dmlc's float of the integer plus its fraction.
  EXPECT_EQ(Bits(Read(FloatReading::kXGBoost, "18446744073709551615.5").value), 0x5f800000u);
}

// Both readings take the same tokens and stop at the same byte, and agree on NaN and inf: the
// readers' acceptance rules do not depend on parse_float.
TEST(Number, BothReadingsAcceptTheSameTokens) {
  std::mt19937_64 rng(7);
  const std::string alphabet = "0123456789....eE+-+-nNaAiIfFx ";
  const std::vector<std::string> words = {"nan", "inf", "infinity", "NaN", "-inf", "+inf", "e38"};
  for (int i = 0; i < 300000; ++i) {
    std::string s;
    if (rng() % 8 == 0) s = words[rng() % words.size()];
    const int n = 1 + static_cast<int>(rng() % 12);
    for (int k = 0; k < n; ++k) s += alphabet[rng() % alphabet.size()];
    const Reading exact = Read(FloatReading::kExact, s);
    const Reading xgboost = Read(FloatReading::kXGBoost, s);
    ASSERT_EQ(xgboost.length, exact.length) << s;
    if (exact.length < 0) continue;
    ASSERT_EQ(std::isnan(xgboost.value), std::isnan(exact.value)) << s;
    ASSERT_EQ(std::isinf(xgboost.value), std::isinf(exact.value)) << s;
    if (!std::isfinite(exact.value)) ASSERT_EQ(Bits(xgboost.value), Bits(exact.value)) << s;
  }
}

}  // namespace
}  // namespace ringboost
