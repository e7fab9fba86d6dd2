// A killed tcp worker costs a rollback, not the job: ringboost-submit restarts it with its task
// id, the survivors re-link through the tracker, all resume from the newest in-memory
// checkpoint, and the model file is byte-identical to an undisturbed run. Faults come from
// rabit_mock=RANK,VERSION,CALL,ATTEMPT (the rank SIGKILLs itself at that collective call).
#include <gtest/gtest.h>

#include <cstdlib>
#include <ostream>
#include <random>
#include <string>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

int ExitCode(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

struct Fault {
  const char* name;
  std::string mock;
  int kills;                // workers killed (each restarted once)
  const char* during = "";  // the call the survivors were in when the worker was lost, if given
  int workers = 3;
  const char* args = "";    // more worker arguments
  const char* submit = "";  // more ringboost-submit options
};

// Test names in ctest show the case, not its bytes.
void PrintTo(const Fault& c, std::ostream* os) { *os << c.name; }

// Trains a.conf in `dir` with `workers` workers under ringboost-submit and the given faults; the
// model must equal the one-process model, after `kills` restarts.
void ExpectRecovered(const std::string& dir, const std::string& mock, int kills,
                     const std::string& during = "", int workers = 3, const std::string& args = "",
                     const std::string& submit = "") {
  ASSERT_EQ(test::RunRingboost(
                dir, "train a.conf model_out=full.json eval_history=full.json.history.json")
                .exit_code,
            0);
  const std::string cmd = "cd '" + dir + "' && timeout 120 '" + RINGBOOST_SUBMIT +
                          "' --num-workers " + std::to_string(workers) + " --local-num-attempt 2 " +
                          submit + " '" + RINGBOOST_EXE +
                          "' train a.conf model_out=r.json eval_history=r.history.json "
                          "rabit_timeout_sec=60 " +
                          args + " rabit_mock='" + mock + "' > run.out 2> run.err < /dev/null";
  const int code = ExitCode(std::system(cmd.c_str()));
  const std::string out = test::ReadFile(dir + "/run.out");
  const std::string err = test::ReadFile(dir + "/run.err");
  ASSERT_EQ(code, 0) << out << err;
  std::size_t restarts = 0;
  for (std::size_t at = 0; (at = err.find("starting it again", at)) != std::string::npos; ++at) {
    ++restarts;
  }
  EXPECT_EQ(restarts, static_cast<std::size_t>(kills)) << err;
  EXPECT_NE(out.find("linked again; the job resumes from checkpoint"), std::string::npos) << out;
  if (!during.empty()) {
    EXPECT_NE((out + err).find("lost during " + during), std::string::npos) << out << err;
  }
  EXPECT_EQ(test::ReadFile(dir + "/r.json"), test::ReadFile(dir + "/full.json"));
  // Rank 0's eval history holds every round once, whether it survived (its rolled-back rounds
  // done again) or was restarted (the killed process's rounds read back).
  EXPECT_EQ(test::ReadFile(dir + "/r.history.json"),
            test::ReadFile(dir + "/full.json.history.json"));
}

// The round of the seeded random fault: drawn once from a fixed seed, the same in every run.
int SeededRound(int rounds) { return static_cast<int>(std::mt19937(2026)() % (rounds - 1)) + 1; }

class Recovery : public ::testing::TestWithParam<Fault> {};

TEST_P(Recovery, AgaricusKilledWorkerIsReplacedAndTheModelIsUnchanged) {
  RB_REQUIRE_SHARED_DATA();
  const Fault& fault = GetParam();
  test::TempDir dir;
  test::WriteAgaricusSamplingConfig(dir.path());
  test::WriteFile(dir.File("a.conf"), test::ReadFile(dir.File("a.conf")) + "num_round = 6\n");
  ExpectRecovered(dir.path(), fault.mock, fault.kills, fault.during, fault.workers, fault.args,
                  fault.submit);
}

INSTANTIATE_TEST_SUITE_P(
    Faults, Recovery,
    ::testing::Values(
        Fault{"rank1_mid_run", "1,2,3,0", 1},
        Fault{"rank2_seeded_round", "2," + std::to_string(SeededRound(6)) + ",4,0", 1},
        Fault{"rank0_first_call", "0,0,0,0", 1}, Fault{"rank0_mid_run", "0,3,5,0", 1},
        Fault{"twice", "1,1,2,0;2,4,6,0", 2},
        // 3 workers reduce-scatter the histograms
        // (hist_sync=auto): a round's 5th call is the root's
        // ReduceScatter, its 6th the split candidates'
        // Allgatherv (the survivors name the call).
        Fault{"rank1_in_reduce_scatter", "1,2,4,0", 1, "ReduceScatter"},
        Fault{"rank2_in_split_allgather", "2,3,5,0", 1, "Allgatherv"},
        // 6 workers, the candidates' Allgatherv forced up and down the tree
        // (tcp_communicator.h).
        Fault{"rank4_in_tree_allgather", "4,3,5,0", 1, "Allgatherv", 6, "rabit_algorithm=tree"},
        // 6 workers by recursive halving and doubling (rank 1 is folded into rank 0,
        // rank 5 a hypercube rank): killed in the histograms' ReduceScatter, and in the
        // candidates' Allgatherv by doubling.
        Fault{"rank1_in_halving_reduce_scatter", "1,2,4,0", 1, "ReduceScatter", 6,
              "rabit_algorithm=halving", "--hypercube"},
        Fault{"rank5_in_halving_reduce_scatter", "5,1,4,0", 1, "ReduceScatter", 6,
              "rabit_algorithm=halving", "--hypercube"},
        Fault{"rank3_in_doubling_allgather", "3,3,5,0", 1, "Allgatherv", 5,
              "rabit_algorithm=halving", "--hypercube"}),
    [](const ::testing::TestParamInfo<Fault>& info) { return std::string(info.param.name); });

// 200k generated rows: rank 0 killed at a seeded round and rank 1 at the first collective call.
TEST(Recovery, GeneratedDenseTwoKills) {
  test::TempDir dir;
  test::WriteGeneratedDense(dir.File("train.txt"), 200000);
  test::WriteFile(dir.File("a.conf"),
                  "objective = binary:logistic\neval_metric = auc\nmax_depth = 6\n"
                  "num_round = 4\nsubsample = 0.9\neval_train = 1\ndata = \"train.txt\"\n");
  ExpectRecovered(dir.path(), "0," + std::to_string(SeededRound(4)) + ",2,0;1,0,0,0", 2);
}

}  // namespace
}  // namespace ringboost
