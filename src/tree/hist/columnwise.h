// Split finding for wide sparse data on one worker (DESIGN.md steps 6-7, a faster way for that
// case; LightGBM's column-wise histograms): the nodes of a level are evaluated feature by feature
// from a column-major copy of the binned matrix. A thread takes a feature, adds each of its
// entries into the histogram of the entry's node (nodes x the feature's bins: a few hundred KiB,
// in cache), evaluates the feature for every node its entries reached, clears what it touched and
// moves on. No histogram of all bins is built, cleared or subtracted per node, so the work
// follows the entries. Each tree copies the rows' gradients beside the entries once (two floats,
// 8 bytes an entry, a block of rows at a time so that the rows' copy is read from L2; low-bit
// gradients as a one-byte code whose Packed32 word is added to word cells), so a level reads
// them in order; the one random read per entry is of its row's
// node slot, one byte a row (a few hundred levels of nodes: two), which stays in the core's cache.
// The candidates are the row-wise way's (the same evaluator over the same non-empty bins, the same
// order-free tie rule across features), so the trees are too.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/memory.h"
#include "tree/bins/binned_matrix.h"
#include "tree/bins/quantile.h"
#include "tree/gradient.h"
#include "tree/hist/row_partitioner.h"
#include "tree/hist/split_evaluator.h"

namespace ringboost {

class ColumnwiseEvaluator {
 public:
  // The column-major entries of a sparse-layout matrix (rows ascending within a feature): the
  // matrix's own where it was built by column, else a copy.
  ColumnwiseEvaluator(const BinnedMatrix& matrix, const HistogramCuts& cuts, int nthread);
  ColumnwiseEvaluator(const ColumnwiseEvaluator&) = delete;  // columns_ may point at own_
  ColumnwiseEvaluator& operator=(const ColumnwiseEvaluator&) = delete;

  // Whether the column-major way serves these cuts at all (local bins fit 16 bits).
  static bool Supports(const BinnedMatrix& matrix, const HistogramCuts& cuts);
  // Whether a level of `num_nodes` nodes fits the per-thread scratch.
  bool Fits(std::size_t num_nodes) const;

  struct Node {
    int nid;
    GradientSum sum;                        // the node's total, missing values included
    float gain;                             // its own gain
    const std::vector<uint32_t>* features;  // features allowed (column sampling), ascending;
                                            // null: every feature
    WeightBounds bounds;                    // monotone constraints: its children's box
  };
  // A new tree: the next Evaluate, of its root, copies its gradients beside the entries.
  void NewGradients() { gradients_current_ = false; }
  // The best split of each node (rows from `partitioner`; `gpair` the same from one NewGradients
  // to the next).
  std::vector<SplitCandidate> Evaluate(const std::vector<GradientSum>& gpair,
                                       const RowPartitioner& partitioner,
                                       const std::vector<Node>& nodes,
                                       const SplitEvaluator& evaluator);

  // Where the rows of split nodes go, read from the columns: (*goes_left)[row] for every row of
  // each split's node (sized to the rows), 1 for left. Rows without the feature take the default.
  struct Split {
    int nid;
    uint32_t feature;
    int32_t split_bin;  // local: bins <= split_bin go left
    bool default_left;
  };
  // At most kMaxDirections splits (each row's mark is 16 bits at most).
  void Directions(const std::vector<Split>& splits, const RowPartitioner& partitioner,
                  std::vector<uint8_t>* goes_left);
  static constexpr std::size_t kMaxDirections = 0xfffe;
  // Entries Directions reads for these splits (each feature's column once).
  uint64_t ColumnEntries(const std::vector<Split>& splits) const;

  std::size_t MemoryBytes() const;

  // Low-bit gradients (|g|, |h| <= LowBitPolicy::kLevels) as one byte: the column copy then takes
  // a byte an entry instead of 8 (39 MB instead of 312 on the bench's sparse set) and the root's
  // gather reads a 1 MB array of codes instead of 8 MB of floats. Code(g, h) < kCodes;
  // CodeWord(code) is the Packed32 word of its (g, h).
  static constexpr int kCodeLevels = 2 * LowBitPolicy::kLevels + 1;
  static constexpr int kCodes = kCodeLevels * kCodeLevels;
  static uint8_t Code(int64_t g, int64_t h) {
    return static_cast<uint8_t>((g + LowBitPolicy::kLevels) * kCodeLevels +
                                (h + LowBitPolicy::kLevels));
  }
  static uint64_t CodeWord(uint8_t code) {
    return Packed32::Pack(code / kCodeLevels - LowBitPolicy::kLevels,
                          code % kCodeLevels - LowBitPolicy::kLevels);
  }

  // A row's quantized gradient as two floats: a quantized value is a float times a power of two
  // rounded to an integer, so it has at most 24 significant bits and a float holds it exactly
  // (checked when the rows' gradients are packed). Half the bytes of a GradientSum, in the
  // column copy every level reads and in the root's gather.
  struct EntryGradient {
    float g;
    float h;
    GradientSum Unpack() const {
      return GradientSum{static_cast<int64_t>(g), static_cast<int64_t>(h)};
    }
    // Both under 2^51 in magnitude (every row's, where the data has 2^11 rows or more): then
    // AddTo<true> serves.
    bool Small() const { return std::fabs(g) < 0x1p51f && std::fabs(h) < 0x1p51f; }
    // *cell += Unpack(). kSmall (Small() holds), with SSE2: both values as doubles plus
    // 2^52 + 2^51, whose low 52 bits then hold the integers (two's complement), in three SIMD
    // steps where converting each takes a scalar step and a move.
    template <bool kSmall>
    void AddTo(GradientSum* cell) const {
#if defined(__SSE2__)
      if constexpr (kSmall) {
        const __m128d magic = _mm_set1_pd(0x1.8p52);
        const __m128d d =
            _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(this))));
        const __m128i q =
            _mm_sub_epi64(_mm_castpd_si128(_mm_add_pd(d, magic)), _mm_castpd_si128(magic));
        __m128i* c = reinterpret_cast<__m128i*>(cell);
        _mm_storeu_si128(c, _mm_add_epi64(_mm_loadu_si128(c), q));
        return;
      }
#endif
      *cell += Unpack();
    }
  };

 private:
  static constexpr std::size_t kMaxScratchBytes = std::size_t{4} << 20;  // per thread
  static constexpr std::size_t kMaxNodes = 0xffff;  // slots are 16 bits at most

  // How a level adds an entry's gradient to its cell: kFloat, the two floats converted
  // (EntryGradient::AddTo<false>); kSmall, every gradient of the tree EntryGradient::Small
  // (AddTo<true>); kCoded, every gradient of the tree within LowBitPolicy::kLevels and every sum
  // within 32 bits (low-bit gradients): the entry is a byte, Code(g, h), whose CodeWord is added
  // to a word cell.
  enum class Sum { kFloat, kSmall, kCoded };
  // The level's nodes' histograms and bests, with each row's slot of type SlotT (all ones: none);
  // kGather: one node of every row, no slots; kCoded, the rows' codes copied from row_code_ on the
  // way (else CopyGradients has copied the gradients).
  template <typename SlotT, bool kGather, Sum kSum>
  std::vector<SplitCandidate> EvaluateLevel(const std::vector<Node>& nodes,
                                            const std::vector<const std::vector<uint8_t>*>& allowed,
                                            const SplitEvaluator& evaluator);

  const HistogramCuts* cuts_;
  int nthread_;
  uint64_t num_rows_;
  // The columns: the matrix's (built by column) or own_, its CSR transposed.
  const SparseColumns* columns_ = nullptr;
  SparseColumns own_;
  // The gradients below are not zeroed before they are filled, and lie on huge pages: the
  // root's gather spreads over all the features' columns.
  // Its row's quantized gradient, for the current tree (EntryGradient).
  std::vector<EntryGradient, UninitializedAllocator<EntryGradient>> col_grad_;
  // The rows' gradients as EntryGradients, gathered by the root.
  std::vector<EntryGradient, UninitializedAllocator<EntryGradient>> row_grad_;
  // The same for kCoded trees: the rows' codes and their column copy. Each pair is allocated by
  // the first tree of its kind.
  std::vector<uint8_t, UninitializedAllocator<uint8_t>> row_code_;
  std::vector<uint8_t, UninitializedAllocator<uint8_t>> col_code_;
  bool gradients_current_ = false;
  bool coded_ = false;           // the current tree's entries are codes (Sum::kCoded)
  bool small_gradients_ = true;  // the current tree's are all EntryGradient::Small
  bool zero_gradients_ = false;  // some row of the current tree has a zero gradient
  uint32_t max_feature_bins_ = 1;
  std::vector<uint8_t> slot8_;    // per row, the node slot for the level (< 255 nodes)
  std::vector<uint16_t> slot16_;  // the same, for wider levels
  // (Directions marks each row with its split in the same arrays.)
  // An exact tree's root: row_grad_ into col_grad_ (see the .cc).
  void CopyGradients();
  // Per feature, where each block of CopyGradients's rows starts in its column (and where the
  // column ends): (blocks + 1) entries a feature, found by the first exact tree.
  std::vector<uint64_t> block_starts_;
  // `slot` of every row of the nodes' rows: its node's index (none where its gradient is zero).
  template <typename SlotT>
  void FillSlots(const std::vector<GradientSum>& gpair, const RowPartitioner& partitioner,
                 const std::vector<Node>& nodes, std::vector<SlotT>* slot);
  template <typename SlotT>
  void DirectionsBy(const std::vector<Split>& splits, const RowPartitioner& partitioner,
                    SlotT* mark, uint8_t* goes_left);
};

}  // namespace ringboost
