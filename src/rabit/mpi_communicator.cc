// The `mpi` backend: MPI_COMM_WORLD of Open MPI. Built only with MPI (CMake drops mpi_*.cc
// otherwise). MPI is initialised once, by the first communicator, with MPI_THREAD_FUNNELED (only
// the driving thread calls MPI), and finalised by Shutdown(), which the tasks call at the end of
// main, never from a destructor. Errors come back as Status with MPI's own text.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>

#include "rabit/communicator.h"

namespace ringboost::rabit {
namespace {

Status MpiStatus(int code, const std::string& call) {
  if (code == MPI_SUCCESS) return Status::OK();
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return Status::Fail(call + " failed: " + std::string(text, len) + " (MPI error " +
                      std::to_string(code) + ")");
}

MPI_Datatype MpiType(DataType type) {
  switch (type) {
    case DataType::kInt32:
      return MPI_INT32_T;
    case DataType::kInt64:
      return MPI_INT64_T;
    case DataType::kUInt64:
      return MPI_UINT64_T;
    case DataType::kFloat:
      return MPI_FLOAT;
    case DataType::kDouble:
      return MPI_DOUBLE;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op MpiOp(Op op) {
  switch (op) {
    case Op::kSum:
      return MPI_SUM;
    case Op::kMax:
      return MPI_MAX;
    case Op::kMin:
      return MPI_MIN;
    case Op::kBitOr:
      return MPI_BOR;
  }
  return MPI_OP_NULL;
}

// MPI counts are int: larger buffers go in pieces of this many elements.
constexpr std::size_t kMaxMpiCount = INT_MAX;

class MpiCommunicator : public InMemoryCheckpointCommunicator {
 public:
  MpiCommunicator() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      int provided = 0;
      ThrowIfError(MpiStatus(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided),
                             "MPI_Init_thread"));
      owns_mpi_ = true;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }

  int Rank() const override { return rank_; }
  int WorldSize() const override { return size_; }
  std::string Backend() const override { return "mpi"; }

  Status AllreduceRaw(void* buf, std::size_t count, DataType type, Op op) override {
    if (op == Op::kBitOr && (type == DataType::kFloat || type == DataType::kDouble)) {
      return Status::Fail("Allreduce: bitwise or of floating-point values");
    }
    char* p = static_cast<char*>(buf);
    for (std::size_t done = 0; done < count;) {
      const std::size_t n = std::min(count - done, kMaxMpiCount);
      Status s = MpiStatus(MPI_Allreduce(MPI_IN_PLACE, p + done * SizeOf(type), static_cast<int>(n),
                                         MpiType(type), MpiOp(op), MPI_COMM_WORLD),
                           "MPI_Allreduce");
      if (!s.ok()) return s.Wrap("rank " + std::to_string(rank_));
      done += n;
    }
    AddSent(2 * count * SizeOf(type));
    return Status::OK();
  }

  // MPI_Reduce_scatter_block with the allreduce's MPI_Op and type over blocks padded to the
  // largest; over INT_MAX elements in all, the allreduce instead.
  Status ReduceScatterRaw(void* buf, const std::vector<std::size_t>& counts, DataType type,
                          Op op) override {
    if (counts.size() != static_cast<std::size_t>(size_)) {
      return Status::Fail("ReduceScatter: " + std::to_string(counts.size()) +
                          " blocks for a world of " + std::to_string(size_));
    }
    if (op == Op::kBitOr && (type == DataType::kFloat || type == DataType::kDouble)) {
      return Status::Fail("ReduceScatter: bitwise or of floating-point values");
    }
    std::size_t largest = 0, mine = 0;
    for (int r = 0; r < size_; ++r) {
      largest = std::max(largest, counts[r]);
      if (r < rank_) mine += counts[r];
    }
    if (largest * size_ > kMaxMpiCount)
      return Communicator::ReduceScatterRaw(buf, counts, type, op);
    const std::size_t esize = SizeOf(type);
    std::vector<char> block(largest * esize);
    // Blocks padded to the largest: Open MPI's MPI_Reduce_scatter with unequal counts took 2.3x
    // the allreduce's time in training at 8 ranks, the block form 1.1x (docs/collective.md).
    std::vector<char> padded(largest * size_ * esize, 0);
    const char* in = static_cast<const char*>(buf);
    for (int r = 0; r < size_; ++r) {
      std::memcpy(padded.data() + r * largest * esize, in, counts[r] * esize);
      in += counts[r] * esize;
    }
    Status s =
        MpiStatus(MPI_Reduce_scatter_block(padded.data(), block.data(), static_cast<int>(largest),
                                           MpiType(type), MpiOp(op), MPI_COMM_WORLD),
                  "MPI_Reduce_scatter_block");
    if (!s.ok()) return s.Wrap("rank " + std::to_string(rank_));
    if (counts[rank_] > 0)
      std::memcpy(static_cast<char*>(buf) + mine * esize, block.data(), counts[rank_] * esize);
    AddSent(largest * size_ * esize);
    return Status::OK();
  }

  Status BroadcastRaw(void* buf, std::size_t bytes, int root) override {
    if (root < 0 || root >= size_) {
      return Status::Fail("Broadcast: root " + std::to_string(root) + " outside a world of " +
                          std::to_string(size_));
    }
    char* p = static_cast<char*>(buf);
    for (std::size_t done = 0; done < bytes;) {
      const std::size_t n = std::min(bytes - done, kMaxMpiCount);
      Status s = MpiStatus(MPI_Bcast(p + done, static_cast<int>(n), MPI_BYTE, root, MPI_COMM_WORLD),
                           "MPI_Bcast");
      if (!s.ok()) return s.Wrap("rank " + std::to_string(rank_));
      done += n;
    }
    AddSent(bytes);
    return Status::OK();
  }

  Status AllgathervRaw(const void* in, std::size_t bytes, std::vector<char>* out) override {
    std::vector<int64_t> sizes(size_);
    int64_t mine = static_cast<int64_t>(bytes);
    Status s = MpiStatus(
        MPI_Allgather(&mine, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, MPI_COMM_WORLD),
        "MPI_Allgather");
    if (!s.ok()) return s.Wrap("rank " + std::to_string(rank_));
    std::vector<int> counts(size_), displs(size_);
    int64_t total = 0;
    for (int r = 0; r < size_; ++r) {
      if (total + sizes[r] > INT_MAX) {
        return Status::Fail("Allgatherv: " + std::to_string(total + sizes[r]) +
                            " bytes in all, more than MPI_Allgatherv takes at once");
      }
      counts[r] = static_cast<int>(sizes[r]);
      displs[r] = static_cast<int>(total);
      total += sizes[r];
    }
    out->resize(static_cast<std::size_t>(total));
    s = MpiStatus(MPI_Allgatherv(in, static_cast<int>(bytes), MPI_BYTE, out->data(), counts.data(),
                                 displs.data(), MPI_BYTE, MPI_COMM_WORLD),
                  "MPI_Allgatherv");
    AddSent(static_cast<std::size_t>(total) + sizeof(int64_t) * size_);
    return s.ok() ? s : s.Wrap("rank " + std::to_string(rank_));
  }

  int64_t WireBytesSent() const override { return sent_; }

  Status TrackerPrint(const std::string& message) override {
    std::string line = "[rank " + std::to_string(rank_) + "] " + message;
    if (line.back() != '\n') line += '\n';
    std::fputs(line.c_str(), stderr);
    return Status::OK();
  }

  Status Shutdown() override {
    if (!owns_mpi_) return Status::OK();
    owns_mpi_ = false;
    return MpiStatus(MPI_Finalize(), "MPI_Finalize");
  }

 private:
  int rank_ = 0;
  int size_ = 1;
  bool owns_mpi_ = false;
  int64_t sent_ = 0;

  // Open MPI does not say what it wrote, so each call adds what the bandwidth-optimal algorithm
  // sends per rank on average for a call whose buffer is `bytes` and would send once around a
  // ring: (P-1)/P of it (a broadcast, a gather, a reduce-scatter); an allreduce passes 2 x bytes
  // (reduce-scatter then allgather). Open MPI's own choice (recursive doubling for small
  // messages, binomial trees) sends as much or more.
  void AddSent(std::size_t bytes) {
    sent_ +=
        static_cast<int64_t>(bytes / size_ * (size_ - 1) + bytes % size_ * (size_ - 1) / size_);
  }
};

}  // namespace

std::unique_ptr<Communicator> MakeMpiCommunicator() { return std::make_unique<MpiCommunicator>(); }

}  // namespace ringboost::rabit
