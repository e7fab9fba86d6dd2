// rank:map and map from the command line: against numbers of the real XGBoost 3.4.1, on LightGBM's
// rank example with its relevance binarised (XGBoost 3.x refuses other labels for both), and the
// refusals of labels that are not 0 or 1.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

// XGBoost 3.4.1 (PyPI, Python 3.12), xgb.train with objective=rank:map, tree_method=hist, eta=0.1,
// max_depth=6, min_child_weight=1, lambda=1, gamma=0, max_bin=256, seed=0, base_score=0.5,
// nthread=2, eval_metric=[map, map@5], the set's .query groups; evals_result printed with repr:
//   [0] map 0.7786328134718593  map@5 0.6853833333333335
//   [1] map 0.7778560156958554  map@5 0.6682000000000002
//   [2] map 0.778592880859464   map@5 0.6739166666666668
//   [3] map 0.8003260153274547  map@5 0.6986666666666669
//   [4] map 0.8013344233924089  map@5 0.7081500000000003
// (100 rounds: every round equal to the last digit, bench/accuracy.py lightgbm-rank-map.)
TEST(RankMapCli, EvalLogIsXGBoost341s) {
  RB_REQUIRE_SHARED_DATA();
  test::TempDir dir;
  test::WriteBinarisedRankSet(dir.path());
  test::WriteFile(dir.File("c.conf"),
                  "objective = rank:map\neta = 0.1\nmax_depth = 6\nmax_bin = 256\n"
                  "base_score = 0.5\nnum_round = 5\neval_metric = map\neval_metric = map@5\n"
                  "data = \"train.txt\"\neval[test] = \"test.txt\"\nmodel_out = \"m.model\"\n");
  const test::RunResult r = test::RunRingboost(dir.path(), "train c.conf nthread=2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double xgb[5][2] = {{0.7786328134718593, 0.6853833333333335},
                            {0.7778560156958554, 0.6682000000000002},
                            {0.778592880859464, 0.6739166666666668},
                            {0.8003260153274547, 0.6986666666666669},
                            {0.8013344233924089, 0.7081500000000003}};
  const std::string log = test::EvalLog(r.out);
  double got[5][2];
  int parsed = 0;
  for (std::size_t at = 0; parsed < 5 && at < log.size(); ++parsed) {
    int round = -1;
    ASSERT_EQ(std::sscanf(log.c_str() + at, "[%d]\ttest-map:%lf\ttest-map@5:%lf", &round,
                          &got[parsed][0], &got[parsed][1]),
              3)
        << log;
    ASSERT_EQ(round, parsed) << log;
    at = log.find('\n', at) + 1;
  }
  ASSERT_EQ(parsed, 5) << log;
  for (int i = 0; i < 5; ++i) {
    EXPECT_NEAR(got[i][0], xgb[i][0], 1e-12) << "round " << i << "\n" << log;
    EXPECT_NEAR(got[i][1], xgb[i][1], 1e-12) << "round " << i << "\n" << log;
  }
}

// Graded relevance (the set as it ships, labels 0..4): rank:map stops at the data's first
// non-binary label, and so does map with another objective; nothing is written.
TEST(RankMapCli, GradedLabelsAreRefused) {
  RB_REQUIRE_SHARED_DATA();
  test::TempDir dir;
  const std::string data = test::SharedDataDir() + "/lightgbm/rank.train";
  const std::string common = "data=\"" + data + "\" num_round=1 model_out=m.model";
  test::WriteFile(dir.File("c.conf"), "max_depth = 2\n");
  test::RunResult r = test::RunRingboost(dir.path(), "train c.conf objective=rank:map " + common);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("label must be 0 or 1 for rank:map"), std::string::npos) << r.err;
  EXPECT_FALSE(test::FileExists(dir.File("m.model")));
  r = test::RunRingboost(dir.path(),
                         "train c.conf objective=rank:ndcg eval_metric=map@3 "
                         "eval[train]=\"" +
                             data + "\" " + common);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("map@3 needs labels 0 or 1"), std::string::npos) << r.err;
  EXPECT_FALSE(test::FileExists(dir.File("m.model")));
}

}  // namespace
}  // namespace ringboost
