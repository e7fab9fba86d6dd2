// The distributed promise on real data: 2, 3 and 4 workers, under mpirun and under
// ringboost-submit (local), write the model file one process writes, byte for byte, and print the
// same eval log, on agaricus, LightGBM's binary (weighted), multiclass and rank sets, and a
// generated 200k-row dense set; and their explanations equal one process's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

// Runs `ringboost <args>` in `dir` as `n` workers under `launcher` (ringboost-submit or mpirun),
// one thread a worker; returns what the workers printed.
std::string RunWorkers(const std::string& dir, const std::string& launcher, int n,
                       const std::string& args) {
  // One thread a worker: up to 4 workers share this machine's cores (OpenMP threads that spin
  // while others hold the cores made the 4-worker runs tens of times slower); neither models nor
  // predictions depend on the thread count.
  const std::string all = args + " nthread=1";
  test::RunResult r;
#if defined(RINGBOOST_MPIEXEC)
  if (launcher == "mpirun") {
    r = test::RunInDir(dir,
                       "timeout 300 env OMPI_ALLOW_RUN_AS_ROOT=1 "
                       "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " +
                           std::string(RINGBOOST_MPIEXEC) + " --oversubscribe -np " +
                           std::to_string(n) + " '" + RINGBOOST_EXE + "' " + all);
  }
#endif
  if (launcher == "ringboost-submit") r = test::RunSubmit(dir, n, all);
  EXPECT_EQ(r.exit_code, 0) << launcher << " " << n << ": " << r.err;
  return r.out;
}

// Trains c.conf in `dir` with `n` workers under `launcher`, writing the model to `out`.
std::string Launch(const std::string& dir, const std::string& launcher, int n,
                   const std::string& out) {
  return RunWorkers(dir, launcher, n, "train c.conf model_out=" + out);
}

std::vector<std::string> Launchers() {
  std::vector<std::string> launchers = {"ringboost-submit"};
#if defined(RINGBOOST_MPIEXEC)
  launchers.push_back("mpirun");
#endif
  return launchers;
}

void ExpectSameModelAndLog(const std::string& dir) {
  auto one = test::RunRingboost(dir, "train c.conf model_out=m1.json");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const std::string model = test::ReadFile(dir + "/m1.json");
  const std::string log = test::EvalLog(one.out);
  ASSERT_FALSE(model.empty());
  ASSERT_FALSE(log.empty()) << one.out;
  for (const std::string& launcher : Launchers()) {
    for (int n : {2, 3, 4}) {
      const std::string out = "m" + std::to_string(n) + ".json";
      const std::string printed = Launch(dir, launcher, n, out);
      EXPECT_EQ(test::ReadFile(dir + "/" + out), model) << launcher << " with " << n;
      EXPECT_EQ(test::EvalLog(printed), log) << launcher << " with " << n;
    }
  }
}

class SharedData : public ::testing::TestWithParam<test::SharedSet> {};

TEST_P(SharedData, SameModelAndEvalLogForOneToFourWorkers) {
  RB_REQUIRE_SHARED_DATA();
  test::TempDir dir;
  test::WriteSharedSetConfig(dir.path(), GetParam(), 5);
  ExpectSameModelAndLog(dir.path());
}

INSTANTIATE_TEST_SUITE_P(Sets, SharedData, ::testing::ValuesIn(test::SharedSets()),
                         [](const ::testing::TestParamInfo<test::SharedSet>& info) {
                           return std::string(info.param.name);
                         });

// 200k rows x 12 dense features from a fixed recipe (no shared data needed).
TEST(GeneratedDense, SameModelAndEvalLogForOneToFourWorkers) {
  test::TempDir dir;
  test::WriteGeneratedDense(dir.File("train.txt"), 200000);
  test::WriteFile(dir.File("c.conf"),
                  "objective = binary:logistic\neval_metric = auc\neval_metric = logloss\n"
                  "max_depth = 6\nnum_round = 4\nsubsample = 0.9\ndata = \"train.txt\"\n"
                  "eval[train] = \"train.txt\"\n");
  ExpectSameModelAndLog(dir.path());
}

// Distributed prediction of explanations: each worker explains its shard of the rows and rank 0
// writes them in input order, the file one process writes. XGBoost 3.4.1's multiclass model
// (5 groups) on rows with missing values, and interactions of its regression model.
TEST(DistributedExplanations, ContributionsLeavesAndInteractionsPerShardEqualOneProcess) {
  RB_REQUIRE_SHARED_DATA();
  test::TempDir dir;
  const std::string golden = test::SharedGoldenDir() + "/xgboost-3.4.1/";
  struct Case {
    std::string model, data, key;
  };
  const std::vector<Case> cases = {
      {golden + "lightgbm-multiclass/model.ubj", golden + "lightgbm-multiclass/test.libsvm",
       "pred_contribs=1"},
      {golden + "lightgbm-multiclass/model.ubj", golden + "lightgbm-multiclass/test.libsvm",
       "pred_leaf=1"},
      {golden + "machine-reg-squarederror/model.json",
       golden + "machine-reg-squarederror/test.libsvm", "pred_interactions=1"}};
  test::WriteFile(dir.File("p.conf"), "task = pred\n");
  for (const Case& c : cases) {
    const std::string args =
        "predict p.conf model_in=" + c.model + " test:data=" + c.data + "?format=libsvm " + c.key;
    const test::RunResult one = test::RunRingboost(dir.path(), args + " name_pred=one.txt");
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const std::string expected = test::ReadFile(dir.File("one.txt"));
    ASSERT_GT(expected.size(), 1000u);
    for (const std::string& launcher : Launchers()) {
      for (int n : {2, 3}) {
        RunWorkers(dir.path(), launcher, n, args + " name_pred=many.txt");
        EXPECT_EQ(test::ReadFile(dir.File("many.txt")), expected)
            << c.key << ", " << launcher << " with " << n << " workers";
      }
    }
  }
}

// A shard dense in some features and without any value of another (rank 0 of 2: its rows all
// store features 1 and 2, never 0) while the other shard's rows split on that feature: rank 0's
// rows are all missing there and go the default way (it used to fail an internal check; seen
// with 1024 workers on data/libsvm/binary.train, about 2 rows a shard).
TEST(ShardWithoutAFeature, SameModelAsOneProcess) {
  test::TempDir dir;
  std::string rows;
  for (int i = 0; i < 40; ++i) {  // long lines: rank 0 of 2 reads only these (its first 30)
    rows += std::to_string(i % 2) + " 1:" + std::to_string(i % 7) +
            ".0000000000 2:" + std::to_string(i % 3) + ".0000000000\n";
  }
  for (int i = 0; i < 40; ++i) {  // the label follows feature 0 here
    rows += std::to_string(i % 2) + " 0:" + std::to_string(i % 2 * 5 + i % 3) +
            " 1:" + std::to_string(i % 5) + (i % 4 == 0 ? "" : " 2:1") + "\n";
  }
  test::WriteFile(dir.File("train.txt"), rows);
  test::WriteFile(dir.File("c.conf"),
                  "objective = binary:logistic\nmax_depth = 3\nnum_round = 3\n"
                  "min_child_weight = 0\ndata = \"train.txt\"\n");
  auto one = test::RunRingboost(dir.path(), "train c.conf model_out=m1.json");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const std::string model = test::ReadFile(dir.File("m1.json"));
  ASSERT_NE(model.find("\"split_indices\":[0"), std::string::npos) << model;
  Launch(dir.path(), "ringboost-submit", 2, "m2.json");
  EXPECT_EQ(test::ReadFile(dir.File("m2.json")), model);
}

}  // namespace
}  // namespace ringboost
