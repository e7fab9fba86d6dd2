#include "rabit/cost_model.h"

#include "rabit/protocol.h"

namespace ringboost::rabit {

namespace {
int TreeDepth(int world) {
  int depth = 0;
  while ((2 << depth) <= world) ++depth;  // floor(log2 world)
  return depth;
}
}  // namespace

double CostModel::RingAllreduce(double bytes, int world) const {
  return 2.0 * (world - 1) * alpha_s + 2.0 * (world - 1) / world * bytes / bytes_per_s;
}
double CostModel::RingAllgather(double bytes, int world) const {
  return (world - 1) * alpha_s + static_cast<double>(world - 1) / world * bytes / bytes_per_s;
}
double CostModel::Tree(double bytes, int world) const {
  return 2.0 * TreeDepth(world) * (alpha_s + 2.0 * bytes / bytes_per_s);
}

double CostModel::HalvingAllreduce(double bytes, int world) const {
  const proto::Hypercube h(world);
  double t = 2.0 * h.Steps() * alpha_s + 2.0 * (h.size - 1) / h.size * bytes / bytes_per_s;
  if (h.extra > 0) t += 2.0 * (alpha_s + bytes / bytes_per_s);  // fold in, result out
  return t;
}
double CostModel::HalvingReduceScatter(double bytes, int world) const {
  const proto::Hypercube h(world);
  double t = h.Steps() * alpha_s + static_cast<double>(h.size - 1) / h.size * bytes / bytes_per_s;
  if (h.extra > 0) t += 2.0 * alpha_s + (bytes + bytes / world) / bytes_per_s;  // all in, block out
  return t;
}
double CostModel::DoublingAllgather(double bytes, int world) const {
  const proto::Hypercube h(world);
  double t = h.Steps() * alpha_s + static_cast<double>(h.size - 1) / h.size * bytes / bytes_per_s;
  if (h.extra > 0) t += 2.0 * alpha_s + (bytes / world + bytes) / bytes_per_s;  // block in, all out
  return t;
}

bool UseRingAllreduce(std::size_t count, std::size_t elem_bytes, int world_size,
                      int64_t ring_min_count, const CostModel& model) {
  if (world_size <= 1 || count < static_cast<std::size_t>(world_size) ||
      static_cast<int64_t>(count) < ring_min_count) {
    return false;
  }
  const double bytes = static_cast<double>(count) * static_cast<double>(elem_bytes);
  return model.RingAllreduce(bytes, world_size) <= model.Tree(bytes, world_size);
}

bool UseTreeAllgather(std::size_t total_bytes, int world_size, const CostModel& model) {
  const double bytes = static_cast<double>(total_bytes);
  return world_size > 1 && model.Tree(bytes, world_size) < model.RingAllgather(bytes, world_size);
}

bool OrderFree(DataType type, Op op) {
  return op != Op::kSum || (type != DataType::kFloat && type != DataType::kDouble);
}

const char* AlgorithmName(Algorithm a) {
  switch (a) {
    case Algorithm::kTree:
      return "tree";
    case Algorithm::kRing:
      return "ring";
    case Algorithm::kHalving:
      return "halving";
  }
  return "?";
}

Algorithm PickAllreduce(std::size_t count, std::size_t elem_bytes, int world_size,
                        int64_t ring_min_count, const CostModel& model, bool hypercube) {
  const bool ring = UseRingAllreduce(count, elem_bytes, world_size, ring_min_count, model);
  if (!hypercube || world_size <= 1 ||
      count < static_cast<std::size_t>(proto::Hypercube(world_size).size)) {
    return ring ? Algorithm::kRing : Algorithm::kTree;
  }
  const double bytes = static_cast<double>(count) * static_cast<double>(elem_bytes);
  const double other =
      ring ? model.RingAllreduce(bytes, world_size) : model.Tree(bytes, world_size);
  if (model.HalvingAllreduce(bytes, world_size) < other) return Algorithm::kHalving;
  return ring ? Algorithm::kRing : Algorithm::kTree;
}

Algorithm PickReduceScatter(std::size_t total_bytes, int world_size, const CostModel& model,
                            bool hypercube) {
  const double bytes = static_cast<double>(total_bytes);
  return hypercube && world_size > 1 &&
                 model.HalvingReduceScatter(bytes, world_size) <
                     model.RingAllgather(bytes, world_size)
             ? Algorithm::kHalving
             : Algorithm::kRing;
}

Algorithm PickAllgather(std::size_t total_bytes, int world_size, const CostModel& model,
                        bool hypercube) {
  const Algorithm old =
      UseTreeAllgather(total_bytes, world_size, model) ? Algorithm::kTree : Algorithm::kRing;
  if (!hypercube || world_size <= 1) return old;
  const double bytes = static_cast<double>(total_bytes);
  const double other = old == Algorithm::kTree ? model.Tree(bytes, world_size)
                                               : model.RingAllgather(bytes, world_size);
  return model.DoublingAllgather(bytes, world_size) < other ? Algorithm::kHalving : old;
}

double ModelCost(const CostModel& model, Algorithm a, bool allreduce, double bytes, int world) {
  switch (a) {
    case Algorithm::kTree:
      return model.Tree(bytes, world);
    case Algorithm::kRing:
      return allreduce ? model.RingAllreduce(bytes, world) : model.RingAllgather(bytes, world);
    case Algorithm::kHalving:
      return allreduce ? model.HalvingAllreduce(bytes, world)
                       : model.DoublingAllgather(bytes, world);
  }
  return 0;
}

bool ReduceScatterPays(std::size_t bytes, std::size_t gather_bytes, int world_size,
                       const CostModel& model) {
  if (world_size <= 1) return false;
  const std::size_t count = bytes / 8;  // int64 cells
  const double allreduce = ModelCost(model, PickAllreduce(count, 8, world_size, 1, model, true),
                                     true, bytes, world_size);
  const double scatter = PickReduceScatter(bytes, world_size, model, true) == Algorithm::kHalving
                             ? model.HalvingReduceScatter(bytes, world_size)
                             : model.RingAllgather(bytes, world_size);
  // The candidates' allgatherv: its sizes (an allreduce of one int64 a rank), then the blocks.
  const double sizes =
      ModelCost(model, PickAllreduce(world_size, 8, world_size, 1 << 30, model, true), true,
                8.0 * world_size, world_size);
  const double gather = ModelCost(model, PickAllgather(gather_bytes, world_size, model, true),
                                  false, gather_bytes, world_size);
  return scatter + sizes + gather < allreduce;
}

}  // namespace ringboost::rabit
