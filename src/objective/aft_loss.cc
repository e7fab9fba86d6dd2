// survival:aft's loss, gradient and hessian as XGBoost computes them (survival_util.h,
// probability_distribution.h), the same operations in double in the same order.
#include <cmath>
#include <string>

#include "common/error.h"
#include "objective/aft.h"

namespace ringboost {
namespace {

constexpr double kMinGradient = -15.0;
constexpr double kMaxGradient = 15.0;
constexpr double kMinHessian = 1e-16;
constexpr double kMaxHessian = 15.0;
constexpr double kEps = 1e-12;
constexpr double kPi = 3.14159265358979323846;

double Clip(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

// The density of Z, its CDF and the density's first two derivatives at z. Where exp(z) (or its
// square) overflows, the logistic and extreme values are their limits, as XGBoost's.
struct Density {
  double pdf, cdf, grad_pdf, hess_pdf;
};

Density Normal(double z) {
  const double pdf = std::exp(-z * z / 2.0) / std::sqrt(2.0 * kPi);
  return {pdf, 0.5 * (1.0 + std::erf(z / std::sqrt(2.0))), -z * pdf, (z * z - 1.0) * pdf};
}

Density Logistic(double z) {
  const double w = std::exp(z);
  const double sq = w * w;
  const bool inf_w = std::isinf(w), inf_sq = inf_w || std::isinf(sq);
  const double pdf = inf_sq ? 0.0 : w / ((1.0 + w) * (1.0 + w));
  const double cdf = inf_w ? 1.0 : w / (1.0 + w);
  const double grad = inf_sq ? 0.0 : pdf * (1.0 - w) / (1.0 + w);
  const double hess = inf_sq ? 0.0 : pdf * (sq - 4.0 * w + 1.0) / ((1.0 + w) * (1.0 + w));
  return {pdf, cdf, grad, hess};
}

Density Extreme(double z) {
  const double w = std::exp(z);
  const bool inf_w = std::isinf(w);
  const double pdf = inf_w ? 0.0 : w * std::exp(-w);
  const double grad = inf_w ? 0.0 : (1.0 - w) * pdf;
  const double hess = inf_w ? 0.0 : (w * w - 3.0 * w + 1.0) * pdf;
  return {pdf, 1.0 - std::exp(-w), grad, hess};
}

Density At(AftDistribution dist, double z) {
  switch (dist) {
    case AftDistribution::kLogistic:
      return Logistic(z);
    case AftDistribution::kExtreme:
      return Extreme(z);
    default:
      return Normal(z);
  }
}

enum class Censoring { kUncensored, kRight, kLeft, kInterval };

// One row's densities at both ends of its interval: an end at 0 or inf contributes the
// distribution's limit there (pdf 0, cdf 0 or 1).
struct Ends {
  Censoring censoring;
  Density upper;  // at inf: pdf 0, cdf 1
  Density lower;  // at 0: pdf 0, cdf 0
  bool sign;      // a z-score at an end > 0 (which side of the interval the margin lies)
};

Ends Censored(AftDistribution dist, double sigma, double lower, double upper, double margin) {
  Ends e{Censoring::kInterval, {0.0, 1.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 0.0}, false};
  double z_u = 0.0, z_l = 0.0;
  if (std::isinf(upper)) {
    e.censoring = Censoring::kRight;
  } else {
    z_u = (std::log(upper) - margin) / sigma;
    e.upper = At(dist, z_u);
  }
  if (lower <= 0.0) {
    e.censoring = Censoring::kLeft;
  } else {
    z_l = (std::log(lower) - margin) / sigma;
    e.lower = At(dist, z_l);
  }
  e.sign = z_u > 0 || z_l > 0;
  return e;
}

// The gradient's limit where the margin runs off to +-inf (sign: which way).
double GradLimit(AftDistribution dist, Censoring c, bool sign, double sigma) {
  const double below = dist == AftDistribution::kLogistic ? -1.0 / sigma : kMinGradient;
  const double above = dist == AftDistribution::kNormal ? kMaxGradient : 1.0 / sigma;
  switch (c) {
    case Censoring::kRight:
      return sign ? below : 0.0;
    case Censoring::kLeft:
      return sign ? 0.0 : above;
    default:
      return sign ? below : above;
  }
}

double HessLimit(AftDistribution dist, Censoring c, bool sign, double sigma) {
  if (dist == AftDistribution::kLogistic) return kMinHessian;
  if (dist == AftDistribution::kExtreme) {
    return c != Censoring::kLeft && sign ? kMaxHessian : kMinHessian;
  }
  const double inv = 1.0 / (sigma * sigma);
  switch (c) {
    case Censoring::kRight:
      return sign ? inv : kMinHessian;
    case Censoring::kLeft:
      return sign ? kMinHessian : inv;
    default:
      return inv;
  }
}

}  // namespace

AftDistribution ParseAftDistribution(const std::string& name) {
  if (name == "normal") return AftDistribution::kNormal;
  if (name == "logistic") return AftDistribution::kLogistic;
  if (name == "extreme") return AftDistribution::kExtreme;
  RB_FAIL("aft_loss_distribution=" << name << ": allowed: normal, logistic, extreme");
}

double AftLoss::Loss(double lower, double upper, double margin) const {
  if (lower == upper) {
    const double z = (std::log(lower) - margin) / sigma;
    return -std::log(std::fmax(At(dist, z).pdf / (sigma * lower), kEps));
  }
  const Ends e = Censored(dist, sigma, lower, upper, margin);
  return -std::log(std::fmax(e.upper.cdf - e.lower.cdf, kEps));
}

double AftLoss::Gradient(double lower, double upper, double margin) const {
  double numerator, denominator;
  Censoring censoring = Censoring::kUncensored;
  bool sign;
  if (lower == upper) {
    const double z = (std::log(lower) - margin) / sigma;
    const Density d = At(dist, z);
    numerator = d.grad_pdf;
    denominator = sigma * d.pdf;
    sign = z > 0;
  } else {
    const Ends e = Censored(dist, sigma, lower, upper, margin);
    censoring = e.censoring;
    sign = e.sign;
    numerator = e.upper.pdf - e.lower.pdf;
    denominator = sigma * (e.upper.cdf - e.lower.cdf);
  }
  double gradient = numerator / denominator;
  if (denominator < kEps && !std::isfinite(gradient)) {
    gradient = GradLimit(dist, censoring, sign, sigma);
  }
  return Clip(gradient, kMinGradient, kMaxGradient);
}

double AftLoss::Hessian(double lower, double upper, double margin) const {
  double numerator, denominator;
  Censoring censoring = Censoring::kUncensored;
  bool sign;
  if (lower == upper) {
    const double z = (std::log(lower) - margin) / sigma;
    const Density d = At(dist, z);
    numerator = -(d.pdf * d.hess_pdf - d.grad_pdf * d.grad_pdf);
    denominator = sigma * sigma * d.pdf * d.pdf;
    sign = z > 0;
  } else {
    const Ends e = Censored(dist, sigma, lower, upper, margin);
    censoring = e.censoring;
    sign = e.sign;
    const double cdf_diff = e.upper.cdf - e.lower.cdf;
    const double pdf_diff = e.upper.pdf - e.lower.pdf;
    const double grad_diff = e.upper.grad_pdf - e.lower.grad_pdf;
    const double root = sigma * cdf_diff;
    numerator = -(cdf_diff * grad_diff - pdf_diff * pdf_diff);
    denominator = root * root;
  }
  double hessian = numerator / denominator;
  if (denominator < kEps && !std::isfinite(hessian)) {
    hessian = HessLimit(dist, censoring, sign, sigma);
  }
  return Clip(hessian, kMinHessian, kMaxHessian);
}

}  // namespace ringboost
