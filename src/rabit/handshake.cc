#include "rabit/handshake.h"

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <unordered_map>

namespace ringboost::rabit {

bool WireReader::Int(int32_t* value) {
  std::string bytes;
  if (!Bytes(sizeof(*value), &bytes)) return false;
  std::memcpy(value, bytes.data(), sizeof(*value));
  return true;
}

bool WireReader::Bytes(std::size_t count, std::string* out) {
  if (buffer_.size() < pos_ + count) {
    missing_ = pos_ + count - buffer_.size();
    return false;
  }
  out->assign(buffer_, pos_, count);
  pos_ += count;
  return true;
}

bool WireReader::Str(std::string* out, int32_t max_bytes, Status* error) {
  int32_t length = 0;
  if (!Int(&length)) return false;
  if (length < 0 || length > max_bytes) {
    *error = Status::Fail("a string of " + std::to_string(length) +
                          " bytes is refused (allowed: 0 to " + std::to_string(max_bytes) + ")");
    return false;
  }
  return Bytes(static_cast<std::size_t>(length), out);
}

RefusalLog::RefusalLog(std::string who, Sink sink, int lines, double window_s)
    : who_(std::move(who)), sink_(std::move(sink)), lines_(lines), window_s_(window_s) {}

void RefusalLog::Refuse(const std::string& host, const std::string& why) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  if (std::chrono::duration<double>(now - window_begin_).count() >= window_s_) {
    LogUnlogged();
    window_begin_ = now;
    logged_ = 0;
  }
  if (logged_ >= lines_) {
    ++unlogged_;
    return;
  }
  ++logged_;
  sink_(who_ + ": refused a connection from " + host + ": " + why +
        (logged_ == lines_ ? " (further refusals are counted, not logged)" : ""));
}

void RefusalLog::Flush() {
  std::lock_guard<std::mutex> lock(mutex_);
  LogUnlogged();
}

void RefusalLog::LogUnlogged() {
  if (unlogged_ == 0) return;
  sink_(who_ + ": " + std::to_string(unlogged_) +
        " more connection(s) refused and not logged one by one");
  unlogged_ = 0;
}

struct HandshakePool::Pending {
  TcpSocket sock;
  std::string host;
  std::unique_ptr<Handshake> handshake;
  Deadline deadline;
  int64_t admitted_ms = 0;  // Liveness::NowMs() when accepted
  std::string in, out;
  std::size_t sent = 0;
  std::size_t need = 0;
};

HandshakePool::HandshakePool(TcpSocket* listener, HandshakeLimits limits, Factory factory,
                             OnDrop on_drop)
    : listener_(listener),
      limits_(limits),
      factory_(std::move(factory)),
      on_drop_(std::move(on_drop)) {}

HandshakePool::~HandshakePool() = default;

void HandshakePool::CloseAll() { pending_.clear(); }

void HandshakePool::Drop(std::size_t index, const std::string& why) {
  const std::string host = pending_[index]->host;
  pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(index));
  on_drop_(host, why);
}

// Accepts what the backlog holds now (a bounded number per step, so that a flood of connects
// does not starve the handshakes in progress).
void HandshakePool::AcceptNew() {
  constexpr int kMaxAcceptsPerStep = 64;
  for (int i = 0; i < kMaxAcceptsPerStep; ++i) {
    TcpSocket sock;
    Status s = listener_->Accept(Deadline::After(0), &sock);
    if (!s.ok()) return;  // nothing more waiting (or a failed accept, which harms no one else)
    std::string host = sock.PeerAddress();
    Admit(std::move(sock), std::move(host));
  }
}

void HandshakePool::Admit(TcpSocket sock, std::string host) {
  // The caps close the oldest: an idle stranger cannot keep a newer (real) peer out. The cap per
  // address spares connections younger than kMinAgeToEvictMs, so that many real workers of one
  // host connecting at once (a local job) are all read before any is judged idle.
  constexpr int64_t kMinAgeToEvictMs = 500;
  const int64_t now = Liveness::NowMs();
  int same = 0;
  std::size_t oldest = pending_.size();
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    if (pending_[i]->host != host) continue;
    if (same++ == 0) oldest = i;
  }
  if (same >= limits_.per_source && now - pending_[oldest]->admitted_ms >= kMinAgeToEvictMs) {
    Drop(oldest, "more than " + std::to_string(limits_.per_source) +
                     " handshakes pending from this address; the oldest is closed");
  }
  if (static_cast<int>(pending_.size()) >= limits_.total) {
    Drop(OldestOfBusiestSource(host), "more than " + std::to_string(limits_.total) +
                                          " handshakes pending; the oldest of the address that "
                                          "holds the most is closed");
  }
  auto p = std::make_unique<Pending>();
  p->sock = std::move(sock);
  p->host = std::move(host);
  p->handshake = factory_();
  p->deadline = Deadline::After(limits_.timeout_s);
  p->admitted_ms = now;
  Status s = p->handshake->Advance(p->in, &p->out, &p->need);
  if (!s.ok()) {
    on_drop_(p->host, s.message());
    return;
  }
  pending_.push_back(std::move(p));
}

// The cap in all closes a connection of the address that holds the most (the newcomer from
// `host` counted): the per-address cap spares young connections, so a burst from one address
// can pass it, and closing the oldest of all would then let that burst close another address's
// hello in progress (a real worker whose hello takes a round trip or a moment to be scheduled).
// On a tie the address with the older connection yields it: oldest first, as before.
std::size_t HandshakePool::OldestOfBusiestSource(const std::string& host) const {
  std::unordered_map<std::string, int> count;
  ++count[host];
  for (const auto& p : pending_) ++count[p->host];
  std::size_t pick = 0;
  int most = 0;
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    const int c = count[pending_[i]->host];
    if (c > most) {
      most = c;
      pick = i;
    }
  }
  return pick;
}

// Reads while the kernel has bytes (so a hello that has fully arrived completes in one step, in
// the order the connections came), never more than the handshake asks for.
bool HandshakePool::Progress(Pending* p, short revents, std::string* why) {
  Status s = p->sock.SendSome(p->out.data(), p->out.size(), &p->sent);
  const bool readable = (revents & (POLLIN | POLLHUP | POLLERR)) != 0;
  while (s.ok() && readable && p->need > 0) {
    std::string chunk(p->need, '\0');
    std::size_t got = 0;
    s = p->sock.RecvSome(chunk.data(), chunk.size(), &got);
    if (!s.ok() || got == 0) break;
    p->in.append(chunk, 0, got);
    s = p->handshake->Advance(p->in, &p->out, &p->need);
    if (s.ok()) s = p->sock.SendSome(p->out.data(), p->out.size(), &p->sent);
  }
  if (!s.ok()) *why = s.message();
  return s.ok();
}

Status HandshakePool::Step(int wait_ms, std::vector<Done>* done) {
  std::vector<pollfd> fds;
  fds.push_back({listener_->valid() ? listener_->fd() : -1, POLLIN, 0});
  int timeout = wait_ms;
  for (const auto& p : pending_) {
    const short events =
        static_cast<short>((p->need > 0 ? POLLIN : 0) | (p->sent < p->out.size() ? POLLOUT : 0));
    fds.push_back({p->sock.fd(), events, 0});
    timeout = std::min(timeout, p->deadline.RemainingMs());
  }
  int rc = ::poll(fds.data(), fds.size(), std::max(timeout, 0));
  if (rc < 0 && errno != EINTR) return ErrnoStatus("poll", "while accepting connections");
  // Pending entries first (indices match fds), then new connections join at the end.
  for (std::size_t i = 0, f = 1; i < pending_.size(); ++f) {
    Pending* p = pending_[i].get();
    std::string why;
    if (rc > 0 && fds[f].revents != 0 && !Progress(p, fds[f].revents, &why)) {
      Drop(i, why);
      continue;
    }
    if (p->need == 0 && p->sent == p->out.size()) {
      done->push_back(Done{std::move(p->sock), p->host, std::move(p->handshake)});
      pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    if (p->deadline.Expired()) {
      char limit[32];
      std::snprintf(limit, sizeof(limit), "%g", limits_.timeout_s);
      Drop(i, std::string("no complete handshake within ") + limit + " s");
      continue;
    }
    ++i;
  }
  if (rc > 0 && (fds[0].revents & POLLIN) != 0) AcceptNew();
  return Status::OK();
}

}  // namespace ringboost::rabit
