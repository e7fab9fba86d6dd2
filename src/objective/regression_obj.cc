// Element-wise objectives as XGBoost 1.7 computes them (regression_loss.h, regression_obj.cu):
// reg:squarederror, reg:logistic, binary:logistic, binary:logitraw and count:poisson. The per-row
// arithmetic is ElementwiseGradient (elementwise.h), in float and in XGBoost's order; its ExpF is
// the correctly rounded expf, where glibc's is off by one ulp now and then.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/threads.h"
#include "objective/elementwise.h"
#include "objective/objectives.h"

namespace ringboost {
namespace {

// What tells the objectives of the RegLoss family apart.
struct LossInfo {
  ElementwiseLoss loss;  // kSquared, kLogistic or kLogitRaw
  const char* name;
  const char* default_metric;
  const char* label_rule;  // nullptr = every label is valid
};

// XGBoost's RegLossObj: the gradients are ElementwiseGradient's (weight times scale_pos_weight
// where label == 1 multiplying gradient and hessian).
class RegLossObjective final : public ElementwiseObjective {
 public:
  RegLossObjective(LossInfo info, const Params& params)
      : ElementwiseObjective(
            ElementwiseSpec{info.loss, static_cast<float>(params.scale_pos_weight), 0.0f, 1},
            info.label_rule, ResolveThreads(params.nthread)),
        info_(info) {}

  std::string Name() const override { return info_.name; }
  std::string DefaultMetric() const override { return info_.default_metric; }

  void PredTransform(std::vector<float>* preds) const override {
    if (info_.loss != ElementwiseLoss::kLogistic) return;
    SigmoidInPlace(preds, nthread_);
  }

  // Logistic losses take base_score as a probability; binary:logitraw takes it as a margin
  // (XGBoost 1.7 overrides ProbToMargin for logitraw).
  float ProbToMargin(float base_score) const override {
    if (info_.loss != ElementwiseLoss::kLogistic) return base_score;
    if (!(base_score > 0.0f && base_score < 1.0f)) {
      RB_FAIL("base_score=" << base_score << ": must be in (0, 1) for " << info_.name
                            << "; it is the initial probability");
    }
    return -std::log(1.0f / base_score - 1.0f);
  }

 private:
  LossInfo info_;
};

// count:poisson: grad exp(m) - y, hess exp(m + max_delta_step), times the weight. XGBoost's
// Poisson objective has its own max_delta_step defaulting to 0.7, which a user's max_delta_step
// (shared with the tree) overrides.
class PoissonObjective final : public ElementwiseObjective {
 public:
  explicit PoissonObjective(const Params& params)
      : ElementwiseObjective(ElementwiseSpec{ElementwiseLoss::kPoisson, 1.0f,
                                             params.IsSet("max_delta_step")
                                                 ? static_cast<float>(params.max_delta_step)
                                                 : kDefaultMaxDeltaStep,
                                             1},
                             kLabelRule, ResolveThreads(params.nthread)) {}

  std::string Name() const override { return "count:poisson"; }
  std::string DefaultMetric() const override { return "poisson-nloglik"; }
  float DefaultMaxDeltaStep() const override { return kDefaultMaxDeltaStep; }
  void PredTransform(std::vector<float>* preds) const override {
    for (float& p : *preds) p = ExpF(p);
  }

  float ProbToMargin(float base_score) const override {
    if (!(base_score > 0.0f)) {
      RB_FAIL("base_score=" << base_score << ": must be > 0 for count:poisson (its log is the "
                            << "initial margin)");
    }
    return std::log(base_score);
  }

 private:
  static constexpr const char* kLabelRule = "label must be nonnegative for count:poisson";
  static constexpr float kDefaultMaxDeltaStep = 0.7f;
};

}  // namespace

std::unique_ptr<Objective> MakeRegressionObjective(const std::string& name, const Params& params) {
  if (name == "reg:squarederror" || name == "reg:linear") {
    return std::make_unique<RegLossObjective>(
        LossInfo{ElementwiseLoss::kSquared, "reg:squarederror", "rmse", nullptr}, params);
  }
  if (name == "reg:logistic") {
    return std::make_unique<RegLossObjective>(
        LossInfo{ElementwiseLoss::kLogistic, "reg:logistic", "rmse",
                 "label must be in [0, 1] for reg:logistic"},
        params);
  }
  if (name == "binary:logistic") {
    return std::make_unique<RegLossObjective>(
        LossInfo{ElementwiseLoss::kLogistic, "binary:logistic", "logloss",
                 "label must be in [0, 1] for binary:logistic"},
        params);
  }
  if (name == "binary:logitraw") {
    return std::make_unique<RegLossObjective>(
        LossInfo{ElementwiseLoss::kLogitRaw, "binary:logitraw", "logloss",
                 "label must be in [0, 1] for binary:logitraw"},
        params);
  }
  if (name == "count:poisson") return std::make_unique<PoissonObjective>(params);
  return nullptr;
}

}  // namespace ringboost
