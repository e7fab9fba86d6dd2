// Element-wise metrics as XGBoost 1.7's elementwise_metric.cu: a float loss per row times its
// weight, summed in double with the weights, allreduced, then finished (sqrt for rmse).
#include <cmath>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "metric/metric_reduce.h"
#include "metric/metrics.h"

namespace ringboost {
namespace {

enum class RowLoss { kRmse, kMae, kLogloss, kError, kPoissonNloglik };

// The per-row loss in float, XGBoost's EvalRow.
float EvalRow(RowLoss kind, float threshold, float y, float p) {
  constexpr float kEps = 1e-16f;
  switch (kind) {
    case RowLoss::kRmse:
      return (y - p) * (y - p);
    case RowLoss::kMae:
      return std::fabs(y - p);
    case RowLoss::kLogloss: {
      const float pneg = 1.0f - p;
      if (p < kEps) return -y * std::log(kEps) - (1.0f - y) * std::log(1.0f - kEps);
      if (pneg < kEps) return -y * std::log(1.0f - kEps) - (1.0f - y) * std::log(kEps);
      return -y * std::log(p) - (1.0f - y) * std::log(pneg);
    }
    case RowLoss::kError:
      return p > threshold ? 1.0f - y : y;
    case RowLoss::kPoissonNloglik: {
      if (p < kEps) p = kEps;
      return std::lgamma(y + 1.0f) + p - std::log(p) * y;
    }
  }
  return 0.0f;
}

class ElementwiseMetric : public Metric {
 public:
  ElementwiseMetric(RowLoss kind, std::string name, float threshold, int nthread)
      : kind_(kind), name_(std::move(name)), threshold_(threshold), nthread_(nthread) {}

  std::string Name() const override { return name_; }
  bool Maximize() const override { return false; }

  double Eval(const std::vector<float>& preds, int num_groups, const DataSet& data,
              rabit::Communicator* comm) const override {
    const int64_t rows = static_cast<int64_t>(data.NumRows());
    if (num_groups != 1 || preds.size() != data.NumRows()) {
      RB_FAIL("eval_metric=" << name_ << " needs one prediction per row but there are "
                             << num_groups << " per row; use mlogloss or merror for multi:*");
    }
    if (!data.weight.empty() && data.weight.size() != data.NumRows()) {
      RB_FAIL(data.name << ": " << name_ << " needs one weight per row, got " << data.weight.size()
                        << " for " << rows << " rows");
    }
    auto sums = metric_detail::SumRows(rows, nthread_, [&](int64_t i) {
      const float w = data.Weight(i);
      return std::pair<float, float>(EvalRow(kind_, threshold_, data.label[i], preds[i]) * w, w);
    });
    metric_detail::AllreduceSum(comm, Span<double>(sums.data(), sums.size()));
    const double esum = sums[0], wsum = sums[1];
    if (kind_ == RowLoss::kRmse) return std::sqrt(wsum == 0 ? esum : esum / wsum);
    return wsum == 0 ? esum : esum / wsum;
  }

 private:
  RowLoss kind_;
  std::string name_;
  float threshold_;
  int nthread_;
};

// "error@t": the threshold on the prediction; printed as "error" when it is the default 0.5.
std::unique_ptr<Metric> MakeError(const std::string& param, int nthread) {
  float threshold = 0.5f;
  if (!param.empty()) {
    char* end = nullptr;
    threshold = std::strtof(param.c_str(), &end);
    if (end == param.c_str() || *end != '\0') {
      RB_FAIL("eval_metric=error@" << param << ": the threshold must be a number, e.g. error@0.7");
    }
  }
  std::ostringstream name;
  name << "error";
  if (threshold != 0.5f) name << '@' << threshold;
  return std::make_unique<ElementwiseMetric>(RowLoss::kError, name.str(), threshold, nthread);
}

}  // namespace

std::unique_ptr<Metric> MakeElementwiseMetric(const std::string& prefix, const std::string& param,
                                              int nthread) {
  if (prefix == "error") return MakeError(param, nthread);
  if (!param.empty()) return nullptr;
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

}  // namespace ringboost
