// Grows one tree from quantized gradients (DESIGN.md steps 6-9): depthwise (level by level) or
// lossguide (best loss change first), with XGBoost's expansion order so node ids match its
// dumps. Per level: partition the expanded nodes' rows, build the smaller child of each split
// (one allreduce, or reduce-scatter, for the level's histograms: histogram_sync.h), subtract for
// the sibling, evaluate the children.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/timer.h"
#include "model/tree.h"
#include "rabit/communicator.h"
#include "tree/bins/binned_matrix.h"
#include "tree/bins/quantile.h"
#include "tree/column_sampler.h"
#include "tree/hist/columnwise.h"
#include "tree/hist/histogram.h"
#include "tree/hist/row_partitioner.h"
#include "tree/hist/split_evaluator.h"
#include "tree/histogram_sync.h"
#include "tree/node_book.h"
#include "tree/tree_params.h"

namespace ringboost {

class TreeGrower {
 public:
  // low_bit: the gradients Grow gets are low-bit (gradient.h), so histograms are built and
  // allreduced in narrow cells.
  TreeGrower(const BinnedMatrix* matrix, const HistogramCuts* cuts, const TreeParams& params,
             rabit::Communicator* comm, int nthread, bool low_bit = false);

  // Grows a tree; `tree_key` keys column sampling. Afterwards LeafRows() tells which rows ended
  // in which leaf.
  RegTree Grow(const std::vector<GradientSum>& gpair, const GradientQuantizer& quantizer,
               uint64_t tree_key);
  // The same given `local_sum`, the sum of gpair (GradientQuantizer::QuantizeAll returns it).
  RegTree Grow(const std::vector<GradientSum>& gpair, GradientSum local_sum,
               const GradientQuantizer& quantizer, uint64_t tree_key);

  // Histograms larger than this are not kept one per node: each node is built on its own, touched
  // chunks only, and no sibling is subtracted (wide data). Both ways grow the same tree; tests set
  // 0 to take the wide way on small data.
  static constexpr std::size_t kWideHistogramBytes = std::size_t{8} << 20;
  void SetWideHistogramBytes(std::size_t bytes) { wide_bytes_ = bytes; }
  // Wide sparse data on one worker evaluates whole levels feature by feature (columnwise.h) when
  // most rows are in the level; tests turn it off to compare with the row-wise way.
  void SetColumnwise(bool on) { columnwise_on_ = on; }
  // Whether training on a sparse matrix under `cuts` with `world_size` workers reads it column by
  // column from the root down (wide, one worker, no categorical feature): then the matrix is best
  // built by column (BinnedMatrix::Build's by_column, where SparseColumns::Fit), its CSR made
  // only if some level needs it.
  static bool ReadsColumns(const HistogramCuts& cuts, int world_size);
  // Monotone and interaction constraints for every tree from now on (tree/constraints.h).
  void SetConstraints(TreeConstraints constraints);
  // Time spent in each phase over every tree grown so far.
  const PhaseTimer& timer() const { return timer_; }

  // Low-bit gradients (gradient.h): gives every node of the last grown `tree` the weight, leaf
  // value and cover of its rows' exact gradients, gpair[row * stride + group] quantized by
  // `quantizer` (zero where `keep` is 0, as QuantizeAll), summed over every worker; the splits
  // stay those the low-bit sums chose.
  void RefitLeaves(const std::vector<GradPair>& gpair, int stride, int group,
                   const std::vector<uint8_t>& keep, const GradientQuantizer& quantizer,
                   RegTree* tree);

  // Adds each leaf's value to preds[row * stride + group] for the rows of the last grown tree.
  void UpdatePredictions(const RegTree& tree, std::vector<float>* preds, int stride, int group);

 private:
  struct NodeState : NodeStats {
    ColumnSampler::FeatureSet features;  // set while the node's level is evaluated
    Histogram hist;
  };

  void InitRoot(const std::vector<GradientSum>& gpair, GradientSum local_sum, RegTree* tree);
  // The features `nid` may split on: column sampling, then the interaction constraints.
  ColumnSampler::FeatureSet NodeFeatures(int nid);
  void PartitionRows(const std::vector<Expansion>& expansions);
  std::vector<int> BuildChildren(const std::vector<GradientSum>& gpair,
                                 const std::vector<Expansion>& expansions);
  void EvaluateNodes(const std::vector<int>& nids);
  // Several workers, wide data: reduces the touched chunks of the node's histogram.
  void AllreduceWide();
  // A matrix built by column: its CSR, made (and timed) the first time a row-wise step needs it.
  void EnsureMatrixRows();
  // Wide data: builds `nid`'s histogram on its own (no subtraction, none kept) and evaluates it.
  void BuildAndEvaluateWide(const std::vector<GradientSum>& gpair, int nid);
  // Wide data, the columnwise way: evaluates all of `nids` at once; false when it does not serve
  // them (too many nodes, or too few of the rows in them), and nothing was done.
  bool EvaluateColumnwise(const std::vector<GradientSum>& gpair, const std::vector<int>& nids);
  // Each row's leaf in the last grown `tree` (row_leaf_, an index into leaf_nids_), made by
  // RefitLeaves, which UpdatePredictions then reuses: each thread writes its own range of rows
  // (RowPartitioner::ThreadRows), a leaf's part of it found by binary search, so that both go
  // through the rows in order instead of reading each leaf's scattered rows' gradients. False
  // where the tree has more leaves than 16 bits number (nothing done).
  bool MapRowsToLeaves(const RegTree& tree);
  // Partitions the rows of `expansions` from the column-major copy; false when it does not serve.
  bool PartitionByColumns(const std::vector<Expansion>& expansions,
                          const std::vector<RowPartitioner::SplitTask>& tasks);
  // Children of this level's expansions that may still be split, with their best splits.
  std::vector<int> ExpandChildren(const std::vector<GradientSum>& gpair,
                                  const std::vector<Expansion>& expansions);

  const BinnedMatrix* matrix_;
  const HistogramCuts* cuts_;
  TreeParams params_;
  rabit::Communicator* comm_;
  int nthread_;
  HistogramBuilder hist_builder_;
  // How the workers sum a level's histograms; with reduce_scatter each worker holds, evaluates
  // and subtracts only its block's bins (the rest of a node's histogram is its own partial).
  HistogramSync sync_;
  const GradientQuantizer* quantizer_ = nullptr;
  std::unique_ptr<SplitEvaluator> evaluator_;
  std::unique_ptr<RowPartitioner> partitioner_;
  std::unique_ptr<ColumnSampler> sampler_;
  NodeBook<NodeState> nodes_;
  std::vector<WeightBounds> boxes_;  // the last tree's (NodeBook::Boxes), for RefitLeaves
  TreeConstraints constraints_;
  std::size_t wide_bytes_ = kWideHistogramBytes;
  bool wide_ = false;
  bool columnwise_on_ = true;
  bool low_bit_ = false;
  std::unique_ptr<ColumnwiseEvaluator> columnwise_;  // built at the first wide sparse tree
  std::vector<uint8_t> goes_left_;                   // per row, PartitionByColumns
  std::vector<uint16_t> row_leaf_;                   // per row, MapRowsToLeaves
  std::vector<int> leaf_nids_;
  bool leaves_mapped_ = false;  // row_leaf_ holds the last grown tree's leaves
  PhaseTimer timer_;
};

}  // namespace ringboost
