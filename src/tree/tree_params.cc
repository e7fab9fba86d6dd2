// The one place the tree module reads the run's config.
#include "tree/tree_params.h"

#include "common/logging.h"
#include "common/params.h"

namespace ringboost {

TreeParams TreeParams::From(const Params& p, float max_delta_step) {
  TreeParams t;
  t.split.eta = static_cast<float>(p.eta);
  t.split.gamma = static_cast<float>(p.gamma);
  t.split.min_child_weight = static_cast<float>(p.min_child_weight);
  t.split.max_delta_step = max_delta_step;
  t.split.lambda = static_cast<float>(p.lambda);
  t.split.alpha = static_cast<float>(p.alpha);
  t.split.max_cat_to_onehot = p.max_cat_to_onehot;
  t.split.max_cat_threshold = p.max_cat_threshold;
  t.max_depth = p.max_depth;
  t.max_leaves = p.max_leaves;
  t.grow_policy = p.grow_policy == "lossguide" ? GrowPolicy::kLossguide : GrowPolicy::kDepthwise;
  t.subsample = p.subsample;
  t.colsample_bytree = p.colsample_bytree;
  t.colsample_bylevel = p.colsample_bylevel;
  t.colsample_bynode = p.colsample_bynode;
  t.seed = p.seed;
  t.sync_phases = p.verbosity >= static_cast<int>(LogLevel::kDebug);
  t.quantized_grad = p.quantized_grad == "on"     ? QuantizedGrad::kOn
                     : p.quantized_grad == "auto" ? QuantizedGrad::kAuto
                                                  : QuantizedGrad::kOff;
  t.hist_sync = p.hist_sync == "allreduce"        ? HistSync::kAllreduce
                : p.hist_sync == "reduce_scatter" ? HistSync::kReduceScatter
                                                  : HistSync::kAuto;
  return t;
}

}  // namespace ringboost
