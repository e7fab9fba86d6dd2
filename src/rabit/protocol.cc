#include "rabit/protocol.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "rabit/auth.h"

namespace ringboost::rabit::proto {

Status SendInt(TcpSocket* sock, int32_t value, Deadline deadline) {
  return sock->SendAll(&value, sizeof(value), deadline);
}

Status RecvInt(TcpSocket* sock, int32_t* value, Deadline deadline) {
  return sock->RecvAll(value, sizeof(*value), deadline);
}

Status SendStr(TcpSocket* sock, const std::string& value, Deadline deadline) {
  Status s = SendInt(sock, static_cast<int32_t>(value.size()), deadline);
  if (!s.ok() || value.empty()) return s;
  return sock->SendAll(value.data(), value.size(), deadline);
}

Status RecvStr(TcpSocket* sock, std::string* value, Deadline deadline, int32_t max_bytes) {
  int32_t length = 0;
  Status s = RecvInt(sock, &length, deadline);
  if (!s.ok()) return s;
  if (length < 0 || length > max_bytes) {
    return Status::Fail("a string of " + std::to_string(length) + " bytes from " + sock->peer() +
                        " is refused (allowed: 0 to " + std::to_string(max_bytes) + ")");
  }
  value->assign(static_cast<std::size_t>(length), '\0');
  if (length == 0) return Status::OK();
  return sock->RecvAll(value->data(), value->size(), deadline);
}

namespace {

Status CheckAssignment(const std::string& tracker, const Assignment& a,
                       const std::set<int>& neighbours) {
  auto fail = [&](const std::string& what) {
    return Status::Fail(tracker + " gave rank " + std::to_string(a.rank) + " " + what);
  };
  if (a.next != (a.rank + 1) % a.world || a.prev != (a.rank + a.world - 1) % a.world) {
    return fail("the ring neighbours " + std::to_string(a.prev) + " and " + std::to_string(a.next) +
                "; ringboost needs the ring in rank order");
  }
  if (a.parent != -1 && std::find(a.tree.begin(), a.tree.end(), a.parent) == a.tree.end()) {
    return fail("the parent " + std::to_string(a.parent) + ", not one of its tree neighbours");
  }
  for (int r : neighbours) {
    if (r < 0 || r >= a.world || r == a.rank) {
      return fail("an invalid neighbour rank " + std::to_string(r));
    }
  }
  return Status::OK();
}

}  // namespace

Status TrackerSilent(const std::string& tracker, double silent_s, const TrackerLiveness& l) {
  char text[200];
  std::snprintf(text, sizeof(text),
                ": no sign of life for %.1f s (limit %.1f s, rabit_peer_timeout_sec) while this "
                "worker waits for ",
                silent_s, l.silence_s);
  return Status::Timeout(tracker + text + l.waiting + ": the tracker is stopped, hung or cut off");
}

namespace {

// The tracker's kTrackerAbort: its reason, as this worker's failure.
Status AbortFrom(TcpSocket* tracker, Deadline deadline) {
  std::string why;
  Status s = RecvStr(tracker, &why, deadline, kMaxAbortBytes);
  if (!s.ok()) return s;
  return Status::Fail(tracker->peer() + " ended the link-up: " + why);
}

// The first int of the assignment, after the beats of a proven worker's tracker.
Status RecvFirst(TcpSocket* tracker, Deadline deadline, const TrackerLiveness* watch,
                 int32_t* first) {
  if (watch == nullptr) return RecvInt(tracker, first, deadline);
  for (;;) {
    const int64_t since = Liveness::NowMs();
    Status s = RecvInt(tracker, first, Deadline::After(watch->silence_s));
    if (s.timed_out() && !deadline.Expired()) {
      return TrackerSilent(tracker->peer(), (Liveness::NowMs() - since) / 1000.0, *watch);
    }
    if (!s.ok() || *first != kTrackerBeat) {
      return s.ok() && *first == kTrackerAbort ? AbortFrom(tracker, deadline) : s;
    }
    if (deadline.Expired()) return Status::Timeout("waiting for " + tracker->peer() + " timed out");
  }
}

}  // namespace

TrackerWatch::TrackerWatch(TcpSocket* tracker, TrackerLiveness liveness)
    : tracker_(tracker), liveness_(std::move(liveness)), last_heard_ms_(Liveness::NowMs()) {}

Status TrackerWatch::Check() {
  if (closed_) return Status::OK();
  for (;;) {
    char buf[256];
    std::size_t got = 0;
    Status s = tracker_->RecvSome(buf, sizeof(buf), &got);
    in_.append(buf, got);
    if (!s.ok()) {  // the tracker closed its side: every peer of ours has linked
      closed_ = true;
      break;
    }
    if (got == 0) break;
    last_heard_ms_ = Liveness::NowMs();
  }
  while (in_.size() >= sizeof(int32_t)) {
    int32_t v = 0;
    std::memcpy(&v, in_.data(), sizeof(v));
    if (v == kTrackerAbort) {
      // The reason follows: a length (bounded) and that many bytes, perhaps in a later read.
      int32_t length = -1;
      if (in_.size() >= 2 * sizeof(int32_t)) std::memcpy(&length, in_.data() + 4, sizeof(length));
      const bool bad = length < -1 || length > kMaxAbortBytes;
      const std::size_t need = 2 * sizeof(int32_t) + static_cast<std::size_t>(std::max(length, 0));
      if (!bad && (length < 0 || in_.size() < need) && !closed_) break;  // the rest is coming
      const std::string why =
          !bad && in_.size() >= need && length >= 0
              ? in_.substr(2 * sizeof(int32_t), static_cast<std::size_t>(length))
              : std::string("(its reason was cut off)");
      return Status::Fail(tracker_->peer() + " ended the link-up: " + why);
    }
    if (v != kTrackerBeat) {
      return Status::Fail(tracker_->peer() + " sent " + std::to_string(v) +
                          " while this worker waits for its peers, not a beat");
    }
    in_.erase(0, sizeof(v));
  }
  const double silent_s = (Liveness::NowMs() - last_heard_ms_) / 1000.0;
  if (!closed_ && silent_s > liveness_.silence_s) {
    return TrackerSilent(tracker_->peer(), silent_s, liveness_);
  }
  return Status::OK();
}

Status RecvAssignment(TcpSocket* tracker, Deadline deadline, Assignment* a,
                      std::set<int>* neighbours, const TrackerLiveness* watch) {
  int32_t count = 0;
  Status s = RecvFirst(tracker, deadline, watch, &a->rank);
  if (!s.ok() && watch != nullptr) return s;
  if (!s.ok()) {
    return s.Wrap(
        "no rank from the tracker (a tracker that requires a job token closes the "
        "connection of a worker without it; RINGBOOST_JOB_TOKEN)");
  }
  if (s.ok()) s = RecvInt(tracker, &a->parent, deadline);
  if (s.ok()) s = RecvInt(tracker, &a->world, deadline);
  if (s.ok()) s = RecvInt(tracker, &count, deadline);
  if (!s.ok()) return s;
  if (a->world < 1 || a->world > kMaxWorldSize || a->rank < 0 || a->rank >= a->world || count < 0 ||
      count > std::min(a->world - 1, kMaxTreeNeighbours)) {
    return Status::Fail(tracker->peer() + " sent an invalid assignment: rank " +
                        std::to_string(a->rank) + ", world size " + std::to_string(a->world) +
                        ", " + std::to_string(count) + " neighbours");
  }
  a->tree.clear();
  for (int i = 0; i < count && s.ok(); ++i) {
    int32_t r = 0;
    s = RecvInt(tracker, &r, deadline);
    a->tree.push_back(r);
  }
  if (s.ok()) s = RecvInt(tracker, &a->prev, deadline);
  if (s.ok()) s = RecvInt(tracker, &a->next, deadline);
  if (!s.ok()) return s;
  if (a->prev < 0) a->prev = a->rank;
  if (a->next < 0) a->next = a->rank;
  neighbours->clear();
  neighbours->insert(a->tree.begin(), a->tree.end());
  if (a->prev != a->rank) neighbours->insert(a->prev);
  if (a->next != a->rank) neighbours->insert(a->next);
  return CheckAssignment(tracker->peer(), *a, *neighbours);
}

std::string TaskIdWithToken(const std::string& task_id, const std::string& token) {
  std::string bare;
  // ringboost-submit already puts the token in DMLC_TASK_ID (for foreign workers' sake).
  if (token.empty() || TaskIdHasToken(task_id, token, &bare)) return task_id;
  return task_id + ":" + token;
}

bool TaskIdHasToken(const std::string& task_id, const std::string& token, std::string* bare_id) {
  if (token.empty()) {
    *bare_id = task_id;
    return true;
  }
  // Constant time (auth::SameSecret): a stranger's timing tells nothing about the token.
  const std::string suffix = ":" + token;
  const std::size_t cut = task_id.size() >= suffix.size() ? task_id.size() - suffix.size() : 0;
  if (!auth::SameSecret(std::string_view(task_id).substr(cut), suffix)) return false;
  *bare_id = task_id.substr(0, task_id.size() - suffix.size());
  return true;
}

}  // namespace ringboost::rabit::proto
