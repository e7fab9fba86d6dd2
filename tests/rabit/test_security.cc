// Strangers against the job token, with real sockets: what they read never holds the token,
// and they can neither join, print nor shut down; proofs cannot be replayed or reflected; idle
// connections on the tracker's or a worker's peer port delay nobody.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "rabit/auth.h"
#include "rabit/fake_rank_one.h"
#include "rabit/handshake.h"
#include "rabit/hello.h"
#include "rabit/protocol.h"
#include "rabit/socket.h"
#include "rabit/tracker_thread.h"

namespace ringboost::rabit {
namespace {

constexpr const char* kToken = "s3cret-job-token-7f3a";

bool Holds(const std::string& bytes, const std::string& needle) {
  return bytes.find(needle) != std::string::npos;
}

// Everything the other end sends until it closes or goes quiet for `quiet_s`.
std::string Drain(TcpSocket* sock, double quiet_s) {
  std::string all;
  for (;;) {
    char buf[4096];
    std::size_t got = 0;
    TcpSocket* socks[1] = {sock};
    const bool want_read[1] = {true}, want_write[1] = {false};
    Status s = PollLinks(socks, want_read, want_write, 1, Deadline::After(quiet_s), "drain");
    if (!s.ok()) break;
    s = sock->RecvSome(buf, sizeof(buf), &got);
    all.append(buf, got);
    if (!s.ok() || got == 0) break;
  }
  return all;
}

TcpSocket Dial(int port) {
  TcpSocket sock;
  ThrowIfError(TcpSocket::Connect("127.0.0.1", port, Deadline::After(5), &sock));
  return sock;
}

void Send(TcpSocket* sock, const std::string& bytes) {
  ThrowIfError(sock->SendAll(bytes.data(), bytes.size(), Deadline::After(5)));
}

std::string Str(const std::string& s) { return auth::IntBytes(static_cast<int32_t>(s.size())) + s; }

TEST(Auth, ProofsDependOnTokenRoleAndBothNonces) {
  const std::string a = auth::NewNonce(), b = auth::NewNonce();
  EXPECT_NE(a, b);
  EXPECT_EQ(a.size(), auth::kNonceBytes);
  const std::string mac = auth::Mac("t", proto::kWorkerProof, {a, b});
  EXPECT_EQ(mac.size(), auth::kMacBytes);
  EXPECT_TRUE(auth::SameMac(mac, auth::Mac("t", proto::kWorkerProof, {a, b})));
  EXPECT_FALSE(auth::SameMac(mac, auth::Mac("u", proto::kWorkerProof, {a, b})));
  EXPECT_FALSE(auth::SameMac(mac, auth::Mac("t", proto::kTrackerProof, {a, b})));
  EXPECT_FALSE(auth::SameMac(mac, auth::Mac("t", proto::kWorkerProof, {b, a})));
  // Length-prefixed parts: moving a byte from one part to the next changes the MAC.
  EXPECT_FALSE(auth::SameMac(auth::Mac("t", "l", {"ab", "c"}), auth::Mac("t", "l", {"a", "bc"})));
  EXPECT_TRUE(auth::SameSecret("x:tok", "x:tok"));
  EXPECT_FALSE(auth::SameSecret("x:tok", "x:to"));
  EXPECT_FALSE(auth::SameSecret("", "x"));
}

// The stranger speaks every hello the tracker knows, without the token; the job still runs.
TEST(TrackerSecurity, StrangerLearnsNoTokenAndCannotJoinPrintOrShutDown) {
  test::TrackerThread tracker(2, kToken);
  std::string seen;
  {  // The challenge: the tracker answers with its proof, then drops a wrong one.
    TcpSocket s = Dial(tracker.port());
    const std::string nonce = auth::NewNonce();
    Send(&s, auth::IntBytes(proto::kAuthMagic) + nonce);
    std::string reply(4 + auth::kNonceBytes + auth::kMacBytes, '\0');
    ASSERT_TRUE(s.RecvAll(reply.data(), reply.size(), Deadline::After(5)).ok());
    seen += reply;
    // Reflection: the tracker's own proof sent back as the worker's.
    Send(&s, reply.substr(4 + auth::kNonceBytes) + auth::IntBytes(-1) + auth::IntBytes(2) +
                 Str("0") + Str("shutdown"));
    seen += Drain(&s, 2);
  }
  for (const char* cmd : {"start", "print", "shutdown"}) {  // plain hellos without the token
    for (int32_t rank : {-1, 0, 1}) {
      TcpSocket s = Dial(tracker.port());
      Send(&s, auth::IntBytes(proto::kMagic) + auth::IntBytes(rank) + auth::IntBytes(2) +
                   Str(std::to_string(rank)) + Str(cmd) + Str("forged line"));
      seen += Drain(&s, 2);
    }
  }
  {  // Garbage.
    TcpSocket s = Dial(tracker.port());
    Send(&s, std::string(64, '\xff'));
    seen += Drain(&s, 2);
  }
  EXPECT_FALSE(Holds(seen, kToken));
  const std::string log = tracker.log();
  EXPECT_TRUE(Holds(log, "failed the job token challenge")) << log;
  EXPECT_TRUE(Holds(log, "does not carry the job token")) << log;
  EXPECT_FALSE(Holds(log, "forged line")) << log;
  EXPECT_TRUE(tracker.tracker().RanksByTask().empty());

  // The real workers (the token proven, never sent) still make the whole job.
  auto results =
      test::RunWorkers(&tracker, 2, {{"RINGBOOST_JOB_TOKEN", kToken}}, [](Communicator* comm) {
        ThrowIfError(comm->TrackerPrint("real line"));
        return std::to_string(comm->AllreduceValue<int64_t>(comm->Rank() + 1, Op::kSum));
      });
  EXPECT_EQ(results, (std::vector<std::string>{"3", "3"}));
  EXPECT_TRUE(tracker.Finish(/*stop=*/false).ok()) << tracker.log();
  EXPECT_TRUE(Holds(tracker.log(), "] real line")) << tracker.log();
}

// A worker with another token is refused by the tracker; it names the tracker's proof failing.
TEST(TrackerSecurity, WorkerWithAnotherTokenIsRefusedBothWays) {
  test::TrackerThread tracker(1, kToken);
  auto results = test::RunWorkers(&tracker, 1,
                                  {{"RINGBOOST_JOB_TOKEN", "another"}, {"rabit_timeout_sec", "5"}},
                                  [](Communicator*) { return std::string("joined"); });
  EXPECT_TRUE(Holds(results[0], "failed the job token challenge")) << results[0];
  EXPECT_TRUE(Holds(results[0], "not this job's tracker")) << results[0];
  static_cast<void>(tracker.Finish(/*stop=*/true));  // stopped early: its status is not tested
}

// The peer port: the acceptor's side of a link's hello behind a HandshakePool, as in a worker.
class PeerPort {
 public:
  explicit PeerPort(HandshakeLimits limits = Quick()) {
    ThrowIfError(TcpSocket::Listen("127.0.0.1", 0, &listener_));
    pool_ = std::make_unique<HandshakePool>(
        &listener_, limits, [] { return std::make_unique<PeerHello>(kToken, 0, 0); },
        [this](const std::string&, const std::string& why) { drops_.push_back(why); });
  }
  int port() const { return listener_.LocalPort(); }
  // Steps the pool until *stop and `expected` links completed (or 10 s); returns their ranks.
  std::vector<int> Serve(const std::atomic<bool>* stop, std::size_t expected) {
    std::vector<int> ranks;
    const Deadline until = Deadline::After(10);
    while (!until.Expired() && !(stop->load() && ranks.size() >= expected)) {
      std::vector<HandshakePool::Done> done;
      ThrowIfError(pool_->Step(50, &done));
      for (auto& d : done) ranks.push_back(static_cast<PeerHello*>(d.handshake.get())->peer_rank);
    }
    return ranks;
  }
  const std::vector<std::string>& drops() const { return drops_; }
  static HandshakeLimits Quick() {
    HandshakeLimits limits;
    limits.timeout_s = 1;
    return limits;
  }

 private:
  TcpSocket listener_;
  std::unique_ptr<HandshakePool> pool_;
  std::vector<std::string> drops_;
};

TEST(PeerSecurity, StrangerOnThePeerPortLearnsNoTokenAndCannotLink) {
  PeerPort port;
  std::string seen;
  std::vector<int> linked;
  std::atomic<bool> finished{false};
  std::thread stranger([&] {
    TcpSocket s = Dial(port.port());
    Send(&s, auth::IntBytes(proto::kPeerMagic) + auth::NewNonce());
    std::string reply(4 + auth::kNonceBytes + 8 + auth::kMacBytes, '\0');
    if (s.RecvAll(reply.data(), reply.size(), Deadline::After(5)).ok()) seen += reply;
    // Reflection of the acceptor's own proof, then a made-up one.
    Send(&s, auth::IntBytes(1) + auth::IntBytes(0) + reply.substr(reply.size() - auth::kMacBytes));
    seen += Drain(&s, 2);
    TcpSocket t = Dial(port.port());
    Send(&t, auth::IntBytes(proto::kPeerMagic) + auth::NewNonce());
    seen += Drain(&t, 0.5);
    Send(&t, auth::IntBytes(1) + auth::IntBytes(0) + std::string(auth::kMacBytes, 'x'));
    seen += Drain(&t, 2);
    // A worker with another token: the acceptor's proof fails on its side too.
    TcpSocket u = Dial(port.port());
    int32_t rank = -1, flags = -1;
    Status st = ConnectPeerHello(&u, "another", 1, 0, Deadline::After(5), &rank, &flags);
    EXPECT_TRUE(Holds(st.message(), "failed the job token challenge")) << st.message();
    // The real peer.
    TcpSocket v = Dial(port.port());
    st = ConnectPeerHello(&v, kToken, 2, 0, Deadline::After(5), &rank, &flags);
    EXPECT_TRUE(st.ok()) << st.message();
    EXPECT_EQ(rank, 0);
    finished.store(true);
  });
  linked = port.Serve(&finished, 1);
  stranger.join();
  EXPECT_FALSE(Holds(seen, kToken));
  EXPECT_EQ(linked, std::vector<int>{2});
  int refused = 0;
  for (const auto& why : port.drops()) refused += Holds(why, "failed the job token challenge");
  EXPECT_EQ(refused, 2);
}

// Idle strangers hold a pending slot each, and the caps drop the oldest: a real peer that
// arrives after 50 of them still links at once.
TEST(PeerSecurity, IdleConnectionsDelayNoLink) {
  PeerPort port;
  std::vector<TcpSocket> idle;
  for (int i = 0; i < 50; ++i) idle.push_back(Dial(port.port()));
  double took = -1;
  std::atomic<bool> finished{false};
  std::thread peer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto start = std::chrono::steady_clock::now();
    TcpSocket v = Dial(port.port());
    int32_t rank = -1, flags = -1;
    Status st = ConnectPeerHello(&v, kToken, 1, 0, Deadline::After(5), &rank, &flags);
    EXPECT_TRUE(st.ok()) << st.message();
    took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    finished.store(true);
  });
  std::vector<int> linked = port.Serve(&finished, 1);
  peer.join();
  EXPECT_EQ(linked, std::vector<int>{1});
  EXPECT_LT(took, 3.0);  // the bound ("a few seconds"); a loaded CI host stays below it
}

// Connections from another address of this machine (127.0.0.2: all of 127/8 is loopback), as a
// stranger on another host would make them; closed when it goes.
class OtherAddress {
 public:
  ~OtherAddress() {
    for (int fd : fds_) ::close(fd);
  }
  // A connection to `port`; its descriptor (a read on it gives up after 10 s).
  int Dial(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    EXPECT_GE(fd, 0);
    fds_.push_back(fd);
    const timeval limit{10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
    sockaddr_in from{}, to{};
    from.sin_family = to.sin_family = AF_INET;
    inet_pton(AF_INET, "127.0.0.2", &from.sin_addr);
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    to.sin_port = htons(static_cast<uint16_t>(port));
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)), 0);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)), 0);
    return fd;
  }

 private:
  std::vector<int> fds_;
};

// A burst of connections from one address passes the cap per address (it spares young ones), and
// the cap in all then closes a connection of that address, not a real peer's hello in progress
// from another (one round trip of a link hello, on a real network, is time enough for a burst).
TEST(PeerSecurity, ABurstFromOneAddressClosesNoHelloOfAnother) {
  HandshakeLimits limits = PeerPort::Quick();
  limits.timeout_s = 10;
  limits.per_source = 4;
  limits.total = 16;
  PeerPort port(limits);
  std::atomic<bool> finished{false};
  std::thread peer([&] {
    TcpSocket v = Dial(port.port());
    // The first half of the hello: the acceptor answers, the connector's proof is still to come.
    const std::string nonce_c = auth::NewNonce();
    Send(&v, auth::IntBytes(proto::kPeerMagic) + nonce_c);
    std::string reply(4 + auth::kNonceBytes + 8 + auth::kMacBytes, '\0');
    ASSERT_TRUE(v.RecvAll(reply.data(), reply.size(), Deadline::After(5)).ok());
    // The burst; then one more that waits for its answer: the pool has admitted all before it.
    OtherAddress stranger;
    for (int i = 0; i < 40; ++i) stranger.Dial(port.port());
    const int last = stranger.Dial(port.port());
    const std::string hello = auth::IntBytes(proto::kPeerMagic) + auth::NewNonce();
    ASSERT_EQ(::send(last, hello.data(), hello.size(), 0), static_cast<ssize_t>(hello.size()));
    char answer[4];
    ASSERT_EQ(::recv(last, answer, sizeof(answer), MSG_WAITALL), 4);
    // The rest of the real peer's hello.
    const std::string nonce_a = reply.substr(4, auth::kNonceBytes);
    const std::string proof = auth::IntBytes(1) + auth::IntBytes(0) +
                              auth::Mac(kToken, proto::kConnectorProof,
                                        {nonce_c, nonce_a, auth::IntBytes(1), auth::IntBytes(0)});
    static_cast<void>(v.SendAll(proof.data(), proof.size(), Deadline::After(5)));  // closed?
    finished.store(true);
  });
  std::vector<int> linked = port.Serve(&finished, 1);
  peer.join();
  EXPECT_EQ(linked, std::vector<int>{1});
  int closed = 0;
  for (const auto& why : port.drops()) closed += Holds(why, "the oldest of the address");
  EXPECT_GT(closed, 0);
}

// Strangers refused on a worker's peer port are logged as the tracker's are: a line each up to
// RefusalLog::kLines, then counted, the count logged when the link-up ends. Each line would be a
// line of the job's log (ringboost-submit relays a worker's stderr) for as long as it links.
TEST(PeerSecurity, RefusalsOnThePeerPortAreCountedBeyondTheLimit) {
  constexpr int kStrangers = 3 * RefusalLog::kLines;
  test::TrackerThread tracker(2, kToken);
  testing::internal::CaptureStderr();
  std::string result;
  std::thread real([&] {
    try {
      auto comm = MakeCommunicator(test::RealRankZero(tracker, kToken));
      result = "linked";
    } catch (const std::exception& e) {
      result = e.what();
    }
  });
  const auto strangers = [](int port) {
    for (int i = 0; i < kStrangers; ++i) {
      TcpSocket s = Dial(port);
      Send(&s, auth::IntBytes(12345));  // not a link's hello: closed, and the refusal logged
      Drain(&s, 5);                     // until rank 0 has closed it
    }
  };
  test::FakeLinks fake;
  EXPECT_NO_FATAL_FAILURE(test::LinkAsRankOne(tracker.port(), kToken, 0, &fake, strangers));
  real.join();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(result, "linked");
  int lines = 0;
  for (auto at = err.find(": refused a "); at != std::string::npos;
       at = err.find(": refused a ", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, RefusalLog::kLines) << err;
  EXPECT_TRUE(Holds(err,
                    "tcp rank 0: refused a connection from 127.0.0.1: not a ringboost "
                    "worker's link (hello 0x3039)"))
      << err;
  EXPECT_TRUE(Holds(err, "tcp rank 0: " + std::to_string(kStrangers - RefusalLog::kLines) +
                             " more connection(s) refused and not logged one by one"))
      << err;
  static_cast<void>(tracker.Finish(/*stop=*/true));  // stopped early: its status is not tested
}

// Rank 1 of a world of two, by hand: joins and links as a worker does (it knows the token),
// then answers the sizes allreduce of an Allgatherv (a tree of two: it sends its two slots up)
// with 1 TiB for its own block.
void FakeRankOneClaimingATebibyte(int tracker_port) {
  test::FakeLinks fake;
  ASSERT_NO_FATAL_FAILURE(test::LinkAsRankOne(tracker_port, kToken, 0, &fake));
  const int64_t sizes[2] = {0, int64_t{1} << 40};
  Send(&fake.link, std::string(reinterpret_cast<const char*>(sizes), sizeof(sizes)));
}

// A peer that knows the token but lies about sizes: rank 0 refuses the size before it
// allocates anything.
TEST(PeerSecurity, AllgathervRefusesASizeBeyondWhatTheProtocolAllows) {
  test::TrackerThread tracker(2, kToken);
  std::string result;
  std::thread real([&] {
    try {
      // The fake answers the sizes' allreduce as the tree's child does.
      auto comm =
          MakeCommunicator(test::RealRankZero(tracker, kToken, {{"rabit_algorithm", "tree"}}));
      std::vector<char> out;
      result = comm->AllgathervRaw("abc", 3, &out).message();
    } catch (const std::exception& e) {
      result = std::string("error: ") + e.what();
    }
  });
  FakeRankOneClaimingATebibyte(tracker.port());
  real.join();
  EXPECT_NE(result.find("rank 1 announced 1099511627776 bytes"), std::string::npos) << result;
  static_cast<void>(tracker.Finish(/*stop=*/true));  // stopped early: its status is not tested
}

}  // namespace
}  // namespace ringboost::rabit
