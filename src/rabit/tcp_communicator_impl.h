// The tcp backend's communicator (rabit/tcp_communicator.h makes it), private to src/rabit. Its
// definitions are split by concern: tcp_communicator.cc (the calls, each retried through
// recovery; the tracker's print and shutdown), tcp_link_up.cc (rank and links from the tracker),
// tcp_collectives.cc (tree, ring, halving and doubling over the links).
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "rabit/handshake.h"
#include "rabit/heartbeat.h"
#include "rabit/protocol.h"
#include "rabit/socket.h"
#include "rabit/tcp_communicator.h"

namespace ringboost::rabit {

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
  Status AllreduceRaw(void* buf, std::size_t count, DataType type, Op op) override;
  Status ReduceScatterRaw(void* buf, const std::vector<std::size_t>& counts, DataType type,
                          Op op) override;
  Status BroadcastRaw(void* buf, std::size_t bytes, int root) override;
  Status AllgathervRaw(const void* in, std::size_t bytes, std::vector<char>* out) override;
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
  Status AwaitPeers(TcpSocket* tracker, int count, const std::set<int>& neighbours,
                    HandshakePool* pool);
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
  TcpSocket listener_;      // open only within Link()
  std::map<int, TcpSocket> links_;
  Heartbeat heartbeat_;
  bool shut_down_ = false;
  bool recovering_ = false;        // in Recover(): told to peers in the link hello
  bool peers_recovering_ = false;  // a peer linked while it was recovering
  int seq_ = 0;                    // collective calls since the last checkpoint
  int64_t retired_sent_ = 0;       // bytes sent on links closed since (WireBytesSent)
};

}  // namespace ringboost::rabit
