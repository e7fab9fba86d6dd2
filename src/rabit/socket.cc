#include "rabit/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace ringboost::rabit {

Deadline Deadline::After(double seconds) {
  Deadline d;
  d.at_ = std::chrono::steady_clock::now() +
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
              std::chrono::duration<double>(seconds));
  return d;
}

Deadline Deadline::Never() {
  Deadline d;
  d.never_ = true;
  return d;
}

bool Deadline::Expired() const { return !never_ && std::chrono::steady_clock::now() >= at_; }

int Deadline::RemainingMs() const {
  if (never_) return -1;
  auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(at_ - std::chrono::steady_clock::now())
          .count();
  // Round up so that a wait never returns before the deadline.
  return static_cast<int>(std::clamp<int64_t>(left + 1, 0, 1 << 30));
}

namespace {

Status SetNonBlocking(int fd) {
  int flags = fcntl(fd, F_GETFL, 0);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    return ErrnoStatus("fcntl", "O_NONBLOCK");
  }
  return Status::OK();
}

// Small messages go out at once: the tree allreduce is latency-bound.
void SetNoDelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

std::string Endpoint(const std::string& host, int port) {
  return host + ":" + std::to_string(port);
}

}  // namespace

Status Resolve(const std::string& host, int port, sockaddr_in* addr) {
  std::memset(addr, 0, sizeof(*addr));
  addr->sin_family = AF_INET;
  addr->sin_port = htons(static_cast<uint16_t>(port));
  if (host.empty() || host == "0.0.0.0") {
    addr->sin_addr.s_addr = htonl(INADDR_ANY);
    return Status::OK();
  }
  if (inet_pton(AF_INET, host.c_str(), &addr->sin_addr) == 1) return Status::OK();
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0 || found == nullptr) {
    return Status::Fail("cannot resolve host '" + host + "': " + gai_strerror(rc));
  }
  addr->sin_addr = reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr;
  freeaddrinfo(found);
  return Status::OK();
}

TcpSocket::~TcpSocket() { Close(); }

TcpSocket::TcpSocket(TcpSocket&& other) noexcept
    : fd_(other.fd_),
      peer_(std::move(other.peer_)),
      liveness_(std::move(other.liveness_)),
      bytes_sent_(other.bytes_sent_) {
  other.fd_ = -1;
  other.bytes_sent_ = 0;
}

TcpSocket& TcpSocket::operator=(TcpSocket&& other) noexcept {
  if (this != &other) {
    Close();
    fd_ = other.fd_;
    peer_ = std::move(other.peer_);
    liveness_ = std::move(other.liveness_);
    bytes_sent_ = other.bytes_sent_;
    other.fd_ = -1;
    other.bytes_sent_ = 0;
  }
  return *this;
}

void TcpSocket::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status TcpSocket::Listen(const std::string& host, int port, TcpSocket* out, int backlog) {
  sockaddr_in addr;
  Status s = Resolve(host, port, &addr);
  if (!s.ok()) return s;
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoStatus("socket", "for listening on " + Endpoint(host, port));
  TcpSocket sock(fd, "listening socket " + Endpoint(host, port));
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) < 0) {
    return ErrnoStatus("bind", "to " + Endpoint(host, port));
  }
  if (::listen(fd, backlog) < 0) return ErrnoStatus("listen", "on " + Endpoint(host, port));
  s = SetNonBlocking(fd);
  if (!s.ok()) return s;
  *out = std::move(sock);
  return Status::OK();
}

Status TcpSocket::Connect(const std::string& host, int port, Deadline deadline, TcpSocket* out) {
  sockaddr_in addr;
  Status s = Resolve(host, port, &addr);
  if (!s.ok()) return s;
  const std::string where = Endpoint(host, port);
  int pause_ms = 10;
  for (int attempt = 1;; ++attempt) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return ErrnoStatus("socket", "to connect to " + where);
    TcpSocket sock(fd, where);
    s = SetNonBlocking(fd);
    if (!s.ok()) return s;
    int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    if (rc < 0 && errno == EINPROGRESS) {
      s = sock.WaitFor(POLLOUT, deadline, "connect");
      if (!s.ok()) return s;
      int err = 0;
      socklen_t len = sizeof(err);
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      errno = err;
      rc = err == 0 ? 0 : -1;
    }
    if (rc == 0) {
      SetNoDelay(fd);
      *out = std::move(sock);
      return Status::OK();
    }
    const bool retry = errno == ECONNREFUSED || errno == ETIMEDOUT || errno == EHOSTUNREACH ||
                       errno == ENETUNREACH || errno == ECONNRESET;
    if (!retry || deadline.RemainingMs() <= pause_ms) {
      return ErrnoStatus("connect", "to " + where + " (attempt " + std::to_string(attempt) + ")");
    }
    // Backoff: the other end may still be starting up.
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    pause_ms = std::min(pause_ms * 2, 1000);
  }
}

Status TcpSocket::Accept(Deadline deadline, TcpSocket* out) {
  for (;;) {
    Status s = WaitFor(POLLIN, deadline, "accept");
    if (!s.ok()) return s;
    sockaddr_in addr{};
    socklen_t len = sizeof(addr);
    int fd = ::accept4(fd_, reinterpret_cast<sockaddr*>(&addr), &len, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED) {
        continue;
      }
      return ErrnoStatus("accept", "on " + peer_);
    }
    char text[INET_ADDRSTRLEN] = {0};
    inet_ntop(AF_INET, &addr.sin_addr, text, sizeof(text));
    TcpSocket sock(fd, Endpoint(text, ntohs(addr.sin_port)));
    s = SetNonBlocking(fd);
    if (!s.ok()) return s;
    SetNoDelay(fd);
    *out = std::move(sock);
    return Status::OK();
  }
}

namespace {

// Before sleeping in poll(), a waiter spins this long on non-blocking polls: an answer that comes
// within microseconds (a small allreduce on a fast link) is then seen without the cost of a
// sleep and a wake-up, as MPI libraries do (yielding the core between polls, as Open MPI's
// mpi_yield_when_idle); a longer wait costs at most this much CPU. When a host runs more workers
// than it has cores, the spin only takes the core from the process being waited for:
// SetPollSpinMicros(0) (rabit_spin_us) makes every wait sleep in poll() at once.
std::atomic<int> spin_us{kDefaultPollSpinMicros};

// How often a wait on links with a heartbeat looks at their liveness.
constexpr int kLivenessCheckMs = 100;

// poll() that first spins for kSpin with a zero timeout; sleeps at most max_ms (-1: no cap).
int SpinThenPoll(pollfd* fds, std::size_t count, Deadline deadline, int max_ms = -1) {
  const int spin = spin_us.load(std::memory_order_relaxed);
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(spin);
  while (spin > 0) {
    int rc = ::poll(fds, count, 0);
    if (rc != 0) return rc;
    sched_yield();  // when workers outnumber cores, the one we wait for may need this core
    if (std::chrono::steady_clock::now() >= until) break;
  }
  int ms = deadline.RemainingMs();
  if (max_ms >= 0 && (ms < 0 || ms > max_ms)) ms = max_ms;
  return ::poll(fds, count, ms);
}

}  // namespace

void SetPollSpinMicros(int micros) { spin_us.store(micros, std::memory_order_relaxed); }

int64_t Liveness::NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Status TcpSocket::CheckLiveness() const {
  if (liveness_ == nullptr || !liveness_->Lost()) return Status::OK();
  char text[160];
  std::snprintf(text, sizeof(text),
                ": no heartbeat for %.1f s (limit %.1f s, rabit_peer_timeout_sec): the process is "
                "stopped, hung or cut off",
                liveness_->SilentSeconds(), liveness_->timeout_s);
  return Status::Timeout(peer_ + text);
}

Status TcpSocket::WaitFor(short events, Deadline deadline, const char* call) {
  for (;;) {
    pollfd p{fd_, events, 0};
    int rc = SpinThenPoll(&p, 1, deadline, liveness_ != nullptr ? kLivenessCheckMs : -1);
    if (rc < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("poll", std::string("in ") + call + " with " + peer_);
    }
    if (rc == 0) {
      Status alive = CheckLiveness();
      if (!alive.ok()) return alive.Wrap(call);
      if (!deadline.Expired()) continue;
      return Status::Timeout(std::string(call) + " with " + peer_ + " timed out");
    }
    // Errors and hang-ups are reported by the call that follows.
    return Status::OK();
  }
}

Status TcpSocket::SendSome(const void* data, std::size_t bytes, std::size_t* done) {
  if (*done >= bytes) return Status::OK();
  ssize_t n = ::send(fd_, static_cast<const char*>(data) + *done, bytes - *done, MSG_NOSIGNAL);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return Status::OK();
    return ErrnoStatus("send", "to " + peer_);
  }
  *done += static_cast<std::size_t>(n);
  bytes_sent_ += n;
  return Status::OK();
}

Status TcpSocket::RecvSome(void* data, std::size_t bytes, std::size_t* done) {
  if (*done >= bytes) return Status::OK();
  ssize_t n = ::recv(fd_, static_cast<char*>(data) + *done, bytes - *done, 0);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return Status::OK();
    return ErrnoStatus("recv", "from " + peer_);
  }
  if (n == 0) {
    return Status::Fail("recv from " + peer_ + ": connection closed by peer after " +
                        std::to_string(*done) + " of " + std::to_string(bytes) + " bytes");
  }
  *done += static_cast<std::size_t>(n);
  return Status::OK();
}

Status TcpSocket::SendAll(const void* data, std::size_t bytes, Deadline deadline) {
  std::size_t done = 0;
  while (done < bytes) {
    Status s = SendSome(data, bytes, &done);
    if (!s.ok()) return s;
    if (done < bytes) {
      s = WaitFor(POLLOUT, deadline, "send");
      if (!s.ok()) return s;
    }
  }
  return Status::OK();
}

Status TcpSocket::RecvAll(void* data, std::size_t bytes, Deadline deadline) {
  std::size_t done = 0;
  while (done < bytes) {
    Status s = RecvSome(data, bytes, &done);
    if (!s.ok()) return s;
    if (done < bytes) {
      s = WaitFor(POLLIN, deadline, "recv");
      if (!s.ok()) return s;
    }
  }
  return Status::OK();
}

Status TcpSocket::SetBufferSize(int bytes) {
  if (setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes)) < 0 ||
      setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes)) < 0) {
    return ErrnoStatus("setsockopt", "SO_SNDBUF/SO_RCVBUF on " + peer_);
  }
  return Status::OK();
}

int TcpSocket::LocalPort() const {
  sockaddr_in addr{};
  socklen_t len = sizeof(addr);
  if (getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) < 0) return -1;
  return ntohs(addr.sin_port);
}

std::string TcpSocket::PeerAddress() const {
  sockaddr_in addr{};
  socklen_t len = sizeof(addr);
  if (getpeername(fd_, reinterpret_cast<sockaddr*>(&addr), &len) < 0) return "";
  char text[INET_ADDRSTRLEN] = {0};
  inet_ntop(AF_INET, &addr.sin_addr, text, sizeof(text));
  return text;
}

Status PollLinks(TcpSocket* const* sockets, const bool* want_read, const bool* want_write,
                 std::size_t count, Deadline deadline, const std::string& what, bool* ready) {
  std::vector<pollfd> fds(count);
  bool watched = false;  // some socket has a heartbeat
  for (std::size_t i = 0; i < count; ++i) {
    fds[i].fd = sockets[i] != nullptr ? sockets[i]->fd() : -1;
    fds[i].events = static_cast<short>((want_read[i] ? POLLIN : 0) | (want_write[i] ? POLLOUT : 0));
    if (fds[i].events == 0) fds[i].fd = -1;  // poll ignores negative descriptors
    watched = watched || (fds[i].fd >= 0 && sockets[i]->watched());
  }
  for (;;) {
    int rc = SpinThenPoll(fds.data(), fds.size(), deadline, watched ? kLivenessCheckMs : -1);
    if (rc < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("poll", "in " + what);
    }
    if (rc == 0) {
      for (std::size_t i = 0; watched && i < count; ++i) {
        if (fds[i].fd < 0) continue;
        Status alive = sockets[i]->CheckLiveness();
        if (!alive.ok()) return alive.Wrap(what);
      }
      if (!deadline.Expired()) continue;
      std::string waiting;
      for (std::size_t i = 0; i < count; ++i) {
        if (fds[i].fd < 0) continue;
        waiting += (waiting.empty() ? "" : ", ") + sockets[i]->peer();
      }
      return Status::Timeout(what + " timed out waiting for " + waiting);
    }
    for (std::size_t i = 0; ready != nullptr && i < count; ++i) ready[i] = fds[i].revents != 0;
    return Status::OK();
  }
}

}  // namespace ringboost::rabit
