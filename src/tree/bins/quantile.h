// Histogram cuts (DESIGN.md step 2): per feature, the bin boundaries every worker agrees on.
//
// Bin b of feature f covers [values[b-1], values[b]) (the first bin starts at -inf): a value v
// falls in the first bin whose cut is > v, and a split at bin b sends `v < values[b]` left.
//
// The cut rule is a pure function of the multiset of (value, weight) pairs of a feature, so it
// does not depend on how rows are spread over threads or workers. A pair of weight 0 is not part
// of it (XGBoost's sketch drops it on Push): the value of a row of instance weight 0 makes no cut
// and no min_value, and a feature whose every entry weighs 0 is cut as one with no value. With
// distinct present values u_0 < ... < u_{k-1} of positive weight:
//  * k <= max_bin: cuts are u_1, ..., u_{k-1}, then u_{k-1} + |u_{k-1}| + 1e-5 (XGBoost's rule,
//    one bin per distinct value);
//  * otherwise: the exact weighted summary of the column (per distinct value: weight below it,
//    up to it, its own weight, each an exact fixed-point sum of instance weights (kWeightScale)
//    rounded to float once) is pruned as XGBoost prunes its quantile sketch (WQSummary's
//    SetPrune, in float), first to min(n, 8 * max_bin) entries, then to max_bin + 1; the cuts are
//    the kept values from the second on (at most max_bin - 1 of them) and the same final cut.
//    On data small enough for XGBoost's sketch to be exact (a few thousand values per feature at
//    max_bin 256: its whole input fits the sketch's first buffer) and unweighted (XGBoost sums
//    weights in float, in row order) this gives XGBoost's cuts, hence its models; on larger data
//    ours stay exact where XGBoost's sketch approximates.
// min_values[f] = u_0 - (|u_0| + 1e-5) (used as the threshold of a split with no value left).
// A feature with no present value has one bin and no usable split.
#pragma once

#include <cstdint>
#include <vector>

#include "data/data.h"
#include "rabit/communicator.h"

namespace ringboost {

constexpr double kWeightScale = 1 << 20;  // fixed-point scale of instance weights in the sketch

struct HistogramCuts {
  std::vector<uint32_t> ptr{0};   // num_features + 1; feature f owns bins [ptr[f], ptr[f+1])
  std::vector<float> values;      // upper bound of each bin (global bin id -> cut value)
  std::vector<float> min_values;  // per feature
  // Categorical features (ApplyCategories): 1 per such feature, empty when there is none. Such a
  // feature has a bin per category code from 0 to the largest code seen in training, and the
  // bin's cut is the code + 1, so that the search below puts code c (and c plus a fraction, which
  // XGBoost truncates) in c's bin.
  std::vector<uint8_t> is_cat;

  bool IsCat(uint32_t f) const { return !is_cat.empty() && is_cat[f] != 0; }
  // The category code of global bin `bin` of a categorical feature.
  uint32_t Category(uint32_t bin) const { return static_cast<uint32_t>(values[bin]) - 1; }

  uint32_t NumFeatures() const { return static_cast<uint32_t>(ptr.size() - 1); }
  uint32_t TotalBins() const { return ptr.back(); }
  uint32_t FeatureBins(uint32_t f) const { return ptr[f + 1] - ptr[f]; }
  // Global bin id of value v of feature f.
  uint32_t SearchBin(uint32_t f, float v) const;
};

// Cuts over all rows of `data` for `num_features` features (callers pass the num_col agreed
// across workers). With several workers in `comm`, each holding some rows, every worker gets the
// cuts of all the rows without any worker seeing the others' data: small columns are gathered as
// (value, weight) lists, large ones answered by rank queries on allreduced counts
// (quantile_agree.cc).
HistogramCuts ComputeCuts(const DataSet& data, uint32_t num_features, int max_bin,
                          rabit::Communicator* comm, int nthread);

// Gives each feature with is_cat[f] set (num_features entries) a bin per category code from 0 to
// the largest code in `data` on any worker (XGBoost's categorical cuts), in place of its quantile
// cuts: the workers agree on the largest code by an allreduce (max), so no row moves. Throws
// Error for a negative code or one from 2^24 on (XGBoost refuses both), and for a code above
// 65535. A categorical feature without values stays quantitative.
void ApplyCategories(const DataSet& data, const std::vector<uint8_t>& is_cat,
                     rabit::Communicator* comm, HistogramCuts* cuts);

}  // namespace ringboost
