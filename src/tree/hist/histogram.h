// Gradient histograms (DESIGN.md step 6): per node, the exact integer sums of the quantized
// gradients of its rows in every bin. Threads build private histograms over row blocks of all the
// nodes of a level and then add them up; integer sums make the result independent of the split
// into blocks and threads. A sibling's histogram is its parent's minus the built child's.
#pragma once

#include <cstdint>
#include <vector>

#include "tree/bins/binned_matrix.h"
#include "tree/bins/quantile.h"
#include "tree/gradient.h"
#include "tree/hist/row_partitioner.h"
#include "tree/split_types.h"

namespace ringboost {

// Low-bit mode (gradient.h): the builds sum at most 32767 / LowBitPolicy::kLevels rows at a time
// into 16+16-bit cells (a dense node's 28 x 256 of them fit L1), then widen them into Histogram
// (64+64), so that subtraction and evaluation stay one code. The allreduce moves each node's
// histogram in the narrowest cells its rows over all workers allow (CellBitsFor, gradient.h;
// tree/histogram_sync.cc). The 16+16 cells are Packed16 words (gradient.h).

class HistogramBuilder {
 public:
  // low_bit: the gradients are low-bit (|g|, |h| <= LowBitPolicy::kLevels): dense records then
  // hold them in 2 bytes and the builds sum into narrow cells.
  HistogramBuilder(const BinnedMatrix* matrix, const HistogramCuts* cuts, int nthread,
                   bool low_bit = false);

  // Builds the histograms of `nids` (rows from `partitioner`) into `out` (resized to the total
  // bin count). One call per tree level. reuse_gradients: the rows' gradients are those that an
  // earlier call without it read from `gpair` (the grower's deeper levels: a node's rows are some
  // of the root's, and the gradients do not change within a tree); dense data with narrow rows
  // then reads each row's gradient from beside its bins (the records below).
  void Build(const std::vector<GradientSum>& gpair, const RowPartitioner& partitioner,
             const std::vector<int>& nids, const std::vector<Histogram*>& out,
             bool reuse_gradients = false);

  // Wide data (a histogram too large to keep one per node, e.g. 10,000 sparse features x 256
  // bins): builds node `nid` into wide_hist() and lists in wide_chunks() (ascending) the chunks
  // of 2^kChunkShift bins its rows touched. Only those chunks are summed, read and cleared, so
  // the cost follows the node's entries rather than the bin count. wide_hist() is zero outside
  // wide_chunks(); both are valid until the next call.
  void BuildWide(const std::vector<GradientSum>& gpair, const RowPartitioner& partitioner, int nid);
  const Histogram& wide_hist() const { return wide_out_; }
  Histogram& wide_hist() { return wide_out_; }
  const std::vector<uint32_t>& wide_chunks() const { return wide_chunks_; }
  // Per chunk: 1 when in wide_chunks(), for skipping untouched bins while evaluating.
  const std::vector<uint8_t>& wide_touched() const { return wide_any_; }
  // Marks every chunk touched (dense layout: any bin may be non-zero).
  void MarkAllWideChunksTouched();
  // Marks `chunks` (ascending, a superset of wide_chunks()) touched: the union over the workers
  // after wide_hist() was reduced across them.
  void SetWideChunks(std::vector<uint32_t> chunks);
  static constexpr uint32_t kChunkShift = 4;
  // Whether dense rows are read from records (narrow enough for one; see record_stride_).
  bool UsesRecords() const { return record_stride_ != 0; }
  // How many groups of few-bin columns the records hold as joint bins (see JointGroup).
  std::size_t JointGroups() const { return joint_groups_.size(); }

  // For every k: *parent[k] -= *child[k], element-wise over bins [first, end) (one parallel loop
  // for all): the parent's histogram becomes its other child's in place there.
  static void Subtract(const std::vector<const Histogram*>& child,
                       const std::vector<Histogram*>& parent, int nthread, std::size_t first = 0,
                       std::size_t end = SIZE_MAX);

 private:
  // Not const: without reuse_gradients, the dense builds store the gradients into the records.
  // `thread`: the calling thread (its joint cells).
  void BuildBlock(const std::vector<GradientSum>& gpair, const uint32_t* rows, uint64_t n,
                  GradientSum* hist, bool reuse_gradients, int thread);
  template <typename BinT>
  void BuildDenseBlock(const std::vector<BinT>& bins, const GradientSum* gpair,
                       const uint32_t* rows, uint64_t n, GradientSum* hist, bool reuse_gradients,
                       int thread);
  template <typename BinT>
  void InitRecords(const std::vector<BinT>& bins);
  // Low-bit mode, dense records: at most kNarrowChunkRows rows into `hist`, of Packed16 cells.
  void BuildNarrowBlock(const std::vector<GradientSum>& gpair, const uint32_t* rows, uint64_t n,
                        uint32_t* hist, bool reuse_gradients, int thread);
  template <typename BinT>
  void BuildNarrowDense(const std::vector<BinT>& bins, const GradientSum* gpair,
                        const uint32_t* rows, uint64_t n, uint32_t* hist, bool reuse_gradients,
                        int thread);
  // Bundled matrix: each built histogram (over the bundles' cells) becomes one over the cuts'
  // global bins; a member's cells are a slice of its bundle's, the "no member" cell is dropped.
  void ToGlobalBins(const std::vector<Histogram*>& out) const;
  // Whether this build sums into narrow cells (low-bit mode on dense records).
  bool Narrow() const { return low_bit_ && record_stride_ != 0; }
  uint8_t* Records();  // records_ from its first cache-line-aligned byte
  // BuildWide's two ways for the sparse layout; both fill wide_out_ and mark wide_any_.
  void BuildWideStriped(const std::vector<GradientSum>& gpair, const uint32_t* rows, uint64_t n);
  void BuildWidePrivate(const std::vector<GradientSum>& gpair, const uint32_t* rows, uint64_t n);
  // Up to this many threads, each owns a stripe of bins (every thread reads every row).
  static constexpr int kMaxStripes = 4;
  // Build: a node with at most 1/(kWholeNodeShare * threads) of the level's rows is one task.
  static constexpr uint64_t kWholeNodeShare = 4;

  // Records' joint columns: columns of few bins are stored in a record as one joint bin, the
  // mixed-radix number of their bins (first member the lowest digit, at most kMaxJointBins
  // values), so that a row adds one cell for the group instead of one per member. A build sums
  // a group into joint cells of its own (per thread, kept zero between builds) and then adds each
  // joint cell to the bins of its members (FoldJoint): the same integer sums, fewer updates a
  // row (the dense bench set's four 3-bin features: 25 updates a row instead of 28).
  struct JointGroup {
    std::vector<uint32_t> columns;  // the matrix's columns, lowest digit first
    std::vector<uint32_t> radix;    // their bin counts
    uint32_t cells = 1;             // the product of radix
    uint32_t first = 0;             // its first joint cell
    uint32_t targets = 0;           // its first entry in joint_targets_
  };
  static constexpr uint32_t kMaxJointBins = 256;
  // Fills record_singles_, joint_groups_ and joint_targets_ from the columns' bin counts.
  void PlanJointColumns();
  uint32_t RecordColumns() const {
    return static_cast<uint32_t>(record_singles_.size() + joint_groups_.size());
  }
  // base[r]: where record column r's cells start (a single column's in `hist`, a group's in
  // `joint`).
  template <typename Cell>
  void RecordBases(Cell* hist, Cell* joint, Cell** base) const;
  // Adds every joint cell to its members' cells in `hist` and zeroes it.
  template <typename Cell>
  void FoldJoint(Cell* joint, Cell* hist) const;

  const BinnedMatrix* matrix_;
  const HistogramCuts* cuts_;
  int nthread_;
  std::vector<uint32_t> feature_offsets_;  // dense layout: BinnedMatrix::ColumnOffsets()
  // Dense records: the matrix columns a record holds as themselves (first, in this order), then
  // one joint bin per group; per joint cell (group by group), the histogram cell of each member.
  std::vector<uint32_t> record_singles_;
  std::vector<JointGroup> joint_groups_;
  std::vector<uint32_t> joint_targets_;
  uint32_t joint_cells_ = 0;
  std::vector<std::vector<GradientSum>> joint_tls_;  // per thread: joint cells, zero between uses
  std::vector<std::vector<uint32_t>> narrow_joint_tls_;  // low-bit: the same, Packed16
  // Dense layout, when a record (the row's quantized gradient, then its bins) fits 256 bytes:
  // one record per row, padded to whole cache lines and aligned to them, record_stride_ bytes
  // apart. A node's rows lie scattered over the matrix below the root; with its gradient beside
  // its bins a row costs one or two cache lines, where the bins and the gradient array cost a
  // line each plus the bins' straddles. The copy of the bins (allocated by the first build, once
  // the training values are gone, so the peak memory stays that of loading) is the price. It asks
  // for huge pages (AdviseHugePages): on 4 KiB pages each scattered row cost a TLB miss too.
  uint32_t record_stride_ = 0;
  bool low_bit_ = false;
  uint32_t record_gradient_bytes_ = 0;  // 16 (a GradientSum), or 2 in low-bit mode (int8 g, h)
  std::vector<uint8_t> records_;
  // Low-bit mode: per thread, the 16-bit cells of the chunk being built (raw storage).
  std::vector<std::vector<uint32_t>> narrow_tls_;
  std::vector<std::vector<Histogram>> tls_;  // per thread, per node of the level
  // Wide mode: per thread a histogram kept all zero between calls, its touched-chunk flags and
  // list; the output and its chunks.
  std::vector<Histogram> wide_tls_;
  std::vector<std::vector<uint8_t>> wide_flags_;
  std::vector<std::vector<uint32_t>> wide_lists_;
  std::vector<uint8_t> wide_any_;
  std::vector<uint32_t> wide_stripes_;  // striped way: thread t owns bins [s[t], s[t+1])
  Histogram wide_out_;
  std::vector<uint32_t> wide_chunks_;
};

}  // namespace ringboost
