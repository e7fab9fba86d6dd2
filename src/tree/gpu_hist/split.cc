// Host side of the device split evaluation (split.h): the CPU reference of the kernel's
// scan, the work list, and the per-node reduction.
#include "tree/gpu_hist/split.h"

#include "common/error.h"

namespace ringboost {

DeviceSplitResult EvaluateFeatureReference(const SplitScanContext& ctx, const DeviceSplitNode& node,
                                           const GradientSum* hist, uint32_t feature) {
  const uint32_t begin = ctx.feature_ptr[feature], end = ctx.feature_ptr[feature + 1];
  const uint32_t n_bins = end - begin;
  int64_t present_g = 0, present_h = 0;
  for (uint32_t b = begin; b < end; ++b) {
    present_g += hist[b].g;
    present_h += hist[b].h;
  }
  const bool backward = present_g != node.sum_g || present_h != node.sum_h;
  DeviceSplitResult best = DeviceSplitResult::None();
  int64_t acc_g = 0, acc_h = 0;  // bins before b
  for (uint32_t k = 0; k < n_bins; ++k) {
    const GradientSum v = hist[begin + k];
    acc_g += v.g;
    acc_h += v.h;
    if (v.g == 0 && v.h == 0) continue;  // an empty bin repeats the previous candidate
    best = CombineSplits(best, ScanCandidate(ctx, node, feature, begin + k, acc_g, acc_h, true, k));
    if (!backward) continue;
    const int64_t suffix_g = present_g - (acc_g - v.g), suffix_h = present_h - (acc_h - v.h);
    best = CombineSplits(best, ScanCandidate(ctx, node, feature, begin + k, suffix_g, suffix_h,
                                             false, 2 * n_bins - 1 - k));
  }
  return best;
}

std::vector<SplitWork> MakeSplitWork(const std::vector<std::vector<uint32_t>>& features) {
  std::vector<SplitWork> work;
  for (std::size_t i = 0; i < features.size(); ++i) {
    for (uint32_t f : features[i]) work.push_back(SplitWork{static_cast<uint32_t>(i), f});
  }
  return work;
}

std::vector<SplitCandidate> ReduceSplits(const std::vector<SplitWork>& work,
                                         const std::vector<DeviceSplitResult>& results,
                                         std::size_t num_nodes) {
  RB_CHECK(work.size() == results.size());
  std::vector<SplitCandidate> best(num_nodes);
  for (std::size_t j = 0; j < work.size(); ++j) {
    const DeviceSplitResult& r = results[j];
    if (!r.found) continue;
    SplitCandidate c;
    c.loss_chg = r.loss_chg;
    c.feature = work[j].feature;
    c.split_bin = r.split_bin;
    c.split_cond = r.split_cond;
    c.default_left = r.default_left;
    c.left_sum = GradientSum{r.left_g, r.left_h};
    c.right_sum = GradientSum{r.right_g, r.right_h};
    c.found = true;
    best[work[j].node].Update(c);
  }
  return best;
}

CategoricalBins CategoricalBinsOf(const HistogramCuts& cuts) {
  CategoricalBins c;
  c.first.assign(cuts.NumFeatures(), -1);
  for (uint32_t f = 0; f < cuts.NumFeatures(); ++f) {
    if (!cuts.IsCat(f)) continue;
    c.first[f] = static_cast<int64_t>(c.bins.size());
    for (uint32_t b = cuts.ptr[f]; b < cuts.ptr[f + 1]; ++b) c.bins.push_back(b);
  }
  return c;
}

void MergeCategoricalSplits(const HistogramCuts& cuts, const CategoricalSplitter& splitter,
                            const CategoricalBins& layout, const std::vector<GradientSum>& gathered,
                            const std::vector<DeviceSplitNode>& nodes,
                            const std::vector<std::vector<uint32_t>>& cat_features,
                            std::vector<SplitCandidate>* best) {
  const std::size_t width = layout.bins.size();
  RB_CHECK(best->size() == cat_features.size() && nodes.size() == cat_features.size());
  for (std::size_t i = 0; i < cat_features.size(); ++i) {
    const GradientSum sum{nodes[i].sum_g, nodes[i].sum_h};
    for (uint32_t f : cat_features[i]) {
      RB_CHECK(cuts.IsCat(f) && layout.first[f] >= 0);
      const std::size_t at = i * width + static_cast<std::size_t>(layout.first[f]);
      RB_CHECK(at + cuts.FeatureBins(f) <= gathered.size());
      (*best)[i].Update(splitter.Evaluate(gathered.data() + at, cuts.FeatureBins(f), sum,
                                          nodes[i].gain, f, nodes[i].bounds));
    }
  }
}

SplitScanContext HostScanContext(const HistogramCuts& cuts, const SplitParams& params,
                                 const GradientQuantizer& quantizer,
                                 const std::vector<int8_t>* monotone) {
  SplitScanContext ctx;
  ctx.params = params;
  ctx.grad_unit = quantizer.Grad(1);
  ctx.hess_unit = quantizer.Hess(1);
  ctx.feature_ptr = cuts.ptr.data();
  ctx.cut_values = cuts.values.data();
  ctx.min_values = cuts.min_values.data();
  ctx.monotone = monotone != nullptr ? monotone->data() : nullptr;
  return ctx;
}

}  // namespace ringboost
