// A tree grower whose data stays on the device: histograms (smaller child built, sibling by
// subtraction, one launch for all the nodes of a level), split evaluation and row partition run as
// kernels; the tree itself, the node bookkeeping and the expansion order are host code shared with
// TreeGrower (node_book.h), so the trees are the same (the kernels equal their CPU references bit
// for bit). Categorical features are the exception: their split search runs on the host with the
// CPU's code, from their bins of the device's histograms; their rows are partitioned on the device.
//
// device=cuda reaches it through CudaTrainer (gpu_hist/trainer.h). Several workers combine the
// histograms through host memory (the collective's buffers are host memory) as the CPU's workers
// do (HistogramSync, hist_sync): an allreduce, or a reduce-scatter after which each worker
// evaluates its block of features and the workers agree on each node's best split.
#pragma once

#ifdef RINGBOOST_USE_CUDA

#include <cstdint>
#include <memory>
#include <vector>

#include "common/timer.h"
#include "model/tree.h"
#include "rabit/communicator.h"
#include "tree/bins/quantile.h"
#include "tree/categorical_split.h"
#include "tree/column_sampler.h"
#include "tree/constraints.h"
#include "tree/gpu_hist/histogram.h"
#include "tree/gpu_hist/matrix.h"
#include "tree/gpu_hist/partition.h"
#include "tree/gpu_hist/split.h"
#include "tree/histogram_sync.h"
#include "tree/node_book.h"
#include "tree/tree_params.h"

namespace ringboost {

// Device buffers of histograms, handed out and taken back without cudaMalloc/cudaFree after the
// first tree (a free would synchronize the device). A buffer is back in the pool when the last
// shared_ptr to it goes; the pool must outlive them.
class HistogramPool {
 public:
  using Buffer = DeviceBuffer<GradientSum>;
  // A buffer of at least n histograms' worth of `bins` each.
  std::shared_ptr<Buffer> Acquire(std::size_t n, std::size_t bins);

 private:
  std::vector<std::unique_ptr<Buffer>> free_;
};

class DeviceTreeGrower {
 public:
  // low_bit: the trees grow from low-bit gradients (histograms travel in narrow cells).
  DeviceTreeGrower(const DeviceMatrix* matrix, const HistogramCuts* cuts, const TreeParams& params,
                   rabit::Communicator* comm, bool low_bit = false);

  // Monotone and interaction constraints for every tree from now on (tree/constraints.h), as
  // TreeGrower::SetConstraints: the host's NodeBook keeps the boxes and the allowed features, the
  // kernels weigh each candidate in its node's box.
  void SetConstraints(TreeConstraints constraints);

  // Grows a tree from the gradients `grad` (device memory, one a row: quantized by `quantizer`, or
  // low-bit ones by its LowBit()) whose sum over this worker's rows is `local_sum`; `tree_key`
  // keys column sampling.
  RegTree Grow(const DeviceHistGradients& grad, GradientSum local_sum,
               const GradientQuantizer& quantizer, uint64_t tree_key);
  // The same from gradients in host memory (uploaded here).
  RegTree Grow(const std::vector<GradientSum>& gpair, const GradientQuantizer& quantizer,
               uint64_t tree_key);
  // Low-bit mode (TreeGrower::RefitLeaves): the leaves of the tree just grown from low-bit
  // gradients get their values and covers from the exact quantized gradients d_gpair (device
  // memory) summed over all workers' rows.
  void RefitLeaves(const GradientSum* d_gpair, const GradientQuantizer& quantizer, RegTree* tree);
  // Adds each leaf's value of the last grown tree to d_preds[row * stride + group].
  void UpdatePredictions(const RegTree& tree, float* d_preds, int stride, int group);
  // Seconds per phase. With verbosity=3 (when the phases are printed) each phase ends with a
  // device synchronize, so that kernels count where they run; otherwise the host queues the next
  // phase's work without waiting, and the times say little.
  const PhaseTimer& timer() const { return timer_; }

 private:
  // A node's histogram: histogram `slot` of a level's buffer (shared by the nodes built with it).
  struct NodeState : NodeStats {
    std::shared_ptr<HistogramPool::Buffer> hist;
    uint64_t slot = 0;
  };

  void PartitionRows(const std::vector<Expansion>& expansions);
  std::vector<int> BuildChildren(const std::vector<Expansion>& expansions);
  // Sums the first rows.size() histograms of `hists` (rows[k]: histogram k's rows over all
  // workers) over the workers: whole, or this worker's block of bins (sync_.scatters()).
  void SyncHistograms(HistogramPool::Buffer* hists, const std::vector<uint64_t>& rows);
  // Evaluates `nids`, whose histograms all lie in one buffer.
  void EvaluateNodes(const std::vector<int>& nids);
  void EndPhase();  // waits for the device when the phases are timed

  const DeviceMatrix* matrix_;
  const HistogramCuts* cuts_;
  TreeParams params_;
  rabit::Communicator* comm_;
  HistogramSync sync_;
  DeviceHistogramBuilder hist_builder_;
  DevicePartitioner partitioner_;
  std::unique_ptr<DeviceSplitEvaluator> evaluator_;
  // Categorical features: their bins of the histograms, gathered to the host, where the CPU's
  // CategoricalSplitter (the tree being grown's quantizer) evaluates them. Empty / null without
  // categorical features.
  CategoricalBins cat_bins_;
  std::unique_ptr<DeviceBinGather> cat_gather_;
  std::unique_ptr<CategoricalSplitter> cat_splitter_;
  std::unique_ptr<ColumnSampler> sampler_;
  TreeConstraints constraints_;             // nodes_ points at it
  DeviceBuffer<GradientSum> d_host_gpair_;  // the host-gradient Grow's upload
  DeviceBuffer<SubtractTask> d_subtract_;
  DeviceHistGradients grad_;  // the tree being grown's gradients
  // Whether the leaves' rows are needed after the tree (sparse leaf values, low-bit refit): else
  // the splits whose children are leaves are only recorded for the dense leaf walk.
  bool keep_leaf_rows_ = true;
  bool refit_by_walk_ = false;  // dense, small enough trees: RefitLeaves walks the rows
  HistogramPool pool_;
  NodeBook<NodeState> nodes_;
  std::vector<WeightBounds> boxes_;  // the last tree's (NodeBook::Boxes), for RefitLeaves
  bool sync_phases_;
  PhaseTimer timer_;
};

}  // namespace ringboost

#endif  // RINGBOOST_USE_CUDA
