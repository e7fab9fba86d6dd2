// Liveness during the link-up, with real processes (rabit_check) stopped by SIGSTOP at a chosen
// moment: a peer stopped before it answers a link hello, a worker stopped during its exchange with
// the tracker while others wait for their ranks and links, and a tracker stopped while a worker
// waits for its rank. Each ends within the liveness settings (kept small here), not after
// rabit_timeout_sec (60 s here: past the processes' own 30 s bound, so the old waits fail the
// tests), with an error naming the rank or the tracker, its host and the cause.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "helpers.h"
#include "rabit/tracker_thread.h"

namespace ringboost::rabit {
namespace {

constexpr const char* kToken = "linkup-token-3";
constexpr const char* kSettings =
    "rabit_timeout_sec=60 rabit_handshake_timeout_sec=1 rabit_heartbeat_sec=0.2 "
    "rabit_peer_timeout_sec=2";

struct Worker {
  std::atomic<bool> done{false};
  int exit_code = -1;
  std::string output;
  std::string pid_file;
};

int ExitCode(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

// Starts task `task` of a world of n as a rabit_check process on its own thread.
std::thread Start(int tracker_port, int task, int n, const std::string& dir, Worker* w) {
  w->pid_file = dir + "/pid" + std::to_string(task);
  const std::string out = dir + "/worker" + std::to_string(task) + ".txt";
  const std::string cmd =
      "env DMLC_TRACKER_URI=127.0.0.1 DMLC_TRACKER_PORT=" + std::to_string(tracker_port) +
      " DMLC_TASK_ID=" + std::to_string(task) + " DMLC_NUM_WORKER=" + std::to_string(n) +
      " RINGBOOST_JOB_TOKEN=" + kToken + " timeout -k 5 30 '" + RINGBOOST_RABIT_CHECK +
      "' pid_file='" + w->pid_file + "' " + kSettings + " > '" + out + "' 2>&1 </dev/null";
  return std::thread([cmd, out, w] {
    w->exit_code = ExitCode(std::system(cmd.c_str()));
    w->output = ringboost::test::ReadFile(out);
    w->done.store(true);
  });
}

pid_t PidOf(const Worker& w) { return std::atoi(ringboost::test::ReadFile(w.pid_file).c_str()); }

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The tracker has served rank 0 and is about to serve rank 1 (its log says where rank 0 listens):
// rank 0 is stopped there, so rank 1's hello to it goes unanswered.
TEST(LinkUpLiveness, PeerStoppedBeforeItAnswersTheLinkHello) {
  ringboost::test::TempDir dir;
  Worker w[2];
  test::TrackerThread tracker(
      2, kToken, [](TrackerOptions* o) { o->verbose = true; },
      [&](const std::string& line) {
        if (Has(line, "rank 0 listens on")) kill(PidOf(w[0]), SIGSTOP);
      });
  std::thread t0 = Start(tracker.port(), 0, 2, dir.path(), &w[0]);
  std::thread t1 = Start(tracker.port(), 1, 2, dir.path(), &w[1]);
  t1.join();
  kill(PidOf(w[0]), SIGKILL);
  t0.join();
  EXPECT_EQ(w[1].exit_code, 1) << w[1].output;
  EXPECT_TRUE(Has(w[1].output, "rank 0 (127.0.0.1:")) << w[1].output;
  EXPECT_TRUE(Has(w[1].output,
                  "did not answer the link hello within 1.0 s "
                  "(rabit_handshake_timeout_sec): the process is stopped"))
      << w[1].output;
  static_cast<void>(tracker.Finish(/*stop=*/true));  // stopped early: its status is not tested
}

// Rank 1 is stopped while it waits for its assignment; the tracker then gets no answer from it
// in its exchange (io_timeout_s) and tells the workers that wait: rank 0 (for its links) and
// rank 2 (for its rank).
TEST(LinkUpLiveness, WorkerStoppedDuringItsExchangeEndsTheOthersWaits) {
  ringboost::test::TempDir dir;
  Worker w[3];
  test::TrackerThread tracker(
      3, kToken,
      [](TrackerOptions* o) {
        o->verbose = true;
        o->io_timeout_s = 2;
      },
      [&](const std::string& line) {
        if (Has(line, "rank 0 listens on")) kill(PidOf(w[1]), SIGSTOP);
      });
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) threads.push_back(Start(tracker.port(), i, 3, dir.path(), &w[i]));
  threads[0].join();
  threads[2].join();
  kill(PidOf(w[1]), SIGKILL);
  threads[1].join();
  for (int i : {0, 2}) {
    EXPECT_EQ(w[i].exit_code, 1) << w[i].output;
    EXPECT_TRUE(Has(w[i].output,
                    "ended the link-up: rank 1 (127.0.0.1, task '1') stopped "
                    "answering the tracker during its link-up"))
        << w[i].output;
    EXPECT_TRUE(Has(w[i].output, "the process is stopped, hung or cut off")) << w[i].output;
  }
  EXPECT_TRUE(Has(tracker.log(), "dropped rank 1 (127.0.0.1, task '1')")) << tracker.log();
  static_cast<void>(tracker.Finish(/*stop=*/true));
}

// A tracker in a child process: the worker waits for its rank (its peer never comes) while the
// tracker beats, longer than rabit_peer_timeout_sec; once the tracker is stopped, the worker ends
// within that bound, naming the tracker.
TEST(LinkUpLiveness, TrackerStoppedWhileAWorkerWaitsForItsRank) {
  TrackerOptions options;
  options.num_workers = 2;
  options.token = kToken;
  options.log = [](const std::string&) {};
  std::unique_ptr<Tracker> tracker;
  ASSERT_TRUE(Tracker::Create(options, &tracker).ok());
  const int port = tracker->port();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    static_cast<void>(tracker->Run());
    _exit(0);
  }
  tracker.reset();  // the child serves the port
  ringboost::test::TempDir dir;
  Worker w;
  std::thread t = Start(port, 0, 2, dir.path(), &w);
  // Twice the worker's rabit_peer_timeout_sec: only the tracker's beats keep it waiting.
  std::this_thread::sleep_for(std::chrono::seconds(4));
  EXPECT_FALSE(w.done.load()) << w.output;
  kill(child, SIGSTOP);
  t.join();
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_EQ(w.exit_code, 1) << w.output;
  EXPECT_TRUE(Has(w.output, "tracker 127.0.0.1:" + std::to_string(port))) << w.output;
  EXPECT_TRUE(Has(w.output,
                  "(limit 2.0 s, rabit_peer_timeout_sec) while this worker waits for "
                  "its rank"))
      << w.output;
  EXPECT_TRUE(Has(w.output, "the tracker is stopped, hung or cut off")) << w.output;
}

}  // namespace
}  // namespace ringboost::rabit
