// Training over the tcp backend: ringboost workers under ringboost's tracker (with a job token)
// and under XGBoost's own RabitTracker write the model one process writes, byte for byte.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli_runner.h"
#include "helpers.h"
#include "rabit/tracker_thread.h"

namespace ringboost {
namespace {

int ExitCode(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

// n workers under the in-process tracker; each writes its log to wI.out.
void TrainUnderRingboostTracker(const std::string& dir, int n, const std::string& args) {
  rabit::test::TrackerThread tracker(n, "t0ken");
  std::vector<std::thread> workers;
  std::vector<int> codes(n, -1);
  for (int i = 0; i < n; ++i) {
    workers.emplace_back([&, i] {
      const std::string cmd =
          "cd '" + dir + "' && env RINGBOOST_JOB_TOKEN=t0ken timeout 120 '" + RINGBOOST_EXE + "' " +
          args + " DMLC_TRACKER_URI=127.0.0.1 DMLC_TRACKER_PORT=" + std::to_string(tracker.port()) +
          " DMLC_TASK_ID=" + std::to_string(i) + " DMLC_NUM_WORKER=" + std::to_string(n) + " > w" +
          std::to_string(i) + ".out 2>&1 </dev/null";
      codes[i] = ExitCode(std::system(cmd.c_str()));
    });
  }
  for (auto& w : workers) w.join();
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(codes[i], 0) << test::ReadFile(dir + "/w" + std::to_string(i) + ".out");
    const std::string line =
        "communicator tcp: rank " + std::to_string(i) + " of " + std::to_string(n);
    EXPECT_NE(test::ReadFile(dir + "/w" + std::to_string(i) + ".out").find(line),
              std::string::npos);
  }
  EXPECT_TRUE(tracker.Finish(/*stop=*/false).ok()) << tracker.log();
}

TEST(TcpTraining, SameModelForOneTwoThreeWorkersUnderRingboostTracker) {
  RB_REQUIRE_SHARED_DATA();
  test::TempDir dir;
  test::WriteAgaricusSamplingConfig(dir.path());
  ASSERT_EQ(test::RunRingboost(dir.path(), "train a.conf model_out=m1.json").exit_code, 0);
  const std::string one = test::ReadFile(dir.File("m1.json"));
  ASSERT_FALSE(one.empty());
  for (int n : {2, 3}) {
    const std::string out = "m" + std::to_string(n) + ".json";
    TrainUnderRingboostTracker(dir.path(), n, "train a.conf verbosity=2 model_out=" + out);
    EXPECT_EQ(test::ReadFile(dir.File(out)), one) << n << " workers";
  }
}

TEST(TcpTraining, SameModelUnderXGBoostTracker) {
  RB_REQUIRE_SHARED_DATA();
  test::TempDir dir;
  test::WriteAgaricusSamplingConfig(dir.path());
  ASSERT_EQ(test::RunRingboost(dir.path(), "train a.conf model_out=m1.json").exit_code, 0);
  const std::string cmd = "cd '" + dir.path() + "' && timeout 120 /usr/bin/python3 '" +
                          test::SourceDir() +
                          "/tests/rabit/scripts/xgboost_tracker_run.py' 2 60 '" + RINGBOOST_EXE +
                          "' train a.conf model_out=m2.json > x.out 2>&1 </dev/null";
  const int code = ExitCode(std::system(cmd.c_str()));
  const std::string output = test::ReadFile(dir.File("x.out"));
  if (code == 77 || code == 127) GTEST_SKIP() << "XGBoost's tracker is not here: " << output;
  ASSERT_EQ(code, 0) << output;
  EXPECT_EQ(test::ReadFile(dir.File("m2.json")), test::ReadFile(dir.File("m1.json")));
}

TEST(TcpTraining, SameModelUnderRingboostSubmit) {
  RB_REQUIRE_SHARED_DATA();
  test::TempDir dir;
  test::WriteAgaricusSamplingConfig(dir.path());
  ASSERT_EQ(test::RunRingboost(dir.path(), "train a.conf model_out=m1.json").exit_code, 0);
  const std::string cmd = "cd '" + dir.path() + "' && timeout 120 '" + RINGBOOST_SUBMIT +
                          "' --num-workers 3 '" + RINGBOOST_EXE +
                          "' train a.conf model_out=m3.json > s.out 2>&1 </dev/null";
  ASSERT_EQ(ExitCode(std::system(cmd.c_str())), 0) << test::ReadFile(dir.File("s.out"));
  EXPECT_EQ(test::ReadFile(dir.File("m3.json")), test::ReadFile(dir.File("m1.json")));
  // rank 0 prints the eval log, prefixed with its rank.
  EXPECT_NE(test::ReadFile(dir.File("s.out")).find("[rank 0] [3]\ttest-logloss:"),
            std::string::npos)
      << test::ReadFile(dir.File("s.out"));
}

// A worker given a wrong collective setting stops before training, naming the key.
TEST(TcpTraining, BadCollectiveSettingNamesTheKey) {
  test::TempDir dir;
  test::WriteFile(dir.File("d.txt"), "1 0:1\n0 0:2\n");
  test::WriteFile(dir.File("d.conf"), "data = \"d.txt\"\n");
  auto r = test::RunRingboost(dir.path(),
                              "train d.conf communicator=tcp DMLC_TRACKER_URI=127.0.0.1 "
                              "DMLC_TRACKER_PORT=99999");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("DMLC_TRACKER_PORT=99999: must be an integer from 1 to 65535"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace ringboost

namespace ringboost {
namespace {

// The tracker dies once the workers are linked: they train on (the links are theirs), then fail
// to shut down at the tracker within rabit_timeout_sec, naming it; nothing hangs. Each round's
// log line first waits up to rabit_timeout_sec for the dead tracker, so the job is kept short.
TEST(TcpTraining, DeadTrackerEndsTheWorkersWithinTheTimeout) {
  RB_REQUIRE_SHARED_DATA();
  test::TempDir dir;
  test::WriteAgaricusSamplingConfig(dir.path());
  auto tracker = std::make_unique<rabit::test::TrackerThread>(2);
  const int port = tracker->port();
  std::vector<std::thread> workers;
  std::vector<int> codes(2, -1);
  for (int i = 0; i < 2; ++i) {
    workers.emplace_back([&, i] {
      const std::string cmd = "cd '" + dir.path() + "' && timeout 60 '" + RINGBOOST_EXE +
                              "' train a.conf num_round=10 rabit_timeout_sec=2 "
                              "DMLC_TRACKER_URI=127.0.0.1 DMLC_TRACKER_PORT=" +
                              std::to_string(port) + " DMLC_TASK_ID=" + std::to_string(i) + " > w" +
                              std::to_string(i) + ".out 2>&1 </dev/null";
      codes[i] = ExitCode(std::system(cmd.c_str()));
    });
  }
  for (int i = 0; i < 400 && tracker->log().find("have their ranks") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  static_cast<void>(tracker->Finish(/*stop=*/true));  // stopped early: its status is not tested
  tracker.reset();  // the listening socket closes: the port refuses connections
  for (auto& w : workers) w.join();
  for (int i = 0; i < 2; ++i) {
    const std::string out = test::ReadFile(dir.File("w" + std::to_string(i) + ".out"));
    EXPECT_NE(codes[i], 0) << out;
    EXPECT_NE(out.find("tracker 127.0.0.1:" + std::to_string(port) + " (shutdown)"),
              std::string::npos)
        << out;
  }
}

}  // namespace
}  // namespace ringboost
