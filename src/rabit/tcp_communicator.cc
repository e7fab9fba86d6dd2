#include "rabit/tcp_communicator.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "common/logging.h"
#include "rabit/handshake.h"
#include "rabit/heartbeat.h"
#include "rabit/hello.h"
#include "rabit/protocol.h"
#include "rabit/socket.h"

namespace ringboost::rabit {
namespace {

// ---- the communicator ---------------------------------------------------------------------------

class TcpCommunicator : public InMemoryCheckpointCommunicator {
 public:
  explicit TcpCommunicator(TcpSettings settings)
      : settings_(std::move(settings)),
        model_(MakeCostModel(settings_)),
        heartbeat_(settings_.heartbeat_s) {}
  ~TcpCommunicator() override = default;

  Status Init();

  int Rank() const override { return rank_; }
  int WorldSize() const override { return world_; }
  std::string Backend() const override { return "tcp"; }

  // Each collective runs once; with rabit_recover a broken link leads to Recover() and a
  // Status::Recovered (RecoveredError) that sends the caller back to the checkpoint.
  Status AllreduceRaw(void* buf, std::size_t count, DataType type, Op op) override {
    return Robust("Allreduce", [&] { return AllreduceOnce(buf, count, type, op); });
  }
  Status ReduceScatterRaw(void* buf, const std::vector<std::size_t>& counts, DataType type,
                          Op op) override {
    return Robust("ReduceScatter", [&] { return ReduceScatterOnce(buf, counts, type, op); });
  }
  Status BroadcastRaw(void* buf, std::size_t bytes, int root) override {
    return Robust("Broadcast", [&] { return BroadcastOnce(buf, bytes, root); });
  }
  Status AllgathervRaw(const void* in, std::size_t bytes, std::vector<char>* out) override {
    return Robust("Allgatherv", [&] { return AllgathervOnce(in, bytes, out); });
  }
  Status CheckPoint(const std::string& model) override {
    seq_ = 0;  // rabit_mock counts calls from the last checkpoint
    return InMemoryCheckpointCommunicator::CheckPoint(model);
  }
  bool Recovers() const override { return settings_.recover; }
  bool ReduceScatterPays(std::size_t bytes, std::size_t gather_bytes) const override {
    return Communicator::ReduceScatterPays(bytes, gather_bytes) ||
           (hypercube_ && rabit::ReduceScatterPays(bytes, gather_bytes, world_, model_));
  }
  int64_t WireBytesSent() const override {
    int64_t sent = retired_sent_;
    for (const auto& [r, sock] : links_) sent += sock.bytes_sent();
    return sent;
  }
  Status TrackerPrint(const std::string& message) override;
  Status Shutdown() override;

 private:
  Status AllreduceOnce(void* buf, std::size_t count, DataType type, Op op);
  Status ReduceScatterOnce(void* buf, const std::vector<std::size_t>& counts, DataType type, Op op);
  // Closes every data link, keeping the count of the bytes they sent.
  void DropLinks();
  Status BroadcastOnce(void* buf, std::size_t bytes, int root);
  Status AllgathervOnce(const void* in, std::size_t bytes, std::vector<char>* out);
  template <typename Call>
  Status Robust(const char* what, Call call);
  Status Recover();
  Status AgreeOnCheckpoint();
  void MaybeDie() const;

  Deadline Wait() const { return Deadline::After(settings_.timeout_s); }
  // The algorithm rabit_algorithm forces where it can run (the flags), else `picked`.
  Algorithm Forced(Algorithm picked, bool tree, bool ring, bool halving) const {
    const std::string& a = settings_.algorithm;
    if ((a == "tree" && tree) || (a == "ring" && ring) || (a == "halving" && halving)) {
      return a == "tree" ? Algorithm::kTree : a == "ring" ? Algorithm::kRing : Algorithm::kHalving;
    }
    return picked;
  }
  std::string Where() const { return "tcp rank " + std::to_string(rank_); }
  Status Link(const std::string& command);
  Status ConnectTracker(const std::string& command, TcpSocket* tracker);
  Status ReceiveAssignment(TcpSocket* tracker, std::set<int>* neighbours);
  Status LinkPeers(TcpSocket* tracker, const std::set<int>& neighbours);
  Status AcceptPeers(TcpSocket* tracker, int count, const std::set<int>& neighbours);
  void AddLink(int peer_rank, int peer_flags, TcpSocket sock);
  void AddHeartbeat(int peer_rank, TcpSocket sock);
  Status ConnectPeer(const std::string& host, int port, int peer_rank, bool heartbeat,
                     TcpSocket* sock, int32_t* peer_flags);
  Deadline ConnectWait() const {
    return Deadline::After(std::min(settings_.connect_timeout_s, settings_.timeout_s));
  }
  int32_t Flags() const { return recovering_ ? proto::kFlagRecovering : 0; }
  // A proven worker's tracker (ours) answers at once and beats while it makes the worker wait, so
  // a silence of rabit_peer_timeout_sec ends those waits; a foreign one may serve workers one at
  // a time, so rabit_timeout_sec bounds each wait there.
  bool WatchTracker() const { return !settings_.token.empty(); }
  Deadline TrackerReply() const {
    return WatchTracker() ? Deadline::After(std::min(settings_.peer_timeout_s, settings_.timeout_s))
                          : Wait();
  }
  proto::TrackerLiveness TrackerSilence(std::string waiting) const {
    return proto::TrackerLiveness{settings_.peer_timeout_s, std::move(waiting)};
  }
  // A tracker's reply that timed out, as its silence (a proven worker's tracker answers at once).
  Status Silent(TcpSocket* tracker, const Status& s) const {
    if (!s.timed_out() || !WatchTracker()) return s;
    return proto::TrackerSilent(tracker->peer(), settings_.peer_timeout_s,
                                TrackerSilence("its reply during the link-up"));
  }

  Status TreeAllreduce(char* buf, std::size_t count, DataType type, Op op);
  Status RingAllreduce(char* buf, std::size_t count, DataType type, Op op);
  // The ring's first half over blocks offsets[i] to offsets[i + 1] (bytes): afterwards this
  // rank holds block rank + shift reduced over every rank.
  Status RingReduceScatter(char* buf, const std::vector<std::size_t>& offsets, DataType type, Op op,
                           int shift);
  Status RingAllgather(char* out, const std::vector<std::size_t>& offsets, int held);
  // Recursive halving and doubling over the hypercube (proto::Hypercube); voffsets: the P' + 1
  // byte offsets of the virtual ranks' blocks. Halving leaves this (virtual) rank its block
  // reduced over the P' virtual ranks; doubling gathers every block from each rank's own.
  Status HalvingReduceScatter(char* buf, const std::vector<std::size_t>& voffsets, DataType type,
                              Op op);
  Status DoublingAllgather(char* buf, const std::vector<std::size_t>& voffsets);
  // The fold of a world that is no power of two: rank 2i+1 < 2E sends bytes [0, bytes) to rank
  // 2i, which reduces them into its own (type/op) or, without reduction, places them.
  Status FoldIn(char* buf, std::size_t bytes, DataType type, Op op, bool reduce);
  Status FoldOut(char* buf, std::size_t bytes);
  // Rabenseifner's allreduce: fold, halving, doubling, the result back to the folded ranks.
  Status HalvingAllreduce(char* buf, std::size_t count, DataType type, Op op);
  // The block of each rank from the offsets of all of them (world + 1): fold, halving, then the
  // folded rank's block back to it.
  Status HalvingReduceScatterBlocks(char* buf, const std::vector<std::size_t>& offsets,
                                    DataType type, Op op);
  // Each rank's block (offsets: world + 1) to every rank, by doubling.
  Status DoublingAllgatherBlocks(char* buf, const std::vector<std::size_t>& offsets);
  // The virtual ranks' offsets from the real ranks' (world + 1).
  std::vector<std::size_t> VirtualOffsets(const std::vector<std::size_t>& offsets) const;
  template <typename OnReceive>
  Status Exchange(TcpSocket* next, const char* send, std::size_t send_bytes, TcpSocket* prev,
                  char* recv, std::size_t recv_bytes, OnReceive on_receive);

  TcpSettings settings_;
  CostModel model_;
  int rank_ = -1;
  int world_ = 0;
  int parent_ = -1;
  std::vector<int> tree_;  // tree neighbours (parent included)
  int ring_prev_ = -1;
  int ring_next_ = -1;
  bool hypercube_ = false;  // linked with proto::HypercubePartners (halving and doubling)
  TcpSocket listener_;
  std::map<int, TcpSocket> links_;
  Heartbeat heartbeat_;
  bool shut_down_ = false;
  bool recovering_ = false;        // in Recover(): told to peers in the link hello
  bool peers_recovering_ = false;  // a peer linked while it was recovering
  int seq_ = 0;                    // collective calls since the last checkpoint
  int64_t retired_sent_ = 0;       // bytes sent on links closed since (WireBytesSent)
};

Status TcpCommunicator::ConnectTracker(const std::string& command, TcpSocket* tracker) {
  const std::string where = "tracker " + settings_.tracker_uri + ":" +
                            std::to_string(settings_.tracker_port) + " (" + command + ")";
  // A tracker that refuses connections is retried for connect_timeout_s (it may be starting
  // up); one that died is reported then, not after the whole rabit_timeout_sec.
  Status s =
      TcpSocket::Connect(settings_.tracker_uri, settings_.tracker_port, ConnectWait(), tracker);
  if (!s.ok()) return s.Wrap(where + ": is the tracker (ringboost-submit) still running?");
  tracker->set_peer(where);
  Deadline deadline = TrackerReply();
  std::string task_id = settings_.task_id;
  if (settings_.token.empty()) {
    // The plain dmlc hello (foreign trackers).
    int32_t magic = 0;
    s = proto::SendInt(tracker, proto::kMagic, deadline);
    if (s.ok()) s = proto::RecvInt(tracker, &magic, deadline);
    if (s.ok() && magic != proto::kMagic) {
      return Status::Fail(where + " answered magic " + std::to_string(magic) + ", not " +
                          std::to_string(proto::kMagic) + ": is it a Rabit tracker?");
    }
  } else {
    // The token is proven, never sent: the bare task id goes out.
    s = ProveToTracker(tracker, settings_.token, deadline);
    proto::TaskIdHasToken(settings_.task_id, settings_.token, &task_id);
  }
  if (s.ok()) s = proto::SendInt(tracker, rank_, deadline);
  if (s.ok()) s = proto::SendInt(tracker, settings_.world_size, deadline);
  if (s.ok()) s = proto::SendStr(tracker, task_id, deadline);
  if (s.ok()) s = proto::SendStr(tracker, command, deadline);
  return Silent(tracker, s);
}

Status TcpCommunicator::ReceiveAssignment(TcpSocket* tracker, std::set<int>* neighbours) {
  proto::Assignment a;
  const proto::TrackerLiveness watch =
      TrackerSilence("its rank (the tracker ranks the workers once all have started)");
  Status s =
      proto::RecvAssignment(tracker, Wait(), &a, neighbours, WatchTracker() ? &watch : nullptr);
  if (!s.ok()) return s;
  rank_ = a.rank;
  world_ = a.world;
  parent_ = a.parent;
  tree_ = a.tree;
  ring_prev_ = a.prev;
  ring_next_ = a.next;
  // Ours (a proven worker's tracker) says next whether every worker links the hypercube too.
  hypercube_ = false;
  if (!WatchTracker()) return Status::OK();
  int32_t hypercube = 0;
  s = proto::RecvInt(tracker, &hypercube, TrackerReply());
  if (!s.ok()) return Silent(tracker, s);
  if (hypercube != 0 && hypercube != 1) {
    return Status::Fail(tracker->peer() + " sent an invalid hypercube flag " +
                        std::to_string(hypercube));
  }
  hypercube_ = hypercube == 1 && world_ > 1;
  if (hypercube_) {
    for (int r : proto::HypercubePartners(rank_, world_)) neighbours->insert(r);
  }
  return Status::OK();
}

void TcpCommunicator::AddLink(int peer_rank, int peer_flags, TcpSocket sock) {
  sock.set_peer("rank " + std::to_string(peer_rank) + " (" + sock.PeerAddress() + ")");
  if (settings_.socket_buffer > 0) ThrowIfError(sock.SetBufferSize(settings_.socket_buffer));
  if ((peer_flags & proto::kFlagRecovering) != 0) peers_recovering_ = true;
  links_[peer_rank] = std::move(sock);
}

void TcpCommunicator::AddHeartbeat(int peer_rank, TcpSocket sock) {
  links_[peer_rank].set_liveness(
      heartbeat_.Add(peer_rank, std::move(sock), settings_.peer_timeout_s));
}

// A link (or its heartbeat link) to the peer the tracker named, with the hello of both.
Status TcpCommunicator::ConnectPeer(const std::string& host, int port, int peer_rank,
                                    bool heartbeat, TcpSocket* sock, int32_t* peer_flags) {
  Status s = TcpSocket::Connect(host, port, ConnectWait(), sock);
  const int32_t flags = Flags() | (heartbeat ? proto::kFlagHeartbeat : 0);
  int32_t hello_rank = -1;
  // The peer answers its hello at once (its own port drops hellos not done in its
  // rabit_handshake_timeout_sec): a peer that does not is stopped, hung or cut off.
  if (s.ok()) {
    const double limit = std::min(settings_.handshake_timeout_s, settings_.timeout_s);
    s = ConnectPeerHello(sock, settings_.token, rank_, flags, Deadline::After(limit), &hello_rank,
                         peer_flags);
    if (s.timed_out()) {
      char text[200];
      std::snprintf(text, sizeof(text),
                    " did not answer the link hello within %.1f s (rabit_handshake_timeout_sec): "
                    "the process is stopped, hung or cut off",
                    limit);
      s = Status::Timeout("rank " + std::to_string(peer_rank) + " (" + host + ":" +
                          std::to_string(port) + ")" + text);
    }
  }
  if (s.ok() && hello_rank != peer_rank) {
    s = Status::Fail(host + ":" + std::to_string(port) + " answered as rank " +
                     std::to_string(hello_rank) + ", the tracker said rank " +
                     std::to_string(peer_rank));
  }
  return s;
}

// The connect loop of the protocol: the tracker names the peers to connect to (those ranked
// earlier, already listening); the others will connect to us.
Status TcpCommunicator::LinkPeers(TcpSocket* tracker, const std::set<int>& neighbours) {
  std::vector<int> good;
  for (int r : neighbours) {
    if (links_.count(r) != 0) good.push_back(r);
  }
  Status s = proto::SendInt(tracker, static_cast<int32_t>(good.size()), TrackerReply());
  for (int r : good) {
    if (s.ok()) s = proto::SendInt(tracker, r, TrackerReply());
  }
  int32_t num_connect = 0, num_accept = 0;
  if (s.ok()) s = proto::RecvInt(tracker, &num_connect, TrackerReply());
  if (s.ok()) s = proto::RecvInt(tracker, &num_accept, TrackerReply());
  if (!s.ok()) return Silent(tracker, s);
  const int32_t bad = static_cast<int32_t>(neighbours.size() - good.size());
  if (num_connect < 0 || num_accept < 0 || num_connect + num_accept != bad) {
    return Status::Fail(tracker->peer() + " asked for " + std::to_string(num_connect) +
                        " connects and " + std::to_string(num_accept) + " accepts of " +
                        std::to_string(bad) + " missing links");
  }
  for (int i = 0; i < num_connect; ++i) {
    std::string host;
    int32_t port = 0, peer_rank = 0;
    s = proto::RecvStr(tracker, &host, TrackerReply(), proto::kMaxHostBytes);
    if (s.ok()) s = proto::RecvInt(tracker, &port, TrackerReply());
    if (s.ok()) s = proto::RecvInt(tracker, &peer_rank, TrackerReply());
    if (!s.ok()) return Silent(tracker, s);
    if (port < 1 || port > 65535 || neighbours.count(peer_rank) == 0 ||
        links_.count(peer_rank) != 0) {
      return Status::Fail(tracker->peer() + " named " + QuoteWire(host) + ":" +
                          std::to_string(port) + " as rank " + std::to_string(peer_rank) +
                          ", not a missing neighbour's address");
    }
    TcpSocket sock, beat;
    int32_t flags = 0, beat_flags = 0;
    s = ConnectPeer(host, port, peer_rank, /*heartbeat=*/false, &sock, &flags);
    if (s.ok()) s = ConnectPeer(host, port, peer_rank, /*heartbeat=*/true, &beat, &beat_flags);
    // Connect retries until the timeout itself: a failure here is final, not retried.
    if (!s.ok()) return s.Wrap("linking to rank " + std::to_string(peer_rank));
    AddLink(peer_rank, flags, std::move(sock));
    AddHeartbeat(peer_rank, std::move(beat));
  }
  s = proto::SendInt(tracker, 0, TrackerReply());  // no failed connects
  if (s.ok()) s = proto::SendInt(tracker, listener_.LocalPort(), TrackerReply());
  if (!s.ok()) return s;
  return AcceptPeers(tracker, num_accept, neighbours);
}

// The peers' hellos run concurrently with those of any strangers on the port (HandshakePool), so
// a silent connection delays no link.
Status TcpCommunicator::AcceptPeers(TcpSocket* tracker, int count,
                                    const std::set<int>& neighbours) {
  HandshakeLimits limits;
  limits.timeout_s = settings_.handshake_timeout_s;
  const int32_t flags = Flags();
  HandshakePool pool(
      &listener_, limits,
      [&] { return std::make_unique<PeerHello>(settings_.token, rank_, flags); },
      [this](const std::string& host, const std::string& why) {
        RB_LOG(kWarning, Where() << ": refused a link from " << host << ": " << why);
      });
  // Each peer opens its data link, then its heartbeat link.
  std::set<int> linked, beating;
  const Deadline deadline = Wait();
  proto::TrackerWatch watch(tracker, TrackerSilence(std::to_string(count) + " peer link(s)"));
  while (count > 0 || beating.size() < linked.size()) {
    if (deadline.Expired()) {
      return Status::Timeout("waiting for " + std::to_string(count) +
                             " more peer link(s) to rank " + std::to_string(rank_) + " timed out");
    }
    if (WatchTracker()) {
      Status w = watch.Check();
      if (!w.ok()) return w;
    }
    std::vector<HandshakePool::Done> done;
    Status s = pool.Step(std::min(deadline.RemainingMs(), 200), &done);
    if (!s.ok()) return s;
    for (HandshakePool::Done& d : done) {
      const auto* h = static_cast<const PeerHello*>(d.handshake.get());
      const int r = h->peer_rank;
      const bool beat = (h->peer_flags & proto::kFlagHeartbeat) != 0;
      const bool wanted = beat ? linked.count(r) != 0 && beating.count(r) == 0
                               : count > 0 && neighbours.count(r) != 0 && links_.count(r) == 0;
      if (!wanted) {
        RB_LOG(kWarning, Where() << ": refused a link from " << d.host << ": it claims rank " << r
                                 << ", not a missing neighbour");
        continue;
      }
      if (beat) {
        AddHeartbeat(r, std::move(d.sock));
        beating.insert(r);
      } else {
        AddLink(r, h->peer_flags, std::move(d.sock));
        linked.insert(r);
        --count;
      }
    }
  }
  return Status::OK();
}

Status TcpCommunicator::Init() {
  SetPollSpinMicros(settings_.spin_us);
  Status s = TcpSocket::Listen(settings_.listen_host, 0, &listener_);
  if (!s.ok()) return s.Wrap("tcp worker");
  s = Link(proto::kStart);
  // A restarted worker of a recovering job: the survivors are re-linking and agreeing on the
  // checkpoint now; it takes part and gets the checkpoint (LoadCheckPoint then returns it). A
  // worker restarted before the job's first link-up finds no peer recovering: a plain start.
  if (s.ok() && settings_.recover && settings_.num_attempt > 0 && peers_recovering_) {
    s = AgreeOnCheckpoint();
  }
  return s;
}

// One round with the tracker: `start` on joining; `recover` (the fault-tolerance issue) when
// links broke, keeping the ones that still work and re-making the others.
Status TcpCommunicator::Link(const std::string& command) {
  TcpSocket tracker;
  Status s = ConnectTracker(command, &tracker);
  std::set<int> neighbours;
  if (s.ok()) s = ReceiveAssignment(&tracker, &neighbours);
  if (s.ok()) s = LinkPeers(&tracker, neighbours);
  if (!s.ok()) {
    return s.Wrap("tcp worker (task " + settings_.task_id + ", " + command + ") linking up");
  }
  RB_LOG(kDebug, Where() << " of " << world_ << ": linked to " << links_.size() << " peer(s)");
  return Status::OK();
}

// ---- collectives --------------------------------------------------------------------------------

// Sends `send` to `next` while receiving `recv` from `prev` (the same socket in a ring of two),
// calling on_receive(bytes received so far) as data arrives.
template <typename OnReceive>
Status TcpCommunicator::Exchange(TcpSocket* next, const char* send, std::size_t send_bytes,
                                 TcpSocket* prev, char* recv, std::size_t recv_bytes,
                                 OnReceive on_receive) {
  Deadline deadline = Wait();
  std::size_t sent = 0, received = 0;
  while (sent < send_bytes || received < recv_bytes) {
    const std::size_t before_sent = sent, before_received = received;
    Status s = next->SendSome(send, send_bytes, &sent);
    if (s.ok()) s = prev->RecvSome(recv, recv_bytes, &received);
    if (!s.ok()) return s;
    if (received != before_received) on_receive(received);
    if (sent == before_sent && received == before_received) {
      TcpSocket* socks[2] = {next, prev};
      bool want_read[2] = {false, received < recv_bytes};
      bool want_write[2] = {sent < send_bytes, false};
      s = PollLinks(socks, want_read, want_write, 2, deadline, Where());
      if (!s.ok()) return s;
    }
  }
  return Status::OK();
}

Status TcpCommunicator::TreeAllreduce(char* buf, std::size_t count, DataType type, Op op) {
  const std::size_t bytes = count * SizeOf(type);
  std::vector<char> incoming(bytes);
  Deadline deadline = Wait();
  for (int r : tree_) {
    if (r == parent_) continue;
    Status s = links_[r].RecvAll(incoming.data(), bytes, deadline);
    if (!s.ok()) return s;
    Reduce(buf, incoming.data(), count, type, op);
  }
  if (parent_ >= 0) {
    Status s = links_[parent_].SendAll(buf, bytes, deadline);
    if (s.ok()) s = links_[parent_].RecvAll(buf, bytes, deadline);
    if (!s.ok()) return s;
  }
  for (int r : tree_) {
    if (r == parent_) continue;
    Status s = links_[r].SendAll(buf, bytes, deadline);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

// Reduce-scatter then allgather around the ring: chunk i (of world_ chunks) ends up reduced on
// rank i - 1, then travels once around. Each rank sends and receives 2 (P-1)/P of the buffer.
Status TcpCommunicator::RingAllreduce(char* buf, std::size_t count, DataType type, Op op) {
  const std::size_t esize = SizeOf(type);
  std::vector<std::size_t> offsets(world_ + 1);
  for (int i = 0; i <= world_; ++i) offsets[i] = count * i / world_ * esize;
  Status s = RingReduceScatter(buf, offsets, type, op, 1);
  if (!s.ok()) return s;
  return RingAllgather(buf, offsets, (rank_ + 1) % world_);
}

// At step k this rank sends block rank + shift - 1 - k to the next rank and folds block
// rank + shift - 2 - k from the previous one in as its bytes arrive; after P - 1 steps block
// rank + shift has passed through every rank. Each rank sends every block but its own once.
Status TcpCommunicator::RingReduceScatter(char* buf, const std::vector<std::size_t>& offsets,
                                          DataType type, Op op, int shift) {
  const std::size_t esize = SizeOf(type);
  auto chunk = [&](int i) { return (i % world_ + world_) % world_; };
  TcpSocket* next = &links_[ring_next_];
  TcpSocket* prev = &links_[ring_prev_];
  std::size_t largest = 0;
  for (int i = 0; i < world_; ++i) largest = std::max(largest, offsets[i + 1] - offsets[i]);
  std::vector<char> incoming(largest);
  for (int k = 0; k < world_ - 1; ++k) {
    const int send_i = chunk(rank_ + shift - 1 - k), recv_i = chunk(rank_ + shift - 2 - k);
    char* dst = buf + offsets[recv_i];
    std::size_t reduced = 0;  // elements of the incoming chunk folded in so far
    Status s =
        Exchange(next, buf + offsets[send_i], offsets[send_i + 1] - offsets[send_i], prev,
                 incoming.data(), offsets[recv_i + 1] - offsets[recv_i], [&](std::size_t got) {
                   const std::size_t whole = got / esize;
                   Reduce(dst + reduced * esize, incoming.data() + reduced * esize, whole - reduced,
                          type, op);
                   reduced = whole;
                 });
    if (!s.ok()) return s;
  }
  return Status::OK();
}

// Passes blocks around the ring until every rank has all of them: this rank starts with block
// `held` (offsets[i] to offsets[i + 1] of `out` is block i), at step k it sends block held - k to
// the next rank and receives block held - k - 1 from the previous one.
Status TcpCommunicator::RingAllgather(char* out, const std::vector<std::size_t>& offsets,
                                      int held) {
  auto block = [&](int i) { return (i % world_ + world_) % world_; };
  TcpSocket* next = &links_[ring_next_];
  TcpSocket* prev = &links_[ring_prev_];
  for (int k = 0; k < world_ - 1; ++k) {
    const int send_i = block(held - k), recv_i = block(held - k - 1);
    Status s =
        Exchange(next, out + offsets[send_i], offsets[send_i + 1] - offsets[send_i], prev,
                 out + offsets[recv_i], offsets[recv_i + 1] - offsets[recv_i], [](std::size_t) {});
    if (!s.ok()) return s;
  }
  return Status::OK();
}

// The P' virtual ranks' blocks: virtual rank v < E holds ranks 2v and 2v+1's blocks (adjacent),
// the others rank v + E's.
std::vector<std::size_t> TcpCommunicator::VirtualOffsets(
    const std::vector<std::size_t>& offsets) const {
  const proto::Hypercube h(world_);
  std::vector<std::size_t> v(h.size + 1);
  for (int i = 0; i < h.size; ++i) v[i] = offsets[h.Real(i)];
  v[h.size] = offsets[world_];
  return v;
}

// At step d = P'/2, ..., 1 this virtual rank holds 2d blocks reduced over the 2^k ranks that
// differ from it in the bits above d; it keeps the half with its own block, sends the other to
// v XOR d and folds that partner's copy of its half in as the bytes arrive. log2 P' steps, each
// rank sends every block but its own once.
Status TcpCommunicator::HalvingReduceScatter(char* buf, const std::vector<std::size_t>& voffsets,
                                             DataType type, Op op) {
  const proto::Hypercube h(world_);
  const int v = h.Virtual(rank_);
  const std::size_t esize = SizeOf(type);
  std::vector<char> incoming;
  int lo = 0, hi = h.size;
  for (int d = h.size / 2; d >= 1; d /= 2) {
    const bool low = (v & d) == 0;
    const int keep_lo = low ? lo : lo + d, keep_hi = low ? lo + d : hi;
    const int send_lo = low ? lo + d : lo, send_hi = low ? hi : lo + d;
    TcpSocket* peer = &links_[h.Real(v ^ d)];
    char* dst = buf + voffsets[keep_lo];
    incoming.resize(voffsets[keep_hi] - voffsets[keep_lo]);
    std::size_t reduced = 0;  // elements folded in so far
    Status s = Exchange(peer, buf + voffsets[send_lo], voffsets[send_hi] - voffsets[send_lo], peer,
                        incoming.data(), incoming.size(), [&](std::size_t got) {
                          const std::size_t whole = got / esize;
                          Reduce(dst + reduced * esize, incoming.data() + reduced * esize,
                                 whole - reduced, type, op);
                          reduced = whole;
                        });
    if (!s.ok()) return s;
    lo = keep_lo;
    hi = keep_hi;
  }
  return Status::OK();
}

// At step d = 1, 2, ..., P'/2 this virtual rank holds the d blocks of its aligned group and
// swaps them with v XOR d for that rank's d: log2 P' steps, every block but its own received once.
Status TcpCommunicator::DoublingAllgather(char* buf, const std::vector<std::size_t>& voffsets) {
  const proto::Hypercube h(world_);
  const int v = h.Virtual(rank_);
  for (int d = 1; d < h.size; d *= 2) {
    const int lo = v / d * d, peer_lo = (v ^ d) / d * d;
    TcpSocket* peer = &links_[h.Real(v ^ d)];
    Status s = Exchange(peer, buf + voffsets[lo], voffsets[lo + d] - voffsets[lo], peer,
                        buf + voffsets[peer_lo], voffsets[peer_lo + d] - voffsets[peer_lo],
                        [](std::size_t) {});
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status TcpCommunicator::FoldIn(char* buf, std::size_t bytes, DataType type, Op op, bool reduce) {
  const proto::Hypercube h(world_);
  if (rank_ >= 2 * h.extra || bytes == 0) return Status::OK();
  if (rank_ % 2 == 1) return links_[rank_ - 1].SendAll(buf, bytes, Wait());
  TcpSocket* odd = &links_[rank_ + 1];
  if (!reduce) return odd->RecvAll(buf, bytes, Wait());
  const std::size_t esize = SizeOf(type);
  std::vector<char> incoming(bytes);
  std::size_t reduced = 0;
  return Exchange(odd, nullptr, 0, odd, incoming.data(), bytes, [&](std::size_t got) {
    const std::size_t whole = got / esize;
    Reduce(buf + reduced * esize, incoming.data() + reduced * esize, whole - reduced, type, op);
    reduced = whole;
  });
}

// The unfold: rank 2i sends bytes [0, bytes) of `buf` to rank 2i+1, which receives them there.
Status TcpCommunicator::FoldOut(char* buf, std::size_t bytes) {
  const proto::Hypercube h(world_);
  if (rank_ >= 2 * h.extra || bytes == 0) return Status::OK();
  if (rank_ % 2 == 0) return links_[rank_ + 1].SendAll(buf, bytes, Wait());
  return links_[rank_ - 1].RecvAll(buf, bytes, Wait());
}

Status TcpCommunicator::HalvingAllreduce(char* buf, std::size_t count, DataType type, Op op) {
  const proto::Hypercube h(world_);
  const std::size_t esize = SizeOf(type);
  Status s = FoldIn(buf, count * esize, type, op, /*reduce=*/true);
  if (s.ok() && h.Virtual(rank_) >= 0) {
    std::vector<std::size_t> voffsets(h.size + 1);
    for (int i = 0; i <= h.size; ++i) voffsets[i] = count * i / h.size * esize;
    s = HalvingReduceScatter(buf, voffsets, type, op);
    if (s.ok()) s = DoublingAllgather(buf, voffsets);
  }
  return s.ok() ? FoldOut(buf, count * esize) : s;
}

Status TcpCommunicator::HalvingReduceScatterBlocks(char* buf,
                                                   const std::vector<std::size_t>& offsets,
                                                   DataType type, Op op) {
  Status s = FoldIn(buf, offsets[world_], type, op, /*reduce=*/true);
  if (s.ok() && proto::Hypercube(world_).Virtual(rank_) >= 0) {
    s = HalvingReduceScatter(buf, VirtualOffsets(offsets), type, op);
  }
  if (!s.ok() || rank_ >= 2 * proto::Hypercube(world_).extra) return s;
  const int odd = rank_ | 1;  // the folded rank of this pair gets its block back
  return FoldOut(buf + offsets[odd], offsets[odd + 1] - offsets[odd]);
}

Status TcpCommunicator::DoublingAllgatherBlocks(char* buf,
                                                const std::vector<std::size_t>& offsets) {
  Status s = Status::OK();
  if (rank_ < 2 * proto::Hypercube(world_).extra) {
    const int odd = rank_ | 1;
    s = FoldIn(buf + offsets[odd], offsets[odd + 1] - offsets[odd], DataType::kUInt64, Op::kBitOr,
               /*reduce=*/false);
  }
  if (s.ok() && proto::Hypercube(world_).Virtual(rank_) >= 0) {
    s = DoublingAllgather(buf, VirtualOffsets(offsets));
  }
  return s.ok() ? FoldOut(buf, offsets[world_]) : s;
}

Status TcpCommunicator::AllreduceOnce(void* buf, std::size_t count, DataType type, Op op) {
  if (op == Op::kBitOr && (type == DataType::kFloat || type == DataType::kDouble)) {
    return Status::Fail("Allreduce: bitwise or of floating-point values");
  }
  if (world_ == 1 || count == 0) return Status::OK();
  char* p = static_cast<char*>(buf);
  Status s = Status::OK();
  const bool halving = hypercube_ && OrderFree(type, op);
  const Algorithm picked =
      PickAllreduce(count, SizeOf(type), world_, settings_.ring_min_count, model_, halving);
  switch (Forced(picked, /*tree=*/true, count >= static_cast<std::size_t>(world_), halving)) {
    case Algorithm::kRing:
      s = RingAllreduce(p, count, type, op);
      break;
    case Algorithm::kHalving:
      s = HalvingAllreduce(p, count, type, op);
      break;
    case Algorithm::kTree:
      s = TreeAllreduce(p, count, type, op);
      break;
  }
  return s.Wrap(Where() + ": Allreduce of " + std::to_string(count * SizeOf(type)) + " bytes");
}

// The ring or, over the hypercube, recursive halving (never the tree: it would move the whole
// buffer); the blocks are the callers' (a histogram's features).
Status TcpCommunicator::ReduceScatterOnce(void* buf, const std::vector<std::size_t>& counts,
                                          DataType type, Op op) {
  if (counts.size() != static_cast<std::size_t>(world_)) {
    return Status::Fail(Where() + ": ReduceScatter: " + std::to_string(counts.size()) +
                        " blocks for a world of " + std::to_string(world_));
  }
  if (op == Op::kBitOr && (type == DataType::kFloat || type == DataType::kDouble)) {
    return Status::Fail("ReduceScatter: bitwise or of floating-point values");
  }
  if (world_ == 1) return Status::OK();
  std::vector<std::size_t> offsets(world_ + 1, 0);
  for (int r = 0; r < world_; ++r) offsets[r + 1] = offsets[r] + counts[r] * SizeOf(type);
  char* p = static_cast<char*>(buf);
  const bool halving = hypercube_ && OrderFree(type, op);
  const Algorithm picked = PickReduceScatter(offsets[world_], world_, model_, halving);
  Status s = Forced(picked, /*tree=*/false, /*ring=*/true, halving) == Algorithm::kHalving
                 ? HalvingReduceScatterBlocks(p, offsets, type, op)
                 : RingReduceScatter(p, offsets, type, op, 0);
  return s.Wrap(Where() + ": ReduceScatter of " + std::to_string(offsets[world_]) + " bytes");
}

// Down the tree from `root`: the one neighbour that sends is the way to the root; the data goes
// on to the others in pieces, so a large broadcast streams through the tree.
Status TcpCommunicator::BroadcastOnce(void* buf, std::size_t bytes, int root) {
  if (root < 0 || root >= world_) {
    return Status::Fail("Broadcast: root " + std::to_string(root) + " outside a world of " +
                        std::to_string(world_));
  }
  if (world_ == 1 || bytes == 0) return Status::OK();
  const std::string what = Where() + ": Broadcast of " + std::to_string(bytes) +
                           " bytes from rank " + std::to_string(root);
  Deadline deadline = Wait();
  int in_link = -1;
  if (rank_ != root) {
    const std::size_t n = tree_.size();
    std::vector<TcpSocket*> socks;
    for (int r : tree_) socks.push_back(&links_[r]);
    std::unique_ptr<bool[]> want_read(new bool[n]), want_write(new bool[n]), ready(new bool[n]);
    std::fill_n(want_read.get(), n, true);
    std::fill_n(want_write.get(), n, false);
    Status s =
        PollLinks(socks.data(), want_read.get(), want_write.get(), n, deadline, what, ready.get());
    if (!s.ok()) return s;
    for (std::size_t i = 0; i < n && in_link < 0; ++i) {
      if (ready[i]) in_link = tree_[i];
    }
  }
  constexpr std::size_t kPiece = 4 << 20;
  char* p = static_cast<char*>(buf);
  for (std::size_t done = 0; done < bytes; done += kPiece) {
    const std::size_t n = std::min(kPiece, bytes - done);
    Status s = in_link < 0 ? Status::OK() : links_[in_link].RecvAll(p + done, n, deadline);
    for (int r : tree_) {
      if (s.ok() && r != in_link) s = links_[r].SendAll(p + done, n, deadline);
    }
    if (!s.ok()) return s.Wrap(what);
  }
  return Status::OK();
}

// Sizes first (an allreduce of one slot per rank), then the blocks around the ring.
Status TcpCommunicator::AllgathervOnce(const void* in, std::size_t bytes, std::vector<char>* out) {
  std::vector<int64_t> sizes(world_, 0);
  sizes[rank_] = static_cast<int64_t>(bytes);
  Status s = AllreduceOnce(sizes.data(), sizes.size(), DataType::kInt64, Op::kSum);
  if (!s.ok()) return s;
  // Each rank's size comes from that rank alone: ours must have come back unchanged, and the sum
  // is bounded before anything is allocated.
  std::vector<std::size_t> offsets(world_ + 1, 0);
  for (int r = 0; r < world_; ++r) {
    if (sizes[r] < 0 || sizes[r] > proto::kMaxAllgathervBytes - static_cast<int64_t>(offsets[r]) ||
        (r == rank_ && sizes[r] != static_cast<int64_t>(bytes))) {
      return Status::Fail(Where() + ": Allgatherv: rank " + std::to_string(r) + " announced " +
                          std::to_string(sizes[r]) + " bytes (allowed: a total of 0 to " +
                          std::to_string(proto::kMaxAllgathervBytes) + ")");
    }
    offsets[r + 1] = offsets[r] + static_cast<std::size_t>(sizes[r]);
  }
  out->resize(offsets[world_]);
  if (bytes != 0) std::memcpy(out->data() + offsets[rank_], in, bytes);
  if (world_ == 1) return Status::OK();
  const Algorithm algorithm =
      Forced(PickAllgather(offsets[world_], world_, model_, hypercube_), true, true, hypercube_);
  if (algorithm == Algorithm::kRing) {
    return RingAllgather(out->data(), offsets, rank_).Wrap(Where() + ": Allgatherv");
  }
  if (algorithm == Algorithm::kHalving) {
    return DoublingAllgatherBlocks(out->data(), offsets).Wrap(Where() + ": Allgatherv");
  }
  // Few bytes or many ranks: 2 L steps up and down the tree instead of the ring's P - 1. Every
  // rank's block in its place and zeros elsewhere, or-ed together: the blocks are disjoint, so
  // the result is the ring's byte for byte.
  std::vector<uint64_t> words((offsets[world_] + 7) / 8, 0);
  char* w = reinterpret_cast<char*>(words.data());
  if (bytes != 0) std::memcpy(w + offsets[rank_], in, bytes);
  s = TreeAllreduce(w, words.size(), DataType::kUInt64, Op::kBitOr);
  if (!s.ok()) return s.Wrap(Where() + ": Allgatherv");
  std::memcpy(out->data(), w, offsets[world_]);
  return Status::OK();
}

Status TcpCommunicator::TrackerPrint(const std::string& message) {
  TcpSocket tracker;
  Status s = ConnectTracker(proto::kPrint, &tracker);
  if (s.ok()) s = proto::SendStr(&tracker, message, Wait());
  return s.Wrap(Where() + ": TrackerPrint");
}

// Tells the tracker this worker is done, then closes the links (all collectives are over).
Status TcpCommunicator::Shutdown() {
  if (shut_down_) return Status::OK();
  shut_down_ = true;
  TcpSocket tracker;
  Status s = ConnectTracker(proto::kShutdown, &tracker);
  heartbeat_.Clear();
  DropLinks();
  listener_.Close();
  return s.Wrap(Where() + ": Shutdown");
}

// ---- recovery -----------------------------------------------------------------------------------

void TcpCommunicator::MaybeDie() const {
  for (const auto& m : settings_.mock) {
    if (m[0] == rank_ && m[1] == version_ && m[2] == seq_ && m[3] == settings_.num_attempt) {
      std::fprintf(stderr, "[ringboost] %s: rabit_mock kills this worker (version %d, call %d)\n",
                   Where().c_str(), version_, seq_);
      std::fflush(stderr);
      raise(SIGKILL);
    }
  }
}

template <typename Call>
Status TcpCommunicator::Robust(const char* what, Call call) {
  MaybeDie();
  ++seq_;
  Status s = call();
  // A peer that does not answer is not a dead one: timeouts end the job (never a hang).
  if (s.ok() || !settings_.recover || s.timed_out()) return s;
  constexpr int kMaxRecoveries = 8;
  for (int attempt = 1;; ++attempt) {
    RB_LOG(kWarning,
           s.message() << "; re-linking through the tracker (recovery " << attempt << ")");
    Status r = Recover();
    if (r.ok()) {
      return Status::Recovered(Where() + ": a worker was lost during " + what +
                               "; all resume from checkpoint " + std::to_string(version_));
    }
    if (r.timed_out() || attempt == kMaxRecoveries) return r.Wrap(Where() + ": recovery failed");
    s = r;
  }
}

// Closes every link (so that the peers notice too), links again through the tracker
// (`recover`: same rank; the restarted worker comes with `start` and its task id), then all agree
// on the newest checkpoint.
void TcpCommunicator::DropLinks() {
  retired_sent_ = WireBytesSent();
  links_.clear();
}

Status TcpCommunicator::Recover() {
  heartbeat_.Clear();
  DropLinks();
  recovering_ = true;
  Status s = Link(proto::kRecover);
  recovering_ = false;
  return s.ok() ? AgreeOnCheckpoint() : s;
}

// The newest checkpoint any rank holds (every worker holds the same model after the same round;
// a failure in the last collective of a round can leave some one checkpoint ahead) is broadcast
// from the lowest rank holding it; everyone continues from there.
Status TcpCommunicator::AgreeOnCheckpoint() {
  int64_t newest = version_;
  Status s = AllreduceOnce(&newest, 1, DataType::kInt64, Op::kMax);
  int64_t holder = version_ == newest ? rank_ : world_;
  if (s.ok()) s = AllreduceOnce(&holder, 1, DataType::kInt64, Op::kMin);
  int64_t size = static_cast<int64_t>(checkpoint_.size());
  if (s.ok() && (newest < 0 || holder < 0 || holder >= world_)) {
    s = Status::Fail(Where() + ": peers agreed on checkpoint " + std::to_string(newest) +
                     " held by rank " + std::to_string(holder) + ", which is impossible");
  }
  if (s.ok()) s = BroadcastOnce(&size, sizeof(size), static_cast<int>(holder));
  if (s.ok() && (size < 0 || size > proto::kMaxCheckpointBytes)) {
    s = Status::Fail(Where() + ": rank " + std::to_string(holder) + " announced a checkpoint of " +
                     std::to_string(size) + " bytes (allowed: 0 to " +
                     std::to_string(proto::kMaxCheckpointBytes) + ")");
  }
  if (!s.ok()) return s;
  std::string agreed =
      rank_ == holder ? checkpoint_ : std::string(static_cast<std::size_t>(size), '\0');
  s = BroadcastOnce(agreed.data(), agreed.size(), static_cast<int>(holder));
  if (!s.ok()) return s;
  checkpoint_ = std::move(agreed);
  version_ = static_cast<int>(newest);
  seq_ = 0;
  RB_LOG(kWarning, Where() << ": linked again; the job resumes from checkpoint " << version_);
  return Status::OK();
}

}  // namespace

namespace {
int TreeDepth(int world) {
  int depth = 0;
  while ((2 << depth) <= world) ++depth;  // floor(log2 world)
  return depth;
}
}  // namespace

double CostModel::RingAllreduce(double bytes, int world) const {
  return 2.0 * (world - 1) * alpha_s + 2.0 * (world - 1) / world * bytes / bytes_per_s;
}
double CostModel::RingAllgather(double bytes, int world) const {
  return (world - 1) * alpha_s + static_cast<double>(world - 1) / world * bytes / bytes_per_s;
}
double CostModel::Tree(double bytes, int world) const {
  return 2.0 * TreeDepth(world) * (alpha_s + 2.0 * bytes / bytes_per_s);
}

double CostModel::HalvingAllreduce(double bytes, int world) const {
  const proto::Hypercube h(world);
  double t = 2.0 * h.Steps() * alpha_s + 2.0 * (h.size - 1) / h.size * bytes / bytes_per_s;
  if (h.extra > 0) t += 2.0 * (alpha_s + bytes / bytes_per_s);  // fold in, result out
  return t;
}
double CostModel::HalvingReduceScatter(double bytes, int world) const {
  const proto::Hypercube h(world);
  double t = h.Steps() * alpha_s + static_cast<double>(h.size - 1) / h.size * bytes / bytes_per_s;
  if (h.extra > 0) t += 2.0 * alpha_s + (bytes + bytes / world) / bytes_per_s;  // all in, block out
  return t;
}
double CostModel::DoublingAllgather(double bytes, int world) const {
  const proto::Hypercube h(world);
  double t = h.Steps() * alpha_s + static_cast<double>(h.size - 1) / h.size * bytes / bytes_per_s;
  if (h.extra > 0) t += 2.0 * alpha_s + (bytes / world + bytes) / bytes_per_s;  // block in, all out
  return t;
}

CostModel MakeCostModel(const TcpSettings& settings) {
  CostModel m;
  m.alpha_s = settings.latency_us * 1e-6;
  m.bytes_per_s = settings.bandwidth_mbps * 1e6 / 8;
  return m;
}

bool UseRingAllreduce(std::size_t count, std::size_t elem_bytes, int world_size,
                      int64_t ring_min_count, const CostModel& model) {
  if (world_size <= 1 || count < static_cast<std::size_t>(world_size) ||
      static_cast<int64_t>(count) < ring_min_count) {
    return false;
  }
  const double bytes = static_cast<double>(count) * static_cast<double>(elem_bytes);
  return model.RingAllreduce(bytes, world_size) <= model.Tree(bytes, world_size);
}

bool UseTreeAllgather(std::size_t total_bytes, int world_size, const CostModel& model) {
  const double bytes = static_cast<double>(total_bytes);
  return world_size > 1 && model.Tree(bytes, world_size) < model.RingAllgather(bytes, world_size);
}

bool OrderFree(DataType type, Op op) {
  return op != Op::kSum || (type != DataType::kFloat && type != DataType::kDouble);
}

const char* AlgorithmName(Algorithm a) {
  switch (a) {
    case Algorithm::kTree:
      return "tree";
    case Algorithm::kRing:
      return "ring";
    case Algorithm::kHalving:
      return "halving";
  }
  return "?";
}

Algorithm PickAllreduce(std::size_t count, std::size_t elem_bytes, int world_size,
                        int64_t ring_min_count, const CostModel& model, bool hypercube) {
  const bool ring = UseRingAllreduce(count, elem_bytes, world_size, ring_min_count, model);
  if (!hypercube || world_size <= 1 ||
      count < static_cast<std::size_t>(proto::Hypercube(world_size).size)) {
    return ring ? Algorithm::kRing : Algorithm::kTree;
  }
  const double bytes = static_cast<double>(count) * static_cast<double>(elem_bytes);
  const double other =
      ring ? model.RingAllreduce(bytes, world_size) : model.Tree(bytes, world_size);
  if (model.HalvingAllreduce(bytes, world_size) < other) return Algorithm::kHalving;
  return ring ? Algorithm::kRing : Algorithm::kTree;
}

Algorithm PickReduceScatter(std::size_t total_bytes, int world_size, const CostModel& model,
                            bool hypercube) {
  const double bytes = static_cast<double>(total_bytes);
  return hypercube && world_size > 1 &&
                 model.HalvingReduceScatter(bytes, world_size) <
                     model.RingAllgather(bytes, world_size)
             ? Algorithm::kHalving
             : Algorithm::kRing;
}

Algorithm PickAllgather(std::size_t total_bytes, int world_size, const CostModel& model,
                        bool hypercube) {
  const Algorithm old =
      UseTreeAllgather(total_bytes, world_size, model) ? Algorithm::kTree : Algorithm::kRing;
  if (!hypercube || world_size <= 1) return old;
  const double bytes = static_cast<double>(total_bytes);
  const double other = old == Algorithm::kTree ? model.Tree(bytes, world_size)
                                               : model.RingAllgather(bytes, world_size);
  return model.DoublingAllgather(bytes, world_size) < other ? Algorithm::kHalving : old;
}

double ModelCost(const CostModel& model, Algorithm a, bool allreduce, double bytes, int world) {
  switch (a) {
    case Algorithm::kTree:
      return model.Tree(bytes, world);
    case Algorithm::kRing:
      return allreduce ? model.RingAllreduce(bytes, world) : model.RingAllgather(bytes, world);
    case Algorithm::kHalving:
      return allreduce ? model.HalvingAllreduce(bytes, world)
                       : model.DoublingAllgather(bytes, world);
  }
  return 0;
}

bool ReduceScatterPays(std::size_t bytes, std::size_t gather_bytes, int world_size,
                       const CostModel& model) {
  if (world_size <= 1) return false;
  const std::size_t count = bytes / 8;  // int64 cells
  const double allreduce = ModelCost(model, PickAllreduce(count, 8, world_size, 1, model, true),
                                     true, bytes, world_size);
  const double scatter = PickReduceScatter(bytes, world_size, model, true) == Algorithm::kHalving
                             ? model.HalvingReduceScatter(bytes, world_size)
                             : model.RingAllgather(bytes, world_size);
  // The candidates' allgatherv: its sizes (an allreduce of one int64 a rank), then the blocks.
  const double sizes =
      ModelCost(model, PickAllreduce(world_size, 8, world_size, 1 << 30, model, true), true,
                8.0 * world_size, world_size);
  const double gather = ModelCost(model, PickAllgather(gather_bytes, world_size, model, true),
                                  false, gather_bytes, world_size);
  return scatter + sizes + gather < allreduce;
}

std::unique_ptr<Communicator> MakeTcpCommunicator(const TcpSettings& settings) {
  auto comm = std::make_unique<TcpCommunicator>(settings);
  ThrowIfError(comm->Init());
  return comm;
}

}  // namespace ringboost::rabit
