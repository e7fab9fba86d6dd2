// ringboost-submit with the local launcher, as a real executable with real child processes:
// ranks and prefixes, restarts, failures beyond the attempts, a taken port, a worker that never
// connects, a stray connection without the job token, SIGTERM, and XGBoost's own CLI as workers.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "helpers.h"
#include "rabit/socket.h"
#include "submit/submit_runner.h"

namespace ringboost::submit {
namespace {

using test::Contains;
using test::CountOf;
using test::CountProcesses;
using test::ExitCode;
using test::Job;
using test::PortFromLog;
using test::Submit;
using test::SubmitInBackground;
using test::WaitForText;

std::string Check() { return std::string("'") + RINGBOOST_RABIT_CHECK + "'"; }

class LocalWorkers : public ::testing::TestWithParam<int> {};

TEST_P(LocalWorkers, EveryWorkerRanksAndAllreducesWithItsOutputPrefixed) {
  const int n = GetParam();
  ringboost::test::TempDir dir;
  Job job = Submit(dir.path(), "--cluster local --num-workers " + std::to_string(n) + " " +
                                   Check() + " expect=tcp rabit_timeout_sec=60");
  ASSERT_EQ(job.exit_code, 0) << job.out << job.err;
  for (int r = 0; r < n; ++r) {
    const std::string rank = std::to_string(r);
    EXPECT_TRUE(
        Contains(job.out, "[rank " + rank + "] rank " + rank + " of " + std::to_string(n) + " ok"))
        << job.out;
    EXPECT_TRUE(Contains(job.err, "[rank " + rank + "] rank " + rank + " says hello")) << job.err;
  }
  EXPECT_TRUE(Contains(job.err, "ringboost-submit: job done in ")) << job.err;
}

INSTANTIATE_TEST_SUITE_P(Workers, LocalWorkers, ::testing::Values(1, 2, 4));

// Local workers' peer ports listen on the tracker's address (127.0.0.1 by default), not on every
// address of the machine, unless the user says otherwise; they link and allreduce all the same.
TEST(Submit, LocalWorkersListenOnTheTrackersAddress) {
  ringboost::test::TempDir dir;
  const std::string worker =
      " sh -c 'echo \"listen=$RABIT_LISTEN_HOST\"; exec \"$0\" expect=tcp' " + Check();
  Job job = Submit(dir.path(), "--num-workers 2" + worker);
  ASSERT_EQ(job.exit_code, 0) << job.out << job.err;
  EXPECT_EQ(CountOf(job.out, "] listen=127.0.0.1\n"), 2) << job.out;
  EXPECT_TRUE(Contains(job.out, "[rank 1] rank 1 of 2 ok")) << job.out;
  job = Submit(dir.path(), "--num-workers 2 --env RABIT_LISTEN_HOST=0.0.0.0" + worker);
  ASSERT_EQ(job.exit_code, 0) << job.out << job.err;
  EXPECT_EQ(CountOf(job.out, "] listen=0.0.0.0\n"), 2) << job.out;
}

// Rank 1 exits in its first attempt after the first allreduce and is started again with its task
// id, so it gets rank 1 back; with restarts allowed ringboost-submit turns on recovery, so the
// survivors re-link with it and start their checks over instead of failing.
TEST(Submit, FailedWorkersAreRestartedWithTheirRanks) {
  ringboost::test::TempDir dir;
  ringboost::test::WriteFile(dir.File("worker.sh"),
                             "if [ \"$DMLC_NUM_ATTEMPT\" = 0 ]; then exec " + Check() +
                                 " die_rank=1 rabit_timeout_sec=60; fi\nexec " + Check() +
                                 " expect=tcp rabit_timeout_sec=60\n");
  Job job = Submit(dir.path(), "--num-workers 3 --local-num-attempt 1 sh worker.sh");
  ASSERT_EQ(job.exit_code, 0) << job.out << job.err;
  EXPECT_TRUE(Contains(job.out, "[rank 1] rank 1 exits on purpose")) << job.out;
  EXPECT_TRUE(Contains(job.out, "[rank 0] rank 0 recovered")) << job.out;
  EXPECT_TRUE(
      Contains(job.err, "[rank 1] ended with exit code 3; starting it again (attempt 2 of 2)"))
      << job.err;
  for (int r = 0; r < 3; ++r) {
    const std::string rank = std::to_string(r);
    EXPECT_TRUE(Contains(job.out, "[rank " + rank + "] rank " + rank + " of 3 ok")) << job.out;
  }
}

TEST(Submit, WorkerFailingBeyondItsAttemptsEndsTheJobNamingIt) {
  ringboost::test::TempDir dir;
  ringboost::test::WriteFile(dir.File("worker.sh"),
                             "case \"$DMLC_TASK_ID\" in 1:*) exit 4;; esac\nexec sleep 60\n");
  Job job = Submit(dir.path(), "--num-workers 2 --local-num-attempt 2 sh worker.sh");
  EXPECT_EQ(job.exit_code, 1) << job.err;
  EXPECT_TRUE(Contains(job.err, "worker task 1 failed: exit code 4, after 3 attempt(s)"))
      << job.err;
}

// A listener holds 9091 (and 9092 when free): the tracker goes on to a port above them. Under
// `ctest -j` another test's tracker may hold 9091 for a moment, so the listener waits for it.
TEST(Submit, TakenPortMeansTheNextOne) {
  rabit::TcpSocket a, b;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!rabit::TcpSocket::Listen("127.0.0.1", 9091, &a).ok()) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "port 9091 stayed taken for 60 s";
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const bool holds_9092 = rabit::TcpSocket::Listen("127.0.0.1", 9092, &b).ok();
  ringboost::test::TempDir dir;
  Job job = Submit(dir.path(), "--num-workers 2 " + Check() + " expect=tcp");
  ASSERT_EQ(job.exit_code, 0) << job.err;
  EXPECT_TRUE(Contains(job.err, "ringboost-submit: tracker on 127.0.0.1:")) << job.err;
  EXPECT_FALSE(Contains(job.err, "tracker on 127.0.0.1:9091,")) << job.err;
  if (holds_9092) EXPECT_FALSE(Contains(job.err, "tracker on 127.0.0.1:9092,")) << job.err;
}

// A --host-ip the tracker cannot listen on ends the job at once, naming the flag and the reason:
// an address of another machine (TEST-NET-1) fails to bind on every port alike, and a name that
// does not resolve is looked up once, not once per port.
TEST(Submit, HostIpThatCannotBeListenedOnIsAnErrorAtOnce) {
  ringboost::test::TempDir dir;
  Job job = Submit(dir.path(), "--host-ip 192.0.2.1 -n 1 echo ran");
  EXPECT_EQ(job.exit_code, 1) << job.err;
  EXPECT_TRUE(Contains(job.err, "error: --host-ip 192.0.2.1: the tracker cannot listen there "))
      << job.err;
  EXPECT_TRUE(Contains(job.err,
                       "): Cannot assign requested address; give an address of this "
                       "machine that the workers can reach"))
      << job.err;
  EXPECT_FALSE(Contains(job.err, "no free port")) << job.err;
  job = Submit(dir.path(), "--host-ip no-such-host.invalid -n 1 echo ran");
  EXPECT_EQ(job.exit_code, 1) << job.err;
  EXPECT_TRUE(Contains(job.err,
                       "error: --host-ip no-such-host.invalid: cannot resolve host "
                       "'no-such-host.invalid': "))
      << job.err;
  EXPECT_FALSE(Contains(job.out, "ran")) << job.out;
}

// The tracker and the workers speak IPv4 only: an IPv6 --host-ip is refused saying so.
TEST(Submit, Ipv6HostIpIsRefusedAsUnsupported) {
  ringboost::test::TempDir dir;
  for (const std::string ip : {"2001:db8::1", "::1", "[::1]"}) {
    const Job job = Submit(dir.path(), "--host-ip '" + ip + "' -n 1 echo ran");
    EXPECT_EQ(job.exit_code, 1) << job.err;
    EXPECT_TRUE(Contains(job.err, "error: --host-ip " + ip +
                                      ": IPv6 addresses are not supported (the tracker and the "
                                      "workers speak IPv4)"))
        << job.err;
    EXPECT_FALSE(Contains(job.out, "ran")) << job.out;
  }
}

TEST(Submit, WorkerThatNeverConnectsIsAClearTimeoutAndLeavesNoProcess) {
  ringboost::test::TempDir dir;
  Job job = Submit(dir.path(), "--num-workers 2 --connect-timeout 1 sleep 31.25");
  EXPECT_EQ(job.exit_code, 1) << job.err;
  EXPECT_TRUE(Contains(job.err, "not all 2 workers connected to the tracker at 127.0.0.1:"))
      << job.err;
  EXPECT_TRUE(Contains(job.err, "within 1 s (--connect-timeout)")) << job.err;
  EXPECT_EQ(CountProcesses("^sleep 31.25"), 0);
}

TEST(Submit, StrayConnectionWithoutTheTokenIsRefused) {
  ringboost::test::TempDir dir;
  // The one real worker waits for the stray to be turned away before it joins.
  ringboost::test::WriteFile(
      dir.File("worker.sh"),
      "while [ ! -f stray.done ]; do sleep 0.05; done\nexec " + Check() + " expect=tcp\n");
  pid_t submit = SubmitInBackground(dir.path(), "--num-workers 1 sh worker.sh");
  const int port = PortFromLog(WaitForText(dir.File("submit.err"), "tracker on"));
  ASSERT_GT(port, 0);
  const std::string stray = "cd '" + dir.path() + "' && env -u RINGBOOST_JOB_TOKEN " +
                            "DMLC_TRACKER_URI=127.0.0.1 DMLC_TRACKER_PORT=" + std::to_string(port) +
                            " DMLC_TASK_ID=0 timeout 60 " + Check() +
                            " rabit_timeout_sec=5 > stray.out 2>&1; echo $? > stray.code; "
                            "touch stray.done";
  ASSERT_EQ(std::system(stray.c_str()), 0);
  const int stray_code = std::atoi(ringboost::test::ReadFile(dir.File("stray.code")).c_str());
  int status = 0;
  waitpid(submit, &status, 0);
  EXPECT_NE(stray_code, 0);
  EXPECT_TRUE(
      Contains(ringboost::test::ReadFile(dir.File("stray.out")), "no rank from the tracker"));
  const std::string err = ringboost::test::ReadFile(dir.File("submit.err"));
  EXPECT_TRUE(Contains(err, "refused")) << err;
  EXPECT_EQ(ExitCode(status), 0) << err;
}

// Rank 1 hangs (SIGSTOP) with its links open: the others give up after rabit_timeout_sec (here
// below the heartbeat's rabit_peer_timeout_sec; test_faults.cc has the heartbeat), ringboost-submit
// reports the failed worker, ends the stopped one, leaves nothing behind.
TEST(Submit, StoppedWorkerEndsTheJobWithinTheTimeout) {
  ringboost::test::TempDir dir;
  Job job = Submit(dir.path(), "--num-workers 3 " + Check() +
                                   " stop_rank=1 rabit_timeout_sec=2 job_marker=stopped-worker-x7");
  EXPECT_EQ(job.exit_code, 1) << job.out << job.err;
  EXPECT_TRUE(Contains(job.out, "[rank 1] rank 1 stops on purpose")) << job.out;
  // Rank 1's neighbours time out on it; a rank waiting on them may time out first and end the
  // job before they report (a race between 2 s timeouts): one of them says "timed out".
  EXPECT_TRUE(Contains(job.out, "(127.0.0.1) timed out")) << job.out;
  EXPECT_TRUE(Contains(job.err, "ringboost-submit: error: worker rank")) << job.err;
  EXPECT_EQ(CountProcesses("stopped-worker-[x]7"), 0);  // [x]: not pgrep's own shell
}

TEST(Submit, SigtermReachesEveryWorkerAndLeavesNoProcess) {
  ringboost::test::TempDir dir;
  pid_t submit = SubmitInBackground(dir.path(), "--num-workers 3 sleep 32.75");
  WaitForText(dir.File("submit.err"), "tracker on");
  for (int i = 0; i < 100 && CountProcesses("^sleep 32.75") < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(CountProcesses("^sleep 32.75"), 3);
  kill(submit, SIGTERM);  // `exec timeout`: timeout passes SIGTERM on to ringboost-submit
  int status = 0;
  waitpid(submit, &status, 0);
  const std::string err = ringboost::test::ReadFile(dir.File("submit.err"));
  EXPECT_NE(ExitCode(status), 0) << err;
  EXPECT_TRUE(Contains(err, "ended by signal 15")) << err;
  EXPECT_EQ(CountProcesses("^sleep 32.75"), 0);
}

// XGBoost's own CLI (Debian's xgboost 1.7.4) as the workers: the token travels in the task id,
// and the 2-worker hist model dumps as XGBoost's single-process hist model.
TEST(Submit, XGBoostCliWorkersTrainTheGoldenModel) {
  RB_REQUIRE_SHARED_DATA();
  if (std::system("command -v xgboost > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "Debian's xgboost CLI is not installed";
  }
  const std::string golden = ringboost::test::SharedGoldenDir() + "/xgboost-1.7.4-mushroom";
  const std::string data = ringboost::test::SharedDataDir() + "/agaricus/";
  ringboost::test::TempDir dir;
  const std::string copy = "cp '" + golden + "/mushroom.conf' '" + data + "agaricus.txt.train' '" +
                           data + "agaricus.txt.test' '" + dir.path() + "'";
  ASSERT_EQ(std::system(copy.c_str()), 0);
  Job job =
      Submit(dir.path(), "--cluster local --num-workers 2 xgboost mushroom.conf tree_method=hist");
  ASSERT_EQ(job.exit_code, 0) << job.out << job.err;
  const std::string dump = "cd '" + dir.path() +
                           "' && xgboost mushroom.conf task=dump model_in=0002.model "
                           "dump_stats=1 name_dump=dist.dump.txt > dump.log 2>&1";
  ASSERT_EQ(std::system(dump.c_str()), 0) << ringboost::test::ReadFile(dir.File("dump.log"));
  EXPECT_EQ(ringboost::test::ReadFile(dir.File("dist.dump.txt")),
            ringboost::test::ReadFile(golden + "/hist/dump.stats.txt"));
}

}  // namespace
}  // namespace ringboost::submit

namespace ringboost::submit {
namespace {

// --cluster mpi: mpirun only places the workers; they rank and allreduce through the tracker.
TEST(Submit, MpiClusterWorkersTalkThroughTheTracker) {
  if (std::system("command -v mpirun > /dev/null 2>&1") != 0) GTEST_SKIP() << "no mpirun";
  ringboost::test::TempDir dir;
  Job job = Submit(dir.path(), "--cluster mpi --num-workers 2 " + Check() + " expect=tcp");
  ASSERT_EQ(job.exit_code, 0) << job.out << job.err;
  for (int r = 0; r < 2; ++r) {
    const std::string rank = std::to_string(r);
    EXPECT_TRUE(Contains(job.out, "[rank " + rank + "] rank " + rank + " of 2 ok")) << job.out;
  }
}

}  // namespace
}  // namespace ringboost::submit
