// The cut rule of quantile.h in pieces, shared by the one-worker path (quantile.cc, which sees
// whole columns) and the agreement across workers (quantile_agree.cc, which sees only rank
// queries answered by allreduce). Internal to src/tree.
//
// A column is a multiset of (value, fixed-point weight). Its exact summary has one entry per
// distinct value u: rmin = F(weight below u), rmax = F(weight up to and including u),
// wmin = F(weight of u), with F(x) = float(x / kWeightScale) of the exact integer sum, so an entry
// depends only on the column, not on the order its weights were added in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rabit/communicator.h"

namespace ringboost::detail {

struct SummaryEntry {
  float rmin, rmax, wmin;
  float value;
};
using Summary = std::vector<SummaryEntry>;

// The exact-summary entry of value `key` (sort_util.h's key) with fixed-point weight `below`
// below it and `weight` of its own.
SummaryEntry MakeEntry(uint32_t key, uint64_t below, uint64_t weight);

// XGBoost's WQSummary::SetPrune target of step k: dx2 = 2 * (k * range / n + begin), in float.
float PruneTarget(std::size_t k, float begin, float range, std::size_t n);

// XGBoost's WQSummary::SetPrune (quantile.h): keeps the first and last entries and, for k = 1 ..
// maxsize - 2, the entry nearest to rank k * range / (maxsize - 1).
Summary Prune(const Summary& src, std::size_t maxsize);

// Entries the first prune keeps: min(count, 8 * max_bin), count = entries of the column.
std::size_t FirstPruneSize(uint64_t count, int max_bin);

// The cuts of a column with more than max_bin distinct values and `count` entries, from the
// first prune's result: the second prune to max_bin + 1 entries, then the kept values.
std::vector<float> CutsAfterFirstPrune(const Summary& first, uint64_t count, int max_bin);

// XGBoost's bound above the largest value u: u + (|u| + 1e-5), in float.
float LastCut(float u);
// XGBoost's min_value below the smallest value u: u - |u| - 1e-5, in float.
float MinValue(float u);
// A feature with no value: XGBoost's empty-column convention (min 1e-5, one bin above it).
constexpr float kEmptyMinValue = 1e-5f;

// One worker's share of a column: its distinct values of positive weight (ascending keys) and,
// for each, the fixed-point weight of the share's entries below it; below has keys.size() + 1
// entries, the last the share's total.
struct LocalColumn {
  std::vector<uint32_t> keys;
  std::vector<uint64_t> below;
  uint64_t Weight(std::size_t j) const { return below[j + 1] - below[j]; }
};

// The cuts of a whole column (all its distinct values) of `count` > 0 entries.
std::vector<float> ExactCuts(const LocalColumn& column, uint64_t count, int max_bin);

// The cuts (into (*per_feature)[f]) and min_values[f] of every feature f of `features`, agreed by
// all workers of `comm` and equal to what one worker holding every share would compute.
// columns[i] is this worker's share of features[i]; count[f] is feature f's entry count summed
// over the workers (> 0). Every worker passes the same features in the same order.
void AgreeOnCuts(const std::vector<uint32_t>& features, const std::vector<LocalColumn>& columns,
                 const std::vector<uint64_t>& count, int max_bin, rabit::Communicator* comm,
                 int nthread, std::vector<std::vector<float>>* per_feature,
                 std::vector<float>* min_values);

}  // namespace ringboost::detail
