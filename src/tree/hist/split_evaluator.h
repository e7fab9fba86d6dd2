// Split finding (DESIGN.md step 7): for each node, scan every sampled feature's bins forwards
// (missing values go right) and, when the node has missing values in that feature, backwards
// (missing values go left), as XGBoost's hist does. Ties: the larger loss change wins; equal loss
// changes keep the lower feature, and within a feature the first candidate found. The
// histograms are the same integers on every worker, so every worker picks the same split.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "tree/bins/quantile.h"
#include "tree/categorical_split.h"
#include "tree/constraints.h"
#include "tree/gradient.h"
#include "tree/split_math.h"
#include "tree/split_types.h"

namespace ringboost {

class SplitEvaluator {
 public:
  SplitEvaluator(const HistogramCuts* cuts, const SplitParams& params,
                 const GradientQuantizer* quantizer)
      : cuts_(cuts),
        params_(params),
        q_(quantizer),
        min_hess_(quantizer->HessAtLeast(params.min_child_weight)),
        categorical_(cuts, params, quantizer) {}

  // Monotone constraints per feature (-1, 0, 1; tree/constraints.h), or null for none; must
  // outlive the evaluator. With them every candidate is weighed as XGBoost's TreeEvaluator does.
  void SetMonotone(const std::vector<int8_t>* monotone) {
    monotone_ = monotone;
    categorical_.SetMonotone(monotone);
  }
  // Marks the features whose bins in the root's histogram `hist` sum to the root's `sum`: no row
  // misses them (the sums are integers), so EvaluateFeature scans their forward candidates in
  // one pass (ForwardBest), where the bounds would skip little. The others keep the block-wise
  // search, whose bounds skip much where rows miss a feature (a feature of 70% missing values:
  // the one pass cost 1.3x). A choice of loop only: the splits are the same either way.
  void MarkCompleteFeatures(const Histogram& hist, GradientSum sum);

  // Best split of each node; parallel over (node, feature) pairs.
  std::vector<SplitCandidate> Evaluate(const std::vector<NodeToEvaluate>& nodes, int nthread) const;
  // The best split of `feature`, or none where LossChangeBound shows it cannot reach
  // `must_beat` (a loss change some other feature of the node already has).
  SplitCandidate EvaluateFeature(const NodeToEvaluate& node, uint32_t feature,
                                 float must_beat = -INFINITY) const;
  // Best split of `feature` in a node of total `node_sum` and own gain `node_gain`, from the
  // feature's histogram `hist` (indexed by local bin) whose non-empty bins are nonzero[0, n)
  // (ascending local bins) and sum to `present`; or, where that best has a loss change under
  // `must_beat`, possibly another candidate under it (steps that cannot reach it are skipped).
  // `bounds`: the node's box under monotone constraints.
  SplitCandidate EvaluateBins(const GradientSum* hist, const uint32_t* nonzero, std::size_t n,
                              GradientSum present, GradientSum node_sum, float node_gain,
                              uint32_t feature, float must_beat = -INFINITY,
                              WeightBounds bounds = {}) const;
  // The same from the non-empty bins' sums gathered in order: values[k] is the sum of local bin
  // bins[k] (ascending), k < n.
  SplitCandidate EvaluateCompact(const GradientSum* values, const uint32_t* bins, std::size_t n,
                                 GradientSum present, GradientSum node_sum, float node_gain,
                                 uint32_t feature, float must_beat = -INFINITY,
                                 WeightBounds bounds = {}) const;
  // At least the loss change of any split of such a feature, from its present bins' sums alone:
  // `present`, and `side_grad`, the largest |g| of a prefix or suffix of its bins (quantized;
  // SideGradBound computes it). -inf where none of its splits is allowed (present hessian under
  // min_child_weight); +inf where no bound is known (L1, max_delta_step or monotone constraints
  // set, or `nonnegative_hess` false). It covers the float rounding of the loss change, so a
  // feature whose bound is below a loss change cannot reach or tie it.
  double LossChangeBound(GradientSum present, uint64_t side_grad, bool nonnegative_hess,
                         GradientSum node_sum, float node_gain) const;
  // The largest |g| of a prefix or a suffix of bins whose prefix sums of g lie in [lo, hi] (with
  // 0: the empty prefix) and whose total is `total`.
  static uint64_t SideGradBound(int64_t lo, int64_t hi, int64_t total);
  // The loss changes of m <= 32 candidates without max_delta_step or monotone constraints: one
  // side's sums sums[0, m) (the other: node_sum less it) into loss[0, m), and the bits of the
  // ones whose sides both reach min_child_weight (the others' loss is not written). Where
  // `vector` and the CPU has AVX2, four candidates a step in double lanes: the same IEEE
  // operations in the same order as a step at a time, so the same bits.
  uint32_t NoDeltaLosses(const GradientSum* sums, std::size_t m, GradientSum node_sum,
                         float node_gain, float* loss, bool vector = true) const;

  // What EvaluateFeature reads off a feature's bins before its block-wise search: the non-empty
  // bins, their sum, the range of the prefix sums of g (0, the empty prefix, included) and
  // whether every h is non-negative.
  struct BinScan {
    std::size_t n = 0;  // non-empty bins so far, their local indices in nonzero[0, n)
    GradientSum present;
    int64_t prefix_min = 0, prefix_max = 0;
    bool nonnegative_hess = true;
  };
  // Continues `scan` over global bins [lo, hi) of a feature starting at `begin`: nonzero[0, n)
  // gets the non-empty bins' local indices (it must hold hi - begin elements; entries from n on
  // may be written). `vector`: four bins a step in AVX2 lanes where the CPU has AVX2 (the same
  // integer results as a bin a step).
  static void ScanBins(const GradientSum* hist, uint32_t lo, uint32_t hi, uint32_t begin,
                       uint32_t* nonzero, BinScan* scan, bool vector = true);

  // The best forward candidate (missing values right) of a feature whose bins are hist[0, n_bins),
  // without max_delta_step or monotone constraints: the largest loss change over 0 of a non-empty
  // bin whose sides both reach min_child_weight, the lowest bin among equals (Enumerate's
  // choice from an empty best). Sets *loss and *bin (local; -1 and 0 where none), and *present,
  // the bins' sum; returns whether one was found. `vector`: eight bins a step in AVX-512 lanes
  // where the CPU has AVX-512 (F, DQ, VL) and `wide`, else four in AVX2 lanes where it has AVX2
  // (the same bits as a bin a step; tests take each way).
  bool ForwardBest(const GradientSum* hist, uint32_t n_bins, GradientSum node_sum, float node_gain,
                   float* loss, int64_t* bin, GradientSum* present, bool vector = true,
                   bool wide = true) const;

 private:
  // Scans the non-empty bins in kDirection: cell(k) is the sum of the k-th of them (ascending),
  // of local bin nonzero[k].
  template <int kDirection, typename Cell>
  void Enumerate(const Cell& cell, const uint32_t* nonzero, std::size_t n, GradientSum node_sum,
                 float node_gain, uint32_t feature, float must_beat, WeightBounds bounds,
                 SplitCandidate* best) const;
  template <typename Cell>
  SplitCandidate EvaluateCells(const Cell& cell, const uint32_t* nonzero, std::size_t n,
                               GradientSum present, GradientSum node_sum, float node_gain,
                               uint32_t feature, float must_beat, WeightBounds bounds) const;
  // The candidate splitting after local `bin` (direction > 0: the bins up to it left, missing
  // values right) or before it (direction < 0: the bins from it right, missing values left),
  // `side` the scanned side's sum.
  SplitCandidate Candidate(int direction, uint32_t feature, uint32_t bin, GradientSum side,
                           GradientSum node_sum, float loss) const;
  double BlockBound(int64_t g_lo, int64_t g_hi, int64_t h_lo, int64_t h_hi, GradientSum node_sum,
                    float node_gain) const;

  const HistogramCuts* cuts_;
  SplitParams params_;
  const GradientQuantizer* q_;
  int64_t min_hess_;  // a side with less (quantized) hessian is below min_child_weight
  const std::vector<int8_t>* monotone_ = nullptr;
  std::vector<uint8_t> complete_;  // per feature, MarkCompleteFeatures
  // Categorical features (XGBoost 3.x's splits, tree/categorical_split.h).
  CategoricalSplitter categorical_;
};

}  // namespace ringboost
