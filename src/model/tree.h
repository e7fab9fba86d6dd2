// One regression tree, stored as XGBoost stores it: nodes in creation order (root 0, children
// appended as each node is split), so node ids in dumps match XGBoost's.
#pragma once

#include <cstddef>
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

 private:
  std::vector<TreeNode> nodes_;
};

// A tree laid out for routing many rows (predictions): 16 bytes a node, the children indexed by
// the comparison and leaves pointing at themselves, so that every row takes the tree's depth in
// steps with no branch on its values, and a block of rows walks in lockstep (their loads
// overlap).
class TreeWalker {
 public:
  static constexpr int kMaxRows = 8;  // rows a Leaves call takes

  TreeWalker(const RegTree& tree, uint32_t num_feature);
  // The leaves of rows [0, n), n <= kMaxRows, row i at rows + i * stride: num_feature values
  // (NaN = missing), then one NaN (what a feature beyond num_feature reads).
  void Leaves(const float* rows, std::size_t stride, int n, int* leaves) const;

 private:
  struct Node {
    uint32_t feature;  // low 31 bits: the feature (num_feature: the NaN pad); top bit: default left
    float split_cond;
    int32_t child[2];  // [0] right, [1] left
  };
  std::vector<Node> nodes_;
  int depth_ = 0;
};

}  // namespace ringboost
