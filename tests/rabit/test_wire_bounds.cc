// Every length and count read from the wire, one test each: a hand-made end (real socket) claims
// one past the bound, and the real end refuses it, naming the claim, before it allocates or reads
// what was claimed. The ends: the tracker reading a worker, a worker reading the tracker, and a
// worker reading a peer in the collectives (the Allgatherv sizes are in test_security.cc).
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "rabit/auth.h"
#include "rabit/fake_rank_one.h"
#include "rabit/hello.h"
#include "rabit/protocol.h"
#include "rabit/socket.h"
#include "rabit/tracker_thread.h"

namespace ringboost::rabit {
namespace {

constexpr const char* kToken = "wire-bounds-token";

std::string Int(int32_t v) { return auth::IntBytes(v); }
std::string Str(const std::string& s) { return test::LengthPrefixed(s); }
// A length prefix alone: the claim, with none of the bytes it announces.
std::string Claim(int64_t length) { return Int(static_cast<int32_t>(length)); }

void Send(TcpSocket* sock, const std::string& bytes) {
  ThrowIfError(sock->SendAll(bytes.data(), bytes.size(), Deadline::After(5)));
}

bool WaitForLog(test::TrackerThread* t, const std::string& part) {
  const Deadline until = Deadline::After(10);
  while (!until.Expired()) {
    if (t->log().find(part) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// ---- the tracker reading a worker (the plain dmlc hello, then `bytes`) ----------------------

struct TrackerCase {
  const char* name;
  std::string bytes;     // after the magic
  const char* expected;  // in the tracker's log
};

class TrackerReadsAWorker : public ::testing::TestWithParam<TrackerCase> {};

TEST_P(TrackerReadsAWorker, RefusesAClaimPastTheBound) {
  test::TrackerThread tracker(1);
  TcpSocket sock;
  ASSERT_TRUE(TcpSocket::Connect("127.0.0.1", tracker.port(), Deadline::After(5), &sock).ok());
  Send(&sock, Int(proto::kMagic) + GetParam().bytes);
  EXPECT_TRUE(WaitForLog(&tracker, GetParam().expected)) << tracker.log();
}

const std::string kStartOfOne = Int(-1) + Int(1) + Str("0") + Str("start");

INSTANTIATE_TEST_SUITE_P(
    Bounds, TrackerReadsAWorker,
    ::testing::Values(
        TrackerCase{"TaskId", Int(-1) + Int(-1) + Claim(proto::kMaxTaskIdBytes + 1),
                    "a string of 4097 bytes is refused (allowed: 0 to 4096)"},
        TrackerCase{"Command", Int(-1) + Int(-1) + Str("0") + Claim(proto::kMaxCommandBytes + 1),
                    "a string of 65 bytes is refused (allowed: 0 to 64)"},
        TrackerCase{
            "PrintMessage",
            Int(0) + Int(-1) + Str("0") + Str("print") + Claim(int64_t{proto::kMaxStringBytes} + 1),
            "print: a string of 1048577 bytes is refused (allowed: 0 to 1048576)"},
        TrackerCase{"WorldSize", Int(-1) + Int(proto::kMaxWorldSize + 1) + Str("0") + Str("start"),
                    "world size 65537 out of range"},
        // A world of one: no links at all, so a worker claiming to hold one is refused.
        TrackerCase{"LinksHeld", kStartOfOne + Int(1), "holds 1 links, expected 0 to 0"},
        TrackerCase{"ListeningPort", kStartOfOne + Int(0) + Int(0) + Int(65536),
                    "listening port 65536 out of range"}),
    [](const auto& info) { return std::string(info.param.name); });

// ---- a worker reading the tracker ---------------------------------------------------------

// A tracker by hand: proves the token as ours does, reads the worker's start, then sends
// `script` (what comes after the hello) and answers nothing more.
class FakeTracker {
 public:
  FakeTracker() { ThrowIfError(TcpSocket::Listen("127.0.0.1", 0, &listener_)); }
  int port() const { return listener_.LocalPort(); }

  // Serves one worker's start; returns once `script` is sent (the worker's replies are read).
  void Serve(const std::vector<std::string>& script) {
    const Deadline d = Deadline::After(10);
    ASSERT_TRUE(listener_.Accept(d, &sock_).ok());
    std::string nonce_w(auth::kNonceBytes, '\0'), mac_w(auth::kMacBytes, '\0');
    int32_t magic = 0, rank = 0, world = 0;
    ASSERT_TRUE(proto::RecvInt(&sock_, &magic, d).ok());
    ASSERT_EQ(magic, proto::kAuthMagic);
    ASSERT_TRUE(sock_.RecvAll(nonce_w.data(), nonce_w.size(), d).ok());
    const std::string nonce_t = auth::NewNonce();
    Send(&sock_, Int(proto::kAuthMagic) + nonce_t +
                     auth::Mac(kToken, proto::kTrackerProof, {nonce_w, nonce_t}));
    ASSERT_TRUE(sock_.RecvAll(mac_w.data(), mac_w.size(), d).ok());
    std::string task, cmd;
    ASSERT_TRUE(proto::RecvInt(&sock_, &rank, d).ok());
    ASSERT_TRUE(proto::RecvInt(&sock_, &world, d).ok());
    ASSERT_TRUE(proto::RecvStr(&sock_, &task, d).ok());
    ASSERT_TRUE(proto::RecvStr(&sock_, &cmd, d).ok());
    // Each step of the script is sent once the worker has spoken since the last (its links
    // held, its failed connects): a tracker answers, it does not run ahead.
    for (std::size_t i = 0; i < script.size(); ++i) {
      if (i > 0) {
        int32_t v = 0;
        ASSERT_TRUE(proto::RecvInt(&sock_, &v, d).ok());
      }
      Send(&sock_, script[i]);
    }
  }

 private:
  TcpSocket listener_;
  TcpSocket sock_;
};

// A real worker (rank 1 of 2 by the script) against the fake tracker: its error.
std::string WorkerError(const std::vector<std::string>& script) {
  FakeTracker tracker;
  std::string result;
  std::thread worker([&] {
    CommunicatorConfig config;
    config.backend = "tcp";
    config.args = {{"DMLC_TRACKER_URI", "127.0.0.1"},
                   {"DMLC_TRACKER_PORT", std::to_string(tracker.port())},
                   {"DMLC_TASK_ID", "1"},
                   {"RINGBOOST_JOB_TOKEN", kToken},
                   {"rabit_timeout_sec", "10"},
                   {"rabit_peer_timeout_sec", "10"}};
    try {
      MakeCommunicator(config);
      result = "linked up";
    } catch (const std::exception& e) {
      result = e.what();
    }
  });
  tracker.Serve(script);
  worker.join();
  return result;
}

// Rank 1 of a world of two: parent 0, tree {0}, ring 0 <-> 0, and (to a proven worker) no
// hypercube.
const std::string kRankOneOfTwo =
    Int(1) + Int(0) + Int(2) + Int(1) + Int(0) + Int(0) + Int(0) + Int(0);

TEST(WorkerReadsTheTracker, RefusesAHypercubeFlagOtherThanZeroOrOne) {
  const std::string e =
      WorkerError({Int(1) + Int(0) + Int(2) + Int(1) + Int(0) + Int(0) + Int(0) + Int(2)});
  EXPECT_NE(e.find("sent an invalid hypercube flag 2"), std::string::npos) << e;
}

TEST(WorkerReadsTheTracker, RefusesAWorldPastTheBound) {
  const std::string e = WorkerError({Int(0) + Int(-1) + Int(proto::kMaxWorldSize + 1) + Int(0)});
  EXPECT_NE(e.find("invalid assignment: rank 0, world size 65537"), std::string::npos) << e;
}

TEST(WorkerReadsTheTracker, RefusesMoreTreeNeighboursThanABinaryTreeHas) {
  const std::string e = WorkerError({Int(0) + Int(-1) + Int(8) + Int(4)});
  EXPECT_NE(e.find("world size 8, 4 neighbours"), std::string::npos) << e;
}

TEST(WorkerReadsTheTracker, RefusesAHostPastTheBound) {
  const std::string e =
      WorkerError({kRankOneOfTwo, Int(1) + Int(0) + Claim(proto::kMaxHostBytes + 1)});
  EXPECT_NE(e.find("a string of 1025 bytes from tracker 127.0.0.1:"), std::string::npos) << e;
  EXPECT_NE(e.find("is refused (allowed: 0 to 1024)"), std::string::npos) << e;
}

TEST(WorkerReadsTheTracker, RefusesConnectCountsPastItsMissingLinks) {
  const std::string e = WorkerError({kRankOneOfTwo, Int(0x7fffffff) + Int(0)});
  EXPECT_NE(e.find("asked for 2147483647 connects and 0 accepts of 1 missing links"),
            std::string::npos)
      << e;
}

TEST(WorkerReadsTheTracker, RefusesAnAbortReasonPastTheBound) {
  const std::string e = WorkerError(
      {Int(proto::kTrackerBeat) + Int(proto::kTrackerAbort) + Claim(proto::kMaxAbortBytes + 1)});
  EXPECT_NE(e.find("a string of 4097 bytes from tracker"), std::string::npos) << e;
}

// ---- a worker reading a peer in the collectives ----------------------------------------------

// Rank 1 of a world of two, by hand, linking to the real rank 0 as a restarted worker would
// (kFlagRecovering), so that rank 0, itself restarted, runs the checkpoint agreement at once;
// then answers it: its version 5 is the newest, it holds it, and its size is `size`.
void FakeRecoveringRankOne(int tracker_port, int64_t size) {
  test::FakeLinks fake;
  ASSERT_NO_FATAL_FAILURE(test::LinkAsRankOne(tracker_port, kToken, proto::kFlagRecovering, &fake));
  // The tree of two: rank 1 sends its value up to rank 0 for each allreduce (max of the
  // versions, min of the holders), then the broadcast of the size from the holder.
  const int64_t up[3] = {5, 1, size};
  Send(&fake.link, std::string(reinterpret_cast<const char*>(up), sizeof(up)));
  // Keep the links open until rank 0 has judged the size.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
}

std::string CheckpointAgreementError(int64_t size) {
  test::TrackerThread tracker(2, kToken);
  std::string result;
  std::thread real([&] {
    try {
      MakeCommunicator(
          test::RealRankZero(tracker, kToken, {{"rabit_recover", "1"}, {"DMLC_NUM_ATTEMPT", "1"}}));
      result = "linked up";
    } catch (const std::exception& e) {
      result = e.what();
    }
  });
  FakeRecoveringRankOne(tracker.port(), size);
  real.join();
  static_cast<void>(tracker.Finish(/*stop=*/true));  // stopped early: its status is not tested
  return result;
}

TEST(PeerWireBounds, CheckpointAgreementRefusesASizePastSixteenGiB) {
  const std::string e = CheckpointAgreementError(proto::kMaxCheckpointBytes + 1);
  EXPECT_NE(e.find("rank 1 announced a checkpoint of 17179869185 bytes (allowed: 0 to "
                   "17179869184)"),
            std::string::npos)
      << e;
}

TEST(PeerWireBounds, CheckpointAgreementRefusesANegativeSize) {
  const std::string e = CheckpointAgreementError(-1);
  EXPECT_NE(e.find("rank 1 announced a checkpoint of -1 bytes"), std::string::npos) << e;
}

}  // namespace
}  // namespace ringboost::rabit
