// The command forms of the CLI: help, dump of a model file, prediction layouts.
#include <gtest/gtest.h>

#include <filesystem>
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

// `dump MODEL` names its flags in its errors (-o, --format), not the keys they become.
TEST_F(Commands, DumpOfModelFileErrorsNameTheFlags) {
  const struct {
    const char* args;
    const char* error;
  } cases[] = {
      {"dump m.json -o nodir/d.txt", "--output=nodir/d.txt: the folder 'nodir' does not exist"},
      {"dump m.json -o m.json", "--output=m.json: is also MODEL=m.json"},
      {"dump m.json --format yaml", "--format yaml: allowed values are text, json, dot"},
      {"dump m.json --tree -2", "--tree -2: expected an integer in [-1, 2147483647]"},
      {"dump m.json --render svg -o d.svg", "--render svg renders a DOT dump: add --format dot"},
  };
  for (const auto& c : cases) {
    const test::RunResult r = test::RunRingboost(dir_.path(), c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args;
    EXPECT_NE(r.err.find(c.error), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(r.err.find("name_dump"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("dump_"), std::string::npos) << r.err;
  }
}

// `pred`, the task's name, is the predict subcommand too; a missing config named like a
// subcommand is taken for a typo of it, not reported as a missing file alone.
TEST_F(Commands, PredIsPredictAndMistypedSubcommandsAreNamed) {
  const test::RunResult pred =
      test::RunRingboost(dir_.path(), "pred m.conf model_in=m.json name_pred=p1.txt");
  ASSERT_EQ(pred.exit_code, 0) << pred.err;
  ASSERT_EQ(
      test::RunRingboost(dir_.path(), "predict m.conf model_in=m.json name_pred=p2.txt").exit_code,
      0);
  EXPECT_EQ(test::ReadFile(dir_.File("p1.txt")), test::ReadFile(dir_.File("p2.txt")));
  const struct {
    const char* args;
    const char* error;
  } cases[] = {
      {"trian m.conf", "no config file 'trian'; did you mean the subcommand `ringboost train`?"},
      {"predcit m.conf", "did you mean the subcommand `ringboost predict`?"},
      {"dupm m.json", "did you mean the subcommand `ringboost dump`?"},
      {"nosuch", "cannot open config 'nosuch': No such file or directory"},
      {"nosuch.conf", "cannot open config 'nosuch.conf': No such file or directory"},
  };
  for (const auto& c : cases) {
    const test::RunResult r = test::RunRingboost(dir_.path(), c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args;
    EXPECT_NE(r.err.find(c.error), std::string::npos) << c.args << "\n" << r.err;
  }
}

TEST_F(Commands, SoftprobRowLayoutWritesOneLinePerRowWithEveryClass) {
  test::RunResult r =
      test::RunRingboost(dir_.path(), "predict m.conf model_in=m.json pred_layout=row");
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
  // m.conf's objective=multi:softprob would take over for the prediction, as in XGBoost.
  test::RunResult r = test::RunRingboost(
      dir_.path(), "predict m.conf model_in=s.json objective=multi:softmax name_pred=c.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::ReadFile(dir_.File("c.txt")), "0\n0\n1\n1\n2\n2\n0\n2\n");
}

}  // namespace
}  // namespace ringboost

namespace ringboost {
namespace {

// Binary data and the same rows with their labels flipped: on the flipped set every round
// makes logloss worse, so early stopping keeps round 0 (train, printed last, improves: it is
// not the watched set).
class Rounds : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string good, flipped;
    for (int i = 0; i < 200; ++i) {
      int label = (i * 7919) % 13 < 6 ? 1 : 0;
      std::string feats =
          " 0:" + std::to_string(label * 2 + (i % 5) * 0.1) + " 1:" + std::to_string(i % 17);
      good += std::to_string(label) + feats + "\n";
      flipped += std::to_string(1 - label) + feats + "\n";
    }
    test::WriteFile(dir_.File("good.txt"), good);
    test::WriteFile(dir_.File("flipped.txt"), flipped);
    test::WriteFile(dir_.File("r.conf"),
                    "objective = binary:logistic\nnum_round = 10\ndata = \"good.txt\"\n"
                    "eval[flipped] = \"flipped.txt\"\n");
  }
  test::TempDir dir_;
};

TEST_F(Rounds, EarlyStoppingStopsAndRecordsBestIteration) {
  test::RunResult r = test::RunRingboost(
      dir_.path(), "train r.conf early_stopping_rounds=2 eval_train=1 model_out=m.model");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Rounds 0, 1, 2 are printed, then the stop message naming round 0.
  EXPECT_NE(r.out.find("[2]\tflipped-logloss:"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("[3]\t"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Stopping. Best iteration:\n[0]\tflipped-logloss:"), std::string::npos)
      << r.out;
  EXPECT_NE(test::ReadFile(dir_.File("m.model")).find("\"best_iteration\":0"), std::string::npos);
  // Continued from it, this run's rounds count from 0 again; the model's best_iteration counts
  // m.model's 3 rounds, and the stop message says both.
  r = test::RunRingboost(dir_.path(),
                         "train r.conf early_stopping_rounds=2 model_in=m.model model_out=n.model");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Stopping. Best iteration:\n[0]\tflipped-logloss:"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(the model's best_iteration: 3, counting model_in's 3 rounds)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(test::ReadFile(dir_.File("n.model")).find("\"best_iteration\":3"), std::string::npos);
}

// As XGBoost: the model keeps every round (best_iteration recorded) and predict uses them all
// unless ntree_limit says otherwise; the note on stderr says how to predict with the best round.
TEST_F(Rounds, PredictAfterEarlyStoppingUsesEveryRound) {
  ASSERT_EQ(test::RunRingboost(dir_.path(),
                               "train r.conf early_stopping_rounds=2 model_out=m.json "
                               "test:data=good.txt")
                .exit_code,
            0);
  test::RunResult all = test::RunRingboost(dir_.path(),
                                           "predict r.conf model_in=m.json "
                                           "test:data=good.txt name_pred=all.txt");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.err.find("ntree_limit=1 predicts"), std::string::npos) << all.err;
  for (const char* limit : {"1", "3"}) {
    ASSERT_EQ(test::RunRingboost(dir_.path(), std::string("predict r.conf model_in=m.json "
                                                          "test:data=good.txt name_pred=") +
                                                  limit + ".txt ntree_limit=" + limit)
                  .exit_code,
              0);
  }
  EXPECT_EQ(test::ReadFile(dir_.File("all.txt")), test::ReadFile(dir_.File("3.txt")));
  EXPECT_NE(test::ReadFile(dir_.File("all.txt")), test::ReadFile(dir_.File("1.txt")));
}

// verbosity=0 silences stderr, the notes of the default verbosity included ("model written to",
// predicting with every round after early stopping).
TEST_F(Rounds, VerbosityZeroWritesNothingToStderr) {
  const std::string train = "train r.conf early_stopping_rounds=2 model_out=m.model ";
  test::RunResult r = test::RunRingboost(dir_.path(), train);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("[ringboost] model written to m.model"), std::string::npos) << r.err;
  r = test::RunRingboost(dir_.path(), train + "verbosity=0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::string predict = "predict r.conf model_in=m.model test:data=good.txt ";
  r = test::RunRingboost(dir_.path(), predict);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("ntree_limit=1 predicts"), std::string::npos) << r.err;
  r = test::RunRingboost(dir_.path(), predict + "verbosity=0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

// XGBoost refuses early stopping without a validation set; so does ringboost, naming the fix.
TEST_F(Rounds, EarlyStoppingWithoutAnEvalSetIsRefused) {
  test::WriteFile(dir_.File("n.conf"),
                  "objective = binary:logistic\nnum_round = 10\ndata = \"good.txt\"\n");
  test::RunResult r =
      test::RunRingboost(dir_.path(), "train n.conf early_stopping_rounds=2 model_out=m.json");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("early_stopping_rounds=2 needs an eval set"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("eval[NAME]="), std::string::npos) << r.err;
  EXPECT_FALSE(test::FileExists(dir_.File("m.json")));
  // eval_train is an eval set: the training data is watched.
  EXPECT_EQ(test::RunRingboost(dir_.path(),
                               "train n.conf early_stopping_rounds=2 eval_train=1 model_out=m.json")
                .exit_code,
            0);
}

// A run that early stopping ended, started again with its checkpoint_dir, trains no more rounds.
TEST_F(Rounds, ResumedEarlyStoppedRunTrainsNoMoreRounds) {
  const std::string args = "train r.conf early_stopping_rounds=2 checkpoint_dir=ck model_out=";
  ASSERT_EQ(test::RunRingboost(dir_.path(), args + "a.json").exit_code, 0);
  test::RunResult again = test::RunRingboost(dir_.path(), args + "b.json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("resuming from round 3"), std::string::npos) << again.err;
  EXPECT_EQ(again.out.find("[3]\t"), std::string::npos) << again.out;
  EXPECT_EQ(test::ReadFile(dir_.File("b.json")), test::ReadFile(dir_.File("a.json")));
}

TEST_F(Rounds, SavePeriodWritesSnapshotsInModelDir) {
  std::filesystem::create_directory(dir_.File("snap"));
  test::RunResult r =
      test::RunRingboost(dir_.path(), "train r.conf num_round=4 save_period=2 model_dir=snap");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(test::FileExists(dir_.File("snap/0002.model")));
  EXPECT_TRUE(test::FileExists(dir_.File("snap/0004.model")));
  EXPECT_FALSE(test::FileExists(dir_.File("snap/0001.model")));
  // No temporary file is left behind.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_.File("snap"))) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 2);
}

}  // namespace
}  // namespace ringboost

namespace ringboost {
namespace {

// On a terminal (a pty from `script`), stderr shows rounds done, elapsed time and ETA.
TEST(Progress, ShownOnATerminal) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "`script` (util-linux) not found: no pty to test the progress line";
  }
  test::TempDir dir;
  test::WriteFile(dir.File("d.txt"), "1 0:1\n0 0:2\n1 0:3\n0 0:4\n");
  test::WriteFile(dir.File("p.conf"),
                  "objective = binary:logistic\nnum_round = 3\n"
                  "data = \"d.txt\"\neval[train] = \"d.txt\"\n");
  std::string cmd = "cd '" + dir.path() + "' && script -qec \"'" + std::string(RINGBOOST_EXE) +
                    "' train p.conf\" /dev/null > out.txt 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::string out = test::ReadFile(dir.File("out.txt"));
  EXPECT_NE(out.find("round 3/3"), std::string::npos) << out;
  EXPECT_NE(out.find("elapsed, ETA"), std::string::npos) << out;
  // Without a terminal there is no progress line.
  test::RunResult plain = test::RunRingboost(dir.path(), "train p.conf");
  EXPECT_EQ(plain.err.find("ETA"), std::string::npos) << plain.err;
}

}  // namespace
}  // namespace ringboost
