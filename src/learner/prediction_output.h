// What task=pred checks of its input and how it writes its output, as XGBoost's CLI does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ringboost {

// Refuses to predict data with more features than the model was trained on (XGBoost: "Number of
// columns does not match number of features in booster"): the trees would never look at the
// extra ones, a silent wrong result. Fewer is fine: absent features are missing values.
// `data_columns` is 1 + the largest feature id over every worker's share.
void CheckFeatureCount(const std::string& test_uri, uint64_t data_columns,
                       const std::string& model_path, uint32_t model_features);

// The same for an eval set (eval[NAME]=uri, `data_columns` over every worker's share) and the
// `features` the model is trained on (XGBoost refuses it too): its metrics would score trees that
// ignore the extra features.
void CheckEvalFeatureCount(const std::string& name, const std::string& uri, uint64_t data_columns,
                           uint32_t features);

// The text of `preds` (`per_row` values for each row, row-major): layout "value" writes one value
// per line, as XGBoost's CLI (a multiclass row takes per_row lines); "row" one line per row, its
// values separated by tabs. Values with 9 significant digits (XGBoost's max_digits10 of float).
std::string PredictionText(const std::vector<float>& preds, int per_row, const std::string& layout);

}  // namespace ringboost
