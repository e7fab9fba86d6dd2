// The serving side of the Rabit tracker protocol (rabit/protocol.h), following XGBoost 1.7's
// RabitTracker.accept_workers: ranks handed out in one sorted batch, peers' addresses handed
// out so that each worker connects to the earlier ones and accepts the later ones.
//
// Unlike the Python tracker, hellos are read concurrently (HandshakePool: a stranger that
// connects and stalls delays nobody), and a connection that breaks the protocol (wrong magic,
// over-long string, missing job token, impossible rank or world size) or stalls is logged and
// dropped; the tracker keeps serving the others. Only Stop() or the last shutdown ends Run(),
// which then closes the listening socket.
#include "rabit/tracker.h"

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "rabit/handshake.h"
#include "rabit/hello.h"
#include "rabit/protocol.h"
#include "rabit/tracker_beat.h"

namespace ringboost::rabit {
namespace {

// How often Run() looks at the stop flag while no worker is connecting.
constexpr int kStopPollMs = 200;
// After the last shutdown: steps of this long for hellos still arriving (prints).
constexpr int kDrainSteps = 4;
constexpr int kDrainStepMs = 50;
// Bound on the connect rounds of one assignment (a worker that keeps reporting failed connects
// would otherwise hold the tracker forever); XGBoost's tracker loops without bound.
constexpr int kMaxConnectRounds = 64;
// The listening backlog of a small job (a larger job gets one slot per worker more).
constexpr int kMinBacklog = 256;
// dmlc's task id meaning "none": never remembered for recovery.
constexpr const char* kNullTaskId = "NULL";

// How often parked proven workers hear from the tracker (rabit/tracker_beat.h); well under any
// sensible rabit_peer_timeout_sec.
constexpr double kBeatIntervalS = 0.25;

// One connection to the tracker, after its hello. The socket is shared with TrackerBeat while
// the worker is parked.
struct Hello {
  std::shared_ptr<TcpSocket> sock;
  std::string host;  // numeric address the worker connected from
  int32_t rank = -1;
  int32_t world_size = -1;
  std::string task_id;  // without the job token
  std::string cmd;
  std::string message;  // of a print
  bool proven = false;  // a ringboost worker (kAuthMagic): it understands the tracker's beats
};

// A worker that has its rank and still expects `wait_accept` peers to connect to it.
struct Waiting {
  std::string host;
  int32_t port = 0;
  int wait_accept = 0;
};

bool AllDigits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Task ids compare as numbers when both are, so "10" comes after "9"; any length works.
bool TaskIdLess(const std::string& a, const std::string& b) {
  if (AllDigits(a) && AllDigits(b)) {
    const std::size_t za = std::min(a.find_first_not_of('0'), a.size());
    const std::size_t zb = std::min(b.find_first_not_of('0'), b.size());
    const std::size_t la = a.size() - za, lb = b.size() - zb;
    if (la != lb) return la < lb;
    const int c = a.compare(za, la, b, zb, lb);
    if (c != 0) return c < 0;
  }
  return a < b;
}

std::string StripTrailingSpace(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// What outlives one Run() and what other threads may touch (Stop, RanksByTask).
struct TrackerState {
  TrackerOptions options;
  TcpSocket listener;
  int port = 0;
  std::atomic<bool> stop{false};
  mutable std::mutex mutex;
  std::map<std::string, int> ranks_by_task;  // guarded by mutex
  std::unique_ptr<RefusalLog> refusals;      // made by Create, from the options

  void Log(const std::string& line) const { options.log(line); }
  void Refuse(const std::string& host, const std::string& why) { refusals->Refuse(host, why); }
  bool FindRank(const std::string& task_id, int* rank) const {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = ranks_by_task.find(task_id);
    if (it == ranks_by_task.end()) return false;
    *rank = it->second;
    return true;
  }
  void SetRank(const std::string& task_id, int rank) {
    std::lock_guard<std::mutex> lock(mutex);
    ranks_by_task[task_id] = rank;
  }
};

// The state of one Run(): what accept_workers keeps in its locals.
class Session {
 public:
  explicit Session(TrackerState* impl)
      : impl_(impl), num_workers_(impl->options.num_workers), beat_(kBeatIntervalS) {}
  Status Serve();

  // Seconds since Serve() began, for the bootstrap's timeline in the log.
  double Elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_).count();
  }

 private:
  void StepAndDispatch(HandshakePool* pool, int wait_ms);
  void Dispatch(Hello hello);
  void HandlePrint(Hello* hello);
  void HandleShutdown(const Hello& hello);
  void HandleStart(Hello hello);
  bool CheckStart(const Hello& hello);
  void AssignBatch();
  bool Assign(Hello* worker, int rank);
  Status SendAssignment(Hello* worker, int rank, std::set<int>* links) const;
  Status ConnectLoop(Hello* worker, const std::set<int>& links, std::vector<int>* connects,
                     int* num_accept) const;
  void Commit(int rank, const Hello& worker, int32_t port, const std::vector<int>& connects,
              int num_accept);

  TrackerState* impl_;
  int num_workers_;
  bool started_ = false;  // the first start fixed the world size and the link map
  // Decided by the first batch where TrackerOptions::hypercube asks for it: every worker of the
  // job proven (ringboost workers), so all link the hypercube of halving and doubling as well
  // (proto::HypercubePartners); told to proven workers after their ring neighbours.
  bool batch_decided_ = false;
  bool hypercube_ = false;
  proto::LinkMap links_;
  std::vector<int> todo_;       // ranks not handed out yet, ascending
  std::vector<Hello> pending_;  // workers waiting for the batch assignment
  std::map<int, Waiting> wait_conn_;
  std::set<int> shutdown_;
  std::chrono::steady_clock::time_point begin_ = std::chrono::steady_clock::now();
  double first_hello_s_ = -1;  // the first start's hello, since begin_
  double last_hello_s_ = -1;   // the hello that completed the batch
  TrackerBeat beat_;
  // Proven workers whose exchange is done and who wait for peers to link, by rank: parked, and
  // closed once wait_conn_ no longer lists them.
  std::map<int, std::shared_ptr<TcpSocket>> linking_;
};

void Session::StepAndDispatch(HandshakePool* pool, int wait_ms) {
  std::vector<HandshakePool::Done> done;
  Status s = pool->Step(wait_ms, &done);
  if (!s.ok()) impl_->Log("tracker: " + s.message());
  for (HandshakePool::Done& d : done) {
    auto* h = static_cast<TrackerHello*>(d.handshake.get());
    Dispatch(Hello{std::make_shared<TcpSocket>(std::move(d.sock)), d.host, h->rank, h->world_size,
                   h->task_id, h->cmd, std::move(h->message), h->proven});
  }
}

Status Session::Serve() {
  const TrackerOptions& o = impl_->options;
  HandshakeLimits limits;
  limits.timeout_s = o.handshake_timeout_s;
  // A job's own workers may all start at once from one address (a local job: 1024 workers on
  // loopback), each hello waiting for its worker to be scheduled: the caps leave room for all
  // of them, so that only connections beyond the job's size can push a worker out.
  limits.per_source = std::max(o.max_pending_per_source, num_workers_);
  limits.total = std::max(limits.total, num_workers_ + o.max_pending_per_source);
  HandshakePool pool(
      &impl_->listener, limits, [&o] { return std::make_unique<TrackerHello>(o.token); },
      [this](const std::string& host, const std::string& why) { impl_->Refuse(host, why); });
  Status result = Status::OK();
  while (static_cast<int>(shutdown_.size()) != num_workers_) {
    if (impl_->stop.load()) {
      result = Status::Fail("tracker stopped");
      break;
    }
    StepAndDispatch(&pool, kStopPollMs);
  }
  // Prints still arriving (sent before their worker's shutdown) get a moment; then the job is
  // over: late clients are refused, not left waiting.
  for (int i = 0; result.ok() && i < kDrainSteps && pool.pending() > 0; ++i) {
    StepAndDispatch(&pool, kDrainStepMs);
  }
  pool.CloseAll();
  impl_->refusals->Flush();
  impl_->listener.Close();
  if (result.ok()) {
    impl_->Log("tracker: all " + std::to_string(num_workers_) + " workers have shut down");
  }
  return result;
}

void Session::Dispatch(Hello hello) {
  if (hello.cmd == proto::kPrint) {
    HandlePrint(&hello);
  } else if (hello.cmd == proto::kShutdown) {
    HandleShutdown(hello);
  } else if (hello.cmd == proto::kStart || hello.cmd == proto::kRecover) {
    HandleStart(std::move(hello));
  } else {
    impl_->Refuse(hello.host, "unknown command " + QuoteWire(hello.cmd));
  }
}

void Session::HandlePrint(Hello* hello) {
  impl_->Log("[rank " + std::to_string(hello->rank) + "] " + StripTrailingSpace(hello->message));
}

void Session::HandleShutdown(const Hello& hello) {
  const int rank = hello.rank;
  if (rank < 0 || rank >= num_workers_ || shutdown_.count(rank) != 0) {
    impl_->Refuse(hello.host,
                  "shutdown from rank " + std::to_string(rank) +
                      (rank >= 0 && rank < num_workers_ ? " (a second time)" : " (no such rank)"));
    return;
  }
  // A worker that leaves no longer accepts links (XGBoost's tracker asserts it was not waiting).
  wait_conn_.erase(rank);
  if (auto it = linking_.find(rank); it != linking_.end()) {
    beat_.Unpark(it->second);
    linking_.erase(it);
  }
  shutdown_.insert(rank);
}

// World size and command checks of a start/recover; fixes the world at the first start.
bool Session::CheckStart(const Hello& hello) {
  const bool known_size = hello.world_size > 0;
  if (!started_) {
    if (hello.cmd != proto::kStart) {
      impl_->Refuse(hello.host, "recover before any worker started");
      return false;
    }
    const int world = known_size ? hello.world_size : num_workers_;
    if (world < 1 || world > proto::kMaxWorldSize) {
      impl_->Refuse(hello.host, "world size " + std::to_string(world) + " out of range");
      return false;
    }
    num_workers_ = world;
    links_ = proto::ComputeLinkMap(world);
    todo_.clear();
    for (int r = 0; r < world; ++r) todo_.push_back(r);
    started_ = true;
    return true;
  }
  if (known_size && hello.world_size != num_workers_) {
    impl_->Refuse(hello.host, "world size " + std::to_string(hello.world_size) +
                                  " differs from the job's " + std::to_string(num_workers_));
    return false;
  }
  return true;
}

void Session::HandleStart(Hello hello) {
  if (!CheckStart(hello)) return;
  int rank = hello.rank;
  if (rank >= num_workers_) {
    impl_->Refuse(hello.host, "rank " + std::to_string(rank) + " out of range");
    return;
  }
  if (rank < 0 && hello.task_id != kNullTaskId) impl_->FindRank(hello.task_id, &rank);
  if (hypercube_ && !hello.proven) {
    impl_->Refuse(hello.host,
                  "this job's ringboost workers link in a hypercube, which a foreign worker "
                  "does not; it cannot join");
    return;
  }
  if (rank >= 0) {
    // A known rank (recover, restarted worker) is served at once.
    todo_.erase(std::remove(todo_.begin(), todo_.end(), rank), todo_.end());
    Assign(&hello, rank);
  } else if (hello.cmd == proto::kRecover) {
    impl_->Refuse(hello.host,
                  "recover without a rank from unknown task id " + QuoteWire(hello.task_id));
    return;
  } else if (todo_.empty()) {
    impl_->Refuse(hello.host, "all " + std::to_string(num_workers_) + " ranks are taken");
    return;
  } else {
    if (hello.proven) beat_.Park(hello.sock);
    pending_.push_back(std::move(hello));
  }
  if (first_hello_s_ < 0) first_hello_s_ = Elapsed();
  if (!pending_.empty() && pending_.size() >= todo_.size()) {
    last_hello_s_ = Elapsed();
    AssignBatch();
  }
}

// Ranks the pending workers in one go once every free rank has a taker: by host, then task id.
void Session::AssignBatch() {
  std::vector<Hello> batch;
  batch.swap(pending_);
  std::stable_sort(batch.begin(), batch.end(), [](const Hello& a, const Hello& b) {
    if (a.host != b.host) return a.host < b.host;
    return TaskIdLess(a.task_id, b.task_id);
  });
  // More takers than free ranks only when known ranks were served meanwhile: the last refused.
  const std::size_t count = std::min(batch.size(), todo_.size());
  for (std::size_t i = count; i < batch.size(); ++i) {
    impl_->Refuse(batch[i].host, "all " + std::to_string(num_workers_) + " ranks are taken");
  }
  if (!batch_decided_) {
    batch_decided_ = true;
    hypercube_ =
        impl_->options.hypercube && static_cast<int>(count) == num_workers_ &&
        std::all_of(batch.begin(), batch.begin() + count, [](const Hello& h) { return h.proven; });
  }
  std::vector<int> ranks(todo_.begin(), todo_.begin() + count);
  todo_.erase(todo_.begin(), todo_.begin() + count);
  for (std::size_t i = 0; i < count; ++i) {
    Hello& worker = batch[i];
    const bool remembered = worker.task_id != kNullTaskId;
    // Remembered before the exchange (as XGBoost does): a worker that fails during it and is
    // restarted with the same task id gets this rank back.
    if (remembered) impl_->SetRank(worker.task_id, ranks[i]);
    if (!Assign(&worker, ranks[i]) && !remembered) {
      todo_.insert(std::lower_bound(todo_.begin(), todo_.end(), ranks[i]), ranks[i]);
    }
  }
  if (todo_.empty()) {
    // Every link is up now: each worker made its connects before it reported its port.
    char timeline[160];
    std::snprintf(timeline, sizeof(timeline),
                  " and links (hellos from %.3f s to %.3f s, links up at %.3f s)", first_hello_s_,
                  last_hello_s_, Elapsed());
    impl_->Log("tracker: all " + std::to_string(num_workers_) + " workers have their ranks" +
               timeline);
  }
}

// The whole exchange of a start/recover with one worker; false (logged) when it failed.
bool Session::Assign(Hello* worker, int rank) {
  beat_.Unpark(worker->sock);
  std::set<int> links;
  std::vector<int> connects;
  int num_accept = 0;
  int32_t port = 0;
  Status s = SendAssignment(worker, rank, &links);
  if (s.ok()) s = ConnectLoop(worker, links, &connects, &num_accept);
  if (s.ok()) {
    s = proto::RecvInt(worker->sock.get(), &port, Deadline::After(impl_->options.io_timeout_s));
  }
  if (s.ok() && (port <= 0 || port > 65535)) {
    s = Status::Fail("listening port " + std::to_string(port) + " out of range");
  }
  if (!s.ok()) {
    const std::string who = "rank " + std::to_string(rank) + " (" + worker->host + ", task " +
                            QuoteWire(worker->task_id) + ")";
    impl_->Log("tracker: dropped " + who + ": " + s.message());
    // A worker that stopped answering (stopped, hung, cut off) holds its rank and will not come
    // back: every worker waiting on the link-up is told. One whose connection closed died, and
    // a launcher may restart it (it gets its rank back).
    if (s.timed_out()) {
      beat_.AbortAll(who + " stopped answering the tracker during its link-up (" + s.message() +
                     "): the process is stopped, hung or cut off");
      linking_.clear();
    }
    return false;
  }
  Commit(rank, *worker, port, connects, num_accept);
  if (worker->proven && num_accept > 0) {
    beat_.Park(worker->sock);
    linking_[rank] = worker->sock;
  }
  if (impl_->options.verbose) {
    impl_->Log("tracker: rank " + std::to_string(rank) + " listens on " + worker->host + ":" +
               std::to_string(port));
  }
  return true;
}

// Rank, parent, world size, tree neighbours, ring previous and next, and to a proven worker
// whether it links the hypercube too; *links gets the set of peers the worker must be linked with.
Status Session::SendAssignment(Hello* worker, int rank, std::set<int>* links) const {
  const Deadline deadline = Deadline::After(impl_->options.io_timeout_s);
  TcpSocket* w = worker->sock.get();
  const std::vector<int>& tree = links_.neighbours[rank];
  const int prev = links_.ring_prev[rank] == rank ? -1 : links_.ring_prev[rank];
  const int next = links_.ring_next[rank] == rank ? -1 : links_.ring_next[rank];
  std::vector<int32_t> message{rank, links_.parent[rank], num_workers_,
                               static_cast<int32_t>(tree.size())};
  message.insert(message.end(), tree.begin(), tree.end());
  message.push_back(prev);
  message.push_back(next);
  links->clear();
  links->insert(tree.begin(), tree.end());
  if (prev >= 0) links->insert(prev);
  if (next >= 0) links->insert(next);
  if (worker->proven) message.push_back(hypercube_ ? 1 : 0);
  if (hypercube_ && num_workers_ > 1) {
    for (int r : proto::HypercubePartners(rank, num_workers_)) links->insert(r);
  }
  return w->SendAll(message.data(), message.size() * sizeof(int32_t), deadline);
}

// XGBoost's _get_remote: the worker names the links it holds; of the missing ones, those whose
// peer waits for connections are handed out to connect to, the rest are to accept. Repeats
// while the worker reports failed connects.
Status Session::ConnectLoop(Hello* worker, const std::set<int>& links, std::vector<int>* connects,
                            int* num_accept) const {
  TcpSocket* w = worker->sock.get();
  for (int round = 0; round < kMaxConnectRounds; ++round) {
    const Deadline deadline = Deadline::After(impl_->options.io_timeout_s);
    int32_t num_good = 0;
    Status s = proto::RecvInt(w, &num_good, deadline);
    if (!s.ok()) return s;
    if (num_good < 0 || num_good > static_cast<int32_t>(links.size())) {
      return Status::Fail("holds " + std::to_string(num_good) + " links, expected 0 to " +
                          std::to_string(links.size()));
    }
    std::set<int> missing = links;
    for (int32_t i = 0; i < num_good; ++i) {
      int32_t peer = -1;
      if (!(s = proto::RecvInt(w, &peer, deadline)).ok()) return s;
      if (links.count(peer) == 0) {
        return Status::Fail("holds a link to rank " + std::to_string(peer) +
                            ", which is not its neighbour");
      }
      missing.erase(peer);
    }
    connects->clear();
    for (int peer : missing) {
      if (wait_conn_.count(peer) != 0) connects->push_back(peer);
    }
    *num_accept = static_cast<int>(missing.size() - connects->size());
    if (!(s = proto::SendInt(w, static_cast<int32_t>(connects->size()), deadline)).ok() ||
        !(s = proto::SendInt(w, *num_accept, deadline)).ok()) {
      return s;
    }
    for (int peer : *connects) {
      const Waiting& target = wait_conn_.at(peer);
      if (!(s = proto::SendStr(w, target.host, deadline)).ok() ||
          !(s = proto::SendInt(w, target.port, deadline)).ok() ||
          !(s = proto::SendInt(w, peer, deadline)).ok()) {
        return s;
      }
    }
    int32_t num_errors = 0;
    if (!(s = proto::RecvInt(w, &num_errors, deadline)).ok()) return s;
    if (num_errors == 0) return Status::OK();
  }
  return Status::Fail("connects still failing after " + std::to_string(kMaxConnectRounds) +
                      " rounds");
}

// Bookkeeping after a successful exchange: the peers it connected to wait for one link less;
// it now waits for the links it will accept.
void Session::Commit(int rank, const Hello& worker, int32_t port, const std::vector<int>& connects,
                     int num_accept) {
  for (int peer : connects) {
    auto it = wait_conn_.find(peer);
    if (it != wait_conn_.end() && --it->second.wait_accept <= 0) wait_conn_.erase(it);
  }
  if (num_accept > 0) {
    wait_conn_[rank] = Waiting{worker.host, port, num_accept};
  } else {
    wait_conn_.erase(rank);
  }
  // Workers no longer waiting for links hear no more beats; closing tells them so.
  for (auto it = linking_.begin(); it != linking_.end();) {
    if (wait_conn_.count(it->first) != 0) {
      ++it;
      continue;
    }
    beat_.Unpark(it->second);
    it = linking_.erase(it);
  }
}

}  // namespace

struct Tracker::Impl : TrackerState {};

Status Tracker::Create(TrackerOptions options, std::unique_ptr<Tracker>* out) {
  auto impl = std::make_unique<Impl>();
  if (!options.log) {
    options.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  }
  // Every worker of a job may connect at once: a backlog smaller than the job drops their SYNs,
  // and each dropped one waits out TCP's 1 s (then 3 s, 7 s) retransmission (the kernel caps it
  // at net.core.somaxconn).
  const int backlog = std::max(kMinBacklog, options.num_workers + options.max_pending_per_source);
  Status s = TcpSocket::Listen(options.host, options.port, &impl->listener, backlog);
  if (!s.ok()) return s.Wrap("tracker");
  impl->port = impl->listener.LocalPort();
  impl->options = std::move(options);
  const TrackerOptions& o = impl->options;
  impl->refusals =
      std::make_unique<RefusalLog>("tracker", o.log, o.refusal_lines, o.refusal_window_s);
  out->reset(new Tracker(std::move(impl)));
  return Status::OK();
}

Tracker::Tracker(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tracker::~Tracker() = default;

int Tracker::port() const { return impl_->port; }
const std::string& Tracker::host() const { return impl_->options.host; }

std::vector<std::pair<std::string, std::string>> Tracker::WorkerEnv() const {
  return {{"DMLC_TRACKER_URI", impl_->options.host},
          {"DMLC_TRACKER_PORT", std::to_string(impl_->port)},
          {"DMLC_NUM_WORKER", std::to_string(impl_->options.num_workers)}};
}

Status Tracker::Run() {
  Session session(impl_.get());
  return session.Serve();
}

void Tracker::Stop() { impl_->stop.store(true); }

std::vector<std::pair<std::string, int>> Tracker::RanksByTask() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return {impl_->ranks_by_task.begin(), impl_->ranks_by_task.end()};
}

}  // namespace ringboost::rabit
