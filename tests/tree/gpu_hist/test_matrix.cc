// The ELLPACK layout of the device binned matrix: packing on the host, reading back on the host
// (the CPU reference) and on the device, against BinnedMatrix::GetBin.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "device_test_helpers.h"
#include "tree/bins/quantile_data.h"
#include "tree/gpu_hist/matrix.h"

namespace ringboost {
namespace {

HistogramCuts Cuts(const DataSet& d, uint32_t features, int max_bin) {
  auto comm = rabit::MakeLocalCommunicator();
  return ComputeCuts(d, features, max_bin, comm.get(), 1);
}

TEST(DeviceMatrix, DenseIsTheCpuBytesAndTheirColumns) {
  // Feature 0: 3, 1, 2 -> local bins 2, 0, 1 (global 0..2); feature 1: one bin (global 3).
  const DataSet d =
      test::MakeRows({{{0, 3.0f}, {1, 5.0f}}, {{0, 1.0f}, {1, 5.0f}}, {{0, 2.0f}, {1, 5.0f}}});
  const HistogramCuts cuts = Cuts(d, 2, 256);
  const BinnedMatrix m = BinnedMatrix::Build(d, cuts, 1);
  const EllpackHost h = PackEllpack(m, cuts, 1);
  EXPECT_TRUE(h.shape.dense);
  EXPECT_EQ(h.shape.row_stride, 2u);
  EXPECT_EQ(h.shape.symbol_bytes, 1u);
  EXPECT_EQ(h.symbols, (std::vector<uint8_t>{2, 0, 0, 0, 1, 0}));  // local bins, row by row
  EXPECT_EQ(h.columns, (std::vector<uint8_t>{2, 0, 1, 0, 0, 0}));  // the same, column by column
  EXPECT_EQ(h.slot_base, (std::vector<uint32_t>{0, 3}));
  // symbols 6 + columns 6 + ptr 12 + cut values 16 + min values 8 + feature->slot 8 + bases 8.
  EXPECT_EQ(DeviceMatrixBytes(h.shape), 64u);
  const EllpackView v = h.View(cuts);
  EXPECT_EQ(v.GetBin(0, 0), 2);
  EXPECT_EQ(v.GetBin(1, 1), 3);
  EXPECT_EQ(v.GetBin(2, 0), 1);
  EXPECT_EQ(v.SlotBin(2, 1), 3u);
  EXPECT_EQ(v.GetBin(2, 7), -1);  // beyond the features
}

TEST(DeviceMatrix, SparseHoldsGlobalBinsThenNullSlots) {
  // Row 0: f0 = 1; row 1: nothing; row 2: f0 = 2, f1 = 5. Bins: f0 -> 0, 1; f1 -> 2; null 3.
  const DataSet d = test::MakeRows({{{0, 1.0f}}, {}, {{0, 2.0f}, {1, 5.0f}}});
  const HistogramCuts cuts = Cuts(d, 2, 256);
  ASSERT_EQ(cuts.ptr, (std::vector<uint32_t>{0, 2, 3}));
  const BinnedMatrix m = BinnedMatrix::Build(d, cuts, 1);
  const EllpackHost h = PackEllpack(m, cuts, 1);
  EXPECT_FALSE(h.shape.dense);
  EXPECT_EQ(h.shape.row_stride, 2u);
  EXPECT_EQ(h.shape.symbol_bytes, 2u);
  EXPECT_EQ(h.shape.null_symbol, 3u);
  // Slots 0 3 | 3 3 | 1 2, two little-endian bytes each.
  EXPECT_EQ(h.symbols, (std::vector<uint8_t>{0, 0, 3, 0, 3, 0, 3, 0, 1, 0, 2, 0}));
  EXPECT_TRUE(h.columns.empty());
  EXPECT_EQ(h.bin_feature, (std::vector<uint32_t>{0, 0, 1}));
  // symbols 12 + ptr 12 + cut values 12 + min values 8 + bin -> feature 12; no column copy.
  EXPECT_EQ(DeviceMatrixBytes(h.shape), 56u);
  const EllpackView v = h.View(cuts);
  EXPECT_EQ(v.GetBin(0, 0), 0);
  EXPECT_EQ(v.GetBin(0, 1), -1);
  EXPECT_EQ(v.GetBin(1, 0), -1);
  EXPECT_EQ(v.SlotBin(1, 0), 3u);  // the null symbol
  EXPECT_EQ(v.GetBin(2, 0), 1);
  EXPECT_EQ(v.GetBin(2, 1), 2);
}

// The host reading of the packed symbols equals GetBin everywhere, for any thread count, through
// the row-major symbols and (dense) through the column copy.
void ExpectHostUnpackMatches(const test::BinnedData& b, const char* name) {
  const EllpackHost h = PackEllpack(*b.matrix, b.cuts, 2);
  EXPECT_EQ(h.symbols, PackEllpack(*b.matrix, b.cuts, 1).symbols) << name;
  EllpackView by_rows = h.View(b.cuts);
  by_rows.columns = nullptr;
  for (const EllpackView& v : {h.View(b.cuts), by_rows}) {
    for (uint64_t i = 0; i < b.matrix->NumRows(); ++i) {
      for (uint32_t f = 0; f < b.cuts.NumFeatures(); ++f) {
        ASSERT_EQ(v.GetBin(i, f), b.matrix->GetBin(i, f, b.cuts))
            << name << " row " << i << " feature " << f;
      }
    }
  }
}

TEST(DeviceMatrix, HostUnpackEqualsGetBinOverShapes) {
  for (const test::ShapeSpec& s : test::KernelShapes()) {
    ExpectHostUnpackMatches(test::MakeBinnedData(s), s.name);
  }
}

TEST(DeviceMatrix, HostUnpackEqualsGetBinWith65535Bins) {
  const test::BinnedData b = test::MakeBinnedData(test::WideBinsShape());
  ASSERT_EQ(b.cuts.FeatureBins(0), 65535u);
  EXPECT_EQ(b.matrix->BinBytes(), 2);
  EXPECT_EQ(EllpackShapeOf(*b.matrix, b.cuts).symbol_bytes, 2u);  // dense local bins
  ExpectHostUnpackMatches(b, "bins_65535");
}

TEST(DeviceMatrix, WideSparseBinsTakeFourBytes) {
  // 70,000 distinct values of one feature, one row without it: 70,000 bins + null > 16 bits.
  std::vector<std::vector<std::pair<uint32_t, float>>> rows;
  for (uint32_t i = 0; i < 70000; ++i) rows.push_back({{0, static_cast<float>(i)}});
  rows.push_back({});
  const DataSet d = test::MakeRows(rows);
  const HistogramCuts cuts = Cuts(d, 1, 100000);
  const BinnedMatrix m = BinnedMatrix::Build(d, cuts, 1);
  ASSERT_EQ(m.layout(), BinnedMatrix::Layout::kSparse);
  const EllpackHost h = PackEllpack(m, cuts, 1);
  EXPECT_EQ(h.shape.symbol_bytes, 4u);
  const EllpackView v = h.View(cuts);
  for (uint64_t i : {0ull, 12345ull, 69999ull, 70000ull}) {
    EXPECT_EQ(v.GetBin(i, 0), m.GetBin(i, 0, cuts)) << i;
  }
}

// A bundled matrix (enable_bundle) goes to the device unpacked into sparse rows: features 0 and
// 2 share a column; row 2 holds both, so the bundle kept feature 0's value (the lower id) and the
// device, like the CPU, reads feature 2 there as missing.
TEST(DeviceMatrix, BundledRowsAreUnpackedIntoSparseRows) {
  const DataSet d = test::MakeRows(
      {{{0, 1.0f}, {1, 5.0f}}, {{2, 3.0f}}, {{0, 2.0f}, {2, 4.0f}}, {}, {{1, 6.0f}, {2, 3.0f}}});
  const HistogramCuts cuts = Cuts(d, 3, 256);
  ASSERT_EQ(cuts.ptr, (std::vector<uint32_t>{0, 2, 4, 6}));  // two values, two bins each
  FeatureBundles bundles;
  bundles.members = {{0, 2}, {1}};
  const BinnedMatrix m = BinnedMatrix::Build(d, cuts, 1, &bundles);
  ASSERT_TRUE(m.bundled());
  const EllpackHost h = PackEllpack(m, cuts, 1);
  EXPECT_FALSE(h.shape.dense);
  EXPECT_EQ(h.shape.row_stride, 2u);
  EXPECT_EQ(h.shape.symbol_bytes, 2u);
  EXPECT_EQ(h.shape.null_symbol, 6u);
  EXPECT_TRUE(h.column_of.empty());
  // Rows: f0 bin 0, f1 bin 2 | f2 bin 4 | f0 bin 1 (f2 dropped) | none | f1 bin 3, f2 bin 4.
  EXPECT_EQ(h.symbols,
            (std::vector<uint8_t>{0, 0, 2, 0, 4, 0, 6, 0, 1, 0, 6, 0, 6, 0, 6, 0, 3, 0, 4, 0}));
  EXPECT_EQ(EllpackShapeOf(m, cuts).row_stride, 2u);
  const EllpackView v = h.View(cuts);
  for (uint64_t i = 0; i < m.NumRows(); ++i) {
    for (uint32_t f = 0; f < 3; ++f) EXPECT_EQ(v.GetBin(i, f), m.GetBin(i, f, cuts)) << i << f;
  }
  EXPECT_EQ(v.GetBin(2, 2), -1);
  EXPECT_EQ(PackEllpack(m, cuts, 2).symbols, h.symbols);
}

// A bundle column of more than 256 bins (feature 0 alone: 300 values) makes the bundled matrix's
// columns 2 bytes wide; the unpacked rows are GetBin's all the same.
TEST(DeviceMatrix, BundledRowsOfTwoByteColumns) {
  std::vector<std::vector<std::pair<uint32_t, float>>> rows;
  for (uint32_t i = 0; i < 600; ++i) {
    std::vector<std::pair<uint32_t, float>> row;
    if (i % 4 != 3) row.push_back({0, static_cast<float>(i / 2)});
    row.push_back({1 + i % 2, static_cast<float>(i % 7)});
    rows.push_back(row);
  }
  const DataSet d = test::MakeRows(rows);
  const HistogramCuts cuts = Cuts(d, 3, 1024);
  FeatureBundles bundles;
  bundles.members = {{0}, {1, 2}};
  const BinnedMatrix m = BinnedMatrix::Build(d, cuts, 2, &bundles);
  ASSERT_TRUE(m.bundled());
  ASSERT_EQ(m.BinBytes(), 2);
  const EllpackHost h = PackEllpack(m, cuts, 2);
  EXPECT_FALSE(h.shape.dense);
  EXPECT_EQ(h.shape.row_stride, 2u);
  const EllpackView v = h.View(cuts);
  for (uint64_t i = 0; i < m.NumRows(); ++i) {
    for (uint32_t f = 0; f < 3; ++f) ASSERT_EQ(v.GetBin(i, f), m.GetBin(i, f, cuts)) << i << f;
  }
}

TEST(DeviceMatrix, DeviceUnpackEqualsGetBin) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  for (const test::ShapeSpec& s : test::AllKernelShapes()) {
    const test::BinnedData b = test::MakeBinnedData(s);
    const DeviceMatrix dm = DeviceMatrix::Create(*b.matrix, b.cuts, 2);
    for (const bool by_rows : {false, true}) {  // dense: through the columns, then the rows
      const std::vector<int64_t> bins = UnpackAllOnDevice(dm, by_rows);
      ASSERT_EQ(bins.size(), b.matrix->NumRows() * b.cuts.NumFeatures()) << s.name;
      for (uint64_t i = 0; i < b.matrix->NumRows(); ++i) {
        for (uint32_t f = 0; f < b.cuts.NumFeatures(); ++f) {
          ASSERT_EQ(bins[i * b.cuts.NumFeatures() + f], b.matrix->GetBin(i, f, b.cuts))
              << s.name << " row " << i << " feature " << f << (by_rows ? " by rows" : "");
        }
      }
    }
  }
#endif
}

TEST(DeviceMatrix, TooLargeForTheDeviceFailsBeforeAllocating) {
  RB_REQUIRE_DEVICE();
  const DeviceMemoryInfo info = QueryDeviceMemory();
  EllpackShape shape;
  shape.num_rows = info.total_bytes;  // 4 bytes a row: four times the whole device
  shape.row_stride = 1;
  shape.symbol_bytes = 4;
  EXPECT_THROW(CheckDeviceMemoryFits(DeviceMatrixBytes(shape), info.free_bytes, "matrix"), Error);
}

}  // namespace
}  // namespace ringboost
