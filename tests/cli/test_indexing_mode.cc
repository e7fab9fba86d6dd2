// indexing_mode=-1 (detect) settles the base of LibSVM ids once, from the training data over all
// workers: an eval set or a worker's part without an id 0 is not therefore 1-based.
#include <gtest/gtest.h>

#include <string>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

const char* kConf =
    "objective = binary:logistic\nnum_round = 1\nmax_depth = 1\nmin_child_weight = 0\n"
    "eta = 1\neval_metric = error\ndata = \"train.txt\"\n";

// Feature 1 splits the rows; only the first row holds an id 0 (so the ids are 0-based).
std::string TrainRows(int n) {
  std::string text = "1 0:1 1:5\n";
  for (int i = 1; i < n; ++i) text += std::to_string(i % 2) + " 1:" + std::to_string(i % 2) + "\n";
  return text;
}

// The eval log of a 1-round run with `args`, evaluating `test` (a URI).
std::string Trained(const std::string& dir, const std::string& args, int workers = 1,
                    const std::string& test = "test.txt") {
  const std::string run = "train c.conf 'eval[test]=" + test + "' " + args;
  test::RunResult r =
      workers == 1 ? test::RunRingboost(dir, run) : test::RunSubmit(dir, workers, run);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return test::EvalLog(r.out);
}

// test.txt has no id 0: read 1-based on its own, its feature 1 would be feature 0, absent in the
// trees, and every row would get one prediction (error 0.5 instead of 0).
TEST(IndexingMode, DetectedIdsOfEvalSetsCountAsTheTrainingData) {
  test::TempDir dir;
  test::WriteFile(dir.File("c.conf"), kConf);
  test::WriteFile(dir.File("train.txt"), TrainRows(6));
  test::WriteFile(dir.File("test.txt"), "1 1:1\n0 1:0\n");
  const std::string zero_based = Trained(dir.path(), "indexing_mode=0");
  EXPECT_NE(zero_based.find("test-error:0.0"), std::string::npos) << zero_based;
  EXPECT_EQ(Trained(dir.path(), "indexing_mode=-1"), zero_based);
  // The URI's own option detects likewise.
  test::WriteFile(dir.File("c.conf"), std::string(kConf) + "indexing_mode = -1\n");
  EXPECT_EQ(Trained(dir.path(), "", 1, "test.txt?indexing_mode=-1"), zero_based);
}

// Worker 1's half of train.txt has no id 0: it reads the ids as the worker holding the id 0 does.
TEST(IndexingMode, WorkersAgreeOnDetectedIds) {
  test::TempDir dir;
  test::WriteFile(dir.File("c.conf"), kConf);
  test::WriteFile(dir.File("train.txt"), TrainRows(40));
  test::WriteFile(dir.File("test.txt"), "1 1:1\n0 1:0\n");
  const std::string zero_based = Trained(dir.path(), "indexing_mode=0", 2);
  EXPECT_NE(zero_based.find("test-error:0.0"), std::string::npos) << zero_based;
  EXPECT_EQ(Trained(dir.path(), "indexing_mode=-1 model_out=m.json", 2), zero_based);
  test::RunResult dump = test::RunRingboost(dir.path(), "dump m.json");
  EXPECT_NE(dump.out.find("[f1<"), std::string::npos) << dump.out;
}

}  // namespace
}  // namespace ringboost
