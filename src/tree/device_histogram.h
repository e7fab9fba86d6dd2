// Gradient histograms on the device (DESIGN.md step 6, GPU): the same int64 (g, h) sums per
// global bin as HistogramBuilder, for the rows of several nodes at once.
//
// Features are cut into groups of consecutive features whose bins fit one block's shared memory.
// A block takes up to DevicePolicy::kHistRowsPerBlock rows of one node and one group, adds every
// (row, slot) whose bin lies in the group into shared int64 sums, then adds its non-zero sums to
// the node's histogram in global memory. A feature with more bins than fit shared memory (or data
// that would need too many passes over the rows) goes to one group built with global atomics
// only. Integer sums make the result exact and independent of the order of the atomics, hence
// equal to HistogramBuilder bit for bit and the same on every run.
#pragma once

#include <cstdint>
#include <vector>

#include "tree/device_common.h"
#include "tree/device_matrix.h"
#include "tree/gradient.h"
#include "tree/histogram.h"
#include "tree/quantile.h"

namespace ringboost {

// Features [feature_begin, feature_end), their bins [bin_begin, bin_end), and the ELLPACK slots
// that can hold them [slot_begin, slot_end) (dense: the features' columns; sparse: every slot).
struct FeatureGroup {
  uint32_t feature_begin = 0, feature_end = 0;
  uint32_t bin_begin = 0, bin_end = 0;
  uint32_t slot_begin = 0, slot_end = 0;
  bool shared = true;  // built in shared memory; false: global atomics only
};

// Groups over all features, in feature order: consecutive features while their bins fit
// `max_group_bins`; a feature with more bins alone in a global group. When that would take more
// than `max_shared_groups` passes over the rows, one global group of all features instead.
// `column_of` is EllpackColumnOf (empty when sparse), `row_stride` the ELLPACK row width.
// Pure host code.
std::vector<FeatureGroup> GroupFeatures(const HistogramCuts& cuts, uint32_t max_group_bins,
                                        uint32_t max_shared_groups,
                                        const std::vector<int32_t>& column_of, uint32_t row_stride);

// A node's rows: positions [begin, begin + size) of a device array of row ids.
struct RowSegment {
  uint64_t begin = 0;
  uint64_t size = 0;
};

// One block's work: rows [row_begin, row_end) of the row-id array, into histogram `node`.
struct HistBlockTask {
  uint64_t row_begin = 0;
  uint64_t row_end = 0;
  uint32_t node = 0;
};

// Block tasks for `segments` (node k = segments[k]); empty segments give none. Pure host code.
std::vector<HistBlockTask> MakeHistBlockTasks(const std::vector<RowSegment>& segments,
                                              uint32_t rows_per_block);

#ifdef RINGBOOST_USE_CUDA
class DeviceHistogramBuilder {
 public:
  // max_group_bins 0: as many as fit the device's shared memory (DevicePolicy); tests pass small
  // numbers to force several groups or the global fallback.
  DeviceHistogramBuilder(const DeviceMatrix* matrix, const HistogramCuts& cuts,
                         uint32_t max_group_bins = 0);

  // d_out[k * TotalBins() + b] = sum over the rows of segments[k] of the gradients in bin b.
  // d_out holds segments.size() histograms; it is overwritten (zeroed first).
  void Build(const GradientSum* d_gpair, const uint32_t* d_rows,
             const std::vector<RowSegment>& segments, GradientSum* d_out);
  // d_dst[i] = d_parent[i] - d_child[i] for i < n (the sibling of a built child).
  static void Subtract(const GradientSum* d_parent, const GradientSum* d_child, GradientSum* d_dst,
                       std::size_t n);

  const std::vector<FeatureGroup>& groups() const { return groups_; }

 private:
  const DeviceMatrix* matrix_;
  uint32_t total_bins_;
  std::size_t shared_bytes_;  // per block, for the largest shared group
  std::vector<FeatureGroup> groups_;
  DeviceBuffer<FeatureGroup> d_shared_groups_;
  DeviceBuffer<FeatureGroup> d_global_groups_;
  DeviceBuffer<HistBlockTask> d_tasks_;
};

// For tests: histograms of the nodes whose rows are `node_rows`, built on the device.
std::vector<Histogram> BuildHistogramsOnDevice(const DeviceMatrix& matrix,
                                               const HistogramCuts& cuts,
                                               const std::vector<GradientSum>& gpair,
                                               const std::vector<std::vector<uint32_t>>& node_rows,
                                               uint32_t max_group_bins = 0);
#endif  // RINGBOOST_USE_CUDA

}  // namespace ringboost
