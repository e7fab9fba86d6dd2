#include "rabit/heartbeat.h"

#include <chrono>

namespace ringboost::rabit {

Heartbeat::~Heartbeat() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::shared_ptr<const Liveness> Heartbeat::Add(int rank, TcpSocket sock, double timeout_s) {
  auto liveness = std::make_shared<Liveness>(timeout_s);
  std::lock_guard<std::mutex> lock(mutex_);
  links_[rank] = Link{std::move(sock), liveness, false};
  if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
  return liveness;
}

void Heartbeat::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  links_.clear();
}

// One beat out, and whatever the peer sent since the last one in (non-blocking both: a peer
// whose buffers are full is not waited for). A closed link beats no more and is never stamped
// again; the data link's own failure then tells what happened.
void Heartbeat::Beat(Link* link) {
  if (link->closed) return;
  const char beat = 0;
  std::size_t sent = 0;
  Status s = link->sock.SendSome(&beat, 1, &sent);
  for (int i = 0; s.ok() && i < 64; ++i) {
    char in[256];
    std::size_t got = 0;
    s = link->sock.RecvSome(in, sizeof(in), &got);
    if (got == 0) break;
    link->liveness->Heard();
  }
  if (!s.ok()) link->closed = true;
}

void Heartbeat::Run() {
  const auto interval = std::chrono::duration<double>(interval_s_);
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    for (auto& [rank, link] : links_) Beat(&link);
    wake_.wait_for(lock, interval, [this] { return stop_; });
  }
}

}  // namespace ringboost::rabit
