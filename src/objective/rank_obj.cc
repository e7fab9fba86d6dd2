// rank:pairwise and rank:ndcg: LambdaMART as XGBoost 1.7's rank_obj.cu computes it on the CPU
// (num_pairsample = 1, fix_list_weight = 0). Within each query group the items are sorted by
// prediction (stable, descending) and bucketed by label; every item is paired with one item of
// a different label drawn uniformly; rank:ndcg weighs each pair by |delta NDCG| of swapping it.
//
// The draws are XGBoost's with one thread: a std::minstd_rand seeded (round + 1) * 1111, one
// uniform_int_distribution<unsigned> draw per item of every group with two labels or more, groups
// in order (XGBoost gives each OpenMP thread its own generator with that seed, so its pairs, and
// its models, change with nthread; nthread=1 is the reference). A draw's range depends only on
// the label buckets of its group, not on the predictions, so the stream is replayed first, in one
// pass, and the groups then run on any number of threads. With several workers, every worker
// knows the label buckets of the groups before its own (gathered once, in Prepare) and replays
// their draws too: the gradients, and the model, do not depend on threads or workers. `seed` plays
// no part, as in XGBoost.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/threads.h"
#include "data/query_groups.h"
#include "objective/elementwise.h"
#include "objective/objectives.h"

namespace ringboost {
namespace {

using query_groups::GroupPtrOf;
using query_groups::GroupWeight;

struct ListEntry {
  float pred;
  float label;
  uint32_t rindex;  // row of the item
};

struct LambdaPair {
  uint32_t pos;  // index into the prediction-sorted list: the item with the larger label
  uint32_t neg;
  float weight;
};

// std::minstd_rand and libstdc++'s uniform_int_distribution<unsigned>(0, n - 1) over it, written
// out so that the draws do not depend on the standard library ringboost is built with.
class MinStdRand {
 public:
  explicit MinStdRand(uint64_t seed) : x_(seed % kModulus == 0 ? 1 : seed % kModulus) {}
  // The generator's next value, in [1, kModulus - 1].
  uint64_t Next() { return x_ = x_ * 48271 % kModulus; }
  // Uniform in [0, n), n >= 1: libstdc++'s downscaling of the range [min, max] = [1, 2^31 - 2]
  // (scaling = (max - min) / n, values at or past n * scaling rejected).
  uint32_t Below(uint32_t n) {
    const uint64_t scaling = (kModulus - 3) / n;
    const uint64_t past = n * scaling;
    uint64_t r;
    do {
      r = Next() - 1;
    } while (r >= past);
    return static_cast<uint32_t>(r / scaling);
  }

 private:
  static constexpr uint64_t kModulus = 2147483647;
  uint64_t x_;
};

// The label buckets of one group: the sizes of its runs of equal labels, labels descending.
std::vector<uint32_t> LabelBuckets(const float* labels, uint32_t n) {
  std::vector<float> sorted(labels, labels + n);
  std::sort(sorted.begin(), sorted.end(), std::greater<float>());
  std::vector<uint32_t> sizes;
  for (uint32_t i = 0; i < n;) {
    uint32_t j = i + 1;
    while (j < n && sorted[j] == sorted[i]) ++j;
    sizes.push_back(j - i);
    i = j;
  }
  return sizes;
}

// The draws of one group, in the order of its label-sorted items, appended to `out` (none when
// the group has one label: every item's partner range is empty).
void DrawGroup(const std::vector<uint32_t>& buckets, MinStdRand* rnd, std::vector<uint32_t>* out) {
  uint32_t n = 0;
  for (uint32_t size : buckets) n += size;
  if (buckets.size() < 2) return;
  for (uint32_t size : buckets) {
    for (uint32_t k = 0; k < size; ++k) out->push_back(rnd->Below(n - size));
  }
}

// DCG gain of an item with integer relevance `label` at rank `idx`, in XGBoost's float form.
float ItemDcg(unsigned label, uint32_t idx) {
  return label != 0 ? ((1 << label) - 1) / std::log2(static_cast<float>(idx + 2)) : 0.0f;
}

// |NDCG change| when the items at ranks pos and neg swap (XGBoost's ComputeDeltaWeight).
float DeltaNdcg(uint32_t pos, uint32_t neg, int pos_label, int neg_label, float idcg) {
  const float pos_loginv = 1.0f / std::log2(pos + 2.0f);
  const float neg_loginv = 1.0f / std::log2(neg + 2.0f);
  const float original = ((1 << pos_label) - 1) * pos_loginv + ((1 << neg_label) - 1) * neg_loginv;
  const float changed = ((1 << neg_label) - 1) * pos_loginv + ((1 << pos_label) - 1) * neg_loginv;
  const float delta = (original - changed) * (1.0f / idcg);
  return delta < 0.0f ? -delta : delta;
}

// Multiplies each pair's weight by |delta NDCG|; all zero when the group's ideal DCG is zero.
void ApplyNdcgWeights(const std::vector<ListEntry>& list, std::vector<LambdaPair>* pairs) {
  std::vector<float> labels(list.size());
  for (size_t i = 0; i < list.size(); ++i) labels[i] = list[i].label;
  std::stable_sort(labels.begin(), labels.end(), std::greater<float>());
  double sum = 0.0;
  for (uint32_t i = 0; i < labels.size(); ++i) sum += ItemDcg(static_cast<unsigned>(labels[i]), i);
  const float idcg = static_cast<float>(sum);
  for (LambdaPair& pair : *pairs) {
    pair.weight =
        idcg == 0.0f
            ? 0.0f
            : pair.weight * DeltaNdcg(pair.pos, pair.neg, static_cast<int>(list[pair.pos].label),
                                      static_cast<int>(list[pair.neg].label), idcg);
  }
}

class LambdaRankObjective final : public Objective {
 public:
  LambdaRankObjective(bool ndcg, const Params& params)
      : ndcg_(ndcg), nthread_(ResolveThreads(params.nthread)) {}

  std::string Name() const override { return ndcg_ ? "rank:ndcg" : "rank:pairwise"; }
  // XGBoost 1.7 reports "map" for every rank objective; map is now XGBoost 3.x's, which takes
  // labels 0 or 1 only, so these objectives of graded relevance report 3.x's ndcg (without the
  // "@32" of 3.x's topk pairs: their pairs are drawn, as 3.x's mean method draws them).
  std::string DefaultMetric() const override { return "ndcg"; }
  // rank:ndcg's gain 2^label - 1 (of the label cast to an integer) exists for labels up to 31
  // only: XGBoost 3.x refuses larger ones, and 1.7 shifted out of range.
  const char* CheckLabel(float label) const override {
    if (!(label >= 0.0f)) return "label must be a nonnegative relevance for rank:*";
    if (ndcg_ && !(label < 32.0f)) {
      return "label must be a relevance from 0 to 31 for rank:ndcg (its gain 2^label - 1 "
             "overflows above 31, as XGBoost 3.x says); rank:pairwise takes larger labels";
    }
    return nullptr;
  }

  // Gathers the label buckets of every worker's groups and keeps those of the groups before
  // this worker's (they are what its share of the draw stream starts after).
  void Prepare(const DataSet& train, rabit::Communicator* comm) override {
    RequireQueryGroupsAcrossWorkers(Name(), train, comm);
    const std::vector<uint32_t> gptr = GroupPtrOf(train);
    std::vector<uint32_t> mine;  // per group: bucket count, then the sizes
    for (std::size_t k = 0; k + 1 < gptr.size(); ++k) {
      const std::vector<uint32_t> b =
          LabelBuckets(train.label.data() + gptr[k], gptr[k + 1] - gptr[k]);
      mine.push_back(static_cast<uint32_t>(b.size()));
      mine.insert(mine.end(), b.begin(), b.end());
    }
    std::vector<char> bytes;
    ThrowIfError(comm->AllgathervRaw(mine.data(), mine.size() * sizeof(uint32_t), &bytes));
    std::vector<uint32_t> all(bytes.size() / sizeof(uint32_t));
    if (!all.empty()) std::memcpy(all.data(), bytes.data(), bytes.size());
    earlier_buckets_.clear();
    for (std::size_t at = 0; earlier_buckets_.size() < train.first_group;) {
      RB_CHECK(at < all.size());
      const uint32_t count = all[at++];
      RB_CHECK(at + count <= all.size());
      earlier_buckets_.emplace_back(all.begin() + at, all.begin() + at + count);
      at += count;
    }
    prepared_first_group_ = train.first_group;
  }

  void GetGradient(const DataSet& data, const std::vector<float>& preds, int iter,
                   std::vector<GradPair>* out) const override {
    RB_CHECK_MSG(preds.size() == data.label.size() && data.label.size() == data.NumRows(),
                 "preds " << preds.size() << ", labels " << data.label.size());
    RB_CHECK_MSG(data.first_group == prepared_first_group_,
                 "rank objective prepared for group " << prepared_first_group_
                                                      << ", data starts at " << data.first_group);
    const std::vector<uint32_t> gptr = GroupPtrOf(data);
    const int64_t groups = static_cast<int64_t>(gptr.size() - 1);
    // XGBoost's normalisation: groups / sum of group weights, in float.
    float sum_weights = 0.0f;
    for (int64_t k = 0; k < groups; ++k) sum_weights += GroupWeight(data, gptr, k);
    const float norm = static_cast<float>(groups) / sum_weights;
    out->assign(preds.size(), GradPair{});
    for (float label : data.label) {
      if (CheckLabel(label) != nullptr) RB_FAIL(data.name << ": " << CheckLabel(label));
    }
    // The stream: the earlier workers' groups, then ours, whose draws are kept.
    MinStdRand rnd(static_cast<uint64_t>(iter + 1) * 1111);
    std::vector<uint32_t> skipped;
    for (const std::vector<uint32_t>& buckets : earlier_buckets_) {
      skipped.clear();
      DrawGroup(buckets, &rnd, &skipped);
    }
    std::vector<uint32_t> draws;
    std::vector<std::size_t> first_draw(groups + 1, 0);
    for (int64_t k = 0; k < groups; ++k) {
      DrawGroup(LabelBuckets(data.label.data() + gptr[k], gptr[k + 1] - gptr[k]), &rnd, &draws);
      first_draw[k + 1] = draws.size();
    }
    // Each group writes only its own rows, so groups run in any order on any thread.
#pragma omp parallel for schedule(dynamic, 16) num_threads(nthread_)
    for (int64_t k = 0; k < groups; ++k) {
      GroupGradient(data, preds, gptr[k], gptr[k + 1], GroupWeight(data, gptr, k) * norm,
                    draws.data() + first_draw[k], out);
    }
  }

 private:
  // Pairs of one group: for every item, one partner drawn among the items of other labels.
  // `rec` holds (label, list index) sorted by label descending, so partners left of the bucket
  // have larger labels (the item is then the negative) and those right of it smaller ones.
  // draws[pid] is the draw of rec's item pid (DrawGroup's order).
  static std::vector<LambdaPair> SamplePairs(const std::vector<std::pair<float, uint32_t>>& rec,
                                             float weight, const uint32_t* draws) {
    std::vector<LambdaPair> pairs;
    const uint32_t n = static_cast<uint32_t>(rec.size());
    for (uint32_t i = 0; i < n;) {
      uint32_t j = i + 1;
      while (j < n && rec[j].first == rec[i].first) ++j;
      const uint32_t nleft = i;
      for (uint32_t pid = i; nleft + (n - j) != 0 && pid < j; ++pid) {
        const uint32_t r = draws[pid];
        if (r < nleft) {
          pairs.push_back({rec[r].second, rec[pid].second, weight});
        } else {
          pairs.push_back({rec[pid].second, rec[r + j - i].second, weight});
        }
      }
      i = j;
    }
    return pairs;
  }

  void GroupGradient(const DataSet& data, const std::vector<float>& preds, uint32_t begin,
                     uint32_t end, float weight, const uint32_t* draws,
                     std::vector<GradPair>* out) const {
    std::vector<ListEntry> list;
    for (uint32_t j = begin; j < end; ++j) list.push_back({preds[j], data.label[j], j});
    std::stable_sort(list.begin(), list.end(),
                     [](const ListEntry& a, const ListEntry& b) { return a.pred > b.pred; });
    std::vector<std::pair<float, uint32_t>> rec(list.size());
    for (uint32_t i = 0; i < list.size(); ++i) rec[i] = {list[i].label, i};
    std::stable_sort(rec.begin(), rec.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<LambdaPair> pairs = SamplePairs(rec, weight, draws);
    if (ndcg_) ApplyNdcgWeights(list, &pairs);
    for (const LambdaPair& pair : pairs) {
      const ListEntry& pos = list[pair.pos];
      const ListEntry& neg = list[pair.neg];
      const float w = pair.weight;  // times scale 1 / num_pairsample = 1
      const float p = Sigmoid(pos.pred - neg.pred);
      const float g = p - 1.0f;
      const float h = std::max(p * (1.0f - p), 1e-16f);
      GradPair& gp = (*out)[pos.rindex];
      GradPair& gn = (*out)[neg.rindex];
      gp.grad += g * w;
      gp.hess += 2.0f * w * h;
      gn.grad += -g * w;
      gn.hess += 2.0f * w * h;
    }
  }

  bool ndcg_;
  int nthread_;
  // Prepare's result: the label buckets of the groups on earlier workers, and the first_group it
  // was prepared for (0 and none when not called: one worker).
  std::vector<std::vector<uint32_t>> earlier_buckets_;
  uint64_t prepared_first_group_ = 0;
};

}  // namespace

std::unique_ptr<Objective> MakeRankObjective(const std::string& name, const Params& params) {
  if (name == "rank:pairwise") return std::make_unique<LambdaRankObjective>(false, params);
  if (name == "rank:ndcg") return std::make_unique<LambdaRankObjective>(true, params);
  return nullptr;
}

}  // namespace ringboost
