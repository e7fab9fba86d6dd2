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
#include "rabit/cost_model.h"

namespace ringboost::rabit {

// What a tcp worker needs. Each setting is read from CommunicatorConfig::args (key=value given
// to the program) first, then from the environment, as rabit does; the keys are listed in
// TcpSettingKeys() and in docs/collective.md.
struct TcpSettings {
  std::string tracker_uri;       // DMLC_TRACKER_URI (required)
  int tracker_port = 9091;       // DMLC_TRACKER_PORT
  std::string task_id = "NULL";  // DMLC_TASK_ID less ":<token>" (stable across restarts)
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

// The cost model of these settings (rabit_latency_us, rabit_bandwidth_mbps).
CostModel MakeCostModel(const TcpSettings& settings);

}  // namespace ringboost::rabit
