// Device row partition against RowPartitioner (the CPU reference); the split rule and the scan
// positions on the host.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "device_test_helpers.h"
#include "tree/gpu_hist/matrix.h"
#include "tree/gpu_hist/partition.h"
#include "tree/hist/row_partitioner.h"

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

TEST(DevicePartition, DestinationsFormTheStablePartition) {
  std::mt19937 rng(5);
  const uint64_t begin = 10, size = 1000;
  std::vector<uint32_t> src(size), marks(size);
  for (uint64_t j = 0; j < size; ++j) {
    src[j] = static_cast<uint32_t>(rng());
    marks[j] = rng() % 3 == 0;
  }
  std::vector<uint32_t> expected;
  for (int side : {1, 0}) {
    for (uint64_t j = 0; j < size; ++j) {
      if (marks[j] == static_cast<uint32_t>(side)) expected.push_back(src[j]);
    }
  }
  uint64_t n_left = 0;
  for (uint32_t m : marks) n_left += m;
  std::vector<uint32_t> got(size);
  uint64_t left_before = 0;  // the exclusive scan of the marks
  for (uint64_t j = 0; j < size; ++j) {
    got[PartitionDestination(begin, begin + j, left_before, n_left, marks[j] != 0) - begin] =
        src[j];
    left_before += marks[j];
  }
  EXPECT_EQ(got, expected);
}

// Nodes without rows (one_row, one_bin: every row goes one way) split into two empty children at
// the node's position, as RowPartitioner does; the partitioner is reused after Reset.
TEST(DevicePartition, EqualsRowPartitionerOverShapes) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  for (const test::ShapeSpec& s : test::KernelShapes()) {
    const test::BinnedData b = test::MakeBinnedData(s);
    const DeviceMatrix dm = DeviceMatrix::Create(*b.matrix, b.cuts, 2);
    RowPartitioner cpu(b.matrix->NumRows());
    DevicePartitioner dev(b.matrix->NumRows());
    dev.Partition(dm, {SplitOf(b, 0)});  // a tree before: Reset must undo it
    dev.Reset();
    // Three levels of a full tree: nodes 0; 1, 2; 3..6. Rows land in both buffers.
    for (const std::vector<int>& level : {std::vector<int>{0}, {1, 2}, {3, 4, 5, 6}}) {
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
          const std::vector<uint32_t> expected(cpu.NodeRows(child),
                                               cpu.NodeRows(child) + cpu.NodeRange(child).size());
          EXPECT_EQ(dev.NodeRange(child).begin, cpu.NodeRange(child).begin) << s.name;
          EXPECT_EQ(dev.NodeRowsToHost(child), expected) << s.name << " node " << child;
        }
      }
    }
  }
#endif
}

// The prediction cache: each leaf's value added to its rows, as TreeGrower::UpdatePredictions,
// over every shape (dense ones walk the splits row by row, sparse ones take each leaf's rows).
TEST(DevicePartition, LeafValuesUpdateThePredictionCache) {
  RB_REQUIRE_DEVICE();
#ifdef RINGBOOST_USE_CUDA
  for (const test::ShapeSpec& s : test::KernelShapes()) {
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

}  // namespace
}  // namespace ringboost
