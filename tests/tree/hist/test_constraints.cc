// The constraints' bookkeeping (tree/constraints.h) and their effect on one split, by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/params.h"
#include "rabit/communicator.h"
#include "tree/constraints.h"
#include "tree/gradient.h"
#include "tree/hist/split_evaluator.h"
#include "tree/tree_params.h"

namespace ringboost {
namespace {

std::vector<uint32_t> Allowed(const InteractionTracker& t, int nid, uint32_t num_features) {
  std::vector<uint32_t> all;
  for (uint32_t f = 0; f < num_features; ++f) all.push_back(f);
  t.Filter(nid, &all);
  return all;
}

// XGBoost's rule: the path's features, plus every set holding all of them.
TEST(InteractionTracker, FollowsXGBoostsRule) {
  const std::vector<std::vector<uint32_t>> sets = {{0, 1}, {1, 2, 3}, {4}};
  InteractionTracker t(&sets);
  t.Reset();
  EXPECT_EQ(Allowed(t, 0, 6), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));  // the root: all
  t.Split(0, 1, 1, 2);  // 1 is in two sets: both open
  EXPECT_EQ(Allowed(t, 1, 6), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(Allowed(t, 2, 6), (std::vector<uint32_t>{0, 1, 2, 3}));
  t.Split(1, 2, 3, 4);  // {1, 2}: only {1, 2, 3} holds both
  EXPECT_EQ(Allowed(t, 3, 6), (std::vector<uint32_t>{1, 2, 3}));
  t.Split(2, 0, 5, 6);  // {0, 1}
  EXPECT_EQ(Allowed(t, 6, 6), (std::vector<uint32_t>{0, 1}));
  t.Split(5, 1, 7, 8);  // the same feature again changes nothing
  EXPECT_EQ(Allowed(t, 7, 6), (std::vector<uint32_t>{0, 1}));
  InteractionTracker u(&sets);
  u.Reset();
  u.Split(0, 5, 1, 2);  // in no set: itself only
  EXPECT_EQ(Allowed(u, 1, 6), (std::vector<uint32_t>{5}));
  InteractionTracker none(nullptr);
  none.Reset();
  none.Split(0, 5, 1, 2);
  EXPECT_EQ(Allowed(none, 1, 6).size(), 6u);
}

// "[]" constrains, as in XGBoost 1.7.4, 3.2.0 and 3.4.1 (whose trees on 5 features with "[]"
// split below a root on f0 only on f0): every feature is in no set, so each path keeps to one
// feature. A blank value is no constraint.
TEST(TreeConstraints, EmptyListKeepsEachPathToOneFeature) {
  Params params;
  params.interaction_constraints = "[]";
  const TreeConstraints c = TreeConstraints::From(params, 3, nullptr);
  EXPECT_TRUE(c.Any());
  InteractionTracker t(&c.interaction);
  t.Reset();
  EXPECT_EQ(Allowed(t, 0, 3), (std::vector<uint32_t>{0, 1, 2}));
  t.Split(0, 1, 1, 2);
  EXPECT_EQ(Allowed(t, 1, 3), (std::vector<uint32_t>{1}));
  EXPECT_EQ(Allowed(t, 2, 3), (std::vector<uint32_t>{1}));
  params.interaction_constraints = " [ ] ";
  EXPECT_TRUE(TreeConstraints::From(params, 3, nullptr).Any());
  params.interaction_constraints = "  ";
  EXPECT_FALSE(TreeConstraints::From(params, 3, nullptr).Any());
}

// A feature the data lacks is named with the ids and names the data has, or none: data of 3
// features has ids 0 to 2 and names f0 to f2; data of none has neither (the range read
// "ids 0 to 4294967295" and "f0 to f4294967295" then).
std::string ResolveError(const std::string& interaction, const std::string& monotone, uint32_t n) {
  Params params;
  params.interaction_constraints = interaction;
  params.monotone_constraints = monotone;
  try {
    TreeConstraints::From(params, n, nullptr);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(TreeConstraints, MissingFeaturesNameTheDatasRange) {
  EXPECT_NE(ResolveError("[[0,7]]", "", 3).find("has 3 features (ids 0 to 2)"), std::string::npos);
  EXPECT_NE(ResolveError("", "{\"f5\": 1}", 3).find("features are named f0 to f2"),
            std::string::npos);
  EXPECT_NE(ResolveError("[[0]]", "", 0).find("the training data has no features"),
            std::string::npos);
  EXPECT_NE(ResolveError("", "{\"f0\": 1}", 0).find("the training data has no features"),
            std::string::npos);
}

TEST(WeightBounds, ChildBoxesMeetAtTheMidPoint) {
  WeightBounds parent{-1.0f, 2.0f}, l, r;
  ChildBounds(parent, 1, -0.5f, 1.5f, &l, &r);
  EXPECT_EQ(l.lower, -1.0f);
  EXPECT_EQ(l.upper, 0.5f);
  EXPECT_EQ(r.lower, 0.5f);
  EXPECT_EQ(r.upper, 2.0f);
  ChildBounds(parent, -1, 1.5f, -0.5f, &l, &r);
  EXPECT_EQ(l.lower, 0.5f);
  EXPECT_EQ(l.upper, 2.0f);
  EXPECT_EQ(r.upper, 0.5f);
  ChildBounds(parent, 0, 1.5f, -0.5f, &l, &r);
  EXPECT_EQ(l.lower, -1.0f);
  EXPECT_EQ(r.upper, 2.0f);
  EXPECT_EQ(WeightBounds{}.Clamp(3e38f), 3e38f);
  EXPECT_EQ((WeightBounds{0.0f, 1.0f}.Clamp(-2.0f)), 0.0f);
}

// One feature, four bins with g = (-4, -2, 2, 4) and h = 1 each, lambda 1, mcw 0: the best free
// split is between bins 1 and 2 (left weight 6/3 = 2, right -2); increasing forbids every split
// whose left weight exceeds the right, so nothing is found; decreasing finds the same split, with
// the gain of the clamped weights.
TEST(MonotoneSplit, RejectsTheWrongOrderAndClampsToTheBox) {
  Params params;
  params.min_child_weight = 0;
  const SplitParams sp = TreeParams::From(params, 0.0f).split;
  HistogramCuts cuts;
  cuts.ptr = {0, 4};
  cuts.values = {1, 2, 3, 4};
  cuts.min_values = {0};
  std::vector<GradPair> gpair = {{-4, 1}, {-2, 1}, {2, 1}, {4, 1}};
  auto comm = rabit::MakeLocalCommunicator();
  GradientQuantizer q(gpair, 1, 0, comm.get(), 1);
  std::vector<GradientSum> hist;
  GradientSum total;
  for (const GradPair& p : gpair) {
    hist.push_back(q.Quantize(p));
    total += hist.back();
  }
  const std::vector<uint32_t> nonzero = {0, 1, 2, 3};
  SplitEvaluator free(&cuts, sp, &q);
  const SplitCandidate f = free.EvaluateBins(hist.data(), nonzero.data(), 4, total, total, 0.0f, 0);
  ASSERT_TRUE(f.found);
  EXPECT_EQ(f.split_bin, 1);
  const std::vector<int8_t> up = {1}, down = {-1};
  SplitEvaluator inc(&cuts, sp, &q);
  inc.SetMonotone(&up);
  EXPECT_FALSE(inc.EvaluateBins(hist.data(), nonzero.data(), 4, total, total, 0.0f, 0).found);
  SplitEvaluator dec(&cuts, sp, &q);
  dec.SetMonotone(&down);
  const SplitCandidate d = dec.EvaluateBins(hist.data(), nonzero.data(), 4, total, total, 0.0f, 0);
  ASSERT_TRUE(d.found);
  EXPECT_EQ(d.split_bin, 1);
  // Weights 2 and -2: gain -(2 * -6 * 2 + 3 * 4) twice = 24 (the free formula: 36/3 twice).
  EXPECT_FLOAT_EQ(d.loss_chg, 24.0f);
  // Boxed to [-1, 1]: weights 1 and -1, gain -(2 * -6 + 3) twice = 18.
  const SplitCandidate b = dec.EvaluateBins(hist.data(), nonzero.data(), 4, total, total, 0.0f, 0,
                                            -INFINITY, WeightBounds{-1.0f, 1.0f});
  ASSERT_TRUE(b.found);
  EXPECT_FLOAT_EQ(b.loss_chg, 18.0f);
}

}  // namespace
}  // namespace ringboost
