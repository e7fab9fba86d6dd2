// Every collective of a Communicator (allreduce, reduce-scatter, broadcast, gathers), every op and
// type, checked against a reference computed from what each rank holds. Shared by the in-process
// tcp tests (worker threads) and the rabit_check program that mpirun and the trackers start as real
// processes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "rabit/communicator.h"

namespace ringboost::rabit::test {

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

// "" when the allreduce of n elements matches the reference, else what differs.
template <typename T>
std::string CheckAllreduce(Communicator* comm, Op op, std::size_t n, const char* name) {
  std::vector<T> buf(n);
  for (std::size_t i = 0; i < n; ++i) buf[i] = Value<T>(comm->Rank(), i);
  comm->Allreduce(Span<T>(buf), op);
  for (std::size_t i = 0; i < n; ++i) {
    T want = Value<T>(0, i);
    for (int r = 1; r < comm->WorldSize(); ++r) want = Fold(want, Value<T>(r, i), op);
    if (buf[i] != want) {
      return "rank " + std::to_string(comm->Rank()) + ": Allreduce " + name + " op " +
             std::to_string(static_cast<int>(op)) + " n " + std::to_string(n) + ": element " +
             std::to_string(i) + " is " + std::to_string(static_cast<double>(buf[i])) + ", want " +
             std::to_string(static_cast<double>(want));
    }
  }
  return "";
}

// Blocks of a reduce-scatter of about n elements: rank r's is n + 3 r elements, rank 1's empty.
inline std::vector<std::size_t> ScatterBlocks(int world, std::size_t n) {
  std::vector<std::size_t> counts(world);
  for (int r = 0; r < world; ++r) counts[r] = r == 1 ? 0 : n + 3 * r;
  return counts;
}

// "" when this rank's block of a reduce-scatter over ScatterBlocks(n) matches the reference.
template <typename T>
std::string CheckReduceScatter(Communicator* comm, Op op, std::size_t n, const char* name) {
  const std::vector<std::size_t> counts = ScatterBlocks(comm->WorldSize(), n);
  std::size_t total = 0, first = 0;
  for (int r = 0; r < comm->WorldSize(); ++r) {
    if (r < comm->Rank()) first += counts[r];
    total += counts[r];
  }
  std::vector<T> buf(total);
  for (std::size_t i = 0; i < total; ++i) buf[i] = Value<T>(comm->Rank(), i);
  comm->ReduceScatter(Span<T>(buf), counts, op);
  for (std::size_t i = first; i < first + counts[comm->Rank()]; ++i) {
    T want = Value<T>(0, i);
    for (int r = 1; r < comm->WorldSize(); ++r) want = Fold(want, Value<T>(r, i), op);
    if (buf[i] != want) {
      return "rank " + std::to_string(comm->Rank()) + ": ReduceScatter " + name + " op " +
             std::to_string(static_cast<int>(op)) + " n " + std::to_string(n) + ": element " +
             std::to_string(i) + " is " + std::to_string(static_cast<double>(buf[i])) + ", want " +
             std::to_string(static_cast<double>(want));
    }
  }
  return "";
}

template <typename T>
std::string CheckType(Communicator* comm, const char* name, const std::vector<std::size_t>& sizes) {
  for (std::size_t n : sizes) {
    for (Op op : {Op::kSum, Op::kMax, Op::kMin, Op::kBitOr}) {
      if (op == Op::kBitOr && !std::is_integral_v<T>) continue;
      std::string error = CheckAllreduce<T>(comm, op, n, name);
      if (error.empty()) error = CheckReduceScatter<T>(comm, op, n, name);
      if (!error.empty()) return error;
    }
  }
  return "";
}

// Broadcast from every root, Allgatherv of different sizes (one rank sends nothing), Allgather.
inline std::string CheckBroadcastAndGather(Communicator* comm, std::size_t broadcast_bytes) {
  const std::string me = "rank " + std::to_string(comm->Rank()) + ": ";
  for (int root = 0; root < comm->WorldSize(); ++root) {
    std::vector<char> b(broadcast_bytes, comm->Rank() == root ? 'a' + root : '?');
    comm->Broadcast(Span<char>(b), root);
    for (char v : b) {
      if (v != 'a' + root) return me + "Broadcast from " + std::to_string(root) + " got " + v;
    }
  }
  // Rank r sends r bytes of value 'a' + r (rank 0 sends none).
  std::string mine(comm->Rank(), static_cast<char>('a' + comm->Rank()));
  std::vector<char> all;
  ThrowIfError(comm->AllgathervRaw(mine.data(), mine.size(), &all));
  std::string want;
  for (int r = 0; r < comm->WorldSize(); ++r) want += std::string(r, static_cast<char>('a' + r));
  if (std::string(all.begin(), all.end()) != want) {
    return me + "Allgatherv got '" + std::string(all.begin(), all.end()) + "'";
  }
  int32_t rank = comm->Rank();
  std::vector<int32_t> ranks(comm->WorldSize());
  ThrowIfError(comm->AllgatherRaw(&rank, sizeof(rank), ranks.data()));
  for (int r = 0; r < comm->WorldSize(); ++r) {
    if (ranks[r] != r)
      return me + "Allgather slot " + std::to_string(r) + " is " + std::to_string(ranks[r]);
  }
  return "";
}

// What the rank wrote on the wire (WireBytesSent): a ring allreduce of `count` int64 (count at
// least the ring's threshold) sends 2 (N-1)/N of the buffer, within the rounding of its chunks to
// whole elements (one element a step, 2 (N-1) steps); a reduce-scatter sends every block but its
// own once on tcp's ring, and (N-1)/N of the buffer padded to N of the largest block by mpi's
// count (mpi_communicator.cc); local sends nothing.
inline std::string CheckWireBytes(Communicator* comm, std::size_t count) {
  const int n = comm->WorldSize();
  const std::string me = "rank " + std::to_string(comm->Rank()) + ": ";
  std::vector<int64_t> buf(count, comm->Rank());
  int64_t before = comm->WireBytesSent();
  comm->Allreduce(Span<int64_t>(buf), Op::kSum);
  const int64_t ring = comm->WireBytesSent() - before;
  const double p = 8.0 * static_cast<double>(count);
  const double want = 2.0 * (n - 1) / n * p;
  if (std::abs(static_cast<double>(ring) - want) > 2.0 * (n - 1) * 8) {
    return me + "Allreduce of " + std::to_string(8 * count) + " bytes sent " +
           std::to_string(ring) + ", want 2 (N-1)/N P = " + std::to_string(want);
  }
  const std::vector<std::size_t> counts = ScatterBlocks(n, count / n);
  std::size_t total = 0, largest = 0;
  for (std::size_t c : counts) {
    total += c;
    largest = std::max(largest, c);
  }
  buf.assign(total, 1);
  before = comm->WireBytesSent();
  comm->ReduceScatter(Span<int64_t>(buf), counts, Op::kSum);
  const int64_t scatter = comm->WireBytesSent() - before;
  double expect = 8.0 * static_cast<double>(largest) * (n - 1), slack = 8.0;
  if (comm->Backend() == "tcp") expect = 8.0 * static_cast<double>(total - counts[comm->Rank()]);
  if (comm->Backend() == "local") expect = 0;
  if (std::abs(static_cast<double>(scatter) - expect) > slack) {
    return me + "ReduceScatter of " + std::to_string(8 * total) + " bytes sent " +
           std::to_string(scatter) + ", want " + std::to_string(expect);
  }
  return "";
}

// An Allgatherv of 1000 bytes a rank on tcp, and whether it went up and down the tree (tree):
// around the ring a rank sends every block but one, (N-1) 1000 bytes, plus its share of the
// sizes' allreduce (8 N bytes on each of at most 3 tree links); on the tree it sends the whole
// N 1000 bytes (or-ed) on each of its tree links, at least once.
inline std::string CheckAllgathervAlgorithm(Communicator* comm, bool tree) {
  const int n = comm->WorldSize();
  const std::string me = "rank " + std::to_string(comm->Rank()) + ": ";
  const std::string mine(1000, static_cast<char>('a' + comm->Rank() % 26));
  std::vector<char> all;
  const int64_t before = comm->WireBytesSent();
  ThrowIfError(comm->AllgathervRaw(mine.data(), mine.size(), &all));
  const int64_t sent = comm->WireBytesSent() - before;
  std::string want;
  for (int r = 0; r < n; ++r) want += std::string(1000, static_cast<char>('a' + r % 26));
  if (std::string(all.begin(), all.end()) != want) return me + "Allgatherv of 1000 bytes differs";
  if ((sent >= 1000 * n) != tree) {
    return me + "Allgatherv of " + std::to_string(1000 * n) + " bytes sent " +
           std::to_string(sent) + ": not the " + (tree ? "tree" : "ring");
  }
  return "";
}

// Everything above (the wire's bytes only with wire_bytes: the last size must be one the ring
// takes); "" when all match.
inline std::string CheckEveryCollective(Communicator* comm, const std::vector<std::size_t>& sizes,
                                        std::size_t broadcast_bytes, bool wire_bytes = true) {
  std::string e = CheckType<int32_t>(comm, "int32", sizes);
  if (e.empty()) e = CheckType<int64_t>(comm, "int64", sizes);
  if (e.empty()) e = CheckType<uint64_t>(comm, "uint64", sizes);
  if (e.empty()) e = CheckType<float>(comm, "float", sizes);
  if (e.empty()) e = CheckType<double>(comm, "double", sizes);
  if (e.empty()) e = CheckBroadcastAndGather(comm, broadcast_bytes);
  if (e.empty() && wire_bytes) e = CheckWireBytes(comm, sizes.back());
  return e;
}

}  // namespace ringboost::rabit::test
