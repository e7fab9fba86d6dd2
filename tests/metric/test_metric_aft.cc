// aft-nloglik and interval-regression-accuracy on a few rows, values derived by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"
#include "label_rows.h"
#include "metric/metric.h"
#include "rabit/communicator.h"

namespace ringboost {
namespace {

using test::AftParams;
using test::IntervalRows;
using test::LabelRows;

double Phi(double z) { return std::exp(-z * z / 2) / std::sqrt(2 * std::acos(-1.0)); }

double Eval(const std::string& name, const std::vector<float>& preds, const DataSet& d,
            const Params& params) {
  auto comm = rabit::MakeLocalCommunicator();
  return Metric::Create(name, params)->Eval(preds, 1, d, comm.get());
}

TEST(AftMetrics, NloglikAndIntervalAccuracy) {
  const Params p = AftParams("normal", 1.0);
  // Row 0: uncensored at 1, margin 0: -log phi(0). Row 1: right-censored at 1, margin 0: log 2.
  // Weights 1 and 3.
  const DataSet d = IntervalRows({1, 1}, {1, INFINITY}, {1, 3});
  EXPECT_NEAR(Eval("aft-nloglik", {0, 0}, d, p), (-std::log(Phi(0)) + 3 * std::log(2.0)) / 4, 1e-6);
  // exp(0) = 1 lies in [1, 1] and in [1, inf); exp(-1) in neither; exp(5) only in the second.
  EXPECT_EQ(Eval("interval-regression-accuracy", {0, 0}, d, p), 1.0);
  EXPECT_EQ(Eval("interval-regression-accuracy", {-1, -1}, d, p), 0.0);
  EXPECT_EQ(Eval("interval-regression-accuracy", {5, 5}, d, p), 0.75);
  EXPECT_FALSE(Metric::Create("aft-nloglik", p)->Maximize());
  EXPECT_TRUE(Metric::Create("interval-regression-accuracy", p)->Maximize());
  EXPECT_THROW(Eval("aft-nloglik", {0}, LabelRows({1.0f}), p), Error);
}

// Every weight 0: XGBoost 3.2.0 and 3.4.1 print 0 for both metrics (the weighted sum, as their
// elementwise metrics), not 0 / 0 = NaN.
TEST(AftMetrics, AllWeightsZero) {
  const Params p = AftParams("logistic", 1.2);
  const DataSet d = IntervalRows({1, 2}, {1, INFINITY}, {0, 0});
  EXPECT_EQ(Eval("aft-nloglik", {0.3f, 0.5f}, d, p), 0.0);
  EXPECT_EQ(Eval("interval-regression-accuracy", {0.3f, 0.5f}, d, p), 0.0);
}

}  // namespace
}  // namespace ringboost
