// The one way metrics combine workers (DESIGN.md step 10), and deterministic local sums.
//  * Sums of elementwise losses and weights (floats, one pair a row) are exact
//    (SumRowsAcrossWorkers of rabit/exact_sum.h), so the value is the same for any split of the
//    rows over workers and threads.
//  * Ranking scores (ndcg, map, pre, and the AUC of grouped data) are allgathered per query group
//    and summed in group order, the order one process sums them in, so the value equals the
//    single-process one to the last bit. Data without groups is one group, whose rows (like
//    AUC's) are allgathered first.
//  * AUC/aucpr need every row at once to be exact: the rows are allgathered in rank order, which
//    is the order of the whole data, so the value equals the single-process one.
// A null communicator or a world of one makes every collective an identity.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/span.h"
#include "data/data.h"
#include "rabit/communicator.h"
#include "rabit/exact_sum.h"

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

// Every worker's rows in rank order: their labels, weights (1 where the data has none) and the
// `k` predictions a row (one collective). A copy of the local rows in a world of one.
void GatherRows(const std::vector<float>& preds, int k, const DataSet& data,
                rabit::Communicator* comm, std::vector<float>* labels, std::vector<float>* weights,
                std::vector<float>* all_preds);

// The exact sums of floats (rabit/exact_sum.h), by the names the metrics use.
using rabit::AllreduceExactSums;
using rabit::ExactFloatSum;
using rabit::SumRowsAcrossWorkers;

}  // namespace ringboost::metric_detail
