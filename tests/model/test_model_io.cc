// Model save/load: exact round trips, deterministic bytes, and an Error naming the file for
// every kind of bad file.
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "common/error.h"
#include "helpers.h"
#include "model/model.h"
#include "model/xgboost_format.h"
#include "model_builders.h"

namespace ringboost {
namespace {

using nlohmann::ordered_json;
using test::ExpectSameModel;
using test::SmallModel;
using test::TempDir;

TEST(ModelIo, SaveLoadRoundTripIsExactAndResaveIsByteIdentical) {
  TempDir dir;
  const Model model = SmallModel();
  model.Save(dir.File("m.json"));
  const Model loaded = Model::Load(dir.File("m.json"));
  ExpectSameModel(model, loaded);
  loaded.Save(dir.File("again.json"));
  EXPECT_EQ(test::ReadFile(dir.File("m.json")), test::ReadFile(dir.File("again.json")));
  EXPECT_EQ(test::ReadFile(dir.File("m.json")), model.ToJson());
}

TEST(ModelIo, HeaderNamesFormatAndVersionFirst) {
  const std::string text = SmallModel().ToJson();
  EXPECT_EQ(text.rfind("{\"format\":\"ringboost-model\",\"version\":1,\"learner\":{", 0), 0u)
      << text.substr(0, 80);
  EXPECT_EQ(text.back(), '\n');
}

TEST(ModelIo, SaveReplacesTheFileAndLeavesNoTemporary) {
  TempDir dir;
  test::WriteFile(dir.File("m.json"), "old");
  SmallModel().Save(dir.File("m.json"));
  EXPECT_EQ(Model::Load(dir.File("m.json")).num_rounds, 2);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST(ModelIo, EveryFloatBitPatternRoundTrips) {
  // 100k random finite floats (all exponents, denormals included) plus the non-finite ones,
  // stored in a chain tree's float fields.
  std::mt19937 rng(7);
  Model model;
  model.num_feature = 1;
  model.num_rounds = 1;
  model.tree_group = {0};
  RegTree tree;
  for (int nid = 0; tree.NumNodes() < 20001; nid += 2) tree.Split(nid, 0, 0.0f, false, 0.0f);
  auto random_float = [&rng] {
    float f;
    do {
      uint32_t bits = rng();
      std::memcpy(&f, &bits, sizeof(f));
    } while (!std::isfinite(f));
    return f;
  };
  for (TreeNode& node : tree.nodes()) {
    node.split_cond = random_float();
    node.leaf_value = random_float();
    node.base_weight = random_float();
    node.gain = random_float();
    node.sum_hess = random_float();
  }
  tree[1].leaf_value = std::numeric_limits<float>::infinity();
  tree[2].leaf_value = -std::numeric_limits<float>::infinity();
  tree[3].leaf_value = std::numeric_limits<float>::quiet_NaN();
  tree[4].leaf_value = -0.0f;
  tree[5].leaf_value = std::numeric_limits<float>::max();
  tree[6].leaf_value = std::numeric_limits<float>::denorm_min();
  model.trees.push_back(tree);
  const Model loaded = Model::FromJson(model.ToJson(), "mem");
  ExpectSameModel(model, loaded);
}

// ---- bad files ------------------------------------------------------------------------------

std::string LoadError(const std::string& path) {
  try {
    Model::Load(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "(loaded without error)";
}

// Writes SmallModel() edited by `edit` and returns the message of loading it.
template <typename Edit>
std::string ErrorAfterEdit(const TempDir& dir, Edit edit) {
  ordered_json j = ordered_json::parse(SmallModel().ToJson());
  edit(j);
  return LoadError(test::WriteFile(dir.File("bad.json"), j.dump()));
}

class BadModelFile : public ::testing::Test {
 protected:
  void ExpectError(const std::string& message, const std::string& part) {
    EXPECT_EQ(message.rfind(dir_.File("bad.json") + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(part), std::string::npos) << message;
  }
  TempDir dir_;
};

TEST_F(BadModelFile, Truncated) {
  const std::string text = SmallModel().ToJson();
  for (size_t len : {size_t{0}, size_t{1}, text.size() / 3, text.size() - 3}) {
    test::WriteFile(dir_.File("bad.json"), text.substr(0, len));
    ExpectError(LoadError(dir_.File("bad.json")), len == 0 ? "the file is empty (a truncated file"
                                                           : "not valid JSON (a truncated file");
  }
}

TEST_F(BadModelFile, BinaryGarbage) {
  // Read as XGBoost's binary format (its "binf" header), which ends too soon.
  test::WriteFile(dir_.File("bad.json"), std::string("binf\0\0\x01\xff", 8));
  ExpectError(LoadError(dir_.File("bad.json")), "truncated XGBoost binary model, or not a model");
}

// Data, a config or a dump given as a model: text, which no 1.x binary model is (its first 136
// bytes hold zeros), not "an objective name of 8026307546333406817 bytes".
TEST_F(BadModelFile, TextIsNotAModel) {
  for (const std::string text :
       {std::string("1 0:1.5 3:2\n0 1:0.25\n") + std::string(300, '#'),
        std::string("binf") + std::string(200, 'x'),
        std::string("booster[0]:\n0:[f29<-9.53674316e-07] yes=1,no=2\n")}) {
    test::WriteFile(dir_.File("bad.json"), text);
    ExpectError(LoadError(dir_.File("bad.json")), "not a model: it holds text (it starts with");
  }
}

TEST_F(BadModelFile, MissingFileNamesThePath) {
  const std::string message = LoadError(dir_.File("absent.json"));
  EXPECT_NE(message.find(dir_.File("absent.json")), std::string::npos) << message;
}

TEST_F(BadModelFile, WrongVersion) {
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["version"] = 4; }),
              "version 4 is not supported");
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["version"] = "1"; }),
              "version: expected an integer");
}

TEST_F(BadModelFile, WrongFormatAndXgboostModel) {
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["format"] = "other"; }),
              "not a ringboost model");
  ExpectError(ErrorAfterEdit(dir_,
                             [](ordered_json& j) {
                               j = ordered_json::parse(R"({"learner":{},"version":[1,7,4]})");
                             }),
              "XGBoost model");
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j = ordered_json::array(); }),
              "not a ringboost model");
}

TEST_F(BadModelFile, ChildOutOfRange) {
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["trees"][1]["left_children"][0] = 5; }),
              "tree 1: left_children: 5 is outside [-1, 4]");
  ExpectError(
      ErrorAfterEdit(dir_, [](ordered_json& j) { j["trees"][0]["right_children"][2] = -7; }),
      "tree 0: right_children: -7 is outside");
}

TEST_F(BadModelFile, Cycle) {
  // Node 2's left child points back to the root.
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["trees"][0]["left_children"][2] = 0; }),
              "tree 0 node 2: child 0 is reached twice (a cycle)");
  // Node 2's children are node 1 (already the root's child) and 4.
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["trees"][3]["left_children"][2] = 1; }),
              "is reached twice");
}

TEST_F(BadModelFile, InconsistentStructure) {
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["trees"][0]["parents"][3] = 0; }),
              "tree 0 node 2: child 3 names parent 0");
  ExpectError(
      ErrorAfterEdit(dir_, [](ordered_json& j) { j["trees"][0]["right_children"][0] = -1; }),
      "has one child only");
  ExpectError(ErrorAfterEdit(dir_,
                             [](ordered_json& j) {
                               j["trees"][0]["left_children"][2] = -1;
                               j["trees"][0]["right_children"][2] = -1;
                             }),
              "tree 0 node 3: not reachable from the root");
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["trees"][0]["split_indices"][0] = 3; }),
              "split feature 3 is not below num_feature 3");
}

TEST_F(BadModelFile, BadTypes) {
  ExpectError(
      ErrorAfterEdit(dir_, [](ordered_json& j) { j["trees"][0]["split_conditions"][0] = "x"; }),
      "tree 0: split_conditions: expected a number, got \"x\"");
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["trees"][0]["num_nodes"] = 5.0; }),
              "num_nodes: expected an integer");
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["trees"][0]["parents"] = 1; }),
              "'parents' must be an array");
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["learner"]["objective"] = 1; }),
              "objective: expected a string");
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["learner"]["best_score"] = "abc"; }),
              "best_score: \"abc\" is not a number");
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["trees"][0]["leaf_values"][1] = 1e39; }),
              "bad JSON value: [json.exception.out_of_range.406] number overflow");
}

TEST_F(BadModelFile, WrongCounts) {
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["trees"][0]["leaf_values"].erase(0); }),
              "tree 0: 'leaf_values' has 4 entries, expected num_nodes = 5");
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["learner"]["num_rounds"] = 3; }),
              "4 trees, expected num_rounds x num_groups = 6");
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["tree_group"][3] = 2; }),
              "tree_group: 2 is outside [0, 1]");
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["tree_group"].erase(3); }),
              "tree_group has 3 entries for 4 trees");
  ExpectError(
      ErrorAfterEdit(dir_, [](ordered_json& j) { j["trees"][2]["num_nodes"] = 2000000000; }),
      "tree 2: 'parents' has 5 entries, expected num_nodes = 2000000000");
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j.erase("trees"); }),
              "model: missing 'trees'");
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["learner"]["best_iteration"] = 2; }),
              "best_iteration 2 is not below num_rounds 2");
  ExpectError(ErrorAfterEdit(dir_,
                             [](ordered_json& j) {
                               j["learner"]["feature_names"] = ordered_json::array({"a", "b"});
                             }),
              "feature_names has 2 names for " + std::to_string(test::SmallModel().num_feature) +
                  " features (num_feature)");
  // multi:* predicts num_class values a row: one group per class, or rows get mixed.
  ExpectError(ErrorAfterEdit(dir_, [](ordered_json& j) { j["learner"]["num_class"] = 3; }),
              "objective multi:softmax has num_class 3 but 2 output groups (num_groups)");
}

// The same through XGBoost's document, whose ringboost_num_class attribute sets num_class of a
// one-group model.
TEST(ModelIoBounds, MulticlassGroupsMustBeTheClassesInXGBoostFormatsToo) {
  Model m = SmallModel();
  m.objective = "multi:softprob";
  m.num_groups = 1;
  m.num_class = 3;
  m.num_rounds = 4;
  m.best_iteration = -1;
  m.tree_group.assign(4, 0);
  try {
    ReadModelAnyFormat(ToXGBoostJson(m), "m.json");
    ADD_FAILURE() << "loaded";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("m.json: objective multi:softprob has num_class 3 but 1 "
                                          "output groups",
                                          0),
              0u)
        << e.what();
  }
}

// Every prefix and every one-byte change of a valid file either loads or throws Error: nothing
// else escapes (no crash, no foreign exception type).
TEST(ModelIoFuzz, CorruptedBytesGiveErrorsOnly) {
  const std::string text = SmallModel().ToJson();
  int errors = 0;
  for (size_t len = 0; len + 1 < text.size(); ++len) {  // all but the final newline
    EXPECT_THROW(Model::FromJson(text.substr(0, len), "cut"), Error) << len;
  }
  for (size_t pos = 0; pos < text.size(); ++pos) {
    for (char c : {'0', '9', '-', '"', ']', '{', 'x', '\0'}) {
      std::string bad = text;
      bad[pos] = c;
      try {
        Model::FromJson(bad, "mutated");
      } catch (const Error& e) {
        ++errors;
        EXPECT_EQ(std::string(e.what()).rfind("mutated: ", 0), 0u) << e.what();
      }
    }
  }
  EXPECT_GT(errors, 0);
}

}  // namespace
}  // namespace ringboost

namespace ringboost {
namespace {

TEST(ModelIoBounds, DeepNestingIsRejectedBeforeParsing) {
  for (const std::string& text : {std::string(100000, '[') + std::string(100000, ']'),
                                  "{\"format\":\"ringboost-model\",\"learner\":" +
                                      std::string(20, '{') + std::string(20, '}') + "}"}) {
    try {
      Model::FromJson(text, "deep.json");
      ADD_FAILURE() << "loaded";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                "deep.json: not a ringboost model (JSON nested more than 16 levels deep; a model "
                "nests 4)");
    }
  }
  // Brackets inside strings do not count.
  Model m = test::SmallModel();
  m.config = std::string(100, '[');
  EXPECT_EQ(Model::FromJson(m.ToJson(), "m").config, m.config);
}

TEST(ModelIoBounds, GroupsBeyondTheTreesAndHugeFeatureCountsAreErrors) {
  test::TempDir dir;
  auto load_error = [&](auto edit) {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(test::SmallModel().ToJson());
    edit(j);
    try {
      Model::FromJson(j.dump(), "m.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(loaded)");
  };
  EXPECT_EQ(load_error([](auto& j) {
              j["learner"]["num_groups"] = 100000000;
              j["learner"]["num_rounds"] = 0;
              j["trees"] = nlohmann::ordered_json::array();
              j["tree_group"] = nlohmann::ordered_json::array();
            }),
            "m.json: num_groups 100000000 is more than its 0 trees (one per group and round)");
  EXPECT_EQ(load_error([](auto& j) { j["learner"]["num_feature"] = 2147483648u; }),
            "m.json: num_feature: 2147483648 is outside [0, 2147483647]");
  EXPECT_EQ(load_error([](auto& j) {
              j["learner"]["num_feature"] = 2147483647;
              j["learner"]["feature_names"] = nlohmann::ordered_json::array();
            }),
            "(loaded)");
}

}  // namespace
}  // namespace ringboost
