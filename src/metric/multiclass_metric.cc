// mlogloss and merror as XGBoost 1.7's multiclass_metric.cu, over rows x num_class
// probabilities: the label is cast to int and must lie in [0, num_class).
#include <atomic>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "metric/metric_reduce.h"
#include "metric/metrics.h"

namespace ringboost {
namespace {

class MulticlassMetric : public Metric {
 public:
  MulticlassMetric(bool logloss, int nthread) : logloss_(logloss), nthread_(nthread) {}

  std::string Name() const override { return logloss_ ? "mlogloss" : "merror"; }
  bool Maximize() const override { return false; }

  double Eval(const std::vector<float>& preds, int num_groups, const DataSet& data,
              rabit::Communicator* comm) const override {
    const int64_t rows = static_cast<int64_t>(data.NumRows());
    const int k = num_groups;
    if (k < 1 || preds.size() != static_cast<size_t>(rows) * k) {
      RB_FAIL("eval_metric=" << Name() << ": " << preds.size() << " predictions for " << rows
                             << " rows of " << k << " classes");
    }
    std::atomic<bool> bad_label{false};
    auto sums = metric_detail::SumRowsAcrossWorkers(comm, rows, nthread_, [&](int64_t i) {
      const float w = data.Weight(i);
      const int label = static_cast<int>(data.label[i]);
      if (label < 0 || label >= k) {
        bad_label = true;
        return std::pair<float, float>(0.0f, 0.0f);
      }
      return std::pair<float, float>(EvalRow(label, &preds[i * k], k) * w, w);
    });
    if (bad_label) {
      RB_FAIL(data.name << ": " << Name() << ": label must be in [0, num_class), num_class=" << k);
    }
    // XGBoost's finish (1.7.4, 3.2.0, 3.4.1): esum / wsum, NaN where every weight is 0 (unlike
    // its elementwise metrics, which return esum there).
    return sums[0] / sums[1];
  }

 private:
  float EvalRow(int label, const float* p, int k) const {
    if (logloss_) {
      constexpr float kEps = 1e-16f;
      return p[label] > kEps ? -std::log(p[label]) : -std::log(kEps);
    }
    int best = 0;  // XGBoost's FindMaxIndex: first maximum
    for (int j = 1; j < k; ++j) {
      if (p[j] > p[best]) best = j;
    }
    return best != label ? 1.0f : 0.0f;
  }

  bool logloss_;
  int nthread_;
};

}  // namespace

std::unique_ptr<Metric> MakeMulticlassMetric(const std::string& prefix, int nthread) {
  if (prefix == "mlogloss") return std::make_unique<MulticlassMetric>(true, nthread);
  if (prefix == "merror") return std::make_unique<MulticlassMetric>(false, nthread);
  return nullptr;
}

}  // namespace ringboost
