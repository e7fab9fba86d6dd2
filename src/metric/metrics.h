// The metric families behind Metric::Create. `param` is what followed '@' in the name (or "-"
// for "ndcg-"), empty when there was none.
#pragma once

#include <memory>
#include <string>

#include "common/error.h"
#include "metric/metric.h"

namespace ringboost {

// For a metric of one prediction a row given `num_groups` a row: why there are several (the
// objective's outputs: one per class, one per quantile_alpha) and the metrics that fit them,
// e.g. "(reg:quantileerror gives one per quantile_alpha); use eval_metric=quantile".
std::string SeveralOutputsAdvice(const std::string& objective, int num_groups);

// rmse, mae, logloss, error[@t], poisson-nloglik, rmsle, mape, mphe (huber_slope),
// gamma-nloglik, gamma-deviance, tweedie-nloglik@p. `has_param`: the name had '@' (error@ with
// nothing after it is an error).
std::unique_ptr<Metric> MakeElementwiseMetric(const std::string& prefix, const std::string& param,
                                              bool has_param, const Params& params, int nthread);
// quantile (quantile_alpha's pinball loss, one prediction per alpha).
std::unique_ptr<Metric> MakeQuantileMetric(const std::string& prefix, const Params& params,
                                           int nthread);
// cox-nloglik; aft-nloglik and interval-regression-accuracy (aft_loss_distribution, _scale).
std::unique_ptr<Metric> MakeSurvivalMetric(const std::string& prefix, const Params& params,
                                           int nthread);
// mlogloss, merror.
std::unique_ptr<Metric> MakeMulticlassMetric(const std::string& prefix, int nthread);
// ndcg[@k][-], map[@k][-], pre[@k].
std::unique_ptr<Metric> MakeRankMetric(const std::string& prefix, const std::string& param,
                                       int nthread);
// auc, aucpr.
std::unique_ptr<Metric> MakeAucMetric(const std::string& prefix, int nthread);

}  // namespace ringboost
