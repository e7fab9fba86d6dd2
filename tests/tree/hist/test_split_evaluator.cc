#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tree/hist/split_evaluator.h"

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

// The best candidate by brute force, with the scan's order: forward by ascending bin, then
// backward by descending bin; a later candidate replaces only with a strictly larger loss change.
SplitCandidate BestCandidateByBruteForce(const Case& c, const SplitParams& p, float node_gain) {
  SplitCandidate best;
  const GradientQuantizer& q = c.quantizer;
  const std::size_t n = c.nonzero.size();
  for (int dir : {+1, -1}) {
    GradientSum acc;
    for (std::size_t k = 0; k < n; ++k) {
      const uint32_t bin = c.nonzero[dir > 0 ? k : n - 1 - k];
      acc += c.hist[bin];
      const GradientSum rest = c.node_sum - acc;
      const GradientSum& l = dir > 0 ? acc : rest;
      const GradientSum& r = dir > 0 ? rest : acc;
      const float loss =
          SplitLossChange(p, q.Grad(l.g), q.Hess(l.h), q.Grad(r.g), q.Hess(r.h), node_gain);
      if (loss == -INFINITY || !(loss > best.loss_chg)) continue;
      best.loss_chg = loss;
      best.split_bin = static_cast<int32_t>(dir > 0 ? bin : bin - 1);
      best.default_left = dir < 0;
      best.left_sum = l;
      best.found = true;
    }
  }
  return best;
}

// Steps are scanned in blocks that a bound may skip: over many bins (several blocks), with L1,
// max_delta_step and min_child_weight, the scan finds the brute-force candidate, and a `must_beat`
// up to its loss change (a tie included) still finds it; above it, nothing at or over must_beat.
// EvaluateCompact, from the same sums gathered, finds the same candidate.
TEST(SplitEvaluator, SkippedStepsNeverHoldTheBestOrATie) {
  std::mt19937 rng(11);
  int found_cases = 0;
  for (int trial = 0; trial < 300; ++trial) {
    SplitParams p;
    p.lambda = std::vector<float>{1.0f, 0.5f, 0.0f}[trial % 3];
    p.min_child_weight = std::vector<float>{1.0f, 0.1f, 0.0f, 5.0f}[(trial / 3) % 4];
    p.alpha = trial % 7 == 0 ? 0.3f : 0.0f;
    p.max_delta_step = trial % 11 == 0 ? 0.7f : 0.0f;
    const uint32_t nb = 1 + rng() % 300;
    const Case c = MakeCase(&rng, nb, 2 + static_cast<int>(rng() % 3000), (trial % 4) * 0.25);
    const GradientQuantizer& q = c.quantizer;
    const float node_gain = CalcGain(p, q.Grad(c.node_sum.g), q.Hess(c.node_sum.h));
    const SplitEvaluator evaluator(&c.cuts, p, &q);
    const SplitCandidate brute = BestCandidateByBruteForce(c, p, node_gain);
    auto scan = [&](float must_beat) {
      return evaluator.EvaluateBins(c.hist.data(), c.nonzero.data(), c.nonzero.size(), c.present,
                                    c.node_sum, node_gain, 0, must_beat);
    };
    // The by-column path's form: the non-empty bins' sums gathered in order.
    std::vector<GradientSum> values;
    for (uint32_t b : c.nonzero) values.push_back(c.hist[b]);
    for (float must_beat :
         {-INFINITY, brute.loss_chg - 1.0f, std::nextafter(brute.loss_chg, -INFINITY),
          brute.loss_chg, std::nextafter(brute.loss_chg, INFINITY), brute.loss_chg + 1.0f}) {
      const SplitCandidate found = scan(must_beat);
      const SplitCandidate compact =
          evaluator.EvaluateCompact(values.data(), c.nonzero.data(), c.nonzero.size(), c.present,
                                    c.node_sum, node_gain, 0, must_beat);
      EXPECT_EQ(compact.found, found.found) << trial;
      EXPECT_EQ(compact.loss_chg, found.loss_chg) << trial;
      EXPECT_EQ(compact.split_bin, found.split_bin) << trial;
      EXPECT_EQ(compact.default_left, found.default_left) << trial;
      EXPECT_EQ(compact.left_sum, found.left_sum) << trial;
      EXPECT_EQ(compact.right_sum, found.right_sum) << trial;
      if (brute.found && !(must_beat > brute.loss_chg)) {
        ASSERT_TRUE(found.found) << trial << " " << must_beat;
        EXPECT_EQ(found.loss_chg, brute.loss_chg) << trial;
        EXPECT_EQ(found.split_bin, brute.split_bin) << trial;
        EXPECT_EQ(found.default_left, brute.default_left) << trial;
        EXPECT_EQ(found.left_sum, brute.left_sum) << trial;
      } else if (found.found) {
        EXPECT_LT(found.loss_chg, must_beat) << trial;
      }
    }
    found_cases += brute.found;
  }
  EXPECT_GT(found_cases, 150);
}

// A block whose last step reaches min_child_weight exactly holds the best split: bins 0-15 one
// row each (g -1, h 1/16: the left side's hessian is 1 = min_child_weight after bin 15), bin 16
// ten rows (g +1, h 1). The split after bin 15 is the only allowed one.
TEST(SplitEvaluator, BlockEndingAtMinChildWeightIsScanned) {
  Case c;
  c.cuts.ptr = {0, 17};
  for (int b = 0; b < 17; ++b) c.cuts.values.push_back(static_cast<float>(b + 1));
  c.cuts.min_values = {0.0f};
  std::vector<GradPair> rows(16, GradPair{-1.0f, 1.0f / 16});
  rows.resize(26, GradPair{1.0f, 1.0f});
  auto comm = rabit::MakeLocalCommunicator();
  c.quantizer = GradientQuantizer(rows, 1, 0, comm.get());
  c.hist.assign(17, GradientSum{});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    c.hist[std::min<std::size_t>(i, 16)] += c.quantizer.Quantize(rows[i]);
  }
  for (uint32_t b = 0; b < 17; ++b) c.nonzero.push_back(b);
  for (const GradientSum& h : c.hist) c.present += h;
  c.node_sum = c.present;
  SplitParams p;
  p.min_child_weight = 1.0f;
  const float node_gain =
      CalcGain(p, c.quantizer.Grad(c.node_sum.g), c.quantizer.Hess(c.node_sum.h));
  const SplitCandidate found =
      SplitEvaluator(&c.cuts, p, &c.quantizer)
          .EvaluateBins(c.hist.data(), c.nonzero.data(), 17, c.present, c.node_sum, node_gain, 0);
  ASSERT_TRUE(found.found);
  EXPECT_EQ(found.split_bin, 15);
  EXPECT_EQ(c.quantizer.Hess(found.left_sum.h), 1.0);
  // left (-16, 1): 256 / 2; right (10, 10): 100 / 11; node (-6, 11): 36 / 12.
  EXPECT_FLOAT_EQ(found.loss_chg, 128.0f + 100.0f / 11.0f - 3.0f);
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

// A side's gain given a weight w is -2 times its loss g w + (h + lambda) w^2 / 2 + alpha |w|, the
// L1 term included (XGBoost 3.4.1 reports it so: on 400 generated rows with alpha 10 and
// max_delta_step 1 its dump shows gain 99.344 where 1.7.4 and 3.2.0 show 139.344, and under a
// monotone constraint that clamps nothing the gain of the free split). By hand: g -4, h 3, lambda
// 1, alpha 1. The Newton weight ThresholdL1(4, 1) / 4 = 3/4; max_delta_step 0.5 clamps it to 0.5:
// -(2 (-4) 0.5 + 4 (0.25)) - 2 (1) 0.5 = 3 - 1 = 2 (3 without the L1 term).
TEST(SplitEvaluator, GainGivenAWeightChargesTheL1Term) {
  SplitParams p;
  p.lambda = 1.0f;
  p.alpha = 1.0f;
  p.max_delta_step = 0.5f;
  EXPECT_FLOAT_EQ(CalcGain(p, -4.0, 3.0), 2.0f);
  // A split into (g -4, h 3) and (g 4, h 3): both clamped, 2 + 2 over a node of g 0, whose
  // weight and gain are 0.
  EXPECT_FLOAT_EQ(SplitLossChange(p, -4.0, 3.0, 4.0, 3.0, CalcGain(p, 0.0, 6.0)), 4.0f);
  // Under monotone constraints: at the unclamped weight 3/4 the closed form 3^2 / 4 = 2.25, as
  // without constraints; clamped to 0.5 by a box, 2 as above.
  p.max_delta_step = 0.0f;
  EXPECT_FLOAT_EQ(CalcGain(p, -4.0, 3.0), 2.25f);
  EXPECT_FLOAT_EQ(BoundedGainGivenWeight(p, -4.0, 3.0, 0.75f), 2.25f);
  EXPECT_FLOAT_EQ(BoundedGainGivenWeight(p, -4.0, 3.0, 0.5f), 2.0f);
  EXPECT_FLOAT_EQ(BoundedLossChange(p, -4.0, 3.0, 4.0, 3.0, 0.0f, WeightBounds{-0.5f, 0.5f}, -1),
                  4.0f);
}

// Under constraints a side's gain is computed in double, as XGBoost 3.4.1 does (its gains of
// constrained nodes equal ringboost's max_delta_step ones, computed in double, to the last digit
// of the dump, and its tie-breaks follow: on 400 generated rows with monotone (1,1,-1,-1,-1),
// alpha 3, max_delta_step 0.4 and logistic loss its second tree's root split f0 < 2.5 where the
// float arithmetic chose f0 < 2.75). By hand, sums of 20M rows: g -(1e7 + 0.3), h 2e7, lambda 1,
// weight 1 clamped: -(2 g + h + 1) = -0.4. In float g rounds to -1e7 and the terms cancel to 0.
TEST(SplitEvaluator, BoundedGainIsComputedInDouble) {
  SplitParams p;
  p.lambda = 1.0f;
  EXPECT_NEAR(BoundedGainGivenWeight(p, -(1e7 + 0.3), 2e7, 1.0f), -0.4f, 1e-6f);
  // The same formula as an unconstrained side whose weight (about 0.5) max_delta_step clamps.
  p.max_delta_step = 0.25f;
  EXPECT_EQ(BoundedGainGivenWeight(p, -(1e7 + 0.3), 2e7, 0.25f), CalcGain(p, -(1e7 + 0.3), 2e7));
}

}  // namespace
}  // namespace ringboost

namespace ringboost {

// The loss changes of a block of candidates by four-lane steps (where the CPU has AVX2) are the
// one-at-a-time formula's bits, and allowed where both sides reach min_child_weight: blocks of
// 1 to 32 (whole steps and tails), L1 and no L2, sides with zero and negative hessians, and sums
// past 2^53, whose conversion to double rounds.
TEST(SplitEvaluator, NoDeltaLossesBothWaysAreTheFormulasBits) {
  std::mt19937_64 rng(11);
  HistogramCuts cuts;
  cuts.ptr = {0, 4};
  cuts.values = {1.0f, 2.0f, 3.0f, 4.0f};
  cuts.min_values = {0.0f};
  std::vector<GradPair> gpair;
  std::uniform_real_distribution<float> grad(-1.0f, 1.0f), hess(0.0f, 0.25f);
  for (int i = 0; i < 1000; ++i) gpair.push_back(GradPair{grad(rng), hess(rng)});
  auto comm = rabit::MakeLocalCommunicator();
  const GradientQuantizer q(gpair, 1, 0, comm.get());
  int compared = 0, allowed_seen = 0;
  for (int trial = 0; trial < 600; ++trial) {
    SplitParams p;
    p.lambda = std::vector<float>{1.0f, 0.0f, 0.3f}[trial % 3];
    p.alpha = std::vector<float>{0.0f, 0.5f}[(trial / 3) % 2];
    p.min_child_weight = std::vector<float>{1.0f, 0.0f, 3.0f}[(trial / 6) % 3];
    const SplitEvaluator evaluator(&cuts, p, &q);
    // Sums of up to `scale` in gradient units, or (every third case) raw sums up to 2^61.
    const double scale = std::vector<double>{2.0, 500.0, 0.0}[(trial / 18) % 3];
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    const auto draw = [&](double u) {
      // Within 2^61: the other side, the node less one, stays within int64.
      const double v = scale == 0.0 ? unit(rng) * 0x1p61 : unit(rng) * scale / u;
      return static_cast<int64_t>(std::clamp(v, -0x1p61, 0x1p61));
    };
    const std::size_t m = 1 + rng() % 32;
    std::vector<GradientSum> sums(m);
    const GradientSum node{draw(q.grad_unit()), std::llabs(draw(q.hess_unit()))};
    for (GradientSum& s : sums) {
      s = GradientSum{draw(q.grad_unit()), draw(q.hess_unit()) / 2};
      if (rng() % 8 == 0) s.h = 0;
      if (rng() % 8 == 0) s.h = node.h;  // the other side's hessian zero
    }
    const float node_gain = CalcGain(p, q.Grad(node.g), q.Hess(node.h));
    std::vector<float> lanes(m, NAN), steps(m, NAN);
    const uint32_t a = evaluator.NoDeltaLosses(sums.data(), m, node, node_gain, lanes.data());
    const uint32_t b = evaluator.NoDeltaLosses(sums.data(), m, node, node_gain, steps.data(),
                                               /*vector=*/false);
    ASSERT_EQ(a, b) << trial;
    const int64_t min_hess = q.HessAtLeast(p.min_child_weight);
    for (std::size_t i = 0; i < m; ++i) {
      const bool heavy = sums[i].h >= min_hess && (node - sums[i]).h >= min_hess;
      EXPECT_EQ((a >> i & 1) != 0, heavy) << trial << " " << i;
      if (!(a >> i & 1)) continue;
      ++allowed_seen;
      // The formula as the evaluator's other paths write it.
      const GradientSum rest = node - sums[i];
      const float want = (SideGain(p, q.Grad(sums[i].g), q.Hess(sums[i].h)) +
                          SideGain(p, q.Grad(rest.g), q.Hess(rest.h))) -
                         node_gain;
      uint32_t want_bits, lane_bits, step_bits;
      std::memcpy(&want_bits, &want, 4);
      std::memcpy(&lane_bits, &lanes[i], 4);
      std::memcpy(&step_bits, &steps[i], 4);
      EXPECT_EQ(lane_bits, want_bits) << trial << " " << i;
      EXPECT_EQ(step_bits, want_bits) << trial << " " << i;
      ++compared;
    }
  }
  EXPECT_GT(allowed_seen, 1000);
  EXPECT_GT(compared, 1000);
}

}  // namespace ringboost

namespace ringboost {

// A feature's bin scan, four bins a step (where the CPU has AVX2) and a bin a step, against sums
// written out here: the non-empty bins in order, their total, the least and greatest prefix sum
// of g (with the empty prefix's 0) and whether no h is negative. Runs of 0 to 37 bins (whole
// steps and tails), mostly empty or mostly full, an offset feature start, a scan continued over a
// second range (the chunked way), and sums up to 2^58.
TEST(SplitEvaluator, ScanBinsBothWaysAreTheSums) {
  std::mt19937_64 rng(29);
  int compared = 0, negative_seen = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const uint32_t begin = rng() % 5, len = rng() % 38;
    const uint32_t cut = begin + (trial % 3 == 0 ? rng() % (len + 1) : len);  // second range
    const int empty_in_8 = static_cast<int>(rng() % 9);
    const int64_t scale = int64_t{1} << (rng() % 2 == 0 ? 20 : 58);
    std::vector<GradientSum> hist(begin + len + 1);
    for (GradientSum& c : hist) {
      if (static_cast<int>(rng() % 8) < empty_in_8) continue;
      c.g = static_cast<int64_t>(rng() % (2 * scale)) - scale;
      c.h = static_cast<int64_t>(rng() % scale) - (rng() % 16 == 0 ? scale / 2 : 0);
      if (rng() % 6 == 0) c.g = 0;  // non-empty by h alone
      if (rng() % 6 == 0) c.h = 0;  // by g alone
    }
    // The reference.
    std::vector<uint32_t> want_bins;
    GradientSum want_sum;
    int64_t want_min = 0, want_max = 0;
    bool want_nonneg = true;
    for (uint32_t b = begin; b < begin + len; ++b) {
      if (hist[b].g != 0 || hist[b].h != 0) want_bins.push_back(b - begin);
      want_sum += hist[b];
      want_min = std::min(want_min, want_sum.g);
      want_max = std::max(want_max, want_sum.g);
      want_nonneg = want_nonneg && hist[b].h >= 0;
    }
    negative_seen += !want_nonneg;
    for (bool vector : {true, false}) {
      std::vector<uint32_t> nonzero(len + 1, 0xdeadbeef);
      SplitEvaluator::BinScan scan;
      SplitEvaluator::ScanBins(hist.data(), begin, cut, begin, nonzero.data(), &scan, vector);
      SplitEvaluator::ScanBins(hist.data(), cut, begin + len, begin, nonzero.data(), &scan, vector);
      ASSERT_EQ(scan.n, want_bins.size()) << trial << " vector " << vector;
      for (std::size_t k = 0; k < scan.n; ++k) ASSERT_EQ(nonzero[k], want_bins[k]) << trial;
      EXPECT_EQ(scan.present, want_sum) << trial;
      EXPECT_EQ(scan.prefix_min, want_min) << trial;
      EXPECT_EQ(scan.prefix_max, want_max) << trial;
      EXPECT_EQ(scan.nonnegative_hess, want_nonneg) << trial;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 4000);
  EXPECT_GT(negative_seen, 100);  // the sign's fold is exercised
}

}  // namespace ringboost

namespace ringboost {

// A feature's splits found by the one-pass forward scan (EvaluateFeature on a feature marked
// complete, no max_delta_step or constraints) are the block-wise scan's (ScanBins, then
// EvaluateBins): the same loss change
// bits, bin, sides and direction, missing values (both directions) or not, L1 and no L2,
// min_child_weight 0 to 3, mostly empty or full bins, 1 to 40 bins (whole steps and tails), node
// gains as computed or halved.
// Histograms that are palindromes in h and antisymmetric in g tie each candidate with another
// one exactly (the same two side gains swapped): the lower bin must win. The forward scan's
// lanes (eight-bin steps where the CPU has AVX-512, and four-bin ones) and its bin-a-step loop
// agree too (mutations caught: a lane taking an equal loss, a side under min_child_weight let
// through).
TEST(SplitEvaluator, ForwardBestIsTheBlockwiseScansSplit) {
  std::mt19937_64 rng(31);
  std::vector<GradPair> gpair;
  std::uniform_real_distribution<float> grad(-1.0f, 1.0f), hess(0.0f, 0.25f);
  for (int i = 0; i < 1000; ++i) gpair.push_back(GradPair{grad(rng), hess(rng)});
  auto comm = rabit::MakeLocalCommunicator();
  const GradientQuantizer q(gpair, 1, 0, comm.get());
  int found = 0, ties = 0, backward = 0, backward_won = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const uint32_t m = 1 + rng() % 40;
    HistogramCuts cuts;
    cuts.ptr = {0, m};
    for (uint32_t b = 0; b < m; ++b) cuts.values.push_back(static_cast<float>(b + 1));
    cuts.min_values = {0.0f};
    SplitParams p;
    p.lambda = std::vector<float>{1.0f, 0.0f, 0.3f}[trial % 3];
    p.alpha = std::vector<float>{0.0f, 0.5f}[(trial / 3) % 2];
    p.min_child_weight = std::vector<float>{1.0f, 0.0f, 3.0f}[(trial / 6) % 3];
    SplitEvaluator evaluator(&cuts, p, &q);
    const bool tie = trial % 4 == 0;
    const int empty_in_8 = tie ? 0 : static_cast<int>(rng() % 8);
    // A bin's sums: g in [-1, 1], h in (0, 2] (min_child_weight reached by a few bins).
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const auto g_of = [&] { return static_cast<int64_t>((2.0 * unit(rng) - 1.0) / q.grad_unit()); };
    const auto h_of = [&] {
      return static_cast<int64_t>((2.0 * unit(rng) + 1e-3) / q.hess_unit());
    };
    std::vector<GradientSum> hist(m);
    for (uint32_t b = 0; b < m; ++b) {
      if (static_cast<int>(rng() % 8) < empty_in_8) continue;
      hist[b] = GradientSum{g_of(), h_of()};
    }
    if (tie) {  // g antisymmetric, h a palindrome (the middle bin of an odd m: g 0)
      for (uint32_t b = 0; b < m / 2; ++b) {
        hist[m - 1 - b] = GradientSum{-hist[b].g, hist[b].h};
      }
      if (m % 2 == 1) hist[m / 2].g = 0;
    }
    GradientSum present;
    for (const GradientSum& c : hist) present += c;
    GradientSum node = present;
    if (!tie && rng() % 3 == 0) {  // rows missing the feature
      node += GradientSum{g_of(), h_of()};
      ++backward;
    }
    // Now and then a node gain under its sides' (an input like any other): an empty bin's
    // candidate, which repeats the one before it or splits off nothing, then gains too, and must
    // still not be taken.
    const float node_gain =
        CalcGain(p, q.Grad(node.g), q.Hess(node.h)) * (trial % 5 == 1 ? 0.5f : 1.0f);
    const Histogram histogram(hist.begin(), hist.end());
    const std::vector<uint32_t> features{0};
    const NodeToEvaluate input{&histogram, node, node_gain, &features};
    // Marked complete by the node's own sums (a feature some rows miss: the block-wise way), or,
    // every other trial, by the present bins' (as if the root's sums had matched: the one pass
    // forwards finds rows missing, and the block-wise search follows).
    evaluator.MarkCompleteFeatures(histogram, trial % 2 == 0 ? node : present);
    const SplitCandidate one_pass = evaluator.EvaluateFeature(input, 0);
    std::vector<uint32_t> nonzero(m + 1);
    SplitEvaluator::BinScan scan;
    SplitEvaluator::ScanBins(hist.data(), 0, m, 0, nonzero.data(), &scan, /*vector=*/false);
    const SplitCandidate blockwise = evaluator.EvaluateBins(hist.data(), nonzero.data(), scan.n,
                                                            scan.present, node, node_gain, 0);
    ASSERT_EQ(one_pass.found, blockwise.found) << trial;
    if (!one_pass.found) continue;
    ++found;
    backward_won += one_pass.default_left && trial % 2 == 1;
    uint32_t a_bits, b_bits;
    std::memcpy(&a_bits, &one_pass.loss_chg, sizeof(a_bits));
    std::memcpy(&b_bits, &blockwise.loss_chg, sizeof(b_bits));
    EXPECT_EQ(a_bits, b_bits) << trial;
    EXPECT_EQ(one_pass.split_bin, blockwise.split_bin) << trial;
    EXPECT_EQ(one_pass.default_left, blockwise.default_left) << trial;
    EXPECT_EQ(one_pass.left_sum, blockwise.left_sum) << trial;
    EXPECT_EQ(one_pass.right_sum, blockwise.right_sum) << trial;
    EXPECT_EQ(one_pass.split_cond, blockwise.split_cond) << trial;
    if (tie && m >= 3) {
      ++ties;
      EXPECT_LE(one_pass.split_bin, static_cast<int32_t>(m - 2) / 2) << trial;  // the lower
    }
    // The forward scan's ways: the widest lanes the CPU has, AVX2's, a bin a step.
    float step_loss;
    int64_t step_bin;
    GradientSum step_present;
    const bool b = evaluator.ForwardBest(hist.data(), m, node, node_gain, &step_loss, &step_bin,
                                         &step_present, /*vector=*/false);
    EXPECT_EQ(step_present, present) << trial;
    for (bool wide : {true, false}) {
      float lane_loss;
      int64_t lane_bin;
      GradientSum lane_present;
      const bool a = evaluator.ForwardBest(hist.data(), m, node, node_gain, &lane_loss, &lane_bin,
                                           &lane_present, /*vector=*/true, wide);
      ASSERT_EQ(a, b) << trial << " " << wide;
      EXPECT_EQ(lane_bin, step_bin) << trial << " " << wide;
      EXPECT_EQ(lane_present, present) << trial << " " << wide;
      std::memcpy(&a_bits, &lane_loss, sizeof(a_bits));
      std::memcpy(&b_bits, &step_loss, sizeof(b_bits));
      EXPECT_EQ(a_bits, b_bits) << trial << " " << wide;
    }
  }
  EXPECT_GT(found, 1500);
  EXPECT_GT(ties, 300);
  EXPECT_GT(backward, 300);
  EXPECT_GT(backward_won, 30);  // a backward split after the one forward pass
}

}  // namespace ringboost
