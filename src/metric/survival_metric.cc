// cox-nloglik as XGBoost's EvalCox (survival_metric.cu): the negative partial log-likelihood of
// Cox's model with Breslow's ties, over every worker's rows in |label| order (GatherCoxRows), so
// the value is one process's; divided by the number of events. preds: exp(margin).
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "metric/metric_reduce.h"
#include "metric/metrics.h"
#include "objective/cox.h"

namespace ringboost {
namespace {

class CoxNloglik final : public Metric {
 public:
  std::string Name() const override { return "cox-nloglik"; }
  bool Maximize() const override { return false; }

  double Eval(const std::vector<float>& preds, int num_groups, const DataSet& data,
              rabit::Communicator* comm) const override {
    if (num_groups != 1 || preds.size() != data.NumRows()) {
      RB_FAIL("eval_metric=cox-nloglik needs one prediction per row (survival:cox)");
    }
    // This worker's first global row: the rows of the ranks before it.
    const std::vector<uint64_t> counts =
        metric_detail::AllgatherValues(comm, std::vector<uint64_t>{data.NumRows()});
    uint64_t first = 0;
    for (int r = 0; comm != nullptr && r < comm->Rank(); ++r) first += counts[r];
    const std::vector<CoxRow> rows = GatherCoxRows(data, preds, first, comm);
    double exp_p_sum = 0;
    for (const CoxRow& r : rows) exp_p_sum += r.value;
    double out = 0, accumulated = 0;
    uint64_t events = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].label > 0) {
        out -= std::log(rows[i].value) - std::log(exp_p_sum);
        ++events;
      }
      accumulated += rows[i].value;
      if (i + 1 == rows.size() || std::fabs(rows[i].label) < std::fabs(rows[i + 1].label)) {
        exp_p_sum -= accumulated;
        accumulated = 0;
      }
    }
    return out / static_cast<double>(events);
  }
};

}  // namespace

std::unique_ptr<Metric> MakeSurvivalMetric(const std::string& prefix) {
  if (prefix == "cox-nloglik") return std::make_unique<CoxNloglik>();
  return nullptr;
}

}  // namespace ringboost
