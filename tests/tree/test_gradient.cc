#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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

}  // namespace ringboost
