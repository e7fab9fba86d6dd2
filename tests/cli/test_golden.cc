// Must-show 1 and 3 of the core trainer: XGBoost's mushroom demo config runs unchanged, its hist
// dump matches XGBoost 1.7.4's split for split, and the model file does not depend on nthread.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

namespace fs = std::filesystem;

struct DumpNode {
  bool leaf = false;
  int feature = -1, yes = -1, no = -1, missing = -1;
  double cond = 0, gain = 0, cover = 0, value = 0;
};
using DumpTrees = std::vector<std::map<int, DumpNode>>;

// Parses XGBoost's text dump with stats.
DumpTrees ParseDump(const std::string& text) {
  static const std::regex split_re(
      R"(^\s*(\d+):\[f(\d+)<([^\]]+)\] yes=(\d+),no=(\d+),missing=(\d+),gain=([^,]+),cover=(.+)$)");
  static const std::regex leaf_re(R"(^\s*(\d+):leaf=([^,]+),cover=(.+)$)");
  DumpTrees trees;
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (line.rfind("booster[", 0) == 0) {
      trees.emplace_back();
    } else if (std::regex_match(line, m, split_re)) {
      DumpNode n;
      n.feature = std::stoi(m[2]);
      n.cond = std::stod(m[3]);
      n.yes = std::stoi(m[4]);
      n.no = std::stoi(m[5]);
      n.missing = std::stoi(m[6]);
      n.gain = std::stod(m[7]);
      n.cover = std::stod(m[8]);
      trees.back()[std::stoi(m[1])] = n;
    } else if (std::regex_match(line, m, leaf_re)) {
      DumpNode n;
      n.leaf = true;
      n.value = std::stod(m[2]);
      n.cover = std::stod(m[3]);
      trees.back()[std::stoi(m[1])] = n;
    } else {
      ADD_FAILURE() << "unparsed dump line: " << line;
    }
  }
  return trees;
}

void ExpectRelNear(double expected, double actual, const std::string& what) {
  double tol = 1e-5 * std::max(1.0, std::fabs(expected));
  EXPECT_NEAR(actual, expected, tol) << what;
}

// A folder holding the agaricus files and XGBoost's mushroom.conf, as the demo runs.
class MushroomDir : public ::testing::Test {
 protected:
  void SetUp() override {
    RB_REQUIRE_SHARED_DATA();
    std::string data = test::SharedDataDir() + "/agaricus/";
    for (const char* f : {"agaricus.txt.train", "agaricus.txt.test", "featmap.txt"}) {
      fs::copy_file(data + f, dir_.File(f));
    }
    fs::copy_file(golden() + "/mushroom.conf", dir_.File("mushroom.conf"));
  }
  std::string golden() const { return test::SharedGoldenDir() + "/xgboost-1.7.4-mushroom"; }
  test::TempDir dir_;
};

TEST_F(MushroomDir, HistDumpMatchesXGBoostSplitForSplit) {
  test::RunResult train = test::RunRingboost(dir_.path(), "mushroom.conf tree_method=hist");
  ASSERT_EQ(train.exit_code, 0) << train.err;
  // The eval log is XGBoost's, digit for digit (its lines carry a time stamp first).
  std::string xgb_log = std::regex_replace(test::ReadFile(golden() + "/train.log"),
                                           std::regex(R"(\[\d\d:\d\d:\d\d\] )"), "");
  EXPECT_EQ(train.out, xgb_log);
  ASSERT_TRUE(test::FileExists(dir_.File("0002.model")));
  test::RunResult dump = test::RunRingboost(
      dir_.path(), "mushroom.conf task=dump model_in=0002.model dump_stats=1 name_dump=dump.txt");
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  DumpTrees ours = ParseDump(test::ReadFile(dir_.File("dump.txt")));
  DumpTrees theirs = ParseDump(test::ReadFile(golden() + "/hist/dump.stats.txt"));
  ASSERT_EQ(ours.size(), theirs.size());
  for (std::size_t t = 0; t < theirs.size(); ++t) {
    ASSERT_EQ(ours[t].size(), theirs[t].size()) << "tree " << t;
    for (const auto& [id, x] : theirs[t]) {
      ASSERT_TRUE(ours[t].count(id)) << "tree " << t << " lacks node " << id;
      const DumpNode& o = ours[t].at(id);
      std::string where = "tree " + std::to_string(t) + " node " + std::to_string(id);
      ASSERT_EQ(o.leaf, x.leaf) << where;
      ExpectRelNear(x.cover, o.cover, where + " cover");
      if (x.leaf) {
        ExpectRelNear(x.value, o.value, where + " leaf");
        continue;
      }
      EXPECT_EQ(o.feature, x.feature) << where;
      EXPECT_EQ(o.yes, x.yes) << where;
      EXPECT_EQ(o.no, x.no) << where;
      EXPECT_EQ(o.missing, x.missing) << where;
      EXPECT_FLOAT_EQ(o.cond, x.cond) << where;  // every agaricus value is 1: same cut
      ExpectRelNear(x.gain, o.gain, where + " gain");
    }
  }
}

TEST_F(MushroomDir, DefaultTreeMethodRunsUnchangedAndPredicts) {
  test::RunResult train = test::RunRingboost(dir_.path(), "mushroom.conf");
  ASSERT_EQ(train.exit_code, 0) << train.err;
  test::RunResult pred =
      test::RunRingboost(dir_.path(), "mushroom.conf task=pred model_in=0002.model");
  ASSERT_EQ(pred.exit_code, 0) << pred.err;
  // XGBoost's predictions of the same two trees, to float precision.
  std::istringstream ours(test::ReadFile(dir_.File("pred.txt")));
  std::istringstream theirs(test::ReadFile(golden() + "/hist/pred.txt"));
  double a, b;
  int rows = 0;
  while (theirs >> b) {
    ASSERT_TRUE(ours >> a) << "row " << rows;
    EXPECT_NEAR(a, b, 1e-6) << "row " << rows;
    ++rows;
  }
  EXPECT_EQ(rows, 1611);
  EXPECT_FALSE(ours >> a);
}

// XGBoost 1.7.4's own model predicted with its first round only (iteration_end=1), as its CLI
// wrote pred_iter1.txt: the same text.
TEST_F(MushroomDir, FirstRoundOfXGBoostsModelAsXGBoostPredicts) {
  fs::copy_file(golden() + "/0002.model", dir_.File("xgb.model"));
  const test::RunResult r = test::RunRingboost(
      dir_.path(), "mushroom.conf task=pred model_in=xgb.model iteration_end=1 name_pred=p.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::ReadFile(dir_.File("p.txt")), test::ReadFile(golden() + "/pred_iter1.txt"));
}

TEST_F(MushroomDir, SameModelFileForOneAndTwoThreads) {
  std::string common =
      "mushroom.conf max_depth=6 num_round=5 eta=0.3 subsample=0.8 "
      "colsample_bytree=0.7 colsample_bynode=0.8 seed=7 ";
  ASSERT_EQ(test::RunRingboost(dir_.path(), common + "nthread=1 model_out=m1.json").exit_code, 0);
  ASSERT_EQ(test::RunRingboost(dir_.path(), common + "nthread=2 model_out=m2.json").exit_code, 0);
  std::string m1 = test::ReadFile(dir_.File("m1.json"));
  EXPECT_FALSE(m1.empty());
  EXPECT_EQ(m1, test::ReadFile(dir_.File("m2.json")));
}

// XGBoost's eval log prints each value with 17 decimals (`std::fixed`), a metric of exactly 0 or
// 1 included: XGBoost 1.7.4 prints `test-error:0.00000000000000000  test-auc:1.00000000000000000`.
// One round splitting these rows at 2.5 puts every row on its label's side.
TEST(EvalLog, SeventeenDecimalsAsXGBoost) {
  test::TempDir dir;
  test::WriteFile(dir.File("d.txt"), "0 0:1\n0 0:2\n1 0:3\n1 0:4\n");
  test::WriteFile(dir.File("d.conf"),
                  "objective = binary:logistic\nnum_round = 1\neta = 1\nmin_child_weight = 0\n"
                  "data = d.txt\neval[t] = d.txt\neval_metric = error\neval_metric = auc\n");
  const test::RunResult r = test::RunRingboost(dir.path(), "d.conf model_out=m.model");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "[0]\tt-error:0.00000000000000000\tt-auc:1.00000000000000000\n");
}

}  // namespace
}  // namespace ringboost
