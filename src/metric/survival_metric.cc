// aft-nloglik and interval-regression-accuracy as XGBoost's survival metrics: the weighted mean of
// AftLoss (aft_loss_distribution, aft_loss_distribution_scale) at the margins, and the weighted
// share of rows whose exp(margin) lies in [lower, upper]. Exact sums across workers.
// cox-nloglik as XGBoost's EvalCox (survival_metric.cu): the negative partial log-likelihood of
// Cox's model with Breslow's ties, over every worker's rows in |label| order (GatherCoxRows), so
// the value is one process's; divided by the number of events. preds: exp(margin).
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/logging.h"
#include "metric/metric_reduce.h"
#include "metric/metrics.h"
#include "objective/aft.h"
#include "objective/cox.h"
#include "objective/objectives.h"

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
    // No event (every label negative: all censored) leaves 0 / 0, nan as XGBoost's; say why once.
    if (events == 0 && (comm == nullptr || comm->Rank() == 0) && warned_.insert(data.name).second) {
      RB_LOG(kWarning, "cox-nloglik of '" << data.name << "' is nan: it has no event (every "
                                          << "label is negative, a censored time), and the "
                                          << "likelihood is a mean over events");
    }
    return out / static_cast<double>(events);
  }

 private:
  mutable std::set<std::string> warned_;  // eval sets whose nan has been explained
};

enum class AftMetricKind { kNloglik, kAccuracy };

class AftMetric final : public Metric {
 public:
  AftMetric(AftMetricKind kind, const Params& params, int nthread)
      : kind_(kind),
        loss_{ParseAftDistribution(params.aft_loss_distribution),
              static_cast<double>(static_cast<float>(params.aft_loss_distribution_scale))},
        nthread_(nthread) {}

  std::string Name() const override {
    return kind_ == AftMetricKind::kNloglik ? "aft-nloglik" : "interval-regression-accuracy";
  }
  bool Maximize() const override { return kind_ == AftMetricKind::kAccuracy; }

  double Eval(const std::vector<float>& preds, int num_groups, const DataSet& data,
              rabit::Communicator* comm) const override {
    if (num_groups != 1 || preds.size() != data.NumRows()) {
      RB_FAIL("eval_metric=" << Name() << " needs one prediction per row (survival:aft)");
    }
    CheckAftBounds(data, ("eval_metric=" + Name()).c_str());
    const auto sums = metric_detail::SumRowsAcrossWorkers(
        comm, static_cast<int64_t>(data.NumRows()), nthread_, [&](int64_t i) {
          const double lower = data.label_lower_bound[i], upper = data.label_upper_bound[i];
          const float w = data.Weight(i);
          return std::pair<float, float>{RowValue(lower, upper, preds[i]) * w, w};
        });
    // XGBoost's finish: the plain sum (0) where every weight is 0, not 0 / 0.
    return sums[1] == 0 ? sums[0] : sums[0] / sums[1];
  }

 private:
  float RowValue(double lower, double upper, float margin) const {
    if (kind_ == AftMetricKind::kNloglik) {
      return static_cast<float>(loss_.Loss(lower, upper, margin));
    }
    const double pred = std::exp(static_cast<double>(margin));
    return pred >= lower && pred <= upper ? 1.0f : 0.0f;
  }

  AftMetricKind kind_;
  AftLoss loss_;
  int nthread_;
};

}  // namespace

std::unique_ptr<Metric> MakeSurvivalMetric(const std::string& prefix, const Params& params,
                                           int nthread) {
  if (prefix == "cox-nloglik") return std::make_unique<CoxNloglik>();
  if (prefix == "aft-nloglik") {
    return std::make_unique<AftMetric>(AftMetricKind::kNloglik, params, nthread);
  }
  if (prefix == "interval-regression-accuracy") {
    return std::make_unique<AftMetric>(AftMetricKind::kAccuracy, params, nthread);
  }
  return nullptr;
}

}  // namespace ringboost
