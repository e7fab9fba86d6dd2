// The distributed promise on real data: 2, 3 and 4 workers, under mpirun and under
// ringboost-submit (local), write the model file one process writes, byte for byte, and print the
// same eval log, on agaricus, LightGBM's binary (weighted), multiclass and rank sets, and a
// generated 200k-row dense set.
#include <gtest/gtest.h>

#include <cstdlib>
#include <ostream>
#include <sstream>
#include <string>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

int ExitCode(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

// The eval log lines ("[i]\t...") of a run's stdout, without launcher prefixes.
std::string EvalLog(const std::string& out) {
  std::istringstream lines(out);
  std::string line, log;
  while (std::getline(lines, line)) {
    const std::string prefix = "[rank 0] ";
    if (line.rfind(prefix, 0) == 0) line = line.substr(prefix.size());
    if (line.size() > 1 && line[0] == '[' && line.find("]\t") != std::string::npos) {
      log += line + "\n";
    }
  }
  return log;
}

struct Case {
  const char* name;
  const char* config;  // without data lines; DATA is replaced by the shared data folder
  const char* train;
  const char* test;
};

std::string Launch(const std::string& dir, const std::string& launcher, int n,
                   const std::string& out) {
  std::string cmd = "cd '" + dir + "' && timeout 300 ";
  if (launcher == "mpirun") {
#if defined(RINGBOOST_MPIEXEC)
    cmd += "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " +
           std::string(RINGBOOST_MPIEXEC) + " --oversubscribe -np " + std::to_string(n) + " ";
#endif
  } else {
    cmd += "'" + std::string(RINGBOOST_SUBMIT) + "' --num-workers " + std::to_string(n) + " ";
  }
  cmd += "'" + std::string(RINGBOOST_EXE) + "' train c.conf model_out=" + out +
         " > run.out 2> run.err < /dev/null";
  const int code = ExitCode(std::system(cmd.c_str()));
  EXPECT_EQ(code, 0) << launcher << " " << n << ": " << test::ReadFile(dir + "/run.err");
  return test::ReadFile(dir + "/run.out");
}

void ExpectSameModelAndLog(const std::string& dir) {
  auto one = test::RunRingboost(dir, "train c.conf model_out=m1.json");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const std::string model = test::ReadFile(dir + "/m1.json");
  const std::string log = EvalLog(one.out);
  ASSERT_FALSE(model.empty());
  ASSERT_FALSE(log.empty()) << one.out;
  std::vector<std::string> launchers = {"ringboost-submit"};
#if defined(RINGBOOST_MPIEXEC)
  launchers.push_back("mpirun");
#endif
  for (const std::string& launcher : launchers) {
    for (int n : {2, 3, 4}) {
      const std::string out = "m" + std::to_string(n) + ".json";
      const std::string printed = Launch(dir, launcher, n, out);
      EXPECT_EQ(test::ReadFile(dir + "/" + out), model) << launcher << " with " << n;
      EXPECT_EQ(EvalLog(printed), log) << launcher << " with " << n;
    }
  }
}

// Test names in ctest show the case, not its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class SharedData : public ::testing::TestWithParam<Case> {};

TEST_P(SharedData, SameModelAndEvalLogForOneToFourWorkers) {
  RB_REQUIRE_SHARED_DATA();
  const Case& c = GetParam();
  test::TempDir dir;
  const std::string data = test::SharedDataDir() + "/";
  test::WriteFile(dir.File("c.conf"), std::string(c.config) + "num_round = 5\ndata = \"" + data +
                                          c.train + "\"\neval[test] = \"" + data + c.test + "\"\n");
  ExpectSameModelAndLog(dir.path());
}

INSTANTIATE_TEST_SUITE_P(
    Sets, SharedData,
    ::testing::Values(
        Case{"agaricus",
             "objective = binary:logistic\neval_metric = error\neval_metric = logloss\n"
             "subsample = 0.8\ncolsample_bynode = 0.8\nmax_depth = 5\n",
             "agaricus/agaricus.txt.train", "agaricus/agaricus.txt.test"},
        Case{"lightgbm_binary",
             "objective = binary:logistic\neval_metric = auc\neval_metric = logloss\n"
             "subsample = 0.8\nmax_depth = 6\n",
             "lightgbm/binary.train?format=csv", "lightgbm/binary.test?format=csv"},
        Case{"lightgbm_multiclass",
             "objective = multi:softprob\nnum_class = 5\neval_metric = mlogloss\n"
             "eval_metric = merror\ncolsample_bytree = 0.8\n",
             "lightgbm/multiclass.train?format=csv", "lightgbm/multiclass.test?format=csv"},
        Case{"lightgbm_rank",
             "objective = rank:ndcg\neval_metric = ndcg@5\neval_metric = map@5\n"
             "subsample = 0.9\n",
             "lightgbm/rank.train", "lightgbm/rank.test"}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

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

}  // namespace
}  // namespace ringboost
