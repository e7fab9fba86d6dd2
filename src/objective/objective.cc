// Objective::Create: the one place that maps an objective name to its implementation.
#include <memory>

#include "objective/objectives.h"

namespace ringboost {

std::unique_ptr<Objective> Objective::Create(const Params& params) {
  const std::string& name = params.objective;
  if (auto obj = MakeRegressionObjective(name, params)) return obj;
  if (auto obj = MakeRegressionLossObjective(name, params)) return obj;
  if (auto obj = MakeQuantileObjective(name, params)) return obj;
  if (auto obj = MakeCoxObjective(name, params)) return obj;
  if (auto obj = MakeAftObjective(name, params)) return obj;
  if (auto obj = MakeMulticlassObjective(name, params)) return obj;
  if (auto obj = MakeRankObjective(name, params)) return obj;
  RB_FAIL("objective=" << name
                       << ": unknown objective; allowed: reg:squarederror (alias reg:linear), "
                          "reg:logistic, binary:logistic, binary:logitraw, multi:softmax, "
                          "multi:softprob, count:poisson, rank:pairwise, rank:ndcg, "
                          "reg:pseudohubererror, reg:gamma, reg:tweedie, reg:squaredlogerror, "
                          "binary:hinge, reg:absoluteerror, reg:quantileerror, survival:cox, "
                          "survival:aft");
}

}  // namespace ringboost
