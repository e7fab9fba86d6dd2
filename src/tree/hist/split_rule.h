// Where a split of the CPU grower sends a row (the row partition, DESIGN.md step 8), with
// everything it reads resolved to plain pointers once per split: this runs for every row of
// every split node. Dense matrices are read from their column-major copy
// (BinnedMatrix::BuildColumns), one byte (or two) of scattered rows, a block of a node's rows per
// call (RowPartitioner::PartitionBlocks) with the split's fields in locals and the bins of the
// rows ahead prefetched; sparse rows search their entries one row at a time.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tree/bins/binned_matrix.h"
#include "tree/bins/quantile.h"
#include "tree/split_types.h"

namespace ringboost {

// Rows ahead of the one being decided whose bin is prefetched. Below the first levels a node's
// rows are scattered over the column, a cache line each, and the loop's own loads do not keep
// enough of those misses in flight (measured: 16 and 64 ahead were slower than 32).
constexpr uint64_t kDecideAhead = 32;

// side[j] = left(column[rows[j]]) for j < n; returns the number of rows that go left.
template <typename BinT, typename Left>
uint64_t DecideAhead(const BinT* column, const uint32_t* rows, uint64_t n, uint8_t* side,
                     const Left& left) {
  uint64_t n_left = 0, j = 0;
  for (; j + kDecideAhead < n; ++j) {
    __builtin_prefetch(column + rows[j + kDecideAhead]);
    const bool l = left(column[rows[j]]);
    side[j] = l;
    n_left += l;
  }
  for (; j < n; ++j) {
    const bool l = left(column[rows[j]]);
    side[j] = l;
    n_left += l;
  }
  return n_left;
}

// A threshold split's DecideAhead over a dense column: side[j] = 1 where rows[j]'s bin b has
// first <= b < first + width and b - first <= split, or lies outside that range and
// missing_left. `vector`: 8 rows a step by AVX2 gathers (a 4-byte read at each row's bin) where
// the CPU has AVX2, for the rows below `gather_rows` (those whose 4-byte read stays inside the
// columns); else, or past them, DecideAhead.
template <typename BinT>
uint64_t DecideThreshold(const BinT* column, uint64_t gather_rows, const uint32_t* rows, uint64_t n,
                         uint8_t* side, uint32_t first, uint32_t width, int32_t split,
                         bool missing_left, bool vector = true);

struct SplitRule {
  const uint8_t* bins8 = nullptr;     // dense, 1-byte bins: this feature's column at row 0
  const uint16_t* bins16 = nullptr;   // dense, 2-byte bins
  uint64_t gather_rows = 0;           // dense: DecideThreshold's bound
  const uint64_t* row_ptr = nullptr;  // sparse
  const uint32_t* sparse = nullptr;
  uint32_t lo = 0, hi = 0;  // sparse: the feature's global bins [lo, hi); dense: its local bins
                            // in the column (bundled: after its member offset)
  int32_t split_bin = 0;
  bool default_left = false;
  // Categorical splits: per local bin of the feature, 1 where its rows go left.
  std::vector<uint8_t> cat_left;
  const uint8_t* cat = nullptr;

  // Dense matrices need BinnedMatrix::BuildColumns() called.
  SplitRule(const BinnedMatrix& m, const HistogramCuts& cuts, const SplitCandidate& s);

  bool Left(int32_t bin) const { return cat == nullptr ? bin <= split_bin : cat[bin] != 0; }
  // Sparse: the row's entry of the feature, found by a search in the row.
  bool Sparse(uint32_t row) const {
    const uint32_t* first = sparse + row_ptr[row];
    const uint32_t* last = sparse + row_ptr[row + 1];
    const uint32_t* it = std::lower_bound(first, last, lo);
    if (it == last || *it >= hi) return default_left;
    return Left(static_cast<int32_t>(*it - lo));
  }

  // Dense: decides rows[0, n) into side (1: left) and returns how many go left, reading
  // `column` (bins8 or bins16, whichever the matrix has). A column's bin outside [lo, hi) is a
  // bundle's other member, or none: missing here, as is every row of a feature without a column.
  template <typename BinT>
  uint64_t DecideDense(const BinT* column, const uint32_t* rows, uint64_t n, uint8_t* side) const {
    if (column == nullptr) {
      std::memset(side, default_left ? 1 : 0, n);
      return default_left ? n : 0;
    }
    const uint32_t first = lo, width = hi - lo;
    const bool missing_left = default_left;
    if (cat == nullptr) {
      return DecideThreshold(column, gather_rows, rows, n, side, first, width, split_bin,
                             missing_left);
    }
    const uint8_t* cat_left_of = cat;
    return DecideAhead(column, rows, n, side, [=](uint32_t bin) {
      const uint32_t local = bin - first;
      return local < width ? cat_left_of[local] != 0 : missing_left;
    });
  }
};

}  // namespace ringboost
