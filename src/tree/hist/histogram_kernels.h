// The CPU histogram builds' inner loops (HistogramBuilder, histogram.h): where a row's gradient
// and bins are read from (the matrix, or the row records), how a gradient is added to a cell
// (two int64 fields, or one packed word in low-bit mode), the dense and sparse row loops, and the
// widening of narrow cells. Included by histogram.cc, which plans the tasks and their private
// histograms (and by its test, which compares the kernels' two ways).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>
#if defined(__x86_64__)
#include <emmintrin.h>
#include <immintrin.h>
#endif

#include "tree/gradient.h"
#include "tree/hist/histogram.h"

namespace ringboost {
namespace hist_kernels {

constexpr uint64_t kPrefetchRows = 16;  // rows ahead whose bins and gradient are prefetched

// Row records (HistogramBuilder::record_stride_) start at lines of this many bytes.
constexpr std::size_t kRecordAlign = 64;

// Where the dense kernel finds a row's quantized gradient and bins.
template <typename BinT>
struct SplitRows {  // the matrix's row-major bins and the gradient array
  const BinT* bins;
  uint32_t num_features;
  const GradientSum* gpair;
  void Prefetch(uint32_t row) const {
    const BinT* first = bins + static_cast<uint64_t>(row) * num_features;
    __builtin_prefetch(gpair + row);
    __builtin_prefetch(first);
    __builtin_prefetch(first + num_features - 1);  // the row may straddle lines
  }
  const BinT* Row(uint32_t row, GradientSum* g) const {
    *g = gpair[row];
    return bins + static_cast<uint64_t>(row) * num_features;
  }
};

// A row's gradient as a cell of the build's type, and its addition to a cell: two fields, or
// one word of packed halves (PackedCell).
template <typename Cell>
struct CellOps {
  static Cell Make(int64_t g, int64_t h) {
    Cell c;
    c.g = static_cast<decltype(c.g)>(g);
    c.h = static_cast<decltype(c.h)>(h);
    return c;
  }
  static void Add(Cell& d, const Cell& s) {
    d.g += s.g;
    d.h += s.h;
  }
};
template <>
struct CellOps<uint32_t> {  // Packed16
  static uint32_t Make(int64_t g, int64_t h) { return Packed16::Pack(g, h); }
  static void Add(uint32_t& d, uint32_t s) { d += s; }
};

// HistogramBuilder's row records: the gradient first (a `Stored`: a GradientSum of 16 bytes, or
// in low-bit mode a LowBitGradient of 2), the bins after it, read into a `Cell` of the
// build's width. kStore: the gradient comes from `gpair` and is stored into the record; else it
// is read from there.
template <typename BinT, bool kStore, typename Stored = GradientSum, typename Cell = GradientSum>
struct RecordRows {
  uint8_t* records;
  uint32_t stride;
  const GradientSum* gpair;
  void Prefetch(uint32_t row) const {
    const uint8_t* rec = records + static_cast<uint64_t>(row) * stride;
    for (uint32_t line = 0; line < stride; line += kRecordAlign) {
      __builtin_prefetch(rec + line);
    }
    if (kStore) __builtin_prefetch(gpair + row);
  }
  const BinT* Row(uint32_t row, Cell* g) const {
    uint8_t* rec = records + static_cast<uint64_t>(row) * stride;
    Stored s;
    if (kStore) {
      s.g = static_cast<decltype(s.g)>(gpair[row].g);
      s.h = static_cast<decltype(s.h)>(gpair[row].h);
      std::memcpy(rec, &s, sizeof(Stored));
    } else {
      std::memcpy(&s, rec, sizeof(Stored));
    }
    *g = CellOps<Cell>::Make(s.g, s.h);
    return reinterpret_cast<const BinT*>(rec + sizeof(Stored));
  }
};
// Low-bit mode's stored gradient: |g|, |h| <= LowBitPolicy::kLevels fit int8.
struct LowBitGradient {
  int8_t g;
  int8_t h;
};
constexpr std::size_t kLowBitRecordGradientBytes = sizeof(LowBitGradient);

// dst[b] += src[b] (add) or dst[b] = src[b] for every bin b, src of packed 16-bit cells. Four
// cells at a time in SSE2, with Packed16::Unpack's values: H the low half sign-extended, G =
// (word - H) / 2^16, an exact division, so an arithmetic shift.
inline void WidenBaseline(const uint32_t* src, GradientSum* dst, std::size_t n_bins, bool add) {
  std::size_t b = 0;
#if defined(__x86_64__)
  static_assert(sizeof(GradientSum) == 16, "a cell is two int64");
  for (; b + 4 <= n_bins; b += 4) {
    const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + b));
    const __m128i h = _mm_srai_epi32(_mm_slli_epi32(w, 16), 16);
    const __m128i g = _mm_srai_epi32(_mm_sub_epi32(w, h), 16);
    const __m128i gh01 = _mm_unpacklo_epi32(g, h);  // g0 h0 g1 h1
    const __m128i gh23 = _mm_unpackhi_epi32(g, h);
    const __m128i sign01 = _mm_srai_epi32(gh01, 31), sign23 = _mm_srai_epi32(gh23, 31);
    const __m128i cells[4] = {_mm_unpacklo_epi32(gh01, sign01), _mm_unpackhi_epi32(gh01, sign01),
                              _mm_unpacklo_epi32(gh23, sign23), _mm_unpackhi_epi32(gh23, sign23)};
    for (int k = 0; k < 4; ++k) {
      __m128i* d = reinterpret_cast<__m128i*>(dst + b + k);
      _mm_storeu_si128(d, add ? _mm_add_epi64(_mm_loadu_si128(d), cells[k]) : cells[k]);
    }
  }
#endif
  for (; b < n_bins; ++b)
    dst[b] = add ? dst[b] + Packed16::Unpack(src[b]) : Packed16::Unpack(src[b]);
}

#if defined(__x86_64__) && defined(__GNUC__)
// WidenBaseline eight cells a step in AVX2 lanes (the same halves, each pair of cells one 32-byte
// store), the rest by WidenBaseline. Half the loads and stores: the widening of a low-bit
// build's chunks took 0.64-0.67 of the SSE2 loop's cycles (dense bench set, quantized_grad=on).
__attribute__((target("avx2"))) inline void WidenAvx2(const uint32_t* src, GradientSum* dst,
                                                      std::size_t n_bins, bool add) {
  std::size_t b = 0;
  for (; b + 8 <= n_bins; b += 8) {
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + b));
    const __m256i h = _mm256_srai_epi32(_mm256_slli_epi32(w, 16), 16);
    const __m256i g = _mm256_srai_epi32(_mm256_sub_epi32(w, h), 16);
    const __m256i lo = _mm256_unpacklo_epi32(g, h);  // g0 h0 g1 h1 | g4 h4 g5 h5
    const __m256i hi = _mm256_unpackhi_epi32(g, h);  // g2 h2 g3 h3 | g6 h6 g7 h7
    // Cells (0, 1), (2, 3), (4, 5), (6, 7), each sign-extended to (g, h) int64 pairs.
    const __m256i cells[4] = {_mm256_cvtepi32_epi64(_mm256_castsi256_si128(lo)),
                              _mm256_cvtepi32_epi64(_mm256_castsi256_si128(hi)),
                              _mm256_cvtepi32_epi64(_mm256_extracti128_si256(lo, 1)),
                              _mm256_cvtepi32_epi64(_mm256_extracti128_si256(hi, 1))};
    for (int k = 0; k < 4; ++k) {
      __m256i* d = reinterpret_cast<__m256i*>(dst + b + 2 * k);
      _mm256_storeu_si256(d, add ? _mm256_add_epi64(_mm256_loadu_si256(d), cells[k]) : cells[k]);
    }
  }
  WidenBaseline(src + b, dst + b, n_bins - b, add);
}
#endif

// WidenBaseline's results; `vector`: by WidenAvx2 where the CPU has AVX2.
inline void Widen(const uint32_t* src, GradientSum* dst, std::size_t n_bins, bool add,
                  bool vector = true) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (vector && avx2) return WidenAvx2(src, dst, n_bins, add);
#endif
  (void)vector;
  WidenBaseline(src, dst, n_bins, add);
}

// Dense rows into the histogram whose feature f starts at base[f]. Four rows at a time: their
// updates are independent chains the core can overlap, and each feature's base is loaded once
// for the four. A row's bins are loaded 8 bytes at a time and taken apart by constant shifts:
// one load for 8 one-byte bins instead of 8, in a loop bound by its loads and stores (issue 26;
// bench/README.md); the bins after the last whole word one at a time.
template <typename BinT, typename Rows, typename Cell>
void BuildDense(const Rows& src, uint32_t num_features, Cell* const* base, const uint32_t* rows,
                uint64_t n) {
  constexpr uint64_t kWays = 4;
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "a word's bin j is its j-th lowest");
  constexpr uint32_t kPerWord = sizeof(uint64_t) / sizeof(BinT);
  constexpr uint64_t kBinMask = (uint64_t{1} << (8 * sizeof(BinT))) - 1;
  uint64_t i = 0;
  for (; i + kWays <= n; i += kWays) {
    if (i + kPrefetchRows + kWays <= n) {
      for (uint64_t a = i + kPrefetchRows; a < i + kPrefetchRows + kWays; ++a) {
        src.Prefetch(rows[a]);
      }
    }
    Cell g[kWays];
    const BinT* b[kWays];
    for (uint64_t k = 0; k < kWays; ++k) b[k] = src.Row(rows[i + k], &g[k]);
    uint32_t f = 0;
    for (; f + kPerWord <= num_features; f += kPerWord) {
      uint64_t word[kWays];
      for (uint64_t k = 0; k < kWays; ++k) std::memcpy(&word[k], b[k] + f, sizeof(uint64_t));
      Cell* const* word_base = base + f;
#pragma GCC unroll 8
      for (uint32_t j = 0; j < kPerWord; ++j) {  // unrolled: the shifts are constants
        Cell* h = word_base[j];
        for (uint64_t k = 0; k < kWays; ++k) {
          CellOps<Cell>::Add(h[(word[k] >> (8 * sizeof(BinT) * j)) & kBinMask], g[k]);
        }
      }
    }
    for (; f < num_features; ++f) {
      Cell* h = base[f];
      for (uint64_t k = 0; k < kWays; ++k) CellOps<Cell>::Add(h[b[k][f]], g[k]);
    }
  }
  for (; i < n; ++i) {
    Cell g;
    const BinT* b = src.Row(rows[i], &g);
    for (uint32_t f = 0; f < num_features; ++f) CellOps<Cell>::Add(base[f][b[f]], g);
  }
}

// visit(row, g) for each of `rows` whose quantized gradient g is not zero (a zero row adds
// nothing), the rows ahead's gradients and entries prefetched.
template <typename Visit>
void ForSparseRows(const uint64_t* row_ptr, const uint32_t* bins, const GradientSum* gpair,
                   const uint32_t* rows, uint64_t n, const Visit& visit) {
  for (uint64_t i = 0; i < n; ++i) {
    if (i + kPrefetchRows < n) {
      const uint32_t ahead = rows[i + kPrefetchRows];
      __builtin_prefetch(gpair + ahead);
      __builtin_prefetch(bins + row_ptr[ahead]);
    }
    const uint32_t row = rows[i];
    const GradientSum g = gpair[row];
    if (g.h == 0 && g.g == 0) continue;
    visit(row, g);
  }
}

// Sparse rows into `hist`. With `flags` (and `list`, both the calling thread's own), it also
// records the chunks of bins it touches, for the wide way.
inline void BuildSparse(const uint64_t* row_ptr, const uint32_t* bins, const GradientSum* gpair,
                        const uint32_t* rows, uint64_t n, GradientSum* hist,
                        uint8_t* flags = nullptr, std::vector<uint32_t>* list = nullptr) {
  constexpr uint32_t kShift = HistogramBuilder::kChunkShift;
  ForSparseRows(row_ptr, bins, gpair, rows, n, [&](uint32_t row, const GradientSum& g) {
    for (uint64_t j = row_ptr[row]; j < row_ptr[row + 1]; ++j) {
      const uint32_t bin = bins[j];
      GradientSum& dst = hist[bin];
      dst.g += g.g;
      dst.h += g.h;
      if (flags != nullptr && !flags[bin >> kShift]) {
        flags[bin >> kShift] = 1;
        list->push_back(bin >> kShift);
      }
    }
  });
}

// The entries of `rows` with a global bin in [lo, hi), added straight into the shared output:
// the calling thread owns that bin range, so no other thread writes there. Marks touched chunks.
inline void BuildSparseStripe(const uint64_t* row_ptr, const uint32_t* bins,
                              const GradientSum* gpair, const uint32_t* rows, uint64_t n,
                              uint32_t lo, uint32_t hi, GradientSum* hist, uint8_t* touched) {
  constexpr uint32_t kShift = HistogramBuilder::kChunkShift;
  ForSparseRows(row_ptr, bins, gpair, rows, n, [&](uint32_t row, const GradientSum& g) {
    const uint32_t* end = bins + row_ptr[row + 1];
    for (const uint32_t* p = std::lower_bound(bins + row_ptr[row], end, lo); p < end && *p < hi;
         ++p) {
      GradientSum& dst = hist[*p];
      dst.g += g.g;
      dst.h += g.h;
      touched[*p >> kShift] = 1;
    }
  });
}

}  // namespace hist_kernels
}  // namespace ringboost
