// Splits of categorical features, as XGBoost 3.x's hist evaluator makes them
// (categorical_split.cc), and where such a split sends a bin. On the floor because both tree
// methods take them: the CPU's SplitEvaluator for every categorical feature, the GPU grower on the
// host from the device's histograms of those features (the same code, so the same candidates bit
// for bit).
#pragma once

#include <cstdint>
#include <vector>

#include "tree/bins/quantile.h"
#include "tree/gradient.h"
#include "tree/split_math.h"
#include "tree/split_types.h"

namespace ringboost {

class CategoricalSplitter {
 public:
  // `cuts` and `quantizer` must outlive the splitter.
  CategoricalSplitter(const HistogramCuts* cuts, const SplitParams& params,
                      const GradientQuantizer* quantizer)
      : cuts_(cuts),
        params_(params),
        q_(quantizer),
        min_hess_(quantizer->HessAtLeast(params.min_child_weight)) {}

  // Monotone constraints per feature (-1, 0, 1; tree/constraints.h), or null for none; must
  // outlive the splitter. With them every candidate is weighed as the numerical ones are
  // (BoundedLossChange: the weights clamped to the node's box, the feature's order kept), as
  // XGBoost 3.x's CalcSplitGain weighs categorical splits too.
  void SetMonotone(const std::vector<int8_t>* monotone) { monotone_ = monotone; }

  // The best split of categorical `feature` in a node of total `node_sum`, own gain `node_gain`
  // and box `bounds` (monotone constraints), from the feature's histogram `hist` (its n_bins
  // bins, by local bin): one category against the rest when the feature has fewer than
  // max_cat_to_onehot categories, else a prefix or suffix of its categories sorted by weight. Not
  // found when no split gains.
  SplitCandidate Evaluate(const GradientSum* hist, uint32_t n_bins, GradientSum node_sum,
                          float node_gain, uint32_t feature, WeightBounds bounds = {}) const;

 private:
  // What a candidate of one (node, feature) is weighed against.
  struct Node {
    GradientSum sum;
    float gain;
    uint32_t feature;
    WeightBounds bounds;
  };
  SplitCandidate EvaluateOneHot(const GradientSum* hist, uint32_t n_bins, const Node& node) const;
  SplitCandidate EvaluatePartition(const GradientSum* hist, uint32_t n_bins,
                                   const Node& node) const;
  // The loss change of sending `right` right and the rest of the node left; -inf where a side is
  // under min_child_weight or, under monotone constraints, where the weights break the feature's
  // order.
  float Loss(GradientSum right, const Node& node) const;

  const HistogramCuts* cuts_;
  SplitParams params_;
  const GradientQuantizer* q_;
  int64_t min_hess_;  // a side with less (quantized) hessian is below min_child_weight
  const std::vector<int8_t>* monotone_ = nullptr;
};

// Per local bin of the categorical split `s`'s feature, 1 where the bin's rows go left: every bin
// but those of s.categories (the bin whose cut is code + 1). Rows missing the feature take
// s.default_left instead.
std::vector<uint8_t> CategoryLeftBins(const HistogramCuts& cuts, const SplitCandidate& s);

}  // namespace ringboost
