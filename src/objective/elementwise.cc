// The CPU row loop around ElementwiseGradient (elementwise.h holds the per-row arithmetic that the
// CUDA kernel shares).
#include "objective/elementwise.h"

#include <cstdint>
#include <vector>

#include "objective/objectives.h"

namespace ringboost {

void ElementwiseGradients(const ElementwiseSpec& spec, const char* label_rule, const DataSet& data,
                          const std::vector<float>& preds, int nthread,
                          std::vector<GradPair>* out) {
  const int k = spec.num_class;
  const int64_t rows = static_cast<int64_t>(data.NumRows());
  RB_CHECK_MSG(preds.size() == static_cast<size_t>(rows) * k && data.label.size() == data.NumRows(),
               "preds " << preds.size() << ", labels " << data.label.size() << ", groups " << k);
  out->resize(preds.size());
  int bad = 0;
#pragma omp parallel for schedule(static) num_threads(nthread) reduction(| : bad)
  for (int64_t i = 0; i < rows; ++i) {
    const float label = data.label[i];
    bad |= !ElementwiseLabelOk(spec, label);
    ElementwiseGradient(spec, &preds[i * k], label, data.Weight(i), &(*out)[i * k]);
  }
  if (bad) RB_FAIL(data.name << ": " << label_rule);
}

}  // namespace ringboost
