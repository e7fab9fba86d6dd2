// One regression tree, stored as XGBoost stores it: nodes in creation order (root 0, children
// appended as each node is split), so node ids in dumps match XGBoost's.
#pragma once

#include <cstdint>
#include <vector>

namespace ringboost {

struct TreeNode {
  int32_t parent = -1;
  int32_t left = -1;  // -1 for a leaf
  int32_t right = -1;
  uint32_t feature = 0;
  float split_cond = 0.0f;  // go left when value < split_cond
  bool default_left = false;
  float leaf_value = 0.0f;   // eta * weight, for leaves
  float base_weight = 0.0f;  // the node's weight before eta (XGBoost's base_weights)
  float gain = 0.0f;         // loss change of the split (0 for leaves)
  float sum_hess = 0.0f;     // cover

  bool IsLeaf() const { return left < 0; }
};

class RegTree {
 public:
  RegTree() : nodes_(1) {}
  const std::vector<TreeNode>& nodes() const { return nodes_; }
  std::vector<TreeNode>& nodes() { return nodes_; }
  int NumNodes() const { return static_cast<int>(nodes_.size()); }
  const TreeNode& operator[](int i) const { return nodes_[i]; }
  TreeNode& operator[](int i) { return nodes_[i]; }

  // Turns leaf `nid` into a split; its children are appended (left, right). Returns left's id.
  int Split(int nid, uint32_t feature, float split_cond, bool default_left, float gain);
  int Depth(int nid) const;
  int NumLeaves() const;

  // Leaf reached by a dense row (`row[f]` NaN = missing; features >= row.size() missing).
  int GetLeaf(const float* row, uint32_t num_feature) const;

 private:
  std::vector<TreeNode> nodes_;
};

}  // namespace ringboost
