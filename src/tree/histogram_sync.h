// How the workers combine a level's histograms (hist_sync). allreduce: every worker gets every
// histogram whole and evaluates every feature. reduce_scatter (LightGBM's data-parallel
// learner): the features are cut into one contiguous block per worker, by bins (the same cut on
// every worker); a reduce-scatter gives each worker the sums of its block only, it evaluates the
// splits of its features, and an allgather of each worker's best candidates lets all pick the
// same best split by the evaluator's total order (loss change, then the lower feature), so the
// tree is the one allreduce grows. The sums are integers (gradient.h) in both modes: exact,
// whatever the order of the reduction.
#pragma once

#include <cstdint>
#include <vector>

#include "rabit/communicator.h"
#include "tree/bins/quantile.h"
#include "tree/gradient.h"
#include "tree/split_types.h"
#include "tree/tree_params.h"

namespace ringboost {

class HistogramSync {
 public:
  // low_bit: histograms travel in the narrow cells of CellBitsFor (gradient.h).
  HistogramSync(const HistogramCuts* cuts, HistSync mode, rabit::Communicator* comm, bool low_bit);

  // Whether this worker holds only its block's sums after Sync (reduce_scatter, 2+ workers).
  bool scatters() const { return scatter_; }
  // Sums each histogram (hists[k]: cuts.TotalBins() cells in host memory) over the workers:
  // whole, or this worker's block (bins [FirstBin(), EndBin())); rows[k]: hists[k]'s rows over
  // all workers. The CPU's histograms go as they are, the device's through a host copy.
  void Sync(const std::vector<GradientSum*>& hists, const std::vector<uint64_t>& rows) const;
  // The bins whose sums Sync gives this worker: all, or its block's.
  uint32_t FirstBin() const { return bin_blocks_[scatter_ ? comm_->Rank() : 0]; }
  uint32_t EndBin() const { return bin_blocks_[scatter_ ? comm_->Rank() + 1 : 1]; }
  // `features` (ascending) cut to this worker's block.
  std::vector<uint32_t> Owned(const std::vector<uint32_t>& features) const;
  // Each node's best split over every worker's candidates (reduce_scatter), the same on all.
  void AgreeOnSplits(std::vector<SplitCandidate>* best) const;
  // Feature f_r of rank r's block [f_r, f_r+1): the bin count of the features before f_r is the
  // nearest feature boundary to r / P of all bins (never before the previous rank's).
  static std::vector<uint32_t> FeatureBlocks(const HistogramCuts& cuts, int world);

 private:
  template <typename Codec>
  void SyncAs(const std::vector<GradientSum*>& hists, const std::vector<std::size_t>& which) const;

  const HistogramCuts* cuts_;
  rabit::Communicator* comm_;
  bool low_bit_;
  bool scatter_ = false;
  std::vector<uint32_t> bin_blocks_;  // rank r's bins: [bin_blocks_[r], bin_blocks_[r + 1])
  uint32_t first_feature_ = 0, end_feature_ = 0;  // this worker's features
};

}  // namespace ringboost
