// multi:softmax and multi:softprob as XGBoost 1.7's multiclass_obj.cu: softmax over the
// row's num_class margins, gradient p_k - [k == y], hessian max(2 p_k (1 - p_k) w, 1e-16), each
// row by ElementwiseGradient (elementwise.h).
#include <memory>
#include <string>
#include <vector>

#include "common/threads.h"
#include "objective/elementwise.h"
#include "objective/objectives.h"

namespace ringboost {
namespace {

// XGBoost's common::Softmax, in place: float max, double sum of float exps, float division.
void SoftmaxInPlace(float* row, int k) {
  float wmax = row[0];
  for (int j = 1; j < k; ++j) wmax = Fmax(row[j], wmax);
  double wsum = 0.0;
  for (int j = 0; j < k; ++j) {
    row[j] = ExpF(row[j] - wmax);
    wsum += row[j];
  }
  for (int j = 0; j < k; ++j) row[j] /= static_cast<float>(wsum);
}

class SoftmaxObjective final : public ElementwiseObjective {
 public:
  SoftmaxObjective(bool output_prob, const Params& params)
      : ElementwiseObjective(
            ElementwiseSpec{ElementwiseLoss::kSoftmax, 1.0f, 0.0f, params.num_class}, kLabelRule,
            ResolveThreads(params.nthread)),
        output_prob_(output_prob) {
    if (spec_.num_class < 1) {
      RB_FAIL("num_class=" << spec_.num_class << ": " << Name()
                           << " needs num_class, the number of classes (labels 0..num_class-1)");
    }
  }

  std::string Name() const override { return output_prob_ ? "multi:softprob" : "multi:softmax"; }
  int NumGroups() const override { return spec_.num_class; }
  std::string DefaultMetric() const override { return "mlogloss"; }

  // multi:softmax: rows x num_class margins become ONE value per row, the class id of the
  // largest margin (first on ties), so the vector shrinks to rows. multi:softprob: softmax.
  void PredTransform(std::vector<float>* preds) const override {
    if (output_prob_) return EvalTransform(preds);
    const size_t k = spec_.num_class;
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
    const int k = spec_.num_class;
    const size_t rows = preds->size() / k;
    for (size_t i = 0; i < rows; ++i) SoftmaxInPlace(preds->data() + i * k, k);
  }

 private:
  static constexpr const char* kLabelRule =
      "label must be an integer in [0, num_class) for multi:*";
  bool output_prob_;
};

}  // namespace

std::unique_ptr<Objective> MakeMulticlassObjective(const std::string& name, const Params& params) {
  if (name == "multi:softmax") return std::make_unique<SoftmaxObjective>(false, params);
  if (name == "multi:softprob") return std::make_unique<SoftmaxObjective>(true, params);
  return nullptr;
}

}  // namespace ringboost
