// rabit/exact_sum.h: sums of floats that do not depend on their order, their threads or their
// workers (the metrics and the smooth quantile objectives rely on it).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "rabit/exact_sum.h"
#include "tracker_thread.h"

namespace ringboost::rabit {
namespace {

TEST(ExactFloatSum, IgnoresOrder) {
  // 1e30 + 1 - 1e30 is 1 exactly, in any order (a double sum loses the 1 in two of them).
  const std::vector<float> v{1e30f, 1.0f, -1e30f, 0x1p-149f, -3.5f, 0x1p100f, -0x1p100f};
  ExactFloatSum a, b, c;
  for (float x : v) a.Add(x);
  for (auto it = v.rbegin(); it != v.rend(); ++it) b.Add(*it);
  c.Add(v[0]);
  c.Add(v[2]);
  ExactFloatSum rest;
  for (std::size_t i : {1, 3, 4, 5, 6}) rest.Add(v[i]);
  c.Merge(rest);
  EXPECT_EQ(a.Value(), 1.0 - 3.5 + 0x1p-149);
  EXPECT_EQ(b.Value(), a.Value());
  EXPECT_EQ(c.Value(), a.Value());
  ExactFloatSum inf;
  inf.Add(1.0f);
  inf.Add(std::numeric_limits<float>::infinity());
  EXPECT_EQ(inf.Value(), std::numeric_limits<float>::infinity());
}

TEST(ExactFloatSum, AddsProductsOfFloatsExactly) {
  // (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46: a float keeps 1 + 2^-22 only; minus 1 + 2^-22 leaves 2^-46.
  const float a = 1.0f + 0x1p-23f;
  ExactFloatSum s;
  s.AddProduct(a, a);
  s.Add(-(1.0f + 0x1p-22f));
  EXPECT_EQ(s.Value(), 0x1p-46);
  ExactFloatSum big;
  big.AddProduct(3.0f, -0.1f);
  EXPECT_EQ(big.Value(), 3.0 * static_cast<double>(-0.1f));
}

// The sums of 10,000 rows' values spread over 1, 2 and 3 workers (threads of this process) and
// 1 or 3 threads each are the same bits as one worker's.
TEST(ExactFloatSum, SumRowsAcrossWorkersIsTheSameForEveryWorkerAndThreadCount) {
  const int64_t rows = 10000;
  auto value = [](int64_t i) { return static_cast<float>(std::sin(static_cast<double>(i)) * 1e3); };
  auto sums_of = [&](Communicator* comm, int64_t begin, int64_t end, int nthread) {
    return SumRowsAcrossWorkers(comm, end - begin, 2, nthread, [&](int64_t i, ExactFloatSum* s) {
      s[0].Add(value(begin + i));
      s[1].AddProduct(value(begin + i), 0.3f);
    });
  };
  auto local = MakeLocalCommunicator();
  const std::vector<double> want = sums_of(local.get(), 0, rows, 1);
  EXPECT_EQ(sums_of(local.get(), 0, rows, 3), want);
  for (int n : {2, 3}) {
    test::TrackerThread tracker(n);
    auto results =
        test::RunWorkers(&tracker, n, {{"rabit_timeout_sec", "30"}}, [&](Communicator* c) {
          const int64_t begin = rows * c->Rank() / n, end = rows * (c->Rank() + 1) / n;
          return sums_of(c, begin, end, 1 + c->Rank() % 2) == want ? std::string() : "differs";
        });
    for (const std::string& r : results) EXPECT_EQ(r, "") << n << " workers";
  }
}

}  // namespace
}  // namespace ringboost::rabit
