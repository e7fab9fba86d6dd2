// The regression losses XGBoost 3.x added beside RegLossObj: reg:pseudohubererror, reg:gamma,
// reg:tweedie and binary:hinge (element-wise: ElementwiseGradient of elementwise.h, so a device
// computes them bit for bit) and reg:squaredlogerror (host only: its log1p is a library
// transcendental, so a device takes its gradients from the host, as it does rank:*'s).
#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/threads.h"
#include "objective/elementwise.h"
#include "objective/objectives.h"

namespace ringboost {
namespace {

// How a margin becomes what users see, and base_score a margin.
enum class Link {
  kIdentity,  // prediction = margin, margin = base_score
  kLog,       // prediction = exp(margin), margin = log(base_score)
  kSign,      // prediction = margin > 0 ? 1 : 0 (binary:hinge), margin = base_score
};

struct LossFacts {
  ElementwiseLoss loss;
  const char* name;
  const char* label_rule;
  Link link;
  bool scale_pos_weight = false;  // weighs rows of label 1 by it (XGBoost 3.x's RegLossObj)
};

class ElementwiseLossObjective final : public ElementwiseObjective {
 public:
  ElementwiseLossObjective(LossFacts facts, float param, std::string default_metric,
                           const Params& params)
      : ElementwiseObjective(
            ElementwiseSpec{
                facts.loss,
                facts.scale_pos_weight ? static_cast<float>(params.scale_pos_weight) : 1.0f, 0.0f,
                1, param},
            facts.label_rule, ResolveThreads(params.nthread)),
        facts_(facts),
        default_metric_(std::move(default_metric)) {}

  std::string Name() const override { return facts_.name; }
  std::string DefaultMetric() const override { return default_metric_; }
  void PredTransform(std::vector<float>* preds) const override {
    if (facts_.link == Link::kLog) {
      for (float& p : *preds) p = ExpF(p);
    } else if (facts_.link == Link::kSign) {
      for (float& p : *preds) p = p > 0.0f ? 1.0f : 0.0f;
    }
  }

  float ProbToMargin(float base_score) const override {
    if (facts_.link != Link::kLog) return base_score;
    if (!(base_score > 0.0f)) {
      RB_FAIL("base_score=" << base_score << ": must be > 0 for " << facts_.name
                            << " (its log is the initial margin)");
    }
    return std::log(base_score);
  }

 private:
  LossFacts facts_;
  std::string default_metric_;
};

// reg:squaredlogerror as XGBoost's SquaredLogError (regression_loss.h): with
// m = max(margin, -1 + 1e-6), grad (log1p(m) - log1p(y)) / (m + 1), hess
// max((log1p(y) - log1p(m) + 1) / (m + 1)^2, 1e-6), both times the weight. No scale_pos_weight:
// XGBoost 3.x's is no RegLossObj and ignores it (1.7's weighed rows of label 1 by it).
class SquaredLogErrorObjective final : public Objective {
 public:
  explicit SquaredLogErrorObjective(const Params& params)
      : nthread_(ResolveThreads(params.nthread)) {}

  std::string Name() const override { return "reg:squaredlogerror"; }
  std::string DefaultMetric() const override { return "rmsle"; }
  const char* CheckLabel(float label) const override {
    return label > -1.0f ? nullptr : kLabelRule;
  }
  // A start at or below -1 has no log1p: rmsle printed nan or a number of a clipped margin
  // (XGBoost 3.4.1 takes it and prints nan for -2), and the gradients clip every row to -1 + 1e-6.
  float ProbToMargin(float base_score) const override {
    if (!(base_score > -1.0f)) {
      RB_FAIL("base_score=" << base_score << ": must be > -1 for reg:squaredlogerror (its "
                            << "predictions enter log(1 + prediction))");
    }
    return base_score;
  }

  void GetGradient(const DataSet& data, const std::vector<float>& preds, int iter,
                   std::vector<GradPair>* out) const override {
    (void)iter;
    const int64_t rows = static_cast<int64_t>(data.NumRows());
    RB_CHECK(preds.size() == data.NumRows() && data.label.size() == data.NumRows());
    out->resize(rows);
    int bad = 0;
#pragma omp parallel for schedule(static) num_threads(nthread_) reduction(| : bad)
    for (int64_t i = 0; i < rows; ++i) {
      const float y = data.label[i];
      bad |= !(y > -1.0f);
      (*out)[i] = Gradient(preds[i], y, data.Weight(i));
    }
    if (bad) RB_FAIL(data.name << ": " << kLabelRule);
  }

  static GradPair Gradient(float margin, float label, float weight) {
    const float m = std::max(margin, -1.0f + 1e-6f);
    const float grad = (std::log1p(m) - std::log1p(label)) / (m + 1.0f);
    const double m1 = static_cast<double>(m) + 1.0;
    float hess = static_cast<float>((-std::log1p(m) + std::log1p(label) + 1.0f) / (m1 * m1));
    hess = std::max(hess, 1e-6f);
    return {grad * weight, hess * weight};
  }

 private:
  static constexpr const char* kLabelRule = "label must be greater than -1 for reg:squaredlogerror";
  int nthread_;
};

// XGBoost names the default metric of reg:tweedie after its power: "tweedie-nloglik@1.5".
std::string TweedieMetric(float rho) {
  std::ostringstream name;
  name << "tweedie-nloglik@" << rho;
  return name.str();
}

}  // namespace

std::unique_ptr<Objective> MakeRegressionLossObjective(const std::string& name,
                                                       const Params& params) {
  if (name == "reg:pseudohubererror") {
    return std::make_unique<ElementwiseLossObjective>(
        LossFacts{ElementwiseLoss::kPseudoHuber, "reg:pseudohubererror", nullptr, Link::kIdentity},
        static_cast<float>(params.huber_slope), "mphe", params);
  }
  if (name == "reg:gamma") {
    // XGBoost 3.x's default metric is the deviance (1.7's was gamma-nloglik), and its reg:gamma is
    // a RegLossObj: scale_pos_weight weighs the rows of label 1 (1.7's ignored it).
    return std::make_unique<ElementwiseLossObjective>(
        LossFacts{ElementwiseLoss::kGamma, "reg:gamma", "label must be positive for reg:gamma",
                  Link::kLog, /*scale_pos_weight=*/true},
        0.0f, "gamma-deviance", params);
  }
  if (name == "reg:tweedie") {
    const float rho = static_cast<float>(params.tweedie_variance_power);
    if (!(rho >= 1.0f && rho < 2.0f)) {
      RB_FAIL("tweedie_variance_power=" << params.tweedie_variance_power
                                        << ": must be in [1, 2) for reg:tweedie");
    }
    return std::make_unique<ElementwiseLossObjective>(
        LossFacts{ElementwiseLoss::kTweedie, "reg:tweedie",
                  "label must be nonnegative for reg:tweedie", Link::kLog},
        rho, TweedieMetric(rho), params);
  }
  if (name == "binary:hinge") {
    return std::make_unique<ElementwiseLossObjective>(
        LossFacts{ElementwiseLoss::kHinge, "binary:hinge",
                  "label must be in [0, 1] for binary:hinge", Link::kSign},
        0.0f, "error", params);
  }
  if (name == "reg:squaredlogerror") return std::make_unique<SquaredLogErrorObjective>(params);
  return nullptr;
}

}  // namespace ringboost
