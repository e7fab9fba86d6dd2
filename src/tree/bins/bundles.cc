// Deciding the feature bundles (bundles.h states the contract).
#include "tree/bins/bundles.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <utility>

#include "common/error.h"
#include "common/logging.h"
#include "common/span.h"
#include "rabit/communicator.h"

namespace ringboost {
namespace {

int NumThreads(int nthread) { return nthread > 0 ? nthread : omp_get_max_threads(); }

// Element-wise sum of the threads' counts (integers: the order does not matter).
std::vector<uint64_t> SumOverThreads(std::vector<std::vector<uint64_t>>* per_thread) {
  std::vector<uint64_t>& sum = (*per_thread)[0];
  for (std::size_t t = 1; t < per_thread->size(); ++t) {
    for (std::size_t f = 0; f < sum.size(); ++f) sum[f] += (*per_thread)[t][f];
  }
  return std::move(sum);
}

// This worker's count of stored values per feature (features below nf); threads over entries.
std::vector<uint64_t> LocalCounts(const DataSet& data, uint32_t nf, int nthread) {
  std::vector<std::vector<uint64_t>> per_thread(nthread, std::vector<uint64_t>(nf, 0));
  const int64_t n = static_cast<int64_t>(data.index.size());
#pragma omp parallel num_threads(nthread)
  {
    std::vector<uint64_t>& counts = per_thread[omp_get_thread_num()];
#pragma omp for schedule(static)
    for (int64_t k = 0; k < n; ++k) {
      if (data.index[k] < nf) ++counts[data.index[k]];
    }
  }
  return SumOverThreads(&per_thread);
}

// The sampled rows of all workers, in global row order: every `stride`-th global row.
std::vector<std::vector<uint32_t>> GatherSample(const DataSet& data, uint32_t nf, uint64_t stride,
                                                rabit::Communicator* comm) {
  std::vector<uint32_t> mine;  // per sampled row: its count, then its features
  const uint64_t skip = (stride - data.first_row % stride) % stride;
  for (uint64_t i = skip; i < data.NumRows(); i += stride) {
    const std::size_t at = mine.size();
    mine.push_back(0);
    for (uint64_t k = data.row_ptr[i]; k < data.row_ptr[i + 1]; ++k) {
      if (data.index[k] < nf) mine.push_back(data.index[k]);
    }
    mine[at] = static_cast<uint32_t>(mine.size() - at - 1);
  }
  std::vector<char> all;
  ThrowIfError(comm->AllgathervRaw(mine.data(), mine.size() * sizeof(uint32_t), &all));
  std::vector<uint32_t> words(all.size() / sizeof(uint32_t));
  if (!words.empty()) std::memcpy(words.data(), all.data(), words.size() * sizeof(uint32_t));
  std::vector<std::vector<uint32_t>> rows;
  for (std::size_t at = 0; at < words.size(); at += words[at] + 1) {
    rows.emplace_back(words.begin() + at + 1, words.begin() + at + 1 + words[at]);
  }
  return rows;
}

// Per feature, how many of this worker's rows hold it together with a member of lower id of its
// bundle (bundle_of: -1 = in none).
std::vector<uint64_t> LocalConflicts(const DataSet& data, const std::vector<int32_t>& bundle_of,
                                     std::size_t num_bundles, int nthread) {
  const uint32_t nf = static_cast<uint32_t>(bundle_of.size());
  const int64_t rows = static_cast<int64_t>(data.NumRows());
  std::vector<std::vector<uint64_t>> per_thread(nthread, std::vector<uint64_t>(nf, 0));
#pragma omp parallel num_threads(nthread)
  {
    std::vector<uint64_t>& conflicts = per_thread[omp_get_thread_num()];
    std::vector<int64_t> seen(num_bundles, -1);  // the last row that held a member
#pragma omp for schedule(static)
    for (int64_t i = 0; i < rows; ++i) {
      for (uint64_t k = data.row_ptr[i]; k < data.row_ptr[i + 1]; ++k) {
        const uint32_t f = data.index[k];
        if (f >= nf || bundle_of[f] < 0) continue;
        if (seen[bundle_of[f]] == i) {
          ++conflicts[f];
        } else {
          seen[bundle_of[f]] = i;
        }
      }
    }
  }
  return SumOverThreads(&per_thread);
}

// Features with a conflict on some worker leave their bundles, each into one of its own.
void EvictConflicts(const DataSet& data, uint32_t nf, rabit::Communicator* comm, int nthread,
                    FeatureBundles* bundles) {
  std::vector<int32_t> bundle_of(nf, -1);
  for (std::size_t b = 0; b < bundles->members.size(); ++b) {
    for (uint32_t f : bundles->members[b]) bundle_of[f] = static_cast<int32_t>(b);
  }
  std::vector<uint64_t> conflicts =
      LocalConflicts(data, bundle_of, bundles->members.size(), nthread);
  comm->Allreduce(Span<uint64_t>(conflicts), rabit::Op::kSum);
  std::vector<std::vector<uint32_t>> evicted;
  for (auto& members : bundles->members) {
    auto keep = std::stable_partition(members.begin(), members.end(),
                                      [&](uint32_t f) { return conflicts[f] == 0; });
    for (auto it = keep; it != members.end(); ++it) evicted.push_back({*it});
    members.erase(keep, members.end());
  }
  std::sort(evicted.begin(), evicted.end());
  for (auto& e : evicted) bundles->members.push_back(std::move(e));
}

// A lower bound on the columns of any bundles: a column of several members holds at most
// kMaxBundleBins - 1 of their bins, and a feature of more bins is a column alone.
double MinColumns(const std::vector<uint64_t>& counts, const HistogramCuts& cuts) {
  const uint32_t most = BundlePolicy::kMaxBundleBins - 1;
  double columns = 0;
  for (uint32_t f = 0; f < cuts.NumFeatures(); ++f) {
    if (counts[f] > 0) columns += static_cast<double>(std::min(cuts.FeatureBins(f), most)) / most;
  }
  return std::ceil(columns);
}

}  // namespace

uint32_t FeatureBundles::NumBundled() const {
  uint32_t n = 0;
  for (const auto& m : members) n += m.size() >= 2 ? static_cast<uint32_t>(m.size()) : 0;
  return n;
}

FeatureBundles GreedyBundles(const std::vector<std::vector<uint32_t>>& rows,
                             const std::vector<uint64_t>& counts, const HistogramCuts& cuts,
                             double max_conflict_rate) {
  const uint32_t nf = cuts.NumFeatures();
  // Each feature's sampled rows, as a CSR.
  std::vector<uint64_t> ptr(nf + 1, 0);
  for (const auto& r : rows) {
    for (uint32_t f : r) ++ptr[f + 1];
  }
  std::partial_sum(ptr.begin(), ptr.end(), ptr.begin());
  std::vector<uint32_t> at(ptr.begin(), ptr.end() - 1), sampled(ptr.back());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (uint32_t f : rows[i]) sampled[at[f]++] = static_cast<uint32_t>(i);
  }
  std::vector<uint32_t> order;
  for (uint32_t f = 0; f < nf; ++f) {
    if (counts[f] > 0) order.push_back(f);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return counts[a] > counts[b]; });
  const uint64_t allowed = static_cast<uint64_t>(max_conflict_rate * rows.size());
  struct Bundle {
    std::vector<uint32_t> members;
    uint32_t bins = 1;  // bin 0: no member present
    uint64_t conflicts = 0;
    std::vector<uint64_t> used;  // bit per sampled row
  };
  std::vector<Bundle> bundles;
  std::vector<uint32_t> open;  // bundles that may take another member
  const std::size_t words = rows.size() / 64 + 1;
  for (uint32_t f : order) {
    const uint32_t nb = cuts.FeatureBins(f);
    const uint32_t* first = sampled.data() + ptr[f];
    const uint32_t* last = sampled.data() + ptr[f + 1];
    int64_t chosen = -1;
    uint32_t tried = 0;
    for (uint32_t b : open) {
      Bundle& c = bundles[b];
      if (c.bins + nb > BundlePolicy::kMaxBundleBins) continue;
      if (++tried > BundlePolicy::kMaxSearch) break;
      uint64_t hits = 0;
      for (const uint32_t* r = first; r < last && c.conflicts + hits <= allowed; ++r) {
        hits += (c.used[*r / 64] >> (*r % 64)) & 1;
      }
      if (c.conflicts + hits <= allowed) {
        chosen = b;
        c.conflicts += hits;
        break;
      }
    }
    if (chosen < 0) {
      chosen = static_cast<int64_t>(bundles.size());
      bundles.push_back(Bundle{{}, 1, 0, std::vector<uint64_t>(words, 0)});
      open.push_back(static_cast<uint32_t>(chosen));
    }
    Bundle& c = bundles[chosen];
    c.members.push_back(f);
    c.bins += nb;
    for (const uint32_t* r = first; r < last; ++r) c.used[*r / 64] |= uint64_t{1} << (*r % 64);
    if (c.bins + 1 > BundlePolicy::kMaxBundleBins) {
      open.erase(std::find(open.begin(), open.end(), static_cast<uint32_t>(chosen)));
    }
  }
  FeatureBundles out;
  for (Bundle& b : bundles) {
    std::sort(b.members.begin(), b.members.end());
    out.members.push_back(std::move(b.members));
  }
  return out;
}

FeatureBundles DecideBundles(const DataSet& data, const HistogramCuts& cuts,
                             const BundleOptions& options, rabit::Communicator* comm, int nthread) {
  if (options.mode == "false") return {};
  const uint32_t nf = cuts.NumFeatures();
  const int threads = NumThreads(nthread);
  std::vector<uint64_t> counts = LocalCounts(data, nf, threads);
  comm->Allreduce(Span<uint64_t>(counts), rabit::Op::kSum);
  const uint64_t rows = comm->AllreduceValue<uint64_t>(data.NumRows(), rabit::Op::kSum);
  const uint64_t entries = std::accumulate(counts.begin(), counts.end(), uint64_t{0});
  // Dense data (every feature with a value has one in every row) keeps its dense layout.
  if (std::all_of(counts.begin(), counts.end(), [&](uint64_t c) { return c == 0 || c == rows; })) {
    return {};
  }
  if (options.mode == "auto" &&
      MinColumns(counts, cuts) * static_cast<double>(rows) >
          BundlePolicy::kMaxColumnsPerEntry * static_cast<double>(entries)) {
    return {};  // too many bins for few columns, whatever the rows (the bench's sparse set)
  }
  const uint64_t stride =
      std::max<uint64_t>(1, (rows + BundlePolicy::kSampleRows - 1) / BundlePolicy::kSampleRows);
  FeatureBundles bundles =
      GreedyBundles(GatherSample(data, nf, stride, comm), counts, cuts, options.max_conflict_rate);
  RB_LOG(kDebug, "feature bundles from the sample of " << (rows + stride - 1) / stride
                                                       << " rows: " << bundles.members.size()
                                                       << " columns, " << bundles.NumBundled()
                                                       << " features in bundles of 2 or more");
  // The check on all rows only splits bundles: when the sample's bundles already fail, so do its.
  const auto fails = [&] {
    if (bundles.NumBundled() == 0) return true;  // nothing shares a column
    const double columns = static_cast<double>(bundles.members.size());
    return options.mode == "auto" &&
           columns * rows > BundlePolicy::kMaxColumnsPerEntry * static_cast<double>(entries);
  };
  if (fails()) return {};
  if (options.max_conflict_rate == 0) EvictConflicts(data, nf, comm, threads, &bundles);
  if (fails()) return {};
  return bundles;
}

}  // namespace ringboost
