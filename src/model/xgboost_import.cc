// XGBoost's model document -> Model (docs/model-format.md, "XGBoost formats").
//
// Reads the 3.x layout (bracketed base_score vector, iteration_indptr, cats) and the 1.x one
// (scalar base_score). The model it builds is then checked by ringboost's own reader (written
// and read back in the native format), so an imported model passes every check a native one
// does: one tree per node set, features below num_feature, num_rounds x num_groups trees.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "common/error.h"
#include "common/params.h"
#include "model/xgboost_doc.h"
#include "objective/objective.h"

namespace ringboost::xgb {
namespace {

class DocumentReader {
 public:
  explicit DocumentReader(std::string source) : source_(std::move(source)) {}

  Model Read(const Json& root) {
    if (!root.is_object() || !root.contains("learner")) {
      throw Error(source_ + ": not a ringboost model nor an XGBoost model (neither a 'format' " +
                  "nor a 'learner' key)");
    }
    const Json& learner = Object(root, "learner", "model");
    const Json& booster = Object(learner, "gradient_booster", "learner");
    const std::string booster_name = String(Field(booster, "name", "gradient_booster"), "name");
    if (booster_name != "gbtree") {
      Fail("booster '" + booster_name + "' cannot be read: ringboost has only gbtree" +
           (booster_name == "dart" ? " (dart's tree weights have no place in its models)" : ""));
    }
    Model model;
    ReadObjective(Object(learner, "objective", "learner"), &model);
    const Json& mparam = Object(learner, "learner_model_param", "learner");
    model.num_feature = static_cast<uint32_t>(IntString(mparam, "num_feature", 0, UINT32_MAX));
    model.num_class = static_cast<int>(IntString(mparam, "num_class", 0, 1 << 30));
    model.num_groups = std::max(1, model.num_class);
    // reg:quantileerror with several alphas has a target (an output group) per alpha; other
    // multi-target models have vector leaves or targets ringboost has no objective for.
    const int64_t targets =
        mparam.contains("num_target") ? IntString(mparam, "num_target", 0, 1 << 30) : 1;
    if (targets > 1 && (model.objective != "reg:quantileerror" || model.num_class > 0)) {
      Fail("multi-target models (num_target > 1) cannot be read: ringboost has one target " +
           std::string("(but for reg:quantileerror, a target per quantile)"));
    }
    if (targets > 1) model.num_groups = static_cast<int>(targets);
    ReadAttributes(learner, &model);
    ReadBaseScore(String(Field(mparam, "base_score", "learner_model_param"), "base_score"), &model);
    ReadTrees(Object(booster, "model", "gradient_booster"), &model);
    for (const Json& name : Array(learner, "feature_names", "learner")) {
      model.feature_names.push_back(String(name, "feature_names"));
    }
    if (!model.feature_names.empty() && model.feature_names.size() != model.num_feature) {
      Fail("feature_names has " + std::to_string(model.feature_names.size()) + " names for " +
           std::to_string(model.num_feature) +
           " features (learner_model_param.num_feature); a name per feature, or none");
    }
    return model;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    throw Error(source_ + ": XGBoost model: " + what);
  }

  void ReadObjective(const Json& obj, Model* model) const {
    model->objective = String(Field(obj, "name", "objective"), "objective name");
    if (model->objective == "reg:linear") model->objective = "reg:squarederror";
  }

  void ReadAttributes(const Json& learner, Model* model) const {
    if (!learner.contains("attributes")) return;
    const Json& attrs = Object(learner, "attributes", "learner");
    auto attr = [&](const char* key) -> const std::string* {
      auto it = attrs.find(key);
      return it != attrs.end() && it->is_string() ? it->get_ptr<const std::string*>() : nullptr;
    };
    if (const std::string* s = attr("best_iteration")) {
      const double best = Number(*s, "best_iteration");
      // A round number: XGBoost writes a decimal integer; -1 is ringboost's "none".
      if (best != std::floor(best) || best < -1 || best > std::numeric_limits<int>::max()) {
        Fail("attributes.best_iteration " + Brief(Json(*s)) + " is not a round number");
      }
      model->best_iteration = static_cast<int>(best);
    }
    if (const std::string* s = attr("best_score")) model->best_score = Number(*s, "best_score");
    if (const std::string* s = attr("ringboost_best_score")) {
      model->best_score = Number(*s, "ringboost_best_score");
    }
    if (const std::string* s = attr("ringboost_config")) model->config = *s;
    if (const std::string* s = attr("ringboost_num_class")) {
      model->num_class = static_cast<int>(Number(*s, "ringboost_num_class"));
    }
  }

  // "5E-1" (1.x) or "[4.821127E-1]" / "[a,b,c]" (3.x, one value per output group).
  void ReadBaseScore(const std::string& text, Model* model) const {
    std::vector<float> values;
    std::string body = text;
    if (!body.empty() && body.front() == '[') {
      if (body.back() != ']') Fail("base_score '" + text + "' is not a bracketed vector");
      body = body.substr(1, body.size() - 2);
    }
    std::size_t pos = 0;
    while (pos <= body.size()) {
      std::size_t end = body.find(',', pos);
      if (end == std::string::npos) end = body.size();
      values.push_back(static_cast<float>(Number(body.substr(pos, end - pos), "base_score")));
      pos = end + 1;
    }
    if (values.size() != 1 && values.size() != static_cast<std::size_t>(model->num_groups)) {
      Fail("base_score has " + std::to_string(values.size()) + " values for " +
           std::to_string(model->num_groups) + " output groups");
    }
    Params params;
    params.objective = model->objective;
    params.num_class = model->num_class;
    std::unique_ptr<Objective> objective;
    try {
      objective = Objective::Create(params);
    } catch (const Error& e) {
      Fail("objective '" + model->objective + "' is not one ringboost has (" + e.what() + ")");
    }
    model->base_score = values[0];
    try {
      model->base_margin = objective->ProbToMargin(values[0]);
      bool same = true;
      for (float v : values) same = same && v == values[0];
      if (!same) {
        for (float v : values) model->base_margins.push_back(objective->ProbToMargin(v));
      }
    } catch (const Error& e) {  // a base_score the objective has no margin for
      Fail("learner_model_param.base_score '" + text + "': " + e.what());
    }
  }

  void ReadTrees(const Json& gbtree, Model* model) const {
    const Json& gparam = Object(gbtree, "gbtree_model_param", "model");
    if (gparam.contains("num_parallel_tree") &&
        IntString(gparam, "num_parallel_tree", 1, 1 << 30) != 1) {
      Fail(
          "num_parallel_tree > 1 (a boosted random forest) cannot be read: ringboost grows one "
          "tree per group and round");
    }
    const Json& trees = Array(gbtree, "trees", "model");
    const Json& info = Array(gbtree, "tree_info", "model");
    if (info.size() != trees.size()) {
      Fail("tree_info has " + std::to_string(info.size()) + " entries for " +
           std::to_string(trees.size()) + " trees");
    }
    // XGBoost writes the count beside the trees and checks it when it reads them.
    const int64_t declared =
        gparam.contains("num_trees") ? IntString(gparam, "num_trees", 0, INT64_MAX) : -1;
    if (declared >= 0 && declared != static_cast<int64_t>(trees.size())) {
      Fail("gbtree_model_param.num_trees is " + std::to_string(declared) + " but the model holds " +
           std::to_string(trees.size()) + " trees (a damaged file?)");
    }
    for (std::size_t i = 0; i < trees.size(); ++i) {
      model->trees.push_back(ReadTree(trees[i], "tree " + std::to_string(i)));
      model->tree_group.push_back(static_cast<int>(Int(info[i], "tree_info", 0, 1 << 30)));
    }
    if (trees.size() % model->num_groups != 0) {
      Fail(std::to_string(trees.size()) + " trees is not a whole number of rounds of " +
           std::to_string(model->num_groups) + " groups");
    }
    model->num_rounds = static_cast<int>(trees.size() / model->num_groups);
    CheckTreeWeights(gbtree, trees.size());
    if (gbtree.contains("iteration_indptr")) {
      const Json& indptr = Array(gbtree, "iteration_indptr", "model");
      for (std::size_t r = 0; r < indptr.size(); ++r) {
        if (Int(indptr[r], "iteration_indptr", 0, INT64_MAX) !=
            static_cast<int64_t>(r) * model->num_groups) {
          Fail("iteration_indptr is not one tree per group and round");
        }
      }
    }
  }

  // XGBoost 3.4 saves a DART model (booster=dart, or gbtree with rate_drop) as "gbtree" with a
  // weight per tree, `weight_drop`, that scales the tree's output at prediction. ringboost's
  // trees have no weight: weights of 1 change nothing; any other would be ignored silently.
  void CheckTreeWeights(const Json& gbtree, std::size_t num_trees) const {
    if (!gbtree.contains("weight_drop")) return;
    const Json& weights = Array(gbtree, "weight_drop", "model");
    if (weights.size() != num_trees) {
      Fail("weight_drop has " + std::to_string(weights.size()) + " entries for " +
           std::to_string(num_trees) + " trees");
    }
    for (std::size_t i = 0; i < weights.size(); ++i) {
      const float w = Float(weights[i], "weight_drop");
      if (w != 1.0f) {
        Fail("tree " + std::to_string(i) + " has weight " + Brief(weights[i]) +
             " (weight_drop: a DART model, trained with rate_drop): tree weights cannot be read, "
             "ringboost's trees have none; retrain without dropout");
      }
    }
  }

  RegTree ReadTree(const Json& t, const std::string& where) const {
    if (!t.is_object()) Fail(where + ": not an object");
    const Json& tparam = Object(t, "tree_param", where);
    const int64_t n = IntString(tparam, "num_nodes", 1, std::numeric_limits<int32_t>::max());
    if (IntString(tparam, "num_deleted", 0, n) != 0) {
      Fail(where + ": has deleted (pruned) node slots, which ringboost's trees do not keep");
    }
    if (tparam.contains("size_leaf_vector") && IntString(tparam, "size_leaf_vector", 0, n) > 1) {
      Fail(where + ": has vector leaves (multi-target), which ringboost cannot read");
    }
    auto arr = [&](const char* key) -> const Json& {
      const Json& a = Array(t, key, where);
      if (static_cast<int64_t>(a.size()) != n) {
        Fail(where + ": '" + key + "' has " + std::to_string(a.size()) + " entries for " +
             std::to_string(n) + " nodes");
      }
      return a;
    };
    const Json &parents = arr("parents"), &left = arr("left_children"),
               &right = arr("right_children"), &index = arr("split_indices"),
               &cond = arr("split_conditions"), &dleft = arr("default_left"),
               &weight = arr("base_weights"), &gain = arr("loss_changes"),
               &hess = arr("sum_hessian");
    RegTree tree;
    tree.nodes().assign(static_cast<std::size_t>(n), TreeNode());
    for (int64_t i = 0; i < n; ++i) {
      TreeNode& x = tree[static_cast<int>(i)];
      const int64_t parent = Int(parents[i], where + ": parents", -1, INT32_MAX);
      x.parent = parent == INT32_MAX ? -1 : static_cast<int32_t>(parent);
      x.left = static_cast<int32_t>(Int(left[i], where + ": left_children", -1, n - 1));
      x.right = static_cast<int32_t>(Int(right[i], where + ": right_children", -1, n - 1));
      x.default_left = Int(dleft[i], where + ": default_left", 0, 1) == 1;
      x.base_weight = Float(weight[i], where + ": base_weights");
      x.gain = Float(gain[i], where + ": loss_changes");
      x.sum_hess = Float(hess[i], where + ": sum_hessian");
      if (x.IsLeaf()) {
        x.leaf_value = Float(cond[i], where + ": split_conditions");
      } else {
        x.feature = static_cast<uint32_t>(Int(index[i], where + ": split_indices", 0, UINT32_MAX));
      }
    }
    try {
      ReadCategories(t, where, &tree);
    } catch (const Error& e) {
      Fail(e.what());
    }
    // A categorical split does not use its condition: XGBoost 3.x writes the smallest denormal
    // there, 1.7 writes NaN (read as null); ringboost keeps 3.x's.
    for (int64_t i = 0; i < n; ++i) {
      TreeNode& x = tree[static_cast<int>(i)];
      if (x.IsLeaf()) continue;
      x.split_cond = x.is_cat && !IsFiniteNumber(cond[i])
                         ? std::numeric_limits<float>::denorm_min()
                         : Float(cond[i], where + ": split_conditions");
    }
    // split_type 1 marks exactly the nodes that have categories.
    if (t.contains("split_type")) {
      const Json& types = arr("split_type");
      for (int64_t i = 0; i < n; ++i) {
        const bool is_cat = Int(types[i], where + ": split_type", 0, 1) == 1;
        if (is_cat != tree[static_cast<int>(i)].is_cat) {
          Fail(where + ": node " + std::to_string(i) + " has split_type " + (is_cat ? "1" : "0") +
               (is_cat ? " but no categories" : " but categories"));
        }
      }
    } else if (tree.HasCategorical()) {
      Fail(where + ": has categories but no split_type");
    }
    return tree;
  }

  const Json& Field(const Json& obj, const char* key, const std::string& where) const {
    auto it = obj.find(key);
    if (it == obj.end()) Fail(where + ": missing '" + key + "'");
    return *it;
  }
  const Json& Object(const Json& obj, const char* key, const std::string& where) const {
    const Json& v = Field(obj, key, where);
    if (!v.is_object()) Fail(where + ": '" + key + "' must be an object");
    return v;
  }
  const Json& Array(const Json& obj, const char* key, const std::string& where) const {
    const Json& v = Field(obj, key, where);
    if (!v.is_array()) Fail(where + ": '" + key + "' must be an array");
    return v;
  }
  std::string String(const Json& v, const std::string& what) const {
    if (!v.is_string()) Fail(what + ": expected a string, got " + Brief(v));
    return v.get<std::string>();
  }
  int64_t Int(const Json& v, const std::string& what, int64_t lo, int64_t hi) const {
    if (!v.is_number_integer()) Fail(what + ": expected an integer, got " + Brief(v));
    if (v.is_number_unsigned() ? v.get<uint64_t>() > static_cast<uint64_t>(hi)
                               : (v.get<int64_t>() < lo || v.get<int64_t>() > hi)) {
      Fail(what + ": " + Brief(v) + " is outside [" + std::to_string(lo) + ", " +
           std::to_string(hi) + "]");
    }
    return v.get<int64_t>();
  }
  // XGBoost writes counts as decimal strings ("13").
  int64_t IntString(const Json& obj, const char* key, int64_t lo, int64_t hi) const {
    const Json& v = Field(obj, key, "model parameters");
    if (v.is_number_integer()) return Int(v, key, lo, hi);
    const double d = Number(String(v, key), key);
    if (d != std::floor(d) || d < static_cast<double>(lo) || d > static_cast<double>(hi)) {
      Fail(std::string(key) + ": \"" + v.get<std::string>() + "\" is not an integer in [" +
           std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    return static_cast<int64_t>(d);
  }
  static bool IsFiniteNumber(const Json& v) {
    return v.is_number() && std::isfinite(v.get<float>());
  }
  float Float(const Json& v, const std::string& what) const {
    // XGBoost writes a float that is not finite as a bare NaN or Infinity, read as null.
    if (v.is_null() || (v.is_number_float() && std::isnan(v.get<double>()))) {
      Fail(what + ": NaN or Infinity, which is not a finite float");
    }
    if (!v.is_number()) Fail(what + ": expected a number, got " + Brief(v));
    const float f = v.get<float>();
    if (!std::isfinite(f)) Fail(what + ": " + Brief(v) + " is not a finite float");
    return f;
  }
  double Number(const std::string& s, const std::string& what) const {
    char* end = nullptr;
    const double d = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !std::isfinite(d)) {
      Fail(what + ": \"" + s + "\" is not a finite number");
    }
    return d;
  }

  std::string source_;
};

}  // namespace

Model FromDocument(const Json& root, const std::string& source) {
  Model model;
  try {
    model = DocumentReader(source).Read(root);
  } catch (const Json::exception& e) {
    RB_FAIL(source << ": " << e.what());
  }
  // ringboost's own reader checks the rest (tree structure, feature and group ranges).
  return Model::FromJson(model.ToJson(), source);
}

}  // namespace ringboost::xgb
