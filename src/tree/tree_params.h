// The settings the tree module reads, typed for it: the split formulas' regularisation, the growth
// limits and the row and column sampling. The learner builds one from the run's Params (From,
// which holds the objective's own defaults, e.g. count:poisson's max_delta_step) and hands it to
// the round trainer; no tree header reads the whole config.
#pragma once

#include <cstdint>

#include "tree/split_math.h"

namespace ringboost {

struct Params;

enum class GrowPolicy { kDepthwise, kLossguide };
// quantized_grad: exact gradients, low-bit ones (gradient.h), or low-bit from a row count on.
enum class QuantizedGrad { kOff, kOn, kAuto };
// hist_sync: how the workers combine a level's histograms (tree/histogram_sync.h).
enum class HistSync { kAllreduce, kReduceScatter, kAuto };

struct TreeParams {
  SplitParams split;   // eta, gamma, min_child_weight, max_delta_step, lambda, alpha (float)
  int max_depth = 6;   // 0: no limit
  int max_leaves = 0;  // 0: no limit
  GrowPolicy grow_policy = GrowPolicy::kDepthwise;
  double subsample = 1.0;
  double colsample_bytree = 1.0;
  double colsample_bylevel = 1.0;
  double colsample_bynode = 1.0;
  uint64_t seed = 0;
  bool sync_phases = false;  // GPU: time each phase to its end (verbosity=3)
  QuantizedGrad quantized_grad = QuantizedGrad::kOff;
  HistSync hist_sync = HistSync::kAuto;

  // From the run's settings; `max_delta_step` is the objective's default unless the user set it.
  static TreeParams From(const Params& params, float max_delta_step);
};

}  // namespace ringboost
