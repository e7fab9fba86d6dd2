// Device row partition against RowPartitioner (the CPU reference): each child's rows as a set;
// the split rule and the tiles' destinations on the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "device_test_helpers.h"
#include "tree/categorical_split.h"
#include "tree/gpu_hist/matrix.h"
#include "tree/gpu_hist/partition.h"
#include "tree/hist/row_partitioner.h"
#include "tree/hist/split_rule.h"

namespace ringboost {
namespace {

// The CPU rule (grower.cc's SplitRule) through BinnedMatrix::GetBin.
bool CpuGoesLeft(const test::BinnedData& b, uint32_t row, const DeviceSplitTask& t) {
  const int64_t bin = b.matrix->GetBin(row, t.feature, b.cuts);
  if (bin < 0) return t.default_left;
  return bin - b.cuts.ptr[t.feature] <= t.split_bin;
}

// A split of node `nid` on a feature chosen from the node id, at the middle of its bins.
DeviceSplitTask SplitOf(const test::BinnedData& b, int nid) {
  const uint32_t f = static_cast<uint32_t>(nid * 7 + 1) % b.cuts.NumFeatures();
  const int32_t bin = static_cast<int32_t>(b.cuts.FeatureBins(f) / 2) - (nid % 2);
  return DeviceSplitTask{nid, 2 * nid + 1, 2 * nid + 2, f, bin, nid % 3 == 0};
}

TEST(DevicePartition, HostRuleEqualsCpuRule) {
  for (const test::ShapeSpec& s : test::KernelShapes()) {
    const test::BinnedData b = test::MakeBinnedData(s);
    const EllpackHost h = PackEllpack(*b.matrix, b.cuts, 2);
    const EllpackView v = h.View(b.cuts);
    for (int nid = 0; nid < 6; ++nid) {
      const DeviceSplitTask t = SplitOf(b, nid);
      for (uint32_t row = 0; row < b.matrix->NumRows(); ++row) {
        ASSERT_EQ(GoesLeft(v, row, t.feature, t.split_bin, t.default_left), CpuGoesLeft(b, row, t))
            << s.name << " node " << nid << " row " << row;
      }
    }
  }
}

// A categorical split of node `nid` on one of the categorical features (chosen by nid): the codes
// c with (c + nid) % 3 == 0 go right, the rest left; missing values left for even nids.
SplitCandidate CatSplitOf(const test::BinnedData& b, const std::vector<uint8_t>& is_cat, int nid) {
  std::vector<uint32_t> cat_features;
  for (uint32_t f = 0; f < is_cat.size(); ++f) {
    if (b.cuts.IsCat(f)) cat_features.push_back(f);
  }
  SplitCandidate s;
  s.feature = cat_features.at(static_cast<std::size_t>(nid) % cat_features.size());
  s.is_cat = true;
  s.split_bin = -1;
  s.default_left = nid % 2 == 0;
  s.found = true;
  for (uint32_t bin = b.cuts.ptr[s.feature]; bin < b.cuts.ptr[s.feature + 1]; ++bin) {
    const uint32_t code = b.cuts.Category(bin);
    if ((code + static_cast<uint32_t>(nid)) % 3 == 0) s.categories.push_back(code);
  }
  return s;
}

// The device task of the categorical split `s` of node nid, as DeviceTreeGrower states it.
DeviceSplitTask CatTaskOf(const test::BinnedData& b, const SplitCandidate& s, int nid) {
  return DeviceSplitTask{nid,
                         2 * nid + 1,
                         2 * nid + 2,
                         s.feature,
                         s.split_bin,
                         s.default_left,
                         PackLeftBits(CategoryLeftBins(b.cuts, s))};
}

// Where the CPU's SplitRule (hist/split_rule.h, the CPU grower's partition) sends `row`.
bool RuleGoesLeft(const SplitRule& rule, uint32_t row) {
  if (rule.row_ptr != nullptr) return rule.Sparse(row);
  uint8_t side = 0;
  if (rule.bins8 != nullptr) {
    rule.DecideDense(rule.bins8, &row, 1, &side);
  } else if (rule.bins16 != nullptr) {
    rule.DecideDense(rule.bins16, &row, 1, &side);
  } else {
    rule.DecideDense(static_cast<const uint8_t*>(nullptr), &row, 1, &side);
  }
  return side != 0;
}

#ifdef RINGBOOST_USE_CUDA
// A child's rows in increasing order: on the CPU and on the device (whose order within a child is
// the tiles' order of reservation).
std::vector<uint32_t> SortedRows(const RowPartitioner& p, int nid) {
  std::vector<uint32_t> rows(p.NodeRows(nid), p.NodeRows(nid) + p.NodeRange(nid).size());
  std::sort(rows.begin(), rows.end());
  return rows;
}
std::vector<uint32_t> SortedDeviceRows(const DevicePartitioner& p, int nid) {
  std::vector<uint32_t> rows = p.NodeRowsToHost(nid);
  std::sort(rows.begin(), rows.end());
  return rows;
}
#endif

TEST(DevicePartition, PackLeftBitsSetsOneBitPerLeftBin) {
  std::vector<uint8_t> left(70, 0);
  left[0] = left[31] = left[32] = left[69] = 1;
  const std::vector<uint32_t> bits = PackLeftBits(left);
  ASSERT_EQ(bits.size(), 3u);
  EXPECT_EQ(bits[0], 0x80000001u);
  EXPECT_EQ(bits[1], 0x00000001u);
  EXPECT_EQ(bits[2], 0x00000020u);  // bin 69 = 64 + 5
  for (uint32_t bin = 0; bin < left.size(); ++bin) {
    EXPECT_EQ(BinGoesLeft(bits.data(), bin), left[bin] != 0) << bin;
  }
}

// GoesLeft with a categorical split's bit set (the kernels' rule, run on the host) sends every row
// where SplitRule does: the named categories right, the others left, missing rows the default way.
TEST(DevicePartition, CategoricalHostRuleEqualsSplitRule) {
  for (const test::CategoricalShape& c : test::CategoricalShapes()) {
    const test::BinnedData b = test::MakeBinnedData(c.shape, c.is_cat);
    const EllpackHost h = PackEllpack(*b.matrix, b.cuts, 2);
    const EllpackView v = h.View(b.cuts);
    uint64_t left = 0, right = 0, missing = 0;
    for (int nid = 0; nid < 6; ++nid) {
      const SplitCandidate s = CatSplitOf(b, c.is_cat, nid);
      const DeviceSplitTask t = CatTaskOf(b, s, nid);
      const SplitRule rule(*b.matrix, b.cuts, s);
      for (uint32_t row = 0; row < b.matrix->NumRows(); ++row) {
        const bool expected = RuleGoesLeft(rule, row);
        ASSERT_EQ(GoesLeft(v, row, t.feature, t.split_bin, t.default_left, t.left_bits.data()),
                  expected)
            << c.shape.name << " node " << nid << " row " << row;
        left += expected;
        right += !expected;
        missing += b.matrix->GetBin(row, t.feature, b.cuts) < 0;
      }
    }
    EXPECT_GT(left, 0u) << c.shape.name;
    EXPECT_GT(right, 0u) << c.shape.name;
    if (c.shape.missing > 0) EXPECT_GT(missing, 0u) << c.shape.name;
  }
}

// A node of 1000 positions cut into tiles of 64 that reserve their rows in a random order, as the
// blocks of PartitionTilesKernel do: the destinations fill the node, the left rows its first
// n_left positions, the right rows the rest, and each tile's rows of a side stay in their order.
TEST(DevicePartition, TileDestinationsFillTheNode) {
  std::mt19937 rng(5);
  const uint64_t begin = 10, size = 1000, end = begin + size, tile_rows = 64;
  std::vector<uint32_t> src(size), marks(size);
  for (uint64_t j = 0; j < size; ++j) {
    src[j] = static_cast<uint32_t>(j);
    marks[j] = rng() % 3 == 0;
  }
  uint64_t n_left = 0;
  for (uint32_t m : marks) n_left += m;
  std::vector<uint64_t> tiles;
  for (uint64_t t = 0; t * tile_rows < size; ++t) tiles.push_back(t);
  std::shuffle(tiles.begin(), tiles.end(), rng);
  std::vector<uint32_t> got(size, ~0u);
  uint32_t left_reserved = 0, right_reserved = 0;  // the node's two counters
  for (uint64_t t : tiles) {
    const uint64_t first = t * tile_rows, n = std::min(tile_rows, size - first);
    uint32_t tile_left = 0;
    for (uint64_t k = 0; k < n; ++k) tile_left += marks[first + k];
    const uint32_t left_base = left_reserved, right_end = right_reserved + (n - tile_left);
    left_reserved += tile_left;
    right_reserved = right_end;
    uint32_t left_before = 0;   // the exclusive scan of the tile's marks
    uint64_t last[2] = {0, 0};  // the last destination of each side
    for (uint64_t k = 0; k < n; ++k) {
      const bool left = marks[first + k] != 0;
      const uint64_t to = TileDestination(begin, end, left_base, right_end,
                                          static_cast<uint32_t>(k), left_before, left);
      ASSERT_GE(to, left ? begin : begin + n_left);
      ASSERT_LT(to, left ? begin + n_left : end);
      ASSERT_EQ(got[to - begin], ~0u) << "position " << to << " taken twice";
      if (last[left] != 0) EXPECT_EQ(to, last[left] + 1) << "tile " << t;
      last[left] = to;
      got[to - begin] = src[first + k];
      left_before += left;
    }
  }
  EXPECT_EQ(left_reserved, n_left);
  EXPECT_EQ(left_reserved + right_reserved, size);
  for (uint64_t p = 0; p < size; ++p) {
    ASSERT_NE(got[p], ~0u);
    EXPECT_EQ(marks[got[p]], p < n_left ? 1u : 0u);
  }
}

// Nodes without rows (one_row, one_bin: every row goes one way) split into two empty children at
// the node's position, as RowPartitioner does; the partitioner is reused after Reset. Over the
// kernel shapes and two of many tiles (a tile is kPartitionTileRows positions: nodes of several
// tiles, tiles cut short at a node's end, a level's tasks of one and of many tiles).
TEST(DevicePartition, EqualsRowPartitionerOverShapes) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  std::vector<test::ShapeSpec> shapes = test::AllKernelShapes();
  shapes.push_back({"tiles_dense", 20011, 4, 200, 0.0, 256, 21});
  shapes.push_back({"tiles_sparse", 9000, 5, 50, 0.3, 64, 22});
  for (const test::ShapeSpec& s : shapes) {
    const test::BinnedData b = test::MakeBinnedData(s);
    const DeviceMatrix dm = DeviceMatrix::Create(*b.matrix, b.cuts, 2);
    RowPartitioner cpu(b.matrix->NumRows());
    DevicePartitioner dev(b.matrix->NumRows());
    dev.Partition(dm, {SplitOf(b, 0)});  // a tree before: Reset must undo it
    dev.Reset();
    // Four levels of a full tree: nodes 0; 1, 2; 3..6; 7..14. Rows land in both buffers.
    for (const std::vector<int>& level :
         {std::vector<int>{0}, {1, 2}, {3, 4, 5, 6}, {7, 8, 9, 10, 11, 12, 13, 14}}) {
      std::vector<DeviceSplitTask> tasks;
      std::vector<RowPartitioner::SplitTask> cpu_tasks;
      for (int nid : level) {
        tasks.push_back(SplitOf(b, nid));
        cpu_tasks.push_back({nid, 2 * nid + 1, 2 * nid + 2});
      }
      cpu.Partition(
          cpu_tasks, [&](std::size_t t, uint32_t row) { return CpuGoesLeft(b, row, tasks[t]); }, 2);
      // The device gets the tasks in reverse order: the result must not depend on it.
      dev.Partition(dm, std::vector<DeviceSplitTask>(tasks.rbegin(), tasks.rend()));
      for (const DeviceSplitTask& t : tasks) {
        for (int child : {t.left, t.right}) {
          EXPECT_EQ(dev.NodeRange(child).begin, cpu.NodeRange(child).begin) << s.name;
          EXPECT_EQ(SortedDeviceRows(dev, child), SortedRows(cpu, child))
              << s.name << " node " << child;
        }
      }
    }
  }
#endif
}

// The walk's compact nodes (DenseWalk, what the walk kernels read) take every dense row to the
// leaf that GoesLeft's steps over the WalkNodes reach: a tree of depth 3 whose node 2 splits by
// a category set (every third local bin left) and the others numerically, over the dense shapes;
// and a leaf keeps its value's bits.
TEST(DevicePartition, DenseWalkStepsAsGoesLeft) {
  int walked = 0;
  for (const test::ShapeSpec& s : test::KernelShapes()) {
    const test::BinnedData b = test::MakeBinnedData(s);
    if (b.matrix->layout() != BinnedMatrix::Layout::kDense) continue;
    ++walked;
    const EllpackHost h = PackEllpack(*b.matrix, b.cuts, 1);
    const EllpackView v = h.View(b.cuts);
    std::vector<WalkNode> walk(15);
    std::vector<uint32_t> cat_words;
    for (int nid = 0; nid < 7; ++nid) {
      const DeviceSplitTask t = SplitOf(b, nid);
      walk[nid] = WalkNode{t.feature, t.split_bin, t.left, t.right, 0.0f, -1};
      if (nid == 2) {
        std::vector<uint8_t> left(b.cuts.FeatureBins(t.feature));
        for (std::size_t k = 0; k < left.size(); ++k) left[k] = k % 3 == 0;
        walk[nid].cat = static_cast<int32_t>(cat_words.size());
        const std::vector<uint32_t> bits = PackLeftBits(left);
        cat_words.insert(cat_words.end(), bits.begin(), bits.end());
      }
    }
    for (int nid = 7; nid < 15; ++nid) walk[nid].value = 0.25f * nid - 2.0f;
    const std::vector<DenseWalkNode> dense = DenseWalk(walk, h.column_of);
    for (int nid = 7; nid < 15; ++nid) {
      float value;
      std::memcpy(&value, &dense[nid].slot, sizeof(value));
      EXPECT_EQ(value, walk[nid].value);
    }
    for (uint32_t row = 0; row < b.matrix->NumRows(); ++row) {
      int32_t a = 0, d = 0;
      while (walk[a].left >= 0) {
        const WalkNode& w = walk[a];
        a = GoesLeft(v, row, w.feature, w.split_bin, /*default_left=*/false,
                     w.cat < 0 ? nullptr : cat_words.data() + w.cat)
                ? w.left
                : w.right;
      }
      while (dense[d].left >= 0) d = dense[d].Next(v.Symbol(row, dense[d].slot), cat_words.data());
      ASSERT_EQ(d, a) << s.name << " row " << row;
    }
  }
  EXPECT_GE(walked, 3);
}

#ifdef RINGBOOST_USE_CUDA
// The kernel shapes and dense ones of more rows and wider rows for the leaf walks: 28 one-byte
// features over many blocks (the last one partial), 64 and 65 of them.
std::vector<test::ShapeSpec> WalkShapes() {
  std::vector<test::ShapeSpec> shapes = test::KernelShapes();
  shapes.push_back({"walk_28", 5003, 28, 30, 0.0, 256, 31});
  shapes.push_back({"walk_64", 2001, 64, 10, 0.0, 256, 32});
  shapes.push_back({"walk_65", 2001, 65, 10, 0.0, 256, 33});
  return shapes;
}
#endif

// The prediction cache: each leaf's value added to its rows, as TreeGrower::UpdatePredictions,
// over every shape (dense ones walk the splits row by row, sparse ones take each leaf's rows).
TEST(DevicePartition, LeafValuesUpdateThePredictionCache) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  for (const test::ShapeSpec& s : WalkShapes()) {
    const test::BinnedData b = test::MakeBinnedData(s);
    const DeviceMatrix dm = DeviceMatrix::Create(*b.matrix, b.cuts, 2);
    DevicePartitioner dev(b.matrix->NumRows());
    dev.Partition(dm, {SplitOf(b, 0)});
    dev.Partition(dm, {SplitOf(b, 1), SplitOf(b, 2)});
    const std::vector<int> leaves{3, 4, 5, 6};
    const std::vector<float> values{0.5f, -0.25f, 0.125f, 1.0f / 3.0f};
    const int stride = 3, group = 1;
    std::vector<float> expected(b.matrix->NumRows() * stride, 0.75f);
    for (std::size_t k = 0; k < leaves.size(); ++k) {
      for (uint32_t row : dev.NodeRowsToHost(leaves[k])) {
        expected[row * stride + group] += values[k];
      }
    }
    DeviceBuffer<float> d_preds(std::vector<float>(b.matrix->NumRows() * stride, 0.75f));
    dev.AddLeafValues(dm, leaves, values, d_preds.data(), stride, group);
    EXPECT_EQ(d_preds.ToHost(), expected) << s.name;
  }
#endif
}

// Dense data: every row walks the recorded splits to its leaf; each leaf's sum of the gradients
// equals the sum over its partitioned rows (inner nodes zero), and the prediction cache then adds
// by the rows' leaves as the partition says.
TEST(DevicePartition, WalkLeafSumsEqualTheLeavesRows) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  int walked = 0;
  for (const test::ShapeSpec& s : WalkShapes()) {
    const test::BinnedData b = test::MakeBinnedData(s);
    if (b.matrix->layout() != BinnedMatrix::Layout::kDense) continue;
    ++walked;
    const DeviceMatrix dm = DeviceMatrix::Create(*b.matrix, b.cuts, 2);
    DevicePartitioner dev(b.matrix->NumRows());
    dev.Partition(dm, {SplitOf(b, 0)});
    dev.Partition(dm, {SplitOf(b, 1), SplitOf(b, 2)});
    const std::vector<int> leaves{3, 4, 5, 6};
    std::vector<GradientSum> expected(7);
    std::vector<float> preds(b.matrix->NumRows(), 0.5f);
    const std::vector<float> values{0.5f, -0.25f, 0.125f, 1.0f / 3.0f};
    for (std::size_t k = 0; k < leaves.size(); ++k) {
      for (uint32_t row : dev.NodeRowsToHost(leaves[k])) {
        expected[leaves[k]] += b.gpair[row];
        preds[row] += values[k];
      }
    }
    const DeviceBuffer<GradientSum> d_gpair(b.gpair);
    // The tree's 7 nodes, and as many as a block's shared memory holds beside the sums (the
    // nodes' copy there), one more and the most (the nodes read from global memory).
    constexpr int kSharedNodes = static_cast<int>(DevicePartitioner::kWalkSharedBytes /
                                                  (4 * sizeof(uint32_t) + sizeof(DenseWalkNode)));
    for (int num_nodes : {7, kSharedNodes, kSharedNodes + 1, DevicePartitioner::kMaxWalkSumNodes}) {
      expected.resize(num_nodes);
      EXPECT_EQ(dev.WalkLeafSums(dm, d_gpair.data(), num_nodes), expected)
          << s.name << ", " << num_nodes << " nodes";
    }
    DeviceBuffer<float> d_preds(std::vector<float>(b.matrix->NumRows(), 0.5f));
    dev.AddLeafValues(dm, leaves, values, d_preds.data(), 1, 0);
    EXPECT_EQ(d_preds.ToHost(), preds) << s.name;
  }
  EXPECT_GE(walked, 6);
#endif
}

// Levels that mix categorical splits (even nodes) and numerical ones (odd nodes) partition the
// rows as RowPartitioner does with SplitRule, over the categorical shapes, dense and sparse.
TEST(DevicePartition, CategoricalEqualsRowPartitioner) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  for (const test::CategoricalShape& c : test::CategoricalShapes()) {
    const test::BinnedData b = test::MakeBinnedData(c.shape, c.is_cat);
    const DeviceMatrix dm = DeviceMatrix::Create(*b.matrix, b.cuts, 2);
    RowPartitioner cpu(b.matrix->NumRows());
    DevicePartitioner dev(b.matrix->NumRows());
    dev.Partition(dm, {CatTaskOf(b, CatSplitOf(b, c.is_cat, 1), 0)});  // Reset must undo it
    dev.Reset();
    for (const std::vector<int>& level : {std::vector<int>{0}, {1, 2}, {3, 4, 5, 6}}) {
      std::vector<DeviceSplitTask> tasks;
      std::vector<SplitRule> rules;
      rules.reserve(level.size());
      std::vector<RowPartitioner::SplitTask> cpu_tasks;
      for (int nid : level) {
        if (nid % 2 == 0) {
          const SplitCandidate s = CatSplitOf(b, c.is_cat, nid);
          tasks.push_back(CatTaskOf(b, s, nid));
          rules.emplace_back(*b.matrix, b.cuts, s);
        } else {
          tasks.push_back(SplitOf(b, nid));
          SplitCandidate s;
          s.feature = tasks.back().feature;
          s.split_bin = tasks.back().split_bin;
          s.default_left = tasks.back().default_left;
          rules.emplace_back(*b.matrix, b.cuts, s);
        }
        cpu_tasks.push_back({nid, 2 * nid + 1, 2 * nid + 2});
      }
      cpu.Partition(
          cpu_tasks, [&](std::size_t t, uint32_t row) { return RuleGoesLeft(rules[t], row); }, 2);
      dev.Partition(dm, std::vector<DeviceSplitTask>(tasks.rbegin(), tasks.rend()));
      for (const DeviceSplitTask& t : tasks) {
        for (int child : {t.left, t.right}) {
          EXPECT_EQ(dev.NodeRange(child).begin, cpu.NodeRange(child).begin) << c.shape.name;
          EXPECT_EQ(SortedDeviceRows(dev, child), SortedRows(cpu, child))
              << c.shape.name << " node " << child;
        }
      }
    }
  }
#endif
}

// The prediction cache after a tree with categorical splits: dense shapes walk the splits row by
// row through the category bit sets (the last level's splits only recorded), sparse ones take each
// leaf's rows.
TEST(DevicePartition, CategoricalLeafValuesUpdateThePredictionCache) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  for (const test::CategoricalShape& c : test::CategoricalShapes()) {
    const test::BinnedData b = test::MakeBinnedData(c.shape, c.is_cat);
    const DeviceMatrix dm = DeviceMatrix::Create(*b.matrix, b.cuts, 2);
    DevicePartitioner dev(b.matrix->NumRows());
    const SplitCandidate s0 = CatSplitOf(b, c.is_cat, 0), s2 = CatSplitOf(b, c.is_cat, 2);
    dev.Partition(dm, {CatTaskOf(b, s0, 0)});
    // Dense data walks splits that were only recorded (as the grower leaves the last level's);
    // sparse data needs the leaves' rows.
    const std::vector<DeviceSplitTask> last{SplitOf(b, 1), CatTaskOf(b, s2, 2)};
    if (dm.shape().dense) {
      dev.RecordSplits(last);
    } else {
      dev.Partition(dm, last);
    }
    // The expected leaves from the CPU's rules.
    const SplitRule r0(*b.matrix, b.cuts, s0), r2(*b.matrix, b.cuts, s2);
    const DeviceSplitTask t1 = SplitOf(b, 1);
    const std::vector<float> values{0.5f, -0.25f, 0.125f, 1.0f / 3.0f};  // leaves 3, 4, 5, 6
    const int stride = 2, group = 1;
    std::vector<float> expected(b.matrix->NumRows() * stride, 0.75f);
    for (uint32_t row = 0; row < b.matrix->NumRows(); ++row) {
      int leaf;
      if (RuleGoesLeft(r0, row)) {
        leaf = CpuGoesLeft(b, row, t1) ? 3 : 4;
      } else {
        leaf = RuleGoesLeft(r2, row) ? 5 : 6;
      }
      expected[row * stride + group] += values[leaf - 3];
    }
    DeviceBuffer<float> d_preds(std::vector<float>(b.matrix->NumRows() * stride, 0.75f));
    dev.AddLeafValues(dm, {3, 4, 5, 6}, values, d_preds.data(), stride, group);
    EXPECT_EQ(d_preds.ToHost(), expected) << c.shape.name;
  }
#endif
}

}  // namespace
}  // namespace ringboost
