// The `quantile` metric as XGBoost 3.x's QuantileError: the pinball loss of each (row, alpha)
// prediction, alpha (y - p) where y >= p else (1 - alpha) (p - y), times the row's weight,
// summed with the weights over rows and alphas, allreduced, divided.
#include <memory>
#include <string>
#include <vector>

#include "metric/metric_reduce.h"
#include "metric/metrics.h"
#include "objective/objective.h"

namespace ringboost {
namespace {

class QuantileMetric final : public Metric {
 public:
  QuantileMetric(std::vector<double> alphas, int nthread)
      : alphas_(std::move(alphas)), nthread_(nthread) {}

  std::string Name() const override { return "quantile"; }
  bool Maximize() const override { return false; }

  double Eval(const std::vector<float>& preds, int num_groups, const DataSet& data,
              rabit::Communicator* comm) const override {
    const int k = static_cast<int>(alphas_.size());
    if (num_groups != k || preds.size() != data.NumRows() * k) {
      RB_FAIL("eval_metric=quantile needs one prediction per row and quantile_alpha ("
              << k << " per row) but there are " << num_groups
              << "; use it with reg:quantileerror and the same quantile_alpha");
    }
    auto sums = metric_detail::SumRowsAcrossWorkers(
        comm, static_cast<int64_t>(data.NumRows()), nthread_, [&](int64_t i) {
          const float y = data.label[i], w = data.Weight(i);
          float loss = 0.0f;
          for (int j = 0; j < k; ++j) {
            const float a = static_cast<float>(alphas_[j]);
            const float d = y - preds[i * k + j];
            const float sign = d >= 0.0f;
            loss += (a * sign * d - (1.0f - a) * (1.0f - sign) * d) * w;
          }
          return std::pair<float, float>(loss, w * static_cast<float>(k));
        });
    if (!(sums[1] > 0)) RB_FAIL(data.name << ": quantile needs a positive total weight");
    return sums[0] / sums[1];
  }

 private:
  std::vector<double> alphas_;
  int nthread_;
};

}  // namespace

std::unique_ptr<Metric> MakeQuantileMetric(const std::string& prefix, const Params& params,
                                           int nthread) {
  if (prefix != "quantile") return nullptr;
  return std::make_unique<QuantileMetric>(ParseQuantileAlphas(params.quantile_alpha), nthread);
}

}  // namespace ringboost
