// RegTree: XGBoost node numbering, depth and leaves; TreeWalker: the routing of rows.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>
#include <vector>

#include "common/error.h"
#include "model/tree.h"

namespace ringboost {
namespace {

const float kNaN = std::nanf("");

// root: f0 < 1.5 (missing -> right); left child 1: f2 < -1 (missing -> left).
RegTree TwoSplitTree() {
  RegTree tree;
  EXPECT_EQ(tree.Split(0, 0, 1.5f, false, 10.0f), 1);
  EXPECT_EQ(tree.Split(1, 2, -1.0f, true, 3.0f), 3);
  return tree;
}

TEST(RegTree, SplitAppendsLeftThenRight) {
  RegTree tree = TwoSplitTree();
  ASSERT_EQ(tree.NumNodes(), 5);
  EXPECT_EQ(tree[0].left, 1);
  EXPECT_EQ(tree[0].right, 2);
  EXPECT_EQ(tree[1].left, 3);
  EXPECT_EQ(tree[1].right, 4);
  EXPECT_EQ(tree[3].parent, 1);
  EXPECT_EQ(tree[4].parent, 1);
  EXPECT_EQ(tree[2].parent, 0);
  EXPECT_EQ(tree[0].parent, -1);
  EXPECT_EQ(tree[1].feature, 2u);
  EXPECT_FLOAT_EQ(tree[1].split_cond, -1.0f);
  EXPECT_TRUE(tree[1].default_left);
  EXPECT_FALSE(tree[0].default_left);
  EXPECT_FLOAT_EQ(tree[0].gain, 10.0f);
  EXPECT_TRUE(tree[2].IsLeaf());
  EXPECT_FALSE(tree[1].IsLeaf());
}

TEST(RegTree, SplittingASplitNodeIsAnInternalError) {
  RegTree tree = TwoSplitTree();
  EXPECT_THROW(tree.Split(0, 1, 0.0f, false, 0.0f), Error);
  EXPECT_THROW(tree.Split(7, 1, 0.0f, false, 0.0f), Error);
}

TEST(RegTree, DepthAndLeaves) {
  RegTree tree = TwoSplitTree();
  EXPECT_EQ(tree.Depth(0), 0);
  EXPECT_EQ(tree.Depth(2), 1);
  EXPECT_EQ(tree.Depth(4), 2);
  EXPECT_EQ(tree.NumLeaves(), 3);
  EXPECT_EQ(RegTree().NumLeaves(), 1);
}

// The leaf of one row: `row` padded with the NaN a feature beyond num_feature reads.
int Leaf(const RegTree& tree, std::vector<float> row, uint32_t num_feature) {
  row.resize(num_feature);
  row.push_back(kNaN);
  int leaf = -1;
  TreeWalker(tree, num_feature).Leaves(row.data(), row.size(), 1, &leaf);
  return leaf;
}

TEST(TreeWalker, GoesLeftBelowTheCondition) {
  RegTree tree = TwoSplitTree();
  std::vector<float> row = {1.0f, 0.0f, -2.0f};
  EXPECT_EQ(Leaf(tree, row, 3), 3);  // 1 < 1.5, -2 < -1
  row[2] = -1.0f;                    // equal to the condition: right
  EXPECT_EQ(Leaf(tree, row, 3), 4);
  row[0] = 1.5f;
  EXPECT_EQ(Leaf(tree, row, 3), 2);
  EXPECT_EQ(Leaf(RegTree(), row, 3), 0);  // a lone root is the leaf
}

TEST(TreeWalker, TakesTheDefaultForMissing) {
  RegTree tree = TwoSplitTree();
  std::vector<float> row = {kNaN, 0.0f, 5.0f};
  EXPECT_EQ(Leaf(tree, row, 3), 2);  // root default is right
  row[0] = 0.0f;
  row[2] = kNaN;
  EXPECT_EQ(Leaf(tree, row, 3), 3);  // node 1 default is left
  // Feature 2 beyond num_feature = 2: missing, whatever a longer row would hold.
  row[2] = 5.0f;
  EXPECT_EQ(Leaf(tree, row, 2), 3);
}

// Unbalanced random trees (leaves at many depths) and blocks of 1-8 rows walked together: each
// row reaches the leaf of a plain walk from the root, one branch at a time.
TEST(TreeWalker, BlocksOfRowsReachThePlainWalksLeaf) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (int trial = 0; trial < 50; ++trial) {
    RegTree tree;
    std::vector<int> leaves = {0};
    for (int s = 0; s < 1 + trial; ++s) {
      const std::size_t pick = rng() % leaves.size();
      const int nid = leaves[pick];
      const int left = tree.Split(nid, rng() % 6, uniform(rng), rng() % 2 == 0, 1.0f);
      leaves[pick] = left;
      leaves.push_back(left + 1);
    }
    const uint32_t num_feature = 5;  // the trees also split on feature 5: missing
    const std::size_t stride = num_feature + 1;
    const TreeWalker walker(tree, num_feature);
    for (int n = 1; n <= TreeWalker::kMaxRows; ++n) {
      std::vector<float> rows(n * stride, kNaN);
      for (int i = 0; i < n; ++i) {
        for (uint32_t f = 0; f < num_feature; ++f) {
          if (rng() % 4 != 0) rows[i * stride + f] = uniform(rng);
        }
      }
      int got[TreeWalker::kMaxRows];
      walker.Leaves(rows.data(), stride, n, got);
      for (int i = 0; i < n; ++i) {
        int nid = 0;
        while (!tree[nid].IsLeaf()) {
          const TreeNode& x = tree[nid];
          const float v = x.feature < num_feature ? rows[i * stride + x.feature] : kNaN;
          if (std::isnan(v)) {
            nid = x.default_left ? x.left : x.right;
          } else {
            nid = v < x.split_cond ? x.left : x.right;
          }
        }
        EXPECT_EQ(got[i], nid) << trial << " " << n << " " << i;
      }
    }
  }
}

// A categorical root ({1, 3} right) over feature 0, with a numerical split under its left child:
// codes in the set go right; unseen, negative and too large codes go left (XGBoost's Decision:
// checked against XGBoost 3.4.1, which sends 5, -1, 2.7 and 1e9 left of a {0} split); a fraction
// is truncated; missing takes the default side.
TEST(TreeWalker, CategoricalSplitsRouteAsXGBoost) {
  for (const bool default_left : {true, false}) {
    RegTree tree;
    const int left = tree.SplitCategorical(0, 0, {1, 3}, default_left, 1.0f);
    tree.Split(left, 1, 0.5f, false, 1.0f);
    const int l = left, r = left + 1, ll = tree[left].left, lr = tree[left].right;
    const float nan = std::nanf("");
    // (value of feature 0, value of feature 1, expected leaf)
    const std::vector<std::tuple<float, float, int>> cases = {
        {1.0f, 0.0f, r},         {3.0f, 0.0f, r},
        {1.7f, 0.0f, r},         {2.0f, 0.0f, ll},
        {0.0f, 1.0f, lr},        {5.0f, 0.0f, ll},
        {-1.0f, 0.0f, ll},       {3e7f, 0.0f, ll},
        {16777217.0f, 1.0f, lr}, {nan, 0.0f, default_left ? ll : r}};
    const TreeWalker walker(tree, 2);
    for (const auto& [v0, v1, want] : cases) {
      const float row[3] = {v0, v1, nan};
      int got = -1;
      walker.Leaves(row, 3, 1, &got);
      EXPECT_EQ(got, want) << v0 << " default_left " << default_left;
      if (!std::isnan(v0)) EXPECT_EQ(tree[0].GoesLeft(v0), want != r) << v0;
    }
    EXPECT_TRUE(tree.HasCategorical());
    EXPECT_EQ(l, 1);
  }
}

}  // namespace
}  // namespace ringboost
