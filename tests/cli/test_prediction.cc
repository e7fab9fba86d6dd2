// task=pred as XGBoost's CLI: one value per line (pred_layout=row for a row per line), data with
// more features than the model refused, and every round used after early stopping.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

// The lines of a file.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// 3-class data on one feature: class = floor(x).
const char* kMulti = "0 0:0.1\n0 0:0.5\n1 0:1.2\n1 0:1.7\n2 0:2.3\n2 0:2.9\n";

class Prediction : public ::testing::Test {
 protected:
  void SetUp() override {
    test::WriteFile(dir_.File("m.txt"), kMulti);
    test::WriteFile(dir_.File("m.conf"),
                    "objective = multi:softprob\nnum_class = 3\nnum_round = 2\n"
                    "min_child_weight = 0\ndata = \"m.txt\"\ntest:data = \"m.txt\"\n");
    ASSERT_EQ(test::RunRingboost(dir_.path(), "train m.conf model_out=m.json").exit_code, 0);
  }
  test::TempDir dir_;
};

// XGBoost's CLI writes its flat prediction vector one value a line: row 0's 3 classes, row 1's...
TEST_F(Prediction, SoftprobWritesOneValuePerLineByDefault) {
  ASSERT_EQ(test::RunRingboost(dir_.path(), "predict m.conf model_in=m.json").exit_code, 0);
  const std::vector<std::string> values = Lines(test::ReadFile(dir_.File("pred.txt")));
  ASSERT_EQ(values.size(), 18u);
  ASSERT_EQ(test::RunRingboost(dir_.path(),
                               "predict m.conf model_in=m.json pred_layout=row name_pred=r.txt")
                .exit_code,
            0);
  const std::vector<std::string> rows = Lines(test::ReadFile(dir_.File("r.txt")));
  ASSERT_EQ(rows.size(), 6u);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    EXPECT_EQ(rows[r], values[3 * r] + "\t" + values[3 * r + 1] + "\t" + values[3 * r + 2]);
  }
}

TEST_F(Prediction, MarginsOfEveryClassOnePerLine) {
  ASSERT_EQ(
      test::RunRingboost(dir_.path(), "predict m.conf model_in=m.json pred_margin=1").exit_code, 0);
  EXPECT_EQ(Lines(test::ReadFile(dir_.File("pred.txt"))).size(), 18u);
}

// The model saw feature 0 only: data with feature 1 is refused, naming both counts; data with
// fewer features (here none: every value missing) is predicted.
TEST_F(Prediction, DataWithMoreFeaturesThanTheModelIsRefused) {
  test::WriteFile(dir_.File("wide.txt"), "0 0:0.1 1:5\n2 0:2.5\n");
  test::RunResult r =
      test::RunRingboost(dir_.path(), "predict m.conf model_in=m.json test:data=wide.txt");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("test:data=wide.txt has 2 features"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("model_in=m.json was trained on 1"), std::string::npos) << r.err;
  EXPECT_FALSE(test::FileExists(dir_.File("pred.txt")));
  test::WriteFile(dir_.File("narrow.txt"), "0\n1\n");
  r = test::RunRingboost(dir_.path(), "predict m.conf model_in=m.json test:data=narrow.txt");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(test::ReadFile(dir_.File("pred.txt"))).size(), 6u);
}

TEST_F(Prediction, MoreFeaturesAreRefusedUnderTwoWorkers) {
  test::WriteFile(dir_.File("wide.txt"), "0 0:0.1\n0 0:0.2\n1 0:1.2\n2 0:2.5 1:5\n");
  test::RunResult r =
      test::RunSubmit(dir_.path(), 2, "predict m.conf model_in=m.json test:data=wide.txt");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE((r.out + r.err).find("has 2 features"), std::string::npos) << r.out << r.err;
}

}  // namespace
}  // namespace ringboost
