#include "metric/metric_reduce.h"

namespace ringboost::metric_detail {

void AllreduceSum(rabit::Communicator* comm, Span<double> values) {
  if (IsDistributed(comm)) comm->Allreduce(values, rabit::Op::kSum);
}

bool AnyWorker(rabit::Communicator* comm, bool flag) {
  if (!IsDistributed(comm)) return flag;
  return comm->AllreduceValue<int32_t>(flag ? 1 : 0, rabit::Op::kMax) != 0;
}

}  // namespace ringboost::metric_detail
