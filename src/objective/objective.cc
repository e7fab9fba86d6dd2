// Objective::Create: the one place that maps an objective name to its implementation.
#include <memory>

#include "objective/objectives.h"

namespace ringboost {

namespace {

// The lambdarank_* keys are XGBoost 3.x's and only rank:map follows 3.x; rank:pairwise and
// rank:ndcg are 1.7's, which has none, so a key given for another objective would do nothing.
void CheckLambdaRankKeys(const Params& params) {
  if (params.objective == "rank:map") return;
  for (const char* key : {"lambdarank_pair_method", "lambdarank_num_pair_per_sample",
                          "lambdarank_normalization", "lambdarank_score_normalization"}) {
    if (params.IsSet(key)) {
      RB_FAIL(key << " applies to objective=rank:map only (rank:pairwise and rank:ndcg "
                     "follow XGBoost 1.7, which has no lambdarank_* keys); remove it");
    }
  }
}

}  // namespace

void RequireQueryGroupsAcrossWorkers(const std::string& objective, const DataSet& train,
                                     rabit::Communicator* comm) {
  if (comm == nullptr || comm->WorldSize() <= 1) return;
  const uint64_t grouped =
      comm->AllreduceValue<uint64_t>(train.group_ptr.empty() ? 0 : 1, rabit::Op::kMax);
  if (grouped != 0) return;
  RB_FAIL("objective=" << objective << " on " << comm->WorldSize() << " workers: the training data "
                       << train.name
                       << " has no query groups, so all its rows are one group, whose pairs no "
                          "worker holds whole; give query groups (a .query or .group file beside "
                          "the data, or qid: tokens), or train in one process");
}

std::unique_ptr<Objective> Objective::Create(const Params& params) {
  const std::string& name = params.objective;
  CheckLambdaRankKeys(params);
  if (auto obj = MakeRegressionObjective(name, params)) return obj;
  if (auto obj = MakeRegressionLossObjective(name, params)) return obj;
  if (auto obj = MakeQuantileObjective(name, params)) return obj;
  if (auto obj = MakeCoxObjective(name, params)) return obj;
  if (auto obj = MakeAftObjective(name, params)) return obj;
  if (auto obj = MakeMulticlassObjective(name, params)) return obj;
  if (auto obj = MakeRankObjective(name, params)) return obj;
  if (auto obj = MakeRankMapObjective(name, params)) return obj;
  RB_FAIL("objective=" << name
                       << ": unknown objective; allowed: reg:squarederror (alias reg:linear), "
                          "reg:logistic, binary:logistic, binary:logitraw, multi:softmax, "
                          "multi:softprob, count:poisson, rank:pairwise, rank:ndcg, rank:map, "
                          "reg:pseudohubererror, reg:gamma, reg:tweedie, reg:squaredlogerror, "
                          "binary:hinge, reg:absoluteerror, reg:quantileerror, survival:cox, "
                          "survival:aft");
}

}  // namespace ringboost
