// Which training features are categorical. Three sources, as XGBoost users name them: the
// `feature_types` key (q/c list), an fmap's type `c`, and a CSV URI's `categorical_column`; a
// feature is categorical when any of them says so.
#pragma once

#include <cstdint>
#include <vector>

#include "common/params.h"
#include "data/data.h"

namespace ringboost {

// Per feature id below `num_col`: 1 where categorical. Throws Error for a categorical feature
// at or past num_col where feature_types or the fmap is longer than the data is wide (a typo is
// likelier than an empty column), naming the key.
std::vector<uint8_t> CategoricalFeatures(const Params& params, const DataSet& train,
                                         uint32_t num_col);

}  // namespace ringboost
