// Sums of floats that are exact across threads and workers: each float goes into a fixed-point
// accumulator whose integer lanes are allreduced, so a sum is the same for any split of the rows
// over workers and threads. The metrics combine workers with it (metric/metric_reduce.h), and the
// objectives whose gradients need a global statistic of every row (reg:absoluteerror's and
// reg:quantileerror's residual scale and base_score) compute it with it.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "rabit/communicator.h"

namespace ringboost::rabit {

// The exact sum of floats, in any order: each finite float is m 2^(p - 149) with a 24-bit m and
// 0 <= p < 254; m << (p % 32) is added to two 32-bit lanes of int64 (room for 2^31 additions).
// Non-finite values go to a double on the side (inf and NaN propagate as in any sum).
class ExactFloatSum {
 public:
  static constexpr int kLanes = 10;
  void Add(float v);
  // Adds a double that is the exact product of two floats (48 significant bits at most) as its
  // float part and the float remainder, both exact (barring float overflow and underflow).
  void AddProduct(float a, float b);
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

// sums[0 .. count) over every worker, in place (an identity without a communicator or in a world
// of one). A collective: every worker calls it with the same count.
void AllreduceExactSums(Communicator* comm, ExactFloatSum* sums, int count);

// Rows per block of the parallel sums.
constexpr int64_t kSumBlockRows = 4096;

// The exact sums over i in [0, n) on this worker and the others of what fn(i, sums) adds into
// sums[0 .. count): the same values for any thread count, worker count and split of the rows. A
// collective: every worker calls it. fn must be thread-safe.
template <typename Fn>
std::vector<double> SumRowsAcrossWorkers(Communicator* comm, int64_t n, int count, int nthread,
                                         Fn fn) {
  const int64_t blocks = (n + kSumBlockRows - 1) / kSumBlockRows;
  std::vector<ExactFloatSum> partial(blocks * count);
#pragma omp parallel for schedule(static) num_threads(nthread)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t end = std::min(n, (b + 1) * kSumBlockRows);
    for (int64_t i = b * kSumBlockRows; i < end; ++i) fn(i, &partial[b * count]);
  }
  std::vector<ExactFloatSum> total(count);
  for (int64_t b = 0; b < blocks; ++b) {
    for (int k = 0; k < count; ++k) total[k].Merge(partial[b * count + k]);
  }
  AllreduceExactSums(comm, total.data(), count);
  std::vector<double> out(count);
  for (int k = 0; k < count; ++k) out[k] = total[k].Value();
  return out;
}

// The exact {sum of fn(i).first, sum of fn(i).second} (a pair of floats a row), as above.
template <typename Fn>
std::array<double, 2> SumRowsAcrossWorkers(Communicator* comm, int64_t n, int nthread, Fn fn) {
  const std::vector<double> sums =
      SumRowsAcrossWorkers(comm, n, 2, nthread, [&](int64_t i, ExactFloatSum* s) {
        const auto v = fn(i);
        s[0].Add(v.first);
        s[1].Add(v.second);
      });
  return {sums[0], sums[1]};
}

}  // namespace ringboost::rabit
