// The simulated cluster (tests/cluster/netns_cluster.py): hosts in network namespaces on a
// bridge, links shaped with tc. test_cluster.py trains on 8 hosts at 1 Gbit/s, under
// ringboost-submit's tracker and under mpirun (enter_host as the rsh agent), and compares each
// model byte for byte with one process's. The tests skip with the harness's message where the
// machine lacks root or namespaces (exit status 77).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>

#include "helpers.h"

namespace ringboost {
namespace {

const char kHarness[] = RINGBOOST_SOURCE_DIR "/tests/cluster/netns_cluster.py";

int ExitCode(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

// Runs a command line; returns its exit status, its stdout and stderr in *output.
int Shell(const std::string& command, std::string* output) {
  test::TempDir dir;
  const std::string log = dir.File("log");
  const int code = ExitCode(std::system((command + " > '" + log + "' 2>&1 < /dev/null").c_str()));
  *output = test::ReadFile(log);
  return code;
}

// The namespaces whose names start with `prefix`, one a line.
std::string NamespacesOf(const std::string& prefix) {
  std::string out;
  Shell("(ip netns list | grep '^" + prefix + "' || true)", &out);
  return out;
}

TEST(SimulatedCluster, EightShapedHostsTrainTheOneProcessModel) {
  std::string output;
  const std::string cmd = std::string("timeout 100 /usr/bin/python3 '") + RINGBOOST_SOURCE_DIR +
                          "/tests/cluster/test_cluster.py' '" + RINGBOOST_EXE + "' '" +
                          RINGBOOST_SUBMIT + "'" +
#ifdef RINGBOOST_MPIEXEC
                          " --mpi" +
#endif
                          "";
  const int code = Shell(cmd, &output);
  if (code == 77) GTEST_SKIP() << output;
  ASSERT_EQ(code, 0) << output;
  EXPECT_NE(output.find("ok: every host knows every other's address, and has its own TMPDIR"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("ok: 8 workers on 1gbit links (ringboost-submit), model identical"),
            std::string::npos)
      << output;
#ifdef RINGBOOST_MPIEXEC
  EXPECT_NE(output.find("ok: 8 MPI ranks across the hosts, model identical"), std::string::npos)
      << output;
#endif
}

// A host's link goes down (both ends, as a pulled cable) while 4 hosts train: the job ends with
// the heartbeat's error naming a silent peer (docs/collective.md, "tcp: liveness"; the test runs
// with rabit_peer_timeout_sec=2, so the report comes within 2.6 s of the cut).
TEST(SimulatedCluster, CutLinkIsReportedByTheHeartbeat) {
  std::string output;
  const int code = Shell(std::string("timeout 100 /usr/bin/python3 '") + RINGBOOST_SOURCE_DIR +
                             "/tests/cluster/test_cluster.py' '" + RINGBOOST_EXE + "' '" +
                             RINGBOOST_SUBMIT + "' --cut",
                         &output);
  if (code == 77) GTEST_SKIP() << output;
  ASSERT_EQ(code, 0) << output;
  EXPECT_NE(output.find("ok: host 2's link cut"), std::string::npos) << output;
  EXPECT_NE(output.find("(limit 2.0 s, rabit_peer_timeout_sec)"), std::string::npos) << output;
}

// SIGTERM while the cluster holds: every namespace goes, the harness says so and exits 130.
TEST(SimulatedCluster, TornDownOnSignal) {
  test::TempDir dir;
  const std::string log = dir.File("log");
  FILE* child = popen(("exec /usr/bin/python3 '" + std::string(kHarness) +
                       "' --workers 3 --rate 10gbit --hold > '" + log + "' 2>&1 & echo $!")
                          .c_str(),
                      "r");
  ASSERT_NE(child, nullptr);
  int pid = 0;
  ASSERT_EQ(std::fscanf(child, "%d", &pid), 1);
  pclose(child);
  std::string output, prefix;
  for (int i = 0; i < 300 && prefix.empty(); ++i) {  // the harness prints its prefix when ready
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    output = test::ReadFile(log);
    if (output.find("skip: ") != std::string::npos) GTEST_SKIP() << output;
    const std::size_t at = output.find(", prefix ");
    const std::size_t end = output.find(", links", at);
    if (at != std::string::npos && end != std::string::npos) {
      prefix = output.substr(at + 9, end - at - 9);
    }
  }
  ASSERT_FALSE(prefix.empty()) << output;
  EXPECT_NE(NamespacesOf(prefix), "");
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  for (int i = 0; i < 300 && kill(pid, 0) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(kill(pid, 0), 0) << "the harness did not end";
  EXPECT_EQ(NamespacesOf(prefix), "");
  EXPECT_NE(test::ReadFile(log).find("signal 15: torn down"), std::string::npos)
      << test::ReadFile(log);
}

}  // namespace
}  // namespace ringboost
