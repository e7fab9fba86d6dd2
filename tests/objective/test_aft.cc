// survival:aft: gradients, hessians and losses derived by hand for each distribution and kind of
// censoring, and XGBoost's safeguards where the density underflows.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"
#include "label_rows.h"
#include "objective/aft.h"
#include "objective/objective.h"
#include "objective_helpers.h"

namespace ringboost {
namespace {

using test::AftParams;
using test::Grad;
using test::IntervalRows;
using test::LabelRows;
using test::Make;

const double kPi = std::acos(-1.0);
double Phi(double z) { return std::exp(-z * z / 2) / std::sqrt(2 * kPi); }  // normal density
double NormalCdf(double z) { return 0.5 * (1 + std::erf(z / std::sqrt(2.0))); }

TEST(AftLoss, NormalUncensored) {
  // log(time) = 0, margin 0.5, sigma 2: z = -0.25; -log L = z^2 / 2 + log(sqrt(2 pi) sigma t),
  // gradient -z / sigma, hessian 1 / sigma^2.
  const AftLoss loss{AftDistribution::kNormal, 2.0};
  EXPECT_NEAR(loss.Loss(1, 1, 0.5), 0.03125 + std::log(std::sqrt(2 * kPi) * 2), 1e-12);
  EXPECT_NEAR(loss.Gradient(1, 1, 0.5), 0.125, 1e-12);
  EXPECT_NEAR(loss.Hessian(1, 1, 0.5), 0.25, 1e-12);
}

TEST(AftLoss, NormalCensored) {
  const AftLoss loss{AftDistribution::kNormal, 1.0};
  // Right-censored at 1, margin 0: z_l = 0, P = 1 - 1/2. Gradient -phi(0) / (1/2), hessian
  // phi(0)^2 / (1/2)^2 (the derivative of the density at 0 is 0).
  EXPECT_NEAR(loss.Loss(1, INFINITY, 0), std::log(2.0), 1e-12);
  EXPECT_NEAR(loss.Gradient(1, INFINITY, 0), -2 * Phi(0), 1e-12);
  EXPECT_NEAR(loss.Hessian(1, INFINITY, 0), 4 * Phi(0) * Phi(0), 1e-12);
  // Left-censored at 1 (lower 0): the mirror image.
  EXPECT_NEAR(loss.Gradient(0, 1, 0), 2 * Phi(0), 1e-12);
  EXPECT_NEAR(loss.Hessian(0, 1, 0), 4 * Phi(0) * Phi(0), 1e-12);
  // Interval [1, e^1], margin 0.5: z = -0.5 and 0.5, P = 2 Phi(0.5) - 1; the densities cancel in
  // the gradient; hessian -(P (-0.5 phi - 0.5 phi)) / P^2 = phi(0.5) / P.
  const double p = 2 * NormalCdf(0.5) - 1;
  EXPECT_NEAR(loss.Loss(1, std::exp(1.0), 0.5), -std::log(p), 1e-12);
  EXPECT_NEAR(loss.Gradient(1, std::exp(1.0), 0.5), 0.0, 1e-12);
  EXPECT_NEAR(loss.Hessian(1, std::exp(1.0), 0.5), Phi(0.5) / p, 1e-12);
}

TEST(AftLoss, LogisticAndExtremeAtZero) {
  // Logistic at z = 0: w = 1, density 1/4, its derivative 0, its second derivative -1/8:
  // hessian -(1/4 * -1/8) / (1/4)^2 = 1/2. Extreme at z = 0: density e^-1, derivative 0, second
  // derivative -e^-1: hessian 1.
  const AftLoss logistic{AftDistribution::kLogistic, 1.0};
  EXPECT_NEAR(logistic.Gradient(1, 1, 0), 0.0, 1e-15);
  EXPECT_NEAR(logistic.Hessian(1, 1, 0), 0.5, 1e-12);
  EXPECT_NEAR(logistic.Loss(1, 1, 0), std::log(4.0), 1e-12);
  const AftLoss extreme{AftDistribution::kExtreme, 1.0};
  EXPECT_NEAR(extreme.Gradient(1, 1, 0), 0.0, 1e-15);
  EXPECT_NEAR(extreme.Hessian(1, 1, 0), 1.0, 1e-12);
  EXPECT_NEAR(extreme.Loss(1, 1, 0), 1.0, 1e-12);  // -log(e^-1)
  // Extreme, right-censored at 1, margin 0: P = e^-1, gradient -e^-1 / e^-1 = -1, hessian
  // -(e^-1 * -(0 * e^-1) - e^-2) / e^-2 = 1.
  EXPECT_NEAR(extreme.Gradient(1, INFINITY, 0), -1.0, 1e-12);
  EXPECT_NEAR(extreme.Hessian(1, INFINITY, 0), 1.0, 1e-12);
}

TEST(AftLoss, SafeguardsWhereTheDensityUnderflows) {
  // Normal, z = 100: the density is 0, 0/0 takes the limits: gradient -15 (z > 0), hessian
  // 1 / sigma^2; the loss floors the likelihood at 1e-12.
  const AftLoss normal{AftDistribution::kNormal, 1.0};
  EXPECT_EQ(normal.Gradient(1, 1, -100), -15.0);
  EXPECT_EQ(normal.Hessian(1, 1, -100), 1.0);
  EXPECT_NEAR(normal.Loss(1, 1, -100), -std::log(1e-12), 1e-9);
  // Right-censored far below the margin: P = 1 - Phi(z_l) -> 0 for z_l = 100: gradient -15,
  // hessian 1; far above (z_l = -100): P = 1, gradient 0, hessian clipped up to 1e-16.
  EXPECT_EQ(normal.Gradient(1, INFINITY, -100), -15.0);
  EXPECT_EQ(normal.Hessian(1, INFINITY, -100), 1.0);
  EXPECT_EQ(normal.Gradient(1, INFINITY, 100), 0.0);
  EXPECT_EQ(normal.Hessian(1, INFINITY, 100), 1e-16);
  // Logistic far from an uncensored time: the limits -1/sigma and +1/sigma, hessian 1e-16.
  const AftLoss logistic{AftDistribution::kLogistic, 2.0};
  EXPECT_EQ(logistic.Gradient(1, 1, -2000), -0.5);
  EXPECT_EQ(logistic.Gradient(1, 1, 2000), 0.5);
  EXPECT_EQ(logistic.Hessian(1, 1, 2000), 1e-16);
  // Extreme: z -> +inf gives -15 and hessian 15; z -> -inf gives 1/sigma and 1e-16.
  const AftLoss extreme{AftDistribution::kExtreme, 1.0};
  EXPECT_EQ(extreme.Gradient(1, 1, -2000), -15.0);
  EXPECT_EQ(extreme.Hessian(1, 1, -2000), 15.0);
  EXPECT_EQ(extreme.Gradient(1, 1, 2000), 1.0);
  EXPECT_EQ(extreme.Hessian(1, 1, 2000), 1e-16);
}

TEST(AftObjective, WeightedGradients) {
  auto obj = Make("survival:aft", AftParams("normal", 2.0));
  // Row 0 as NormalUncensored, weight 3; row 1 right-censored at 1 with sigma 2, margin 0:
  // gradient -phi(0) / (2 * 1/2), hessian phi(0)^2 / (2 * 1/2)^2.
  const auto g = Grad(*obj, IntervalRows({1, 1}, {1, INFINITY}, {3, 1}), {0.5f, 0.0f});
  EXPECT_FLOAT_EQ(g[0].grad, 0.375f);
  EXPECT_FLOAT_EQ(g[0].hess, 0.75f);
  EXPECT_FLOAT_EQ(g[1].grad, static_cast<float>(-Phi(0)));
  EXPECT_FLOAT_EQ(g[1].hess, static_cast<float>(Phi(0) * Phi(0)));
  EXPECT_EQ(obj->DefaultMetric(), "aft-nloglik");
  EXPECT_EQ(obj->CheckLabel(-5.0f), nullptr);  // the label column is not read
  std::vector<float> preds{0.0f, std::log(3.0f)};
  obj->EvalTransform(&preds);  // metrics read margins
  EXPECT_EQ(preds[0], 0.0f);
  obj->PredTransform(&preds);
  EXPECT_EQ(preds[0], 1.0f);
  EXPECT_FLOAT_EQ(preds[1], 3.0f);
  EXPECT_FLOAT_EQ(obj->ProbToMargin(2.0f), std::log(2.0f));
  EXPECT_THROW(obj->ProbToMargin(0.0f), Error);
}

TEST(AftObjective, NeedsBoundsAndAKnownDistribution) {
  auto obj = Make("survival:aft");
  try {
    Grad(*obj, LabelRows({1.0f}), {0.0f});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "test.libsvm: survival:aft needs each row's survival-time interval: put "
              "'<file>.lower_bound' and '<file>.upper_bound' (one value a line, inf for no upper "
              "bound) beside each data file");
  }
  EXPECT_THROW(Make("survival:aft", AftParams("weibull", 1.0)), Error);
}

}  // namespace
}  // namespace ringboost
