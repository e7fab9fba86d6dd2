// XGBoost 1.7.4's own mushroom models (golden/xgboost-1.7.4-mushroom/*model.json) read into a
// Model: our dumps must equal XGBoost's dumps byte for byte, and PredictMargin its predictions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "helpers.h"
#include "model/model.h"
#include "tree/predict.h"

namespace ringboost {
namespace {

// Float-typed JSON so that XGBoost's shortest float decimals are read with strtof, exactly.
using FloatJson =
    nlohmann::basic_json<std::map, std::vector, std::string, bool, int64_t, uint64_t, float>;

std::string GoldenDir() {
  const std::string dir = test::SharedGoldenDir();
  return dir.empty() ? dir : dir + "/xgboost-1.7.4-mushroom";
}

// One XGBoost JSON tree, rebuilt through RegTree::Split in node-id order (XGBoost numbers the
// children of each split with the next two ids, so Split must return the same ids).
RegTree TreeFromXgboost(const FloatJson& j) {
  const auto& left = j.at("left_children");
  const auto& right = j.at("right_children");
  RegTree tree;
  for (size_t nid = 0; nid < left.size(); ++nid) {
    if (left[nid].get<int>() < 0) continue;
    EXPECT_EQ(tree.Split(static_cast<int>(nid), j.at("split_indices")[nid].get<uint32_t>(),
                         j.at("split_conditions")[nid].get<float>(),
                         j.at("default_left")[nid].get<int>() != 0,
                         j.at("loss_changes")[nid].get<float>()),
              left[nid].get<int>());
    EXPECT_EQ(right[nid].get<int>(), left[nid].get<int>() + 1);
  }
  EXPECT_EQ(static_cast<size_t>(tree.NumNodes()), left.size());
  for (int nid = 0; nid < tree.NumNodes(); ++nid) {
    tree[nid].base_weight = j.at("base_weights")[nid].get<float>();
    tree[nid].sum_hess = j.at("sum_hessian")[nid].get<float>();
    // XGBoost keeps a leaf's value in split_conditions.
    if (tree[nid].IsLeaf()) tree[nid].leaf_value = j.at("split_conditions")[nid].get<float>();
  }
  return tree;
}

Model ModelFromXgboost(const std::string& path) {
  const FloatJson j = FloatJson::parse(test::ReadFile(path));
  const FloatJson& learner = j.at("learner");
  const FloatJson& params = learner.at("learner_model_param");
  Model m;
  m.objective = learner.at("objective").at("name").get<std::string>();
  m.base_score = std::stof(params.at("base_score").get<std::string>());
  m.base_margin = 0.0f;  // logit(0.5) for binary:logistic
  m.num_feature = std::stoul(params.at("num_feature").get<std::string>());
  const FloatJson& gbtree = learner.at("gradient_booster").at("model");
  for (const FloatJson& tree : gbtree.at("trees")) m.trees.push_back(TreeFromXgboost(tree));
  for (const FloatJson& group : gbtree.at("tree_info")) m.tree_group.push_back(group.get<int>());
  m.num_rounds = static_cast<int>(m.trees.size());
  return m;
}

class GoldenMushroom : public ::testing::Test {
 protected:
  void SetUp() override {
    if (GoldenDir().empty()) GTEST_SKIP() << "../shared/golden not found";
    model_ = ModelFromXgboost(GoldenDir() + "/model.json");
    ASSERT_EQ(model_.trees.size(), 2u);
  }
  std::string Golden(const std::string& name) const {
    const std::string text = test::ReadFile(GoldenDir() + "/" + name);
    EXPECT_FALSE(text.empty()) << name;
    return text;
  }
  Model model_;
};

TEST_F(GoldenMushroom, TextDumpEqualsXgboost) {
  EXPECT_EQ(DumpText(model_, nullptr, false), Golden("dump.raw.txt"));
  EXPECT_EQ(DumpText(model_, nullptr, true), Golden("dump.stats.txt"));
}

TEST_F(GoldenMushroom, TextDumpWithFeatureMapEqualsXgboost) {
  RB_REQUIRE_SHARED_DATA();
  const FeatureMap fmap = FeatureMap::Load(test::SharedDataDir() + "/agaricus/featmap.txt");
  EXPECT_EQ(DumpText(model_, &fmap, false), Golden("dump.nice.txt"));
}

TEST_F(GoldenMushroom, JsonDumpEqualsXgboost) {
  EXPECT_EQ(DumpJson(model_, nullptr, true), Golden("dump.json"));
}

TEST_F(GoldenMushroom, HistModelDumpEqualsXgboost) {
  const Model hist = ModelFromXgboost(GoldenDir() + "/hist/model.json");
  EXPECT_EQ(DumpText(hist, nullptr, true), Golden("hist/dump.stats.txt"));
}

TEST_F(GoldenMushroom, SurvivesOurOwnSaveAndLoad) {
  const Model loaded = Model::FromJson(model_.ToJson(), "mem");
  EXPECT_EQ(DumpText(loaded, nullptr, true), Golden("dump.stats.txt"));
  EXPECT_EQ(loaded.ToJson(), model_.ToJson());
}

// A minimal LibSVM reader for agaricus.txt.test ("label idx:value ..."), so that this test does
// not depend on the data module.
DataSet ReadLibsvm(const std::string& path) {
  DataSet data;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    float label;
    fields >> label;
    data.label.push_back(label);
    std::string pair;
    while (fields >> pair) {
      const size_t colon = pair.find(':');
      data.index.push_back(static_cast<uint32_t>(std::stoul(pair.substr(0, colon))));
      data.value.push_back(std::stof(pair.substr(colon + 1)));
      data.num_col = std::max(data.num_col, data.index.back() + 1);
    }
    data.row_ptr.push_back(data.index.size());
  }
  return data;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string Printed(float value) {  // as XGBoost's CLI prints predictions (%.9g)
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(value));
  return buf;
}

TEST_F(GoldenMushroom, PredictMarginEqualsXgboostOnAgaricusTest) {
  RB_REQUIRE_SHARED_DATA();
  const DataSet test_data = ReadLibsvm(test::SharedDataDir() + "/agaricus/agaricus.txt.test");
  const std::vector<std::string> golden = Lines(Golden("pred_margin.txt"));
  ASSERT_EQ(test_data.NumRows(), golden.size());
  const std::vector<float> margins = PredictMargin(model_, test_data, 0, 2);
  ASSERT_EQ(margins.size(), golden.size());
  for (size_t r = 0; r < golden.size(); ++r) {
    ASSERT_EQ(Printed(margins[r]), golden[r]) << "row " << r;
  }
  // The sigmoid of binary:logistic, in float as XGBoost computes it, gives pred.txt.
  const std::vector<std::string> probs = Lines(Golden("pred.txt"));
  ASSERT_EQ(probs.size(), golden.size());
  for (size_t r = 0; r < probs.size(); ++r) {
    ASSERT_EQ(Printed(1.0f / (1.0f + std::exp(-margins[r]))), probs[r]) << "row " << r;
  }
}

TEST_F(GoldenMushroom, FirstRoundOnlyEqualsXgboostIterationOne) {
  RB_REQUIRE_SHARED_DATA();
  const DataSet test_data = ReadLibsvm(test::SharedDataDir() + "/agaricus/agaricus.txt.test");
  const std::vector<std::string> golden = Lines(Golden("pred_iter1.txt"));
  const std::vector<float> margins = PredictMargin(model_, test_data, 1, 1);
  ASSERT_EQ(margins.size(), golden.size());
  for (size_t r = 0; r < golden.size(); ++r) {
    ASSERT_EQ(Printed(1.0f / (1.0f + std::exp(-margins[r]))), golden[r]) << "row " << r;
  }
}

}  // namespace
}  // namespace ringboost

namespace ringboost {
namespace {

// The same end to end through the data module's reader, as `ringboost predict` reads data.
TEST_F(GoldenMushroom, PredictMarginFromLoadDataEqualsXgboost) {
  RB_REQUIRE_SHARED_DATA();
  const DataSet test_data =
      LoadData(test::SharedDataDir() + "/agaricus/agaricus.txt.test?format=libsvm", LoadOptions());
  const std::vector<std::string> golden = Lines(Golden("pred_margin.txt"));
  const std::vector<float> margins = PredictMargin(model_, test_data, 0, 0);
  ASSERT_EQ(margins.size(), golden.size());
  for (size_t r = 0; r < golden.size(); ++r) {
    ASSERT_EQ(Printed(margins[r]), golden[r]) << "row " << r;
  }
}

}  // namespace
}  // namespace ringboost
