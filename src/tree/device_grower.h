// A tree grower whose data stays on the device: histograms (smaller child built, sibling by
// subtraction), split evaluation and row partition run as kernels; the tree itself, the node
// bookkeeping and the expansion order are host code shared with TreeGrower (node_book.h), so the
// trees are the same (the kernels equal their CPU references bit for bit).
//
// device=cuda reaches it through DeviceTrainer (device_trainer.h). A full device path still
// needs gradients on the device, a histogram pool instead of one allocation per level, the
// wide-data mode (one histogram per node is too large there), and histograms reduced across
// workers without the host copy.
#pragma once

#ifdef RINGBOOST_USE_CUDA

#include <cstdint>
#include <memory>
#include <vector>

#include "common/params.h"
#include "model/tree.h"
#include "rabit/communicator.h"
#include "tree/column_sampler.h"
#include "tree/device_histogram.h"
#include "tree/device_matrix.h"
#include "tree/device_partition.h"
#include "tree/device_split.h"
#include "tree/node_book.h"
#include "tree/quantile.h"

namespace ringboost {

class DeviceTreeGrower {
 public:
  DeviceTreeGrower(const DeviceMatrix* matrix, const HistogramCuts* cuts, const Params& params,
                   const SplitParams& split_params, rabit::Communicator* comm);

  // Grows a tree from the quantized gradients (uploaded here); `tree_key` keys column sampling.
  RegTree Grow(const std::vector<GradientSum>& gpair, const GradientQuantizer& quantizer,
               uint64_t tree_key);
  // Adds each leaf's value of the last grown tree to d_preds[row * stride + group].
  void UpdatePredictions(const RegTree& tree, float* d_preds, int stride, int group);

 private:
  // A node's histogram: histogram `slot` of a level's buffer (shared by the nodes built with it).
  struct NodeState : NodeStats {
    std::shared_ptr<DeviceBuffer<GradientSum>> hist;
    uint64_t slot = 0;
  };

  void PartitionRows(const std::vector<Expansion>& expansions);
  std::vector<int> BuildChildren(const std::vector<Expansion>& expansions);
  void AllreduceHistograms(DeviceBuffer<GradientSum>* hists, std::size_t count);
  // Evaluates `nids`, whose histograms all lie in one buffer.
  void EvaluateNodes(const std::vector<int>& nids);

  const DeviceMatrix* matrix_;
  const HistogramCuts* cuts_;
  const Params& params_;
  SplitParams split_params_;
  rabit::Communicator* comm_;
  DeviceHistogramBuilder hist_builder_;
  const GradientQuantizer* quantizer_ = nullptr;
  std::unique_ptr<DeviceSplitEvaluator> evaluator_;
  std::unique_ptr<DevicePartitioner> partitioner_;
  std::unique_ptr<ColumnSampler> sampler_;
  DeviceBuffer<GradientSum> d_gpair_;
  NodeBook<NodeState> nodes_;
};

}  // namespace ringboost

#endif  // RINGBOOST_USE_CUDA
