// Column sampling by tree, level and node (colsample_bytree / bylevel / bynode). A feature's
// draw is a counter-based hash of (seed, stream, tree, level or node, feature), so the chosen
// features never depend on threads or workers. Each set has max(1, floor(ratio * |parent set|))
// features: those with the smallest draws, returned in ascending order.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "tree/tree_params.h"

namespace ringboost {

class ColumnSampler {
 public:
  // tree_key identifies the tree (round * groups + group).
  ColumnSampler(uint32_t num_features, const TreeParams& params, uint64_t tree_key);

  // The features node `nid` at `depth` may split on. Without node sampling every node of a level
  // gets the level's one set (shared, not copied: on very wide data a copy a node would cost
  // nodes x features x 4 bytes).
  using FeatureSet = std::shared_ptr<const std::vector<uint32_t>>;
  FeatureSet ForNode(int nid, int depth);

 private:
  FeatureSet Sample(const FeatureSet& from, double ratio, uint64_t stream, uint64_t key) const;

  uint64_t seed_;
  uint64_t tree_key_;
  double bylevel_;
  double bynode_;
  FeatureSet tree_set_;
  std::map<int, FeatureSet> level_sets_;
};

}  // namespace ringboost
