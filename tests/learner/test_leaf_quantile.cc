// AgreeLeafQuantiles (objective/leaf_quantile.h), the leaf refresh of reg:absoluteerror and
// reg:quantileerror: values derived by hand from XGBoost's common::Quantile and
// common::WeightedQuantile. (Several workers: tests/cli/test_objective_models.cc.)
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "objective/leaf_quantile.h"
#include "rabit/communicator.h"

namespace ringboost {
namespace {

std::vector<float> Quantiles(const std::vector<float>& weights, double alpha) {
  // Node 1: 10, 2, 1, 3 (and a row of value 100 that takes no part); node 2: -1.5; node 0: none.
  const std::vector<int> leaf{1, 1, 2, 1, -1, 1};
  const std::vector<float> values{10.0f, 2.0f, -1.5f, 1.0f, 100.0f, 3.0f};
  auto comm = rabit::MakeLocalCommunicator();
  return AgreeLeafQuantiles(leaf, 3, values, weights, alpha, comm.get());
}

TEST(LeafQuantile, UnweightedInterpolatesAsXGBoost) {
  // n = 4, alpha 0.5: x = 2.5, k = 1, d = 0.5: v[1] + 0.5 (v[2] - v[1]) = 2 + 0.5.
  std::vector<float> q = Quantiles({}, 0.5);
  EXPECT_TRUE(std::isnan(q[0]));
  EXPECT_EQ(q[1], 2.5f);
  EXPECT_EQ(q[2], -1.5f);
  // alpha <= 1 / (n + 1) = 0.2: the minimum; alpha >= n / (n + 1) = 0.8: the maximum.
  EXPECT_EQ(Quantiles({}, 0.1)[1], 1.0f);
  EXPECT_EQ(Quantiles({}, 0.9)[1], 10.0f);
  // alpha 0.3: x = 1.5, k = 0, d = 0.5: 1 + 0.5 (2 - 1).
  EXPECT_EQ(Quantiles({}, 0.3)[1], 1.5f);
}

TEST(LeafQuantile, WeightedTakesTheFirstValueReachingAlphaOfTheWeight) {
  // Sorted node 1: 1 (w 1), 2 (w 1), 3 (w 1), 10 (w 5): cumulative 1, 2, 3, 8; half is 4: 10.
  std::vector<float> q = Quantiles({5, 1, 2, 1, 7, 1}, 0.5);
  EXPECT_EQ(q[1], 10.0f);
  EXPECT_EQ(q[2], -1.5f);
  // Weights 3 on the value 1: cumulative 3, 4, 5, 6; half is 3, reached at 1.
  EXPECT_EQ(Quantiles({1, 1, 2, 3, 7, 1}, 0.5)[1], 1.0f);
}

TEST(LeafQuantile, OrderedKeysOrderAsFloats) {
  const std::vector<float> v{-INFINITY, -3.0f, -0.0f, 0.0f, 1e-40f, 2.0f, INFINITY};
  for (std::size_t i = 0; i + 1 < v.size(); ++i) {
    EXPECT_LT(OrderedKey(v[i]), OrderedKey(v[i + 1])) << v[i];
    EXPECT_EQ(FromOrderedKey(OrderedKey(v[i])), v[i]);
  }
}

}  // namespace
}  // namespace ringboost
