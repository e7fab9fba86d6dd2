// The low-bit mode's leaf refit (RefitLeafValues, tree/node_book.h): every node's weight from the
// exact sums, and under monotone constraints clamped to the node's box from the growth, so that
// a split whose refit weights break its constraint's order still predicts in order.
#include <gtest/gtest.h>

#include <cfloat>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/tree.h"
#include "tree/gradient.h"
#include "tree/node_book.h"

namespace ringboost {
namespace {

// Weights here: w = -g / (h + 1) (lambda 1, no alpha); the default quantizer's unit is 1.
SplitParams Params() {
  SplitParams p;
  p.eta = 0.5f;
  return p;
}

// A root split on feature 0 into two leaves, nodes 1 and 2.
RegTree Stump() {
  RegTree tree;
  tree.Split(0, 0, 0.5f, false, 1.0f);
  return tree;
}

std::vector<int64_t> Sums(const RegTree& tree, std::vector<std::pair<int, GradientSum>> leaves) {
  std::vector<int64_t> s(2 * static_cast<std::size_t>(tree.NumNodes()), 0);
  for (const auto& [nid, sum] : leaves) {
    s[2 * nid] = sum.g;
    s[2 * nid + 1] = sum.h;
  }
  return s;
}

TEST(RefitLeafValues, WeightsFromTheSumsWithoutConstraints) {
  RegTree tree = Stump();
  std::vector<int64_t> s = Sums(tree, {{1, {-10, 4}}, {2, {6, 2}}});
  RefitLeafValues(&s, GradientQuantizer(), Params(), {}, &tree);
  EXPECT_FLOAT_EQ(tree[1].base_weight, 2.0f);   // 10 / 5
  EXPECT_FLOAT_EQ(tree[2].base_weight, -2.0f);  // -6 / 3
  EXPECT_FLOAT_EQ(tree[1].leaf_value, 1.0f);
  EXPECT_FLOAT_EQ(tree[2].leaf_value, -1.0f);
  EXPECT_FLOAT_EQ(tree[0].base_weight, 4.0f / 7.0f);  // (-10 + 6, 4 + 2)
  EXPECT_FLOAT_EQ(tree[0].sum_hess, 6.0f);
  EXPECT_EQ(s[0], -4);  // the inner node's entries hold its sums
  EXPECT_EQ(s[1], 6);
}

// The boxes growth drew for a split on an increasing feature whose children weighed -1 and 1:
// the left side at most 0, the right at least 0. Refit weights 2 and -2 break that order and
// both land on the mid-point; weights inside their boxes stay.
TEST(RefitLeafValues, EachWeightClampedToItsBoxFromTheGrowth) {
  const std::vector<WeightBounds> boxes{{}, {-FLT_MAX, 0.0f}, {0.0f, FLT_MAX}};
  RegTree tree = Stump();
  std::vector<int64_t> s = Sums(tree, {{1, {-10, 4}}, {2, {6, 2}}});
  RefitLeafValues(&s, GradientQuantizer(), Params(), boxes, &tree);
  EXPECT_FLOAT_EQ(tree[1].base_weight, 0.0f);
  EXPECT_FLOAT_EQ(tree[2].base_weight, 0.0f);
  EXPECT_FLOAT_EQ(tree[1].leaf_value, 0.0f);
  EXPECT_FLOAT_EQ(tree[0].base_weight, 4.0f / 7.0f);  // the root's box is unbounded

  RegTree in_order = Stump();
  s = Sums(in_order, {{1, {6, 2}}, {2, {-10, 4}}});
  RefitLeafValues(&s, GradientQuantizer(), Params(), boxes, &in_order);
  EXPECT_FLOAT_EQ(in_order[1].base_weight, -2.0f);
  EXPECT_FLOAT_EQ(in_order[2].base_weight, 2.0f);
  EXPECT_FLOAT_EQ(in_order[2].leaf_value, 1.0f);
}

}  // namespace
}  // namespace ringboost
