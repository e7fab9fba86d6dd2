// The tcp communicator's link-up: rank and peers from the tracker, links (and heartbeat links)
// with the hellos of both ends, and the recovery's re-linking through the same protocol.
#include <set>
#include <string>

#include "common/logging.h"
#include "rabit/handshake.h"
#include "rabit/hello.h"
#include "rabit/tcp_communicator_impl.h"

namespace ringboost::rabit {

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
    // The token is proven, never sent: the bare task id goes out (TcpSettings holds no other).
    s = ProveToTracker(tracker, settings_.token, deadline);
  }
  if (s.ok()) s = proto::SendInt(tracker, rank_, deadline);
  if (s.ok()) s = proto::SendInt(tracker, settings_.world_size, deadline);
  if (s.ok()) s = proto::SendStr(tracker, settings_.task_id, deadline);
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
  // Strangers' refusals are rate-limited as the tracker's are: each would be a line of the job's
  // log (ringboost-submit relays a worker's stderr) for as long as the link-up lasts.
  RefusalLog refusals(Where(), [](const std::string& line) { RB_LOG(kWarning, line); });
  HandshakePool pool(
      &listener_, limits,
      [&] { return std::make_unique<PeerHello>(settings_.token, rank_, flags); },
      [&refusals](const std::string& host, const std::string& why) { refusals.Refuse(host, why); });
  Status linked = AwaitPeers(tracker, count, neighbours, &pool);
  refusals.Flush();
  return linked;
}

// AcceptPeers' loop: until `count` peers and their heartbeat links have linked through `pool`.
Status TcpCommunicator::AwaitPeers(TcpSocket* tracker, int count, const std::set<int>& neighbours,
                                   HandshakePool* pool) {
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
    Status s = pool->Step(std::min(deadline.RemainingMs(), 200), &done);
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
  Status s = Link(proto::kStart);
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
// The peer port listens only while linking (the tracker hands it out then, from this worker's
// report in LinkPeers): between link-ups nobody is owed an accept, and a port left open would
// hold strangers' connections in its backlog, unread and past rabit_handshake_timeout_sec, until
// the job ended. Each link-up listens on a fresh port.
Status TcpCommunicator::Link(const std::string& command) {
  TcpSocket tracker;
  Status s = TcpSocket::Listen(settings_.listen_host, 0, &listener_);
  if (s.ok()) s = ConnectTracker(command, &tracker);
  std::set<int> neighbours;
  if (s.ok()) s = ReceiveAssignment(&tracker, &neighbours);
  if (s.ok()) s = LinkPeers(&tracker, neighbours);
  listener_.Close();
  if (!s.ok()) {
    return s.Wrap("tcp worker (task " + settings_.task_id + ", " + command + ") linking up");
  }
  RB_LOG(kDebug, Where() << " of " << world_ << ": linked to " << links_.size() << " peer(s)");
  return Status::OK();
}

}  // namespace ringboost::rabit
