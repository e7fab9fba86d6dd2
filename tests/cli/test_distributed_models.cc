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

// A few rows a shard: whether a tree's SHAP tables pay is decided by the rows of the whole job,
// as one process decides it (the shards' own counts chose the recursive walk for some trees, whose
// values differ in float rounding: -0.109357432 against -0.109357402 with 3 workers). Seven
// training and five test rows of a random search's case.
TEST(DistributedExplanations, FewRowsAShardChooseTheTablesOfOneProcess) {
  test::TempDir dir;
  test::WriteFile(
      dir.File("t.train"),
      "1 0:1 2:0 5:0 6:2 7:0.0713165 8:-0.383363 9:0.242844 11:-0.0364438\n"
      "1 0:5 1:13 3:-0.305321 4:-0.762429 5:1 6:0 8:-0.635865 9:0.268137 10:2.20818\n"
      "0 0:2 1:12 2:1 3:0.316098 4:0.756579 5:-1 6:0 8:-0.0753174 9:1.01103 10:0.344227 "
      "11:-0.57989\n"
      "1 0:4 1:3 2:2 3:-0.227027 5:-1 6:0 8:-0.0695527 10:0.19769 11:-2.36593\n"
      "1 0:2 1:14 2:0 3:1.48853 4:1.371 6:0 8:-1.49654 9:-0.0854924 10:-0.618976 11:0.137961\n"
      "0 1:10 2:1 3:1.58008 4:1.06578 6:0 8:-0.414123 9:0.716904 10:-0.5012\n"
      "0 0:3 1:19 2:0 3:-1.04344 4:0.463943 5:-1 6:0 8:-0.824076 9:0.189608 11:-0.452637\n");
  test::WriteFile(
      dir.File("t.test"),
      "0 0:1 2:1 4:1.13131 5:0 6:0 8:1.1562 9:0.528881 10:1.89954\n"
      "1 0:1 1:2 2:1 3:0.889353 4:-1.91514 5:-1 6:0 8:-0.795488 9:2.03271 10:-0.724035 "
      "11:-0.738177\n"
      "0 0:3 1:5 2:2 4:-0.0811262 5:-1 6:0 8:0.328019 9:-0.00758557 10:-0.208036 11:0.519136\n"
      "1 0:1 1:14 2:0 3:1.56233 5:-3 6:0 8:2.28074 9:0.322187 10:-0.746078 11:-2.16115\n"
      "0 0:2 1:16 2:0 3:0.0243048 4:-1.35252 5:-1 8:0.138735 9:1.2106 10:-1.02402 "
      "11:-0.669066\n");
  test::WriteFile(dir.File("p.conf"), "data = t.train\n");
  ASSERT_EQ(test::RunRingboost(dir.path(), "train p.conf base_score=1.5 nthread=1 model_out=m.json")
                .exit_code,
            0);
  const std::string args = "predict p.conf model_in=m.json test:data=t.test pred_contribs=1";
  const test::RunResult one = test::RunRingboost(dir.path(), args + " name_pred=one.txt");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const std::string expected = test::ReadFile(dir.File("one.txt"));
  for (const std::string& launcher : Launchers()) {
    for (int n : {2, 3, 4}) {
      RunWorkers(dir.path(), launcher, n, args + " name_pred=many.txt");
      EXPECT_EQ(test::ReadFile(dir.File("many.txt")), expected)
          << launcher << " with " << n << " workers";
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
