// RegTree: growing by Split (XGBoost's node numbering) and routing a dense row to its leaf.
#include "model/tree.h"

#include <cmath>

#include "common/error.h"

namespace ringboost {

int RegTree::Split(int nid, uint32_t feature, float split_cond, bool default_left, float gain) {
  RB_CHECK_MSG(nid >= 0 && nid < NumNodes(), "node " << nid << " of " << NumNodes());
  RB_CHECK_MSG(nodes_[nid].IsLeaf(), "node " << nid << " is already split");
  const int left = NumNodes();
  const int right = left + 1;
  TreeNode child;
  child.parent = nid;
  nodes_.push_back(child);  // may reallocate: take the reference to nid only afterwards
  nodes_.push_back(child);
  TreeNode& node = nodes_[nid];
  node.left = left;
  node.right = right;
  node.feature = feature;
  node.split_cond = split_cond;
  node.default_left = default_left;
  node.gain = gain;
  node.leaf_value = 0.0f;  // a split node has no leaf value
  return left;
}

int RegTree::Depth(int nid) const {
  RB_CHECK_MSG(nid >= 0 && nid < NumNodes(), "node " << nid << " of " << NumNodes());
  int depth = 0;
  // Bounded by the node count, so that a corrupt parent chain cannot loop forever.
  while (nodes_[nid].parent >= 0) {
    nid = nodes_[nid].parent;
    ++depth;
    RB_CHECK_MSG(depth < NumNodes(), "cycle in the parent chain");
  }
  return depth;
}

int RegTree::NumLeaves() const {
  int leaves = 0;
  for (const TreeNode& node : nodes_) leaves += node.IsLeaf() ? 1 : 0;
  return leaves;
}

int RegTree::GetLeaf(const float* row, uint32_t num_feature) const {
  int nid = 0;
  while (!nodes_[nid].IsLeaf()) {
    const TreeNode& node = nodes_[nid];
    // A feature beyond the row is missing, like a NaN.
    const float value = node.feature < num_feature ? row[node.feature] : NAN;
    if (std::isnan(value)) {
      nid = node.default_left ? node.left : node.right;
    } else {
      nid = value < node.split_cond ? node.left : node.right;
    }
  }
  return nid;
}

}  // namespace ringboost
