// Gradient histograms on the device (DESIGN.md step 6, GPU): the same int64 (g, h) sums per
// global bin as HistogramBuilder, for the rows of all the nodes of a level in one launch.
//
// Features are cut into groups of consecutive features whose sums fit one block's shared memory
// (laid out for conflict-free banks: FeatureGroup).
// The level's rows are cut into block tasks (a run of one node's rows); a block takes a contiguous
// run of tasks, adds every (row, slot) whose bin lies in its group into shared sums, and adds
// them to the node's histogram in global memory when the node changes and at the end. Dense rows
// go through a tile buffer in shared memory, each warp loading and adding 32 rows of its own
// (HistTiles). A shared int64 sum is two 32-bit words updated by two 32-bit atomics with the carry
// of the low word (sm_90 has no native 64-bit shared atomic add: the compiler emits a
// compare-and-swap loop), so the sums stay exact modulo 2^64, and the quantizer keeps every true
// sum below 2^62. A feature with more bins than fit shared memory (or data that would need too
// many passes over the rows) goes to one group built with global 64-bit atomics only. Integer
// sums make the result exact and independent of the order of the atomics, hence equal to
// HistogramBuilder bit for bit and the same on every run.
#pragma once

#include <cstdint>
#include <vector>

#include "tree/bins/quantile.h"
#include "tree/gpu_hist/common.h"
#include "tree/gpu_hist/matrix.h"
#include "tree/gradient.h"
#include "tree/split_types.h"

namespace ringboost {

// Features [feature_begin, feature_end), their bins [bin_begin, bin_end), and the ELLPACK slots
// that can hold them [slot_begin, slot_end) (dense: the features' columns; sparse: every slot).
//
// A shared group's sums are laid out as a table of `depth` rows (the most bins of one of its
// features) by `lane_stride` columns: the cell of local bin b of lane l is b * lane_stride + l.
// The lanes are the group's columns when dense (lane = slot - slot_begin) and its features when
// sparse (lane = feature - feature_begin). lane_stride is a multiple of 32, so the lanes of a warp,
// which take neighbouring slots of a row (different features), hit different shared-memory banks
// whatever their bins: a bin-ordered layout would put them in random banks. A group of fewer
// lanes than 32 has a power of two (no padding to a full row of banks).
struct FeatureGroup {
  uint32_t feature_begin = 0, feature_end = 0;
  uint32_t bin_begin = 0, bin_end = 0;
  uint32_t slot_begin = 0, slot_end = 0;
  uint32_t depth = 0, lane_stride = 0;  // shared groups: the table's shape
  bool shared = true;                   // built in shared memory; false: global atomics only
  RB_HOST_DEVICE uint32_t Cells() const { return depth * lane_stride; }
};

// Groups over all features, in feature order: consecutive features while their table (depth x
// lanes rounded up to a multiple of `lane_align`, or below it to a power of two) has at most
// `max_cells` cells; a feature that alone needs more
// goes alone to a global group. When that would take more than `max_shared_groups` passes over
// the rows, one global group of all features instead. `column_of` is EllpackColumnOf (empty when
// sparse), `row_stride` the ELLPACK row width. Pure host code.
std::vector<FeatureGroup> GroupFeatures(const HistogramCuts& cuts, uint32_t max_cells,
                                        uint32_t max_shared_groups,
                                        const std::vector<int32_t>& column_of, uint32_t row_stride,
                                        uint32_t lane_align);

// A node whose histogram to build: its `size` row ids at `rows` (device memory; nullptr: the rows
// 0 .. size-1, in order, as at the root), into output histogram `out`.
struct HistNode {
  const uint32_t* rows = nullptr;
  uint64_t size = 0;
  uint32_t out = 0;
};

// One block task: positions [begin, end) of a node's row ids, into output histogram `out`.
struct HistBlockTask {
  const uint32_t* rows = nullptr;
  uint64_t begin = 0;
  uint64_t end = 0;
  uint32_t out = 0;
};

// Tasks of at most `rows_per_task` rows for `nodes`, node by node; empty nodes give none. Pure
// host code.
std::vector<HistBlockTask> MakeHistBlockTasks(const std::vector<HistNode>& nodes,
                                              uint64_t rows_per_task);

// One sibling by subtraction: dst = parent - child, histograms of TotalBins() bins (device
// pointers).
struct SubtractTask {
  const GradientSum* parent;
  const GradientSum* child;
  GradientSum* dst;
};

// Low-bit gradients (gradient.h: |g|, |h| <= LowBitPolicy::kLevels) reach the histogram kernels
// packed in one 32-bit word, g * 2^16 + h modulo 2^32. The word sum of n rows is the packed word
// of their sums for as long as both sums stay within 16 signed bits, so a shared-memory cell adds
// a row with one 32-bit atomic (NarrowSums, histogram_kernels.cuh) and is emptied into wider sums
// before 2^15 / kLevels rows can have reached it.
RB_HOST_DEVICE inline uint32_t PackLowBit(int64_t g, int64_t h) {
  return static_cast<uint32_t>(static_cast<uint64_t>(g) << 16) + static_cast<uint32_t>(h);
}
// The (g, h) of a packed word (of one row, or of a sum within 16 signed bits each).
RB_HOST_DEVICE inline GradientSum UnpackLowBit(uint32_t w) {
  const auto h = static_cast<int16_t>(w & 0xffffu);
  const auto g = static_cast<int16_t>((w - static_cast<uint32_t>(static_cast<int32_t>(h))) >> 16);
  return GradientSum{g, h};
}

// The gradients a build reads, one a row (device memory): exactly one of the two is set.
struct DeviceHistGradients {
  const GradientSum* exact = nullptr;  // quantized gradients (GradientQuantizer)
  const uint32_t* low_bit = nullptr;   // low-bit ones, packed (PackLowBit)
};

// How a shared-memory histogram kernel runs: its dynamic shared memory (the widest shared group's
// sums, then the row tile), the rows of its tile of dense rows (0: entries gathered one by one)
// and its resident blocks on the whole device.
struct HistSharedLaunch {
  std::size_t shared_bytes = 0;
  uint32_t tile_rows = 0;
  int max_blocks = 1;
  bool warp_tiles = false;  // the tile is cut among the warps (HistTiles::kWarp)
};

// How the dense kernels take their tiles of rows. kBlock: the block loads a tile of up to a row a
// thread, waits at a barrier, adds it, waits again. kWarp: each warp loads and adds 32 rows of its
// own between warp barriers only, so that the warps of a block overlap loads and adds; the block
// waits only where the output histogram changes or the narrow cells fold. Both give the same sums
// (integers). Where a tile of a row a thread does not fit, kWarp runs as kBlock.
enum class HistTiles { kBlock, kWarp };
// RINGBOOST_HIST_TILES=block|warp, for a paired a/b on a device; unset: the default, kWarp.
// Anything else throws naming the allowed values.
HistTiles DefaultHistTiles();

#ifdef RINGBOOST_USE_CUDA
class DeviceHistogramBuilder {
 public:
  // max_group_cells 0: as many as fit the shared memory DevicePolicy gives a block; tests pass
  // small numbers to force several groups or the global fallback.
  DeviceHistogramBuilder(const DeviceMatrix* matrix, const HistogramCuts& cuts,
                         uint32_t max_group_cells = 0, HistTiles tiles = DefaultHistTiles());

  // d_out[k * TotalBins() + b] = sum over the rows of nodes[i] with nodes[i].out == k of the
  // gradients in bin b, for every k < num_out (histograms no node names come out zero). d_out is
  // overwritten (zeroed first); the work is queued on the default stream, not waited for.
  void Build(const DeviceHistGradients& grad, const std::vector<HistNode>& nodes,
             std::size_t num_out, GradientSum* d_out);
  // Every task of d_tasks (device memory, n_tasks of them) over `bins` bins, in one launch.
  static void SubtractMany(const SubtractTask* d_tasks, std::size_t n_tasks, std::size_t bins);

  const std::vector<FeatureGroup>& groups() const { return groups_; }
  // Rows of the shared-memory tile dense rows go through (0: sparse data, or too wide rows).
  uint32_t tile_rows() const { return exact_.tile_rows; }
  // The same for low-bit gradients in packed cells (0: they take the exact cells' kernels).
  uint32_t narrow_tile_rows() const { return narrow_.tile_rows; }
  // Whether the dense tiles are cut among the warps (exact cells; the narrow ones the same).
  bool warp_tiles() const { return exact_.warp_tiles; }
  // Tests: at most `blocks` blocks a shared-memory launch (0: as many as the device holds), so
  // that each block takes several tasks.
  void LimitBlocks(int blocks) { block_limit_ = blocks; }

 private:
  const DeviceMatrix* matrix_;
  uint32_t total_bins_;
  uint32_t max_cells_;  // of the widest shared group
  // Exact cells (SharedSums: int64 sums as pairs of 32-bit words), for exact gradients and for
  // low-bit ones where the narrow kernel does not run.
  HistSharedLaunch exact_;
  // Low-bit gradients on dense tiles: packed cells (NarrowSums); tile_rows 0 where it does not run
  // (sparse data, or more rows than its 32-bit wide sums can take).
  HistSharedLaunch narrow_;
  int block_limit_ = 0;
  std::vector<FeatureGroup> groups_;
  DeviceBuffer<FeatureGroup> d_shared_groups_;
  DeviceBuffer<FeatureGroup> d_global_groups_;
  DeviceBuffer<HistBlockTask> d_tasks_;
};

// For tests: histograms of the nodes whose rows are `node_rows`, built on the device in one
// Build (an empty `node_rows[k]` with `identity_first` makes node 0 the root: all rows in order).
// low_bit: every gradient is within LowBitPolicy::kLevels and goes to the kernels packed.
// block_limit: DeviceHistogramBuilder::LimitBlocks.
std::vector<Histogram> BuildHistogramsOnDevice(
    const DeviceMatrix& matrix, const HistogramCuts& cuts, const std::vector<GradientSum>& gpair,
    const std::vector<std::vector<uint32_t>>& node_rows, uint32_t max_group_cells = 0,
    bool identity_first = false, bool low_bit = false, HistTiles tiles = DefaultHistTiles(),
    int block_limit = 0);
#endif  // RINGBOOST_USE_CUDA

}  // namespace ringboost
