// The grower's column-wise way (tree/hist/columnwise.h) against its row-wise ways: the same trees.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "tree/hist/grower.h"
#include "tree/hist/grower_fixture.h"
#include "tree/tree_builders.h"

namespace ringboost {
namespace {
using Fixture = test::GrowerFixture;
using test::SignalRows;
}  // namespace

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

// Low-bit gradients (every sum within 32 bits): the column-wise way copies each entry's one-byte
// code and adds its packed word to a word cell; the tree is the row-wise way's from the same
// low-bit gradients, with and without rows left out. Each column holds about 3,000 entries over
// up to 256 bins: levels of up to 8 nodes read every cell (no bits marked), deeper ones the
// marked cells.
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

// One grower, trees from low-bit gradients (the column copy of one-byte codes) and from exact ones
// (two floats an entry) in turn, with the labels changing: each the row-wise grower's tree from the
// same gradients (a tree reading the other kind's copy, or the last tree's, would differ).
TEST(TreeGrower, ColumnwiseCodesAndFloatsTakeTurns) {
  Fixture fx(SignalRows(3000, 50, 300, 13), 2);
  Params p;
  p.max_depth = 5;
  std::vector<GradPair> first, second;
  for (std::size_t i = 0; i < fx.data.label.size(); ++i) {
    first.push_back(GradPair{-fx.data.label[i], 1.0f});
    second.push_back(GradPair{(i * 37) % 101 < 40 ? -3.0f : 2.0f, 1.0f});
  }
  std::vector<RegTree> trees[2];
  for (bool columns : {false, true}) {
    TreeGrower grower(fx.matrix.get(), &fx.cuts, TreeParams::From(p, 0.0f), fx.comm.get(), 2);
    grower.SetWideHistogramBytes(0);
    grower.SetColumnwise(columns);
    for (int t = 0; t < 4; ++t) {
      const std::vector<GradPair>& g = t % 3 == 0 ? first : second;
      const GradientQuantizer q(g, 1, 0, fx.comm.get());
      if (t % 2 == 0) {  // low-bit
        const GradientQuantizer low = q.LowBit();
        std::vector<GradientSum> low_grad;
        const GradientSum sum = low.QuantizeAllLowBit(g, 1, 0, {}, 7, t, 0, 2, &low_grad);
        trees[columns].push_back(grower.Grow(low_grad, sum, low, 0));
      } else {
        trees[columns].push_back(grower.Grow(q.QuantizeAll(g, 1, 0, {}, 2), q, 0));
      }
    }
  }
  EXPECT_NE(trees[0][0][0].feature, trees[0][1][0].feature);  // the labels differ
  for (int t = 0; t < 4; ++t) {
    EXPECT_GT(trees[0][t].NumNodes(), 15) << t;
    test::ExpectSameTree(trees[0][t], trees[1][t]);
  }
}

// More rows than one block of the exact root's copy (2^16 rows a block, ColumnwiseEvaluator::
// CopyGradients): the entries of every block and column carry their own rows' gradients, so the
// gains and covers (exact sums) are the row-wise way's too.
TEST(TreeGrower, ColumnwiseCopiesGradientsBlockByBlock) {
  Fixture fx(SignalRows(2 * 65536 + 3001, 40, 500, 17), 2);
  Params p;
  p.max_depth = 4;
  const RegTree a = fx.Grow(p, 2);
  EXPECT_GT(a.NumNodes(), 15);
  for (int nthread : {1, 2}) {
    const RegTree b = fx.Grow(p, nthread, nullptr, Fixture::Mode::kWideColumns);
    test::ExpectSameTree(a, b, "nthread " + std::to_string(nthread));
    for (int i = 0; i < a.NumNodes(); ++i) {
      EXPECT_EQ(a[i].gain, b[i].gain) << nthread << " " << i;
      EXPECT_EQ(a[i].sum_hess, b[i].sum_hess) << nthread << " " << i;
    }
  }
}

}  // namespace ringboost
