// The tcp communicator's calls (each retried through recovery with rabit_recover), the tracker's
// print and shutdown, the recovery itself, and MakeTcpCommunicator.
#include "rabit/tcp_communicator.h"

#include <csignal>
#include <cstdio>

#include "common/logging.h"
#include "rabit/tcp_communicator_impl.h"

namespace ringboost::rabit {

template <typename Call>
Status TcpCommunicator::Robust(const char* what, Call call) {
  MaybeDie();
  ++seq_;
  Status s = call();
  // A peer that does not answer is not a dead one: timeouts end the job (never a hang).
  if (s.ok() || !settings_.recover || s.timed_out()) return s;
  constexpr int kMaxRecoveries = 8;
  for (int attempt = 1;; ++attempt) {
    RB_LOG(kWarning,
           s.message() << "; re-linking through the tracker (recovery " << attempt << ")");
    Status r = Recover();
    if (r.ok()) {
      return Status::Recovered(Where() + ": a worker was lost during " + what +
                               "; all resume from checkpoint " + std::to_string(version_));
    }
    if (r.timed_out() || attempt == kMaxRecoveries) return r.Wrap(Where() + ": recovery failed");
    s = r;
  }
}

Status TcpCommunicator::AllreduceRaw(void* buf, std::size_t count, DataType type, Op op) {
  return Robust("Allreduce", [&] { return AllreduceOnce(buf, count, type, op); });
}
Status TcpCommunicator::ReduceScatterRaw(void* buf, const std::vector<std::size_t>& counts,
                                         DataType type, Op op) {
  return Robust("ReduceScatter", [&] { return ReduceScatterOnce(buf, counts, type, op); });
}
Status TcpCommunicator::BroadcastRaw(void* buf, std::size_t bytes, int root) {
  return Robust("Broadcast", [&] { return BroadcastOnce(buf, bytes, root); });
}
Status TcpCommunicator::AllgathervRaw(const void* in, std::size_t bytes, std::vector<char>* out) {
  return Robust("Allgatherv", [&] { return AllgathervOnce(in, bytes, out); });
}

Status TcpCommunicator::TrackerPrint(const std::string& message) {
  TcpSocket tracker;
  Status s = ConnectTracker(proto::kPrint, &tracker);
  if (s.ok()) s = proto::SendStr(&tracker, message, Wait());
  return s.Wrap(Where() + ": TrackerPrint");
}

// Tells the tracker this worker is done, then closes the links (all collectives are over).
Status TcpCommunicator::Shutdown() {
  if (shut_down_) return Status::OK();
  shut_down_ = true;
  TcpSocket tracker;
  Status s = ConnectTracker(proto::kShutdown, &tracker);
  heartbeat_.Clear();
  DropLinks();
  return s.Wrap(Where() + ": Shutdown");
}

// ---- recovery -----------------------------------------------------------------------------------

void TcpCommunicator::MaybeDie() const {
  for (const auto& m : settings_.mock) {
    if (m[0] == rank_ && m[1] == version_ && m[2] == seq_ && m[3] == settings_.num_attempt) {
      std::fprintf(stderr, "[ringboost] %s: rabit_mock kills this worker (version %d, call %d)\n",
                   Where().c_str(), version_, seq_);
      std::fflush(stderr);
      raise(SIGKILL);
    }
  }
}

// Closes every link (so that the peers notice too), links again through the tracker
// (`recover`: same rank; the restarted worker comes with `start` and its task id), then all agree
// on the newest checkpoint.
void TcpCommunicator::DropLinks() {
  retired_sent_ = WireBytesSent();
  links_.clear();
}

Status TcpCommunicator::Recover() {
  heartbeat_.Clear();
  DropLinks();
  recovering_ = true;
  Status s = Link(proto::kRecover);
  recovering_ = false;
  return s.ok() ? AgreeOnCheckpoint() : s;
}

// The newest checkpoint any rank holds (every worker holds the same model after the same round;
// a failure in the last collective of a round can leave some one checkpoint ahead) is broadcast
// from the lowest rank holding it; everyone continues from there.
Status TcpCommunicator::AgreeOnCheckpoint() {
  int64_t newest = version_;
  Status s = AllreduceOnce(&newest, 1, DataType::kInt64, Op::kMax);
  int64_t holder = version_ == newest ? rank_ : world_;
  if (s.ok()) s = AllreduceOnce(&holder, 1, DataType::kInt64, Op::kMin);
  int64_t size = static_cast<int64_t>(checkpoint_.size());
  if (s.ok() && (newest < 0 || holder < 0 || holder >= world_)) {
    s = Status::Fail(Where() + ": peers agreed on checkpoint " + std::to_string(newest) +
                     " held by rank " + std::to_string(holder) + ", which is impossible");
  }
  if (s.ok()) s = BroadcastOnce(&size, sizeof(size), static_cast<int>(holder));
  if (s.ok() && (size < 0 || size > proto::kMaxCheckpointBytes)) {
    s = Status::Fail(Where() + ": rank " + std::to_string(holder) + " announced a checkpoint of " +
                     std::to_string(size) + " bytes (allowed: 0 to " +
                     std::to_string(proto::kMaxCheckpointBytes) + ")");
  }
  if (!s.ok()) return s;
  std::string agreed =
      rank_ == holder ? checkpoint_ : std::string(static_cast<std::size_t>(size), '\0');
  s = BroadcastOnce(agreed.data(), agreed.size(), static_cast<int>(holder));
  if (!s.ok()) return s;
  checkpoint_ = std::move(agreed);
  version_ = static_cast<int>(newest);
  seq_ = 0;
  RB_LOG(kWarning, Where() << ": linked again; the job resumes from checkpoint " << version_);
  return Status::OK();
}

std::unique_ptr<Communicator> MakeTcpCommunicator(const TcpSettings& settings) {
  auto comm = std::make_unique<TcpCommunicator>(settings);
  ThrowIfError(comm->Init());
  return comm;
}

}  // namespace ringboost::rabit
