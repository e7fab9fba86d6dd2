#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "rabit/protocol.h"
#include "rabit/tracker.h"

namespace ringboost::rabit {
namespace {

// ---- The link map against XGBoost's ----------------------------------------------------------

struct ExpectedLinks {
  int n;
  std::vector<int> parent;
  std::vector<std::vector<int>> neighbours;
  std::vector<int> ring_prev, ring_next;
};

// Printed once by XGBoost 1.7.4's tracker (xgboost/tracker.py):
//   RabitTracker('127.0.0.1', n).get_link_map(n) -> tree_map, parent_map, ring_map
// n = 12 is there because from n = 9 on XGBoost walks some children in Python's set order
// (8 before 7), which a plain ascending walk would not reproduce.
const std::vector<ExpectedLinks>& XGBoostLinkMaps() {
  static const std::vector<ExpectedLinks> maps = {
      {1, {-1}, {{}}, {0}, {0}},
      {2, {-1, 0}, {{1}, {0}}, {1, 0}, {1, 0}},
      {3, {-1, 0, 0}, {{1, 2}, {0}, {0}}, {2, 0, 1}, {1, 2, 0}},
      {4, {-1, 0, 1, 0}, {{1, 3}, {0, 2}, {1}, {0}}, {3, 0, 1, 2}, {1, 2, 3, 0}},
      {5, {-1, 0, 1, 1, 0}, {{1, 4}, {0, 2, 3}, {1}, {1}, {0}}, {4, 0, 1, 2, 3}, {1, 2, 3, 4, 0}},
      {6,
       {-1, 0, 1, 1, 5, 0},
       {{1, 5}, {0, 2, 3}, {1}, {1}, {5}, {0, 4}},
       {5, 0, 1, 2, 3, 4},
       {1, 2, 3, 4, 5, 0}},
      {7,
       {-1, 0, 1, 1, 6, 6, 0},
       {{1, 6}, {0, 2, 3}, {1}, {1}, {6}, {6}, {0, 5, 4}},
       {6, 0, 1, 2, 3, 4, 5},
       {1, 2, 3, 4, 5, 6, 0}},
      {8,
       {-1, 0, 1, 2, 1, 7, 7, 0},
       {{1, 7}, {0, 2, 4}, {1, 3}, {2}, {1}, {7}, {7}, {0, 6, 5}},
       {7, 0, 1, 2, 3, 4, 5, 6},
       {1, 2, 3, 4, 5, 6, 7, 0}},
      {12,
       {-1, 0, 1, 2, 2, 7, 7, 1, 11, 10, 11, 0},
       {{1, 11},
        {0, 2, 7},
        {1, 4, 3},
        {2},
        {2},
        {7},
        {7},
        {1, 6, 5},
        {11},
        {10},
        {11, 9},
        {0, 10, 8}},
       {11, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
       {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0}},
  };
  return maps;
}

TEST(LinkMap, EqualsXGBoostTracker) {
  for (const ExpectedLinks& want : XGBoostLinkMaps()) {
    SCOPED_TRACE("world size " + std::to_string(want.n));
    const proto::LinkMap got = proto::ComputeLinkMap(want.n);
    EXPECT_EQ(got.parent, want.parent);
    EXPECT_EQ(got.neighbours, want.neighbours);
    EXPECT_EQ(got.ring_prev, want.ring_prev);
    EXPECT_EQ(got.ring_next, want.ring_next);
  }
}

TEST(LinkMap, EveryWorldIsConsistent) {
  for (int n = 1; n <= 64; ++n) {
    const proto::LinkMap m = proto::ComputeLinkMap(n);
    for (int r = 0; r < n; ++r) {
      EXPECT_EQ(m.ring_next[m.ring_prev[r]], r);
      for (int peer : m.neighbours[r]) {
        const std::vector<int>& back = m.neighbours[peer];
        EXPECT_NE(std::find(back.begin(), back.end(), r), back.end()) << n << " " << r;
      }
      if (r > 0) EXPECT_EQ(m.neighbours[r].front(), m.parent[r]);
    }
  }
}

// ---- A fake worker: the worker side of the protocol, spoken by hand ----------------------------

constexpr double kClientTimeoutS = 5;

#define RB_TRY(expr)                 \
  do {                               \
    ::ringboost::Status s_ = (expr); \
    if (!s_.ok()) return s_;         \
  } while (0)

struct Peer {
  std::string host;
  int32_t port = 0;
  int32_t rank = -1;
};

struct Assignment {
  int32_t rank = -9, parent = -9, world = -9;
  std::vector<int32_t> neighbours;
  int32_t prev = -9, next = -9;
  std::vector<Peer> connect;
  int32_t num_accept = -9;
};

// Connects and sends the hello: magic (checking the echo), rank, world size, task id, command.
Status SendHello(int port, int32_t rank, const std::string& task_id, const std::string& cmd,
                 TcpSocket* sock) {
  const Deadline d = Deadline::After(kClientTimeoutS);
  RB_TRY(TcpSocket::Connect("127.0.0.1", port, d, sock));
  int32_t echo = 0;
  RB_TRY(proto::SendInt(sock, proto::kMagic, d));
  RB_TRY(proto::RecvInt(sock, &echo, d));
  if (echo != proto::kMagic) return Status::Fail("bad echo " + std::to_string(echo));
  RB_TRY(proto::SendInt(sock, rank, d));
  RB_TRY(proto::SendInt(sock, -1, d));  // world size: not known
  RB_TRY(proto::SendStr(sock, task_id, d));
  return proto::SendStr(sock, cmd, d);
}

// start/recover: reads the assignment, holds no links, connects to everything it is told to
// (successfully: 0 errors), and reports `listen_port`.
Status StartWorker(int tracker_port, const std::string& task_id, const std::string& cmd,
                   int32_t listen_port, Assignment* a) {
  TcpSocket sock;
  RB_TRY(SendHello(tracker_port, -1, task_id, cmd, &sock));
  const Deadline d = Deadline::After(kClientTimeoutS);
  int32_t count = 0;
  RB_TRY(proto::RecvInt(&sock, &a->rank, d));
  RB_TRY(proto::RecvInt(&sock, &a->parent, d));
  RB_TRY(proto::RecvInt(&sock, &a->world, d));
  RB_TRY(proto::RecvInt(&sock, &count, d));
  a->neighbours.resize(count);
  for (int32_t& r : a->neighbours) RB_TRY(proto::RecvInt(&sock, &r, d));
  RB_TRY(proto::RecvInt(&sock, &a->prev, d));
  RB_TRY(proto::RecvInt(&sock, &a->next, d));
  RB_TRY(proto::SendInt(&sock, 0, d));  // no good links yet
  RB_TRY(proto::RecvInt(&sock, &count, d));
  RB_TRY(proto::RecvInt(&sock, &a->num_accept, d));
  a->connect.resize(count);
  for (Peer& p : a->connect) {
    RB_TRY(proto::RecvStr(&sock, &p.host, d));
    RB_TRY(proto::RecvInt(&sock, &p.port, d));
    RB_TRY(proto::RecvInt(&sock, &p.rank, d));
  }
  RB_TRY(proto::SendInt(&sock, 0, d));  // no failed connects
  return proto::SendInt(&sock, listen_port, d);
}

Status SendCommand(int port, int32_t rank, const std::string& task_id, const std::string& cmd,
                   const std::string& message = "") {
  TcpSocket sock;
  RB_TRY(SendHello(port, rank, task_id, cmd, &sock));
  if (cmd == proto::kPrint) {
    RB_TRY(proto::SendStr(&sock, message, Deadline::After(kClientTimeoutS)));
  }
  return Status::OK();
}

// Runs StartWorker on its own thread (the tracker answers the batch in its own order).
std::future<Status> StartAsync(int port, const std::string& task_id, int32_t listen_port,
                               Assignment* a) {
  return std::async(std::launch::async,
                    [=] { return StartWorker(port, task_id, "start", listen_port, a); });
}

// A tracker serving on its own thread; its log lines collected.
class RunningTracker {
 public:
  explicit RunningTracker(TrackerOptions options) {
    options.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mutex_);
      lines_.push_back(line);
    };
    ThrowIfError(Tracker::Create(options, &tracker_));
    result_ = std::async(std::launch::async, [this] { return tracker_->Run(); });
  }
  ~RunningTracker() {
    tracker_->Stop();
    if (result_.valid()) result_.wait();
  }
  Tracker& tracker() { return *tracker_; }
  int port() const { return tracker_->port(); }

  // Run()'s status; stops the tracker first if it has not ended within a few seconds (so a
  // broken tracker fails the test instead of hanging it).
  Status Finish() {
    if (result_.wait_for(std::chrono::seconds(5)) != std::future_status::ready) tracker_->Stop();
    return result_.get();
  }
  // Whether a log line containing `needle` appears within a few seconds.
  bool WaitForLog(const std::string& needle) {
    for (int i = 0; i < 500; ++i) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const std::string& line : lines_) {
          if (line.find(needle) != std::string::npos) return true;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  std::string Log() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string all;
    for (const std::string& line : lines_) all += line + "\n";
    return all;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> lines_;
  std::unique_ptr<Tracker> tracker_;
  std::future<Status> result_;
};

TrackerOptions Options(int num_workers, const std::string& token = "") {
  TrackerOptions o;
  o.num_workers = num_workers;
  o.token = token;
  o.io_timeout_s = 2;  // below the fake workers' kClientTimeoutS
  return o;
}

// ---- The protocol ------------------------------------------------------------------------------

TEST(Tracker, RanksLinksRecoverPrintShutdown) {
  RunningTracker t(Options(3));
  Assignment a10, a2, a1;
  // Task ids sort numerically: "1" < "2" < "10" -> ranks 0, 1, 2.
  auto f10 = StartAsync(t.port(), "10", 7010, &a10);
  auto f2 = StartAsync(t.port(), "2", 7002, &a2);
  auto f1 = StartAsync(t.port(), "1", 7001, &a1);
  ASSERT_TRUE(f10.get().ok());
  ASSERT_TRUE(f2.get().ok());
  ASSERT_TRUE(f1.get().ok());
  EXPECT_EQ(a1.rank, 0);
  EXPECT_EQ(a2.rank, 1);
  EXPECT_EQ(a10.rank, 2);
  // World of 3: rank 0 is the root with children 1 and 2; the ring is 0 -> 1 -> 2 -> 0.
  EXPECT_EQ(a1.parent, -1);
  EXPECT_EQ(a1.world, 3);
  EXPECT_EQ(a1.neighbours, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(a1.prev, 2);
  EXPECT_EQ(a1.next, 1);
  EXPECT_EQ(a10.parent, 0);
  EXPECT_EQ(a10.neighbours, (std::vector<int32_t>{0}));
  EXPECT_EQ(a10.prev, 1);
  EXPECT_EQ(a10.next, 0);
  // Rank 0 came first: accepts both. Rank 1 connects to 0. Rank 2 connects to 0 and 1.
  EXPECT_TRUE(a1.connect.empty());
  EXPECT_EQ(a1.num_accept, 2);
  ASSERT_EQ(a2.connect.size(), 1u);
  EXPECT_EQ(a2.connect[0].host, "127.0.0.1");
  EXPECT_EQ(a2.connect[0].port, 7001);
  EXPECT_EQ(a2.connect[0].rank, 0);
  EXPECT_EQ(a2.num_accept, 1);
  ASSERT_EQ(a10.connect.size(), 2u);
  EXPECT_EQ(a10.connect[0].port, 7001);
  EXPECT_EQ(a10.connect[1].port, 7002);
  EXPECT_EQ(a10.connect[1].rank, 1);
  EXPECT_EQ(a10.num_accept, 0);
  EXPECT_EQ(t.tracker().RanksByTask(),
            (std::vector<std::pair<std::string, int>>{{"1", 0}, {"10", 2}, {"2", 1}}));

  // The worker of task "10" restarts and asks for its rank back.
  Assignment again;
  ASSERT_TRUE(StartWorker(t.port(), "10", "recover", 7110, &again).ok());
  EXPECT_EQ(again.rank, 2);
  EXPECT_EQ(again.num_accept, 2);  // its peers are done waiting: it accepts both

  ASSERT_TRUE(SendCommand(t.port(), 1, "2", "print", "hello from one\n").ok());
  EXPECT_TRUE(t.WaitForLog("[rank 1] hello from one")) << t.Log();
  EXPECT_EQ(t.Log().find("hello from one\n\n"), std::string::npos);
  for (int rank = 0; rank < 3; ++rank) {
    ASSERT_TRUE(SendCommand(t.port(), rank, "x", "shutdown").ok());
  }
  const Status s = t.Finish();
  EXPECT_TRUE(s.ok()) << s.message() << "\n" << t.Log();
}

TEST(Tracker, RefusesTaskIdWithoutToken) {
  RunningTracker t(Options(2, "s3cret"));
  Assignment stray;
  EXPECT_FALSE(StartWorker(t.port(), "0", "start", 7000, &stray).ok());
  EXPECT_TRUE(t.WaitForLog("refused a connection from 127.0.0.1: task id '0' does not carry"))
      << t.Log();
  Assignment a0, a1;
  auto f1 = StartAsync(t.port(), proto::TaskIdWithToken("1", "s3cret"), 7001, &a1);
  auto f0 = StartAsync(t.port(), proto::TaskIdWithToken("0", "s3cret"), 7000, &a0);
  ASSERT_TRUE(f0.get().ok());
  ASSERT_TRUE(f1.get().ok());
  EXPECT_EQ(a0.rank, 0);
  EXPECT_EQ(a1.rank, 1);
  EXPECT_EQ(t.tracker().RanksByTask(),
            (std::vector<std::pair<std::string, int>>{{"0", 0}, {"1", 1}}));
  ASSERT_TRUE(SendCommand(t.port(), 0, "0:s3cret", "shutdown").ok());
  ASSERT_TRUE(SendCommand(t.port(), 1, "1:s3cret", "shutdown").ok());
  EXPECT_TRUE(t.Finish().ok()) << t.Log();
}

// One worker in a world of one: its whole life, to show the tracker still serves.
void ServeOneWorker(RunningTracker* t) {
  Assignment a;
  ASSERT_TRUE(StartWorker(t->port(), "0", "start", 7000, &a).ok());
  EXPECT_EQ(a.rank, 0);
  EXPECT_EQ(a.prev, -1);
  EXPECT_EQ(a.next, -1);
  EXPECT_TRUE(a.neighbours.empty());
  ASSERT_TRUE(SendCommand(t->port(), 0, "0", "shutdown").ok());
  const Status s = t->Finish();
  EXPECT_TRUE(s.ok()) << s.message() << "\n" << t->Log();
}

TEST(Tracker, RefusesWrongMagic) {
  RunningTracker t(Options(1));
  TcpSocket sock;
  const Deadline d = Deadline::After(kClientTimeoutS);
  ASSERT_TRUE(TcpSocket::Connect("127.0.0.1", t.port(), d, &sock).ok());
  ASSERT_TRUE(proto::SendInt(&sock, 0x1234, d).ok());
  int32_t echo = 0;
  EXPECT_FALSE(proto::RecvInt(&sock, &echo, d).ok());  // closed, no echo
  EXPECT_TRUE(t.WaitForLog("refused a connection from 127.0.0.1: wrong magic 0x1234")) << t.Log();
  ServeOneWorker(&t);
}

// A flood of strangers costs a bounded number of log lines (each refusal would be a line of the
// job log and --log-file): the first refusal_lines one by one, the rest counted.
TEST(Tracker, RefusalsBeyondTheLimitAreCountedNotLogged) {
  TrackerOptions o = Options(1);
  o.refusal_lines = 5;
  RunningTracker t(o);
  const Deadline d = Deadline::After(kClientTimeoutS);
  for (int i = 0; i < 30; ++i) {
    TcpSocket sock;
    ASSERT_TRUE(TcpSocket::Connect("127.0.0.1", t.port(), d, &sock).ok());
    ASSERT_TRUE(proto::SendInt(&sock, 0x1234, d).ok());
    int32_t echo = 0;
    EXPECT_FALSE(proto::RecvInt(&sock, &echo, d).ok());  // refused: closed
  }
  ServeOneWorker(&t);
  const std::string log = t.Log();
  std::size_t lines = 0;
  for (std::size_t at = log.find("refused a connection"); at != std::string::npos;
       at = log.find("refused a connection", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 5u) << log;
  EXPECT_NE(log.find("0x7262ff9b) (further refusals are counted, not logged)"), std::string::npos)
      << log;
  EXPECT_NE(log.find("tracker: 25 more connection(s) refused and not logged one by one"),
            std::string::npos)
      << log;
}

TEST(Tracker, RefusesHugeStringWithoutReadingIt) {
  RunningTracker t(Options(1));
  TcpSocket sock;
  const Deadline d = Deadline::After(kClientTimeoutS);
  ASSERT_TRUE(TcpSocket::Connect("127.0.0.1", t.port(), d, &sock).ok());
  int32_t echo = 0;
  ASSERT_TRUE(proto::SendInt(&sock, proto::kMagic, d).ok());
  ASSERT_TRUE(proto::RecvInt(&sock, &echo, d).ok());
  ASSERT_TRUE(proto::SendInt(&sock, -1, d).ok());
  ASSERT_TRUE(proto::SendInt(&sock, -1, d).ok());
  ASSERT_TRUE(proto::SendInt(&sock, 1 << 30, d).ok());  // task id length, no bytes follow
  EXPECT_TRUE(t.WaitForLog("1073741824 bytes")) << t.Log();
  EXPECT_TRUE(t.WaitForLog("refused a connection from 127.0.0.1")) << t.Log();
  ServeOneWorker(&t);
}

TEST(Tracker, DropsStalledConnection) {
  TrackerOptions o = Options(1);
  o.handshake_timeout_s = 0.3;
  RunningTracker t(o);
  TcpSocket silent;  // connects and never says a word
  ASSERT_TRUE(
      TcpSocket::Connect("127.0.0.1", t.port(), Deadline::After(kClientTimeoutS), &silent).ok());
  EXPECT_TRUE(t.WaitForLog("no complete handshake within 0.3 s")) << t.Log();
  ServeOneWorker(&t);
}

// Silent connections beyond the cap per address: the oldest are closed once they have waited
// half a second, the worker that comes after them is served at once (not after their timeouts).
TEST(Tracker, IdleConnectionsDelayNoWorkerAndLateClientsAreRefused) {
  TrackerOptions o = Options(1);
  o.handshake_timeout_s = 30;
  o.max_pending_per_source = 8;
  RunningTracker t(o);
  // 20 at once (none judged idle yet), then 5 more after half a second: each closes an old one.
  std::vector<TcpSocket> idle(25);
  for (std::size_t i = 0; i < idle.size(); ++i) {
    if (i == 20) std::this_thread::sleep_for(std::chrono::milliseconds(600));
    ASSERT_TRUE(
        TcpSocket::Connect("127.0.0.1", t.port(), Deadline::After(kClientTimeoutS), &idle[i]).ok());
  }
  EXPECT_TRUE(t.WaitForLog("handshakes pending from this address; the oldest is closed"))
      << t.Log();
  const int port = t.port();
  ServeOneWorker(&t);  // within the fake worker's kClientTimeoutS, far below 30 s
  // The job is over: the port no longer listens.
  TcpSocket late;
  EXPECT_FALSE(TcpSocket::Connect("127.0.0.1", port, Deadline::After(0.2), &late).ok());
}

// A job's own workers may all be in their hellos at once from one address, each waiting to be
// scheduled (1024 local workers on 2 cores): up to the job's size none is closed as idle.
TEST(Tracker, SlowHellosOfOneAddressUpToTheJobSizeAreKept) {
  TrackerOptions o = Options(40);
  o.handshake_timeout_s = 30;
  o.max_pending_per_source = 8;
  RunningTracker t(o);
  std::vector<TcpSocket> slow(35);
  for (std::size_t i = 0; i < slow.size(); ++i) {
    if (i == 30) std::this_thread::sleep_for(std::chrono::milliseconds(600));
    ASSERT_TRUE(
        TcpSocket::Connect("127.0.0.1", t.port(), Deadline::After(kClientTimeoutS), &slow[i]).ok());
  }
  // A connection with a wrong magic, accepted after all of them: once its refusal is logged, the
  // tracker has admitted the late five, which would each have closed an old one at a cap of 8.
  TcpSocket wrong;
  ASSERT_TRUE(
      TcpSocket::Connect("127.0.0.1", t.port(), Deadline::After(kClientTimeoutS), &wrong).ok());
  const int32_t magic = 12345;
  ASSERT_TRUE(wrong.SendAll(&magic, sizeof(magic), Deadline::After(kClientTimeoutS)).ok());
  EXPECT_TRUE(t.WaitForLog("wrong magic 0x3039")) << t.Log();
  EXPECT_EQ(t.Log().find("handshakes pending from this address"), std::string::npos) << t.Log();
}

TEST(Tracker, StopEndsRunWithFailure) {
  RunningTracker t(Options(2));
  t.tracker().Stop();
  const Status s = t.Finish();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("tracker stopped"), std::string::npos) << s.message();
}

TEST(Tracker, WorkerEnv) {
  std::unique_ptr<Tracker> t;
  ASSERT_TRUE(Tracker::Create(Options(4), &t).ok());
  EXPECT_EQ(t->WorkerEnv(), (std::vector<std::pair<std::string, std::string>>{
                                {"DMLC_TRACKER_URI", "127.0.0.1"},
                                {"DMLC_TRACKER_PORT", std::to_string(t->port())},
                                {"DMLC_NUM_WORKER", "4"}}));
}

}  // namespace
}  // namespace ringboost::rabit
