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
  // A categorical split (XGBoost's split_type 1): a row whose value, truncated to an integer
  // code, is in `categories` (ascending) goes right; any other code goes left, an unseen one, a
  // negative one and one from 2^24 on included (XGBoost's Decision). Missing takes default_left.
  bool is_cat = false;
  std::vector<uint32_t> categories;

  bool IsLeaf() const { return left < 0; }
  // Where a present value `v` goes at this split node.
  bool GoesLeft(float v) const;
};

// Category codes are below this (XGBoost's limit: a code must be exact in a float).
constexpr uint32_t kMaxCategory = 1u << 24;
// Whether the present value `v`, truncated to a code, is one of `categories` (ascending): false
// for a negative value and one from kMaxCategory on (XGBoost sends those left).
bool InCategories(const std::vector<uint32_t>& categories, float v);

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
  // The same for a categorical split: `categories` (ascending codes) go right.
  int SplitCategorical(int nid, uint32_t feature, std::vector<uint32_t> categories,
                       bool default_left, float gain);
  bool HasCategorical() const;
  int Depth(int nid) const;
  int NumLeaves() const;

 private:
  std::vector<TreeNode> nodes_;
};

// Each node's depth (the root 0), -1 for nodes the root does not reach; throws Error where a
// child index is out of range or reached twice.
std::vector<int> NodeDepths(const RegTree& tree);

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
  void LeavesCategorical(const float* rows, std::size_t stride, int n, int* leaves) const;
  // Leaves of trees without categorical splits; kRows > 0: n is kRows.
  template <int kRows>
  void LeavesNumerical(const float* rows, std::size_t stride, int n, int* leaves) const;
  std::vector<Node> nodes_;
  int depth_ = 0;
  // Trees with categorical splits: per node, its categories (empty for numerical splits).
  std::vector<std::vector<uint32_t>> categories_;
  std::vector<uint8_t> is_cat_;
};

}  // namespace ringboost
