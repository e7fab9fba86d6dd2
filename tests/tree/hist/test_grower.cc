#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "tree/hist/grower.h"
#include "tree/hist/grower_fixture.h"
#include "tree/tree_builders.h"

namespace ringboost {
namespace {

using Fixture = test::GrowerFixture;

Params StumpParams() {
  Params p;
  p.eta = 1.0;
  p.max_depth = 1;
  return p;
}

}  // namespace

// x = 1,2,3,4 and y = 0,0,10,10: root G=-20 H=4 gain 400/5 = 80; best split x<3 with left
// (0, 2) -> 0 and right (-20, 2) -> 400/3, loss change 133.33 - 80 = 53.33; right weight 20/3.
TEST(TreeGrower, StumpSplitsWhereHandComputed) {
  Fixture fx(test::DenseRows({{1}, {2}, {3}, {4}}, {0, 0, 10, 10}));
  RegTree tree = fx.Grow(StumpParams());
  ASSERT_EQ(tree.NumNodes(), 3);
  EXPECT_EQ(tree[0].feature, 0u);
  EXPECT_EQ(tree[0].split_cond, 3.0f);
  EXPECT_FALSE(tree[0].default_left);
  EXPECT_NEAR(tree[0].gain, 400.0 / 3 - 80, 1e-4);
  EXPECT_FLOAT_EQ(tree[0].sum_hess, 4.0f);
  EXPECT_FLOAT_EQ(tree[1].leaf_value, 0.0f);
  EXPECT_FLOAT_EQ(tree[2].leaf_value, 20.0f / 3);
  EXPECT_FLOAT_EQ(tree[2].sum_hess, 2.0f);
}

// A fifth row with the feature missing and y = 0. Forward (missing right): right (-20, 3) -> 100,
// root (-20, 5) -> 66.7, change 33.3. Backward (missing left): left (0, 3), right (-20, 2) ->
// 133.3, change 66.7: the learned default direction is left.
TEST(TreeGrower, LearnsDefaultDirectionForMissing) {
  Fixture fx(test::DenseRows({{1}, {2}, {3}, {4}, {NAN}}, {0, 0, 10, 10, 0}));
  RegTree tree = fx.Grow(StumpParams());
  ASSERT_EQ(tree.NumNodes(), 3);
  EXPECT_TRUE(tree[0].default_left);
  EXPECT_EQ(tree[0].split_cond, 3.0f);
  EXPECT_NEAR(tree[0].gain, 400.0 / 3 - 400.0 / 6, 1e-4);
  EXPECT_FLOAT_EQ(tree[1].sum_hess, 3.0f);
}

// With y = 10 on the missing row, missing goes right: change 225 - 150 = 75 beats 8.3.
TEST(TreeGrower, MissingRightWhenBetter) {
  Fixture fx(test::DenseRows({{1}, {2}, {3}, {4}, {NAN}}, {0, 0, 10, 10, 10}));
  RegTree tree = fx.Grow(StumpParams());
  EXPECT_FALSE(tree[0].default_left);
  EXPECT_NEAR(tree[0].gain, 75.0, 1e-4);
}

// gamma above the only split's loss change keeps the root a leaf (weight 20/5 = 4).
TEST(TreeGrower, GammaPrunesWeakSplit) {
  Fixture fx(test::DenseRows({{1}, {2}, {3}, {4}}, {0, 0, 10, 10}));
  Params p = StumpParams();
  p.gamma = 60;
  RegTree tree = fx.Grow(p);
  EXPECT_EQ(tree.NumNodes(), 1);
  EXPECT_FLOAT_EQ(tree[0].leaf_value, 4.0f);
}

// min_child_weight 3 forbids every split of 4 unit-hessian rows.
TEST(TreeGrower, MinChildWeightBlocksLightChildren) {
  Fixture fx(test::DenseRows({{1}, {2}, {3}, {4}}, {0, 0, 10, 10}));
  Params p = StumpParams();
  p.min_child_weight = 3;
  EXPECT_EQ(fx.Grow(p).NumNodes(), 1);
}

// A root lighter than min_child_weight (H = 4 < 5) stays a leaf with its Newton step 20 / (4 + 1),
// as XGBoost 3.x keeps it (1.7 set it to 0).
TEST(TreeGrower, RootLighterThanMinChildWeightKeepsItsWeight) {
  Fixture fx(test::DenseRows({{1}, {2}, {3}, {4}}, {0, 0, 10, 10}));
  Params p = StumpParams();
  p.min_child_weight = 5;
  RegTree tree = fx.Grow(p);
  ASSERT_EQ(tree.NumNodes(), 1);
  EXPECT_FLOAT_EQ(tree[0].leaf_value, 4.0f);
  EXPECT_FLOAT_EQ(tree[0].sum_hess, 4.0f);
}

// Ties between features keep the lower feature id: features 0 and 1 are copies.
TEST(TreeGrower, TieKeepsLowerFeature) {
  Fixture fx(test::DenseRows({{1, 1}, {2, 2}, {3, 3}, {4, 4}}, {0, 0, 10, 10}));
  EXPECT_EQ(fx.Grow(StumpParams())[0].feature, 0u);
}

// Depthwise numbering: children are appended level by level, and the prediction cache adds each
// row's leaf value.
TEST(TreeGrower, DepthTwoNodeIdsAndPredictionCache) {
  Fixture fx(
      test::DenseRows({{1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}}, {0, 1, 10, 11, 20, 21, 30, 31}));
  Params p = StumpParams();
  p.max_depth = 2;
  p.lambda = 0;
  std::vector<float> preds(8, 0.0f);
  RegTree tree = fx.Grow(p, 2, &preds);
  ASSERT_EQ(tree.NumNodes(), 7);
  EXPECT_EQ(tree[0].split_cond, 5.0f);
  EXPECT_EQ(tree[1].split_cond, 3.0f);
  EXPECT_EQ(tree[2].split_cond, 7.0f);
  EXPECT_EQ(tree[1].left, 3);
  EXPECT_EQ(tree[2].left, 5);
  // lambda 0: leaves are the means of their rows.
  EXPECT_FLOAT_EQ(tree[3].leaf_value, 0.5f);
  EXPECT_FLOAT_EQ(tree[6].leaf_value, 30.5f);
  EXPECT_FLOAT_EQ(preds[0], 0.5f);
  EXPECT_FLOAT_EQ(preds[5], 20.5f);
}

TEST(TreeGrower, LossguideRespectsMaxLeaves) {
  Fixture fx(
      test::DenseRows({{1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}}, {0, 1, 10, 11, 20, 21, 30, 31}));
  Params p = StumpParams();
  p.grow_policy = "lossguide";
  p.max_depth = 0;
  p.max_leaves = 3;
  RegTree tree = fx.Grow(p);
  EXPECT_EQ(tree.NumLeaves(), 3);
}

TEST(TreeGrower, SameTreeForAnyThreadCountAndHistogramMode) {
  for (bool sparse : {false, true}) {
    std::vector<std::vector<float>> rows;
    std::vector<float> labels;
    uint64_t s = 42;
    for (int i = 0; i < 5000; ++i) {
      std::vector<float> r;
      for (int f = 0; f < 6; ++f) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        float v = static_cast<float>((s >> 33) % 1000) / 10.0f;
        r.push_back(sparse && (s >> 20) % 3 == 0 ? NAN : v);
      }
      labels.push_back((std::isnan(r[0]) ? 5.f : r[0]) * 0.1f + (r[3] > 50 ? 3.f : 0.f));
      rows.push_back(r);
    }
    Fixture fx1(test::DenseRows(rows, labels), 1);
    Fixture fx2(test::DenseRows(rows, labels), 2);
    for (const char* policy : {"depthwise", "lossguide"}) {
      Params p;
      p.max_depth = 5;
      p.grow_policy = policy;
      p.colsample_bynode = 0.8;
      RegTree a = fx1.Grow(p, 1);
      // Threads, and the wide ways (no subtraction; touched chunks only, or column by column),
      // change nothing.
      using Mode = Fixture::Mode;
      for (RegTree b :
           {fx2.Grow(p, 2), fx2.Grow(p, 2, nullptr, Mode::kWideRows),
            fx1.Grow(p, 1, nullptr, Mode::kWideRows), fx2.Grow(p, 2, nullptr, Mode::kWideColumns),
            fx1.Grow(p, 1, nullptr, Mode::kWideColumns)}) {
        ASSERT_EQ(a.NumNodes(), b.NumNodes());
        for (int i = 0; i < a.NumNodes(); ++i) {
          EXPECT_EQ(a[i].feature, b[i].feature);
          EXPECT_EQ(a[i].split_cond, b[i].split_cond);
          EXPECT_EQ(a[i].leaf_value, b[i].leaf_value);
          EXPECT_EQ(a[i].gain, b[i].gain);
          EXPECT_EQ(a[i].default_left, b[i].default_left);
        }
      }
      EXPECT_GT(a.NumNodes(), 15);
      // Rows left out by row subsampling (zero gradients) are skipped alike by every way.
      std::vector<uint8_t> keep(rows.size());
      for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = (i * 7) % 10 < 7;
      const RegTree c = fx1.Grow(p, 1, nullptr, Fixture::Mode::kNormal, keep);
      for (RegTree d : {fx2.Grow(p, 2, nullptr, Fixture::Mode::kWideRows, keep),
                        fx2.Grow(p, 2, nullptr, Fixture::Mode::kWideColumns, keep)}) {
        ASSERT_EQ(c.NumNodes(), d.NumNodes());
        for (int i = 0; i < c.NumNodes(); ++i) {
          EXPECT_EQ(c[i].split_cond, d[i].split_cond);
          EXPECT_EQ(c[i].leaf_value, d[i].leaf_value);
        }
      }
    }
  }
}

// Feature bundles (pairs 0-1, 2-3, 4-5 never present together; feature 6 with missing values
// alone) grow the unbundled tree: threads, the wide way by rows, depthwise and lossguide,
// subsampled rows.
TEST(TreeGrower, BundledMatrixGrowsTheUnbundledTree) {
  std::vector<std::vector<float>> rows;
  std::vector<float> labels;
  uint64_t s = 3;
  for (int i = 0; i < 4000; ++i) {
    std::vector<float> r(7, NAN);
    for (int pair = 0; pair < 3; ++pair) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      if ((s >> 40) % 5 == 0) continue;  // both missing
      r[2 * pair + (s >> 30) % 2] = static_cast<float>((s >> 33) % 100) / 4.0f;
    }
    if ((s >> 20) % 4 != 0) r[6] = static_cast<float>((s >> 45) % 50);
    const float a = std::isnan(r[0]) ? 0.f : r[0], b = std::isnan(r[3]) ? 20.f : r[3];
    labels.push_back(a * 0.1f + (b > 12 ? 3.f : 0.f) + (std::isnan(r[4]) ? 1.f : 0.f));
    rows.push_back(r);
  }
  Fixture plain(test::DenseRows(rows, labels), 2);
  ASSERT_EQ(plain.matrix->layout(), BinnedMatrix::Layout::kSparse);
  Fixture b1(test::DenseRows(rows, labels), 1, true), b2(test::DenseRows(rows, labels), 2, true);
  ASSERT_TRUE(b2.matrix->bundled());
  EXPECT_EQ(b2.matrix->NumColumns(), 4u);
  std::vector<uint8_t> keep(rows.size());
  for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = (i * 7) % 10 < 7;
  using Mode = Fixture::Mode;
  for (const char* policy : {"depthwise", "lossguide"}) {
    Params p;
    p.max_depth = 5;
    p.grow_policy = policy;
    p.colsample_bynode = 0.8;
    for (const auto& k : {std::vector<uint8_t>{}, keep}) {
      const RegTree a = plain.Grow(p, 2, nullptr, Mode::kNormal, k);
      EXPECT_GT(a.NumNodes(), 15);
      for (const RegTree& b :
           {b1.Grow(p, 1, nullptr, Mode::kNormal, k), b2.Grow(p, 2, nullptr, Mode::kNormal, k),
            b2.Grow(p, 2, nullptr, Mode::kWideRows, k)}) {
        test::ExpectSameTree(a, b);
      }
    }
  }
}

// Monotone and interaction constraints grow the same tree on every path: threads, the wide way
// by rows and by columns, with missing values, depthwise and lossguide.
TEST(TreeGrower, ConstraintsGrowTheSameTreeInEveryMode) {
  std::vector<std::vector<float>> rows;
  std::vector<float> labels;
  uint64_t s = 7;
  for (int i = 0; i < 4000; ++i) {
    std::vector<float> r;
    for (int f = 0; f < 6; ++f) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      r.push_back((s >> 20) % 4 == 0 ? NAN : static_cast<float>((s >> 33) % 1000) / 10.0f);
    }
    const float x0 = std::isnan(r[0]) ? 50.f : r[0], x1 = std::isnan(r[1]) ? 50.f : r[1];
    labels.push_back(0.05f * x0 - 0.03f * x1 + (r[2] > 40 ? 2.f : 0.f) + std::sin(x0));
    rows.push_back(r);
  }
  TreeConstraints c;
  c.monotone = {1, -1, 0, 0, 0, 0};
  c.interaction = {{0, 1}, {2, 3, 4}};
  Fixture fx1(test::DenseRows(rows, labels), 1);
  Fixture fx2(test::DenseRows(rows, labels), 2);
  for (const char* policy : {"depthwise", "lossguide"}) {
    Params p;
    p.max_depth = 5;
    p.grow_policy = policy;
    const RegTree free = fx1.Grow(p, 1);
    fx1.constraints = fx2.constraints = c;
    const RegTree a = fx1.Grow(p, 1);
    bool differs = free.NumNodes() != a.NumNodes();
    for (int i = 0; !differs && i < a.NumNodes(); ++i) differs = free[i].feature != a[i].feature;
    EXPECT_TRUE(differs) << policy;
    using Mode = Fixture::Mode;
    for (RegTree b : {fx2.Grow(p, 2), fx2.Grow(p, 2, nullptr, Mode::kWideRows),
                      fx2.Grow(p, 2, nullptr, Mode::kWideColumns),
                      fx1.Grow(p, 1, nullptr, Mode::kWideColumns)}) {
      ASSERT_EQ(a.NumNodes(), b.NumNodes()) << policy;
      for (int i = 0; i < a.NumNodes(); ++i) {
        EXPECT_EQ(a[i].feature, b[i].feature);
        EXPECT_EQ(a[i].split_cond, b[i].split_cond);
        EXPECT_EQ(a[i].leaf_value, b[i].leaf_value);
        EXPECT_EQ(a[i].gain, b[i].gain);
      }
    }
    fx1.constraints = fx2.constraints = TreeConstraints{};
    EXPECT_GT(a.NumNodes(), 15);
  }
}

// A monotone constraint on a categorical feature weighs its candidates as on a numerical one
// (XGBoost 3.x's CalcSplitGain): every split on it keeps the order in its children's weights
// (left <= right under +1, >= under -1), one-hot and partition alike, and the feature still
// splits where the order allows (6 codes of effects 0, 1, -1, 2, 0, -2 beside a numerical x).
TEST(TreeGrower, MonotoneCategoricalSplitsKeepTheOrder) {
  std::vector<std::vector<float>> rows;
  std::vector<float> labels;
  const float effect[6] = {0, 1, -1, 2, 0, -2};
  uint64_t s = 3;
  for (int i = 0; i < 600; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const float x = static_cast<float>((s >> 33) % 1000) / 100.0f;
    rows.push_back({static_cast<float>(i % 6), x});
    labels.push_back(effect[i % 6] + 0.3f * x);
  }
  Fixture fx(test::DenseRows(rows, labels), 2);
  ApplyCategories(fx.data, {1, 0}, fx.comm.get(), &fx.cuts);
  fx.matrix = std::make_unique<BinnedMatrix>(BinnedMatrix::Build(fx.data, fx.cuts, 2));
  fx.matrix->BuildColumns(2);
  int used = 0;
  for (const int8_t order : {1, -1}) {
    for (const int onehot : {4, 8}) {  // 6 codes: partition splits, then one-hot ones
      Params p;
      p.max_depth = 4;
      p.max_cat_to_onehot = onehot;
      fx.constraints.monotone = {order, 0};
      const RegTree tree = fx.Grow(p);
      for (int i = 0; i < tree.NumNodes(); ++i) {
        if (tree[i].IsLeaf() || tree[i].feature != 0) continue;
        ++used;
        ASSERT_TRUE(tree[i].is_cat);
        const float left = tree[tree[i].left].base_weight;
        const float right = tree[tree[i].right].base_weight;
        EXPECT_GE(order * (right - left), 0.0f)
            << "order " << int{order} << " onehot " << onehot << " node " << i;
      }
    }
  }
  EXPECT_GT(used, 2);
}

}  // namespace ringboost

namespace ringboost {
namespace {
// The leaf `row` (NaN: missing) reaches by walking `tree` from the root.
int WalkedLeaf(const RegTree& tree, const std::vector<float>& row) {
  int nid = 0;
  while (!tree[nid].IsLeaf()) {
    const float v = row[tree[nid].feature];
    nid = (std::isnan(v) ? tree[nid].default_left : tree[nid].GoesLeft(v)) ? tree[nid].left
                                                                           : tree[nid].right;
  }
  return nid;
}
float WalkedLeafValue(const RegTree& tree, const std::vector<float>& row) {
  return tree[WalkedLeaf(tree, row)].leaf_value;
}

}  // namespace

// The leaves at the depth limit take their rows from their parent's by its split, without a
// partition (dense layouts, plain and bundled, missing values included); every other leaf from
// the partition. The prediction cache then holds each row's walked leaf value; with low-bit
// gradients, after each leaf's refit from its rows' exact sums.
TEST(TreeGrower, PredictionCacheIsEachRowsWalkedLeaf) {
  std::vector<std::vector<float>> rows;
  std::vector<float> labels;
  uint64_t s = 11;
  for (int i = 0; i < 3000; ++i) {
    std::vector<float> r(4, NAN);
    for (int f = 0; f < 4; ++f) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      if (f == 3 && (s >> 20) % 5 == 0) continue;  // missing
      r[f] = static_cast<float>((s >> 33) % 300) / 3.0f;
    }
    // Bundled: features 4 and 5 never present together.
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    r.push_back((s >> 30) % 2 ? static_cast<float>((s >> 40) % 50) : NAN);
    r.push_back(std::isnan(r[4]) && (s >> 50) % 3 != 0 ? static_cast<float>((s >> 45) % 40) : NAN);
    const float x3 = std::isnan(r[3]) ? 70.f : r[3], x5 = std::isnan(r[5]) ? 10.f : r[5];
    labels.push_back(r[0] * 0.1f + (x3 > 40 ? 3.f : 0.f) + (r[1] > 50 ? 2.f : 0.f) + x5 * 0.05f);
    rows.push_back(r);
  }
  Fixture fx(test::DenseRows(rows, labels), 2, true);
  ASSERT_EQ(fx.matrix->layout(), BinnedMatrix::Layout::kDense);
  ASSERT_TRUE(fx.matrix->bundled());
  std::vector<uint8_t> keep(rows.size());
  for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = (i * 7) % 10 < 7;
  for (const char* policy : {"depthwise", "lossguide"}) {
    for (int depth : {1, 4}) {
      for (const auto& k : {std::vector<uint8_t>{}, keep}) {
        Params p;
        p.max_depth = depth;
        p.grow_policy = policy;
        p.max_leaves = depth == 4 && k.empty() ? 11 : 0;  // some leaves above the depth limit
        for (int nthread : {1, 2, 3}) {                   // each thread adds to its range of rows
          std::vector<float> preds(rows.size(), 0.0f);
          const RegTree tree = fx.Grow(p, nthread, &preds, Fixture::Mode::kNormal, k);
          EXPECT_GT(tree.NumNodes(), 2);
          for (std::size_t i = 0; i < rows.size(); ++i) {
            ASSERT_EQ(preds[i], WalkedLeafValue(tree, rows[i]))
                << policy << " depth " << depth << " row " << i;
          }
          // Low-bit, each leaf refit from its kept rows' exact gradients (the rows mapped to
          // their leaves by range, then read in order): the sums written out here by walking.
          std::vector<float> lb_preds(rows.size(), 0.0f);
          const RegTree lb = fx.Grow(p, nthread, &lb_preds, Fixture::Mode::kNormal, k,
                                     /*low_bit=*/true, /*refit=*/true);
          std::vector<GradPair> g;
          for (float y : labels) g.push_back(GradPair{-y, 1.0f});
          const GradientQuantizer q(g, 1, 0, fx.comm.get());
          std::vector<GradientSum> leaf_sum(lb.NumNodes());
          for (std::size_t i = 0; i < rows.size(); ++i) {
            ASSERT_EQ(lb_preds[i], WalkedLeafValue(lb, rows[i])) << policy << " row " << i;
            if (k.empty() || k[i]) leaf_sum[WalkedLeaf(lb, rows[i])] += q.Quantize(g[i]);
          }
          const SplitParams split = TreeParams::From(p, 0.0f).split;
          int leaves = 0;
          for (int nid = 0; nid < lb.NumNodes(); ++nid) {
            if (!lb[nid].IsLeaf()) continue;
            ++leaves;
            const double gs = q.Grad(leaf_sum[nid].g), hs = q.Hess(leaf_sum[nid].h);
            EXPECT_EQ(lb[nid].sum_hess, static_cast<float>(hs)) << policy << " leaf " << nid;
            EXPECT_EQ(lb[nid].leaf_value, CalcWeight(split, gs, hs) * split.eta)
                << policy << " depth " << depth << " leaf " << nid;
          }
          EXPECT_GT(leaves, 1);
        }
      }
    }
  }
}

// A level of 65,536 splits (a depth-17 tree over 2^17 rows whose 17 features are the bits of the
// row's index, present where set; label their count, so that every bit splits every node): more
// splits than the column-wise directions' marks hold, so that level is partitioned by the rows'
// search (it had stopped the job on an internal check), and the tree is the row-wise wide way's.
TEST(TreeGrower, ColumnwiseLevelWithMoreSplitsThanMarks) {
  constexpr int kBits = 17;
  std::vector<std::vector<float>> rows(1 << kBits, std::vector<float>(kBits, NAN));
  std::vector<float> labels;
  for (int i = 0; i < (1 << kBits); ++i) {
    for (int b = 0; b < kBits; ++b) {
      if (i >> b & 1) rows[i][b] = 1.0f;
    }
    labels.push_back(static_cast<float>(__builtin_popcount(i)));
  }
  test::GrowerFixture fx(test::DenseRows(rows, labels), 2);
  ASSERT_EQ(fx.matrix->layout(), BinnedMatrix::Layout::kSparse);
  ASSERT_GT(std::size_t{1} << (kBits - 1), ColumnwiseEvaluator::kMaxDirections);  // the last level
  Params p;
  p.max_depth = kBits;
  p.min_child_weight = 0;
  p.lambda = 0;
  const RegTree by_rows = fx.Grow(p, 2, nullptr, test::GrowerFixture::Mode::kWideRows);
  EXPECT_EQ(by_rows.NumNodes(), (1 << (kBits + 1)) - 1);  // every level whole, the last 65,536
  const RegTree by_columns = fx.Grow(p, 2, nullptr, test::GrowerFixture::Mode::kWideColumns);
  test::ExpectSameTree(by_rows, by_columns);
}

}  // namespace ringboost
