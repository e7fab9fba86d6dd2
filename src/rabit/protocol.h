// The Rabit tracker protocol of dmlc-core, as XGBoost's RabitTracker (1.7) speaks it; shared by
// the tcp backend (the worker side) and the tracker (the serving side, used by ringboost-submit).
//
// Wire format: 4-byte ints in host byte order; a string is an int length and that many bytes.
//
// A worker opens a connection to the tracker for each command:
//   worker  -> magic (0xff99)          tracker -> magic (echoed)
//   worker  -> rank (-1: not known yet), world size (-1: not known), task id, command
// For "print":    worker -> message; the tracker prints it.
// For "shutdown": nothing more; the tracker counts the worker as finished.
// For "start" and "recover" (recover: a restarted worker asks for its old rank by task id):
//   tracker -> rank, parent rank (-1 at the root), world size,
//              number of tree neighbours and their ranks, ring previous, ring next (-1: none)
//   then, until no connect fails:
//     worker  -> number of links it already holds, and their ranks
//     tracker -> number to connect to, number to accept from,
//                for each to connect to: host, port, rank
//     worker  -> number of connects that failed (0 ends the loop)
//   worker  -> the port it listens on for the links it accepts.
// Each worker connects to peers that got their rank before it and accepts from the later ones.
//
// The job token (ringboost-submit makes a fresh one per job) is proven, never sent, by ringboost
// workers: HMAC-SHA256 keyed with the token over both ends' fresh nonces and a label naming the
// prover's role (rabit/auth.h), so that a proof can neither be replayed nor reflected.
//
// A ringboost worker that has a token (RINGBOOST_JOB_TOKEN) opens each tracker connection with
//   worker  -> kAuthMagic, nonce_w (32 bytes)
//   tracker -> kAuthMagic, nonce_t, HMAC(token, kTrackerProof | nonce_w | nonce_t)
//   worker  -> HMAC(token, kWorkerProof | nonce_w | nonce_t)   (after checking the tracker's)
// and then goes on as above from "rank" with its bare task id. Without a token it speaks the
// plain protocol (foreign trackers: dmlc-core's, XGBoost's RabitTracker, know no kAuthMagic).
// A foreign worker under ringboost-submit speaks the plain protocol and shows the token inside
// its task id ("<id>:<token>", set in DMLC_TASK_ID): that exposes the token to anyone who reads
// that connection (docs/collective.md).
//
// Peer links (ours on both ends) prove the token both ways before anything else is sent:
//   connector -> kPeerMagic, nonce_c
//   acceptor  -> kPeerMagic, nonce_a, rank_a, flags_a,
//                HMAC(token, kAcceptorProof | nonce_c | nonce_a | rank_a | flags_a)
//   connector -> rank_c, flags_c, HMAC(token, kConnectorProof | nonce_c | nonce_a | rank_c |
//   flags_c)
// flags: kFlagRecovering when the sender is re-linking after a lost peer (a restarted worker
// joins the checkpoint agreement only then); kFlagHeartbeat on the second link the connector
// opens to each peer right after the first, on which both ends beat (rabit/heartbeat.h). Without a
// token the same exchange runs with an empty key: it frames the link but proves nothing.
//
// Liveness of the tracker (proven workers only: ringboost's tracker on both ends). While a
// start/recover waits for its assignment (the tracker ranks a batch once every worker has come,
// and serves the batch one worker at a time), and again after the worker's listening port until
// every peer it accepts has linked, the tracker sends kTrackerBeat every second; a worker that
// hears nothing for rabit_peer_timeout_sec stops, naming the tracker. When the link-up cannot
// finish (a worker stopped answering during its exchange), the tracker sends kTrackerAbort and a
// string saying which rank, host and why, then closes: every waiting worker stops with it. A
// worker waiting for peers to link sees the tracker close its side once they all have.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"
#include "rabit/socket.h"

namespace ringboost::rabit::proto {

constexpr int32_t kMagic = 0xff99;
// The hello of a ringboost peer link (not part of dmlc's protocol: links are ours on both ends).
constexpr int32_t kPeerMagic = 0x7262ff9a;
// A ringboost worker's tracker hello when it proves the job token (not part of dmlc's protocol).
constexpr int32_t kAuthMagic = 0x7262ff9b;
// What the tracker sends a proven worker while it waits (above); no rank takes these values.
constexpr int32_t kTrackerBeat = 0x7262ff9c;
constexpr int32_t kTrackerAbort = 0x7262ff9d;
constexpr int32_t kFlagRecovering = 1;
constexpr int32_t kFlagHeartbeat = 2;

// The labels of the proofs: each role signs its own, so one cannot stand for another.
inline constexpr const char* kTrackerProof = "ringboost tracker proof v1";
inline constexpr const char* kWorkerProof = "ringboost worker proof v1";
inline constexpr const char* kAcceptorProof = "ringboost peer acceptor proof v1";
inline constexpr const char* kConnectorProof = "ringboost peer connector proof v1";

inline constexpr const char* kStart = "start";
inline constexpr const char* kRecover = "recover";
inline constexpr const char* kPrint = "print";
inline constexpr const char* kShutdown = "shutdown";

// Bounds checked before anything is allocated from a length read off the wire.
constexpr int32_t kMaxStringBytes = 1 << 20;
constexpr int32_t kMaxWorldSize = 1 << 16;
constexpr int32_t kMaxTaskIdBytes = 4096;  // 256 for the id, the rest for ":<token>"
constexpr int32_t kMaxCommandBytes = 64;
constexpr int32_t kMaxHostBytes = 1024;
constexpr int32_t kMaxAbortBytes = 4096;  // the reason of a kTrackerAbort
// A rank's tree neighbours: the parent and two children of the binary heap tree.
constexpr int32_t kMaxTreeNeighbours = 3;
// Sizes that collectives read from peers: a checkpoint (AgreeOnCheckpoint) and the sum of an
// Allgatherv's blocks; above them a peer's claim is refused before anything is allocated.
constexpr int64_t kMaxCheckpointBytes = int64_t{1} << 34;
constexpr int64_t kMaxAllgathervBytes = int64_t{1} << 36;

Status SendInt(TcpSocket* sock, int32_t value, Deadline deadline);
Status RecvInt(TcpSocket* sock, int32_t* value, Deadline deadline);
Status SendStr(TcpSocket* sock, const std::string& value, Deadline deadline);
// Refuses (without reading it) a string longer than max_bytes.
Status RecvStr(TcpSocket* sock, std::string* value, Deadline deadline,
               int32_t max_bytes = kMaxStringBytes);

// The tracker's answer to start/recover, as a worker uses it.
struct Assignment {
  int32_t rank = -1, parent = -1, world = 0;
  std::vector<int> tree;         // tree neighbours, the parent included
  int32_t prev = -1, next = -1;  // ring neighbours (the rank itself in a world of one)
};
// Reads and checks it: ranks within the world, the parent among the tree neighbours, no rank
// its own neighbour, the ring in rank order (ringboost's ring collectives index chunks by
// rank; XGBoost's tracker and ours both hand it out so). *neighbours: every rank to link with.
// `watch` (a proven worker): the tracker's beats come first, and a silence of watch->silence_s
// fails (as does a kTrackerAbort); the assignment itself is bounded by `deadline` either way.
struct TrackerLiveness {
  double silence_s = 30;  // rabit_peer_timeout_sec
  std::string waiting;    // what the worker waits for, for the message
};
Status RecvAssignment(TcpSocket* tracker, Deadline deadline, Assignment* out,
                      std::set<int>* neighbours, const TrackerLiveness* watch = nullptr);

// A worker's view of the tracker's beats while it waits for peers to link (non-blocking): OK
// while the tracker beats or once it has closed its side (all peers linked); a failure naming
// the tracker on its silence or its kTrackerAbort.
class TrackerWatch {
 public:
  TrackerWatch(TcpSocket* tracker, TrackerLiveness liveness);
  Status Check();

 private:
  TcpSocket* tracker_;
  TrackerLiveness liveness_;
  std::string in_;  // bytes not parsed yet
  int64_t last_heard_ms_;
  bool closed_ = false;
};
// The failure for a tracker silent for `silent_s` (stopped, hung or cut off).
Status TrackerSilent(const std::string& tracker, double silent_s, const TrackerLiveness& l);

// "<id>:<token>" when a token is set and the id does not carry it yet, else the id unchanged.
std::string TaskIdWithToken(const std::string& task_id, const std::string& token);
// Whether `task_id` carries `token` (always true when token is empty). On true, *bare_id is the
// task id without the token.
bool TaskIdHasToken(const std::string& task_id, const std::string& token, std::string* bare_id);

// The tree and ring of a world, laid out as XGBoost's tracker does: a binary heap tree whose
// ranks are renumbered so that the ring (a depth-first walk of the tree) is 0, 1, ..., n-1.
struct LinkMap {
  std::vector<int> parent;                   // -1 at the root
  std::vector<std::vector<int>> neighbours;  // tree neighbours (parent and children)
  std::vector<int> ring_prev, ring_next;     // equal to the rank itself in a world of one
};
LinkMap ComputeLinkMap(int world_size);

// The hypercube of recursive halving and doubling (docs/collective.md): P' = the largest power
// of two <= world, E = world - P'. Ranks 2i+1 < 2E are folded into rank 2i first; the others are
// the P' "virtual" ranks v (rank 2v for v < E, v + E beyond), each linked with v XOR 2^k.
struct Hypercube {
  int world = 1, size = 1, extra = 0;  // world, P', E
  explicit Hypercube(int world_size);
  // The virtual rank of `rank`, -1 for a folded one.
  int Virtual(int rank) const {
    return rank < 2 * extra ? (rank % 2 == 0 ? rank / 2 : -1) : rank - extra;
  }
  int Real(int v) const { return v < extra ? 2 * v : v + extra; }
  int Steps() const;  // log2 P'
};
// The ranks `rank` links with for the hypercube (its fold partner and its v XOR 2^k), ascending.
std::vector<int> HypercubePartners(int rank, int world_size);

}  // namespace ringboost::rabit::proto
