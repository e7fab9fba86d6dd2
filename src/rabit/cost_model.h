// The tcp backend's cost model and the algorithm choices made from it (rabit/tcp_communicator.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "rabit/communicator.h"

namespace ringboost::rabit {

// The alpha-beta cost model of the tcp backend's algorithms (docs/collective.md): a message
// costs alpha + bytes / rate; P ranks, S bytes, L = floor(log2 P), the depth of the tree.
// - ring allreduce (reduce-scatter + allgather): 2 (P-1) alpha + 2 (P-1)/P S / rate;
// - ring allgather: (P-1) alpha + (P-1)/P S / rate;
// - tree allreduce (up to rank 0 and down, not pipelined; a node takes two children's buffers
//   over its link, then sends to each in turn): 2 L (alpha + 2 S / rate); the tree allgather is
//   this allreduce (a bitwise or of the blocks, each in its place, zeros elsewhere);
// - over the hypercube (proto::Hypercube: P' the largest power of two <= P, L' = log2 P', and
//   F = 1 where P > P' for the fold of the extra ranks into partners):
//   halving reduce-scatter: L' alpha + (P'-1)/P' S / rate + F (2 alpha + (S + S/P) / rate);
//   doubling allgather: the same; Rabenseifner's allreduce (the two):
//   2 L' alpha + 2 (P'-1)/P' S / rate + F 2 (alpha + S / rate).
//   The ring reduce-scatter costs what the ring allgather does.
struct CostModel {
  double alpha_s = 25e-6;
  double bytes_per_s = 1.25e9;
  double RingAllreduce(double bytes, int world) const;
  double RingAllgather(double bytes, int world) const;
  double Tree(double bytes, int world) const;
  double HalvingAllreduce(double bytes, int world) const;
  double HalvingReduceScatter(double bytes, int world) const;
  double DoublingAllgather(double bytes, int world) const;
};
// Whether an allreduce of `count` elements of `elem_bytes` each runs on the ring (else on the
// tree): from ring_min_count elements (and at least one per rank), where the model has the ring
// no slower than the tree.
bool UseRingAllreduce(std::size_t count, std::size_t elem_bytes, int world_size,
                      int64_t ring_min_count, const CostModel& model);
// Whether an allgather of `total_bytes` in all goes up and down the tree (else around the ring).
bool UseTreeAllgather(std::size_t total_bytes, int world_size, const CostModel& model);

// The algorithms with the hypercube's links (ringboost's tracker makes them where every worker
// is a ringboost worker): kHalving is recursive halving (reduce-scatter), recursive doubling
// (allgather) or the two (allreduce).
enum class Algorithm { kTree, kRing, kHalving };
const char* AlgorithmName(Algorithm a);
// Whether op's result is the same in any order of reduction (all but floating-point sums): only
// then may halving run, so that its results are the ring's and the tree's byte for byte.
bool OrderFree(DataType type, Op op);
// An allreduce: the ring or the tree as UseRingAllreduce says; with `hypercube` (links there and
// OrderFree) halving-doubling where the model has it strictly cheaper, from P' elements.
Algorithm PickAllreduce(std::size_t count, std::size_t elem_bytes, int world_size,
                        int64_t ring_min_count, const CostModel& model, bool hypercube);
// A reduce-scatter: halving (with `hypercube`) where the model has it strictly cheaper, else the
// ring.
Algorithm PickReduceScatter(std::size_t total_bytes, int world_size, const CostModel& model,
                            bool hypercube);
// An allgather: tree or ring as UseTreeAllgather says; doubling where strictly cheaper.
Algorithm PickAllgather(std::size_t total_bytes, int world_size, const CostModel& model,
                        bool hypercube);
// With the hypercube: whether a reduce-scatter of `bytes` (int64 cells) and an allgatherv of
// `gather_bytes` (its sizes first) cost less than an allreduce of `bytes`, each by its cheapest
// algorithm (hist_sync=auto).
bool ReduceScatterPays(std::size_t bytes, std::size_t gather_bytes, int world_size,
                       const CostModel& model);

}  // namespace ringboost::rabit
