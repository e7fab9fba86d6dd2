// Gain and weight formulas of a split, with XGBoost 1.7's floating-point steps (sums in double,
// each side's gain and the weights rounded to float), so that gains, covers and leaf values match
// XGBoost's hist to float precision. Kept free of library transcendentals and FMA (the build
// disables contraction) so that the CPU and CUDA paths compute the same bits (DESIGN.md, GPU).
#pragma once

#include <cfloat>
#include <cmath>

#include "common/host_device.h"

namespace ringboost {

// The regularisation settings the formulas read, as float like XGBoost's TrainParam (part of
// TreeParams, tree_params.h; the GPU copies it into its kernels' arguments).
struct SplitParams {
  float eta = 0.3f;
  float gamma = 0.0f;
  float min_child_weight = 1.0f;
  float max_delta_step = 0.0f;
  float lambda = 1.0f;
  float alpha = 0.0f;
  int max_cat_to_onehot = 4;   // categorical features: one-hot splits below this many categories
  int max_cat_threshold = 64;  // partition splits: at most this many categories a side
};

RB_HOST_DEVICE inline double ThresholdL1(double g, double alpha) {
  if (g > alpha) return g - alpha;
  if (g < -alpha) return g + alpha;
  return 0.0;
}

// Optimal weight of a node with gradient sum g and hessian sum h (0 when h <= 0). As XGBoost 3.x:
// min_child_weight guards the split (SplitLossChange and the evaluators), not the weight, so a
// root lighter than min_child_weight stays a leaf with its Newton step (XGBoost 1.7 zeroed it).
// Every other node is a child of an allowed split and so weighs at least min_child_weight.
RB_HOST_DEVICE inline float CalcWeight(const SplitParams& p, double g, double h) {
  if (h <= 0.0) return 0.0f;
  double w = -ThresholdL1(g, p.alpha) / (h + p.lambda);
  if (p.max_delta_step != 0.0f && std::fabs(w) > p.max_delta_step) {
    w = w < 0 ? -static_cast<double>(p.max_delta_step) : p.max_delta_step;
  }
  return static_cast<float>(w);
}

// Gain of one side given its weight: -2 times its regularised loss g w + (h + lambda) w^2 / 2 +
// alpha |w|, in double (XGBoost 3.4's CalcGainGivenWeight; 1.7 to 3.2 left out the alpha |w|
// term, so under alpha with max_delta_step or monotone constraints they gained more than the loss
// fell, and 3.2 computed it in float). At the unclamped weight it is ThresholdL1(g)^2 /
// (h + lambda).
RB_HOST_DEVICE inline float GainOfWeight(const SplitParams& p, double g, double h, float w) {
  if (h <= 0.0) return 0.0f;
  const double wd = w;
  return static_cast<float>(-(2.0 * g * wd + (h + p.lambda) * wd * wd) -
                            2.0 * p.alpha * std::fabs(wd));
}

// Gain of one side given its weight: GainOfWeight, or without max_delta_step the closed form.
RB_HOST_DEVICE inline float CalcGainGivenWeight(const SplitParams& p, double g, double h, float w) {
  if (h <= 0.0) return 0.0f;
  if (p.max_delta_step == 0.0f) {
    double t = ThresholdL1(g, p.alpha);
    return static_cast<float>(t * t / (h + p.lambda));
  }
  return GainOfWeight(p, g, h, w);
}

RB_HOST_DEVICE inline float CalcGain(const SplitParams& p, double g, double h) {
  return CalcGainGivenWeight(p, g, h, CalcWeight(p, g, h));
}

// One side's gain when max_delta_step is 0: no weight needed, one division. |ThresholdL1(g)|
// without its branches on the sign of g (only the square is used, and it rounds the same).
RB_HOST_DEVICE inline float SideGain(const SplitParams& p, double g, double h) {
  const double a = std::fabs(g) - p.alpha;
  const double t = a > 0.0 ? a : 0.0;
  return h <= 0.0 ? 0.0f : static_cast<float>(t * t / (h + p.lambda));
}

// A node's box for its weight under monotone constraints (XGBoost's lower and upper bounds;
// tree/constraints.h says how boxes are cut).
struct WeightBounds {
  float lower = -FLT_MAX;
  float upper = FLT_MAX;
  RB_HOST_DEVICE float Clamp(float w) const { return w < lower ? lower : (w > upper ? upper : w); }
};

// A side's gain given its (clamped) weight under constraints: GainOfWeight, in double as XGBoost
// 3.4 computes it (3.2 and older computed it in float, whose rounding decides ties between
// candidates differently: on generated data with monotone constraints and max_delta_step, one
// random config in ten grew another tree).
RB_HOST_DEVICE inline float BoundedGainGivenWeight(const SplitParams& p, double g, double h,
                                                   float w) {
  return GainOfWeight(p, g, h, w);
}

// Loss change of a candidate under monotone constraints (XGBoost's CalcSplitGain): both weights
// clamped to the node's box `bounds`; -inf where they break the order `constraint` (1: left <=
// right, -1: left >= right, 0: any) asks for. min_child_weight is the caller's check.
RB_HOST_DEVICE inline float BoundedLossChange(const SplitParams& p, double gl, double hl, double gr,
                                              double hr, float parent_gain, WeightBounds bounds,
                                              int constraint) {
  const float wl = bounds.Clamp(CalcWeight(p, gl, hl));
  const float wr = bounds.Clamp(CalcWeight(p, gr, hr));
  if ((constraint > 0 && !(wl <= wr)) || (constraint < 0 && !(wl >= wr))) return -INFINITY;
  const float gain = BoundedGainGivenWeight(p, gl, hl, wl) + BoundedGainGivenWeight(p, gr, hr, wr);
  return gain - parent_gain;
}

// Loss change of splitting a node of gain `parent_gain` into (gl, hl) and (gr, hr); -inf when a
// side is lighter than min_child_weight.
RB_HOST_DEVICE inline float SplitLossChange(const SplitParams& p, double gl, double hl, double gr,
                                            double hr, float parent_gain) {
  if (hl < p.min_child_weight || hr < p.min_child_weight) return -INFINITY;
  if (p.max_delta_step == 0.0f) return (SideGain(p, gl, hl) + SideGain(p, gr, hr)) - parent_gain;
  float left = CalcGainGivenWeight(p, gl, hl, CalcWeight(p, gl, hl));
  float right = CalcGainGivenWeight(p, gr, hr, CalcWeight(p, gr, hr));
  return (left + right) - parent_gain;
}

}  // namespace ringboost
