#include "learner/learner.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "common/error.h"
#include "common/logging.h"
#include "common/memory.h"
#include "common/random.h"
#include "common/threads.h"
#include "learner/feature_types.h"
#include "learner/prediction_output.h"
#include "learner/run_identity.h"
#include "tree/split_math.h"
#include "tree/trainer.h"

namespace ringboost {
namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// A model to continue from whose trees split a feature by category stays categorical on it: this
// run must take the feature as categorical too, or its new trees would split the codes as
// numbers (XGBoost 3.4 trains so and then cannot dump the model).
void CheckCategoricalAsTrained(const Model& model, const std::vector<uint8_t>& is_cat) {
  for (std::size_t t = 0; t < model.trees.size(); ++t) {
    for (const TreeNode& node : model.trees[t].nodes()) {
      if (node.IsLeaf() || !node.is_cat || node.feature >= is_cat.size() || is_cat[node.feature]) {
        continue;
      }
      const std::string name = node.feature < model.feature_names.size()
                                   ? " ('" + model.feature_names[node.feature] + "')"
                                   : std::string();
      RB_FAIL("the model to continue from (model_in) splits feature "
              << node.feature << name << " by category (tree " << t
              << "), but this run takes it as numerical; mark it categorical as it was trained "
                 "(feature_types, an fmap's type c, or the CSV URI's categorical_column)");
    }
  }
}

}  // namespace

Learner::Learner(const Params& params, rabit::Communicator* comm)
    : params_(params), comm_(comm), nthread_(ResolveThreads(params.nthread)) {
  objective_ = Objective::Create(params_);
  std::vector<std::string> names;
  // A name given twice is evaluated once, in its first place, as XGBoost's learner keeps it.
  for (const std::string& name : params_.eval_metric) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  if (names.empty()) names.push_back(objective_->DefaultMetric());
  for (const std::string& name : names) metrics_.push_back(Metric::Create(name, params_));
  // The objective's default unless the user set one (count:poisson boxes its weights by 0.7).
  tree_params_ = TreeParams::From(params_, params_.IsSet("max_delta_step")
                                               ? static_cast<float>(params_.max_delta_step)
                                               : objective_->DefaultMaxDeltaStep());
}

Learner::~Learner() = default;

void Learner::EstimateBaseScore(const DataSet& train) {
  const std::vector<float> estimate = objective_->EstimateBaseScore(train, comm_);
  if (estimate.empty()) return;
  RB_CHECK(static_cast<int>(estimate.size()) == model_.num_groups);
  for (float v : estimate) {
    if (!std::isfinite(v)) {
      RB_FAIL("objective=" << objective_->Name() << ": base_score cannot be estimated from the "
                           << "training labels (their total weight is 0, or a label is "
                           << "infinite); set base_score");
    }
  }
  model_.base_score = estimate[0];
  model_.base_margin = objective_->ProbToMargin(estimate[0]);
  if (estimate.size() > 1) {
    for (float v : estimate) model_.base_margins.push_back(objective_->ProbToMargin(v));
  }
}

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
    if (model_.objective != objective_->Name()) {  // the user's mistake, not an invariant
      RB_FAIL("the model to continue from (model_in or a checkpoint) was trained with objective="
              << model_.objective << ", not objective=" << objective_->Name()
              << "; set objective=" << model_.objective << " or start without it");
    }
    if (model_.num_groups != objective_->NumGroups()) {  // num_class, or quantile_alpha's count
      const bool quantiles = model_.objective == "reg:quantileerror";
      const std::string key = quantiles ? "quantile_alpha" : "num_class";
      const std::string what = quantiles ? " quantiles" : " classes";
      RB_FAIL("the model to continue from (model_in or a checkpoint) has "
              << model_.num_groups << what << ", this run's " << key << " makes "
              << objective_->NumGroups() << "; set " << key << " as it was trained or start "
              << "without it");
    }
    // As XGBoost: a base_score given with a model to continue from replaces the model's (its
    // trees' margins then start from the new one); one not given keeps the model's.
    if (params_.IsSet("base_score") &&
        static_cast<float>(params_.base_score) != model_.base_score) {
      RB_LOG(kInfo, "base_score=" << params_.base_score << " replaces the model's "
                                  << model_.base_score << " (model_in)");
      model_.base_score = static_cast<float>(params_.base_score);
      model_.base_margin = objective_->ProbToMargin(model_.base_score);
      model_.base_margins.clear();  // one base for every output, as a new model's
    }
  } else {
    model_ = Model();
    model_.objective = objective_->Name();
    model_.base_score = static_cast<float>(params_.base_score);
    model_.base_margin = objective_->ProbToMargin(model_.base_score);
    model_.num_groups = objective_->NumGroups();
    if (!params_.IsSet("base_score")) EstimateBaseScore(train);
    model_.num_class = params_.num_class;
  }
  model_.num_feature = std::max(model_.num_feature, num_col);
  if (!model_.feature_names.empty() && model_.feature_names.size() != model_.num_feature) {
    RB_LOG(kWarning, "model_in names " << model_.feature_names.size() << " features but the data "
                                       << "has " << model_.num_feature
                                       << ": the names are not kept (give fmap= to name them all)");
    model_.feature_names.clear();
  }
  if (!params_.fmap.empty()) {  // its names name the features in dumps, scores and exports
    const FeatureMap fmap = FeatureMap::Load(params_.fmap);
    if (fmap.names.size() >= model_.num_feature) {
      model_.feature_names.assign(fmap.names.begin(), fmap.names.begin() + model_.num_feature);
    } else {
      RB_LOG(kWarning, "fmap=" << params_.fmap << " names " << fmap.names.size() << " of the "
                               << model_.num_feature
                               << " features: its names are not recorded in the model");
    }
  }
  model_.config = ObjectiveConfig(params_);
  const int groups = model_.num_groups;
  auto init_margins = [&](const DataSet& d) {
    if (model_.trees.empty()) {
      return model_.InitialMargins(d.NumRows());
    }
    return PredictMargin(model_, d, 0, nthread_);
  };
  // Per training row and output group: its margin, gradient pair and quantized gradient pair.
  const uint64_t per_group = sizeof(float) + 8 + 16;
  CheckAllocation(MulSat(MulSat(train.NumRows(), static_cast<uint64_t>(groups)), per_group),
                  "the training state",
                  std::to_string(train.NumRows()) + " rows x " + std::to_string(groups) +
                      " output groups x " + std::to_string(per_group) +
                      " bytes of margin and gradients",
                  "lower num_class, or use fewer rows a worker (more workers)");
  // Margins of the starting model first: its trees read the data's feature ids.
  train_.margins = init_margins(train);
  std::vector<uint8_t> is_cat = CategoricalFeatures(params_, train, num_col);
  if (init != nullptr) CheckCategoricalAsTrained(model_, is_cat);
  TreeConstraints constraints = ResolveConstraints(num_col);
  columns_ = ColumnMap::Agree(train, num_col, comm_);
  if (columns_.active()) {
    columns_.Renumber(&train);
    num_col = columns_.NumColumns();
    std::vector<uint8_t> by_column(num_col);
    for (uint32_t c = 0; c < num_col; ++c) by_column[c] = is_cat[columns_.IdOf(c)];
    is_cat = std::move(by_column);
    constraints = constraints.Select(columns_.ids());
  }
  // The eval sets take their prediction layout before the cuts, so that their CSR (larger than
  // the dense rows that replace it where DenseRows pays) is gone at the peak of the setup, while
  // the training values, the cuts' workspace and then the binned matrix are all resident.
  evals_.clear();
  for (auto& e : evals) {
    CheckEvalFeatureCount(e.first, e.second.name,
                          comm_->AllreduceValue<uint64_t>(e.second.num_col, rabit::Op::kMax),
                          model_.num_feature);
    CachedSet set;
    set.name = e.first;
    set.margins = init_margins(e.second);
    if (columns_.active()) columns_.Renumber(&e.second);
    if (DenseRows::Pays(e.second, e.second.num_col)) {
      set.dense = DenseRows::Take(&e.second, e.second.num_col, nthread_);
    }
    set.data = std::move(e.second);
    evals_.push_back(std::move(set));
  }
  evals.clear();
  auto start = std::chrono::steady_clock::now();
  cuts_ = ComputeCuts(train, num_col, params_.max_bin, comm_, nthread_);
  ApplyCategories(train, is_cat, comm_, &cuts_);
  times.cuts_s = Seconds(start);
  // The eval sets' dense rows as codes against the cuts, which every tree of this training splits
  // on (half the bytes each round's walk reads), made before the binned matrix's peak.
  // The others (sparse rows) by feature, coded the same way, so that a round reads the split
  // features' entries rather than all of them.
  if (CodedRows::Serves(cuts_)) {
    for (CachedSet& set : evals_) {
      if (set.dense.values.empty()) {
        set.columns = CodedColumns::Take(&set.data, cuts_, nthread_);
        continue;
      }
      set.coded = CodedRows::From(set.dense, cuts_, nthread_);
      set.dense = DenseRows();
    }
  }
  ReturnFreedMemory();  // the cuts' per-thread workspace
  start = std::chrono::steady_clock::now();
  // device=cuda unpacks the bundles into its sparse rows (gpu_hist/matrix.h): only bundles that
  // may hold conflicts (max_conflict_rate > 0) change what it trains on, so only those are made.
  const bool bundles_matter = params_.device == "cpu" || params_.max_conflict_rate > 0;
  const FeatureBundles bundles = DecideBundles(
      train, cuts_,
      BundleOptions{bundles_matter ? params_.enable_bundle : "false", params_.max_conflict_rate},
      comm_, nthread_);
  RB_LOG(kDebug, "feature bundles decided in " << Seconds(start) << " s");
  if (!bundles.Empty()) {
    RB_LOG(kInfo, "feature bundles: " << bundles.members.size() << " columns for "
                                      << cuts_.NumFeatures() << " features ("
                                      << bundles.NumBundled() << " in bundles of 2 or more)");
  }
  // Training's own margins route a conflicting row as the bundles read it (its other members
  // missing), a model's predictions from all its values: a run that starts from a model's
  // predictions cannot be an uninterrupted run's continuation.
  if (params_.max_conflict_rate > 0 && bundles.NumBundled() > 0 &&
      (init != nullptr || !params_.checkpoint_dir.empty()) && comm_->Rank() == 0) {
    RB_LOG(kWarning,
           "max_conflict_rate=" << params_.max_conflict_rate
                                << " bundles features that may meet in a row: "
                                   "training reads a conflicting row's other members as "
                                   "missing, a model predicts from all its values, so a "
                                   "run that starts from a model (model_in, a checkpoint, "
                                   "or recovery after a lost worker) grows other trees "
                                   "than an uninterrupted run; max_conflict_rate=0 "
                                   "keeps them equal");
  }
  matrix_ = std::make_unique<BinnedMatrix>(BinnedMatrix::Build(
      train, cuts_, nthread_, &bundles,
      RoundTrainer::ReadsSparseColumns(params_.device, cuts_, comm_->WorldSize())));
  times.binning_s = Seconds(start);
  train_.name = "train";
  // The binned matrix replaces the training values from here on; keep labels, weights, groups.
  std::vector<uint32_t>().swap(train.index);
  std::vector<float>().swap(train.value);
  train_.data = std::move(train);
  matrix_->BuildColumns(nthread_);
  // The trainer keeps the training margins; the learner keeps a copy only for eval_train.
  std::vector<float> margins = params_.eval_train ? train_.margins : std::move(train_.margins);
  trainer_ = RoundTrainer::Create(
      params_.device, TrainerSetup{*matrix_, cuts_, tree_params_, comm_, nthread_, train_.data,
                                   groups, std::move(margins), std::move(constraints)});
  return times;
}

TreeConstraints Learner::ResolveConstraints(uint32_t num_col) const {
  if (params_.monotone_constraints.empty() && params_.interaction_constraints.empty()) return {};
  FeatureMap fmap;
  if (!params_.fmap.empty()) fmap = FeatureMap::Load(params_.fmap);
  return TreeConstraints::From(params_, num_col, params_.fmap.empty() ? nullptr : &fmap);
}

void Learner::UpdateOneRound() {
  const int round = model_.num_rounds;
  std::vector<RegTree> trees = trainer_->BoostOneRound(*objective_, train_.data, round);
  for (int k = 0; k < static_cast<int>(trees.size()); ++k) {
    const auto start = PhaseTimer::Clock::now();
    AddTreeToEvalCaches(trees[k], k);
    timer_.Add("eval predictions", start);
    columns_.RestoreIds(&trees[k]);
    model_.trees.push_back(std::move(trees[k]));
    model_.tree_group.push_back(k);
  }
  if (params_.eval_train) train_.margins = trainer_->Margins();
  model_.num_rounds = round + 1;
}

double Learner::LastRoundDeviceSeconds() const { return trainer_->LastRoundSeconds(); }

void Learner::AddTreeToEvalCaches(const RegTree& tree, int group) {
  for (CachedSet& set : evals_) {
    if (!set.coded.codes.empty()) {
      RB_CHECK_MSG(AddTreeMargins({&tree}, {group}, set.coded, cuts_, model_.num_groups,
                                  set.margins.data(), nthread_),
                   "a tree that does not split on the training cuts");
    } else if (!set.columns.ptr.empty()) {
      RB_CHECK_MSG(AddTreeMargins({&tree}, {group}, set.columns, cuts_, model_.num_groups,
                                  set.margins.data(), nthread_),
                   "a tree that does not split on the training cuts");
    } else if (!set.dense.values.empty()) {
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
    eval_preds_.assign(set.margins.begin(), set.margins.end());
    objective_->EvalTransform(&eval_preds_);
    for (const auto& m : metrics_) {
      out.emplace_back(set.name + "-" + m->Name(),
                       m->Eval(eval_preds_, model_.num_groups, set.data, comm_));
    }
  };
  for (const CachedSet& set : evals_) eval_set(set);
  if (params_.eval_train) eval_set(train_);
  timer_.Add("metrics", start);
  return out;
}

std::string Learner::PhaseReport() const {
  return PhaseTimer::Join(timer_.Report(), trainer_ ? trainer_->PhaseReport() : "");
}

std::size_t Learner::EarlyStoppingIndex() const {
  const std::size_t sets = evals_.empty() ? 1 : evals_.size();
  return sets * metrics_.size() - 1;
}

bool Learner::LastMetricMaximize() const { return metrics_.back()->Maximize(); }

}  // namespace ringboost
