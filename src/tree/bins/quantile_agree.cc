// Cuts agreed across workers without moving the data (quantile_rule.h's AgreeOnCuts): every
// worker ends with the cuts one worker holding all the data would compute (quantile.h's rule).
//
// A share holds only entries of positive weight (SortBatch drops the others, as one worker does),
// so a value weighing 0 on every worker is in no share and a value some worker weighs is in that
// worker's, with its whole weight summed over the shares: the agreed column is one worker's.
// Per feature, with d_r the number of distinct values in worker r's share:
//  * every d_r <= 8 * max_bin ("small" features): the shares' (value, weight) lists are gathered,
//    at most 8 * max_bin * 16 bytes per feature and worker, and merged into the exact summary,
//    which is then cut as one worker would (ExactCuts).
//  * some d_r > 8 * max_bin ("large"): the column has more distinct values than the first prune
//    keeps (8 * max_bin entries, as count >= d_r), so the exact summary is never built. The first
//    prune's step k needs only two neighbouring entries: J, the last distinct value whose
//    rmin + rmax <= dx2_k, and J + 1 (or entries 1 and 2 when J = 0, Prune's `i` starting at 1).
//    With p(K) = the smallest present value >= K and g(u) = rmin(u) + rmax(u), the predicate
//    "g(p(K)) > dx2" is monotone in the 32-bit key K, so J + 1 = p(K*) for the smallest K* where
//    it holds and J = K* - 1. Every step k of every large feature of the batch is bisected at once:
//    per round one allreduce (min) of each worker's smallest key >= K, then one (sum) of the
//    weight below K and the weight at p(K); at most 33 rounds (keys have 32 bits). Entries are
//    built from exact fixed-point sums (MakeEntry), so they are the exact summary's entries and
//    the picks are Prune's. The second prune and the cuts are then local (CutsAfterFirstPrune).
// Traffic: small features, their distinct lists; large features, 24 bytes per step and round,
// (8 * max_bin - 2) * 24 * 33 bytes per feature at most (1.6 MB at max_bin 256), whatever the
// number of rows or workers.
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "common/sort_util.h"
#include "tree/bins/quantile_rule.h"

namespace ringboost::detail {
namespace {

constexpr uint64_t kNone = ~uint64_t{0};  // no key (keys fit 32 bits)

// ---- Small features: gather the shares, merge, cut as one worker. ----

// Appends a share as [d, key_0 .. key_{d-1}, weight_0 .. weight_{d-1}].
void AppendShare(const LocalColumn& share, std::vector<uint64_t>* out) {
  out->push_back(share.keys.size());
  out->insert(out->end(), share.keys.begin(), share.keys.end());
  for (std::size_t j = 0; j < share.keys.size(); ++j) out->push_back(share.Weight(j));
}

// The exact column of one feature from every worker's (key, weight) pairs.
LocalColumn Merge(std::vector<std::pair<uint32_t, uint64_t>>* pairs) {
  std::sort(pairs->begin(), pairs->end());
  LocalColumn column;
  uint64_t below = 0;
  for (std::size_t j = 0; j < pairs->size(); ++j) {
    if (column.keys.empty() || column.keys.back() != (*pairs)[j].first) {
      column.keys.push_back((*pairs)[j].first);
      column.below.push_back(below);
    }
    below += (*pairs)[j].second;
  }
  column.below.push_back(below);
  return column;
}

void CutSmall(const std::vector<uint32_t>& features, const std::vector<LocalColumn>& columns,
              const std::vector<std::size_t>& small, const std::vector<uint64_t>& count,
              int max_bin, rabit::Communicator* comm, std::vector<std::vector<float>>* per_feature,
              std::vector<float>* min_values) {
  if (small.empty()) return;
  std::vector<uint64_t> mine;
  for (std::size_t i : small) AppendShare(columns[i], &mine);
  std::vector<char> bytes;
  ThrowIfError(comm->AllgathervRaw(mine.data(), mine.size() * sizeof(uint64_t), &bytes));
  std::vector<uint64_t> all(bytes.size() / sizeof(uint64_t));
  if (!all.empty()) std::memcpy(all.data(), bytes.data(), all.size() * sizeof(uint64_t));
  std::vector<std::vector<std::pair<uint32_t, uint64_t>>> pairs(small.size());
  std::size_t at = 0;
  while (at < all.size()) {  // one worker's shares after another, features in `small` order
    for (std::size_t s = 0; s < small.size(); ++s) {
      RB_CHECK(at < all.size());
      const uint64_t d = all[at++];
      RB_CHECK(at + 2 * d <= all.size());
      for (uint64_t j = 0; j < d; ++j) {
        pairs[s].push_back({static_cast<uint32_t>(all[at + j]), all[at + d + j]});
      }
      at += 2 * d;
    }
  }
  for (std::size_t s = 0; s < small.size(); ++s) {
    const uint32_t f = features[small[s]];
    const LocalColumn column = Merge(&pairs[s]);
    if (column.keys.empty()) continue;  // present, but every entry of weight 0: an empty column
    (*min_values)[f] = MinValue(KeyToFloat(column.keys.front()));
    (*per_feature)[f] = ExactCuts(column, count[f], max_bin);
  }
}

// ---- Large features: the first prune by bisection on rank queries. ----

// Index of the first key >= k in keys[lo, hi).
std::size_t LowerBound(const LocalColumn& c, std::size_t lo, std::size_t hi, uint64_t k) {
  return std::lower_bound(c.keys.begin() + lo, c.keys.begin() + hi, k) - c.keys.begin();
}

// The weight below key k and (when `at` is present in this share at the lower bound) at it.
void BelowAndAt(const LocalColumn& c, std::size_t idx, uint64_t at, uint64_t* below,
                uint64_t* weight) {
  *below = c.below[idx];
  *weight = idx < c.keys.size() && c.keys[idx] == at ? c.Weight(idx) : 0;
}

// One large feature's agreed landmarks: its first three distinct values and its last.
struct Landmarks {
  uint64_t key[4];  // v0, v1, v2, vlast
  SummaryEntry entry[4];
};

// v0..v2 and vlast of every large feature, in four allreduces.
std::vector<Landmarks> FindLandmarks(const std::vector<const LocalColumn*>& cols,
                                     rabit::Communicator* comm) {
  const std::size_t n = cols.size();
  std::vector<Landmarks> marks(n);
  std::vector<uint64_t> buf(2 * n);
  for (std::size_t i = 0; i < n; ++i) {  // first keys, and last keys complemented (max by min)
    const bool empty = cols[i]->keys.empty();
    buf[i] = empty ? kNone : cols[i]->keys.front();
    buf[n + i] = empty ? kNone : ~uint64_t{cols[i]->keys.back()};
  }
  comm->Allreduce(Span<uint64_t>(buf), rabit::Op::kMin);
  for (std::size_t i = 0; i < n; ++i) {
    marks[i].key[0] = buf[i];
    marks[i].key[3] = ~buf[n + i];
  }
  for (int m = 1; m <= 2; ++m) {  // the next distinct value after the one found last
    buf.assign(n, kNone);
    for (std::size_t i = 0; i < n; ++i) {
      const auto& keys = cols[i]->keys;
      auto it = std::upper_bound(keys.begin(), keys.end(), marks[i].key[m - 1]);
      if (it != keys.end()) buf[i] = *it;
    }
    comm->Allreduce(Span<uint64_t>(buf.data(), n), rabit::Op::kMin);
    for (std::size_t i = 0; i < n; ++i) marks[i].key[m] = buf[i];
  }
  buf.assign(8 * n, 0);  // below and weight of each landmark
  for (std::size_t i = 0; i < n; ++i) {
    for (int m = 0; m < 4; ++m) {
      RB_CHECK(marks[i].key[m] != kNone);  // > 8 * max_bin distinct values
      const std::size_t idx = LowerBound(*cols[i], 0, cols[i]->keys.size(), marks[i].key[m]);
      BelowAndAt(*cols[i], idx, marks[i].key[m], &buf[8 * i + 2 * m], &buf[8 * i + 2 * m + 1]);
    }
  }
  comm->Allreduce(Span<uint64_t>(buf), rabit::Op::kSum);
  for (std::size_t i = 0; i < n; ++i) {
    for (int m = 0; m < 4; ++m) {
      marks[i].entry[m] = MakeEntry(static_cast<uint32_t>(marks[i].key[m]), buf[8 * i + 2 * m],
                                    buf[8 * i + 2 * m + 1]);
    }
  }
  return marks;
}

// One step k of the first prune of one large feature: the bisection's state. Invariants:
// g(p(lo)) <= dx2 < g(p(hi)) (p(hi) = none counts as above), and, for this worker's share,
// ilo / ihi are the lower bounds of lo / hi. (lo_below, lo_weight) belong to p(lo) and
// (hi_key, hi_below, hi_weight) to p(hi), summed over the workers.
struct Step {
  std::size_t feature;  // index into the large features
  float dx2;
  uint64_t lo, hi;
  uint64_t lo_below, lo_weight;
  uint64_t hi_key, hi_below, hi_weight;
  std::size_t ilo, ihi;
};

std::vector<Step> InitialSteps(const std::vector<const LocalColumn*>& cols,
                               const std::vector<Landmarks>& marks, std::size_t prune_size) {
  std::vector<Step> steps;
  const std::size_t n = prune_size - 1;
  for (std::size_t i = 0; i < cols.size(); ++i) {
    const Landmarks& m = marks[i];
    const float begin = m.entry[0].rmax;
    const float range = m.entry[3].rmin - m.entry[0].rmax;
    for (std::size_t k = 1; k < n; ++k) {  // lo's sums stay unused while lo = v0 (FirstPrune)
      steps.push_back(Step{i, PruneTarget(k, begin, range, n), m.key[0], m.key[3] + 1, 0, 0, kNone,
                           0, 0, 0, cols[i]->keys.size()});
    }
  }
  return steps;
}

// Bisects every step until hi = lo + 1: then lo = J's value and p(hi) = J + 1's (none: J is the
// last entry).
void Bisect(const std::vector<const LocalColumn*>& cols, std::vector<Step>* steps,
            rabit::Communicator* comm, int nthread) {
  std::vector<std::size_t> active;
  std::vector<uint64_t> mid, idx, keys, sums;
  for (;;) {
    active.clear();
    for (std::size_t s = 0; s < steps->size(); ++s) {
      if ((*steps)[s].hi - (*steps)[s].lo > 1) active.push_back(s);
    }
    if (active.empty()) return;  // the same on every worker: the state is agreed
    const int64_t a = static_cast<int64_t>(active.size());
    mid.resize(a);
    idx.resize(a);
    keys.resize(a);
    sums.resize(2 * a);
#pragma omp parallel for num_threads(nthread) schedule(static)
    for (int64_t j = 0; j < a; ++j) {
      const Step& st = (*steps)[active[j]];
      const LocalColumn& c = *cols[st.feature];
      mid[j] = st.lo + (st.hi - st.lo) / 2;
      idx[j] = LowerBound(c, st.ilo, st.ihi, mid[j]);
      keys[j] = idx[j] < c.keys.size() ? c.keys[idx[j]] : kNone;
    }
    comm->Allreduce(Span<uint64_t>(keys), rabit::Op::kMin);
#pragma omp parallel for num_threads(nthread) schedule(static)
    for (int64_t j = 0; j < a; ++j) {
      const Step& st = (*steps)[active[j]];
      BelowAndAt(*cols[st.feature], idx[j], keys[j], &sums[2 * j], &sums[2 * j + 1]);
    }
    comm->Allreduce(Span<uint64_t>(sums), rabit::Op::kSum);
    for (int64_t j = 0; j < a; ++j) {
      Step& st = (*steps)[active[j]];
      bool above = keys[j] == kNone;
      if (!above) {
        const SummaryEntry e =
            MakeEntry(static_cast<uint32_t>(keys[j]), sums[2 * j], sums[2 * j + 1]);
        above = !(st.dx2 >= e.rmax + e.rmin);  // Prune's advance test, negated
      }
      if (above) {
        st.hi = mid[j];
        st.ihi = idx[j];
        st.hi_key = keys[j];
        st.hi_below = sums[2 * j];
        st.hi_weight = sums[2 * j + 1];
      } else {
        st.lo = mid[j];
        st.ilo = idx[j];
        st.lo_below = sums[2 * j];
        st.lo_weight = sums[2 * j + 1];
      }
    }
  }
}

// Prune's picks from the bisected steps of large feature i (steps in k order).
Summary FirstPrune(const Landmarks& m, const Step* step, const Step* end) {
  Summary out{m.entry[0]};
  uint64_t last = m.key[0];
  for (; step != end; ++step) {
    if (step->hi_key == kNone) break;  // J is the last entry
    SummaryEntry a, b;
    uint64_t a_key, b_key;
    if (step->lo == m.key[0]) {  // J = 0: Prune's i starts at 1
      a = m.entry[1], b = m.entry[2], a_key = m.key[1], b_key = m.key[2];
    } else {
      a = MakeEntry(static_cast<uint32_t>(step->lo), step->lo_below, step->lo_weight);
      b = MakeEntry(static_cast<uint32_t>(step->hi_key), step->hi_below, step->hi_weight);
      a_key = step->lo, b_key = step->hi_key;
    }
    const bool first = step->dx2 < (a.rmin + a.wmin) + (b.rmax - b.wmin);
    const uint64_t key = first ? a_key : b_key;
    if (key != last) {
      out.push_back(first ? a : b);
      last = key;
    }
  }
  if (last != m.key[3]) out.push_back(m.entry[3]);
  return out;
}

void CutLarge(const std::vector<uint32_t>& features, const std::vector<LocalColumn>& columns,
              const std::vector<std::size_t>& large, const std::vector<uint64_t>& count,
              int max_bin, rabit::Communicator* comm, int nthread,
              std::vector<std::vector<float>>* per_feature, std::vector<float>* min_values) {
  if (large.empty()) return;
  std::vector<const LocalColumn*> cols;
  for (std::size_t i : large) cols.push_back(&columns[i]);
  const std::vector<Landmarks> marks = FindLandmarks(cols, comm);
  const std::size_t prune_size = 8 * static_cast<std::size_t>(max_bin);  // < count: see top
  std::vector<Step> steps = InitialSteps(cols, marks, prune_size);
  Bisect(cols, &steps, comm, nthread);
  const std::size_t per = prune_size - 2;  // steps per feature
  for (std::size_t i = 0; i < large.size(); ++i) {
    const uint32_t f = features[large[i]];
    const Step* first = steps.data() + i * per;
    const Summary pruned = FirstPrune(marks[i], first, first + per);
    (*min_values)[f] = MinValue(KeyToFloat(static_cast<uint32_t>(marks[i].key[0])));
    (*per_feature)[f] = CutsAfterFirstPrune(pruned, count[f], max_bin);
  }
}

}  // namespace

void AgreeOnCuts(const std::vector<uint32_t>& features, const std::vector<LocalColumn>& columns,
                 const std::vector<uint64_t>& count, int max_bin, rabit::Communicator* comm,
                 int nthread, std::vector<std::vector<float>>* per_feature,
                 std::vector<float>* min_values) {
  RB_CHECK(features.size() == columns.size());
  const uint64_t first_prune = uint64_t{8} * max_bin;
  std::vector<uint64_t> distinct(features.size());
  for (std::size_t i = 0; i < features.size(); ++i) distinct[i] = columns[i].keys.size();
  comm->Allreduce(Span<uint64_t>(distinct), rabit::Op::kMax);
  std::vector<std::size_t> small, large;
  for (std::size_t i = 0; i < features.size(); ++i) {
    (distinct[i] > first_prune ? large : small).push_back(i);
  }
  CutSmall(features, columns, small, count, max_bin, comm, per_feature, min_values);
  CutLarge(features, columns, large, count, max_bin, comm, nthread, per_feature, min_values);
}

}  // namespace ringboost::detail
