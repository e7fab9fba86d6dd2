#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "tree/hist/row_partitioner.h"

namespace ringboost {

TEST(RowPartitioner, StablePartitionOfTwoNodesAtOnce) {
  for (int threads : {1, 2}) {
    RowPartitioner p(10);
    // Root: even rows left (node 1), odd right (node 2).
    p.Partition(
        {{0, 1, 2}}, [](std::size_t, uint32_t r) { return r % 2 == 0; }, threads);
    EXPECT_EQ(p.NodeRange(1).size(), 5u);
    EXPECT_EQ(std::vector<uint32_t>(p.NodeRows(1), p.NodeRows(1) + 5),
              (std::vector<uint32_t>{0, 2, 4, 6, 8}));
    // Node 1: rows < 5 left (3); node 2: rows > 6 left (4).
    p.Partition(
        {{1, 3, 4}, {2, 5, 6}}, [](std::size_t t, uint32_t r) { return t == 0 ? r < 5 : r > 6; },
        threads);
    EXPECT_EQ(std::vector<uint32_t>(p.NodeRows(3), p.NodeRows(3) + p.NodeRange(3).size()),
              (std::vector<uint32_t>{0, 2, 4}));
    EXPECT_EQ(std::vector<uint32_t>(p.NodeRows(4), p.NodeRows(4) + p.NodeRange(4).size()),
              (std::vector<uint32_t>{6, 8}));
    EXPECT_EQ(std::vector<uint32_t>(p.NodeRows(5), p.NodeRows(5) + p.NodeRange(5).size()),
              (std::vector<uint32_t>{7, 9}));
    EXPECT_EQ(std::vector<uint32_t>(p.NodeRows(6), p.NodeRows(6) + p.NodeRange(6).size()),
              (std::vector<uint32_t>{1, 3, 5}));
  }
}

// Reset (a new tree on the same rows) puts every row back in the root in order, drops the
// nodes, and lays a split out as a new partitioner does, two levels deep, whatever the previous
// tree left in the buffers.
TEST(RowPartitioner, ResetIsANewPartitioner) {
  const uint32_t n = 20000;  // several partition blocks
  auto rows_of = [](const RowPartitioner& p, int nid) {
    return std::vector<uint32_t>(p.NodeRows(nid), p.NodeRows(nid) + p.NodeRange(nid).size());
  };
  auto grow = [](RowPartitioner* p, uint32_t salt, int threads) {
    p->Partition(
        {{0, 1, 2}}, [salt](std::size_t, uint32_t r) { return (r * salt) % 5 < 2; }, threads);
    p->Partition(
        {{1, 3, 4}, {2, 5, 6}},
        [salt](std::size_t t, uint32_t r) { return ((r + t) * salt) % 3 == 0; }, threads);
  };
  for (int threads : {1, 2}) {
    RowPartitioner reused(n);
    grow(&reused, 2654435761u, threads);
    grow(&reused, 40503u, threads);  // a tree on the layout the first one left
    reused.Reset(threads);
    std::vector<uint32_t> all(n);
    for (uint32_t i = 0; i < n; ++i) all[i] = i;
    EXPECT_EQ(rows_of(reused, 0), all);
    RowPartitioner fresh(n);
    grow(&reused, 97u, threads);
    grow(&fresh, 97u, threads);
    for (int nid = 1; nid <= 6; ++nid) {
      EXPECT_EQ(rows_of(reused, nid), rows_of(fresh, nid)) << "node " << nid;
    }
  }
}

TEST(RowPartitioner, LargeNodeSameLayoutForAnyThreadCount) {
  const uint32_t n = 100000;  // several partition blocks
  auto run = [&](int threads) {
    RowPartitioner p(n);
    p.Partition(
        {{0, 1, 2}}, [](std::size_t, uint32_t r) { return (r * 2654435761u) % 7 < 3; }, threads);
    std::vector<uint32_t> rows(p.NodeRows(1), p.NodeRows(1) + p.NodeRange(1).size());
    rows.insert(rows.end(), p.NodeRows(2), p.NodeRows(2) + p.NodeRange(2).size());
    return rows;
  };
  std::vector<uint32_t> one = run(1);
  EXPECT_EQ(one, run(2));
  EXPECT_TRUE(std::is_sorted(one.begin(), one.begin() + 10));
}

// A decider of whole blocks lays rows out as the per-row decider does, for any thread count.
TEST(RowPartitioner, BlockDecisionsLayRowsOutAsRowDecisions) {
  const uint32_t n = 50000;  // several partition blocks per node
  auto goes_left = [](std::size_t t, uint32_t r) { return (r * 2654435761u) % (t + 3) < 2; };
  auto rows_of = [](const RowPartitioner& p, int nid) {
    return std::vector<uint32_t>(p.NodeRows(nid), p.NodeRows(nid) + p.NodeRange(nid).size());
  };
  RowPartitioner by_row(n);
  by_row.Partition({{0, 1, 2}}, goes_left, 1);
  by_row.Partition({{1, 3, 4}, {2, 5, 6}}, goes_left, 1);
  for (int threads : {1, 2}) {
    RowPartitioner by_block(n);
    auto decide = [&](std::size_t t, const uint32_t* rows, uint64_t count, uint8_t* side) {
      uint64_t n_left = 0;
      for (uint64_t j = 0; j < count; ++j) n_left += side[j] = goes_left(t, rows[j]);
      return n_left;
    };
    by_block.PartitionBlocks({{0, 1, 2}}, decide, threads);
    by_block.PartitionBlocks({{1, 3, 4}, {2, 5, 6}}, decide, threads);
    for (int nid = 3; nid <= 6; ++nid) EXPECT_EQ(rows_of(by_block, nid), rows_of(by_row, nid));
    EXPECT_GT(by_block.NodeRange(3).size(), 1000u);
  }
}

// A block's scatter, by AVX2 permutations (where the CPU has them) and a row at a time: the rows
// that go left in order at `left`, the rest in order right after them, and not a place written
// outside, for blocks of any length (whole steps of 8 and tails) and any share going left
// (sides with fewer than 8 places left, all left, all right).
TEST(RowPartitioner, ScatterRowsIsAStablePartitionBothWays) {
  std::mt19937 rng(7);
  constexpr uint32_t kGuard = 16, kCanary = 0xdeadbeefu;
  for (uint64_t n : {0u, 1u, 7u, 8u, 9u, 15u, 16u, 17u, 24u, 63u, 64u, 100u, 1000u, 8192u}) {
    for (double p : {0.0, 0.03, 0.5, 0.97, 1.0}) {
      std::bernoulli_distribution coin(p);
      std::vector<uint8_t> side(n);
      std::vector<uint32_t> src(n), expected;
      for (uint64_t j = 0; j < n; ++j) {
        side[j] = coin(rng);
        src[j] = static_cast<uint32_t>(rng());
      }
      for (uint64_t j = 0; j < n; ++j) {
        if (side[j]) expected.push_back(src[j]);
      }
      const uint64_t n_left = expected.size();
      for (uint64_t j = 0; j < n; ++j) {
        if (!side[j]) expected.push_back(src[j]);
      }
      for (bool vector : {true, false}) {
        // Guards before the left side, between the sides and after the right side.
        std::vector<uint32_t> dst(n + 3 * kGuard, kCanary);
        uint32_t* left = dst.data() + kGuard;
        uint32_t* right = left + n_left + kGuard;
        RowPartitioner::ScatterRows(side.data(), src.data(), n, n_left, left, right, vector);
        std::vector<uint32_t> got(left, left + n_left);
        got.insert(got.end(), right, right + (n - n_left));
        EXPECT_EQ(got, expected) << n << " " << p << " " << vector;
        for (uint32_t g = 0; g < kGuard; ++g) {
          EXPECT_EQ(dst[g], kCanary) << n << " " << p << " " << vector;
          EXPECT_EQ(left[n_left + g], kCanary) << n << " " << p << " " << vector;
          EXPECT_EQ(right[n - n_left + g], kCanary) << n << " " << p << " " << vector;
        }
      }
    }
  }
}

// Threads' shares of the rows tile them, each starting at a multiple of 64 rows; a node's rows
// ascend at any depth, and its stretches within the shares are its rows, in order, once each.
TEST(RowPartitioner, ThreadSharesOfANodeAreItsRows) {
  for (uint64_t n : {0u, 1u, 63u, 64u, 1000u, 100000u}) {
    for (int threads : {1, 2, 3, 4}) {
      uint64_t next = 0;
      for (int t = 0; t < threads; ++t) {
        const RowRange r = RowPartitioner::ThreadRows(n, t, threads);
        EXPECT_EQ(r.begin, next) << n << " " << threads << " " << t;
        EXPECT_LE(r.begin, r.end);
        if (r.begin < n) EXPECT_EQ(r.begin % 64, 0u);
        next = r.end;
      }
      EXPECT_EQ(next, n) << n << " " << threads;
    }
  }
  const uint32_t n = 100000;  // several partition blocks, three levels
  RowPartitioner p(n);
  auto goes_left = [](std::size_t t, uint32_t r) { return (r * 2654435761u) % (t + 3) < 2; };
  p.Partition({{0, 1, 2}}, goes_left, 2);
  p.Partition({{1, 3, 4}, {2, 5, 6}}, goes_left, 2);
  p.Partition({{3, 7, 8}, {4, 9, 10}, {5, 11, 12}, {6, 13, 14}}, goes_left, 2);
  for (int nid = 7; nid <= 14; ++nid) {  // the live nodes (a split node's rows are overwritten)
    const std::vector<uint32_t> rows(p.NodeRows(nid), p.NodeRows(nid) + p.NodeRange(nid).size());
    EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end())) << nid;
    for (int threads : {1, 2, 3}) {
      std::vector<uint32_t> joined;
      for (int t = 0; t < threads; ++t) {
        const RowRange mine = RowPartitioner::ThreadRows(n, t, threads);
        const auto [first, count] = p.NodeRowsIn(nid, mine);
        for (uint64_t i = 0; i < count; ++i) {
          EXPECT_GE(first[i], mine.begin);
          EXPECT_LT(first[i], mine.end);
          joined.push_back(first[i]);
        }
      }
      EXPECT_EQ(joined, rows) << nid << " " << threads;
    }
  }
}

}  // namespace ringboost
