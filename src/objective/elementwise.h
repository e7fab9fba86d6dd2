// The per-row gradient arithmetic of the element-wise objectives (reg:*, binary:*, count:poisson,
// reg:gamma, reg:tweedie, reg:pseudohubererror, multi:*), shared by the CPU objectives and the CUDA
// kernel so that both give the same bits.
//
// Why a header of host-device functions: the gradients feed the quantised histograms, and a tree
// grown on the device must equal the CPU's. So everything here is IEEE float/double + - * /,
// comparisons, casts and bit manipulation, each rounded once: no library math (expf differs
// between glibc and CUDA, and between glibc versions), hence ExpF below. The float expressions
// have no a * b + c shape that a compiler could fuse into an FMA; ExpF's double steps go through
// elementwise_detail, which rounds each operation on its own whatever the CUDA -fmad setting (on
// the host the build's -ffp-contract=off does it). Not for --use_fast_math (inexact division).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "common/host_device.h"
#include "objective/grad_pair.h"

namespace ringboost {

namespace elementwise_detail {

// a + b and a * b, each rounded to nearest on its own: never fused with a neighbour into an FMA.
RB_HOST_DEVICE inline double Add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

RB_HOST_DEVICE inline double Mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

// 2^k for -1022 <= k <= 1023, exactly, from its bits.
RB_HOST_DEVICE inline double Pow2(int k) {
  const uint64_t bits = static_cast<uint64_t>(k + 1023) << 52;
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d;
}

// exp(r) for |r| <= ln2/16 (a little more is fine): Taylor to degree 7 in Horner form. The
// truncation error is under 4e-16 relative; the roundings, a few units of 2^-53.
RB_HOST_DEVICE inline double ExpReduced(double r) {
  double p = 1.0 / 5040.0;
  p = Add(Mul(p, r), 1.0 / 720.0);
  p = Add(Mul(p, r), 1.0 / 120.0);
  p = Add(Mul(p, r), 1.0 / 24.0);
  p = Add(Mul(p, r), 1.0 / 6.0);
  p = Add(Mul(p, r), 0.5);
  p = Add(Mul(p, r), 1.0);
  return Add(Mul(p, r), 1.0);
}

// 2^(j/8) for 0 <= j < 8, as double literals (the same bits on every compiler), by selects: what
// the device uses (an indexed local array goes to its stack) and what a host loop in vector lanes
// needs (lanes cannot index a table).
RB_HOST_DEVICE inline double Pow2EighthsBySelect(int j) {
  const double lo = (j & 2) ? ((j & 1) ? 0x1.4bfdad5362a27p+0 : 0x1.306fe0a31b715p+0)
                            : ((j & 1) ? 0x1.172b83c7d517bp+0 : 1.0);
  const double hi = (j & 2) ? ((j & 1) ? 0x1.d5818dcfba487p+0 : 0x1.ae89f995ad3adp+0)
                            : ((j & 1) ? 0x1.8ace5422aa0dbp+0 : 0x1.6a09e667f3bcdp+0);
  return (j & 4) ? hi : lo;
}

// The same from a table in scalar host code, where the selects compile to branches, mispredicted
// on data.
RB_HOST_DEVICE inline double Pow2Eighths(int j) {
#if defined(__CUDA_ARCH__)
  return Pow2EighthsBySelect(j);
#else
  static constexpr double kTable[8] = {1.0,
                                       0x1.172b83c7d517bp+0,
                                       0x1.306fe0a31b715p+0,
                                       0x1.4bfdad5362a27p+0,
                                       0x1.6a09e667f3bcdp+0,
                                       0x1.8ace5422aa0dbp+0,
                                       0x1.ae89f995ad3adp+0,
                                       0x1.d5818dcfba487p+0};
  return kTable[j];
#endif
}

// The same in float: a + b and a * b each rounded on its own (the float losses below whose
// expressions have an a * b + c shape spell it with these).
RB_HOST_DEVICE inline float AddF(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

RB_HOST_DEVICE inline float MulF(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

}  // namespace elementwise_detail

// exp(x) in float, the same bits on every host and device. Computed in double to about 2^-51
// relative and rounded to float once, so it is the correctly rounded expf except where exp(x)
// lies within ~2^-51 (relative) of a midpoint between two floats. NaN -> NaN, +inf -> +inf,
// -inf -> 0; results past FLT_MAX are inf and tiny ones subnormal or 0, as the rounding gives.
// x = (8m + j) ln2/8 + r with |r| <= ln2/16: exp(x) = 2^m 2^(j/8) exp(r) (a short polynomial;
// the degree-13 one of |r| <= ln2/2 cost the CPU gradients twice the time).
// kLanes: the same bits with neither a branch nor a table, for host loops that the compiler runs
// in vector lanes (ElementwiseGradients).
template <bool kLanes = false>
RB_HOST_DEVICE inline float ExpF(float x) {
  using elementwise_detail::Add;
  using elementwise_detail::Mul;
  if (!kLanes && x != x) return x;
  // exp overflows float above 88.73 and is under half the smallest subnormal below -103.98; the
  // clamp keeps 2^m a normal double and lets the final cast make inf or 0.
  double xd = static_cast<double>(x);
  xd = xd < -120.0 ? -120.0 : (xd > 100.0 ? 100.0 : xd);
  // k = round(8x / ln2): adding and subtracting 1.5 * 2^52 rounds to an integer (to nearest).
  constexpr double kEightOverLn2 = 0x1.71547652b82fep+3;
  constexpr double kRoundShift = 0x1.8p52;
  const double k = Add(Add(Mul(xd, kEightOverLn2), kRoundShift), -kRoundShift);
  // Cody-Waite: ln2/8 = kHi + kLo, kHi with 20 trailing zero bits, so k * kHi and x - k * kHi
  // are exact for |k| <= 1400; r = x - k ln2/8, |r| <= ln2/16.
  constexpr double kHi = 0x1.62e42feep-4;
  constexpr double kLo = 0x1.a39ef35793c76p-36;
  const double r = Add(Add(xd, -Mul(k, kHi)), -Mul(k, kLo));
  // (In lanes a NaN x goes through as k = 0, and the result is x, as the branch gives.)
  const int ki = static_cast<int>(kLanes && k != k ? 0.0 : k);
  const double two_j8 = kLanes ? elementwise_detail::Pow2EighthsBySelect(ki & 7)
                               : elementwise_detail::Pow2Eighths(ki & 7);
  const double e = Mul(Mul(elementwise_detail::ExpReduced(r), two_j8),
                       elementwise_detail::Pow2(ki >> 3));  // >> of a negative int: floor
  return kLanes && x != x ? x : static_cast<float>(e);
}

// XGBoost 1.7's common::Sigmoid, in float: the exponent is clamped at 88.7 so that exp never
// overflows, and 1e-16 guards the division (it is below float resolution next to 1). The clamp is
// std::min(-x, 88.7f) spelled out (NaN passes through).
template <bool kLanes = false>
RB_HOST_DEVICE inline float Sigmoid(float x) {
  constexpr float kEps = 1e-16f;
  const float nx = -x;
  const float e = ExpF<kLanes>(88.7f < nx ? 88.7f : nx);
  return 1.0f / (e + 1.0f + kEps);
}

// std::fmax (NaN only where both are), inline: without -ffast-math the compiler calls libm's fmaxf
// through the PLT for std::fmax, once per row in the gradient loops. (| rather than ||: no branch.)
RB_HOST_DEVICE inline float Fmax(float a, float b) { return ((a > b) | (b != b)) ? a : b; }

enum class ElementwiseLoss : int {
  kSquared,      // reg:squarederror
  kLogistic,     // reg:logistic, binary:logistic
  kLogitRaw,     // binary:logitraw
  kPoisson,      // count:poisson
  kSoftmax,      // multi:softmax, multi:softprob
  kPseudoHuber,  // reg:pseudohubererror
  kGamma,        // reg:gamma
  kTweedie,      // reg:tweedie
  kHinge,        // binary:hinge
};

// Everything an element-wise gradient reads besides the row: trivially copyable, so a kernel takes
// it by value.
struct ElementwiseSpec {
  ElementwiseLoss loss;
  float scale_pos_weight;  // the reg/binary losses and gamma: weight factor where label == 1
  float max_delta_step;    // count:poisson: added to the margin of the hessian's exp
  int num_class;           // margins (and outputs) per row: num_class for kSoftmax, else 1
  float param = 0.0f;      // kPseudoHuber: huber_slope; kTweedie: tweedie_variance_power
};

// Whether `label` is valid for the loss (the objectives' CheckLabel): [0, 1] for the logistic
// losses and hinge, >= 0 for Poisson and Tweedie, > 0 for gamma, an integer in [0, num_class) for
// softmax, anything for squared error and pseudo-Huber.
RB_HOST_DEVICE inline bool ElementwiseLabelOk(const ElementwiseSpec& s, float label) {
  switch (s.loss) {
    case ElementwiseLoss::kSquared:
    case ElementwiseLoss::kPseudoHuber:
      return true;
    case ElementwiseLoss::kLogistic:
    case ElementwiseLoss::kLogitRaw:
    case ElementwiseLoss::kHinge:
      return label >= 0.0f && label <= 1.0f;
    case ElementwiseLoss::kPoisson:
    case ElementwiseLoss::kTweedie:
      return label >= 0.0f;
    case ElementwiseLoss::kGamma:
      return label > 0.0f;
    case ElementwiseLoss::kSoftmax:
      // In range, the int cast is defined and truncation is floor.
      return label >= 0.0f && label < static_cast<float>(s.num_class) &&
             static_cast<float>(static_cast<int>(label)) == label;
  }
  return false;
}

namespace elementwise_detail {

// XGBoost's RegLossObj (regression_loss.h): gradient and hessian of the loss; weight w (times
// scale_pos_weight where label == 1, for every loss of this family, as XGBoost does) multiplies
// both. kLanes: as ExpF's.
template <bool kLanes = false>
RB_HOST_DEVICE inline GradPair RegLossGradient(const ElementwiseSpec& s, float margin, float label,
                                               float weight) {
  constexpr float kEps = 1e-16f;
  const float w = label == 1.0f ? weight * s.scale_pos_weight : weight;
  if (s.loss == ElementwiseLoss::kSquared) return {(margin - label) * w, w};
  // kLogistic and kLogitRaw: XGBoost's logitraw takes the sigmoid inside its gradient, logistic
  // in its prediction transform; the arithmetic is the same.
  const float p = Sigmoid<kLanes>(margin);
  return {(p - label) * w, Fmax(p * (1.0f - p), kEps) * w};
}

// count:poisson: grad exp(m) - y, hess exp(m + max_delta_step), times the weight.
RB_HOST_DEVICE inline GradPair PoissonGradient(float margin, float label, float weight,
                                               float max_delta_step) {
  return {(ExpF(margin) - label) * weight, ExpF(margin + max_delta_step) * weight};
}

// XGBoost's multiclass kernel (multiclass_obj.cu): softmax with the running max started at
// FLT_MIN (the smallest positive normal float, so the max is floored at ~0), a double sum of float
// exps, gradient p_k - [k == label], hessian max(2 p_k (1 - p_k) w, 1e-16) with the weight inside.
RB_HOST_DEVICE inline void SoftmaxGradient(const float* margin, int k, float label, float weight,
                                           GradPair* out) {
  float wmax = 0x1p-126f;
  for (int j = 0; j < k; ++j) wmax = Fmax(margin[j], wmax);
  double wsum = 0.0;
  for (int j = 0; j < k; ++j) wsum += ExpF(margin[j] - wmax);
  for (int j = 0; j < k; ++j) {
    float p = ExpF(margin[j] - wmax) / static_cast<float>(wsum);
    const float h = Fmax(2.0f * p * (1.0f - p) * weight, 1e-16f);
    if (label == static_cast<float>(j)) p = p - 1.0f;
    out[j] = {p * weight, h};
  }
}

// reg:pseudohubererror (XGBoost's PseudoHuberRegression): z = m - y, s = sqrt(1 + z^2 / slope^2);
// grad z / s, hess slope^2 / ((slope^2 + z^2) s), times the weight. sqrtf is correctly rounded on
// the host and on the device (without --use_fast_math).
RB_HOST_DEVICE inline GradPair PseudoHuberGradient(float margin, float label, float weight,
                                                   float slope) {
  const float z = margin - label;
  const float slope2 = slope * slope;
  const float z2 = z * z;
  const float scale_sqrt = sqrtf(1.0f + z2 / slope2);
  const float hess = slope2 / (MulF(AddF(slope2, z2), scale_sqrt));
  return {z / scale_sqrt * weight, hess * weight};
}

// reg:gamma (XGBoost 3.x's RegLossObj<GammaDeviance>, log link): grad 1 - y / exp(m), hess
// y / exp(m), times the weight (the caller's, scale_pos_weight included where y == 1).
RB_HOST_DEVICE inline GradPair GammaGradient(float margin, float label, float weight) {
  const float e = ExpF(margin);
  return {(1.0f - label / e) * weight, label / e * weight};
}

// reg:tweedie (XGBoost's TweedieRegression, log link, rho = tweedie_variance_power):
// grad -y exp((1 - rho) m) + exp((2 - rho) m), hess -y (1 - rho) exp((1 - rho) m) +
// (2 - rho) exp((2 - rho) m), times the weight.
RB_HOST_DEVICE inline GradPair TweedieGradient(float margin, float label, float weight, float rho) {
  const float a = ExpF(MulF(1.0f - rho, margin));
  const float b = ExpF(MulF(2.0f - rho, margin));
  const float grad = AddF(MulF(-label, a), b);
  const float hess = AddF(MulF(MulF(-label, 1.0f - rho), a), MulF(2.0f - rho, b));
  return {grad * weight, hess * weight};
}

// binary:hinge (XGBoost's HingeObj): y = 2 label - 1 in double; where m y < 1, grad -y w and hess
// w, else grad 0 and hess FLT_MIN (the smallest positive normal float).
RB_HOST_DEVICE inline GradPair HingeGradient(float margin, float label, float weight) {
  const double y = Add(Mul(static_cast<double>(label), 2.0), -1.0);
  if (Mul(static_cast<double>(margin), y) < 1.0) {
    return {static_cast<float>(Mul(-y, static_cast<double>(weight))), weight};
  }
  return {0.0f, 0x1p-126f};
}

}  // namespace elementwise_detail

// One row's gradients: out[0] for the reg/binary losses and Poisson, out[0..num_class) for
// softmax, from as many margins. Exactly the float arithmetic, in the same order, of XGBoost 1.7's
// CPU objectives (with ExpF for expf). The label is not checked: see ElementwiseLabelOk.
RB_HOST_DEVICE inline void ElementwiseGradient(const ElementwiseSpec& s, const float* margin,
                                               float label, float weight, GradPair* out) {
  switch (s.loss) {
    case ElementwiseLoss::kPoisson:
      *out = elementwise_detail::PoissonGradient(margin[0], label, weight, s.max_delta_step);
      return;
    case ElementwiseLoss::kSoftmax:
      elementwise_detail::SoftmaxGradient(margin, s.num_class, label, weight, out);
      return;
    case ElementwiseLoss::kPseudoHuber:
      *out = elementwise_detail::PseudoHuberGradient(margin[0], label, weight, s.param);
      return;
    case ElementwiseLoss::kGamma:  // a RegLossObj in XGBoost 3.x: scale_pos_weight where y == 1
      *out = elementwise_detail::GammaGradient(
          margin[0], label, label == 1.0f ? weight * s.scale_pos_weight : weight);
      return;
    case ElementwiseLoss::kTweedie:
      *out = elementwise_detail::TweedieGradient(margin[0], label, weight, s.param);
      return;
    case ElementwiseLoss::kHinge:
      *out = elementwise_detail::HingeGradient(margin[0], label, weight);
      return;
    default:
      *out = elementwise_detail::RegLossGradient(s, margin[0], label, weight);
      return;
  }
}

}  // namespace ringboost
