// Host side of the device binned matrix (device_matrix.h): shape, memory need, packing, upload.
#include "tree/device_matrix.h"

#include <omp.h>

#include <algorithm>
#include <sstream>

#include "common/error.h"

namespace ringboost {
namespace {

// Writes symbol k (bits wide) into zeroed words.
inline void PutSymbol(uint32_t* words, uint64_t k, uint32_t bits, uint32_t symbol) {
  const uint64_t bit = k * bits;
  const uint64_t word = bit >> 5;
  const uint32_t shift = static_cast<uint32_t>(bit & 31);
  words[word] |= symbol << shift;
  if (shift + bits > 32) words[word + 1] |= symbol >> (32 - shift);
}

// Symbols of row i into slots [0, row_stride) (null after the row's entries).
void RowSymbols(const BinnedMatrix& m, const std::vector<uint32_t>& offsets, uint64_t i,
                const EllpackShape& shape, uint32_t* out) {
  if (m.layout() == BinnedMatrix::Layout::kDense) {
    const std::size_t at = i * shape.row_stride;
    for (uint32_t c = 0; c < shape.row_stride; ++c) {
      const uint32_t local = m.BinBytes() == 1 ? m.dense8()[at + c] : m.dense16()[at + c];
      out[c] = offsets[c] + local;
    }
    return;
  }
  const uint64_t begin = m.row_ptr()[i], end = m.row_ptr()[i + 1];
  uint32_t s = 0;
  for (uint64_t k = begin; k < end; ++k) out[s++] = m.sparse_bins()[k];
  for (; s < shape.row_stride; ++s) out[s] = shape.null_symbol;
}

}  // namespace

uint32_t SymbolBits(uint32_t max_symbol) {
  uint32_t bits = 1;
  while (bits < 32 && (uint64_t{1} << bits) <= max_symbol) ++bits;
  return bits;
}

EllpackShape EllpackShapeOf(const BinnedMatrix& matrix, const HistogramCuts& cuts) {
  EllpackShape shape;
  shape.num_rows = matrix.NumRows();
  shape.num_features = cuts.NumFeatures();
  shape.null_symbol = cuts.TotalBins();
  shape.symbol_bits = SymbolBits(shape.null_symbol);
  shape.dense = matrix.layout() == BinnedMatrix::Layout::kDense;
  if (shape.dense) {
    shape.row_stride = static_cast<uint32_t>(matrix.dense_columns().size());
  } else {
    uint64_t longest = 0;
    const std::vector<uint64_t>& ptr = matrix.row_ptr();
    for (uint64_t i = 0; i < matrix.NumRows(); ++i)
      longest = std::max(longest, ptr[i + 1] - ptr[i]);
    shape.row_stride = static_cast<uint32_t>(longest);
  }
  return shape;
}

std::size_t DeviceMatrixBytes(const EllpackShape& shape) {
  const std::size_t features = shape.num_features;
  std::size_t bytes = shape.NumWords() * sizeof(uint32_t);
  bytes += (features + 1) * sizeof(uint32_t);            // cuts.ptr
  bytes += shape.null_symbol * sizeof(float);            // cut values
  bytes += features * sizeof(float);                     // min values
  if (shape.dense) bytes += features * sizeof(int32_t);  // feature -> slot
  return bytes;
}

std::vector<uint32_t> PackEllpack(const BinnedMatrix& matrix, const HistogramCuts& cuts,
                                  const EllpackShape& shape, int nthread) {
  std::vector<uint32_t> words(shape.NumWords(), 0);
  std::vector<uint32_t> offsets;
  for (uint32_t f : matrix.dense_columns()) offsets.push_back(cuts.ptr[f]);
  constexpr uint64_t kBlockRows = 32;  // 32 rows of any width and bits end on a word boundary
  const int64_t blocks = static_cast<int64_t>((shape.num_rows + kBlockRows - 1) / kBlockRows);
  const int threads = nthread > 0 ? nthread : omp_get_max_threads();
#pragma omp parallel num_threads(threads)
  {
    std::vector<uint32_t> row(shape.row_stride);
#pragma omp for schedule(static)
    for (int64_t b = 0; b < blocks; ++b) {
      const uint64_t end = std::min<uint64_t>(shape.num_rows, (b + 1) * kBlockRows);
      for (uint64_t i = b * kBlockRows; i < end; ++i) {
        RowSymbols(matrix, offsets, i, shape, row.data());
        for (uint32_t s = 0; s < shape.row_stride; ++s) {
          PutSymbol(words.data(), i * shape.row_stride + s, shape.symbol_bits, row[s]);
        }
      }
    }
  }
  return words;
}

std::vector<int32_t> EllpackColumnOf(const BinnedMatrix& matrix, const HistogramCuts& cuts) {
  if (matrix.layout() != BinnedMatrix::Layout::kDense) return {};
  std::vector<int32_t> column_of(cuts.NumFeatures());
  for (uint32_t f = 0; f < cuts.NumFeatures(); ++f) column_of[f] = matrix.ColumnOf(f);
  return column_of;
}

DeviceMatrix DeviceMatrix::Create(const BinnedMatrix& matrix, const HistogramCuts& cuts,
                                  int nthread) {
  DeviceMatrix m;
  m.shape_ = EllpackShapeOf(matrix, cuts);
  std::ostringstream what;
  what << "the binned matrix on the device (" << m.shape_.num_rows << " rows x "
       << m.shape_.row_stride << " slots of " << m.shape_.symbol_bits << " bits)";
  CheckDeviceMemoryFits(DeviceMatrixBytes(m.shape_), QueryDeviceMemory().free_bytes, what.str());
  m.d_words_.CopyFrom(PackEllpack(matrix, cuts, m.shape_, nthread));
  m.d_feature_ptr_.CopyFrom(cuts.ptr);
  m.h_column_of_ = EllpackColumnOf(matrix, cuts);
  m.d_column_of_.CopyFrom(m.h_column_of_);
  m.d_cut_values_.CopyFrom(cuts.values);
  m.d_min_values_.CopyFrom(cuts.min_values);
  return m;
}

EllpackView DeviceMatrix::View() const {
  EllpackView v;
  v.words = d_words_.data();
  v.feature_ptr = d_feature_ptr_.data();
  v.column_of = d_column_of_.data();
  v.shape = shape_;
  return v;
}

}  // namespace ringboost
