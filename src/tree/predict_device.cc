// Host side of device prediction (predict_device.h): flattening the trees, and the reference.
#include "tree/predict_device.h"

#include <algorithm>

#include "common/error.h"

namespace ringboost {

FlatForest FlattenForest(const Model& model, std::size_t num_trees) {
  FlatForest f;
  bool any_cat = false;
  for (std::size_t t = 0; t < num_trees; ++t) any_cat = any_cat || model.trees[t].HasCategorical();
  if (any_cat) f.cat_ptr.push_back(0);
  for (std::size_t t = 0; t < num_trees; ++t) {
    RB_CHECK(model.tree_group[t] >= 0 && model.tree_group[t] < model.num_groups);
    f.tree_begin.push_back(static_cast<uint32_t>(f.nodes.size()));
    f.tree_group.push_back(model.tree_group[t]);
    for (const TreeNode& n : model.trees[t].nodes()) {
      f.nodes.push_back(FlatNode{n.left, n.right, n.feature, n.split_cond, n.leaf_value,
                                 static_cast<uint8_t>(n.default_left),
                                 static_cast<uint8_t>(n.is_cat)});
      if (!any_cat) continue;
      if (n.is_cat)
        f.categories.insert(f.categories.end(), n.categories.begin(), n.categories.end());
      RB_CHECK_MSG(f.categories.size() <= UINT32_MAX, "too many categories to predict on the GPU");
      f.cat_ptr.push_back(static_cast<uint32_t>(f.categories.size()));
    }
  }
  return f;
}

ForestView FlatForest::View() const {
  ForestView v{nodes.data(),
               tree_begin.data(),
               tree_group.data(),
               static_cast<uint32_t>(tree_begin.size()),
               0,
               0,
               0.0f};
  if (!cat_ptr.empty()) {
    v.cat_ptr = cat_ptr.data();
    v.categories = categories.data();
  }
  return v;
}

std::vector<float> PredictMarginReference(const Model& model, const DataSet& data, int num_rounds) {
  const FlatForest f = FlattenForest(model, TreesForRounds(model, num_rounds));
  ForestView forest = f.View();
  forest.num_feature = model.num_feature;
  forest.num_groups = model.num_groups;
  forest.base_margin = model.base_margin;
  const CsrView csr{data.row_ptr.data(), data.index.data(), data.value.data()};
  std::vector<float> margins = model.InitialMargins(data.NumRows());
  for (uint64_t r = 0; r < data.NumRows(); ++r) {
    PredictRow(forest, csr, r, margins.data() + r * model.num_groups);
  }
  return margins;
}

}  // namespace ringboost
