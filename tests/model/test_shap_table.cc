// ShapTable against Shapley values from their definition, on random trees that split the same
// feature several times on a path, with missing values; and the bound on path features.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "model/shap_table.h"

namespace ringboost {
namespace {

constexpr int kFeatures = 4;

// A random full tree of `depth` on kFeatures features; covers add up from the leaves.
RegTree RandomTree(std::mt19937* rng, int depth) {
  std::uniform_int_distribution<int> feature(0, kFeatures - 1);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  RegTree t;
  std::vector<int> level{0};
  for (int d = 0; d < depth; ++d) {
    std::vector<int> next;
    for (const int nid : level) {
      const int left = t.Split(nid, feature(*rng), unit(*rng), unit(*rng) < 0.5f, 1.0f);
      next.push_back(left);
      next.push_back(t[nid].right);
    }
    level = next;
  }
  for (int nid = t.NumNodes() - 1; nid >= 0; --nid) {
    if (t[nid].IsLeaf()) {
      t[nid].leaf_value = unit(*rng) * 2 - 1;
      t[nid].sum_hess = 0.5f + unit(*rng) * 10;
    } else {
      t[nid].sum_hess = t[t[nid].left].sum_hess + t[t[nid].right].sum_hess;
    }
  }
  return t;
}

// v(S): the row's path on features in S, the cover-weighted mean elsewhere.
double Value(const RegTree& t, int nid, const float* row, unsigned known) {
  const TreeNode& n = t[nid];
  if (n.IsLeaf()) return n.leaf_value;
  if (known >> n.feature & 1u) {
    const float x = row[n.feature];
    const bool left = std::isnan(x) ? n.default_left : x < n.split_cond;
    return Value(t, left ? n.left : n.right, row, known);
  }
  return (Value(t, n.left, row, known) * t[n.left].sum_hess +
          Value(t, n.right, row, known) * t[n.right].sum_hess) /
         n.sum_hess;
}

// Shapley values by their definition over all subsets of the features.
std::vector<double> Shapley(const RegTree& t, const float* row) {
  std::vector<double> phi(kFeatures, 0.0);
  std::vector<double> fact(kFeatures + 1, 1.0);
  for (int i = 1; i <= kFeatures; ++i) fact[i] = fact[i - 1] * i;
  for (int i = 0; i < kFeatures; ++i) {
    for (unsigned s = 0; s < (1u << kFeatures); ++s) {
      if (s >> i & 1u) continue;
      const int size = __builtin_popcount(s);
      const double w = fact[size] * fact[kFeatures - size - 1] / fact[kFeatures];
      phi[i] += w * (Value(t, 0, row, s | 1u << i) - Value(t, 0, row, s));
    }
  }
  return phi;
}

TEST(ShapTable, EqualsShapleyValuesOfRandomTrees) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  for (int round = 0; round < 20; ++round) {
    const RegTree tree = RandomTree(&rng, 1 + round % 6);
    ASSERT_GT(ShapTable::TableSize(tree), 0u);
    const ShapTable table(tree);
    std::vector<uint32_t> masks(tree.NumNodes());
    for (int r = 0; r < 10; ++r) {
      float row[kFeatures];
      for (float& x : row) {
        x = unit(rng) < 0.2f ? std::numeric_limits<float>::quiet_NaN() : unit(rng);
      }
      float phi[kFeatures] = {};
      table.Add(row, phi, masks.data());
      const std::vector<double> expected = Shapley(tree, row);
      for (int f = 0; f < kFeatures; ++f) {
        EXPECT_NEAR(phi[f], expected[f], 1e-5) << "tree " << round << " row " << r << " f" << f;
      }
    }
  }
}

TEST(ShapTable, ChainOfOneFeatureFitsAndPathsOfManyFeaturesDoNot) {
  RegTree chain;
  int nid = 0;
  for (int i = 0; i < 5000; ++i) {
    chain.Split(nid, 3, 0.5f, true, 1.0f);
    nid = chain[nid].right;
  }
  EXPECT_EQ(ShapTable::TableSize(chain), 2u * 5001u);  // every leaf: one element, 2 values
  RegTree wide;
  nid = 0;
  for (int i = 0; i <= ShapTable::kMaxElements; ++i) {
    wide.Split(nid, i, 0.5f, true, 1.0f);
    nid = wide[nid].right;
  }
  EXPECT_EQ(ShapTable::TableSize(wide), 0u);
}

}  // namespace
}  // namespace ringboost
