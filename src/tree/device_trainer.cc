#include "tree/device_trainer.h"

#include <cstdlib>

#include "common/error.h"

#ifdef RINGBOOST_USE_CUDA
#include "tree/device_common.h"
#include "tree/device_grower.h"
#include "tree/device_matrix.h"
#include "tree/device_predict.h"
#endif

namespace ringboost {
namespace {

// The worker's rank among the processes on its machine, from the launcher's environment.
int LocalRank() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "LOCAL_RANK"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return std::atoi(value);
  }
  return 0;
}

}  // namespace

#ifndef RINGBOOST_USE_CUDA

int OpenDevice(const std::string& device) {
  (void)LocalRank;
  RB_FAIL("device=" << device
                    << ": this ringboost was built without CUDA (rebuild with "
                       "-DRINGBOOST_USE_CUDA=ON where nvcc is installed, or use device=cpu)");
}

std::unique_ptr<DeviceTrainer> DeviceTrainer::Create(const std::string& device, const BinnedMatrix&,
                                                     const HistogramCuts&, const Params&,
                                                     const SplitParams&, rabit::Communicator*,
                                                     int) {
  OpenDevice(device);
  return nullptr;
}

std::vector<float> PredictMarginOnDevice(const std::string& device, const Model&, const DataSet&,
                                         int) {
  OpenDevice(device);
  return {};
}

#else

int OpenDevice(const std::string& device) {
  std::string reason;
  const int count = DeviceCount(&reason);
  if (count == 0) RB_FAIL("device=" << device << ": no CUDA device: " << reason);
  int ordinal = LocalRank() % count;
  if (device != "cuda") {
    ordinal = std::atoi(device.c_str() + 5);  // "cuda:N", checked by the parameter table
    if (ordinal >= count) {
      RB_FAIL("device=" << device << ": there are " << count << " CUDA device(s), 0 to "
                        << count - 1);
    }
  }
  SetDevice(ordinal);
  return ordinal;
}

namespace {

class CudaTrainer : public DeviceTrainer {
 public:
  CudaTrainer(const BinnedMatrix& matrix, const HistogramCuts& cuts, const Params& params,
              const SplitParams& split_params, rabit::Communicator* comm, int nthread)
      : matrix_(DeviceMatrix::Create(matrix, cuts, nthread)),
        grower_(&matrix_, &cuts, params, split_params, comm) {}

  RegTree Grow(const std::vector<GradientSum>& gpair, const GradientQuantizer& quantizer,
               uint64_t tree_key) override {
    return grower_.Grow(gpair, quantizer, tree_key);
  }
  void UpdatePredictions(const RegTree& tree, std::vector<float>* margins, int stride,
                         int group) override {
    d_margins_.CopyFrom(*margins);
    grower_.UpdatePredictions(tree, d_margins_.data(), stride, group);
    *margins = d_margins_.ToHost();
  }

 private:
  DeviceMatrix matrix_;
  DeviceTreeGrower grower_;
  DeviceBuffer<float> d_margins_;
};

}  // namespace

std::unique_ptr<DeviceTrainer> DeviceTrainer::Create(
    const std::string& device, const BinnedMatrix& matrix, const HistogramCuts& cuts,
    const Params& params, const SplitParams& split_params, rabit::Communicator* comm, int nthread) {
  OpenDevice(device);
  return std::make_unique<CudaTrainer>(matrix, cuts, params, split_params, comm, nthread);
}

std::vector<float> PredictMarginOnDevice(const std::string& device, const Model& model,
                                         const DataSet& data, int num_rounds) {
  OpenDevice(device);
  return PredictMarginOnDevice(model, data, num_rounds);
}

#endif  // RINGBOOST_USE_CUDA

}  // namespace ringboost
