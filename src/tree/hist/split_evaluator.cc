#include "tree/hist/split_evaluator.h"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "tree/hist/split_kernels.h"

namespace ringboost {

void SplitEvaluator::ScanBins(const GradientSum* hist, uint32_t lo, uint32_t hi, uint32_t begin,
                              uint32_t* nonzero, BinScan* scan, bool vector) {
  uint32_t b = lo;
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
  if (vector && avx2) b = split_kernels::ScanBinsAvx2(hist, lo, hi, begin, nonzero, scan);
#endif
  (void)vector;
  for (; b < hi; ++b) {  // branch-free compaction: zero bins are frequent
    nonzero[scan->n] = b - begin;
    scan->n += (hist[b].g | hist[b].h) != 0;
    scan->present += hist[b];
    scan->prefix_min = std::min(scan->prefix_min, scan->present.g);
    scan->prefix_max = std::max(scan->prefix_max, scan->present.g);
    scan->nonnegative_hess &= hist[b].h >= 0;
  }
}

bool SplitEvaluator::ForwardBest(const GradientSum* hist, uint32_t n_bins, GradientSum node_sum,
                                 float node_gain, float* loss, int64_t* bin, GradientSum* present,
                                 bool vector, bool wide) const {
  *loss = 0.0f;  // an empty SplitCandidate's: a candidate must do better
  *bin = -1;
  *present = GradientSum{};
  uint32_t b = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  static const bool avx512 = __builtin_cpu_supports("avx512f") &&
                             __builtin_cpu_supports("avx512dq") &&
                             __builtin_cpu_supports("avx512vl");
  if (vector && wide && avx512) {
    b = split_kernels::ForwardBestAvx512(hist, n_bins, node_sum, min_hess_, q_->grad_unit(),
                                         q_->hess_unit(), params_, node_gain, loss, bin, present);
  } else if (vector && avx2) {
    b = split_kernels::ForwardBestAvx2(hist, n_bins, node_sum, min_hess_, q_->grad_unit(),
                                       q_->hess_unit(), params_, node_gain, loss, bin, present);
  }
#endif
  (void)vector;
  (void)wide;
  // The rest a bin a step, with NoDeltaLosses's formula (the lanes' bits).
  for (; b < n_bins; ++b) {
    *present += hist[b];
    if ((hist[b].g | hist[b].h) == 0) continue;
    const GradientSum rest = node_sum - *present;
    if ((present->h < min_hess_) | (rest.h < min_hess_)) continue;
    const float l = (SideGain(params_, q_->Grad(present->g), q_->Hess(present->h)) +
                     SideGain(params_, q_->Grad(rest.g), q_->Hess(rest.h))) -
                    node_gain;
    if (l > *loss) {
      *loss = l;
      *bin = b;
    }
  }
  return *bin >= 0;
}

uint32_t SplitEvaluator::NoDeltaLosses(const GradientSum* sums, std::size_t m, GradientSum node_sum,
                                       float node_gain, float* loss, bool vector) const {
  uint32_t allowed = 0;
  std::size_t i = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (vector && avx2) {
    allowed = split_kernels::NoDeltaLossesAvx2(sums, m, node_sum, min_hess_, q_->grad_unit(),
                                               q_->hess_unit(), params_, node_gain, loss);
    i = m / 4 * 4;
  }
#endif
  (void)vector;
  for (; i < m; ++i) {
    const GradientSum& side = sums[i];
    const GradientSum rest = node_sum - side;
    if ((side.h < min_hess_) | (rest.h < min_hess_)) continue;  // min_child_weight
    allowed |= uint32_t{1} << i;
    // The sides' gains in either order: a float sum of two is the same both ways.
    loss[i] = (SideGain(params_, q_->Grad(side.g), q_->Hess(side.h)) +
               SideGain(params_, q_->Grad(rest.g), q_->Hess(rest.h))) -
              node_gain;
  }
  return allowed;
}

// At least the loss change of any candidate whose scanned side has g in [g_lo, g_hi] and h in
// [h_lo, h_hi] (the other side: the node less it), when max_delta_step is 0. SideGain(g, h) is 0
// for h <= 0 and at most g^2 / (h_lo + lambda) above, L1 only lowering |g|; the float rounding of
// the loss change (three roundings of 2^-24) is covered as in LossChangeBound. +inf where a side's
// h + lambda may reach 0.
double SplitEvaluator::BlockBound(int64_t g_lo, int64_t g_hi, int64_t h_lo, int64_t h_hi,
                                  GradientSum node_sum, float node_gain) const {
  const double lambda = params_.lambda;
  const double side_den = q_->Hess(h_lo) + lambda;
  const double rest_den = q_->Hess(node_sum.h - h_hi) + lambda;
  if (!(side_den > 0.0) || !(rest_den > 0.0)) return INFINITY;
  const double a = std::max(std::fabs(q_->Grad(g_lo)), std::fabs(q_->Grad(g_hi)));
  const double b =
      std::max(std::fabs(q_->Grad(node_sum.g - g_lo)), std::fabs(q_->Grad(node_sum.g - g_hi)));
  const double bound = a * a / side_den + b * b / rest_den;
  return bound - node_gain + 1e-5 * (std::fabs(static_cast<double>(node_gain)) + bound) + 1e-30;
}

template <int kDirection, typename Cell>
void SplitEvaluator::Enumerate(const Cell& cell, const uint32_t* nonzero, std::size_t n,
                               GradientSum node_sum, float node_gain, uint32_t feature,
                               float must_beat, WeightBounds bounds, SplitCandidate* best) const {
  // The loop keeps the best loss change and its step; the candidate is written once, at the end.
  // NeedReplace in the loop's terms: a first replacement needs a larger loss change, or one not
  // smaller where the best so far is of a higher feature; after it (the same feature) only a
  // strictly larger one.
  const bool bounded = monotone_ != nullptr;
  const bool no_delta = params_.max_delta_step == 0.0f && !bounded;
  float best_loss = best->loss_chg;
  bool strict = !(best->found && best->feature > feature);
  std::size_t best_k = n;
  // Steps go in blocks: a block's side sums first, then its candidates, unless no candidate of
  // the block can be allowed (min_child_weight) or reach the best or `must_beat` (BlockBound).
  // A bound costs about what a candidate does (two divisions). Blocks of 4 took 15% fewer cycles
  // here than blocks of 16 on the bench's dense set (about 0.4 ms of an 85 ms round), but made its
  // sparse round 3-11% slower (0.75-0.78 against 0.69-0.75 s, five pairs): 16. The choice cannot
  // change a split.
  constexpr std::size_t kBlock = 16;
  GradientSum sums[kBlock];
  GradientSum acc;  // forward: left side; backward: right side
  for (std::size_t k0 = 0; k0 < n; k0 += kBlock) {
    const std::size_t m = std::min(kBlock, n - k0);
    int64_t g_lo = INT64_MAX, g_hi = INT64_MIN, h_lo = INT64_MAX, h_hi = INT64_MIN;
    for (std::size_t i = 0; i < m; ++i) {
      const std::size_t k = k0 + i;
      acc += cell(kDirection > 0 ? k : n - 1 - k);
      sums[i] = acc;
      g_lo = std::min(g_lo, acc.g);
      g_hi = std::max(g_hi, acc.g);
      h_lo = std::min(h_lo, acc.h);
      h_hi = std::max(h_hi, acc.h);
    }
    if (h_hi < min_hess_ || node_sum.h - h_lo < min_hess_) continue;  // min_child_weight
    if (no_delta &&
        BlockBound(g_lo, g_hi, h_lo, h_hi, node_sum, node_gain) < std::max(best_loss, must_beat)) {
      continue;
    }
    float losses[kBlock];
    uint32_t allowed = 0;  // bit i: candidate i's sides both reach min_child_weight
    if (no_delta) {
      allowed = NoDeltaLosses(sums, m, node_sum, node_gain, losses);
    } else {
      for (std::size_t i = 0; i < m; ++i) {
        const GradientSum& side = sums[i];
        const GradientSum rest = node_sum - side;
        if ((side.h < min_hess_) | (rest.h < min_hess_)) continue;  // min_child_weight
        allowed |= uint32_t{1} << i;
        const GradientSum& left = kDirection > 0 ? side : rest;
        const GradientSum& right = kDirection > 0 ? rest : side;
        const double gl = q_->Grad(left.g), hl = q_->Hess(left.h);
        const double gr = q_->Grad(right.g), hr = q_->Hess(right.h);
        losses[i] = bounded ? BoundedLossChange(params_, gl, hl, gr, hr, node_gain, bounds,
                                                (*monotone_)[feature])
                            : SplitLossChange(params_, gl, hl, gr, hr, node_gain);
      }
    }
    for (std::size_t i = 0; i < m; ++i) {
      if (!(allowed >> i & 1)) continue;
      const float loss = losses[i];
      if (strict ? !(loss > best_loss) : best_loss > loss) continue;
      best_loss = loss;
      best_k = k0 + i;
      strict = true;
    }
  }
  if (best_k == n) return;
  GradientSum side;  // acc at best_k
  for (std::size_t k = 0; k <= best_k; ++k) {
    side += cell(kDirection > 0 ? k : n - 1 - k);
  }
  const uint32_t bin = kDirection > 0 ? nonzero[best_k] : nonzero[n - 1 - best_k];
  *best = Candidate(kDirection, feature, bin, side, node_sum, best_loss);
}

SplitCandidate SplitEvaluator::Candidate(int direction, uint32_t feature, uint32_t bin,
                                         GradientSum side, GradientSum node_sum, float loss) const {
  const GradientSum rest = node_sum - side;
  SplitCandidate c;
  c.loss_chg = loss;
  c.feature = feature;
  c.default_left = direction < 0;
  c.split_bin = static_cast<int32_t>(direction > 0 ? bin : bin - 1);
  c.split_cond = c.split_bin < 0 ? cuts_->min_values[feature]
                                 : cuts_->values[cuts_->ptr[feature] + c.split_bin];
  c.left_sum = direction > 0 ? side : rest;
  c.right_sum = direction > 0 ? rest : side;
  c.found = true;
  return c;
}

uint64_t SplitEvaluator::SideGradBound(int64_t lo, int64_t hi, int64_t total) {
  const auto dist = [](int64_t a, int64_t b) {  // |a - b| without overflow
    return a > b ? static_cast<uint64_t>(a) - static_cast<uint64_t>(b)
                 : static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
  };
  // Prefixes are the sums in [lo, hi]; suffixes are total minus them.
  return std::max({dist(lo, 0), dist(hi, 0), dist(total, lo), dist(total, hi)});
}

// S, the present rows a candidate puts on one side (a prefix or suffix of the bins), has |G_S| <=
// A (side_grad) and H_S <= H_P; the other side R is the node without S. With phi(g, h) =
// g^2 / (h + lambda) (alpha = 0, no max_delta_step), the loss change is
// phi(S) + phi(R) - phi(node), and for an allowed candidate (both sides at least mcw):
//   phi(S) <= A^2 / (mcw + lambda);
//   phi(R) - phi(node) <= 2 |w_R| |G_S| + w_R^2 H_S (phi is convex: phi(node) lies above its
//   tangent at R), with |w_R| = |G_R| / (H_R + lambda) <= (|G| + A) / (max(H - H_P, mcw) + lambda).
double SplitEvaluator::LossChangeBound(GradientSum present, uint64_t side_grad,
                                       bool nonnegative_hess, GradientSum node_sum,
                                       float node_gain) const {
  if (!nonnegative_hess) return INFINITY;       // prefix sums could exceed `present`
  if (present.h < min_hess_) return -INFINITY;  // no side of present rows reaches mcw
  if (params_.alpha != 0.0f || params_.max_delta_step != 0.0f || monotone_ != nullptr) {
    return INFINITY;
  }
  const double lambda = params_.lambda, mcw = params_.min_child_weight;
  if (!(mcw + lambda > 0.0)) return INFINITY;
  const double a = q_->Grad(static_cast<int64_t>(side_grad));
  const double hp = q_->Hess(present.h);
  const double g = std::fabs(q_->Grad(node_sum.g)), h = q_->Hess(node_sum.h);
  const double w = (g + a) / (std::max(h - hp, mcw) + lambda);
  const double bound = a * a / (mcw + lambda) + 2.0 * w * a + w * w * hp;
  // The loss change is summed in float from terms up to node_gain + bound: a few roundings of
  // 2^-24 each, far inside 1e-5 of them.
  return bound + 1e-5 * (std::fabs(static_cast<double>(node_gain)) + bound) + 1e-30;
}

template <typename Cell>
SplitCandidate SplitEvaluator::EvaluateCells(const Cell& cell, const uint32_t* nonzero,
                                             std::size_t n, GradientSum present,
                                             GradientSum node_sum, float node_gain,
                                             uint32_t feature, float must_beat,
                                             WeightBounds bounds) const {
  SplitCandidate best;
  if (n == 0) return best;
  Enumerate<+1>(cell, nonzero, n, node_sum, node_gain, feature, must_beat, bounds, &best);
  // Backwards only when some rows of the node miss this feature.
  if (present != node_sum) {
    Enumerate<-1>(cell, nonzero, n, node_sum, node_gain, feature, must_beat, bounds, &best);
  }
  return best;
}

SplitCandidate SplitEvaluator::EvaluateBins(const GradientSum* hist, const uint32_t* nonzero,
                                            std::size_t n, GradientSum present,
                                            GradientSum node_sum, float node_gain, uint32_t feature,
                                            float must_beat, WeightBounds bounds) const {
  return EvaluateCells([hist, nonzero](std::size_t k) { return hist[nonzero[k]]; }, nonzero, n,
                       present, node_sum, node_gain, feature, must_beat, bounds);
}

SplitCandidate SplitEvaluator::EvaluateCompact(const GradientSum* values, const uint32_t* bins,
                                               std::size_t n, GradientSum present,
                                               GradientSum node_sum, float node_gain,
                                               uint32_t feature, float must_beat,
                                               WeightBounds bounds) const {
  return EvaluateCells([values](std::size_t k) { return values[k]; }, bins, n, present, node_sum,
                       node_gain, feature, must_beat, bounds);
}

void SplitEvaluator::MarkCompleteFeatures(const Histogram& hist, GradientSum sum) {
  const uint32_t nf = cuts_->NumFeatures();
  complete_.assign(nf, 0);
  if (hist.size() < cuts_->TotalBins()) return;
  for (uint32_t f = 0; f < nf; ++f) {
    GradientSum present;
    for (uint32_t b = cuts_->ptr[f]; b < cuts_->ptr[f + 1]; ++b) present += hist[b];
    complete_[f] = present == sum;
  }
}

SplitCandidate SplitEvaluator::EvaluateFeature(const NodeToEvaluate& node, uint32_t feature,
                                               float must_beat) const {
  // Only non-empty bins are candidates: an empty bin repeats the candidate before it, which never
  // replaces the best (same feature, equal loss change), so skipping it changes nothing.
  thread_local std::vector<uint32_t> nonzero;
  const uint32_t begin = cuts_->ptr[feature], end = cuts_->ptr[feature + 1];
  if (cuts_->IsCat(feature)) {
    return categorical_.Evaluate(node.hist->data() + begin, end - begin, node.sum, node.gain,
                                 feature, node.bounds);
  }
  const GradientSum* hist = node.hist->data();
  if (node.touched == nullptr && params_.max_delta_step == 0.0f && monotone_ == nullptr &&
      feature < complete_.size() && complete_[feature]) {
    // A feature no row misses: every forward candidate scanned in one pass (the bounds skip
    // little of such a feature's candidates). Where the root's sums matched though some rows
    // miss it, the block-wise search below, both ways.
    float loss;
    int64_t bin;
    GradientSum present;
    const bool found =
        ForwardBest(hist + begin, end - begin, node.sum, node.gain, &loss, &bin, &present);
    if (present == node.sum) {
      if (!found) return SplitCandidate{};
      GradientSum side;
      for (int64_t b = 0; b <= bin; ++b) side += hist[begin + b];
      return Candidate(+1, feature, static_cast<uint32_t>(bin), side, node.sum, loss);
    }
  }
  nonzero.resize(end - begin + 1);
  BinScan scan;
  if (node.touched == nullptr) {
    ScanBins(hist, begin, end, begin, nonzero.data(), &scan);
  } else {
    const uint32_t width = 1u << node.chunk_shift;
    for (uint32_t c = begin >> node.chunk_shift; c <= (end - 1) >> node.chunk_shift; ++c) {
      if (node.touched[c]) {
        ScanBins(hist, std::max(begin, c * width), std::min(end, (c + 1) * width), begin,
                 nonzero.data(), &scan);
      }
    }
  }
  if (LossChangeBound(scan.present, SideGradBound(scan.prefix_min, scan.prefix_max, scan.present.g),
                      scan.nonnegative_hess, node.sum, node.gain) < must_beat) {
    return SplitCandidate{};
  }
  return EvaluateBins(hist + begin, nonzero.data(), scan.n, scan.present, node.sum, node.gain,
                      feature, must_beat, node.bounds);
}

std::vector<SplitCandidate> SplitEvaluator::Evaluate(const std::vector<NodeToEvaluate>& nodes,
                                                     int nthread) const {
  std::vector<std::size_t> offsets(nodes.size() + 1, 0);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    offsets[i + 1] = offsets[i] + nodes[i].features->size();
  }
  // Each thread keeps its best per node, which a feature must beat to be scanned at all; the
  // candidates are ordered by (loss change, then lower feature), so any merge order gives the
  // same choice.
  std::vector<std::vector<SplitCandidate>> best(nthread, std::vector<SplitCandidate>(nodes.size()));
  const int64_t pairs = static_cast<int64_t>(offsets.back());
#pragma omp parallel for schedule(dynamic, 8) num_threads(nthread)
  for (int64_t j = 0; j < pairs; ++j) {
    const std::size_t i =
        std::upper_bound(offsets.begin(), offsets.end(), static_cast<std::size_t>(j)) -
        offsets.begin() - 1;
    SplitCandidate& mine = best[omp_get_thread_num()][i];
    mine.Update(EvaluateFeature(nodes[i], (*nodes[i].features)[j - offsets[i]], mine.loss_chg));
  }
  for (int t = 1; t < nthread; ++t) {
    for (std::size_t i = 0; i < nodes.size(); ++i) best[0][i].Update(best[t][i]);
  }
  return best[0];
}

}  // namespace ringboost
