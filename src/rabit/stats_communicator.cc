// WithStats(): a communicator that forwards every call and counts what the collectives cost, for
// the training log (share of time in communication, bytes per round).
#include <chrono>

#include "rabit/communicator.h"

namespace ringboost::rabit {
namespace {

class StatsCommunicator : public Communicator {
 public:
  explicit StatsCommunicator(std::unique_ptr<Communicator> inner) : inner_(std::move(inner)) {}

  CollectiveStats Stats() const override {
    CollectiveStats s = stats_;
    s.sent = inner_->WireBytesSent();
    return s;
  }
  int64_t WireBytesSent() const override { return inner_->WireBytesSent(); }
  int Rank() const override { return inner_->Rank(); }
  int WorldSize() const override { return inner_->WorldSize(); }
  std::string Backend() const override { return inner_->Backend(); }

  Status AllreduceRaw(void* buf, std::size_t count, DataType type, Op op) override {
    return Count(count * SizeOf(type), [&] { return inner_->AllreduceRaw(buf, count, type, op); });
  }
  Status ReduceScatterRaw(void* buf, const std::vector<std::size_t>& counts, DataType type,
                          Op op) override {
    std::size_t total = 0;
    for (std::size_t c : counts) total += c;
    return Count(total * SizeOf(type),
                 [&] { return inner_->ReduceScatterRaw(buf, counts, type, op); });
  }
  Status BroadcastRaw(void* buf, std::size_t bytes, int root) override {
    return Count(bytes, [&] { return inner_->BroadcastRaw(buf, bytes, root); });
  }
  Status AllgatherRaw(const void* in, std::size_t bytes, void* out) override {
    return Count(bytes, [&] { return inner_->AllgatherRaw(in, bytes, out); });
  }
  Status AllgathervRaw(const void* in, std::size_t bytes, std::vector<char>* out) override {
    return Count(bytes, [&] { return inner_->AllgathervRaw(in, bytes, out); });
  }
  Status TrackerPrint(const std::string& message) override { return inner_->TrackerPrint(message); }
  Status LoadCheckPoint(std::string* model, int* version) override {
    return inner_->LoadCheckPoint(model, version);
  }
  Status CheckPoint(const std::string& model) override { return inner_->CheckPoint(model); }
  int VersionNumber() const override { return inner_->VersionNumber(); }
  bool Recovers() const override { return inner_->Recovers(); }
  bool ReduceScatterPays(std::size_t bytes, std::size_t gather_bytes) const override {
    return inner_->ReduceScatterPays(bytes, gather_bytes);
  }
  Status Shutdown() override { return inner_->Shutdown(); }

 private:
  template <typename Call>
  Status Count(std::size_t bytes, Call call) {
    const auto start = std::chrono::steady_clock::now();
    Status s = call();
    stats_.seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stats_.calls += 1;
    stats_.bytes += static_cast<int64_t>(bytes);
    return s;
  }

  std::unique_ptr<Communicator> inner_;
  CollectiveStats stats_;
};

}  // namespace

std::unique_ptr<Communicator> WithStats(std::unique_ptr<Communicator> inner) {
  return std::make_unique<StatsCommunicator>(std::move(inner));
}

}  // namespace ringboost::rabit
