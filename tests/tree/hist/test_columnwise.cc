#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tree/hist/columnwise.h"
#include "tree/hist/columnwise_kernels.h"

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

// One node's cells of a 70-bin feature, by hand: marked at bins 0, 5, 64 (a zero sum: rows whose
// gradients cancel) and 69, with an unmarked cell at 10 that the marked gather must not read.
// Prefix sums of g over the marked cells: 2, -3, -3, 1.
TEST(ColumnwiseKernels, GatherReadsTheMarkedCellsInOrder) {
  using columnwise_kernels::Gather;
  using columnwise_kernels::Gathered;
  constexpr uint32_t kBins = 70;
  for (bool vector : {false, true}) {
    std::vector<uint64_t> cells(kBins, 0);
    std::vector<uint8_t> marks(kBins + columnwise_kernels::kMarkChunk, 0);
    cells[0] = Packed32::Pack(2, 1);
    cells[5] = Packed32::Pack(-5, 3);
    cells[64] = Packed32::Pack(0, 0);
    cells[69] = Packed32::Pack(4, 2);
    cells[10] = Packed32::Pack(7, 7);
    for (uint32_t b : {0u, 5u, 64u, 69u}) marks[b] = 1;
    marks[kBins] = 1;  // the next node's first mark
    std::vector<GradientSum> values(kBins + columnwise_kernels::kGatherSlack);
    std::vector<uint32_t> bins(kBins + columnwise_kernels::kGatherSlack);
    const Gathered got =
        Gather(cells.data(), marks.data(), kBins, values.data(), bins.data(), vector);
    ASSERT_EQ(got.n, 3u) << vector;
    EXPECT_EQ(values[0], (GradientSum{2, 1}));
    EXPECT_EQ(values[1], (GradientSum{-5, 3}));
    EXPECT_EQ(values[2], (GradientSum{4, 2}));
    EXPECT_EQ(bins[0], 0u);
    EXPECT_EQ(bins[1], 5u);
    EXPECT_EQ(bins[2], 69u);
    EXPECT_EQ(got.present, (GradientSum{1, 6}));
    EXPECT_EQ(got.lo, -3);
    EXPECT_EQ(got.hi, 2);
    EXPECT_EQ(got.hess_or, 1 | 3 | 2);
    for (uint32_t b = 0; b < kBins; ++b) {
      EXPECT_EQ(cells[b], b == 10 ? Packed32::Pack(7, 7) : 0u) << b;
      EXPECT_EQ(marks[b], 0) << b;
    }
    EXPECT_EQ(marks[kBins], 1);
    // Unmarked: every cell, the one at 10 too; a negative hessian makes hess_or negative.
    cells[3] = Packed32::Pack(-1, -4);
    const Gathered all = Gather(cells.data(), nullptr, kBins, values.data(), bins.data(), vector);
    ASSERT_EQ(all.n, 2u);
    EXPECT_EQ(bins[0], 3u);
    EXPECT_EQ(bins[1], 10u);
    EXPECT_EQ(all.present, (GradientSum{6, 3}));
    EXPECT_EQ(all.lo, -1);
    EXPECT_EQ(all.hi, 6);
    EXPECT_LT(all.hess_or, 0);
    EXPECT_EQ(cells, std::vector<uint64_t>(kBins, 0));
  }
}

// The AVX-512 gather against the scalar loop on random cells: every bin count around the steps'
// and chunks' edges, marked and unmarked (most cells marked, or a few), zero sums among the
// marked cells, unmarked non-zero cells, and the next node's cells and marks past the end, which
// neither may touch.
TEST(ColumnwiseKernels, GatherLanesAreTheScalarLoop) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (!(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512vbmi2"))) {
    GTEST_SKIP() << "this CPU has no AVX-512 (VBMI2) lanes; the scalar loop serves";
  }
#else
  GTEST_SKIP() << "no AVX-512 lanes on this architecture";
#endif
  using columnwise_kernels::Gather;
  using columnwise_kernels::Gathered;
  uint64_t state = 12345;
  auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  std::size_t found = 0;
  for (uint32_t nb : {1u, 2u, 7u, 8u, 9u, 15u, 63u, 64u, 65u, 127u, 128u, 200u, 256u}) {
    for (bool marked : {true, false}) {
      for (int trial = 0; trial < 4; ++trial) {
        const uint32_t past = 16;  // the next node's
        std::vector<uint64_t> cells(nb + past, 0);
        std::vector<uint8_t> marks(nb + columnwise_kernels::kMarkChunk, 0);
        for (uint32_t b = 0; b < nb + past; ++b) {
          const uint64_t r = next();
          if (b >= nb) marks[b] = 1;
          if (r % 3 == 0) continue;  // empty
          const int64_t g = static_cast<int64_t>(next() % 2000001) - 1000000;
          const int64_t h = static_cast<int64_t>(next() % 1001001) - 1000;
          cells[b] = r % 7 == 1 ? 0 : Packed32::Pack(g, h);
          // A few non-empty cells left unmarked; in trials 2-3 most (a few marks a chunk).
          if (trial < 2 ? r % 11 != 4 : r % 8 == 2) marks[b] = 1;
        }
        std::vector<uint64_t> cells2 = cells;
        std::vector<uint8_t> marks2 = marks;
        const std::size_t room = nb + columnwise_kernels::kGatherSlack;
        std::vector<GradientSum> v1(room), v2(room);
        std::vector<uint32_t> b1(room), b2(room);
        const Gathered a =
            Gather(cells.data(), marked ? marks.data() : nullptr, nb, v1.data(), b1.data(), false);
        const Gathered b =
            Gather(cells2.data(), marked ? marks2.data() : nullptr, nb, v2.data(), b2.data(), true);
        ASSERT_EQ(a.n, b.n) << nb << " " << marked;
        found += a.n;
        EXPECT_EQ(a.present, b.present) << nb << " " << marked;
        EXPECT_EQ(a.lo, b.lo) << nb << " " << marked;
        EXPECT_EQ(a.hi, b.hi) << nb << " " << marked;
        EXPECT_EQ(a.hess_or, b.hess_or) << nb << " " << marked;
        for (std::size_t k = 0; k < a.n; ++k) {
          EXPECT_EQ(v1[k], v2[k]) << nb << " " << k;
          EXPECT_EQ(b1[k], b2[k]) << nb << " " << k;
        }
        EXPECT_EQ(cells, cells2) << nb << " " << marked;
        EXPECT_EQ(marks, marks2) << nb << " " << marked;
        for (uint32_t k = nb; k < nb + past; ++k) EXPECT_EQ(marks[k], 1) << nb;
      }
    }
  }
  EXPECT_GT(found, 1000u);
}

}  // namespace
}  // namespace ringboost
