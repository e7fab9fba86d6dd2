// RegTree: growing by Split (XGBoost's node numbering); TreeWalker: routing rows to leaves.
#include "model/tree.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

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

int RegTree::SplitCategorical(int nid, uint32_t feature, std::vector<uint32_t> categories,
                              bool default_left, float gain) {
  // XGBoost keeps no threshold for a categorical split; its files hold the smallest denormal.
  const int left =
      Split(nid, feature, std::numeric_limits<float>::denorm_min(), default_left, gain);
  nodes_[nid].is_cat = true;
  nodes_[nid].categories = std::move(categories);
  return left;
}

bool RegTree::HasCategorical() const {
  return std::any_of(nodes_.begin(), nodes_.end(), [](const TreeNode& n) { return n.is_cat; });
}

bool InCategories(const std::vector<uint32_t>& categories, float v) {
  if (!(v >= 0.0f) || v >= static_cast<float>(kMaxCategory)) return false;
  return std::binary_search(categories.begin(), categories.end(), static_cast<uint32_t>(v));
}

bool TreeNode::GoesLeft(float v) const {
  return is_cat ? !InCategories(categories, v) : v < split_cond;
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

std::vector<int> NodeDepths(const RegTree& tree) {
  const int n = tree.NumNodes();
  std::vector<int> depth(n, -1);
  std::vector<int> stack = {0};
  depth[0] = 0;
  while (!stack.empty()) {
    const int nid = stack.back();
    stack.pop_back();
    const TreeNode& x = tree[nid];
    if (x.IsLeaf()) continue;
    for (int child : {x.left, x.right}) {
      RB_CHECK_MSG(child > 0 && child < n && depth[child] < 0,
                   "node " << nid << " has a bad child " << child);
      depth[child] = depth[nid] + 1;
      stack.push_back(child);
    }
  }
  return depth;
}

TreeWalker::TreeWalker(const RegTree& tree, uint32_t num_feature) {
  RB_CHECK_MSG(num_feature < (1u << 31), "too many features: " << num_feature);
  const std::vector<int> depth = NodeDepths(tree);
  const int n = tree.NumNodes();
  nodes_.resize(n);
  for (int nid = 0; nid < n; ++nid) {
    if (depth[nid] < 0) continue;  // not reached from the root
    const TreeNode& x = tree[nid];
    Node& node = nodes_[nid];
    depth_ = std::max(depth_, depth[nid]);
    if (x.IsLeaf()) {
      node = Node{num_feature, 0.0f, {nid, nid}};
      continue;
    }
    const uint32_t feature = x.feature < num_feature ? x.feature : num_feature;
    node = Node{feature | (x.default_left ? 1u << 31 : 0u), x.split_cond, {x.right, x.left}};
    if (x.is_cat) {
      categories_.resize(n);
      is_cat_.resize(n, 0);
      categories_[nid] = x.categories;
      is_cat_[nid] = 1;
    }
  }
}

void TreeWalker::Leaves(const float* rows, std::size_t stride, int n, int* leaves) const {
  if (!is_cat_.empty()) return LeavesCategorical(rows, stride, n, leaves);
  // A whole block's row count is a constant, so that its rows' node ids stay in registers.
  if (n == kMaxRows) return LeavesNumerical<kMaxRows>(rows, stride, kMaxRows, leaves);
  LeavesNumerical<0>(rows, stride, n, leaves);
}

template <int kRows>
void TreeWalker::LeavesNumerical(const float* rows, std::size_t stride, int n, int* leaves) const {
  const int rows_walked = kRows > 0 ? kRows : n;
  const Node* nodes = nodes_.data();
  int nid[kMaxRows] = {};
  for (int d = 0; d < depth_; ++d) {
#pragma GCC unroll 8
    for (int i = 0; i < rows_walked; ++i) {
      const Node& x = nodes[nid[i]];
      const float v = rows[i * stride + (x.feature & 0x7fffffffu)];
      // NaN compares false: it goes left only by default.
      const bool left = (v < x.split_cond) | ((v != v) & (x.feature >> 31));
      nid[i] = x.child[left];
    }
  }
  for (int i = 0; i < rows_walked; ++i) leaves[i] = nid[i];
}

}  // namespace ringboost

namespace ringboost {

// The same walk where some nodes are categorical: one row at a time, with a branch per node.
void TreeWalker::LeavesCategorical(const float* rows, std::size_t stride, int n,
                                   int* leaves) const {
  for (int i = 0; i < n; ++i) {
    int nid = 0;
    for (int d = 0; d < depth_; ++d) {
      const Node& x = nodes_[nid];
      const float v = rows[i * stride + (x.feature & 0x7fffffffu)];
      bool left;
      if (v != v) {
        left = (x.feature >> 31) != 0;
      } else if (is_cat_[nid]) {
        left = !InCategories(categories_[nid], v);
      } else {
        left = v < x.split_cond;
      }
      nid = x.child[left];
    }
    leaves[i] = nid;
  }
}

}  // namespace ringboost
