// Restart from checkpoint_dir: a job whose worker is killed (SIGKILL, through the
// RINGBOOST_TEST_KILL_AT hook) is started again with the same command, says it resumes, and
// writes the model of an undisturbed run, byte for byte: one process, mpirun with 2 and 3 ranks,
// and ringboost-submit's tcp workers.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

int ExitCode(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

// Runs `prefix ringboost train a.conf checkpoint_dir=ck model_out=OUT` in dir; the exit code.
int Train(const std::string& dir, const std::string& prefix, const std::string& out,
          const std::string& env = "") {
  const std::string cmd =
      "cd '" + dir + "' && env " + env +
      " OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 " + prefix + " '" +
      RINGBOOST_EXE + "' train a.conf checkpoint_dir=ck eval_history=r.csv model_out=" + out +
      " > run.out 2> run.err < /dev/null";
  return ExitCode(std::system(cmd.c_str()));
}

// Kills `rank` as round 3 begins, then runs the same command again.
void ExpectResumeGivesTheSameModel(const std::string& prefix, int rank) {
  RB_REQUIRE_SHARED_DATA();
  test::TempDir dir;
  test::WriteAgaricusSamplingConfig(dir.path());
  test::WriteFile(dir.File("a.conf"), test::ReadFile(dir.File("a.conf")) + "num_round = 6\n");
  ASSERT_EQ(test::RunRingboost(dir.path(), "train a.conf model_out=full.json eval_history=full.csv")
                .exit_code,
            0);
  EXPECT_NE(
      Train(dir.path(), prefix, "r.json", "RINGBOOST_TEST_KILL_AT=" + std::to_string(rank) + ":3"),
      0);
  EXPECT_FALSE(test::FileExists(dir.File("r.json")));
  // Rank 0 writes round k's checkpoint while the others go on to round k + 1, so a kill as round
  // 3 begins may end rank 0 before checkpoint 3 is complete (its temporary file is no
  // checkpoint): the job then resumes from checkpoint 2, the newest complete one.
  const int newest = test::FileExists(dir.File("ck/checkpoint-000003.model"))   ? 3
                     : test::FileExists(dir.File("ck/checkpoint-000002.model")) ? 2
                                                                                : 0;
  ASSERT_NE(newest, 0) << "no checkpoint 2 or 3 in ck/";
  ASSERT_EQ(Train(dir.path(), prefix, "r.json"), 0) << test::ReadFile(dir.File("run.err"));
  // (ringboost-submit passes a worker's stderr on to its stdout, prefixed with the rank)
  const std::string printed =
      test::ReadFile(dir.File("run.out")) + test::ReadFile(dir.File("run.err"));
  EXPECT_NE(printed.find("resuming from round " + std::to_string(newest)), std::string::npos)
      << printed;
  EXPECT_EQ(test::ReadFile(dir.File("r.json")), test::ReadFile(dir.File("full.json")));
  // The eval history too: the killed run's rounds are kept, not written over.
  EXPECT_EQ(test::ReadFile(dir.File("r.csv")), test::ReadFile(dir.File("full.csv")));
}

TEST(Restart, OneProcess) { ExpectResumeGivesTheSameModel("", 0); }

#if defined(RINGBOOST_MPIEXEC)
TEST(Restart, MpirunTwoRanks) {
  ExpectResumeGivesTheSameModel(
      std::string(RINGBOOST_MPIEXEC) + " --oversubscribe -np 2 -x RINGBOOST_TEST_KILL_AT", 1);
}

TEST(Restart, MpirunThreeRanksRankZeroKilled) {
  ExpectResumeGivesTheSameModel(
      std::string(RINGBOOST_MPIEXEC) + " --oversubscribe -np 3 -x RINGBOOST_TEST_KILL_AT", 0);
}
#endif

TEST(Restart, RingboostSubmitTcpWorkers) {
  ExpectResumeGivesTheSameModel("'" + std::string(RINGBOOST_SUBMIT) + "' --num-workers 2", 1);
}

// Files left half-written under their temporary names (a kill during a write) are not
// checkpoints: the newest complete one is used.
TEST(Restart, TemporaryFilesAreNotCheckpoints) {
  RB_REQUIRE_SHARED_DATA();
  test::TempDir dir;
  test::WriteAgaricusSamplingConfig(dir.path());
  test::WriteFile(dir.File("a.conf"), test::ReadFile(dir.File("a.conf")) + "num_round = 4\n");
  ASSERT_EQ(test::RunRingboost(dir.path(), "train a.conf model_out=full.json").exit_code, 0);
  EXPECT_NE(Train(dir.path(), "", "r.json", "RINGBOOST_TEST_KILL_AT=0:2"), 0);
  test::WriteFile(dir.File("ck/checkpoint-000003.model.tmp-99"), "{\"half\": ");
  test::WriteFile(dir.File("ck/checkpoint-000009.model.tmp-7"), "");
  ASSERT_EQ(Train(dir.path(), "", "r.json"), 0) << test::ReadFile(dir.File("run.err"));
  EXPECT_NE(test::ReadFile(dir.File("run.err")).find("resuming from round 2"), std::string::npos);
  EXPECT_EQ(test::ReadFile(dir.File("r.json")), test::ReadFile(dir.File("full.json")));
}

}  // namespace
}  // namespace ringboost
