// The one way metrics combine workers (DESIGN.md step 10), and deterministic local sums.
//  * Sums of elementwise losses and weights are allreduced.
//  * Ranking scores (ndcg, map) are allgathered per query group and summed in group order, the
//    order one process sums them in, so the value equals the single-process one to the last bit.
//  * AUC/aucpr need every row at once to be exact: the rows are allgathered in rank order, which
//    is the order of the whole data, so the value equals the single-process one.
// A null communicator or a world of one makes every collective an identity.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
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
template <typename T>
std::vector<T> AllgatherValues(rabit::Communicator* comm, const std::vector<T>& local) {
  if (!IsDistributed(comm)) return local;
  std::vector<char> bytes;
  ThrowIfError(comm->AllgathervRaw(local.data(), local.size() * sizeof(T), &bytes));
  RB_CHECK(bytes.size() % sizeof(T) == 0);
  std::vector<T> all(bytes.size() / sizeof(T));
  if (!all.empty()) std::memcpy(all.data(), bytes.data(), bytes.size());
  return all;
}

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
