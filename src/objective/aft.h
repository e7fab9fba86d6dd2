// survival:aft's loss (XGBoost's AFTLoss, survival_util.h), shared by the objective and the
// aft-nloglik metric. A row's survival time lies in [lower, upper]: lower == upper uncensored,
// upper = inf right-censored, lower = 0 left-censored, else interval-censored. The model's margin
// m predicts log(time) = m + sigma Z with Z of the chosen distribution. Host code in double with
// the library's exp, log and erf (a device would need its own, so survival:aft is CPU only).
#pragma once

#include <string>

namespace ringboost {

enum class AftDistribution { kNormal, kLogistic, kExtreme };

// "normal", "logistic" or "extreme"; throws Error naming aft_loss_distribution otherwise.
AftDistribution ParseAftDistribution(const std::string& name);

struct AftLoss {
  AftDistribution dist = AftDistribution::kNormal;
  double sigma = 1.0;  // aft_loss_distribution_scale

  // The negative log-likelihood of one row, its denominator floored at 1e-12 (XGBoost's kEps).
  double Loss(double lower, double upper, double margin) const;
  // Its first and second derivatives in the margin, with XGBoost's safeguards: where the
  // denominator underflows below 1e-12 and the ratio is not finite, the limit for an infinitely
  // large |margin|; the gradient then clipped to [-15, 15] and the hessian to [1e-16, 15].
  double Gradient(double lower, double upper, double margin) const;
  double Hessian(double lower, double upper, double margin) const;
};

}  // namespace ringboost
