#include "learner/learner.h"

#include <chrono>
#include <cmath>

#include "common/error.h"
#include "common/random.h"
#include "common/threads.h"
#include "tree/gpu_hist/trainer.h"
#include "tree/gradient.h"
#include "tree/hist/grower.h"
#include "tree/split_math.h"

namespace ringboost {
namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// count:poisson boxes its weights by 0.7 unless the user set max_delta_step (XGBoost).
float EffectiveMaxDeltaStep(const Params& p) {
  if (p.objective == "count:poisson" && !p.IsSet("max_delta_step")) return 0.7f;
  return static_cast<float>(p.max_delta_step);
}

}  // namespace

Learner::Learner(const Params& params, rabit::Communicator* comm)
    : params_(params), comm_(comm), nthread_(ResolveThreads(params.nthread)) {
  objective_ = Objective::Create(params_);
  std::vector<std::string> names = params_.eval_metric;
  if (names.empty()) names.push_back(objective_->DefaultMetric());
  for (const std::string& name : names) metrics_.push_back(Metric::Create(name, params_));
  max_delta_step_ = EffectiveMaxDeltaStep(params_);
}

Learner::~Learner() = default;

SetupTimes Learner::Setup(DataSet train, std::vector<std::pair<std::string, DataSet>> evals,
                          const Model* init) {
  SetupTimes times;
  // Global ids of this worker's first row and query group: exclusive scans of the counts (random
  // draws are keyed by them, so they do not depend on how rows are spread).
  {
    std::vector<uint64_t> counts(2 * comm_->WorldSize());
    uint64_t mine[2] = {train.NumRows(), train.group_ptr.empty() ? 0 : train.group_ptr.size() - 1};
    ThrowIfError(comm_->AllgatherRaw(mine, sizeof(mine), counts.data()));
    train.first_row = train.first_group = 0;
    for (int r = 0; r < comm_->Rank(); ++r) {
      train.first_row += counts[2 * r];
      train.first_group += counts[2 * r + 1];
    }
  }
  objective_->Prepare(train, comm_);
  uint32_t num_col =
      static_cast<uint32_t>(comm_->AllreduceValue<uint64_t>(train.num_col, rabit::Op::kMax));
  if (init != nullptr) {
    model_ = *init;
    RB_CHECK_MSG(model_.objective == objective_->Name(),
                 "model_in was trained with objective=" << model_.objective << ", not "
                                                        << objective_->Name());
  } else {
    model_ = Model();
    model_.objective = objective_->Name();
    model_.base_score = static_cast<float>(params_.base_score);
    model_.base_margin = objective_->ProbToMargin(model_.base_score);
    model_.num_groups = objective_->NumGroups();
    model_.num_class = params_.num_class;
  }
  model_.num_feature = std::max(model_.num_feature, num_col);
  auto start = std::chrono::steady_clock::now();
  cuts_ = ComputeCuts(train, num_col, params_.max_bin, comm_, nthread_);
  times.cuts_s = Seconds(start);
  start = std::chrono::steady_clock::now();
  matrix_ = std::make_unique<BinnedMatrix>(BinnedMatrix::Build(train, cuts_, nthread_));
  times.binning_s = Seconds(start);
  const int groups = model_.num_groups;
  auto init_margins = [&](const DataSet& d) {
    if (model_.trees.empty()) {
      return std::vector<float>(d.NumRows() * groups, model_.base_margin);
    }
    return PredictMargin(model_, d, 0, nthread_);
  };
  train_.name = "train";
  train_.margins = init_margins(train);
  // The binned matrix replaces the training values from here on; keep labels, weights, groups.
  std::vector<uint32_t>().swap(train.index);
  std::vector<float>().swap(train.value);
  train_.data = std::move(train);
  matrix_->BuildColumns(nthread_);
  evals_.clear();
  for (auto& e : evals) {
    CachedSet set;
    set.name = e.first;
    set.margins = init_margins(e.second);
    if (DenseRows::Pays(e.second, e.second.num_col)) {
      set.dense = DenseRows::From(e.second, e.second.num_col, nthread_);
      std::vector<uint32_t>().swap(e.second.index);
      std::vector<float>().swap(e.second.value);
    }
    set.data = std::move(e.second);
    evals_.push_back(std::move(set));
  }
  const SplitParams split_params = SplitParams::From(params_, max_delta_step_);
  if (params_.device == "cpu") {
    grower_ =
        std::make_unique<TreeGrower>(matrix_.get(), &cuts_, params_, split_params, comm_, nthread_);
  } else {
    device_ = DeviceTrainer::Create(params_.device, *matrix_, cuts_, params_, split_params, comm_,
                                    nthread_, train_.data, groups, train_.margins);
  }
  return times;
}

void Learner::UpdateOneRound() {
  if (device_ != nullptr) return UpdateOneRoundOnDevice();
  const int round = model_.num_rounds;
  const int groups = model_.num_groups;
  auto start = PhaseTimer::Clock::now();
  objective_->GetGradient(train_.data, train_.margins, round, &gpair_);
  timer_.Add("gradients", start);
  RB_CHECK(gpair_.size() == train_.data.NumRows() * groups);
  std::vector<uint8_t> keep;
  if (params_.subsample < 1.0) {
    keep.resize(train_.data.NumRows());
    const uint64_t first = train_.data.first_row;
    for (uint64_t i = 0; i < keep.size(); ++i) {
      keep[i] = CounterUniform(params_.seed, static_cast<uint64_t>(RandomStream::kRowSubsample),
                               static_cast<uint64_t>(round), first + i) < params_.subsample;
    }
  }
  for (int k = 0; k < groups; ++k) {
    start = PhaseTimer::Clock::now();
    GradientQuantizer quantizer(gpair_, groups, k, comm_, nthread_);
    quantizer.QuantizeAll(gpair_, groups, k, keep, nthread_, &qgrad_);
    timer_.Add("quantize", start);
    const uint64_t tree_key = static_cast<uint64_t>(round) * groups + k;
    RegTree tree = grower_->Grow(qgrad_, quantizer, tree_key);
    grower_->UpdatePredictions(tree, &train_.margins, groups, k);
    start = PhaseTimer::Clock::now();
    AddTreeToEvalCaches(tree, k);
    timer_.Add("eval predictions", start);
    model_.trees.push_back(std::move(tree));
    model_.tree_group.push_back(k);
  }
  model_.num_rounds = round + 1;
}

// The device keeps the training margins; the host copy is refreshed only for eval_train's metrics.
void Learner::UpdateOneRoundOnDevice() {
  const int round = model_.num_rounds;
  std::vector<RegTree> trees = device_->BoostOneRound(*objective_, train_.data, round);
  for (int k = 0; k < static_cast<int>(trees.size()); ++k) {
    const auto start = PhaseTimer::Clock::now();
    AddTreeToEvalCaches(trees[k], k);
    timer_.Add("eval predictions", start);
    model_.trees.push_back(std::move(trees[k]));
    model_.tree_group.push_back(k);
  }
  if (params_.eval_train) train_.margins = device_->Margins();
  model_.num_rounds = round + 1;
}

double Learner::LastRoundDeviceSeconds() const {
  return device_ != nullptr ? device_->LastRoundSeconds() : -1.0;
}

void Learner::AddTreeToEvalCaches(const RegTree& tree, int group) {
  for (CachedSet& set : evals_) {
    if (!set.dense.values.empty()) {
      AddTreeMargins({&tree}, {group}, set.dense, model_.num_groups, set.margins.data(), nthread_);
    } else {
      AddTreeMargins({&tree}, {group}, set.data.num_col, set.data, model_.num_groups,
                     set.margins.data(), nthread_);
    }
  }
}

std::vector<std::pair<std::string, double>> Learner::EvalOneRound() const {
  const auto start = PhaseTimer::Clock::now();
  std::vector<std::pair<std::string, double>> out;
  auto eval_set = [&](const CachedSet& set) {
    std::vector<float> preds = set.margins;
    objective_->EvalTransform(&preds);
    for (const auto& m : metrics_) {
      out.emplace_back(set.name + "-" + m->Name(),
                       m->Eval(preds, model_.num_groups, set.data, comm_));
    }
  };
  for (const CachedSet& set : evals_) eval_set(set);
  if (params_.eval_train) eval_set(train_);
  timer_.Add("metrics", start);
  return out;
}

std::string Learner::PhaseReport() const {
  const std::string grower = grower_   ? grower_->timer().Report()
                             : device_ ? device_->PhaseReport()
                                       : "";
  return PhaseTimer::Join(timer_.Report(), grower);
}

std::size_t Learner::EarlyStoppingIndex() const {
  const std::size_t sets = evals_.empty() ? 1 : evals_.size();
  return sets * metrics_.size() - 1;
}

bool Learner::LastMetricMaximize() const { return metrics_.back()->Maximize(); }

}  // namespace ringboost
