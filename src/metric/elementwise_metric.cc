// Element-wise metrics as XGBoost's elementwise_metric.cu: a float loss per row times its weight,
// summed in double with the weights, allreduced, then finished (sqrt for rmse and rmsle, twice
// the mean for gamma-deviance). rmse, mae, error as 1.7; logloss, rmsle, mape, mphe,
// gamma-nloglik, gamma-deviance and tweedie-nloglik@p as 3.x.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/logging.h"
#include "metric/metric_reduce.h"
#include "metric/metrics.h"

namespace ringboost {
namespace {

enum class RowLoss {
  kRmse,
  kMae,
  kLogloss,
  kError,
  kPoissonNloglik,
  kRmsle,
  kMape,
  kMphe,
  kGammaNloglik,
  kGammaDeviance,
  kTweedieNloglik,
};

// XGBoost's kRtEps.
constexpr float kRtEps = 1e-6f;

// XGBoost 3.x's xlogy in logloss: a log(max(b, 1e-16)), and 0 where a is 0 (whatever b is).
float XLogY(float a, float b) { return a == 0.0f ? 0.0f : a * std::log(std::max(b, 1e-16f)); }

// The per-row loss in float, XGBoost's EvalRow. `param`: error's threshold, mphe's huber_slope,
// tweedie-nloglik's power.
float EvalRow(RowLoss kind, float param, float y, float p) {
  constexpr float kEps = 1e-16f;
  switch (kind) {
    case RowLoss::kRmsle: {
      const float d = std::log1p(y) - std::log1p(p);
      return d * d;
    }
    case RowLoss::kMape:
      return std::fabs((y - p) / y);
    case RowLoss::kMphe: {
      const float a = y - p, r = a / param;
      return param * param * (std::sqrt(1.0f + r * r) - 1.0f);
    }
    case RowLoss::kGammaNloglik: {
      // The exponential family's -((y theta - b(theta)) / a + c) with dispersion 1 (c = 0).
      p = std::max(p, 1e-6f);
      const float theta = static_cast<float>(-1.0 / p);
      const float b = -std::log(-theta);
      return -(y * theta - b);
    }
    case RowLoss::kGammaDeviance:
      p += kRtEps;
      y += kRtEps;
      return std::log(p / y) + y / p - 1.0f;
    case RowLoss::kTweedieNloglik: {
      const float a = y * std::exp((1.0f - param) * std::log(p)) / (1.0f - param);
      const float b = std::exp((2.0f - param) * std::log(p)) / (2.0f - param);
      return -a + b;
    }
    default:
      break;
  }
  const float threshold = param;
  switch (kind) {
    case RowLoss::kRmse:
      return (y - p) * (y - p);
    case RowLoss::kMae:
      return std::fabs(y - p);
    case RowLoss::kLogloss: {
      // XGBoost 3.x's form, each log's argument raised to 1e-16 on its own: on a margin outside
      // [0, 1] (binary:logitraw's default metric) it differs from 1.7's clipping of p, y = 1 at
      // p = 2 costing -log 2 there, not 0.
      return XLogY(-y, p) + XLogY(-(1.0f - y), 1.0f - p);
    }
    case RowLoss::kError:
      return p > threshold ? 1.0f - y : y;
    case RowLoss::kPoissonNloglik: {
      if (p < kEps) p = kEps;
      // XGBoost's LogGamma(float) calls the double lgamma and rounds its result to float; lgammaf
      // differs from that by an ulp on many fractional labels.
      const float log_gamma = static_cast<float>(std::lgamma(static_cast<double>(y + 1.0f)));
      return log_gamma + p - std::log(p) * y;
    }
    default:
      break;
  }
  return 0.0f;
}

// The labels a loss is defined for, and its rule in words; nullptr where every label is.
// XGBoost evaluates the others too (to inf, nan or a number that is no loss) without a word.
const char* LabelRule(RowLoss kind, float y) {
  switch (kind) {
    case RowLoss::kLogloss:
    case RowLoss::kError:
      return y >= 0.0f && y <= 1.0f ? nullptr : "labels in [0, 1]";
    case RowLoss::kRmsle:
      return y > -1.0f ? nullptr : "labels above -1 (it takes log(1 + label))";
    case RowLoss::kMape:
      return y != 0.0f ? nullptr : "labels other than 0 (it divides by the label)";
    case RowLoss::kPoissonNloglik:
    case RowLoss::kTweedieNloglik:
      return y >= 0.0f ? nullptr : "labels >= 0";
    case RowLoss::kGammaNloglik:
    case RowLoss::kGammaDeviance:
      return y > 0.0f ? nullptr : "labels > 0";
    default:
      return nullptr;
  }
}

class ElementwiseMetric : public Metric {
 public:
  ElementwiseMetric(RowLoss kind, std::string name, float param, int nthread)
      : kind_(kind), name_(std::move(name)), param_(param), nthread_(nthread) {}

  void set_objective(std::string objective) { objective_ = std::move(objective); }

  std::string Name() const override { return name_; }
  bool Maximize() const override { return false; }

  double Eval(const std::vector<float>& preds, int num_groups, const DataSet& data,
              rabit::Communicator* comm) const override {
    const int64_t rows = static_cast<int64_t>(data.NumRows());
    if (num_groups != 1 || preds.size() != data.NumRows()) {
      RB_FAIL("eval_metric=" << name_ << " needs one prediction per row but there are "
                             << num_groups << " per row"
                             << SeveralOutputsAdvice(objective_, num_groups));
    }
    if (!data.weight.empty() && data.weight.size() != data.NumRows()) {
      RB_FAIL(data.name << ": " << name_ << " needs one weight per row, got " << data.weight.size()
                        << " for " << rows << " rows");
    }
    WarnOfLabelsOutsideTheDomain(data);
    auto sums = metric_detail::SumRowsAcrossWorkers(comm, rows, nthread_, [&](int64_t i) {
      const float w = data.Weight(i);
      return std::pair<float, float>(EvalRow(kind_, param_, data.label[i], preds[i]) * w, w);
    });
    const double esum = sums[0], wsum = sums[1];
    if (kind_ == RowLoss::kRmse || kind_ == RowLoss::kRmsle) {
      return std::sqrt(wsum == 0 ? esum : esum / wsum);
    }
    if (kind_ == RowLoss::kGammaDeviance) return 2 * esum / (wsum <= 0 ? kRtEps : wsum);
    return wsum == 0 ? esum : esum / wsum;
  }

 private:
  // Once per eval set (its labels do not change from round to round): a warning naming the first
  // row whose label the loss is not defined for. The value stays XGBoost's.
  void WarnOfLabelsOutsideTheDomain(const DataSet& data) const {
    if (!checked_.insert(data.name).second) return;
    for (std::size_t i = 0; i < data.label.size(); ++i) {
      if (const char* rule = LabelRule(kind_, data.label[i])) {
        RB_LOG(kWarning, name_ << " of '" << data.name << "' needs " << rule << " but row " << i + 1
                               << " has label " << data.label[i]
                               << ": the value printed (XGBoost's: inf, nan or another number) "
                               << "is not a " << name_ << " of these labels");
        return;
      }
    }
  }

  RowLoss kind_;
  std::string name_;
  std::string objective_;  // for the advice when there are several predictions a row
  float param_;
  int nthread_;
  mutable std::set<std::string> checked_;  // eval sets whose labels have been checked
};

// "error@t": the threshold on the prediction; printed as "error" when it is the default 0.5.
// `param` is std::nullopt for "error"; "error@" (empty) and a NaN threshold are errors (XGBoost
// 3.x refuses the first; under the second every row would count as its label).
std::unique_ptr<ElementwiseMetric> MakeError(const std::optional<std::string>& param, int nthread) {
  float threshold = 0.5f;
  if (param.has_value()) {
    char* end = nullptr;
    threshold = std::strtof(param->c_str(), &end);
    if (end == param->c_str() || *end != '\0' || std::isnan(threshold)) {
      RB_FAIL("eval_metric=error@" << *param << ": the threshold must be a number, e.g. error@0.7");
    }
  }
  std::ostringstream name;
  name << "error";
  if (threshold != 0.5f) name << '@' << threshold;
  return std::make_unique<ElementwiseMetric>(RowLoss::kError, name.str(), threshold, nthread);
}

// "tweedie-nloglik@p": p in [1, 2) is required, as XGBoost requires it.
std::unique_ptr<ElementwiseMetric> MakeTweedie(const std::string& param, int nthread) {
  char* end = nullptr;
  const float rho = std::strtof(param.c_str(), &end);
  if (param.empty() || end == param.c_str() || *end != '\0' || !(rho >= 1.0f && rho < 2.0f)) {
    RB_FAIL("eval_metric=tweedie-nloglik@" << param
                                           << ": give the variance power p in [1, 2), "
                                              "e.g. tweedie-nloglik@1.5");
  }
  std::ostringstream name;
  name << "tweedie-nloglik@" << rho;
  return std::make_unique<ElementwiseMetric>(RowLoss::kTweedieNloglik, name.str(), rho, nthread);
}

std::unique_ptr<ElementwiseMetric> MakeByName(const std::string& prefix, const std::string& param,
                                              bool has_param, const Params& params, int nthread) {
  if (prefix == "error") {
    return MakeError(has_param ? std::optional<std::string>(param) : std::nullopt, nthread);
  }
  if (prefix == "tweedie-nloglik") return MakeTweedie(param, nthread);
  if (!param.empty()) return nullptr;
  struct Plain {
    const char* name;
    RowLoss kind;
  };
  for (const Plain& m : {Plain{"rmsle", RowLoss::kRmsle}, Plain{"mape", RowLoss::kMape},
                         Plain{"gamma-nloglik", RowLoss::kGammaNloglik},
                         Plain{"gamma-deviance", RowLoss::kGammaDeviance}}) {
    if (prefix == m.name) return std::make_unique<ElementwiseMetric>(m.kind, prefix, 0.0f, nthread);
  }
  if (prefix == "mphe") {
    return std::make_unique<ElementwiseMetric>(RowLoss::kMphe, prefix,
                                               static_cast<float>(params.huber_slope), nthread);
  }
  if (prefix == "rmse") {
    return std::make_unique<ElementwiseMetric>(RowLoss::kRmse, prefix, 0.0f, nthread);
  }
  if (prefix == "mae") {
    return std::make_unique<ElementwiseMetric>(RowLoss::kMae, prefix, 0.0f, nthread);
  }
  if (prefix == "logloss") {
    return std::make_unique<ElementwiseMetric>(RowLoss::kLogloss, prefix, 0.0f, nthread);
  }
  if (prefix == "poisson-nloglik") {
    return std::make_unique<ElementwiseMetric>(RowLoss::kPoissonNloglik, prefix, 0.0f, nthread);
  }
  return nullptr;
}

}  // namespace

std::unique_ptr<Metric> MakeElementwiseMetric(const std::string& prefix, const std::string& param,
                                              bool has_param, const Params& params, int nthread) {
  std::unique_ptr<ElementwiseMetric> metric = MakeByName(prefix, param, has_param, params, nthread);
  if (metric) metric->set_objective(params.objective);
  return metric;
}

}  // namespace ringboost
