#include "metric/metric_reduce.h"

#include <cstring>

namespace ringboost::metric_detail {

void AllreduceSum(rabit::Communicator* comm, Span<double> values) {
  if (IsDistributed(comm)) comm->Allreduce(values, rabit::Op::kSum);
}

bool AnyWorker(rabit::Communicator* comm, bool flag) {
  if (!IsDistributed(comm)) return flag;
  return comm->AllreduceValue<int32_t>(flag ? 1 : 0, rabit::Op::kMax) != 0;
}

std::vector<float> AllgatherFloats(rabit::Communicator* comm, const std::vector<float>& local) {
  if (!IsDistributed(comm)) return local;
  std::vector<char> bytes;
  ThrowIfError(comm->AllgathervRaw(local.data(), local.size() * sizeof(float), &bytes));
  RB_CHECK(bytes.size() % sizeof(float) == 0);
  std::vector<float> all(bytes.size() / sizeof(float));
  if (!all.empty()) std::memcpy(all.data(), bytes.data(), bytes.size());
  return all;
}

}  // namespace ringboost::metric_detail
