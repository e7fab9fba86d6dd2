// Feature importance as XGBoost's Booster.get_score computes it (docs/model-format.md,
// "Importance"): per feature used in a split, the split count (weight), the summed loss change
// (total_gain) and node hessian (total_cover), and their means per split (gain, cover).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/model.h"

namespace ringboost {

enum class ImportanceType { kWeight, kGain, kCover, kTotalGain, kTotalCover };

// Throws Error naming the five types for any other name.
ImportanceType ImportanceTypeFromName(const std::string& name);

// (feature id, score) of every feature some split uses, by feature id. Sums run in float in
// tree and node order, as XGBoost's do.
std::vector<std::pair<uint32_t, float>> FeatureImportance(const Model& model, ImportanceType type);

// {"f<id>": score, ...} (fmap names where the map has the feature), one line, newline-ended.
std::string ImportanceJson(const std::vector<std::pair<uint32_t, float>>& scores,
                           const FeatureMap* fmap);

}  // namespace ringboost
