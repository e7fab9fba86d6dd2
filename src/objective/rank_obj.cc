// rank:pairwise and rank:ndcg: LambdaMART as XGBoost 1.7's rank_obj.cu computes it on the CPU
// (num_pairsample = 1, fix_list_weight = 0). Within each query group the items are sorted by
// prediction (stable, descending) and bucketed by label; every item is paired with one item of
// a different label drawn uniformly; rank:ndcg weighs each pair by |delta NDCG| of swapping it.
//
// One difference by design: XGBoost draws from a std::minstd_rand per thread, consumed in group
// order, so its gradients depend on the thread count. Here draw number d of group g in round
// `iter` is CounterHash(seed, iter, g) mixed with d, so the gradients are a pure function of the
// data, the seed and the round, bitwise equal for any number of threads.
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/random.h"
#include "common/threads.h"
#include "objective/objective_detail.h"
#include "objective/objectives.h"

namespace ringboost {
namespace {

using objective_detail::GroupPtrOf;
using objective_detail::GroupWeight;
using objective_detail::Sigmoid;

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

// Uniform integer in [0, n) from 64 random bits (multiply-high, no modulo bias to speak of).
uint32_t UniformBelow(uint64_t bits, uint32_t n) {
  return static_cast<uint32_t>((static_cast<unsigned __int128>(bits) * n) >> 64);
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

class LambdaRankObjective : public Objective {
 public:
  LambdaRankObjective(bool ndcg, const Params& params)
      : ndcg_(ndcg), seed_(params.seed), nthread_(ResolveThreads(params.nthread)) {}

  std::string Name() const override { return ndcg_ ? "rank:ndcg" : "rank:pairwise"; }
  // XGBoost 1.7's LambdaRankObj reports "map" for every rank objective.
  std::string DefaultMetric() const override { return "map"; }
  const char* CheckLabel(float label) const override {
    return label >= 0.0f ? nullptr : "label must be a nonnegative relevance for rank:*";
  }

  void GetGradient(const DataSet& data, const std::vector<float>& preds, int iter,
                   std::vector<GradPair>* out) const override {
    RB_CHECK_MSG(preds.size() == data.label.size() && data.label.size() == data.NumRows(),
                 "preds " << preds.size() << ", labels " << data.label.size());
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
    // Each group writes only its own rows, so groups run in any order on any thread.
#pragma omp parallel for schedule(dynamic, 16) num_threads(nthread_)
    for (int64_t k = 0; k < groups; ++k) {
      GroupGradient(data, preds, gptr[k], gptr[k + 1], GroupWeight(data, gptr, k) * norm,
                    CounterHash(seed_, static_cast<uint64_t>(RandomStream::kRankPairs),
                                static_cast<uint64_t>(iter), data.first_group + k),
                    out);
    }
  }

 private:
  // Pairs of one group: for every item, one partner drawn among the items of other labels.
  // `rec` holds (label, list index) sorted by label descending, so partners left of the bucket
  // have larger labels (the item is then the negative) and those right of it smaller ones.
  static std::vector<LambdaPair> SamplePairs(const std::vector<std::pair<float, uint32_t>>& rec,
                                             float weight, uint64_t key) {
    std::vector<LambdaPair> pairs;
    const uint32_t n = static_cast<uint32_t>(rec.size());
    for (uint32_t i = 0; i < n;) {
      uint32_t j = i + 1;
      while (j < n && rec[j].first == rec[i].first) ++j;
      const uint32_t nleft = i, nright = n - j;
      for (uint32_t pid = i; nleft + nright != 0 && pid < j; ++pid) {
        const uint32_t r = UniformBelow(Mix64(key ^ Mix64(pid)), nleft + nright);
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
                     uint32_t end, float weight, uint64_t key, std::vector<GradPair>* out) const {
    std::vector<ListEntry> list;
    for (uint32_t j = begin; j < end; ++j) list.push_back({preds[j], data.label[j], j});
    std::stable_sort(list.begin(), list.end(),
                     [](const ListEntry& a, const ListEntry& b) { return a.pred > b.pred; });
    std::vector<std::pair<float, uint32_t>> rec(list.size());
    for (uint32_t i = 0; i < list.size(); ++i) rec[i] = {list[i].label, i};
    std::stable_sort(rec.begin(), rec.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<LambdaPair> pairs = SamplePairs(rec, weight, key);
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
  uint64_t seed_;
  int nthread_;
};

}  // namespace

std::unique_ptr<Objective> MakeRankObjective(const std::string& name, const Params& params) {
  if (name == "rank:pairwise") return std::make_unique<LambdaRankObjective>(false, params);
  if (name == "rank:ndcg") return std::make_unique<LambdaRankObjective>(true, params);
  return nullptr;
}

}  // namespace ringboost
