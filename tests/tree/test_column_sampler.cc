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
  EXPECT_EQ(all.ForNode(0, 0)->size(), 10u);
  ColumnSampler s(10, Sampling(0.5, 0.8, 0.5), 7);
  std::vector<uint32_t> level = *ColumnSampler(10, Sampling(0.5, 0.8, 1), 7).ForNode(1, 1);
  EXPECT_EQ(level.size(), 4u);  // floor(0.8 * floor(0.5 * 10))
  std::vector<uint32_t> node = *s.ForNode(1, 1);
  EXPECT_EQ(node.size(), 2u);  // floor(0.5 * 4)
  EXPECT_TRUE(std::is_sorted(node.begin(), node.end()));
  EXPECT_TRUE(IsSubset(node, level));
  EXPECT_EQ(ColumnSampler(3, Sampling(0.1, 1, 1), 0).ForNode(0, 0)->size(), 1u);
}

// Without node sampling the nodes of a level share the level's one set; each level draws its own.
TEST(ColumnSampler, NodesOfALevelShareItsSet) {
  ColumnSampler s(100, Sampling(0.8, 0.5, 1), 2);
  const ColumnSampler::FeatureSet a = s.ForNode(3, 2), b = s.ForNode(5, 2), c = s.ForNode(7, 3);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(a->size(), 40u);
  EXPECT_NE(*a, *c);
  ColumnSampler unsampled(100, Sampling(1, 1, 1), 2);
  EXPECT_EQ(unsampled.ForNode(1, 1).get(), unsampled.ForNode(9, 4).get());
  ColumnSampler by_node(100, Sampling(1, 1, 0.5), 2);
  EXPECT_NE(*by_node.ForNode(1, 1), *by_node.ForNode(2, 1));
}

// Draws are a function of (seed, tree, level or node) only.
TEST(ColumnSampler, DeterministicBySeedTreeAndNode) {
  const TreeParams p = Sampling(0.6, 1, 0.5);
  auto set = [](const TreeParams& params, uint64_t tree, int nid) {
    return *ColumnSampler(50, params, tree).ForNode(nid, 2);
  };
  EXPECT_EQ(set(p, 4, 3), set(p, 4, 3));
  EXPECT_NE(set(p, 4, 3), set(p, 5, 3));
  EXPECT_NE(set(p, 4, 3), set(p, 4, 4));
  EXPECT_NE(set(Sampling(0.6, 1, 0.5, 9), 4, 3), set(p, 4, 3));
}

}  // namespace
}  // namespace ringboost
