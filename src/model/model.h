// The model: trees, their output groups and what is needed to predict (DESIGN.md "Model").
// Saved as versioned JSON (schema in docs/model-format.md); dumped as XGBoost text or JSON.
#pragma once

#include <string>
#include <vector>

#include "data/data.h"
#include "model/tree.h"

namespace ringboost {

struct Model {
  // 3: with categorical splits; 2: with base_margins; 1 otherwise (each the lowest that holds it).
  static constexpr int kFormatVersion = 3;

  std::string objective;     // name, e.g. "binary:logistic"
  float base_score = 0.5f;   // as given (a prediction, not a margin)
  float base_margin = 0.0f;  // objective's ProbToMargin(base_score)
  // Per output group when the groups start from different margins (an imported XGBoost 3.x
  // multiclass model); empty: every group starts at base_margin.
  std::vector<float> base_margins;
  int num_groups = 1;  // outputs per row (num_class for multiclass)
  int num_class = 0;   // as configured
  uint32_t num_feature = 0;
  std::vector<RegTree> trees;
  std::vector<int> tree_group;  // output group of each tree
  int num_rounds = 0;           // boosting rounds done (trees = rounds x groups)
  int best_iteration = -1;      // from early stopping, -1 when not used
  double best_score = 0.0;
  std::vector<std::string> feature_names;  // optional (from fmap)
  // The objective's parameters as key=value lines (learner/run_identity.h ObjectiveConfig),
  // which the XGBoost export reads; a checkpoint's holds its run's identity instead.
  std::string config;

  float BaseMargin(int group) const {
    return base_margins.empty() ? base_margin : base_margins[group];
  }
  // rows x num_groups margins (row-major), each group's initial margin.
  std::vector<float> InitialMargins(uint64_t rows) const;

  // Atomic: written to a temporary file in the same folder, fsynced and renamed. Throws Error.
  void Save(const std::string& path) const;
  // Reads ringboost's format or XGBoost's (JSON, UBJSON, 1.x binary), detected by content.
  static Model Load(const std::string& path);
  std::string ToJson() const;
  static Model FromJson(const std::string& text, const std::string& source_name);
};

// Feature map (XGBoost's fmap: "<id>\t<name>\t<type>" lines; types i, q, int, float).
struct FeatureMap {
  std::vector<std::string> names;
  std::vector<std::string> types;
  static FeatureMap Load(const std::string& path);
  // The feature map at `path`; none given, the model's own feature names (as XGBoost's dumps and
  // scores use a booster's feature_names), each quantitative. Empty when neither names any.
  static FeatureMap For(const Model& model, const std::string& path);
};

// XGBoost's text dump ("booster[i]:" then indented nodes) with optional stats and fmap names.
std::string DumpText(const Model& model, const FeatureMap* fmap, bool with_stats);
// XGBoost's JSON dump: an array of nested node objects, one per tree.
std::string DumpJson(const Model& model, const FeatureMap* fmap, bool with_stats);
// Graphviz DOT of tree `tree` (-1: every tree, each a cluster "booster[i]"), drawn as XGBoost's
// to_graphviz draws it: split nodes "f<cond", leaf boxes "leaf=v", a blue "yes" and a red "no"
// edge, ", missing" on the default one. Throws Error when `tree` is not a tree of the model.
std::string DumpDot(const Model& model, const FeatureMap* fmap, bool with_stats, int tree);

}  // namespace ringboost
