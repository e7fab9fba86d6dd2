// The collective: the one way workers talk (DESIGN.md, "The collective"). A Communicator is
// passed explicitly to whoever needs it; there is no global. Backends (local, mpi, tcp; see
// docs/collective.md) are picked at run time by MakeCommunicator().
//
// Every collective call is made by every rank in the same order with the same sizes. Calls
// return Status for failures of the environment; the typed helpers throw at the top.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/span.h"

namespace ringboost::rabit {

enum class Op : int { kSum = 0, kMax = 1, kMin = 2, kBitOr = 3 };
enum class DataType : int { kInt32 = 0, kInt64 = 1, kUInt64 = 2, kFloat = 3, kDouble = 4 };

template <typename T>
constexpr DataType DataTypeOf();
template <>
constexpr DataType DataTypeOf<int32_t>() {
  return DataType::kInt32;
}
template <>
constexpr DataType DataTypeOf<int64_t>() {
  return DataType::kInt64;
}
template <>
constexpr DataType DataTypeOf<uint64_t>() {
  return DataType::kUInt64;
}
template <>
constexpr DataType DataTypeOf<float>() {
  return DataType::kFloat;
}
template <>
constexpr DataType DataTypeOf<double>() {
  return DataType::kDouble;
}

std::size_t SizeOf(DataType type);
// Element-wise dst = op(dst, src) over `count` elements of `type` (the reduction kernel all
// backends share).
void Reduce(void* dst, const void* src, std::size_t count, DataType type, Op op);

// What the collective calls of one worker cost so far (see WithStats()).
struct CollectiveStats {
  int64_t calls = 0;
  int64_t bytes = 0;  // payload this worker put in: allreduce buffers, broadcasts, its gathers
  int64_t sent = 0;   // bytes this worker wrote on the wire (Communicator::WireBytesSent)
  double seconds = 0;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  // Counters of WithStats(); zero for a bare backend.
  virtual CollectiveStats Stats() const { return {}; }
  virtual int Rank() const = 0;
  virtual int WorldSize() const = 0;
  virtual std::string Backend() const = 0;

  // In place over `count` elements of `type`.
  virtual Status AllreduceRaw(void* buf, std::size_t count, DataType type, Op op) = 0;
  virtual Status BroadcastRaw(void* buf, std::size_t bytes, int root) = 0;
  // In place over sum(counts) elements of `type` laid out rank after rank (counts[r] elements
  // for rank r; counts.size() == WorldSize()): afterwards this rank's block holds op over every
  // rank's copy of that block, and the other blocks are unspecified. By default an allreduce of
  // the whole buffer (which moves twice the bytes).
  virtual Status ReduceScatterRaw(void* buf, const std::vector<std::size_t>& counts, DataType type,
                                  Op op);
  // Gathers `bytes` from each rank into out (WorldSize() * bytes, in rank order). By default
  // through AllgathervRaw, checking that every rank sent the same size.
  virtual Status AllgatherRaw(const void* in, std::size_t bytes, void* out);
  // Gathers a variable number of bytes from each rank; out receives rank 0's bytes first.
  virtual Status AllgathervRaw(const void* in, std::size_t bytes, std::vector<char>* out) = 0;
  // A line for the tracker's log (printed by rank 0's stdout in the local backend).
  virtual Status TrackerPrint(const std::string& message) = 0;
  // Rabit checkpoint trio: LoadCheckPoint returns the version (0 = fresh start) and fills
  // `model` when one exists; CheckPoint stores the state after a round and bumps the version.
  virtual Status LoadCheckPoint(std::string* model, int* version) = 0;
  virtual Status CheckPoint(const std::string& model) = 0;
  virtual int VersionNumber() const = 0;
  // Whether a lost worker is recovered (collectives then may throw RecoveredError, and the
  // caller should CheckPoint after each round); only the tcp backend with rabit_recover.
  virtual bool Recovers() const { return false; }
  // Bytes this worker has written on the wire for collectives so far: tcp counts its links'
  // socket writes; mpi adds, per call, what the bandwidth-optimal algorithm sends per rank on
  // average (mpi_communicator.cc); local 0.
  virtual int64_t WireBytesSent() const { return 0; }
  // Whether a reduce-scatter of `bytes` (int64 cells) and an allgatherv of `gather_bytes` cost
  // less than an allreduce of `bytes` (hist_sync=auto). By default up to kScatterMaxWorkers ranks
  // (beyond, a ring's latency of two passes of N-1 steps outweighs halving the bytes); tcp with
  // the hypercube also beyond, where its cost model says so (rabit::ReduceScatterPays).
  static constexpr int kScatterMaxWorkers = 32;
  virtual bool ReduceScatterPays(std::size_t bytes, std::size_t gather_bytes) const {
    (void)bytes;
    (void)gather_bytes;
    return WorldSize() <= kScatterMaxWorkers;
  }
  virtual Status Shutdown() = 0;

  // Typed helpers; throw ringboost::Error on failure.
  template <typename T>
  void Allreduce(Span<T> data, Op op) {
    ThrowIfError(AllreduceRaw(data.data(), data.size(), DataTypeOf<T>(), op));
  }
  template <typename T>
  void ReduceScatter(Span<T> data, const std::vector<std::size_t>& counts, Op op) {
    ThrowIfError(ReduceScatterRaw(data.data(), counts, DataTypeOf<T>(), op));
  }
  template <typename T>
  T AllreduceValue(T value, Op op) {
    Allreduce(Span<T>(&value, 1), op);
    return value;
  }
  template <typename T>
  void Broadcast(Span<T> data, int root) {
    ThrowIfError(BroadcastRaw(data.data(), data.size_bytes(), root));
  }
};

// A Communicator whose checkpoint lives in this process's memory (local, and mpi until the
// fault-tolerance issue gives MPI jobs a checkpoint file).
class InMemoryCheckpointCommunicator : public Communicator {
 public:
  Status LoadCheckPoint(std::string* model, int* version) override {
    if (version_ > 0) *model = checkpoint_;
    *version = version_;
    return Status::OK();
  }
  Status CheckPoint(const std::string& model) override {
    checkpoint_ = model;
    ++version_;
    return Status::OK();
  }
  int VersionNumber() const override { return version_; }

 protected:
  std::string checkpoint_;
  int version_{0};
};

// Settings of the collective: `key=value` arguments first, then the environment (as rabit).
struct CommunicatorConfig {
  std::string backend = "auto";  // auto | local | mpi | tcp
  std::vector<std::pair<std::string, std::string>> args;
};

// The backend named by `config.backend`; auto picks tcp when DMLC_TRACKER_URI is set (argument
// or environment), mpi when started by mpirun and MPI is built in, local otherwise.
std::unique_ptr<Communicator> MakeCommunicator(const CommunicatorConfig& config);
// `inner` with every collective counted (calls, payload bytes, wall time) in Stats().
std::unique_ptr<Communicator> WithStats(std::unique_ptr<Communicator> inner);
// A world of one.
std::unique_ptr<Communicator> MakeLocalCommunicator();
// MPI_COMM_WORLD (only in builds with MPI; MpiBuiltIn() tells).
std::unique_ptr<Communicator> MakeMpiCommunicator();
bool MpiBuiltIn();
// Whether mpirun started this process (OMPI_COMM_WORLD_SIZE or PMI_SIZE is set).
bool StartedByMpirun();

}  // namespace ringboost::rabit
