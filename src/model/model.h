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
  std::string config;  // the training parameters as key=value lines, for the record

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

// The number of trees of the first `num_rounds` rounds (0 = all); throws Error when out of range.
std::size_t TreesForRounds(const Model& model, int num_rounds);

// Margins (rows x num_groups, row-major) of the first `num_rounds` rounds (0 = all).
std::vector<float> PredictMargin(const Model& model, const DataSet& data, int num_rounds,
                                 int nthread);

// Adds trees[t]'s leaf value of each row of `data` to margins[row * stride + groups[t]], in tree
// order. Features from num_feature on are missing (the trees were trained on fewer).
void AddTreeMargins(const std::vector<const RegTree*>& trees, const std::vector<int>& groups,
                    uint32_t num_feature, const DataSet& data, int stride, float* margins,
                    int nthread);

// A data set's values as a row-major matrix, what TreeWalker reads: num_feature + 1 columns,
// NaN where missing and in the last column. For sets walked every round (eval sets) when most
// cells hold a value: no CSR to scatter and clear per block, half its bytes.
struct DenseRows {
  uint32_t num_feature = 0;
  std::vector<float> values;
  uint64_t NumRows() const { return values.size() / (static_cast<uint64_t>(num_feature) + 1); }

  // Whether the matrix of `data` would take at most the bytes of its CSR entries.
  static bool Pays(const DataSet& data, uint32_t num_feature);
  static DenseRows From(const DataSet& data, uint32_t num_feature, int nthread);
};
void AddTreeMargins(const std::vector<const RegTree*>& trees, const std::vector<int>& groups,
                    const DenseRows& rows, int stride, float* margins, int nthread);

// Feature map (XGBoost's fmap: "<id>\t<name>\t<type>" lines; types i, q, int, float).
struct FeatureMap {
  std::vector<std::string> names;
  std::vector<std::string> types;
  static FeatureMap Load(const std::string& path);
};

// XGBoost's text dump ("booster[i]:" then indented nodes) with optional stats and fmap names.
std::string DumpText(const Model& model, const FeatureMap* fmap, bool with_stats);
// XGBoost's JSON dump: an array of nested node objects, one per tree.
std::string DumpJson(const Model& model, const FeatureMap* fmap, bool with_stats);

}  // namespace ringboost
