// TCP sockets for the tcp backend and the tracker: non-blocking file descriptors driven by
// poll(), every wait bounded by a Deadline, every failure a Status that names the call and the
// peer ("host:port", or "rank N" once the link knows it) with errno.
#pragma once

#include <netinet/in.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "common/error.h"

namespace ringboost::rabit {

// A point in time after which a wait fails with "timed out".
class Deadline {
 public:
  static Deadline After(double seconds);
  static Deadline Never();
  bool Expired() const;
  // Milliseconds left for poll(): -1 for Never, 0 when expired.
  int RemainingMs() const;

 private:
  std::chrono::steady_clock::time_point at_{};
  bool never_ = false;
};

// What a link knows of its peer being alive: a heartbeat thread stamps `last_heard` (steady
// clock, ms) whenever the peer's heartbeat arrives; a wait on the link fails (a timeout naming
// the peer) once that is older than `timeout_s`, whatever the wait's own deadline.
struct Liveness {
  explicit Liveness(double timeout) : last_heard_ms(NowMs()), timeout_s(timeout) {}
  static int64_t NowMs();
  void Heard() { last_heard_ms.store(NowMs()); }
  double SilentSeconds() const { return (NowMs() - last_heard_ms.load()) / 1000.0; }
  bool Lost() const { return SilentSeconds() > timeout_s; }

  std::atomic<int64_t> last_heard_ms;
  const double timeout_s;
};

// `host` (a dotted IPv4 address, or a name looked up once; "" or "0.0.0.0": any address) and
// `port` as an IPv4 socket address; fails with "cannot resolve host 'HOST': ..." otherwise.
Status Resolve(const std::string& host, int port, sockaddr_in* addr);

class TcpSocket {
 public:
  TcpSocket() = default;
  ~TcpSocket();
  TcpSocket(TcpSocket&& other) noexcept;
  TcpSocket& operator=(TcpSocket&& other) noexcept;
  TcpSocket(const TcpSocket&) = delete;
  TcpSocket& operator=(const TcpSocket&) = delete;

  // A listening socket on host:port (port 0: any free port; host "" or "0.0.0.0": all IPv4
  // addresses). Fails with EADDRINUSE when the port is taken (the caller may try the next).
  static Status Listen(const std::string& host, int port, TcpSocket* out, int backlog = 256);
  // Connects to host:port, retrying refused or unreachable attempts with growing pauses until
  // `deadline` (a peer or tracker that is still starting up is not an error).
  static Status Connect(const std::string& host, int port, Deadline deadline, TcpSocket* out);

  // Waits for one connection on a listening socket.
  Status Accept(Deadline deadline, TcpSocket* out);

  // Whole-buffer transfers: loop over partial sends/receives, waiting in poll() until deadline.
  // A closed connection during RecvAll is an error ("closed by peer").
  Status SendAll(const void* data, std::size_t bytes, Deadline deadline);
  Status RecvAll(void* data, std::size_t bytes, Deadline deadline);

  // One non-blocking step: moves what the kernel takes or has now (possibly nothing) and adds it
  // to *done. Used by loops that drive several links at once with PollLinks().
  Status SendSome(const void* data, std::size_t bytes, std::size_t* done);
  Status RecvSome(void* data, std::size_t bytes, std::size_t* done);

  // Kernel buffer sizes (SO_SNDBUF/SO_RCVBUF); tests shrink them to force partial transfers.
  Status SetBufferSize(int bytes);

  int fd() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // The local port (of a listening socket: the one bound).
  int LocalPort() const;
  // The peer's numeric address as seen by this socket ("" when not connected).
  std::string PeerAddress() const;
  // How errors name the other end; defaults to "host:port".
  const std::string& peer() const { return peer_; }
  void set_peer(std::string name) { peer_ = std::move(name); }
  // Waits on this socket also end when the peer's heartbeat is lost (null: never).
  void set_liveness(std::shared_ptr<const Liveness> liveness) { liveness_ = std::move(liveness); }
  bool watched() const { return liveness_ != nullptr; }
  // A timeout naming the peer when its heartbeat is lost, else OK.
  Status CheckLiveness() const;
  void Close();
  // Bytes this socket has written so far (every successful send()).
  int64_t bytes_sent() const { return bytes_sent_; }

 private:
  TcpSocket(int fd, std::string peer) : fd_(fd), peer_(std::move(peer)) {}
  Status WaitFor(short events, Deadline deadline, const char* call);

  int fd_ = -1;
  std::string peer_;
  std::shared_ptr<const Liveness> liveness_;
  int64_t bytes_sent_ = 0;
};

// Waits until any of the sockets can make progress: want_read[i]/want_write[i] select the
// events per socket; ready[i] (when not null) tells which are ready or failed. Returns a failure
// when the deadline passes first (naming `what` and the sockets waited for).
Status PollLinks(TcpSocket* const* sockets, const bool* want_read, const bool* want_write,
                 std::size_t count, Deadline deadline, const std::string& what,
                 bool* ready = nullptr);

// Every wait on a socket first polls without sleeping for this many microseconds, yielding the
// core between polls (rabit_spin_us; 0: sleep in poll() at once). Process-wide.
constexpr int kDefaultPollSpinMicros = 50;
void SetPollSpinMicros(int micros);

}  // namespace ringboost::rabit
