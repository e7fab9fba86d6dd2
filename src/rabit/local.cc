// The `local` backend: a world of one. Collectives are identities; the checkpoint lives in
// memory.
#include <cstdio>
#include <cstring>

#include "rabit/communicator.h"

namespace ringboost::rabit {
namespace {

class LocalCommunicator : public InMemoryCheckpointCommunicator {
 public:
  int Rank() const override { return 0; }
  int WorldSize() const override { return 1; }
  std::string Backend() const override { return "local"; }
  Status AllreduceRaw(void*, std::size_t, DataType, Op) override { return Status::OK(); }
  Status BroadcastRaw(void*, std::size_t, int root) override {
    return root == 0
               ? Status::OK()
               : Status::Fail("Broadcast: root " + std::to_string(root) + " outside a world of 1");
  }
  Status AllgatherRaw(const void* in, std::size_t bytes, void* out) override {
    if (bytes != 0) std::memcpy(out, in, bytes);
    return Status::OK();
  }
  Status AllgathervRaw(const void* in, std::size_t bytes, std::vector<char>* out) override {
    const char* p = static_cast<const char*>(in);
    out->assign(p, p + bytes);
    return Status::OK();
  }
  Status TrackerPrint(const std::string& message) override {
    std::fputs(message.c_str(), stderr);
    if (message.empty() || message.back() != '\n') std::fputc('\n', stderr);
    return Status::OK();
  }
  Status Shutdown() override { return Status::OK(); }

 private:
};

}  // namespace

std::unique_ptr<Communicator> MakeLocalCommunicator() {
  return std::make_unique<LocalCommunicator>();
}

}  // namespace ringboost::rabit
