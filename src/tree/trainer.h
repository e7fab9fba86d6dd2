// One boosting round on a device (DESIGN.md "One boosting round", steps 5-9): gradients in, one
// tree per output group and their margin updates out. HistTrainer (hist/trainer.h) does it on
// the CPU, CudaTrainer (gpu_hist/trainer.h) on a GPU; RoundTrainer::Create (trainer.cc, which
// sits above the two methods) is the one place that picks between them by `device`, as
// PredictMargin(device, ...) (predict.h) is for prediction.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "data/data.h"
#include "model/model.h"
#include "model/tree.h"
#include "objective/objective.h"
#include "rabit/communicator.h"
#include "tree/bins/binned_matrix.h"
#include "tree/bins/quantile.h"
#include "tree/constraints.h"
#include "tree/tree_params.h"

namespace ringboost {

// What a trainer is built from. The references must outlive it.
struct TrainerSetup {
  const BinnedMatrix& matrix;  // the training rows' bins under `cuts`
  const HistogramCuts& cuts;
  TreeParams params;
  rabit::Communicator* comm;
  int nthread;
  const DataSet& train;         // labels, weights, groups (its values may be dropped)
  int groups;                   // trees a round (output groups)
  std::vector<float> margins;   // the training rows' margins, rows x groups
  TreeConstraints constraints;  // over the training columns
};

class RoundTrainer {
 public:
  virtual ~RoundTrainer() = default;
  // device "cpu": HistTrainer; "cuda", "cuda:N": CudaTrainer on that GPU. Throws Error naming the
  // device where it cannot be had (no CUDA in the build, no device, N out of range).
  static std::unique_ptr<RoundTrainer> Create(const std::string& device, TrainerSetup setup);
  // Fails as Create would for `device`, before any data is read; does nothing for "cpu".
  static void CheckDevice(const std::string& device);
  // Whether `device` reads a sparse training matrix under `cuts` by column, on `world_size`
  // workers: then the learner builds it so (BinnedMatrix::Build's by_column).
  static bool ReadsSparseColumns(const std::string& device, const HistogramCuts& cuts,
                                 int world_size);

  // Round `round`'s trees, one per output group, each grown from the gradients of the margins
  // and then added to them. Throws what the objective would for a refused label.
  virtual std::vector<RegTree> BoostOneRound(const Objective& objective, const DataSet& train,
                                             int round) = 0;
  // The training margins (rows x groups) after the last round, as a host copy.
  virtual std::vector<float> Margins() const = 0;
  // "phase seconds, ..." of the work so far (Learner::PhaseReport).
  virtual std::string PhaseReport() const = 0;
  // Seconds of the last round between device events; -1 where there are none (the CPU).
  virtual double LastRoundSeconds() const = 0;
};

}  // namespace ringboost
