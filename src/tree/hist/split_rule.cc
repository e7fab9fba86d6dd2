#include "tree/hist/split_rule.h"

#include <algorithm>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "common/error.h"
#include "tree/categorical_split.h"

namespace ringboost {

namespace {

template <typename BinT>
uint64_t DecideThresholdBaseline(const BinT* column, const uint32_t* rows, uint64_t n,
                                 uint8_t* side, uint32_t first, uint32_t width, int32_t split,
                                 bool missing_left) {
  return DecideAhead(column, rows, n, side, [=](uint32_t bin) {
    const uint32_t local = bin - first;
    return local < width ? static_cast<int32_t>(local) <= split : missing_left;
  });
}

#if defined(__x86_64__) && defined(__GNUC__)
// Eight rows a step: their bins gathered as 32-bit reads masked to the bin's width, compared
// with the range and the split in 32-bit lanes (bins < 2^16, so first - 1 and
// first + split + 1 are exact), the eight sides as one 8-byte store (a bit each, deposited at
// each byte's low bit). The rows 32 ahead are prefetched, as DecideAhead does.
template <typename BinT>
__attribute__((target("avx2,bmi2,popcnt"))) uint64_t DecideThresholdAvx2(
    const BinT* column, uint64_t gather_rows, const uint32_t* rows, uint64_t n, uint8_t* side,
    uint32_t first, uint32_t width, int32_t split, bool missing_left) {
  constexpr int kScale = sizeof(BinT);
  const __m256i bin_mask = _mm256_set1_epi32(sizeof(BinT) == 1 ? 0xff : 0xffff);
  const __m256i above = _mm256_set1_epi32(static_cast<int32_t>(first) - 1);
  const __m256i below = _mm256_set1_epi32(static_cast<int32_t>(first + width));
  const __m256i cut = _mm256_set1_epi32(static_cast<int32_t>(first) + split + 1);
  const __m256i missing = _mm256_set1_epi32(missing_left ? -1 : 0);
  const __m256i last = _mm256_set1_epi32(static_cast<int32_t>(gather_rows - 1));
  const int* base = reinterpret_cast<const int*>(column);
  uint64_t n_left = 0, j = 0;
  for (; j + 8 <= n; j += 8) {
    if (j + kDecideAhead + 8 <= n) {
      for (uint64_t a = j + kDecideAhead; a < j + kDecideAhead + 8; ++a) {
        __builtin_prefetch(column + rows[a]);
      }
    }
    const __m256i r = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows + j));
    // Rows from gather_rows on go to the loop below: those from 2^31 on have the sign bit set
    // (negative as a gather's index), the rest compare signed (gather_rows <= 2^31).
    if ((_mm256_movemask_ps(_mm256_castsi256_ps(r)) |
         _mm256_movemask_epi8(_mm256_cmpgt_epi32(r, last))) != 0) {
      break;
    }
    const __m256i bin = _mm256_and_si256(_mm256_i32gather_epi32(base, r, kScale), bin_mask);
    const __m256i inside =
        _mm256_and_si256(_mm256_cmpgt_epi32(bin, above), _mm256_cmpgt_epi32(below, bin));
    const __m256i left = _mm256_blendv_epi8(missing, _mm256_cmpgt_epi32(cut, bin), inside);
    const uint32_t mask = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(left)));
    const uint64_t bytes = _pdep_u64(mask, 0x0101010101010101ull);
    std::memcpy(side + j, &bytes, sizeof(bytes));
    n_left += static_cast<uint64_t>(__builtin_popcount(mask));
  }
  return n_left + DecideThresholdBaseline(column, rows + j, n - j, side + j, first, width, split,
                                          missing_left);
}
#endif

}  // namespace

template <typename BinT>
uint64_t DecideThreshold(const BinT* column, uint64_t gather_rows, const uint32_t* rows, uint64_t n,
                         uint8_t* side, uint32_t first, uint32_t width, int32_t split,
                         bool missing_left, bool vector) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") &&
                           __builtin_cpu_supports("popcnt");
  if (vector && avx2 && gather_rows > 0) {
    return DecideThresholdAvx2(column, gather_rows, rows, n, side, first, width, split,
                               missing_left);
  }
#endif
  (void)vector;
  (void)gather_rows;
  return DecideThresholdBaseline(column, rows, n, side, first, width, split, missing_left);
}
template uint64_t DecideThreshold(const uint8_t*, uint64_t, const uint32_t*, uint64_t, uint8_t*,
                                  uint32_t, uint32_t, int32_t, bool, bool);
template uint64_t DecideThreshold(const uint16_t*, uint64_t, const uint32_t*, uint64_t, uint8_t*,
                                  uint32_t, uint32_t, int32_t, bool, bool);

SplitRule::SplitRule(const BinnedMatrix& m, const HistogramCuts& cuts, const SplitCandidate& s)
    : split_bin(s.split_bin), default_left(s.default_left) {
  if (s.is_cat) {
    cat_left = CategoryLeftBins(cuts, s);
    cat = cat_left.data();
  }
  if (m.layout() == BinnedMatrix::Layout::kDense) {
    // A feature with no values in this worker's shard (its rows are dense in other features,
    // another worker's are not): every row here is missing, and goes default. A shard with no
    // rows (a worker that got none, its bundles dense) has no columns to read.
    const int32_t column = m.ColumnOf(s.feature);
    if (column < 0 || m.NumRows() == 0) return;
    RB_CHECK_MSG(!m.columns8().empty() || !m.columns16().empty(),
                 "BinnedMatrix::BuildColumns() was not called");
    const uint64_t offset = static_cast<uint64_t>(column) * m.NumRows();
    lo = m.MemberOffset(s.feature);
    hi = lo + cuts.FeatureBins(s.feature);
    if (m.BinBytes() == 1) bins8 = m.columns8().data() + offset;
    if (m.BinBytes() == 2) bins16 = m.columns16().data() + offset;
    // A row's 4-byte read covers its bin and the 3 (8-bit) or 1 (16-bit) after it; the gathers'
    // indices are signed 32-bit.
    const uint64_t left = (m.BinBytes() == 1 ? m.columns8().size() : m.columns16().size()) - offset;
    const uint64_t after = m.BinBytes() == 1 ? 3 : 1;
    gather_rows = std::min<uint64_t>(left > after ? left - after : 0, uint64_t{1} << 31);
  } else {
    row_ptr = m.row_ptr().data();
    sparse = m.sparse_bins().data();
    lo = cuts.ptr[s.feature];
    hi = cuts.ptr[s.feature + 1];
  }
}

}  // namespace ringboost
