#include "tree/split_evaluator.h"

#include <algorithm>

namespace ringboost {

template <int kDirection>
void SplitEvaluator::Enumerate(const GradientSum* hist, const uint32_t* nonzero, std::size_t n,
                               GradientSum node_sum, float node_gain, uint32_t feature,
                               SplitCandidate* best) const {
  // The loop keeps the best loss change and its step; the candidate is written once, at the end.
  // NeedReplace in the loop's terms: a first replacement needs a larger loss change, or one not
  // smaller where the best so far is of a higher feature; after it (the same feature) only a
  // strictly larger one.
  const bool no_delta = params_.max_delta_step == 0.0f;
  float best_loss = best->loss_chg;
  bool strict = !(best->found && best->feature > feature);
  std::size_t best_k = n;
  GradientSum acc;  // forward: left side; backward: right side
  for (std::size_t k = 0; k < n; ++k) {
    acc += hist[kDirection > 0 ? nonzero[k] : nonzero[n - 1 - k]];
    const GradientSum rest = node_sum - acc;
    if ((acc.h < min_hess_) | (rest.h < min_hess_)) continue;  // min_child_weight
    const GradientSum& left = kDirection > 0 ? acc : rest;
    const GradientSum& right = kDirection > 0 ? rest : acc;
    const double gl = q_->Grad(left.g), hl = q_->Hess(left.h);
    const double gr = q_->Grad(right.g), hr = q_->Hess(right.h);
    const float loss = no_delta
                           ? (SideGain(params_, gl, hl) + SideGain(params_, gr, hr)) - node_gain
                           : SplitLossChange(params_, gl, hl, gr, hr, node_gain);
    if (strict ? !(loss > best_loss) : best_loss > loss) continue;
    best_loss = loss;
    best_k = k;
    strict = true;
  }
  if (best_k == n) return;
  GradientSum side;  // acc at best_k
  for (std::size_t k = 0; k <= best_k; ++k) {
    side += hist[kDirection > 0 ? nonzero[k] : nonzero[n - 1 - k]];
  }
  const uint32_t bin = kDirection > 0 ? nonzero[best_k] : nonzero[n - 1 - best_k];
  const GradientSum rest = node_sum - side;
  SplitCandidate c;
  c.loss_chg = best_loss;
  c.feature = feature;
  c.default_left = kDirection < 0;
  c.split_bin = static_cast<int32_t>(kDirection > 0 ? bin : bin - 1);
  c.split_cond = c.split_bin < 0 ? cuts_->min_values[feature]
                                 : cuts_->values[cuts_->ptr[feature] + c.split_bin];
  c.left_sum = kDirection > 0 ? side : rest;
  c.right_sum = kDirection > 0 ? rest : side;
  c.found = true;
  *best = c;
}

SplitCandidate SplitEvaluator::EvaluateBins(const GradientSum* hist, const uint32_t* nonzero,
                                            std::size_t n, GradientSum present,
                                            GradientSum node_sum, float node_gain,
                                            uint32_t feature) const {
  SplitCandidate best;
  if (n == 0) return best;
  Enumerate<+1>(hist, nonzero, n, node_sum, node_gain, feature, &best);
  // Backwards only when some rows of the node miss this feature.
  if (present != node_sum) Enumerate<-1>(hist, nonzero, n, node_sum, node_gain, feature, &best);
  return best;
}

SplitCandidate SplitEvaluator::EvaluateFeature(const NodeToEvaluate& node, uint32_t feature) const {
  // Only non-empty bins are candidates: an empty bin repeats the candidate before it, which never
  // replaces the best (same feature, equal loss change), so skipping it changes nothing.
  thread_local std::vector<uint32_t> nonzero;
  const uint32_t begin = cuts_->ptr[feature], end = cuts_->ptr[feature + 1];
  nonzero.resize(end - begin + 1);
  GradientSum present;
  const GradientSum* hist = node.hist->data();
  std::size_t n = 0;
  const auto collect = [&](uint32_t lo, uint32_t hi) {
    for (uint32_t b = lo; b < hi; ++b) {  // branch-free compaction: zero bins are frequent
      nonzero[n] = b - begin;
      n += (hist[b].g | hist[b].h) != 0;
      present += hist[b];
    }
  };
  if (node.touched == nullptr) {
    collect(begin, end);
  } else {
    const uint32_t width = 1u << node.chunk_shift;
    for (uint32_t c = begin >> node.chunk_shift; c <= (end - 1) >> node.chunk_shift; ++c) {
      if (node.touched[c]) collect(std::max(begin, c * width), std::min(end, (c + 1) * width));
    }
  }
  return EvaluateBins(hist + begin, nonzero.data(), n, present, node.sum, node.gain, feature);
}

std::vector<SplitCandidate> SplitEvaluator::Evaluate(const std::vector<NodeToEvaluate>& nodes,
                                                     int nthread) const {
  std::vector<std::size_t> offsets(nodes.size() + 1, 0);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    offsets[i + 1] = offsets[i] + nodes[i].features->size();
  }
  std::vector<SplitCandidate> per_feature(offsets.back());
#pragma omp parallel for schedule(dynamic, 8) num_threads(nthread)
  for (std::size_t j = 0; j < per_feature.size(); ++j) {
    std::size_t i = std::upper_bound(offsets.begin(), offsets.end(), j) - offsets.begin() - 1;
    per_feature[j] = EvaluateFeature(nodes[i], (*nodes[i].features)[j - offsets[i]]);
  }
  std::vector<SplitCandidate> best(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (std::size_t j = offsets[i]; j < offsets[i + 1]; ++j) best[i].Update(per_feature[j]);
  }
  return best;
}

}  // namespace ringboost
