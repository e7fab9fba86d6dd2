#include "tree/split_evaluator.h"

#include <algorithm>

namespace ringboost {

template <int kDirection>
void SplitEvaluator::Enumerate(const GradientSum* hist, const uint32_t* nonzero, std::size_t n,
                               GradientSum node_sum, float node_gain, uint32_t feature,
                               SplitCandidate* best) const {
  const uint32_t begin = cuts_->ptr[feature];
  const double mcw = params_.min_child_weight;
  GradientSum acc;  // forward: left side; backward: right side
  for (std::size_t k = 0; k < n; ++k) {
    const uint32_t bin = kDirection > 0 ? nonzero[k] : nonzero[n - 1 - k];
    acc += hist[bin];
    if (q_->Hess(acc.h) < mcw) continue;
    GradientSum rest = node_sum - acc;
    if (q_->Hess(rest.h) < mcw) continue;
    const GradientSum& left = kDirection > 0 ? acc : rest;
    const GradientSum& right = kDirection > 0 ? rest : acc;
    float loss_chg = SplitLossChange(params_, q_->Grad(left.g), q_->Hess(left.h), q_->Grad(right.g),
                                     q_->Hess(right.h), node_gain);
    if (!best->NeedReplace(loss_chg, feature)) continue;
    SplitCandidate c;
    c.loss_chg = loss_chg;
    c.feature = feature;
    c.default_left = kDirection < 0;
    c.split_bin = static_cast<int32_t>(kDirection > 0 ? bin : bin - 1);
    c.split_cond =
        c.split_bin < 0 ? cuts_->min_values[feature] : cuts_->values[begin + c.split_bin];
    c.left_sum = left;
    c.right_sum = right;
    c.found = true;
    *best = c;
  }
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
