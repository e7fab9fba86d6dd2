// Every setting of a run, typed. The one table in params_table.cc (name, aliases, type, default,
// bounds, doc) fills this struct from a config file and key=value overrides, validates it, and
// generates `ringboost help` and docs/parameters.md. Defaults here equal the table's defaults
// and XGBoost 1.7's.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ringboost {

struct Params {
  // --- task -------------------------------------------------------------------------------
  std::string task = "train";  // train | pred | dump
  // --- booster -----------------------------------------------------------------------------
  std::string booster = "gbtree";
  std::string objective = "reg:squarederror";
  double eta = 0.3;
  double gamma = 0.0;
  int max_depth = 6;
  double min_child_weight = 1.0;
  double max_delta_step = 0.0;
  double subsample = 1.0;
  double colsample_bytree = 1.0;
  double colsample_bylevel = 1.0;
  double colsample_bynode = 1.0;
  double lambda = 1.0;
  double alpha = 0.0;
  std::string tree_method = "hist";       // hist (auto, approx, exact are taken as hist)
  std::string grow_policy = "depthwise";  // depthwise | lossguide
  int max_leaves = 0;
  int max_bin = 256;
  std::string quantized_grad = "off";  // low-bit gradients: off | on | auto
  std::string enable_bundle = "auto";  // exclusive feature bundling: auto | true | false
  double max_conflict_rate = 0.0;      // rows a bundle may hold in conflict (share of the sample)
  std::string hist_sync = "auto";      // workers' histograms: allreduce | reduce_scatter | auto
  std::string multi_strategy = "one_output_per_tree";  // XGBoost's; one tree per class only
  // Categorical features (XGBoost's): their types, and how their splits are searched.
  std::string feature_types;         // "q,q,c": one q (quantitative) or c (categorical) per feature
  int max_cat_to_onehot = 4;         // fewer categories than this: one-hot splits, else partitions
  int max_cat_threshold = 64;        // partition splits: at most this many categories on a side
  std::string monotone_constraints;  // "(1,0,-1)" or {"name": 1, ...}; "" = none
  std::string interaction_constraints;  // "[[0,1],[2,3,4]]", ids or names; "" = none
  int num_class = 0;
  double base_score = 0.5;
  double scale_pos_weight = 1.0;
  double huber_slope = 1.0;             // reg:pseudohubererror, mphe
  double tweedie_variance_power = 1.5;  // reg:tweedie, in [1, 2)
  std::string quantile_alpha = "0.5";   // reg:quantileerror: one alpha or a list "[a,b,...]"
  std::string aft_loss_distribution = "normal";  // survival:aft: normal | logistic | extreme
  double aft_loss_distribution_scale = 1.0;
  std::vector<std::string> eval_metric;  // repeatable; empty = the objective's default
  uint64_t seed = 0;
  int nthread = 0;  // 0 = all cores
  int num_round = 10;
  std::string device = "cpu";
  int verbosity = 1;
  // rank:map: XGBoost 3.x's LambdaRank parameters (rank:pairwise and rank:ndcg are 1.7's)
  std::string lambdarank_pair_method = "topk";  // topk only (3.x's mean draws from its global RNG)
  int lambdarank_num_pair_per_sample = 32;      // topk's k: pairs with an item in the top k
  bool lambdarank_normalization = true;         // scale a group's gradients by log2(1 + L) / L
  bool lambdarank_score_normalization = true;   // divide a pair's delta by |s_i - s_j| + 0.01
  // --- data ---------------------------------------------------------------------------------
  std::string data;                                        // training data URI
  std::vector<std::pair<std::string, std::string>> evals;  // eval[NAME] = URI, in file order
  bool eval_train = false;
  std::string test_data;              // test:data
  int indexing_mode = 0;              // LibSVM feature ids: 0 = 0-based, 1 = 1-based, -1 = detect
  std::string parse_float = "exact";  // exact (correctly rounded) | xgboost (as dmlc-core rounds)
  // --- model files --------------------------------------------------------------------------
  std::string model_in;
  std::string model_out;
  std::string model_dir;
  std::string model_format = "ringboost";  // ringboost | xgboost-json | xgboost-ubj
  int save_period = 0;
  std::string checkpoint_dir;                 // restart checkpoints of a job (empty: none)
  std::string checkpoint_mismatch = "error";  // error | fresh: a checkpoint of another run
  // --- prediction and dump ------------------------------------------------------------------
  std::string name_pred = "pred.txt";
  bool pred_margin = false;
  std::string pred_layout = "value";  // value: one number a line (XGBoost) | row: a row a line
  bool pred_leaf = false;             // task=pred explanations (model/explain.h)
  bool pred_contribs = false;
  bool pred_interactions = false;
  int ntree_limit = 0;
  int iteration_begin = 0;  // task=pred: the rounds [begin, end) (cli/predict_setup.h)
  int iteration_end = 0;    // 0: the model's last
  std::string name_dump = "dump.txt";
  std::string dump_format = "text";  // text | json | dot
  bool dump_stats = false;
  int dump_tree = -1;                // dump_format=dot: the tree drawn, -1 = all
  std::string dump_render = "none";  // dump_format=dot: none | svg | png (Graphviz's dot)
  std::string fmap;
  // --- training control ---------------------------------------------------------------------
  int early_stopping_rounds = 0;
  std::string eval_history;  // CSV, or JSON for *.json: every round's eval results (rank 0)
  // --- collective ---------------------------------------------------------------------------
  std::string communicator = "auto";  // auto | local | mpi | tcp
  // DMLC_* and rabit_* keys, passed on to the collective as they are (per worker, so not in
  // `given`: DMLC_TASK_ID differs between the workers of one job).
  std::vector<std::pair<std::string, std::string>> collective_args;
  // The config file read ("" for none): an input that no output may overwrite. Not a parameter.
  std::string config_file;

  // Keys given explicitly (after alias resolution), for "was this set by the user?".
  std::map<std::string, std::string> given;
  bool IsSet(const std::string& key) const { return given.count(key) != 0; }
};

}  // namespace ringboost
