// survival:aft as XGBoost's AFTObj (aft_obj.cu): each row's gradient and hessian of AftLoss at its
// margin, computed in double and times the row's weight, rounded to float once. The labels are
// the rows' intervals [label_lower_bound, label_upper_bound] (side files); the label column
// itself is not read, as in XGBoost. Predictions are exp(margin), the survival time; metrics read
// the margins.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/threads.h"
#include "objective/aft.h"
#include "objective/objectives.h"

namespace ringboost {

void CheckAftBounds(const DataSet& data, const char* who) {
  if (data.label_lower_bound.size() != data.NumRows() ||
      data.label_upper_bound.size() != data.NumRows()) {
    RB_FAIL(data.name << ": " << who
                      << " needs each row's survival-time interval: put '<file>.lower_bound' and "
                         "'<file>.upper_bound' (one value a line, inf for no upper bound) beside "
                         "each data file");
  }
}

namespace {

class AftObjective final : public Objective {
 public:
  explicit AftObjective(const Params& params)
      : loss_{ParseAftDistribution(params.aft_loss_distribution),
              static_cast<double>(static_cast<float>(params.aft_loss_distribution_scale))},
        nthread_(ResolveThreads(params.nthread)) {}

  std::string Name() const override { return "survival:aft"; }
  std::string DefaultMetric() const override { return "aft-nloglik"; }
  const char* CheckLabel(float label) const override {
    (void)label;
    return nullptr;
  }

  void GetGradient(const DataSet& data, const std::vector<float>& preds, int iter,
                   std::vector<GradPair>* out) const override {
    (void)iter;
    CheckAftBounds(data, "survival:aft");
    RB_CHECK(preds.size() == data.NumRows());
    const int64_t rows = static_cast<int64_t>(data.NumRows());
    out->resize(rows);
#pragma omp parallel for schedule(static) num_threads(nthread_)
    for (int64_t i = 0; i < rows; ++i) {
      const double lower = data.label_lower_bound[i], upper = data.label_upper_bound[i];
      const double m = preds[i];
      const float w = data.Weight(i);
      (*out)[i] = {static_cast<float>(loss_.Gradient(lower, upper, m) * w),
                   static_cast<float>(loss_.Hessian(lower, upper, m) * w)};
    }
  }

  void PredTransform(std::vector<float>* preds) const override {
    for (float& p : *preds) p = std::exp(p);
  }
  void EvalTransform(std::vector<float>* preds) const override { (void)preds; }
  float ProbToMargin(float base_score) const override {
    if (!(base_score > 0.0f)) {
      RB_FAIL("base_score=" << base_score << ": must be > 0 for survival:aft (its log is the "
                            << "initial margin)");
    }
    return std::log(base_score);
  }

 private:
  AftLoss loss_;
  int nthread_;
};

}  // namespace

std::unique_ptr<Objective> MakeAftObjective(const std::string& name, const Params& params) {
  if (name == "survival:aft") return std::make_unique<AftObjective>(params);
  return nullptr;
}

}  // namespace ringboost
