#include "rabit/tracker_beat.h"

#include <chrono>

#include "rabit/auth.h"
#include "rabit/protocol.h"

namespace ringboost::rabit {

TrackerBeat::~TrackerBeat() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void TrackerBeat::Park(const std::shared_ptr<TcpSocket>& sock) {
  std::lock_guard<std::mutex> lock(mutex_);
  parked_[sock.get()] = Parked{sock, {}, 0};
  if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
}

// Sends what is left of p->out, waiting up to wait_s (0: only what the kernel takes now).
void TrackerBeat::Flush(Parked* p, double wait_s) {
  if (p->sent < p->out.size()) {
    Status s = p->sock->SendSome(p->out.data(), p->out.size(), &p->sent);
    if (s.ok() && p->sent < p->out.size() && wait_s > 0) {
      s = p->sock->SendAll(p->out.data() + p->sent, p->out.size() - p->sent,
                           Deadline::After(wait_s));
      if (s.ok()) p->sent = p->out.size();
    }
    if (!s.ok()) p->sent = p->out.size();  // a broken connection: its next read tells
  }
  if (p->sent == p->out.size()) {
    p->out.clear();
    p->sent = 0;
  }
}

void TrackerBeat::Unpark(const std::shared_ptr<TcpSocket>& sock) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = parked_.find(sock.get());
  if (it == parked_.end()) return;
  Flush(&it->second, 1.0);  // at most 3 bytes of a beat are left
  parked_.erase(it);
}

void TrackerBeat::AbortAll(const std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string reason = why.substr(0, proto::kMaxAbortBytes);
  for (auto& [key, p] : parked_) {
    p.out += auth::IntBytes(proto::kTrackerAbort) +
             auth::IntBytes(static_cast<int32_t>(reason.size())) + reason;
    Flush(&p, 1.0);
  }
  parked_.clear();
}

void TrackerBeat::Run() {
  const auto interval = std::chrono::duration<double>(interval_s_);
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    for (auto& [key, p] : parked_) {
      if (p.out.empty()) p.out = auth::IntBytes(proto::kTrackerBeat);
      Flush(&p, 0);
    }
    wake_.wait_for(lock, interval, [this] { return stop_; });
  }
}

}  // namespace ringboost::rabit
