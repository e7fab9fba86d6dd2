#include "rabit/communicator.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "rabit/tcp_communicator.h"

namespace ringboost::rabit {

std::size_t SizeOf(DataType type) {
  switch (type) {
    case DataType::kInt32:
      return 4;
    case DataType::kInt64:
      return 8;
    case DataType::kUInt64:
      return 8;
    case DataType::kFloat:
      return 4;
    case DataType::kDouble:
      return 8;
  }
  return 0;
}

namespace {
template <typename T>
void ReduceTyped(T* dst, const T* src, std::size_t n, Op op) {
  switch (op) {
    case Op::kSum:
      for (std::size_t i = 0; i < n; ++i) dst[i] += src[i];
      break;
    case Op::kMax:
      for (std::size_t i = 0; i < n; ++i) dst[i] = std::max(dst[i], src[i]);
      break;
    case Op::kMin:
      for (std::size_t i = 0; i < n; ++i) dst[i] = std::min(dst[i], src[i]);
      break;
    case Op::kBitOr:
      if constexpr (std::is_integral_v<T>) {
        for (std::size_t i = 0; i < n; ++i) dst[i] |= src[i];
      } else {
        RB_CHECK_MSG(false, "bitwise or on a floating-point type");
      }
      break;
  }
}
}  // namespace

void Reduce(void* dst, const void* src, std::size_t count, DataType type, Op op) {
  switch (type) {
    case DataType::kInt32:
      ReduceTyped(static_cast<int32_t*>(dst), static_cast<const int32_t*>(src), count, op);
      break;
    case DataType::kInt64:
      ReduceTyped(static_cast<int64_t*>(dst), static_cast<const int64_t*>(src), count, op);
      break;
    case DataType::kUInt64:
      ReduceTyped(static_cast<uint64_t*>(dst), static_cast<const uint64_t*>(src), count, op);
      break;
    case DataType::kFloat:
      ReduceTyped(static_cast<float*>(dst), static_cast<const float*>(src), count, op);
      break;
    case DataType::kDouble:
      ReduceTyped(static_cast<double*>(dst), static_cast<const double*>(src), count, op);
      break;
  }
}

Status Communicator::ReduceScatterRaw(void* buf, const std::vector<std::size_t>& counts,
                                      DataType type, Op op) {
  if (counts.size() != static_cast<std::size_t>(WorldSize())) {
    return Status::Fail("ReduceScatter: " + std::to_string(counts.size()) +
                        " blocks for a world of " + std::to_string(WorldSize()));
  }
  std::size_t total = 0;
  for (std::size_t c : counts) total += c;
  return AllreduceRaw(buf, total, type, op);
}

Status Communicator::AllgatherRaw(const void* in, std::size_t bytes, void* out) {
  std::vector<char> all;
  Status s = AllgathervRaw(in, bytes, &all);
  if (!s.ok()) return s;
  if (all.size() != bytes * WorldSize()) {
    return Status::Fail("Allgather: ranks sent different sizes");
  }
  if (!all.empty()) std::memcpy(out, all.data(), all.size());
  return Status::OK();
}

bool StartedByMpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr;
}

std::unique_ptr<Communicator> MakeCommunicator(const CommunicatorConfig& config) {
  std::string backend = config.backend;
  if (backend == "auto") {
    bool tracker = std::getenv("DMLC_TRACKER_URI") != nullptr;
    for (const auto& kv : config.args) tracker = tracker || kv.first == "DMLC_TRACKER_URI";
    if (tracker) {
      backend = "tcp";
    } else {
      backend = StartedByMpirun() && MpiBuiltIn() ? "mpi" : "local";
    }
  }
  if (backend == "local") return MakeLocalCommunicator();
  if (backend == "tcp") return MakeTcpCommunicator(ReadTcpSettings(config));
  if (backend == "mpi") {
#if defined(RINGBOOST_USE_MPI)
    return MakeMpiCommunicator();
#else
    RB_FAIL(
        "communicator=mpi: this ringboost was built without MPI (RINGBOOST_USE_MPI=OFF); "
        "allowed here: auto, local");
#endif
  }
  RB_FAIL("communicator=" << backend << ": allowed: auto, local, tcp"
                          << (MpiBuiltIn() ? ", mpi" : ""));
}

bool MpiBuiltIn() {
#if defined(RINGBOOST_USE_MPI)
  return true;
#else
  return false;
#endif
}

}  // namespace ringboost::rabit
