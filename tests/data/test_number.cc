#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "data/number.h"

namespace ringboost {
namespace {

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

}  // namespace
}  // namespace ringboost
