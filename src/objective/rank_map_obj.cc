// rank:map: LambdaMART weighted by the change in average precision, as XGBoost 3.x's LambdaRankMAP
// computes it on the CPU (lambdarank_obj.cc) with its topk pairs. Within a query group the items
// are sorted by prediction (stable, descending); every item in the first k positions is paired
// with every item below it whose label differs. A pair's lambda is (sigmoid(s_hi - s_lo) - 1)
// times |delta AP|, the change in the group's average precision when the two items swap, divided
// by |s_hi - s_lo| + 0.01 (lambdarank_score_normalization, unless the group's predictions are all
// equal); the hessian is 2 max(sigmoid (1 - sigmoid), 1e-16) |delta AP|. The group's gradients
// are then scaled by log2(1 + L) / L, L = the sum of 2 |lambda| (lambdarank_normalization), and
// by the group's weight times (groups / sum of group weights).
//
// XGBoost's float and double steps are kept as it takes them (lambdas in double, rounded to float
// per pair, added in float in pair order; the scale factors rounded to float before they
// multiply), so the gradients are its bits. Nothing is drawn at random and a group's gradients
// depend on its own rows only, so threads and workers do not change them; the weight
// normalisation is over the groups of all workers, summed in data order (Prepare).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>
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

// XGBoost's IsBinaryRel: within kRtEps (1e-6) of 0 or 1; the label is then used as it is.
bool BinaryRelevance(float y) { return std::fabs(y - 1.0f) < 1e-6f || std::fabs(y) < 1e-6f; }

// The statistics of a prediction-sorted group that delta AP reads: n_rel[k], the relevance summed
// over positions 0..k, and acc[k], the sum over those positions of relevance / (position + 1).
struct ApStats {
  std::vector<double> n_rel;
  std::vector<double> acc;
};

ApStats MakeApStats(const std::vector<float>& sorted_labels) {
  ApStats s;
  const std::size_t n = sorted_labels.size();
  s.n_rel.resize(n);
  s.acc.resize(n);
  s.n_rel[0] = sorted_labels[0];
  s.acc[0] = sorted_labels[0] / 1.0;
  for (std::size_t k = 1; k < n; ++k) {
    s.n_rel[k] = s.n_rel[k - 1] + sorted_labels[k];
    s.acc[k] = s.acc[k - 1] + sorted_labels[k] / static_cast<double>(k + 1);
  }
  return s;
}

// The change in average precision (times -1, as XGBoost's DeltaMAP signs it; callers take |.|)
// when the items at positions `upper` < `lower` swap; y_upper and y_lower are their labels. The
// group has at least one relevant item (it has two different labels).
double DeltaAp(float y_upper, float y_lower, std::size_t upper, std::size_t lower,
               const ApStats& s) {
  const double r_h = static_cast<double>(upper) + 1.0;
  const double r_l = static_cast<double>(lower) + 1.0;
  const double total = s.n_rel.back();
  const double m = s.n_rel[lower];
  const double n = s.n_rel[upper];
  const double b = s.acc[lower - 1] - s.acc[upper];
  if (y_upper < y_lower) return (m / r_l - (n + 1.0) / r_h - b) / total;
  return (n / r_h - m / r_l + b) / total;
}

// The lambda and hessian of one pair, rounded to float; `high` holds the larger label, `low` the
// smaller, each a position in the sorted group.
GradPair PairGradient(const std::vector<float>& labels, const std::vector<float>& preds,
                      std::size_t high, std::size_t low, bool score_norm, bool spread,
                      const ApStats& stats) {
  const float s_high = preds[high];
  const float s_low = preds[low];
  const double delta_score = std::fabs(s_high - s_low);
  const double sigmoid = Sigmoid(s_high - s_low);
  const std::size_t upper = std::min(high, low), lower = std::max(high, low);
  double delta = std::fabs(DeltaAp(labels[upper], labels[lower], upper, lower, stats));
  if (score_norm && spread) delta /= (delta_score + 0.01);
  const double lambda = (sigmoid - 1.0) * delta;
  const double hessian = std::max(sigmoid * (1.0 - sigmoid), 1e-16) * delta * 2.0;
  return {static_cast<float>(lambda), static_cast<float>(hessian)};
}

class LambdaRankMapObjective final : public Objective {
 public:
  explicit LambdaRankMapObjective(const Params& params)
      : nthread_(ResolveThreads(params.nthread)),
        top_k_(static_cast<std::size_t>(params.lambdarank_num_pair_per_sample)),
        normalization_(params.lambdarank_normalization),
        score_normalization_(params.lambdarank_score_normalization) {}

  std::string Name() const override { return "rank:map"; }
  // XGBoost 3.x's: map@k of the topk pairs' k.
  std::string DefaultMetric() const override { return "map@" + std::to_string(top_k_); }
  const char* CheckLabel(float label) const override {
    return BinaryRelevance(label)
               ? nullptr
               : "label must be 0 or 1 for rank:map (binary relevance, as XGBoost 3.x requires)";
  }

  // The weight normalisation, groups / sum of group weights, over every worker's groups: the
  // weights are gathered and summed in data order, as one process sums them.
  void Prepare(const DataSet& train, rabit::Communicator* comm) override {
    RequireQueryGroupsAcrossWorkers(Name(), train, comm);
    const std::vector<uint32_t> gptr = GroupPtrOf(train);
    std::vector<float> mine(gptr.size() - 1);
    for (std::size_t k = 0; k < mine.size(); ++k) mine[k] = GroupWeight(train, gptr, k);
    std::vector<char> bytes;
    ThrowIfError(comm->AllgathervRaw(mine.data(), mine.size() * sizeof(float), &bytes));
    std::vector<float> all(bytes.size() / sizeof(float));
    if (!all.empty()) std::memcpy(all.data(), bytes.data(), bytes.size());
    weight_norm_ = WeightNorm(all);
    prepared_ = true;
  }

  void GetGradient(const DataSet& data, const std::vector<float>& preds, int iter,
                   std::vector<GradPair>* out) const override {
    (void)iter;
    RB_CHECK_MSG(preds.size() == data.label.size() && data.label.size() == data.NumRows(),
                 "preds " << preds.size() << ", labels " << data.label.size());
    for (float label : data.label) {
      if (CheckLabel(label) != nullptr) RB_FAIL(data.name << ": " << CheckLabel(label));
    }
    const std::vector<uint32_t> gptr = GroupPtrOf(data);
    const int64_t groups = static_cast<int64_t>(gptr.size() - 1);
    std::vector<float> weights(groups);
    for (int64_t k = 0; k < groups; ++k) weights[k] = GroupWeight(data, gptr, k);
    const double weight_norm = prepared_ ? weight_norm_ : WeightNorm(weights);
    out->assign(preds.size(), GradPair{});
    // Each group writes only its own rows, so groups run in any order on any thread.
#pragma omp parallel for schedule(dynamic, 16) num_threads(nthread_)
    for (int64_t k = 0; k < groups; ++k) {
      GroupGradient(data.label.data() + gptr[k], preds.data() + gptr[k], gptr[k + 1] - gptr[k],
                    weights[k], weight_norm, out->data() + gptr[k]);
    }
  }

 private:
  static double WeightNorm(const std::vector<float>& weights) {
    double sum = 0.0;
    for (float w : weights) sum += w;
    return static_cast<double>(weights.size()) / sum;
  }

  // One group of n rows: labels, margins and the gradients written, all in row order.
  void GroupGradient(const float* label, const float* pred, std::size_t n, float weight,
                     double weight_norm, GradPair* out) const {
    if (n == 0) return;
    std::vector<std::size_t> rank(n);
    std::iota(rank.begin(), rank.end(), std::size_t{0});
    std::stable_sort(rank.begin(), rank.end(),
                     [pred](std::size_t a, std::size_t b) { return pred[a] > pred[b]; });
    std::vector<float> labels(n), preds(n);  // by position in the sorted group
    for (std::size_t i = 0; i < n; ++i) {
      labels[i] = label[rank[i]];
      preds[i] = pred[rank[i]];
    }
    const ApStats stats = MakeApStats(labels);
    const bool spread = preds.front() != preds.back();
    std::vector<GradPair> g(n);  // by position
    double sum_lambda = 0.0;
    for (std::size_t i = 0; i < std::min(n, top_k_); ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        if (labels[i] == labels[j]) continue;
        const std::size_t high = labels[i] < labels[j] ? j : i;
        const std::size_t low = high == i ? j : i;
        const GradPair pg =
            PairGradient(labels, preds, high, low, score_normalization_, spread, stats);
        g[high].grad += pg.grad;
        g[high].hess += pg.hess;
        g[low].grad += -pg.grad;
        g[low].hess += pg.hess;
        sum_lambda += -2.0 * static_cast<double>(pg.grad);
      }
    }
    float norm = 1.0f;
    if (normalization_ && sum_lambda > 0.0) {
      norm = static_cast<float>(std::log2(1.0 + sum_lambda) / sum_lambda);
    }
    const float wnorm = static_cast<float>(weight_norm);
    for (std::size_t i = 0; i < n; ++i) {
      GradPair gp = g[i];
      if (norm != 1.0f) gp = {gp.grad * norm, gp.hess * norm};
      out[rank[i]] = {gp.grad * weight * wnorm, gp.hess * weight * wnorm};
    }
  }

  int nthread_;
  std::size_t top_k_;
  bool normalization_;
  bool score_normalization_;
  // Prepare's result: groups / sum of group weights over all workers.
  double weight_norm_ = 1.0;
  bool prepared_ = false;
};

}  // namespace

std::unique_ptr<Objective> MakeRankMapObjective(const std::string& name, const Params& params) {
  if (name != "rank:map") return nullptr;
  return std::make_unique<LambdaRankMapObjective>(params);
}

}  // namespace ringboost
