// The parameter table, the lookup of a key and the nearest key to a misspelt one (the parsing of
// one value and its text: params_value.cc). Names, aliases, defaults and bounds are XGBoost
// 1.7's (src/tree/param.h, src/learner.cc, src/cli_main.cc), so an XGBoost CLI config runs
// unchanged; what ringboost does not have is rejected or, for a few CLI keys that mean nothing
// here, accepted with a warning.
#include "common/params_table.h"

#include <algorithm>
#include <limits>

#include "common/constraint_text.h"

namespace ringboost {

namespace {

template <typename T>
ParamSpec P(const char* section, const char* name, T Params::*field, std::string default_text) {
  ParamSpec spec;
  spec.section = section;
  spec.name = name;
  spec.field = field;
  spec.default_text = std::move(default_text);
  return spec;
}

ParamSpec Ignored(const char* name, std::string why) {
  ParamSpec spec;
  spec.section = "Accepted and ignored";
  spec.name = name;
  spec.doc = std::move(why);
  return spec;
}

// booster: say plainly that the other XGBoost boosters do not exist here.
bool CheckBooster(const std::string& value, std::string* error) {
  if (value == "gblinear" || value == "dart") {
    *error = "only gbtree is supported (ringboost has no gblinear or dart booster)";
  }
  return false;
}

// device: cpu, cuda, or cuda:N with N a non-negative integer.
bool CheckDevice(const std::string& value, std::string* error) {
  const std::string prefix = "cuda:";
  if (value.compare(0, prefix.size(), prefix) != 0) return false;
  std::string ordinal = value.substr(prefix.size());
  bool digits =
      !ordinal.empty() && ordinal.size() <= 6 &&
      std::all_of(ordinal.begin(), ordinal.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) *error = "expected cpu, cuda or cuda:N with N a GPU ordinal (0, 1, ...)";
  return digits;
}

// feature_types: XGBoost's type names separated by commas (spaces allowed).
// multi_strategy: XGBoost's multi_output_tree (vector-leaf trees) is refused by name.
bool CheckMultiStrategy(const std::string& value, std::string* error) {
  if (value == "multi_output_tree") {
    *error =
        "multi_output_tree (XGBoost's one tree with a vector leaf for all classes or outputs) is "
        "not available: ringboost grows one tree per class and output, as "
        "multi_strategy=one_output_per_tree (the default)";
  }
  return false;  // else the allowed list decides
}

bool CheckFeatureTypes(const std::string& value, std::string* error) {
  if (value.empty()) return true;
  std::string type;
  for (std::size_t i = 0; i <= value.size(); ++i) {
    if (i < value.size() && value[i] != ',') {
      if (value[i] != ' ') type += value[i];
      continue;
    }
    if (type != "q" && type != "c" && type != "i" && type != "int" && type != "float") {
      *error =
          "expected a comma-separated list of q (quantitative) and c (categorical), e.g. "
          "q,q,c (i, int and float are quantitative too); got '" +
          type + "'";
      return false;
    }
    type.clear();
  }
  return true;
}

std::vector<ParamSpec> BuildTable() {
  std::vector<ParamSpec> t;
  const char* s = "Task";
  t.push_back(P(s, "task", &Params::task, "train")
                  .OneOf({"train", "pred", "dump"})
                  .Doc("What to run: train a model, predict test:data with model_in (pred), or "
                       "dump model_in as text (dump)."));

  s = "Booster";
  t.push_back(P(s, "booster", &Params::booster, "gbtree")
                  .OneOf({"gbtree"})
                  .Check(CheckBooster)
                  .Doc("The booster; ringboost grows gradient-boosted trees only."));
  t.push_back(P(s, "eta", &Params::eta, "0.3")
                  .Alias("learning_rate")
                  .Min(0)
                  .Max(std::numeric_limits<float>::max())  // it scales float leaf weights
                  .Doc("Step size shrinkage: each new tree's leaf weights are multiplied by it."));
  t.push_back(P(s, "gamma", &Params::gamma, "0")
                  .Alias("min_split_loss")
                  .Min(0)
                  .Doc("Minimum loss reduction required to split a node."));
  t.push_back(P(s, "max_depth", &Params::max_depth, "6")
                  .Min(0)
                  .Doc("Maximum depth of a tree; 0 means no limit (then max_leaves must be set)."));
  t.push_back(
      P(s, "min_child_weight", &Params::min_child_weight, "1")
          .Min(0)
          .Doc("Minimum sum of instance weight (hessian) needed in each child of a split."));
  t.push_back(P(s, "max_delta_step", &Params::max_delta_step, "0")
                  .Min(0)
                  .Doc("Largest absolute leaf weight; 0 means no limit (count:poisson uses 0.7 "
                       "unless it is set)."));
  t.push_back(P(s, "subsample", &Params::subsample, "1")
                  .Min(0, /*open=*/true)
                  .Max(1)
                  .Doc("Fraction of the training rows sampled for each tree."));
  t.push_back(P(s, "colsample_bytree", &Params::colsample_bytree, "1")
                  .Min(0, true)
                  .Max(1)
                  .Doc("Fraction of the features sampled for each tree."));
  t.push_back(P(s, "colsample_bylevel", &Params::colsample_bylevel, "1")
                  .Min(0, true)
                  .Max(1)
                  .Doc("Fraction of the tree's features sampled for each depth level."));
  t.push_back(P(s, "colsample_bynode", &Params::colsample_bynode, "1")
                  .Min(0, true)
                  .Max(1)
                  .Doc("Fraction of the level's features sampled for each split."));
  t.push_back(P(s, "lambda", &Params::lambda, "1")
                  .Alias("reg_lambda")
                  .Min(0)
                  .Doc("L2 regularization on leaf weights."));
  t.push_back(P(s, "alpha", &Params::alpha, "0")
                  .Alias("reg_alpha")
                  .Min(0)
                  .Doc("L1 regularization on leaf weights."));
  t.push_back(P(s, "tree_method", &Params::tree_method, "hist")
                  .OneOf({"hist"})
                  .Accept("auto", "hist", "tree_method=auto is taken as hist")
                  .Accept("approx", "hist", "tree_method=approx is taken as hist")
                  .Accept("exact", "hist", "tree_method=exact is taken as hist")
                  .Doc("Split finding method; ringboost has the histogram method only. "
                       "XGBoost 1.x's gpu_hist is taken as hist with device=cuda, and gpu_id=N "
                       "as device=cuda:N, each with a deprecation warning (as XGBoost 2)."));
  t.push_back(P(s, "grow_policy", &Params::grow_policy, "depthwise")
                  .OneOf({"depthwise", "lossguide"})
                  .Doc("depthwise splits level by level; lossguide splits the leaf of highest "
                       "gain first."));
  t.push_back(P(s, "max_leaves", &Params::max_leaves, "0")
                  .Min(0)
                  .Doc("Maximum number of leaves of a tree; 0 means no limit."));
  t.push_back(P(s, "max_bin", &Params::max_bin, "256")
                  .Min(2)
                  .Max(65536)
                  .Doc("Maximum number of histogram bins per feature."));
  t.push_back(
      P(s, "quantized_grad", &Params::quantized_grad, "off")
          .OneOf({"off", "on", "auto"})
          .Doc("Low-bit gradients (LightGBM's quantized training): on finds each tree's splits "
               "from gradients and hessians rounded at random to 4 bits (keyed by seed, round "
               "and row), summed in narrow histogram cells, and refits the leaves from the exact "
               "gradients (under monotone_constraints within the growth's weight boxes); auto is "
               "on from 100,000 training rows; off sums the exact "
               "gradients. device=cuda grows the same trees."));
  t.push_back(
      P(s, "enable_bundle", &Params::enable_bundle, "auto")
          .OneOf({"auto", "true", "false"})
          .Doc("Exclusive feature bundling (LightGBM's EFB) of sparse data: features rarely "
               "present in the same row share one column of bins, so histograms and partitions "
               "do dense work over the bundles; splits, models and dumps stay those of the "
               "features. auto bundles when the bundles leave at most 2 columns per stored "
               "value; true whenever two features can share a column; false never. device=cuda "
               "decides the same bundles where max_conflict_rate > 0 and trains on them unpacked "
               "(its sparse rows hold only the present values), so its trees are the CPU's "
               "(at rate 0 the bundles change no value, and the device makes none)."));
  t.push_back(P(s, "max_conflict_rate", &Params::max_conflict_rate, "0")
                  .Min(0)
                  .Max(0.999)
                  .Doc("Share of the bundling sample's rows in which a bundle's members may be "
                       "present together; 0 bundles only features never present together (the "
                       "same trees as without bundles). In a conflicting row the feature of lowest "
                       "id keeps its value and the others read as missing, in training only: the "
                       "model predicts from every value, so eval_train's metrics are of the "
                       "bundled rows, and a run started from a model (model_in, a checkpoint, "
                       "recovery after a lost worker) grows other trees than an uninterrupted run "
                       "(a warning says so)."));
  t.push_back(
      P(s, "hist_sync", &Params::hist_sync, "auto")
          .OneOf({"allreduce", "reduce_scatter", "auto"})
          .Doc("How workers combine a level's histograms: allreduce gives every worker every "
               "histogram; reduce_scatter (LightGBM's data-parallel learner) gives each worker "
               "the sums of its own block of features, whose splits it evaluates, and the "
               "workers then agree on each node's best split by an allgather, sending about half "
               "the bytes; auto is reduce_scatter from 2 to 32 workers, and beyond where the tcp "
               "backend's cost model says it pays over its halving links (ringboost-submit "
               "--hypercube; docs/collective.md). "
               "The model is the same "
               "either way, on device=cpu and device=cuda alike."));
  t.push_back(P(s, "feature_types", &Params::feature_types, "")
                  .Check(CheckFeatureTypes)
                  .Doc("Type of each feature as XGBoost's feature_types: a comma-separated list "
                       "of q (quantitative) and c (categorical), e.g. q,q,c (i, int and float "
                       "count as q); features past its end are quantitative. A categorical value "
                       "is a non-negative integer code "
                       "below 2^24 (a fraction is truncated); each code from 0 to the largest in "
                       "training has its own bin, so training takes codes up to 65535 (a larger "
                       "one stops it; prediction takes any). Also from an fmap's type c and a CSV "
                       "URI's categorical_column. Continuing a model_in whose trees split a "
                       "feature by category needs that feature categorical again."));
  t.push_back(P(s, "max_cat_to_onehot", &Params::max_cat_to_onehot, "4")
                  .Min(1)
                  .Doc("A categorical feature with fewer categories than this is split one "
                       "category against the rest (one-hot); otherwise by a partition of its "
                       "categories sorted by gradient ratio (XGBoost's)."));
  t.push_back(P(s, "max_cat_threshold", &Params::max_cat_threshold, "64")
                  .Min(1)
                  .Doc("Partition splits of a categorical feature consider at most this many "
                       "categories on one side (XGBoost's)."));
  t.push_back(P(s, "monotone_constraints", &Params::monotone_constraints, "")
                  .Check(CheckMonotoneText)
                  .Doc("Monotone constraints (XGBoost's): (1,0,-1) gives each feature in order 1 "
                       "(predictions never decrease as it grows), -1 (never increase) or 0 (free); "
                       "features past the list are free. Or by name: {\"age\": 1, \"f3\": -1}, "
                       "names from fmap, else f0, f1, .... Each child's weight is boxed by the "
                       "mid-points of its ancestors' constrained splits, and splits that break the "
                       "order are rejected, as XGBoost's hist does. On the CPU and the GPU (the "
                       "same model)."));
  t.push_back(
      P(s, "interaction_constraints", &Params::interaction_constraints, "")
          .Check(CheckInteractionText)
          .Doc("Interaction constraints (XGBoost's): [[0,1],[2,3,4]], feature ids or quoted "
               "names; a node may split on the features of its path and on those of every "
               "set that holds all of them, so no path mixes features of different sets (a "
               "feature in no set splits only with itself below it, and [] puts every feature "
               "in no set, as XGBoost). On the CPU and the GPU (the same model)."));
  t.push_back(P(s, "seed", &Params::seed, "0")
                  .Alias("random_state")
                  .Min(0)
                  .Doc("Seed of the row and column sampling."));

  s = "Objective and metrics";
  t.push_back(
      P(s, "objective", &Params::objective, "reg:squarederror")
          .OneOf({"reg:squarederror", "reg:logistic", "binary:logistic", "binary:logitraw",
                  "multi:softmax", "multi:softprob", "count:poisson", "rank:pairwise", "rank:ndcg",
                  "rank:map", "reg:pseudohubererror", "reg:gamma", "reg:tweedie",
                  "reg:squaredlogerror", "binary:hinge", "reg:absoluteerror", "reg:quantileerror",
                  "survival:cox", "survival:aft"})
          .Accept("reg:linear", "reg:squarederror",
                  "objective=reg:linear is deprecated; using reg:squarederror")
          .Doc("Learning objective; multi:* need num_class. rank:pairwise and rank:ndcg are "
               "XGBoost 1.7's LambdaMART; rank:map is XGBoost 3.x's, each pair weighted "
               "by the change in average precision of swapping it (labels 0 or 1). "
               "reg:absoluteerror and reg:quantileerror are XGBoost 3.2+'s smooth MM losses "
               "(XGBoost 3.1 and older refreshed their leaves to the residuals' median or "
               "quantile). task=pred: given and not the model's, it replaces the model's for "
               "the prediction, as XGBoost (a warning says so), where it fits the model's "
               "outputs per row."));
  t.push_back(
      P(s, "multi_strategy", &Params::multi_strategy, "one_output_per_tree")
          .OneOf({"one_output_per_tree"})
          .Check(CheckMultiStrategy)
          .Doc("XGBoost's strategy for several classes or outputs (multi:*, several "
               "quantile_alpha): one_output_per_tree grows one tree per class and output each "
               "round, as XGBoost's default; XGBoost's multi_output_tree is refused by name."));
  t.push_back(P(s, "num_class", &Params::num_class, "0")
                  .Min(0)
                  .Doc("Number of classes, for multi:softmax and multi:softprob (at least 2)."));
  t.push_back(P(s, "base_score", &Params::base_score, "0.5")
                  .Doc("Initial prediction of every row, before any tree. Not given: 0.5, but "
                       "reg:absoluteerror and reg:quantileerror estimate it from the training "
                       "labels as XGBoost 3.x does (the weighted mean plus one MM step; each "
                       "alpha's quantile). With model_in (training or task=pred): the model's, "
                       "unless given (then, as XGBoost, it replaces the model's)."));
  t.push_back(P(s, "scale_pos_weight", &Params::scale_pos_weight, "1")
                  .Min(0)
                  .Doc("Multiplies the weight of the rows whose label is 1, as XGBoost 3.x's "
                       "RegLossObj does: for reg:squarederror, reg:logistic, binary:logistic, "
                       "binary:logitraw and reg:gamma (the other objectives ignore it)."));
  t.push_back(P(s, "huber_slope", &Params::huber_slope, "1")
                  .Min(0, /*open=*/true)
                  .Doc("delta of the pseudo-Huber loss (reg:pseudohubererror, mphe): errors "
                       "beyond it count about linearly."));
  t.push_back(P(s, "tweedie_variance_power", &Params::tweedie_variance_power, "1.5")
                  .Min(1)
                  .Max(2)
                  .Doc("Variance power p of reg:tweedie, in [1, 2): near 1 like Poisson, near 2 "
                       "like gamma; also the p of its default metric tweedie-nloglik@p."));
  t.push_back(P(s, "quantile_alpha", &Params::quantile_alpha, "0.5")
                  .Doc("reg:quantileerror's target quantile, or an ascending list of them "
                       "(quantile_alpha = [0.1,0.5,0.9]): one output per quantile, the "
                       "predictions of a row sorted so that they never cross."));
  t.push_back(
      P(s, "aft_loss_distribution", &Params::aft_loss_distribution, "normal")
          .OneOf({"normal", "logistic", "extreme"})
          .Doc("survival:aft's noise distribution Z in log(time) = margin + sigma Z (also "
               "for aft-nloglik); the label intervals come from the side files DATA.lower_bound "
               "and DATA.upper_bound beside each data file DATA, or from CSV columns "
               "(DATA?format=csv&label_lower_bound_column=K&label_upper_bound_column=K)."));
  t.push_back(P(s, "aft_loss_distribution_scale", &Params::aft_loss_distribution_scale, "1")
                  .Min(0, /*open=*/true)
                  .Doc("survival:aft's noise scale sigma (also for aft-nloglik)."));
  t.push_back(P(s, "lambdarank_pair_method", &Params::lambdarank_pair_method, "topk")
                  .OneOf({"topk"})
                  .Doc("rank:map's pairs (XGBoost 3.x's LambdaRank): topk pairs every item of the "
                       "prediction-sorted top k with every item of another label below it. "
                       "XGBoost's mean method is not offered: its draws come from XGBoost's "
                       "global random stream."));
  t.push_back(P(s, "lambdarank_num_pair_per_sample", &Params::lambdarank_num_pair_per_sample, "32")
                  .Min(1)
                  .Doc("rank:map's k of topk pairs; also the k of its default metric map@k."));
  t.push_back(P(s, "lambdarank_normalization", &Params::lambdarank_normalization, "1")
                  .Doc("rank:map: scale each query group's gradients by log2(1 + L) / L, L the "
                       "sum of 2 |lambda| over its pairs (XGBoost 3.x's topk normalisation)."));
  t.push_back(
      P(s, "lambdarank_score_normalization", &Params::lambdarank_score_normalization, "1")
          .Doc("rank:map: divide each pair's change in average precision by the distance of "
               "its two predictions plus 0.01 (when the group's predictions are not all "
               "equal)."));
  t.push_back(P(s, "eval_metric", &Params::eval_metric, "")
                  .Doc("Evaluation metric (rmse, mae, logloss, error, error@t, auc, merror, "
                       "mlogloss, ndcg@k, map@k, pre@k, poisson-nloglik, rmsle, mape, mphe, "
                       "gamma-nloglik, gamma-deviance, tweedie-nloglik@p, quantile, cox-nloglik, "
                       "aft-nloglik, interval-regression-accuracy, ...); repeat "
                       "the key to add more (a name given twice is evaluated once, as XGBoost); "
                       "none given means the objective's default. map and "
                       "map@k are XGBoost 3.x's: labels 0 or 1, each query group's precision at "
                       "its relevant positions over min(relevant, k), weighted by the group's "
                       "weight; a group without relevant items scores 1 (0 for map- and "
                       "map@k-). ndcg is XGBoost 1.7's (labels cast to int, groups unweighted) "
                       "and needs labels from 0 to 31, as 3.x; pre@k divides by min(k, the "
                       "group's size), as 3.x; k is a whole number >= 1."));
  t.push_back(P(s, "early_stopping_rounds", &Params::early_stopping_rounds, "0")
                  .Min(0)
                  .Doc("Stop when the last metric on the last eval set (train with eval_train "
                       "and no eval[NAME]) has not improved for this many rounds; 0 means "
                       "never. The model keeps every round and records best_iteration (as "
                       "XGBoost); it needs an eval set."));
  t.push_back(P(s, "eval_history", &Params::eval_history, "")
                  .Doc("Write every round's eval results to this file as training goes: CSV "
                       "(iteration, then a column per eval set and metric), or JSON as "
                       "XGBoost's evals_result when the name ends in .json. `ringboost plot "
                       "history` draws it. Empty: none."));

  s = "Data";
  t.push_back(P(s, "data", &Params::data, "")
                  .Alias("train_path")
                  .Doc("Training data URI, e.g. \"train.txt?format=libsvm\" or "
                       "\"train.csv?format=csv&label_column=0\"."));
  t.push_back(P(s, "eval[NAME]", &Params::evals, "")
                  .Doc("Evaluation data URI shown as NAME (letters, digits, _ . -) in the log "
                       "and eval_history; repeat with other names "
                       "(kept in file order; a NAME given twice, or train with eval_train=1, is "
                       "an error). A set with features the model lacks (ids at or "
                       "above the training data's count) is an error, as in XGBoost."));
  t.push_back(P(s, "eval_train", &Params::eval_train, "0")
                  .Doc("Also evaluate the metrics on the training data, as `train`."));
  t.push_back(P(s, "test:data", &Params::test_data, "")
                  .Alias("test_path")
                  .Doc("Data URI that task=pred predicts."));
  t.push_back(P(s, "indexing_mode", &Params::indexing_mode, "0")
                  .Min(-1)
                  .Max(1)
                  .Doc("LibSVM feature ids: 0 = 0-based, 1 = 1-based, -1 = detect from the data."));
  t.push_back(
      P(s, "parse_float", &Params::parse_float, "exact")
          .OneOf({"exact", "xgboost"})
          .Doc("How the numbers of the data files and their side files become floats: exact "
               "rounds correctly, as numpy, pandas and LightGBM read text (what an XGBoost model "
               "trained from such arrays saw); xgboost rounds as XGBoost's own text readers do "
               "(its CLI and DMatrix(\"file?format=libsvm\"), dmlc-core), a float apart for some "
               "decimals (1.659 reads as 1.65899992, not 1.65900004): use it with a model XGBoost "
               "trained from a text file, so that a row on a split threshold takes XGBoost's "
               "branch. The same tokens are accepted either way."));

  s = "Model files";
  t.push_back(P(s, "model_in", &Params::model_in, "")
                  .Doc("Model to continue training from, or to predict or dump with."));
  t.push_back(P(s, "model_out", &Params::model_out, "")
                  .Doc("Path of the final model; empty means model_dir/NNNN.model (NNNN = "
                       "num_round). A name ending in .json or .ubj gets XGBoost's JSON or UBJSON "
                       "unless model_format is given."));
  t.push_back(P(s, "model_dir", &Params::model_dir, "")
                  .Doc("Folder of the periodic and default models; empty means the current "
                       "folder."));
  t.push_back(P(s, "model_format", &Params::model_format, "ringboost")
                  .OneOf({"ringboost", "xgboost-json", "xgboost-ubj"})
                  .Doc("Format of model_out and the save_period models: ringboost's own, or "
                       "XGBoost 3.x's JSON or UBJSON (docs/model-format.md). Not given: as "
                       "XGBoost, XGBoost's JSON for a model_out ending in .json and UBJSON for "
                       ".ubj, else ringboost's own. Checkpoints stay in ringboost's format."));
  t.push_back(P(s, "save_period", &Params::save_period, "0")
                  .Min(0)
                  .Doc("Save model_dir/NNNN.model every this many rounds; 0 means only the final "
                       "model."));
  t.push_back(
      P(s, "checkpoint_dir", &Params::checkpoint_dir, "")
          .Doc("Folder (shared by the workers' rank 0 runs) for restart checkpoints: rank 0 "
               "writes checkpoint-NNNNNN.model there every save_period rounds (every "
               "round when save_period = 0), and a job started again with the same "
               "command resumes from the newest one, to the same final model. A checkpoint "
               "records what determines the model (the parameters that shape it, the data's "
               "paths, sizes and content fingerprint, model_in) and is resumed only when they "
               "match; a larger num_round continues it."));
  t.push_back(P(s, "checkpoint_mismatch", &Params::checkpoint_mismatch, "error")
                  .OneOf({"error", "fresh"})
                  .Doc("When checkpoint_dir holds a checkpoint of another run (other parameters "
                       "or data, or more rounds than num_round): error stops, naming what "
                       "differs; fresh trains from scratch and replaces it."));

  s = "Prediction and dump";
  t.push_back(P(s, "name_pred", &Params::name_pred, "pred.txt")
                  .Doc("File that task=pred writes (see pred_layout); - or stdout (as XGBoost) "
                       "writes to standard output; a FIFO or device is written in place."));
  t.push_back(P(s, "pred_margin", &Params::pred_margin, "0")
                  .Doc("Predict raw margins instead of transformed outputs."));
  t.push_back(P(s, "pred_layout", &Params::pred_layout, "value")
                  .OneOf({"value", "row"})
                  .Doc("value: one number per line, as XGBoost's CLI (multi:softprob and "
                       "pred_margin write num_class lines per row); row: one line per row, its "
                       "values separated by tabs. Explanations (pred_leaf, pred_contribs, "
                       "pred_interactions) are always a row per line."));
  t.push_back(P(s, "pred_leaf", &Params::pred_leaf, "0")
                  .Doc("task=pred writes each row's leaf id in every tree instead."));
  t.push_back(P(s, "pred_contribs", &Params::pred_contribs, "0")
                  .Doc("task=pred writes each row's SHAP contributions instead: per output group, "
                       "one per feature, then the bias (XGBoost's pred_contribs)."));
  t.push_back(P(s, "pred_interactions", &Params::pred_interactions, "0")
                  .Doc("task=pred writes each row's SHAP interaction values instead: per output "
                       "group, (features + 1) x (features + 1) (XGBoost's pred_interactions)."));
  t.push_back(P(s, "ntree_limit", &Params::ntree_limit, "0")
                  .Min(0)
                  .Doc("Predict with the trees of the first this many rounds only; 0 means "
                       "all, also after early stopping (as XGBoost; best_iteration + 1 predicts "
                       "with the best round's model). The same as iteration_end (XGBoost "
                       "deprecates it for iteration_end)."));
  t.push_back(P(s, "iteration_begin", &Params::iteration_begin, "0")
                  .Min(0)
                  .Doc("task=pred: the first round whose trees predict (0-based), as XGBoost's "
                       "CLI; rows start from base_score either way. At most iteration_end."));
  t.push_back(P(s, "iteration_end", &Params::iteration_end, "0")
                  .Min(0)
                  .Doc("task=pred: predict with the rounds before this one only (rounds "
                       "[iteration_begin, iteration_end)); 0 means up to the model's last, as "
                       "XGBoost's CLI. At most the model's rounds."));
  t.push_back(P(s, "name_dump", &Params::name_dump, "dump.txt")
                  .Doc("File that task=dump writes; - or stdout (as XGBoost) writes to standard "
                       "output."));
  t.push_back(P(s, "dump_format", &Params::dump_format, "text")
                  .OneOf({"text", "json", "dot"})
                  .Doc("Format of the model dump: XGBoost's text or JSON dump, or Graphviz DOT "
                       "(dump_tree, dump_render)."));
  t.push_back(P(s, "dump_stats", &Params::dump_stats, "0").Doc("Add gain and cover to the dump."));
  t.push_back(P(s, "dump_tree", &Params::dump_tree, "-1")
                  .Min(-1)
                  .Doc("dump_format=dot: the tree to draw (0-based); -1 draws every tree."));
  t.push_back(P(s, "dump_render", &Params::dump_render, "none")
                  .OneOf({"none", "svg", "png"})
                  .Doc("dump_format=dot: render the DOT into name_dump as SVG or PNG with "
                       "Graphviz's `dot` (package graphviz); none writes the DOT text."));
  t.push_back(P(s, "fmap", &Params::fmap, "")
                  .Alias("name_fmap")
                  .Doc("Feature map file (`id name type` lines) naming features in the dump."));

  s = "Run";
  t.push_back(P(s, "num_round", &Params::num_round, "10").Min(1).Doc("Number of boosting rounds."));
  t.push_back(P(s, "nthread", &Params::nthread, "0")
                  .Alias("n_jobs")
                  .Min(0)
                  .Max(1024)  // above it the OpenMP runtime may fail to start threads and abort
                  .Doc("Threads per worker; 0 means all cores, or OMP_NUM_THREADS where set "
                       "(ringboost-submit sets it to each local worker's share of the cores)."));
  t.push_back(P(s, "device", &Params::device, "cpu")
                  .OneOf({"cpu", "cuda", "cuda:N"})
                  .Check(CheckDevice)
                  .Doc("Where to train and predict: the CPU, or a GPU (cuda = the worker's local "
                       "rank's GPU, cuda:N = GPU N): the boosting loop runs on the device and "
                       "gives the CPU's model; needs a CUDA build and a GPU, else it stops with a "
                       "message. XGBoost 1.x's gpu_id=N is taken as cuda:N."));
  t.push_back(P(s, "verbosity", &Params::verbosity, "1")
                  .Min(0)
                  .Max(3)
                  .Doc("Messages on stderr: 0 silent, 1 warnings, 2 info, 3 debug."));
  t.push_back(P(s, "communicator", &Params::communicator, "auto")
                  .OneOf({"auto", "local", "mpi", "tcp"})
                  .Doc("Collective backend; auto picks tcp under a tracker (DMLC_TRACKER_URI), "
                       "mpi under mpirun, else local. DMLC_* and rabit_* keys (or the same "
                       "variables in the environment) set up tcp: docs/collective.md."));

  // XGBoost CLI keys that mean nothing here; kept short: each must be a key XGBoost's own CLI
  // accepts, so that its configs run unchanged.
  t.push_back(Ignored("silent", "Deprecated in XGBoost; use verbosity."));
  t.push_back(Ignored("use_buffer",
                      "Binary data cache of old XGBoost; ringboost reads the text "
                      "data each run."));
  t.push_back(Ignored("dsplit",
                      "Data split mode of XGBoost's CLI; ringboost always splits rows "
                      "across workers."));
  t.push_back(Ignored("validate_parameters", "ringboost always validates parameters."));
  return t;
}

}  // namespace

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

const std::vector<ParamSpec>& ParamTable() {
  static const std::vector<ParamSpec> table = BuildTable();
  return table;
}

const ParamSpec& EvalSpec() {
  static const ParamSpec* spec = [] {
    for (const ParamSpec& s : ParamTable()) {
      if (std::string(s.name) == "eval[NAME]") return &s;
    }
    return static_cast<const ParamSpec*>(nullptr);
  }();
  return *spec;
}

const ParamSpec* FindParam(const std::string& key) {
  for (const ParamSpec& spec : ParamTable()) {
    if (&spec == &EvalSpec()) continue;
    if (key == spec.name) return &spec;
    if (std::find(spec.aliases.begin(), spec.aliases.end(), key) != spec.aliases.end()) {
      return &spec;
    }
  }
  return nullptr;
}

std::string ClosestKey(const std::string& key) {
  std::string best;
  size_t best_distance = std::string::npos;
  auto consider = [&](const std::string& candidate) {
    size_t d = EditDistance(key, candidate);
    if (d < best_distance) best_distance = d, best = candidate;
  };
  for (const ParamSpec& spec : ParamTable()) {
    consider(spec.name);
    for (const std::string& alias : spec.aliases) consider(alias);
  }
  // A suggestion that shares little with the key would only confuse.
  size_t limit = std::max<size_t>(2, std::min(key.size(), best.size()) / 2);
  return best_distance <= limit ? best : "";
}

}  // namespace ringboost
