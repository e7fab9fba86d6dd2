// RegTree: XGBoost node numbering, depth, leaves and the routing of one row.
#include <gtest/gtest.h>

#include <cmath>
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

TEST(RegTree, GetLeafGoesLeftBelowTheCondition) {
  RegTree tree = TwoSplitTree();
  std::vector<float> row = {1.0f, 0.0f, -2.0f};
  EXPECT_EQ(tree.GetLeaf(row.data(), 3), 3);  // 1 < 1.5, -2 < -1
  row[2] = -1.0f;                             // equal to the condition: right
  EXPECT_EQ(tree.GetLeaf(row.data(), 3), 4);
  row[0] = 1.5f;
  EXPECT_EQ(tree.GetLeaf(row.data(), 3), 2);
}

TEST(RegTree, GetLeafTakesTheDefaultForMissing) {
  RegTree tree = TwoSplitTree();
  std::vector<float> row = {kNaN, 0.0f, 5.0f};
  EXPECT_EQ(tree.GetLeaf(row.data(), 3), 2);  // root default is right
  row[0] = 0.0f;
  row[2] = kNaN;
  EXPECT_EQ(tree.GetLeaf(row.data(), 3), 3);  // node 1 default is left
  // Feature 2 beyond num_feature = 2: missing too, even though row[2] holds a value.
  row[2] = 5.0f;
  EXPECT_EQ(tree.GetLeaf(row.data(), 2), 3);
}

}  // namespace
}  // namespace ringboost
