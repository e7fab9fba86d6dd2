// Device histograms against HistogramBuilder (the CPU reference), over many shapes; feature
// groups and block tasks by hand.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "common/error.h"
#include "device_test_helpers.h"
#include "helpers.h"
#include "tree/gpu_hist/histogram.h"
#include "tree/hist/histogram.h"
#include "tree/hist/row_partitioner.h"

namespace ringboost {
namespace {

HistogramCuts CutsWithBins(const std::vector<uint32_t>& bins) {
  HistogramCuts cuts;
  for (uint32_t b : bins) cuts.ptr.push_back(cuts.ptr.back() + b);
  return cuts;
}

TEST(DeviceHistogram, GroupsPackConsecutiveFeatures) {
  const HistogramCuts cuts = CutsWithBins({4, 4, 3, 10, 2});
  const std::vector<FeatureGroup> g = GroupFeatures(cuts, 8, 8, {}, 5, 1);
  ASSERT_EQ(g.size(), 4u);
  // {0, 1}: 4 deep x 2 lanes; {2}: 3 x 1 (with 3: 10 x 2 > 8); {3}: 10 > 8, global; {4}.
  EXPECT_EQ(g[0].feature_begin, 0u);
  EXPECT_EQ(g[0].feature_end, 2u);
  EXPECT_EQ(g[0].bin_end, 8u);
  EXPECT_EQ(g[0].depth, 4u);
  EXPECT_EQ(g[0].lane_stride, 2u);
  EXPECT_TRUE(g[0].shared);
  EXPECT_EQ(g[1].feature_begin, 2u);
  EXPECT_EQ(g[1].feature_end, 3u);
  EXPECT_EQ(g[1].Cells(), 3u);
  EXPECT_EQ(g[2].feature_begin, 3u);
  EXPECT_EQ(g[2].bin_begin, 11u);
  EXPECT_EQ(g[2].bin_end, 21u);
  EXPECT_FALSE(g[2].shared);
  EXPECT_EQ(g[2].Cells(), 0u);
  EXPECT_EQ(g[3].bin_begin, 21u);
  EXPECT_EQ(g[3].bin_end, 23u);
  for (const FeatureGroup& x : g) {  // sparse: every slot
    EXPECT_EQ(x.slot_begin, 0u);
    EXPECT_EQ(x.slot_end, 5u);
  }
}

TEST(DeviceHistogram, DenseGroupsTakeTheirColumns) {
  const HistogramCuts cuts = CutsWithBins({4, 4, 3, 2});
  // Feature 1 has no column (no values): it takes no lane. 0, 2, 3 are columns 0, 1, 2.
  const std::vector<FeatureGroup> g = GroupFeatures(cuts, 8, 8, {0, -1, 1, 2}, 3, 1);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].feature_end, 3u);  // features 0, 1, 2: 4 deep x 2 lanes
  EXPECT_EQ(g[0].slot_begin, 0u);
  EXPECT_EQ(g[0].slot_end, 2u);
  EXPECT_EQ(g[0].lane_stride, 2u);
  EXPECT_EQ(g[1].slot_begin, 2u);  // feature 3
  EXPECT_EQ(g[1].slot_end, 3u);
}

TEST(DeviceHistogram, LanesAreRoundedToTheBanks) {
  // 40 features of 256 bins, 8192 cells: 32 lanes (256 x 32), then the other 8 (a power of two
  // below 32 lanes); 4096 cells: 16, 16 and 8 lanes; 255 cells hold no feature: one global pass.
  const HistogramCuts cuts = CutsWithBins(std::vector<uint32_t>(40, 256));
  const std::vector<FeatureGroup> g = GroupFeatures(cuts, 8192, 8, {}, 40, 32);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].feature_end, 32u);
  EXPECT_EQ(g[0].lane_stride, 32u);
  EXPECT_EQ(g[0].depth, 256u);
  EXPECT_EQ(g[1].feature_end, 40u);
  EXPECT_EQ(g[1].lane_stride, 8u);
  EXPECT_EQ(g[1].Cells(), 2048u);
  const std::vector<FeatureGroup> narrow = GroupFeatures(cuts, 4096, 8, {}, 40, 32);
  ASSERT_EQ(narrow.size(), 3u);
  EXPECT_EQ(narrow[0].feature_end, 16u);
  EXPECT_EQ(narrow[0].lane_stride, 16u);
  EXPECT_EQ(narrow[2].lane_stride, 8u);
  const std::vector<FeatureGroup> none = GroupFeatures(cuts, 255, 8, {}, 40, 32);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_FALSE(none[0].shared);
  // Three features of 5 bins, 20 cells: 3 lanes take a table of 4 (5 x 4).
  const std::vector<FeatureGroup> three = GroupFeatures(CutsWithBins({5, 5, 5}), 20, 8, {}, 3, 32);
  ASSERT_EQ(three.size(), 1u);
  EXPECT_EQ(three[0].lane_stride, 4u);
}

TEST(DeviceHistogram, TooManyGroupsBecomeOneGlobalPass) {
  const HistogramCuts cuts = CutsWithBins({4, 4, 4, 4});
  const std::vector<FeatureGroup> g = GroupFeatures(cuts, 4, 3, {}, 4, 1);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_FALSE(g[0].shared);
  EXPECT_EQ(g[0].bin_begin, 0u);
  EXPECT_EQ(g[0].bin_end, 16u);
  EXPECT_EQ(g[0].feature_end, 4u);
}

TEST(DeviceHistogram, BlockTasksSkipEmptyNodes) {
  const uint32_t rows[7] = {};
  const std::vector<HistBlockTask> t =
      MakeHistBlockTasks({{rows, 5, 2}, {rows + 5, 0, 1}, {nullptr, 2, 0}}, /*rows_per_task=*/3);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].rows, rows);
  EXPECT_EQ(t[0].begin, 0u);
  EXPECT_EQ(t[0].end, 3u);
  EXPECT_EQ(t[1].begin, 3u);
  EXPECT_EQ(t[1].end, 5u);
  EXPECT_EQ(t[1].out, 2u);
  EXPECT_EQ(t[2].rows, nullptr);
  EXPECT_EQ(t[2].begin, 0u);
  EXPECT_EQ(t[2].end, 2u);
  EXPECT_EQ(t[2].out, 0u);
}

// RINGBOOST_HIST_TILES picks the dense kernels' tiles for an a/b; unset, the warps'; a wrong value
// names the allowed ones.
TEST(DeviceHistogram, TilesFromTheEnvironment) {
  {
    test::ScopedEnv unset("RINGBOOST_HIST_TILES", "");
    EXPECT_EQ(DefaultHistTiles(), HistTiles::kWarp);
  }
  {
    test::ScopedEnv block("RINGBOOST_HIST_TILES", "block");
    EXPECT_EQ(DefaultHistTiles(), HistTiles::kBlock);
  }
  {
    test::ScopedEnv warp("RINGBOOST_HIST_TILES", "warp");
    EXPECT_EQ(DefaultHistTiles(), HistTiles::kWarp);
  }
  test::ScopedEnv blocks("RINGBOOST_HIST_TILES", "blocks");
  try {
    DefaultHistTiles();
    ADD_FAILURE() << "blocks was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "RINGBOOST_HIST_TILES=blocks: allowed values are warp and block"),
              std::string::npos)
        << e.what();
  }
}

#ifdef RINGBOOST_USE_CUDA
// Nodes: the root (all rows in order, no row ids), its rows split three ways (one part empty when
// the data has few rows), plus an empty node; the CPU builds each of them, the device all at once
// (into histograms in another order), with `max_group_cells`.
// low_bit: the gradients (within LowBitPolicy::kLevels) go to the kernels packed. Dense tiles
// are taken both ways (HistTiles).
// block_limit > 0: that many blocks at most (each takes several tasks).
void ExpectDeviceEqualsCpu(const test::BinnedData& b, const char* name, uint32_t max_group_cells,
                           bool low_bit = false, int block_limit = 0) {
  RowPartitioner p(b.matrix->NumRows());
  p.Partition(
      {{0, 1, 2}}, [](std::size_t, uint32_t r) { return r % 3 == 0; }, 2);
  p.Partition(
      {{2, 3, 4}}, [](std::size_t, uint32_t r) { return r % 3 == 1 || r > 1000000; }, 2);
  const std::vector<int> nids{0, 1, 3, 4};
  std::vector<std::vector<uint32_t>> node_rows{{}};  // node 0: the root, no row ids
  for (std::size_t k = 1; k < nids.size(); ++k) {
    node_rows.emplace_back(p.NodeRows(nids[k]), p.NodeRows(nids[k]) + p.NodeRange(nids[k]).size());
  }
  node_rows.emplace_back();  // an empty node
  HistogramBuilder cpu(b.matrix.get(), &b.cuts, 2);
  std::vector<Histogram> expected(nids.size());
  std::vector<Histogram*> out;
  for (Histogram& h : expected) out.push_back(&h);
  cpu.Build(b.gpair, p, nids, out);
  // The root from a partitioner before any split: p reuses node 0's positions for its children.
  const RowPartitioner unsplit(b.matrix->NumRows());
  cpu.Build(b.gpair, unsplit, {0}, {&expected[0]});
  expected.push_back(Histogram(b.cuts.TotalBins()));

  const DeviceMatrix dm = DeviceMatrix::Create(*b.matrix, b.cuts, 2);
  for (const HistTiles tiles : {HistTiles::kBlock, HistTiles::kWarp}) {
    const char* how = tiles == HistTiles::kWarp ? "warp tiles" : "block tiles";
    const std::vector<Histogram> got = BuildHistogramsOnDevice(
        dm, b.cuts, b.gpair, node_rows, max_group_cells, true, low_bit, tiles, block_limit);
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t k = 0; k < got.size(); ++k) {
      EXPECT_TRUE(got[k] == expected[k])
          << name << " node " << k << " groups " << max_group_cells << " " << how;
    }
    // Run twice: equal bit for bit.
    EXPECT_TRUE(BuildHistogramsOnDevice(dm, b.cuts, b.gpair, node_rows, max_group_cells, true,
                                        low_bit, tiles, block_limit) == got)
        << name << " " << how;
  }
}

// The data's gradients replaced by low-bit ones: g in [-7, 7], h in [0, 7], from the row's old
// values, so that each bin gets a varied mix.
test::BinnedData WithLowBitGradients(test::BinnedData b) {
  for (GradientSum& p : b.gpair) {
    p.g = static_cast<int64_t>(static_cast<uint64_t>(p.g) % 15) - 7;
    p.h = static_cast<int64_t>(static_cast<uint64_t>(p.h) % 8);
  }
  return b;
}
#endif

TEST(DeviceHistogram, EqualsCpuOverShapes) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  int warp = 0;
  for (const test::ShapeSpec& s : test::KernelShapes()) {
    const test::BinnedData b = test::MakeBinnedData(s);
    const DeviceMatrix dm = DeviceMatrix::Create(*b.matrix, b.cuts, 2);
    warp += DeviceHistogramBuilder(&dm, b.cuts, 0, HistTiles::kWarp).warp_tiles();
    EXPECT_FALSE(DeviceHistogramBuilder(&dm, b.cuts, 0, HistTiles::kBlock).warp_tiles());
    ExpectDeviceEqualsCpu(b, s.name, 0);     // as many cells a group as the device allows
    ExpectDeviceEqualsCpu(b, s.name, 4096);  // several groups, wide features global
    ExpectDeviceEqualsCpu(b, s.name, 1);     // global atomics only
  }
  EXPECT_GT(warp, 0);  // some shape ran the warps' tiles
#endif
}

TEST(DeviceHistogram, EqualsCpuWith65535Bins) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  const test::BinnedData b = test::MakeBinnedData(test::WideBinsShape());
  ExpectDeviceEqualsCpu(b, "bins_65535", 0);  // each feature too wide: global fallback
#endif
}

// Many rows into few bins (one feature of 2 values over 300,000 rows): the 32-bit words of the
// shared sums carry many times, and the sums reach far past 2^32 units.
TEST(DeviceHistogram, SharedSumsCarryExactly) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  const test::BinnedData b = test::MakeBinnedData({"two_values", 300000, 2, 2, 0.0, 256, 7});
  ExpectDeviceEqualsCpu(b, "two_values", 0);
#endif
}

// Low-bit gradients, packed: the dense shapes take the narrow cells (one 32-bit atomic a row), the
// sparse ones the exact cells; every histogram equals the CPU's.
TEST(DeviceHistogram, LowBitEqualsCpuOverShapes) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  int narrow = 0;
  for (const test::ShapeSpec& s : test::KernelShapes()) {
    const test::BinnedData b = WithLowBitGradients(test::MakeBinnedData(s));
    const DeviceMatrix dm = DeviceMatrix::Create(*b.matrix, b.cuts, 2);
    narrow += DeviceHistogramBuilder(&dm, b.cuts).narrow_tile_rows() > 0;
    ExpectDeviceEqualsCpu(b, s.name, 0, true);
    ExpectDeviceEqualsCpu(b, s.name, 4096, true);
    ExpectDeviceEqualsCpu(b, s.name, 1, true);
  }
  EXPECT_GT(narrow, 0);  // some shape ran the narrow kernel
#endif
}

// Many rows into few bins with the largest low-bit values (1.5M rows, two features of 2 values,
// g = +7 or -7 in runs, h = 7): each block takes about 11,000 of the root's rows (on an H100's 132
// SMs), a packed cell would overflow after 4681, so the narrow sums must fold, and the sums reach
// far past 16 bits.
TEST(DeviceHistogram, NarrowCellsFoldExactly) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  test::BinnedData b = test::MakeBinnedData({"two_values", 1500000, 2, 2, 0.0, 256, 7});
  for (std::size_t i = 0; i < b.gpair.size(); ++i) {
    b.gpair[i] = GradientSum{(i / 5000) % 3 == 0 ? -7 : 7, 7};
  }
  const DeviceMatrix dm = DeviceMatrix::Create(*b.matrix, b.cuts, 2);
  ASSERT_GT(DeviceHistogramBuilder(&dm, b.cuts).narrow_tile_rows(), 0u);
  ExpectDeviceEqualsCpu(b, "two_values_low_bit", 0, true);
#endif
}

// 28 one-byte features of 2 values over 10,000 rows in 1 to 3 blocks: each block takes several
// tasks of several nodes (outputs change inside a block's share), the last task of each node is
// partial (some warps have no rows in it), and with the largest low-bit values (g = +7 or -7 in
// runs, h = 7) a block adds about 5,000 rows into one cell, so the narrow sums must fold between
// tasks (a packed half holds 4681 such rows).
TEST(DeviceHistogram, WarpTilesCrossTasksAndOutputs) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  const test::ShapeSpec shape{"words_28", 10000, 28, 2, 0.0, 256, 9};
  const test::BinnedData b = test::MakeBinnedData(shape);
  test::BinnedData low = test::MakeBinnedData(shape);
  for (std::size_t i = 0; i < low.gpair.size(); ++i) {
    low.gpair[i] = GradientSum{(i / 700) % 3 == 0 ? -7 : 7, 7};
  }
  const DeviceMatrix dm = DeviceMatrix::Create(*b.matrix, b.cuts, 2);
  ASSERT_TRUE(DeviceHistogramBuilder(&dm, b.cuts, 0, HistTiles::kWarp).warp_tiles());
  ASSERT_GT(DeviceHistogramBuilder(&dm, b.cuts, 0, HistTiles::kWarp).narrow_tile_rows(), 0u);
  for (const int blocks : {1, 2, 3}) {
    ExpectDeviceEqualsCpu(b, "words_28", 0, false, blocks);
    ExpectDeviceEqualsCpu(low, "words_28_low_bit", 0, true, blocks);
  }
#endif
}

// Dense rows of whole 32-bit words, 12 and 36 one-byte bins and 14 two-byte ones, in one group and
// in several (36 features: a group starts inside the row): the tiles' sums equal the CPU's.
TEST(DeviceHistogram, DenseRowsEqualCpuOverWidths) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  const std::vector<test::ShapeSpec> shapes{{"words_12", 3001, 12, 20, 0.0, 256, 21},
                                            {"words_36", 3001, 36, 20, 0.0, 256, 22},
                                            {"uint16_14", 3001, 14, 400, 0.0, 512, 23}};
  for (const test::ShapeSpec& s : shapes) {
    const test::BinnedData b = test::MakeBinnedData(s);
    const test::BinnedData low = WithLowBitGradients(test::MakeBinnedData(s));
    const DeviceMatrix dm = DeviceMatrix::Create(*b.matrix, b.cuts, 2);
    ASSERT_GT(DeviceHistogramBuilder(&dm, b.cuts).tile_rows(), 0u) << s.name;
    ASSERT_GT(DeviceHistogramBuilder(&dm, b.cuts).narrow_tile_rows(), 0u) << s.name;
    ExpectDeviceEqualsCpu(b, s.name, 0);
    ExpectDeviceEqualsCpu(b, s.name, 1024);  // several groups
    ExpectDeviceEqualsCpu(low, s.name, 0, true);
  }
#endif
}

TEST(DeviceHistogram, SubtractionGivesSibling) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  const std::vector<GradientSum> parent{{5, 7}, {-3, 2}, {0, 0}};
  const std::vector<GradientSum> child{{2, 3}, {-4, 2}, {0, 0}};
  DeviceBuffer<GradientSum> d_parent(parent), d_child(child), d_dst(3), d_second(3);
  // Two siblings in one launch (the second: a parent minus itself).
  const std::vector<SubtractTask> tasks{{d_parent.data(), d_child.data(), d_dst.data()},
                                        {d_parent.data(), d_parent.data(), d_second.data()}};
  DeviceBuffer<SubtractTask> d_tasks(tasks);
  DeviceHistogramBuilder::SubtractMany(d_tasks.data(), 2, 3);
  EXPECT_TRUE(d_dst.ToHost() == (std::vector<GradientSum>{{3, 4}, {1, 0}, {0, 0}}));
  EXPECT_TRUE(d_second.ToHost() == (std::vector<GradientSum>(3)));
#endif
}

// Packed low-bit words add as their (g, h): sums of up to 2^15 / kLevels rows of any values
// within kLevels unpack exactly, and one more row of the largest g can overflow the half.
TEST(PackedLowBit, WordSumsUnpackToTheSums) {
  constexpr int kLevels = LowBitPolicy::kLevels;
  constexpr uint32_t kMaxRows = 32767 / kLevels;
  uint64_t state = 12345;
  for (int trial = 0; trial < 20; ++trial) {
    uint32_t word = 0;
    GradientSum sum;
    for (uint32_t i = 0; i < kMaxRows; ++i) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      const int64_t g = trial == 0 ? kLevels : static_cast<int64_t>((state >> 33) % 15) - kLevels;
      const int64_t h = trial == 1 ? -kLevels : static_cast<int64_t>((state >> 45) % 15) - kLevels;
      EXPECT_EQ(UnpackLowBit(PackLowBit(g, h)), (GradientSum{g, h}));
      word += PackLowBit(g, h);
      sum += GradientSum{g, h};
    }
    ASSERT_EQ(UnpackLowBit(word), sum) << "trial " << trial;
  }
  // All +7: 4681 rows give 32767, the largest 16-bit sum; 4682 would wrap.
  const uint32_t full = kMaxRows * PackLowBit(kLevels, kLevels);
  EXPECT_EQ(UnpackLowBit(full), (GradientSum{kMaxRows * kLevels, kMaxRows * kLevels}));
  EXPECT_NE(UnpackLowBit(full + PackLowBit(kLevels, 0)).g,
            static_cast<int64_t>(kMaxRows + 1) * kLevels);
}

}  // namespace
}  // namespace ringboost
