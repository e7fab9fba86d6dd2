// Host side of device prediction (predict_device.h): flattening the trees, and the reference.
#include "tree/predict_device.h"

#include <algorithm>

#include "common/error.h"

namespace ringboost {

FlatForest FlattenForest(const Model& model, std::size_t num_trees) {
  FlatForest f;
  for (std::size_t t = 0; t < num_trees; ++t) {
    RB_CHECK(model.tree_group[t] >= 0 && model.tree_group[t] < model.num_groups);
    f.tree_begin.push_back(static_cast<uint32_t>(f.nodes.size()));
    f.tree_group.push_back(model.tree_group[t]);
    for (const TreeNode& n : model.trees[t].nodes()) {
      if (n.is_cat) {
        RB_FAIL("the model has categorical splits (tree " << t
                                                          << "), which the GPU does not predict "
                                                             "yet; predict with device=cpu");
      }
      f.nodes.push_back(FlatNode{n.left, n.right, n.feature, n.split_cond, n.leaf_value,
                                 static_cast<uint8_t>(n.default_left)});
    }
  }
  return f;
}

std::vector<float> PredictMarginReference(const Model& model, const DataSet& data, int num_rounds) {
  const FlatForest f = FlattenForest(model, TreesForRounds(model, num_rounds));
  const ForestView forest{f.nodes.data(),      f.tree_begin.data(),
                          f.tree_group.data(), static_cast<uint32_t>(f.tree_begin.size()),
                          model.num_feature,   model.num_groups,
                          model.base_margin};
  const CsrView csr{data.row_ptr.data(), data.index.data(), data.value.data()};
  std::vector<float> margins = model.InitialMargins(data.NumRows());
  for (uint64_t r = 0; r < data.NumRows(); ++r) {
    PredictRow(forest, csr, r, margins.data() + r * model.num_groups);
  }
  return margins;
}

}  // namespace ringboost
