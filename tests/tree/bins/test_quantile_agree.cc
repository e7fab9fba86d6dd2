// Cuts agreed by several workers (quantile_agree.cc) equal one process's cuts of all the rows:
// real tcp workers on threads under an in-process tracker, the rows split in several ways, both
// paths (small features gathered, large ones bisected), weighted and not.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "rabit/communicator.h"
#include "rabit/tracker_thread.h"
#include "tree/bins/quantile.h"
#include "tree/bins/quantile_data.h"

namespace ringboost {
namespace {

// Rows [begin, end) of d.
DataSet Rows(const DataSet& d, uint64_t begin, uint64_t end) {
  DataSet s;
  for (uint64_t i = begin; i < end; ++i) {
    for (uint64_t k = d.row_ptr[i]; k < d.row_ptr[i + 1]; ++k) {
      s.index.push_back(d.index[k]);
      s.value.push_back(d.value[k]);
    }
    s.row_ptr.push_back(s.index.size());
    s.label.push_back(d.label[i]);
    if (!d.weight.empty()) s.weight.push_back(d.weight[i]);
  }
  s.num_col = d.num_col;
  return s;
}

HistogramCuts OneProcess(const DataSet& d, int max_bin) {
  auto comm = rabit::MakeLocalCommunicator();
  return ComputeCuts(d, d.num_col, max_bin, comm.get(), 2);
}

struct Case {
  DataSet data;
  int max_bin;
  std::vector<uint64_t> bounds;  // worker r holds rows [bounds[r], bounds[r + 1])
  int64_t min_calls, max_calls;  // collective calls of one ComputeCuts
};

// Runs every case on bounds.size() - 1 tcp workers; each worker checks its cuts against one
// process's and its number of collective calls against the case's range. "" or what differed.
std::vector<std::string> RunCases(int n, const std::vector<Case>& cases) {
  rabit::test::TrackerThread tracker(n);
  std::vector<HistogramCuts> expected;
  for (const Case& c : cases) expected.push_back(OneProcess(c.data, c.max_bin));
  std::vector<std::string> results(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      try {
        rabit::CommunicatorConfig config;
        config.backend = "tcp";
        config.args = tracker.WorkerArgs(r);
        auto comm = rabit::WithStats(rabit::MakeCommunicator(config));
        for (std::size_t i = 0; i < cases.size(); ++i) {
          const Case& c = cases[i];
          const DataSet mine = Rows(c.data, c.bounds[r], c.bounds[r + 1]);
          const int64_t calls_before = comm->Stats().calls;
          const HistogramCuts got = ComputeCuts(mine, c.data.num_col, c.max_bin, comm.get(), 2);
          const int64_t calls = comm->Stats().calls - calls_before;
          const std::string where = "case " + std::to_string(i) + " max_bin " +
                                    std::to_string(c.max_bin) + " rank " + std::to_string(r);
          if (got.ptr != expected[i].ptr || got.values != expected[i].values) {
            results[r] += where + ": cuts differ from one process's\n";
          }
          if (got.min_values != expected[i].min_values) {
            results[r] += where + ": min_values differ\n";
          }
          if (calls < c.min_calls || calls > c.max_calls) {
            results[r] += where + ": " + std::to_string(calls) + " collective calls\n";
          }
        }
        ThrowIfError(comm->Shutdown());
      } catch (const std::exception& e) {
        results[r] = std::string("error: ") + e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  return results;
}

// Every worker's rows in equal contiguous blocks.
std::vector<uint64_t> Even(uint64_t rows, int n) {
  std::vector<uint64_t> b;
  for (int r = 0; r <= n; ++r) b.push_back(rows * r / n);
  return b;
}

// Collective calls of ComputeCuts with several workers: 2 for the plan, 1 for the distinct
// counts, then 1 gather when some feature is small and, when some is large, 4 for the landmarks
// and 2 per bisection round (at most 33 rounds).
constexpr int64_t kSmallOnly = 4, kLargeMin = 3 + 4 + 2 * 8, kLargeMax = 4 + 4 + 2 * 33;

TEST(QuantileAgree, TwoAndThreeWorkersCutAsOneProcess) {
  // RandomData: feature 0 ~200 distinct values, 1 seven values, 2 sparse and nearly all
  // distinct (~900). max_bin 2 and 16: 0 and 2 have more than 8 * max_bin distinct values per
  // worker (bisected); 1 is gathered. max_bin 256: all gathered, 0 and 2 pruned after merging.
  for (int n : {2, 3}) {
    std::vector<Case> cases;
    for (bool weighted : {false, true}) {
      const DataSet d = test::RandomData(5 + n, weighted);
      for (int max_bin : {2, 16}) {
        cases.push_back({d, max_bin, Even(d.NumRows(), n), kLargeMin, kLargeMax});
      }
      cases.push_back({d, 256, Even(d.NumRows(), n), 2 + 1 + 1, kSmallOnly});
    }
    for (const std::string& r : RunCases(n, cases)) EXPECT_EQ(r, "");
  }
}

TEST(QuantileAgree, UnevenSharesAndAbsentFeatures) {
  // Worker 0 holds no row, worker 1 a handful, worker 2 the rest; feature 3 occurs only in the
  // last 40 rows (worker 2's), feature 4 never. A long column with 5000 distinct values and a
  // weighted one with 41 values repeated make both paths meet duplicates and extreme weights.
  DataSet d = test::RandomData(17, true, 2000);
  std::vector<std::vector<std::pair<uint32_t, float>>> rows;
  std::vector<float> weight;
  for (uint64_t i = 0; i < d.NumRows(); ++i) {
    std::vector<std::pair<uint32_t, float>> row;
    for (uint64_t k = d.row_ptr[i]; k < d.row_ptr[i + 1]; ++k) {
      row.push_back({d.index[k], d.value[k]});
    }
    if (i + 40 >= d.NumRows()) row.push_back({3u, static_cast<float>(i % 9)});
    row.push_back({5u, static_cast<float>((i * 7919) % 2000) / 3.0f});
    row.push_back({6u, static_cast<float>(i % 41) - 20.0f});
    rows.push_back(row);
    weight.push_back(i % 13 == 0 ? 50.0f : d.weight[i]);
  }
  const DataSet data = test::MakeData(rows, weight);
  ASSERT_EQ(data.num_col, 7u);
  std::vector<Case> cases;
  for (int max_bin : {3, 8, 64}) {
    cases.push_back({data, max_bin, {0, 0, 7, data.NumRows()}, kLargeMin, kLargeMax});
  }
  for (const std::string& r : RunCases(3, cases)) EXPECT_EQ(r, "");
}

// One feature: value v on row (v * 7919) mod N (shares of contiguous rows get scattered values),
// weight 1 except `heavy` for the value 1.
DataSet Scattered(int n, float heavy) {
  std::vector<std::vector<std::pair<uint32_t, float>>> rows(n);
  std::vector<float> weight(n, 1.0f);
  for (int v = 0; v < n; ++v) {
    const int row = (v * 7919) % n;
    rows[row].push_back({0u, static_cast<float>(v)});
    if (v == 1) weight[row] = heavy;
  }
  return test::MakeData(rows, weight);
}

TEST(QuantileAgree, FirstPruneTiesAndAHeavySecondValue) {
  // 0..46 unit weights, max_bin 2: the first prune has n = 15 steps, begin 1, range 45 - 1 + 1
  // - 1 = 45... precisely rmin(46) - rmax(0) = 46 - 1 = 45 = 15 * 3, so dx2 = 2 * (3k + 1), and
  // entry i = 3k ([i, i + 1)) has rmax_i + rmin_{i+1} = 2 * (3k + 1) = dx2: every step is a tie
  // of the pick test, which keeps i + 1. Each worker holds ~23 > 16 distinct values: bisected.
  // Value 1 weighing 1000 among 0..99: g(1) = 1 + 1001 > dx2 of the first steps, so J = 0 and
  // Prune's i = 1 compares entries 1 and 2.
  std::vector<Case> cases{{Scattered(47, 1.0f), 2, {0, 23, 47}, kLargeMin, kLargeMax},
                          {Scattered(100, 1000.0f), 2, {0, 50, 100}, kLargeMin, kLargeMax},
                          {Scattered(100, 1000.0f), 3, {0, 50, 100}, kLargeMin, kLargeMax}};
  for (const std::string& r : RunCases(2, cases)) EXPECT_EQ(r, "");
}

// Rows of weight 0 leave the column on every worker as in one process. Feature 0: x = 0..9 on rows
// 0..9 and 7 again on rows 10 and 11, the rows of x = 5 and of the first 7 weighing 0; worker 0
// holds rows 0..7, so 5 is weighed by no worker (no cut) and 7 by worker 1 only (a cut). Feature
// 1 occurs on row 5 alone: on every worker an empty column. Then a bisected column, every value
// v = 3 (mod 10) weighing 0.
TEST(QuantileAgree, ZeroWeightRowsMakeNoCuts) {
  std::vector<std::vector<std::pair<uint32_t, float>>> rows;
  std::vector<float> weight;
  for (int i = 0; i < 12; ++i) {
    rows.push_back({{0u, static_cast<float>(i < 10 ? i : 7)}});
    if (i == 5) rows.back().push_back({1u, 3.0f});
    weight.push_back(i == 5 || i == 7 ? 0.0f : 1.0f);
  }
  const DataSet small = test::MakeData(rows, weight);
  const HistogramCuts one = OneProcess(small, 256);
  const float last = 9.0f + (9.0f + 1e-5f);
  EXPECT_EQ(std::vector<float>(one.values.begin(), one.values.begin() + one.ptr[1]),
            (std::vector<float>{1, 2, 3, 4, 6, 7, 8, 9, last}));
  EXPECT_EQ(one.ptr[2] - one.ptr[1], 1u);
  EXPECT_EQ(one.min_values[1], 1e-5f);
  DataSet large = Scattered(200, 1.0f);
  for (int v = 3; v < 200; v += 10) large.weight[(v * 7919) % 200] = 0.0f;
  std::vector<Case> cases{{small, 256, {0, 8, 12}, 2 + 1 + 1, kSmallOnly},
                          {large, 2, {0, 100, 200}, kLargeMin, kLargeMax}};
  for (const std::string& r : RunCases(2, cases)) EXPECT_EQ(r, "");
}

TEST(QuantileAgree, RandomIntegerColumnsWithTies) {
  // Small integer values and weights (zero included) make Prune's comparisons meet exact ties
  // (dx2 == rmin + rmax, dx2 == the middle of a gap), and heavy early values put J at 0. Shares
  // of 100..300 rows keep more than 8 * max_bin distinct values per worker: bisected.
  std::mt19937 rng(29);
  std::vector<Case> cases;
  for (int c = 0; c < 60; ++c) {
    const int rows = 200 + static_cast<int>(rng() % 400);
    const int range = 60 + static_cast<int>(rng() % 300);
    std::vector<std::vector<std::pair<uint32_t, float>>> data(rows);
    std::vector<float> weight(rows);
    for (int i = 0; i < rows; ++i) {
      data[i].push_back({0u, static_cast<float>(rng() % range)});
      weight[i] = static_cast<float>(rng() % 4);
      if (i < 3 && c % 2 == 0) weight[i] = 40.0f;  // heavy values early in the sorted column
    }
    if (c % 2 == 0) {
      for (int i = 0; i < 3; ++i) data[i][0].second = static_cast<float>(i);
    }
    const int max_bin = 2 + static_cast<int>(rng() % 3);
    const DataSet d = test::MakeData(data, c % 3 == 0 ? std::vector<float>{} : weight);
    cases.push_back({d, max_bin, Even(d.NumRows(), 2), 0, kLargeMax});
  }
  for (const std::string& r : RunCases(2, cases)) EXPECT_EQ(r, "");
}

}  // namespace
}  // namespace ringboost
