// Splits of categorical features (categorical_split.h), as XGBoost 3.x's hist evaluator makes them
// (src/tree/hist/evaluate_splits.h there): a bin per category, so a feature's histogram is its
// categories' gradient sums.
//  * One-hot (fewer categories than max_cat_to_onehot): each category c against the rest, with
//    the missing values once with the rest (default left) and once with c (default right).
//  * Partition: the categories sorted by their own weight -G/(H+lambda) (stable, so ties keep
//    the code order), then two scans over the sorted list: forwards, the first k categories go
//    right and missing values left; backwards, the last k go left and missing values right, k
//    below max_cat_threshold each way.
// Within a feature only a strictly larger loss change replaces the best, in the order above; the
// sums are the exact integers of the histograms, so every worker picks the same split. Under
// monotone constraints a candidate's loss change is the numerical scan's bounded one (the weights
// clamped to the node's box, -inf where they break the feature's own order), as XGBoost's
// CalcSplitGain gives every kind of split; the sort key stays the unclamped weight (CalcWeightCat).
#include "tree/categorical_split.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace ringboost {
namespace {

// XGBoost's CalcWeight in double (its sort key, CalcWeightCat). As CalcWeight (split_math.h) and
// XGBoost 3.4, a category lighter than min_child_weight keeps its Newton weight (3.2 and older
// sorted it as weight 0, among the categories of no gradient).
double CategoryWeight(const SplitParams& p, double g, double h) {
  if (h <= 0.0) return 0.0;
  double w = -ThresholdL1(g, p.alpha) / (h + p.lambda);
  if (p.max_delta_step != 0.0f && std::fabs(w) > p.max_delta_step) {
    w = std::copysign(static_cast<double>(p.max_delta_step), w);
  }
  return w;
}

}  // namespace

// The numerical scan's formulas (SplitEvaluator::Enumerate): with monotone constraints, on any
// feature, the bounded one.
float CategoricalSplitter::Loss(GradientSum right, const Node& node) const {
  const GradientSum left = node.sum - right;
  if (left.h < min_hess_ || right.h < min_hess_) return -INFINITY;
  const double gl = q_->Grad(left.g), hl = q_->Hess(left.h);
  const double gr = q_->Grad(right.g), hr = q_->Hess(right.h);
  if (monotone_ == nullptr) return SplitLossChange(params_, gl, hl, gr, hr, node.gain);
  return BoundedLossChange(params_, gl, hl, gr, hr, node.gain, node.bounds,
                           (*monotone_)[node.feature]);
}

SplitCandidate CategoricalSplitter::Evaluate(const GradientSum* hist, uint32_t n_bins,
                                             GradientSum node_sum, float node_gain,
                                             uint32_t feature, WeightBounds bounds) const {
  const Node node{node_sum, node_gain, feature, bounds};
  if (n_bins < static_cast<uint32_t>(params_.max_cat_to_onehot)) {
    return EvaluateOneHot(hist, n_bins, node);
  }
  return EvaluatePartition(hist, n_bins, node);
}

SplitCandidate CategoricalSplitter::EvaluateOneHot(const GradientSum* hist, uint32_t n_bins,
                                                   const Node& node) const {
  const GradientSum node_sum = node.sum;
  GradientSum present;
  for (uint32_t b = 0; b < n_bins; ++b) present += hist[b];
  const GradientSum missing = node_sum - present;
  float best_loss = 0.0f;  // a split must gain something (XGBoost's fresh SplitEntry)
  int64_t best_bin = -1;
  bool best_left = false;
  for (uint32_t b = 0; b < n_bins; ++b) {
    for (const bool missing_left : {true, false}) {
      const float loss = Loss(missing_left ? hist[b] : hist[b] + missing, node);
      if (!(loss > best_loss)) continue;
      best_loss = loss;
      best_bin = b;
      best_left = missing_left;
    }
  }
  SplitCandidate c;
  if (best_bin < 0) return c;
  const GradientSum right = best_left ? hist[best_bin] : hist[best_bin] + missing;
  c.loss_chg = best_loss;
  c.feature = node.feature;
  c.default_left = best_left;
  c.is_cat = true;
  c.categories = {cuts_->Category(cuts_->ptr[node.feature] + static_cast<uint32_t>(best_bin))};
  c.split_bin = -1;
  c.split_cond = std::numeric_limits<float>::denorm_min();
  c.left_sum = node_sum - right;
  c.right_sum = right;
  c.found = true;
  return c;
}

SplitCandidate CategoricalSplitter::EvaluatePartition(const GradientSum* hist, uint32_t n_bins,
                                                      const Node& node) const {
  const GradientSum node_sum = node.sum;
  std::vector<uint32_t> sorted(n_bins);
  std::iota(sorted.begin(), sorted.end(), 0u);
  std::vector<double> weight(n_bins);
  for (uint32_t b = 0; b < n_bins; ++b) {
    weight[b] = CategoryWeight(params_, q_->Grad(hist[b].g), q_->Hess(hist[b].h));
  }
  std::stable_sort(sorted.begin(), sorted.end(),
                   [&](uint32_t l, uint32_t r) { return weight[l] < weight[r]; });
  const uint32_t steps = std::min<uint32_t>(params_.max_cat_threshold, n_bins);
  float best_loss = 0.0f;
  uint32_t best_right = 0;  // the first best_right sorted categories go right
  bool best_left = false;
  GradientSum side;  // forwards: the right side's categories, missing values left
  for (uint32_t j = 0; j + 1 < steps; ++j) {
    side += hist[sorted[j]];
    const float loss = Loss(side, node);
    if (!(loss > best_loss)) continue;
    best_loss = loss;
    best_right = j + 1;
    best_left = true;
  }
  side = GradientSum();  // backwards: the left side's categories, missing values right
  for (uint32_t j = n_bins - 1; j + steps > n_bins; --j) {
    side += hist[sorted[j]];
    const float loss = Loss(node_sum - side, node);
    if (!(loss > best_loss)) continue;
    best_loss = loss;
    best_right = j;
    best_left = false;
  }
  SplitCandidate c;
  if (best_right == 0) return c;
  std::vector<uint32_t> right_bins(sorted.begin(), sorted.begin() + best_right);
  std::sort(right_bins.begin(), right_bins.end());  // bins ascend with their codes
  GradientSum right;
  for (uint32_t b : right_bins) {
    right += hist[b];
    c.categories.push_back(cuts_->Category(cuts_->ptr[node.feature] + b));
  }
  if (!best_left) right += node_sum - std::accumulate(hist, hist + n_bins, GradientSum());
  c.loss_chg = best_loss;
  c.feature = node.feature;
  c.default_left = best_left;
  c.is_cat = true;
  c.split_bin = -1;
  c.split_cond = std::numeric_limits<float>::denorm_min();
  c.left_sum = node_sum - right;
  c.right_sum = right;
  c.found = true;
  return c;
}

std::vector<uint8_t> CategoryLeftBins(const HistogramCuts& cuts, const SplitCandidate& s) {
  std::vector<uint8_t> left(cuts.FeatureBins(s.feature), 1);
  const float* first = cuts.values.data() + cuts.ptr[s.feature];
  const float* last = cuts.values.data() + cuts.ptr[s.feature + 1];
  for (uint32_t code : s.categories) {  // the bin whose cut is code + 1
    left[std::lower_bound(first, last, static_cast<float>(code + 1)) - first] = 0;
  }
  return left;
}

}  // namespace ringboost
