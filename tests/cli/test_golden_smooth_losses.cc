// reg:absoluteerror and reg:quantileerror train as XGBoost 3.4.1 trains them (its smooth MM
// losses, no leaf refresh): ringboost trained with the golden models' parameters on the same rows
// of machine.data (../shared/golden/xgboost-3.4.1/machine-reg-*/params.json) estimates the same
// base_score, grows the same first trees (splits, and leaf values to float rounding) and predicts
// the golden test rows as XGBoost's model does.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "helpers.h"
#include "model/golden_xgboost.h"
#include "model/model.h"
#include "objective/objective.h"
#include "tree/predict.h"

namespace ringboost {
namespace {

// What params.json's "data" says: machine.data's columns 2..7 as features 0..5, column 8 (PRP)
// the label, rows i % 5 != 0 the training rows.
void WriteMachineTrainingRows(const std::string& path) {
  std::ifstream in(test::SharedDataDir() + "/machine/machine.data");
  ASSERT_TRUE(in.good());
  std::ofstream out(path);
  std::string line;
  for (int i = 0; std::getline(in, line);) {
    if (line.find(',') == std::string::npos) continue;
    std::vector<std::string> fields;
    std::istringstream split(line);
    for (std::string f; std::getline(split, f, ',');) fields.push_back(f);
    ASSERT_GE(fields.size(), 9u) << line;
    if (i++ % 5 == 0) continue;
    out << fields[8];
    for (int j = 0; j < 6; ++j) out << ' ' << j << ':' << fields[j + 2];
    out << '\n';
  }
}

// params.json's parameters as config lines, and its rounds.
std::string GoldenConfig(const std::string& dir) {
  const nlohmann::json j = nlohmann::json::parse(test::ReadFile(dir + "/params.json"));
  std::string conf;
  for (const auto& [key, value] : j.at("params").items()) {
    if (key == "tree_method") continue;  // ringboost's only method, hist
    conf += key + " = " + (value.is_string() ? value.get<std::string>() : value.dump()) + "\n";
  }
  return conf + "num_round = " + j.at("num_round").dump() + "\n";
}

void ExpectSameTree(const RegTree& ours, const RegTree& theirs, const std::string& what) {
  ASSERT_EQ(ours.NumNodes(), theirs.NumNodes()) << what;
  for (int nid = 0; nid < theirs.NumNodes(); ++nid) {
    const TreeNode& o = ours[nid];
    const TreeNode& x = theirs[nid];
    const std::string where = what + " node " + std::to_string(nid);
    ASSERT_EQ(o.IsLeaf(), x.IsLeaf()) << where;
    if (x.IsLeaf()) {
      EXPECT_NEAR(o.leaf_value, x.leaf_value, 1e-5 * std::max(1.0f, std::fabs(x.leaf_value)))
          << where;
    } else {
      EXPECT_EQ(o.feature, x.feature) << where;
      EXPECT_EQ(o.split_cond, x.split_cond) << where;
      EXPECT_EQ(o.default_left, x.default_left) << where;
    }
  }
}

class SmoothLossGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(SmoothLossGolden, BaseScoreTreesAndPredictionsAreXGBoost341s) {
  const std::string dir = test::Golden341("machine-reg-" + GetParam());
  if (dir.empty() || test::SharedDataDir().empty()) {
    GTEST_SKIP() << "../shared/golden or ../shared/data not found next to the source tree";
  }
  test::TempDir run;
  WriteMachineTrainingRows(run.File("train.txt"));
  test::WriteFile(run.File("g.conf"), GoldenConfig(dir) + "data = \"train.txt\"\n");
  const test::RunResult r = test::RunRingboost(run.path(), "train g.conf model_out=m.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Model ours = Model::Load(run.File("m.json"));
  const Model theirs = Model::Load(dir + "/model.json");
  EXPECT_NEAR(ours.base_score, theirs.base_score, 1e-6 * std::fabs(theirs.base_score));
  ASSERT_EQ(ours.trees.size(), theirs.trees.size());
  for (int t = 0; t < 2; ++t)
    ExpectSameTree(ours.trees[t], theirs.trees[t], "tree " + std::to_string(t));
  std::vector<float> pred = PredictMargin(ours, test::GoldenTestRows(dir), 0, 1);
  Params params;
  params.objective = ours.objective;
  Objective::Create(params)->PredTransform(&pred);
  test::ExpectClose(pred, test::ReadNumbers(dir + "/pred.txt"), 1e-5, "prediction");
}

INSTANTIATE_TEST_SUITE_P(XGBoost341, SmoothLossGolden,
                         ::testing::Values("absoluteerror", "quantileerror"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace ringboost
