// reg:pseudohubererror, reg:gamma, reg:tweedie, binary:hinge and reg:squaredlogerror: gradients
// and hessians derived by hand, label rules, transforms and default metrics as XGBoost 3.x.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"
#include "label_rows.h"
#include "objective/elementwise.h"
#include "objective/objective.h"
#include "objective_helpers.h"

namespace ringboost {
namespace {

using test::LabelRows;

using test::Grad;
using test::Make;

TEST(RegressionLosses, PseudoHuber) {
  Params p;
  p.huber_slope = 2.0;
  auto obj = Make("reg:pseudohubererror", p);
  // z = m - y. z = 0: grad 0, hess slope^2 / (slope^2 * 1) = 1. z = 2 = slope: s = sqrt(2),
  // grad 2 / sqrt(2) = sqrt(2), hess 4 / (8 sqrt(2)) = 1 / (2 sqrt(2)); weight 3 multiplies both.
  auto g = Grad(*obj, LabelRows({1.0f, 0.0f}, {1.0f, 3.0f}), {1.0f, 2.0f});
  EXPECT_EQ(g[0].grad, 0.0f);
  EXPECT_EQ(g[0].hess, 1.0f);
  EXPECT_FLOAT_EQ(g[1].grad, 3.0f * std::sqrt(2.0f));
  EXPECT_FLOAT_EQ(g[1].hess, 3.0f / (2.0f * std::sqrt(2.0f)));
  // Slope 1 (the default), z = -1: grad -1 / sqrt(2), hess 1 / (2 sqrt(2)).
  g = Grad(*Make("reg:pseudohubererror"), LabelRows({1.0f}), {0.0f});
  EXPECT_FLOAT_EQ(g[0].grad, -1.0f / std::sqrt(2.0f));
  EXPECT_FLOAT_EQ(g[0].hess, 1.0f / (2.0f * std::sqrt(2.0f)));
  EXPECT_EQ(obj->DefaultMetric(), "mphe");
  EXPECT_EQ(obj->ProbToMargin(0.5f), 0.5f);
}

TEST(RegressionLosses, Gamma) {
  auto obj = Make("reg:gamma");
  // Margin 0: exp = 1; y = 2: grad 1 - 2 = -1, hess 2; weight 2 doubles both. Margin ln 2:
  // exp ~ 2, y = 2: grad ~ 0, hess ~ 1.
  auto g = Grad(*obj, LabelRows({2.0f, 2.0f}, {2.0f, 1.0f}), {0.0f, std::log(2.0f)});
  EXPECT_EQ(g[0].grad, -2.0f);
  EXPECT_EQ(g[0].hess, 4.0f);
  EXPECT_NEAR(g[1].grad, 0.0f, 1e-6f);
  EXPECT_FLOAT_EQ(g[1].hess, 1.0f);
  EXPECT_EQ(obj->DefaultMetric(), "gamma-deviance");  // XGBoost 3.x's, not 1.7's gamma-nloglik
  EXPECT_EQ(obj->CheckLabel(0.5f), nullptr);
  EXPECT_NE(obj->CheckLabel(0.0f), nullptr);  // gamma labels are positive
  EXPECT_THROW(Grad(*obj, LabelRows({-1.0f}), {0.0f}), Error);
  std::vector<float> preds{0.0f, std::log(3.0f)};
  obj->PredTransform(&preds);
  EXPECT_EQ(preds[0], 1.0f);
  EXPECT_FLOAT_EQ(preds[1], 3.0f);
  EXPECT_FLOAT_EQ(obj->ProbToMargin(2.0f), std::log(2.0f));
  EXPECT_THROW(obj->ProbToMargin(0.0f), Error);
}

// scale_pos_weight in XGBoost 3.x (3.2.0 and 3.4.1, checked: their reg:gamma with it equals one
// trained with weight 3 on the rows of label 1, and their reg:squaredlogerror is unchanged by it):
// reg:gamma is a RegLossObj and weighs the rows of label 1; reg:squaredlogerror is none and does
// not (XGBoost 1.7 had it the other way round). By hand: margin ln 2 (exp 2), label 1: gamma's
// grad 1 - 1/2 = 1/2 and hess 1/2, times 3; label 2: grad 0, hess 1, untouched. Squared log
// error at margin 0, label 1: grad -ln 2, hess 1 + ln 2, whatever scale_pos_weight is.
TEST(RegressionLosses, ScalePosWeightAsXGBoost3) {
  Params p;
  p.scale_pos_weight = 3.0;
  auto g = Grad(*Make("reg:gamma", p), LabelRows({1.0f, 2.0f}), {std::log(2.0f), std::log(2.0f)});
  EXPECT_FLOAT_EQ(g[0].grad, 1.5f);
  EXPECT_FLOAT_EQ(g[0].hess, 1.5f);
  EXPECT_NEAR(g[1].grad, 0.0f, 1e-6f);
  EXPECT_FLOAT_EQ(g[1].hess, 1.0f);
  g = Grad(*Make("reg:squaredlogerror", p), LabelRows({1.0f}), {0.0f});
  EXPECT_FLOAT_EQ(g[0].grad, -std::log(2.0f));
  EXPECT_FLOAT_EQ(g[0].hess, 1.0f + std::log(2.0f));
}

TEST(RegressionLosses, Tweedie) {
  auto obj = Make("reg:tweedie");  // rho 1.5
  // Margin 0: both exps 1; y = 2: grad -2 + 1 = -1, hess -2 (1 - 1.5) + (2 - 1.5) = 1.5; w = 2.
  auto g = Grad(*obj, LabelRows({2.0f}, {2.0f}), {0.0f});
  EXPECT_EQ(g[0].grad, -2.0f);
  EXPECT_EQ(g[0].hess, 3.0f);
  // Margin ln 4, y = 0, rho 1.5: grad exp(0.5 ln 4) = 2, hess 0.5 * 2 = 1.
  g = Grad(*obj, LabelRows({0.0f}), {std::log(4.0f)});
  EXPECT_FLOAT_EQ(g[0].grad, 2.0f);
  EXPECT_FLOAT_EQ(g[0].hess, 1.0f);
  EXPECT_EQ(obj->DefaultMetric(), "tweedie-nloglik@1.5");
  Params p;
  p.tweedie_variance_power = 1.2;
  EXPECT_EQ(Make("reg:tweedie", p)->DefaultMetric(), "tweedie-nloglik@1.2");
  p.tweedie_variance_power = 2.0;
  EXPECT_THROW(Make("reg:tweedie", p), Error);
  EXPECT_NE(obj->CheckLabel(-0.5f), nullptr);
  EXPECT_EQ(obj->CheckLabel(0.0f), nullptr);
}

TEST(RegressionLosses, Hinge) {
  auto obj = Make("binary:hinge");
  // y = 2 label - 1. Label 1, margin 0: m y = 0 < 1: grad -w, hess w. Label 0, margin -2:
  // m y = 2 >= 1: grad 0, hess FLT_MIN. Label 0, margin 0.5: m y = -0.5 < 1: grad +w, hess w.
  auto g = Grad(*obj, LabelRows({1.0f, 0.0f, 0.0f}, {2.0f, 1.0f, 3.0f}), {0.0f, -2.0f, 0.5f});
  EXPECT_EQ(g[0].grad, -2.0f);
  EXPECT_EQ(g[0].hess, 2.0f);
  EXPECT_EQ(g[1].grad, 0.0f);
  EXPECT_EQ(g[1].hess, 0x1p-126f);
  EXPECT_EQ(g[2].grad, 3.0f);
  EXPECT_EQ(g[2].hess, 3.0f);
  std::vector<float> preds{-0.1f, 0.0f, 0.3f};
  obj->PredTransform(&preds);
  EXPECT_EQ(preds, (std::vector<float>{0.0f, 0.0f, 1.0f}));
  EXPECT_EQ(obj->DefaultMetric(), "error");
  EXPECT_NE(obj->CheckLabel(2.0f), nullptr);
}

TEST(RegressionLosses, SquaredLogError) {
  auto obj = Make("reg:squaredlogerror");
  // Margin 0, label 0: grad 0, hess (0 + 0 + 1) / 1 = 1. Label e - 1 (log1p = 1): grad
  // (0 - 1) / 1 = -1, hess (0 + 1 + 1) / 1 = 2; weight 2 doubles both.
  const float e1 = std::expm1(1.0f);
  auto g = Grad(*obj, LabelRows({0.0f, e1}, {1.0f, 2.0f}), {0.0f, 0.0f});
  EXPECT_EQ(g[0].grad, 0.0f);
  EXPECT_EQ(g[0].hess, 1.0f);
  EXPECT_NEAR(g[1].grad, -2.0f, 1e-6f);
  EXPECT_NEAR(g[1].hess, 4.0f, 1e-6f);
  // The margin is floored at -1 + 1e-6, and the hessian at 1e-6: margin 100, label 0 gives
  // (1 - log1p(100)) / 101^2 < 0, so 1e-6.
  g = Grad(*obj, LabelRows({0.0f}), {100.0f});
  EXPECT_EQ(g[0].hess, 1e-6f);
  g = Grad(*obj, LabelRows({0.0f}), {-5.0f});
  EXPECT_TRUE(std::isfinite(g[0].grad));
  EXPECT_EQ(obj->DefaultMetric(), "rmsle");
  EXPECT_NE(obj->CheckLabel(-1.0f), nullptr);
  EXPECT_THROW(Grad(*obj, LabelRows({-2.0f}), {0.0f}), Error);
  ElementwiseSpec spec;
  EXPECT_FALSE(obj->Elementwise(&spec));  // log1p: a device takes the host's gradients
}

TEST(RegressionLosses, CoxBreslow) {
  auto obj = Make("survival:cox");
  // Margins 0 (exp 1); in |label| order: 1 (event), -2 (censored), 3 (event). Risk sums E:
  // 3, 2, 1. r = 1/3, 1/3, 1/3 + 1; s = 1/9, 1/9, 1/9 + 1. grad exp r - [event]:
  // -2/3, 1/3, 1/3; hess exp r - exp^2 s: 2/9 each. Rows given out of order; weight 3 on one.
  auto g = Grad(*obj, LabelRows({3.0f, 1.0f, -2.0f}, {1.0f, 1.0f, 3.0f}), {0.0f, 0.0f, 0.0f});
  EXPECT_FLOAT_EQ(g[1].grad, -2.0f / 3);
  EXPECT_FLOAT_EQ(g[2].grad, 3.0f / 3);
  EXPECT_FLOAT_EQ(g[0].grad, 1.0f / 3);
  EXPECT_FLOAT_EQ(g[1].hess, 2.0f / 9);
  EXPECT_FLOAT_EQ(g[2].hess, 3 * 2.0f / 9);
  EXPECT_FLOAT_EQ(g[0].hess, 2.0f / 9);
  EXPECT_EQ(obj->DefaultMetric(), "cox-nloglik");
  EXPECT_NE(obj->CheckLabel(0.0f), nullptr);
  std::vector<float> preds{0.0f};
  obj->PredTransform(&preds);
  EXPECT_EQ(preds[0], 1.0f);
}

TEST(RegressionLosses, ElementwiseOnesMatchTheRowFunction) {
  // The objectives' CPU loop and ElementwiseGradient (what a device runs) give the same bits.
  for (const char* name : {"reg:pseudohubererror", "reg:gamma", "reg:tweedie", "binary:hinge"}) {
    auto obj = Make(name);
    ElementwiseSpec spec;
    ASSERT_TRUE(obj->Elementwise(&spec)) << name;
    const DataSet d = LabelRows({0.25f, 1.0f, 0.5f, 1.0f}, {1.0f, 2.0f, 0.5f, 3.0f});
    const std::vector<float> margins{-1.5f, 0.0f, 0.75f, 3.0f};
    auto g = Grad(*obj, d, margins);
    for (size_t i = 0; i < margins.size(); ++i) {
      GradPair want;
      ElementwiseGradient(spec, &margins[i], d.label[i], d.weight[i], &want);
      EXPECT_EQ(g[i].grad, want.grad) << name << " row " << i;
      EXPECT_EQ(g[i].hess, want.hess) << name << " row " << i;
    }
  }
}

}  // namespace
}  // namespace ringboost
