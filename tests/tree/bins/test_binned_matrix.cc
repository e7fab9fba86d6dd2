// The binned matrix: layout choice, bin width, and every entry equal to SearchBin.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "rabit/communicator.h"
#include "tree/bins/binned_matrix.h"
#include "tree/bins/quantile.h"
#include "tree/bins/quantile_data.h"

namespace ringboost {
namespace {

using test::MakeRows;

HistogramCuts Cuts(const DataSet& d, uint32_t num_features, int max_bin) {
  auto comm = rabit::MakeLocalCommunicator();
  return ComputeCuts(d, num_features, max_bin, comm.get(), 2);
}

// Every stored entry's bin equals SearchBin, and absent (row, feature) pairs read -1.
void ExpectMatchesSearchBin(const DataSet& d, const HistogramCuts& cuts, const BinnedMatrix& m) {
  for (uint64_t i = 0; i < d.NumRows(); ++i) {
    std::vector<int64_t> expected(cuts.NumFeatures(), -1);
    for (uint64_t k = d.row_ptr[i]; k < d.row_ptr[i + 1]; ++k) {
      if (d.index[k] < cuts.NumFeatures()) {
        expected[d.index[k]] = cuts.SearchBin(d.index[k], d.value[k]);
      }
    }
    for (uint32_t f = 0; f < cuts.NumFeatures(); ++f) {
      ASSERT_EQ(m.GetBin(i, f, cuts), expected[f]) << "row " << i << " feature " << f;
    }
  }
}

TEST(BinnedMatrix, DenseUint8) {
  // Feature 0: 1, 2, 3 -> cuts 2, 3, 6.00001; feature 1: all 5 -> one bin.
  const DataSet d =
      MakeRows({{{0, 3.0f}, {1, 5.0f}}, {{0, 1.0f}, {1, 5.0f}}, {{0, 2.0f}, {1, 5.0f}}});
  const HistogramCuts cuts = Cuts(d, 2, 256);
  ASSERT_EQ(cuts.ptr, (std::vector<uint32_t>{0, 3, 4}));
  const BinnedMatrix m = BinnedMatrix::Build(d, cuts, 2);
  EXPECT_EQ(m.layout(), BinnedMatrix::Layout::kDense);
  EXPECT_EQ(m.BinBytes(), 1);
  EXPECT_EQ(m.NumRows(), 3u);
  EXPECT_EQ(m.NumFeatures(), 2u);
  EXPECT_EQ(m.dense8(), (std::vector<uint8_t>{2, 0, 0, 0, 1, 0}));  // local bins, row-major
  EXPECT_TRUE(m.dense16().empty());
  EXPECT_EQ(m.MemoryBytes(), 6u);
  EXPECT_EQ(m.GetBin(0, 0, cuts), 2);
  EXPECT_EQ(m.GetBin(0, 1, cuts), 3);  // global: ptr[1] + 0
  ExpectMatchesSearchBin(d, cuts, m);
}

TEST(BinnedMatrix, DenseUint8Holds256Bins) {
  std::vector<std::vector<std::pair<uint32_t, float>>> rows;
  for (int v = 0; v < 256; ++v) rows.push_back({{0u, static_cast<float>(v)}});
  const DataSet d = MakeRows(rows);
  const HistogramCuts cuts = Cuts(d, 1, 256);
  ASSERT_EQ(cuts.FeatureBins(0), 256u);
  const BinnedMatrix m = BinnedMatrix::Build(d, cuts, 2);
  EXPECT_EQ(m.BinBytes(), 1);
  EXPECT_EQ(m.dense8()[255], 255);
  ExpectMatchesSearchBin(d, cuts, m);
}

TEST(BinnedMatrix, DenseUint16WhenMoreThan256Bins) {
  // 300 distinct values with max_bin 512 -> 300 bins for feature 1.
  std::vector<std::vector<std::pair<uint32_t, float>>> rows;
  for (int v = 0; v < 300; ++v) {
    rows.push_back({{0u, static_cast<float>(v % 3)}, {1u, static_cast<float>(299 - v) * 0.5f}});
  }
  const DataSet d = MakeRows(rows);
  const HistogramCuts cuts = Cuts(d, 2, 512);
  ASSERT_EQ(cuts.FeatureBins(1), 300u);
  const BinnedMatrix m = BinnedMatrix::Build(d, cuts, 2);
  EXPECT_EQ(m.layout(), BinnedMatrix::Layout::kDense);
  EXPECT_EQ(m.BinBytes(), 2);
  EXPECT_TRUE(m.dense8().empty());
  EXPECT_EQ(m.dense16()[1], 299);  // row 0 holds the largest value of feature 1
  EXPECT_EQ(m.dense16()[2 * 299 + 1], 0);
  EXPECT_EQ(m.MemoryBytes(), 300u * 2 * 2);
  ExpectMatchesSearchBin(d, cuts, m);
}

TEST(BinnedMatrix, SparseWhenAValueIsMissing) {
  // Feature 0: 1, 2 -> cuts 2, 4.00001; feature 1: 7 -> one bin (global 2); feature 2: 0.5, 1.5.
  const DataSet d = MakeRows({{{0, 1.0f}, {2, 0.5f}}, {{1, 7.0f}}, {}, {{0, 2.0f}, {2, 1.5f}}});
  const HistogramCuts cuts = Cuts(d, 3, 256);
  ASSERT_EQ(cuts.ptr, (std::vector<uint32_t>{0, 2, 3, 5}));
  const BinnedMatrix m = BinnedMatrix::Build(d, cuts, 2);
  EXPECT_EQ(m.layout(), BinnedMatrix::Layout::kSparse);
  EXPECT_EQ(m.BinBytes(), 4);
  EXPECT_EQ(m.row_ptr(), d.row_ptr);
  EXPECT_EQ(std::vector<uint32_t>(m.sparse_bins().begin(), m.sparse_bins().end()),
            (std::vector<uint32_t>{0, 3, 2, 1, 4}));
  EXPECT_EQ(m.MemoryBytes(), 5 * 8u + 5 * 4u);
  EXPECT_EQ(m.GetBin(0, 1, cuts), -1);
  EXPECT_EQ(m.GetBin(1, 1, cuts), 2);
  EXPECT_EQ(m.GetBin(2, 0, cuts), -1);  // an empty row
  EXPECT_EQ(m.GetBin(3, 2, cuts), 4);
  ExpectMatchesSearchBin(d, cuts, m);
}

TEST(BinnedMatrix, FeaturesBeyondCutsAreDropped) {
  // Every row has 2 entries but feature 5 is outside the 2 features cut: not dense, and the
  // entries of feature 5 are not stored.
  const DataSet d = MakeRows({{{0, 1.0f}, {5, 9.0f}}, {{0, 2.0f}, {1, 3.0f}}});
  const HistogramCuts cuts = Cuts(d, 2, 256);
  const BinnedMatrix m = BinnedMatrix::Build(d, cuts, 1);
  EXPECT_EQ(m.layout(), BinnedMatrix::Layout::kSparse);
  EXPECT_EQ(m.row_ptr(), (std::vector<uint64_t>{0, 1, 3}));
  EXPECT_EQ(m.GetBin(0, 1, cuts), -1);
  ExpectMatchesSearchBin(d, cuts, m);
}

TEST(BinnedMatrix, SparseRandomMatchesSearchBin) {
  // 2000 rows, 20 features, each present with probability 1/3; many distinct values.
  std::vector<std::vector<std::pair<uint32_t, float>>> rows(2000);
  uint32_t state = 12345;
  const auto next = [&state] { return state = state * 1664525u + 1013904223u; };
  for (auto& row : rows) {
    for (uint32_t f = 0; f < 20; ++f) {
      if (next() % 3 == 0) row.push_back({f, static_cast<float>(next() % 1000) / 7.0f - 50.0f});
    }
  }
  const DataSet d = MakeRows(rows);
  for (int max_bin : {4, 64, 256}) {
    const HistogramCuts cuts = Cuts(d, 20, max_bin);
    const BinnedMatrix m = BinnedMatrix::Build(d, cuts, 2);
    EXPECT_EQ(m.layout(), BinnedMatrix::Layout::kSparse);
    ExpectMatchesSearchBin(d, cuts, m);
  }
}

TEST(BinnedMatrix, DenseRandomMatchesSearchBin) {
  std::vector<std::vector<std::pair<uint32_t, float>>> rows(3000);
  uint32_t state = 99;
  const auto next = [&state] { return state = state * 1664525u + 1013904223u; };
  for (auto& row : rows) {
    for (uint32_t f = 0; f < 5; ++f) row.push_back({f, static_cast<float>(next() % 5000) * 0.01f});
  }
  const DataSet d = MakeRows(rows);
  for (int max_bin : {3, 256, 1024}) {
    const HistogramCuts cuts = Cuts(d, 5, max_bin);
    BinnedMatrix m = BinnedMatrix::Build(d, cuts, 2);
    EXPECT_EQ(m.layout(), BinnedMatrix::Layout::kDense);
    EXPECT_EQ(m.BinBytes(), max_bin > 256 ? 2 : 1);
    ExpectMatchesSearchBin(d, cuts, m);
    // The column-major copy holds the same bins, column c at c * rows.
    const std::size_t bytes = m.MemoryBytes();
    m.BuildColumns(2);
    EXPECT_EQ(m.MemoryBytes(), 2 * bytes);
    for (uint64_t i = 0; i < m.NumRows(); ++i) {
      for (uint32_t c = 0; c < 5; ++c) {
        const uint32_t col = m.BinBytes() == 1 ? m.columns8()[c * m.NumRows() + i]
                                               : m.columns16()[c * m.NumRows() + i];
        ASSERT_EQ(col + cuts.ptr[c], m.GetBin(i, c, cuts)) << i << " " << c;
      }
    }
  }
}

// Built by column: the columns are the row-major matrix's transposed (rows ascending, local
// bins), entries of features beyond the cuts dropped; its CSR, made on demand, is the row-major
// build's, for 1 to 3 threads. Dense data keeps its dense layout.
TEST(BinnedMatrix, BuiltByColumnIsTheCsrColumnByColumn) {
  DataSet d;
  uint64_t s = 5;
  d.row_ptr = {0};
  for (int i = 0; i < 3000; ++i) {
    for (uint32_t f = 0; f < 30; ++f) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      if ((s >> 40) % 3 != 0) continue;
      d.index.push_back(f);
      d.value.push_back(static_cast<float>((s >> 20) % 1000) / 7.0f);
    }
    d.row_ptr.push_back(d.index.size());
    d.label.push_back(0.0f);
  }
  d.num_col = 30;
  const HistogramCuts cuts = Cuts(d, 27, 64);  // features 27-29 beyond the cuts: dropped
  for (int nthread : {1, 2, 3}) {
    const BinnedMatrix rows = BinnedMatrix::Build(d, cuts, nthread);
    const BinnedMatrix columns = BinnedMatrix::Build(d, cuts, nthread, nullptr, true);
    ASSERT_EQ(columns.layout(), BinnedMatrix::Layout::kSparse);
    EXPECT_TRUE(rows.sparse_columns().empty());
    const SparseColumns expected = rows.TransposeSparse(cuts, nthread);
    const SparseColumns& got = columns.sparse_columns();
    EXPECT_EQ(got.ptr, expected.ptr);
    EXPECT_TRUE(
        std::equal(got.rows.begin(), got.rows.end(), expected.rows.begin(), expected.rows.end()));
    EXPECT_TRUE(
        std::equal(got.bins.begin(), got.bins.end(), expected.bins.begin(), expected.bins.end()));
    EXPECT_THROW(columns.sparse_bins(), Error);
    columns.EnsureRows(cuts, nthread);
    EXPECT_EQ(columns.row_ptr(), rows.row_ptr());
    EXPECT_TRUE(std::equal(columns.sparse_bins().begin(), columns.sparse_bins().end(),
                           rows.sparse_bins().begin(), rows.sparse_bins().end()));
    ExpectMatchesSearchBin(d, cuts, columns);
  }
  const DataSet dense =
      MakeRows({{{0, 1.0f}, {1, 2.0f}}, {{0, 3.0f}, {1, 4.0f}}, {{0, 5.0f}, {1, 6.0f}}});
  const HistogramCuts dense_cuts = Cuts(dense, 2, 16);
  const BinnedMatrix m = BinnedMatrix::Build(dense, dense_cuts, 2, nullptr, true);
  EXPECT_EQ(m.layout(), BinnedMatrix::Layout::kDense);
  EXPECT_TRUE(m.sparse_columns().empty());
}

}  // namespace
}  // namespace ringboost
