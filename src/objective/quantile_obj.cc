// reg:absoluteerror and reg:quantileerror as XGBoost 3.x (regression_obj.cu's MeanAbsoluteError,
// quantile_obj.cu): constant hessians (the weight), so the tree's Newton leaf values mean little;
// after each tree the learner sets every leaf to eta times the alpha-quantile of its rows'
// residuals label - margin (LeafQuantileAlpha; AgreeLeafQuantiles in leaf_quantile.h), as
// XGBoost's UpdateTreeLeaf does. Several quantile_alpha values give one output per alpha, each
// with its own trees (XGBoost's multi-target layout with one tree per target).
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/threads.h"
#include "objective/objectives.h"

namespace ringboost {
namespace {

class QuantileObjective final : public Objective {
 public:
  // absolute: reg:absoluteerror (alpha 0.5, sign gradients); else reg:quantileerror.
  QuantileObjective(bool absolute, std::vector<double> alphas, const Params& params)
      : absolute_(absolute), alphas_(std::move(alphas)), nthread_(ResolveThreads(params.nthread)) {}

  std::string Name() const override {
    return absolute_ ? "reg:absoluteerror" : "reg:quantileerror";
  }
  int NumGroups() const override { return static_cast<int>(alphas_.size()); }
  std::string DefaultMetric() const override { return absolute_ ? "mae" : "quantile"; }
  const char* CheckLabel(float label) const override {
    return label == label ? nullptr : "label must be a number";
  }
  double LeafQuantileAlpha(int group) const override { return alphas_[group]; }

  // absoluteerror: grad sign(m - y) w. quantileerror: grad (1 - alpha) w where m >= y, else
  // -alpha w. Both: hess w.
  void GetGradient(const DataSet& data, const std::vector<float>& preds, int iter,
                   std::vector<GradPair>* out) const override {
    (void)iter;
    const int k = NumGroups();
    const int64_t rows = static_cast<int64_t>(data.NumRows());
    RB_CHECK(preds.size() == data.NumRows() * k && data.label.size() == data.NumRows());
    out->resize(preds.size());
#pragma omp parallel for schedule(static) num_threads(nthread_)
    for (int64_t i = 0; i < rows; ++i) {
      const float y = data.label[i], w = data.Weight(i);
      for (int j = 0; j < k; ++j) {
        const float d = preds[i * k + j] - y;
        float g;
        if (absolute_) {
          g = static_cast<float>((d > 0.0f) - (d < 0.0f)) * w;
        } else {
          const float alpha = static_cast<float>(alphas_[j]);
          g = d >= 0.0f ? (1.0f - alpha) * w : -alpha * w;
        }
        (*out)[i * k + j] = {g, w};
      }
    }
  }

 private:
  bool absolute_;
  std::vector<double> alphas_;
  int nthread_;
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
  return alphas;
}

std::unique_ptr<Objective> MakeQuantileObjective(const std::string& name, const Params& params) {
  if (name == "reg:absoluteerror") {
    return std::make_unique<QuantileObjective>(true, std::vector<double>{0.5}, params);
  }
  if (name == "reg:quantileerror") {
    return std::make_unique<QuantileObjective>(false, ParseQuantileAlphas(params.quantile_alpha),
                                               params);
  }
  return nullptr;
}

}  // namespace ringboost
