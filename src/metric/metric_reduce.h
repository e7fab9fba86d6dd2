// The one way metrics combine workers (DESIGN.md step 10), and deterministic local sums.
//  * Sums (elementwise: loss and weight; rank: group scores and group count) are allreduced.
//  * AUC/aucpr need every row at once to be exact: the rows are allgathered in rank order, which
//    is the order of the whole data, so the value equals the single-process one.
// A null communicator or a world of one makes every collective an identity.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "common/span.h"
#include "rabit/communicator.h"

namespace ringboost::metric_detail {

inline bool IsDistributed(const rabit::Communicator* comm) {
  return comm != nullptr && comm->WorldSize() > 1;
}

// values[i] = sum over workers of values[i].
void AllreduceSum(rabit::Communicator* comm, Span<double> values);
// True when `flag` holds on any worker.
bool AnyWorker(rabit::Communicator* comm, bool flag);
// Every worker's `local` concatenated in rank order (a copy of `local` in a world of one).
std::vector<float> AllgatherFloats(rabit::Communicator* comm, const std::vector<float>& local);

// Rows per block of the deterministic parallel sums.
constexpr int64_t kSumBlockRows = 4096;

// {sum of fn(i).first, sum of fn(i).second} over i in [0, n), in double. Rows are summed in
// fixed blocks and the block sums in block order, so the result does not depend on the thread
// count. fn must be thread-safe.
template <typename Fn>
std::array<double, 2> SumRows(int64_t n, int nthread, Fn fn) {
  const int64_t blocks = (n + kSumBlockRows - 1) / kSumBlockRows;
  std::vector<std::array<double, 2>> partial(blocks, {0.0, 0.0});
#pragma omp parallel for schedule(static) num_threads(nthread)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t end = std::min(n, (b + 1) * kSumBlockRows);
    for (int64_t i = b * kSumBlockRows; i < end; ++i) {
      const auto v = fn(i);
      partial[b][0] += v.first;
      partial[b][1] += v.second;
    }
  }
  std::array<double, 2> total{0.0, 0.0};
  for (const auto& p : partial) {
    total[0] += p[0];
    total[1] += p[1];
  }
  return total;
}

}  // namespace ringboost::metric_detail
