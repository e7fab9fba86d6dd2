// The tracker's side of its liveness toward proven workers (rabit/protocol.h): a thread that sends
// kTrackerBeat to every parked connection (a worker waiting for its assignment, or for its peers
// to link) while the tracker's own thread is busy elsewhere, e.g. serving another worker of the
// batch. The tracker's thread unparks a connection before it writes to it again, so the two never
// write to one socket at once; a beat cut short by a full buffer is finished before unparking.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "rabit/socket.h"

namespace ringboost::rabit {

class TrackerBeat {
 public:
  explicit TrackerBeat(double interval_s) : interval_s_(interval_s) {}
  ~TrackerBeat();
  TrackerBeat(const TrackerBeat&) = delete;
  TrackerBeat& operator=(const TrackerBeat&) = delete;

  // Beats on `sock` from now on (it stays open while parked: the beater holds it too).
  void Park(const std::shared_ptr<TcpSocket>& sock);
  // Stops beating on `sock`, finishing a beat cut short; a socket not parked is left as it is.
  void Unpark(const std::shared_ptr<TcpSocket>& sock);
  // Sends kTrackerAbort and `why` to every parked socket, then forgets them all: each worker
  // that waits stops with `why`.
  void AbortAll(const std::string& why);

 private:
  struct Parked {
    std::shared_ptr<TcpSocket> sock;
    std::string out;  // bytes not sent yet
    std::size_t sent = 0;
  };
  void Run();
  static void Flush(Parked* p, double wait_s);

  const double interval_s_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;                          // guarded by mutex_
  std::map<const TcpSocket*, Parked> parked_;  // guarded by mutex_
  std::thread thread_;                         // started with the first park
};

}  // namespace ringboost::rabit
