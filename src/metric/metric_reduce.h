// The one way metrics combine workers (DESIGN.md step 10), and deterministic local sums.
//  * Sums of elementwise losses and weights (floats, one pair a row) are exact: each float goes
//    into a fixed-point accumulator (ExactFloatSum) whose integer lanes are allreduced, so the
//    value is the same for any split of the rows over workers and threads.
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

// The exact sum of floats, in any order: each finite float is m 2^(p - 149) with a 24-bit m and
// 0 <= p < 254; m << (p % 32) is added to two 32-bit lanes of int64 (room for 2^31 additions).
// Non-finite values go to a double on the side (inf and NaN propagate as in any sum).
class ExactFloatSum {
 public:
  static constexpr int kLanes = 10;
  void Add(float v);
  void Merge(const ExactFloatSum& other);
  // The sum rounded to double the same way wherever the lanes are the same.
  double Value() const;
  // The lanes and the non-finite part as int64 words (kLanes + 1), for an allreduce (sum).
  void ToWords(int64_t* out) const;
  void FromWords(const int64_t* in);

 private:
  int64_t lanes_[kLanes] = {};
  double special_ = 0.0;
};

// sums[0 .. count) over every worker, in place (an identity in a world of one).
void AllreduceExactSums(rabit::Communicator* comm, ExactFloatSum* sums, int count);

// Rows per block of the parallel sums.
constexpr int64_t kSumBlockRows = 4096;

// The exact {sum of fn(i).first, sum of fn(i).second} over i in [0, n) on this worker and the
// others: the same value for any thread count, worker count and split of the rows. A collective:
// every worker calls it. fn must be thread-safe.
template <typename Fn>
std::array<double, 2> SumRowsAcrossWorkers(rabit::Communicator* comm, int64_t n, int nthread,
                                           Fn fn) {
  const int64_t blocks = (n + kSumBlockRows - 1) / kSumBlockRows;
  std::vector<std::array<ExactFloatSum, 2>> partial(blocks);
#pragma omp parallel for schedule(static) num_threads(nthread)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t end = std::min(n, (b + 1) * kSumBlockRows);
    for (int64_t i = b * kSumBlockRows; i < end; ++i) {
      const auto v = fn(i);
      partial[b][0].Add(v.first);
      partial[b][1].Add(v.second);
    }
  }
  ExactFloatSum total[2];
  for (const auto& p : partial) {
    total[0].Merge(p[0]);
    total[1].Merge(p[1]);
  }
  AllreduceExactSums(comm, total, 2);
  return {total[0].Value(), total[1].Value()};
}

}  // namespace ringboost::metric_detail
