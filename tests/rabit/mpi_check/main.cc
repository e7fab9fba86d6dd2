// Run under mpirun by tests/rabit/test_mpi.cc: every collective of the mpi backend, every op and
// type, against a reference computed from what every rank holds. Prints "rank R ok" and exits 0,
// or names the first mismatch and exits 1.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "rabit/communicator.h"

namespace ringboost::rabit {
namespace {

// Rank r's i-th value of a test buffer: small integers, exact in every type.
template <typename T>
T Value(int rank, std::size_t i) {
  return static_cast<T>(static_cast<int64_t>((i * 7 + rank * 13) % 23) - 11 * (rank % 2));
}

template <typename T>
T Fold(T a, T b, Op op) {
  switch (op) {
    case Op::kSum:
      return a + b;
    case Op::kMax:
      return a > b ? a : b;
    case Op::kMin:
      return a < b ? a : b;
    case Op::kBitOr:
      if constexpr (std::is_integral_v<T>) return a | b;
  }
  return a;
}

template <typename T>
bool CheckAllreduce(Communicator* comm, Op op, std::size_t n, const char* name) {
  std::vector<T> buf(n);
  for (std::size_t i = 0; i < n; ++i) buf[i] = Value<T>(comm->Rank(), i);
  comm->Allreduce(Span<T>(buf), op);
  for (std::size_t i = 0; i < n; ++i) {
    T want = Value<T>(0, i);
    for (int r = 1; r < comm->WorldSize(); ++r) want = Fold(want, Value<T>(r, i), op);
    if (buf[i] != want) {
      std::printf("rank %d: Allreduce %s op %d n %zu: element %zu is %g, want %g\n", comm->Rank(),
                  name, static_cast<int>(op), n, i, static_cast<double>(buf[i]),
                  static_cast<double>(want));
      return false;
    }
  }
  return true;
}

template <typename T>
bool CheckType(Communicator* comm, const char* name, bool bit_or) {
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{1} << 20}) {
    for (Op op : {Op::kSum, Op::kMax, Op::kMin, Op::kBitOr}) {
      if (op == Op::kBitOr && !bit_or) continue;
      if (!CheckAllreduce<T>(comm, op, n, name)) return false;
    }
  }
  return true;
}

bool CheckBroadcastAndGather(Communicator* comm) {
  const int root = comm->WorldSize() - 1;
  std::vector<int64_t> b(5000, comm->Rank() == root ? 42 : -1);
  comm->Broadcast(Span<int64_t>(b), root);
  for (int64_t v : b) {
    if (v != 42)
      return std::printf("rank %d: Broadcast got %lld\n", comm->Rank(), (long long)v), false;
  }
  // Allgatherv: rank r sends r + 1 bytes of value r.
  std::string mine(comm->Rank() + 1, static_cast<char>('a' + comm->Rank()));
  std::vector<char> all;
  ThrowIfError(comm->AllgathervRaw(mine.data(), mine.size(), &all));
  std::string want;
  for (int r = 0; r < comm->WorldSize(); ++r)
    want += std::string(r + 1, static_cast<char>('a' + r));
  if (std::string(all.begin(), all.end()) != want) {
    return std::printf("rank %d: Allgatherv got %s\n", comm->Rank(), all.data()), false;
  }
  int32_t rank = comm->Rank();
  std::vector<int32_t> ranks(comm->WorldSize());
  ThrowIfError(comm->AllgatherRaw(&rank, sizeof(rank), ranks.data()));
  for (int r = 0; r < comm->WorldSize(); ++r) {
    if (ranks[r] != r)
      return std::printf("rank %d: Allgather slot %d = %d\n", rank, r, ranks[r]), false;
  }
  return true;
}

int Run() {
  auto comm = MakeCommunicator(CommunicatorConfig{});  // auto: mpi under mpirun
  if (comm->Backend() != "mpi") {
    std::printf("auto picked %s, not mpi\n", comm->Backend().c_str());
    return 1;
  }
  bool ok = CheckType<int32_t>(comm.get(), "int32", true) &&
            CheckType<int64_t>(comm.get(), "int64", true) &&
            CheckType<uint64_t>(comm.get(), "uint64", true) &&
            CheckType<float>(comm.get(), "float", false) &&
            CheckType<double>(comm.get(), "double", false) && CheckBroadcastAndGather(comm.get());
  if (ok) std::printf("rank %d of %d ok\n", comm->Rank(), comm->WorldSize());
  std::fflush(stdout);
  ThrowIfError(comm->Shutdown());
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace ringboost::rabit

int main() {
  try {
    return ringboost::rabit::Run();
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
