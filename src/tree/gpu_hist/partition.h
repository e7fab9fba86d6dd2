// Row partition on the device (DESIGN.md step 8, GPU). Each node owns a contiguous range of row
// ids in one of two buffers; splitting a level's nodes cuts each node's positions into tiles of
// kPartitionTileRows (a block each), and one pass over the tiles marks every row that goes left,
// scans the marks in the block and moves the tile's rows into the other buffer: its left rows to
// the node's next free positions from the front, its right rows, as one chunk, to the next from
// the back, both reserved by an atomic on the node's counters. Each child holds the CPU's rows
// (RowPartitioner); their order within it is the tiles' order of reservation, each tile's rows in
// their original order. Nothing reads an order there: the sums over a node's rows are integers.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/error.h"
#include "tree/gpu_hist/common.h"
#include "tree/gpu_hist/matrix.h"
#include "tree/gradient.h"
#include "tree/split_types.h"

namespace ringboost {

// Whether local bin `local` of a categorical split goes left: bit `local` of its left set
// `left_bits` (32 bins a word, CategoryLeftBins packed by PackLeftBits).
RB_HOST_DEVICE inline bool BinGoesLeft(const uint32_t* left_bits, uint32_t local) {
  return ((left_bits[local >> 5] >> (local & 31u)) & 1u) != 0;
}

// Where a split sends a row (hist/split_rule.h's SplitRule): missing -> default_left, else, for a
// numerical split (`left_bits` null), local bin <= split_bin; for a categorical one, the bin's bit
// of `left_bits` (a category the split does not name goes left). Pointers of `matrix` and
// `left_bits` are device or host pointers alike.
RB_HOST_DEVICE inline bool GoesLeft(const EllpackView& matrix, uint64_t row, uint32_t feature,
                                    int32_t split_bin, bool default_left,
                                    const uint32_t* left_bits = nullptr) {
  const int64_t bin = matrix.GetBin(row, feature);
  if (bin < 0) return default_left;
  const int64_t local = bin - static_cast<int64_t>(matrix.feature_ptr[feature]);
  if (left_bits != nullptr) return BinGoesLeft(left_bits, static_cast<uint32_t>(local));
  return local <= split_bin;
}

// `left` (per local bin, 1 where the bin goes left: CategoryLeftBins) as the bit set BinGoesLeft
// reads: bin b is bit b % 32 of word b / 32.
inline std::vector<uint32_t> PackLeftBits(const std::vector<uint8_t>& left) {
  std::vector<uint32_t> bits((left.size() + 31) / 32, 0u);
  for (std::size_t b = 0; b < left.size(); ++b) {
    if (left[b] != 0) bits[b / 32] |= 1u << (b % 32);
  }
  return bits;
}

// Where the row at place k of a tile goes, in a node of positions [begin, end): a left row (the
// tile's left_before left rows before it) to begin + left_base + left_before, a right row to the
// tile's chunk of right rows, which ends right_end positions before the node's end, at its place
// among them. left_base is the node's left rows reserved before the tile; right_end its right rows
// reserved before the tile plus the tile's own.
RB_HOST_DEVICE inline uint64_t TileDestination(uint64_t begin, uint64_t end, uint32_t left_base,
                                               uint32_t right_end, uint32_t k, uint32_t left_before,
                                               bool left) {
  return left ? begin + left_base + left_before : end - right_end + (k - left_before);
}

// A node of the tree being grown, kept by the host for the device's walk (DevicePartitioner::
// AddLeafValues on dense data, where no value is missing: no default direction): a split as
// GoesLeft takes it, or a leaf (left < 0) and its value. A categorical split's left set starts at
// word `cat` of the partitioner's category words (-1: numerical).
struct WalkNode {
  uint32_t feature = 0;
  int32_t split_bin = 0;
  int32_t left = -1, right = -1;
  float value = 0.0f;
  int32_t cat = -1;
};

// A node of the walk as its kernels read it (dense data only, one 16-byte load a level): a
// split reads the row's symbol at `slot` (dense symbols are local bins, and no value is missing)
// and goes left where it is at most `split` (numerical) or its bit is set in the category words
// from word `split` (kCategorical in right_cat); a leaf (left < 0) holds its value's bits in
// `slot`. DenseWalk makes them from the WalkNodes; Next takes one step as GoesLeft would.
struct alignas(16) DenseWalkNode {
  static constexpr uint32_t kCategorical = 1u << 31;
  uint32_t slot = 0;
  int32_t split = 0;
  int32_t left = -1;
  uint32_t right_cat = 0;

  // The child a row whose symbol at `slot` is `symbol` goes to.
  RB_HOST_DEVICE int32_t Next(uint32_t symbol, const uint32_t* cat_words) const {
    const bool go_left = (right_cat & kCategorical) != 0 ? BinGoesLeft(cat_words + split, symbol)
                                                         : static_cast<int64_t>(symbol) <= split;
    return go_left ? left : static_cast<int32_t>(right_cat & ~kCategorical);
  }
};

// The walk's nodes for the device (column_of: the dense matrix's slot of each feature, which
// every split's feature has: a feature without values has no bins to split on).
inline std::vector<DenseWalkNode> DenseWalk(const std::vector<WalkNode>& walk,
                                            const std::vector<int32_t>& column_of) {
  std::vector<DenseWalkNode> out(walk.size());
  for (std::size_t i = 0; i < walk.size(); ++i) {
    const WalkNode& w = walk[i];
    DenseWalkNode& d = out[i];
    d.left = w.left;
    if (w.left < 0) {
      std::memcpy(&d.slot, &w.value, sizeof(float));
      continue;
    }
    RB_CHECK_MSG(w.feature < column_of.size() && column_of[w.feature] >= 0,
                 "the walk splits on feature " << w.feature << ", which has no column");
    d.slot = static_cast<uint32_t>(column_of[w.feature]);
    d.split = w.cat < 0 ? w.split_bin : w.cat;
    d.right_cat = static_cast<uint32_t>(w.right) | (w.cat < 0 ? 0u : DenseWalkNode::kCategorical);
  }
  return out;
}

// One split of a level, as the grower states it.
struct DeviceSplitTask {
  int nid, left, right;
  uint32_t feature;
  int32_t split_bin;  // local bin (numerical splits)
  bool default_left;
  // A categorical split: its left set (PackLeftBits of CategoryLeftBins, a bit per local bin of
  // the feature); empty for a numerical split.
  std::vector<uint32_t> left_bits = {};
};

// What the kernels read of one task (a view; rows move from src to dst).
struct PartitionTaskView {
  uint64_t begin, end;  // the node's positions
  const uint32_t* src;
  uint32_t* dst;
  uint32_t feature;
  int32_t split_bin;
  bool default_left;
  const uint32_t* left_bits;  // device memory; null for a numerical split
  // The level's tiles from first_tile on are this task's, each of kPartitionTileRows positions
  // from begin (the last one may be shorter).
  uint32_t first_tile = 0;
};

constexpr uint32_t kPartitionTileItems = 8;    // positions a thread of a tile takes
constexpr uint64_t kPartitionTileRows = 2048;  // positions a tile (a block of 256 threads) takes

// Rows [rows, rows + n) of one leaf, whose value is `value` (a block's work).
struct LeafChunk {
  const uint32_t* rows;
  uint64_t n;
  float value;
};

// Rows [rows, rows + n) of the leaf `leaf` (an index into the sums; a block's work).
struct LeafSumChunk {
  const uint32_t* rows;
  uint64_t n;
  uint32_t leaf;
};

#ifdef RINGBOOST_USE_CUDA
class DevicePartitioner {
 public:
  // All rows in the root (node 0), in order.
  explicit DevicePartitioner(uint64_t num_rows);
  // Back to all rows in the root, in order (a new tree); keeps the allocations.
  void Reset();

  const RowRange& NodeRange(int nid) const { return ranges_[nid]; }
  const uint32_t* d_node_rows(int nid) const {
    return d_buffers_[where_[nid]].data() + ranges_[nid].begin;
  }
  std::vector<uint32_t> NodeRowsToHost(int nid) const;

  // Applies every split of one level at once (the nodes' ranges are disjoint).
  void Partition(const DeviceMatrix& matrix, const std::vector<DeviceSplitTask>& tasks);
  // Records the splits for the dense leaf walk of AddLeafValues without moving any row: where
  // nothing reads the children's rows (leaves whose values the walk adds), the partition's pass is
  // skipped. The children's NodeRange is then empty.
  void RecordSplits(const std::vector<DeviceSplitTask>& tasks);

  // The prediction cache after a tree (TreeGrower::UpdatePredictions): adds values[k] to
  // d_preds[row * stride + group] for every row of node leaves[k]. One float add per row. Dense
  // data: every row walks the tree's splits (those Partition applied) down to its leaf, in row
  // order, reading its own bins (a row's bytes are contiguous) and its prediction in place, where
  // the leaves' row ids would scatter the reads and writes of the predictions. Sparse data: each
  // leaf's rows by their ids (a row's bin of a feature is a binary search there).
  void AddLeafValues(const DeviceMatrix& matrix, const std::vector<int>& leaves,
                     const std::vector<float>& values, float* d_preds, int stride, int group);
  // Each leaf's sum of d_gpair (device memory, one a row) over its rows on this worker (the
  // leaves' rows must have been partitioned, not only recorded).
  std::vector<GradientSum> LeafSums(const std::vector<int>& leaves, const GradientSum* d_gpair);
  // Dense data, for trees of at most kMaxWalkSumNodes nodes: every row walks the splits recorded
  // since Reset to its leaf, as AddLeafValues does; returns each node's sum of d_gpair over its
  // rows (inner nodes: zero), `num_nodes` of them. Each row's leaf is kept, so that this tree's
  // AddLeafValues adds by it instead of walking again.
  std::vector<GradientSum> WalkLeafSums(const DeviceMatrix& matrix, const GradientSum* d_gpair,
                                        int num_nodes);
  static constexpr int kMaxWalkSumNodes = 2047;  // 4 x 32-bit shared words a node: 32 KiB
  // WalkLeafSums copies the nodes to shared memory where they fit beside the sums in this many
  // bytes (trees of at most 1536 nodes), else reads them from global memory.
  static constexpr std::size_t kWalkSharedBytes = 48 * 1024;

 private:
  void EnsureNode(int nid);
  // The split for the leaf walk (its categorical left set, if any, into the category words).
  void RecordSplit(const DeviceSplitTask& t);
  // The category words of the splits since Reset, uploaded where they changed (device memory;
  // null while there are none).
  const uint32_t* DeviceCategoryWords();
  // Uploads walk_ as the walk kernels read it (DenseWalk) to d_walk_.
  void UploadWalk(const DeviceMatrix& matrix);
  // The kernel of one level (views ordered, non-empty, disjoint; their tiles set here): returns
  // each view's rows that went left.
  std::vector<uint64_t> PartitionTiles(const DeviceMatrix& matrix,
                                       std::vector<PartitionTaskView> views);
  uint64_t num_rows_;
  DeviceBuffer<uint32_t> d_buffers_[2];
  DeviceBuffer<PartitionTaskView> d_tasks_;
  DeviceBuffer<uint32_t> d_counts_;  // each task's left and right rows reserved (PartitionTiles)
  DeviceBuffer<LeafChunk> d_leaf_chunks_;
  DeviceBuffer<LeafSumChunk> d_sum_chunks_;
  DeviceBuffer<GradientSum> d_leaf_sums_;
  DeviceBuffer<uint16_t> d_leaf_of_row_;  // WalkLeafSums: each row's leaf (node id)
  bool leaf_of_row_fresh_ = false;        // d_leaf_of_row_ holds this tree's leaves
  DeviceBuffer<DenseWalkNode> d_walk_;
  std::vector<WalkNode> walk_;  // every node's split since Reset (leaves: left < 0)
  // The left sets of the categorical splits since Reset, one after another (WalkNode::cat), and
  // their copy on the device, which is stale while cat_dirty_.
  std::vector<uint32_t> cat_words_;
  DeviceBuffer<uint32_t> d_cat_words_;
  bool cat_dirty_ = false;
  std::vector<RowRange> ranges_;
  std::vector<uint8_t> where_;
};
#endif  // RINGBOOST_USE_CUDA

}  // namespace ringboost
