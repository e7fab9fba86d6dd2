#include "tree/hist/columnwise.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/error.h"
#include "common/memory.h"
#include "common/parallel.h"
#include "tree/hist/columnwise_kernels.h"

namespace ringboost {
namespace {
constexpr uint64_t kPrefetch = 64;  // entries ahead whose row's code is prefetched (copying)
// The exact root's copy of the rows' gradients goes a block of this many rows at a time: the
// block's floats (512 KiB) stay in the core's L2 while every column's entries in it are copied.
constexpr uint64_t kCopyBlockRows = uint64_t{1} << 16;
constexpr uint64_t kCopyPrefetch = 16;  // entries ahead whose row's gradient is prefetched (L2)
constexpr uint64_t kSlotPrefetch = 32;  // entries ahead whose row's slot is prefetched (a level)
// A level's column marks the bins its entries reach (to gather only those) unless it has at least
// this many entries a cell (EvaluateLevel).
constexpr uint64_t kMarkEntriesPerCell = 1;

// *to = from, past the caches where SSE2 has it: the column copy of the gradients is written
// once a tree and read back from memory level by level, so fetching its lines first (a plain
// store's read for ownership) only adds traffic.
template <typename T>
void StoreStreaming(const T& from, T* to) {
  static_assert(sizeof(T) == 8 && std::is_trivially_copyable_v<T>);
#if defined(__SSE2__) && defined(__x86_64__)
  long long bits;
  std::memcpy(&bits, &from, sizeof(bits));
  _mm_stream_si64(reinterpret_cast<long long*>(to), bits);
#else
  *to = from;
#endif
}

// visit(k) for every entry k in [begin, end) in order, with the per-row array `by_row` prefetched
// at the row of the entry kAhead later: four entries a step, so that the prefetches need no
// bounds checks.
template <uint64_t kAhead, typename T, typename Visit>
void ForEntries(uint64_t begin, uint64_t end, const uint32_t* rows, const T* by_row,
                Visit&& visit) {
  uint64_t k = begin;
  for (; k + kAhead + 4 <= end; k += 4) {
    __builtin_prefetch(by_row + rows[k + kAhead]);
    __builtin_prefetch(by_row + rows[k + kAhead + 1]);
    __builtin_prefetch(by_row + rows[k + kAhead + 2]);
    __builtin_prefetch(by_row + rows[k + kAhead + 3]);
    visit(k);
    visit(k + 1);
    visit(k + 2);
    visit(k + 3);
  }
  for (; k < end; ++k) visit(k);
}

// *to = max(*to, v).
void AtomicMax(std::atomic<float>* to, float v) {
  float seen = to->load(std::memory_order_relaxed);
  while (v > seen && !to->compare_exchange_weak(seen, v, std::memory_order_relaxed)) {
  }
}

// Orders this thread's StoreStreaming stores before its later ones (and so before what a
// barrier orders after them).
void StreamingStoresDone() {
#if defined(__SSE2__) && defined(__x86_64__)
  _mm_sfence();
#endif
}

std::vector<uint32_t> DistinctFeatures(const std::vector<ColumnwiseEvaluator::Split>& splits) {
  std::vector<uint32_t> features;
  for (const ColumnwiseEvaluator::Split& s : splits) features.push_back(s.feature);
  std::sort(features.begin(), features.end());
  features.erase(std::unique(features.begin(), features.end()), features.end());
  return features;
}
}  // namespace

bool ColumnwiseEvaluator::Supports(const BinnedMatrix& matrix, const HistogramCuts& cuts) {
  return matrix.layout() == BinnedMatrix::Layout::kSparse &&
         SparseColumns::Fit(cuts, matrix.NumRows());
}

// The matrix's own columns where it was built by column, else its CSR transposed.
ColumnwiseEvaluator::ColumnwiseEvaluator(const BinnedMatrix& matrix, const HistogramCuts& cuts,
                                         int nthread)
    : cuts_(&cuts), nthread_(nthread), num_rows_(matrix.NumRows()) {
  RB_CHECK(Supports(matrix, cuts));
  for (uint32_t f = 0; f < cuts.NumFeatures(); ++f) {
    max_feature_bins_ = std::max(max_feature_bins_, cuts.FeatureBins(f));
  }
  if (matrix.sparse_columns().empty()) {
    own_ = matrix.TransposeSparse(cuts, nthread);
    columns_ = &own_;
  } else {
    columns_ = &matrix.sparse_columns();
  }
}

bool ColumnwiseEvaluator::Fits(std::size_t num_nodes) const {
  return num_nodes <= kMaxNodes &&
         num_nodes * (max_feature_bins_ * sizeof(GradientSum) + (max_feature_bins_ + 63) / 8) <=
             kMaxScratchBytes;
}

std::size_t ColumnwiseEvaluator::MemoryBytes() const {
  return own_.ptr.size() * sizeof(uint64_t) + own_.rows.size() * sizeof(uint32_t) +
         own_.bins.size() * sizeof(uint16_t) +
         (col_grad_.size() + row_grad_.size()) * sizeof(EntryGradient) + col_code_.size() +
         row_code_.size() + slot8_.size() + slot16_.size() * sizeof(uint16_t) +
         block_starts_.size() * sizeof(uint64_t);
}

uint64_t ColumnwiseEvaluator::ColumnEntries(const std::vector<Split>& splits) const {
  uint64_t entries = 0;
  for (uint32_t f : DistinctFeatures(splits)) entries += columns_->ptr[f + 1] - columns_->ptr[f];
  return entries;
}

void ColumnwiseEvaluator::Directions(const std::vector<Split>& splits,
                                     const RowPartitioner& partitioner,
                                     std::vector<uint8_t>* goes_left) {
  goes_left->resize(num_rows_);
  if (splits.size() < 0xff) {
    slot8_.resize(num_rows_);
    DirectionsBy(splits, partitioner, slot8_.data(), goes_left->data());
  } else {
    RB_CHECK(splits.size() <= kMaxDirections);
    slot16_.resize(num_rows_);
    DirectionsBy(splits, partitioner, slot16_.data(), goes_left->data());
  }
}

// Each row of a split node is marked with its split (every other row with none) and given the
// default side; then each split feature's column is read once, and its entries whose row is
// marked with a split on it decide.
template <typename SlotT>
void ColumnwiseEvaluator::DirectionsBy(const std::vector<Split>& splits,
                                       const RowPartitioner& partitioner, SlotT* mark,
                                       uint8_t* goes_left) {
  constexpr SlotT kNone = static_cast<SlotT>(~SlotT{0});
  const std::vector<uint32_t> features = DistinctFeatures(splits);
  // Each thread marks its own range of rows, then reads the part of each column in that range
  // (a column's rows ascend): no cache line written by two threads, no barrier between the steps.
#pragma omp parallel num_threads(nthread_)
  {
    const RowRange mine =
        RowPartitioner::ThreadRows(num_rows_, omp_get_thread_num(), omp_get_num_threads());
    std::fill(mark + mine.begin, mark + mine.end, kNone);
    for (std::size_t t = 0; t < splits.size(); ++t) {
      const auto [rows, n] = partitioner.NodeRowsIn(splits[t].nid, mine);
      const uint8_t side = splits[t].default_left ? 1 : 0;
      for (uint64_t i = 0; i < n; ++i) {
        mark[rows[i]] = static_cast<SlotT>(t);
        goes_left[rows[i]] = side;
      }
    }
    for (uint32_t f : features) {
      const uint32_t* column = columns_->rows.data();
      const uint32_t* first =
          std::lower_bound(column + columns_->ptr[f], column + columns_->ptr[f + 1], mine.begin);
      const uint32_t* last = std::lower_bound(first, column + columns_->ptr[f + 1], mine.end);
      for (uint64_t k = first - column; k < static_cast<uint64_t>(last - column); ++k) {
        const uint32_t row = column[k];
        const SlotT t = mark[row];
        if (t == kNone || splits[t].feature != f) continue;
        goes_left[row] = static_cast<int32_t>(columns_->bins[k]) <= splits[t].split_bin;
      }
    }
  }
}

std::vector<SplitCandidate> ColumnwiseEvaluator::Evaluate(const std::vector<GradientSum>& gpair,
                                                          const RowPartitioner& partitioner,
                                                          const std::vector<Node>& nodes,
                                                          const SplitEvaluator& evaluator) {
  const std::size_t num_nodes = nodes.size();
  RB_CHECK(Fits(num_nodes));
  const uint32_t nf = cuts_->NumFeatures();
  // Column sampling, where it bites: a node's allowed features as a byte a feature (null: all),
  // one mask for a run of nodes with the same list (level sampling: the whole level).
  std::vector<std::vector<uint8_t>> masks;
  masks.reserve(num_nodes);  // the pointers below stay valid
  std::vector<const std::vector<uint8_t>*> allowed(num_nodes, nullptr);
  const std::vector<uint32_t>* last = nullptr;  // the list of masks.back()
  for (std::size_t s = 0; s < num_nodes; ++s) {
    const std::vector<uint32_t>* list = nodes[s].features;
    if (list == nullptr || list->size() >= nf) continue;
    if (list != last && (last == nullptr || *last != *list)) {
      masks.emplace_back(nf, 0);
      for (uint32_t f : *list) masks.back()[f] = 1;
      last = list;
    }
    allowed[s] = &masks.back();
  }
  if (!gradients_current_) {
    // A tree's first level: its root, every row in the one node. No slots; the rows' gradients
    // are copied beside the entries as they are summed, one gather a tree.
    RB_CHECK_MSG(num_nodes == 1 && partitioner.NodeRange(nodes[0].nid).size() == num_rows_,
                 "a tree's first level evaluated by column is its root");
    gradients_current_ = true;
    // Low-bit gradients (every value within kLevels, every sum within 32 bits: kLevels times the
    // rows within INT32_MAX) go as one-byte codes, summed into Packed32 word cells: one integer
    // add an entry. Other gradients go as two floats each, checked exact.
    bool zero = false;
    int64_t largest = 0;
#pragma omp parallel for schedule(static) num_threads(nthread_) reduction(||      \
                                                                          : zero) \
    reduction(max                                                                 \
              : largest)
    for (uint64_t r = 0; r < num_rows_; ++r) {
      zero = zero || gpair[r] == GradientSum{};
      largest = std::max({largest, gpair[r].g < 0 ? -gpair[r].g : gpair[r].g,
                          gpair[r].h < 0 ? -gpair[r].h : gpair[r].h});
    }
    zero_gradients_ = zero;
    coded_ = largest <=
             std::min<int64_t>(LowBitPolicy::kLevels, INT32_MAX / std::max<uint64_t>(num_rows_, 1));
    if (coded_) {
      if (row_code_.empty()) row_code_.resize(num_rows_);
#pragma omp parallel for schedule(static) num_threads(nthread_)
      for (uint64_t r = 0; r < num_rows_; ++r) row_code_[r] = Code(gpair[r].g, gpair[r].h);
      if (col_code_.empty()) ResizeOnHugePages(&col_code_, columns_->rows.size());
      return EvaluateLevel<uint8_t, true, Sum::kCoded>(nodes, allowed, evaluator);
    }
    if (row_grad_.empty()) {  // huge pages: CopyGradients reads it at scattered rows
      ResizeOnHugePages(&row_grad_, num_rows_);
    }
    bool inexact = false, large = false;
#pragma omp parallel for schedule(static) num_threads(nthread_) reduction(|| : inexact, large)
    for (uint64_t r = 0; r < num_rows_; ++r) {
      row_grad_[r] = EntryGradient{static_cast<float>(gpair[r].g), static_cast<float>(gpair[r].h)};
      inexact = inexact || row_grad_[r].Unpack() != gpair[r];
      large = large || !row_grad_[r].Small();
    }
    RB_CHECK_MSG(!inexact, "a quantized gradient with more than 24 significant bits");
    small_gradients_ = !large;
    if (col_grad_.empty()) {
      ResizeOnHugePages(&col_grad_, columns_->rows.size());
    }
    CopyGradients();
    return small_gradients_ ? EvaluateLevel<uint8_t, true, Sum::kSmall>(nodes, allowed, evaluator)
                            : EvaluateLevel<uint8_t, true, Sum::kFloat>(nodes, allowed, evaluator);
  }
  // Each row's node slot. Rows outside the nodes, and rows whose gradient is zero (they add
  // nothing, as in the row-wise build), get none.
  const bool narrow = num_nodes < 0xff;
  if (narrow) {
    FillSlots(gpair, partitioner, nodes, &slot8_);
  } else {
    FillSlots(gpair, partitioner, nodes, &slot16_);
  }
  if (coded_) {
    return narrow ? EvaluateLevel<uint8_t, false, Sum::kCoded>(nodes, allowed, evaluator)
                  : EvaluateLevel<uint16_t, false, Sum::kCoded>(nodes, allowed, evaluator);
  }
  if (small_gradients_) {
    return narrow ? EvaluateLevel<uint8_t, false, Sum::kSmall>(nodes, allowed, evaluator)
                  : EvaluateLevel<uint16_t, false, Sum::kSmall>(nodes, allowed, evaluator);
  }
  return narrow ? EvaluateLevel<uint8_t, false, Sum::kFloat>(nodes, allowed, evaluator)
                : EvaluateLevel<uint16_t, false, Sum::kFloat>(nodes, allowed, evaluator);
}

// The rows' gradients beside the entries, row block by row block: every column's entries of a
// block read the block's floats from L2, where a column at a time would read the whole 8 MB
// array (1M rows) at scattered rows from the shared cache, a line an entry. The threads split
// each block's columns; the blocks' entry ranges per column are found once.
void ColumnwiseEvaluator::CopyGradients() {
  const uint32_t nf = cuts_->NumFeatures();
  const uint64_t blocks = (num_rows_ + kCopyBlockRows - 1) / kCopyBlockRows;
  const uint32_t* rows = columns_->rows.data();
  if (block_starts_.empty()) {
    block_starts_.resize(static_cast<std::size_t>(nf) * (blocks + 1));
#pragma omp parallel for schedule(static) num_threads(nthread_)
    for (int64_t f = 0; f < static_cast<int64_t>(nf); ++f) {
      const uint32_t* first = rows + columns_->ptr[f];
      const uint32_t* last = rows + columns_->ptr[f + 1];
      for (uint64_t b = 0; b <= blocks; ++b) {
        first = std::lower_bound(first, last, std::min(num_rows_, b * kCopyBlockRows));
        block_starts_[f * (blocks + 1) + b] = static_cast<uint64_t>(first - rows);
      }
    }
  }
  const uint64_t* starts = block_starts_.data();
  const EntryGradient* row_grad = row_grad_.data();
  EntryGradient* col_grad = col_grad_.data();
#pragma omp parallel num_threads(nthread_)
  {
    for (uint64_t b = 0; b < blocks; ++b) {
#pragma omp for schedule(dynamic, 64)
      for (int64_t f = 0; f < static_cast<int64_t>(nf); ++f) {
        const uint64_t* at = starts + f * (blocks + 1) + b;
        ForEntries<kCopyPrefetch>(at[0], at[1], rows, row_grad, [=](uint64_t k) {
          StoreStreaming(row_grad[rows[k]], col_grad + k);
        });
      }
    }
    StreamingStoresDone();
  }
}

// Each thread fills its own range of rows (no cache line written by two threads). Without zero
// gradients in the tree (no row subsampling), the rows' gradients are not read.
template <typename SlotT>
void ColumnwiseEvaluator::FillSlots(const std::vector<GradientSum>& gpair,
                                    const RowPartitioner& partitioner,
                                    const std::vector<Node>& nodes, std::vector<SlotT>* slot) {
  constexpr SlotT kNone = static_cast<SlotT>(~SlotT{0});
  slot->resize(num_rows_);
  SlotT* out = slot->data();
  const bool skip_zero = zero_gradients_;
#pragma omp parallel num_threads(nthread_)
  {
    const RowRange mine =
        RowPartitioner::ThreadRows(num_rows_, omp_get_thread_num(), omp_get_num_threads());
    std::fill(out + mine.begin, out + mine.end, kNone);
    for (std::size_t s = 0; s < nodes.size(); ++s) {
      const auto [rows, n] = partitioner.NodeRowsIn(nodes[s].nid, mine);
      for (uint64_t i = 0; i < n; ++i) {
        if (skip_zero && gpair[rows[i]] == GradientSum{}) continue;
        out[rows[i]] = static_cast<SlotT>(s);
      }
    }
  }
}

template <typename SlotT, bool kGather, ColumnwiseEvaluator::Sum kSum>
std::vector<SplitCandidate> ColumnwiseEvaluator::EvaluateLevel(
    const std::vector<Node>& nodes, const std::vector<const std::vector<uint8_t>*>& allowed,
    const SplitEvaluator& evaluator) {
  constexpr SlotT kNone = static_cast<SlotT>(~SlotT{0});
  constexpr bool kCoded = kSum == Sum::kCoded;
  [[maybe_unused]] constexpr bool kSmall = kSum == Sum::kSmall;
  const SlotT* slot = nullptr;
  if constexpr (sizeof(SlotT) == 1) {
    slot = slot8_.data();
  } else {
    slot = slot16_.data();
  }
  const uint32_t* rows = columns_->rows.data();
  const uint16_t* col_bins = columns_->bins.data();
  EntryGradient* col_grad = col_grad_.data();
  uint8_t* col_code = col_code_.data();
  const uint8_t* row_code = row_code_.data();
  uint64_t code_words[kCodes];
  for (int c = 0; c < kCodes; ++c) code_words[c] = CodeWord(static_cast<uint8_t>(c));
  const std::size_t num_nodes = nodes.size();
  const uint32_t nf = cuts_->NumFeatures();
  std::vector<std::vector<SplitCandidate>> best(nthread_, std::vector<SplitCandidate>(num_nodes));
  // Per node, the largest loss change any thread has found so far: a feature that cannot reach
  // it cannot win either, so threads prune with each other's finds too.
  std::vector<std::atomic<float>> found(num_nodes);
  for (std::atomic<float>& x : found) x.store(-INFINITY, std::memory_order_relaxed);
  ParallelErrors errors;  // each thread allocates its buffers inside the region
#pragma omp parallel num_threads(nthread_)
  {
    const int t = omp_get_thread_num();
    // The level's cells, nodes x the feature's bins, zero between features: GradientSums, or
    // (kCoded) Packed32 words. A node's non-empty ones are gathered in order into `values` and
    // `nonzero` (their bins), and zeroed on the way, to be evaluated.
    std::vector<GradientSum> hist;
    std::vector<uint64_t> packed;
    std::vector<uint8_t> marks;  // per cell: 1 where an entry reached it (marked columns)
    std::vector<GradientSum> values;
    std::vector<uint32_t> nonzero;
    errors.Run([&] {
      if (kCoded) {
        packed.resize(num_nodes * max_feature_bins_);
      } else {
        hist.resize(num_nodes * max_feature_bins_);
      }
      marks.assign(num_nodes * max_feature_bins_ + columnwise_kernels::kMarkChunk, 0);
      values.resize(max_feature_bins_ + columnwise_kernels::kGatherSlack);
      nonzero.resize(max_feature_bins_ + columnwise_kernels::kGatherSlack);
    });
    // Evaluates feature f (`nb` bins) for node s from the cells `h` (or packed `cells`) whose
    // mark is set in `marks`, or (marks null: none set) from every cell, and leaves them zero.
    auto evaluate_node = [&](uint32_t f, uint32_t nb, std::size_t s, GradientSum* h,
                             uint64_t* cells, uint8_t* marks) {
      GradientSum* const vals = values.data();
      uint32_t* const bins = nonzero.data();
      columnwise_kernels::Gathered got;
      if constexpr (kCoded) {
        got = columnwise_kernels::Gather(cells, marks, nb, vals, bins);
      } else {
        got = columnwise_kernels::Gather(h, marks, nb, vals, bins);
      }
      const std::size_t n = got.n;
      if (n == 0) return;  // no candidate (EvaluateCompact finds none)
      const GradientSum present = got.present;
      const int64_t lo = got.lo, hi = got.hi;
      const bool nonnegative_hess = got.hess_or >= 0;
      // Column sampling, then a feature that provably cannot reach a loss change found for
      // the node (no candidate of it could win or tie the final choice either) is not scanned.
      const float must_beat =
          std::max(best[t][s].loss_chg, found[s].load(std::memory_order_relaxed));
      if ((allowed[s] == nullptr || (*allowed[s])[f]) &&
          !(evaluator.LossChangeBound(present, SplitEvaluator::SideGradBound(lo, hi, present.g),
                                      nonnegative_hess, nodes[s].sum, nodes[s].gain) < must_beat)) {
        best[t][s].Update(evaluator.EvaluateCompact(vals, bins, n, present, nodes[s].sum,
                                                    nodes[s].gain, f, must_beat, nodes[s].bounds));
        if (best[t][s].found) AtomicMax(&found[s], best[t][s].loss_chg);
      }
    };
    // The loops below see the buffers through pointers held by value: the cells' SIMD stores may
    // alias anything, so what they read through a reference would be read again every entry.
    GradientSum* const hist_cells = hist.data();
    uint64_t* const packed_cells = packed.data();
    uint8_t* const cell_marks = marks.data();
    const uint64_t* const words_of = code_words;  // by value into the loops, as the cells
#pragma omp for schedule(dynamic, 16)
    for (int64_t fi = 0; fi < static_cast<int64_t>(nf); ++fi) {
      if (marks.empty()) continue;  // this thread's buffers failed
      const uint32_t f = static_cast<uint32_t>(fi);
      const uint32_t nb = cuts_->FeatureBins(f);
      const uint64_t begin = columns_->ptr[f], end = columns_->ptr[f + 1];
      // A column with at least as many entries as the level's cells of it (nodes x bins) fills
      // most of them: no marks are set, and every cell is read.
      const bool marked = end - begin < uint64_t{num_nodes} * nb * kMarkEntriesPerCell;
      // In entry order: the rows, bins and gradients stream; the slots stay in cache.
      auto add_entries = [&](auto mark_tag) {
        constexpr bool kMark = decltype(mark_tag)::value;
        if constexpr (kGather && kCoded) {
          ForEntries<kPrefetch>(begin, end, rows, row_code, [=](uint64_t k) {
            const uint32_t bin = col_bins[k];
            const uint8_t c = row_code[rows[k]];
            col_code[k] = c;
            packed_cells[bin] += words_of[c];
            if constexpr (kMark) cell_marks[bin] = 1;
          });
        } else if constexpr (kGather) {  // the gradients already copied (CopyGradients)
          for (uint64_t k = begin; k < end; ++k) {
            const uint32_t bin = col_bins[k];
            col_grad[k].AddTo<kSmall>(&hist_cells[bin]);
            if constexpr (kMark) cell_marks[bin] = 1;
          }
        } else {
          ForEntries<kSlotPrefetch>(begin, end, rows, slot, [=](uint64_t k) {
            const SlotT s = slot[rows[k]];
            if (s == kNone) return;
            const uint32_t bin = col_bins[k];
            const std::size_t cell = static_cast<std::size_t>(s) * nb + bin;
            if constexpr (kCoded) {
              packed_cells[cell] += words_of[col_code[k]];
            } else {
              col_grad[k].AddTo<kSmall>(&hist_cells[cell]);
            }
            if constexpr (kMark) cell_marks[cell] = 1;
          });
        }
      };
      if (marked) {
        add_entries(std::true_type{});
      } else {
        add_entries(std::false_type{});
      }
      for (std::size_t s = 0; s < num_nodes; ++s) {  // (one at the gather: checked above)
        evaluate_node(f, nb, s, hist_cells + (kCoded ? 0 : s * nb),
                      packed_cells + (kCoded ? s * nb : 0), marked ? cell_marks + s * nb : nullptr);
      }
    }
  }
  // The candidates are ordered by (loss change, then lower feature): any merge order gives the
  // row-wise way's choice.
  std::vector<SplitCandidate> out = best[0];
  for (int t = 1; t < nthread_; ++t) {
    for (std::size_t s = 0; s < num_nodes; ++s) out[s].Update(best[t][s]);
  }
  return out;
}

}  // namespace ringboost
