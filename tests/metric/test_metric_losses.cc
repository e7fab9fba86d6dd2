// rmsle, mape, mphe, gamma-nloglik, gamma-deviance and tweedie-nloglik@p on a few rows, values
// derived by hand from XGBoost 3.x's formulas.
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

using test::LabelRows;

double Eval(const std::string& name, const std::vector<float>& preds, const DataSet& d,
            Params params = Params()) {
  auto comm = rabit::MakeLocalCommunicator();
  return Metric::Create(name, params)->Eval(preds, 1, d, comm.get());
}

TEST(MetricLosses, Rmsle) {
  // log1p(e - 1) - log1p(0) = 1 and 0: sqrt((1 + 0) / 2).
  EXPECT_NEAR(Eval("rmsle", {0.0f, 0.0f}, LabelRows({std::expm1(1.0f), 0.0f})), std::sqrt(0.5),
              1e-6);
}

TEST(MetricLosses, Mape) {
  // |2 - 1| / 2 = 0.5 and |4 - 5| / 4 = 0.25; weights 1 and 3: (0.5 + 0.75) / 4.
  EXPECT_DOUBLE_EQ(Eval("mape", {1, 5}, LabelRows({2, 4})), 0.375);
  EXPECT_DOUBLE_EQ(Eval("mape", {1, 5}, LabelRows({2, 4}, {1, 3})), 0.3125);
}

// A label a loss is not defined for gives what XGBoost 3.2.0/3.4.1 give (mape at label 0: inf;
// rmsle at -2: nan; logloss at 3: a negative number) and, unlike XGBoost, one warning per eval
// set naming the first such row and the rule. Labels in the domain give no warning.
TEST(MetricLosses, LabelsOutsideTheDomainAreNamed) {
  auto comm = rabit::MakeLocalCommunicator();
  struct Case {
    const char* metric;
    float bad_label;
    const char* rule;
  };
  for (const Case& c : {Case{"mape", 0.0f, "needs labels other than 0"},
                        Case{"rmsle", -2.0f, "needs labels above -1"},
                        Case{"logloss", 3.0f, "needs labels in [0, 1]"},
                        Case{"error", -1.0f, "needs labels in [0, 1]"},
                        Case{"poisson-nloglik", -1.0f, "needs labels >= 0"},
                        Case{"tweedie-nloglik@1.5", -1.0f, "needs labels >= 0"},
                        Case{"gamma-nloglik", 0.0f, "needs labels > 0"},
                        Case{"gamma-deviance", -1.0f, "needs labels > 0"}}) {
    const auto metric = Metric::Create(c.metric, Params());
    const DataSet d = LabelRows({0.5f, c.bad_label, c.bad_label});
    testing::internal::CaptureStderr();
    metric->Eval({0.5f, 0.5f, 0.5f}, 1, d, comm.get());
    metric->Eval({0.5f, 0.5f, 0.5f}, 1, d, comm.get());
    const std::string err = testing::internal::GetCapturedStderr();
    const std::string want = std::string(c.metric) + " of 'test.libsvm' " + c.rule;
    EXPECT_NE(err.find(want), std::string::npos) << c.metric << ": " << err;
    EXPECT_NE(err.find("but row 2 has label"), std::string::npos) << err;
    EXPECT_EQ(err.find("warning"), err.rfind("warning")) << "once: " << err;
  }
  EXPECT_TRUE(std::isinf(Eval("mape", {1, 5}, LabelRows({0, 4}))));
  testing::internal::CaptureStderr();
  Eval("mape", {1, 5}, LabelRows({2, 4}));
  Eval("logloss", {0.2f, 0.9f}, LabelRows({0.3f, 1.0f}));
  Eval("rmse", {1, 5}, LabelRows({-7, 0}));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(MetricLosses, Mphe) {
  // slope 1: 0 and sqrt(2) - 1. slope 2, error 2: 4 (sqrt(2) - 1).
  EXPECT_NEAR(Eval("mphe", {0, 0}, LabelRows({0, 1})), (std::sqrt(2.0) - 1) / 2, 1e-7);
  Params p;
  p.huber_slope = 2.0;
  EXPECT_NEAR(Eval("mphe", {0}, LabelRows({2}), p), 4 * (std::sqrt(2.0) - 1), 1e-6);
}

TEST(MetricLosses, GammaNloglik) {
  // y / p + log p: y = 2, p = 1 gives 2; y = 1, p = e gives 1 / e + 1.
  EXPECT_NEAR(Eval("gamma-nloglik", {1.0f, std::exp(1.0f)}, LabelRows({2, 1})),
              (2 + 1 + std::exp(-1.0)) / 2, 1e-6);
}

TEST(MetricLosses, GammaDeviance) {
  // 2 * mean(log(p / y) + y / p - 1): 0 where p = y; ln 2 - 1/2 for y = 1, p = 2.
  EXPECT_NEAR(Eval("gamma-deviance", {3, 2}, LabelRows({3, 1})), std::log(2.0) - 0.5, 1e-5);
}

TEST(MetricLosses, TweedieNloglik) {
  // rho 1.5: -y p^-0.5 / -0.5 + p^0.5 / 0.5. y = 1, p = 1: 2 + 2 = 4; y = 2, p = 4: 2 + 4 = 6.
  EXPECT_NEAR(Eval("tweedie-nloglik@1.5", {1, 4}, LabelRows({1, 2})), 5.0, 1e-5);
  EXPECT_EQ(Metric::Create("tweedie-nloglik@1.5", Params())->Name(), "tweedie-nloglik@1.5");
  EXPECT_THROW(Metric::Create("tweedie-nloglik", Params()), Error);
  EXPECT_THROW(Metric::Create("tweedie-nloglik@2", Params()), Error);
  EXPECT_THROW(Metric::Create("rmsle@3", Params()), Error);
}

TEST(MetricLosses, PrecisionAtK) {
  // Group 1 sorted by prediction: labels 1, 0, 0, 1; group 2: 1, 1.
  const std::vector<float> preds{0.9f, 0.8f, 0.1f, 0.7f, 0.2f, 0.5f};
  const DataSet d = LabelRows({1, 0, 1, 0, 1, 1}, {}, {0, 4, 6});
  EXPECT_DOUBLE_EQ(Eval("pre@2", preds, d), (0.5 + 1.0) / 2);
  // k = 3: 1/3, and 2/2 in the group of two: XGBoost 3.x divides by min(k, group size) (3.2.0
  // and 3.4.1 print 0.66666666666666663 for these rows).
  EXPECT_DOUBLE_EQ(Eval("pre@3", preds, d), (1.0 / 3 + 2.0 / 2) / 2);
  // k above every group's size is pre: (0.5 x 1 + 1 x 3) / 4 with weights 1 and 3 (XGBoost 3.x:
  // 0.875 for pre@5 and pre).
  const DataSet weighted = LabelRows({1, 0, 1, 0, 1, 1}, {1, 3}, {0, 4, 6});
  EXPECT_DOUBLE_EQ(Eval("pre@5", preds, weighted), 3.5 / 4);
  EXPECT_DOUBLE_EQ(Eval("pre", preds, weighted), 3.5 / 4);
  // Group weights 1 and 3: (0.5 * 1 + 1 * 3) / 4.
  EXPECT_DOUBLE_EQ(Eval("pre@2", preds, LabelRows({1, 0, 1, 0, 1, 1}, {1, 3}, {0, 4, 6})), 3.5 / 4);
  EXPECT_EQ(Metric::Create("pre@5", Params())->Name(), "pre@5");
  EXPECT_TRUE(Metric::Create("pre@5", Params())->Maximize());
  EXPECT_THROW(Eval("pre@2", preds, LabelRows({2, 0, 1, 0, 1, 1}, {}, {0, 4, 6})), Error);
}

TEST(MetricLosses, CoxNloglik) {
  // exp(margin) 1 each; |label| order 1 (event), -2, 3 (event); risk sums 3, 2, 1:
  // -(log 1 - log 3) - (log 1 - log 1) over 2 events.
  EXPECT_NEAR(Eval("cox-nloglik", {1, 1, 1}, LabelRows({3, 1, -2})), std::log(3.0) / 2, 1e-12);
  // Every row censored: no event, 0 / 0 (XGBoost 3.4.1 prints -nan too), now with one warning.
  auto comm = rabit::MakeLocalCommunicator();
  const auto cox = Metric::Create("cox-nloglik", Params());
  testing::internal::CaptureStderr();
  EXPECT_TRUE(std::isnan(cox->Eval({1, 2, 3}, 1, LabelRows({-1.5f, -2, -2.5f}), comm.get())));
  EXPECT_TRUE(std::isnan(cox->Eval({1, 2, 3}, 1, LabelRows({-1.5f, -2, -2.5f}), comm.get())));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("cox-nloglik of 'test.libsvm' is nan: it has no event"), std::string::npos)
      << err;
  EXPECT_EQ(err.find("warning"), err.rfind("warning")) << "once: " << err;
}

}  // namespace
}  // namespace ringboost
