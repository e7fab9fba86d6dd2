#include "tree/gradient.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "common/error.h"
#include "common/random.h"

namespace ringboost {
namespace {

// Largest e with max_abs * 2^e <= limit (0 when max_abs is 0).
int ScaleExponent(double max_abs, double limit) {
  if (!(max_abs > 0.0)) return 0;
  int e = static_cast<int>(std::floor(std::log2(limit / max_abs)));
  while (std::ldexp(max_abs, e) > limit) --e;
  while (std::ldexp(max_abs, e + 1) <= limit) ++e;
  return e;
}

}  // namespace

GradientQuantizer::GradientQuantizer(const std::vector<GradPair>& gpair, int stride, int group,
                                     rabit::Communicator* comm, int nthread) {
  if (nthread <= 0) nthread = omp_get_max_threads();
  const int64_t n = static_cast<int64_t>(gpair.size() / static_cast<std::size_t>(stride));
  double max_g = 0.0, max_h = 0.0;
  int64_t bad = n;  // first row with a non-finite gradient
#pragma omp parallel for schedule(static) num_threads(nthread) reduction(max             \
                                                                         : max_g, max_h) \
    reduction(min                                                                        \
              : bad)
  for (int64_t i = 0; i < n; ++i) {
    const GradPair& p = gpair[i * stride + group];
    if (!std::isfinite(p.grad) || !std::isfinite(p.hess)) bad = std::min(bad, i);
    max_g = std::max(max_g, std::fabs(static_cast<double>(p.grad)));
    max_h = std::max(max_h, std::fabs(static_cast<double>(p.hess)));
  }
  if (bad != n) {  // the predictions overflowed: a parameter or label the user can change
    RB_FAIL("the gradient of training row " << bad << " is not finite (gradient "
                                            << gpair[bad * stride + group].grad << ", hessian "
                                            << gpair[bad * stride + group].hess
                                            << "): the predictions overflowed; use a smaller eta "
                                               "or set max_delta_step (e.g. 1), and check the "
                                               "labels and base_score");
  }
  *this = GradientQuantizer(max_g, max_h, static_cast<uint64_t>(n), comm);
}

GradientQuantizer::GradientQuantizer(double max_g, double max_h, uint64_t local_rows,
                                     rabit::Communicator* comm) {
  double max_abs[2] = {max_g, max_h};
  comm->Allreduce(Span<double>(max_abs, 2), rabit::Op::kMax);
  max_g_ = max_abs[0];
  max_h_ = max_abs[1];
  const uint64_t rows = comm->AllreduceValue<uint64_t>(local_rows, rabit::Op::kSum);
  // Every |q| <= limit, so any sum of `rows` of them stays below 2^62.
  const double limit = std::ldexp(1.0, 62) / static_cast<double>(std::max<uint64_t>(rows, 1) + 1);
  grad_exp_ = ScaleExponent(max_abs[0], limit);
  hess_exp_ = ScaleExponent(max_abs[1], limit);
  grad_unit_ = std::ldexp(1.0, -grad_exp_);
  hess_unit_ = std::ldexp(1.0, -hess_exp_);
  grad_scale_ = std::ldexp(1.0, grad_exp_);
  hess_scale_ = std::ldexp(1.0, hess_exp_);
}

GradientQuantizer GradientQuantizer::LowBit() const {
  GradientQuantizer q = *this;
  q.low_bit_ = true;
  constexpr double kLevels = LowBitPolicy::kLevels;
  // A zero maximum: every value is 0 and quantizes to 0 with any unit.
  q.grad_unit_ = max_g_ > 0.0 ? max_g_ / kLevels : 1.0;
  q.hess_unit_ = max_h_ > 0.0 ? max_h_ / kLevels : 1.0;
  q.grad_scale_ = 1.0 / q.grad_unit_;
  q.hess_scale_ = 1.0 / q.hess_unit_;
  return q;
}

namespace {
// rows(begin, end, &part) on each thread's equal contiguous share of rows [0, n); the parts'
// sum (integer sums: the same whatever the shares).
template <typename Rows>
GradientSum SumOverThreadShares(std::size_t n, int nthread, const Rows& rows) {
  GradientSum total;
#pragma omp parallel num_threads(nthread)
  {
    const int t = omp_get_thread_num(), threads = omp_get_num_threads();
    GradientSum mine;
    rows(n * t / threads, n * (t + 1) / threads, &mine);
#pragma omp critical
    total += mine;
  }
  return total;
}

#if defined(__SSE2__)
// LowBitQuantize with g and h in the two lanes: the same operations in the same order, each as
// exact as the scalar one (the draws' halves to doubles through 2^52; the clamp by max and min,
// which equal the scalar comparisons for numbers; the floor as the truncation less one where it
// rounded up), so the same values, which the device's scalar code gives too.
struct LowBitRounder {
  __m128d scale;
  const __m128d unit = _mm_set1_pd(1.0 / 4294967296.0);
  const __m128d magic = _mm_set1_pd(0x1p52);
  const __m128d lo = _mm_set1_pd(-LowBitPolicy::kLevels);
  const __m128d hi = _mm_set1_pd(LowBitPolicy::kLevels);
  const __m128d one = _mm_set1_pd(1.0);
  LowBitRounder(double grad_scale, double hess_scale) : scale(_mm_set_pd(hess_scale, grad_scale)) {}
  GradientSum operator()(const GradPair& p, uint64_t bits) const {
    static_assert(sizeof(GradPair) == 8, "two floats: grad, then hess");
    const __m128d x =
        _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(&p))));
    const __m128i halves =
        _mm_set_epi64x(static_cast<int64_t>(bits & 0xffffffffu), static_cast<int64_t>(bits >> 32));
    const __m128d u = _mm_mul_pd(
        _mm_sub_pd(_mm_castsi128_pd(_mm_or_si128(halves, _mm_castpd_si128(magic))), magic), unit);
    const __m128d v = _mm_min_pd(_mm_max_pd(_mm_add_pd(_mm_mul_pd(x, scale), u), lo), hi);
    const __m128d t = _mm_cvtepi32_pd(_mm_cvttpd_epi32(v));
    const __m128i q = _mm_cvttpd_epi32(_mm_sub_pd(t, _mm_and_pd(_mm_cmpgt_pd(t, v), one)));
    return GradientSum{_mm_cvtsi128_si32(q), _mm_cvtsi128_si32(_mm_srli_si128(q, 4))};
  }
};
#else
struct LowBitRounder {
  double grad_scale, hess_scale;
  GradientSum operator()(const GradPair& p, uint64_t bits) const {
    return LowBitQuantize(p, grad_scale, hess_scale, bits);
  }
};
#endif

#if defined(__x86_64__) && defined(__GNUC__)
// x * c mod 2^64 in four lanes (AVX2 has no 64-bit multiply): lo*lo + ((lo*hi + hi*lo) << 32).
__attribute__((target("avx2"))) inline __m256i MulLo64(__m256i x, uint64_t c) {
  const __m256i c_lo = _mm256_set1_epi64x(static_cast<int64_t>(c & 0xffffffffu));
  const __m256i c_hi = _mm256_set1_epi64x(static_cast<int64_t>(c >> 32));
  const __m256i cross =
      _mm256_add_epi64(_mm256_mul_epu32(x, c_hi), _mm256_mul_epu32(_mm256_srli_epi64(x, 32), c_lo));
  return _mm256_add_epi64(_mm256_mul_epu32(x, c_lo), _mm256_slli_epi64(cross, 32));
}

// Mix64 in four lanes.
__attribute__((target("avx2"))) inline __m256i Mix64Lanes(__m256i x) {
  x = _mm256_add_epi64(x, _mm256_set1_epi64x(static_cast<int64_t>(0x9e3779b97f4a7c15ULL)));
  x = MulLo64(_mm256_xor_si256(x, _mm256_srli_epi64(x, 30)), 0xbf58476d1ce4e5b9ULL);
  x = MulLo64(_mm256_xor_si256(x, _mm256_srli_epi64(x, 27)), 0x94d049bb133111ebULL);
  return _mm256_xor_si256(x, _mm256_srli_epi64(x, 31));
}

// LowBitRound of four values in lanes, u's from 32-bit draws: LowBitRounder's operations (so
// its values) four at a time; returns the four levels as int32.
__attribute__((target("avx2"))) inline __m128i RoundLanes(__m256d x, __m256d scale, __m256i draws) {
  const __m256d magic = _mm256_set1_pd(0x1p52);
  const __m256d u = _mm256_mul_pd(
      _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(draws, _mm256_castpd_si256(magic))), magic),
      _mm256_set1_pd(1.0 / 4294967296.0));
  const __m256d v = _mm256_min_pd(_mm256_max_pd(_mm256_add_pd(_mm256_mul_pd(x, scale), u),
                                                _mm256_set1_pd(-LowBitPolicy::kLevels)),
                                  _mm256_set1_pd(LowBitPolicy::kLevels));
  const __m256d t = _mm256_cvtepi32_pd(_mm256_cvttpd_epi32(v));
  return _mm256_cvttpd_epi32(
      _mm256_sub_pd(t, _mm256_and_pd(_mm256_cmp_pd(t, v, _CMP_GT_OQ), _mm256_set1_pd(1.0))));
}

// QuantizeAllLowBit's rows [begin, end) of a one-group gradient array with no rows left out,
// four rows a step (the rest a row at a time by `scalar`); adds what it writes to *sum.
template <typename Scalar>
__attribute__((target("avx2"))) void LowBitRowsAvx2(const GradPair* gpair, std::size_t begin,
                                                    std::size_t end, uint64_t prefix,
                                                    uint64_t first_row, double grad_scale,
                                                    double hess_scale, const Scalar& scalar,
                                                    GradientSum* out, GradientSum* sum) {
  static_assert(sizeof(GradPair) == 8 && sizeof(GradientSum) == 16, "(g, h) floats; int64 cells");
  const __m256d gs = _mm256_set1_pd(grad_scale), hs = _mm256_set1_pd(hess_scale);
  const __m256i low32 = _mm256_set1_epi64x(0xffffffff);
  __m256i total = _mm256_setzero_si256();  // (g, h, g, h) of the cells written
  __m256i row = _mm256_add_epi64(_mm256_set1_epi64x(static_cast<int64_t>(first_row + begin)),
                                 _mm256_setr_epi64x(0, 1, 2, 3));
  std::size_t i = begin;
  for (; i + 4 <= end; i += 4) {
    const __m256i bits = Mix64Lanes(_mm256_xor_si256(_mm256_set1_epi64x(prefix), row));
    row = _mm256_add_epi64(row, _mm256_set1_epi64x(4));
    // (g0 h0 g1 h1 g2 h2 g3 h3) -> (g0 g1 g2 g3 | h0 h1 h2 h3)
    const __m256 pairs =
        _mm256_permutevar8x32_ps(_mm256_loadu_ps(reinterpret_cast<const float*>(gpair + i)),
                                 _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
    const __m128i qg =
        RoundLanes(_mm256_cvtps_pd(_mm256_castps256_ps128(pairs)), gs, _mm256_srli_epi64(bits, 32));
    const __m128i qh = RoundLanes(_mm256_cvtps_pd(_mm256_extractf128_ps(pairs, 1)), hs,
                                  _mm256_and_si256(bits, low32));
    const __m256i cells01 = _mm256_cvtepi32_epi64(_mm_unpacklo_epi32(qg, qh));
    const __m256i cells23 = _mm256_cvtepi32_epi64(_mm_unpackhi_epi32(qg, qh));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), cells01);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i + 2), cells23);
    total = _mm256_add_epi64(total, _mm256_add_epi64(cells01, cells23));
  }
  alignas(32) int64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), total);
  sum->g += lanes[0] + lanes[2];
  sum->h += lanes[1] + lanes[3];
  for (; i < end; ++i) {
    out[i] = scalar(i);
    *sum += out[i];
  }
}

// Eight rows' cells stored from out on (q0 the first four rows' (g, h), q1 the next four's),
// their sums added to *total's lanes.
__attribute__((target("avx512f"))) inline void PutEightCells(GradientSum* out, __m512i q0,
                                                             __m512i q1, __m512i* total) {
  _mm512_storeu_si512(out, q0);
  _mm512_storeu_si512(out + 4, q1);
  *total = _mm512_add_epi64(*total, _mm512_add_epi64(q0, q1));
}

// After the eight-row steps: their lanes' (g, h) sums into *sum, then rows [i, end) by `scalar`.
template <typename Scalar>
__attribute__((target("avx512f"))) void FinishRows(__m512i total, std::size_t i, std::size_t end,
                                                   const Scalar& scalar, GradientSum* out,
                                                   GradientSum* sum) {
  alignas(64) int64_t lanes[8];
  _mm512_store_si512(lanes, total);
  for (int k = 0; k < 8; k += 2) *sum += GradientSum{lanes[k], lanes[k + 1]};
  for (; i < end; ++i) {
    out[i] = scalar(i);
    *sum += out[i];
  }
}

// Mix64 in eight lanes (AVX-512 DQ's 64-bit multiply).
__attribute__((target("avx512f,avx512dq"))) inline __m512i Mix64Lanes8(__m512i x) {
  constexpr __mmask8 kAll = 0xff;
  x = _mm512_add_epi64(x, _mm512_set1_epi64(static_cast<int64_t>(0x9e3779b97f4a7c15ULL)));
  x = _mm512_mullo_epi64(_mm512_xor_si512(x, _mm512_maskz_srli_epi64(kAll, x, 30)),
                         _mm512_set1_epi64(static_cast<int64_t>(0xbf58476d1ce4e5b9ULL)));
  x = _mm512_mullo_epi64(_mm512_xor_si512(x, _mm512_maskz_srli_epi64(kAll, x, 27)),
                         _mm512_set1_epi64(static_cast<int64_t>(0x94d049bb133111ebULL)));
  return _mm512_xor_si512(x, _mm512_maskz_srli_epi64(kAll, x, 31));
}

// RoundLanes in eight lanes: LowBitRounder's operations on each value (x * scale + u, the
// clamp, the truncation less one where it rounded up), the levels as int64.
__attribute__((target("avx512f,avx512dq"))) inline __m512i RoundLanes8(__m512d x, __m512d scale,
                                                                       __m512i draws) {
  constexpr __mmask8 kAll = 0xff;
  const __m512d magic = _mm512_set1_pd(0x1p52);
  const __m512d u = _mm512_mul_pd(
      _mm512_sub_pd(_mm512_castsi512_pd(_mm512_or_si512(draws, _mm512_castpd_si512(magic))), magic),
      _mm512_set1_pd(1.0 / 4294967296.0));
  const __m512d v =
      _mm512_maskz_min_pd(kAll,
                          _mm512_maskz_max_pd(kAll, _mm512_add_pd(_mm512_mul_pd(x, scale), u),
                                              _mm512_set1_pd(-LowBitPolicy::kLevels)),
                          _mm512_set1_pd(LowBitPolicy::kLevels));
  const __m512d t = _mm512_maskz_roundscale_pd(kAll, v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __mmask8 up = _mm512_cmp_pd_mask(t, v, _CMP_GT_OQ);
  return _mm512_maskz_cvttpd_epi64(kAll, _mm512_mask_sub_pd(t, up, t, _mm512_set1_pd(1.0)));
}

// Each of the four rows that `rows` names (each twice) of the eight draws `bits`, in its two
// lanes: the draw's high half in the g lane, its low half in the h lane.
__attribute__((target("avx512f,avx512dq"))) inline __m512i DrawHalves(__m512i bits, __m512i rows) {
  constexpr __mmask8 kAll = 0xff;
  constexpr __mmask8 kHessLanes = 0xaa;  // the odd lanes
  const __m512i both = _mm512_maskz_permutexvar_epi64(kAll, rows, bits);
  return _mm512_mask_and_epi64(_mm512_maskz_srli_epi64(kAll, both, 32), kHessLanes, both,
                               _mm512_set1_epi64(0xffffffff));
}

// LowBitRowsAvx2 eight rows a step in AVX-512 lanes: each row's draw by Mix64Lanes8, the (g, h)
// floats widened to doubles where they lie, each lane rounded with its half of its row's draw
// (g the high 32 bits, h the low), so the levels come out in GradientSum's (g, h) order.
template <typename Scalar>
__attribute__((target("avx512f,avx512dq"))) void LowBitRowsAvx512(
    const GradPair* gpair, std::size_t begin, std::size_t end, uint64_t prefix, uint64_t first_row,
    double grad_scale, double hess_scale, const Scalar& scalar, GradientSum* out,
    GradientSum* sum) {
  static_assert(sizeof(GradPair) == 8 && sizeof(GradientSum) == 16, "(g, h) floats; int64 cells");
  constexpr __mmask8 kAll = 0xff;
  const __m512d scale = _mm512_setr_pd(grad_scale, hess_scale, grad_scale, hess_scale, grad_scale,
                                       hess_scale, grad_scale, hess_scale);
  const __m512i rows_0123 = _mm512_setr_epi64(0, 0, 1, 1, 2, 2, 3, 3);
  const __m512i rows_4567 = _mm512_setr_epi64(4, 4, 5, 5, 6, 6, 7, 7);
  __m512i total = _mm512_setzero_si512();
  __m512i row = _mm512_add_epi64(_mm512_set1_epi64(static_cast<int64_t>(first_row + begin)),
                                 _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
  std::size_t i = begin;
  for (; i + 8 <= end; i += 8) {
    const __m512i bits =
        Mix64Lanes8(_mm512_xor_si512(_mm512_set1_epi64(static_cast<int64_t>(prefix)), row));
    row = _mm512_add_epi64(row, _mm512_set1_epi64(8));
    const __m512 pairs = _mm512_loadu_ps(reinterpret_cast<const float*>(gpair + i));
    const __m512i q0 =
        RoundLanes8(_mm512_maskz_cvtps_pd(kAll, _mm512_maskz_extractf32x8_ps(kAll, pairs, 0)),
                    scale, DrawHalves(bits, rows_0123));
    const __m512i q1 =
        RoundLanes8(_mm512_maskz_cvtps_pd(kAll, _mm512_maskz_extractf32x8_ps(kAll, pairs, 1)),
                    scale, DrawHalves(bits, rows_4567));
    PutEightCells(out + i, q0, q1, &total);
  }
  FinishRows(total, i, end, scalar, out, sum);
}

// QuantizeAll's rows [begin, end) of a one-group array with no row left out, eight a step in
// AVX-512 lanes: the (g, h) floats widened to doubles where they lie, times (grad_scale,
// hess_scale), rounded by vcvtpd2qq under the MXCSR's mode (to nearest, ties to even, as
// Quantize's cvtsd2si; out of range, the same 2^63 pattern), so Quantize's values, already in
// GradientSum's (g, h) order; the rest by `scalar`. Adds what it writes to *sum.
template <typename Scalar>
__attribute__((target("avx512f,avx512dq"))) void QuantizeRowsAvx512(
    const GradPair* gpair, std::size_t begin, std::size_t end, double grad_scale, double hess_scale,
    const Scalar& scalar, GradientSum* out, GradientSum* sum) {
  static_assert(sizeof(GradPair) == 8 && sizeof(GradientSum) == 16, "(g, h) floats; int64 cells");
  const __m512d scale = _mm512_setr_pd(grad_scale, hess_scale, grad_scale, hess_scale, grad_scale,
                                       hess_scale, grad_scale, hess_scale);
  constexpr __mmask8 kAll = 0xff;          // the masked forms: no undefined pass-through operand
  __m512i total = _mm512_setzero_si512();  // (g, h) x 4 of the cells written
  std::size_t i = begin;
  for (; i + 8 <= end; i += 8) {
    const __m512 pairs = _mm512_loadu_ps(reinterpret_cast<const float*>(gpair + i));
    const __m256 first = _mm512_maskz_extractf32x8_ps(kAll, pairs, 0);
    const __m256 second = _mm512_maskz_extractf32x8_ps(kAll, pairs, 1);
    const __m512i q0 =
        _mm512_maskz_cvtpd_epi64(kAll, _mm512_mul_pd(_mm512_maskz_cvtps_pd(kAll, first), scale));
    const __m512i q1 =
        _mm512_maskz_cvtpd_epi64(kAll, _mm512_mul_pd(_mm512_maskz_cvtps_pd(kAll, second), scale));
    PutEightCells(out + i, q0, q1, &total);
  }
  FinishRows(total, i, end, scalar, out, sum);
}
#endif
}  // namespace

GradientSum GradientQuantizer::QuantizeAllLowBit(const std::vector<GradPair>& gpair, int stride,
                                                 int group, const std::vector<uint8_t>& keep,
                                                 uint64_t seed, uint64_t key, uint64_t first_row,
                                                 int nthread, std::vector<GradientSum>* out,
                                                 GradientIsa isa) const {
  RB_CHECK(low_bit_);
  const std::size_t n = gpair.size() / static_cast<std::size_t>(stride);
  out->resize(n);
  GradientSum* q = out->data();
  const uint64_t prefix =
      CounterPrefix(seed, static_cast<uint64_t>(RandomStream::kLowBitGradient), key);
  const LowBitRounder round{grad_scale_, hess_scale_};
  RB_CHECK_MSG(QuantizerIsaAvailable(isa), "instruction set " << static_cast<int>(isa));
#if defined(__x86_64__) && defined(__GNUC__)
  if (isa == GradientIsa::kBest) {
    isa = QuantizerIsaAvailable(GradientIsa::kAvx512) ? GradientIsa::kAvx512
          : QuantizerIsaAvailable(GradientIsa::kAvx2) ? GradientIsa::kAvx2
                                                      : GradientIsa::kBaseline;
  }
  if (isa != GradientIsa::kBaseline && stride == 1 && keep.empty()) {
    const auto scalar = [&](std::size_t i) {
      return round(gpair[i], CounterHashFrom(prefix, first_row + i));
    };
    return SumOverThreadShares(n, nthread,
                               [&](std::size_t begin, std::size_t end, GradientSum* mine) {
                                 if (isa == GradientIsa::kAvx512) {
                                   LowBitRowsAvx512(gpair.data(), begin, end, prefix, first_row,
                                                    grad_scale_, hess_scale_, scalar, q, mine);
                                 } else {
                                   LowBitRowsAvx2(gpair.data(), begin, end, prefix, first_row,
                                                  grad_scale_, hess_scale_, scalar, q, mine);
                                 }
                               });
  }
#endif
  int64_t sum_g = 0, sum_h = 0;
#pragma omp parallel for schedule(static) num_threads(nthread) reduction(+ : sum_g, sum_h)
  for (std::size_t i = 0; i < n; ++i) {
    if (!keep.empty() && !keep[i]) {
      q[i] = GradientSum{};
      continue;
    }
    q[i] = round(gpair[i * stride + group], CounterHashFrom(prefix, first_row + i));
    sum_g += q[i].g;
    sum_h += q[i].h;
  }
  return GradientSum{sum_g, sum_h};
}

bool QuantizerIsaAvailable(GradientIsa isa) {
  if (isa != GradientIsa::kAvx512) return GradientIsaAvailable(isa);
#if defined(__x86_64__) && defined(__GNUC__)
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
#else
  return false;
#endif
}

namespace {
// quantized_grad=auto: low-bit gradients from this many training rows (all workers) on.
constexpr uint64_t kLowBitAutoRows = 100000;
}  // namespace

CellBits CellBitsFor(uint64_t rows) {
  constexpr uint64_t kLevels = LowBitPolicy::kLevels;
  if (rows * kLevels <= INT16_MAX) return CellBits::k16;
  if (rows * kLevels <= INT32_MAX) return CellBits::k32;
  return CellBits::k64;
}

bool UsesLowBitGradients(const TreeParams& params, uint64_t rows, rabit::Communicator* comm) {
  if (params.quantized_grad != QuantizedGrad::kAuto)
    return params.quantized_grad == QuantizedGrad::kOn;
  const uint64_t all_rows = comm->AllreduceValue<uint64_t>(rows, rabit::Op::kSum);
  return all_rows >= kLowBitAutoRows;
}

int64_t GradientQuantizer::HessAtLeast(double x) const {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (!(Hess(kMin) < x)) return kMin;
  if (Hess(kMax) < x) return kMax;  // no q qualifies; every compare says "below"
  // Bisect on Hess(lo) < x <= Hess(hi): exact whatever rounding int64 -> double does.
  int64_t lo = kMin, hi = kMax;
  const double guess = std::ceil(x / hess_unit_);
  if (guess > -9.0e18 && guess < 9.0e18) {
    const int64_t g = static_cast<int64_t>(guess);
    if (Hess(g) >= x)
      hi = g;
    else
      lo = g;
    if (hi == g && g > kMin && Hess(g - 1) < x) return g;
  }
  while (static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) > 1) {
    const int64_t mid =
        lo + static_cast<int64_t>((static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)) / 2);
    if (Hess(mid) < x)
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

std::vector<GradientSum> GradientQuantizer::QuantizeAll(const std::vector<GradPair>& gpair,
                                                        int stride, int group,
                                                        const std::vector<uint8_t>& keep,
                                                        int nthread) const {
  std::vector<GradientSum> out;
  QuantizeAll(gpair, stride, group, keep, nthread, &out);
  return out;
}

GradientSum GradientQuantizer::QuantizeAll(const std::vector<GradPair>& gpair, int stride,
                                           int group, const std::vector<uint8_t>& keep, int nthread,
                                           std::vector<GradientSum>* out, bool vector) const {
  const std::size_t n = gpair.size() / static_cast<std::size_t>(stride);
  out->resize(n);
  GradientSum* q = out->data();
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx512 = QuantizerIsaAvailable(GradientIsa::kAvx512);
  if (avx512 && vector && stride == 1 && keep.empty()) {
    const auto scalar = [&](std::size_t i) { return Quantize(gpair[i]); };
    return SumOverThreadShares(
        n, nthread, [&](std::size_t begin, std::size_t end, GradientSum* mine) {
          QuantizeRowsAvx512(gpair.data(), begin, end, grad_scale_, hess_scale_, scalar, q, mine);
        });
  }
#endif
  (void)vector;
  // Integer sums: the same in any order, so for any thread count.
  int64_t sum_g = 0, sum_h = 0;
#pragma omp parallel for schedule(static) num_threads(nthread) reduction(+ : sum_g, sum_h)
  for (std::size_t i = 0; i < n; ++i) {
    const GradientSum v =
        keep.empty() || keep[i] ? Quantize(gpair[i * stride + group]) : GradientSum{};
    q[i] = v;
    sum_g += v.g;
    sum_h += v.h;
  }
  return GradientSum{sum_g, sum_h};
}

}  // namespace ringboost
