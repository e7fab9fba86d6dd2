// FeatureImportance: XGBoost's get_score over ringboost's trees.
#include "model/importance.h"

#include <map>

#include "common/error.h"
#include "model/xgboost_doc.h"

namespace ringboost {

ImportanceType ImportanceTypeFromName(const std::string& name) {
  if (name == "weight") return ImportanceType::kWeight;
  if (name == "gain") return ImportanceType::kGain;
  if (name == "cover") return ImportanceType::kCover;
  if (name == "total_gain") return ImportanceType::kTotalGain;
  if (name == "total_cover") return ImportanceType::kTotalCover;
  RB_FAIL(
      "importance type '" << name
                          << "' is unknown; use weight, gain, cover, total_gain or total_cover");
}

std::vector<std::pair<uint32_t, float>> FeatureImportance(const Model& model, ImportanceType type) {
  struct Sums {
    float count = 0, gain = 0, cover = 0;
  };
  std::map<uint32_t, Sums> sums;
  for (const RegTree& tree : model.trees) {
    for (const TreeNode& node : tree.nodes()) {
      if (node.IsLeaf()) continue;
      Sums& s = sums[node.feature];
      s.count += 1.0f;
      s.gain += node.gain;
      s.cover += node.sum_hess;
    }
  }
  std::vector<std::pair<uint32_t, float>> out;
  for (const auto& [feature, s] : sums) {
    float score = s.count;
    switch (type) {
      case ImportanceType::kWeight:
        break;
      case ImportanceType::kGain:
        score = s.gain / s.count;
        break;
      case ImportanceType::kCover:
        score = s.cover / s.count;
        break;
      case ImportanceType::kTotalGain:
        score = s.gain;
        break;
      case ImportanceType::kTotalCover:
        score = s.cover;
        break;
    }
    out.emplace_back(feature, score);
  }
  return out;
}

std::string ImportanceJson(const std::vector<std::pair<uint32_t, float>>& scores,
                           const FeatureMap* fmap) {
  xgb::Json out = xgb::Json::object();
  for (const auto& [feature, score] : scores) {
    const bool named = fmap != nullptr && feature < fmap->names.size();
    out[named ? fmap->names[feature] : "f" + std::to_string(feature)] = score;
  }
  return out.dump() + "\n";
}

}  // namespace ringboost
