// The tcp backend across real processes: rabit_check (check/main.cc) workers under ringboost's
// tracker and under XGBoost's own RabitTracker (Debian's python3-xgboost), and a killed peer.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "helpers.h"
#include "rabit/tracker_thread.h"

namespace ringboost::rabit {
namespace {

struct Worker {
  int exit_code = -1;
  std::string output;
};

int ExitCode(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

// Starts n rabit_check processes (task ids 0..n-1) under `tracker`, each with `args`; waits.
std::vector<Worker> RunProcesses(test::TrackerThread* tracker, int n, const std::string& args,
                                 const std::string& env = "") {
  ringboost::test::TempDir dir;
  std::vector<Worker> workers(n);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      std::string out = dir.File("worker" + std::to_string(i) + ".txt");
      std::string cmd =
          "env DMLC_TRACKER_URI=127.0.0.1 DMLC_TRACKER_PORT=" + std::to_string(tracker->port()) +
          " DMLC_TASK_ID=" + std::to_string(i) + " DMLC_NUM_WORKER=" + std::to_string(n) +
          " DMLC_ROLE=worker " + env + " timeout 60 '" + RINGBOOST_RABIT_CHECK + "' " + args +
          " > '" + out + "' 2>&1 </dev/null";
      workers[i].exit_code = ExitCode(std::system(cmd.c_str()));
      workers[i].output = ringboost::test::ReadFile(out);
    });
  }
  for (auto& t : threads) t.join();
  return workers;
}

// Every worker passed its checks and the tracker ended cleanly.
void ExpectAllOk(const std::vector<Worker>& workers, test::TrackerThread* tracker) {
  const int n = static_cast<int>(workers.size());
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(workers[i].exit_code, 0) << workers[i].output;
    EXPECT_NE(workers[i].output.find(" of " + std::to_string(n) + " ok"), std::string::npos)
        << workers[i].output;
  }
  EXPECT_TRUE(tracker->Finish(/*stop=*/false).ok()) << tracker->log();
}

class TcpProcesses : public ::testing::TestWithParam<int> {};

TEST_P(TcpProcesses, EveryCollectiveUnderRingboostTracker) {
  const int n = GetParam();
  test::TrackerThread tracker(n, "job-token-1");
  auto workers = RunProcesses(&tracker, n, "expect=tcp rabit_timeout_sec=30",
                              "RINGBOOST_JOB_TOKEN=job-token-1");
  ExpectAllOk(workers, &tracker);
  EXPECT_NE(tracker.log().find("says hello"), std::string::npos) << tracker.log();
}

INSTANTIATE_TEST_SUITE_P(Workers, TcpProcesses, ::testing::Values(2, 4));

// With a latency of 1 ms in the cost model an Allgatherv of a few KB takes the fewest steps:
// recursive doubling over the hypercube where its log2 P' steps (and the fold's 2 at 6 and 7
// ranks) are no more than the tree's 2 L and it moves fewer bytes (6 to 8 ranks); at 5 ranks
// doubling's 4 steps tie the ring's 4 and the ring moves fewer bytes (docs/collective.md). Waits
// sleep at once (rabit_spin_us=0). Every collective is checked on small buffers, and the
// Allgatherv's algorithm by its bytes.
class TcpCostModel : public ::testing::TestWithParam<int> {};

TEST_P(TcpCostModel, DoublingAllgatherFromSixRanks) {
  const int n = GetParam();
  test::TrackerThread tracker(n, "job-token-1", [](TrackerOptions* o) { o->hypercube = true; });
  const std::string algorithm = n >= 6 ? "halving" : "ring";
  auto workers = RunProcesses(&tracker, n,
                              "expect=tcp rabit_timeout_sec=30 rabit_latency_us=1000 "
                              "rabit_spin_us=0 small=1 allgather=" +
                                  algorithm,
                              "RINGBOOST_JOB_TOKEN=job-token-1");
  ExpectAllOk(workers, &tracker);
}

INSTANTIATE_TEST_SUITE_P(Workers, TcpCostModel, ::testing::Values(5, 6, 7, 8));

// Without the tracker's hypercube (ringboost-submit's default) no rank links it: at 6 ranks the
// Allgatherv of a few KB goes up and down the tree (the model's choice without halving), even
// where rabit_algorithm=halving asks for halving.
TEST(TcpHypercube, OffUnlessTheTrackerLinksIt) {
  test::TrackerThread tracker(6, "job-token-1");
  auto workers = RunProcesses(&tracker, 6,
                              "expect=tcp rabit_timeout_sec=30 rabit_latency_us=1000 "
                              "rabit_spin_us=0 small=1 rabit_algorithm=halving allgather=tree",
                              "RINGBOOST_JOB_TOKEN=job-token-1");
  ExpectAllOk(workers, &tracker);
}

// rabit_algorithm=tree: the Allgatherv goes up and down the tree (an or of placed blocks) even
// where the hypercube's doubling is cheaper.
TEST(TcpCostModelForced, TreeAllgatherAtSixRanks) {
  test::TrackerThread tracker(6, "job-token-1");
  auto workers = RunProcesses(&tracker, 6,
                              "expect=tcp rabit_timeout_sec=30 rabit_spin_us=0 small=1 "
                              "rabit_algorithm=tree allgather=tree",
                              "RINGBOOST_JOB_TOKEN=job-token-1");
  ExpectAllOk(workers, &tracker);
}

// rabit_algorithm=halving: every order-free collective (integer sums, min, max, or; floating-
// point sums keep the model's choice) runs by recursive halving and doubling over the hypercube's
// links that ringboost's tracker hands out, including the fold of the extra ranks at 3, 5, 6, 7:
// results equal the reference, and each rank sends exactly the bytes the algorithm says.
class TcpHalving : public ::testing::TestWithParam<int> {};

TEST_P(TcpHalving, EveryCollectiveAndItsBytes) {
  const int n = GetParam();
  test::TrackerThread tracker(n, "job-token-1", [](TrackerOptions* o) { o->hypercube = true; });
  auto workers = RunProcesses(&tracker, n,
                              "expect=tcp rabit_timeout_sec=30 rabit_spin_us=0 small=1 halving=1 "
                              "rabit_algorithm=halving",
                              "RINGBOOST_JOB_TOKEN=job-token-1");
  ExpectAllOk(workers, &tracker);
}

INSTANTIATE_TEST_SUITE_P(Workers, TcpHalving, ::testing::Values(2, 3, 4, 5, 6, 7, 8));

// XGBoost's tracker assigns the ranks and links; ringboost workers do the rest.
class XGBoostTracker : public ::testing::TestWithParam<int> {};

TEST_P(XGBoostTracker, RingboostWorkersGetRanksAndAllreduce) {
  const int n = GetParam();
  ringboost::test::TempDir dir;
  const std::string out = dir.File("out.txt");
  const std::string cmd = "timeout 120 /usr/bin/python3 '" + ringboost::test::SourceDir() +
                          "/tests/rabit/scripts/xgboost_tracker_run.py' " + std::to_string(n) +
                          " 60 '" + RINGBOOST_RABIT_CHECK +
                          "' expect=tcp rabit_timeout_sec=30 > '" + out + "' 2>&1 </dev/null";
  const int code = ExitCode(std::system(cmd.c_str()));
  const std::string output = ringboost::test::ReadFile(out);
  if (code == 77 || code == 127) GTEST_SKIP() << "XGBoost's tracker is not here: " << output;
  EXPECT_EQ(code, 0) << output;
  for (int r = 0; r < n; ++r) {
    // sortby=task: task i gets rank i.
    const std::string line = "[task " + std::to_string(r) + "] rank " + std::to_string(r) + " of " +
                             std::to_string(n) + " ok";
    EXPECT_NE(output.find(line), std::string::npos) << output;
  }
}

INSTANTIATE_TEST_SUITE_P(Workers, XGBoostTracker, ::testing::Values(2, 3, 4));

// Rank 1 exits after the first allreduce; the others' next collective meets its closed links
// and they end at once (well within the 30 s timeout) with an error naming a peer link.
TEST(TcpProcesses, KilledPeerMakesTheOthersFailFast) {
  test::TrackerThread tracker(3);
  auto workers = RunProcesses(&tracker, 3, "die_rank=1 rabit_timeout_sec=30");
  ASSERT_EQ(workers[1].exit_code, 3) << workers[1].output;
  for (int i : {0, 2}) {
    EXPECT_EQ(workers[i].exit_code, 1) << workers[i].output;
    EXPECT_NE(workers[i].output.find("error: tcp rank"), std::string::npos) << workers[i].output;
    EXPECT_NE(workers[i].output.find("from rank "), std::string::npos) << workers[i].output;
    EXPECT_EQ(workers[i].output.find("timed out"), std::string::npos) << workers[i].output;
  }
  // The rank that saw the death first names rank 1.
  EXPECT_NE((workers[0].output + workers[2].output).find("rank 1"), std::string::npos);
  static_cast<void>(tracker.Finish(/*stop=*/true));  // stopped early: its status is not tested
}

}  // namespace
}  // namespace ringboost::rabit
