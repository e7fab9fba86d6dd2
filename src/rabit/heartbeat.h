// Heartbeats between linked workers, so that a peer whose process is stopped (SIGSTOP), hung or
// cut off is told from one that is merely busy: next to each data link runs a heartbeat link on
// which a thread sends one byte every interval and stamps the peer's Liveness whenever bytes
// arrive. Waits on the data link fail once the stamp is older than the peer timeout
// (TcpSocket::set_liveness), long before rabit_timeout_sec.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "rabit/socket.h"

namespace ringboost::rabit {

class Heartbeat {
 public:
  explicit Heartbeat(double interval_s) : interval_s_(interval_s) {}
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

  // Beats on `sock` to `rank` from now on (replacing an older link to it); returns the rank's
  // liveness, lost after timeout_s without a beat, for the data link's waits.
  std::shared_ptr<const Liveness> Add(int rank, TcpSocket sock, double timeout_s);
  // Closes every heartbeat link (recovery re-links, shutdown).
  void Clear();

 private:
  struct Link {
    TcpSocket sock;
    std::shared_ptr<Liveness> liveness;
    bool closed = false;
  };
  void Run();
  void Beat(Link* link);

  const double interval_s_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;          // guarded by mutex_
  std::map<int, Link> links_;  // guarded by mutex_
  std::thread thread_;         // started with the first link
};

}  // namespace ringboost::rabit
