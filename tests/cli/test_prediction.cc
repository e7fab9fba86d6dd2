// task=pred as XGBoost's CLI: one value per line (pred_layout=row for a row per line), data with
// more features than the model refused, and every round used after early stopping.
#include <gtest/gtest.h>

#include <cmath>
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

// The numbers of a file, one per line.
std::vector<double> Values(const std::string& text) {
  std::vector<double> values;
  for (const std::string& line : Lines(text)) values.push_back(std::stod(line));
  return values;
}

// b.model: binary:logistic, 2 rounds, base_score 0.5 (margin 0), trained and predicted on b.txt.
void TrainBinaryModel(const test::TempDir& dir) {
  test::WriteFile(dir.File("b.txt"), "0 0:0.1\n0 0:0.4\n1 0:1.2\n1 0:1.7\n0 0:0.3\n1 0:2.2\n");
  test::WriteFile(dir.File("b.conf"),
                  "objective = binary:logistic\nnum_round = 2\nmin_child_weight = 0\n"
                  "data = \"b.txt\"\ntest:data = \"b.txt\"\n");
  ASSERT_EQ(test::RunRingboost(dir.path(), "train b.conf model_out=b.model").exit_code, 0);
}

// As XGBoost 1.7's CLI, task=pred takes objective= and base_score= over the model's. With the
// model's base_score 0.5 (margin 0 under binary:logistic), reg:squarederror predicts margin + 0.5
// and base_score=0.9 predicts sigmoid(margin + log(0.9 / 0.1)).
TEST(PredictionOverrides, ObjectiveAndBaseScoreReplaceTheModels) {
  test::TempDir dir;
  ASSERT_NO_FATAL_FAILURE(TrainBinaryModel(dir));
  const std::string predict = "predict b.conf model_in=b.model ";
  ASSERT_EQ(test::RunRingboost(dir.path(), predict + "pred_margin=1 name_pred=m.txt").exit_code, 0);
  test::RunResult sq =
      test::RunRingboost(dir.path(), predict + "objective=reg:squarederror name_pred=sq.txt");
  ASSERT_EQ(sq.exit_code, 0) << sq.err;
  EXPECT_NE(sq.err.find("objective=reg:squarederror replaces the model's binary:logistic"),
            std::string::npos)
      << sq.err;
  ASSERT_EQ(test::RunRingboost(dir.path(), predict + "base_score=0.9 name_pred=b9.txt").exit_code,
            0);
  const std::vector<double> margin = Values(test::ReadFile(dir.File("m.txt")));
  const std::vector<double> squared = Values(test::ReadFile(dir.File("sq.txt")));
  const std::vector<double> base9 = Values(test::ReadFile(dir.File("b9.txt")));
  ASSERT_EQ(margin.size(), 6u);
  ASSERT_EQ(squared.size(), 6u);
  ASSERT_EQ(base9.size(), 6u);
  for (std::size_t i = 0; i < margin.size(); ++i) {
    EXPECT_NEAR(squared[i], margin[i] + 0.5, 1e-6) << i;
    EXPECT_NEAR(base9[i], 1.0 / (1.0 + std::exp(-(margin[i] + std::log(9.0)))), 1e-6) << i;
  }
  // An objective with another number of outputs cannot take over the trees: the model's does.
  test::RunResult multi = test::RunRingboost(
      dir.path(), predict + "objective=multi:softprob num_class=3 name_pred=x.txt");
  ASSERT_EQ(multi.exit_code, 0) << multi.err;
  EXPECT_NE(multi.err.find("objective=multi:softprob does not fit model_in=b.model (it makes 3 "
                           "output(s) per row, the model 1): predicting with the model's "
                           "binary:logistic"),
            std::string::npos)
      << multi.err;
  ASSERT_EQ(test::RunRingboost(dir.path(), predict + "name_pred=p.txt").exit_code, 0);
  EXPECT_EQ(test::ReadFile(dir.File("x.txt")), test::ReadFile(dir.File("p.txt")));
}

// iteration_begin / iteration_end predict with a slice of the rounds, as XGBoost's CLI: with base
// margin 0, rounds [1, 2) give the full margins less round 0's, and [2, 2) the base margin alone.
// ntree_limit=N is iteration_end=N. Bounds past the model name the key and its range.
TEST(PredictionOverrides, IterationRangeSlicesTheRounds) {
  test::TempDir dir;
  ASSERT_NO_FATAL_FAILURE(TrainBinaryModel(dir));
  const std::string predict = "predict b.conf model_in=b.model pred_margin=1 ";
  for (const char* args :
       {"name_pred=all.txt", "iteration_end=1 name_pred=first.txt",
        "ntree_limit=1 name_pred=limit.txt", "iteration_begin=1 name_pred=second.txt",
        "iteration_begin=1 iteration_end=2 name_pred=second2.txt",
        "iteration_begin=2 name_pred=none.txt"}) {
    const test::RunResult r = test::RunRingboost(dir.path(), predict + args);
    ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  }
  const std::vector<double> all = Values(test::ReadFile(dir.File("all.txt")));
  const std::vector<double> first = Values(test::ReadFile(dir.File("first.txt")));
  const std::vector<double> second = Values(test::ReadFile(dir.File("second.txt")));
  ASSERT_EQ(all.size(), 6u);
  ASSERT_EQ(first.size(), 6u);
  ASSERT_EQ(second.size(), 6u);
  EXPECT_EQ(test::ReadFile(dir.File("limit.txt")), test::ReadFile(dir.File("first.txt")));
  EXPECT_EQ(test::ReadFile(dir.File("second2.txt")), test::ReadFile(dir.File("second.txt")));
  EXPECT_EQ(Values(test::ReadFile(dir.File("none.txt"))), std::vector<double>(6, 0.0));
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_NE(first[i], 0.0) << i;
    EXPECT_NEAR(second[i], all[i] - first[i], 1e-6) << i;
  }
  const struct {
    const char* args;
    const char* error;
  } bad[] = {
      {"iteration_end=3", "iteration_end=3: must be in [0, 2]: model_in=b.model has 2 rounds"},
      {"ntree_limit=3", "ntree_limit=3: must be in [0, 2]"},
      {"iteration_begin=3", "iteration_begin=3: must be in [0, 2], the end of the rounds"},
      {"iteration_begin=2 iteration_end=1", "iteration_begin=2: must be in [0, 1]"},
      {"ntree_limit=1 iteration_end=2", "ntree_limit=1 and iteration_end=2 both give the end"},
  };
  for (const auto& b : bad) {
    const test::RunResult r = test::RunRingboost(dir.path(), predict + b.args + " name_pred=x.txt");
    EXPECT_EQ(r.exit_code, 1) << b.args;
    EXPECT_NE(r.err.find(b.error), std::string::npos) << b.args << "\n" << r.err;
    EXPECT_FALSE(test::FileExists(dir.File("x.txt"))) << b.args;
  }
}

}  // namespace
}  // namespace ringboost
