// device=cuda / cuda:N (DESIGN.md, GPU): the one place the boosting loop dispatches to the GPU.
// Trees grow on the device (DeviceTreeGrower over a DeviceMatrix built from the same cuts and
// bins); gradients, the objective and the metrics stay on the host, and the training margins go
// to the device and back each round. Without CUDA in the build, or without a device, Open fails
// with a message that says which.
//
// Not yet run on a GPU (none was lent while it was written): the device tests in
// tests/tree/test_device_*.cc and `ringboost train ... device=cuda` against device=cpu are what
// a GPU session checks first.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/params.h"
#include "model/model.h"
#include "model/tree.h"
#include "rabit/communicator.h"
#include "tree/binned_matrix.h"
#include "tree/gradient.h"
#include "tree/quantile.h"
#include "tree/split_math.h"

namespace ringboost {

// The GPU ordinal `device` names: cuda:N is N; cuda is the worker's local rank (Open MPI's or
// MPICH's local rank variable, else 0) modulo the devices. Throws Error naming the device when
// the build has no CUDA, there is no device, or N is out of range.
int OpenDevice(const std::string& device);

class DeviceTrainer {
 public:
  virtual ~DeviceTrainer() = default;
  // Builds the device matrix and grower on the GPU `device` names (OpenDevice).
  static std::unique_ptr<DeviceTrainer> Create(const std::string& device,
                                               const BinnedMatrix& matrix,
                                               const HistogramCuts& cuts, const Params& params,
                                               const SplitParams& split_params,
                                               rabit::Communicator* comm, int nthread);
  virtual RegTree Grow(const std::vector<GradientSum>& gpair, const GradientQuantizer& quantizer,
                       uint64_t tree_key) = 0;
  // Adds the last grown tree's leaf values to margins[row * stride + group].
  virtual void UpdatePredictions(const RegTree& tree, std::vector<float>* margins, int stride,
                                 int group) = 0;
};

// PredictMargin on the GPU `device` names.
std::vector<float> PredictMarginOnDevice(const std::string& device, const Model& model,
                                         const DataSet& data, int num_rounds);

}  // namespace ringboost
