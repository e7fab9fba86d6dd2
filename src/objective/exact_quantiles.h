// Quantiles of values spread over workers, agreed exactly: every worker gets what one process
// holding every row computes, whatever the split of rows over workers and threads.
// reg:quantileerror starts from these quantiles of the labels (its base_score, as XGBoost 3.x's
// does on one process).
//
// Why not XGBoost's way: its workers each take their own quantile and average them, so the model
// depends on how rows are spread. Here, as for the cuts (DESIGN.md step 2), every order statistic
// is bisected over the 32-bit order-preserving keys of the floats: one allreduce of counts (or
// fixed-point weights) at or below each candidate key per round, 32 rounds for all quantiles at
// once, whatever the number of rows or workers.
#pragma once

#include <cstdint>
#include <vector>

#include "rabit/communicator.h"

namespace ringboost {

// values: this worker's rows' values; weights: one per row, or empty (each row weighs 1; the data
// is weighted when some worker gives weights). Returns per alpha of
// `alphas` the alpha-quantile of the values over every worker, NaN when no worker has a row:
//  * without weights, XGBoost's common::Quantile: the minimum for alpha <= 1 / (n + 1), the
//    maximum for alpha >= n / (n + 1), else v[k] + d (v[k+1] - v[k]) with x = alpha (n + 1),
//    k = floor(x) - 1, d = x - 1 - k (v sorted, 0-based);
//  * with weights, common::WeightedQuantile: the smallest v whose weight at or below it reaches
//    alpha times the total. Weights are summed in fixed point (2^-24 units), exactly.
// Every worker must call it with the same alphas (a collective).
std::vector<float> ExactQuantiles(const std::vector<float>& values,
                                  const std::vector<float>& weights,
                                  const std::vector<double>& alphas, rabit::Communicator* comm);

// The 32-bit key of a float that orders as the float does (-0 before +0), and back.
uint32_t OrderedKey(float v);
float FromOrderedKey(uint32_t key);

}  // namespace ringboost
