// reg:absoluteerror and reg:quantileerror as XGBoost 3.2+ trains them (dmlc/xgboost#12373,
// #12386, #12391; issue #12351): smooth majorizations of the L1 and pinball losses whose
// gradient and hessian go through the ordinary Newton leaf path (lambda, min_child_weight and
// constraints apply), with no leaf refresh. XGBoost up to 3.1 gave sign gradients and then set
// every leaf to the quantile of its rows' residuals; 3.2+ and ringboost do not.
//
// Both rescale themselves each round from the residuals r = margin - label of output group j:
// S_j = (sum_i w_i sqrt|r_ij| / sum_i w_i)^2 over every worker's rows (0 when the weights sum to
// 0). The sums are exact fixed-point sums (rabit/exact_sum.h), so every worker, whatever the
// split of rows and threads, gets one process's S_j to the last bit.
//  * absoluteerror: pseudo-Huber with scale S and its MM/IRLS curvature:
//    c = S / hypot(S, r) (1 where both are 0), grad w r c, hess w c.
//  * quantileerror (alpha_j): the logistic-smoothed pinball score with x = r / (0.04 S_j),
//    grad w S_j / 2 (tanh x + 1 - 2 alpha_j), hess w / (2 0.04) max(tanh(x) / x, 3e-4)
//    (tanh(x) / x = 1 at x = 0); both 0 when S_j is 0 or w is 0. Several quantile_alpha values
//    (ascending) give one output per alpha, each with its own trees, and predictions sorted
//    within each row so that quantiles never cross (the margins stay as the trees give them).
// base_score, when not given, is estimated as 3.x does: absoluteerror from the weighted mean of
// the labels plus one unregularized MM step -G/H at that mean; quantileerror as each alpha's
// quantile of the labels (ExactQuantiles: one process's value on any number of workers, where
// XGBoost averages its workers' own quantiles).
#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/threads.h"
#include "objective/exact_quantiles.h"
#include "objective/objectives.h"
#include "rabit/exact_sum.h"

namespace ringboost {
namespace {

// XGBoost 3.x's fixed constants of the smooth quantile score: the smoothing width relative to
// S, and the floor of the curvature ratio tanh(x) / x.
constexpr float kSmoothingScale = 0.04f;
constexpr float kMinCurvatureRatio = 3.0e-4f;
// The hessian sum below which the base_score step divides by this instead (XGBoost's kRtEps).
constexpr float kMinHessianSum = 1e-6f;

GradPair AbsoluteErrorGradient(float residual, float w, float scale) {
  const float norm = std::hypot(scale, residual);
  const float curvature = norm > 0.0f ? scale / norm : 1.0f;
  return {w * residual * curvature, w * curvature};
}

GradPair QuantileGradient(float residual, float w, float scale, float alpha) {
  if (!(scale > 0.0f) || w == 0.0f) return {0.0f, 0.0f};
  const float x = residual / (kSmoothingScale * scale);
  const float tanh_x = std::tanh(x);
  const float ratio = std::max(x == 0.0f ? 1.0f : tanh_x / x, kMinCurvatureRatio);
  const float grad = 0.5f * scale * (tanh_x + 1.0f - 2.0f * alpha);
  const float hess = 0.5f / kSmoothingScale * ratio;
  return {w * grad, w * hess};
}

class SmoothQuantileObjective final : public Objective {
 public:
  // absolute: reg:absoluteerror (one output); else reg:quantileerror with these alphas.
  SmoothQuantileObjective(bool absolute, std::vector<double> alphas, const Params& params)
      : absolute_(absolute), alphas_(std::move(alphas)), nthread_(ResolveThreads(params.nthread)) {}

  std::string Name() const override {
    return absolute_ ? "reg:absoluteerror" : "reg:quantileerror";
  }
  int NumGroups() const override { return static_cast<int>(alphas_.size()); }
  std::string DefaultMetric() const override { return absolute_ ? "mae" : "quantile"; }
  const char* CheckLabel(float label) const override {
    return label == label ? nullptr : "label must be a number";
  }
  void Prepare(const DataSet& train, rabit::Communicator* comm) override {
    (void)train;
    comm_ = comm;
  }

  void GetGradient(const DataSet& data, const std::vector<float>& preds, int iter,
                   std::vector<GradPair>* out) const override {
    (void)iter;
    Gradients(data, preds, comm_, out);
  }

  // Sorted within each row (XGBoost 3.x's quantile PredTransform); the metrics read them so too.
  void PredTransform(std::vector<float>* preds) const override {
    const std::size_t k = alphas_.size();
    if (k < 2) return;
    for (std::size_t i = 0; i + k <= preds->size(); i += k) {
      std::sort(preds->begin() + i, preds->begin() + i + k);
    }
  }

  std::vector<float> EstimateBaseScore(const DataSet& train,
                                       rabit::Communicator* comm) const override {
    if (!absolute_) return ExactQuantiles(train.label, train.weight, alphas_, comm);
    const int64_t rows = static_cast<int64_t>(train.NumRows());
    const std::vector<double> sums =
        rabit::SumRowsAcrossWorkers(comm, rows, 2, nthread_, [&](int64_t i, auto* s) {
          s[0].AddProduct(train.label[i], train.Weight(i));
          s[1].Add(train.Weight(i));
        });
    if (!(sums[1] > 0)) return {0.0f};  // XGBoost too starts from 0 when the weights sum to 0
    const float mean = static_cast<float>(sums[0] / sums[1]);
    std::vector<GradPair> at_mean;
    Gradients(train, std::vector<float>(train.NumRows(), mean), comm, &at_mean);
    const auto gh = rabit::SumRowsAcrossWorkers(comm, rows, nthread_, [&](int64_t i) {
      return std::pair<float, float>(at_mean[i].grad, at_mean[i].hess);
    });
    const double step = -gh[0] / std::max(gh[1], static_cast<double>(kMinHessianSum));
    return {static_cast<float>(step) + mean};
  }

 private:
  // Per output group j: S_j (the file comment), the same on every worker.
  std::vector<float> ResidualScales(const DataSet& data, const std::vector<float>& preds,
                                    rabit::Communicator* comm) const {
    const int k = NumGroups();
    const std::vector<double> sums = rabit::SumRowsAcrossWorkers(
        comm, static_cast<int64_t>(data.NumRows()), k + 1, nthread_, [&](int64_t i, auto* s) {
          const float y = data.label[i], w = data.Weight(i);
          for (int j = 0; j < k; ++j) s[j].Add(w * std::sqrt(std::fabs(preds[i * k + j] - y)));
          s[k].Add(w);
        });
    std::vector<float> scale(k, 0.0f);
    for (int j = 0; j < k && sums[k] > 0; ++j) {
      const double root_mean = sums[j] / sums[k];
      scale[j] = static_cast<float>(root_mean * root_mean);
    }
    return scale;
  }

  void Gradients(const DataSet& data, const std::vector<float>& preds, rabit::Communicator* comm,
                 std::vector<GradPair>* out) const {
    const int k = NumGroups();
    const int64_t rows = static_cast<int64_t>(data.NumRows());
    RB_CHECK(preds.size() == data.NumRows() * k && data.label.size() == data.NumRows());
    const std::vector<float> scale = ResidualScales(data, preds, comm);
    out->resize(preds.size());
#pragma omp parallel for schedule(static) num_threads(nthread_)
    for (int64_t i = 0; i < rows; ++i) {
      const float y = data.label[i], w = data.Weight(i);
      for (int j = 0; j < k; ++j) {
        const float residual = preds[i * k + j] - y;
        (*out)[i * k + j] =
            absolute_ ? AbsoluteErrorGradient(residual, w, scale[j])
                      : QuantileGradient(residual, w, scale[j], static_cast<float>(alphas_[j]));
      }
    }
  }

  bool absolute_;
  std::vector<double> alphas_;
  int nthread_;
  rabit::Communicator* comm_ = nullptr;
};

}  // namespace

std::vector<double> ParseQuantileAlphas(const std::string& text) {
  std::string list = text;
  if (!list.empty() && list.front() == '[' && list.back() == ']') {
    list = list.substr(1, list.size() - 2);
  }
  std::vector<double> alphas;
  std::istringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    char* end = nullptr;
    const double a = std::strtod(item.c_str(), &end);
    while (end != nullptr && *end == ' ') ++end;
    if (end == item.c_str() || *end != '\0' || !(a > 0.0 && a < 1.0)) {
      RB_FAIL("quantile_alpha=" << text << ": expected a quantile in (0, 1) or a list of them, "
                                << "e.g. quantile_alpha=0.9 or quantile_alpha=[0.1,0.5,0.9]");
    }
    alphas.push_back(a);
  }
  if (alphas.empty()) RB_FAIL("quantile_alpha is empty: give a quantile in (0, 1)");
  if (!std::is_sorted(alphas.begin(), alphas.end())) {
    RB_FAIL("quantile_alpha=" << text
                              << ": the quantiles must be in ascending order (as XGBoost 3.x "
                                 "requires), e.g. quantile_alpha=[0.1,0.5,0.9]");
  }
  return alphas;
}

std::unique_ptr<Objective> MakeQuantileObjective(const std::string& name, const Params& params) {
  if (name == "reg:absoluteerror") {
    return std::make_unique<SmoothQuantileObjective>(true, std::vector<double>{0.5}, params);
  }
  if (name == "reg:quantileerror") {
    return std::make_unique<SmoothQuantileObjective>(
        false, ParseQuantileAlphas(params.quantile_alpha), params);
  }
  return nullptr;
}

}  // namespace ringboost
