#include "learner/feature_types.h"

#include <string>

#include "common/error.h"
#include "model/model.h"

namespace ringboost {
namespace {

// Feature ids marked c by feature_types ("q,q,c") and by the fmap, with the key that said so.
std::vector<std::pair<uint32_t, std::string>> ConfiguredCategorical(const Params& params) {
  std::vector<std::pair<uint32_t, std::string>> out;
  uint32_t id = 0;
  std::string type;
  const std::string& list = params.feature_types;
  for (std::size_t i = 0; i <= list.size() && !list.empty(); ++i) {
    if (i < list.size() && list[i] != ',') {
      if (list[i] != ' ') type += list[i];
      continue;
    }
    if (type == "c") out.emplace_back(id, "feature_types");
    type.clear();
    ++id;
  }
  if (!params.fmap.empty()) {
    const FeatureMap fmap = FeatureMap::Load(params.fmap);
    for (std::size_t f = 0; f < fmap.types.size(); ++f) {
      if (fmap.types[f] == "c") out.emplace_back(static_cast<uint32_t>(f), "fmap " + params.fmap);
    }
  }
  return out;
}

}  // namespace

std::vector<uint8_t> CategoricalFeatures(const Params& params, const DataSet& train,
                                         uint32_t num_col) {
  std::vector<uint8_t> is_cat(num_col, 0);
  for (const auto& [id, key] : ConfiguredCategorical(params)) {
    if (id >= num_col) {
      RB_FAIL(key << ": feature " << id << " is categorical, but the training data has "
                  << (num_col == 0 ? std::string("no features")
                                   : std::to_string(num_col) + " features (ids 0 to " +
                                         std::to_string(num_col - 1) + ")"));
    }
    is_cat[id] = 1;
  }
  for (uint32_t id : train.categorical) {
    if (id < num_col) is_cat[id] = 1;  // a CSV column past every row's last value: empty
  }
  return is_cat;
}

}  // namespace ringboost
