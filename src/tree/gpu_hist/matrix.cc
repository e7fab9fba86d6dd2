// Host side of the device binned matrix (matrix.h): shape, memory need, packing, upload.
#include "tree/gpu_hist/matrix.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <sstream>

#include "common/error.h"

namespace ringboost {
namespace {

// The bytes of a vector of T as a byte vector.
template <typename T>
std::vector<uint8_t> AsBytes(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// Column-major copy of a row-major rows x width array.
template <typename T>
std::vector<T> Transposed(const std::vector<T>& rows, uint64_t num_rows, uint32_t width,
                          int nthread) {
  std::vector<T> out(rows.size());
#pragma omp parallel for schedule(static) num_threads(nthread)
  for (int64_t i = 0; i < static_cast<int64_t>(num_rows); ++i) {
    for (uint32_t c = 0; c < width; ++c) out[c * num_rows + i] = rows[i * width + c];
  }
  return out;
}

template <typename T>
std::vector<uint8_t> SparseSymbols(const BinnedMatrix& m, const EllpackShape& shape, int nthread) {
  std::vector<T> out(shape.NumSymbols(), static_cast<T>(shape.null_symbol));
  const std::vector<uint64_t>& ptr = m.row_ptr();
  const BinnedMatrix::SparseBins& bins = m.sparse_bins();
#pragma omp parallel for schedule(static) num_threads(nthread)
  for (int64_t i = 0; i < static_cast<int64_t>(shape.num_rows); ++i) {
    T* row = out.data() + i * shape.row_stride;
    for (uint64_t k = ptr[i]; k < ptr[i + 1]; ++k) row[k - ptr[i]] = static_cast<T>(bins[k]);
  }
  return AsBytes(out);
}

// A bundled matrix (binned_matrix.h) reaches the device unbundled, in the sparse form: a row's
// global bins of the members present in it, ascending. The sparse ELLPACK keeps only a row's
// present values, which is what the bundles save on the CPU; and a row where a bundle's members
// conflicted holds the value its bundle kept, so the device trains on the CPU's values.
template <typename Fn>
void ForBundleColumns(const BinnedMatrix& m, uint64_t i, Fn fn) {
  const uint32_t columns = m.NumColumns();
  for (uint32_t c = 0; c < columns; ++c) {
    const uint64_t at = i * columns + c;
    fn(c, m.BinBytes() == 1 ? uint32_t{m.dense8()[at]} : uint32_t{m.dense16()[at]});
  }
}

// Present members in row i of a bundled matrix (a column's local bin 0: none of its members).
uint32_t BundledCount(const BinnedMatrix& m, uint64_t i) {
  uint32_t n = 0;
  ForBundleColumns(m, i, [&](uint32_t, uint32_t v) { n += v != 0; });
  return n;
}

class BundledRows {
 public:
  BundledRows(const BinnedMatrix& m, const HistogramCuts& cuts)
      : m_(m), cell_bin_(m.HistBins(), 0) {
    const std::vector<uint32_t>& to_cell = m.GlobalToHist();
    for (uint32_t b = 0; b < cuts.TotalBins(); ++b) {
      if (to_cell[b] + 1 < m.HistBins()) cell_bin_[to_cell[b]] = b;  // the last cell: no column
    }
  }
  // Writes row i's global bins, ascending, to `out`; returns how many.
  template <typename T>
  uint32_t Write(uint64_t i, T* out) const {
    uint32_t n = 0;
    ForBundleColumns(m_, i, [&](uint32_t c, uint32_t v) {
      if (v != 0) out[n++] = static_cast<T>(cell_bin_[m_.ColumnOffsets()[c] + v]);
    });
    std::sort(out, out + n);
    return n;
  }

 private:
  const BinnedMatrix& m_;
  std::vector<uint32_t> cell_bin_;  // the global bin of each member's cell of the bundles
};

template <typename T>
std::vector<uint8_t> BundledSymbols(const BinnedMatrix& m, const HistogramCuts& cuts,
                                    const EllpackShape& shape, int nthread) {
  std::vector<T> out(shape.NumSymbols(), static_cast<T>(shape.null_symbol));
  const BundledRows rows(m, cuts);
#pragma omp parallel for schedule(static) num_threads(nthread)
  for (int64_t i = 0; i < static_cast<int64_t>(shape.num_rows); ++i) {
    rows.Write(i, out.data() + i * shape.row_stride);
  }
  return AsBytes(out);
}

template <typename T>
void DenseSymbols(const std::vector<T>& rows, const std::vector<T>& columns,
                  const EllpackShape& shape, int nthread, EllpackHost* out) {
  out->symbols = AsBytes(rows);
  out->columns = AsBytes(
      columns.empty() ? Transposed(rows, shape.num_rows, shape.row_stride, nthread) : columns);
}

// Uploads the dense bytes straight from the matrix (no host copy of the largest arrays).
void UploadDense(const BinnedMatrix& matrix, const EllpackShape& shape, int nthread,
                 DeviceBuffer<uint8_t>* d_symbols, DeviceBuffer<uint8_t>* d_columns) {
  const auto upload = [](const auto& v, DeviceBuffer<uint8_t>* d) {
    d->CopyFrom(reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(v[0]));
  };
  const auto upload_both = [&](const auto& rows, const auto& columns) {
    upload(rows, d_symbols);
    if (!columns.empty()) return upload(columns, d_columns);
    upload(Transposed(rows, shape.num_rows, shape.row_stride, nthread), d_columns);
  };
  if (shape.symbol_bytes == 1) {
    upload_both(matrix.dense8(), matrix.columns8());
  } else {
    upload_both(matrix.dense16(), matrix.columns16());
  }
}

}  // namespace

EllpackShape EllpackShapeOf(const BinnedMatrix& matrix, const HistogramCuts& cuts) {
  EllpackShape shape;
  shape.num_rows = matrix.NumRows();
  shape.num_features = cuts.NumFeatures();
  shape.null_symbol = cuts.TotalBins();
  shape.dense = matrix.layout() == BinnedMatrix::Layout::kDense && !matrix.bundled();
  if (matrix.bundled()) {
    uint32_t longest = 0;
#pragma omp parallel for schedule(static) reduction(max : longest)
    for (int64_t i = 0; i < static_cast<int64_t>(matrix.NumRows()); ++i) {
      longest = std::max(longest, BundledCount(matrix, i));
    }
    shape.row_stride = longest;
    shape.symbol_bytes = shape.null_symbol <= 0xffff ? 2 : 4;
  } else if (shape.dense) {
    shape.row_stride = static_cast<uint32_t>(matrix.dense_columns().size());
    shape.symbol_bytes = static_cast<uint32_t>(matrix.BinBytes());
  } else {
    uint64_t longest = 0;
    const std::vector<uint64_t>& ptr = matrix.row_ptr();
    for (uint64_t i = 0; i < matrix.NumRows(); ++i)
      longest = std::max(longest, ptr[i + 1] - ptr[i]);
    shape.row_stride = static_cast<uint32_t>(longest);
    shape.symbol_bytes = shape.null_symbol <= 0xffff ? 2 : 4;
  }
  return shape;
}

std::size_t DeviceMatrixBytes(const EllpackShape& shape) {
  const std::size_t features = shape.num_features;
  std::size_t bytes = shape.SymbolArrayBytes() * (shape.dense ? 2 : 1);
  bytes += (features + 1) * sizeof(uint32_t);  // cuts.ptr
  bytes += shape.null_symbol * sizeof(float);  // cut values
  bytes += features * sizeof(float);           // min values
  if (shape.dense) {
    bytes += features * sizeof(int32_t) + shape.row_stride * sizeof(uint32_t);
  } else {
    bytes += shape.null_symbol * sizeof(uint32_t);
  }
  return bytes;
}

EllpackView EllpackHost::View(const HistogramCuts& cuts) const {
  EllpackView v;
  v.symbols = symbols.data();
  v.columns = columns.empty() ? nullptr : columns.data();
  v.feature_ptr = cuts.ptr.data();
  v.column_of = column_of.data();
  v.slot_base = slot_base.data();
  v.bin_feature = bin_feature.data();
  v.shape = shape;
  return v;
}

namespace {
// The feature of each global bin.
std::vector<uint32_t> BinFeature(const HistogramCuts& cuts) {
  std::vector<uint32_t> out(cuts.TotalBins());
  for (uint32_t f = 0; f < cuts.NumFeatures(); ++f) {
    std::fill(out.begin() + cuts.ptr[f], out.begin() + cuts.ptr[f + 1], f);
  }
  return out;
}

// PackEllpack with the matrix's shape already at hand (a bundled matrix's costs a pass).
EllpackHost PackEllpackOfShape(const BinnedMatrix& matrix, const HistogramCuts& cuts,
                               const EllpackShape& shape, int threads) {
  EllpackHost h;
  h.shape = shape;
  if (!h.shape.dense) {
    const bool wide = h.shape.symbol_bytes == 4;
    if (matrix.bundled()) {
      h.symbols = wide ? BundledSymbols<uint32_t>(matrix, cuts, h.shape, threads)
                       : BundledSymbols<uint16_t>(matrix, cuts, h.shape, threads);
    } else {
      h.symbols = wide ? SparseSymbols<uint32_t>(matrix, h.shape, threads)
                       : SparseSymbols<uint16_t>(matrix, h.shape, threads);
    }
    h.bin_feature = BinFeature(cuts);
    return h;
  }
  if (h.shape.symbol_bytes == 1) {
    DenseSymbols(matrix.dense8(), matrix.columns8(), h.shape, threads, &h);
  } else {
    DenseSymbols(matrix.dense16(), matrix.columns16(), h.shape, threads, &h);
  }
  h.column_of = EllpackColumnOf(matrix, cuts);
  for (uint32_t f : matrix.dense_columns()) h.slot_base.push_back(cuts.ptr[f]);
  return h;
}
}  // namespace

EllpackHost PackEllpack(const BinnedMatrix& matrix, const HistogramCuts& cuts, int nthread) {
  const int threads = nthread > 0 ? nthread : omp_get_max_threads();
  return PackEllpackOfShape(matrix, cuts, EllpackShapeOf(matrix, cuts), threads);
}

std::vector<int32_t> EllpackColumnOf(const BinnedMatrix& matrix, const HistogramCuts& cuts) {
  if (matrix.layout() != BinnedMatrix::Layout::kDense || matrix.bundled()) return {};
  std::vector<int32_t> column_of(cuts.NumFeatures());
  for (uint32_t f = 0; f < cuts.NumFeatures(); ++f) column_of[f] = matrix.ColumnOf(f);
  return column_of;
}

DeviceMatrix DeviceMatrix::Create(const BinnedMatrix& matrix, const HistogramCuts& cuts,
                                  int nthread) {
  const int threads = nthread > 0 ? nthread : omp_get_max_threads();
  DeviceMatrix m;
  m.shape_ = EllpackShapeOf(matrix, cuts);
  std::ostringstream what;
  what << "the binned matrix on the device (" << m.shape_.num_rows << " rows x "
       << m.shape_.row_stride << " slots of " << m.shape_.symbol_bytes << " bytes)";
  CheckDeviceMemoryFits(DeviceMatrixBytes(m.shape_), QueryDeviceMemory().free_bytes, what.str());
  if (m.shape_.dense) {
    UploadDense(matrix, m.shape_, threads, &m.d_symbols_, &m.d_columns_);
    m.h_column_of_ = EllpackColumnOf(matrix, cuts);
    std::vector<uint32_t> slot_base;
    for (uint32_t f : matrix.dense_columns()) slot_base.push_back(cuts.ptr[f]);
    m.d_slot_base_.CopyFrom(slot_base);
  } else {
    EllpackHost h = PackEllpackOfShape(matrix, cuts, m.shape_, threads);
    m.d_symbols_.CopyFrom(h.symbols);
    m.d_bin_feature_.CopyFrom(h.bin_feature);
  }
  m.d_column_of_.CopyFrom(m.h_column_of_);
  m.d_feature_ptr_.CopyFrom(cuts.ptr);
  m.d_cut_values_.CopyFrom(cuts.values);
  m.d_min_values_.CopyFrom(cuts.min_values);
  return m;
}

EllpackView DeviceMatrix::View() const {
  EllpackView v;
  v.symbols = d_symbols_.data();
  v.columns = d_columns_.empty() ? nullptr : d_columns_.data();
  v.feature_ptr = d_feature_ptr_.data();
  v.column_of = d_column_of_.data();
  v.slot_base = d_slot_base_.data();
  v.bin_feature = d_bin_feature_.data();
  v.shape = shape_;
  return v;
}

}  // namespace ringboost
