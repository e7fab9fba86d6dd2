#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tree/hist/columnwise.h"

namespace ringboost {
namespace {

using EntryGradient = ColumnwiseEvaluator::EntryGradient;

// The fast sum (doubles offset by 2^52 + 2^51) is exact over the whole range Small admits, for
// either sign, onto cells of either sign, as the plain conversion is.
TEST(ColumnwiseEvaluator, SmallGradientsAddExactly) {
  const float largest = 0x1p51f - 0x1p27f;  // the largest float under 2^51
  const std::vector<float> values = {
      0.0f, 1.0f, -1.0f, 3.0f, -16777215.0f, 16777218.0f, 0x1p40f + 0x1p17f, -largest, largest};
  const std::vector<GradientSum> cells = {
      {0, 0}, {-5, 7}, {int64_t{1} << 61, -(int64_t{1} << 61)}, {-(int64_t{1} << 61), 1}};
  for (float g : values) {
    for (float h : values) {
      const EntryGradient e{g, h};
      ASSERT_TRUE(e.Small()) << g << " " << h;
      for (const GradientSum& start : cells) {
        GradientSum fast = start, plain = start;
        e.AddTo<true>(&fast);
        e.AddTo<false>(&plain);
        const GradientSum expected{start.g + static_cast<int64_t>(g),
                                   start.h + static_cast<int64_t>(h)};
        EXPECT_EQ(fast, expected) << g << " " << h;
        EXPECT_EQ(plain, expected) << g << " " << h;
      }
    }
  }
  EXPECT_FALSE((EntryGradient{0x1p51f, 0.0f}.Small()));
  EXPECT_FALSE((EntryGradient{0.0f, -0x1p51f}.Small()));
  EXPECT_FALSE((EntryGradient{-0x1p60f, 1.0f}.Small()));
}

// Every low-bit (g, h) has its own code below kCodes, whose word is its Packed32 word.
TEST(ColumnwiseEvaluator, CodesNameEveryLowBitGradient) {
  constexpr int kLevels = LowBitPolicy::kLevels;
  std::vector<int> seen(256, 0);
  for (int g = -kLevels; g <= kLevels; ++g) {
    for (int h = -kLevels; h <= kLevels; ++h) {
      const uint8_t code = ColumnwiseEvaluator::Code(g, h);
      ASSERT_LT(code, ColumnwiseEvaluator::kCodes);
      EXPECT_EQ(++seen[code], 1) << g << " " << h;
      EXPECT_EQ(ColumnwiseEvaluator::CodeWord(code), Packed32::Pack(g, h)) << g << " " << h;
      EXPECT_EQ(Packed32::Unpack(ColumnwiseEvaluator::CodeWord(code)), (GradientSum{g, h}));
    }
  }
}

}  // namespace
}  // namespace ringboost
