// ndcg as XGBoost 1.7's rank_metric.cc: per query group, items sorted by prediction (stable,
// descending) with labels cast to int; the metric is the plain mean over groups (not weighted),
// reduced as (sum of group scores, number of groups). A group with no relevant item scores 1, or
// 0 with the '-' suffix ("ndcg-", "ndcg@5-").
// map as XGBoost 3.x's EvalMAPScore: labels must be 0 or 1 (within 1e-6, used as they are); per
// group, items sorted by prediction (stable, descending), the sum over the first k positions of
// (relevance so far / position) x relevance, divided by min(the group's relevance, k); a group
// without a relevant item scores 1 (0 for "map-", "map@k-"). Groups are weighted by their weight;
// the sum over groups is divided by the sum of the weights and capped at 1.
// pre@k as XGBoost 3.x's EvalPrecision: per group, the relevant (label 1) items among the top k,
// divided by min(k, the group's size), times the group's weight; the sum over groups divided by
// the sum of the weights. Labels must be 0 or 1. Without k, k is the group's size.
// k in "@k" is a whole number from 1 to 2^32 - 1 (XGBoost 3.x refuses 0).
// ndcg's gain 2^label - 1 is defined for labels 0 to 31 only (XGBoost 3.x refuses the others;
// 1.7 shifted out of range, undefined behaviour that gave values above 1): any other label,
// after 1.7's cast to int, is an error naming it.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "data/query_groups.h"
#include "metric/metric_reduce.h"
#include "metric/metrics.h"

namespace ringboost {
namespace {

using Ranked = std::vector<std::pair<float, unsigned>>;  // (prediction, relevance)

// The largest ndcg relevance: 2^31 - 1 is the largest gain an unsigned shift of 1 gives.
constexpr unsigned kMaxNdcgLabel = 31;

void SortByPrediction(Ranked* rec) {
  std::stable_sort(rec->begin(), rec->end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
}

// Gains 2^rel - 1, discounts log2(i + 2), over the first topn positions.
double Dcg(const Ranked& rec, unsigned topn) {
  double sum = 0.0;
  for (size_t i = 0; i < rec.size() && i < topn; ++i) {
    const unsigned rel = rec[i].second;
    if (rel != 0) sum += ((1u << rel) - 1) / std::log2(i + 2.0);
  }
  return sum;
}

enum class RankKind { kNdcg, kMap, kPre };

class RankMetric : public Metric {
 public:
  RankMetric(RankKind kind, std::string name, unsigned topn, bool minus, int nthread)
      : kind_(kind), name_(std::move(name)), topn_(topn), minus_(minus), nthread_(nthread) {}

  std::string Name() const override { return name_; }
  bool Maximize() const override { return true; }

  double Eval(const std::vector<float>& preds, int num_groups, const DataSet& data,
              rabit::Communicator* comm) const override {
    if (num_groups != 1 || preds.size() != data.NumRows()) {
      RB_FAIL("eval_metric=" << name_ << " needs one prediction per row");
    }
    if (metric_detail::IsDistributed(comm) &&
        !metric_detail::AnyWorker(comm, !data.group_ptr.empty())) {
      // Data without query groups is one group of all its rows, which no worker holds whole: the
      // rows are gathered in rank order (the order of the whole data), as AUC gathers them.
      DataSet whole;
      whole.name = data.name;
      std::vector<float> all_preds;
      metric_detail::GatherRows(preds, 1, data, comm, &whole.label, &whole.weight, &all_preds);
      whole.row_ptr.assign(whole.label.size() + 1, 0);  // NumRows(): nothing reads the entries
      return Eval(all_preds, 1, whole, nullptr);
    }
    const std::vector<uint32_t> gptr = query_groups::GroupPtrOf(data);
    const int64_t groups = static_cast<int64_t>(gptr.size() - 1);
    CheckLabels(data);
    // (score, weight) per group; ndcg weighs every group 1.
    std::vector<double> scores(2 * groups);
#pragma omp parallel for schedule(dynamic, 16) num_threads(nthread_)
    for (int64_t k = 0; k < groups; ++k) {
      const double w = kind_ == RankKind::kNdcg ? 1.0 : query_groups::GroupWeight(data, gptr, k);
      if (kind_ == RankKind::kMap) {
        scores[2 * k] =
            AveragePrecision(&data.label[gptr[k]], &preds[gptr[k]], gptr[k + 1] - gptr[k]) * w;
      } else {
        Ranked rec;
        for (uint32_t j = gptr[k]; j < gptr[k + 1]; ++j) {
          rec.emplace_back(preds[j], static_cast<int>(data.label[j]));
        }
        scores[2 * k] = kind_ == RankKind::kNdcg ? Ndcg(&rec) : Precision(&rec) * w;
      }
      scores[2 * k + 1] = w;
    }
    // Every group's score, in the order of the whole data, summed as one process sums them.
    const std::vector<double> all = metric_detail::AllgatherValues(comm, scores);
    double sum = 0.0, weights = 0.0;
    for (std::size_t i = 0; i < all.size(); i += 2) {
      sum += all[i];
      weights += all[i + 1];
    }
    if (kind_ == RankKind::kNdcg) return sum / weights;
    // XGBoost 3.x's Finalize for map (and pre, whose scores never pass 1): no division by a zero
    // weight, and at most 1.
    return std::min(1.0, weights > 0.0 ? sum / weights : sum);
  }

 private:
  double Empty() const { return minus_ ? 0.0 : 1.0; }

  double Ndcg(Ranked* rec) const {
    SortByPrediction(rec);
    const double dcg = Dcg(*rec, topn_);
    std::stable_sort(rec->begin(), rec->end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    const double idcg = Dcg(*rec, topn_);
    return idcg == 0.0 ? Empty() : dcg / idcg;
  }

  // ndcg: labels whose int cast is in [0, kMaxNdcgLabel]. pre: labels exactly 0 or 1; map: within
  // 1e-6 of them (XGBoost 3.x's IsBinaryRel).
  void CheckLabels(const DataSet& data) const {
    if (kind_ == RankKind::kNdcg) {
      for (std::size_t i = 0; i < data.label.size(); ++i) {
        const float y = data.label[i];
        if (!(y > -1.0f && y < kMaxNdcgLabel + 1.0f)) {
          RB_FAIL(data.name << ": " << name_ << " needs relevance labels from 0 to "
                            << kMaxNdcgLabel << " (its gain 2^label - 1 is defined for those "
                            << "only, as XGBoost 3.x requires); found " << y << " in row "
                            << i + 1);
        }
      }
      return;
    }
    for (float y : data.label) {
      const bool ok = kind_ == RankKind::kPre
                          ? (y == 0.0f || y == 1.0f)
                          : (std::fabs(y - 1.0f) < 1e-6f || std::fabs(y) < 1e-6f);
      if (!ok) {
        RB_FAIL(data.name << ": " << name_ << " needs labels 0 or 1 (binary relevance, as "
                          << "XGBoost 3.x requires); found " << y);
      }
    }
  }

  // One group of n rows: XGBoost 3.x's average precision at topn (see the top of the file).
  double AveragePrecision(const float* label, const float* pred, uint32_t n) const {
    std::vector<uint32_t> rank(n);
    for (uint32_t i = 0; i < n; ++i) rank[i] = i;
    std::stable_sort(rank.begin(), rank.end(),
                     [pred](uint32_t a, uint32_t b) { return pred[a] > pred[b]; });
    const std::size_t top = std::min<std::size_t>(topn_, n);
    double hits = 0.0, sum = 0.0;
    for (std::size_t i = 0; i < top; ++i) {
      const double p = label[rank[i]];
      hits += p;
      sum += hits / static_cast<double>(i + 1) * p;
    }
    for (std::size_t i = top; i < n; ++i) hits += label[rank[i]];
    if (hits > 0.0) return sum / std::min(hits, static_cast<double>(topn_));
    return Empty();
  }

  // The relevant items among the first min(topn, n) of the group's n items, over that count
  // (XGBoost 3.x's divisor: a group smaller than k is not penalised for its size).
  double Precision(Ranked* rec) const {
    SortByPrediction(rec);
    const std::size_t k = std::min<std::size_t>(topn_, rec->size());
    double hits = 0.0;
    for (std::size_t i = 0; i < k; ++i) hits += (*rec)[i].second;
    return hits / static_cast<double>(k);
  }

  RankKind kind_;
  std::string name_;
  unsigned topn_;
  bool minus_;
  int nthread_;
};

}  // namespace

std::unique_ptr<Metric> MakeRankMetric(const std::string& prefix, const std::string& param,
                                       int nthread) {
  if (prefix != "ndcg" && prefix != "map" && prefix != "pre") return nullptr;
  const RankKind kind = prefix == "ndcg"  ? RankKind::kNdcg
                        : prefix == "map" ? RankKind::kMap
                                          : RankKind::kPre;
  unsigned topn = std::numeric_limits<unsigned>::max();
  const bool minus = !param.empty() && param.back() == '-';
  const std::string digits = minus ? param.substr(0, param.size() - 1) : param;
  std::string name = prefix + (minus ? "-" : "");
  if (!digits.empty()) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long k = std::strtoull(digits.c_str(), &end, 10);
    if (*end != '\0' || !std::isdigit(static_cast<unsigned char>(digits[0])) || errno != 0 ||
        k < 1 || k > std::numeric_limits<unsigned>::max()) {
      RB_FAIL("eval_metric=" << prefix << "@" << param << ": expected " << prefix << "@k or "
                             << prefix << "@k- with a whole number k from 1 to "
                             << std::numeric_limits<unsigned>::max());
    }
    topn = static_cast<unsigned>(k);
    name = prefix + "@" + param;
  }
  return std::make_unique<RankMetric>(kind, name, topn, minus, nthread);
}

}  // namespace ringboost
