// The command forms of the CLI: help, dump of a model file, prediction layouts.
#include <gtest/gtest.h>

#include <sstream>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

// 3-class data on one feature: class = floor(x).
const char* kMulti = "0 0:0.1\n0 0:0.5\n1 0:1.2\n1 0:1.7\n2 0:2.3\n2 0:2.9\n0 0:0.3\n2 0:2.5\n";

class Commands : public ::testing::Test {
 protected:
  void SetUp() override {
    test::WriteFile(dir_.File("m.txt"), kMulti);
    test::WriteFile(dir_.File("m.conf"),
                    "objective = multi:softprob\nnum_class = 3\nnum_round = 3\n"
                    "min_child_weight = 0\ndata = \"m.txt\"\ntest:data = \"m.txt\"\n"
                    "model_out = \"m.json\"\n");
    ASSERT_EQ(test::RunRingboost(dir_.path(), "train m.conf").exit_code, 0);
  }
  test::TempDir dir_;
};

TEST_F(Commands, HelpListsEveryKeyWithAliases) {
  test::RunResult r = test::RunRingboost(dir_.path(), "help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* key : {"eta", "learning_rate", "max_depth", "eval_metric", "grow_policy"}) {
    EXPECT_NE(r.out.find(key), std::string::npos) << key;
  }
}

TEST_F(Commands, DumpOfModelFileEqualsTaskDump) {
  test::RunResult direct = test::RunRingboost(dir_.path(), "dump m.json --with-stats");
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  ASSERT_EQ(
      test::RunRingboost(dir_.path(), "dump m.conf model_in=m.json dump_stats=1 name_dump=d.txt")
          .exit_code,
      0);
  EXPECT_EQ(direct.out, test::ReadFile(dir_.File("d.txt")));
  EXPECT_EQ(direct.out.rfind("booster[0]:\n", 0), 0u);
  EXPECT_NE(direct.out.find("cover="), std::string::npos);
}

TEST_F(Commands, SoftprobWritesOneLinePerRowWithEveryClass) {
  test::RunResult r = test::RunRingboost(dir_.path(), "predict m.conf model_in=m.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(test::ReadFile(dir_.File("pred.txt")));
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    double p, sum = 0;
    int n = 0;
    while (fields >> p) {
      sum += p;
      ++n;
    }
    EXPECT_EQ(n, 3) << line;
    EXPECT_NEAR(sum, 1.0, 1e-6) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 8);
}

TEST_F(Commands, SoftmaxPredictsClassIds) {
  ASSERT_EQ(test::RunRingboost(dir_.path(), "train m.conf objective=multi:softmax model_out=s.json")
                .exit_code,
            0);
  test::RunResult r =
      test::RunRingboost(dir_.path(), "predict m.conf model_in=s.json name_pred=c.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::ReadFile(dir_.File("c.txt")), "0\n0\n1\n1\n2\n2\n0\n2\n");
}

}  // namespace
}  // namespace ringboost
