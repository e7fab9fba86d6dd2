// The `tcp` backend: ranks and links from a Rabit tracker (rabit/protocol.h), then collectives
// over direct TCP links between workers: tree, ring, and (with ringboost's tracker) recursive
// halving and doubling over links to rank XOR 2^k, each where the cost model says; tree broadcast.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rabit/communicator.h"

namespace ringboost::rabit {

// What a tcp worker needs. Each setting is read from CommunicatorConfig::args (key=value given
// to the program) first, then from the environment, as rabit does; the keys are listed in
// TcpSettingKeys() and in docs/parameters.md.
struct TcpSettings {
  std::string tracker_uri;       // DMLC_TRACKER_URI (required)
  int tracker_port = 9091;       // DMLC_TRACKER_PORT
  std::string task_id = "NULL";  // DMLC_TASK_ID (stable across restarts of one worker)
  int world_size = -1;           // DMLC_NUM_WORKER (-1: the tracker's)
  int num_attempt = 0;           // DMLC_NUM_ATTEMPT (restarts so far)
  std::string token;             // RINGBOOST_JOB_TOKEN (empty: no token)
  double timeout_s = 1800;       // rabit_timeout_sec: longest wait for a peer or the tracker
  // rabit_connect_timeout_sec: how long a refused connect to the tracker or a peer is retried
  // (a tracker that died is reported after it).
  double connect_timeout_s = 30;
  // rabit_handshake_timeout_sec: a connection to this worker's peer port that has not proven
  // the token by then is dropped (others' hellos go on meanwhile).
  double handshake_timeout_s = 5;
  // rabit_heartbeat_sec: each worker beats on a heartbeat link next to each peer link this
  // often; rabit_peer_timeout_sec: a peer not heard for that long (stopped, hung, cut off) ends
  // the wait on it with an error naming its rank and host (rabit/heartbeat.h).
  double heartbeat_s = 1;
  double peer_timeout_s = 30;
  std::string listen_host;  // rabit_listen_host ("" = all addresses)
  int64_t ring_min_count =
      32768;  // rabit_reduce_ring_mincount: elements from which to use the ring
  // rabit_latency_us, rabit_bandwidth_mbps: the alpha (one-way latency per message) and the
  // link rate of the cost model that picks each collective's algorithm (CostModel below).
  double latency_us = 25;
  double bandwidth_mbps = 10000;
  int socket_buffer = 0;  // rabit_socket_buffer: SO_SNDBUF/SO_RCVBUF of links (0: default)
  // rabit_spin_us: how long a wait polls without sleeping before it sleeps in poll(); 0 where a
  // host runs more workers than cores (ringboost-submit's local launcher sets it then).
  int spin_us = 50;
  // rabit_algorithm=auto|tree|ring|halving: auto lets the cost model pick each call's algorithm;
  // the others force it where it can run (halving: with the hypercube's links and an op whose
  // result does not depend on the order, PickAllreduce; tree: not for a reduce-scatter, which
  // takes the ring), else auto's choice. For benchmarks and tests.
  std::string algorithm = "auto";
  // rabit_recover: when a link breaks, re-link through the tracker with the restarted worker
  // and roll back to the newest checkpoint (RecoveredError) instead of failing. ringboost-submit
  // turns it on when it restarts workers (--local-num-attempt > 0).
  bool recover = false;
  // rabit_mock=RANK,VERSION,CALL,ATTEMPT[;...]: that rank kills itself (SIGKILL) at collective
  // call CALL after checkpoint VERSION when DMLC_NUM_ATTEMPT is ATTEMPT (faults for tests).
  std::vector<std::array<int, 4>> mock;
};

// The accepted keys, "arg key (environment variable)" each, for messages and docs.
std::string TcpSettingKeys();
// Reads the settings; throws ringboost::Error naming the key and its allowed values.
TcpSettings ReadTcpSettings(const CommunicatorConfig& config);

// Connects to the tracker, gets a rank and links up with the peers (throws on failure, naming
// the tracker or the peer).
std::unique_ptr<Communicator> MakeTcpCommunicator(const TcpSettings& settings);

// The alpha-beta cost model of the tcp backend's algorithms (docs/collective.md): a message
// costs alpha + bytes / rate; P ranks, S bytes, L = floor(log2 P), the depth of the tree.
// - ring allreduce (reduce-scatter + allgather): 2 (P-1) alpha + 2 (P-1)/P S / rate;
// - ring allgather: (P-1) alpha + (P-1)/P S / rate;
// - tree allreduce (up to rank 0 and down, not pipelined; a node takes two children's buffers
//   over its link, then sends to each in turn): 2 L (alpha + 2 S / rate); the tree allgather is
//   this allreduce (a bitwise or of the blocks, each in its place, zeros elsewhere);
// - over the hypercube (proto::Hypercube: P' the largest power of two <= P, L' = log2 P', and
//   F = 1 where P > P' for the fold of the extra ranks into partners):
//   halving reduce-scatter: L' alpha + (P'-1)/P' S / rate + F (2 alpha + (S + S/P) / rate);
//   doubling allgather: the same; Rabenseifner's allreduce (the two):
//   2 L' alpha + 2 (P'-1)/P' S / rate + F 2 (alpha + S / rate).
//   The ring reduce-scatter costs what the ring allgather does.
struct CostModel {
  double alpha_s = 25e-6;
  double bytes_per_s = 1.25e9;
  double RingAllreduce(double bytes, int world) const;
  double RingAllgather(double bytes, int world) const;
  double Tree(double bytes, int world) const;
  double HalvingAllreduce(double bytes, int world) const;
  double HalvingReduceScatter(double bytes, int world) const;
  double DoublingAllgather(double bytes, int world) const;
};
CostModel MakeCostModel(const TcpSettings& settings);

// Whether an allreduce of `count` elements of `elem_bytes` each runs on the ring (else on the
// tree): from ring_min_count elements (and at least one per rank), where the model has the ring
// no slower than the tree.
bool UseRingAllreduce(std::size_t count, std::size_t elem_bytes, int world_size,
                      int64_t ring_min_count, const CostModel& model);
// Whether an allgather of `total_bytes` in all goes up and down the tree (else around the ring).
bool UseTreeAllgather(std::size_t total_bytes, int world_size, const CostModel& model);

// The algorithms with the hypercube's links (ringboost's tracker makes them where every worker
// is a ringboost worker): kHalving is recursive halving (reduce-scatter), recursive doubling
// (allgather) or the two (allreduce).
enum class Algorithm { kTree, kRing, kHalving };
const char* AlgorithmName(Algorithm a);
// Whether op's result is the same in any order of reduction (all but floating-point sums): only
// then may halving run, so that its results are the ring's and the tree's byte for byte.
bool OrderFree(DataType type, Op op);
// An allreduce: the ring or the tree as UseRingAllreduce says; with `hypercube` (links there and
// OrderFree) halving-doubling where the model has it strictly cheaper, from P' elements.
Algorithm PickAllreduce(std::size_t count, std::size_t elem_bytes, int world_size,
                        int64_t ring_min_count, const CostModel& model, bool hypercube);
// A reduce-scatter: halving (with `hypercube`) where the model has it strictly cheaper, else the
// ring.
Algorithm PickReduceScatter(std::size_t total_bytes, int world_size, const CostModel& model,
                            bool hypercube);
// An allgather: tree or ring as UseTreeAllgather says; doubling where strictly cheaper.
Algorithm PickAllgather(std::size_t total_bytes, int world_size, const CostModel& model,
                        bool hypercube);
// With the hypercube: whether a reduce-scatter of `bytes` (int64 cells) and an allgatherv of
// `gather_bytes` (its sizes first) cost less than an allreduce of `bytes`, each by its cheapest
// algorithm (hist_sync=auto).
bool ReduceScatterPays(std::size_t bytes, std::size_t gather_bytes, int world_size,
                       const CostModel& model);

}  // namespace ringboost::rabit
