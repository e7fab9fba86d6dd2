// SplitEvaluator's SIMD loops (split_evaluator.h): the forward scan over a feature's bins
// (ForwardBest) in AVX2 and AVX-512 lanes, the loss changes of a block of candidates
// (NoDeltaLosses) and the bin scan before the block-wise search (ScanBins) in AVX2 lanes, each
// with the same IEEE operations as the scalar loop it stands for, so the same bits. Included by
// split_evaluator.cc, which picks a loop by the CPU.
#pragma once

#include <cstddef>
#include <cstdint>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "tree/gradient.h"
#include "tree/hist/split_evaluator.h"
#include "tree/split_math.h"

namespace ringboost {
namespace split_kernels {

#if defined(__x86_64__) && defined(__GNUC__)
// int64 lanes to double, rounded as a scalar conversion rounds them (to nearest): the high and
// low 32 bits each placed in a double's mantissa by its bits, the high one's offset taken away
// exactly, then one rounding in their sum.
__attribute__((target("avx2"))) inline __m256d ToDouble(__m256i x) {
  const __m256i lo_magic = _mm256_set1_epi64x(0x4330000000000000);  // 2^52
  const __m256i hi_magic = _mm256_set1_epi64x(0x4530000080000000);  // 2^84 + 2^63
  const __m256d all_magic =
      _mm256_castsi256_pd(_mm256_set1_epi64x(0x4530000080100000));  // 2^84 + 2^63 + 2^52
  const __m256i lo = _mm256_blend_epi32(lo_magic, x, 0x55);         // 2^52 + low 32 bits
  const __m256i hi = _mm256_xor_si256(_mm256_srli_epi64(x, 32), hi_magic);
  return _mm256_add_pd(_mm256_sub_pd(_mm256_castsi256_pd(hi), all_magic), _mm256_castsi256_pd(lo));
}

// Cells p[0, 4) (g0 h0 g1 h1) (g2 h2 g3 h3) as lanes (g0 g1 g2 g3) and (h0 h1 h2 h3).
__attribute__((target("avx2"))) inline void LoadCells(const GradientSum* p, __m256i* g,
                                                      __m256i* h) {
  const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 2));
  *g = _mm256_permute4x64_epi64(_mm256_unpacklo_epi64(a, b), 0xD8);
  *h = _mm256_permute4x64_epi64(_mm256_unpackhi_epi64(a, b), 0xD8);
}

// (x0, x1, x2, x3) -> (c + x0, c + x0 + x1, c + x0 + x1 + x2, c + x0 + ... + x3), with c in every
// lane of `carry`: two shifted adds.
__attribute__((target("avx2"))) inline __m256i PrefixSums(__m256i x, __m256i carry) {
  const __m256i zero = _mm256_setzero_si256();
  x = _mm256_add_epi64(x, _mm256_blend_epi32(_mm256_permute4x64_epi64(x, 0x90), zero, 0x03));
  x = _mm256_add_epi64(x, _mm256_blend_epi32(_mm256_permute4x64_epi64(x, 0x40), zero, 0x0F));
  return _mm256_add_epi64(x, carry);
}

// SideGain of four sides in lanes: g and h the quantized sums as doubles, times their units.
__attribute__((target("avx2"))) inline __m128 SideGains(__m256d g, __m256d h, __m256d alpha,
                                                        __m256d lambda) {
  const __m256d zero = _mm256_setzero_pd();
  const __m256d a = _mm256_sub_pd(_mm256_andnot_pd(_mm256_set1_pd(-0.0), g), alpha);
  const __m256d t = _mm256_max_pd(a, zero);  // a > 0 ? a : 0 (a is never NaN)
  const __m256d q = _mm256_div_pd(_mm256_mul_pd(t, t), _mm256_add_pd(h, lambda));
  return _mm256_cvtpd_ps(_mm256_blendv_pd(q, zero, _mm256_cmp_pd(h, zero, _CMP_LE_OQ)));
}

// NoDeltaLosses's four-lane steps over the whole groups of 4 of sums[0, m); returns the allowed
// bits of those.
__attribute__((target("avx2"))) inline uint32_t NoDeltaLossesAvx2(
    const GradientSum* sums, std::size_t m, GradientSum node, int64_t min_hess, double grad_unit,
    double hess_unit, const SplitParams& p, float node_gain, float* loss) {
  const __m256i node_g = _mm256_set1_epi64x(node.g), node_h = _mm256_set1_epi64x(node.h);
  const __m256i below = _mm256_set1_epi64x(min_hess);
  const __m256d gu = _mm256_set1_pd(grad_unit), hu = _mm256_set1_pd(hess_unit);
  const __m256d alpha = _mm256_set1_pd(p.alpha), lambda = _mm256_set1_pd(p.lambda);
  const __m128 parent = _mm_set1_ps(node_gain);
  uint32_t allowed = 0;
  for (std::size_t i = 0; i + 4 <= m; i += 4) {
    __m256i g, h;
    LoadCells(sums + i, &g, &h);
    const __m256i rest_g = _mm256_sub_epi64(node_g, g), rest_h = _mm256_sub_epi64(node_h, h);
    const __m256i light =
        _mm256_or_si256(_mm256_cmpgt_epi64(below, h), _mm256_cmpgt_epi64(below, rest_h));
    allowed |= static_cast<uint32_t>(~_mm256_movemask_pd(_mm256_castsi256_pd(light)) & 0xf) << i;
    const __m128 side =
        SideGains(_mm256_mul_pd(ToDouble(g), gu), _mm256_mul_pd(ToDouble(h), hu), alpha, lambda);
    const __m128 other = SideGains(_mm256_mul_pd(ToDouble(rest_g), gu),
                                   _mm256_mul_pd(ToDouble(rest_h), hu), alpha, lambda);
    _mm_storeu_ps(loss + i, _mm_sub_ps(_mm_add_ps(side, other), parent));
  }
  return allowed;
}

// The forward scans' lanes' bests (bins[k] < 0: none) into *best_loss and *best_bin: the largest
// loss change, the lowest bin among equals.
inline void FoldLanes(const float* losses, const int32_t* bins, int lanes, float* best_loss,
                      int64_t* best_bin) {
  for (int k = 0; k < lanes; ++k) {
    if (bins[k] < 0) continue;
    if (losses[k] > *best_loss || (losses[k] == *best_loss && bins[k] < *best_bin)) {
      *best_loss = losses[k];
      *best_bin = bins[k];
    }
  }
}

// The best forward candidate of a feature's bins hist[0, n_bins) (EvaluateFeature's, for
// SplitEvaluator::ForwardBest): four bins a step, the prefix sums of g and h carried in lanes as
// in ScanBinsAvx2, each step's four loss changes by NoDeltaLossesAvx2's operations (so the same
// bits), kept per lane where allowed (the bin non-empty, both sides at least `min_hess`) and
// larger than the lane's best so far; the lanes then give the largest, the lowest bin among
// equals. Returns the first bin not scanned; `present` gets the sum of the bins scanned.
__attribute__((target("avx2"))) inline uint32_t ForwardBestAvx2(
    const GradientSum* hist, uint32_t n_bins, GradientSum node, int64_t min_hess, double grad_unit,
    double hess_unit, const SplitParams& p, float node_gain, float* best_loss, int64_t* best_bin,
    GradientSum* present) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i node_g = _mm256_set1_epi64x(node.g), node_h = _mm256_set1_epi64x(node.h);
  const __m256i below = _mm256_set1_epi64x(min_hess);
  const __m256d gu = _mm256_set1_pd(grad_unit), hu = _mm256_set1_pd(hess_unit);
  const __m256d alpha = _mm256_set1_pd(p.alpha), lambda = _mm256_set1_pd(p.lambda);
  const __m128 parent = _mm_set1_ps(node_gain);
  __m256i run_g = zero, run_h = zero;
  __m128 lane_loss = _mm_set1_ps(*best_loss);
  __m128i lane_bin = _mm_set1_epi32(-1), bin = _mm_setr_epi32(0, 1, 2, 3);
  uint32_t b = 0;
  for (; b + 4 <= n_bins; b += 4) {
    __m256i g, h;
    LoadCells(hist + b, &g, &h);
    const __m256i pg = PrefixSums(g, run_g);
    const __m256i ph = PrefixSums(h, run_h);
    run_g = _mm256_permute4x64_epi64(pg, 0xFF);
    run_h = _mm256_permute4x64_epi64(ph, 0xFF);
    const __m256i rest_g = _mm256_sub_epi64(node_g, pg), rest_h = _mm256_sub_epi64(node_h, ph);
    // Not allowed: an empty bin (not a candidate), or a side under min_child_weight.
    const __m256i out = _mm256_or_si256(
        _mm256_cmpeq_epi64(_mm256_or_si256(g, h), zero),
        _mm256_or_si256(_mm256_cmpgt_epi64(below, ph), _mm256_cmpgt_epi64(below, rest_h)));
    // The four 64-bit masks as four 32-bit ones (each 64-bit lane's halves are equal).
    const __m128i out32 = _mm256_castsi256_si128(
        _mm256_permutevar8x32_epi32(out, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
    const __m128 side =
        SideGains(_mm256_mul_pd(ToDouble(pg), gu), _mm256_mul_pd(ToDouble(ph), hu), alpha, lambda);
    const __m128 other = SideGains(_mm256_mul_pd(ToDouble(rest_g), gu),
                                   _mm256_mul_pd(ToDouble(rest_h), hu), alpha, lambda);
    const __m128 loss = _mm_sub_ps(_mm_add_ps(side, other), parent);
    const __m128 better =
        _mm_andnot_ps(_mm_castsi128_ps(out32), _mm_cmp_ps(loss, lane_loss, _CMP_GT_OQ));
    lane_loss = _mm_blendv_ps(lane_loss, loss, better);
    lane_bin =
        _mm_castps_si128(_mm_blendv_ps(_mm_castsi128_ps(lane_bin), _mm_castsi128_ps(bin), better));
    bin = _mm_add_epi32(bin, _mm_set1_epi32(4));
  }
  alignas(16) float losses[4];
  alignas(16) int32_t bins[4];
  _mm_store_ps(losses, lane_loss);
  _mm_store_si128(reinterpret_cast<__m128i*>(bins), lane_bin);
  FoldLanes(losses, bins, 4, best_loss, best_bin);
  alignas(32) int64_t sums[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(sums), run_g);
  present->g = sums[0];
  _mm256_store_si256(reinterpret_cast<__m256i*>(sums), run_h);
  present->h = sums[0];
  return b;
}

// SideGains in eight lanes.
__attribute__((target("avx512f,avx512dq,avx512vl"))) inline __m256 SideGains8(__m512d g, __m512d h,
                                                                              __m512d alpha,
                                                                              __m512d lambda) {
  const __m512d zero = _mm512_setzero_pd();
  const __m512d a = _mm512_sub_pd(_mm512_andnot_pd(_mm512_set1_pd(-0.0), g), alpha);
  const __m512d t = _mm512_maskz_max_pd(0xff, a, zero);  // a > 0 ? a : 0, as SideGains
  const __m512d q = _mm512_div_pd(_mm512_mul_pd(t, t), _mm512_add_pd(h, lambda));
  return _mm512_maskz_cvtpd_ps(
      0xff, _mm512_mask_blend_pd(_mm512_cmp_pd_mask(h, zero, _CMP_LE_OQ), q, zero));
}

// PrefixSums in eight lanes: three shifted adds. (The all-ones masked forms here and below: the
// plain ones leave GCC 12 warning of an uninitialized source.)
__attribute__((target("avx512f"))) inline __m512i PrefixSums8(__m512i x, __m512i carry) {
  const __m512i zero = _mm512_setzero_si512();
  x = _mm512_add_epi64(x, _mm512_maskz_alignr_epi64(0xff, x, zero, 7));
  x = _mm512_add_epi64(x, _mm512_maskz_alignr_epi64(0xff, x, zero, 6));
  x = _mm512_add_epi64(x, _mm512_maskz_alignr_epi64(0xff, x, zero, 4));
  return _mm512_add_epi64(x, carry);
}

// ForwardBestAvx2's steps eight bins at a time in AVX-512 lanes, over whole groups of 8 of
// hist[0, n_bins): the same IEEE operations on each candidate (the int64 sums converted by
// vcvtqq2pd, which rounds as ToDouble does), so the same bits, and the same choice among the
// lanes' bests (the largest loss change, the lowest bin among equals). Sets *best_loss and
// *best_bin where a lane beats *best_loss, *present to the bins' sum; returns the first bin not
// scanned. The conversions are one instruction and the lanes twice as many, where the two
// divisions a candidate stay as they were: the dense bench set's phase evaluate took 0.76 of its
// time with ForwardBestAvx2.
__attribute__((target("avx512f,avx512dq,avx512vl"))) inline uint32_t ForwardBestAvx512(
    const GradientSum* hist, uint32_t n_bins, GradientSum node, int64_t min_hess, double grad_unit,
    double hess_unit, const SplitParams& p, float node_gain, float* best_loss, int64_t* best_bin,
    GradientSum* present) {
  const __m512i zero = _mm512_setzero_si512();
  const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
  const __m512i odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
  const __m512i last = _mm512_set1_epi64(7);
  const __m512i node_g = _mm512_set1_epi64(node.g), node_h = _mm512_set1_epi64(node.h);
  const __m512i below = _mm512_set1_epi64(min_hess);
  const __m512d gu = _mm512_set1_pd(grad_unit), hu = _mm512_set1_pd(hess_unit);
  const __m512d alpha = _mm512_set1_pd(p.alpha), lambda = _mm512_set1_pd(p.lambda);
  const __m256 parent = _mm256_set1_ps(node_gain);
  __m512i run_g = zero, run_h = zero;
  __m256 lane_loss = _mm256_set1_ps(*best_loss);
  __m256i lane_bin = _mm256_set1_epi32(-1), bin = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  uint32_t b = 0;
  for (; b + 8 <= n_bins; b += 8) {
    const __m512i c0 = _mm512_loadu_si512(hist + b), c1 = _mm512_loadu_si512(hist + b + 4);
    const __m512i g = _mm512_permutex2var_epi64(c0, even, c1);
    const __m512i h = _mm512_permutex2var_epi64(c0, odd, c1);
    const __m512i pg = PrefixSums8(g, run_g), ph = PrefixSums8(h, run_h);
    run_g = _mm512_maskz_permutexvar_epi64(0xff, last, pg);
    run_h = _mm512_maskz_permutexvar_epi64(0xff, last, ph);
    const __m512i rest_g = _mm512_sub_epi64(node_g, pg), rest_h = _mm512_sub_epi64(node_h, ph);
    // Not allowed: an empty bin (not a candidate), or a side under min_child_weight.
    const __mmask8 out = _mm512_cmpeq_epi64_mask(_mm512_or_si512(g, h), zero) |
                         _mm512_cmpgt_epi64_mask(below, ph) |
                         _mm512_cmpgt_epi64_mask(below, rest_h);
    const __m256 side = SideGains8(_mm512_mul_pd(_mm512_cvtepi64_pd(pg), gu),
                                   _mm512_mul_pd(_mm512_cvtepi64_pd(ph), hu), alpha, lambda);
    const __m256 other = SideGains8(_mm512_mul_pd(_mm512_cvtepi64_pd(rest_g), gu),
                                    _mm512_mul_pd(_mm512_cvtepi64_pd(rest_h), hu), alpha, lambda);
    const __m256 loss = _mm256_sub_ps(_mm256_add_ps(side, other), parent);
    const __mmask8 better =
        static_cast<__mmask8>(~out) & _mm256_cmp_ps_mask(loss, lane_loss, _CMP_GT_OQ);
    lane_loss = _mm256_mask_blend_ps(better, lane_loss, loss);
    lane_bin = _mm256_mask_blend_epi32(better, lane_bin, bin);
    bin = _mm256_add_epi32(bin, _mm256_set1_epi32(8));
  }
  alignas(32) float losses[8];
  alignas(32) int32_t bins[8];
  _mm256_store_ps(losses, lane_loss);
  _mm256_store_si256(reinterpret_cast<__m256i*>(bins), lane_bin);
  FoldLanes(losses, bins, 8, best_loss, best_bin);
  alignas(64) int64_t sums[8];  // every lane holds the bins' sum
  _mm512_store_si512(sums, run_g);
  present->g = sums[0];
  _mm512_store_si512(sums, run_h);
  present->h = sums[0];
  return b;
}

// ScanBins's four-cell steps over whole groups of 4 of bins [lo, hi): returns the first bin not
// scanned. The prefix sums of g in lanes (two shifted adds), carried from step to step in the
// last lane; their minimum and maximum, the h sums and the h signs (an or) kept per lane and
// folded at the end; the non-empty bins' local indices compacted by a table of lane orders.
__attribute__((target("avx2,popcnt"))) inline uint32_t ScanBinsAvx2(const GradientSum* hist,
                                                                    uint32_t lo, uint32_t hi,
                                                                    uint32_t begin,
                                                                    uint32_t* nonzero,
                                                                    SplitEvaluator::BinScan* scan) {
  alignas(16) static constexpr uint32_t kLanes[16][4] = {
      {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {2, 0, 0, 0}, {0, 2, 0, 0},
      {1, 2, 0, 0}, {0, 1, 2, 0}, {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0},
      {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3}};
  const __m256i zero = _mm256_setzero_si256();
  __m256i run_g = _mm256_set1_epi64x(scan->present.g);
  __m256i sum_h = zero, sign_h = zero;
  __m256i lowest = _mm256_set1_epi64x(scan->prefix_min);
  __m256i highest = _mm256_set1_epi64x(scan->prefix_max);
  std::size_t n = scan->n;
  uint32_t b = lo;
  for (; b + 4 <= hi; b += 4) {
    __m256i g, h;
    LoadCells(hist + b, &g, &h);
    const int empty =
        _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_or_si256(g, h), zero)));
    const int mask = ~empty & 0xf;
    const __m128i lanes = _mm_load_si128(reinterpret_cast<const __m128i*>(kLanes[mask]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(nonzero + n),
                     _mm_add_epi32(lanes, _mm_set1_epi32(static_cast<int>(b - begin))));
    n += static_cast<std::size_t>(__builtin_popcount(mask));
    const __m256i p = PrefixSums(g, run_g);
    lowest = _mm256_blendv_epi8(lowest, p, _mm256_cmpgt_epi64(lowest, p));
    highest = _mm256_blendv_epi8(highest, p, _mm256_cmpgt_epi64(p, highest));
    run_g = _mm256_permute4x64_epi64(p, 0xFF);
    sum_h = _mm256_add_epi64(sum_h, h);
    sign_h = _mm256_or_si256(sign_h, h);
  }
  alignas(32) int64_t lo_lanes[4], hi_lanes[4], h_lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lo_lanes), lowest);
  _mm256_store_si256(reinterpret_cast<__m256i*>(hi_lanes), highest);
  _mm256_store_si256(reinterpret_cast<__m256i*>(h_lanes), sum_h);
  for (int k = 0; k < 4; ++k) {
    scan->prefix_min = std::min(scan->prefix_min, lo_lanes[k]);
    scan->prefix_max = std::max(scan->prefix_max, hi_lanes[k]);
    scan->present.h += h_lanes[k];
  }
  scan->present.g = _mm256_extract_epi64(run_g, 0);
  scan->nonnegative_hess &= _mm256_movemask_pd(_mm256_castsi256_pd(sign_h)) == 0;
  scan->n = n;
  return b;
}
#endif

}  // namespace split_kernels
}  // namespace ringboost
