// Explanations: leaf ids, TreeSHAP contributions and interaction values, by hand on a stump and
// a two-feature tree, and against XGBoost 3.4.1's golden outputs.
#include <gtest/gtest.h>

#include <numeric>

#include "common/error.h"
#include "golden_xgboost.h"
#include "model/explain.h"

namespace ringboost {
namespace {

DataSet Rows(const std::vector<std::vector<std::pair<uint32_t, float>>>& rows) {
  DataSet d;
  d.row_ptr = {0};
  for (const auto& row : rows) {
    for (const auto& [f, v] : row) {
      d.index.push_back(f);
      d.value.push_back(v);
    }
    d.row_ptr.push_back(d.index.size());
    d.label.push_back(0);
  }
  d.num_col = 2;
  return d;
}

// f0 < 0.5 ? 1 (cover 1) : -1 (cover 3), missing right; then the right child splits on f1.
Model TwoFeatureModel() {
  Model m;
  m.objective = "reg:squarederror";
  m.base_score = m.base_margin = 0.25f;
  m.num_feature = 2;
  m.num_rounds = 1;
  RegTree t;
  t.Split(0, 0, 0.5f, false, 1.0f);
  t.Split(2, 1, 0.5f, true, 1.0f);  // right child: f1 < 0.5 ? -2 (cover 1) : 0 (cover 2)
  t[1].leaf_value = 1.0f;
  t[3].leaf_value = -2.0f;
  t[4].leaf_value = 0.0f;
  t[0].sum_hess = 4;
  t[1].sum_hess = 1;
  t[2].sum_hess = 3;
  t[3].sum_hess = 1;
  t[4].sum_hess = 2;
  m.trees.push_back(t);
  m.tree_group.push_back(0);
  return m;
}

TEST(Explain, ContributionsOfAStumpByHand) {
  Model m = TwoFeatureModel();
  m.trees[0] = RegTree();
  m.trees[0].Split(0, 0, 0.5f, false, 1.0f);
  m.trees[0][1].leaf_value = 1.0f;
  m.trees[0][2].leaf_value = -1.0f;
  m.trees[0][0].sum_hess = 4;
  m.trees[0][1].sum_hess = 1;
  m.trees[0][2].sum_hess = 3;
  // Expected value (1 * 1 - 1 * 3) / 4 = -0.5; a row going left gets 1 - (-0.5) on f0.
  const std::vector<float> c = Explain(m, Rows({{{0, 0.0f}}, {}}), 0, ExplainKind::kContribs, 1);
  ASSERT_EQ(c.size(), 6u);
  EXPECT_FLOAT_EQ(c[0], 1.5f);
  EXPECT_FLOAT_EQ(c[1], 0.0f);
  EXPECT_FLOAT_EQ(c[2], -0.5f + 0.25f);
  // Missing goes right: -1 - (-0.5) on f0.
  EXPECT_FLOAT_EQ(c[3], -0.5f);
  EXPECT_FLOAT_EQ(c[5], -0.25f);
  const std::vector<float> leaf = Explain(m, Rows({{{0, 0.0f}}, {}}), 0, ExplainKind::kLeaf, 1);
  EXPECT_EQ(leaf, (std::vector<float>{1, 2}));
}

// Shapley values of the two-feature tree for x = (1, 0), by hand. v(S) follows x at the splits
// on features in S and averages the children by cover elsewhere:
//   v({}) = (1 * 1 - 2 * 1 + 0 * 2) / 4 = -1/4      v({f0}) = (-2 * 1 + 0 * 2) / 3 = -2/3
//   v({f1}) = 1/4 * 1 + 3/4 * -2 = -5/4             v({f0, f1}) = -2
// phi0 = ((v0 - v) + (v01 - v1)) / 2, phi1 = ((v1 - v) + (v01 - v0)) / 2, and the interaction
// of f0 and f1 is (v01 - v0 - v1 + v) / 2.
TEST(Explain, ContributionsAndInteractionsOfTwoFeaturesByHand) {
  const Model m = TwoFeatureModel();
  const DataSet row = Rows({{{0, 1.0f}, {1, 0.0f}}});
  const float v = -0.25f, v0 = -2.0f / 3.0f, v1 = -1.25f, v01 = -2.0f;
  const std::vector<float> c = Explain(m, row, 0, ExplainKind::kContribs, 1);
  EXPECT_NEAR(c[0], ((v0 - v) + (v01 - v1)) / 2, 1e-6);
  EXPECT_NEAR(c[1], ((v1 - v) + (v01 - v0)) / 2, 1e-6);
  EXPECT_NEAR(c[2], v + 0.25f, 1e-6);
  EXPECT_NEAR(c[0] + c[1] + c[2], v01 + 0.25f, 1e-6);  // sums to the margin
  const std::vector<float> in = Explain(m, row, 0, ExplainKind::kInteractions, 1);
  ASSERT_EQ(in.size(), 9u);
  // Each row of the interaction matrix sums to that feature's contribution; symmetric.
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(in[3 * i] + in[3 * i + 1] + in[3 * i + 2], c[i], 1e-6);
  EXPECT_NEAR(in[1], in[3], 1e-6);
  EXPECT_NEAR(in[1], (v01 - v0 - v1 + v) / 2, 1e-6);
  EXPECT_FLOAT_EQ(in[8], c[2]);
}

// A chain of `depth` splits down the right side, on features 0, 1, ..., num_feature - 1 in turn,
// each left leaf 0 with cover 1, the last leaf 1; a row of ones goes right to it (node 2 depth).
Model ChainModel(int depth, uint32_t num_feature) {
  Model m = TwoFeatureModel();
  m.num_feature = num_feature;
  RegTree t;
  for (int i = 0, nid = 0; i < depth; ++i, nid += 2) {
    t.Split(nid, static_cast<uint32_t>(i) % num_feature, 0.5f, false, 1.0f);
    t[nid].sum_hess = static_cast<float>(depth - i + 1);
    t[nid + 1].sum_hess = 1;
  }
  t[2 * depth].sum_hess = 1;
  t[2 * depth].leaf_value = 1;
  m.trees = {t};
  return m;
}

// Leaf ids need no SHAP walk, so they come for a chain of any depth; SHAP values come where a
// table serves (one feature) and are refused, naming the tree, where the recursive walk would
// go deeper than it takes.
TEST(Explain, ChainsOfAnyDepth) {
  const int depth = 200000;
  DataSet row = Rows({{{0, 1.0f}, {1, 1.0f}}});
  const Model one = ChainModel(depth, 1);
  EXPECT_EQ(Explain(one, row, 0, ExplainKind::kLeaf, 1), std::vector<float>{2.0f * depth});
  const std::vector<float> c = Explain(one, row, 0, ExplainKind::kContribs, 1);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_NEAR(c[0] + c[1], one.base_margin + 1.0f, 1e-3);
  auto error = [&](const Model& m, ExplainKind kind) {
    try {
      Explain(m, row, 0, kind, 1);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(
      error(one, ExplainKind::kInteractions)
          .rfind("pred_interactions: tree 0 is 200000 levels deep; SHAP values take trees up to "
                 "1000 levels",
                 0),
      0u);
  const Model many = ChainModel(depth, 13);  // 13 features on a path: no table
  EXPECT_EQ(error(many, ExplainKind::kContribs).rfind("pred_contribs: tree 0 is 200000 levels", 0),
            0u);
  EXPECT_EQ(Explain(ChainModel(1000, 13), row, 0, ExplainKind::kContribs, 1).size(), 14u);
}

TEST(Explain, OneOutputKindAtATime) {
  Params p;
  ExplainKind kind;
  EXPECT_FALSE(ExplainKindFromParams(p, &kind));
  p.pred_interactions = true;
  ASSERT_TRUE(ExplainKindFromParams(p, &kind));
  EXPECT_EQ(kind, ExplainKind::kInteractions);
  p.pred_leaf = true;
  EXPECT_THROW(ExplainKindFromParams(p, &kind), Error);
}

class GoldenExplain : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = test::Golden341(GetParam());
    if (dir_.empty()) GTEST_SKIP() << "../shared/golden not found";
    model_ = Model::Load(dir_ + "/model.json");
    rows_ = test::GoldenTestRows(dir_);
  }
  std::string dir_;
  Model model_;
  DataSet rows_;
};

TEST_P(GoldenExplain, LeavesContributionsAndInteractionsAsXGBoost) {
  const std::vector<float> leaf = Explain(model_, rows_, 0, ExplainKind::kLeaf, 2);
  test::ExpectClose(leaf, test::ReadNumbers(dir_ + "/leaf.txt"), 0, "leaf");
  const std::vector<float> contribs = Explain(model_, rows_, 0, ExplainKind::kContribs, 2);
  test::ExpectClose(contribs, test::ReadNumbers(dir_ + "/contribs.txt"), 1e-5, "contribs");
  EXPECT_EQ(contribs, Explain(model_, rows_, 0, ExplainKind::kContribs, 1));  // thread count
  const std::vector<double> expected = test::ReadNumbers(dir_ + "/interactions.txt");
  const uint64_t per_row = ExplainValuesPerRow(model_, ExplainKind::kInteractions, 0);
  DataSet few = rows_;  // the first rows only: interactions cost features x contributions
  const uint64_t n = (expected.size() + per_row - 1) / per_row;
  few.row_ptr.resize(n + 1);
  test::ExpectClose(Explain(model_, few, 0, ExplainKind::kInteractions, 2), expected, 1e-5,
                    "interactions");
}

INSTANTIATE_TEST_SUITE_P(Readable, GoldenExplain, ::testing::ValuesIn(test::ReadableGoldenModels()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) c = std::isalnum(c) ? c : '_';
                           return name;
                         });

}  // namespace
}  // namespace ringboost
