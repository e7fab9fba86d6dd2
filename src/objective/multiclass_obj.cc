// multi:softmax and multi:softprob as XGBoost 1.7's multiclass_obj.cu: softmax over the
// row's num_class margins, gradient p_k - [k == y], hessian max(2 p_k (1 - p_k) w, 1e-16).
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/threads.h"
#include "objective/objective_detail.h"
#include "objective/objectives.h"

namespace ringboost {
namespace {

using objective_detail::Fmax;

// XGBoost's common::Softmax, in place: float max, double sum of float exps, float division.
void SoftmaxInPlace(float* row, int k) {
  float wmax = row[0];
  for (int j = 1; j < k; ++j) wmax = Fmax(row[j], wmax);
  double wsum = 0.0;
  for (int j = 0; j < k; ++j) {
    row[j] = std::exp(row[j] - wmax);
    wsum += row[j];
  }
  for (int j = 0; j < k; ++j) row[j] /= static_cast<float>(wsum);
}

class SoftmaxObjective final : public Objective {
 public:
  SoftmaxObjective(bool output_prob, const Params& params)
      : output_prob_(output_prob),
        num_class_(params.num_class),
        nthread_(ResolveThreads(params.nthread)) {
    if (num_class_ < 1) {
      RB_FAIL("num_class=" << num_class_ << ": " << Name()
                           << " needs num_class, the number of classes (labels 0..num_class-1)");
    }
  }

  std::string Name() const override { return output_prob_ ? "multi:softprob" : "multi:softmax"; }
  int NumGroups() const override { return num_class_; }
  std::string DefaultMetric() const override { return "mlogloss"; }

  const char* CheckLabel(float label) const override {
    const bool ok =
        label >= 0.0f && label < static_cast<float>(num_class_) && label == std::floor(label);
    return ok ? nullptr : "label must be an integer in [0, num_class) for multi:*";
  }

  void GetGradient(const DataSet& data, const std::vector<float>& preds, int iter,
                   std::vector<GradPair>* out) const override {
    (void)iter;
    const int k = num_class_;
    const int64_t rows = static_cast<int64_t>(data.NumRows());
    RB_CHECK_MSG(
        preds.size() == static_cast<size_t>(rows) * k && data.label.size() == data.NumRows(),
        "preds " << preds.size() << ", rows " << rows << ", num_class " << k);
    out->resize(preds.size());
    int bad = 0;
#pragma omp parallel for schedule(static) num_threads(nthread_) reduction(| : bad)
    for (int64_t i = 0; i < rows; ++i) {
      bad |= CheckLabel(data.label[i]) != nullptr;
      RowGradient(&preds[i * k], data.label[i], data.Weight(i), &(*out)[i * k]);
    }
    if (bad) RB_FAIL(data.name << ": " << CheckLabel(-1.0f));
  }

  // multi:softmax: rows x num_class margins become ONE value per row, the class id of the
  // largest margin (first on ties), so the vector shrinks to rows. multi:softprob: softmax.
  void PredTransform(std::vector<float>* preds) const override {
    if (output_prob_) return EvalTransform(preds);
    const size_t k = num_class_;
    const size_t rows = preds->size() / k;
    for (size_t i = 0; i < rows; ++i) {
      const float* row = preds->data() + i * k;
      size_t best = 0;
      for (size_t j = 0; j < k; ++j) {
        if (row[j] > row[best]) best = j;
      }
      (*preds)[i] = static_cast<float>(best);
    }
    preds->resize(rows);
  }

  void EvalTransform(std::vector<float>* preds) const override {
    const size_t rows = preds->size() / num_class_;
    for (size_t i = 0; i < rows; ++i) SoftmaxInPlace(preds->data() + i * num_class_, num_class_);
  }

 private:
  // XGBoost's kernel, including its start of the running max at FLT_MIN (the smallest positive
  // float, so the max is floored at ~0) and the weight inside the hessian's floor.
  void RowGradient(const float* margin, float label, float wt, GradPair* out) const {
    float wmax = std::numeric_limits<float>::min();
    for (int j = 0; j < num_class_; ++j) wmax = Fmax(margin[j], wmax);
    double wsum = 0.0;
    for (int j = 0; j < num_class_; ++j) wsum += std::exp(margin[j] - wmax);
    for (int j = 0; j < num_class_; ++j) {
      float p = std::exp(margin[j] - wmax) / static_cast<float>(wsum);
      const float h = Fmax(2.0f * p * (1.0f - p) * wt, 1e-16f);
      if (label == static_cast<float>(j)) p = p - 1.0f;
      out[j] = {p * wt, h};
    }
  }

  bool output_prob_;
  int num_class_;
  int nthread_;
};

}  // namespace

std::unique_ptr<Objective> MakeMulticlassObjective(const std::string& name, const Params& params) {
  if (name == "multi:softmax") return std::make_unique<SoftmaxObjective>(false, params);
  if (name == "multi:softprob") return std::make_unique<SoftmaxObjective>(true, params);
  return nullptr;
}

}  // namespace ringboost
