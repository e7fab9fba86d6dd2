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
#pragma once

#include <cstdint>
#include <vector>

#include "common/memory.h"
#include "data/data.h"
#include "tree/bins/bundles.h"
#include "tree/bins/quantile.h"

namespace ringboost {

class BinnedMatrix {
 public:
  enum class Layout { kDense, kSparse };
  // The sparse layout's global bins: filled right after they are sized, so never zeroed first.
  using SparseBins = std::vector<uint32_t, UninitializedAllocator<uint32_t>>;

  // bundles: used when given (non-empty) and the data is not dense in every row.
  static BinnedMatrix Build(const DataSet& data, const HistogramCuts& cuts, int nthread,
                            const FeatureBundles* bundles = nullptr);

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
  // Sparse: CSR of global bins.
  const std::vector<uint64_t>& row_ptr() const { return row_ptr_; }
  const SparseBins& sparse_bins() const { return sparse_bins_; }

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
  SparseBins sparse_bins_;
};

}  // namespace ringboost
