// Element-wise objectives as XGBoost 1.7 computes them (regression_loss.h, regression_obj.cu):
// reg:squarederror, reg:logistic, binary:logistic, binary:logitraw and count:poisson. All
// arithmetic is in float, in the same order as XGBoost, so gradients match it bit for bit.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/threads.h"
#include "objective/objective_detail.h"
#include "objective/objectives.h"

namespace ringboost {
namespace {

using objective_detail::Fmax;
using objective_detail::Sigmoid;

// The losses: margin -> prediction, gradient and hessian on the prediction, label rule.
enum class Loss { kSquared, kLogistic, kLogitRaw };

struct LossSpec {
  Loss loss;
  const char* name;
  const char* default_metric;
  const char* label_rule;  // nullptr = every label is valid
};

float LossTransform(Loss loss, float margin) {
  return loss == Loss::kLogistic ? Sigmoid(margin) : margin;
}

// `p` is LossTransform(margin).
GradPair LossGradient(Loss loss, float p, float label) {
  constexpr float kEps = 1e-16f;
  switch (loss) {
    case Loss::kSquared:
      return {p - label, 1.0f};
    case Loss::kLogistic:
      return {p - label, Fmax(p * (1.0f - p), kEps)};
    case Loss::kLogitRaw: {
      const float s = Sigmoid(p);
      return {s - label, Fmax(s * (1.0f - s), kEps)};
    }
  }
  return {};
}

// XGBoost's RegLossObj: weight w (times scale_pos_weight where label == 1, for every loss of
// this family, as XGBoost does) multiplies both gradient and hessian.
class RegLossObjective final : public Objective {
 public:
  RegLossObjective(LossSpec spec, const Params& params)
      : spec_(spec),
        scale_pos_weight_(static_cast<float>(params.scale_pos_weight)),
        nthread_(ResolveThreads(params.nthread)) {}

  std::string Name() const override { return spec_.name; }
  std::string DefaultMetric() const override { return spec_.default_metric; }

  const char* CheckLabel(float label) const override {
    if (spec_.label_rule == nullptr) return nullptr;
    return (label >= 0.0f && label <= 1.0f) ? nullptr : spec_.label_rule;
  }

  void GetGradient(const DataSet& data, const std::vector<float>& preds, int iter,
                   std::vector<GradPair>* out) const override {
    (void)iter;
    const int64_t rows = static_cast<int64_t>(data.NumRows());
    RB_CHECK_MSG(preds.size() == data.label.size() && data.label.size() == data.NumRows(),
                 "preds " << preds.size() << ", labels " << data.label.size());
    out->resize(rows);
    int bad = 0;
#pragma omp parallel for schedule(static) num_threads(nthread_) reduction(| : bad)
    for (int64_t i = 0; i < rows; ++i) {
      const float label = data.label[i];
      float w = data.Weight(i);
      if (label == 1.0f) w *= scale_pos_weight_;
      bad |= CheckLabel(label) != nullptr;
      const GradPair g = LossGradient(spec_.loss, LossTransform(spec_.loss, preds[i]), label);
      (*out)[i] = {g.grad * w, g.hess * w};
    }
    if (bad) RB_FAIL(data.name << ": " << spec_.label_rule);
  }

  void PredTransform(std::vector<float>* preds) const override {
    if (spec_.loss != Loss::kLogistic) return;
    for (float& p : *preds) p = Sigmoid(p);
  }

  // Logistic losses take base_score as a probability; binary:logitraw takes it as a margin
  // (XGBoost 1.7 overrides ProbToMargin for logitraw).
  float ProbToMargin(float base_score) const override {
    if (spec_.loss != Loss::kLogistic) return base_score;
    if (!(base_score > 0.0f && base_score < 1.0f)) {
      RB_FAIL("base_score=" << base_score << ": must be in (0, 1) for " << spec_.name
                            << "; it is the initial probability");
    }
    return -std::log(1.0f / base_score - 1.0f);
  }

 private:
  LossSpec spec_;
  float scale_pos_weight_;
  int nthread_;
};

// count:poisson: grad exp(m) - y, hess exp(m + max_delta_step), times the weight. XGBoost's
// Poisson objective has its own max_delta_step defaulting to 0.7, which a user's max_delta_step
// (shared with the tree) overrides.
class PoissonObjective final : public Objective {
 public:
  explicit PoissonObjective(const Params& params)
      : max_delta_step_(params.IsSet("max_delta_step") ? static_cast<float>(params.max_delta_step)
                                                       : 0.7f),
        nthread_(ResolveThreads(params.nthread)) {}

  std::string Name() const override { return "count:poisson"; }
  std::string DefaultMetric() const override { return "poisson-nloglik"; }
  const char* CheckLabel(float label) const override {
    return label >= 0.0f ? nullptr : "label must be nonnegative for count:poisson";
  }

  void GetGradient(const DataSet& data, const std::vector<float>& preds, int iter,
                   std::vector<GradPair>* out) const override {
    (void)iter;
    const int64_t rows = static_cast<int64_t>(data.NumRows());
    RB_CHECK_MSG(preds.size() == data.label.size() && data.label.size() == data.NumRows(),
                 "preds " << preds.size() << ", labels " << data.label.size());
    out->resize(rows);
    int bad = 0;
#pragma omp parallel for schedule(static) num_threads(nthread_) reduction(| : bad)
    for (int64_t i = 0; i < rows; ++i) {
      const float p = preds[i];
      const float w = data.Weight(i);
      const float y = data.label[i];
      bad |= y < 0.0f;
      (*out)[i] = {(std::exp(p) - y) * w, std::exp(p + max_delta_step_) * w};
    }
    if (bad) RB_FAIL(data.name << ": " << CheckLabel(-1.0f));
  }

  void PredTransform(std::vector<float>* preds) const override {
    for (float& p : *preds) p = std::exp(p);
  }

  float ProbToMargin(float base_score) const override {
    if (!(base_score > 0.0f)) {
      RB_FAIL("base_score=" << base_score << ": must be > 0 for count:poisson (its log is the "
                            << "initial margin)");
    }
    return std::log(base_score);
  }

 private:
  float max_delta_step_;
  int nthread_;
};

}  // namespace

std::unique_ptr<Objective> MakeRegressionObjective(const std::string& name, const Params& params) {
  if (name == "reg:squarederror" || name == "reg:linear") {
    return std::make_unique<RegLossObjective>(
        LossSpec{Loss::kSquared, "reg:squarederror", "rmse", nullptr}, params);
  }
  if (name == "reg:logistic") {
    return std::make_unique<RegLossObjective>(LossSpec{Loss::kLogistic, "reg:logistic", "rmse",
                                                       "label must be in [0, 1] for reg:logistic"},
                                              params);
  }
  if (name == "binary:logistic") {
    return std::make_unique<RegLossObjective>(
        LossSpec{Loss::kLogistic, "binary:logistic", "logloss",
                 "label must be in [0, 1] for binary:logistic"},
        params);
  }
  if (name == "binary:logitraw") {
    return std::make_unique<RegLossObjective>(
        LossSpec{Loss::kLogitRaw, "binary:logitraw", "logloss",
                 "label must be in [0, 1] for binary:logitraw"},
        params);
  }
  if (name == "count:poisson") return std::make_unique<PoissonObjective>(params);
  return nullptr;
}

}  // namespace ringboost
