// The column-wise evaluator's gather (ColumnwiseEvaluator, columnwise.h): a node's cells of one
// feature read in bin order into the non-empty values and their bins, with the sums, the range
// of g's prefix sums and the or of the hessians that the feature bound needs, the cells (and
// their marks) left zero. A scalar loop for either kind of cell, and for the Packed32 words of a
// low-bit tree the same in AVX-512 lanes, eight cells a step. Included by columnwise.cc (and by
// its test, which compares the two ways).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "tree/gradient.h"

namespace ringboost {
namespace columnwise_kernels {

// A marked column's marks (a byte a cell, 0 or 1) are read this many at a time; the marks' buffer
// holds this many bytes past its last node's.
constexpr uint32_t kMarkChunk = 64;
// The gather may write this many values and bins past the last non-empty one.
constexpr std::size_t kGatherSlack = 8;

// The marks p[0, kMarkChunk) as bits, p[0] the lowest.
inline uint64_t MarkBits(const uint8_t* p) {
  uint64_t bits = 0;
#if defined(__SSE2__)
  for (uint32_t i = 0; i < kMarkChunk; i += 16) {  // 1 - 1 = 0, 0 - 1 sets the top bit
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const uint32_t zero =
        static_cast<uint32_t>(_mm_movemask_epi8(_mm_sub_epi8(v, _mm_set1_epi8(1))));
    bits |= static_cast<uint64_t>(~zero & 0xffffu) << i;
  }
#else
  for (uint32_t i = 0; i < kMarkChunk; ++i) bits |= static_cast<uint64_t>(p[i] != 0) << i;
#endif
  return bits;
}

// What a gather found: values[0, n) and bins[0, n), the non-empty cells in bin order; over every
// cell read, the sums, the least and largest prefix sum of g (starting from 0) and the or of h
// (negative if some h is).
struct Gathered {
  std::size_t n = 0;
  GradientSum present;
  int64_t lo = 0;
  int64_t hi = 0;
  int64_t hess_or = 0;
};

// The value of a cell: a GradientSum, or a Packed32 word.
inline GradientSum CellValue(const GradientSum& c) { return c; }
inline GradientSum CellValue(uint64_t w) { return Packed32::Unpack(w); }

// The cells[0, nb) whose mark is set (`marks`; cleared on the way), or every one (marks null),
// into values and bins (each with room for nb + kGatherSlack); the cells read are left zero.
template <typename Cell>
Gathered GatherBaseline(Cell* cells, uint8_t* marks, uint32_t nb, GradientSum* values,
                        uint32_t* bins) {
  std::size_t n = 0;
  // In scalars the compiler keeps in registers.
  int64_t present_g = 0, present_h = 0, lo = 0, hi = 0, hess_or = 0;
  auto take = [&](uint32_t b) {
    const GradientSum v = CellValue(cells[b]);
    cells[b] = Cell{};
    // Kept unless zero (an empty cell, or zero-gradient rows), without a branch.
    values[n] = v;
    bins[n] = b;
    n += (v.g | v.h) != 0;
    present_g += v.g;
    present_h += v.h;
    lo = std::min(lo, present_g);
    hi = std::max(hi, present_g);
    hess_or |= v.h;
  };
  if (marks != nullptr) {
    for (uint32_t first = 0; first < nb; first += kMarkChunk) {  // set marks in order
      uint64_t word = MarkBits(marks + first);
      if (nb - first < kMarkChunk) word &= (uint64_t{1} << (nb - first)) - 1;
      for (; word != 0; word &= word - 1) {
        const uint32_t b = first + static_cast<uint32_t>(__builtin_ctzll(word));
        marks[b] = 0;
        take(b);
      }
    }
  } else {
    for (uint32_t b = 0; b < nb; ++b) take(b);
  }
  Gathered out;
  out.n = n;
  out.present = GradientSum{present_g, present_h};
  out.lo = lo;
  out.hi = hi;
  out.hess_or = hess_or;
  return out;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define RINGBOOST_GATHER_TARGET "avx512f,avx512bw,avx512dq,avx512vl,avx512vbmi2,popcnt"

// Every lane: the masked forms below take zeros where the plain ones take an undefined vector
// (which GCC 12 warns of).
constexpr __mmask8 kAll = 0xff;

// 0, 1, ..., 63: the byte lanes whose marked ones GatherAvx512 compresses.
alignas(64) constexpr uint8_t kPositions[64] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
    22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
    44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};

// The lanes' running state of GatherAvx512.
struct GatherLanes {
  __m512i sum_g, sum_h, hess_or, lo, hi, carry;
};

// Eight Packed32 words `w` of bins `b` (lanes outside `valid` zero): their values, g the word
// less its sign-extended low half shifted down (an exact division, so an arithmetic shift), the
// non-zero ones stored in order at values[*n], bins[*n]; the sums and the prefix sums of g by
// three shifted adds, plus the carry of the steps before.
__attribute__((target(RINGBOOST_GATHER_TARGET), always_inline)) inline void GatherStep(
    GatherLanes* s, __m512i w, __m256i b, __mmask8 valid, GradientSum* values, uint32_t* bins,
    std::size_t* n) {
  const __m512i zero = _mm512_setzero_si512();
  const __m512i h = _mm512_maskz_srai_epi64(kAll, _mm512_maskz_slli_epi64(kAll, w, 32), 32);
  const __m512i g = _mm512_maskz_srai_epi64(kAll, _mm512_sub_epi64(w, h), 32);
  const __mmask8 keep = _mm512_test_epi64_mask(w, w) & valid;  // w == 0 only where g = h = 0
  const __m512i gk = _mm512_maskz_compress_epi64(keep, g);
  const __m512i hk = _mm512_maskz_compress_epi64(keep, h);
  const __m512i first = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
  const __m512i second = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
  int64_t* out = reinterpret_cast<int64_t*>(values + *n);
  _mm512_storeu_si512(out, _mm512_permutex2var_epi64(gk, first, hk));
  _mm512_storeu_si512(out + 8, _mm512_permutex2var_epi64(gk, second, hk));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(bins + *n), _mm256_maskz_compress_epi32(keep, b));
  *n += static_cast<std::size_t>(__builtin_popcount(keep));
  s->sum_g = _mm512_add_epi64(s->sum_g, g);
  s->sum_h = _mm512_add_epi64(s->sum_h, h);
  s->hess_or = _mm512_or_si512(s->hess_or, h);
  __m512i x = _mm512_add_epi64(g, _mm512_maskz_alignr_epi64(kAll, g, zero, 7));  // + the lane below
  x = _mm512_add_epi64(x, _mm512_maskz_alignr_epi64(kAll, x, zero, 6));  // + two lanes below
  x = _mm512_add_epi64(x, _mm512_maskz_alignr_epi64(kAll, x, zero, 4));  // + four lanes below
  x = _mm512_add_epi64(x, s->carry);
  s->lo = _mm512_maskz_min_epi64(kAll, s->lo, x);
  s->hi = _mm512_maskz_max_epi64(kAll, s->hi, x);
  s->carry = _mm512_maskz_permutexvar_epi64(kAll, _mm512_set1_epi64(7), x);
}

// GatherBaseline's results for Packed32 words, eight cells a step: every cell by masked loads, or
// the marked ones, a chunk of marks at a time, their positions compressed in order and their
// cells gathered (and zeroed by a scatter). The lanes past a step's cells add zeros, which move
// no sum and no prefix sum.
__attribute__((target(RINGBOOST_GATHER_TARGET))) inline Gathered GatherAvx512(
    uint64_t* cells, uint8_t* marks, uint32_t nb, GradientSum* values, uint32_t* bins) {
  const __m512i zero = _mm512_setzero_si512();
  GatherLanes s{zero, zero, zero, zero, zero, zero};
  std::size_t n = 0;
  if (marks != nullptr) {
    const __m512i positions = _mm512_load_si512(kPositions);
    alignas(64) uint8_t at[64];
    for (uint32_t first = 0; first < nb; first += kMarkChunk) {
      const __mmask64 tail = nb - first >= 64 ? ~__mmask64{0} : (__mmask64{1} << (nb - first)) - 1;
      const __m512i m = _mm512_maskz_loadu_epi8(tail, marks + first);
      const __mmask64 set = _mm512_test_epi8_mask(m, m);
      if (set == 0) continue;
      _mm512_mask_storeu_epi8(marks + first, set, zero);
      _mm512_store_si512(at, _mm512_maskz_compress_epi8(set, positions));
      const int count = __builtin_popcountll(set);
      const __m512i base = _mm512_set1_epi64(first);
      for (int j = 0; j < count; j += 8) {
        const __mmask8 valid =
            count - j >= 8 ? __mmask8{0xff} : static_cast<__mmask8>((1u << (count - j)) - 1);
        const __m512i idx =
            _mm512_add_epi64(_mm512_maskz_cvtepu8_epi64(
                                 kAll, _mm_loadl_epi64(reinterpret_cast<const __m128i*>(at + j))),
                             base);
        const __m512i w = _mm512_mask_i64gather_epi64(zero, valid, idx, cells, 8);
        _mm512_mask_i64scatter_epi64(cells, valid, idx, zero, 8);
        GatherStep(&s, w, _mm512_maskz_cvtepi64_epi32(kAll, idx), valid, values, bins, &n);
      }
    }
  } else {
    const __m256i lane = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
    for (uint32_t b = 0; b < nb; b += 8) {
      const __mmask8 valid =
          nb - b >= 8 ? __mmask8{0xff} : static_cast<__mmask8>((1u << (nb - b)) - 1);
      const __m512i w = _mm512_maskz_loadu_epi64(valid, cells + b);
      _mm512_mask_storeu_epi64(cells + b, valid, zero);
      GatherStep(&s, w, _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(b)), lane), valid,
                 values, bins, &n);
    }
  }
  // The lanes reduced in scalars (GCC 12's _mm512_reduce_* warn as above).
  alignas(64) int64_t lanes[5][8];
  const __m512i state[5] = {s.sum_g, s.sum_h, s.lo, s.hi, s.hess_or};
  for (int k = 0; k < 5; ++k) _mm512_store_si512(lanes[k], state[k]);
  Gathered out;
  out.n = n;
  for (int i = 0; i < 8; ++i) {
    out.present.g += lanes[0][i];
    out.present.h += lanes[1][i];
    out.lo = std::min(out.lo, lanes[2][i]);
    out.hi = std::max(out.hi, lanes[3][i]);
    out.hess_or |= lanes[4][i];
  }
  return out;
}
#undef RINGBOOST_GATHER_TARGET
#endif

// GatherBaseline's results; for Packed32 words by GatherAvx512 where the CPU has its lanes and
// `vector` is true.
template <typename Cell>
Gathered Gather(Cell* cells, uint8_t* marks, uint32_t nb, GradientSum* values, uint32_t* bins,
                bool vector = true) {
#if defined(__x86_64__) && defined(__GNUC__)
  if constexpr (sizeof(Cell) == sizeof(uint64_t)) {
    static const bool avx512 =
        __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("popcnt");
    if (vector && avx512) return GatherAvx512(cells, marks, nb, values, bins);
  }
#endif
  (void)vector;
  return GatherBaseline(cells, marks, nb, values, bins);
}

}  // namespace columnwise_kernels
}  // namespace ringboost
