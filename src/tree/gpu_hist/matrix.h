// The binned matrix on the device (DESIGN.md step 3, GPU): ELLPACK-like, every row the same
// number of slots (row_stride), each slot a symbol of 1, 2 or 4 bytes, so that a kernel reads a
// slot with one plain load.
//  * dense BinnedMatrix (no missing values): slot c holds the LOCAL bin of feature
//    dense_columns()[c], exactly BinnedMatrix's dense bytes (uint8 up to 256 bins a feature, else
//    uint16); the global bin is slot_base[c] + symbol. Beside it the same symbols column by
//    column (BinnedMatrix::BuildColumns), which the row partition reads: one feature of scattered
//    rows is then a few bytes apart, where a row-major read costs a 32-byte sector a row.
//  * sparse: row_stride = the longest row; a row's GLOBAL bins (cuts.ptr[f] + local) in feature
//    order, then null slots (null_symbol = cuts.TotalBins()); 2 bytes where every bin and the null
//    fit, else 4. Symbols ascend within a row, so a feature's entry is found by a binary search.
//    A bundled BinnedMatrix (feature bundles, enable_bundle) takes this form too, its bundles
//    unpacked: a row holds the global bins of the members present in it (the values the CPU
//    trains on, a conflicting row's included).
// EllpackView reads both the same way on the host (the CPU reference) and on the device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/host_device.h"
#include "tree/bins/binned_matrix.h"
#include "tree/bins/quantile.h"
#include "tree/gpu_hist/common.h"

namespace ringboost {

struct EllpackShape {
  uint64_t num_rows = 0;
  uint32_t row_stride = 0;    // slots per row
  uint32_t symbol_bytes = 4;  // 1, 2 or 4
  uint32_t null_symbol = 0;   // = cuts.TotalBins(): sparse padding; dense rows have none
  uint32_t num_features = 0;
  bool dense = false;  // symbols are local bins of the slot's feature
  uint64_t NumSymbols() const { return num_rows * row_stride; }
  uint64_t SymbolArrayBytes() const { return NumSymbols() * symbol_bytes; }
};

// The shape of `matrix` in ELLPACK form (pure host code; a bundled matrix's longest row is
// counted over its rows, nothing is allocated).
EllpackShape EllpackShapeOf(const BinnedMatrix& matrix, const HistogramCuts& cuts);

// Device memory the DeviceMatrix of this shape takes: symbols (twice when dense: rows and
// columns), cuts.ptr, cut values, min values and, when dense, the feature -> slot and slot -> first
// bin tables, when sparse the bin -> feature table. Computed on the host before anything is
// allocated.
std::size_t DeviceMatrixBytes(const EllpackShape& shape);

// A trivially copyable view (kernels take it by value). Pointers are device pointers in kernels,
// host pointers in the CPU reference; the reading code is the same.
struct EllpackView {
  const uint8_t* symbols = nullptr;       // num_rows x row_stride, row-major
  const uint8_t* columns = nullptr;       // dense: the same, column-major; else nullptr
  const uint32_t* feature_ptr = nullptr;  // cuts.ptr, num_features + 1
  const int32_t* column_of = nullptr;     // dense: slot of each feature, -1 when it has none
  const uint32_t* slot_base = nullptr;    // dense: first global bin of each slot's feature
  const uint32_t* bin_feature = nullptr;  // sparse: the feature of each global bin
  EllpackShape shape;

  // Symbol number k of an array of this shape's symbols.
  RB_HOST_DEVICE uint32_t Read(const uint8_t* array, uint64_t k) const {
    if (shape.symbol_bytes == 1) return array[k];
    if (shape.symbol_bytes == 2) return reinterpret_cast<const uint16_t*>(array)[k];
    return reinterpret_cast<const uint32_t*>(array)[k];
  }
  RB_HOST_DEVICE uint32_t Symbol(uint64_t row, uint32_t slot) const {
    return Read(symbols, row * shape.row_stride + slot);
  }
  // Global bin held at (row, slot); null_symbol for an empty sparse slot.
  RB_HOST_DEVICE uint32_t SlotBin(uint64_t row, uint32_t slot) const {
    const uint32_t s = Symbol(row, slot);
    return shape.dense ? slot_base[slot] + s : s;
  }
  // Global bin of (row, feature), or -1 when missing.
  RB_HOST_DEVICE int64_t GetBin(uint64_t row, uint32_t feature) const {
    if (feature >= shape.num_features) return -1;
    if (shape.dense) {
      const int32_t slot = column_of[feature];
      if (slot < 0) return -1;
      const uint32_t local = columns != nullptr
                                 ? Read(columns, static_cast<uint64_t>(slot) * shape.num_rows + row)
                                 : Symbol(row, static_cast<uint32_t>(slot));
      return static_cast<int64_t>(feature_ptr[feature]) + local;
    }
    const uint32_t lo = feature_ptr[feature], hi = feature_ptr[feature + 1];
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

// The matrix in ELLPACK form in host memory: the CPU reference of the device layout, and what is
// uploaded.
struct EllpackHost {
  EllpackShape shape;
  std::vector<uint8_t> symbols;
  std::vector<uint8_t> columns;       // dense only
  std::vector<int32_t> column_of;     // dense only: EllpackColumnOf
  std::vector<uint32_t> slot_base;    // dense only
  std::vector<uint32_t> bin_feature;  // sparse only
  // A view of these vectors with the cuts' ptr.
  EllpackView View(const HistogramCuts& cuts) const;
};
EllpackHost PackEllpack(const BinnedMatrix& matrix, const HistogramCuts& cuts, int nthread);

// The feature -> slot table of a dense matrix (empty for sparse).
std::vector<int32_t> EllpackColumnOf(const BinnedMatrix& matrix, const HistogramCuts& cuts);

// The matrix in device memory, with the cuts the kernels need (ptr, values, min values).
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
  DeviceBuffer<uint8_t> d_symbols_;
  DeviceBuffer<uint8_t> d_columns_;
  DeviceBuffer<uint32_t> d_feature_ptr_;
  DeviceBuffer<int32_t> d_column_of_;
  DeviceBuffer<uint32_t> d_slot_base_;
  DeviceBuffer<uint32_t> d_bin_feature_;
  DeviceBuffer<float> d_cut_values_;
  DeviceBuffer<float> d_min_values_;
};

#ifdef RINGBOOST_USE_CUDA
// For tests: GetBin of every (row, feature), row-major, read on the device (matrix.cu); by_rows:
// dense bins read from the row-major symbols (as the histogram kernels and the leaf walk read
// them) instead of the column copy.
std::vector<int64_t> UnpackAllOnDevice(const DeviceMatrix& matrix, bool by_rows = false);
#endif

}  // namespace ringboost
