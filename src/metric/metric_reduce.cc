#include "metric/metric_reduce.h"

#include <algorithm>

namespace ringboost::metric_detail {

void AllreduceSum(rabit::Communicator* comm, Span<double> values) {
  if (IsDistributed(comm)) comm->Allreduce(values, rabit::Op::kSum);
}

bool AnyWorker(rabit::Communicator* comm, bool flag) {
  if (!IsDistributed(comm)) return flag;
  return comm->AllreduceValue<int32_t>(flag ? 1 : 0, rabit::Op::kMax) != 0;
}

void GatherRows(const std::vector<float>& preds, int k, const DataSet& data,
                rabit::Communicator* comm, std::vector<float>* labels, std::vector<float>* weights,
                std::vector<float>* all_preds) {
  const size_t stride = 2 + k;
  std::vector<float> packed(data.NumRows() * stride);
  for (size_t i = 0; i < data.NumRows(); ++i) {
    packed[i * stride] = data.label[i];
    packed[i * stride + 1] = data.Weight(i);
    std::copy_n(&preds[i * k], k, &packed[i * stride + 2]);
  }
  const std::vector<float> all = AllgatherValues(comm, packed);
  const size_t rows = all.size() / stride;
  labels->resize(rows);
  weights->resize(rows);
  all_preds->resize(rows * k);
  for (size_t i = 0; i < rows; ++i) {
    (*labels)[i] = all[i * stride];
    (*weights)[i] = all[i * stride + 1];
    std::copy_n(&all[i * stride + 2], k, &(*all_preds)[i * k]);
  }
}

}  // namespace ringboost::metric_detail
