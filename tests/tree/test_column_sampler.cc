#include <gtest/gtest.h>

#include <algorithm>

#include "tree/column_sampler.h"

namespace ringboost {
namespace {

TreeParams Sampling(double bytree, double bylevel, double bynode, uint64_t seed = 3) {
  TreeParams p;
  p.colsample_bytree = bytree;
  p.colsample_bylevel = bylevel;
  p.colsample_bynode = bynode;
  p.seed = seed;
  return p;
}

bool IsSubset(const std::vector<uint32_t>& small, const std::vector<uint32_t>& big) {
  return std::includes(big.begin(), big.end(), small.begin(), small.end());
}

// Sizes are floor(ratio * parent set), at least one; sets are sorted and nested.
TEST(ColumnSampler, SizesAndNesting) {
  ColumnSampler all(10, Sampling(1, 1, 1), 0);
  EXPECT_EQ(all.ForNode(0, 0).size(), 10u);
  ColumnSampler s(10, Sampling(0.5, 0.8, 0.5), 7);
  std::vector<uint32_t> level = ColumnSampler(10, Sampling(0.5, 0.8, 1), 7).ForNode(1, 1);
  EXPECT_EQ(level.size(), 4u);  // floor(0.8 * floor(0.5 * 10))
  std::vector<uint32_t> node = s.ForNode(1, 1);
  EXPECT_EQ(node.size(), 2u);  // floor(0.5 * 4)
  EXPECT_TRUE(std::is_sorted(node.begin(), node.end()));
  EXPECT_TRUE(IsSubset(node, level));
  EXPECT_EQ(ColumnSampler(3, Sampling(0.1, 1, 1), 0).ForNode(0, 0).size(), 1u);
}

// Draws are a function of (seed, tree, level or node) only.
TEST(ColumnSampler, DeterministicBySeedTreeAndNode) {
  const TreeParams p = Sampling(0.6, 1, 0.5);
  EXPECT_EQ(ColumnSampler(50, p, 4).ForNode(3, 2), ColumnSampler(50, p, 4).ForNode(3, 2));
  EXPECT_NE(ColumnSampler(50, p, 4).ForNode(3, 2), ColumnSampler(50, p, 5).ForNode(3, 2));
  EXPECT_NE(ColumnSampler(50, p, 4).ForNode(3, 2), ColumnSampler(50, p, 4).ForNode(4, 2));
  EXPECT_NE(ColumnSampler(50, Sampling(0.6, 1, 0.5, 9), 4).ForNode(3, 2),
            ColumnSampler(50, p, 4).ForNode(3, 2));
}

}  // namespace
}  // namespace ringboost
