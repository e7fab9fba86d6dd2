// Quantized gradients (DESIGN.md step 5). Gradient and hessian of each row become int64 with a
// power-of-two scale agreed by allreduce (max |g|, max |h|, total rows), chosen so that the sum of
// every row's value fits in 62 bits. Sums are then exact and independent of summation order:
// the same histograms for any thread count, worker count, CPU or GPU.
//
// Low-bit gradients (quantized_grad; LightGBM's quantized training, Shi et al., NeurIPS 2022):
// the tree's structure is found from gradients and hessians rounded to a few levels each,
// |q| <= LowBitPolicy::kLevels, by stochastic rounding whose draw is keyed by (seed, round, global
// row). The sums stay integer, so they are as independent of threads and workers as above, and
// they fit narrow histogram cells (histogram.h); leaf values are then refit from the exact ones.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "common/host_device.h"
#include "objective/objective.h"
#include "objective/objectives.h"
#include "rabit/communicator.h"
#include "tree/tree_params.h"

namespace ringboost {

struct GradientSum {
  int64_t g = 0;
  int64_t h = 0;
  GradientSum& operator+=(const GradientSum& o) {
    g += o.g;
    h += o.h;
    return *this;
  }
  GradientSum& operator-=(const GradientSum& o) {
    g -= o.g;
    h -= o.h;
    return *this;
  }
  friend GradientSum operator+(GradientSum a, const GradientSum& b) { return a += b; }
  friend GradientSum operator-(GradientSum a, const GradientSum& b) { return a -= b; }
  friend bool operator==(const GradientSum& a, const GradientSum& b) {
    return a.g == b.g && a.h == b.h;
  }
  friend bool operator!=(const GradientSum& a, const GradientSum& b) { return !(a == b); }
};

// A cell (g, h) of small sums packed in one unsigned word, g * 2^half + h, so that adding a row
// to it is one integer add (wrapping): low-bit histograms (16+16 bits) and the column-wise
// evaluator's cells (32+32). While every partial sum of g and of h stays within the half's signed
// range, the word is G * 2^half + H exactly: H is the low half read as a signed integer, and
// G = (word - H) / 2^half, whatever the signs.
template <typename Word, typename Half>
struct PackedCell {
  static constexpr int kHalfBits = 8 * sizeof(Half);
  static Word Pack(int64_t g, int64_t h) {
    return static_cast<Word>(static_cast<Word>(g) << kHalfBits) + static_cast<Word>(h);
  }
  static GradientSum Unpack(Word w) {
    using Signed = std::make_signed_t<Word>;
    const int64_t h = static_cast<Half>(w);  // the low half, sign-extended
    const int64_t g =
        (static_cast<int64_t>(static_cast<Signed>(w)) - h) / (int64_t{1} << kHalfBits);
    return GradientSum{g, h};
  }
};
using Packed16 = PackedCell<uint32_t, int16_t>;  // sums within +-32767
using Packed32 = PackedCell<uint64_t, int32_t>;  // sums within +-(2^31 - 1)

// std::llrint in the default rounding mode (to nearest, ties to even), inline: without
// -fno-math-errno the compiler calls libm's llrint through the PLT, two calls a row.
inline int64_t RoundHalfEven(double x) {
#if defined(__x86_64__)
  return _mm_cvtsd_si64(_mm_set_sd(x));  // cvtsd2si rounds by MXCSR: to nearest, ties to even
#else
  return std::llrint(x);
#endif
}

// The low-bit mode's one tuning constant: each of g and h becomes an integer in
// [-kLevels, kLevels] (LightGBM's default of 4 bins is kLevels 2 for g and 4 for h).
struct LowBitPolicy {
  static constexpr int kLevels = 7;  // 4 bits with the sign
};

// One low-bit value: floor(x * scale + u) within [-kLevels, kLevels], u uniform in [0, 1), so
// the value is rounded down or up at random, up with probability its distance from the level
// below (x * scale is in [-kLevels, kLevels] up to one rounding, which the clamp absorbs). The
// CPU and the device call this one function (no fused multiply-add on either: CMakeLists.txt).
// The floor is the truncation, one less where that rounded up (a negative fraction): exact, and
// inline where the baseline x86-64 target would call libm's floor twice a row.
RB_HOST_DEVICE inline int64_t LowBitRound(double x, double scale, double u) {
  constexpr double kLevels = LowBitPolicy::kLevels;
  double v = x * scale + u;
  v = v < -kLevels ? -kLevels : (kLevels < v ? kLevels : v);
  const int64_t t = static_cast<int64_t>(v);
  return t - (static_cast<double>(t) > v ? 1 : 0);
}

// The low-bit gradient of a row whose draw is `bits` (CounterHash of (seed,
// RandomStream::kLowBitGradient, tree key, global row)): its two 32-bit halves, each uniform in
// [0, 1), round g and h.
RB_HOST_DEVICE inline GradientSum LowBitQuantize(GradPair p, double grad_scale, double hess_scale,
                                                 uint64_t bits) {
  const double ug = static_cast<double>(bits >> 32) * (1.0 / 4294967296.0);
  const double uh = static_cast<double>(bits & 0xffffffffu) * (1.0 / 4294967296.0);
  return GradientSum{LowBitRound(p.grad, grad_scale, ug), LowBitRound(p.hess, hess_scale, uh)};
}

// The narrowest cells that hold every sum of a low-bit histogram of `rows` rows (over all
// workers), partial or whole: 16+16 bits (Packed16) up to 32767 / kLevels rows, 32+32 up to
// 2^31 / kLevels, else 64+64. The CPU's builds and the workers' histogram sync take them.
enum class CellBits { k16 = 0, k32 = 1, k64 = 2 };
CellBits CellBitsFor(uint64_t rows);

// Whether quantized_grad (on, off, auto) grows the trees from low-bit gradients, the same on every
// worker and device: auto decides by the rows of all workers together (`rows` is this worker's).
bool UsesLowBitGradients(const TreeParams& params, uint64_t rows, rabit::Communicator* comm);

// Whether GradientQuantizer's lanes can take `isa` here (QuantizeAllLowBit's choice; QuantizeAll
// takes kAvx512 where this says so): GradientIsaAvailable's, and for kAvx512 AVX-512 DQ too (its
// 64-bit multiply and conversions).
bool QuantizerIsaAvailable(GradientIsa isa);

class GradientQuantizer {
 public:
  GradientQuantizer() = default;
  // Scales for the gradients gpair[i * stride + group], i < n, agreed over all workers; `nthread`
  // threads scan them (0: OpenMP's default).
  GradientQuantizer(const std::vector<GradPair>& gpair, int stride, int group,
                    rabit::Communicator* comm, int nthread = 0);
  // The same from this worker's largest |g| and |h| over its `rows` rows (the device computes
  // them): allreduces them and the row count, then picks the exponents.
  GradientQuantizer(double max_g, double max_h, uint64_t rows, rabit::Communicator* comm);

  // The low-bit quantizer for the same gradients: unit max|g| / kLevels (and so for h), with the
  // maxima this one agreed over the workers. Its Quantize is not used: QuantizeAllLowBit rounds.
  GradientQuantizer LowBit() const;
  bool low_bit() const { return low_bit_; }
  // Low-bit quantized gradients of one output group (zero where `keep` is 0): each value is
  // rounded down or up at random, up with probability its distance from the level below, so
  // every sum is unbiased. The draw of global row `first_row + i` is keyed by (seed, key, row).
  // Returns the sum of *out. `isa` (QuantizerIsaAvailable): with one group and no row left out,
  // eight rows a step in AVX-512 lanes or four in AVX2 lanes (the draws' mixes and the roundings'
  // operations in lanes: the same values); kBest takes the widest the CPU has; kBaseline, or
  // other groups or rows left out, a row at a time.
  GradientSum QuantizeAllLowBit(const std::vector<GradPair>& gpair, int stride, int group,
                                const std::vector<uint8_t>& keep, uint64_t seed, uint64_t key,
                                uint64_t first_row, int nthread, std::vector<GradientSum>* out,
                                GradientIsa isa = GradientIsa::kBest) const;

  // exponents: value = quantized * 2^-exp
  int grad_exp() const { return grad_exp_; }
  int hess_exp() const { return hess_exp_; }

  GradientSum Quantize(GradPair p) const {
    // Multiplying by a power of two is exact; then one rounding, half to even.
    return GradientSum{RoundHalfEven(static_cast<double>(p.grad) * grad_scale_),
                       RoundHalfEven(static_cast<double>(p.hess) * hess_scale_)};
  }
  // Multipliers of Quantize (powers of two): q = round-half-even(double(value) * scale).
  double grad_scale() const { return grad_scale_; }
  double hess_scale() const { return hess_scale_; }
  // What one quantized unit is worth: Grad(q) = q * grad_unit(), Hess(q) = q * hess_unit().
  double grad_unit() const { return grad_unit_; }
  double hess_unit() const { return hess_unit_; }
  double Grad(int64_t q) const { return static_cast<double>(q) * grad_unit_; }
  double Hess(int64_t q) const { return static_cast<double>(q) * hess_unit_; }
  // The smallest q with Hess(q) >= x (Hess is monotone in q), so that `Hess(q) < x` can be
  // asked as `q < HessAtLeast(x)` on the integers.
  int64_t HessAtLeast(double x) const;

  // Quantized gradients of one output group, zero where `keep` (if non-empty) is 0.
  std::vector<GradientSum> QuantizeAll(const std::vector<GradPair>& gpair, int stride, int group,
                                       const std::vector<uint8_t>& keep, int nthread) const;
  // The same into `out` (resized; its storage reused); returns the sum of *out (the tree's root
  // on this worker), taken in the same pass. `vector`: one group and no row left out, eight rows
  // a step in AVX-512 lanes where the CPU has AVX-512 F and DQ (the same values).
  GradientSum QuantizeAll(const std::vector<GradPair>& gpair, int stride, int group,
                          const std::vector<uint8_t>& keep, int nthread,
                          std::vector<GradientSum>* out, bool vector = true) const;

 private:
  int grad_exp_ = 0;
  int hess_exp_ = 0;
  bool low_bit_ = false;
  double max_g_ = 0.0;  // the largest |g| and |h| over every worker's rows
  double max_h_ = 0.0;
  double grad_unit_ = 1.0;
  double hess_unit_ = 1.0;
  double grad_scale_ = 1.0;
  double hess_scale_ = 1.0;
};

}  // namespace ringboost
