// Exclusive feature bundling: the greedy on hand-made samples, the check on all rows that evicts
// a conflict the sample missed, and the bundled matrix reading back every (row, feature) bin.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "rabit/communicator.h"
#include "tree/bins/binned_matrix.h"
#include "tree/bins/bundles.h"
#include "tree/bins/quantile.h"
#include "tree/bins/quantile_data.h"

namespace ringboost {
namespace {

using test::MakeRows;
using Members = std::vector<std::vector<uint32_t>>;

// Cuts of `bins[f]` bins per feature (the greedy reads only the bin counts).
HistogramCuts CutsWithBins(const std::vector<uint32_t>& bins) {
  HistogramCuts cuts;
  for (uint32_t b : bins) cuts.ptr.push_back(cuts.ptr.back() + b);
  cuts.values.resize(cuts.ptr.back());
  return cuts;
}

// Sampled rows {0,3} {1,3} {2} {0}; counts 2, 1, 1, 2. Order by count, then id: 0, 3, 1, 2.
// 0 opens bundle A; 3 meets 0 in row 0 and opens B; 1 (row 1) and 2 (row 2) fit A.
TEST(GreedyBundles, ExclusiveFeaturesShareABundle) {
  const std::vector<std::vector<uint32_t>> rows = {{0, 3}, {1, 3}, {2}, {0}};
  const HistogramCuts cuts = CutsWithBins({1, 1, 1, 1});
  const FeatureBundles b = GreedyBundles(rows, {2, 1, 1, 2}, cuts, 0.0);
  EXPECT_EQ(b.members, (Members{{0, 1, 2}, {3}}));
  EXPECT_EQ(b.NumBundled(), 3u);
}

// One conflicting row in four allowed (rate 0.25): 3 joins A at row 0 (A's one conflict); then
// 1 meets 3 in row 1, a second conflict, and opens B; 2 still fits A.
TEST(GreedyBundles, ConflictRateAllowsThatManyRowsPerBundle) {
  const std::vector<std::vector<uint32_t>> rows = {{0, 3}, {1, 3}, {2}, {0}};
  const HistogramCuts cuts = CutsWithBins({1, 1, 1, 1});
  const FeatureBundles b = GreedyBundles(rows, {2, 1, 1, 2}, cuts, 0.25);
  EXPECT_EQ(b.members, (Members{{0, 2, 3}, {1}}));
}

// A bundle of several members holds at most 256 bins with its "none" bin: 1 + 200 + 56 = 257.
// A feature without values (count 0) is in no bundle.
TEST(GreedyBundles, BinsPerBundleAreCapped) {
  const std::vector<std::vector<uint32_t>> rows = {{0}, {1}, {2}};
  const HistogramCuts cuts = CutsWithBins({200, 56, 55, 3});
  const FeatureBundles b = GreedyBundles(rows, {1, 1, 1, 0}, cuts, 0.0);
  EXPECT_EQ(b.members, (Members{{0, 2}, {1}}));
}

// 200,001 rows: the sample takes every 3rd (stride 3). Feature 0 is in the even rows, 1 in rows
// 4k+1, 3 in rows 4k+3, except row 1 (not sampled), which holds 0 and 1: the sample bundles 0, 1
// and 3, the check on all rows evicts 1. Feature 2 is in every third row, sampled ones included,
// together with another feature: a bundle alone.
TEST(DecideBundles, ConflictOutsideTheSampleIsEvicted) {
  std::vector<std::vector<std::pair<uint32_t, float>>> rows(200001);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const uint32_t f = i % 2 == 0 ? 0 : i % 4 == 1 ? 1 : 3;
    if (i == 1) rows[i].push_back({0u, 2.0f});
    rows[i].push_back({f, 1.0f});
    if (i % 3 == 0) rows[i].push_back({2u, 1.0f});
    std::sort(rows[i].begin(), rows[i].end());
  }
  const DataSet d = MakeRows(rows);
  auto comm = rabit::MakeLocalCommunicator();
  const HistogramCuts cuts = ComputeCuts(d, 4, 256, comm.get(), 2);
  const FeatureBundles with_check = DecideBundles(d, cuts, {"true", 0.0}, comm.get(), 2);
  EXPECT_EQ(with_check.members, (Members{{0, 3}, {2}, {1}}));
  EXPECT_TRUE(DecideBundles(d, cuts, {"false", 0.0}, comm.get(), 2).Empty());
  // A positive rate skips the check: the sample's bundle stays (row 1 keeps feature 0's value).
  const FeatureBundles allowed = DecideBundles(d, cuts, {"true", 0.1}, comm.get(), 2);
  EXPECT_EQ(allowed.members, (Members{{0, 1, 3}, {2}}));
  const BinnedMatrix m = BinnedMatrix::Build(d, cuts, 2, &allowed);
  EXPECT_EQ(m.GetBin(1, 0, cuts), cuts.SearchBin(0, 2.0f));
  EXPECT_EQ(m.GetBin(1, 1, cuts), -1);
  EXPECT_EQ(m.GetBin(5, 1, cuts), cuts.SearchBin(1, 1.0f));
}

// Nothing can share a column (every pair meets in a row): no bundles, even with
// enable_bundle=true.
TEST(DecideBundles, NoSharedColumnNoBundles) {
  const DataSet d =
      MakeRows({{{0, 1.0f}, {1, 2.0f}}, {{0, 3.0f}, {1, 4.0f}}, {{0, 1.0f}, {1, 1.0f}, {2, 1.0f}}});
  auto comm = rabit::MakeLocalCommunicator();
  const HistogramCuts cuts = ComputeCuts(d, 3, 256, comm.get(), 1);
  EXPECT_TRUE(DecideBundles(d, cuts, {"true", 0.0}, comm.get(), 1).Empty());
}

// Dense data keeps its dense layout whatever enable_bundle says.
TEST(DecideBundles, DenseDataIsNotBundled) {
  const DataSet d = MakeRows({{{0, 1.0f}, {1, 2.0f}}, {{0, 3.0f}, {1, 4.0f}}});
  auto comm = rabit::MakeLocalCommunicator();
  const HistogramCuts cuts = ComputeCuts(d, 2, 256, comm.get(), 1);
  EXPECT_TRUE(DecideBundles(d, cuts, {"true", 0.0}, comm.get(), 1).Empty());
}

// Three one-hot blocks of 4 features with real values, drawn at random (a fixed stream), some
// blocks absent (missing) in a row.
DataSet OneHotBlocks(int n) {
  std::mt19937 draw(7);
  std::vector<std::vector<std::pair<uint32_t, float>>> rows(n);
  for (int i = 0; i < n; ++i) {
    for (uint32_t block = 0; block < 3; ++block) {
      if (draw() % 5 == 0) continue;
      const uint32_t f = block * 4 + draw() % 4;
      rows[i].push_back({f, static_cast<float>(draw() % 9)});
    }
  }
  return MakeRows(rows);
}

// The bundled matrix: one column a block, one byte a bin, and every (row, feature) bin what the
// unbundled matrix reads, absent ones -1; auto bundles (3 columns for about 2.4 values a row).
TEST(BundledMatrix, ReadsTheSameBinsAsTheSparseMatrix) {
  const DataSet d = OneHotBlocks(500);
  auto comm = rabit::MakeLocalCommunicator();
  const HistogramCuts cuts = ComputeCuts(d, 12, 256, comm.get(), 2);
  const FeatureBundles b = DecideBundles(d, cuts, {"auto", 0.0}, comm.get(), 2);
  Members sorted = b.members;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(sorted, (Members{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}}));
  const BinnedMatrix bundled = BinnedMatrix::Build(d, cuts, 2, &b);
  const BinnedMatrix sparse = BinnedMatrix::Build(d, cuts, 2);
  ASSERT_EQ(sparse.layout(), BinnedMatrix::Layout::kSparse);
  ASSERT_TRUE(bundled.bundled());
  EXPECT_EQ(bundled.layout(), BinnedMatrix::Layout::kDense);
  EXPECT_EQ(bundled.NumColumns(), 3u);
  EXPECT_EQ(bundled.BinBytes(), 1);
  for (uint64_t i = 0; i < d.NumRows(); ++i) {
    for (uint32_t f = 0; f < 12; ++f) {
      ASSERT_EQ(bundled.GetBin(i, f, cuts), sparse.GetBin(i, f, cuts)) << i << " " << f;
    }
  }
  // Each global bin maps to its member's slice of its bundle: feature 5's first bin follows the
  // "none" bin and feature 4's bins in the second bundle's cells.
  const uint32_t bundle = bundled.ColumnOffsets()[bundled.ColumnOf(5)];
  EXPECT_EQ(bundled.GlobalToHist()[cuts.ptr[5]], bundle + 1 + cuts.FeatureBins(4));
  EXPECT_EQ(bundled.HistBins(), cuts.TotalBins() + 3 + 1);  // + a "none" bin a bundle + unused
}

}  // namespace
}  // namespace ringboost
