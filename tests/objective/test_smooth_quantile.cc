// reg:absoluteerror and reg:quantileerror as XGBoost 3.2+ (objective/quantile_obj.cc): the
// residual scale S = (weighted mean of sqrt|margin - label|)^2, the smooth MM gradients and
// hessians, the sorted predictions and the base_score estimates, on rows chosen so that every
// value follows by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"
#include "label_rows.h"
#include "objective/objective.h"
#include "objective_helpers.h"
#include "rabit/communicator.h"

namespace ringboost {
namespace {

using test::Grad;
using test::LabelRows;
using test::Make;

std::unique_ptr<Objective> Quantile(const std::string& alphas) {
  Params p;
  p.quantile_alpha = alphas;
  return Make("reg:quantileerror", p);
}

TEST(SmoothAbsoluteError, PseudoHuberWithTheResidualScale) {
  // Residuals 4, -4, 0, 0: sqrt|r| 2, 2, 0, 0, mean 1, S = 1. At |r| = 4: c = 1 / hypot(1, 4)
  // = 1 / sqrt(17), grad r c, hess c; at r = 0: c = S / S = 1, grad 0, hess 1.
  auto g = Grad(*Make("reg:absoluteerror"), LabelRows({4, -4, 7, 7}), {8, -8, 7, 7});
  const double c = 1 / std::sqrt(17.0);
  EXPECT_NEAR(g[0].grad, 4 * c, 1e-6);
  EXPECT_NEAR(g[1].grad, -4 * c, 1e-6);
  EXPECT_NEAR(g[0].hess, c, 1e-6);
  EXPECT_NEAR(g[1].hess, c, 1e-6);
  EXPECT_EQ(g[2].grad, 0.0f);
  EXPECT_EQ(g[3].hess, 1.0f);
}

TEST(SmoothAbsoluteError, WeightsEnterTheScaleAndThePairs) {
  // Residuals -4 (weight 1) and 4 (weight 3): S = ((2 + 3 * 2) / 4)^2 = 4, c = 4 / hypot(4, 4).
  auto g = Grad(*Make("reg:absoluteerror"), LabelRows({4, -4}, {1, 3}), {0, 0});
  const double c = 1 / std::sqrt(2.0);
  EXPECT_NEAR(g[0].grad, -4 * c, 1e-6);
  EXPECT_NEAR(g[0].hess, c, 1e-6);
  EXPECT_NEAR(g[1].grad, 3 * 4 * c, 1e-5);
  EXPECT_NEAR(g[1].hess, 3 * c, 1e-6);
}

TEST(SmoothAbsoluteError, NoResidualsGiveTheWeightAsHessian) {
  // S = 0 and r = 0: the curvature is 1.
  auto g = Grad(*Make("reg:absoluteerror"), LabelRows({1, 2}, {1, 2}), {1, 2});
  EXPECT_EQ(g[0].grad, 0.0f);
  EXPECT_EQ(g[0].hess, 1.0f);
  EXPECT_EQ(g[1].hess, 2.0f);
}

TEST(SmoothQuantileError, SmoothedPinballScore) {
  // Residuals 4, -4, 0, 0: S = 1, x = r / 0.04. At |r| = 4: tanh(100) = 1 in float, ratio 0.01:
  // grad S / 2 (1 + 1 - 2 alpha) = 0.8, or S / 2 (-1 + 1 - 2 alpha) = -0.2; hess 12.5 x 0.01.
  // At r = 0: tanh(0) / 0 is 1: grad S / 2 (1 - 2 alpha) = 0.3, hess 12.5.
  auto g = Grad(*Quantile("0.2"), LabelRows({4, -4, 7, 7}), {8, -8, 7, 7});
  EXPECT_NEAR(g[0].grad, 0.8, 1e-6);
  EXPECT_NEAR(g[1].grad, -0.2, 1e-6);
  EXPECT_NEAR(g[0].hess, 0.125, 1e-6);
  EXPECT_NEAR(g[1].hess, 0.125, 1e-6);
  EXPECT_NEAR(g[2].grad, 0.3, 1e-6);
  EXPECT_NEAR(g[2].hess, 12.5, 1e-5);
}

TEST(SmoothQuantileError, CurvatureFloorAndZeroWeights) {
  // One residual 1 among 12 rows (the 13th weighs 0): S = (1 / 12)^2, x = 1 / (0.04 S) = 3600;
  // tanh(x) / x = 1 / 3600 is below the floor 3e-4: hess 12.5 x 3e-4. A weight 0: zeros.
  std::vector<float> labels(13, 0.0f), weights(13, 1.0f), margins(13, 0.0f);
  margins[0] = 1;
  margins[12] = 5;
  weights[12] = 0;
  auto g = Grad(*Quantile("0.5"), LabelRows(labels, weights), margins);
  EXPECT_NEAR(g[0].hess, 12.5 * 3e-4, 1e-7);
  EXPECT_NEAR(g[0].grad, 0.5 / 144 * 1, 1e-7);
  EXPECT_EQ(g[12].grad, 0.0f);
  EXPECT_EQ(g[12].hess, 0.0f);
}

TEST(SmoothQuantileError, EachAlphaHasItsOwnScale) {
  // Output 0 (alpha 0.2) has residuals 4, -4: S 4, x = 25; output 1 (alpha 0.8) 1, -1: S 1,
  // x = 25. tanh(25) = 1 in float: grads S / 2 (2 - 2 alpha) and S / 2 (-2 alpha), hess 0.5.
  auto g = Grad(*Quantile("[0.2,0.8]"), LabelRows({0, 0}), {4, 1, -4, -1});
  EXPECT_NEAR(g[0].grad, 3.2, 1e-6);
  EXPECT_NEAR(g[1].grad, 0.2, 1e-6);
  EXPECT_NEAR(g[2].grad, -0.8, 1e-6);
  EXPECT_NEAR(g[3].grad, -0.8, 1e-6);
  for (const GradPair& p : g) EXPECT_NEAR(p.hess, 0.5, 1e-6);
}

TEST(SmoothQuantileError, PredictionsAreSortedWithinEachRowAndAlphasAscend) {
  std::vector<float> preds{3, 1, 2, 0, 5, 4};
  Quantile("[0.1,0.5,0.9]")->PredTransform(&preds);
  EXPECT_EQ(preds, (std::vector<float>{1, 2, 3, 0, 4, 5}));
  try {
    Quantile("[0.9,0.1]");
    ADD_FAILURE() << "descending alphas accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("quantile_alpha=[0.9,0.1]: the quantiles must be in "
                                         "ascending order"),
              std::string::npos)
        << e.what();
  }
}

std::vector<float> BaseScore(const Objective& obj, const DataSet& train) {
  auto comm = rabit::MakeLocalCommunicator();
  return obj.EstimateBaseScore(train, comm.get());
}

TEST(SmoothAbsoluteError, BaseScoreIsTheMeanPlusOneMMStep) {
  // Labels 0, 8: mean 4, residuals 4, -4 pull equally: 4.
  EXPECT_EQ(BaseScore(*Make("reg:absoluteerror"), LabelRows({0, 8})), std::vector<float>{4});
  // Weights 3, 1: mean 2, residuals 2 and -6; S = ((3 sqrt 2 + sqrt 6) / 4)^2,
  // c_i = S / hypot(S, r_i); base 2 - (3 * 2 c_0 - 6 c_1) / (3 c_0 + c_1).
  const double s = std::pow((3 * std::sqrt(2.0) + std::sqrt(6.0)) / 4, 2);
  const double c0 = s / std::hypot(s, 2.0), c1 = s / std::hypot(s, 6.0);
  const double want = 2 - (6 * c0 - 6 * c1) / (3 * c0 + c1);
  const std::vector<float> got = BaseScore(*Make("reg:absoluteerror"), LabelRows({0, 8}, {3, 1}));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_NEAR(got[0], want, 1e-5);
  EXPECT_LT(got[0], 2.0f);  // the step goes toward the weighted median, 0
  // No weight at all: 0, as XGBoost.
  EXPECT_EQ(BaseScore(*Make("reg:absoluteerror"), LabelRows({1, 2}, {0, 0})),
            std::vector<float>{0});
}

TEST(SmoothQuantileError, BaseScoreIsEachAlphasQuantileOfTheLabels) {
  // Labels 1, 2, 3, 10 (XGBoost's common::Quantile): alpha 0.3 -> 1.5, alpha 0.5 -> 2.5.
  EXPECT_EQ(BaseScore(*Quantile("[0.3,0.5]"), LabelRows({10, 2, 1, 3})),
            (std::vector<float>{1.5f, 2.5f}));
  // Other objectives keep base_score as configured.
  EXPECT_TRUE(BaseScore(*Make("reg:squarederror"), LabelRows({1, 2})).empty());
}

}  // namespace
}  // namespace ringboost
