// device=cuda / cuda:N (DESIGN.md, GPU): the one place the boosting loop dispatches to the GPU.
// The training margins live on the device; each round's gradients are computed there (on the host
// for objectives that are not element-wise, such as ranking, from the margins fetched back),
// quantized there to GradientQuantizer's integers, and the trees grow on the device
// (DeviceTreeGrower over a DeviceMatrix of the same cuts and bins), so the model is the CPU's.
// Metrics and the eval sets' margins stay on the host. Without CUDA in the build, or without a
// device, Open fails with a message that says which.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/params.h"
#include "model/model.h"
#include "model/tree.h"
#include "objective/objective.h"
#include "rabit/communicator.h"
#include "tree/bins/binned_matrix.h"
#include "tree/bins/quantile.h"
#include "tree/gradient.h"
#include "tree/split_math.h"

namespace ringboost {

// The GPU ordinal `device` names: cuda:N is N; cuda is the worker's local rank (Open MPI's or
// MPICH's local rank variable, else 0) modulo the devices. Throws Error naming the device when
// the build has no CUDA, there is no device, or N is out of range.
int OpenDevice(const std::string& device);

class DeviceTrainer {
 public:
  virtual ~DeviceTrainer() = default;
  // Builds the device matrix, gradients and grower on the GPU `device` names (OpenDevice), with
  // the training rows' labels and weights (`train`) and their margins (rows x `groups`).
  static std::unique_ptr<DeviceTrainer> Create(
      const std::string& device, const BinnedMatrix& matrix, const HistogramCuts& cuts,
      const Params& params, const SplitParams& split_params, rabit::Communicator* comm, int nthread,
      const DataSet& train, int groups, const std::vector<float>& margins);
  // Round `round`'s trees, one per output group, each grown from the gradients of the margins
  // and then added to them. Throws what the objective would for a refused label.
  virtual std::vector<RegTree> BoostOneRound(const Objective& objective, const DataSet& train,
                                             int round) = 0;
  // The training margins (rows x groups), copied back.
  virtual std::vector<float> Margins() const = 0;
  // "phase seconds, ..." of the device work so far (Learner::PhaseReport).
  virtual std::string PhaseReport() const = 0;
  // Seconds of the last round between CUDA events recorded at its start and its end.
  virtual double LastRoundSeconds() const = 0;
};

// PredictMargin on the GPU `device` names.
std::vector<float> PredictMarginOnDevice(const std::string& device, const Model& model,
                                         const DataSet& data, int num_rounds);

}  // namespace ringboost
