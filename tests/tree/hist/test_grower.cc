#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "tree/hist/grower.h"
#include "tree/tree_builders.h"

namespace ringboost {
namespace {

struct Fixture {
  DataSet data;
  HistogramCuts cuts;
  std::unique_ptr<BinnedMatrix> matrix;
  std::unique_ptr<rabit::Communicator> comm = rabit::MakeLocalCommunicator();
  TreeConstraints constraints;  // of every tree Grow grows

  // bundle: the matrix bundles the features (enable_bundle=true, max_conflict_rate 0);
  // by_column: a sparse matrix is built by column (BinnedMatrix::Build).
  explicit Fixture(DataSet d, int nthread = 2, bool bundle = false, bool by_column = false)
      : data(std::move(d)) {
    cuts = ComputeCuts(data, data.num_col, 256, comm.get(), nthread);
    const FeatureBundles bundles =
        bundle ? DecideBundles(data, cuts, {"true", 0.0}, comm.get(), nthread) : FeatureBundles{};
    matrix = std::make_unique<BinnedMatrix>(
        BinnedMatrix::Build(data, cuts, nthread, &bundles, by_column));
    matrix->BuildColumns(nthread);
  }

  // How the grower finds splits: histograms per node (subtraction), the wide way (one node at a
  // time, no subtraction) by rows, or the wide way by columns where it serves (sparse, 1 worker).
  enum class Mode { kNormal, kWideRows, kWideColumns };

  // Squared error at margin 0: g = -y, h = 1.
  // low_bit: the tree's structure from low-bit gradients (quantized_grad=on), as HistTrainer.
  // refit: the low-bit tree's leaves refit from the exact gradients (TreeGrower::RefitLeaves)
  // before the prediction cache is updated.
  RegTree Grow(const Params& p, int nthread = 2, std::vector<float>* preds = nullptr,
               Mode mode = Mode::kNormal, const std::vector<uint8_t>& keep = {},
               bool low_bit = false, bool refit = false) {
    std::vector<GradPair> g;
    for (float y : data.label) g.push_back(GradPair{-y, 1.0f});
    GradientQuantizer q(g, 1, 0, comm.get());
    TreeGrower grower(matrix.get(), &cuts, TreeParams::From(p, 0.0f), comm.get(), nthread, low_bit);
    if (mode != Mode::kNormal) grower.SetWideHistogramBytes(0);
    grower.SetColumnwise(mode == Mode::kWideColumns);
    grower.SetConstraints(constraints);
    if (low_bit) {
      const GradientQuantizer low = q.LowBit();
      std::vector<GradientSum> low_grad;
      const GradientSum sum = low.QuantizeAllLowBit(g, 1, 0, keep, 7, 0, 0, nthread, &low_grad);
      RegTree tree = grower.Grow(low_grad, sum, low, 0);
      if (refit) grower.RefitLeaves(g, 1, 0, keep, q, &tree);
      if (preds != nullptr) grower.UpdatePredictions(tree, preds, 1, 0);
      return tree;
    }
    RegTree tree = grower.Grow(q.QuantizeAll(g, 1, 0, keep, nthread), q, 0);
    if (preds != nullptr) grower.UpdatePredictions(tree, preds, 1, 0);
    return tree;
  }
};

// n rows of `features` features, each present with probability 3/4, its value in [0, range) (a
// 64-bit LCG seeded with `seed`); the label adds +-(f % 7 + 1) for each present feature f with
// f % 13 == 5, + where its value is above range / 2.
DataSet SignalRows(int n, int features, uint64_t range, uint64_t seed) {
  std::vector<std::vector<float>> rows;
  std::vector<float> labels;
  uint64_t s = seed;
  for (int i = 0; i < n; ++i) {
    std::vector<float> r;
    float y = 0;
    for (int f = 0; f < features; ++f) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      const uint64_t v = (s >> 33) % range;
      const bool present = (s >> 20) % 4 != 0;
      r.push_back(present ? static_cast<float>(v) : NAN);
      if (present && f % 13 == 5)
        y += (2 * v > range ? 1.0f : -1.0f) * static_cast<float>(f % 7 + 1);
    }
    rows.push_back(r);
    labels.push_back(y);
  }
  return test::DenseRows(rows, labels);
}

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

// The same tree for 1 and 2 threads on a larger random set, sparse and dense layouts.
// Levels of 255 nodes or more: the column-wise way's node slots (evaluation and partition) are 16
// bits there. The target is the first feature, so levels fill up to depth 8 (its 256 bins); the
// other features (permutations of the rows, 10% present) split further, and are sparse enough
// for the partition to read the split features' columns.
TEST(TreeGrower, ColumnwiseDeepLevelsGrowTheRowwiseTree) {
  std::vector<std::vector<float>> rows;
  std::vector<float> labels;
  for (int i = 0; i < 20000; ++i) {
    std::vector<float> r;
    for (int f = 0; f < 6; ++f) {  // each feature a different permutation of the rows
      const int v = f == 0 ? i : (i * (2 * f + 3) * 7919) % 20000;
      r.push_back(f > 0 && v % 10 != f ? NAN : static_cast<float>(v));  // f > 0: 10% present
    }
    labels.push_back(static_cast<float>(i - 10000));  // splits on the first feature's order
    rows.push_back(r);
  }
  Fixture fx(test::DenseRows(rows, labels), 2);
  Params p;
  p.max_depth = 10;
  p.min_child_weight = 0;
  p.lambda = 0;  // (with lambda a node whose mean is far from 0 stops splitting)
  const RegTree a = fx.Grow(p, 2);
  const RegTree b = fx.Grow(p, 2, nullptr, Fixture::Mode::kWideColumns);
  std::vector<int> depth(a.NumNodes(), 0), splits(10, 0);  // splits per depth
  for (int i = 0; i < a.NumNodes(); ++i) {
    if (a[i].IsLeaf()) continue;
    ++splits[depth[i]];
    depth[a[i].left] = depth[a[i].left + 1] = depth[i] + 1;
  }
  EXPECT_EQ(splits[7], 128);
  EXPECT_GE(splits[8], 255);  // a level of 256 nodes, and 255 splits or more of them
  test::ExpectSameTree(a, b);
}

// Under 2^11 rows the largest quantized gradients reach 2^51 in magnitude, past the column-wise
// way's fast sum (EntryGradient::Small): it adds them the plain way and grows the row-wise tree.
TEST(TreeGrower, ColumnwiseLargeQuantizedGradientsGrowTheRowwiseTree) {
  std::vector<std::vector<float>> rows;
  std::vector<float> labels;
  for (int i = 0; i < 1000; ++i) {
    std::vector<float> r{static_cast<float>(i)};
    for (int f = 1; f < 4; ++f) {  // 10% present, each a different permutation of the rows
      const int v = (i * (2 * f + 3) * 7919) % 1000;
      r.push_back(v % 10 == f ? static_cast<float>(v) : NAN);
    }
    rows.push_back(r);
    labels.push_back(static_cast<float>(i % 7) + (i < 300 ? 20.0f : 0.0f) +
                     (std::isnan(r[2]) ? 0.0f : 5.0f));
  }
  Fixture fx(test::DenseRows(rows, labels), 2);
  std::vector<GradPair> g;
  for (float y : labels) g.push_back(GradPair{-y, 1.0f});  // as Fixture::Grow quantizes them
  const GradientQuantizer q(g, 1, 0, fx.comm.get());
  int64_t largest = 0;
  for (const GradientSum& v : q.QuantizeAll(g, 1, 0, {}, 2)) {
    largest = std::max({largest, std::abs(v.g), std::abs(v.h)});
  }
  EXPECT_GE(largest, int64_t{1} << 51);
  Params p;
  p.max_depth = 4;
  p.min_child_weight = 0;
  p.lambda = 0;
  const RegTree a = fx.Grow(p, 2);
  const RegTree b = fx.Grow(p, 2, nullptr, Fixture::Mode::kWideColumns);
  EXPECT_GE(a.NumNodes(), 15);
  test::ExpectSameTree(a, b);
}

// Low-bit gradients (every sum within 32 bits): the column-wise way adds each entry's packed word
// to a word cell; the tree is the row-wise way's from the same low-bit gradients, with and
// without rows left out.
TEST(TreeGrower, ColumnwiseLowBitGradientsGrowTheRowwiseTree) {
  Fixture fx(SignalRows(4000, 60, 300, 5), 2);
  Params p;
  p.max_depth = 6;
  std::vector<uint8_t> keep(4000);
  for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = i % 5 != 2;
  for (const std::vector<uint8_t>& k : {std::vector<uint8_t>{}, keep}) {
    const RegTree a = fx.Grow(p, 2, nullptr, Fixture::Mode::kNormal, k, /*low_bit=*/true);
    EXPECT_GT(a.NumNodes(), 31);
    test::ExpectSameTree(a, fx.Grow(p, 2, nullptr, Fixture::Mode::kWideColumns, k, true));
    test::ExpectSameTree(a, fx.Grow(p, 1, nullptr, Fixture::Mode::kWideColumns, k, true));
  }
}

// Many features, so both threads take some (16 at a time) and prune with each other's finds:
// still the row-wise tree of one thread. Several features carry signal, of different strength.
TEST(TreeGrower, ColumnwiseThreadsShareTheirFinds) {
  Fixture fx1(SignalRows(6000, 96, 500, 7), 1);
  Fixture fx2(SignalRows(6000, 96, 500, 7), 2);
  Params p;
  p.max_depth = 6;
  const RegTree a = fx1.Grow(p, 1);
  EXPECT_GT(a.NumNodes(), 63);
  test::ExpectSameTree(a, fx2.Grow(p, 2, nullptr, Fixture::Mode::kWideColumns));
}

// A matrix built by column (the learner's choice for wide sparse data on one worker) grows the
// row-major matrix's trees whichever way the grower reads it: by column from the root (where a
// level's split features hold many entries its partition reads rows, from the CSR the matrix then
// makes), the wide way by rows, histograms per node; and with four rows in five left out.
TEST(TreeGrower, MatrixBuiltByColumnGrowsTheSameTrees) {
  const DataSet data = SignalRows(5000, 40, 300, 11);
  Fixture by_rows(data, 2);
  Params p;
  p.max_depth = 6;
  const RegTree expected = by_rows.Grow(p, 2);
  EXPECT_GT(expected.NumNodes(), 31);
  std::vector<uint8_t> keep(data.NumRows(), 0);
  for (std::size_t i = 0; i < keep.size(); i += 5) keep[i] = 1;
  const RegTree expected_kept = by_rows.Grow(p, 2, nullptr, Fixture::Mode::kNormal, keep);
  for (Fixture::Mode mode :
       {Fixture::Mode::kNormal, Fixture::Mode::kWideRows, Fixture::Mode::kWideColumns}) {
    Fixture by_column(data, 2, false, true);
    ASSERT_FALSE(by_column.matrix->sparse_columns().empty());
    test::ExpectSameTree(expected, by_column.Grow(p, 2, nullptr, mode));
    Fixture kept(data, 2, false, true);
    test::ExpectSameTree(expected_kept, kept.Grow(p, 2, nullptr, mode, keep));
  }
}

// One grower, two trees: the column-wise way copies each tree's own gradients (the second tree
// grown from the first tree's copy would split where the first one did).
TEST(TreeGrower, ColumnwiseTakesEachTreesGradients) {
  std::vector<std::vector<float>> rows;
  std::vector<float> labels;
  for (int i = 0; i < 4000; ++i) {
    const float a = static_cast<float>(i % 100), b = static_cast<float>((i * 37) % 101);
    rows.push_back({a, i % 3 == 0 ? NAN : b});
    labels.push_back(a < 30 ? 1.0f : 0.0f);
  }
  Fixture fx(test::DenseRows(rows, labels), 2);
  Params p;
  p.max_depth = 3;
  auto quantized = [&](const std::vector<float>& y, const GradientQuantizer& q) {
    std::vector<GradPair> g;
    for (float v : y) g.push_back(GradPair{-v, 1.0f});
    return q.QuantizeAll(g, 1, 0, {}, 2);
  };
  std::vector<float> second(labels.size());  // the second tree's target follows the other feature
  for (std::size_t i = 0; i < second.size(); ++i) second[i] = (i * 37) % 101 < 60 ? 2.0f : 0.0f;
  std::vector<GradPair> scale;
  for (float v : second) scale.push_back(GradPair{-v, 1.0f});
  const GradientQuantizer q(scale, 1, 0, fx.comm.get());
  std::vector<RegTree> trees[2];
  for (bool columns : {false, true}) {
    TreeGrower grower(fx.matrix.get(), &fx.cuts, TreeParams::From(p, 0.0f), fx.comm.get(), 2);
    grower.SetWideHistogramBytes(0);
    grower.SetColumnwise(columns);
    for (const std::vector<float>* y : {&labels, &second}) {
      trees[columns].push_back(grower.Grow(quantized(*y, q), q, 0));
    }
  }
  EXPECT_EQ(trees[0][0][0].feature, 0u);
  EXPECT_EQ(trees[0][1][0].feature, 1u);
  for (int t = 0; t < 2; ++t) {
    const RegTree& a = trees[0][t];
    const RegTree& b = trees[1][t];
    ASSERT_EQ(a.NumNodes(), b.NumNodes()) << t;
    for (int i = 0; i < a.NumNodes(); ++i) {
      EXPECT_EQ(a[i].feature, b[i].feature) << t << " " << i;
      EXPECT_EQ(a[i].split_cond, b[i].split_cond) << t << " " << i;
      EXPECT_EQ(a[i].leaf_value, b[i].leaf_value) << t << " " << i;
    }
  }
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

}  // namespace ringboost
