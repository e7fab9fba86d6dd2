// Model save/load in ringboost's own versioned JSON schema (docs/model-format.md).
//
// Why a float-typed JSON: nlohmann writes the shortest decimal that reads back to the same float
// and reads numbers with strtof, so every float round-trips exactly and the text is short. The
// one double of the model (best_score) is written as a decimal string with 17 digits. Keys keep
// insertion order, so the same model always gives the same bytes (identical model files across
// thread and worker counts, DESIGN.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "model/model.h"
#include "model/xgboost_doc.h"
#include "model/xgboost_format.h"

namespace ringboost {
namespace {

using Json = nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, int64_t,
                                  uint64_t, float>;

constexpr const char* kFormatName = "ringboost-model";

// Finite floats are JSON numbers; the non-finite ones (which JSON lacks) are strings.
Json FloatToJson(float value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return value;
}

std::string DoubleToString(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", value);
  return buf;
}

template <typename T, typename F>
Json ArrayOf(const std::vector<TreeNode>& nodes, F field) {
  Json out = Json::array();
  for (const TreeNode& node : nodes) out.push_back(static_cast<T>(field(node)));
  return out;
}

template <typename F>
Json FloatArrayOf(const std::vector<TreeNode>& nodes, F field) {
  Json out = Json::array();
  for (const TreeNode& node : nodes) out.push_back(FloatToJson(field(node)));
  return out;
}

Json TreeToJson(const RegTree& tree) {
  const std::vector<TreeNode>& n = tree.nodes();
  Json out = Json::object();
  out["num_nodes"] = tree.NumNodes();
  out["parents"] = ArrayOf<int64_t>(n, [](const TreeNode& x) { return x.parent; });
  out["left_children"] = ArrayOf<int64_t>(n, [](const TreeNode& x) { return x.left; });
  out["right_children"] = ArrayOf<int64_t>(n, [](const TreeNode& x) { return x.right; });
  out["split_indices"] = ArrayOf<uint64_t>(n, [](const TreeNode& x) { return x.feature; });
  out["split_conditions"] = FloatArrayOf(n, [](const TreeNode& x) { return x.split_cond; });
  out["default_left"] = ArrayOf<int64_t>(n, [](const TreeNode& x) { return x.default_left; });
  out["leaf_values"] = FloatArrayOf(n, [](const TreeNode& x) { return x.leaf_value; });
  out["base_weights"] = FloatArrayOf(n, [](const TreeNode& x) { return x.base_weight; });
  out["loss_changes"] = FloatArrayOf(n, [](const TreeNode& x) { return x.gain; });
  out["sum_hessian"] = FloatArrayOf(n, [](const TreeNode& x) { return x.sum_hess; });
  if (tree.HasCategorical()) {  // only then, so that other models keep their bytes
    xgb::CategoryArrays cats = xgb::CategoriesOf(tree);
    out["categories_nodes"] = std::move(cats.nodes);
    out["categories_segments"] = std::move(cats.segments);
    out["categories_sizes"] = std::move(cats.sizes);
    out["categories"] = std::move(cats.categories);
  }
  return out;
}

// Reads and validates one parsed model; every failure throws Error "<source>: <what>".
class ModelReader {
 public:
  explicit ModelReader(std::string source) : source_(std::move(source)) {}

  Model Read(const Json& root) {
    CheckFormat(root);
    Model model;
    ReadLearner(Field(root, "learner", "model"), &model);
    const Json& trees = Field(root, "trees", "model");
    if (!trees.is_array()) Fail("'trees' must be an array");
    for (size_t i = 0; i < trees.size(); ++i) {
      model.trees.push_back(ReadTree(trees[i], "tree " + std::to_string(i), model.num_feature));
    }
    for (const Json& g : ArrayField(root, "tree_group", "model")) {
      model.tree_group.push_back(static_cast<int>(Int(g, "tree_group", 0, model.num_groups - 1)));
    }
    CheckCounts(model);
    return model;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const { throw Error(source_ + ": " + what); }

  void CheckFormat(const Json& root) const {
    if (!root.is_object()) Fail("not a ringboost model (the top level is not a JSON object)");
    if (!root.contains("format") && root.contains("learner") && root.contains("version")) {
      Fail("this is an XGBoost model; ringboost reads only its own format (docs/model-format.md)");
    }
    const Json& format = Field(root, "format", "model");
    if (!format.is_string() || format.get<std::string>() != kFormatName) {
      Fail("not a ringboost model ('format' is not \"" + std::string(kFormatName) + "\")");
    }
    const int64_t version = Int(Field(root, "version", "model"), "version", 0, 1 << 30);
    if (version < 1 || version > Model::kFormatVersion) {
      Fail("model format version " + std::to_string(version) + " is not supported; this build " +
           "reads versions 1 to " + std::to_string(Model::kFormatVersion) +
           (version > Model::kFormatVersion ? " (use a newer ringboost)" : ""));
    }
  }

  void ReadLearner(const Json& j, Model* m) const {
    if (!j.is_object()) Fail("'learner' must be an object");
    const int kMaxInt = std::numeric_limits<int>::max();
    m->objective = String(Field(j, "objective", "learner"), "objective");
    m->base_score = Float(Field(j, "base_score", "learner"), "base_score");
    m->base_margin = Float(Field(j, "base_margin", "learner"), "base_margin");
    if (j.contains("base_margins")) {  // version 2
      for (const Json& v : ArrayField(j, "base_margins", "learner")) {
        m->base_margins.push_back(Float(v, "base_margins"));
      }
    }
    m->num_class = static_cast<int>(Int(Field(j, "num_class", "learner"), "num_class", 0, kMaxInt));
    m->num_groups =
        static_cast<int>(Int(Field(j, "num_groups", "learner"), "num_groups", 1, kMaxInt));
    // Data ids are below 2^31 - 1 (data/parser.h), so no trained model holds more columns.
    m->num_feature = static_cast<uint32_t>(Int(Field(j, "num_feature", "learner"), "num_feature", 0,
                                               std::numeric_limits<int32_t>::max()));
    m->num_rounds =
        static_cast<int>(Int(Field(j, "num_rounds", "learner"), "num_rounds", 0, kMaxInt));
    m->best_iteration =
        static_cast<int>(Int(Field(j, "best_iteration", "learner"), "best_iteration", -1, kMaxInt));
    m->best_score = DoubleFromString(Field(j, "best_score", "learner"), "best_score");
    for (const Json& name : ArrayField(j, "feature_names", "learner")) {
      m->feature_names.push_back(String(name, "feature_names"));
    }
    m->config = String(Field(j, "config", "learner"), "config");
  }

  void CheckCounts(const Model& m) const {
    const uint64_t expected = static_cast<uint64_t>(m.num_rounds) * m.num_groups;
    if (m.trees.size() != expected) {
      Fail(std::to_string(m.trees.size()) +
           " trees, expected num_rounds x num_groups = " + std::to_string(expected));
    }
    if (!m.base_margins.empty() && m.base_margins.size() != static_cast<size_t>(m.num_groups)) {
      Fail("base_margins has " + std::to_string(m.base_margins.size()) + " entries, expected " +
           "num_groups = " + std::to_string(m.num_groups));
    }
    // Every round adds one tree per group, so the trees bound the groups: a model cannot make
    // a prediction allocate rows x num_groups margins for groups it does not hold.
    if (static_cast<uint64_t>(m.num_groups) > std::max<uint64_t>(m.trees.size(), 1)) {
      Fail("num_groups " + std::to_string(m.num_groups) + " is more than its " +
           std::to_string(m.trees.size()) + " trees (one per group and round)");
    }
    // A multiclass model has one output group per class: other counts would mix the classes of
    // the rows when predictions are read num_class at a time.
    if (m.objective.rfind("multi:", 0) == 0 && m.num_groups != m.num_class) {
      Fail("objective " + m.objective + " has num_class " + std::to_string(m.num_class) + " but " +
           std::to_string(m.num_groups) + " output groups (num_groups); a multiclass model has " +
           "one group per class");
    }
    if (m.tree_group.size() != m.trees.size()) {
      Fail("tree_group has " + std::to_string(m.tree_group.size()) + " entries for " +
           std::to_string(m.trees.size()) + " trees");
    }
    if (!m.feature_names.empty() && m.feature_names.size() != m.num_feature) {
      Fail("feature_names has " + std::to_string(m.feature_names.size()) + " names for " +
           std::to_string(m.num_feature) + " features (num_feature); give one name per feature");
    }
    if (m.best_iteration >= m.num_rounds && m.best_iteration >= 0) {
      Fail("best_iteration " + std::to_string(m.best_iteration) + " is not below num_rounds " +
           std::to_string(m.num_rounds));
    }
  }

  RegTree ReadTree(const Json& j, const std::string& where, uint32_t num_feature) const {
    if (!j.is_object()) Fail(where + ": not a JSON object");
    const int64_t n = Int(Field(j, "num_nodes", where), where + ": num_nodes", 1,
                          std::numeric_limits<int32_t>::max());
    // Lengths first, so that a corrupt num_nodes cannot make us allocate a huge tree.
    for (const char* key :
         {"parents", "left_children", "right_children", "split_indices", "default_left",
          "split_conditions", "leaf_values", "base_weights", "loss_changes", "sum_hessian"}) {
      const Json& arr = ArrayField(j, key, where);
      if (static_cast<int64_t>(arr.size()) != n) {
        Fail(where + ": '" + key + "' has " + std::to_string(arr.size()) +
             " entries, expected num_nodes = " + std::to_string(n));
      }
    }
    RegTree tree;
    std::vector<TreeNode>& nodes = tree.nodes();
    nodes.assign(static_cast<size_t>(n), TreeNode());
    auto each = [&](const char* key, auto&& set) {
      const Json& arr = j.at(key);
      const std::string what = where + ": " + key;
      for (int64_t i = 0; i < n; ++i) set(arr[i], what, &nodes[i]);
    };
    each("parents", [&](const Json& v, const std::string& w, TreeNode* x) {
      x->parent = static_cast<int32_t>(Int(v, w, -1, n - 1));
    });
    each("left_children", [&](const Json& v, const std::string& w, TreeNode* x) {
      x->left = static_cast<int32_t>(Int(v, w, -1, n - 1));
    });
    each("right_children", [&](const Json& v, const std::string& w, TreeNode* x) {
      x->right = static_cast<int32_t>(Int(v, w, -1, n - 1));
    });
    each("split_indices", [&](const Json& v, const std::string& w, TreeNode* x) {
      x->feature = static_cast<uint32_t>(Int(v, w, 0, std::numeric_limits<uint32_t>::max()));
    });
    each("default_left", [&](const Json& v, const std::string& w, TreeNode* x) {
      x->default_left = Int(v, w, 0, 1) == 1;
    });
    each("split_conditions",
         [&](const Json& v, const std::string& w, TreeNode* x) { x->split_cond = Float(v, w); });
    each("leaf_values",
         [&](const Json& v, const std::string& w, TreeNode* x) { x->leaf_value = Float(v, w); });
    each("base_weights",
         [&](const Json& v, const std::string& w, TreeNode* x) { x->base_weight = Float(v, w); });
    each("loss_changes",
         [&](const Json& v, const std::string& w, TreeNode* x) { x->gain = Float(v, w); });
    each("sum_hessian",
         [&](const Json& v, const std::string& w, TreeNode* x) { x->sum_hess = Float(v, w); });
    CheckStructure(tree, where, num_feature);
    try {
      xgb::ReadCategories(j, where, &tree);
    } catch (const Error& e) {
      Fail(e.what());
    }
    return tree;
  }

  // The nodes must form one tree rooted at 0: each node reached exactly once from the root
  // (so no cycle, no shared child, nothing unreachable) and parents matching the children.
  void CheckStructure(const RegTree& tree, const std::string& where, uint32_t num_feature) const {
    const int n = tree.NumNodes();
    if (tree[0].parent != -1) Fail(where + ": the root (node 0) has a parent");
    std::vector<char> seen(n, 0);
    std::vector<int> stack{0};
    seen[0] = 1;
    while (!stack.empty()) {
      const int nid = stack.back();
      stack.pop_back();
      const TreeNode& node = tree[nid];
      const std::string at = where + " node " + std::to_string(nid);
      if ((node.left < 0) != (node.right < 0)) Fail(at + ": has one child only");
      if (node.IsLeaf()) continue;
      if (node.feature >= num_feature) {
        Fail(at + ": split feature " + std::to_string(node.feature) + " is not below num_feature " +
             std::to_string(num_feature));
      }
      for (int child : {node.left, node.right}) {
        if (seen[child]) {
          Fail(at + ": child " + std::to_string(child) + " is reached twice (a cycle)");
        }
        if (tree[child].parent != nid) {
          Fail(at + ": child " + std::to_string(child) + " names parent " +
               std::to_string(tree[child].parent));
        }
        seen[child] = 1;
        stack.push_back(child);
      }
    }
    for (int i = 0; i < n; ++i) {
      if (!seen[i]) Fail(where + " node " + std::to_string(i) + ": not reachable from the root");
    }
  }

  const Json& Field(const Json& obj, const char* key, const std::string& where) const {
    auto it = obj.find(key);
    if (it == obj.end()) Fail(where + ": missing '" + key + "'");
    return *it;
  }

  const Json& ArrayField(const Json& obj, const char* key, const std::string& where) const {
    const Json& arr = Field(obj, key, where);
    if (!arr.is_array()) Fail(where + ": '" + key + "' must be an array");
    return arr;
  }

  int64_t Int(const Json& v, const std::string& what, int64_t lo, int64_t hi) const {
    if (!v.is_number_integer()) Fail(what + ": expected an integer, got " + xgb::Brief(v));
    const bool too_big = v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi);
    if (too_big || v.get<int64_t>() < lo || v.get<int64_t>() > hi) {
      Fail(what + ": " + xgb::Brief(v) + " is outside [" + std::to_string(lo) + ", " +
           std::to_string(hi) + "]");
    }
    return v.get<int64_t>();
  }

  float Float(const Json& v, const std::string& what) const {
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      if (s == "NaN") return std::numeric_limits<float>::quiet_NaN();
      if (s == "Infinity") return std::numeric_limits<float>::infinity();
      if (s == "-Infinity") return -std::numeric_limits<float>::infinity();
    }
    if (!v.is_number()) Fail(what + ": expected a number, got " + xgb::Brief(v));
    const float value = v.get<float>();
    if (!std::isfinite(value)) Fail(what + ": " + xgb::Brief(v) + " is out of float range");
    return value;
  }

  double DoubleFromString(const Json& v, const std::string& what) const {
    const std::string s = String(v, what);
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    char* end = nullptr;
    const double value = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0') Fail(what + ": \"" + s + "\" is not a number");
    return value;
  }

  std::string String(const Json& v, const std::string& what) const {
    if (!v.is_string()) Fail(what + ": expected a string, got " + xgb::Brief(v));
    return v.get<std::string>();
  }

  std::string source_;
};

}  // namespace

std::string Model::ToJson() const {
  Json learner = Json::object();
  learner["objective"] = objective;
  learner["base_score"] = FloatToJson(base_score);
  learner["base_margin"] = FloatToJson(base_margin);
  if (!base_margins.empty()) {  // version 2: a version 1 reader would ignore them
    Json margins = Json::array();
    for (float m : base_margins) margins.push_back(FloatToJson(m));
    learner["base_margins"] = std::move(margins);
  }
  learner["num_class"] = num_class;
  learner["num_groups"] = num_groups;
  learner["num_feature"] = num_feature;
  learner["num_rounds"] = num_rounds;
  learner["best_iteration"] = best_iteration;
  learner["best_score"] = DoubleToString(best_score);
  learner["feature_names"] = feature_names;
  learner["config"] = config;
  Json tree_array = Json::array();
  for (const RegTree& tree : trees) tree_array.push_back(TreeToJson(tree));
  Json root = Json::object();
  root["format"] = kFormatName;
  // The lowest version that holds the model, so that older readers refuse only what they would
  // misread: 3 with categorical splits, 2 with per-group base margins, else 1.
  const bool categorical =
      std::any_of(trees.begin(), trees.end(), [](const RegTree& t) { return t.HasCategorical(); });
  root["version"] = categorical ? 3 : base_margins.empty() ? 1 : 2;
  root["learner"] = std::move(learner);
  root["trees"] = std::move(tree_array);
  root["tree_group"] = tree_group;
  try {
    return root.dump() + "\n";
  } catch (const Json::exception& e) {  // a string that is not UTF-8
    RB_FAIL("cannot write the model as JSON: " << e.what() << "; feature names must be UTF-8");
  }
}

Model Model::FromJson(const std::string& text, const std::string& source_name) {
  // Checked on the text before parsing, so that a hostile file cannot make the parser build
  // (and the messages dump) a deep tree.
  if (xgb::JsonTextDepth(text) > xgb::kMaxModelDepth) {
    RB_FAIL(source_name << ": not a ringboost model (JSON nested more than " << xgb::kMaxModelDepth
                        << " levels deep; a model nests 4)");
  }
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::parse_error& e) {
    RB_FAIL(source_name << ": not valid JSON (a truncated file, or not a model?): " << e.what());
  } catch (const Json::exception& e) {  // e.g. a number beyond the float range
    RB_FAIL(source_name << ": bad JSON value: " << e.what());
  }
  try {
    return ModelReader(source_name).Read(root);
  } catch (const Json::exception& e) {  // a case the checks above missed: still an Error
    RB_FAIL(source_name << ": " << e.what());
  }
}

void Model::Save(const std::string& path) const { WriteFileAtomic(path, ToJson()); }

// Any format ringboost reads, detected by content (model/xgboost_format.h).
Model Model::Load(const std::string& path) { return ReadModelAnyFormat(ReadWholeFile(path), path); }

}  // namespace ringboost
