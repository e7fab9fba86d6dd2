// Faults of real worker processes under ringboost-submit: a worker that fails before it connects
// is restarted and the job writes the undisturbed model; a stopped (SIGSTOP) worker and a dead
// tracker are reported within their documented bounds, naming the rank, host and cause.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "helpers.h"
#include "rabit/tracker_thread.h"
#include "submit/submit_runner.h"

namespace ringboost::submit {
namespace {

using test::Contains;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Task 1 exits with code 3 in its first attempt, before it ever reaches the tracker.
TEST(Faults, WorkerFailingAtStartIsRestartedAndTheModelIsUndisturbed) {
  ringboost::test::TempDir dir;
  test::WriteTinyTrainingJob(dir.path());
  const std::string train = "exec '" RINGBOOST_EXE "' train d.conf model_out=m.json\n";
  ringboost::test::WriteFile(dir.File("calm.sh"), train);
  test::Job calm = test::Submit(dir.path(), "--num-workers 2 sh calm.sh");
  ASSERT_EQ(calm.exit_code, 0) << calm.out << calm.err;
  const std::string model = ringboost::test::ReadFile(dir.File("m.json"));
  ASSERT_FALSE(model.empty());
  ringboost::test::WriteFile(
      dir.File("fail.sh"),
      "case \"$DMLC_NUM_ATTEMPT/$DMLC_TASK_ID\" in 0/1:*) exit 3;; esac\n" + train);
  for (int attempts : {1, 2}) {
    std::remove(dir.File("m.json").c_str());
    test::Job job =
        test::Submit(dir.path(), "--num-workers 2 --local-num-attempt " + std::to_string(attempts) +
                                     " sh fail.sh rabit_timeout_sec=20");
    ASSERT_EQ(job.exit_code, 0) << job.out << job.err;
    EXPECT_TRUE(Contains(job.err, "ended with exit code 3; starting it again")) << job.err;
    EXPECT_EQ(ringboost::test::ReadFile(dir.File("m.json")), model) << attempts;
  }
}

// Rank 1 stops itself after the first allreduce with its links open; the others would wait
// rabit_timeout_sec (60 s here) for it, but its heartbeat stops: they fail within
// rabit_peer_timeout_sec (1 s) plus a beat and a check, naming rank 1, its host and the cause.
TEST(Faults, StoppedWorkerIsReportedWithinThePeerTimeout) {
  ringboost::test::TempDir dir;
  const auto start = std::chrono::steady_clock::now();
  test::Job job =
      test::Submit(dir.path(), std::string("--num-workers 3 '") + RINGBOOST_RABIT_CHECK +
                                   "' stop_rank=1 rabit_timeout_sec=60 rabit_peer_timeout_sec=1 "
                                   "rabit_heartbeat_sec=0.2 job_marker=stopped-by-heartbeat-q4");
  const double took = Seconds(start);
  EXPECT_EQ(job.exit_code, 1) << job.out << job.err;
  EXPECT_TRUE(Contains(job.out, "[rank 1] rank 1 stops on purpose")) << job.out;
  EXPECT_TRUE(Contains(job.out, "rank 1 (127.0.0.1): no heartbeat for")) << job.out;
  EXPECT_TRUE(Contains(job.out, "the process is stopped, hung or cut off")) << job.out;
  EXPECT_FALSE(Contains(job.out, "timed out")) << job.out;
  std::printf("stopped worker: the job ended %.2f s after it started\n", took);
  EXPECT_LT(took, 15.0);  // far below rabit_timeout_sec=60 even on a loaded machine
}

// The tracker goes away once the workers are linked; they finish their collectives (the links
// are theirs) and then fail to shut down within rabit_connect_timeout_sec, naming the tracker.
TEST(Faults, DeadTrackerIsReportedWithinTheConnectTimeout) {
  ringboost::test::TempDir dir;
  auto tracker = std::make_unique<rabit::test::TrackerThread>(2);
  const int port = tracker->port();
  std::vector<std::thread> workers;
  std::vector<std::string> outputs(2);
  for (int i = 0; i < 2; ++i) {
    workers.emplace_back([&, i] {
      const std::string out = dir.File("w" + std::to_string(i) + ".out");
      const std::string cmd =
          "env DMLC_TRACKER_URI=127.0.0.1 DMLC_TRACKER_PORT=" + std::to_string(port) +
          " DMLC_TASK_ID=" + std::to_string(i) + " DMLC_NUM_WORKER=2 timeout 60 '" +
          RINGBOOST_RABIT_CHECK + "' rabit_timeout_sec=60 rabit_connect_timeout_sec=1 > '" + out +
          "' 2>&1 </dev/null";
      (void)std::system(cmd.c_str());
      outputs[i] = ringboost::test::ReadFile(out);
    });
  }
  for (int i = 0; i < 400 && !Contains(tracker->log(), "have their ranks"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  tracker->Finish(/*stop=*/true);
  tracker.reset();  // nothing listens on the port now
  const auto stopped = std::chrono::steady_clock::now();
  for (auto& w : workers) w.join();
  const double took = Seconds(stopped);
  for (const std::string& out : outputs) {
    EXPECT_TRUE(Contains(out, "tracker 127.0.0.1:" + std::to_string(port) + " (")) << out;
    EXPECT_TRUE(Contains(out, "is the tracker (ringboost-submit) still running?")) << out;
    EXPECT_TRUE(Contains(out, "Connection refused")) << out;
  }
  std::printf("dead tracker: the workers ended %.2f s after it stopped\n", took);
  EXPECT_LT(took, 20.0);  // their checks plus 1 s, far below rabit_timeout_sec=60
}

}  // namespace
}  // namespace ringboost::submit
