// Exclusive feature bundling (LightGBM's EFB, Ke et al., NeurIPS 2017) for wide sparse data:
// features that are rarely or never present in the same row share one column of the binned
// matrix (binned_matrix.h, its bundled layout), each member's bins at an offset inside the
// column, bin 0 meaning "no member present". The histograms stay those of the original features
// (the builder maps the bundle's cells back), so split evaluation, the model and its dumps do not
// change; a member's missing bin is, as always, the node's total less its present bins.
//
// The decision is the same on every worker and for any thread count: it reads only
//  * each feature's count of present values, allreduced (exact integers);
//  * a sample of rows chosen by their global row id (every k-th global row, k fixed by the global
//    row count), whose feature sets are gathered in rank order: the rows of one process, in the
//    same order, whatever the number of workers;
// and then runs the same greedy algorithm everywhere (LightGBM's: features by falling count, each
// into the first bundle it conflicts with in at most the allowed number of sampled rows).
// With max_conflict_rate = 0 the bundles are then checked on all rows: a feature present in a row
// together with a member of lower id of its bundle leaves the bundle (one allreduce of per-feature
// counts), so the bundles hold no conflict at all and the trees are exactly those of unbundled
// training. With a positive rate, a row whose bundle holds several present members keeps the
// lowest feature id's value; the others are read as missing in training.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/data.h"
#include "tree/bins/quantile.h"

namespace ringboost {
namespace rabit {
class Communicator;
}

struct FeatureBundles {
  // Per bundle, its features in bundle order (ascending ids). Every feature with a value in
  // some worker's rows is in exactly one bundle (maybe alone); features without values in none.
  std::vector<std::vector<uint32_t>> members;
  uint32_t NumBundled() const;  // features in bundles of two or more
  bool Empty() const { return members.empty(); }
};

struct BundleOptions {
  std::string mode = "auto";       // auto | true | false (enable_bundle)
  double max_conflict_rate = 0.0;  // conflicts allowed in a bundle, as a share of sampled rows
};

struct BundlePolicy {
  static constexpr uint64_t kSampleRows = 100000;  // rows of the sample the greedy reads
  static constexpr uint32_t kMaxSearch = 100;      // bundles tried per feature (LightGBM's)
  static constexpr uint32_t kMaxBundleBins = 256;  // a bundle of several members fits a byte
  // auto: bundled columns are worth it when a row has at most this many columns per stored value
  // (the dense build reads every column of a row, the sparse one every stored value).
  static constexpr double kMaxColumnsPerEntry = 2.0;
};

// The bundles for `data` (this worker's rows) under `cuts`, or none (Empty()) when bundling is
// off, the data is dense in every row, no two features share a bundle, or (auto) the bundles
// leave more than kMaxColumnsPerEntry columns per stored value. Collective: every worker calls it.
FeatureBundles DecideBundles(const DataSet& data, const HistogramCuts& cuts,
                             const BundleOptions& options, rabit::Communicator* comm, int nthread);

// The greedy step alone, on an agreed sample: rows[i] lists the features present in sampled row
// i (ascending), counts[f] is the feature's count over all rows; features with count 0 are left
// out. Exposed for tests.
FeatureBundles GreedyBundles(const std::vector<std::vector<uint32_t>>& rows,
                             const std::vector<uint64_t>& counts, const HistogramCuts& cuts,
                             double max_conflict_rate);

}  // namespace ringboost
