// ApplyCategories (quantile.h): the bins of categorical features, one per code from 0 to the
// largest code seen in training, as XGBoost's sketch makes them (AddCategories there): a code
// absent from the training rows still has its (empty) bin, which takes part in the sort of
// partition splits and in the count that picks one-hot splits.
#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "data/data.h"
#include "model/tree.h"
#include "tree/bins/quantile.h"

namespace ringboost {
namespace {

constexpr uint32_t kMaxCategoriesPerFeature = 65536;  // dense bins are at most 16 bits

// Per feature: 1 + the largest code of this worker's values (0: none), after checking each.
std::vector<uint64_t> LocalCodeCounts(const DataSet& data, const std::vector<uint8_t>& is_cat) {
  std::vector<uint64_t> count(is_cat.size(), 0);
  for (uint64_t row = 0; row < data.NumRows(); ++row) {
    for (uint64_t k = data.row_ptr[row]; k < data.row_ptr[row + 1]; ++k) {
      const uint32_t f = data.index[k];
      if (f >= is_cat.size() || !is_cat[f]) continue;
      const float v = data.value[k];
      if (!(v >= 0.0f) || v >= static_cast<float>(kMaxCategory)) {
        RB_FAIL(DataRowPlace(data.name, data.first_row + row)
                << ": feature " << f << " is categorical and has the value " << v
                << "; a category is an integer code in [0, 2^24) (XGBoost refuses "
                   "the same); recode it or declare the feature q");
      }
      count[f] = std::max<uint64_t>(count[f], static_cast<uint64_t>(v) + 1);
    }
  }
  return count;
}

}  // namespace

void ApplyCategories(const DataSet& data, const std::vector<uint8_t>& is_cat,
                     rabit::Communicator* comm, HistogramCuts* cuts) {
  const uint32_t nf = cuts->NumFeatures();
  RB_CHECK(is_cat.size() == nf);
  if (std::none_of(is_cat.begin(), is_cat.end(), [](uint8_t c) { return c != 0; })) return;
  std::vector<uint64_t> count = LocalCodeCounts(data, is_cat);
  comm->Allreduce(Span<uint64_t>(count), rabit::Op::kMax);
  HistogramCuts out;
  out.min_values = cuts->min_values;
  out.is_cat.assign(nf, 0);
  for (uint32_t f = 0; f < nf; ++f) {
    if (is_cat[f] && count[f] > kMaxCategoriesPerFeature) {
      RB_FAIL(data.name << ": categorical feature " << f << " has codes up to " << count[f] - 1
                        << "; at most " << kMaxCategoriesPerFeature
                        << " codes (0 to 65535) are supported");
    }
    std::vector<float> bins;
    for (uint64_t code = 0; code < count[f] && is_cat[f]; ++code) {
      bins.push_back(static_cast<float>(code + 1));
    }
    if (bins.empty()) {  // quantitative, or categorical without values: the cuts as they are
      bins.assign(cuts->values.begin() + cuts->ptr[f], cuts->values.begin() + cuts->ptr[f + 1]);
    } else {
      out.is_cat[f] = 1;
      out.min_values[f] = -1.0f;
    }
    out.values.insert(out.values.end(), bins.begin(), bins.end());
    out.ptr.push_back(static_cast<uint32_t>(out.values.size()));
  }
  *cuts = std::move(out);
}

}  // namespace ringboost
