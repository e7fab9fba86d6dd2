// The ELLPACK layout of the device binned matrix: packing on the host, reading back on the host
// (the CPU reference) and on the device, against BinnedMatrix::GetBin.
#include <gtest/gtest.h>

#include <vector>

#include "device_test_helpers.h"
#include "tree/device_matrix.h"
#include "tree/quantile_data.h"

namespace ringboost {
namespace {

// A view over host vectors.
EllpackView HostView(const std::vector<uint32_t>& words, const HistogramCuts& cuts,
                     const std::vector<int32_t>& column_of, const EllpackShape& shape) {
  EllpackView v;
  v.words = words.data();
  v.feature_ptr = cuts.ptr.data();
  v.column_of = column_of.data();
  v.shape = shape;
  return v;
}

HistogramCuts Cuts(const DataSet& d, uint32_t features, int max_bin) {
  auto comm = rabit::MakeLocalCommunicator();
  return ComputeCuts(d, features, max_bin, comm.get(), 1);
}

TEST(DeviceMatrix, SymbolBits) {
  EXPECT_EQ(SymbolBits(0), 1u);
  EXPECT_EQ(SymbolBits(1), 1u);
  EXPECT_EQ(SymbolBits(2), 2u);
  EXPECT_EQ(SymbolBits(4), 3u);
  EXPECT_EQ(SymbolBits(256), 9u);  // 256 bins + the null symbol 256
  EXPECT_EQ(SymbolBits(65535), 16u);
  EXPECT_EQ(SymbolBits(65536), 17u);
  EXPECT_EQ(SymbolBits(0xffffffffu), 32u);
}

TEST(DeviceMatrix, DensePackedByHand) {
  // Feature 0: 3, 1, 2 -> local bins 2, 0, 1 (global 0..2); feature 1: one bin (global 3).
  const DataSet d =
      test::MakeRows({{{0, 3.0f}, {1, 5.0f}}, {{0, 1.0f}, {1, 5.0f}}, {{0, 2.0f}, {1, 5.0f}}});
  const HistogramCuts cuts = Cuts(d, 2, 256);
  const BinnedMatrix m = BinnedMatrix::Build(d, cuts, 1);
  const EllpackShape shape = EllpackShapeOf(m, cuts);
  EXPECT_TRUE(shape.dense);
  EXPECT_EQ(shape.row_stride, 2u);
  EXPECT_EQ(shape.null_symbol, 4u);
  EXPECT_EQ(shape.symbol_bits, 3u);
  // Symbols 2 3 | 0 3 | 1 3 at bits 0, 3, ..., 15; one padding word.
  const std::vector<uint32_t> words = PackEllpack(m, cuts, shape, 1);
  EXPECT_EQ(words, (std::vector<uint32_t>{2 | 3 << 3 | 0 << 6 | 3 << 9 | 1 << 12 | 3 << 15, 0}));
  // words 8 + ptr 12 + cut values 16 + min values 8 + feature->slot 8.
  EXPECT_EQ(DeviceMatrixBytes(shape), 52u);
  const std::vector<int32_t> column_of = EllpackColumnOf(m, cuts);
  const EllpackView v = HostView(words, cuts, column_of, shape);
  EXPECT_EQ(v.GetBin(0, 0), 2);
  EXPECT_EQ(v.GetBin(1, 1), 3);
  EXPECT_EQ(v.GetBin(2, 0), 1);
  EXPECT_EQ(v.GetBin(2, 7), -1);  // beyond the features
}

TEST(DeviceMatrix, SparsePackedByHandWithNullSlots) {
  // Row 0: f0 = 1; row 1: nothing; row 2: f0 = 2, f1 = 5. Bins: f0 -> 0, 1; f1 -> 2; null 3.
  const DataSet d = test::MakeRows({{{0, 1.0f}}, {}, {{0, 2.0f}, {1, 5.0f}}});
  const HistogramCuts cuts = Cuts(d, 2, 256);
  ASSERT_EQ(cuts.ptr, (std::vector<uint32_t>{0, 2, 3}));
  const BinnedMatrix m = BinnedMatrix::Build(d, cuts, 1);
  const EllpackShape shape = EllpackShapeOf(m, cuts);
  EXPECT_FALSE(shape.dense);
  EXPECT_EQ(shape.row_stride, 2u);
  EXPECT_EQ(shape.symbol_bits, 2u);
  const std::vector<uint32_t> words = PackEllpack(m, cuts, shape, 1);
  // Slots 0 3 | 3 3 | 1 2, two bits each.
  EXPECT_EQ(words, (std::vector<uint32_t>{0 | 3 << 2 | 3 << 4 | 3 << 6 | 1 << 8 | 2 << 10, 0}));
  EXPECT_EQ(DeviceMatrixBytes(shape), 8u + 12u + 12u + 8u);  // no feature->slot table
  const EllpackView v = HostView(words, cuts, {}, shape);
  EXPECT_EQ(v.GetBin(0, 0), 0);
  EXPECT_EQ(v.GetBin(0, 1), -1);
  EXPECT_EQ(v.GetBin(1, 0), -1);
  EXPECT_EQ(v.GetBin(2, 0), 1);
  EXPECT_EQ(v.GetBin(2, 1), 2);
}

// The host reading of the packed words equals GetBin everywhere, for any thread count.
void ExpectHostUnpackMatches(const test::BinnedData& b, const char* name) {
  const EllpackShape shape = EllpackShapeOf(*b.matrix, b.cuts);
  const std::vector<uint32_t> words = PackEllpack(*b.matrix, b.cuts, shape, 2);
  EXPECT_EQ(words, PackEllpack(*b.matrix, b.cuts, shape, 1)) << name;
  const std::vector<int32_t> column_of = EllpackColumnOf(*b.matrix, b.cuts);
  const EllpackView v = HostView(words, b.cuts, column_of, shape);
  for (uint64_t i = 0; i < b.matrix->NumRows(); ++i) {
    for (uint32_t f = 0; f < b.cuts.NumFeatures(); ++f) {
      ASSERT_EQ(v.GetBin(i, f), b.matrix->GetBin(i, f, b.cuts))
          << name << " row " << i << " feature " << f;
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
  EXPECT_EQ(EllpackShapeOf(*b.matrix, b.cuts).symbol_bits, 17u);  // 131,070 bins + null
  ExpectHostUnpackMatches(b, "bins_65535");
}

TEST(DeviceMatrix, DeviceUnpackEqualsGetBin) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  for (const test::ShapeSpec& s : test::AllKernelShapes()) {
    const test::BinnedData b = test::MakeBinnedData(s);
    const DeviceMatrix dm = DeviceMatrix::Create(*b.matrix, b.cuts, 2);
    const std::vector<int64_t> bins = UnpackAllOnDevice(dm);
    ASSERT_EQ(bins.size(), b.matrix->NumRows() * b.cuts.NumFeatures()) << s.name;
    for (uint64_t i = 0; i < b.matrix->NumRows(); ++i) {
      for (uint32_t f = 0; f < b.cuts.NumFeatures(); ++f) {
        ASSERT_EQ(bins[i * b.cuts.NumFeatures() + f], b.matrix->GetBin(i, f, b.cuts))
            << s.name << " row " << i << " feature " << f;
      }
    }
  }
#endif
}

TEST(DeviceMatrix, TooLargeForTheDeviceFailsBeforeAllocating) {
  RB_REQUIRE_DEVICE();
  const DeviceMemoryInfo info = QueryDeviceMemory();
  EllpackShape shape;
  shape.num_rows = info.total_bytes;  // 32 bits a row: four times the whole device
  shape.row_stride = 1;
  shape.symbol_bits = 32;
  EXPECT_THROW(CheckDeviceMemoryFits(DeviceMatrixBytes(shape), info.free_bytes, "matrix"), Error);
}

}  // namespace
}  // namespace ringboost
