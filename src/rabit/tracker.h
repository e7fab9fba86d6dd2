// The serving side of the Rabit tracker protocol (rabit/protocol.h): hands out ranks, the tree
// and ring links and the peers' addresses, prints workers' `print` lines, and returns when every
// worker has sent `shutdown`. Tests run it in-process on a thread; ringboost-submit runs it in
// front of its launchers.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "rabit/handshake.h"
#include "rabit/socket.h"

namespace ringboost::rabit {

struct TrackerOptions {
  std::string host = "127.0.0.1";  // address to listen on (and to hand to workers)
  int port = 0;                    // 0: any free port
  // The world size, unless the first worker to start states its own (as XGBoost's tracker);
  // every later worker that states one must agree with it.
  int num_workers = 1;
  // When not empty, a worker must prove it (ringboost workers, rabit/protocol.h) or show it in
  // its task id ("<id>:<token>", foreign workers); others are refused and the refusal logged.
  // Empty: the plain dmlc protocol, any task id.
  std::string token;
  // Hellos run concurrently, each dropped when not complete within handshake_timeout_s; at
  // most max(max_pending_per_source, num_workers) are pending from one address (the oldest is
  // dropped first), so that every worker of a local job may be in its hello at once.
  double handshake_timeout_s = 5;
  int max_pending_per_source = 16;
  // Bound on each later exchange with a worker that passed its hello (ranks and links).
  double io_timeout_s = 30;
  // Link a job of ringboost workers only (every one proven) in a hypercube too, for the
  // collectives' recursive halving and doubling (docs/collective.md). Off by default: the extra
  // links (log2 N + 1 a rank) slow the link-up of large jobs (1024 loopback workers: 52 s against
  // 29.5 s), and halving measured slower than the ring from 1 MB on one host.
  bool hypercube = false;
  // Also log where each rank listens for its peers ("rank R listens on HOST:PORT").
  bool verbose = false;
  // Refusals are logged one by one up to refusal_lines in each refusal_window_s; beyond that
  // (a flood of strangers, each refusal a line of the job log and --log-file) they are counted,
  // and the count is logged when the window has passed and when Run() ends.
  int refusal_lines = RefusalLog::kLines;
  double refusal_window_s = RefusalLog::kWindowS;
  // Where lines go: print messages ("[rank R] message"), refusals, progress. Default: stderr.
  std::function<void(const std::string&)> log;
};

class Tracker {
 public:
  // Binds the listening socket; fails (EADDRINUSE and the like) without side effects.
  static Status Create(TrackerOptions options, std::unique_ptr<Tracker>* out);
  ~Tracker();

  int port() const;
  const std::string& host() const;
  // The environment a worker needs: DMLC_TRACKER_URI, DMLC_TRACKER_PORT, DMLC_NUM_WORKER.
  std::vector<std::pair<std::string, std::string>> WorkerEnv() const;

  // Serves until every worker has shut down (OK) or Stop() is called (a failure saying so);
  // then stops listening (later connections are refused by the kernel). Callable once.
  // Start and recover are served as XGBoost's tracker does: new workers are ranked in one batch
  // once all have arrived (sorted by host, then by task id, numerically where both are
  // numbers); a worker whose task id already has a rank (recover, or a restarted worker's
  // start) gets that rank back.
  Status Run();
  // Makes Run() return soon; callable from another thread or a signal-free context.
  void Stop();

  // Ranks handed out so far by (bare) task id, for launchers and tests.
  std::vector<std::pair<std::string, int>> RanksByTask() const;

 private:
  struct Impl;
  explicit Tracker(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ringboost::rabit
