// survival:cox as XGBoost's CoxRegression (regression_obj.cu): Cox proportional hazards with
// Breslow's method for ties. In |label| order, with E = the sum of exp(m) over the rows still at
// risk, r = sum over events so far of 1 / E and s = sum of 1 / E^2: grad exp(m) r - [event],
// hess exp(m) r - exp(m)^2 s, times the weight. The sums run over every worker's rows (gathered,
// 12 bytes a row a round), so every worker gets one process's gradients.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "objective/cox.h"
#include "objective/objectives.h"

namespace ringboost {

std::vector<CoxRow> GatherCoxRows(const DataSet& data, const std::vector<float>& values,
                                  uint64_t first_row, rabit::Communicator* comm) {
  std::vector<CoxRow> mine(data.NumRows());
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = {data.label[i], values[i], first_row + i};
  std::vector<CoxRow> all = mine;
  if (comm != nullptr && comm->WorldSize() > 1) {
    std::vector<char> bytes;
    ThrowIfError(comm->AllgathervRaw(mine.data(), mine.size() * sizeof(CoxRow), &bytes));
    all.resize(bytes.size() / sizeof(CoxRow));
    if (!all.empty()) std::memcpy(all.data(), bytes.data(), all.size() * sizeof(CoxRow));
  }
  std::stable_sort(all.begin(), all.end(), [](const CoxRow& a, const CoxRow& b) {
    const float x = std::fabs(a.label), y = std::fabs(b.label);
    return x < y || (x == y && a.global < b.global);
  });
  return all;
}

namespace {

class CoxObjective final : public Objective {
 public:
  std::string Name() const override { return "survival:cox"; }
  std::string DefaultMetric() const override { return "cox-nloglik"; }
  const char* CheckLabel(float label) const override {
    return label == label && label != 0.0f ? nullptr : kLabelRule;
  }
  void Prepare(const DataSet& train, rabit::Communicator* comm) override {
    first_row_ = train.first_row;
    comm_ = comm;
  }

  void GetGradient(const DataSet& data, const std::vector<float>& preds, int iter,
                   std::vector<GradPair>* out) const override {
    (void)iter;
    RB_CHECK(preds.size() == data.NumRows() && data.label.size() == data.NumRows());
    const std::vector<CoxRow> rows = GatherCoxRows(data, preds, first_row_, comm_);
    double exp_p_sum = 0;
    for (const CoxRow& r : rows) exp_p_sum += std::exp(static_cast<double>(r.value));
    out->resize(data.NumRows());
    double r_k = 0, s_k = 0, last_exp_p = 0, last_abs_y = 0, accumulated = 0;
    for (const CoxRow& row : rows) {
      const double exp_p = std::exp(static_cast<double>(row.value));
      const double y = row.label, abs_y = std::fabs(y);
      // The denominator moves only when time moves forward (Breslow's ties).
      accumulated += last_exp_p;
      if (last_abs_y < abs_y) {
        exp_p_sum -= accumulated;
        accumulated = 0;
      }
      if (y > 0) {
        r_k += 1.0 / exp_p_sum;
        s_k += 1.0 / (exp_p_sum * exp_p_sum);
      }
      last_abs_y = abs_y;
      last_exp_p = exp_p;
      if (row.global < first_row_ || row.global >= first_row_ + data.NumRows()) continue;
      const std::size_t i = row.global - first_row_;
      const double w = data.Weight(i);
      const double grad = exp_p * r_k - static_cast<float>(y > 0);
      const double hess = exp_p * r_k - exp_p * exp_p * s_k;
      (*out)[i] = {static_cast<float>(grad * w), static_cast<float>(hess * w)};
    }
  }

  void PredTransform(std::vector<float>* preds) const override {
    for (float& p : *preds) p = std::exp(p);
  }
  float ProbToMargin(float base_score) const override {
    if (!(base_score > 0.0f)) {
      RB_FAIL("base_score=" << base_score << ": must be > 0 for survival:cox (its log is the "
                            << "initial margin)");
    }
    return std::log(base_score);
  }

 private:
  static constexpr const char* kLabelRule =
      "label must be a nonzero survival time for survival:cox (negative: right-censored)";
  uint64_t first_row_ = 0;
  rabit::Communicator* comm_ = nullptr;
};

}  // namespace

std::unique_ptr<Objective> MakeCoxObjective(const std::string& name, const Params& params) {
  (void)params;
  if (name == "survival:cox") return std::make_unique<CoxObjective>();
  return nullptr;
}

}  // namespace ringboost
