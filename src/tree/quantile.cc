// Exact weighted quantile cuts (quantile.h states the rule).
//
// One worker: the entries are regrouped by feature (a counting sort on the feature id, threads
// over row blocks), each feature's values are sorted (threads over features, largest first), and
// one pass over a sorted column finds its distinct values, their weights and the cuts. Values are
// handled as order-preserving uint32 keys (sort_util.h). Unweighted data sorts bare keys; weighted
// data sorts (key << 32 | row) and reads the row's fixed-point weight during the pass.
#include "tree/quantile.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <utility>

#include "common/error.h"
#include "tree/sort_util.h"

namespace ringboost {
namespace {

using detail::FloatToKey;
using detail::KeyToFloat;

int NumThreads(int nthread) { return nthread > 0 ? nthread : omp_get_max_threads(); }

// XGBoost's bound above the largest value u: u + (|u| + 1e-5), in float.
float LastCut(float u) { return u + (std::fabs(u) + 1e-5f); }
// XGBoost's min_value below the smallest value u: u - |u| - 1e-5, in float.
float MinValue(float u) { return u - std::fabs(u) - 1e-5f; }
// A feature with no value: XGBoost's empty-column convention (min 1e-5, one bin above it).
constexpr float kEmptyMinValue = 1e-5f;

// The entries of features [0, num_features) grouped by feature: feature f owns
// elems[ptr[f], ptr[f+1]), in no particular order until sorted.
template <typename Elem>
struct Columns {
  std::vector<uint64_t> ptr;
  std::unique_ptr<Elem[]> elems;  // uninitialised storage: every slot is written once
};

// Counting sort of the entries by feature id. make(key, row) builds an element.
template <typename Elem, typename MakeElem>
Columns<Elem> GroupByFeature(const DataSet& data, uint32_t num_features, int nthread,
                             MakeElem make) {
  const uint64_t rows = data.NumRows();
  const std::size_t nf = num_features;
  Columns<Elem> cols;
  cols.ptr.assign(nf + 1, 0);
  std::vector<uint64_t> cursor(static_cast<std::size_t>(nthread) * nf, 0);
#pragma omp parallel num_threads(nthread)
  {
    const int nt = omp_get_num_threads();
    const int t = omp_get_thread_num();
    const uint64_t row_begin = rows * t / nt, row_end = rows * (t + 1) / nt;
    const uint64_t k_begin = data.row_ptr[row_begin], k_end = data.row_ptr[row_end];
    uint64_t* mine = cursor.data() + t * nf;
    for (uint64_t k = k_begin; k < k_end; ++k) {
      const uint32_t f = data.index[k];
      if (f < num_features) ++mine[f];
    }
#pragma omp barrier
#pragma omp single
    {
      uint64_t sum = 0;  // thread t's slots of feature f follow those of threads < t
      for (std::size_t f = 0; f < nf; ++f) {
        cols.ptr[f] = sum;
        for (int u = 0; u < nt; ++u) {
          const uint64_t count = cursor[u * nf + f];
          cursor[u * nf + f] = sum;
          sum += count;
        }
      }
      cols.ptr[nf] = sum;
      cols.elems.reset(new Elem[sum]);
    }
    Elem* out = cols.elems.get();
    for (uint64_t row = row_begin; row < row_end; ++row) {
      for (uint64_t k = data.row_ptr[row]; k < data.row_ptr[row + 1]; ++k) {
        const uint32_t f = data.index[k];
        if (f < num_features) out[mine[f]++] = make(FloatToKey(data.value[k]), row);
      }
    }
  }
  return cols;
}

// Per-feature facts after sorting: number of distinct values and total integer weight.
struct ColumnStats {
  std::vector<uint64_t> distinct;
  std::vector<uint64_t> weight;
};

// Sorts every column (largest first, dynamic over threads) and counts its distinct values and
// total weight. Traits: kShift (where the key sits in Elem), Key(elem) and Weight(elem).
template <typename Elem, typename Traits>
ColumnStats SortColumns(Columns<Elem>* cols, uint32_t num_features, int nthread,
                        const Traits& traits) {
  std::vector<uint32_t> order(num_features);
  std::iota(order.begin(), order.end(), 0u);
  const auto size = [&](uint32_t f) { return cols->ptr[f + 1] - cols->ptr[f]; };
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return size(a) > size(b); });
  ColumnStats stats{std::vector<uint64_t>(num_features, 0), std::vector<uint64_t>(num_features, 0)};
#pragma omp parallel num_threads(nthread)
  {
    std::vector<Elem> tmp;
#pragma omp for schedule(dynamic, 1)
    for (int64_t i = 0; i < static_cast<int64_t>(num_features); ++i) {
      const uint32_t f = order[i];
      Elem* col = cols->elems.get() + cols->ptr[f];
      const uint64_t n = size(f);
      detail::RadixSortByKey<Traits::kShift>(col, n, &tmp);
      uint64_t distinct = 0, weight = 0;
      for (uint64_t k = 0; k < n; ++k) {
        distinct += (k == 0 || traits.Key(col[k]) != traits.Key(col[k - 1]));
        weight += traits.Weight(col[k]);
      }
      stats.distinct[f] = distinct;
      stats.weight[f] = weight;
    }
  }
  return stats;
}

// One entry of a weighted quantile summary: the weight ranked below the value (rmin), up to and
// including it (rmax), the value's own weight (wmin), in float as XGBoost's WQSummary.
struct SummaryEntry {
  float rmin, rmax, wmin;
  float value;
};
using Summary = std::vector<SummaryEntry>;

// XGBoost's WQSummary::SetPrune: keeps the first and last entries and, for k = 1 .. maxsize-2,
// the entry nearest to rank k * range / (maxsize - 1), computed in float with XGBoost's steps.
Summary Prune(const Summary& src, std::size_t maxsize) {
  if (src.size() <= maxsize) return src;
  const float begin = src[0].rmax;
  const float range = src.back().rmin - src[0].rmax;
  const std::size_t n = maxsize - 1;
  Summary out{src[0]};
  std::size_t i = 1, last = 0;
  for (std::size_t k = 1; k < n; ++k) {
    const float dx2 = 2 * ((static_cast<float>(k) * range) / static_cast<float>(n) + begin);
    while (i < src.size() - 1 && dx2 >= src[i + 1].rmax + src[i + 1].rmin) ++i;
    if (i == src.size() - 1) break;
    const std::size_t pick =
        dx2 < (src[i].rmin + src[i].wmin) + (src[i + 1].rmax - src[i + 1].wmin) ? i : i + 1;
    if (pick != last) {
      out.push_back(src[pick]);
      last = pick;
    }
  }
  if (last != src.size() - 1) out.push_back(src.back());
  return out;
}

// Cuts of one sorted column of n > 0 elements (quantile.h's rule).
template <typename Elem, typename Traits>
std::vector<float> ColumnCuts(const Elem* col, uint64_t n, uint64_t distinct, uint64_t total,
                              int max_bin, const Traits& traits) {
  std::vector<float> cuts;
  if (distinct <= static_cast<uint64_t>(max_bin)) {
    for (uint64_t k = 1; k < n; ++k) {
      const uint32_t key = traits.Key(col[k]);
      if (key != traits.Key(col[k - 1])) cuts.push_back(KeyToFloat(key));
    }
  } else {
    // The exact summary of the column (one entry per distinct value), pruned as XGBoost prunes
    // its sketch: first to min(n, 8 * max_bin) entries, then to max_bin + 1.
    Summary summary;
    float wsum = 0.0f;
    for (uint64_t k = 0; k < n;) {
      const uint32_t key = traits.Key(col[k]);
      uint64_t w = 0;
      for (; k < n && traits.Key(col[k]) == key; ++k) w += traits.Weight(col[k]);
      const float wf = static_cast<float>(static_cast<double>(w) / kWeightScale);
      summary.push_back(SummaryEntry{wsum, wsum + wf, wf, KeyToFloat(key)});
      wsum += wf;
    }
    const std::size_t intermediate = std::min<uint64_t>(n, uint64_t{8} * max_bin);
    const std::size_t max_num_bins = std::min<std::size_t>(intermediate, max_bin);
    summary = Prune(Prune(summary, intermediate), max_num_bins + 1);
    const std::size_t required = std::min(summary.size(), max_num_bins);
    for (std::size_t i = 1; i < required; ++i) {
      if (cuts.empty() || summary[i].value > cuts.back()) cuts.push_back(summary[i].value);
    }
    cuts.push_back(LastCut(summary.back().value));
    return cuts;
  }
  cuts.push_back(LastCut(KeyToFloat(traits.Key(col[n - 1]))));
  return cuts;
}

// Unweighted columns: bare keys, every entry weighs one unit.
struct UnitTraits {
  static constexpr int kShift = 0;
  uint64_t unit;
  uint32_t Key(uint32_t e) const { return e; }
  uint64_t Weight(uint32_t) const { return unit; }
};

// Weighted columns: key in the high half, row in the low half.
struct RowWeightTraits {
  static constexpr int kShift = 32;
  const uint64_t* row_weight;
  uint32_t Key(uint64_t e) const { return static_cast<uint32_t>(e >> 32); }
  uint64_t Weight(uint64_t e) const { return row_weight[e & 0xffffffffu]; }
};

// The fixed-point weight of every row; a negative or non-finite weight is the user's mistake.
std::vector<uint64_t> FixedPointWeights(const DataSet& data, int nthread) {
  const int64_t rows = static_cast<int64_t>(data.NumRows());
  RB_CHECK_MSG(data.weight.size() == data.NumRows(),
               "weights: " << data.weight.size() << " for " << rows << " rows");
  std::vector<uint64_t> fixed(rows);
  int64_t bad = rows;  // the first bad row, or rows
#pragma omp parallel for num_threads(nthread) reduction(min : bad)
  for (int64_t i = 0; i < rows; ++i) {
    const float w = data.weight[i];
    if (!(w >= 0.0f) || !std::isfinite(w)) {
      bad = std::min(bad, i);
      continue;
    }
    fixed[i] = static_cast<uint64_t>(std::llround(static_cast<double>(w) * kWeightScale));
  }
  if (bad < rows) {
    RB_FAIL(data.name << ": instance weight " << data.weight[bad] << " of row " << bad + 1
                      << " is negative or not finite; weights must be finite and >= 0");
  }
  return fixed;
}

template <typename Elem, typename Traits, typename MakeElem>
HistogramCuts BuildCuts(const DataSet& data, uint32_t num_features, int max_bin,
                        rabit::Communicator* comm, int nthread, const Traits& traits,
                        MakeElem make) {
  Columns<Elem> cols = GroupByFeature<Elem>(data, num_features, nthread, make);
  ColumnStats stats = SortColumns(&cols, num_features, nthread, traits);
  // Totals agreed across workers (what the distributed bisection will start from).
  std::vector<uint64_t> global_weight = stats.weight;
  comm->Allreduce(Span<uint64_t>(global_weight), rabit::Op::kSum);
  if (comm->WorldSize() != 1) {
    RB_FAIL("quantile cuts over " << comm->WorldSize()
                                  << " workers are not implemented yet; run with one worker");
  }
  std::vector<std::vector<float>> per_feature(num_features);
  HistogramCuts cuts;
  cuts.min_values.assign(num_features, kEmptyMinValue);
#pragma omp parallel for num_threads(nthread) schedule(dynamic, 16)
  for (int64_t i = 0; i < static_cast<int64_t>(num_features); ++i) {
    const uint64_t n = cols.ptr[i + 1] - cols.ptr[i];
    if (n == 0) {
      per_feature[i] = {LastCut(kEmptyMinValue)};
      continue;
    }
    const Elem* col = cols.elems.get() + cols.ptr[i];
    cuts.min_values[i] = MinValue(KeyToFloat(traits.Key(col[0])));
    per_feature[i] = ColumnCuts(col, n, stats.distinct[i], global_weight[i], max_bin, traits);
  }
  cuts.ptr.assign(num_features + 1, 0);
  for (uint32_t f = 0; f < num_features; ++f) {
    cuts.ptr[f + 1] = cuts.ptr[f] + static_cast<uint32_t>(per_feature[f].size());
  }
  cuts.values.resize(cuts.ptr.back());
  for (uint32_t f = 0; f < num_features; ++f) {
    std::copy(per_feature[f].begin(), per_feature[f].end(), cuts.values.begin() + cuts.ptr[f]);
  }
  return cuts;
}

}  // namespace

uint32_t HistogramCuts::SearchBin(uint32_t f, float v) const {
  const float* begin = values.data() + ptr[f];
  const float* end = values.data() + ptr[f + 1];
  const float* it = std::upper_bound(begin, end, v);
  if (it == end) --it;  // at or above the last cut: only for values unseen when cutting
  return static_cast<uint32_t>(it - values.data());
}

HistogramCuts ComputeCuts(const DataSet& data, uint32_t num_features, int max_bin,
                          rabit::Communicator* comm, int nthread) {
  if (max_bin < 1) RB_FAIL("max_bin=" << max_bin << " is invalid; it must be at least 1");
  RB_CHECK(comm != nullptr);
  const int threads = NumThreads(nthread);
  if (data.weight.empty()) {
    const UnitTraits traits{static_cast<uint64_t>(std::llround(kWeightScale))};
    return BuildCuts<uint32_t>(data, num_features, max_bin, comm, threads, traits,
                               [](uint32_t key, uint64_t) { return key; });
  }
  RB_CHECK_MSG(data.NumRows() <= 0xffffffffull,
               "weighted cuts index rows in 32 bits; " << data.NumRows() << " rows");
  const std::vector<uint64_t> row_weight = FixedPointWeights(data, threads);
  const RowWeightTraits traits{row_weight.data()};
  return BuildCuts<uint64_t>(
      data, num_features, max_bin, comm, threads, traits,
      [](uint32_t key, uint64_t row) { return (static_cast<uint64_t>(key) << 32) | row; });
}

}  // namespace ringboost
