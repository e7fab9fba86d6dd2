// Model -> XGBoost's model document (docs/model-format.md, "XGBoost formats").
//
// The document mirrors what XGBoost 3.4.1's Booster.save_model writes, key for key and in its
// (sorted) key order: a leaf's value lives in split_conditions, the root's parent is
// 2147483647, counts are decimal strings. What XGBoost has no place for (ringboost's config
// text, a best_score without early stopping, an unusual num_class) goes into `attributes`
// under ringboost_* names, so that a model exported and read back is the same model, byte for
// byte in ringboost's own format.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "common/error.h"
#include "model/xgboost_doc.h"

namespace ringboost::xgb {
namespace {

constexpr int64_t kRootParent = std::numeric_limits<int32_t>::max();

Json FloatArray(const std::vector<float>& values) {
  Json out = Json::array();
  for (float v : values) out.push_back(v);
  return out;
}

Json TreeDocument(const RegTree& tree, int id, uint32_t num_feature) {
  Json parents = Json::array(), left = Json::array(), right = Json::array();
  Json indices = Json::array(), default_left = Json::array(), split_type = Json::array();
  std::vector<float> base_weights, loss_changes, conditions, hessians;
  for (const TreeNode& n : tree.nodes()) {
    if (!std::isfinite(n.split_cond) || !std::isfinite(n.leaf_value)) {
      RB_FAIL("tree " << id << " has a non-finite value, which XGBoost's JSON cannot hold");
    }
    parents.push_back(n.parent < 0 ? kRootParent : n.parent);
    left.push_back(n.left);
    right.push_back(n.right);
    indices.push_back(n.IsLeaf() ? 0 : n.feature);
    default_left.push_back(n.default_left ? 1 : 0);
    split_type.push_back(n.is_cat ? 1 : 0);
    base_weights.push_back(n.base_weight);
    loss_changes.push_back(n.gain);
    conditions.push_back(n.IsLeaf() ? n.leaf_value : n.split_cond);
    hessians.push_back(n.sum_hess);
  }
  CategoryArrays cats = CategoriesOf(tree);
  Json t = Json::object();
  t["base_weights"] = FloatArray(base_weights);
  t["categories"] = std::move(cats.categories);
  t["categories_nodes"] = std::move(cats.nodes);
  t["categories_segments"] = std::move(cats.segments);
  t["categories_sizes"] = std::move(cats.sizes);
  t["default_left"] = std::move(default_left);
  t["id"] = id;
  t["left_children"] = std::move(left);
  t["loss_changes"] = FloatArray(loss_changes);
  t["parents"] = std::move(parents);
  t["right_children"] = std::move(right);
  t["split_conditions"] = FloatArray(conditions);
  t["split_indices"] = std::move(indices);
  t["split_type"] = std::move(split_type);
  t["sum_hessian"] = FloatArray(hessians);
  t["tree_param"] = Json{{"num_deleted", "0"},
                         {"num_feature", std::to_string(num_feature)},
                         {"num_nodes", std::to_string(tree.NumNodes())},
                         {"size_leaf_vector", "1"}};
  return t;
}

// The value of `key=value` in the model's config text, or `fallback`.
std::string ConfigValue(const Model& model, const std::string& key, const std::string& fallback) {
  std::string value = fallback;
  std::size_t pos = 0;
  while (pos < model.config.size()) {
    std::size_t end = model.config.find('\n', pos);
    if (end == std::string::npos) end = model.config.size();
    const std::string line = model.config.substr(pos, end - pos);
    if (line.rfind(key + "=", 0) == 0) value = line.substr(key.size() + 1);
    pos = end + 1;
  }
  return value;
}

// XGBoost's objective object: the name and the parameter block its loader expects.
Json ObjectiveDocument(const Model& model) {
  const std::string& name = model.objective;
  Json obj = Json::object();
  if (name == "rank:map") {  // XGBoost 3.x's own, with the keys it trained with
    obj["lambdarank_param"] =
        Json{{"lambdarank_bias_norm", "1"},
             {"lambdarank_normalization", ConfigValue(model, "lambdarank_normalization", "1")},
             {"lambdarank_num_pair_per_sample",
              ConfigValue(model, "lambdarank_num_pair_per_sample", "32")},
             {"lambdarank_pair_method", "topk"},
             {"lambdarank_score_normalization",
              ConfigValue(model, "lambdarank_score_normalization", "1")},
             {"lambdarank_unbiased", "0"},
             {"ndcg_exp_gain", "1"}};
  } else if (name.rfind("rank:", 0) == 0) {
    obj["lambdarank_param"] =
        Json{{"lambdarank_bias_norm", "1"},
             {"lambdarank_normalization", "1"},
             {"lambdarank_num_pair_per_sample", name == "rank:ndcg" ? "4294967295" : "1"},
             {"lambdarank_pair_method", name == "rank:ndcg" ? "topk" : "mean"},
             {"lambdarank_score_normalization", "1"},
             {"lambdarank_unbiased", "0"},
             {"ndcg_exp_gain", "1"}};
  }
  obj["name"] = name;
  if (name == "count:poisson") {
    obj["poisson_regression_param"] =
        Json{{"max_delta_step", ConfigValue(model, "max_delta_step", "0.7")}};
  } else if (name.rfind("multi:", 0) == 0) {
    obj["softmax_multiclass_param"] = Json{{"num_class", std::to_string(model.num_class)}};
  } else if (name == "reg:pseudohubererror") {
    obj["pseudo_huber_param"] = Json{{"huber_slope", ConfigValue(model, "huber_slope", "1")}};
  } else if (name == "reg:tweedie") {
    obj["tweedie_regression_param"] =
        Json{{"tweedie_variance_power", ConfigValue(model, "tweedie_variance_power", "1.5")}};
  } else if (name == "reg:quantileerror") {  // XGBoost reads a bracketed list
    std::string alpha = ConfigValue(model, "quantile_alpha", "0.5");
    if (alpha.empty() || alpha[0] != '[') alpha = "[" + alpha + "]";
    obj["quantile_loss_param"] = Json{{"quantile_alpha", alpha}};
  } else if (name == "survival:aft") {  // XGBoost's AFTObj loads this block, and fails without it
    obj["aft_loss_param"] = Json{
        {"aft_loss_distribution", ConfigValue(model, "aft_loss_distribution", "normal")},
        {"aft_loss_distribution_scale", ConfigValue(model, "aft_loss_distribution_scale", "1")}};
  } else if (name == "reg:absoluteerror" || name == "survival:cox" || name == "binary:hinge") {
    // no parameter block (XGBoost writes none)
  } else if (name.rfind("rank:", 0) != 0) {
    obj["reg_loss_param"] = Json{{"scale_pos_weight", ConfigValue(model, "scale_pos_weight", "1")}};
  }
  return obj;
}

std::string FloatText(float v) { return Json(v).dump(); }

// base_score as one number when every output group starts from the same value, as XGBoost 1.x and
// 2.x wrote it: XGBoost 1.7 reads a bracketed "[b]" as 0.5 without a word, while 3.x reads both
// forms. Groups that start apart (an imported 3.x multiclass model, several quantiles) need 3.x's
// bracketed vector, one value per group.
std::string BaseScoreText(const Model& model) {
  const auto& m = model.base_margins;
  if (m.empty() || std::all_of(m.begin(), m.end(), [&](float v) { return v == m[0]; })) {
    return FloatText(m.empty() ? model.base_score : m[0]);
  }
  std::string out = "[";
  for (int g = 0; g < model.num_groups; ++g) {
    if (g > 0) out += ",";
    out += FloatText(m[g]);
  }
  return out + "]";
}

Json Attributes(const Model& model) {
  Json attrs = Json::object();
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", model.best_score);
  if (model.best_iteration >= 0) {
    attrs["best_iteration"] = std::to_string(model.best_iteration);
    attrs["best_score"] = buf;
  } else if (model.best_score != 0.0) {
    attrs["ringboost_best_score"] = buf;
  }
  if (!model.config.empty()) attrs["ringboost_config"] = model.config;
  if (model.num_groups == 1 && model.num_class != 0) {
    attrs["ringboost_num_class"] = std::to_string(model.num_class);
  }
  return attrs;
}

// XGBoost needs a feature's type to be c for its categorical splits; a model without any keeps
// the empty list it always had.
Json FeatureTypes(const Model& model) {
  std::vector<uint8_t> is_cat(model.num_feature, 0);
  bool any = false;
  for (const RegTree& tree : model.trees) {
    for (const TreeNode& n : tree.nodes()) {
      if (n.is_cat && n.feature < model.num_feature) is_cat[n.feature] = 1, any = true;
    }
  }
  Json types = Json::array();
  for (uint32_t f = 0; f < model.num_feature && any; ++f) types.push_back(is_cat[f] ? "c" : "q");
  return types;
}

// XGBoost's outputs are classes (num_class) or targets: reg:quantileerror with several alphas
// has one target per alpha (one tree each a round), which XGBoost calls num_target.
int NumTargets(const Model& model) { return model.num_class > 0 ? 1 : model.num_groups; }

}  // namespace

Json ToDocument(const Model& model) {
  if (!model.feature_names.empty() && model.feature_names.size() != model.num_feature) {
    RB_FAIL("cannot export: " << model.feature_names.size() << " feature names for "
                              << model.num_feature << " features (XGBoost needs one per feature)");
  }
  Json trees = Json::array(), tree_info = Json::array(), indptr = Json::array({0});
  for (std::size_t i = 0; i < model.trees.size(); ++i) {
    trees.push_back(TreeDocument(model.trees[i], static_cast<int>(i), model.num_feature));
    tree_info.push_back(model.tree_group[i]);
  }
  for (int r = 1; r <= model.num_rounds; ++r) indptr.push_back(int64_t{r} * model.num_groups);
  Json booster_model = Json::object();
  booster_model["cats"] = Json{
      {"enc", Json::array()}, {"feature_segments", Json::array()}, {"sorted_idx", Json::array()}};
  booster_model["gbtree_model_param"] =
      Json{{"num_parallel_tree", "1"}, {"num_trees", std::to_string(model.trees.size())}};
  booster_model["iteration_indptr"] = std::move(indptr);
  booster_model["tree_info"] = std::move(tree_info);
  booster_model["trees"] = std::move(trees);
  Json learner = Json::object();
  learner["attributes"] = Attributes(model);
  learner["feature_names"] = model.feature_names;
  learner["feature_types"] = FeatureTypes(model);
  learner["gradient_booster"] = Json{{"model", std::move(booster_model)}, {"name", "gbtree"}};
  learner["learner_model_param"] =
      Json{{"base_score", BaseScoreText(model)},
           {"boost_from_average", "0"},
           {"num_class", std::to_string(model.num_groups > 1 ? model.num_class : 0)},
           {"num_feature", std::to_string(model.num_feature)},
           {"num_target", std::to_string(NumTargets(model))}};
  learner["objective"] = ObjectiveDocument(model);
  Json root = Json::object();
  root["learner"] = std::move(learner);
  root["version"] = Json::array({kExportVersion[0], kExportVersion[1], kExportVersion[2]});
  return root;
}

}  // namespace ringboost::xgb
