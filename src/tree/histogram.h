// Gradient histograms (DESIGN.md step 6): per node, the exact integer sums of the quantized
// gradients of its rows in every bin. Threads build private histograms over row blocks of all the
// nodes of a level and then add them up; integer sums make the result independent of the split
// into blocks and threads. A sibling's histogram is its parent's minus the built child's.
#pragma once

#include <cstdint>
#include <vector>

#include "tree/binned_matrix.h"
#include "tree/gradient.h"
#include "tree/quantile.h"
#include "tree/row_partitioner.h"

namespace ringboost {

using Histogram = std::vector<GradientSum>;  // one entry per global bin

class HistogramBuilder {
 public:
  HistogramBuilder(const BinnedMatrix* matrix, const HistogramCuts* cuts, int nthread);

  // Builds the histograms of `nids` (rows from `partitioner`) into `out` (resized to the total
  // bin count). One call per tree level.
  void Build(const std::vector<GradientSum>& gpair, const RowPartitioner& partitioner,
             const std::vector<int>& nids, const std::vector<Histogram*>& out);

  // For every k: *dst[k] = *parent[k] - *child[k], element-wise (one parallel loop for all).
  static void Subtract(const std::vector<const Histogram*>& parent,
                       const std::vector<const Histogram*>& child,
                       const std::vector<Histogram*>& dst, int nthread);

 private:
  void BuildBlock(const std::vector<GradientSum>& gpair, const uint32_t* rows, uint64_t n,
                  GradientSum* hist) const;

  const BinnedMatrix* matrix_;
  const HistogramCuts* cuts_;
  int nthread_;
  std::vector<uint32_t> feature_offsets_;    // dense layout: cuts.ptr of each column's feature
  std::vector<std::vector<Histogram>> tls_;  // per thread, per node of the level
};

}  // namespace ringboost
