// ExactQuantiles (objective/exact_quantiles.h), reg:quantileerror's base_score: values derived
// by hand from XGBoost's common::Quantile and common::WeightedQuantile, and the same values from
// several workers (threads of this process) holding parts of the rows.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "objective/exact_quantiles.h"
#include "rabit/communicator.h"
#include "rabit/tracker_thread.h"

namespace ringboost {
namespace {

const std::vector<float> kValues{10.0f, 2.0f, 1.0f, 3.0f};

std::vector<float> Quantiles(const std::vector<float>& weights, std::vector<double> alphas) {
  auto comm = rabit::MakeLocalCommunicator();
  return ExactQuantiles(kValues, weights, alphas, comm.get());
}

TEST(ExactQuantiles, UnweightedInterpolatesAsXGBoost) {
  // n = 4, alpha 0.5: x = 2.5, k = 1, d = 0.5: v[1] + 0.5 (v[2] - v[1]) = 2 + 0.5.
  // alpha 0.3: x = 1.5, k = 0, d = 0.5: 1 + 0.5 (2 - 1).
  // alpha <= 1 / (n + 1) = 0.2: the minimum; alpha >= n / (n + 1) = 0.8: the maximum.
  EXPECT_EQ(Quantiles({}, {0.1, 0.3, 0.5, 0.9}), (std::vector<float>{1.0f, 1.5f, 2.5f, 10.0f}));
}

TEST(ExactQuantiles, WeightedTakesTheFirstValueReachingAlphaOfTheWeight) {
  // Sorted: 1 (w 2), 2 (w 1), 3 (w 1), 10 (w 5): cumulative 2, 3, 4, 9; half is 4.5: 10.
  EXPECT_EQ(Quantiles({5, 1, 2, 1}, {0.5}), std::vector<float>{10.0f});
  // Weights 3 on the value 1: cumulative 3, 4, 5, 6; half is 3, reached at 1.
  EXPECT_EQ(Quantiles({1, 1, 3, 1}, {0.5}), std::vector<float>{1.0f});
}

TEST(ExactQuantiles, NoRowsGiveNaN) {
  auto comm = rabit::MakeLocalCommunicator();
  EXPECT_TRUE(std::isnan(ExactQuantiles({}, {}, {0.5}, comm.get())[0]));
}

// 1000 values spread over 3 workers as 100, 0 and 900 rows: one process's quantiles.
TEST(ExactQuantiles, WorkersGetOneProcessValues) {
  std::vector<float> values(1000), weights(1000);
  for (int i = 0; i < 1000; ++i) {
    values[i] = static_cast<float>(std::fmod(i * 37.0, 101.0) - 50.0);
    weights[i] = 0.25f * static_cast<float>(1 + i % 7);
  }
  const std::vector<double> alphas{0.05, 0.5, 0.97};
  auto local = rabit::MakeLocalCommunicator();
  const std::vector<float> want = ExactQuantiles(values, {}, alphas, local.get());
  const std::vector<float> want_weighted = ExactQuantiles(values, weights, alphas, local.get());
  rabit::test::TrackerThread tracker(3);
  const int begin[4] = {0, 100, 100, 1000};
  auto results = rabit::test::RunWorkers(
      &tracker, 3, {{"rabit_timeout_sec", "30"}}, [&](rabit::Communicator* comm) {
        const int r = comm->Rank();
        const std::vector<float> v(values.begin() + begin[r], values.begin() + begin[r + 1]);
        const std::vector<float> w(weights.begin() + begin[r], weights.begin() + begin[r + 1]);
        const bool same = ExactQuantiles(v, {}, alphas, comm) == want &&
                          ExactQuantiles(v, w, alphas, comm) == want_weighted;
        return same ? std::string() : "differs";
      });
  for (const std::string& r : results) EXPECT_EQ(r, "");
}

TEST(ExactQuantiles, OrderedKeysOrderAsFloats) {
  const std::vector<float> v{-INFINITY, -3.0f, -0.0f, 0.0f, 1e-40f, 2.0f, INFINITY};
  for (std::size_t i = 0; i + 1 < v.size(); ++i) {
    EXPECT_LT(OrderedKey(v[i]), OrderedKey(v[i + 1])) << v[i];
    EXPECT_EQ(FromOrderedKey(OrderedKey(v[i])), v[i]);
  }
}

}  // namespace
}  // namespace ringboost
