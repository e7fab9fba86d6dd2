// The binned matrix (DESIGN.md step 3): every stored value replaced by its bin.
//
// Two layouts, chosen by the data:
//  * kDense when every row stores the same features (the dense columns; every other feature has
//    no value at all, e.g. feature 0 of a 1-based LibSVM file read 0-based): row-major
//    num_rows x columns local bin ids, uint8 when every column has at most 256 bins, else uint16.
//    Missing values cannot occur, so no reserved bin is needed and 256 bins fit a byte.
//    (Dense data with some missing values takes the sparse layout; a reserved missing bin would
//    cost uint16 at max_bin 256, and the data sets we measure are either fully dense or sparse.)
//  * kSparse otherwise: CSR of global bin ids (cuts.ptr[f] + local bin), uint32; absent entries
//    are missing.
//  * kDense with bundles (bundled()): data that would be kSparse, given feature bundles
//    (bundles.h): one column per bundle, its local bin 0 when no member is present (missing), else
//    the present member's offset in the bundle plus its local bin. A histogram is built over the
//    bundles' bins (HistBins() cells: each column's at ColumnOffsets()[c], then one cell that is
//    never written) and mapped back to the features' global bins with GlobalToHist().
//  * kSparse built by column (Build's `by_column`, for the column-wise split finding of wide
//    sparse data on one worker, src/tree/hist/columnwise.h): the same entries column by column
//    (SparseColumns), binned a feature at a time straight from the values, and the CSR only
//    when something asks for it (EnsureRows): on the bench's sparse set that skips the row-major
//    binning and the column-wise evaluator's transposition of it.
#pragma once

#include <cstdint>
#include <vector>

#include "common/error.h"
#include "common/memory.h"
#include "data/data.h"
#include "tree/bins/bundles.h"
#include "tree/bins/quantile.h"

namespace ringboost {

// Sparse entries column by column: feature f's entries at [ptr[f], ptr[f + 1]), their rows
// ascending, each with its local bin (global bin - cuts.ptr[f]).
struct SparseColumns {
  std::vector<uint64_t> ptr;  // num_features + 1; empty: none built
  // Filled right after they are sized, on huge pages: written and read at scattered columns.
  std::vector<uint32_t, UninitializedAllocator<uint32_t>> rows;
  std::vector<uint16_t, UninitializedAllocator<uint16_t>> bins;

  bool empty() const { return ptr.empty(); }
  // Whether the columns hold a matrix of `num_rows` rows under `cuts`: rows in 32 bits, every
  // feature's local bins in 16.
  static bool Fit(const HistogramCuts& cuts, uint64_t num_rows);
};

class BinnedMatrix {
 public:
  enum class Layout { kDense, kSparse };
  // The sparse layout's global bins: filled right after they are sized, so never zeroed first.
  using SparseBins = std::vector<uint32_t, UninitializedAllocator<uint32_t>>;

  // bundles: used when given (non-empty) and the data is not dense in every row. by_column: a
  // sparse layout is built by column (see above; taken only where SparseColumns::Fit).
  static BinnedMatrix Build(const DataSet& data, const HistogramCuts& cuts, int nthread,
                            const FeatureBundles* bundles = nullptr, bool by_column = false);

  Layout layout() const { return layout_; }
  uint64_t NumRows() const { return num_rows_; }
  uint32_t NumFeatures() const { return num_features_; }
  int BinBytes() const { return bin_bytes_; }  // dense: 1 or 2; sparse: 4
  std::size_t MemoryBytes() const;

  // Dense: the feature of each column (empty when bundled), and the column of each feature
  // (-1: no values).
  const std::vector<uint32_t>& dense_columns() const { return dense_columns_; }
  int32_t ColumnOf(uint32_t feature) const { return column_of_[feature]; }
  // Dense: the number of columns, and where each column's bins start in the histogram the
  // builder fills (cuts.ptr of its feature; bundled: the bundle's offset in HistBins()).
  uint32_t NumColumns() const { return static_cast<uint32_t>(column_offsets_.size()); }
  const std::vector<uint32_t>& ColumnOffsets() const { return column_offsets_; }
  // Bundled layout: a feature's bins in its column start at local bin MemberOffset(feature).
  bool bundled() const { return bundled_; }
  uint32_t MemberOffset(uint32_t feature) const { return bundled_ ? member_offset_[feature] : 0; }
  // Bundled layout: the cells of a built histogram (HistBins()), and for each global bin of the
  // cuts its cell there (HistBins() - 1, never written, for features without a column).
  uint32_t HistBins() const { return hist_bins_; }
  const std::vector<uint32_t>& GlobalToHist() const { return global_to_hist_; }
  // Dense: row-major local bins (row stride = dense_columns().size()). Exactly one of the two is
  // non-empty.
  const std::vector<uint8_t>& dense8() const { return dense8_; }
  const std::vector<uint16_t>& dense16() const { return dense16_; }
  // Dense: the same bins column by column (column c at c * NumRows()), for the row partition,
  // which reads one column of scattered rows: a column is 1 byte a row where a row-major read
  // costs a cache line a row. Built by BuildColumns(), which the learner calls once the training
  // values are gone, so that the copy does not raise the peak memory.
  void BuildColumns(int nthread);
  const std::vector<uint8_t>& columns8() const { return columns8_; }
  const std::vector<uint16_t>& columns16() const { return columns16_; }
  // Sparse: CSR of global bins. A matrix built by column has its row offsets from the start and
  // its bins once EnsureRows() has run.
  const std::vector<uint64_t>& row_ptr() const { return row_ptr_; }
  const SparseBins& sparse_bins() const {
    RB_CHECK_MSG(!rows_pending_, "the sparse bins of a matrix built by column before EnsureRows()");
    return sparse_bins_;
  }
  // Sparse, built by column: the columns (empty otherwise), and the CSR's bins made from them
  // where they are not yet (once; not thread-safe: call outside parallel regions).
  const SparseColumns& sparse_columns() const { return columns_; }
  bool rows_pending() const { return rows_pending_; }
  void EnsureRows(const HistogramCuts& cuts, int nthread) const;
  // Sparse: the entries column by column, from the CSR (for a matrix not built by column).
  SparseColumns TransposeSparse(const HistogramCuts& cuts, int nthread) const;

  // Global bin of (row, feature), or -1 when missing (slow; for tests and prediction checks).
  int64_t GetBin(uint64_t row, uint32_t feature, const HistogramCuts& cuts) const;

 private:
  // Bundled layout: the columns, offsets and maps of `bundles` (bins filled by the caller).
  void InitBundles(const FeatureBundles& bundles, const HistogramCuts& cuts);

  Layout layout_ = Layout::kSparse;
  uint64_t num_rows_ = 0;
  uint32_t num_features_ = 0;
  int bin_bytes_ = 4;
  std::vector<uint32_t> dense_columns_;
  std::vector<int32_t> column_of_;
  std::vector<uint32_t> column_offsets_;
  bool bundled_ = false;
  std::vector<uint32_t> member_offset_;
  uint32_t hist_bins_ = 0;
  std::vector<uint32_t> global_to_hist_;
  std::vector<uint8_t> dense8_;
  std::vector<uint16_t> dense16_;
  std::vector<uint8_t> columns8_;
  std::vector<uint16_t> columns16_;
  std::vector<uint64_t> row_ptr_{0};
  mutable SparseBins sparse_bins_;
  SparseColumns columns_;
  mutable bool rows_pending_ = false;  // built by column, sparse_bins_ not yet made
};

}  // namespace ringboost
