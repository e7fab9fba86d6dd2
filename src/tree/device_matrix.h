// The binned matrix on the device (DESIGN.md step 3, GPU): ELLPACK-like. Every row has the same
// number of slots (row_stride); each slot holds a global bin id (cuts.ptr[f] + local bin) packed
// in symbol_bits bits, the smallest width that holds 0..TotalBins(); the symbol TotalBins() is
// the null slot (a missing value, or padding after a short sparse row).
//  * dense BinnedMatrix: row_stride = its columns, slot c holds feature dense_columns()[c];
//  * sparse: row_stride = the longest row; a row's entries in feature order, then null slots.
// Within a row the symbols are ascending either way (features ascending, null last), so the
// entry of a feature is found by a binary search over the row's slots.
//
// Symbols are packed back to back in little-endian 32-bit words (symbol k at bit k * bits); a
// symbol may straddle two words, and one padding word at the end makes reading word + 1 always
// valid. EllpackView reads them the same way on the host (the CPU reference) and the device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tree/binned_matrix.h"
#include "tree/device_common.h"
#include "tree/quantile.h"

namespace ringboost {

struct EllpackShape {
  uint64_t num_rows = 0;
  uint32_t row_stride = 0;   // slots per row
  uint32_t symbol_bits = 1;  // bits per slot
  uint32_t null_symbol = 0;  // = cuts.TotalBins()
  uint32_t num_features = 0;
  bool dense = false;  // slot c holds feature dense_columns[c] in every row
  uint64_t NumSymbols() const { return num_rows * row_stride; }
  uint64_t NumWords() const { return (NumSymbols() * symbol_bits + 31) / 32 + 1; }
};

// Bits that hold every value in [0, max_symbol] (at least 1).
uint32_t SymbolBits(uint32_t max_symbol);

// The shape of `matrix` in ELLPACK form (pure host code; no allocation).
EllpackShape EllpackShapeOf(const BinnedMatrix& matrix, const HistogramCuts& cuts);

// Device memory the DeviceMatrix of this shape takes: packed words, cuts.ptr and, when dense,
// the feature -> slot table. Computed on the host before anything is allocated.
std::size_t DeviceMatrixBytes(const EllpackShape& shape);

// A trivially copyable view (kernels take it by value). Pointers are device pointers in kernels,
// host pointers in the CPU reference; the reading code is the same.
struct EllpackView {
  const uint32_t* words = nullptr;
  const uint32_t* feature_ptr = nullptr;  // cuts.ptr, num_features + 1
  const int32_t* column_of = nullptr;     // dense: slot of each feature, -1 when it has none
  EllpackShape shape;

  RB_HOST_DEVICE uint32_t Symbol(uint64_t row, uint32_t slot) const {
    const uint64_t bit = (row * shape.row_stride + slot) * shape.symbol_bits;
    const uint64_t word = bit >> 5;
    const uint64_t pair = (static_cast<uint64_t>(words[word + 1]) << 32) | words[word];
    const uint64_t mask = (uint64_t{1} << shape.symbol_bits) - 1;
    return static_cast<uint32_t>((pair >> (bit & 31)) & mask);
  }
  // Global bin of (row, feature), or -1 when missing.
  RB_HOST_DEVICE int64_t GetBin(uint64_t row, uint32_t feature) const {
    if (feature >= shape.num_features) return -1;
    const uint32_t lo = feature_ptr[feature], hi = feature_ptr[feature + 1];
    if (shape.dense) {
      const int32_t slot = column_of[feature];
      return slot < 0 ? -1 : static_cast<int64_t>(Symbol(row, static_cast<uint32_t>(slot)));
    }
    uint32_t first = 0, count = shape.row_stride;  // lower_bound of lo over the row's slots
    while (count > 0) {
      const uint32_t step = count / 2;
      if (Symbol(row, first + step) < lo) {
        first += step + 1;
        count -= step + 1;
      } else {
        count = step;
      }
    }
    if (first == shape.row_stride) return -1;
    const uint32_t s = Symbol(row, first);
    return s < hi ? static_cast<int64_t>(s) : -1;
  }
};

// The packed words of `matrix` (the CPU reference of the device layout, and what is uploaded).
// Threads over blocks of 32 rows, whose bit ranges start on word boundaries.
std::vector<uint32_t> PackEllpack(const BinnedMatrix& matrix, const HistogramCuts& cuts,
                                  const EllpackShape& shape, int nthread);
// The feature -> slot table of a dense matrix (empty for sparse).
std::vector<int32_t> EllpackColumnOf(const BinnedMatrix& matrix, const HistogramCuts& cuts);

// The matrix in device memory, with the cuts the kernels need (ptr, values, min_values).
class DeviceMatrix {
 public:
  // Checks DeviceMatrixBytes against the device's free memory first and throws, naming both
  // numbers, when it does not fit; then packs on the host and uploads.
  static DeviceMatrix Create(const BinnedMatrix& matrix, const HistogramCuts& cuts, int nthread);

  EllpackView View() const;
  const EllpackShape& shape() const { return shape_; }
  const float* d_cut_values() const { return d_cut_values_.data(); }
  const float* d_min_values() const { return d_min_values_.data(); }
  const uint32_t* d_feature_ptr() const { return d_feature_ptr_.data(); }
  // EllpackColumnOf of the matrix, kept on the host for planning kernels.
  const std::vector<int32_t>& column_of_host() const { return h_column_of_; }

 private:
  EllpackShape shape_;
  std::vector<int32_t> h_column_of_;
  DeviceBuffer<uint32_t> d_words_;
  DeviceBuffer<uint32_t> d_feature_ptr_;
  DeviceBuffer<int32_t> d_column_of_;
  DeviceBuffer<float> d_cut_values_;
  DeviceBuffer<float> d_min_values_;
};

#ifdef RINGBOOST_USE_CUDA
// For tests: GetBin of every (row, feature), row-major, read on the device (device_matrix.cu).
std::vector<int64_t> UnpackAllOnDevice(const DeviceMatrix& matrix);
#endif

}  // namespace ringboost
