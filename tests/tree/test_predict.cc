// PredictMargin against hand-computed margins, and bitwise equal for any thread count.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/error.h"
#include "model/model_builders.h"
#include "tree/predict.h"

namespace ringboost {
namespace {

// Appends one CSR row of (feature, value) pairs.
void AddRow(DataSet* data, const std::vector<std::pair<uint32_t, float>>& entries) {
  for (const auto& [feature, value] : entries) {
    data->index.push_back(feature);
    data->value.push_back(value);
    data->num_col = std::max(data->num_col, feature + 1);
  }
  data->row_ptr.push_back(data->index.size());
  data->label.push_back(0.0f);
}

// Round 0: f0 < 1.5 (missing right) -> [1: f2 < -1 (missing left) -> 3 | 4] | 2.
// Round 1: f1 < 0 (missing left) -> 1 | 2.
Model HandModel() {
  Model m;
  m.base_margin = 0.5f;
  m.num_feature = 3;
  m.num_rounds = 2;
  RegTree t0;
  t0.Split(0, 0, 1.5f, false, 1.0f);
  t0.Split(1, 2, -1.0f, true, 1.0f);
  t0[2].leaf_value = 0.25f;
  t0[3].leaf_value = -0.5f;
  t0[4].leaf_value = 1.0f;
  RegTree t1;
  t1.Split(0, 1, 0.0f, true, 1.0f);
  t1[1].leaf_value = 0.125f;
  t1[2].leaf_value = -0.0625f;
  m.trees = {t0, t1};
  m.tree_group = {0, 0};
  return m;
}

DataSet HandData() {
  DataSet data;
  AddRow(&data, {{0, 1.0f}, {2, -2.0f}});             // t0 -> 3, t1 missing -> 1
  AddRow(&data, {});                                  // t0 missing -> 2, t1 missing -> 1
  AddRow(&data, {{0, 0.0f}, {1, 3.0f}});              // t0 -> 1, f2 missing -> 3; t1 -> 2
  AddRow(&data, {{0, 2.0f}, {1, -1.0f}, {5, 9.0f}});  // t0 -> 2, t1 -> 1; f5 is unknown
  return data;
}

TEST(PredictMargin, MatchesHandComputation) {
  const std::vector<float> margins = PredictMargin(HandModel(), HandData(), 0, 1);
  EXPECT_EQ(margins, (std::vector<float>{0.125f, 0.875f, -0.0625f, 0.875f}));
}

TEST(PredictMargin, FirstRoundsOnly) {
  const std::vector<float> margins = PredictMargin(HandModel(), HandData(), 1, 1);
  EXPECT_EQ(margins, (std::vector<float>{0.0f, 0.75f, 0.0f, 0.75f}));
  EXPECT_EQ(PredictMargin(HandModel(), HandData(), 2, 1),
            PredictMargin(HandModel(), HandData(), 0, 1));
}

TEST(PredictMargin, RoundsBeyondTheModelAreAnError) {
  EXPECT_THROW(PredictMargin(HandModel(), HandData(), 3, 1), Error);
  EXPECT_THROW(PredictMargin(HandModel(), HandData(), -1, 1), Error);
}

TEST(PredictMargin, GroupsAreColumnsOfTheRow) {
  Model m = HandModel();
  m.num_groups = 2;
  m.num_rounds = 1;
  m.tree_group = {0, 1};
  const std::vector<float> margins = PredictMargin(m, HandData(), 0, 1);
  // Row r: (0.5 + t0 leaf, 0.5 + t1 leaf).
  EXPECT_EQ(margins,
            (std::vector<float>{0.0f, 0.625f, 0.75f, 0.625f, 0.0f, 0.4375f, 0.75f, 0.625f}));
}

TEST(PredictMargin, EmptyDataAndNoTrees) {
  EXPECT_TRUE(PredictMargin(HandModel(), DataSet(), 0, 2).empty());
  Model m;
  m.base_margin = -1.5f;
  m.num_feature = 3;
  EXPECT_EQ(PredictMargin(m, HandData(), 0, 2), std::vector<float>(4, -1.5f));
}

// A random model of depth-4 trees and random sparse rows: 1, 2 and 3 threads agree bit for bit.
TEST(PredictMargin, SameBitsForAnyThreadCount) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  Model m;
  m.base_margin = 0.3f;
  m.num_feature = 20;
  m.num_rounds = 30;
  for (int t = 0; t < m.num_rounds; ++t) {
    RegTree tree;
    for (int nid = 0; nid < 15; ++nid) {
      tree.Split(nid, rng() % 20, uniform(rng), rng() % 2 == 0, 1.0f);
    }
    for (TreeNode& node : tree.nodes()) node.leaf_value = uniform(rng) * 0.1f;
    m.trees.push_back(tree);
    m.tree_group.push_back(0);
  }
  DataSet data;
  for (int r = 0; r < 1000; ++r) {
    std::vector<std::pair<uint32_t, float>> row;
    for (uint32_t f = 0; f < 20; ++f) {
      if (rng() % 3 != 0) row.emplace_back(f, uniform(rng));
    }
    AddRow(&data, row);
  }
  const std::vector<float> one = PredictMargin(m, data, 0, 1);
  const std::vector<float> two = PredictMargin(m, data, 0, 2);
  const std::vector<float> three = PredictMargin(m, data, 0, 3);
  ASSERT_EQ(one.size(), 1000u);
  for (size_t i = 0; i < one.size(); ++i) {
    ASSERT_EQ(test::Bits(one[i]), test::Bits(two[i])) << "row " << i;
    ASSERT_EQ(test::Bits(one[i]), test::Bits(three[i])) << "row " << i;
  }
}

// The dense matrix of a set walks to the same margins as its CSR: rows with missing values,
// entries of features beyond the model's (left out) and a tree that splits on such a feature.
TEST(AddTreeMargins, DenseRowsGiveTheCsrMargins) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<RegTree> trees(12);
  std::vector<const RegTree*> pointers;
  std::vector<int> groups;
  for (RegTree& tree : trees) {
    std::vector<int> leaves = {0};
    for (int s = 0; s < 20; ++s) {
      const std::size_t pick = rng() % leaves.size();
      const int left = tree.Split(leaves[pick], rng() % 7, uniform(rng), rng() % 2 == 0, 1.0f);
      leaves[pick] = left;
      leaves.push_back(left + 1);
    }
    for (TreeNode& node : tree.nodes()) node.leaf_value = uniform(rng);
    pointers.push_back(&tree);
    groups.push_back(static_cast<int>(groups.size() % 2));
  }
  DataSet data;
  for (int r = 0; r < 203; ++r) {  // not a multiple of the walker's block
    std::vector<std::pair<uint32_t, float>> row;
    for (uint32_t f = 0; f < 8; ++f) {
      if (rng() % 5 != 0) row.emplace_back(f, uniform(rng));
    }
    AddRow(&data, row);
  }
  const uint32_t num_feature = 6;  // the trees split on feature 6 too; the rows hold 6 and 7
  ASSERT_TRUE(DenseRows::Pays(data, num_feature));
  const DenseRows dense = DenseRows::From(data, num_feature, 2);
  ASSERT_EQ(dense.NumRows(), 203u);
  std::vector<float> by_csr(203 * 2, 0.5f), by_dense(203 * 2, 0.5f);
  AddTreeMargins(pointers, groups, num_feature, data, 2, by_csr.data(), 3);
  AddTreeMargins(pointers, groups, dense, 2, by_dense.data(), 2);
  for (std::size_t i = 0; i < by_csr.size(); ++i) {
    ASSERT_EQ(test::Bits(by_csr[i]), test::Bits(by_dense[i])) << i;
  }
  EXPECT_NE(by_csr[0], 0.5f);
  // Take fills the same matrix block by block (7 rows: a last block of 0 < 203 % 7 rows, and
  // blocks whose entries end inside a page), releasing the CSR behind it; the rest stays.
  DataSet taken = data;
  const DenseRows took = DenseRows::Take(&taken, num_feature, 2, 7);
  ASSERT_EQ(took.values.size(), dense.values.size());
  for (std::size_t i = 0; i < dense.values.size(); ++i) {
    ASSERT_EQ(test::Bits(took.values[i]), test::Bits(dense.values[i])) << i;
  }
  EXPECT_TRUE(taken.index.empty());
  EXPECT_TRUE(taken.value.empty());
  EXPECT_EQ(taken.row_ptr, data.row_ptr);
  EXPECT_EQ(taken.label, data.label);
  // One entry a row in 1000 columns: the CSR is the smaller.
  DataSet sparse;
  for (int r = 0; r < 10; ++r) AddRow(&sparse, {{static_cast<uint32_t>(r * 100), 1.0f}});
  EXPECT_FALSE(DenseRows::Pays(sparse, 1000));
}

// Random cuts whose codes serve (CodedRows::Serves): per feature 1-9 cuts from min_values on.
HistogramCuts CodableCuts(std::mt19937& rng, uint32_t num_features) {
  HistogramCuts cuts;
  for (uint32_t f = 0; f < num_features; ++f) {
    const uint32_t nb = 1 + rng() % 9;
    float x = -2.0f + 0.25f * static_cast<float>(f);
    cuts.min_values.push_back(x - 0.5f);
    for (uint32_t b = 0; b < nb; ++b) {
      x += 0.125f * static_cast<float>(1 + rng() % 4);
      cuts.values.push_back(x);
    }
    cuts.ptr.push_back(static_cast<uint32_t>(cuts.values.size()));
  }
  return cuts;
}

// Every value feature f can split at: E_f, its min_values and then its cuts.
std::vector<float> SplitValues(const HistogramCuts& cuts, uint32_t f) {
  std::vector<float> v = {cuts.min_values[f]};
  v.insert(v.end(), cuts.values.begin() + cuts.ptr[f], cuts.values.begin() + cuts.ptr[f + 1]);
  return v;
}

// A tree of `splits` splits at E_f values, each of a random leaf (or, `chain`, of the last left
// child: a tree `splits` deep), default either way, and random leaf values.
RegTree CodableTree(std::mt19937& rng, const HistogramCuts& cuts, int splits, bool chain = false) {
  RegTree tree;
  std::vector<int> leaves = {0};
  for (int s = 0; s < splits; ++s) {
    const std::size_t pick = chain ? leaves.size() - 1 : rng() % leaves.size();
    const uint32_t f = rng() % cuts.NumFeatures();
    const std::vector<float> at = SplitValues(cuts, f);
    const int left = tree.Split(leaves[pick], f, at[rng() % at.size()], rng() % 2 == 0, 1.0f);
    leaves[pick] = left;
    if (!chain) leaves.push_back(left + 1);
  }
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (TreeNode& node : tree.nodes()) node.leaf_value = uniform(rng);
  return tree;
}

// Codes against the cuts walk to the dense floats' margins, bit for bit, for trees split at every
// E_f value (min_values and each cut, default either way) and rows whose values fall on the
// cuts, between them, below min_values, above the last cut, at +-0 and +-inf, or are missing; a
// tree on a feature the rows lack reads the pad. Where the CPU has AVX-512, blocks of 64 rows
// (four here, each with a row after it) walk a complete copy of each tree up to depth 12 by
// gathers, deeper trees (the chain of depth 14 below) a row at a time, the last rows as before.
// A split_cond off the cuts, or a categorical split, is refused with nothing added.
TEST(AddTreeMargins, CodedRowsGiveTheDenseMargins) {
  std::mt19937 rng(21);
  const uint32_t num_features = 5;  // 0-3 in the rows, 4 beyond them
  const HistogramCuts cuts = CodableCuts(rng, num_features);
  ASSERT_TRUE(CodedRows::Serves(cuts));
  auto split_values = [&](uint32_t f) { return SplitValues(cuts, f); };
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<RegTree> trees;
  std::vector<const RegTree*> pointers;
  std::vector<int> groups;
  for (int t = 0; t < 16; ++t) trees.push_back(CodableTree(rng, cuts, 12));
  // A chain of 14 splits, each node's left child split again: deeper than the complete copies.
  trees.push_back(CodableTree(rng, cuts, 14, /*chain=*/true));
  pointers.push_back(&trees.back());
  for (std::size_t t = 0; t + 1 < trees.size(); ++t) pointers.push_back(&trees[t]);
  for (std::size_t t = 0; t < trees.size(); ++t) groups.push_back(static_cast<int>(t % 2));
  const uint32_t num_feature = 4;
  DataSet data;
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, -100.0f, 100.0f};
  for (int r = 0; r < 301; ++r) {
    std::vector<std::pair<uint32_t, float>> row;
    for (uint32_t f = 0; f < num_feature; ++f) {
      const std::vector<float> at = split_values(f);
      float v;
      switch (rng() % 5) {
        case 0:
          continue;  // missing
        case 1:
          v = at[rng() % at.size()];
          break;  // on a cut or min_values
        case 2:
          v = specials[rng() % 6];
          break;
        default:
          v = at.front() - 1.0f + (at.back() - at.front() + 2.0f) * (uniform(rng) + 1) / 2;
      }
      row.emplace_back(f, v);
    }
    AddRow(&data, row);
  }
  const DenseRows dense = DenseRows::From(data, num_feature, 2);
  const CodedRows coded = CodedRows::From(dense, cuts, 2);
  ASSERT_EQ(coded.NumRows(), 301u);
  std::vector<float> by_dense(301 * 2, 0.5f), by_codes(301 * 2, 0.5f);
  AddTreeMargins(pointers, groups, dense, 2, by_dense.data(), 2);
  ASSERT_TRUE(AddTreeMargins(pointers, groups, coded, cuts, 2, by_codes.data(), 3));
  for (std::size_t i = 0; i < by_dense.size(); ++i) {
    ASSERT_EQ(test::Bits(by_dense[i]), test::Bits(by_codes[i])) << i;
  }
  // Off the cuts, or categorical: refused, nothing added.
  RegTree off;
  off.Split(0, 1, cuts.values[cuts.ptr[1]] + 0.0625f, true, 1.0f);
  std::vector<float> untouched(301 * 2, 0.5f);
  EXPECT_FALSE(AddTreeMargins({&off}, {0}, coded, cuts, 2, untouched.data(), 2));
  RegTree cat = trees[0];
  cat[0].is_cat = true;
  EXPECT_FALSE(AddTreeMargins({&cat}, {0}, coded, cuts, 2, untouched.data(), 2));
  EXPECT_EQ(untouched, std::vector<float>(301 * 2, 0.5f));
  // Cuts that codes cannot serve: a categorical feature; min_values above the first cut.
  HistogramCuts categorical = cuts;
  categorical.is_cat.assign(num_features, 0);
  categorical.is_cat[2] = 1;
  EXPECT_FALSE(CodedRows::Serves(categorical));
  HistogramCuts unsorted = cuts;
  unsorted.min_values[3] = unsorted.values[unsorted.ptr[3]] + 1.0f;
  EXPECT_FALSE(CodedRows::Serves(unsorted));
}

// A sparse set by feature, coded against the cuts, walks to the CSR's margins bit for bit: trees
// split at every E_f value (default either way), leaves at every depth and a chain of 14 splits,
// rows holding values on the cuts, between them, beyond the training range, at +-0 and +-inf, or
// missing, and entries of a feature the cuts do not have (left out); one to five threads, also
// more than the rows. Take empties the CSR's entries and keeps the rest. A split off the cuts,
// categorical, or on a feature beyond them is refused with nothing added.
TEST(AddTreeMargins, CodedColumnsGiveTheCsrMargins) {
  std::mt19937 rng(29);
  const uint32_t num_features = 6;
  const HistogramCuts cuts = CodableCuts(rng, num_features);
  ASSERT_TRUE(CodedRows::Serves(cuts));
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<RegTree> trees;
  for (int t = 0; t < 12; ++t) trees.push_back(CodableTree(rng, cuts, 20));
  trees.push_back(CodableTree(rng, cuts, 14, /*chain=*/true));
  trees.emplace_back();  // a single leaf
  trees.back()[0].leaf_value = 0.375f;
  std::vector<const RegTree*> pointers;
  std::vector<int> groups;
  for (const RegTree& tree : trees) {
    pointers.push_back(&tree);
    groups.push_back(static_cast<int>(groups.size() % 2));
  }
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, -100.0f, 100.0f};
  for (int num_rows : {0, 2, 517}) {
    DataSet data;
    for (int r = 0; r < num_rows; ++r) {
      std::vector<std::pair<uint32_t, float>> row;
      for (uint32_t f = 0; f < num_features + 2; ++f) {  // 6 and 7: beyond the cuts
        const std::vector<float> at = SplitValues(cuts, std::min(f, num_features - 1));
        switch (rng() % 6) {
          case 0:
          case 1:
            continue;  // missing
          case 2:
            row.emplace_back(f, at[rng() % at.size()]);  // on a cut or min_values
            break;
          case 3:
            row.emplace_back(f, specials[rng() % 6]);
            break;
          default:
            row.emplace_back(
                f, at.front() - 1.0f + (at.back() - at.front() + 2.0f) * (uniform(rng) + 1) / 2);
        }
      }
      AddRow(&data, row);
    }
    std::vector<float> by_csr(num_rows * 2, 0.5f);
    AddTreeMargins(pointers, groups, data.num_col, data, 2, by_csr.data(), 2);
    for (int threads : {1, 2, 3, 5}) {
      DataSet taken = data;
      const CodedColumns columns = CodedColumns::Take(&taken, cuts, threads);
      EXPECT_TRUE(taken.index.empty());
      EXPECT_TRUE(taken.value.empty());
      EXPECT_EQ(taken.row_ptr, data.row_ptr);
      EXPECT_EQ(taken.label, data.label);
      ASSERT_EQ(columns.NumFeatures(), num_features);
      ASSERT_EQ(columns.num_rows, static_cast<uint64_t>(num_rows));
      for (uint32_t f = 0; f < num_features; ++f) {
        EXPECT_TRUE(std::is_sorted(columns.rows.begin() + columns.ptr[f],
                                   columns.rows.begin() + columns.ptr[f + 1]));
      }
      std::vector<float> by_columns(num_rows * 2, 0.5f);
      ASSERT_TRUE(AddTreeMargins(pointers, groups, columns, cuts, 2, by_columns.data(), threads));
      for (std::size_t i = 0; i < by_csr.size(); ++i) {
        ASSERT_EQ(test::Bits(by_csr[i]), test::Bits(by_columns[i]))
            << i << ", " << num_rows << " rows, threads " << threads;
      }
      if (num_rows == 517) {
        EXPECT_NE(by_columns[0], 0.5f);
        // Off the cuts, categorical, or on a feature beyond them: refused, nothing added.
        RegTree off;
        off.Split(0, 1, cuts.values[cuts.ptr[1]] + 0.0625f, true, 1.0f);
        RegTree cat = trees[0];
        cat[0].is_cat = true;
        RegTree beyond;
        beyond.Split(0, num_features, 0.0f, true, 1.0f);
        for (const RegTree* bad : {&off, &cat, &beyond}) {
          std::vector<float> untouched(num_rows * 2, 0.5f);
          EXPECT_FALSE(AddTreeMargins({&trees[1], bad}, {0, 1}, columns, cuts, 2, untouched.data(),
                                      threads));
          EXPECT_EQ(untouched, std::vector<float>(num_rows * 2, 0.5f));
        }
      }
    }
  }
}

}  // namespace
}  // namespace ringboost

namespace ringboost {
namespace {

// A model's num_feature and its split ids cost no memory per feature id: the row buffers hold
// the features the trees split on (issue 24, item 7), with the same margins.
TEST(PredictMargin, HugeFeatureCountsAndSparseSplitIdsGiveTheSameMargins) {
  const std::vector<float> expected = PredictMargin(HandModel(), HandData(), 0, 2);
  Model wide = HandModel();
  wide.num_feature = 2147483647;
  EXPECT_EQ(PredictMargin(wide, HandData(), 0, 2), expected);
  // The same trees with feature 1 at a large id: renumbered, not a 2^31-wide buffer. Below 2^20
  // a table maps ids to columns (500000), above it a binary search does (2147483000); the rows'
  // entries of features the trees do not split on, below and above that id, read nothing.
  for (const uint32_t id : {500000u, 2147483000u}) {
    Model sparse = wide;
    for (RegTree& tree : sparse.trees) {
      for (TreeNode& node : tree.nodes()) {
        if (!node.IsLeaf() && node.feature == 1) node.feature = id;
      }
    }
    DataSet data;
    AddRow(&data, {{0, 1.0f}, {2, -2.0f}, {id - 1, -7.0f}});
    AddRow(&data, {{id + 1, -4.0f}});
    AddRow(&data, {{0, 0.0f}, {id, 3.0f}});
    AddRow(&data, {{0, 2.0f}, {5, 9.0f}, {id, -1.0f}, {id + 7, 5.0f}});
    EXPECT_EQ(PredictMargin(sparse, data, 0, 2), expected) << id;
  }
}

}  // namespace
}  // namespace ringboost
