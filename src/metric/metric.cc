// Metric::Create: parses a metric name as XGBoost 1.7 does ("name", "name@param", "name-").
#include <memory>
#include <string>

#include "common/threads.h"
#include "metric/metrics.h"

namespace ringboost {
namespace {

constexpr const char* kAllowed =
    "rmse, mae, logloss, error, error@t, auc, aucpr, mlogloss, merror, poisson-nloglik, ndcg, "
    "ndcg@k, ndcg-, ndcg@k-, map, map@k, map-, map@k-, rmsle, mape, mphe, gamma-nloglik, "
    "gamma-deviance, tweedie-nloglik@p, quantile, pre, pre@k, cox-nloglik, aft-nloglik, "
    "interval-regression-accuracy";

std::unique_ptr<Metric> Dispatch(const std::string& prefix, const std::string& param,
                                 bool has_param, const Params& params, int nthread) {
  if (auto m = MakeRankMetric(prefix, param, nthread)) return m;
  if (auto m = MakeElementwiseMetric(prefix, param, has_param, params, nthread)) return m;
  if (has_param) return nullptr;  // the remaining metrics take no parameter
  if (auto m = MakeQuantileMetric(prefix, params, nthread)) return m;
  if (auto m = MakeSurvivalMetric(prefix, params, nthread)) return m;
  if (auto m = MakeMulticlassMetric(prefix, nthread)) return m;
  return MakeAucMetric(prefix, nthread);
}

}  // namespace

std::string SeveralOutputsAdvice(const std::string& objective, int num_groups) {
  if (num_groups <= 1) return "";
  if (objective.rfind("multi:", 0) == 0) {
    return " (" + objective + " gives one per class); use mlogloss, merror, or auc or aucpr " +
           "(one class against the rest)";
  }
  if (objective == "reg:quantileerror") {
    return " (reg:quantileerror gives one per quantile_alpha); use eval_metric=quantile";
  }
  return "";
}

std::unique_ptr<Metric> Metric::Create(const std::string& name, const Params& params) {
  std::string prefix = name, param;
  bool has_param = false;
  const size_t at = name.find('@');
  if (at != std::string::npos) {
    prefix = name.substr(0, at);
    param = name.substr(at + 1);
    has_param = true;
  } else if (name.size() > 1 && name.back() == '-') {  // "ndcg-", "map-"
    prefix = name.substr(0, name.size() - 1);
    param = "-";
    has_param = true;
  }
  auto metric = Dispatch(prefix, param, has_param, params, ResolveThreads(params.nthread));
  if (!metric) {
    RB_FAIL("eval_metric=" << name << ": unknown metric; allowed: " << kAllowed);
  }
  return metric;
}

}  // namespace ringboost
