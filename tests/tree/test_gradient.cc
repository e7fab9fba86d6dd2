#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/random.h"
#include "tree/gradient.h"

namespace ringboost {

TEST(GradientQuantizer, PowerOfTwoScaleKeepsFloatGradientsExact) {
  auto comm = rabit::MakeLocalCommunicator();
  std::vector<GradPair> g{{0.5f, 0.25f}, {-0.75f, 0.125f}, {0.1f, 0.09f}};
  GradientQuantizer q(g, 1, 0, comm.get());
  // 3 rows: every |q| <= 2^62 / 4 = 2^60, max |g| = 0.75 -> exponent 60 (0.75 * 2^60 < 2^60).
  EXPECT_EQ(q.grad_exp(), 60);
  EXPECT_EQ(q.hess_exp(), 62);  // 0.25 * 2^62 = 2^60 <= 2^60
  for (const GradPair& p : g) {
    GradientSum s = q.Quantize(p);
    EXPECT_EQ(q.Grad(s.g), static_cast<double>(p.grad));  // float has 24 bits: exact
    EXPECT_EQ(q.Hess(s.h), static_cast<double>(p.hess));
  }
}

// The column-wise way keeps quantized gradients as floats: every quantized value must have at most
// 24 significant bits. It is a float times a power of two rounded to an integer: either the
// float's own bits shifted (at least 2^23), or an integer below 2^24 once rounded.
TEST(GradientQuantizer, QuantizedValuesFitAFloat) {
  auto comm = rabit::MakeLocalCommunicator();
  std::vector<GradPair> g{{3.0e30f, 1.0e-3f}, {1.0e-30f, 7.0e20f}, {-0x1.fffffep+5f, 0x1p-149f}};
  uint64_t s = 11;
  for (int i = 0; i < 100000; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const float mantissa = 1.0f + static_cast<float>(s >> 41) * 0x1p-23f;
    const int exponent = static_cast<int>((s >> 20) % 200) - 140;
    const float v = std::ldexp(mantissa, exponent) * ((s >> 10) & 1 ? -1.0f : 1.0f);
    g.push_back({v, std::fabs(v) * 0.5f});
  }
  GradientQuantizer q(g, 1, 0, comm.get());
  for (const GradPair& p : g) {
    const GradientSum v = q.Quantize(p);
    EXPECT_EQ(static_cast<int64_t>(static_cast<float>(v.g)), v.g) << p.grad;
    EXPECT_EQ(static_cast<int64_t>(static_cast<float>(v.h)), v.h) << p.hess;
  }
}

TEST(GradientQuantizer, RoundHalfEvenIsLlrint) {
  EXPECT_EQ(RoundHalfEven(2.5), 2);
  EXPECT_EQ(RoundHalfEven(3.5), 4);
  EXPECT_EQ(RoundHalfEven(-2.5), -2);
  EXPECT_EQ(RoundHalfEven(-0.5), 0);
  EXPECT_EQ(RoundHalfEven(0x1p61 + 0x1p9), (int64_t{1} << 61) + 512);
  for (double x : {0.49999999999999994, 1e-300, -7.25, 123456789.5, -0x1.fffffffffffffp+61}) {
    EXPECT_EQ(RoundHalfEven(x), std::llrint(x)) << x;
  }
}

TEST(GradientQuantizer, GroupsAndSampling) {
  auto comm = rabit::MakeLocalCommunicator();
  // Two groups interleaved; group 1 is (-1, 2) and (4, 1).
  std::vector<GradPair> g{{9.f, 9.f}, {-1.f, 2.f}, {9.f, 9.f}, {4.f, 1.f}};
  GradientQuantizer q(g, 2, 1, comm.get());
  std::vector<GradientSum> all = q.QuantizeAll(g, 2, 1, {}, 2);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(q.Grad(all[0].g), -1.0);
  EXPECT_EQ(q.Hess(all[1].h), 1.0);
  std::vector<GradientSum> sampled = q.QuantizeAll(g, 2, 1, {1, 0}, 2);
  EXPECT_EQ(sampled[1], GradientSum{});
  EXPECT_EQ(sampled[0], all[0]);
}

// QuantizeAll and QuantizeAllLowBit return the sum of what they wrote (the root's), unsampled
// rows left out, for any thread count.
TEST(GradientQuantizer, QuantizeAllReturnsTheSumOfItsValues) {
  auto comm = rabit::MakeLocalCommunicator();
  std::vector<GradPair> g;
  for (int i = 0; i < 3001; ++i) g.push_back({0.3f * std::sin(0.11f * i), 0.01f * (i % 7)});
  std::vector<uint8_t> keep(g.size());
  for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = i % 3 != 0;
  const GradientQuantizer q(g, 1, 0, comm.get());
  const GradientQuantizer low = q.LowBit();
  for (const auto& k : {std::vector<uint8_t>{}, keep}) {
    for (int nthread : {1, 3}) {
      std::vector<GradientSum> out;
      GradientSum want;
      const GradientSum got = q.QuantizeAll(g, 1, 0, k, nthread, &out);
      for (const GradientSum& v : out) want += v;
      EXPECT_EQ(got, want) << nthread;
      EXPECT_NE(got.g, 0);
      const GradientSum got_low = low.QuantizeAllLowBit(g, 1, 0, k, 42, 3, 0, nthread, &out);
      want = GradientSum{};
      for (const GradientSum& v : out) want += v;
      EXPECT_EQ(got_low, want) << nthread;
      EXPECT_NE(got_low.h, 0);
    }
  }
}

// QuantizeAll's eight-row AVX-512 steps (one group, no row left out) give Quantize's values:
// ties of the scaled value (x.5 at the exponents picked) rounded to even both ways, negative and
// tiny values, the largest |g|, and rows past the last whole step (1, 7, 8, 9 and 1003 rows).
TEST(GradientQuantizer, QuantizeAllLanesGiveQuantizesValues) {
  auto comm = rabit::MakeLocalCommunicator();
  std::vector<GradPair> all{{0.75f, 0.25f}, {-0.75f, 0.0f}};
  uint64_t s = 3;
  for (int i = 0; i < 1001; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const float u = static_cast<float>(s >> 40) * 0x1p-24f;  // [0, 1)
    all.push_back({(s >> 20 & 1 ? -0.7f : 0.7f) * u, 0.2f * u * u});
  }
  const GradientQuantizer q(all, 1, 0, comm.get());
  // A value whose scaled form ends in .5: a float of 24 significant bits above 2^-exp's unit.
  const double half = std::ldexp(1.0, -q.grad_exp() - 1);  // 0.5 of a unit
  ASSERT_GT(static_cast<float>(3 * half), 0.0f);
  // Both halves of the first step's lanes, and the rows after the last step.
  for (std::size_t i : {2, 6, 1001}) all[i].grad = static_cast<float>(3 * half);  // 1.5 -> 2
  for (std::size_t i : {3, 5, 1002}) all[i].grad = static_cast<float>(5 * half);  // 2.5 -> 2
  for (std::size_t i : {1, 7}) all[i].grad = static_cast<float>(-5 * half);       // -2.5 -> -2
  for (std::size_t n :
       {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{9}, all.size()}) {
    const std::vector<GradPair> g(all.begin(), all.begin() + n);
    for (int nthread : {1, 2}) {
      std::vector<GradientSum> lanes, rows;
      const GradientSum sum_lanes = q.QuantizeAll(g, 1, 0, {}, nthread, &lanes, true);
      const GradientSum sum_rows = q.QuantizeAll(g, 1, 0, {}, nthread, &rows, false);
      ASSERT_EQ(lanes.size(), n);
      for (std::size_t i = 0; i < n; ++i) {
        EXPECT_EQ(lanes[i], q.Quantize(g[i])) << "row " << i << " of " << n;
        EXPECT_EQ(rows[i], lanes[i]) << "row " << i << " of " << n;
      }
      EXPECT_EQ(sum_lanes, sum_rows) << n;
    }
  }
  EXPECT_EQ(q.Quantize(all[6]).g, 2);
  EXPECT_EQ(q.Quantize(all[5]).g, 2);
  EXPECT_EQ(q.Quantize(all[7]).g, -2);
}

TEST(GradientQuantizer, AllZeroGradients) {
  auto comm = rabit::MakeLocalCommunicator();
  std::vector<GradPair> g(4);
  GradientQuantizer q(g, 1, 0, comm.get());
  EXPECT_EQ(q.Quantize(g[0]), GradientSum{});
}

TEST(GradientQuantizer, HessAtLeastIsTheFirstIntegerAtOrAboveTheValue) {
  auto comm = rabit::MakeLocalCommunicator();
  std::vector<GradPair> g{{0.5f, 0.25f}, {-0.75f, 0.125f}, {0.1f, 0.09f}};
  GradientQuantizer q(g, 1, 0, comm.get());
  ASSERT_EQ(q.hess_exp(), 62);  // Hess(n) = double(n) * 2^-62
  // Below 2^62 doubles are 512 apart; 2^62 - 256 is a tie and rounds to the even 2^62, so it is
  // the first integer whose Hess reaches 1. Below 2^61 they are 256 apart: 2^61 - 128.
  EXPECT_EQ(q.HessAtLeast(1.0), (int64_t{1} << 62) - 256);
  EXPECT_EQ(q.HessAtLeast(0.5), (int64_t{1} << 61) - 128);
  EXPECT_EQ(q.HessAtLeast(0.0), 0);  // Hess(-1) < 0
  EXPECT_EQ(q.HessAtLeast(-INFINITY), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(q.HessAtLeast(4.0), std::numeric_limits<int64_t>::max());  // Hess never reaches 4
  for (double x : {1e-19, 0.1, 0.3333, 1.0 + 1e-12, 1.7}) {
    const int64_t n = q.HessAtLeast(x);
    EXPECT_GE(q.Hess(n), x) << x;
    EXPECT_LT(q.Hess(n - 1), x) << x;
  }
}

// Low-bit gradients: max |g| 0.7 and max |h| 0.35 over the rows give units 0.1 and 0.05; each
// value becomes the level just below or just above it (never further), within +-kLevels, with
// no bias, zero where not kept, the same for any thread count and for a worker holding rows
// from first_row on.
TEST(GradientQuantizer, LowBitRoundsToANeighbouringLevelWithoutBias) {
  auto comm = rabit::MakeLocalCommunicator();
  std::vector<GradPair> g{{0.7f, 0.35f}, {-0.7f, 0.0f}};
  for (int i = 0; i < 4000; ++i) {
    g.push_back({0.69f * std::sin(0.37f * i), 0.034f * static_cast<float>(i % 11)});
  }
  const GradientQuantizer low = GradientQuantizer(g, 1, 0, comm.get(), 1).LowBit();
  ASSERT_TRUE(low.low_bit());
  EXPECT_NEAR(low.Grad(1), 0.1, 1e-8);
  EXPECT_NEAR(low.Hess(1), 0.05, 1e-8);
  std::vector<GradientSum> q1, q2, tail;
  low.QuantizeAllLowBit(g, 1, 0, {}, 42, 3, 0, 1, &q1);
  low.QuantizeAllLowBit(g, 1, 0, {}, 42, 3, 0, 2, &q2);
  EXPECT_EQ(q1, q2);
  EXPECT_EQ(q1[0], (GradientSum{7, 7}));
  EXPECT_EQ(q1[1], (GradientSum{-7, 0}));
  double bias_g = 0.0, bias_h = 0.0;
  int ups = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double x = g[i].grad / low.Grad(1), y = g[i].hess / low.Hess(1);
    EXPECT_TRUE(q1[i].g == std::floor(x) || q1[i].g == std::ceil(x)) << i << ": " << x;
    EXPECT_TRUE(q1[i].h == std::floor(y) || q1[i].h == std::ceil(y)) << i << ": " << y;
    EXPECT_LE(std::abs(q1[i].g), LowBitPolicy::kLevels);
    bias_g += q1[i].g - x;
    bias_h += q1[i].h - y;
    ups += q1[i].g > x;
  }
  // Each error is within (-1, 1) with mean 0: the mean of 4002 is within 0.05 (over 6 sigma).
  EXPECT_LT(std::fabs(bias_g / g.size()), 0.05);
  EXPECT_LT(std::fabs(bias_h / g.size()), 0.05);
  EXPECT_GT(ups, 1000);  // not rounding one way
  // A second worker's share: rows 1000.. with first_row 1000 draw what the whole set drew.
  low.QuantizeAllLowBit(std::vector<GradPair>(g.begin() + 1000, g.end()), 1, 0, {}, 42, 3, 1000, 1,
                        &tail);
  EXPECT_TRUE(std::equal(tail.begin(), tail.end(), q1.begin() + 1000));
  // Another round (key) or seed draws anew; unsampled rows are zero.
  low.QuantizeAllLowBit(g, 1, 0, {}, 42, 4, 0, 1, &q2);
  EXPECT_NE(q1, q2);
  std::vector<uint8_t> keep(g.size(), 1);
  keep[5] = 0;
  low.QuantizeAllLowBit(g, 1, 0, keep, 42, 3, 0, 1, &q2);
  EXPECT_EQ(q2[5], GradientSum{});
  EXPECT_EQ(q2[6], q1[6]);
}

// The host rounds two lanes at a time (one group: four rows in AVX2 lanes); the device calls
// LowBitQuantize, one value at a time. Both give the same values for every row: gradients on the
// levels, just off them either way, at the clamps, negative fractions, zeros and subnormals, a
// second stride and group, and one group.
TEST(GradientQuantizer, LowBitRoundingIsTheScalarRounding) {
  auto comm = rabit::MakeLocalCommunicator();
  std::vector<GradPair> g{{1.0f, 2.0f}, {-1.0f, -2.0f}, {0.0f, -0.0f}, {1e-40f, -1e-40f}};
  for (int i = -70; i <= 70; ++i) {
    const float x = static_cast<float>(i) / 70.0f;
    for (float e : {0.0f, 1e-7f, -1e-7f, 0.0049f, -0.0051f}) g.push_back({x + e, 2.0f * (x - e)});
  }
  for (int i = 0; i < 3000; ++i) {
    g.push_back({0.999f * std::sin(1.37f * i), 1.99f * std::cos(0.91f * i)});
  }
  for (int group : {0, 1}) {
    const GradientQuantizer low = GradientQuantizer(g, 2, group, comm.get(), 1).LowBit();
    for (uint64_t key : {0, 3}) {
      std::vector<GradientSum> q;
      const GradientSum sum = low.QuantizeAllLowBit(g, 2, group, {}, 17, key, 500, 2, &q);
      ASSERT_EQ(q.size(), g.size() / 2);
      GradientSum expected_sum;
      for (std::size_t i = 0; i < q.size(); ++i) {
        const uint64_t bits =
            CounterHash(17, static_cast<uint64_t>(RandomStream::kLowBitGradient), key, 500 + i);
        const GradientSum scalar =
            LowBitQuantize(g[i * 2 + group], low.grad_scale(), low.hess_scale(), bits);
        ASSERT_EQ(q[i], scalar) << "row " << i << " group " << group << " key " << key;
        expected_sum += scalar;
      }
      EXPECT_EQ(sum, expected_sum);
    }
  }
  // One group: eight rows a step in AVX-512 lanes and four in AVX2 lanes, each where the CPU
  // has them, against a row at a time and the scalar rounding; row counts that leave 0-7 rows
  // over, a worker's first row past 2^32 (the draws' counter in 64-bit lanes), 1-3 threads.
  std::vector<GradPair> one;
  for (std::size_t i = 0; i < g.size(); i += 2) one.push_back(g[i]);
  const GradientQuantizer low = GradientQuantizer(one, 1, 0, comm.get(), 1).LowBit();
  std::vector<GradientIsa> isas;
  for (GradientIsa isa : {GradientIsa::kAvx2, GradientIsa::kAvx512}) {
    if (QuantizerIsaAvailable(isa)) isas.push_back(isa);
  }
  for (std::size_t rows :
       {std::size_t{1}, std::size_t{6}, std::size_t{13}, one.size() - 2, one.size()}) {
    const std::vector<GradPair> part(one.begin(), one.begin() + rows);
    for (uint64_t first_row : {uint64_t{0}, uint64_t{77}, (uint64_t{1} << 32) - 2}) {
      for (int nthread : {1, 2, 3}) {
        std::vector<GradientSum> steps;
        const GradientSum b = low.QuantizeAllLowBit(part, 1, 0, {}, 23, 5, first_row, nthread,
                                                    &steps, GradientIsa::kBaseline);
        for (GradientIsa isa : isas) {
          std::vector<GradientSum> vectored;
          const GradientSum a =
              low.QuantizeAllLowBit(part, 1, 0, {}, 23, 5, first_row, nthread, &vectored, isa);
          ASSERT_EQ(vectored, steps)
              << rows << " rows from " << first_row << ", isa " << static_cast<int>(isa);
          EXPECT_EQ(a, b);
        }
        std::vector<GradientSum> lanes;
        const GradientSum a =
            low.QuantizeAllLowBit(part, 1, 0, {}, 23, 5, first_row, nthread, &lanes);
        GradientSum expected_sum;
        for (std::size_t i = 0; i < rows; ++i) {
          const uint64_t bits = CounterHash(
              23, static_cast<uint64_t>(RandomStream::kLowBitGradient), 5, first_row + i);
          const GradientSum scalar =
              LowBitQuantize(part[i], low.grad_scale(), low.hess_scale(), bits);
          ASSERT_EQ(lanes[i], scalar) << "row " << i << " from " << first_row;
          expected_sum += scalar;
        }
        EXPECT_EQ(a, expected_sum);
      }
    }
  }
}

// The cells a low-bit histogram travels in (the allreduce): 16+16 bits while rows * kLevels fits
// 32767, 32+32 while it fits 2^31 - 1, else 64+64.
TEST(Gradient, CellBitsFollowTheNodesRows) {
  constexpr uint64_t kLevels = LowBitPolicy::kLevels;
  EXPECT_EQ(CellBitsFor(0), CellBits::k16);
  EXPECT_EQ(CellBitsFor(32767 / kLevels), CellBits::k16);
  EXPECT_EQ(CellBitsFor(32767 / kLevels + 1), CellBits::k32);
  EXPECT_EQ(CellBitsFor(2147483647 / kLevels), CellBits::k32);
  EXPECT_EQ(CellBitsFor(2147483647 / kLevels + 1), CellBits::k64);
}

}  // namespace ringboost
