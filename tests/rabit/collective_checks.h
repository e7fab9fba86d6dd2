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

// The bytes a rank sends in halving and doubling over the hypercube of `world` ranks, derived
// from the algorithm's description (docs/collective.md): P' the largest power of two <= world,
// E = world - P'; ranks 2i+1 < 2E fold into rank 2i, the others are virtual ranks v (rank 2v for
// v < E, else v + E) owning virtual block v (a folded pair's two blocks). In halving a virtual
// rank sends every virtual block but its own once (S - vb); in doubling, at step d = 1, 2, ...,
// P'/2, the d blocks of its aligned group [v - v % d, +d). A folded rank sends all S (allreduce,
// reduce-scatter) or its block (allgather); its partner sends it the result: all S (allreduce,
// allgather) or its block (reduce-scatter). block_bytes[r]: rank r's block; the allreduce's
// virtual blocks are count (v+1) / P' - count v / P' elements.
struct HalvingBytes {
  int64_t allreduce, reduce_scatter, allgather;
};
inline HalvingBytes ExpectedHalvingBytes(int rank, int world, std::size_t count,
                                         std::size_t elem_bytes,
                                         const std::vector<int64_t>& block_bytes) {
  int p = 1;
  while (p * 2 <= world) p *= 2;
  const int extra = world - p;
  const int64_t s_ar = static_cast<int64_t>(count * elem_bytes);
  int64_t s_blocks = 0;
  for (int64_t b : block_bytes) s_blocks += b;
  if (rank < 2 * extra && rank % 2 == 1) return {s_ar, s_blocks, block_bytes[rank]};
  const int v = rank < 2 * extra ? rank / 2 : rank - extra;
  const bool partner = rank < 2 * extra;
  std::vector<int64_t> ar(p), blocks(p);
  for (int u = 0; u < p; ++u) {
    ar[u] = static_cast<int64_t>((count * (u + 1) / p - count * u / p) * elem_bytes);
    blocks[u] = u < extra ? block_bytes[2 * u] + block_bytes[2 * u + 1] : block_bytes[u + extra];
  }
  auto doubling = [&](const std::vector<int64_t>& vb) {
    int64_t sent = 0;
    for (int d = 1; d < p; d *= 2) {
      for (int u = v - v % d; u < v - v % d + d; ++u) sent += vb[u];
    }
    return sent;
  };
  return {s_ar - ar[v] + doubling(ar) + (partner ? s_ar : 0),
          s_blocks - blocks[v] + (partner ? block_bytes[rank + 1] : 0),
          doubling(blocks) + (partner ? s_blocks : 0)};
}

// With rabit_algorithm=halving on tcp: an allreduce of `count` int64, a reduce-scatter over
// ScatterBlocks and an Allgather of 8 bytes a rank send exactly ExpectedHalvingBytes (the
// allgather adds its sizes' allreduce of one int64 a rank); results checked too.
inline std::string CheckHalvingBytes(Communicator* comm, std::size_t count) {
  const int n = comm->WorldSize(), rank = comm->Rank();
  const std::string me = "rank " + std::to_string(rank) + ": ";
  std::vector<int64_t> buf(count, rank + 1);
  int64_t before = comm->WireBytesSent();
  comm->Allreduce(Span<int64_t>(buf), Op::kSum);
  const int64_t allreduce = comm->WireBytesSent() - before;
  for (int64_t x : buf) {
    if (x != int64_t{n} * (n + 1) / 2) return me + "halving Allreduce sum " + std::to_string(x);
  }
  const std::vector<std::size_t> counts = ScatterBlocks(n, count / n);
  std::vector<int64_t> block_bytes;
  std::size_t total = 0;
  for (std::size_t c : counts) {
    block_bytes.push_back(static_cast<int64_t>(8 * c));
    total += c;
  }
  buf.assign(total, rank + 1);
  before = comm->WireBytesSent();
  comm->ReduceScatter(Span<int64_t>(buf), counts, Op::kSum);
  const int64_t scatter = comm->WireBytesSent() - before;
  std::size_t first = 0;
  for (int r = 0; r < rank; ++r) first += counts[r];
  for (std::size_t i = first; i < first + counts[rank]; ++i) {
    if (buf[i] != int64_t{n} * (n + 1) / 2) return me + "halving ReduceScatter sum wrong";
  }
  const int64_t mine = rank * 1000 + 7;
  std::vector<int64_t> all(n);
  before = comm->WireBytesSent();
  ThrowIfError(comm->AllgatherRaw(&mine, sizeof(mine), all.data()));
  const int64_t gather = comm->WireBytesSent() - before;
  for (int r = 0; r < n; ++r) {
    if (all[r] != r * 1000 + 7) return me + "doubling Allgather slot " + std::to_string(r);
  }
  const HalvingBytes want = ExpectedHalvingBytes(rank, n, count, 8, block_bytes);
  const HalvingBytes sizes = ExpectedHalvingBytes(rank, n, n, 8, std::vector<int64_t>(n, 0));
  const int64_t want_gather =
      sizes.allreduce + ExpectedHalvingBytes(rank, n, 0, 8, std::vector<int64_t>(n, 8)).allgather;
  if (allreduce != want.allreduce || scatter != want.reduce_scatter || gather != want_gather) {
    return me + "halving sent " + std::to_string(allreduce) + " / " + std::to_string(scatter) +
           " / " + std::to_string(gather) +
           " bytes (allreduce / reduce-scatter / allgather), want " +
           std::to_string(want.allreduce) + " / " + std::to_string(want.reduce_scatter) + " / " +
           std::to_string(want_gather);
  }
  return "";
}

// An Allgatherv of 1000 bytes a rank on tcp, and whether it took `algorithm` (tree, ring or
// halving): around the ring a rank sends every block but one, (N-1) 1000 bytes, plus its share of
// the sizes' allreduce (8 N bytes on each of at most 3 tree links, or halving's); on the tree it
// sends the whole N 1000 bytes (or-ed) on each of its tree links, at least once; by doubling
// exactly ExpectedHalvingBytes' allgather plus the sizes' (so at 6 or 7 ranks the folded rank 1
// sends 1000 bytes and little more, where the ring sends 5000 or 6000).
inline std::string CheckAllgathervAlgorithm(Communicator* comm, const std::string& algorithm) {
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
  const int64_t doubling =
      ExpectedHalvingBytes(comm->Rank(), n, 0, 1, std::vector<int64_t>(n, 1000)).allgather;
  const int64_t sizes_at_most = 8 * n * 6;
  const bool ok = algorithm == "tree"      ? sent >= 1000 * n
                  : algorithm == "halving" ? sent >= doubling && sent <= doubling + sizes_at_most
                                           : sent < 1000 * n && sent >= 1000 * (n - 1);
  if (!ok) {
    return me + "Allgatherv of " + std::to_string(1000 * n) + " bytes sent " +
           std::to_string(sent) + ": not the " + algorithm;
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
