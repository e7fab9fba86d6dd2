// Exact weighted quantile cuts (quantile.h states the rule).
//
// A counting pass over the CSR (threads over row blocks) gives every feature's entry count. The
// features are then cut in batches of consecutive ids whose entries fit a
// memory budget (kMinBatchBytes or 1/kBatchCsrFraction of the CSR, whichever is larger), so the
// feature-major copy never costs more than a fraction of the data: per batch, one pass over the
// CSR gathers the batch's entries grouped by feature (row blocks again), each column is sorted
// (threads over features, largest first; in a batch of fewer columns than threads, each column by
// all of them in turn) and one pass over a sorted column finds its distinct
// values, their weights and, alone, the cuts (read forward from the sorted column itself,
// SortedColumnSummary, with no copy of its distinct values: that copy was the cuts' peak memory);
// with other workers, this worker's share of the column goes to AgreeOnCuts (quantile_agree.cc),
// batch by batch. Values are handled as order-preserving uint32 keys (sort_util.h). Unweighted data
// sorts bare keys; weighted data sorts (key << 32 | row), reads the row's fixed-point weight
// during the pass and drops the entries of weight 0 from the sorted column first (quantile.h).
// The cuts of a feature depend only on its sorted column, so the batching does not change them.
#include "tree/bins/quantile.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>
#include <type_traits>
#include <utility>

#include "common/error.h"
#include "common/parallel.h"
#include "common/sort_util.h"
#include "tree/bins/quantile_rule.h"

namespace ringboost {
namespace detail {

SummaryEntry MakeEntry(uint32_t key, uint64_t below, uint64_t weight) {
  auto to_float = [](uint64_t fixed) {
    return static_cast<float>(static_cast<double>(fixed) / kWeightScale);
  };
  return SummaryEntry{to_float(below), to_float(below + weight), to_float(weight), KeyToFloat(key)};
}

float PruneTarget(std::size_t k, float begin, float range, std::size_t n) {
  return 2 * ((static_cast<float>(k) * range) / static_cast<float>(n) + begin);
}

namespace {

// The exact summary of a LocalColumn, one entry per distinct value made when read (ExactCuts
// prunes it without holding all of it: 16 bytes per distinct value less at the peak of the cuts).
struct ColumnSummary {
  const LocalColumn& column;
  std::size_t size() const { return column.keys.size(); }
  SummaryEntry operator[](std::size_t j) const {
    return MakeEntry(column.keys[j], column.below[j], column.Weight(j));
  }
  SummaryEntry back() const { return (*this)[size() - 1]; }
};

// Prune over any random-access summary: a Summary or a ColumnSummary.
template <typename Src>
Summary PruneOf(const Src& src, std::size_t maxsize) {
  const float begin = src[0].rmax;
  const float range = src.back().rmin - src[0].rmax;
  const std::size_t n = maxsize - 1;
  Summary out{src[0]};
  const std::size_t last_index = src.size() - 1;
  std::size_t i = 1, last = 0;
  for (std::size_t k = 1; k < n; ++k) {
    const float dx2 = PruneTarget(k, begin, range, n);
    while (i < last_index) {
      const SummaryEntry next = src[i + 1];
      if (!(dx2 >= next.rmax + next.rmin)) break;
      ++i;
    }
    if (i == last_index) break;
    const SummaryEntry at = src[i], next = src[i + 1];
    const std::size_t pick = dx2 < (at.rmin + at.wmin) + (next.rmax - next.wmin) ? i : i + 1;
    if (pick != last) {
      out.push_back(src[pick]);
      last = pick;
    }
  }
  if (last != src.size() - 1) out.push_back(src.back());
  return out;
}

// The cuts of a column of `count` entries from its exact summary (more than max_bin entries).
template <typename Src>
std::vector<float> CutsOfSummary(const Src& summary, uint64_t count, int max_bin) {
  const std::size_t first_size = FirstPruneSize(count, max_bin);
  Summary first;
  if (summary.size() <= first_size) {
    first.resize(summary.size());
    for (std::size_t j = 0; j < summary.size(); ++j) first[j] = summary[j];
  } else {
    first = PruneOf(summary, first_size);
  }
  return CutsAfterFirstPrune(first, count, max_bin);
}

}  // namespace

Summary Prune(const Summary& src, std::size_t maxsize) {
  if (src.size() <= maxsize) return src;
  return PruneOf(src, maxsize);
}

std::size_t FirstPruneSize(uint64_t count, int max_bin) {
  return static_cast<std::size_t>(std::min<uint64_t>(count, uint64_t{8} * max_bin));
}

std::vector<float> CutsAfterFirstPrune(const Summary& first, uint64_t count, int max_bin) {
  const std::size_t max_num_bins = std::min<std::size_t>(FirstPruneSize(count, max_bin), max_bin);
  const Summary summary = Prune(first, max_num_bins + 1);
  const std::size_t required = std::min(summary.size(), max_num_bins);
  std::vector<float> cuts;
  for (std::size_t i = 1; i < required; ++i) {
    if (cuts.empty() || summary[i].value > cuts.back()) cuts.push_back(summary[i].value);
  }
  cuts.push_back(LastCut(summary.back().value));
  return cuts;
}

std::vector<float> ExactCuts(const LocalColumn& column, uint64_t count, int max_bin) {
  const std::vector<uint32_t>& keys = column.keys;
  if (keys.size() <= static_cast<std::size_t>(max_bin)) {  // one bin per distinct value
    std::vector<float> cuts;
    for (std::size_t k = 1; k < keys.size(); ++k) cuts.push_back(KeyToFloat(keys[k]));
    cuts.push_back(LastCut(KeyToFloat(keys.back())));
    return cuts;
  }
  return CutsOfSummary(ColumnSummary{column}, count, max_bin);  // one entry per distinct value
}

float LastCut(float u) { return u + (std::fabs(u) + 1e-5f); }
float MinValue(float u) { return u - std::fabs(u) - 1e-5f; }

}  // namespace detail

namespace {

using namespace detail;  // NOLINT: the rule's pieces (quantile_rule.h) and sort_util.h's keys

int NumThreads(int nthread) { return nthread > 0 ? nthread : omp_get_max_threads(); }

// The distinct values of one sorted column of n > 0 elements with their weights: the whole
// column's (ExactCuts) or this worker's share of it (AgreeOnCuts).
template <typename Elem, typename Traits>
LocalColumn ColumnShare(const Elem* col, uint64_t n, uint64_t distinct, const Traits& traits) {
  LocalColumn share;
  share.keys.reserve(distinct);
  share.below.reserve(distinct + 1);
  uint64_t below = 0;
  for (uint64_t k = 0; k < n;) {
    const uint32_t key = traits.Key(col[k]);
    share.keys.push_back(key);
    share.below.push_back(below);
    for (; k < n && traits.Key(col[k]) == key; ++k) below += traits.Weight(col[k]);
  }
  share.below.push_back(below);
  return share;
}

// The exact summary of a sorted column (n > 0 elements, `distinct` values), read forward: entry 0,
// the last entry and a window of two consecutive entries that only moves forward, which is how
// PruneOf reads (i and i + 1, i never decreasing). The one-worker cuts read it instead of a
// LocalColumn: no per-distinct-value copy of the column (12 bytes a value) per sorting thread.
template <typename Elem, typename Traits>
class SortedColumnSummary {
 public:
  SortedColumnSummary(const Elem* col, uint64_t n, uint64_t distinct, const Traits& traits)
      : col_(col), n_(n), distinct_(distinct), traits_(traits) {
    front_ = window_[0] = Next();
    window_[1] = distinct_ > 1 ? Next() : front_;
    uint64_t k = n - 1, total = 0, last = 0;
    const uint32_t key = traits.Key(col[k]);
    if constexpr (Traits::kWeighted) {
      for (uint64_t i = 0; i < n; ++i) total += traits.Weight(col[i]);
    } else {
      total = n * traits.Weight(col[0]);
    }
    for (;; --k) {
      last += traits.Weight(col[k]);
      if (k == 0 || traits.Key(col[k - 1]) != key) break;
    }
    back_ = MakeEntry(key, total - last, last);
  }
  std::size_t size() const { return distinct_; }
  SummaryEntry back() const { return back_; }
  SummaryEntry operator[](std::size_t j) const {
    if (j == at_ + 1) return window_[1];  // the common cases first
    if (j == at_) return window_[0];
    if (j == 0) return front_;
    if (j + 1 == distinct_) return back_;
    RB_CHECK(j > at_);
    while (j > at_ + 1) {
      window_[0] = window_[1];
      window_[1] = Next();
      ++at_;
    }
    return window_[j - at_];
  }

 private:
  // The entry of the next distinct value from pos_.
  SummaryEntry Next() const {
    const Elem* const col = col_;
    const Traits traits = traits_;
    const uint32_t key = traits.Key(col[pos_]);
    uint64_t pos = pos_, weight = 0;
    for (; pos < n_ && traits.Key(col[pos]) == key; ++pos) weight += traits.Weight(col[pos]);
    pos_ = pos;
    const SummaryEntry e = MakeEntry(key, below_, weight);
    below_ += weight;
    return e;
  }

  const Elem* col_;
  uint64_t n_, distinct_;
  Traits traits_;
  SummaryEntry front_, back_;
  mutable SummaryEntry window_[2];  // entries at_ and at_ + 1
  mutable std::size_t at_ = 0;
  mutable uint64_t pos_ = 0, below_ = 0;  // where Next reads, and the weight before it
};

// The cuts of a whole sorted column (n > 0 elements, `distinct` values): ExactCuts' result.
template <typename Elem, typename Traits>
std::vector<float> SortedColumnCuts(const Elem* col, uint64_t n, uint64_t distinct,
                                    const Traits& traits, int max_bin) {
  if (distinct > static_cast<uint64_t>(max_bin)) {
    return CutsOfSummary(SortedColumnSummary<Elem, Traits>(col, n, distinct, traits), n, max_bin);
  }
  std::vector<float> cuts;  // one bin per distinct value
  for (uint64_t k = 1; k < n; ++k) {
    if (traits.Key(col[k]) != traits.Key(col[k - 1]))
      cuts.push_back(KeyToFloat(traits.Key(col[k])));
  }
  cuts.push_back(LastCut(KeyToFloat(traits.Key(col[n - 1]))));
  return cuts;
}

// Unweighted columns: bare keys, every entry weighs one unit.
struct UnitTraits {
  using Elem = uint32_t;
  static constexpr int kShift = 0;
  static constexpr bool kWeighted = false;
  uint64_t unit;
  static Elem Make(uint32_t key, uint64_t /*row*/) { return key; }
  uint32_t Key(Elem e) const { return e; }
  uint64_t Weight(Elem) const { return unit; }
};

// Weighted columns: key in the high half, row in the low half.
struct RowWeightTraits {
  using Elem = uint64_t;
  static constexpr int kShift = 32;
  static constexpr bool kWeighted = true;
  const uint64_t* row_weight;
  static Elem Make(uint32_t key, uint64_t row) { return (static_cast<uint64_t>(key) << 32) | row; }
  uint32_t Key(Elem e) const { return static_cast<uint32_t>(e >> 32); }
  uint64_t Weight(Elem e) const { return row_weight[e & 0xffffffffu]; }
};

// The fixed-point weight of every row; a negative or non-finite weight is the user's mistake. A
// positive weight is at least one unit, so that the rows of weight 0, and only those, leave
// the columns (SortBatch) as XGBoost's sketch drops them.
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
    fixed[i] =
        w > 0.0f ? std::max<uint64_t>(1, std::llround(static_cast<double>(w) * kWeightScale)) : 0;
  }
  if (bad < rows) {
    RB_FAIL(data.name << ": instance weight " << data.weight[bad] << " of row " << bad + 1
                      << " is negative or not finite; weights must be finite and >= 0");
  }
  return fixed;
}

// Memory bound of the feature-major copy (with its sort scratch): the larger of this and 1 /
// kBatchCsrFraction of the CSR entries' bytes. Features are regrouped a batch at a time within it.
constexpr uint64_t kMinBatchBytes = uint64_t{32} << 20;
constexpr uint64_t kBatchCsrFraction = 8;  // 1/8 of the CSR's index and value arrays

// One counting pass over the CSR, per block of rows (the gather of each batch reuses the blocks).
struct FeatureCounts {
  std::vector<uint64_t> row_begin;  // num_blocks + 1 row boundaries
  // cursor[b * nf + f]: the first slot (in feature-major order over all features) of block b's
  // entries of feature f; the gather advances it.
  std::vector<uint64_t> cursor;
  std::vector<uint64_t> ptr;  // nf + 1: feature f owns slots [ptr[f], ptr[f+1])
  bool rows_sorted = true;    // feature ids ascend within every row (data.h promises it)

  int NumBlocks() const { return static_cast<int>(row_begin.size()) - 1; }
  uint64_t Size(uint32_t f) const { return ptr[f + 1] - ptr[f]; }
};

// Turns the per-block counts into cursors (feature f's slots hold block 0's entries, then block
// 1's, ...) and fills ptr.
void SumBlocks(FeatureCounts* counts, int nblocks, std::size_t nf) {
  counts->ptr.assign(nf + 1, 0);
  uint64_t sum = 0;
  for (std::size_t f = 0; f < nf; ++f) {
    counts->ptr[f] = sum;
    for (int b = 0; b < nblocks; ++b) {
      const uint64_t count = counts->cursor[b * nf + f];
      counts->cursor[b * nf + f] = sum;
      sum += count;
    }
  }
  counts->ptr[nf] = sum;
}

// Counts each block's entries per feature; blocks are `nthread` equal row ranges. Ids >=
// num_features are ignored.
FeatureCounts CountByFeature(const DataSet& data, uint32_t num_features, int nthread) {
  const std::size_t nf = num_features;
  const uint64_t rows = data.NumRows();
  FeatureCounts counts;
  for (int b = 0; b <= nthread; ++b) counts.row_begin.push_back(rows * b / nthread);
  counts.cursor.assign(nthread * nf, 0);
  int unsorted = 0;
#pragma omp parallel for num_threads(nthread) schedule(static, 1) reduction(| : unsorted)
  for (int b = 0; b < nthread; ++b) {
    uint64_t* count = counts.cursor.data() + b * nf;
    for (uint64_t row = counts.row_begin[b]; row < counts.row_begin[b + 1]; ++row) {
      for (uint64_t k = data.row_ptr[row]; k < data.row_ptr[row + 1]; ++k) {
        const uint32_t f = data.index[k];
        unsorted |= k > data.row_ptr[row] && f < data.index[k - 1];
        if (f < num_features) ++count[f];
      }
    }
  }
  counts.rows_sorted = unsorted == 0;
  SumBlocks(&counts, nthread, nf);
  return counts;
}

// Splits the features into consecutive batches whose entries (`sizes`, per feature), plus the
// radix-sort scratch of the threads sorting them, fit `capacity` elements; a feature larger than
// that is a batch alone. Returns the batch boundaries (first feature of each batch, then
// num_features).
std::vector<uint32_t> PlanBatches(const std::vector<uint64_t>& sizes, uint64_t capacity,
                                  int nthread) {
  const uint32_t nf = static_cast<uint32_t>(sizes.size());
  std::vector<uint32_t> bounds{0};
  uint64_t sum = 0, largest = 0, members = 0;
  for (uint32_t f = 0; f < nf; ++f) {
    const uint64_t n = sizes[f];
    const uint64_t sorters = std::min<uint64_t>(nthread, members + 1);
    if (members > 0 && sum + n + sorters * std::max(largest, n) > capacity) {
      bounds.push_back(f);
      sum = largest = members = 0;
    }
    sum += n;
    largest = std::max(largest, n);
    members += n > 0;
  }
  bounds.push_back(nf);
  return bounds;
}

// Copies the entries of features [fb, fe) into out (slot ptr[f] - ptr[fb] onwards for feature f),
// one pass over the CSR by the row blocks of the counting pass. Rows with ascending ids skip to
// the batch's range by binary search.
template <typename Traits>
void GatherBatch(const DataSet& data, uint32_t fb, uint32_t fe, int nthread, FeatureCounts* counts,
                 typename Traits::Elem* out) {
  const std::size_t nf = counts->ptr.size() - 1;
  const uint64_t base = counts->ptr[fb];
  const uint32_t* index = data.index.data();
  const int nblocks = counts->NumBlocks();
#pragma omp parallel for num_threads(nthread) schedule(static, 1)
  for (int b = 0; b < nblocks; ++b) {
    uint64_t* cursor = counts->cursor.data() + b * nf;
    for (uint64_t row = counts->row_begin[b]; row < counts->row_begin[b + 1]; ++row) {
      uint64_t k = data.row_ptr[row];
      const uint64_t end = data.row_ptr[row + 1];
      if (counts->rows_sorted) {
        if (fb > 0) k = std::lower_bound(index + k, index + end, fb) - index;
        for (; k < end && index[k] < fe; ++k) {
          out[cursor[index[k]]++ - base] = Traits::Make(FloatToKey(data.value[k]), row);
        }
      } else {
        for (; k < end; ++k) {
          const uint32_t f = index[k];
          if (f < fb || f >= fe) continue;
          out[cursor[f]++ - base] = Traits::Make(FloatToKey(data.value[k]), row);
        }
      }
    }
  }
}

// Sorts each gathered column of batch [fb, fe) and, alone, computes its cuts into per_feature and
// its min_value, or, with other workers, keeps this worker's share of it in (*shares)[f - fb].
// Threads take the columns (largest first, dynamic), or, given `scratch` (as many elements as the
// largest column: BuildCuts passes it for a batch of fewer columns than threads, large columns,
// often one a batch), all the threads sort each column in turn (RadixSortByKeyOnThreads: the same
// order).
template <typename Traits>
void SortBatch(const FeatureCounts& counts, uint32_t fb, uint32_t fe, typename Traits::Elem* elems,
               typename Traits::Elem* scratch, int max_bin, int nthread, const Traits& traits,
               bool alone, std::vector<std::vector<float>>* per_feature,
               std::vector<float>* min_values, std::vector<LocalColumn>* shares) {
  using Elem = typename Traits::Elem;
  std::vector<uint32_t> order;
  for (uint32_t f = fb; f < fe; ++f) {
    if (counts.Size(f) > 0) order.push_back(f);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return counts.Size(a) > counts.Size(b); });
  shares->assign(alone ? 0 : fe - fb, LocalColumn{{}, {0}});
  const auto column = [&](uint32_t f) { return elems + (counts.ptr[f] - counts.ptr[fb]); };
  const bool on_threads = scratch != nullptr;
  if (on_threads) {
    for (uint32_t f : order) {
      detail::RadixSortByKeyOnThreads<Traits::kShift>(column(f), counts.Size(f), scratch, nthread);
    }
  }
  ParallelErrors errors;  // the sort's scratch and the cuts are allocated inside the region
#pragma omp parallel num_threads(nthread)
  {
    std::vector<Elem> tmp;
#pragma omp for schedule(dynamic, 1)
    for (int64_t i = 0; i < static_cast<int64_t>(order.size()); ++i) {
      errors.Run([&] {
        const uint32_t f = order[i];
        Elem* col = column(f);
        uint64_t n = counts.Size(f);
        if (!on_threads) detail::RadixSortByKey<Traits::kShift>(col, n, &tmp);
        if constexpr (Traits::kWeighted) {  // entries of weight 0 are no part of the column
          n = std::remove_if(col, col + n, [&](Elem e) { return traits.Weight(e) == 0; }) - col;
          if (n == 0) return;  // none weighs: an empty column (its cuts and share as they are)
        }
        uint64_t distinct = 0;
        for (uint64_t k = 0; k < n; ++k) {
          distinct += (k == 0 || traits.Key(col[k]) != traits.Key(col[k - 1]));
        }
        if (alone) {
          (*min_values)[f] = MinValue(KeyToFloat(traits.Key(col[0])));
          (*per_feature)[f] = SortedColumnCuts(col, n, distinct, traits, max_bin);
        } else {
          (*shares)[f - fb] = ColumnShare(col, n, distinct, traits);
        }
      });
    }
  }
  errors.Rethrow();
}

// Concatenates the per-feature cuts into cuts->ptr / cuts->values.
void Concatenate(const std::vector<std::vector<float>>& per_feature, HistogramCuts* cuts) {
  const std::size_t nf = per_feature.size();
  cuts->ptr.assign(nf + 1, 0);
  for (std::size_t f = 0; f < nf; ++f) {
    cuts->ptr[f + 1] = cuts->ptr[f] + static_cast<uint32_t>(per_feature[f].size());
  }
  cuts->values.resize(cuts->ptr.back());
  for (std::size_t f = 0; f < nf; ++f) {
    std::copy(per_feature[f].begin(), per_feature[f].end(), cuts->values.begin() + cuts->ptr[f]);
  }
}

template <typename Traits>
HistogramCuts BuildCuts(const DataSet& data, uint32_t num_features, int max_bin,
                        rabit::Communicator* comm, int nthread, const Traits& traits) {
  using Elem = typename Traits::Elem;
  FeatureCounts counts = CountByFeature(data, num_features, nthread);
  const bool alone = comm->WorldSize() == 1;
  // Every worker cuts the same batches, planned on the largest share of each feature.
  std::vector<uint64_t> count(num_features), largest(num_features);
  for (uint32_t f = 0; f < num_features; ++f) count[f] = largest[f] = counts.Size(f);
  if (!alone) {
    comm->Allreduce(Span<uint64_t>(count), rabit::Op::kSum);
    comm->Allreduce(Span<uint64_t>(largest), rabit::Op::kMax);
  }
  const uint64_t csr_bytes = data.NumNonZero() * (sizeof(uint32_t) + sizeof(float));
  const uint64_t capacity = std::max(kMinBatchBytes, csr_bytes / kBatchCsrFraction) / sizeof(Elem);
  const std::vector<uint32_t> bounds = PlanBatches(largest, capacity, nthread);
  uint64_t largest_batch = 0;
  for (std::size_t i = 0; i + 1 < bounds.size(); ++i) {
    largest_batch = std::max(largest_batch, counts.ptr[bounds[i + 1]] - counts.ptr[bounds[i]]);
  }
  std::unique_ptr<Elem[]> elems(new Elem[largest_batch]);  // every used slot is written first
  // SortBatch's scratch for batches of fewer columns than threads, as large as the largest of their
  // columns (within the plan's budget, which counts one for each thread sorting a column); let go
  // before a batch whose threads sort a column each with scratch of their own.
  std::unique_ptr<Elem[]> scratch;
  uint64_t scratch_size = 0;
  std::vector<std::vector<float>> per_feature(num_features, {LastCut(kEmptyMinValue)});
  HistogramCuts cuts;
  cuts.min_values.assign(num_features, kEmptyMinValue);
  std::vector<LocalColumn> shares;
  for (std::size_t i = 0; i + 1 < bounds.size(); ++i) {
    const uint32_t fb = bounds[i], fe = bounds[i + 1];
    GatherBatch<Traits>(data, fb, fe, nthread, &counts, elems.get());
    int columns = 0;
    uint64_t largest_column = 0;
    for (uint32_t f = fb; f < fe; ++f) {
      columns += counts.Size(f) > 0;
      largest_column = std::max(largest_column, counts.Size(f));
    }
    const bool on_threads = columns < nthread;
    if (!on_threads) {
      scratch.reset();
      scratch_size = 0;
    } else if (scratch_size < largest_column) {
      scratch.reset();  // before the larger one is allocated
      scratch.reset(new Elem[largest_column]);
      scratch_size = largest_column;
    }
    SortBatch(counts, fb, fe, elems.get(), on_threads ? scratch.get() : nullptr, max_bin, nthread,
              traits, alone, &per_feature, &cuts.min_values, &shares);
    if (alone) continue;
    std::vector<uint32_t> features;  // the batch's features present on some worker
    std::vector<LocalColumn> present;
    for (uint32_t f = fb; f < fe; ++f) {
      if (count[f] == 0) continue;
      features.push_back(f);
      present.push_back(std::move(shares[f - fb]));
    }
    AgreeOnCuts(features, present, count, max_bin, comm, nthread, &per_feature, &cuts.min_values);
  }
  Concatenate(per_feature, &cuts);
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
    return BuildCuts(data, num_features, max_bin, comm, threads, traits);
  }
  RB_CHECK_MSG(data.NumRows() <= 0xffffffffull,
               "weighted cuts index rows in 32 bits; " << data.NumRows() << " rows");
  const std::vector<uint64_t> row_weight = FixedPointWeights(data, threads);
  const RowWeightTraits traits{row_weight.data()};
  return BuildCuts(data, num_features, max_bin, comm, threads, traits);
}

}  // namespace ringboost
