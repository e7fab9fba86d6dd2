// ndcg and map as XGBoost 1.7's rank_metric.cc: per query group, items sorted by prediction
// (stable, descending) with labels cast to int; the metric is the plain mean over groups (not
// weighted), reduced as (sum of group scores, number of groups). A group with no relevant item
// scores 1, or 0 with the '-' suffix ("ndcg-", "ndcg@5-").
#include <algorithm>
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

void SortByPrediction(Ranked* rec) {
  std::stable_sort(rec->begin(), rec->end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
}

// Gains 2^rel - 1, discounts log2(i + 2), over the first topn positions.
double Dcg(const Ranked& rec, unsigned topn) {
  double sum = 0.0;
  for (size_t i = 0; i < rec.size() && i < topn; ++i) {
    const unsigned rel = rec[i].second;
    if (rel != 0) sum += ((1 << rel) - 1) / std::log2(i + 2.0);
  }
  return sum;
}

class RankMetric : public Metric {
 public:
  RankMetric(bool ndcg, std::string name, unsigned topn, bool minus, int nthread)
      : ndcg_(ndcg), name_(std::move(name)), topn_(topn), minus_(minus), nthread_(nthread) {}

  std::string Name() const override { return name_; }
  bool Maximize() const override { return true; }

  double Eval(const std::vector<float>& preds, int num_groups, const DataSet& data,
              rabit::Communicator* comm) const override {
    if (num_groups != 1 || preds.size() != data.NumRows()) {
      RB_FAIL("eval_metric=" << name_ << " needs one prediction per row");
    }
    const std::vector<uint32_t> gptr = query_groups::GroupPtrOf(data);
    const int64_t groups = static_cast<int64_t>(gptr.size() - 1);
    std::vector<double> scores(groups);
#pragma omp parallel for schedule(dynamic, 16) num_threads(nthread_)
    for (int64_t k = 0; k < groups; ++k) {
      Ranked rec;
      for (uint32_t j = gptr[k]; j < gptr[k + 1]; ++j) {
        rec.emplace_back(preds[j], static_cast<int>(data.label[j]));
      }
      scores[k] = ndcg_ ? Ndcg(&rec) : AveragePrecision(&rec);
    }
    // Every group's score, in the order of the whole data, summed as one process sums them.
    const std::vector<double> all = metric_detail::AllgatherValues(comm, scores);
    double sum = 0.0;
    for (double s : all) sum += s;
    return sum / static_cast<double>(all.size());
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

  // Precision at each relevant position within topn, divided by ALL relevant items (XGBoost).
  double AveragePrecision(Ranked* rec) const {
    SortByPrediction(rec);
    unsigned hits = 0;
    double sum = 0.0;
    for (size_t i = 0; i < rec->size(); ++i) {
      if ((*rec)[i].second != 0) {
        ++hits;
        if (i < topn_) sum += static_cast<double>(hits) / (i + 1);
      }
    }
    return hits != 0 ? sum / hits : Empty();
  }

  bool ndcg_;
  std::string name_;
  unsigned topn_;
  bool minus_;
  int nthread_;
};

}  // namespace

std::unique_ptr<Metric> MakeRankMetric(const std::string& prefix, const std::string& param,
                                       int nthread) {
  if (prefix != "ndcg" && prefix != "map") return nullptr;
  const bool ndcg = prefix == "ndcg";
  unsigned topn = std::numeric_limits<unsigned>::max();
  const bool minus = !param.empty() && param.back() == '-';
  const std::string digits = minus ? param.substr(0, param.size() - 1) : param;
  std::string name = prefix + (minus ? "-" : "");
  if (!digits.empty()) {
    char* end = nullptr;
    const unsigned long k = std::strtoul(digits.c_str(), &end, 10);
    if (*end != '\0' || digits[0] == '-' || digits[0] == '+') {
      RB_FAIL("eval_metric=" << prefix << "@" << param << ": expected " << prefix << "@k or "
                             << prefix << "@k- with a whole number k");
    }
    topn = static_cast<unsigned>(k);
    name = prefix + "@" + param;
  }
  return std::make_unique<RankMetric>(ndcg, name, topn, minus, nthread);
}

}  // namespace ringboost
