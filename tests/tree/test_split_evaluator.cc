#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "tree/split_evaluator.h"

namespace ringboost {
namespace {

struct Case {
  HistogramCuts cuts;
  GradientQuantizer quantizer;
  std::vector<GradientSum> hist;  // the feature's bins
  GradientSum node_sum;           // with the rows that miss the feature
  std::vector<uint32_t> nonzero;
  GradientSum present;
  uint64_t side_grad = 0;  // the largest |g| of a prefix or suffix of the non-empty bins
};

// One feature of `nb` bins over `rows` rows, a share `missing` of them without it.
Case MakeCase(std::mt19937* rng, uint32_t nb, int rows, double missing) {
  Case c;
  c.cuts.ptr = {0, nb};
  for (uint32_t b = 0; b < nb; ++b) c.cuts.values.push_back(static_cast<float>(b + 1));
  c.cuts.min_values = {0.0f};
  std::uniform_real_distribution<float> grad(-1.0f, 1.0f), hess(0.0f, 0.25f), u(0.0f, 1.0f);
  std::vector<GradPair> gpair(rows);
  for (GradPair& p : gpair) p = GradPair{grad(*rng), hess(*rng)};
  auto comm = rabit::MakeLocalCommunicator();
  c.quantizer = GradientQuantizer(gpair, 1, 0, comm.get());
  c.hist.assign(nb, GradientSum{});
  for (const GradPair& p : gpair) {
    const GradientSum q = c.quantizer.Quantize(p);
    c.node_sum += q;
    if (u(*rng) >= missing) c.hist[(*rng)() % nb] += q;
  }
  int64_t lo = 0, hi = 0;
  for (uint32_t b = 0; b < nb; ++b) {
    if ((c.hist[b].g | c.hist[b].h) == 0) continue;
    c.nonzero.push_back(b);
    c.present += c.hist[b];
    lo = std::min(lo, c.present.g);
    hi = std::max(hi, c.present.g);
  }
  c.side_grad = SplitEvaluator::SideGradBound(lo, hi, c.present.g);
  // By brute force: every prefix and suffix.
  uint64_t brute = 0;
  GradientSum prefix;
  for (uint32_t b : c.nonzero) {
    prefix += c.hist[b];
    brute = std::max(brute, static_cast<uint64_t>(std::llabs(prefix.g)));
    brute =
        std::max(brute, static_cast<uint64_t>(std::llabs(c.present.g - prefix.g + c.hist[b].g)));
  }
  EXPECT_EQ(c.side_grad, brute);
  return c;
}

// The largest loss change of every allowed candidate, forward and backward, by brute force.
float BestByBruteForce(const Case& c, const SplitParams& p, float node_gain) {
  float best = -INFINITY;
  const GradientQuantizer& q = c.quantizer;
  for (int dir : {+1, -1}) {
    GradientSum acc;
    for (std::size_t k = 0; k < c.nonzero.size(); ++k) {
      acc += c.hist[c.nonzero[dir > 0 ? k : c.nonzero.size() - 1 - k]];
      const GradientSum rest = c.node_sum - acc;
      const GradientSum& l = dir > 0 ? acc : rest;
      const GradientSum& r = dir > 0 ? rest : acc;
      best = std::max(
          best, SplitLossChange(p, q.Grad(l.g), q.Hess(l.h), q.Grad(r.g), q.Hess(r.h), node_gain));
    }
  }
  return best;
}

TEST(SplitEvaluator, LossChangeBoundIsAboveEveryCandidate) {
  std::mt19937 rng(7);
  int bounded = 0, no_split = 0;
  for (int trial = 0; trial < 400; ++trial) {
    SplitParams p;
    p.lambda = std::vector<float>{1.0f, 0.5f, 0.0f}[trial % 3];
    p.min_child_weight = std::vector<float>{1.0f, 0.1f, 0.0f, 5.0f}[(trial / 3) % 4];
    const uint32_t nb = 1 + rng() % 40;
    const Case c = MakeCase(&rng, nb, 2 + static_cast<int>(rng() % 300), (trial % 5) * 0.2);
    const GradientQuantizer& q = c.quantizer;
    const float node_gain = CalcGain(p, q.Grad(c.node_sum.g), q.Hess(c.node_sum.h));
    const SplitEvaluator evaluator(&c.cuts, p, &q);
    const double bound =
        evaluator.LossChangeBound(c.present, c.side_grad, true, c.node_sum, node_gain);
    const float best = BestByBruteForce(c, p, node_gain);
    const SplitCandidate found = evaluator.EvaluateBins(
        c.hist.data(), c.nonzero.data(), c.nonzero.size(), c.present, c.node_sum, node_gain, 0);
    if (bound == -INFINITY) {  // no allowed candidate at all
      EXPECT_EQ(best, -INFINITY) << trial;
      EXPECT_FALSE(found.found) << trial;
      ++no_split;
      continue;
    }
    if (p.min_child_weight + p.lambda == 0.0f) {
      EXPECT_EQ(bound, INFINITY) << trial;
      continue;
    }
    ASSERT_TRUE(std::isfinite(bound)) << trial;
    EXPECT_GT(bound, static_cast<double>(best)) << trial;
    if (found.found) EXPECT_GT(bound, static_cast<double>(found.loss_chg)) << trial;
    ++bounded;
  }
  EXPECT_GT(bounded, 200);  // both kinds of case were drawn
  EXPECT_GT(no_split, 10);
}

TEST(SplitEvaluator, LossChangeBoundIsUnknownWithL1MaxDeltaStepOrNegativeHessians) {
  std::mt19937 rng(3);
  const Case c = MakeCase(&rng, 8, 100, 0.3);
  const float gain = 1.0f;
  SplitParams p;
  EXPECT_EQ(SplitEvaluator(&c.cuts, p, &c.quantizer)
                .LossChangeBound(c.present, c.side_grad, false, c.node_sum, gain),
            INFINITY);
  p.alpha = 0.5f;
  EXPECT_EQ(SplitEvaluator(&c.cuts, p, &c.quantizer)
                .LossChangeBound(c.present, c.side_grad, true, c.node_sum, gain),
            INFINITY);
  p.alpha = 0.0f;
  p.max_delta_step = 0.7f;
  EXPECT_EQ(SplitEvaluator(&c.cuts, p, &c.quantizer)
                .LossChangeBound(c.present, c.side_grad, true, c.node_sum, gain),
            INFINITY);
}

}  // namespace
}  // namespace ringboost
