// XGBoost 1.x's binary model (the CLI's `.model` files) -> Model. Read only.
//
// Layout (little-endian, packed C structs as 1.x wrote them; docs/model-format.md):
//   ["binf"]  optional header
//   learner param, 136 bytes: float base_score; uint32 num_feature; int32 num_class;
//     int32 contain_extra_attrs; int32 contain_eval_metrics; uint32 major, minor;
//     uint32 num_target; int32 boost_from_average; int32 reserved[25]
//   string objective, string booster          (uint64 length, then the bytes)
//   gbtree param, 160 bytes: int32 num_trees; int32 num_parallel_tree; int32 num_feature, pad;
//     int64 pbuffer; int32 num_output_group, size_leaf_vector; int32 reserved[32]
//   per tree: tree param, 148 bytes (int32 num_roots, num_nodes, num_deleted, max_depth,
//     num_feature, size_leaf_vector, reserved[31]); num_nodes nodes of 20 bytes (int32 parent,
//     left, right; uint32 split index, top bit = default left; float split condition or leaf
//     value); num_nodes stats of 16 bytes (float loss_chg, sum_hess, base_weight; int32 count)
//   int32 tree_info[num_trees]
//   if contain_extra_attrs: uint64 count, then (string, string) pairs (best_iteration, ...)
// Every read is bounds-checked: a truncated or foreign file is an error naming the source.
#include <cstdint>
#include <cstring>
#include <string>

#include "common/error.h"
#include "model/xgboost_doc.h"
#include "model/xgboost_format.h"

namespace ringboost {
namespace {

constexpr std::size_t kLearnerParamBytes = 136;
constexpr std::size_t kGBTreeParamBytes = 160;
constexpr std::size_t kTreeParamBytes = 148;
constexpr std::size_t kNodeBytes = 20;
constexpr std::size_t kStatBytes = 16;

class BinaryReader {
 public:
  BinaryReader(const std::string& bytes, std::string source)
      : bytes_(bytes), source_(std::move(source)) {}

  [[noreturn]] void Fail(const std::string& what) const {
    throw Error(source_ + ": " + what + " (byte " + std::to_string(pos_) + ")");
  }

  // The next `n` bytes; fails when the file ends first.
  const char* Take(std::size_t n, const char* what) {
    if (n > bytes_.size() - pos_) {
      Fail(std::string("truncated XGBoost binary model, or not a model: the file ends in ") + what);
    }
    const char* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }
  template <typename T>
  T At(const char* base, std::size_t offset) const {
    T v;
    std::memcpy(&v, base + offset, sizeof(T));
    return v;
  }
  std::string String(const char* what, std::size_t max_len) {
    const uint64_t n = At<uint64_t>(Take(8, what), 0);
    if (n > max_len) Fail(std::string(what) + " of " + std::to_string(n) + " bytes");
    return std::string(Take(static_cast<std::size_t>(n), what), static_cast<std::size_t>(n));
  }
  bool AtEnd() const { return pos_ == bytes_.size(); }
  void Skip(std::size_t n) { pos_ += n; }
  bool StartsWith(const char* magic) const { return bytes_.compare(0, 4, magic) == 0; }

 private:
  const std::string& bytes_;
  std::string source_;
  std::size_t pos_ = 0;
};

xgb::Json ReadTree(BinaryReader* in, int id) {
  const char* param = in->Take(kTreeParamBytes, "a tree's parameters");
  const int32_t num_nodes = in->At<int32_t>(param, 4);
  const int32_t num_deleted = in->At<int32_t>(param, 8);
  const int32_t leaf_vector = in->At<int32_t>(param, 20);
  if (num_nodes < 1 || num_nodes > (1 << 28)) {
    in->Fail("tree " + std::to_string(id) + " has " + std::to_string(num_nodes) + " nodes");
  }
  const char* nodes = in->Take(kNodeBytes * num_nodes, "a tree's nodes");
  const char* stats = in->Take(kStatBytes * num_nodes, "a tree's node statistics");
  if (leaf_vector != 0) in->Fail("tree " + std::to_string(id) + " has vector leaves");
  xgb::Json t = xgb::Json::object();
  for (const char* key :
       {"base_weights", "default_left", "left_children", "loss_changes", "parents",
        "right_children", "split_conditions", "split_indices", "sum_hessian"}) {
    t[key] = xgb::Json::array();
  }
  for (int32_t i = 0; i < num_nodes; ++i) {
    const char* n = nodes + kNodeBytes * i;
    const char* s = stats + kStatBytes * i;
    const int32_t parent = in->At<int32_t>(n, 0);
    const uint32_t sindex = in->At<uint32_t>(n, 12);
    // The parent's top bit marks a left child; the root's parent is -1.
    t["parents"].push_back(parent == -1 ? int64_t{INT32_MAX} : int64_t{parent & INT32_MAX});
    t["left_children"].push_back(in->At<int32_t>(n, 4));
    t["right_children"].push_back(in->At<int32_t>(n, 8));
    t["split_indices"].push_back(sindex & 0x7fffffffu);
    t["default_left"].push_back(sindex >> 31);
    t["split_conditions"].push_back(in->At<float>(n, 16));
    t["loss_changes"].push_back(in->At<float>(s, 0));
    t["sum_hessian"].push_back(in->At<float>(s, 4));
    t["base_weights"].push_back(in->At<float>(s, 8));
  }
  t["tree_param"] = xgb::Json{{"num_deleted", std::to_string(num_deleted)},
                              {"num_nodes", std::to_string(num_nodes)}};
  return t;
}

}  // namespace

// Builds the same document the JSON reader takes, so that one reader checks both.
Model FromXGBoostBinary(const std::string& bytes, const std::string& source) {
  BinaryReader in(bytes, source);
  if (in.StartsWith("binf")) in.Skip(4);
  const char* lp = in.Take(kLearnerParamBytes, "the learner's parameters");
  const float base_score = in.At<float>(lp, 0);
  const uint32_t num_feature = in.At<uint32_t>(lp, 4);
  const int32_t num_class = in.At<int32_t>(lp, 8);
  const int32_t extra_attrs = in.At<int32_t>(lp, 12);
  const uint32_t major = in.At<uint32_t>(lp, 20);
  const std::string objective = in.String("the objective name", 256);
  const std::string booster = in.String("the booster name", 256);
  if (major > 1 || num_class < 0 || objective.empty()) {
    in.Fail("not an XGBoost 1.x binary model (nor a ringboost or XGBoost JSON/UBJSON model)");
  }
  xgb::Json learner = xgb::Json::object();
  learner["learner_model_param"] = xgb::Json{{"base_score", xgb::Json(base_score).dump()},
                                             {"num_class", std::to_string(num_class)},
                                             {"num_feature", std::to_string(num_feature)}};
  learner["objective"] = xgb::Json{{"name", objective}};
  xgb::Json trees = xgb::Json::array(), tree_info = xgb::Json::array();
  if (booster == "gbtree" || booster == "dart") {
    const char* gp = in.Take(kGBTreeParamBytes, "the booster's parameters");
    const int32_t num_trees = in.At<int32_t>(gp, 0);
    if (num_trees < 0 || num_trees > (1 << 24)) {
      in.Fail("the booster has " + std::to_string(num_trees) + " trees");
    }
    for (int32_t i = 0; i < num_trees; ++i) trees.push_back(ReadTree(&in, i));
    const char* info = in.Take(sizeof(int32_t) * num_trees, "the trees' groups");
    for (int32_t i = 0; i < num_trees; ++i) tree_info.push_back(in.At<int32_t>(info, 4 * i));
  }
  xgb::Json attrs = xgb::Json::object();
  if (extra_attrs != 0 && booster == "gbtree") {
    const uint64_t count = in.At<uint64_t>(in.Take(8, "the attributes"), 0);
    for (uint64_t i = 0; i < count && i < 4096; ++i) {
      std::string key = in.String("an attribute name", 1 << 20);
      attrs[key] = in.String("an attribute value", 1 << 24);
    }
  }
  learner["attributes"] = std::move(attrs);
  learner["feature_names"] = xgb::Json::array();
  learner["gradient_booster"] = xgb::Json{
      {"name", booster},
      {"model",
       xgb::Json{{"gbtree_model_param", xgb::Json{{"num_trees", std::to_string(trees.size())}}},
                 {"tree_info", std::move(tree_info)},
                 {"trees", std::move(trees)}}}};
  return xgb::FromDocument(xgb::Json{{"learner", std::move(learner)}}, source);
}

}  // namespace ringboost
