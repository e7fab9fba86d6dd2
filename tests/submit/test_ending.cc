// How jobs end, with real worker processes under the real ringboost-submit: a worker's exit is
// acted on even while a process it left behind holds its output open, and nothing it started
// outlives the job.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "helpers.h"
#include "submit/submit_runner.h"

namespace ringboost::submit::test {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Waits (up to 20 s) until `n` processes match `pattern`; true when they do.
bool WaitForProcesses(const std::string& pattern, int n) {
  for (int i = 0; i < 400; ++i) {
    if (CountProcesses(pattern) == n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// The worker fails at once and leaves `sleep 41.5` behind with its output: the failure is
// reported within seconds (not after the leftover's 41.5 s, nor as a --connect-timeout), and the
// leftover ends with the job.
TEST(Ending, FailureIsReportedWhileALeftoverHoldsTheOutput) {
  ringboost::test::TempDir dir;
  ringboost::test::WriteFile(dir.File("worker.sh"), "sleep 41.5 &\necho started\nexit 3\n");
  const auto start = std::chrono::steady_clock::now();
  Job job = Submit(dir.path(), "--num-workers 1 --connect-timeout 20 sh worker.sh");
  const double took = SecondsSince(start);
  EXPECT_EQ(job.exit_code, 1) << job.err;
  EXPECT_TRUE(Contains(job.err, "error: worker task 0 failed: exit code 3")) << job.err;
  EXPECT_TRUE(Contains(job.out, "[task 0] started\n")) << job.out;
  std::printf("the failure was reported after %.2f s\n", took);
  EXPECT_LT(took, 15.0);
  EXPECT_TRUE(WaitForProcesses("^sleep 41.5", 0));
}

// Task 0 exits 0 leaving `sleep 42.5` behind with its output, task 1 runs on: SIGINT still ends
// the job at once, and both sleeps with it.
TEST(Ending, SigintEndsTheJobWhileALeftoverHoldsTheOutput) {
  ringboost::test::TempDir dir;
  ringboost::test::WriteFile(dir.File("worker.sh"),
                             "case \"$DMLC_TASK_ID\" in 0:*) sleep 42.5 & exit 0;; esac\n"
                             "exec sleep 43.25\n");
  const pid_t submit = SubmitInBackground(dir.path(), "--num-workers 2 sh worker.sh");
  ASSERT_TRUE(WaitForProcesses("^sleep 42.5", 1));
  ASSERT_TRUE(WaitForProcesses("^sleep 43.25", 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // task 0's exit is seen
  const auto start = std::chrono::steady_clock::now();
  kill(submit, SIGINT);  // `exec timeout`: timeout passes it on to ringboost-submit
  int status = 0;
  waitpid(submit, &status, 0);
  const double took = SecondsSince(start);
  const std::string err = ringboost::test::ReadFile(dir.File("submit.err"));
  EXPECT_EQ(ExitCode(status), 130) << err;
  EXPECT_TRUE(Contains(err, "ended by signal 2")) << err;
  std::printf("SIGINT ended the job in %.2f s\n", took);
  EXPECT_LT(took, 15.0);
  EXPECT_TRUE(WaitForProcesses("^sleep 42.5", 0));
  EXPECT_TRUE(WaitForProcesses("^sleep 43.25", 0));
}

// Ending a job gives all its workers one grace period together: four workers that ignore SIGTERM
// are killed after about 3 s, not after 3 s each.
TEST(Ending, WorkersShareOneGracePeriod) {
  ringboost::test::TempDir dir;
  ringboost::test::WriteFile(dir.File("worker.sh"), "trap '' TERM\necho up\nexec sleep 47.5\n");
  const pid_t submit =
      Spawn(dir.path(), {RINGBOOST_SUBMIT, "--num-workers", "4", "sh", "worker.sh"});
  ASSERT_TRUE(WaitForProcesses("^sleep 47.5", 4));
  const auto start = std::chrono::steady_clock::now();
  kill(submit, SIGINT);
  int status = 0;
  waitpid(submit, &status, 0);
  const double took = SecondsSince(start);
  std::printf("four workers ignoring SIGTERM were ended in %.2f s\n", took);
  EXPECT_EQ(ExitCode(status), 130) << ringboost::test::ReadFile(dir.File("submit.err"));
  EXPECT_LT(took, 9.0);  // one at a time: 12 s
  EXPECT_TRUE(WaitForProcesses("^sleep 47.5", 0));
}

// ringboost-submit killed with SIGKILL can end nothing itself: what its workers started (here
// `sleep 44.5` beside the worker, both ignoring SIGTERM) is ended by the guard, with SIGKILL
// after its grace period.
TEST(Ending, NothingOutlivesASigkilledSubmit) {
  ringboost::test::TempDir dir;
  ringboost::test::WriteFile(dir.File("worker.sh"),
                             "trap '' TERM\nsleep 44.5 &\necho up\nexec sleep 45.25\n");
  const pid_t submit =
      Spawn(dir.path(), {RINGBOOST_SUBMIT, "--num-workers", "2", "sh", "worker.sh"});
  ASSERT_TRUE(WaitForProcesses("^sleep 44.5", 2));
  ASSERT_TRUE(WaitForProcesses("^sleep 45.25", 2));
  kill(submit, SIGKILL);
  int status = 0;
  waitpid(submit, &status, 0);
  EXPECT_TRUE(WaitForProcesses("^sleep 44.5", 0));
  EXPECT_TRUE(WaitForProcesses("^sleep 45.25", 0));
}

// mpirun puts each rank in a process group of its own, out of reach of mpirun's group: the
// guard's SIGTERM lets mpirun end its ranks when ringboost-submit was killed with SIGKILL.
TEST(Ending, MpiRanksOutliveNoSigkilledSubmit) {
  if (std::system("command -v mpirun > /dev/null 2>&1") != 0) GTEST_SKIP() << "no mpirun";
  ringboost::test::TempDir dir;
  const pid_t submit = Spawn(dir.path(), {RINGBOOST_SUBMIT, "--cluster", "mpi", "--num-workers",
                                          "2", "sh", "-c", "echo up; exec sleep 46.75"});
  ASSERT_TRUE(WaitForProcesses("^sleep 46.75", 2))
      << ringboost::test::ReadFile(dir.File("submit.err"));
  kill(submit, SIGKILL);
  int status = 0;
  waitpid(submit, &status, 0);
  EXPECT_TRUE(WaitForProcesses("^sleep 46.75", 0));
  EXPECT_TRUE(WaitForProcesses("^mpirun .*sleep 46.75", 0));
}

}  // namespace
}  // namespace ringboost::submit::test
