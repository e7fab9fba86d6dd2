// The boosting loop (DESIGN.md "One boosting round"): owns the training and eval data, the cuts
// and binned matrix, the cached margins of every data set, and the model being built. Every
// cross-worker agreement goes through the Communicator it is given.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/params.h"
#include "common/timer.h"
#include "data/data.h"
#include "learner/columns.h"
#include "metric/metric.h"
#include "model/model.h"
#include "objective/objective.h"
#include "rabit/communicator.h"
#include "tree/bins/binned_matrix.h"
#include "tree/bins/quantile.h"
#include "tree/constraints.h"
#include "tree/predict.h"
#include "tree/tree_params.h"

namespace ringboost {

struct SetupTimes {
  double cuts_s = 0.0;
  double binning_s = 0.0;
};

class Learner {
 public:
  Learner(const Params& params, rabit::Communicator* comm);
  ~Learner();

  const Objective& objective() const { return *objective_; }
  const Model& model() const { return model_; }
  Model& model() { return model_; }

  // Starts from `init` (model_in) or a fresh model; computes cuts and bins the training data,
  // then drops its values (the binned matrix stands for them; labels, weights, groups stay).
  SetupTimes Setup(DataSet train, std::vector<std::pair<std::string, DataSet>> evals,
                   const Model* init);
  // Grows the trees of one boosting round (one per output group) and updates every cache.
  void UpdateOneRound();
  // Metric values after the last round: ("test-logloss", v), ... in XGBoost's order (eval sets in
  // config order, then train when eval_train), each set with every metric.
  std::vector<std::pair<std::string, double>> EvalOneRound() const;
  // Early stopping watches the last metric of the last eval[NAME] set (of train when there is
  // none): its index in EvalOneRound()'s results, and whether it prefers larger values.
  std::size_t EarlyStoppingIndex() const;
  bool LastMetricMaximize() const;
  // Seconds spent in each phase of the rounds so far ("gradients 1.2 s, histograms 3.4 s, ...").
  std::string PhaseReport() const;
  // device=cuda: seconds of the last round's device work between CUDA events; -1 on the CPU.
  double LastRoundDeviceSeconds() const;

 private:
  struct CachedSet {
    std::string name;
    DataSet data;                // eval sets walked as `dense` or `columns`: labels, weights,
                                 // groups only
    DenseRows dense;             // where it pays (DenseRows::Pays); empty otherwise
    CodedRows coded;             // `dense` coded against the cuts where they allow (then no dense)
    CodedColumns columns;        // else, where the cuts allow codes: the CSR by feature, coded
    std::vector<float> margins;  // rows x groups (train: the trainer's, copied for eval_train)
  };
  void AddTreeToEvalCaches(const RegTree& tree, int group);
  // A fresh model without base_score given: the objective's estimate from the training rows
  // (Objective::EstimateBaseScore), where it has one, becomes base_score (and base_margins for
  // several output groups). Fails naming the fix when the estimate is not finite.
  void EstimateBaseScore(const DataSet& train);
  // monotone_constraints and interaction_constraints over training data of `num_col` features
  // (names from fmap); fails naming the key for a bad value.
  TreeConstraints ResolveConstraints(uint32_t num_col) const;

  Params params_;
  rabit::Communicator* comm_;
  int nthread_;
  std::unique_ptr<Objective> objective_;
  std::vector<std::unique_ptr<Metric>> metrics_;
  Model model_;
  CachedSet train_;
  std::vector<CachedSet> evals_;
  ColumnMap columns_;  // the training columns: the data's feature ids, or renumbered (columns.h)
  HistogramCuts cuts_;
  std::unique_ptr<BinnedMatrix> matrix_;
  std::unique_ptr<class RoundTrainer> trainer_;  // HistTrainer or CudaTrainer, by device
  TreeParams tree_params_;                       // what the trees read of params_, built once
  mutable PhaseTimer timer_;
  // EvalOneRound's transformed predictions, kept from round to round: a set's 800 KB (200k rows)
  // allocated and faulted in each round cost more than the copy.
  mutable std::vector<float> eval_preds_;
};

}  // namespace ringboost
