// Objectives: labels and current margins -> gradient/hessian pairs (DESIGN.md step 5), and the
// transforms from margins to what users see. Predictions are laid out row-major, rows x groups
// (groups = num_class for multiclass, else 1).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/params.h"
#include "data/data.h"
#include "objective/elementwise.h"
#include "objective/grad_pair.h"
#include "rabit/communicator.h"

namespace ringboost {

class Objective {
 public:
  virtual ~Objective() = default;
  virtual std::string Name() const = 0;
  // Output groups per row: num_class for multi:*, else 1.
  virtual int NumGroups() const { return 1; }
  // nullptr when `label` is valid for this objective, else a static description of the rule.
  virtual const char* CheckLabel(float label) const = 0;
  // Called once before training with this worker's training rows (data.first_group set): an
  // objective that needs facts about the other workers' rows gathers them here.
  virtual void Prepare(const DataSet& train, rabit::Communicator* comm) {
    (void)train;
    (void)comm;
  }
  // Fills out (size rows x NumGroups()) from margins `preds` of the same layout. `iter` is the
  // round (rank:* seeds its pair sampling with it).
  virtual void GetGradient(const DataSet& data, const std::vector<float>& preds, int iter,
                           std::vector<GradPair>* out) const = 0;
  // GetGradient that also gives each output group's GradientMaxima (`maxima` resized to
  // NumGroups()) from the same pass over the rows, and returns true. The default does GetGradient
  // alone and returns false: the caller scans the gradients itself.
  virtual bool GetGradientAndMaxima(const DataSet& data, const std::vector<float>& preds, int iter,
                                    std::vector<GradPair>* out,
                                    std::vector<GradientMaxima>* maxima) const {
    (void)maxima;
    GetGradient(data, preds, iter, out);
    return false;
  }
  // Margin -> prediction written by task=pred (probabilities, class ids, counts...).
  virtual void PredTransform(std::vector<float>* preds) const { (void)preds; }
  // Margin -> what metrics read (softmax probabilities for both multi:softmax and softprob).
  virtual void EvalTransform(std::vector<float>* preds) const { PredTransform(preds); }
  // base_score (a prediction) -> the initial margin.
  virtual float ProbToMargin(float base_score) const { return base_score; }
  // The max_delta_step the trees box their leaf weights by when the user sets none (XGBoost's
  // count:poisson has its own, 0.7).
  virtual float DefaultMaxDeltaStep() const { return 0.0f; }
  virtual std::string DefaultMetric() const = 0;
  // True, with *spec filled, when GetGradient writes ElementwiseGradient(*spec, ...) of each row
  // (its NumGroups() margins, label and weight) and rejects the labels ElementwiseLabelOk rejects:
  // a device may then compute the gradients itself, bit for bit. False (the default) otherwise.
  virtual bool Elementwise(ElementwiseSpec* spec) const {
    (void)spec;
    return false;
  }

  // The initial prediction of each output group that XGBoost 3.x estimates from the training
  // rows when base_score is not given, for the objectives where ringboost estimates it too
  // (reg:absoluteerror, reg:quantileerror); empty (the default): base_score as configured. Called
  // after Prepare; a collective (every worker gets the same values).
  virtual std::vector<float> EstimateBaseScore(const DataSet& train,
                                               rabit::Communicator* comm) const {
    (void)train;
    (void)comm;
    return {};
  }
  // Throws Error naming the allowed objectives for an unknown name.
  static std::unique_ptr<Objective> Create(const Params& params);
};

// quantile_alpha (reg:quantileerror, the quantile metric): one quantile in (0, 1) or a list of
// them in ascending order, "0.9", "[0.1,0.5,0.9]" or "0.1,0.5,0.9". Throws Error naming the key
// otherwise.
std::vector<double> ParseQuantileAlphas(const std::string& text);

// The rank:* objectives on several workers: training data without query groups is one group of
// all its rows, whose pairs no worker holds whole, so it needs groups. Throws the same Error on
// every worker otherwise. Collective.
void RequireQueryGroupsAcrossWorkers(const std::string& objective, const DataSet& train,
                                     rabit::Communicator* comm);

}  // namespace ringboost
