// Small models built by hand for the model tests, and a field-by-field comparison.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "model/model.h"

namespace ringboost::test {

// Bits of a float, so that NaN == NaN and -0 != 0 in comparisons.
inline uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

// Two groups, two rounds: tree i splits feature i % 3 at 0.1 * (i + 1); leaves get
// values that are not short decimals (1/3, -1e-7, a denormal) to exercise float round trips.
inline Model SmallModel() {
  Model m;
  m.objective = "multi:softmax";
  m.base_score = 0.5f;
  m.base_margin = 0.1f;
  m.num_class = 2;
  m.num_groups = 2;
  m.num_feature = 3;
  m.num_rounds = 2;
  m.best_iteration = 1;
  m.best_score = 0.12345678901234567;
  m.feature_names = {"a", "b b", "\"c\""};
  m.config = "eta=0.3\nmax_depth=2\n";
  for (int i = 0; i < 4; ++i) {
    RegTree tree;
    tree.Split(0, i % 3, 0.1f * static_cast<float>(i + 1), i % 2 == 0, 12.5f + i);
    tree.Split(2, (i + 1) % 3, -2.0f / 3.0f, i % 2 == 1, 1.0f / 7.0f);
    tree[1].leaf_value = 1.0f / 3.0f;
    tree[3].leaf_value = -1e-7f;
    tree[4].leaf_value = 1e-45f;
    for (int n = 0; n < tree.NumNodes(); ++n) {
      tree[n].base_weight = 0.25f * static_cast<float>(n) - 0.7f;
      tree[n].sum_hess = 100.0f / static_cast<float>(n + 3);
    }
    m.trees.push_back(tree);
    m.tree_group.push_back(i % 2);
  }
  return m;
}

inline void ExpectSameTree(const RegTree& a, const RegTree& b) {
  ASSERT_EQ(a.NumNodes(), b.NumNodes());
  for (int n = 0; n < a.NumNodes(); ++n) {
    SCOPED_TRACE("node " + std::to_string(n));
    EXPECT_EQ(a[n].parent, b[n].parent);
    EXPECT_EQ(a[n].left, b[n].left);
    EXPECT_EQ(a[n].right, b[n].right);
    EXPECT_EQ(a[n].feature, b[n].feature);
    EXPECT_EQ(Bits(a[n].split_cond), Bits(b[n].split_cond));
    EXPECT_EQ(a[n].default_left, b[n].default_left);
    EXPECT_EQ(Bits(a[n].leaf_value), Bits(b[n].leaf_value));
    EXPECT_EQ(Bits(a[n].base_weight), Bits(b[n].base_weight));
    EXPECT_EQ(Bits(a[n].gain), Bits(b[n].gain));
    EXPECT_EQ(Bits(a[n].sum_hess), Bits(b[n].sum_hess));
  }
}

inline void ExpectSameModel(const Model& a, const Model& b) {
  EXPECT_EQ(a.objective, b.objective);
  EXPECT_EQ(Bits(a.base_score), Bits(b.base_score));
  EXPECT_EQ(Bits(a.base_margin), Bits(b.base_margin));
  EXPECT_EQ(a.num_groups, b.num_groups);
  EXPECT_EQ(a.num_class, b.num_class);
  EXPECT_EQ(a.num_feature, b.num_feature);
  EXPECT_EQ(a.num_rounds, b.num_rounds);
  EXPECT_EQ(a.best_iteration, b.best_iteration);
  EXPECT_EQ(a.best_score, b.best_score);
  EXPECT_EQ(a.feature_names, b.feature_names);
  EXPECT_EQ(a.config, b.config);
  EXPECT_EQ(a.tree_group, b.tree_group);
  ASSERT_EQ(a.trees.size(), b.trees.size());
  for (size_t i = 0; i < a.trees.size(); ++i) {
    SCOPED_TRACE("tree " + std::to_string(i));
    ExpectSameTree(a.trees[i], b.trees[i]);
  }
}

}  // namespace ringboost::test
