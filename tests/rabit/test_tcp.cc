// The tcp backend in one process: an in-process tracker and one thread per worker, each with
// its own communicator over real loopback sockets.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "rabit/collective_checks.h"
#include "rabit/protocol.h"
#include "rabit/socket.h"
#include "rabit/tcp_communicator.h"
#include "rabit/tracker_thread.h"

namespace ringboost::rabit {
namespace {

using test::Args;
using test::RunWorkers;

class TcpWorld : public ::testing::TestWithParam<int> {};

// Kernel buffers far smaller than the larger messages force partial sends and receives (below
// about 32 KB loopback TCP stalls on window updates, tens of ms each, so the test would crawl);
// a low ring threshold sends the two larger sizes around the ring, the small ones up and down
// the tree.
TEST_P(TcpWorld, EveryCollectiveMatchesTheReference) {
  const int n = GetParam();
  test::TrackerThread tracker(n);
  Args extra = {{"rabit_timeout_sec", "30"},
                {"rabit_socket_buffer", "32768"},
                {"rabit_reduce_ring_mincount", "64"}};
  auto results = RunWorkers(&tracker, n, extra, [](Communicator* comm) {
    return test::CheckEveryCollective(comm, {1, 7, 1000, 50001}, 300001);
  });
  for (int i = 0; i < n; ++i) EXPECT_EQ(results[i], "") << "worker " << i;
  EXPECT_TRUE(tracker.Finish(/*stop=*/false).ok()) << tracker.log();
}

INSTANTIATE_TEST_SUITE_P(WorldSizes, TcpWorld, ::testing::Values(1, 2, 3, 5, 7));

TEST(Tcp, RanksFollowTaskIdsAndPrintReachesTheTracker) {
  test::TrackerThread tracker(3);
  auto results = RunWorkers(&tracker, 3, {{"rabit_timeout_sec", "30"}}, [](Communicator* comm) {
    ThrowIfError(comm->TrackerPrint("hello from " + std::to_string(comm->Rank())));
    return comm->Backend() + " " + std::to_string(comm->Rank()) + "/" +
           std::to_string(comm->WorldSize());
  });
  EXPECT_EQ(results, (std::vector<std::string>{"tcp 0/3", "tcp 1/3", "tcp 2/3"}));
  ASSERT_TRUE(tracker.Finish(false).ok());
  for (int r = 0; r < 3; ++r) {
    EXPECT_NE(
        tracker.log().find("[rank " + std::to_string(r) + "] hello from " + std::to_string(r)),
        std::string::npos)
        << tracker.log();
  }
}

// Whether a TCP connect to 127.0.0.1:port is refused at once (nothing listens there).
bool Refused(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool refused =
      connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 && errno == ECONNREFUSED;
  close(fd);
  return refused;
}

// A worker's peer port listens only while it links up: after it, a stranger's connection is
// refused by the kernel, not left in the backlog, unread, until the job ends.
TEST(Tcp, PeerPortsCloseOnceLinked) {
  std::vector<int> ports;
  std::mutex mutex;
  test::TrackerThread tracker(
      3, "", [](TrackerOptions* o) { o->verbose = true; },
      [&](const std::string& line) {
        const std::size_t at = line.find(" listens on 127.0.0.1:");
        if (at == std::string::npos) return;
        std::lock_guard<std::mutex> lock(mutex);
        ports.push_back(std::stoi(line.substr(at + std::strlen(" listens on 127.0.0.1:"))));
      });
  auto results = RunWorkers(&tracker, 3, {{"rabit_timeout_sec", "30"}}, [&](Communicator* comm) {
    int32_t one = 1;
    comm->Allreduce(Span<int32_t>(&one, 1), Op::kSum);  // every worker linked
    // The tracker logs a port after its exchange with the worker, which may link up first.
    for (int wait = 0; wait < 1000; ++wait) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (ports.size() == 3) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::lock_guard<std::mutex> lock(mutex);
    std::string refused;
    for (int port : ports) refused += Refused(port) ? "r" : "open";
    return refused;
  });
  EXPECT_EQ(ports.size(), 3u);
  EXPECT_EQ(results, (std::vector<std::string>(3, "rrr")));
  ASSERT_TRUE(tracker.Finish(false).ok());
}

// More workers of one address than hellos may be pending from it (16): all arrive at once, none
// is taken for an idle stranger.
TEST(Tcp, ManyWorkersOfOneHostJoinAtOnce) {
  const int n = 24;
  test::TrackerThread tracker(n, "s3cret");
  auto results =
      RunWorkers(&tracker, n, {{"RINGBOOST_JOB_TOKEN", "s3cret"}, {"rabit_timeout_sec", "60"}},
                 [](Communicator* comm) {
                   return std::to_string(comm->AllreduceValue<int64_t>(1, Op::kSum));
                 });
  for (int i = 0; i < n; ++i) EXPECT_EQ(results[i], std::to_string(n)) << "worker " << i;
  EXPECT_TRUE(tracker.Finish(/*stop=*/false).ok()) << tracker.log();
}

// With the token everywhere, and peers listening on loopback only.
TEST(Tcp, JobTokenLetsTheJobThrough) {
  test::TrackerThread tracker(2, "s3cret");
  auto results =
      RunWorkers(&tracker, 2, {{"RINGBOOST_JOB_TOKEN", "s3cret"}}, [](Communicator* comm) {
        return std::to_string(comm->AllreduceValue<int64_t>(5, Op::kSum));
      });
  EXPECT_EQ(results, (std::vector<std::string>{"10", "10"}));
  EXPECT_TRUE(tracker.Finish(false).ok()) << tracker.log();
}

TEST(Tcp, TrackerRefusesAWorkerWithoutTheToken) {
  test::TrackerThread tracker(1, "s3cret");
  auto results = RunWorkers(&tracker, 1, {{"rabit_timeout_sec", "5"}},
                            [](Communicator*) { return std::string("joined"); });
  EXPECT_NE(results[0].find("no rank from the tracker"), std::string::npos) << results[0];
  EXPECT_NE(results[0].find("RINGBOOST_JOB_TOKEN"), std::string::npos) << results[0];
  static_cast<void>(tracker.Finish(/*stop=*/true));  // stopped early: its status is not tested
  EXPECT_NE(tracker.log().find("refused"), std::string::npos) << tracker.log();
}

// A worker with a token under a tracker without one: the tracker's proof (keyed with nothing)
// fails at the worker, which names the token.
TEST(Tcp, WorkerWithATokenRefusesATrackerWithoutIt) {
  test::TrackerThread tracker(1);
  auto results =
      RunWorkers(&tracker, 1, {{"rabit_timeout_sec", "2"}, {"RINGBOOST_JOB_TOKEN", "one"}},
                 [](Communicator*) { return std::string("joined"); });
  EXPECT_NE(results[0].find("failed the job token challenge"), std::string::npos) << results[0];
  static_cast<void>(tracker.Finish(/*stop=*/true));  // stopped early: its status is not tested
}

TEST(Tcp, DeadTrackerIsANamedErrorAfterTheTimeout) {
  TcpSocket probe;
  ASSERT_TRUE(TcpSocket::Listen("127.0.0.1", 0, &probe).ok());
  const int port = probe.LocalPort();
  probe.Close();  // nothing listens there now
  CommunicatorConfig config;
  config.backend = "tcp";
  config.args = {{"DMLC_TRACKER_URI", "127.0.0.1"},
                 {"DMLC_TRACKER_PORT", std::to_string(port)},
                 {"rabit_timeout_sec", "0.5"}};
  try {
    MakeCommunicator(config);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tracker 127.0.0.1:" + std::to_string(port)),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("refused"), std::string::npos) << e.what();
  }
}

// A tracker that accepts the connection (the kernel does, from the backlog) but never answers.
TEST(Tcp, SilentTrackerTimesOut) {
  TcpSocket silent;
  ASSERT_TRUE(TcpSocket::Listen("127.0.0.1", 0, &silent).ok());
  CommunicatorConfig config;
  config.backend = "tcp";
  config.args = {{"DMLC_TRACKER_URI", "127.0.0.1"},
                 {"DMLC_TRACKER_PORT", std::to_string(silent.LocalPort())},
                 {"rabit_timeout_sec", "0.5"}};
  try {
    MakeCommunicator(config);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("timed out"), std::string::npos) << e.what();
  }
}

TEST(TcpSettings, ArgumentsFirstThenEnvironment) {
  setenv("DMLC_TRACKER_URI", "10.0.0.9", 1);
  setenv("DMLC_TRACKER_PORT", "1234", 1);
  setenv("DMLC_TASK_ID", "7", 1);
  CommunicatorConfig config;
  config.args = {{"DMLC_TRACKER_PORT", "999"}, {"rabit_timeout_sec", "2.5"}};
  TcpSettings t = ReadTcpSettings(config);
  EXPECT_EQ(t.tracker_uri, "10.0.0.9");
  EXPECT_EQ(t.tracker_port, 999);
  EXPECT_EQ(t.task_id, "7");
  EXPECT_DOUBLE_EQ(t.timeout_s, 2.5);
  config.args = {{"rabit_tracker_port", "4321"}};  // rabit's spelling
  EXPECT_EQ(ReadTcpSettings(config).tracker_port, 4321);
  unsetenv("DMLC_TRACKER_URI");
  unsetenv("DMLC_TRACKER_PORT");
  unsetenv("DMLC_TASK_ID");
}

std::string SettingsError(const std::vector<std::pair<std::string, std::string>>& args) {
  CommunicatorConfig config;
  config.args = args;
  try {
    ReadTcpSettings(config);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// ringboost-submit's task ids carry the job token ("<id>:<token>"); a worker that fails to link
// up names its task by the bare id, as the job log and --log-file copy the message.
TEST(Tcp, LinkUpErrorsNameTheTaskWithoutTheToken) {
  const std::string token = "5cec9ac9d41e7e1b0c6f2a8e9b3d7c11";
  TcpSocket silent;
  ASSERT_TRUE(TcpSocket::Listen("127.0.0.1", 0, &silent).ok());
  CommunicatorConfig config;
  config.backend = "tcp";
  config.args = {{"DMLC_TRACKER_URI", "127.0.0.1"},
                 {"DMLC_TRACKER_PORT", std::to_string(silent.LocalPort())},
                 {"DMLC_TASK_ID", "3:" + token},
                 {"RINGBOOST_JOB_TOKEN", token},
                 {"rabit_timeout_sec", "0.5"}};
  EXPECT_EQ(ReadTcpSettings(config).task_id, "3");
  try {
    MakeCommunicator(config);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("(task 3, start)"), std::string::npos) << what;
    EXPECT_EQ(what.find(token.substr(0, 8)), std::string::npos) << what;
  }
  // Nor does a task id too long to take.
  const std::string error = SettingsError({{"DMLC_TRACKER_URI", "127.0.0.1"},
                                           {"DMLC_TASK_ID", std::string(260, '7') + ":" + token},
                                           {"RINGBOOST_JOB_TOKEN", token}});
  EXPECT_NE(error.find("DMLC_TASK_ID"), std::string::npos) << error;
  EXPECT_EQ(error.find(token.substr(0, 8)), std::string::npos) << error;
}

TEST(TcpSettings, BadValuesNameTheKeyAndWhatIsAllowed) {
  const std::pair<std::string, std::string> uri = {"DMLC_TRACKER_URI", "127.0.0.1"};
  EXPECT_NE(SettingsError({}).find("DMLC_TRACKER_URI"), std::string::npos);
  EXPECT_NE(SettingsError({uri, {"DMLC_TRACKER_PORT", "http"}})
                .find("DMLC_TRACKER_PORT=http: must be an integer from 1 to 65535"),
            std::string::npos);
  EXPECT_NE(SettingsError({uri, {"rabit_timeout_sec", "-1"}}).find("rabit_timeout_sec=-1"),
            std::string::npos);
  EXPECT_NE(SettingsError({uri, {"DMLC_ROLE", "server"}}).find("allowed: worker"),
            std::string::npos);
  std::string unknown = SettingsError({uri, {"rabit_timeot_sec", "3"}});
  EXPECT_NE(unknown.find("unknown collective setting 'rabit_timeot_sec'"), std::string::npos);
  EXPECT_NE(unknown.find("rabit_timeout_sec"), std::string::npos) << unknown;
  // The CLI prints errors through PrintableMessage, which cuts a line after 400 bytes: the list
  // of keys (docs/collective.md: "an error that lists the keys above") must survive it whole.
  const std::string printed = PrintableMessage("error: " + unknown);
  EXPECT_EQ(printed.find("more bytes"), std::string::npos) << printed;
  for (const char* key : {"DMLC_TRACKER_URI", "RINGBOOST_JOB_TOKEN", "rabit_algorithm",
                          "rabit_recover", "rabit_mock"}) {
    EXPECT_NE(printed.find(key), std::string::npos) << key << " missing from: " << printed;
  }
  // dmlc launchers set DMLC_* variables a worker does not need: they pass.
  EXPECT_EQ(SettingsError({uri, {"DMLC_JOB_CLUSTER", "local"}}), "");
}

TEST(TcpSettings, RingForLargeBuffersTreeForSmallOnes) {
  const CostModel m;  // 25 us, 10 Gbit/s
  EXPECT_FALSE(UseRingAllreduce(1000, 8, 4, 32768, m));
  EXPECT_TRUE(UseRingAllreduce(32768, 8, 4, 32768, m));
  EXPECT_FALSE(UseRingAllreduce(3, 8, 4, 1, m));  // fewer elements than ranks: no chunk for some
  EXPECT_FALSE(UseRingAllreduce(1 << 20, 8, 1, 1, m));
}

// The model's choices, by hand (alpha 25 us, 1.25e9 B/s, so 1 MB takes 800 us on a link).
// 1024 ranks, 256 KB (32768 doubles): ring 2 * 1023 * 25 us + 2 * 1023/1024 * 209.7 us = 51.57 ms;
// tree (depth 10) 20 * (25 us + 2 * 209.7 us) = 8.89 ms: the tree, where the count alone said
// ring. 4 MB at 1024 ranks: ring 51.15 + 6.7 = 57.9 ms, tree 20 * (25 + 6711) us = 134.7 ms: ring.
// 8 ranks, 256 KB: ring 14 * 25 + 1.75 * 209.7 = 717 us, tree 6 * (25 + 419.4) = 2666 us: ring.
TEST(TcpSettings, CostModelPicksTheTreeForManyRanks) {
  const CostModel m;
  EXPECT_NEAR(m.RingAllreduce(262144, 1024), 51.569e-3, 1e-6);
  EXPECT_NEAR(m.Tree(262144, 1024), 8.889e-3, 1e-6);
  EXPECT_FALSE(UseRingAllreduce(32768, 8, 1024, 32768, m));
  EXPECT_TRUE(UseRingAllreduce(1 << 19, 8, 1024, 32768, m));
  EXPECT_TRUE(UseRingAllreduce(32768, 8, 8, 32768, m));
  // Allgather, S bytes in all: ring (P-1) alpha + (P-1)/P S beta, tree 2 L (alpha + 2 S beta).
  // 8 ranks (L = 3): tree below S = alpha / (11.125 beta) = 2809 bytes.
  EXPECT_TRUE(UseTreeAllgather(2800, 8, m));
  EXPECT_FALSE(UseTreeAllgather(2820, 8, m));
  // 4 ranks (L = 2): the tree's 4 alpha is above the ring's 3: ring at any size.
  EXPECT_FALSE(UseTreeAllgather(0, 4, m));
  // 1024 ranks: tree up to S = 1003 alpha / (40 - 1023/1024) beta = 804 KB.
  EXPECT_TRUE(UseTreeAllgather(800000, 1024, m));
  EXPECT_FALSE(UseTreeAllgather(840000, 1024, m));
  EXPECT_FALSE(UseTreeAllgather(0, 1, m));
  // A latency of 0 leaves the ring only; a huge one the tree only.
  CostModel flat = m;
  flat.alpha_s = 0;
  EXPECT_FALSE(UseTreeAllgather(1, 8, flat));
  CostModel slow = m;
  slow.alpha_s = 1;
  EXPECT_TRUE(UseTreeAllgather(1 << 20, 6, slow));  // 2 L = 4 steps against 5
}

// Halving and doubling over the hypercube, by hand (alpha 25 us, 0.8 ns a byte; P' the largest
// power of two <= P, L' = log2 P', E = P - P' ranks folded in first).
TEST(TcpSettings, CostModelPicksHalvingWhereItIsCheaper) {
  const CostModel m;
  // 8 ranks, 1 MB: 2 L' alpha + 2 (7/8) S beta = 150 + 1400 us.
  EXPECT_NEAR(m.HalvingAllreduce(1e6, 8), 1550e-6, 1e-9);
  // 6 ranks (P' 4, E 2): 100 + 1200 us, and the fold: 2 (25 + 800) us.
  EXPECT_NEAR(m.HalvingAllreduce(1e6, 6), 2950e-6, 1e-9);
  // Reduce-scatter at 6: 50 + 600 us, the fold 2 alpha + (S + S/6) beta = 50 + 933.33 us.
  EXPECT_NEAR(m.HalvingReduceScatter(1e6, 6), 1633.333e-6, 1e-9);
  EXPECT_NEAR(m.DoublingAllgather(1e6, 6), 1633.333e-6, 1e-9);
  EXPECT_NEAR(m.HalvingReduceScatter(1e6, 1024), (250 + 1023.0 / 1024 * 800) * 1e-6, 1e-9);

  // Allreduce of 115 KB (14375 int64) at 8: halving 150 + 161 us against the tree's
  // 6 (25 + 184) us (the ring needs 32768 elements); without the hypercube, the tree.
  EXPECT_EQ(PickAllreduce(14375, 8, 8, 32768, m, true), Algorithm::kHalving);
  EXPECT_EQ(PickAllreduce(14375, 8, 8, 32768, m, false), Algorithm::kTree);
  // Fewer elements than P': never halving.
  EXPECT_EQ(PickAllreduce(7, 8, 8, 1, m, true), Algorithm::kTree);
  // 64 bytes at 6: the tree's 4 alpha against halving's 6.
  EXPECT_EQ(PickAllreduce(8, 8, 6, 32768, m, true), Algorithm::kTree);
  // 1 MB at 6: ring 250 + 1333.3 us, tree 4 (25 + 1600) us, halving 2950 us: the ring.
  EXPECT_EQ(PickAllreduce(125000, 8, 6, 32768, m, true), Algorithm::kRing);
  // 1 MB at 1024: ring 51150 + 1598 us, tree 20 (25 + 1600) us, halving 500 + 1598 us.
  EXPECT_EQ(PickAllreduce(125000, 8, 1024, 32768, m, true), Algorithm::kHalving);
  // Only where the order of a reduction does not matter.
  EXPECT_FALSE(OrderFree(DataType::kDouble, Op::kSum));
  EXPECT_FALSE(OrderFree(DataType::kFloat, Op::kSum));
  EXPECT_TRUE(OrderFree(DataType::kDouble, Op::kMax));
  EXPECT_TRUE(OrderFree(DataType::kInt64, Op::kSum));

  // Reduce-scatter. 2 ranks: one step either way, the same bytes: the ring keeps the tie.
  EXPECT_EQ(PickReduceScatter(1000000, 2, m, true), Algorithm::kRing);
  // 4 ranks: 2 alpha against 3, the same bytes.
  EXPECT_EQ(PickReduceScatter(1000000, 4, m, true), Algorithm::kHalving);
  EXPECT_EQ(PickReduceScatter(1000000, 4, m, false), Algorithm::kRing);
  // 3 ranks, 1 MB: halving 25 + 400 + 50 + 1066.7 us against the ring's 50 + 533.3.
  EXPECT_EQ(PickReduceScatter(1000000, 3, m, true), Algorithm::kRing);
  // 6 ranks: 1 KB halving 101.5 us against the ring's 125.7; 1 MB 1633 against 791.7.
  EXPECT_EQ(PickReduceScatter(1000, 6, m, true), Algorithm::kHalving);
  EXPECT_EQ(PickReduceScatter(1000000, 6, m, true), Algorithm::kRing);
  // 48 ranks (P' 32, E 16), 115 KB: 125 + 89.1 + 50 + 93.9 us against 47 alpha + 90.1 us.
  EXPECT_EQ(PickReduceScatter(115000, 48, m, true), Algorithm::kHalving);

  // Allgather. 1 KB at 8: doubling 75.7 us, the tree 6 (25 + 1.6) us.
  EXPECT_EQ(PickAllgather(1000, 8, m, true), Algorithm::kHalving);
  EXPECT_EQ(PickAllgather(1000, 8, m, false), Algorithm::kTree);
  // 1 KB at 6: doubling 50 + 0.6 + 50 + 0.93 = 101.5 us, the tree 106.4 us.
  EXPECT_EQ(PickAllgather(1000, 6, m, true), Algorithm::kHalving);
  // 1 MB at 6: doubling 1633 us, the ring 125 + 666.7 us.
  EXPECT_EQ(PickAllgather(1000000, 6, m, true), Algorithm::kRing);

  // hist_sync=auto beyond 32 workers: one node's histogram of 115 KB at 64 workers. At 10 Gbit/s
  // the allreduce (halving: 300 + 181.1 us) beats the reduce-scatter (150 + 90.6 us) plus the
  // candidates' sizes (halving, 300.8 us) and allgather (3840 B by doubling, 153 us).
  EXPECT_FALSE(ReduceScatterPays(115000, 60 * 64, 64, m));
  // At 1 Gbit/s (9.2 us a KB): allreduce 300 + 1811.3 us; reduce-scatter 150 + 905.6, sizes
  // 308.1, allgather 180.2 us: 1543.9 us, it pays.
  CostModel gbit = m;
  gbit.bytes_per_s = 1.25e8;
  EXPECT_TRUE(ReduceScatterPays(115000, 60 * 64, 64, gbit));
  EXPECT_FALSE(ReduceScatterPays(115000, 60, 1, gbit));
}

}  // namespace
}  // namespace ringboost::rabit

namespace ringboost::rabit {
namespace {

// ringboost-submit puts the token in DMLC_TASK_ID; a ringboost worker does not add it twice.
TEST(Protocol, TaskIdCarriesTheTokenOnce) {
  EXPECT_EQ(proto::TaskIdWithToken("3", "t0k"), "3:t0k");
  EXPECT_EQ(proto::TaskIdWithToken("3:t0k", "t0k"), "3:t0k");
  EXPECT_EQ(proto::TaskIdWithToken("3", ""), "3");
  std::string bare;
  EXPECT_TRUE(proto::TaskIdHasToken("3:t0k", "t0k", &bare));
  EXPECT_EQ(bare, "3");
  EXPECT_FALSE(proto::TaskIdHasToken("3:t0", "t0k", &bare));
  EXPECT_FALSE(proto::TaskIdHasToken("3", "t0k", &bare));
}

}  // namespace
}  // namespace ringboost::rabit
