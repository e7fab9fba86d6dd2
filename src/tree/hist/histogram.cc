#include "tree/hist/histogram.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "common/error.h"
#include "common/memory.h"
#include "common/parallel.h"
#include "tree/hist/histogram_kernels.h"

namespace ringboost {
namespace {

constexpr uint64_t kHistBlockRows = 2048;  // rows per histogram task of a large node (exact)
// Low-bit builds: rows summed into 16-bit cells before they are widened (CellBitsFor's k16), and
// the rows per task of a large node, so that a task's cells are widened once.
constexpr uint64_t kNarrowChunkRows = 32767 / LowBitPolicy::kLevels;

// Row records (HistogramBuilder::record_stride_): the gradient, then the bins, in whole lines.
constexpr std::size_t kRecordGradientBytes = sizeof(GradientSum);
constexpr std::size_t kMaxRecordBytes = 256;

using hist_kernels::BuildDense;
using hist_kernels::BuildSparse;
using hist_kernels::BuildSparseStripe;
using hist_kernels::kLowBitRecordGradientBytes;
using hist_kernels::kRecordAlign;
using hist_kernels::LowBitGradient;
using hist_kernels::RecordRows;
using hist_kernels::SplitRows;
using hist_kernels::Widen;

}  // namespace

HistogramBuilder::HistogramBuilder(const BinnedMatrix* matrix, const HistogramCuts* cuts,
                                   int nthread, bool low_bit)
    : matrix_(matrix),
      cuts_(cuts),
      nthread_(nthread),
      low_bit_(low_bit),
      record_gradient_bytes_(low_bit ? kLowBitRecordGradientBytes : kRecordGradientBytes),
      narrow_tls_(nthread),
      tls_(nthread) {
  feature_offsets_ = matrix->ColumnOffsets();
  if (matrix->layout() == BinnedMatrix::Layout::kDense) PlanJointColumns();
  const std::size_t record_bytes =
      record_gradient_bytes_ + RecordColumns() * static_cast<std::size_t>(matrix->BinBytes());
  if (matrix->layout() == BinnedMatrix::Layout::kDense && record_bytes <= kMaxRecordBytes) {
    // Low-bit records of at most half a line are packed two to a line (they never straddle).
    const std::size_t align =
        low_bit && record_bytes <= kRecordAlign / 2 ? kRecordAlign / 2 : kRecordAlign;
    record_stride_ = static_cast<uint32_t>((record_bytes + align - 1) / align * align);
  }
  if (record_stride_ == 0) {  // the matrix's rows are read as they are
    record_singles_.clear();
    joint_groups_.clear();
    joint_targets_.clear();
    joint_cells_ = 0;
  }
  joint_tls_.assign(nthread, std::vector<GradientSum>(joint_cells_));
  narrow_joint_tls_.assign(nthread, std::vector<uint32_t>(joint_cells_, 0));
}

// Columns of at most kMaxJointBins / 2 bins, fewest bins first, fill groups while the product of
// their bin counts stays within kMaxJointBins; a group of one stays a single column.
void HistogramBuilder::PlanJointColumns() {
  const uint32_t columns = static_cast<uint32_t>(feature_offsets_.size());
  std::vector<uint32_t> bins(columns);
  for (uint32_t c = 0; c < columns; ++c) {
    if (matrix_->bundled()) {
      // A bundle's cells run up to the next one's, the last one's to HistBins() - 1.
      const uint32_t end = c + 1 < columns ? feature_offsets_[c + 1] : matrix_->HistBins() - 1;
      bins[c] = end - feature_offsets_[c];
    } else {
      bins[c] = cuts_->FeatureBins(matrix_->dense_columns()[c]);
    }
  }
  std::vector<uint32_t> order;
  for (uint32_t c = 0; c < columns; ++c) {
    if (bins[c] <= kMaxJointBins / 2) order.push_back(c);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&bins](uint32_t a, uint32_t b) { return bins[a] < bins[b]; });
  std::vector<uint8_t> joint(columns, 0);
  JointGroup group;
  auto close = [&] {
    if (group.columns.size() >= 2) {
      group.first = joint_cells_;
      group.targets = static_cast<uint32_t>(joint_targets_.size());
      joint_cells_ += group.cells;
      for (uint32_t code = 0; code < group.cells; ++code) {
        uint32_t rest = code;
        for (std::size_t i = 0; i < group.columns.size(); ++i) {
          joint_targets_.push_back(feature_offsets_[group.columns[i]] + rest % group.radix[i]);
          rest /= group.radix[i];
        }
      }
      for (uint32_t c : group.columns) joint[c] = 1;
      joint_groups_.push_back(group);
    }
    group = JointGroup();
  };
  for (uint32_t c : order) {
    if (group.cells * bins[c] > kMaxJointBins) close();
    group.columns.push_back(c);
    group.radix.push_back(bins[c]);
    group.cells *= bins[c];
  }
  close();
  for (uint32_t c = 0; c < columns; ++c) {
    if (!joint[c]) record_singles_.push_back(c);
  }
}

template <typename Cell>
void HistogramBuilder::RecordBases(Cell* hist, Cell* joint, Cell** base) const {
  uint32_t r = 0;
  for (uint32_t c : record_singles_) base[r++] = hist + feature_offsets_[c];
  for (const JointGroup& g : joint_groups_) base[r++] = joint + g.first;
}

template <typename Cell>
void HistogramBuilder::FoldJoint(Cell* joint, Cell* hist) const {
  for (const JointGroup& g : joint_groups_) {
    const std::size_t members = g.columns.size();
    const uint32_t* target = joint_targets_.data() + g.targets;
    for (uint32_t code = 0; code < g.cells; ++code, target += members) {
      Cell& cell = joint[g.first + code];
      for (std::size_t i = 0; i < members; ++i)
        hist_kernels::CellOps<Cell>::Add(hist[target[i]], cell);
      cell = Cell{};
    }
  }
}

template <typename BinT>
void HistogramBuilder::BuildNarrowDense(const std::vector<BinT>& bins, const GradientSum* gpair,
                                        const uint32_t* rows, uint64_t n, uint32_t* hist,
                                        bool reuse_gradients, int thread) {
  using Cell = uint32_t;  // Packed16
  const uint32_t columns = RecordColumns();
  Cell* on_stack[kMaxRecordBytes];  // a record holds fewer columns than bytes
  Cell* joint = narrow_joint_tls_[thread].data();
  RecordBases(hist, joint, on_stack);
  (void)bins;  // gives BinT only: the records hold their own copy of the bins
  if (reuse_gradients) {
    BuildDense<BinT>(
        RecordRows<BinT, false, LowBitGradient, Cell>{Records(), record_stride_, gpair}, columns,
        on_stack, rows, n);
  } else {
    BuildDense<BinT>(RecordRows<BinT, true, LowBitGradient, Cell>{Records(), record_stride_, gpair},
                     columns, on_stack, rows, n);
  }
  FoldJoint(joint, hist);
}

void HistogramBuilder::BuildNarrowBlock(const std::vector<GradientSum>& gpair, const uint32_t* rows,
                                        uint64_t n, uint32_t* hist, bool reuse_gradients,
                                        int thread) {
  if (matrix_->BinBytes() == 1) {
    BuildNarrowDense(matrix_->dense8(), gpair.data(), rows, n, hist, reuse_gradients, thread);
  } else {
    BuildNarrowDense(matrix_->dense16(), gpair.data(), rows, n, hist, reuse_gradients, thread);
  }
}

template <typename BinT>
void HistogramBuilder::BuildDenseBlock(const std::vector<BinT>& bins, const GradientSum* gpair,
                                       const uint32_t* rows, uint64_t n, GradientSum* hist,
                                       bool reuse_gradients, int thread) {
  const uint32_t num_features = feature_offsets_.size();
  GradientSum* on_stack[64];
  std::vector<GradientSum*> on_heap;
  GradientSum** base = on_stack;
  if (num_features > 64) {
    on_heap.resize(num_features);
    base = on_heap.data();
  }
  if (record_stride_ == 0) {
    for (uint32_t f = 0; f < num_features; ++f) base[f] = hist + feature_offsets_[f];
    BuildDense<BinT>(SplitRows<BinT>{bins.data(), num_features, gpair}, num_features, base, rows,
                     n);
    return;
  }
  GradientSum* joint = joint_tls_[thread].data();
  RecordBases(hist, joint, base);
  if (reuse_gradients) {
    BuildDense<BinT>(RecordRows<BinT, false>{Records(), record_stride_, gpair}, RecordColumns(),
                     base, rows, n);
  } else {
    BuildDense<BinT>(RecordRows<BinT, true>{Records(), record_stride_, gpair}, RecordColumns(),
                     base, rows, n);
  }
  FoldJoint(joint, hist);
}

void HistogramBuilder::BuildBlock(const std::vector<GradientSum>& gpair, const uint32_t* rows,
                                  uint64_t n, GradientSum* hist, bool reuse_gradients, int thread) {
  if (matrix_->layout() == BinnedMatrix::Layout::kDense) {
    if (matrix_->BinBytes() == 1) {
      BuildDenseBlock(matrix_->dense8(), gpair.data(), rows, n, hist, reuse_gradients, thread);
    } else {
      BuildDenseBlock(matrix_->dense16(), gpair.data(), rows, n, hist, reuse_gradients, thread);
    }
  } else {
    BuildSparse(matrix_->row_ptr().data(), matrix_->sparse_bins().data(), gpair.data(), rows, n,
                hist);
  }
}

// The records (see the header), with the bins copied from the matrix; their gradients are filled
// by the builds.
template <typename BinT>
void HistogramBuilder::InitRecords(const std::vector<BinT>& bins) {
  const uint64_t rows = matrix_->NumRows();
  const uint32_t columns = static_cast<uint32_t>(feature_offsets_.size());
  const std::size_t row_bytes = columns * sizeof(BinT);
  // Reserved first, so that the huge-page hint comes before the pages are touched.
  records_.reserve(rows * record_stride_ + kRecordAlign);
  AdviseHugePages(records_.data(), records_.capacity());
  records_.assign(rows * record_stride_ + kRecordAlign, 0);
  uint8_t* records = Records();
  const int64_t n = static_cast<int64_t>(rows);
#pragma omp parallel for schedule(static) num_threads(nthread_)
  for (int64_t r = 0; r < n; ++r) {
    const BinT* row = bins.data() + r * columns;
    BinT* record = reinterpret_cast<BinT*>(records + r * record_stride_ + record_gradient_bytes_);
    if (joint_groups_.empty()) {
      std::memcpy(record, row, row_bytes);
      continue;
    }
    for (uint32_t c : record_singles_) *record++ = row[c];
    for (const JointGroup& g : joint_groups_) {
      uint32_t code = 0;
      for (std::size_t i = g.columns.size(); i-- > 0;) code = code * g.radix[i] + row[g.columns[i]];
      *record++ = static_cast<BinT>(code);
    }
  }
}

uint8_t* HistogramBuilder::Records() {
  const auto at = reinterpret_cast<uintptr_t>(records_.data());
  return records_.data() + (kRecordAlign - at % kRecordAlign) % kRecordAlign;
}

void HistogramBuilder::Build(const std::vector<GradientSum>& gpair,
                             const RowPartitioner& partitioner, const std::vector<int>& nids,
                             const std::vector<Histogram*>& out, bool reuse_gradients) {
  // Bundled columns: built over the bundles' bins, then mapped to the features' (ToGlobalBins).
  const std::size_t n_bins = matrix_->HistBins();
  if (record_stride_ != 0 && records_.empty()) {  // first build: after the training values are gone
    if (matrix_->BinBytes() == 1) InitRecords(matrix_->dense8());
    if (matrix_->BinBytes() == 2) InitRecords(matrix_->dense16());
  }
  // A node with at most this many rows is one task that builds straight into its output, with no
  // private copies to clear and add up; larger nodes are split into blocks over private
  // histograms.
  uint64_t level_rows = 0;
  for (int nid : nids) level_rows += partitioner.NodeRange(nid).size();
  const uint64_t block_rows = Narrow() ? kNarrowChunkRows : kHistBlockRows;
  const uint64_t whole_rows =
      nthread_ == 1 ? level_rows
                    : std::max<uint64_t>(block_rows, level_rows / (kWholeNodeShare * nthread_));
  struct Task {
    std::size_t node;
    const uint32_t* rows;
    uint64_t n;
    bool whole;
  };
  std::vector<Task> tasks;
  for (std::size_t k = 0; k < nids.size(); ++k) {
    const uint64_t size = partitioner.NodeRange(nids[k]).size();
    const uint32_t* rows = partitioner.NodeRows(nids[k]);
    if (size <= whole_rows) {
      tasks.push_back(Task{k, rows, size, true});
      continue;
    }
    for (uint64_t b = 0; b < size; b += block_rows) {
      tasks.push_back(Task{k, rows + b, std::min(size - b, block_rows), false});
    }
  }
  // Each node's histogram, and a private one per thread for each node built in blocks.
  uint64_t block_nodes = 0;
  for (std::size_t k = 0; k < nids.size(); ++k) {
    block_nodes += partitioner.NodeRange(nids[k]).size() > whole_rows;
  }
  const uint64_t histograms =
      AddSat(nids.size(), MulSat(static_cast<uint64_t>(nthread_), block_nodes));
  CheckAllocation(
      MulSat(MulSat(histograms, n_bins), sizeof(GradientSum)), "the histograms of a tree level",
      std::to_string(nids.size()) + " nodes + " + std::to_string(nthread_) + " threads x " +
          std::to_string(block_nodes) + " large nodes, x " + std::to_string(n_bins) + " bins x " +
          std::to_string(sizeof(GradientSum)) + " bytes",
      "lower max_bin, max_depth or max_leaves, or nthread");
  // Largest first, so that the last tasks to start are small (the threads end together).
  std::stable_sort(tasks.begin(), tasks.end(),
                   [](const Task& a, const Task& b) { return a.n > b.n; });
  // used[t][k]: thread t wrote into its private histogram of node k (a node of blocks).
  std::vector<std::vector<uint8_t>> used(nthread_, std::vector<uint8_t>(nids.size(), 0));
  for (auto& t : tls_) {
    if (t.size() < nids.size()) t.resize(nids.size());
  }
  ParallelErrors errors;  // the histograms are allocated here, inside the region
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthread_)
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    errors.Run([&] {
      const int t = omp_get_thread_num();
      const Task& task = tasks[i];
      // The histogram this task adds to: its node's, or this thread's copy for a node of
      // blocks; `fresh` where nothing of this level is in it yet.
      Histogram& hist = task.whole ? *out[task.node] : tls_[t][task.node];
      const bool fresh = task.whole || !used[t][task.node];
      if (!task.whole) used[t][task.node] = 1;
      if (!Narrow()) {
        if (fresh) hist.assign(n_bins, GradientSum{});
        BuildBlock(gpair, task.rows, task.n, hist.data(), reuse_gradients, t);
        return;
      }
      // Low-bit: at most kNarrowChunkRows rows at a time into this thread's 16-bit cells (a
      // dense node's fit L1), each chunk then widened into the histogram (the first of a fresh
      // one written over it, not added to zeros).
      if (fresh && task.n == 0) hist.assign(n_bins, GradientSum{});
      if (fresh) hist.resize(n_bins);
      for (uint64_t b = 0; b < task.n; b += kNarrowChunkRows) {
        const uint64_t m = std::min(task.n - b, kNarrowChunkRows);
        std::vector<uint32_t>& cells = narrow_tls_[t];
        cells.assign(n_bins, 0);
        BuildNarrowBlock(gpair, task.rows + b, m, cells.data(), reuse_gradients, t);
        Widen(cells.data(), hist.data(), n_bins, /*add=*/!(fresh && b == 0));
      }
    });
  }
  errors.Rethrow();
  // Reduce the private histograms of each node of blocks, parallel over nodes and bin ranges.
  std::vector<std::size_t> split_nodes;
  for (std::size_t k = 0; k < nids.size(); ++k) {
    if (partitioner.NodeRange(nids[k]).size() > whole_rows) split_nodes.push_back(k);
  }
  for (std::size_t k : split_nodes) out[k]->resize(n_bins);
  const std::size_t kChunk = 4096;
  const std::size_t chunks = (n_bins + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) num_threads(nthread_) collapse(2)
  for (std::size_t j = 0; j < split_nodes.size(); ++j) {
    for (std::size_t c = 0; c < chunks; ++c) {
      const std::size_t k = split_nodes[j];
      GradientSum* dst = out[k]->data();
      const std::size_t begin = c * kChunk, end = std::min(n_bins, (c + 1) * kChunk);
      std::fill(dst + begin, dst + end, GradientSum{});
      for (int t = 0; t < nthread_; ++t) {
        if (!used[t][k]) continue;
        const GradientSum* src = tls_[t][k].data();
        for (std::size_t b = begin; b < end; ++b) dst[b] += src[b];
      }
    }
  }
  if (matrix_->bundled()) ToGlobalBins(out);
}

void HistogramBuilder::ToGlobalBins(const std::vector<Histogram*>& out) const {
  const std::vector<uint32_t>& cell = matrix_->GlobalToHist();
  ParallelErrors errors;
#pragma omp parallel for schedule(static) num_threads(nthread_)
  for (std::size_t k = 0; k < out.size(); ++k) {
    errors.Run([&] {
      Histogram global(cell.size());
      const GradientSum* src = out[k]->data();
      for (std::size_t b = 0; b < cell.size(); ++b) global[b] = src[cell[b]];
      *out[k] = std::move(global);
    });
  }
  errors.Rethrow();
}

void HistogramBuilder::BuildWide(const std::vector<GradientSum>& gpair,
                                 const RowPartitioner& partitioner, int nid) {
  const std::size_t n_bins = cuts_->TotalBins();
  const std::size_t n_chunks = (n_bins >> kChunkShift) + 1;
  const std::size_t chunk = std::size_t{1} << kChunkShift;
  if (wide_out_.size() != n_bins) {
    wide_out_.assign(n_bins, GradientSum{});
    wide_any_.assign(n_chunks, 0);
    wide_chunks_.clear();
  }
  for (uint32_t c : wide_chunks_) {  // clear the previous node
    std::fill(wide_out_.begin() + c * chunk, wide_out_.begin() + std::min(n_bins, (c + 1) * chunk),
              GradientSum{});
    wide_any_[c] = 0;
  }
  wide_chunks_.clear();
  if (matrix_->layout() == BinnedMatrix::Layout::kDense) {  // every chunk is touched
    std::vector<Histogram*> out{&wide_out_};
    Build(gpair, partitioner, {nid}, out);
    MarkAllWideChunksTouched();
    return;
  }
  const uint64_t n = partitioner.NodeRange(nid).size();
  const uint32_t* rows = partitioner.NodeRows(nid);
  if (nthread_ <= kMaxStripes) {
    BuildWideStriped(gpair, rows, n);
  } else {
    BuildWidePrivate(gpair, rows, n);
  }
  for (uint32_t c = 0; c < n_chunks; ++c) {  // ascending, without a sort
    if (wide_any_[c]) wide_chunks_.push_back(c);
  }
}

// Few threads: each owns a stripe of bins with about the same number of entries, and adds its
// stripe's entries of every row straight into the output. No private copies, nothing to merge,
// and the one output histogram stays in cache.
void HistogramBuilder::BuildWideStriped(const std::vector<GradientSum>& gpair, const uint32_t* rows,
                                        uint64_t n) {
  if (wide_stripes_.empty()) {
    // Stripe bounds at chunk edges, balanced by the entries of the whole matrix.
    const std::size_t n_bins = cuts_->TotalBins();
    std::vector<uint64_t> per_chunk((n_bins >> kChunkShift) + 1, 0);
    for (uint32_t b : matrix_->sparse_bins()) ++per_chunk[b >> kChunkShift];
    const uint64_t total = matrix_->sparse_bins().size();
    wide_stripes_.push_back(0);
    uint64_t seen = 0;
    for (std::size_t c = 0; c < per_chunk.size(); ++c) {
      seen += per_chunk[c];
      const std::size_t t = wide_stripes_.size();
      if (static_cast<int>(t) < nthread_ && seen * nthread_ >= total * t) {
        wide_stripes_.push_back(static_cast<uint32_t>((c + 1) << kChunkShift));
      }
    }
    while (static_cast<int>(wide_stripes_.size()) <= nthread_) {
      wide_stripes_.push_back(static_cast<uint32_t>(n_bins));
    }
    wide_stripes_.back() = static_cast<uint32_t>(n_bins);
  }
#pragma omp parallel num_threads(nthread_)
  {
    const int t = omp_get_thread_num();
    BuildSparseStripe(matrix_->row_ptr().data(), matrix_->sparse_bins().data(), gpair.data(), rows,
                      n, wide_stripes_[t], wide_stripes_[t + 1], wide_out_.data(),
                      wide_any_.data());
  }
}

// Many threads: private histograms over row blocks, merged over the touched chunks.
void HistogramBuilder::BuildWidePrivate(const std::vector<GradientSum>& gpair, const uint32_t* rows,
                                        uint64_t n) {
  const std::size_t n_bins = cuts_->TotalBins();
  const std::size_t n_chunks = (n_bins >> kChunkShift) + 1;
  const std::size_t chunk = std::size_t{1} << kChunkShift;
  if (wide_tls_.size() != static_cast<std::size_t>(nthread_)) {
    CheckAllocation(MulSat(MulSat(static_cast<uint64_t>(nthread_), n_bins), sizeof(GradientSum)),
                    "the threads' histograms",
                    std::to_string(nthread_) + " threads x " + std::to_string(n_bins) + " bins x " +
                        std::to_string(sizeof(GradientSum)) + " bytes",
                    "lower max_bin or nthread");
    wide_tls_.assign(nthread_, Histogram(n_bins));
    wide_flags_.assign(nthread_, std::vector<uint8_t>(n_chunks, 0));
    wide_lists_.assign(nthread_, {});
  }
  const uint64_t blocks = (n + kHistBlockRows - 1) / kHistBlockRows;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthread_)
  for (uint64_t b = 0; b < blocks; ++b) {
    const int t = omp_get_thread_num();
    const uint64_t begin = b * kHistBlockRows;
    const uint64_t end = std::min(n, begin + kHistBlockRows);
    BuildSparse(matrix_->row_ptr().data(), matrix_->sparse_bins().data(), gpair.data(),
                rows + begin, end - begin, wide_tls_[t].data(), wide_flags_[t].data(),
                &wide_lists_[t]);
  }
  std::vector<uint32_t> touched;
  for (const auto& list : wide_lists_) {
    for (uint32_t c : list) {
      if (!wide_any_[c]) touched.push_back(c);
      wide_any_[c] = 1;
    }
  }
#pragma omp parallel for schedule(static) num_threads(nthread_)
  for (std::size_t i = 0; i < touched.size(); ++i) {
    const std::size_t c = touched[i];
    const std::size_t end = std::min(n_bins, (c + 1) * chunk);
    for (int t = 0; t < nthread_; ++t) {
      if (!wide_flags_[t][c]) continue;
      GradientSum* src = wide_tls_[t].data();
      for (std::size_t b = c * chunk; b < end; ++b) {
        wide_out_[b] += src[b];
        src[b] = GradientSum{};
      }
    }
  }
  for (int t = 0; t < nthread_; ++t) {
    for (uint32_t c : wide_lists_[t]) wide_flags_[t][c] = 0;
    wide_lists_[t].clear();
  }
}

void HistogramBuilder::SetWideChunks(std::vector<uint32_t> chunks) {
  for (uint32_t c : chunks) wide_any_[c] = 1;
  wide_chunks_ = std::move(chunks);
}

void HistogramBuilder::MarkAllWideChunksTouched() {
  wide_chunks_.clear();
  for (uint32_t c = 0; (std::size_t{c} << kChunkShift) < wide_out_.size(); ++c) {
    wide_chunks_.push_back(c);
    wide_any_[c] = 1;
  }
}

void HistogramBuilder::Subtract(const std::vector<const Histogram*>& child,
                                const std::vector<Histogram*>& parent, int nthread,
                                std::size_t first, std::size_t end) {
  RB_CHECK(child.size() == parent.size());
  for (std::size_t k = 0; k < parent.size(); ++k) RB_CHECK(parent[k]->size() == child[k]->size());
  const std::size_t n_bins = std::min(end, parent.empty() ? 0 : parent[0]->size());
#pragma omp parallel for schedule(static) num_threads(nthread)
  for (std::size_t k = 0; k < parent.size(); ++k) {
    const GradientSum* c = child[k]->data();
    GradientSum* d = parent[k]->data();
    for (std::size_t b = first; b < n_bins; ++b) d[b] -= c[b];
  }
}

}  // namespace ringboost
